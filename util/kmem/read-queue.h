/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_QUEUE_H
#define __PERF_KMEM_READ_QUEUE_H

/*
 * perf kmem's events in time order.
 *
 * Frees pair with allocations across CPUs, so the analyses need the
 * events in time order, not in the per-CPU order of the file.  perf's
 * ordered_events queues a pointer to each event and parses the event
 * again to deliver it; this queue keeps the few numbers each event was
 * decoded to, in an array, and merges a round's per-CPU runs with a heap.
 * Why not ordered_events: on a 2.2M-sample page trace, perf kmem stat took
 * 18% more instructions and 30% more time with it than with this queue.
 *
 * The flush policy is perf's (enum kmem_queue_flush): at the end of a
 * round of the recording, the events no later than the latest event of
 * the round before are delivered, oldest first, events of equal time in
 * the order they came in; the rest wait.  The queue holds at most the
 * bytes given to kmem_queue__new(): reaching them, it delivers its older
 * half, so that a recording without rounds (perf record --threads) is
 * read in bounded memory.  An event that then comes older than one
 * already delivered is delivered late, and counted.
 */

#include <linux/types.h>
#include <stddef.h>

struct kmem_queue;

/* Which events a flush delivers. */
enum kmem_queue_flush {
	KMEM_QUEUE_FLUSH__ROUND,	/* up to the previous round's latest */
	KMEM_QUEUE_FLUSH__HALF,		/* the older half: at the memory bound */
	KMEM_QUEUE_FLUSH__FINAL,	/* all: the trace ended */
};

/* A bound that holds two rounds of a busy system many times over. */
#define KMEM_QUEUE_DEFAULT_MAX_BYTES	(32UL << 20)
/* Room for a few records of any size. */
#define KMEM_QUEUE_MIN_BYTES		4096U

/*
 * Records to deliver, oldest first: @nr of them, @records pointing at
 * each.  The deliverer sets @done to the records it delivered, the one
 * whose delivery failed included; the rest stay queued.
 */
struct kmem_queue_span {
	void	**records;
	size_t	nr;
	size_t	done;
};

/*
 * Deliver records; non-zero stops the delivery and is returned.  One call
 * for many records, not one a record: a call through a pointer with its
 * frame and stack canary cost as much as the delivery of a slab event.
 * The deliverer sees what comes next, and starts loading what it will
 * touch.
 */
typedef int (*kmem_queue_fn)(struct kmem_queue_span *span, void *arg);

/**
 * kmem_queue__new - an empty queue
 * @record_size: the bytes of a record, a multiple of 8; a record begins
 *		 with its u64 timestamp
 * @max_bytes: how many bytes of records it may hold, at least a record's
 * @fn: delivers a record
 * @arg: passed to @fn
 *
 * Return: the queue, or NULL for a bad size or no memory.
 */
struct kmem_queue *kmem_queue__new(size_t record_size, size_t max_bytes,
				   kmem_queue_fn fn, void *arg);
void kmem_queue__delete(struct kmem_queue *q);

/*
 * What adding a record reads and writes but for the few that need more
 * (the bound reached, no room at the tail, a new run or source): the
 * first member of a struct kmem_queue, so that kmem_queue__add() is
 * inline.  Every sample of a trace is added: a call, its frame and stack
 * canary were half the cost of adding it.  Only the queue writes these.
 */
struct kmem_queue_in {
	char	*records;
	size_t	record_size;
	size_t	nr;		/* records waiting */
	size_t	max_records;	/* the memory bound */
	size_t	tail;		/* after the newest record */
	/* Records go at tail up to here, short of the bound; 0 at a wrap. */
	size_t	room_end;
	/*
	 * Of the record queued last, or the latest delivered if later: a
	 * record older starts a run or comes late, and needs more.
	 */
	u64	last_time;
	u64	delivered_time;	/* latest time delivered so far */
	u64	nr_late;
	/* The latest time of each source (CPU), NO_TIME if none yet. */
	u64	*source_time;
	u32	nr_sources;
};

/* kmem_queue__add() of a record that needs more than the common steps. */
int kmem_queue__add_prepared(struct kmem_queue *q, u64 time, u32 source,
			     void **slot);

/*
 * The room kmem_queue__add() makes in the common case; NULL, and nothing
 * done, where the record needs kmem_queue__add_prepared(): for a caller
 * that keeps that call out of its own line.
 */
static inline void *kmem_queue__add_common(struct kmem_queue *q, u64 time,
					   u32 source)
{
	struct kmem_queue_in *in = (struct kmem_queue_in *)q;
	char *r;

	if (in->tail == in->room_end || time < in->last_time ||
	    source >= in->nr_sources)
		return NULL;
	/* @source has come up to @time: its records come in time order. */
	in->source_time[source] = time;
	r = in->records + in->tail++ * in->record_size;
	in->nr++;
	*(u64 *)r = time;
	in->last_time = time;
	return r;
}

/**
 * kmem_queue__add - make room for a record
 * @q: the queue
 * @time: the record's timestamp, filled in
 * @source: where it comes from (its CPU): a source's records come in time
 *	    order
 * @slot: where the room is
 *
 * At the memory bound, the records that every source has moved past are
 * delivered first, or, if they are less than a sixteenth, the older half.
 *
 * Return: 0, -ENOMEM, or what delivering returned.
 */
static inline int kmem_queue__add(struct kmem_queue *q, u64 time,
				  u32 source, void **slot)
{
	void *r = kmem_queue__add_common(q, time, source);

	if (!r)
		return kmem_queue__add_prepared(q, time, source, slot);
	*slot = r;
	return 0;
}

/**
 * kmem_queue__flush - deliver records, oldest first
 * @q: the queue
 * @how: which ones
 *
 * Return: 0, -ENOMEM, or what delivering a record returned: the records
 * not delivered stay queued.
 */
int kmem_queue__flush(struct kmem_queue *q, enum kmem_queue_flush how);

/* Records waiting. */
size_t kmem_queue__nr(const struct kmem_queue *q);

/* Records that came after a record of a later time was delivered. */
u64 kmem_queue__nr_late(const struct kmem_queue *q);

/* Times the memory bound made the queue deliver its older half. */
u64 kmem_queue__nr_half_flushes(const struct kmem_queue *q);

#endif /* __PERF_KMEM_READ_QUEUE_H */
