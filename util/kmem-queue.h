/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_QUEUE_H
#define __PERF_KMEM_QUEUE_H

/*
 * perf kmem's events in time order.
 *
 * Frees pair with allocations across CPUs, so the analyses need the
 * events in time order, not in the per-CPU order of the file.  perf's
 * ordered_events does that by queueing a pointer to each event and parsing
 * the event again when it is delivered: a second pass over the data of a
 * trace of hundreds of megabytes, and a walk of a linked list per event.
 * This queue keeps the few numbers each event is read for, decoded once,
 * in an array, and puts a round in order with a merge of its per-CPU runs.
 *
 * The rule of delivery is perf's (OE_FLUSH__ROUND): at the end of a round
 * of the recording, the events no later than the latest event of the
 * round before are delivered, oldest first, events of equal time in the
 * order they came in; the rest wait for the next round or the final flush.
 */

#include <linux/types.h>
#include <stddef.h>

struct kmem_queue;

/* Deliver one record; non-zero stops the delivery and is returned. */
typedef int (*kmem_queue_fn)(void *record, void *arg);

/*
 * Records are @record_size bytes, a multiple of 8, and begin with their
 * u64 timestamp.
 */
struct kmem_queue *kmem_queue__new(size_t record_size, kmem_queue_fn fn,
				   void *arg);
void kmem_queue__delete(struct kmem_queue *q);

/*
 * @prefetch is told of a record a few records before it is delivered, to
 * start loading what delivering it will touch.
 */
void kmem_queue__set_prefetch(struct kmem_queue *q,
			      void (*prefetch)(const void *record, void *arg));

/* Room for a record of time @time, its time filled in; NULL: no memory. */
void *kmem_queue__add(struct kmem_queue *q, u64 time);

/* A round of the recording ended (PERF_RECORD_FINISHED_ROUND). */
int kmem_queue__end_round(struct kmem_queue *q);

/* Deliver every record: the trace ended. */
int kmem_queue__flush(struct kmem_queue *q);

/* Records waiting. */
size_t kmem_queue__nr(const struct kmem_queue *q);

/* The size of a record, as given to kmem_queue__new(). */
size_t kmem_queue__record_size(const struct kmem_queue *q);

#endif /* __PERF_KMEM_QUEUE_H */
