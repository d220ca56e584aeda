// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation stalls for perf kmem; see count-stall.h for what a stall is.
 *
 * Each task that ran a stall event has a slot in a hash table by tid
 * (table-live.h) with the stall it has open, if any: where it is (inside
 * a reclaim, a compaction attempt, or between attempts), when it began
 * and what it took so far.  Allocations come for every task, stalled or
 * not: while no task has a stall open they cost one test.
 *
 * Each stall that ends in the trace adds to its row and leaves its length
 * and order, packed in a u64, in an array that kmem_stall__finish() sorts
 * for the percentiles.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count-stall.h"
#include "table-live.h"

/* Where a task's stall is. */
enum task_state {
	TASK_IDLE,		/* no stall open */
	TASK_WAITING,		/* between attempts, or after the last */
	TASK_RECLAIM,		/* inside a direct reclaim */
	TASK_COMPACT,		/* inside a compaction attempt */
};

/* A task's slot: its tid first, as table-live.h wants. */
struct task {
	u64	tid;
	u64	begin;		/* the stall's first begin */
	u64	phase;		/* the open reclaim's or attempt's begin */
	u64	last;		/* the attempt's last compaction event */
	u64	gfp;
	u64	reclaim_ns;
	u64	compact_ns;
	u64	reclaimed;
	u64	memcg_begin;
	u64	memcg_callsite;
	u64	memcg_gfp;
	u32	reclaims;
	u32	compactions;
	u32	outcomes[KMEM_NR_OUTCOMES];
	s16	order;		/* -1: not known, the stall began before */
	u8	state;		/* enum task_state */
	bool	partial;	/* began before the trace */
	bool	worked;		/* the attempt compacted or was deferred */
	bool	memcg_open;
};

/* A stall's length in ns below, its order above. */
#define LEN_BITS	56
#define LEN_MASK	((1ULL << LEN_BITS) - 1)
/* The order kept with a length of an order out of range. */
#define NO_ORDER	(KMEM_STALL_MAX_ORDER + 1)
/* Every bucket of every order: a few tens of kB, allocated once. */
#define NR_BUCKET_ROWS	((KMEM_STALL_MAX_ORDER + 1) * KMEM_STALL_NR_BUCKETS)

struct kmem_stall {
	size_t				nr_open;
	struct kmem_live		tasks;
	struct kmem_stall_summary	summary;
	struct kmem_stall_dist		orders[KMEM_STALL_MAX_ORDER + 1];
	struct kmem_rows		rows;
	struct kmem_rows		memcg_rows;
	u64				*lengths;
	size_t				nr_lengths;
	size_t				lengths_size;
	struct kmem_callsite_sum	*by_callsite;	/* stall time */
	size_t				nr_callsites;
	/* The tables of kmem_stall__orders() and those after it. */
	const struct kmem_stall_dist	*order_rows[KMEM_STALL_MAX_ORDER + 1];
	size_t				nr_order_rows;
	struct kmem_stall_bucket	buckets[NR_BUCKET_ROWS];
	const struct kmem_stall_bucket	*bucket_rows[NR_BUCKET_ROWS];
	size_t				nr_buckets;
	/* The wake-ups by order + 1 and the ends by status, counted as they come. */
	struct kmem_stall_wake_row	wake_rows[KMEM_STALL_MAX_ORDER + 2];
	struct kmem_stall_wake_row	*wake_ptrs[KMEM_STALL_MAX_ORDER + 2];
	size_t				nr_wake_rows;
	struct kmem_stall_status_row	status_rows[KMEM_STALL_NR_STATUS];
	struct kmem_stall_status_row	*status_ptrs[KMEM_STALL_NR_STATUS];
	size_t				nr_status_rows;
	u64				ended_ns;	/* of the last alloc */
	bool				finished;
	int				finish_err;
};

/*
 * The keys of the rows in their keyed tables: callsite, GFP flags and
 * order with migration type in one word; a memcg row's callsite and GFP.
 */
#define STALL_KEY_WORDS	3
#define MEMCG_KEY_WORDS	2

static int row_cmp_identity(const void *pa, const void *pb)
{
	const struct kmem_stall_row *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?:
	       kmem_cmp(a->order, b->order) ?:
	       kmem_cmp(a->migtype, b->migtype) ?: kmem_cmp(a->gfp, b->gfp);
}

static int memcg_cmp_identity(const void *pa, const void *pb)
{
	const struct kmem_stall_memcg_row *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?: kmem_cmp(a->gfp, b->gfp);
}

struct kmem_stall *kmem_stall__new(void)
{
	struct kmem_stall *ks = zalloc(sizeof(*ks));
	int i;

	if (!ks)
		return NULL;
	if (kmem_live__init(&ks->tasks, sizeof(struct task)) ||
	    kmem_rows__init(&ks->rows, sizeof(struct kmem_stall_row),
			    STALL_KEY_WORDS, row_cmp_identity) ||
	    kmem_rows__init(&ks->memcg_rows, sizeof(struct kmem_stall_memcg_row),
			    MEMCG_KEY_WORDS, memcg_cmp_identity)) {
		kmem_stall__delete(ks);
		return NULL;
	}
	ks->summary.all.order = -1;
	for (i = 0; i <= KMEM_STALL_MAX_ORDER; i++)
		ks->orders[i].order = i;
	for (i = 0; i < KMEM_STALL_MAX_ORDER + 2; i++)
		ks->wake_rows[i].order = i - 1;
	for (i = 0; i < KMEM_STALL_NR_STATUS; i++)
		ks->status_rows[i].status = i;
	return ks;
}

void kmem_stall__delete(struct kmem_stall *ks)
{
	if (!ks)
		return;
	kmem_live__exit(&ks->tasks);
	kmem_rows__exit(&ks->rows);
	kmem_rows__exit(&ks->memcg_rows);
	free(ks->lengths);
	free(ks->by_callsite);
	free(ks);
}

/* --- tasks ----------------------------------------------------------- */

static struct task *task_of(struct kmem_stall *ks, u32 tid)
{
	void *slot = kmem_live__probe(&ks->tasks, tid);
	u64 key = tid;
	struct task *t;

	if (kmem_live__key(slot) == tid)
		return slot;
	t = kmem_live__add(&ks->tasks, slot, &key);
	if (t)
		t->order = -1;
	return t;
}

/* The attempt open on @t is over; its outcome counts to the task's stall. */
static void close_attempt(struct kmem_stall *ks, struct task *t,
			  enum kmem_stall_outcome outcome)
{
	t->compact_ns += t->last - t->phase;
	t->outcomes[outcome]++;
	ks->summary.events.outcomes[outcome]++;
	t->state = TASK_WAITING;
}

/* No page followed: an attempt that did something failed, else skipped. */
static void close_attempt_without_page(struct kmem_stall *ks, struct task *t)
{
	close_attempt(ks, t, t->worked ? KMEM_COMPACT_FAIL : KMEM_COMPACT_SKIPPED);
}

static void close_stall(struct kmem_stall *ks, struct task *t)
{
	t->state = TASK_IDLE;
	ks->nr_open--;
}

static void open_stall(struct kmem_stall *ks, struct task *t, u64 time,
		       int order, u64 gfp, bool partial)
{
	t->begin = time;
	t->order = order;
	t->gfp = gfp;
	t->partial = partial;
	t->reclaim_ns = 0;
	t->compact_ns = 0;
	t->reclaimed = 0;
	t->reclaims = 0;
	t->compactions = 0;
	memset(t->outcomes, 0, sizeof(t->outcomes));
	t->state = TASK_WAITING;
	ks->nr_open++;
}

/*
 * A reclaim or compaction attempt begins on @t: of the stall open, or of
 * a new one.  One open of another order or GFP lost its allocation; one
 * that began before the trace takes the first order and GFP it sees.
 */
static void attempt_begins(struct kmem_stall *ks, struct task *t, u64 time,
			   const struct kmem_stall_event *ev)
{
	if (t->state == TASK_RECLAIM) {
		/* A begin inside a reclaim: its end was lost. */
		ks->summary.apart.unpaired++;
		t->reclaim_ns += time - t->phase;
		t->state = TASK_WAITING;
	} else if (t->state == TASK_COMPACT) {
		close_attempt_without_page(ks, t);
	}
	if (t->state != TASK_IDLE && t->partial && t->order < 0) {
		t->order = ev->order;
		t->gfp = ev->gfp;
	} else if (t->state != TASK_IDLE &&
		   (t->order != ev->order || t->gfp != ev->gfp)) {
		ks->summary.apart.abandoned++;
		close_stall(ks, t);
	}
	if (t->state == TASK_IDLE)
		open_stall(ks, t, time, ev->order, ev->gfp, false);
}

/* --- events ---------------------------------------------------------- */

static int reclaim_begin(struct kmem_stall *ks, struct task *t, u64 time,
			 const struct kmem_stall_event *ev)
{
	ks->summary.events.reclaims++;
	attempt_begins(ks, t, time, ev);
	t->state = TASK_RECLAIM;
	t->phase = time;
	t->reclaims++;
	return 0;
}

static int reclaim_end(struct kmem_stall *ks, struct task *t, u64 time,
		       const struct kmem_stall_event *ev)
{
	struct kmem_stall_events *e = &ks->summary.events;

	e->reclaim_ends++;
	e->reclaimed += ev->value;
	switch (t->state) {
	case TASK_RECLAIM:
		t->reclaim_ns += time - t->phase;
		t->reclaimed += ev->value;
		t->state = TASK_WAITING;
		break;
	case TASK_IDLE:
		/* Its begin was before the trace: so was its stall's. */
		open_stall(ks, t, time, -1, 0, true);
		t->reclaims = 1;
		t->reclaimed = ev->value;
		break;
	case TASK_COMPACT:
		close_attempt_without_page(ks, t);
		fallthrough;
	default:
		ks->summary.apart.unpaired++;
	}
	return 0;
}

static int compact_try(struct kmem_stall *ks, struct task *t, u64 time,
		       const struct kmem_stall_event *ev)
{
	ks->summary.events.compactions++;
	attempt_begins(ks, t, time, ev);
	t->state = TASK_COMPACT;
	t->phase = time;
	t->last = time;
	t->worked = false;
	t->compactions++;
	return 0;
}

/* A run, its end or a deferral: the attempt's, if the task has one open. */
static void compact_work(struct task *t, u64 time)
{
	if (!t || t->state != TASK_COMPACT)
		return;
	t->last = time;
	t->worked = true;
}

static int memcg_begin(struct kmem_stall *ks, struct task *t, u64 time,
		       const struct kmem_stall_event *ev)
{
	ks->summary.events.memcg_reclaims++;
	if (t->memcg_open)
		ks->summary.apart.unpaired++;
	t->memcg_open = true;
	t->memcg_begin = time;
	t->memcg_callsite = ev->callsite;
	t->memcg_gfp = ev->gfp;
	return 0;
}

static void add_reclaim(struct kmem_stall_memcg_row *row, u64 ns, u64 pages)
{
	row->reclaims++;
	row->total_ns += ns;
	row->max_ns = max(row->max_ns, ns);
	row->reclaimed += pages;
}

static int memcg_end(struct kmem_stall *ks, struct task *t, u64 time,
		     const struct kmem_stall_event *ev)
{
	struct kmem_stall_summary *s = &ks->summary;
	struct kmem_stall_memcg_row key = {
		.callsite = t->memcg_callsite,
		.gfp = t->memcg_gfp,
	}, *row;
	u64 k[MEMCG_KEY_WORDS] = { key.callsite, key.gfp };
	u64 ns;

	s->events.memcg_reclaim_ends++;
	s->events.memcg_reclaimed += ev->value;
	if (!t->memcg_open) {
		s->apart.memcg_begun_before++;
		return 0;
	}
	t->memcg_open = false;
	row = kmem_rows__findnew(&ks->memcg_rows, k, &key);
	if (!row)
		return -ENOMEM;
	ns = time - t->memcg_begin;
	add_reclaim(row, ns, ev->value);
	add_reclaim(&s->memcg, ns, ev->value);
	return 0;
}

static void count_wakeup(struct kmem_stall *ks, enum kmem_stall_wake kind,
			 int order)
{
	if (order < -1 || order > KMEM_STALL_MAX_ORDER)
		order = KMEM_STALL_MAX_ORDER;
	ks->wake_rows[order + 1].wakeups[kind]++;
}

static void count_status(struct kmem_stall *ks, u64 status)
{
	s64 v = (s64)status;

	if (v < 0 || v >= KMEM_STALL_NR_STATUS)
		v = KMEM_STALL_NR_STATUS - 1;
	ks->status_rows[v].ends++;
}

/* The events that need no task of their own. */
static int task_free_event(struct kmem_stall *ks, u32 tid, u64 time,
			   const struct kmem_stall_event *ev)
{
	struct kmem_stall_events *e = &ks->summary.events;
	struct task *t = kmem_live__find(&ks->tasks, tid);

	/* The wake-up events come in the order of the kinds they count. */
	if (ev->type >= KMEM_STALL_KSWAPD_WAKEUP && ev->type < KMEM_STALL_NR_TYPES) {
		count_wakeup(ks, KMEM_WAKE_KSWAPD_WAKEUP + ev->type -
				 KMEM_STALL_KSWAPD_WAKEUP, ev->order);
		return 0;
	}
	switch (ev->type) {
	case KMEM_STALL_COMPACT_BEGIN:
		e->runs++;
		if (t && t->state == TASK_COMPACT)
			e->direct_runs++;
		break;
	case KMEM_STALL_COMPACT_END:
		e->run_ends++;
		count_status(ks, ev->value);
		break;
	case KMEM_STALL_COMPACT_DEFERRED:
		e->deferred++;
		break;
	default:
		return -EINVAL;
	}
	compact_work(t, time);
	return 0;
}

int kmem_stall__event(struct kmem_stall *ks, u32 tid, u64 time,
		      const struct kmem_stall_event *ev)
{
	struct task *t;

	if (ks->finished)
		return -EBUSY;
	if (ev->type >= KMEM_STALL_COMPACT_BEGIN)
		return task_free_event(ks, tid, time, ev);
	t = task_of(ks, tid);
	if (!t)
		return -ENOMEM;
	switch (ev->type) {
	case KMEM_STALL_RECLAIM_BEGIN:
		return reclaim_begin(ks, t, time, ev);
	case KMEM_STALL_RECLAIM_END:
		return reclaim_end(ks, t, time, ev);
	case KMEM_STALL_MEMCG_BEGIN:
		return memcg_begin(ks, t, time, ev);
	case KMEM_STALL_MEMCG_END:
		return memcg_end(ks, t, time, ev);
	default:
		return compact_try(ks, t, time, ev);
	}
}

/* --- the allocation that ends a stall --------------------------------- */

static int keep_length(struct kmem_stall *ks, int order, u64 ns)
{
	if (kmem_grow(&ks->lengths, &ks->lengths_size, ks->nr_lengths, 1,
		      sizeof(u64)))
		return -ENOMEM;
	ks->lengths[ks->nr_lengths++] = (u64)order << LEN_BITS |
					min_t(u64, ns, LEN_MASK);
	return 0;
}

/* A stall of task @t into a distribution or a row: their fields' names. */
#define ADD_STALL(d, t, ns, fail) do {		\
	(d)->stalls++;					\
	(d)->failed += (fail);			\
	(d)->total_ns += (ns);				\
	(d)->max_ns = max((d)->max_ns, (ns));		\
	(d)->reclaim_ns += (t)->reclaim_ns;		\
	(d)->compact_ns += (t)->compact_ns;		\
	(d)->reclaims += (t)->reclaims;			\
	(d)->compactions += (t)->compactions;		\
	(d)->reclaimed += (t)->reclaimed;		\
} while (0)

/* The histogram bucket of a stall of @ns: see KMEM_STALL_NR_BUCKETS. */
static int bucket_of(u64 ns)
{
	u64 us = ns / 1000;
	int bucket = us ? 64 - __builtin_clzll(us) : 0;

	return min(bucket, KMEM_STALL_NR_BUCKETS - 1);
}

static void add_to_dist(struct kmem_stall_dist *d, const struct task *t,
			u64 ns, bool failed)
{
	ADD_STALL(d, t, ns, failed);
	d->hist[bucket_of(ns)]++;
}

/* A stall with both ends in the trace: in its row and the distributions. */
static int count_stall(struct kmem_stall *ks, const struct task *t, u64 time,
		       const struct kmem_page_event *ev)
{
	struct kmem_stall_summary *s = &ks->summary;
	struct kmem_stall_row key = {
		.callsite = ev->callsite,
		.gfp = ev->gfp,
		.order = ev->order,
		.migtype = ev->migtype,
	}, *row;
	u64 k[STALL_KEY_WORDS] = {
		ev->callsite, ev->gfp,
		(u64)(u32)(int)ev->order << 32 | (u32)(int)ev->migtype,
	};
	bool failed = ev->pfn == KMEM_PAGE_NO_PFN;
	u64 ns = time - t->begin;
	int i;

	row = kmem_rows__findnew(&ks->rows, k, &key);
	if (!row)
		return -ENOMEM;
	ADD_STALL(row, t, ns, failed);
	row->compact_ok += t->outcomes[KMEM_COMPACT_SUCCESS];
	row->compact_fail += t->outcomes[KMEM_COMPACT_FAIL];
	add_to_dist(&s->all, t, ns, failed);
	for (i = 0; i < KMEM_NR_OUTCOMES; i++)
		s->compact_outcomes[i] += t->outcomes[i];
	/* An order no kernel has is in the whole's figures, in no order's. */
	if (t->order < 0 || t->order > KMEM_STALL_MAX_ORDER)
		return keep_length(ks, NO_ORDER, ns);
	add_to_dist(&ks->orders[t->order], t, ns, failed);
	return keep_length(ks, t->order, ns);
}

static bool ends_stall(const struct task *t, const struct kmem_page_event *ev)
{
	if (t->state == TASK_RECLAIM)
		return false;
	if (t->partial && t->order < 0)
		return true;
	return ev->order == t->order && ev->gfp == t->gfp;
}

/* An allocation while some task has a stall open: perhaps its end. */
static noinline int alloc_while_stalled(struct kmem_stall *ks, u32 tid,
					u64 time,
					const struct kmem_page_event *ev)
{
	struct task *t;
	int err = 0;

	t = kmem_live__find(&ks->tasks, tid);
	if (!t || t->state == TASK_IDLE)
		return 0;
	if (!ends_stall(t, ev)) {
		ks->summary.events.nested_allocs++;
		return 0;
	}
	if (t->state == TASK_COMPACT) {
		if (ev->pfn != KMEM_PAGE_NO_PFN)
			close_attempt(ks, t, KMEM_COMPACT_SUCCESS);
		else
			close_attempt_without_page(ks, t);
	}
	if (t->partial) {
		ks->summary.apart.begun_before++;
	} else {
		err = count_stall(ks, t, time, ev);
		ks->ended_ns = time - t->begin;
	}
	close_stall(ks, t);
	return err ?: !t->partial;
}

/* Every allocation comes here: the common case in a few instructions. */
int kmem_stall__alloc(struct kmem_stall *ks, u32 tid, u64 time,
		      const struct kmem_page_event *ev)
{
	if (ks->finished)
		return -EBUSY;
	if (!ks->nr_open)
		return 0;
	return alloc_while_stalled(ks, tid, time, ev);
}

u64 kmem_stall__ended_ns(const struct kmem_stall *ks)
{
	return ks->ended_ns;
}

/* --- the end --------------------------------------------------------- */

static void settle_task(void *slot, void *arg)
{
	struct kmem_stall *ks = arg;
	struct task *t = slot;

	if (t->memcg_open)
		ks->summary.apart.memcg_not_ended++;
	if (t->state == TASK_IDLE)
		return;
	if (t->state == TASK_COMPACT)
		close_attempt_without_page(ks, t);
	ks->summary.apart.not_ended++;
	close_stall(ks, t);
}

/* Nearest rank: the value at rank ceil(p% of n), of n sorted values. */
static u64 percentile(const u64 *sorted, size_t n, unsigned int p)
{
	size_t rank = (p * n + 99) / 100;

	return n ? sorted[(rank ? rank : 1) - 1] & LEN_MASK : 0;
}

static void set_percentiles(struct kmem_stall_dist *d, const u64 *sorted,
			    size_t n)
{
	d->p50_ns = percentile(sorted, n, 50);
	d->p90_ns = percentile(sorted, n, 90);
	d->p99_ns = percentile(sorted, n, 99);
}

/* Sorted by order, then length: each order's run gives its percentiles. */
static int settle_percentiles(struct kmem_stall *ks)
{
	size_t i, start;
	u64 *all;

	/* No stall: every percentile stays 0 (and qsort() takes no NULL). */
	if (!ks->nr_lengths)
		return 0;
	qsort(ks->lengths, ks->nr_lengths, sizeof(u64), kmem_cmp_u64s);
	for (start = 0; start < ks->nr_lengths; start = i) {
		int order = ks->lengths[start] >> LEN_BITS;

		for (i = start; i < ks->nr_lengths &&
		     (int)(ks->lengths[i] >> LEN_BITS) == order; i++)
			;
		if (order != NO_ORDER)
			set_percentiles(&ks->orders[order], ks->lengths + start,
					i - start);
	}
	all = malloc((ks->nr_lengths + 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < ks->nr_lengths; i++)
		all[i] = ks->lengths[i] & LEN_MASK;
	qsort(all, ks->nr_lengths, sizeof(u64), kmem_cmp_u64s);
	set_percentiles(&ks->summary.all, all, ks->nr_lengths);
	free(all);
	return 0;
}

static int settle_callsites(struct kmem_stall *ks)
{
	struct kmem_stall_row **rows;
	size_t i, nr;

	ks->by_callsite = calloc(ks->rows.nr + 1, sizeof(*ks->by_callsite));
	rows = (struct kmem_stall_row **)kmem_rows__sort(&ks->rows, NULL, NULL,
							 0, &nr);
	if (!ks->by_callsite || !rows)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		kmem_callsite_sum__add(ks->by_callsite, &ks->nr_callsites,
				       rows[i]->callsite, rows[i]->total_ns);
	return 0;
}

static void set_mean(struct kmem_stall_dist *d)
{
	d->mean_ns = d->stalls ? d->total_ns / d->stalls : 0;
}

static void row_mean(void *r, void *arg __maybe_unused)
{
	struct kmem_stall_row *row = r;

	row->mean_ns = row->total_ns / row->stalls;
}

static void memcg_mean(void *r, void *arg __maybe_unused)
{
	struct kmem_stall_memcg_row *row = r;

	row->mean_ns = row->reclaims ? row->total_ns / row->reclaims : 0;
}

static void settle_means(struct kmem_stall *ks)
{
	struct kmem_stall_summary *s = &ks->summary;
	int order;

	kmem_rows__for_each(&ks->rows, row_mean, NULL);
	kmem_rows__for_each(&ks->memcg_rows, memcg_mean, NULL);

	set_mean(&s->all);
	for (order = 0; order <= KMEM_STALL_MAX_ORDER; order++)
		set_mean(&ks->orders[order]);
	memcg_mean(&s->memcg, NULL);
}

/* The orders with stalls, and the buckets of each with stalls. */
static void settle_orders(struct kmem_stall *ks)
{
	size_t n = 0;
	int order, b;

	for (order = 0; order <= KMEM_STALL_MAX_ORDER; order++) {
		const struct kmem_stall_dist *d = &ks->orders[order];

		if (d->stalls)
			ks->order_rows[ks->nr_order_rows++] = d;
		for (b = 0; b < KMEM_STALL_NR_BUCKETS; b++) {
			if (!d->hist[b])
				continue;
			ks->buckets[n] = (struct kmem_stall_bucket){
				.order = order,
				.lo_us = b ? 1ULL << (b - 1) : 0,
				.hi_us = 1ULL << b,
				.stalls = d->hist[b],
			};
			ks->bucket_rows[n] = &ks->buckets[n];
			n++;
		}
	}
	ks->nr_buckets = n;
}

static void settle_wakeups(struct kmem_stall *ks)
{
	int i, kind;

	for (i = 0; i < KMEM_STALL_MAX_ORDER + 2; i++) {
		for (kind = 0; kind < KMEM_NR_WAKES; kind++)
			if (ks->wake_rows[i].wakeups[kind])
				break;
		if (kind < KMEM_NR_WAKES)
			ks->wake_ptrs[ks->nr_wake_rows++] = &ks->wake_rows[i];
	}
	for (i = 0; i < KMEM_STALL_NR_STATUS; i++)
		if (ks->status_rows[i].ends)
			ks->status_ptrs[ks->nr_status_rows++] = &ks->status_rows[i];
}

int kmem_stall__finish(struct kmem_stall *ks)
{
	if (ks->finished)
		return ks->finish_err;
	ks->finished = true;
	kmem_live__for_each(&ks->tasks, settle_task, ks);
	settle_means(ks);
	settle_wakeups(ks);
	settle_orders(ks);
	ks->finish_err = settle_percentiles(ks) ?: settle_callsites(ks);
	return ks->finish_err;
}

/* --- results --------------------------------------------------------- */

const struct kmem_stall_summary *kmem_stall__summary(const struct kmem_stall *ks)
{
	return &ks->summary;
}

const struct kmem_stall_dist * const *kmem_stall__orders(struct kmem_stall *ks, size_t *nr)
{
	*nr = kmem_stall__finish(ks) ? 0 : ks->nr_order_rows;
	return ks->order_rows;
}

const struct kmem_stall_bucket * const *kmem_stall__buckets(struct kmem_stall *ks, size_t *nr)
{
	*nr = kmem_stall__finish(ks) ? 0 : ks->nr_buckets;
	return ks->bucket_rows;
}

struct kmem_stall_wake_row * const *kmem_stall__wake_rows(struct kmem_stall *ks,
							  size_t *nr)
{
	*nr = kmem_stall__finish(ks) ? 0 : ks->nr_wake_rows;
	return ks->wake_ptrs;
}

struct kmem_stall_status_row * const *kmem_stall__status_rows(struct kmem_stall *ks,
							      size_t *nr)
{
	*nr = kmem_stall__finish(ks) ? 0 : ks->nr_status_rows;
	return ks->status_ptrs;
}

/* Largest first, as the report sorts amounts. */
#define BY_U64(type, field) \
	{ .offset = offsetof(type, field), .kind = KMEM_SORT_U64, .descending = true }

struct kmem_stall_row **kmem_stall__rows(struct kmem_stall *ks,
					 const struct kmem_sort_key *keys,
					 int nr_keys, size_t *nr)
{
	static const struct kmem_sort_key by_total[] = {
		BY_U64(struct kmem_stall_row, total_ns),
		BY_U64(struct kmem_stall_row, stalls),
	};

	*nr = 0;
	if (kmem_stall__finish(ks))
		return NULL;
	if (!nr_keys) {
		keys = by_total;
		nr_keys = ARRAY_SIZE(by_total);
	}
	return (struct kmem_stall_row **)kmem_rows__sort(&ks->rows, NULL, keys,
							 nr_keys, nr);
}

struct kmem_stall_memcg_row **kmem_stall__memcg_rows(struct kmem_stall *ks,
						     size_t *nr)
{
	static const struct kmem_sort_key by_total[] = {
		BY_U64(struct kmem_stall_memcg_row, total_ns),
		BY_U64(struct kmem_stall_memcg_row, reclaims),
	};

	*nr = 0;
	if (kmem_stall__finish(ks))
		return NULL;
	return (struct kmem_stall_memcg_row **)kmem_rows__sort(&ks->memcg_rows,
							       NULL, by_total,
							       ARRAY_SIZE(by_total),
							       nr);
}

u64 kmem_stall__callsite_ns(const struct kmem_stall *ks, u64 callsite)
{
	return kmem_callsite_sum__find(ks->by_callsite, ks->nr_callsites,
				       callsite);
}
