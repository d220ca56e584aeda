// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's events in time order; see kmem-queue.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/zalloc.h>

#include "kmem-queue.h"

struct run;
struct heap_entry;

struct kmem_queue {
	char		*records;
	size_t		record_size;
	size_t		nr;
	size_t		alloc;
	/* Where each run of records in time order ends. */
	size_t		*run_ends;
	size_t		nr_runs;
	size_t		runs_alloc;
	/* Room to deliver them: see deliver_until(). */
	struct run	*runs;
	struct heap_entry *heap;
	size_t		heap_alloc;
	u64		last_time;	/* of the record queued last */
	u64		max_time;	/* latest time queued so far */
	u64		next_flush;	/* deliver up to here at a round's end */
	kmem_queue_fn	fn;
	void		(*prefetch)(const void *record, void *arg);
	void		*arg;
};

#define QUEUE_MIN_RECORDS	4096
/* How far ahead of delivery the analysis is told what comes. */
#define QUEUE_PREFETCH		8

void kmem_queue__set_prefetch(struct kmem_queue *q,
			      void (*prefetch)(const void *record, void *arg))
{
	q->prefetch = prefetch;
}

struct kmem_queue *kmem_queue__new(size_t record_size, kmem_queue_fn fn,
				   void *arg)
{
	struct kmem_queue *q;

	if (record_size < sizeof(u64) || record_size % sizeof(u64))
		return NULL;
	q = zalloc(sizeof(*q));
	if (!q)
		return NULL;
	q->record_size = record_size;
	q->fn = fn;
	q->arg = arg;
	return q;
}

void kmem_queue__delete(struct kmem_queue *q)
{
	if (!q)
		return;
	free(q->records);
	free(q->run_ends);
	free(q->runs);
	free(q->heap);
	free(q);
}

size_t kmem_queue__nr(const struct kmem_queue *q)
{
	return q->nr;
}

size_t kmem_queue__record_size(const struct kmem_queue *q)
{
	return q->record_size;
}

static void *record(const struct kmem_queue *q, char *base, size_t i)
{
	return base + i * q->record_size;
}

static u64 time_of(const void *record)
{
	return *(const u64 *)record;
}

static int grow(struct kmem_queue *q)
{
	size_t alloc = q->alloc ? 2 * q->alloc : QUEUE_MIN_RECORDS;
	char *records = realloc(q->records, alloc * q->record_size);

	if (!records)
		return -ENOMEM;
	q->records = records;
	q->alloc = alloc;
	return 0;
}

/* A record older than the one before it starts a run. */
static int new_run(struct kmem_queue *q)
{
	if (q->nr_runs == q->runs_alloc) {
		size_t alloc = q->runs_alloc ? 2 * q->runs_alloc : 64;
		size_t *ends = realloc(q->run_ends, alloc * sizeof(*ends));

		if (!ends)
			return -ENOMEM;
		q->run_ends = ends;
		q->runs_alloc = alloc;
	}
	q->nr_runs++;
	return 0;
}

void *kmem_queue__add(struct kmem_queue *q, u64 time)
{
	void *r;

	if (q->nr == q->alloc && grow(q))
		return NULL;
	if ((!q->nr || time < q->last_time) && new_run(q))
		return NULL;
	r = record(q, q->records, q->nr++);
	/* The last run ends here, for now. */
	q->run_ends[q->nr_runs - 1] = q->nr;
	*(u64 *)r = time;
	q->last_time = time;
	if (time > q->max_time)
		q->max_time = time;
	return r;
}

/* What is left of a run of records in time order: [next, end). */
struct run {
	size_t	next;
	size_t	end;
};

/*
 * The runs, as a min-heap on the time of their next record; of equal
 * times, the run that came in first, so that delivery is stable.
 */
struct heap_entry {
	u64	time;	/* of the run's next record */
	size_t	run;
};

static bool before(const struct heap_entry *a, const struct heap_entry *b)
{
	return a->time < b->time || (a->time == b->time && a->run < b->run);
}

static void sift_down(struct heap_entry *heap, size_t nr, size_t i)
{
	struct heap_entry moving = heap[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= nr)
			break;
		if (child + 1 < nr && before(&heap[child + 1], &heap[child]))
			child++;
		if (!before(&heap[child], &moving))
			break;
		heap[i] = heap[child];
		i = child;
	}
	heap[i] = moving;
}

/*
 * Records of the first run, up to @limit, that go before every other run's
 * next record: those of a CPU come in runs, so most records are delivered
 * without touching the heap.
 */
static int deliver_from_top(struct kmem_queue *q, struct run *runs,
			    struct heap_entry *heap, size_t nr, u64 limit)
{
	struct heap_entry next = heap[0], other = { .time = ~0ULL };
	struct run *run = &runs[next.run];
	int err = 0;

	if (nr > 1)
		other = heap[nr > 2 && before(&heap[2], &heap[1]) ? 2 : 1];
	do {
		if (q->prefetch && run->next + QUEUE_PREFETCH < run->end)
			q->prefetch(record(q, q->records,
					   run->next + QUEUE_PREFETCH), q->arg);
		err = q->fn(record(q, q->records, run->next), q->arg);
		if (++run->next == run->end)
			break;
		next.time = time_of(record(q, q->records, run->next));
	} while (!err && next.time <= limit && (nr == 1 || before(&next, &other)));
	heap[0].time = next.time;
	return err;
}

/* Deliver, oldest first, the records up to @limit. */
static int deliver_runs(struct kmem_queue *q, struct run *runs,
			struct heap_entry *heap, size_t nr, u64 limit)
{
	size_t i = nr / 2;
	int err = 0;

	while (i--)
		sift_down(heap, nr, i);
	while (nr && heap[0].time <= limit && !err) {
		err = deliver_from_top(q, runs, heap, nr, limit);
		if (runs[heap[0].run].next == runs[heap[0].run].end)
			heap[0] = heap[--nr];
		sift_down(heap, nr, 0);
	}
	return err;
}

/*
 * Move what is left of the runs to the front, in the order they came in;
 * a run that goes on in time order from the one before joins it.
 */
static void keep_undelivered(struct kmem_queue *q, const struct run *runs,
			     size_t nr_runs)
{
	size_t i, nr = 0, size = q->record_size;

	q->nr_runs = 0;
	for (i = 0; i < nr_runs; i++) {
		size_t left = runs[i].end - runs[i].next;

		if (!left)
			continue;
		memmove(record(q, q->records, nr),
			record(q, q->records, runs[i].next), left * size);
		if (!q->nr_runs || time_of(record(q, q->records, nr)) <
				   time_of(record(q, q->records, nr - 1)))
			q->nr_runs++;
		nr += left;
		q->run_ends[q->nr_runs - 1] = nr;
	}
	q->nr = nr;
	if (nr)
		q->last_time = time_of(record(q, q->records, nr - 1));
}

/* Room for one entry per run, to deliver them. */
static int reserve_runs(struct kmem_queue *q)
{
	if (q->nr_runs <= q->heap_alloc)
		return 0;
	free(q->runs);
	free(q->heap);
	q->runs = calloc(q->runs_alloc, sizeof(*q->runs));
	q->heap = calloc(q->runs_alloc, sizeof(*q->heap));
	q->heap_alloc = q->runs && q->heap ? q->runs_alloc : 0;
	return q->heap_alloc ? 0 : -ENOMEM;
}

/* Deliver the records up to @limit, in time order; keep the rest. */
static int deliver_until(struct kmem_queue *q, u64 limit)
{
	size_t i, start = 0;
	int err;

	if (!q->nr)
		return 0;
	if (reserve_runs(q))
		return -ENOMEM;
	for (i = 0; i < q->nr_runs; i++) {
		q->runs[i] = (struct run){ .next = start, .end = q->run_ends[i] };
		q->heap[i] = (struct heap_entry){
			.time = time_of(record(q, q->records, start)),
			.run = i,
		};
		start = q->run_ends[i];
	}
	err = deliver_runs(q, q->runs, q->heap, q->nr_runs, limit);
	keep_undelivered(q, q->runs, i);
	return err;
}

int kmem_queue__end_round(struct kmem_queue *q)
{
	int err = deliver_until(q, q->next_flush);

	if (!err)
		q->next_flush = q->max_time;
	return err;
}

int kmem_queue__flush(struct kmem_queue *q)
{
	return deliver_until(q, ~0ULL);
}
