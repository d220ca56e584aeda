// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's events in time order; see read-queue.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "read-queue.h"

/* What is left of a run of records in time order: [next, end). */
struct run {
	size_t	next;
	size_t	end;
};

struct heap_entry;

/*
 * The records are a ring, the first @ring of the array: the runs lie in
 * the order they came in from @head on, wrapping to the front at most
 * once, and a run never wraps.  A flush delivers in place: what is left of
 * each run stays where it is, and the room before @head comes free when
 * the oldest runs are all delivered.  Records move only when the ring
 * grows or is full of holes.
 */
struct kmem_queue {
	struct kmem_queue_in in;	/* first: see kmem_queue__add() */
	size_t		alloc;		/* records the array has room for */
	size_t		ring;		/* of which the ring uses */
	size_t		head;		/* the oldest run's next record */
	struct run	*runs;		/* in the order they came in */
	size_t		nr_runs;
	size_t		runs_alloc;
	/* Room to deliver them: see deliver_until(). */
	struct heap_entry *heap;
	size_t		heap_alloc;
	/* The records a flush delivers next, in time order, and their runs. */
	void		**batch;
	u32		*batch_run;
	u64		next_flush;	/* deliver up to here at a round's end */
	u64		max_time;	/* latest time queued by the last flush */
	u64		*times;		/* room to find the median time */
	u64		nr_half_flushes;
	kmem_queue_fn	fn;
	void		*arg;
};

#define QUEUE_MIN_RECORDS	4096
/* Sources followed; the records of others never hold the frontier back. */
#define QUEUE_MAX_SOURCES	8192
#define NO_TIME			(~0ULL)
/* Records delivered in one call, at most. */
#define QUEUE_BATCH		1024

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
	q->in.record_size = record_size;
	q->in.max_records = max_bytes / record_size;
	q->batch = calloc(QUEUE_BATCH, sizeof(*q->batch));
	q->batch_run = calloc(QUEUE_BATCH, sizeof(*q->batch_run));
	if (!q->batch || !q->batch_run) {
		kmem_queue__delete(q);
		return NULL;
	}
	q->fn = fn;
	q->arg = arg;
	return q;
}

void kmem_queue__delete(struct kmem_queue *q)
{
	if (!q)
		return;
	free(q->in.records);
	free(q->runs);
	free(q->heap);
	free(q->batch);
	free(q->batch_run);
	free(q->times);
	free(q->in.source_time);
	free(q);
}

size_t kmem_queue__nr(const struct kmem_queue *q)
{
	return q->in.nr;
}

u64 kmem_queue__nr_late(const struct kmem_queue *q)
{
	return q->in.nr_late;
}

u64 kmem_queue__nr_half_flushes(const struct kmem_queue *q)
{
	return q->nr_half_flushes;
}

static void *record(const struct kmem_queue *q, size_t i)
{
	return q->in.records + i * q->in.record_size;
}

static u64 time_of(const void *record)
{
	return *(const u64 *)record;
}

/* The records are in two pieces: the newest runs wrapped to the front. */
static bool wrapped(const struct kmem_queue *q)
{
	return q->in.nr && q->in.tail <= q->head;
}

/* Where the free room after the newest record ends. */
static size_t free_room_end(const struct kmem_queue *q)
{
	return wrapped(q) ? q->head : q->ring;
}

/*
 * Where kmem_queue__add() stops adding without a look: at the end of the
 * free room, short of the memory bound (the tail and the records waiting
 * grow together), at once where the next record starts a run at 0.
 */
static void set_room_end(struct kmem_queue *q)
{
	if (!q->in.nr) {
		q->head = 0;
		q->in.tail = 0;
		q->nr_runs = 0;
	}
	q->in.room_end = q->in.tail ?
			 min(free_room_end(q),
			     q->in.tail + q->in.max_records - q->in.nr) : 0;
}

/* Move @run's records to begin at @to; they may overlap where they were. */
static void move_run(struct kmem_queue *q, struct run *run, size_t to)
{
	size_t len = run->end - run->next;

	memmove(record(q, to), record(q, run->next), len * q->in.record_size);
	run->next = to;
	run->end = to + len;
}

/* How many runs lie from @head to the end of the array, before a wrap. */
static size_t runs_before_wrap(const struct kmem_queue *q)
{
	size_t k = 0;

	if (!wrapped(q))
		return 0;
	/* A run that wrapped around lies before @tail, so before @head. */
	while (q->runs[k].next >= q->head)
		k++;
	return k;
}

/*
 * Close the holes delivery left: the runs that wrapped around (all, if
 * none did) move to the start of the array, those before them to its end.
 */
static void pack(struct kmem_queue *q)
{
	size_t i, k = runs_before_wrap(q), to = 0;

	for (i = k; i < q->nr_runs; i++) {
		move_run(q, &q->runs[i], to);
		to = q->runs[i].end;
	}
	to = q->ring;
	for (i = k; i-- > 0;) {
		to -= q->runs[i].end - q->runs[i].next;
		move_run(q, &q->runs[i], to);
	}
	q->head = q->runs[0].next;
	q->in.tail = q->runs[q->nr_runs - 1].end;
}

/*
 * An eighth more records: the runs that wrapped around stay at the front,
 * those before them move to the new end.  The ring grows in small steps
 * in an array that doubles, so that it touches little more memory than
 * the most records the trace kept waiting.
 */
static int grow(struct kmem_queue *q)
{
	size_t ring = q->ring ? q->ring + q->ring / 8 : QUEUE_MIN_RECORDS;
	size_t i, delta;

	ring = min(ring, q->in.max_records);
	if (ring > q->alloc) {
		size_t alloc = min(max(2 * q->alloc, ring), q->in.max_records);
		char *records = realloc(q->in.records, alloc * q->in.record_size);

		if (!records)
			return -ENOMEM;
		q->in.records = records;
		q->alloc = alloc;
	}
	delta = ring - q->ring;
	i = runs_before_wrap(q);
	while (i--)
		move_run(q, &q->runs[i], q->runs[i].next + delta);
	if (wrapped(q))
		q->head += delta;
	q->ring = ring;
	return 0;
}

/*
 * No room after the newest record: wrap to the front if it is free, else
 * grow while records fill half the ring or more, else close the holes.
 */
static int make_room(struct kmem_queue *q)
{
	if (!wrapped(q) && q->head && q->in.tail == q->ring) {
		q->in.tail = 0;
	} else if (q->in.nr >= q->ring / 2 && q->ring < q->in.max_records) {
		if (grow(q))
			return -ENOMEM;
	} else {
		pack(q);
	}
	set_room_end(q);
	return 0;
}

/* A record older than the one before it starts a run, as does a wrap. */
static int new_run(struct kmem_queue *q)
{
	if (q->nr_runs == q->runs_alloc) {
		size_t alloc = q->runs_alloc ? 2 * q->runs_alloc : 64;
		struct run *runs = realloc(q->runs, alloc * sizeof(*runs));

		if (!runs)
			return -ENOMEM;
		q->runs = runs;
		q->runs_alloc = alloc;
	}
	q->runs[q->nr_runs++] = (struct run){ .next = q->in.tail, .end = q->in.tail };
	return 0;
}

/*
 * The newest run ends at the tail: adding a record leaves its end to be
 * set here, before anything reads the runs or moves the tail.
 */
static void end_newest_run(struct kmem_queue *q)
{
	if (q->nr_runs)
		q->runs[q->nr_runs - 1].end = q->in.tail;
}

/* Room to follow @source, which no source before it needed. */
static int more_sources(struct kmem_queue *q, u32 source)
{
	u32 i, nr = max(2 * q->in.nr_sources, source + 1);
	u64 *more = realloc(q->in.source_time, nr * sizeof(*more));

	if (!more)
		return -ENOMEM;
	for (i = q->in.nr_sources; i < nr; i++)
		more[i] = NO_TIME;
	q->in.source_time = more;
	q->in.nr_sources = nr;
	return 0;
}

/*
 * What a few records need before they are added: the memory bound
 * reached, no room at the tail, a new run or a new source.
 */
static int prepare_add(struct kmem_queue *q, u64 time, u32 source)
{
	int err;

	end_newest_run(q);
	if (q->in.nr == q->in.max_records) {
		err = kmem_queue__flush(q, KMEM_QUEUE_FLUSH__HALF);
		if (err)
			return err;
	}
	if (q->in.tail == free_room_end(q) && make_room(q))
		return -ENOMEM;
	/* The newest run ends at the tail; at 0 there is none, or a wrap. */
	if ((!q->in.tail || time < time_of(record(q, q->in.tail - 1))) &&
	    new_run(q))
		return -ENOMEM;
	if (source >= q->in.nr_sources && source < QUEUE_MAX_SOURCES &&
	    more_sources(q, source))
		return -ENOMEM;
	return 0;
}

int kmem_queue__add_prepared(struct kmem_queue *q, u64 time, u32 source,
			     void **slot)
{
	void *r;
	int err = prepare_add(q, time, source);

	if (err)
		return err;
	/* As kmem_queue__add(), but of a source perhaps not followed. */
	if (source < q->in.nr_sources)
		q->in.source_time[source] = time;
	if (time < q->in.delivered_time)
		q->in.nr_late++;
	r = record(q, q->in.tail++);
	q->in.nr++;
	*(u64 *)r = time;
	q->in.last_time = max(time, q->in.delivered_time);
	set_room_end(q);
	*slot = r;
	return 0;
}

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

/*
 * Inline: where CPUs' runs interleave closely, a sift follows every few
 * records delivered, and a call costs as much as the sift of a few runs.
 */
static __always_inline void sift_down(struct heap_entry *heap, size_t nr,
				      size_t i)
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
 * Deliver the batch, and put back in their runs the records the
 * deliverer stopped before: walked back, so that each run is left at
 * the first of its records not delivered.
 */
static int deliver_batch(struct kmem_queue *q, size_t n)
{
	struct kmem_queue_span span = { .records = q->batch, .nr = n };
	int err = q->fn(&span, q->arg);
	size_t k;

	q->in.delivered_time = max(q->in.delivered_time,
				   time_of(q->batch[span.done - 1]));
	for (k = n; k-- > span.done;)
		q->runs[q->batch_run[k]].next =
			((char *)q->batch[k] - q->in.records) / q->in.record_size;
	return err;
}

/*
 * Into the batch, the records of the first run, up to @limit, that go
 * before every other run's next record: those of a CPU come in runs, so
 * most records are taken without touching the heap.
 */
static size_t take_from_top(struct kmem_queue *q, struct run *runs,
			    struct heap_entry *heap, size_t nr, u64 limit,
			    size_t n)
{
	struct heap_entry other;
	u32 top = heap[0].run;
	struct run *run = &runs[top];
	size_t i = run->next, end = run->end, size = q->in.record_size;
	char *r = record(q, i);
	void **batch = q->batch;
	u32 *batch_run = q->batch_run;
	u64 stop = limit;

	/*
	 * Before the second run in the heap: up to its time, or short of it
	 * if it came first.  The top is before it, so that time is not 0.
	 */
	if (nr > 1) {
		other = heap[nr > 2 && before(&heap[2], &heap[1]) ? 2 : 1];
		stop = min(stop, top < other.run ? other.time : other.time - 1);
	}
	/*
	 * The first is due: the caller saw it before @limit and the others.
	 * In locals: a pointer stored could be a field of the queue.
	 */
	end = min(end, i + QUEUE_BATCH - n);
	do {
		batch[n] = r;
		batch_run[n++] = top;
		r += size;
	} while (++i < end && time_of(r) <= stop);
	run->next = i;
	if (i < run->end)
		heap[0].time = time_of(r);
	return n;
}

/*
 * Deliver, oldest first, the records up to @limit, a batch of pointers at
 * a time: the runs of CPUs interleave every few records, and a call of
 * the deliverer for each stretch of one run cost more than the merge.
 */
static int deliver_runs(struct kmem_queue *q, struct run *runs,
			struct heap_entry *heap, size_t nr, u64 limit)
{
	size_t i = nr / 2, n = 0;
	int err = 0;

	while (i--)
		sift_down(heap, nr, i);
	while (nr && heap[0].time <= limit) {
		n = take_from_top(q, runs, heap, nr, limit, n);
		if (runs[heap[0].run].next == runs[heap[0].run].end)
			heap[0] = heap[--nr];
		sift_down(heap, nr, 0);
		if (n == QUEUE_BATCH) {
			err = deliver_batch(q, n);
			n = 0;
			if (err)
				return err;
		}
	}
	return n ? deliver_batch(q, n) : 0;
}

/*
 * Forget the runs delivered; a run that goes on in time order from the
 * one before, right after it in the array, joins it.
 */
static void keep_undelivered(struct kmem_queue *q)
{
	struct run *runs = q->runs;
	size_t i, n = 0, nr = 0;

	for (i = 0; i < q->nr_runs; i++) {
		struct run run = runs[i];

		if (run.next == run.end)
			continue;
		nr += run.end - run.next;
		if (n && runs[n - 1].end == run.next &&
		    time_of(record(q, run.next)) >=
		    time_of(record(q, run.next - 1)))
			runs[n - 1].end = run.end;
		else
			runs[n++] = run;
	}
	q->nr_runs = n;
	q->in.nr = nr;
	if (nr) {
		q->head = runs[0].next;
		q->in.tail = runs[n - 1].end;
		q->in.last_time = time_of(record(q, q->in.tail - 1));
	}
	q->in.last_time = max(q->in.last_time, q->in.delivered_time);
	set_room_end(q);
}

/* Room for a heap entry per run, to deliver them. */
static int reserve_heap(struct kmem_queue *q)
{
	if (q->nr_runs <= q->heap_alloc)
		return 0;
	free(q->heap);
	q->heap = calloc(q->runs_alloc, sizeof(*q->heap));
	q->heap_alloc = q->heap ? q->runs_alloc : 0;
	return q->heap ? 0 : -ENOMEM;
}

/* Deliver the records up to @limit, in time order; keep the rest. */
static int deliver_until(struct kmem_queue *q, u64 limit)
{
	size_t i;
	int err;

	if (!q->in.nr)
		return 0;
	if (reserve_heap(q))
		return -ENOMEM;
	for (i = 0; i < q->nr_runs; i++) {
		q->heap[i] = (struct heap_entry){
			.time = time_of(record(q, q->runs[i].next)),
			.run = i,
		};
	}
	err = deliver_runs(q, q->runs, q->heap, q->nr_runs, limit);
	keep_undelivered(q);
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

	for (i = 0; i < q->in.nr_sources; i++)
		t = min(t, q->in.source_time[i]);
	return t;
}

/* The times of the records waiting, in q->times. */
static int collect_times(struct kmem_queue *q)
{
	const struct run *r;
	size_t i, n = 0;

	if (!q->times) {
		q->times = malloc(q->in.max_records * sizeof(*q->times));
		if (!q->times)
			return -ENOMEM;
	}
	for (r = q->runs; r < q->runs + q->nr_runs; r++)
		for (i = r->next; i < r->end; i++)
			q->times[n++] = time_of(record(q, i));
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

	if (!q->in.nr)
		return 0;
	if (collect_times(q))
		return -ENOMEM;
	for (i = 0; front != NO_TIME && i < q->in.nr; i++)
		below += q->times[i] <= front;
	if (below >= q->in.nr / 16 && below) {
		*limit = front;
		return 0;
	}
	*limit = select_time(q->times, q->in.nr, (q->in.nr - 1) / 2);
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

/*
 * The latest time queued so far: that of the last record of each run,
 * which comes in time order, or of one delivered.  Found a round at a
 * time, not kept for every record added.
 */
static u64 latest_time(struct kmem_queue *q)
{
	const struct run *r;

	for (r = q->runs; r < q->runs + q->nr_runs; r++)
		if (r->end > r->next)
			q->max_time = max(q->max_time,
					  time_of(record(q, r->end - 1)));
	return q->max_time;
}

int kmem_queue__flush(struct kmem_queue *q, enum kmem_queue_flush how)
{
	u64 limit = 0, latest;
	int err;

	end_newest_run(q);
	latest = latest_time(q);
	err = flush_limit(q, how, &limit);

	if (!err)
		err = deliver_until(q, limit);
	if (!err && how == KMEM_QUEUE_FLUSH__ROUND)
		q->next_flush = latest;
	return err;
}
