// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of util/kmem/count-stall.c: synthetic sequences of reclaim,
 * compaction and allocation events on one task and several, with known
 * answers.
 *
 * The times are whole microseconds, chosen so that every length, sum and
 * percentile below is worked out by hand; the random stream is checked
 * against what its own generator knows of each stall it made, which shares
 * no code with count-stall.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include "debug.h"
#include "tests.h"
#include "util/kmem/count-stall.h"

#define US	1000ULL		/* ns */

#define CS_A	0xffffffff81000100ULL
#define CS_B	0xffffffff81000200ULL
#define CS_M	0xffffffff81000300ULL	/* a memcg reclaim's */

#define GFP_K	0xcc0ULL	/* GFP_KERNEL */
#define GFP_THP	0x1c2cca0ULL	/* as a THP fault asks */
#define GFP_IRQ	0x820ULL	/* GFP_ATOMIC */

#define MT_MOV	1
#define MT_UNMOV 0

#define NO_PFN	KMEM_PAGE_NO_PFN

/* mm_compaction_end statuses of v6.12. */
#define ST_SKIPPED	1
#define ST_PARTIAL	6
#define ST_SUCCESS	8

static bool eq(const char *what, u64 got, u64 want)
{
	if (got == want)
		return true;
	pr_debug("%s: got %" PRIu64 ", want %" PRIu64 "\n", what, got, want);
	return false;
}

#define EQ(got, want)	TEST_ASSERT_VAL(#got, eq(#got, (got), (want)))

/* The mm_compaction_end events of one status, from the table of statuses. */
static u64 status_ends(struct kmem_stall *ks, u64 status)
{
	struct kmem_stall_status_row * const *r;
	size_t i, nr;

	r = kmem_stall__status_rows(ks, &nr);
	for (i = 0; i < nr; i++)
		if (r[i]->status == status)
			return r[i]->ends;
	return 0;
}

/*
 * The distribution of one order, from the table of the orders with stalls:
 * all zero for an order without, NULL for one out of range.
 */
static const struct kmem_stall_dist *order_dist(struct kmem_stall *ks, int order)
{
	static const struct kmem_stall_dist none;
	const struct kmem_stall_dist * const *d;
	size_t i, nr;

	if (order < 0 || order > KMEM_STALL_MAX_ORDER)
		return NULL;
	d = kmem_stall__orders(ks, &nr);
	for (i = 0; i < nr; i++)
		if (d[i]->order == order)
			return d[i];
	return &none;
}

/* The wake-ups of one kind and order, from the table of the wake-ups. */
static u64 wakeups(struct kmem_stall *ks, enum kmem_stall_wake kind, int order)
{
	struct kmem_stall_wake_row * const *w;
	size_t i, nr;

	w = kmem_stall__wake_rows(ks, &nr);
	for (i = 0; i < nr; i++)
		if (w[i]->order == order)
			return w[i]->wakeups[kind];
	return 0;
}

static int event(struct kmem_stall *ks, u32 tid, u64 us, enum kmem_stall_type type,
		 int order, u64 gfp, u64 value)
{
	struct kmem_stall_event ev = {
		.type = type,
		.order = order,
		.gfp = gfp,
		.value = value,
		.callsite = type == KMEM_STALL_MEMCG_BEGIN ? value : 0,
	};

	if (type == KMEM_STALL_MEMCG_BEGIN)
		ev.value = 0;
	return kmem_stall__event(ks, tid, us * US, &ev);
}

static int alloc(struct kmem_stall *ks, u32 tid, u64 us, int order, u64 gfp,
		 u64 pfn, u64 callsite, int migtype)
{
	struct kmem_page_event ev = {
		.pfn = pfn,
		.order = order,
		.gfp = gfp,
		.callsite = callsite,
		.migtype = migtype,
		.cpu_node = -1,
		.page_node = -1,
	};

	return kmem_stall__alloc(ks, tid, us * US, &ev);
}

/* The events of a test, in time order: one per line of a table. */
struct step {
	u32	tid;
	u64	us;
	int	type;		/* enum kmem_stall_type, or ALLOC */
	int	order;
	u64	gfp;
	u64	value;		/* pages, status; ALLOC: pfn; memcg: callsite */
	u64	callsite;	/* ALLOC */
};

#define ALLOC	(-1)

static int run(struct kmem_stall *ks, const struct step *steps, size_t nr)
{
	size_t i;
	int err;

	for (i = 0; i < nr; i++) {
		const struct step *s = &steps[i];

		if (s->type == ALLOC)
			err = alloc(ks, s->tid, s->us, s->order, s->gfp, s->value,
				    s->callsite, MT_MOV);
		else
			err = event(ks, s->tid, s->us, s->type, s->order, s->gfp,
				    s->value);
		if (err < 0) {
			pr_debug("step %zu: error %d\n", i, err);
			return err;
		}
	}
	return 0;
}

static struct kmem_stall *run_steps(const struct step *steps, size_t nr)
{
	struct kmem_stall *ks = kmem_stall__new();

	if (ks && run(ks, steps, nr)) {
		kmem_stall__delete(ks);
		return NULL;
	}
	return ks;
}

/* --- one task ------------------------------------------------------- */

/*
 * One allocation of order 0 that reclaims once: 100 us of stall, 60 of
 * them in reclaim; an allocation of the task inside the reclaim (its own,
 * the same order and GFP) and one of an interrupt after it (another GFP)
 * are nested.
 */
static const struct step one_reclaim[] = {
	{ 7, 1000, ALLOC, 0, GFP_K, 0x100, CS_A },	/* no stall open */
	{ 7, 1010, KMEM_STALL_RECLAIM_BEGIN, 0, GFP_K, 0, 0 },
	{ 7, 1030, ALLOC, 0, GFP_K, 0x200, CS_B },	/* inside: nested */
	{ 7, 1070, KMEM_STALL_RECLAIM_END, 0, 0, 32, 0 },
	{ 7, 1080, ALLOC, 0, GFP_IRQ, 0x300, CS_B },	/* an interrupt's */
	{ 7, 1110, ALLOC, 0, GFP_K, 0x400, CS_A },	/* the end: 100 us */
	{ 7, 1200, ALLOC, 0, GFP_K, 0x500, CS_A },	/* no stall open */
};

static int test__kmem_stall_one(struct test_suite *t __maybe_unused,
				int subtest __maybe_unused)
{
	struct kmem_stall *ks = run_steps(one_reclaim, ARRAY_SIZE(one_reclaim));
	const struct kmem_stall_summary *s;
	struct kmem_stall_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("run", ks);
	rows = kmem_stall__rows(ks, NULL, 0, &nr);
	s = kmem_stall__summary(ks);
	EQ(s->all.stalls, 1);
	EQ(s->all.total_ns, 100 * US);
	EQ(s->all.max_ns, 100 * US);
	EQ(s->all.p50_ns, 100 * US);
	EQ(s->all.p99_ns, 100 * US);
	EQ(s->all.reclaim_ns, 60 * US);
	EQ(s->all.compact_ns, 0);
	EQ(s->all.reclaims, 1);
	EQ(s->all.reclaimed, 32);
	EQ(s->all.failed, 0);
	/* 100 us: [64, 128) */
	EQ(s->all.hist[7], 1);
	EQ(s->events.reclaims, 1);
	EQ(s->events.reclaim_ends, 1);
	EQ(s->events.reclaimed, 32);
	EQ(s->events.nested_allocs, 2);
	EQ(order_dist(ks, 0)->stalls, 1);
	EQ(order_dist(ks, 1)->stalls, 0);
	TEST_ASSERT_VAL("rows", rows && nr == 1);
	EQ(rows[0]->callsite, CS_A);
	EQ(rows[0]->order, 0);
	EQ(rows[0]->gfp, GFP_K);
	EQ(rows[0]->stalls, 1);
	EQ(rows[0]->total_ns, 100 * US);
	EQ(rows[0]->reclaim_ns, 60 * US);
	EQ(rows[0]->reclaimed, 32);
	EQ(kmem_stall__callsite_ns(ks, CS_A), 100 * US);
	EQ(kmem_stall__callsite_ns(ks, CS_B), 0);
	EQ(alloc(ks, 7, 2000, 0, GFP_K, 1, CS_A, MT_MOV), (u64)-EBUSY);
	EQ(event(ks, 7, 2000, KMEM_STALL_RECLAIM_BEGIN, 0, GFP_K, 0),
	   (u64)-EBUSY);
	EQ(event(ks, 7, 2000, KMEM_STALL_NR_TYPES, 0, GFP_K, 0), (u64)-EBUSY);
	kmem_stall__delete(ks);
	return TEST_OK;
}

/*
 * A THP fault: a compaction attempt that runs and fails (partial), a
 * reclaim, an attempt that finds its zone deferred, one that succeeds; in
 * between, nothing on the task for a while (the drain after reclaim).
 *   stall 1000..3000 = 2000 us
 *   compaction: 1000..1300 (last event, the end) + 2000..2050 (the
 *   deferral) + 2500..2900 = 750 us; reclaim 1400..1900 = 500 us
 */
static const struct step thp_fault[] = {
	{ 9, 1000, KMEM_STALL_COMPACT_TRY, 9, GFP_THP, 2, 0 },
	{ 9, 1010, KMEM_STALL_COMPACT_BEGIN, -1, 0, 0, 0 },
	{ 9, 1300, KMEM_STALL_COMPACT_END, -1, 0, ST_PARTIAL, 0 },
	{ 9, 1400, KMEM_STALL_RECLAIM_BEGIN, 9, GFP_THP, 0, 0 },
	{ 9, 1500, ALLOC, 0, GFP_K, 0x10, CS_B },	/* nested */
	{ 9, 1900, KMEM_STALL_RECLAIM_END, -1, 0, 1026, 0 },
	{ 9, 2000, KMEM_STALL_COMPACT_TRY, 9, GFP_THP, 1, 0 },
	{ 9, 2050, KMEM_STALL_COMPACT_DEFERRED, 9, 0, 0, 0 },
	{ 9, 2500, KMEM_STALL_COMPACT_TRY, 9, GFP_THP, 0, 0 },
	{ 9, 2510, KMEM_STALL_COMPACT_BEGIN, -1, 0, 0, 0 },
	{ 9, 2900, KMEM_STALL_COMPACT_END, -1, 0, ST_SUCCESS, 0 },
	{ 9, 3000, ALLOC, 9, GFP_THP, 0x200000, CS_A },
};

static int test__kmem_stall_attempts(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kmem_stall *ks = run_steps(thp_fault, ARRAY_SIZE(thp_fault));
	const struct kmem_stall_summary *s;
	const struct kmem_stall_dist *d;
	struct kmem_stall_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("run", ks);
	rows = kmem_stall__rows(ks, NULL, 0, &nr);
	s = kmem_stall__summary(ks);
	d = order_dist(ks, 9);
	EQ(s->all.stalls, 1);
	EQ(d->stalls, 1);
	EQ(d->total_ns, 2000 * US);
	EQ(d->reclaim_ns, 500 * US);
	EQ(d->compact_ns, 750 * US);
	EQ(d->reclaims, 1);
	EQ(d->compactions, 3);
	EQ(d->reclaimed, 1026);
	/* The first two fail: a partial run, a deferral; the last succeeds. */
	EQ(s->compact_outcomes[KMEM_COMPACT_FAIL], 2);
	EQ(s->compact_outcomes[KMEM_COMPACT_SUCCESS], 1);
	EQ(s->events.outcomes[KMEM_COMPACT_FAIL], 2);
	EQ(s->events.compactions, 3);
	EQ(s->events.runs, 2);
	EQ(s->events.direct_runs, 2);
	EQ(s->events.deferred, 1);
	EQ(status_ends(ks, ST_PARTIAL), 1);
	EQ(status_ends(ks, ST_SUCCESS), 1);
	EQ(s->events.nested_allocs, 1);
	TEST_ASSERT_VAL("rows", rows && nr == 1);
	EQ(rows[0]->order, 9);
	EQ(rows[0]->compact_ok, 1);
	EQ(rows[0]->compact_fail, 2);
	EQ(rows[0]->compactions, 3);
	EQ(rows[0]->reclaims, 1);
	EQ(rows[0]->failed, 0);
	kmem_stall__delete(ks);
	return TEST_OK;
}

/*
 * A failed order-3 allocation after reclaim and compaction: its attempt
 * that did nothing is skipped, the one that ran failed; the allocation
 * fails (no pfn) and so does the stall's last attempt.
 */
static const struct step failure[] = {
	{ 4, 100, KMEM_STALL_COMPACT_TRY, 3, GFP_K, 2, 0 },	/* skipped */
	{ 4, 120, KMEM_STALL_RECLAIM_BEGIN, 3, GFP_K, 0, 0 },
	{ 4, 220, KMEM_STALL_RECLAIM_END, -1, 0, 5, 0 },
	{ 4, 230, KMEM_STALL_COMPACT_TRY, 3, GFP_K, 2, 0 },
	{ 4, 240, KMEM_STALL_COMPACT_BEGIN, -1, 0, 0, 0 },
	{ 4, 300, KMEM_STALL_COMPACT_END, -1, 0, ST_SKIPPED, 0 },
	{ 4, 350, ALLOC, 3, GFP_K, NO_PFN, CS_B },
};

static int test__kmem_stall_failure(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	struct kmem_stall *ks = run_steps(failure, ARRAY_SIZE(failure));
	const struct kmem_stall_summary *s;
	struct kmem_stall_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("run", ks);
	rows = kmem_stall__rows(ks, NULL, 0, &nr);
	s = kmem_stall__summary(ks);
	EQ(s->all.stalls, 1);
	EQ(s->all.failed, 1);
	EQ(s->all.total_ns, 250 * US);
	EQ(s->all.compact_ns, 70 * US);
	EQ(s->all.reclaim_ns, 100 * US);
	EQ(s->compact_outcomes[KMEM_COMPACT_SKIPPED], 1);
	EQ(s->compact_outcomes[KMEM_COMPACT_FAIL], 1);
	EQ(s->compact_outcomes[KMEM_COMPACT_SUCCESS], 0);
	EQ(status_ends(ks, ST_SKIPPED), 1);
	TEST_ASSERT_VAL("rows", rows && nr == 1);
	EQ(rows[0]->failed, 1);
	EQ(rows[0]->callsite, CS_B);
	EQ(rows[0]->compact_fail, 1);
	EQ(rows[0]->compact_ok, 0);
	EQ(order_dist(ks, 3)->failed, 1);
	kmem_stall__delete(ks);
	return TEST_OK;
}

/* --- several tasks --------------------------------------------------- */

/*
 * Tasks 1, 2 and 3 stall at once, their events interleaved; task 2's
 * compaction runs on, beside task 1's reclaim; kcompactd (task 50)
 * compacts on its own, which is no task's stall.
 *   task 1: order 0, 10..70  =  60 us (reclaim 10..40)
 *   task 2: order 2, 20..420 = 400 us (compaction 20..300, reclaim 310..400)
 *   task 3: order 0, 30..1030 = 1000 us (reclaim 30..1000)
 */
static const struct step interleaved[] = {
	{ 1, 10, KMEM_STALL_RECLAIM_BEGIN, 0, GFP_K, 0, 0 },
	{ 2, 20, KMEM_STALL_COMPACT_TRY, 2, GFP_K, 2, 0 },
	{ 2, 25, KMEM_STALL_COMPACT_BEGIN, -1, 0, 0, 0 },
	{ 3, 30, KMEM_STALL_RECLAIM_BEGIN, 0, GFP_K, 0, 0 },
	{ 50, 35, KMEM_STALL_COMPACT_BEGIN, -1, 0, 0, 0 },
	{ 1, 40, KMEM_STALL_RECLAIM_END, -1, 0, 10, 0 },
	{ 2, 50, ALLOC, 0, GFP_K, 0x1, CS_B },		/* task 2's: nested */
	{ 1, 70, ALLOC, 0, GFP_K, 0x2, CS_A },		/* task 1's end */
	{ 50, 90, KMEM_STALL_COMPACT_END, -1, 0, ST_SUCCESS, 0 },
	{ 2, 300, KMEM_STALL_COMPACT_END, -1, 0, ST_PARTIAL, 0 },
	{ 2, 310, KMEM_STALL_RECLAIM_BEGIN, 2, GFP_K, 0, 0 },
	{ 2, 400, KMEM_STALL_RECLAIM_END, -1, 0, 20, 0 },
	{ 2, 420, ALLOC, 2, GFP_K, 0x4, CS_B },		/* task 2's end */
	{ 3, 1000, KMEM_STALL_RECLAIM_END, -1, 0, 30, 0 },
	{ 3, 1030, ALLOC, 0, GFP_K, 0x8, CS_A },	/* task 3's end */
};

static int test__kmem_stall_tasks(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_stall *ks = run_steps(interleaved, ARRAY_SIZE(interleaved));
	const struct kmem_stall_bucket * const *buckets;
	const struct kmem_stall_dist * const *orders;
	struct kmem_stall_status_row * const *statuses;
	const struct kmem_stall_summary *s;
	const struct kmem_stall_dist *d0;
	struct kmem_stall_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("run", ks);
	rows = kmem_stall__rows(ks, NULL, 0, &nr);
	s = kmem_stall__summary(ks);
	d0 = order_dist(ks, 0);
	EQ(s->all.stalls, 3);
	EQ(s->all.total_ns, 1460 * US);
	EQ(s->all.max_ns, 1000 * US);
	/* Ranks of 3: p50 the 2nd, p90 and p99 the 3rd. */
	EQ(s->all.p50_ns, 400 * US);
	EQ(s->all.p90_ns, 1000 * US);
	EQ(s->all.p99_ns, 1000 * US);
	EQ(s->all.reclaim_ns, (30 + 90 + 970) * US);
	EQ(s->all.compact_ns, 280 * US);
	EQ(s->all.reclaimed, 60);
	EQ(d0->stalls, 2);
	EQ(d0->total_ns, 1060 * US);
	EQ(d0->p50_ns, 60 * US);
	EQ(d0->p90_ns, 1000 * US);
	EQ(order_dist(ks, 2)->p50_ns, 400 * US);
	/* 60 us: [32, 64); 400: [256, 512); 1000: [512, 1024) */
	EQ(s->all.hist[6], 1);
	EQ(s->all.hist[9], 1);
	EQ(s->all.hist[10], 1);
	EQ(s->events.runs, 2);
	EQ(s->events.run_ends, 2);
	EQ(s->events.direct_runs, 1);
	EQ(s->events.nested_allocs, 1);
	/* By total stall time: CS_A order 0 (1060 us), CS_B order 2. */
	TEST_ASSERT_VAL("rows", rows && nr == 2);
	EQ(rows[0]->callsite, CS_A);
	EQ(rows[0]->stalls, 2);
	EQ(rows[0]->max_ns, 1000 * US);
	EQ(rows[1]->callsite, CS_B);
	EQ(rows[1]->order, 2);
	EQ(kmem_stall__callsite_ns(ks, CS_A), 1060 * US);
	EQ(kmem_stall__callsite_ns(ks, CS_B), 400 * US);
	EQ(rows[0]->mean_ns, 530 * US);
	/* The report's tables: orders 0 and 2, a bucket for each stall. */
	orders = kmem_stall__orders(ks, &nr);
	TEST_ASSERT_VAL("orders", orders && nr == 2);
	EQ(orders[0]->order, 0);
	EQ(orders[0]->mean_ns, 530 * US);
	EQ(orders[1]->order, 2);
	buckets = kmem_stall__buckets(ks, &nr);
	TEST_ASSERT_VAL("buckets", buckets && nr == 3);
	EQ(buckets[0]->order, 0);
	EQ(buckets[0]->lo_us, 32);
	EQ(buckets[0]->hi_us, 64);
	EQ(buckets[1]->lo_us, 512);
	EQ(buckets[2]->order, 2);
	EQ(buckets[2]->stalls, 1);
	statuses = kmem_stall__status_rows(ks, &nr);
	TEST_ASSERT_VAL("statuses", statuses && nr == 2);
	EQ(statuses[0]->status, ST_PARTIAL);
	EQ(statuses[1]->status, ST_SUCCESS);
	EQ(statuses[1]->ends, 1);
	kmem_stall__delete(ks);
	return TEST_OK;
}

/* --- the edges of the trace ------------------------------------------ */

/*
 * At the start, task 5 ends a reclaim begun before the trace and then
 * allocates: a stall begun before, of unknown length; task 6 ends a memcg
 * reclaim it began before.  At the end, task 5 has a reclaim open, task 8
 * waits for its allocation after compacting, task 6 is inside a memcg
 * reclaim.  None of it is in the distribution.
 */
static const struct step edges[] = {
	{ 5, 10, KMEM_STALL_RECLAIM_END, -1, 0, 7, 0 },
	{ 6, 12, KMEM_STALL_MEMCG_END, -1, 0, 3, 0 },
	{ 5, 15, KMEM_STALL_COMPACT_TRY, 1, GFP_K, 2, 0 },	/* its retry */
	{ 5, 20, ALLOC, 0, GFP_K, 0x1, CS_A },		/* another order */
	{ 5, 30, ALLOC, 1, GFP_K, 0x2, CS_A },		/* its allocation */
	{ 8, 35, KMEM_STALL_COMPACT_TRY, 4, GFP_K, 2, 0 },
	{ 8, 36, KMEM_STALL_COMPACT_BEGIN, -1, 0, 0, 0 },
	{ 8, 40, KMEM_STALL_COMPACT_END, -1, 0, ST_PARTIAL, 0 },
	{ 6, 45, KMEM_STALL_MEMCG_BEGIN, 0, GFP_K, CS_M, 0 },
	{ 5, 50, KMEM_STALL_RECLAIM_BEGIN, 0, GFP_K, 0, 0 },
};

static int test__kmem_stall_edges(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_stall *ks = run_steps(edges, ARRAY_SIZE(edges));
	const struct kmem_stall_summary *s;
	struct kmem_stall_row **rows;
	size_t nr;
	int i;

	TEST_ASSERT_VAL("run", ks);
	TEST_ASSERT_VAL("finish", !kmem_stall__finish(ks));
	s = kmem_stall__summary(ks);
	EQ(s->all.stalls, 0);
	EQ(s->all.total_ns, 0);
	EQ(s->all.p50_ns, 0);
	for (i = 0; i < KMEM_STALL_NR_BUCKETS; i++)
		EQ(s->all.hist[i], 0);
	EQ(s->apart.begun_before, 1);
	EQ(s->apart.not_ended, 2);
	EQ(s->apart.memcg_begun_before, 1);
	EQ(s->apart.memcg_not_ended, 1);
	EQ(s->apart.abandoned, 0);
	EQ(s->memcg.reclaims, 0);
	EQ(s->events.memcg_reclaims, 1);
	EQ(s->events.memcg_reclaim_ends, 1);
	EQ(s->events.memcg_reclaimed, 3);
	EQ(s->events.nested_allocs, 1);
	/* Task 5's retry succeeded; task 8's attempt, open, failed. */
	EQ(s->events.outcomes[KMEM_COMPACT_SUCCESS], 1);
	EQ(s->events.outcomes[KMEM_COMPACT_FAIL], 1);
	rows = kmem_stall__rows(ks, NULL, 0, &nr);
	TEST_ASSERT_VAL("no rows", rows && nr == 0);
	TEST_ASSERT_VAL("finish again", !kmem_stall__finish(ks));
	EQ(s->apart.not_ended, 2);
	kmem_stall__delete(ks);
	return TEST_OK;
}

/*
 * Lost events: a stall whose allocation does not come before the task
 * begins one of another order; a reclaim begin inside a reclaim; a
 * reclaim end outside one while a stall waits.
 */
static const struct step lost[] = {
	{ 3, 10, KMEM_STALL_RECLAIM_BEGIN, 2, GFP_K, 0, 0 },
	{ 3, 20, KMEM_STALL_RECLAIM_END, -1, 0, 1, 0 },
	{ 3, 30, KMEM_STALL_RECLAIM_BEGIN, 0, GFP_K, 0, 0 },	/* abandons */
	{ 3, 40, KMEM_STALL_RECLAIM_BEGIN, 0, GFP_K, 0, 0 },	/* unpaired */
	{ 3, 50, KMEM_STALL_RECLAIM_END, -1, 0, 1, 0 },
	{ 3, 55, KMEM_STALL_RECLAIM_END, -1, 0, 1, 0 },	/* unpaired */
	{ 3, 60, ALLOC, 0, GFP_K, 0x1, CS_A },		/* 30..60 */
};

static int test__kmem_stall_lost(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kmem_stall *ks = run_steps(lost, ARRAY_SIZE(lost));
	const struct kmem_stall_summary *s;

	TEST_ASSERT_VAL("run", ks);
	TEST_ASSERT_VAL("finish", !kmem_stall__finish(ks));
	s = kmem_stall__summary(ks);
	EQ(s->apart.abandoned, 1);
	EQ(s->apart.unpaired, 2);
	EQ(s->all.stalls, 1);
	EQ(s->all.total_ns, 30 * US);
	EQ(s->all.reclaims, 2);
	EQ(s->all.reclaim_ns, 20 * US);
	EQ(s->events.reclaims, 3);
	EQ(s->events.reclaim_ends, 3);
	kmem_stall__delete(ks);
	return TEST_OK;
}

/* --- memcg, the daemons ----------------------------------------------- */

static const struct step memcg[] = {
	{ 11, 100, KMEM_STALL_MEMCG_BEGIN, 0, GFP_K, CS_M, 0 },
	{ 12, 110, KMEM_STALL_MEMCG_BEGIN, 0, GFP_K, CS_A, 0 },
	{ 12, 130, KMEM_STALL_MEMCG_END, -1, 0, 32, 0 },	/* 20 us */
	{ 11, 150, ALLOC, 0, GFP_K, 0x1, CS_B },	/* no stall of 11's */
	{ 11, 400, KMEM_STALL_MEMCG_END, -1, 0, 64, 0 },	/* 300 us */
	{ 11, 500, KMEM_STALL_MEMCG_BEGIN, 0, GFP_K, CS_M, 0 },
	{ 11, 600, KMEM_STALL_MEMCG_END, -1, 0, 10, 0 },	/* 100 us */
	{ 20, 700, KMEM_STALL_KSWAPD_WAKEUP, 0, GFP_K, 0, 0 },
	{ 20, 701, KMEM_STALL_KSWAPD_WAKEUP, 9, GFP_K, 0, 0 },
	{ 21, 702, KMEM_STALL_KSWAPD_WAKE, 9, 0, 0, 0 },
	{ 22, 703, KMEM_STALL_KCOMPACTD_WAKEUP, -1, 0, 0, 0 },
	{ 23, 704, KMEM_STALL_KCOMPACTD_WAKE, 3, 0, 0, 0 },
	{ 23, 705, KMEM_STALL_KCOMPACTD_WAKE, 99, 0, 0, 0 },
	{ 23, 706, KMEM_STALL_COMPACT_END, -1, 0, 1234, 0 },
};

static int test__kmem_stall_memcg(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_stall *ks = run_steps(memcg, ARRAY_SIZE(memcg));
	struct kmem_stall_wake_row * const *wakes;
	const struct kmem_stall_summary *s;
	struct kmem_stall_memcg_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("run", ks);
	rows = kmem_stall__memcg_rows(ks, &nr);
	s = kmem_stall__summary(ks);
	EQ(s->all.stalls, 0);
	EQ(s->memcg.reclaims, 3);
	EQ(s->memcg.total_ns, 420 * US);
	EQ(s->memcg.max_ns, 300 * US);
	EQ(s->memcg.reclaimed, 106);
	TEST_ASSERT_VAL("rows", rows && nr == 2);
	EQ(rows[0]->callsite, CS_M);
	EQ(rows[0]->reclaims, 2);
	EQ(rows[0]->total_ns, 400 * US);
	EQ(rows[0]->max_ns, 300 * US);
	EQ(rows[0]->reclaimed, 74);
	EQ(rows[1]->callsite, CS_A);
	EQ(rows[1]->total_ns, 20 * US);
	EQ(wakeups(ks, KMEM_WAKE_KSWAPD_WAKEUP, 0), 1);
	EQ(wakeups(ks, KMEM_WAKE_KSWAPD_WAKEUP, 9), 1);
	EQ(wakeups(ks, KMEM_WAKE_KSWAPD, 9), 1);
	EQ(wakeups(ks, KMEM_WAKE_KCOMPACTD_WAKEUP, -1), 1);
	EQ(wakeups(ks, KMEM_WAKE_KCOMPACTD, 3), 1);
	/* An order out of range counts under the last. */
	EQ(wakeups(ks, KMEM_WAKE_KCOMPACTD, KMEM_STALL_MAX_ORDER), 1);
	EQ(wakeups(ks, KMEM_WAKE_KCOMPACTD, -2), 0);
	EQ(status_ends(ks, KMEM_STALL_NR_STATUS - 1), 1);
	EQ(s->memcg.mean_ns, 140 * US);
	EQ(rows[0]->mean_ns, 200 * US);
	wakes = kmem_stall__wake_rows(ks, &nr);
	TEST_ASSERT_VAL("wake rows", wakes && nr == 5);
	EQ((u64)(s64)wakes[0]->order, (u64)-1);
	EQ(wakes[0]->wakeups[KMEM_WAKE_KCOMPACTD_WAKEUP], 1);
	EQ(wakes[2]->order, 3);
	EQ(wakes[3]->order, 9);
	EQ(wakes[3]->wakeups[KMEM_WAKE_KSWAPD_WAKEUP], 1);
	EQ(wakes[3]->wakeups[KMEM_WAKE_KSWAPD], 1);
	EQ(wakes[4]->order, KMEM_STALL_MAX_ORDER);
	kmem_stall__delete(ks);
	return TEST_OK;
}

/* --- distributions ---------------------------------------------------- */

/*
 * The histogram bucket of one stall of @ns, and its bounds in us as the
 * table of buckets gives them; -1 if the stall did not count.
 */
static int bucket_of(u64 ns, u64 *lo_us, u64 *hi_us)
{
	struct kmem_stall_event try = {
		.type = KMEM_STALL_COMPACT_TRY, .gfp = GFP_K,
	};
	struct kmem_page_event ev = {
		.pfn = 1, .gfp = GFP_K, .cpu_node = -1, .page_node = -1,
	};
	struct kmem_stall *ks = kmem_stall__new();
	const struct kmem_stall_bucket * const *b;
	int bucket = -1;
	size_t nr;

	if (ks && !kmem_stall__event(ks, 1, 0, &try) &&
	    kmem_stall__alloc(ks, 1, ns, &ev) == 1) {
		const u64 *hist = kmem_stall__summary(ks)->all.hist;

		for (bucket = 0; !hist[bucket]; bucket++)
			;
		b = kmem_stall__buckets(ks, &nr);
		*lo_us = nr == 1 ? b[0]->lo_us : ~0ULL;
		*hi_us = nr == 1 ? b[0]->hi_us : 0;
	}
	kmem_stall__delete(ks);
	return bucket;
}

static int test__kmem_stall_buckets(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	static const struct {
		u64	ns;
		int	bucket;
	} cases[] = {
		{ 0, 0 }, { 999, 0 }, { 1000, 1 }, { 1999, 1 }, { 2000, 2 },
		{ 3999, 2 }, { 4000, 3 }, { 1023999, 10 }, { 1024000, 11 },
		{ ~0ULL, KMEM_STALL_NR_BUCKETS - 1 },
	};
	struct kmem_stall *ks;
	const struct kmem_stall_dist *d;
	size_t i;
	u32 tid;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 lo_us = 0, hi_us = 0;
		int b = bucket_of(cases[i].ns, &lo_us, &hi_us);

		pr_debug("%" PRIu64 " ns: bucket %d\n", cases[i].ns, b);
		TEST_ASSERT_VAL("bucket", b == cases[i].bucket);
		if (b < KMEM_STALL_NR_BUCKETS - 1)
			TEST_ASSERT_VAL("in its bounds",
					cases[i].ns / 1000 >= lo_us &&
					cases[i].ns / 1000 < hi_us);
	}
	/*
	 * 200 stalls of order 1, 1..200 us: the nearest ranks are 100, 180
	 * and 198; a stall of order 40 (no kernel's) is in the whole only.
	 */
	ks = kmem_stall__new();
	TEST_ASSERT_VAL("new", ks);
	TEST_ASSERT_VAL("bad type", event(ks, 1, 1, KMEM_STALL_NR_TYPES, 0, 0, 0) ==
			-EINVAL);
	for (tid = 1; tid <= 200; tid++)
		TEST_ASSERT_VAL("begin", !event(ks, tid, 1000, KMEM_STALL_COMPACT_TRY,
						1, GFP_K, 0));
	/* Task 200 stalls 1 us, task 1 200 us. */
	for (tid = 200; tid >= 1; tid--) {
		TEST_ASSERT_VAL("end", alloc(ks, tid, 1000 + (201 - tid), 1, GFP_K,
					     tid, CS_A, MT_UNMOV) == 1);
		TEST_ASSERT_VAL("its length",
				kmem_stall__ended_ns(ks) == (201 - tid) * US);
	}
	TEST_ASSERT_VAL("begin", !event(ks, 999, 5000, KMEM_STALL_COMPACT_TRY,
					40, GFP_K, 0));
	TEST_ASSERT_VAL("end", alloc(ks, 999, 5500, 40, GFP_K, 1, CS_A, MT_UNMOV) == 1);
	TEST_ASSERT_VAL("finish", !kmem_stall__finish(ks));
	d = order_dist(ks, 1);
	EQ(d->stalls, 200);
	EQ(d->total_ns, 200 * 201 / 2 * US);
	EQ(d->p50_ns, 100 * US);
	EQ(d->p90_ns, 180 * US);
	EQ(d->p99_ns, 198 * US);
	EQ(d->max_ns, 200 * US);
	/* 1 us: bucket 1; 2..3: 2; 4..7: 3; ...; 128..200: 8 */
	EQ(d->hist[1], 1);
	EQ(d->hist[2], 2);
	EQ(d->hist[3], 4);
	EQ(d->hist[8], 73);
	d = &kmem_stall__summary(ks)->all;
	EQ(d->stalls, 201);
	EQ(d->max_ns, 500 * US);
	EQ(d->p50_ns, 101 * US);
	EQ(d->p99_ns, 199 * US);
	TEST_ASSERT_VAL("order out of range", !order_dist(ks, 40));
	kmem_stall__delete(ks);
	return TEST_OK;
}

/* --- a random stream against its generator --------------------------- */

#define RAND_TASKS	6
#define RAND_ALLOCS	3000
#define RAND_SITES	3

/* What the generator knows of the stalls it made. */
struct model {
	u64	stalls, failed, total, max, reclaim, compact, reclaimed;
	u64	site_total[RAND_SITES];
	u64	lengths[RAND_ALLOCS];
};

/* The timeline of one task: what it does next, and when. */
struct gen_task {
	u64	t;		/* its clock, us */
	int	step;		/* of its allocation's attempts; -1: none */
	int	attempts;
	int	order;
	u64	gfp;
	u64	begin;
	u64	site;
	bool	fail;
	/* Of the allocation's attempts so far, for the model at its end. */
	u64	reclaim, compact, reclaimed;
};

static u64 site_of(int i)
{
	return CS_A + 0x100 * i;
}

/* Start task @g's next allocation: stalled with 0..4 attempts. */
static void gen_start(struct gen_task *g, unsigned int *seed)
{
	g->attempts = rand_r(seed) % 5;
	g->order = rand_r(seed) % 4 == 0 ? 9 : rand_r(seed) % 3;
	g->gfp = rand_r(seed) % 2 ? GFP_K : GFP_THP;
	g->site = rand_r(seed) % RAND_SITES;
	g->fail = rand_r(seed) % 7 == 0;
	g->step = 0;
	g->begin = g->t;
	g->reclaim = 0;
	g->compact = 0;
	g->reclaimed = 0;
}

/*
 * One step of task @tid: a reclaim (begin, nested allocation, end) or a
 * compaction attempt (try, begin, end), or, after the last, its
 * allocation, which adds the stall to the model.
 */
static int gen_step(struct kmem_stall *ks, struct model *m, u32 tid,
		    struct gen_task *g, unsigned int *seed)
{
	u64 len = 1 + rand_r(seed) % 500;
	int err;

	if (g->step == g->attempts) {
		err = alloc(ks, tid, g->t, g->order, g->gfp,
			    g->fail ? NO_PFN : 0x1000 + tid, site_of(g->site),
			    MT_MOV);
		/* 1: it ended a stall, as it must after attempts. */
		if (err != !!g->attempts)
			return err < 0 ? err : -EINVAL;
		err = 0;
		if (g->attempts) {
			u64 l = g->t - g->begin;

			m->lengths[m->stalls++] = l;
			m->failed += g->fail;
			m->total += l;
			m->max = max(m->max, l);
			m->site_total[g->site] += l;
			m->reclaim += g->reclaim;
			m->compact += g->compact;
			m->reclaimed += g->reclaimed;
		}
		g->t += 1 + rand_r(seed) % 50;
		gen_start(g, seed);
		return err;
	}
	if (rand_r(seed) % 2) {
		err = event(ks, tid, g->t, KMEM_STALL_RECLAIM_BEGIN, g->order,
			    g->gfp, 0) ?:
		      alloc(ks, tid, g->t + len / 2, g->order, g->gfp, 0x10, CS_B,
			    MT_MOV) ?:
		      event(ks, tid, g->t + len, KMEM_STALL_RECLAIM_END, -1, 0, len);
		g->reclaim += len;
		g->reclaimed += len;
	} else {
		err = event(ks, tid, g->t, KMEM_STALL_COMPACT_TRY, g->order,
			    g->gfp, 2) ?:
		      event(ks, tid, g->t + 1, KMEM_STALL_COMPACT_BEGIN, -1, 0, 0) ?:
		      event(ks, tid, g->t + len, KMEM_STALL_COMPACT_END, -1, 0,
			    ST_PARTIAL);
		g->compact += len;
	}
	g->t += len + rand_r(seed) % 20;
	g->step++;
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int test__kmem_stall_random(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_stall *ks = kmem_stall__new();
	struct gen_task tasks[RAND_TASKS] = { 0 };
	struct model *m = calloc(1, sizeof(*m));
	const struct kmem_stall_dist *d;
	unsigned int seed = 23;
	size_t allocs = 0;
	int i, err = 0;

	TEST_ASSERT_VAL("new", ks && m);
	for (i = 0; i < RAND_TASKS; i++)
		gen_start(&tasks[i], &seed);
	/*
	 * Always the task whose clock is earliest next: each task's events
	 * in its time order, the tasks' interleaved.
	 */
	while (!err && allocs < RAND_ALLOCS) {
		int next = 0;

		for (i = 1; i < RAND_TASKS; i++)
			if (tasks[i].t < tasks[next].t)
				next = i;
		allocs += tasks[next].step == tasks[next].attempts;
		err = gen_step(ks, m, 100 + next, &tasks[next], &seed);
	}
	TEST_ASSERT_VAL("events", !err);
	TEST_ASSERT_VAL("finish", !kmem_stall__finish(ks));
	d = &kmem_stall__summary(ks)->all;
	EQ(d->stalls, m->stalls);
	EQ(d->failed, m->failed);
	EQ(d->total_ns, m->total * US);
	EQ(d->max_ns, m->max * US);
	EQ(d->reclaim_ns, m->reclaim * US);
	EQ(d->reclaimed, m->reclaimed);
	EQ(d->compact_ns, m->compact * US);
	qsort(m->lengths, m->stalls, sizeof(u64), cmp_u64);
	EQ(d->p50_ns, m->lengths[(m->stalls + 1) / 2 - 1] * US);
	EQ(d->p99_ns, m->lengths[(99 * m->stalls + 99) / 100 - 1] * US);
	for (i = 0; i < RAND_SITES; i++)
		EQ(kmem_stall__callsite_ns(ks, site_of(i)), m->site_total[i] * US);
	/* The tasks' last allocations, begun, are not ended. */
	for (i = 0, allocs = 0; i < RAND_TASKS; i++)
		allocs += tasks[i].step > 0;
	EQ(kmem_stall__summary(ks)->apart.not_ended, allocs);
	free(m);
	kmem_stall__delete(ks);
	return TEST_OK;
}

static struct test_case kmem_stall_tests[] = {
	TEST_CASE("kmem stall: one task, one reclaim, nested allocations", kmem_stall_one),
	TEST_CASE("kmem stall: the attempts of a THP fault", kmem_stall_attempts),
	TEST_CASE("kmem stall: failed after reclaim and compaction", kmem_stall_failure),
	TEST_CASE("kmem stall: several tasks, interleaved", kmem_stall_tasks),
	TEST_CASE("kmem stall: ends before the trace, begins at its end", kmem_stall_edges),
	TEST_CASE("kmem stall: lost events", kmem_stall_lost),
	TEST_CASE("kmem stall: memcg reclaim rows, kswapd and kcompactd", kmem_stall_memcg),
	TEST_CASE("kmem stall: histogram buckets and percentiles", kmem_stall_buckets),
	TEST_CASE("kmem stall: random stream against its generator", kmem_stall_random),
	{ .name = NULL, }
};

struct test_suite suite__kmem_stall = {
	.desc = "perf kmem allocation stalls",
	.test_cases = kmem_stall_tests,
};
