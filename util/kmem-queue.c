// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's events in time order; see kmem-queue.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <linux/kernel.h>
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
	size_t		max_records;	/* the memory bound */
	u64		*times;		/* room to find the median time */
	u64		delivered_time;	/* latest time delivered so far */
	u64		nr_late;
	u64		nr_half_flushes;
	/* The latest time of each source (CPU), NO_TIME if none yet. */
	u64		*source_time;
	u32		nr_sources;
	kmem_queue_fn	fn;
	void		(*prefetch)(const void *record, void *arg);
	void		*arg;
};

#define QUEUE_MIN_RECORDS	4096
/* Sources followed; the records of others never hold the frontier back. */
#define QUEUE_MAX_SOURCES	8192
#define NO_TIME			(~0ULL)
/* How far ahead of delivery the analysis is told what comes. */
#define QUEUE_PREFETCH		8

void kmem_queue__set_prefetch(struct kmem_queue *q,
			      void (*prefetch)(const void *record, void *arg))
{
	q->prefetch = prefetch;
}

struct kmem_queue *kmem_queue__new(size_t record_size, size_t max_bytes,
				   kmem_queue_fn fn, void *arg)
{
	struct kmem_queue *q;

	if (record_size < sizeof(u64) || record_size % sizeof(u64) ||
	    max_bytes < record_size)
		return NULL;
	q = zalloc(sizeof(*q));
	if (!q)
		return NULL;
	q->record_size = record_size;
	q->max_records = max_bytes / record_size;
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
	free(q->times);
	free(q->source_time);
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

u64 kmem_queue__nr_late(const struct kmem_queue *q)
{
	return q->nr_late;
}

u64 kmem_queue__nr_half_flushes(const struct kmem_queue *q)
{
	return q->nr_half_flushes;
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
	char *records;

	alloc = min(alloc, q->max_records);
	records = realloc(q->records, alloc * q->record_size);
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

/* @source has come up to @time: its records come in time order. */
static int note_source(struct kmem_queue *q, u32 source, u64 time)
{
	if (source >= QUEUE_MAX_SOURCES)
		return 0;
	if (source >= q->nr_sources) {
		u32 i, nr = max(2 * q->nr_sources, source + 1);
		u64 *more = realloc(q->source_time, nr * sizeof(*more));

		if (!more)
			return -ENOMEM;
		for (i = q->nr_sources; i < nr; i++)
			more[i] = NO_TIME;
		q->source_time = more;
		q->nr_sources = nr;
	}
	q->source_time[source] = time;
	return 0;
}

int kmem_queue__add(struct kmem_queue *q, u64 time, u32 source, void **slot)
{
	void *r;
	int err;

	if (q->nr == q->max_records) {
		err = kmem_queue__flush(q, KMEM_QUEUE_FLUSH__HALF);
		if (err)
			return err;
	}
	if (q->nr == q->alloc && grow(q))
		return -ENOMEM;
	if ((!q->nr || time < q->last_time) && new_run(q))
		return -ENOMEM;
	if (note_source(q, source, time))
		return -ENOMEM;
	if (time < q->delivered_time)
		q->nr_late++;
	r = record(q, q->records, q->nr++);
	/* The last run ends here, for now. */
	q->run_ends[q->nr_runs - 1] = q->nr;
	*(u64 *)r = time;
	q->last_time = time;
	if (time > q->max_time)
		q->max_time = time;
	*slot = r;
	return 0;
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
		if (next.time > q->delivered_time)
			q->delivered_time = next.time;
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

static void swap_times(u64 *a, u64 *b)
{
	u64 t = *a;

	*a = *b;
	*b = t;
}

/* The @k-th smallest of @t[0..@n), by quickselect; @t is reordered. */
static u64 select_time(u64 *t, size_t n, size_t k)
{
	ssize_t lo = 0, hi = n - 1;

	while (lo < hi) {
		u64 pivot = t[lo + (hi - lo) / 2];
		ssize_t i = lo, j = hi;

		/* Hoare: [lo, j] <= pivot <= [i, hi], and j < i. */
		while (i <= j) {
			while (t[i] < pivot)
				i++;
			while (t[j] > pivot)
				j--;
			if (i <= j)
				swap_times(&t[i++], &t[j--]);
		}
		if ((ssize_t)k <= j)
			hi = j;
		else if ((ssize_t)k >= i)
			lo = i;
		else
			break;
	}
	return t[k];
}

/*
 * The time every source has come up to: no record to come can be older,
 * as each source's records come in time order.  NO_TIME if none came.
 */
static u64 frontier(const struct kmem_queue *q)
{
	u64 t = NO_TIME;
	u32 i;

	for (i = 0; i < q->nr_sources; i++)
		t = min(t, q->source_time[i]);
	return t;
}

/* The times of the records waiting, in q->times. */
static int collect_times(struct kmem_queue *q)
{
	size_t i;

	if (!q->times) {
		q->times = malloc(q->max_records * sizeof(*q->times));
		if (!q->times)
			return -ENOMEM;
	}
	for (i = 0; i < q->nr; i++)
		q->times[i] = time_of(record(q, q->records, i));
	return 0;
}

/*
 * Up to the frontier, when that is a sixteenth of the records or more
 * (each flush looks at every record: fewer would make it costly); else the
 * older half, up to the median time.  A source far behind the others (a
 * CPU gone idle, a file read to its end) holds the frontier back, and the
 * bound must hold.
 */
static int half_limit(struct kmem_queue *q, u64 *limit)
{
	u64 front = frontier(q);
	size_t i, below = 0;

	if (!q->nr)
		return 0;
	if (collect_times(q))
		return -ENOMEM;
	for (i = 0; front != NO_TIME && i < q->nr; i++)
		below += q->times[i] <= front;
	if (below >= q->nr / 16 && below) {
		*limit = front;
		return 0;
	}
	*limit = select_time(q->times, q->nr, (q->nr - 1) / 2);
	return 0;
}

static int flush_limit(struct kmem_queue *q, enum kmem_queue_flush how,
		       u64 *limit)
{
	switch (how) {
	case KMEM_QUEUE_FLUSH__ROUND:
		*limit = q->next_flush;
		return 0;
	case KMEM_QUEUE_FLUSH__HALF:
		q->nr_half_flushes++;
		return half_limit(q, limit);
	case KMEM_QUEUE_FLUSH__FINAL:
	default:
		*limit = ~0ULL;
		return 0;
	}
}

int kmem_queue__flush(struct kmem_queue *q, enum kmem_queue_flush how)
{
	u64 limit = 0;
	int err = flush_limit(q, how, &limit);

	if (!err)
		err = deliver_until(q, limit);
	if (!err && how == KMEM_QUEUE_FLUSH__ROUND)
		q->next_flush = q->max_time;
	return err;
}
