// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of perf kmem stat -b's user side without a kernel: the
 * weights and the sampler the BPF program shares (bpf_skel/kmem_data.h),
 * and util/kmem/bpf-fill.c reading made-up maps into the analyses.
 *
 * The expected numbers are worked out by hand, or from the exponential
 * distribution itself; the sampler's estimates are held to a bound from
 * the variance of the estimator: n allocations each sampled with chance
 * p, weighted 1/p, estimate n with a standard deviation of
 * sqrt(n (1 - p) / p).
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include "debug.h"
#include "tests.h"
#include "util/kmem/bpf-fill.h"
#include "util/kmem/count-frag.h"
#include "util/kmem/count-page.h"
#include "util/kmem/count-slab.h"
#include "util/kmem/count-stall.h"
#include "util/kmem/read-procmem.h"

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

#define PS		4096ULL
#define N512K		(512 * 1024ULL)
#define GFP_A		0x140cc0ULL
#define CS_A		0xffffffff81000100ULL
#define CS_B		0xffffffff81000200ULL
#define STACK_A		BIT(KMEM_BPF_CPU_BITS)
#define STACK_B		(2 * BIT(KMEM_BPF_CPU_BITS))
/* Tolerances: of a weight worked out by hand, of the sampler's mean. */
#define HAND		0.00001
#define MEAN		0.002
#define QUANTILE	0.0001
#define ENDS		0.001

static bool eq(u64 got, u64 want)
{
	if (got == want)
		return true;
	pr_debug("got %" PRIu64 ", want %" PRIu64 "\n", got, want);
	return false;
}

static bool near(double got, double want, double tolerance)
{
	if (fabs(got - want) <= tolerance)
		return true;
	pr_debug("got %.6f, want %.6f within %.6f\n", got, want, tolerance);
	return false;
}

static bool count_is(const struct kmem_count *c, u64 nr, u64 bytes)
{
	return eq(c->nr, nr) && eq(c->bytes, bytes);
}

static int test__kmem_bpf_weight(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	/*
	 * 1 / (1 - exp(-x)) = 1/x + 1/2 + x/12 - ...: 128.500651 for
	 * x = 1/128; 1 / (1 - exp(-4)) = 1 / 0.981684.
	 */
	TEST_ASSERT_VAL("a page of 512K",
			near(kmem_bpf_fill__weight(PS, N512K), 128.500651, HAND));
	TEST_ASSERT_VAL("2 MiB of 512K",
			near(kmem_bpf_fill__weight(2 << 20, N512K), 1.018657, HAND));
	TEST_ASSERT_VAL("every stack", kmem_bpf_fill__weight(PS, 1) == 1.0);
	TEST_ASSERT_VAL("no bytes", kmem_bpf_fill__weight(0, N512K) == 1.0);
	TEST_ASSERT_VAL("estimate", eq(kmem_bpf_fill__estimate(2, PS, N512K), 257));
	TEST_ASSERT_VAL("exact", eq(kmem_bpf_fill__estimate(7, PS, 1), 7));
	TEST_ASSERT_VAL("none", eq(kmem_bpf_fill__estimate(0, PS, N512K), 0));
	return TEST_OK;
}

/* What the user side gives the program: log2(1 + i / 256) in Q32. */
static void log2_table(__u64 *table)
{
	int i;

	for (i = 0; i < KMEM_BPF_LOG2_SIZE; i++)
		table[i] = llround(log2(1.0 + i / 256.0) * 4294967296.0);
}

/*
 * The gaps of 2^16 evenly spread random numbers are the quantiles of the
 * distribution: their mean is the mean gap and their share below s is
 * 1 - exp(-s / mean), to within the grid's step.
 */
static int test__kmem_bpf_gaps(struct test_suite *t __maybe_unused,
			       int subtest __maybe_unused)
{
	static const double at[] = { 0.01, 0.1, 0.5, 1, 2, 4, 8 };
	const u32 points = 1 << 16;
	__u64 table[KMEM_BPF_LOG2_SIZE], longest;
	size_t below[ARRAY_SIZE(at)] = { 0 };
	double sum = 0;
	size_t j;
	u32 i;

	log2_table(table);
	for (i = 0; i < points; i++) {
		u32 rnd = (u32)(((u64)i << 16) + (1 << 15));
		u64 gap = kmem_bpf_gap(rnd, N512K, table);

		sum += gap;
		for (j = 0; j < ARRAY_SIZE(at); j++)
			below[j] += gap <= at[j] * N512K;
	}
	TEST_ASSERT_VAL("mean", near(sum / points / N512K, 1.0, MEAN));
	for (j = 0; j < ARRAY_SIZE(at); j++)
		TEST_ASSERT_VAL("share below",
				near((double)below[j] / points, -expm1(-at[j]),
				     1.0 / points + QUANTILE));
	/* The ends: U = 1 is no gap, the smallest U the longest. */
	TEST_ASSERT_VAL("U = 1", kmem_bpf_gap(~0U, N512K, table) < 2);
	longest = kmem_bpf_gap(0, N512K, table);
	TEST_ASSERT_VAL("U = 2^-32", near((double)longest / N512K, 32 * M_LN2,
					  ENDS));
	return TEST_OK;
}

static u32 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s >> 32;
}

/*
 * The BPF program's sampling, as it runs on one CPU (kmem.bpf.c,
 * sample()), over a stream of three sizes interleaved: each size's
 * estimate from its samples is within 4 standard deviations of its
 * count (a test that fails once in 15,000 seeds; this one is fixed).
 */
static int test__kmem_bpf_estimates(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	static const u64 sizes[] = { PS, 16 * PS, 512 * PS };
	static const u64 counts[] = { 300000, 20000, 400 };
	__u64 table[KMEM_BPF_LOG2_SIZE];
	u64 seed = 0x9e3779b97f4a7c15ULL;
	u64 samples[ARRAY_SIZE(sizes)] = { 0 }, left[ARRAY_SIZE(sizes)];
	s64 bytes_left;
	size_t k, i;

	log2_table(table);
	memcpy(left, counts, sizeof(left));
	bytes_left = kmem_bpf_gap(xorshift(&seed), N512K, table);
	while (left[0] || left[1] || left[2]) {
		k = xorshift(&seed) % ARRAY_SIZE(sizes);
		if (!left[k])
			continue;
		left[k]--;
		bytes_left -= sizes[k];
		if (bytes_left > 0)
			continue;
		samples[k]++;
		bytes_left = kmem_bpf_gap(xorshift(&seed), N512K, table);
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		double p = -expm1(-(double)sizes[i] / N512K);
		double sd = sqrt(counts[i] * (1 - p) / p);
		u64 est = kmem_bpf_fill__estimate(samples[i], sizes[i], N512K);

		pr_debug("size %" PRIu64 ": %" PRIu64 " samples, estimate %" PRIu64 " of %" PRIu64 " (sd %.0f)\n",
			 sizes[i], samples[i], est, counts[i], sd);
		TEST_ASSERT_VAL("within 4 sd", near(est, counts[i], 4 * sd + 1));
	}
	return TEST_OK;
}

/* --- made-up maps ----------------------------------------------------- */

static u64 name_stack(u32 stack_id, void *arg __maybe_unused)
{
	return stack_id == STACK_A ? CS_A : stack_id == STACK_B ? CS_B : 0;
}

static u64 name_call_site(u64 call_site, void *arg __maybe_unused)
{
	return call_site & ~0xffULL;
}

static const char *keep_name(const char *name, void *arg __maybe_unused)
{
	if (!strcmp(name, "dentry"))
		return "dentry";
	return "other";
}

static const struct kmem_bpf_namer namer = {
	.callsite = name_stack,
	.function = name_call_site,
	.cache = keep_name,
};

static void set_grid(struct kmem_bpf_snapshot *s, int order, int slot, u64 n)
{
	s->counts[order * KMEM_BPF_NR_MIGTYPES + slot] = n;
}

static void set_order(struct kmem_bpf_snapshot *s,
		      enum kmem_bpf_order_counter c, int order, u64 n)
{
	s->counts[KMEM_BPF_ORDER_BASE + c * KMEM_BPF_NR_ORDERS + order] = n;
}

static const struct kmem_bpf_row_key page_keys[] = {
	{ .gfp = GFP_A, .stack_id = STACK_A, .order = 0, .migtype = 0 },
	{ .gfp = GFP_A, .stack_id = STACK_B, .order = 0, .migtype = 0 },
	{ .gfp = GFP_A, .stack_id = STACK_A, .order = 3, .migtype = 1 },
};

static const struct kmem_bpf_row page_rows[] = {
	{ .samples = 6, .freed = 3, .dropped = 1 },
	{ .samples = 2 },
	{ .samples = 2, .freed = 2 },
};

static const struct kmem_bpf_fail_key fail_keys[] = {
	{ .gfp = GFP_A, .order = 2, .migtype = 1 },
};

static const u64 fail_counts[] = { 3 };

/* The allocations of the page tests: 12 order 0, 2 order 3, 1 Special. */
static void page_snapshot(struct kmem_bpf_snapshot *s, u64 sample_bytes)
{
	memset(s, 0, sizeof(*s));
	s->page_size = PS;
	s->sample_bytes = sample_bytes;
	s->pageblock_order = 9;
	set_grid(s, 0, 0, 10);
	set_grid(s, 0, KMEM_BPF_BAD_MIGTYPE, 2);
	set_grid(s, 3, 1, 2);
	set_order(s, KMEM_BPF_FREE, 0, 9);
	set_order(s, KMEM_BPF_TRACKED, 0, 8);
	set_order(s, KMEM_BPF_TRACKED, 3, 2);
	set_order(s, KMEM_BPF_FREED, 0, 3);
	set_order(s, KMEM_BPF_FREED, 3, 2);
	set_order(s, KMEM_BPF_DROPPED, 0, 1);
	set_order(s, KMEM_BPF_FREE_ONLY, 0, 6);
	s->row_keys = page_keys;
	s->rows = page_rows;
	s->nr_rows = ARRAY_SIZE(page_rows);
	s->fail_keys = fail_keys;
	s->fails = fail_counts;
	s->nr_fails = ARRAY_SIZE(fail_counts);
}

static struct kmem_page *page_analysis(bool live)
{
	struct kmem_page_config config = { .page_size = PS, .live_only = live };

	return kmem_page__new(&config);
}

static const struct kmem_page_row *row_of(struct kmem_page_row **rows,
					  size_t nr, u64 callsite, int order)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (rows[i]->callsite == callsite && rows[i]->order == order)
			return rows[i];
	return NULL;
}

/* Every stack taken: the rows and lifetimes are the maps' counts. */
static int test__kmem_bpf_page_exact(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	static const struct kmem_sort_key keys[] = {
		{ .offset = offsetof(struct kmem_page_row, bytes),
		  .kind = KMEM_SORT_U64, .descending = true },
	};
	const struct kmem_page_summary *sum;
	struct kmem_bpf_snapshot s;
	struct kmem_page_row **rows;
	const struct kmem_page_row *row;
	struct kmem_page *kp = page_analysis(false);
	size_t nr;

	TEST_ASSERT_VAL("kmem_page__new", kp);
	page_snapshot(&s, 1);
	TEST_ASSERT_VAL("fill", !kmem_bpf_fill__page(&s, kp, &namer));
	rows = kmem_page__rows(kp, KMEM_PAGE_TABLE_CALLER, keys, 1, &nr);
	sum = kmem_page__summary(kp);
	TEST_ASSERT_VAL("alloc", count_is(&sum->alloc, 14, 12 * PS + 2 * 8 * PS));
	TEST_ASSERT_VAL("bad migtype", eq(sum->bad_migtype, 2));
	TEST_ASSERT_VAL("free", count_is(&sum->free, 9, 9 * PS));
	TEST_ASSERT_VAL("fail", count_is(&sum->fail, 3, 3 * 4 * PS));
	TEST_ASSERT_VAL("freed", count_is(&sum->life.freed, 5, 3 * PS + 2 * 8 * PS));
	TEST_ASSERT_VAL("dropped", count_is(&sum->life.dropped, 1, PS));
	TEST_ASSERT_VAL("live", count_is(&sum->life.live, 4, 4 * PS));
	TEST_ASSERT_VAL("free only", count_is(&sum->free_only, 6, 6 * PS));
	TEST_ASSERT_VAL("grid", eq(kmem_page__grid(kp, 0, KMEM_MIGTYPE_UNMOVABLE), 10));
	TEST_ASSERT_VAL("grid special", eq(kmem_page__grid(kp, 0, KMEM_MIGTYPE_SPECIAL), 2));
	TEST_ASSERT_VAL("grid movable", eq(kmem_page__grid(kp, 3, KMEM_MIGTYPE_MOVABLE), 2));
	/* Stacks A and B name two callsites; A's two orders are two rows. */
	TEST_ASSERT_VAL("rows", rows && eq(nr, 3));
	row = row_of(rows, nr, CS_A, 0);
	TEST_ASSERT_VAL("row A", row && eq(row->hits, 6) && eq(row->freed, 3) &&
			eq(row->dropped, 1) && eq(row->bytes, 6 * PS));
	row = row_of(rows, nr, CS_B, 0);
	TEST_ASSERT_VAL("row B", row && eq(row->hits, 2) && eq(row->gfp, GFP_A));
	kmem_page__delete(kp);
	return TEST_OK;
}

/* Sampled: rows and lifetimes are the samples times their weights. */
static int test__kmem_bpf_page_sampled(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	static const struct kmem_sort_key keys[] = {
		{ .offset = offsetof(struct kmem_page_row, bytes),
		  .kind = KMEM_SORT_U64, .descending = true },
	};
	double w0 = kmem_bpf_fill__weight(PS, N512K);
	double w3 = kmem_bpf_fill__weight(8 * PS, N512K);
	const struct kmem_page_summary *sum;
	struct kmem_bpf_snapshot s;
	struct kmem_page_row **rows;
	const struct kmem_page_row *row;
	struct kmem_page *kp = page_analysis(true);
	size_t nr;

	TEST_ASSERT_VAL("kmem_page__new", kp);
	page_snapshot(&s, N512K);
	TEST_ASSERT_VAL("fill", !kmem_bpf_fill__page(&s, kp, &namer));
	rows = kmem_page__rows(kp, KMEM_PAGE_TABLE_CALLER, keys, 1, &nr);
	sum = kmem_page__summary(kp);
	/* The totals stay exact. */
	TEST_ASSERT_VAL("alloc", count_is(&sum->alloc, 14, 12 * PS + 2 * 8 * PS));
	TEST_ASSERT_VAL("free", count_is(&sum->free, 9, 9 * PS));
	/*
	 * 3 * w0 + 2 * w3 estimated freed, more than the 9 frees: the
	 * groups are kept within the totals, and free-only is none.
	 */
	TEST_ASSERT_VAL("estimate past the frees", 3 * w0 + 2 * w3 > 9);
	TEST_ASSERT_VAL("freed", count_is(&sum->life.freed, 9, 9 * PS));
	TEST_ASSERT_VAL("groups within the allocations",
			sum->life.freed.nr + sum->life.dropped.nr + sum->life.live.nr <= 14 &&
			sum->life.freed.bytes + sum->life.dropped.bytes +
			sum->life.live.bytes <= 12 * PS + 2 * 8 * PS);
	TEST_ASSERT_VAL("live", count_is(&sum->life.live,
					 min_t(u64, llround(4 * w0),
					       (14 - 9 - sum->life.dropped.nr)),
					 min_t(u64, llround(4 * w0 * PS),
					       (28 * PS - 9 * PS - sum->life.dropped.bytes))));
	TEST_ASSERT_VAL("free only", count_is(&sum->free_only, 0, 0));
	/* --live: A's order-0 row has 2 samples still live, B's 2. */
	row = row_of(rows, nr, CS_A, 0);
	TEST_ASSERT_VAL("row A live", row &&
			eq(row->hits, llround(6 * w0) - llround(3 * w0) - llround(w0)));
	row = row_of(rows, nr, CS_B, 0);
	TEST_ASSERT_VAL("row B live", row && eq(row->hits, llround(2 * w0)));
	TEST_ASSERT_VAL("row A order 3 all freed", !row_of(rows, nr, CS_A, 3));
	kmem_page__delete(kp);
	return TEST_OK;
}

static const struct kmem_bpf_fallback_key fallback_keys[] = {
	/* polluted, severe */
	{ .alloc_order = 0, .fallback_order = 2, .alloc_migtype = 0,
	  .fallback_migtype = 1, .change_ownership = 0 },
	/* claimed a whole pageblock */
	{ .alloc_order = 0, .fallback_order = 9, .alloc_migtype = 0,
	  .fallback_migtype = 1, .change_ownership = 1 },
	/* converted, severe */
	{ .alloc_order = 1, .fallback_order = 3, .alloc_migtype = 2,
	  .fallback_migtype = 1, .change_ownership = 1 },
	/* cannot be real: refused */
	{ .alloc_order = 4, .fallback_order = 2, .alloc_migtype = 0,
	  .fallback_migtype = 1, .change_ownership = 0 },
};

static const u64 fallback_counts[] = { 4, 1, 2, 5 };

static const struct kmem_bpf_rare_key rare_keys[] = {
	{ .stack_id = STACK_A, .kind = KMEM_BPF_RARE_FALLBACK, .order = 0,
	  .fallback_order = 2, .migtype = 0, .fallback_migtype = 1 },
	{ .stack_id = STACK_B, .kind = KMEM_BPF_RARE_FAIL, .gfp = GFP_A,
	  .order = 2, .migtype = 1 },
};

static const struct kmem_bpf_rare rare_rows[] = {
	{ .taken = 3, .sampled = 1 },
	{ .taken = 3 },
};

/* Columns allocated from in bits 0-3, fallback classes in 4-6. */
static const struct kmem_bpf_block blocks[] = {
	{ .seen = 1 << KMEM_MIGTYPE_UNMOVABLE },
	{ .remote_frees = 2 },		/* not allocated into: not counted */
	{ .seen = 1 << KMEM_MIGTYPE_UNMOVABLE | 1 << KMEM_MIGTYPE_MOVABLE |
		  1 << (KMEM_BPF_BLOCK_FALLBACK + KMEM_FRAG_POLLUTED) },
	{ .seen = 1 << (KMEM_BPF_BLOCK_FALLBACK + KMEM_FRAG_CLAIMED) },
};

static int test__kmem_bpf_frag(struct test_suite *t __maybe_unused,
			       int subtest __maybe_unused)
{
	struct kmem_frag_config config = { .page_size = PS, .pageblock_order = 9 };
	struct kmem_frag *kf = kmem_frag__new(&config);
	const struct kmem_frag_summary *sum;
	const struct kmem_frag_cell *cell;
	struct kmem_frag_row **rows;
	struct kmem_frag_fail_row **fails;
	struct kmem_bpf_snapshot s;
	size_t nr;

	TEST_ASSERT_VAL("kmem_frag__new", kf);
	page_snapshot(&s, N512K);
	s.fallback_keys = fallback_keys;
	s.fallbacks = fallback_counts;
	s.nr_fallbacks = ARRAY_SIZE(fallback_counts);
	s.rare_keys = rare_keys;
	s.rare = rare_rows;
	s.nr_rare = ARRAY_SIZE(rare_rows);
	s.blocks = blocks;
	s.nr_blocks = ARRAY_SIZE(blocks);
	TEST_ASSERT_VAL("fill", !kmem_bpf_fill__frag(&s, kf, &namer));
	TEST_ASSERT_VAL("finish", !kmem_frag__finish(kf));
	sum = kmem_frag__summary(kf);
	TEST_ASSERT_VAL("fallbacks", count_is(&sum->fallbacks, 7, 5 * PS + 2 * 2 * PS));
	TEST_ASSERT_VAL("polluted", count_is(&sum->classes[KMEM_FRAG_POLLUTED], 4, 4 * PS));
	TEST_ASSERT_VAL("claimed", count_is(&sum->classes[KMEM_FRAG_CLAIMED], 1, PS));
	TEST_ASSERT_VAL("converted", count_is(&sum->classes[KMEM_FRAG_CONVERTED], 2, 4 * PS));
	TEST_ASSERT_VAL("severe", count_is(&sum->severe, 6, 4 * PS + 4 * PS));
	TEST_ASSERT_VAL("refused", eq(sum->bad_fallbacks, 5));
	cell = kmem_frag__cell(kf, KMEM_MIGTYPE_UNMOVABLE, KMEM_MIGTYPE_MOVABLE);
	TEST_ASSERT_VAL("cell", cell && eq(cell->fallbacks, 5) &&
			eq(cell->classes[KMEM_FRAG_POLLUTED], 4));
	TEST_ASSERT_VAL("fail", count_is(&sum->fail, 3, 3 * 4 * PS));
	TEST_ASSERT_VAL("alloc columns",
			count_is(&sum->alloc[KMEM_MIGTYPE_SPECIAL], 2, 2 * PS));
	TEST_ASSERT_VAL("blocks", eq(sum->blocks.allocated, 2) &&
			eq(sum->blocks.mixed, 1) && eq(sum->blocks.fallback_only, 1));
	/* Three stacks taken and one sampled: 3 + 1 weighted. */
	rows = kmem_frag__rows(kf, NULL, 0, &nr);
	TEST_ASSERT_VAL("fallback rows", rows && eq(nr, 1) &&
			eq(rows[0]->callsite, CS_A) &&
			eq(rows[0]->fallbacks.nr, 3 + kmem_bpf_fill__estimate(1, PS, N512K)));
	fails = kmem_frag__fail_rows(kf, NULL, 0, &nr);
	TEST_ASSERT_VAL("fail rows", fails && eq(nr, 1) &&
			eq(fails[0]->callsite, CS_B) && eq(fails[0]->asked.nr, 3) &&
			eq(fails[0]->gfp, GFP_A));
	kmem_frag__delete(kf);
	return TEST_OK;
}

static const struct kmem_bpf_slab_key slab_keys[] = {
	{ .call_site = CS_A + 0x12, .cache = "dentry" },
	{ .call_site = CS_A + 0x34, .cache = "dentry" },
	{ .call_site = CS_B + 0x10 },
};

static const struct kmem_bpf_slab slab_rows[] = {
	{ .hits = 10, .bytes_req = 1800, .bytes_alloc = 1920, .xnode = 1,
	  .xnode_bytes = 192 },
	{ .hits = 5, .bytes_req = 900, .bytes_alloc = 960 },
	{ .hits = 2, .bytes_req = 100, .bytes_alloc = 128, .fails = 1,
	  .fail_bytes = 4096, .zero_size = 3 },
};

static int test__kmem_bpf_slab(struct test_suite *t __maybe_unused,
			       int subtest __maybe_unused)
{
	static const struct kmem_sort_key keys[] = {
		{ .offset = offsetof(struct kmem_slab_row, hits),
		  .kind = KMEM_SORT_U64, .descending = true },
	};
	struct kmem_slab_config config = { .want_alloc_table = false };
	struct kmem_slab *ks = kmem_slab__new(&config);
	const struct kmem_slab_summary *sum;
	struct kmem_slab_row **rows;
	struct kmem_bpf_snapshot s;
	size_t nr;

	TEST_ASSERT_VAL("kmem_slab__new", ks);
	memset(&s, 0, sizeof(s));
	s.counts[KMEM_BPF_COUNTER_BASE + KMEM_BPF_SLAB_FREE] = 20;
	s.counts[KMEM_BPF_COUNTER_BASE + KMEM_BPF_SLAB_FREE_NULL] = 4;
	s.slab_keys = slab_keys;
	s.slab = slab_rows;
	s.nr_slab = ARRAY_SIZE(slab_rows);
	TEST_ASSERT_VAL("fill", !kmem_bpf_fill__slab(&s, ks, &namer));
	sum = kmem_slab__summary(ks);
	TEST_ASSERT_VAL("alloc", count_is(&sum->alloc, 17, 1920 + 960 + 128));
	TEST_ASSERT_VAL("req", eq(sum->bytes_req, 2800));
	TEST_ASSERT_VAL("fail", count_is(&sum->fail, 1, 4096));
	TEST_ASSERT_VAL("zero size", eq(sum->zero_size.nr, 3));
	TEST_ASSERT_VAL("xnode", count_is(&sum->xnode, 1, 192));
	TEST_ASSERT_VAL("frees", eq(sum->free, 20) && eq(sum->free_null, 4));
	/* Two call_sites of one function are one row, as a recording's. */
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CALLER, keys, 1, &nr);
	TEST_ASSERT_VAL("caller rows", rows && eq(nr, 2) &&
			eq(rows[0]->callsite, CS_A) && eq(rows[0]->hits, 15));
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CACHE, keys, 1, &nr);
	TEST_ASSERT_VAL("cache rows", rows && eq(nr, 1) &&
			!strcmp(rows[0]->cache, "dentry") && eq(rows[0]->hits, 15));
	kmem_slab__delete(ks);
	return TEST_OK;
}

/*
 * /proc/vmstat as 6.12 writes it, with the counters that look alike but
 * are not summed (pgscan_direct_throttle, thp_fault_fallback_charge), and
 * as a v4.7 kernel wrote the per-zone counters, without THP.
 */
static const char vmstat_612[] =
	"nr_free_pages 100\n"
	"allocstall_dma 0\n"
	"allocstall_dma32 1\n"
	"allocstall_normal 20\n"
	"allocstall_movable 300\n"
	"allocstall_device 4000\n"
	"pgsteal_kswapd 9\n"
	"pgsteal_direct 55\n"
	"pgscan_kswapd 7\n"
	"pgscan_direct 66\n"
	"pgscan_direct_throttle 1000\n"
	"compact_stall 12\n"
	"compact_fail 5\n"
	"compact_success 7\n"
	"thp_fault_alloc 8\n"
	"thp_fault_fallback 3\n"
	"thp_fault_fallback_charge 100\n";

static const char vmstat_47[] =
	"allocstall 4400\n"
	"pgscan_direct_dma 1\n"
	"pgscan_direct_normal 70\n"
	"pgscan_direct_movable 4\n"
	"pgscan_direct_throttle 2\n"
	"pgsteal_direct_normal 60\n"
	"compact_stall 20\n"
	"compact_fail 4\n"
	"compact_success 16";	/* no newline at the end */

static int test__kmem_bpf_vmstat(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kmem_vmstat a, b, d;
	u32 missing, thp = BIT(KMEM_VM_THP_FAULT_ALLOC) |
			   BIT(KMEM_VM_THP_FAULT_FALLBACK);

	TEST_ASSERT_VAL("parse 6.12", !kmem_vmstat__parse(&a, vmstat_612));
	TEST_ASSERT_VAL("have all", a.have == BIT(KMEM_NR_VMSTAT) - 1);
	TEST_ASSERT_VAL("allocstall_*", a.v[KMEM_VM_ALLOCSTALL] == 4321);
	TEST_ASSERT_VAL("pgscan_direct", a.v[KMEM_VM_PGSCAN_DIRECT] == 66);
	TEST_ASSERT_VAL("pgsteal_direct", a.v[KMEM_VM_PGSTEAL_DIRECT] == 55);
	TEST_ASSERT_VAL("compact", a.v[KMEM_VM_COMPACT_STALL] == 12 &&
			a.v[KMEM_VM_COMPACT_FAIL] == 5 &&
			a.v[KMEM_VM_COMPACT_SUCCESS] == 7);
	TEST_ASSERT_VAL("thp", a.v[KMEM_VM_THP_FAULT_ALLOC] == 8 &&
			a.v[KMEM_VM_THP_FAULT_FALLBACK] == 3);
	TEST_ASSERT_VAL("parse 4.7", !kmem_vmstat__parse(&b, vmstat_47));
	TEST_ASSERT_VAL("no thp", b.have == (BIT(KMEM_NR_VMSTAT) - 1 - thp));
	TEST_ASSERT_VAL("allocstall", b.v[KMEM_VM_ALLOCSTALL] == 4400);
	TEST_ASSERT_VAL("pgscan_direct_*", b.v[KMEM_VM_PGSCAN_DIRECT] == 75);
	TEST_ASSERT_VAL("pgsteal_direct_*", b.v[KMEM_VM_PGSTEAL_DIRECT] == 60);
	TEST_ASSERT_VAL("last line", b.v[KMEM_VM_COMPACT_SUCCESS] == 16);
	/* a to b: the THP counters missing, compact_fail gone down to 0. */
	missing = kmem_vmstat__delta(&a, &b, &d);
	TEST_ASSERT_VAL("missing", missing == thp && d.have == b.have);
	TEST_ASSERT_VAL("deltas", d.v[KMEM_VM_ALLOCSTALL] == 79 &&
			d.v[KMEM_VM_PGSCAN_DIRECT] == 9 &&
			d.v[KMEM_VM_PGSTEAL_DIRECT] == 5 &&
			d.v[KMEM_VM_COMPACT_STALL] == 8 &&
			d.v[KMEM_VM_COMPACT_FAIL] == 0 &&
			d.v[KMEM_VM_COMPACT_SUCCESS] == 9 &&
			d.v[KMEM_VM_THP_FAULT_ALLOC] == 0);
	TEST_ASSERT_VAL("garbage", kmem_vmstat__parse(&a, "no numbers\nhere") == -EINVAL);
	TEST_ASSERT_VAL("empty", kmem_vmstat__parse(&a, "") == -EINVAL);
	TEST_ASSERT_VAL("names", !strcmp(kmem_vmstat__name(KMEM_VM_ALLOCSTALL), "allocstall"));
	return TEST_OK;
}

/*
 * Two nodes.  Node 0 DMA: 1 + 8 (Unmovable) + 16 (Movable) = 25 free
 * pages, 24 in order-3 blocks: unusable 1/25 = 40 per mille at orders 1
 * to 3.  Node 0 Normal: Unmovable 4 + 2 x 2 = 8, Movable 8 + 4 + 8 = 20,
 * 28 pages: 12 in order-0 blocks, 4 in order-1 ones, 4 in order-2 ones:
 * 12/28 = 428, 16/28 = 571, 20/28 = 714 per mille at orders 1, 2, 3.
 * Node 1 Normal: a list past pagetypeinfo's count of 100,000.
 */
static const char pagetypeinfo[] =
	"Page block order: 9\n"
	"Pages per block:  512\n"
	"\n"
	"Free pages count per migrate type at order       0      1      2      3\n"
	"Node    0, zone      DMA, type    Unmovable      1      0      0      1\n"
	"Node    0, zone      DMA, type      Movable      0      0      0      2\n"
	"Node    0, zone   Normal, type    Unmovable      4      2      0      0\n"
	"Node    0, zone   Normal, type      Movable      8      0      1      1\n"
	"Node    1, zone   Normal, type    Unmovable >100000      0      0      0\n"
	"Node    1, zone   Normal, type      Movable      0      0      0      0\n"
	"\n"
	"Number of blocks type     Unmovable      Movable\n"
	"Node 0, zone      DMA            1            7\n"
	"Node 0, zone   Normal          599         9976\n";

#define HEAD	"Free pages count per migrate type at order"

static bool parse_is(struct kmem_pagetypeinfo *pt, const char *text, int want)
{
	return kmem_pagetypeinfo__parse(pt, text) == want;
}

static int test__kmem_bpf_pagetypeinfo(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	struct kmem_pagetypeinfo *pt = calloc(1, sizeof(*pt));
	const struct kmem_zone_free *dma, *normal, *n1;
	unsigned int idx[4];
	char text[160];
	int o;

	TEST_ASSERT_VAL("alloc", pt);
	TEST_ASSERT_VAL("parse", !kmem_pagetypeinfo__parse(pt, pagetypeinfo));
	TEST_ASSERT_VAL("shape", pt->nr_orders == 4 && pt->nr_types == 2 &&
			pt->nr_zones == 3 && !strcmp(pt->types[1], "Movable"));
	dma = kmem_pagetypeinfo__zone(pt, 0, "DMA");
	normal = kmem_pagetypeinfo__zone(pt, 0, "Normal");
	n1 = kmem_pagetypeinfo__zone(pt, 1, "Normal");
	TEST_ASSERT_VAL("zones", dma && normal && n1 &&
			!kmem_pagetypeinfo__zone(pt, 1, "DMA"));
	TEST_ASSERT_VAL("blocks", kmem_pagetypeinfo__blocks(pt, normal, "Movable")[2] == 1 &&
			!kmem_pagetypeinfo__blocks(pt, normal, "CMA"));
	TEST_ASSERT_VAL("dma free", kmem_zone_free__pages(dma, 4, 0) == 25 &&
			kmem_zone_free__pages(dma, 4, 1) == 24);
	TEST_ASSERT_VAL("normal free", kmem_zone_free__pages(normal, 4, 0) == 28);
	for (o = 0; o < 4; o++)
		idx[o] = kmem_zone_free__unusable(dma, 4, o);
	TEST_ASSERT_VAL("dma index", !idx[0] && idx[1] == 40 && idx[2] == 40 &&
			idx[3] == 40);
	for (o = 0; o < 4; o++)
		idx[o] = kmem_zone_free__unusable(normal, 4, o);
	TEST_ASSERT_VAL("normal index", !idx[0] && idx[1] == 428 &&
			idx[2] == 571 && idx[3] == 714);
	TEST_ASSERT_VAL("capped", n1->capped && !normal->capped &&
			kmem_zone_free__pages(n1, 4, 0) == KMEM_PROC_FREE_CAP &&
			kmem_zone_free__unusable(n1, 4, 1) == 1000);
	TEST_ASSERT_VAL("no table", parse_is(pt, "Page block order: 9\n", -EINVAL));
	TEST_ASSERT_VAL("bad count", parse_is(pt, HEAD " 0 1\n"
			"Node 0, zone DMA, type Movable 1 x\n", -EINVAL));
	TEST_ASSERT_VAL("orders out of turn", parse_is(pt, HEAD " 0 2\n", -EINVAL));
	TEST_ASSERT_VAL("too many orders", parse_is(pt, HEAD
			" 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", -E2BIG));
	/* The kernel's lines end in a space. */
	snprintf(text, sizeof(text), "%s 0 1%c\nNode 0, zone DMA, type Movable 3 1%c\n",
		 HEAD, ' ', ' ');
	TEST_ASSERT_VAL("a space at the end", parse_is(pt, text, 0) &&
			kmem_zone_free__pages(&pt->zones[0], 2, 0) == 5 &&
			kmem_zone_free__unusable(&pt->zones[0], 2, 1) == 600);
	/* Nothing free: 0, as the kernel's debugfs index. */
	TEST_ASSERT_VAL("nothing free", parse_is(pt, HEAD " 0 1\n"
			"Node 0, zone DMA, type Movable 0 0\n", 0) &&
			!kmem_zone_free__unusable(&pt->zones[0], 2, 1));
	free(pt);
	return TEST_OK;
}

/* --- the stall ring ------------------------------------------------- */

#define GFP_B		0x140dcaULL
#define CS_MEMCG	0xffffffff81000300ULL

/*
 * Names a record's frames: the first, or for a memcg reclaim the second,
 * as if the first were memcg's charging.
 */
static u64 first_frame(const u64 *ips, size_t nr, bool memcg,
		       void *arg __maybe_unused)
{
	return memcg && nr > 1 ? ips[1] : ips[0];
}

/* One record, with the frames @cs and @memcg_cs if @cs is not 0. */
static int ring(struct kmem_stall *ks, int type, u32 tid, u64 time,
		int order, u64 gfp, u64 value, u64 cs)
{
	struct kmem_bpf_stall_stack r = {
		.ev = {
			.time = time, .gfp = gfp, .value = value, .tid = tid,
			.migtype = 1, .order = order, .type = type,
			.nr_ips = cs ? 2 : 0,
		},
		.ips = { cs, CS_MEMCG },
	};

	return kmem_bpf_fill__stall(ks, &r, cs ? sizeof(r) : sizeof(r.ev),
				    first_frame, NULL);
}

static struct kmem_stall_row *stall_row(struct kmem_stall *ks, u64 callsite)
{
	struct kmem_stall_row **rows;
	size_t i, nr;

	rows = kmem_stall__rows(ks, NULL, 0, &nr);
	for (i = 0; rows && i < nr; i++)
		if (rows[i]->callsite == callsite)
			return rows[i];
	return NULL;
}

/*
 * Task 10 reclaims (an allocation of its own nested in it), compacts
 * and gets its page: one stall of 8,000 ns, 3,000 in reclaim, 2,000 in
 * the attempt (to its last compaction event), a success.  Task 20's
 * memcg reclaim is a row of its own, named past memcg's frame; then it
 * tries to compact at order 3, does nothing, and fails: 2,000 ns,
 * skipped.  Worked out by hand from the definitions (count-stall.h).
 */
static int test__kmem_bpf_stalls(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kmem_stall *ks = kmem_stall__new();
	struct kmem_stall_status_row * const *statuses;
	const struct kmem_stall_summary *s;
	struct kmem_stall_memcg_row **m;
	struct kmem_stall_row *a, *b;
	struct kmem_bpf_stall short_one = { .type = KMEM_BPF_STALL_ALLOC };
	size_t nr;

	TEST_ASSERT_VAL("new", ks);
	TEST_ASSERT_VAL("reclaim", !ring(ks, KMEM_BPF_STALL_RECLAIM_BEGIN, 10, 1000, 0,
					 GFP_A, 0, 0));
	TEST_ASSERT_VAL("memcg", !ring(ks, KMEM_BPF_STALL_MEMCG_BEGIN, 20, 1200, 0,
				       GFP_B, 0, CS_B));
	TEST_ASSERT_VAL("nested", !ring(ks, KMEM_BPF_STALL_ALLOC, 10, 1500, 0, GFP_A, 5, 0));
	TEST_ASSERT_VAL("memcg end", !ring(ks, KMEM_BPF_STALL_MEMCG_END, 20, 1800, -1, 0, 8, 0));
	TEST_ASSERT_VAL("kswapd", !ring(ks, KMEM_BPF_STALL_KSWAPD_WAKEUP, 20, 3000, 2, 0, 0, 0));
	TEST_ASSERT_VAL("end", !ring(ks, KMEM_BPF_STALL_RECLAIM_END, 10, 4000, -1, 0, 32, 0));
	TEST_ASSERT_VAL("try", !ring(ks, KMEM_BPF_STALL_COMPACT_TRY, 10, 5000, 0, GFP_A, 2, 0));
	TEST_ASSERT_VAL("run", !ring(ks, KMEM_BPF_STALL_COMPACT_BEGIN, 10, 6000, -1, 0, 0, 0));
	TEST_ASSERT_VAL("run end", !ring(ks, KMEM_BPF_STALL_COMPACT_END, 10, 7000, -1, 0, 1, 0));
	TEST_ASSERT_VAL("its page", ring(ks, KMEM_BPF_STALL_ALLOC, 10, 9000, 0,
					 GFP_A, 7, CS_A) == 1);
	TEST_ASSERT_VAL("try 3", !ring(ks, KMEM_BPF_STALL_COMPACT_TRY, 20, 10000, 3, GFP_B, 2, 0));
	TEST_ASSERT_VAL("failed", ring(ks, KMEM_BPF_STALL_ALLOC, 20, 12000, 3, GFP_B,
				       KMEM_PAGE_NO_PFN, CS_B) == 1);
	TEST_ASSERT_VAL("too short", kmem_bpf_fill__stall(ks, &short_one, sizeof(short_one) - 1,
							  first_frame, NULL) == -EINVAL);
	short_one.type = KMEM_BPF_NR_STALL_TYPES;
	TEST_ASSERT_VAL("no such type", kmem_bpf_fill__stall(ks, &short_one, sizeof(short_one),
							     first_frame, NULL) == -EINVAL);

	TEST_ASSERT_VAL("finish", !kmem_stall__finish(ks));
	s = kmem_stall__summary(ks);
	TEST_ASSERT_VAL("stalls", s->all.stalls == 2 && s->all.failed == 1);
	TEST_ASSERT_VAL("time", s->all.total_ns == 10000 && s->all.max_ns == 8000 &&
			s->all.p50_ns == 2000 && s->all.p99_ns == 8000);
	TEST_ASSERT_VAL("inside", s->all.reclaim_ns == 3000 && s->all.compact_ns == 2000);
	TEST_ASSERT_VAL("attempts", s->all.reclaims == 1 && s->all.compactions == 2 &&
			s->all.reclaimed == 32);
	TEST_ASSERT_VAL("outcomes", s->compact_outcomes[KMEM_COMPACT_SUCCESS] == 1 &&
			s->compact_outcomes[KMEM_COMPACT_SKIPPED] == 1 &&
			!s->compact_outcomes[KMEM_COMPACT_FAIL]);
	TEST_ASSERT_VAL("events", s->events.reclaims == 1 && s->events.reclaimed == 32 &&
			s->events.compactions == 2 && s->events.runs == 1 &&
			s->events.direct_runs == 1 &&
			s->events.nested_allocs == 1 && s->events.memcg_reclaims == 1);
	statuses = kmem_stall__status_rows(ks, &nr);
	TEST_ASSERT_VAL("status 1", nr == 1 && statuses[0]->status == 1 &&
			statuses[0]->ends == 1);
	TEST_ASSERT_VAL("nothing apart", !s->apart.begun_before && !s->apart.not_ended &&
			!s->apart.abandoned && !s->apart.unpaired);
	TEST_ASSERT_VAL("memcg", s->memcg.reclaims == 1 && s->memcg.total_ns == 600 &&
			s->memcg.reclaimed == 8);
	TEST_ASSERT_VAL("kswapd woken", wakeups(ks, KMEM_WAKE_KSWAPD_WAKEUP, 2) == 1);
	TEST_ASSERT_VAL("order 3", order_dist(ks, 3)->stalls == 1 &&
			order_dist(ks, 3)->failed == 1);

	a = stall_row(ks, CS_A);
	b = stall_row(ks, CS_B);
	TEST_ASSERT_VAL("row a", a && a->stalls == 1 && a->total_ns == 8000 &&
			a->order == 0 && a->gfp == GFP_A && a->migtype == 1 &&
			a->compact_ok == 1 && a->reclaimed == 32);
	TEST_ASSERT_VAL("row b", b && b->failed == 1 && b->order == 3 &&
			b->gfp == GFP_B && !b->compact_ok && !b->compact_fail);
	m = kmem_stall__memcg_rows(ks, &nr);
	TEST_ASSERT_VAL("memcg row", m && nr == 1 && m[0]->callsite == CS_MEMCG &&
			m[0]->gfp == GFP_B && m[0]->total_ns == 600);
	TEST_ASSERT_VAL("callsite ns", kmem_stall__callsite_ns(ks, CS_A) == 8000);
	kmem_stall__delete(ks);
	return TEST_OK;
}

static struct test_case kmem_bpf_tests[] = {
	TEST_CASE("kmem bpf: the weight of a sampled allocation", kmem_bpf_weight),
	TEST_CASE("kmem bpf: the sampler's gaps are exponential", kmem_bpf_gaps),
	TEST_CASE("kmem bpf: sampled allocations estimate the allocations", kmem_bpf_estimates),
	TEST_CASE("kmem bpf: page maps with every stack", kmem_bpf_page_exact),
	TEST_CASE("kmem bpf: page maps sampled, --live", kmem_bpf_page_sampled),
	TEST_CASE("kmem bpf: fragmentation maps", kmem_bpf_frag),
	TEST_CASE("kmem bpf: slab maps", kmem_bpf_slab),
	TEST_CASE("kmem bpf: /proc/vmstat's stall counters", kmem_bpf_vmstat),
	TEST_CASE("kmem bpf: /proc/pagetypeinfo and the unusable index", kmem_bpf_pagetypeinfo),
	TEST_CASE("kmem bpf: the stall ring's records", kmem_bpf_stalls),
	{ .name = NULL, }
};

struct test_suite suite__kmem_bpf = {
	.desc = "perf kmem stat -b, its maps read",
	.test_cases = kmem_bpf_tests,
};
