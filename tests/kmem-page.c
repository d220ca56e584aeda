// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of util/kmem/count-page.c: synthetic events with known answers.
 *
 * Every expected number below is worked out by hand (or, for the random
 * stream, by a model in this file that shares no code with count-page.c),
 * so that a change in the analysis shows up as a failed assertion.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <linux/kernel.h>
#include "debug.h"
#include "kmem-random.h"
#include "tests.h"
#include "util/kmem/count-interval.h"
#include "util/kmem/count-page.h"
#include "util/kmem/read-callsite.h"
#include "util/kmem/report.h"
#include "util/kmem/table-live.h"

#define PS	4096ULL		/* the page size of most cases */

/* Callsites of the synthetic events: any distinct non-zero values. */
#define CS_A	0xffffffff81000100ULL
#define CS_B	0xffffffff81000200ULL
#define CS_C	0xffffffff81000300ULL

/* Say what differed: TEST_ASSERT_VAL only names the check. */
static bool eq(u64 got, u64 want)
{
	if (got == want)
		return true;
	pr_debug("got %" PRIu64 " (%#" PRIx64 "), want %" PRIu64 "\n",
		 got, got, want);
	return false;
}

static bool count_is(const struct kmem_count *c, u64 nr, u64 bytes)
{
	return eq(c->nr, nr) && eq(c->bytes, bytes);
}

/* Migration type 0 (Unmovable), no node: the fields most cases ignore. */
static int alloc_ev(struct kmem_page *kp, u64 pfn, int order, int migtype,
		    u64 callsite)
{
	struct kmem_page_event ev = {
		.pfn = pfn,
		.order = order,
		.migtype = migtype,
		.callsite = callsite,
		.gfp = 0xcc0,
		.cpu_node = -1,
		.page_node = -1,
	};

	return kmem_page__alloc(kp, &ev, 0, false);
}

static int free_ev(struct kmem_page *kp, u64 pfn, int order)
{
	struct kmem_page_event ev = {
		.pfn = pfn,
		.order = order,
		.migtype = -1,
		.cpu_node = -1,
		.page_node = -1,
	};

	return kmem_page__free(kp, &ev);
}

static int alloc_on(struct kmem_page *kp, u64 pfn, int order, u64 callsite,
		    int cpu_node, int page_node)
{
	struct kmem_page_event ev = {
		.pfn = pfn,
		.order = order,
		.callsite = callsite,
		.cpu_node = cpu_node,
		.page_node = page_node,
	};

	return kmem_page__alloc(kp, &ev, 0, false);
}

static int free_on(struct kmem_page *kp, u64 pfn, int order, int cpu_node,
		   int page_node)
{
	struct kmem_page_event ev = {
		.pfn = pfn,
		.order = order,
		.migtype = -1,
		.cpu_node = cpu_node,
		.page_node = page_node,
	};

	return kmem_page__free(kp, &ev);
}

/* Sum of the grid over all orders and columns. */
static u64 grid_total(const struct kmem_page *kp)
{
	int order, col;
	u64 sum = 0;

	for (order = 0; order < kmem_page__grid_orders(kp); order++)
		for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
			sum += kmem_page__grid(kp, order, col);
	return sum;
}

/*
 * Run @check on a fresh analysis and delete it whatever the outcome, so a
 * failed assertion does not leak (and upset LeakSanitizer runs).
 */
static int with_kp(const struct kmem_page_config *config,
		   int (*check)(struct kmem_page *kp))
{
	struct kmem_page *kp = kmem_page__new(config);
	int ret;

	TEST_ASSERT_VAL("kmem_page__new", kp);
	ret = check(kp);
	kmem_page__delete(kp);
	return ret;
}

static const struct kmem_page_config plain_config = {
	.page_size = PS,
	.want_alloc_table = true,
};

/* --- matching ---------------------------------------------------------- */

static int check_match(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	TEST_ASSERT_VAL("alloc order 2", !alloc_ev(kp, 100, 2, 0, CS_A));
	TEST_ASSERT_VAL("free order 2", !free_ev(kp, 100, 2));
	/* The free says order 0: the allocation's order 3 sets the bytes. */
	TEST_ASSERT_VAL("alloc order 3", !alloc_ev(kp, 200, 3, 0, CS_A));
	TEST_ASSERT_VAL("free order 0", !free_ev(kp, 200, 0));
	kmem_page__finish(kp);

	TEST_ASSERT_VAL("alloc", count_is(&s->alloc, 2, 4 * PS + 8 * PS));
	TEST_ASSERT_VAL("alloc_freed",
			count_is(&s->life.freed, 2, 4 * PS + 8 * PS));
	TEST_ASSERT_VAL("alloc_live", count_is(&s->life.live, 0, 0));
	TEST_ASSERT_VAL("alloc_dropped", count_is(&s->life.dropped, 0, 0));
	/* Frees count the order they name. */
	TEST_ASSERT_VAL("free", count_is(&s->free, 2, 4 * PS + PS));
	TEST_ASSERT_VAL("free_only", count_is(&s->free_only, 0, 0));
	TEST_ASSERT_VAL("fail", count_is(&s->fail, 0, 0));
	TEST_ASSERT_VAL("free_order_differs", eq(s->free_order_differs, 1));
	TEST_ASSERT_VAL("grid 2 Unmovable",
			eq(kmem_page__grid(kp, 2, KMEM_MIGTYPE_UNMOVABLE), 1));
	TEST_ASSERT_VAL("grid 3 Unmovable",
			eq(kmem_page__grid(kp, 3, KMEM_MIGTYPE_UNMOVABLE), 1));
	TEST_ASSERT_VAL("grid total", eq(grid_total(kp), 2));
	return TEST_OK;
}

static int test__kmem_page_match(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_match);
}

static int check_page_size(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	TEST_ASSERT_VAL("alloc", !alloc_ev(kp, 1, 1, 0, CS_A));
	TEST_ASSERT_VAL("free", !free_ev(kp, 1, 1));
	kmem_page__finish(kp);
	/* 16 KiB pages, order 1: 32 KiB. */
	TEST_ASSERT_VAL("alloc_freed", count_is(&s->life.freed, 1, 32768));
	return TEST_OK;
}

static int check_default_page_size(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	TEST_ASSERT_VAL("alloc", !alloc_ev(kp, 1, 2, 0, CS_A));
	kmem_page__finish(kp);
	/* page_size 0 means unknown: 4096, order 2 is 16384. */
	TEST_ASSERT_VAL("alloc_live", count_is(&s->life.live, 1, 16384));
	return TEST_OK;
}

static int test__kmem_page_page_size(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kmem_page_config big = { .page_size = 16384 };
	struct kmem_page_config unknown = { .page_size = 0 };
	int ret = with_kp(&big, check_page_size);

	return ret ? ret : with_kp(&unknown, check_default_page_size);
}

static int check_free_only(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	TEST_ASSERT_VAL("free", !free_ev(kp, 5, 1));
	TEST_ASSERT_VAL("free", !free_ev(kp, 6, 0));
	/* An allocation after its pfn's free is not matched with it. */
	TEST_ASSERT_VAL("alloc", !alloc_ev(kp, 5, 0, 0, CS_A));
	kmem_page__finish(kp);

	TEST_ASSERT_VAL("free", count_is(&s->free, 2, 2 * PS + PS));
	TEST_ASSERT_VAL("free_only", count_is(&s->free_only, 2, 2 * PS + PS));
	TEST_ASSERT_VAL("alloc", count_is(&s->alloc, 1, PS));
	TEST_ASSERT_VAL("alloc_freed", count_is(&s->life.freed, 0, 0));
	TEST_ASSERT_VAL("alloc_live", count_is(&s->life.live, 1, PS));
	TEST_ASSERT_VAL("free_order_differs", eq(s->free_order_differs, 0));
	return TEST_OK;
}

static int test__kmem_page_free_only(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_free_only);
}

static int check_failure(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);
	size_t nr = 99;

	TEST_ASSERT_VAL("fail order 3",
			!alloc_ev(kp, KMEM_PAGE_NO_PFN, 3, 1, CS_A));
	TEST_ASSERT_VAL("fail order 0",
			!alloc_ev(kp, KMEM_PAGE_NO_PFN, 0, 0, CS_B));
	kmem_page__finish(kp);

	TEST_ASSERT_VAL("fail", count_is(&s->fail, 2, 8 * PS + PS));
	TEST_ASSERT_VAL("alloc", count_is(&s->alloc, 0, 0));
	TEST_ASSERT_VAL("alloc_live", count_is(&s->life.live, 0, 0));
	TEST_ASSERT_VAL("grid total", eq(grid_total(kp), 0));
	TEST_ASSERT_VAL("caller rows",
			kmem_page__rows(kp, KMEM_PAGE_TABLE_CALLER, NULL, 0, &nr));
	TEST_ASSERT_VAL("no caller row", eq(nr, 0));
	return TEST_OK;
}

static int test__kmem_page_failure(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_failure);
}

/* The rows of @table sorted as -s @sort sorts them; NULL: a bad key. */
static struct kmem_page_row **sorted(struct kmem_page *kp,
				     enum kmem_page_table table,
				     const char *sort, size_t *nr)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	struct kmem_sort_keys given;
	char bad[32];
	int n;

	kmem_sort_keys__split(&given, sort);
	n = kmem_table__parse_sort(&kmem_tables[KMEM_PAGE_ALLOCS], &given, keys,
				   bad, sizeof(bad));
	return n < 0 ? NULL : kmem_page__rows(kp, table, keys, n, nr);
}

static int check_realloc(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);
	struct kmem_page_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("alloc order 1", !alloc_ev(kp, 7, 1, 0, CS_A));
	/* pfn 7 again, no free in between: the first one is dropped. */
	TEST_ASSERT_VAL("alloc order 0", !alloc_ev(kp, 7, 0, 0, CS_A));
	TEST_ASSERT_VAL("free", !free_ev(kp, 7, 0));
	kmem_page__finish(kp);

	TEST_ASSERT_VAL("alloc", count_is(&s->alloc, 2, 2 * PS + PS));
	TEST_ASSERT_VAL("alloc_dropped", count_is(&s->life.dropped, 1, 2 * PS));
	TEST_ASSERT_VAL("alloc_freed", count_is(&s->life.freed, 1, PS));
	TEST_ASSERT_VAL("alloc_live", count_is(&s->life.live, 0, 0));
	TEST_ASSERT_VAL("free_order_differs", eq(s->free_order_differs, 0));

	/* Sorted by callsite then order (largest first): order 1, order 0. */
	rows = sorted(kp, KMEM_PAGE_TABLE_CALLER, "callsite,order", &nr);
	TEST_ASSERT_VAL("rows", rows);
	TEST_ASSERT_VAL("nr rows", eq(nr, 2));
	TEST_ASSERT_VAL("row 0 order", eq(rows[0]->order, 1));
	TEST_ASSERT_VAL("row 0 hits", eq(rows[0]->hits, 1));
	TEST_ASSERT_VAL("row 0 dropped", eq(rows[0]->dropped, 1));
	TEST_ASSERT_VAL("row 0 freed", eq(rows[0]->freed, 0));
	TEST_ASSERT_VAL("row 1 order", eq(rows[1]->order, 0));
	TEST_ASSERT_VAL("row 1 dropped", eq(rows[1]->dropped, 0));
	TEST_ASSERT_VAL("row 1 freed", eq(rows[1]->freed, 1));

	rows = sorted(kp, KMEM_PAGE_TABLE_ALLOC, "callsite,order", &nr);
	TEST_ASSERT_VAL("alloc rows", rows);
	TEST_ASSERT_VAL("nr alloc rows", eq(nr, 2));
	TEST_ASSERT_VAL("alloc row 0 pfn", eq(rows[0]->pfn, 7));
	TEST_ASSERT_VAL("alloc row 0 dropped", eq(rows[0]->dropped, 1));
	TEST_ASSERT_VAL("alloc row 1 pfn", eq(rows[1]->pfn, 7));
	TEST_ASSERT_VAL("alloc row 1 freed", eq(rows[1]->freed, 1));
	return TEST_OK;
}

static int test__kmem_page_realloc(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_realloc);
}

/* --- orders and migration types --------------------------------------- */

static int check_order_13(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);
	int col;

	/* Orders 0..10 are always shown. */
	TEST_ASSERT_VAL("grid orders empty", eq(kmem_page__grid_orders(kp), 11));
	TEST_ASSERT_VAL("alloc order 10", !alloc_ev(kp, 1, 10, 0, CS_A));
	TEST_ASSERT_VAL("grid orders 10", eq(kmem_page__grid_orders(kp), 11));
	TEST_ASSERT_VAL("alloc order 13", !alloc_ev(kp, 2, 13, 1, CS_A));
	TEST_ASSERT_VAL("alloc order 13", !alloc_ev(kp, 3, 13, 1, CS_A));
	TEST_ASSERT_VAL("alloc order 13", !alloc_ev(kp, 4, 13, 0, CS_A));
	kmem_page__finish(kp);

	TEST_ASSERT_VAL("grid orders 13", eq(kmem_page__grid_orders(kp), 14));
	TEST_ASSERT_VAL("grid 13 Movable",
			eq(kmem_page__grid(kp, 13, KMEM_MIGTYPE_MOVABLE), 2));
	TEST_ASSERT_VAL("grid 13 Unmovable",
			eq(kmem_page__grid(kp, 13, KMEM_MIGTYPE_UNMOVABLE), 1));
	TEST_ASSERT_VAL("grid 10 Unmovable",
			eq(kmem_page__grid(kp, 10, KMEM_MIGTYPE_UNMOVABLE), 1));
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++) {
		TEST_ASSERT_VAL("grid 12 empty", eq(kmem_page__grid(kp, 12, col), 0));
		TEST_ASSERT_VAL("grid 14 empty", eq(kmem_page__grid(kp, 14, col), 0));
		TEST_ASSERT_VAL("grid -1 empty", eq(kmem_page__grid(kp, -1, col), 0));
	}
	TEST_ASSERT_VAL("grid bad column",
			eq(kmem_page__grid(kp, 13, KMEM_NR_MIGTYPE_COLUMNS), 0));
	/* 1024 + 3 * 8192 pages. */
	TEST_ASSERT_VAL("alloc", count_is(&s->alloc, 4, (1024 + 3 * 8192) * PS));
	return TEST_OK;
}

static int test__kmem_page_order_13(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_order_13);
}

static int check_bad_order(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	/* Counted apart and left out, not an error of the analysis. */
	TEST_ASSERT_VAL("alloc order 32", eq(alloc_ev(kp, 1, 32, 0, CS_A), 0));
	TEST_ASSERT_VAL("alloc order -1", eq(alloc_ev(kp, 2, -1, 0, CS_A), 0));
	TEST_ASSERT_VAL("fail order 32",
			eq(alloc_ev(kp, KMEM_PAGE_NO_PFN, 32, 0, CS_A), 0));
	TEST_ASSERT_VAL("free order 32", eq(free_ev(kp, 3, 32), 0));
	TEST_ASSERT_VAL("free order -1", eq(free_ev(kp, 4, -1), 0));
	TEST_ASSERT_VAL("bad_order", eq(s->bad_order, 5));
	TEST_ASSERT_VAL("no alloc", count_is(&s->alloc, 0, 0));
	TEST_ASSERT_VAL("no fail", count_is(&s->fail, 0, 0));
	TEST_ASSERT_VAL("no free", count_is(&s->free, 0, 0));
	TEST_ASSERT_VAL("grid orders", eq(kmem_page__grid_orders(kp), 11));

	/* The largest valid order, and a free of an ignored allocation. */
	TEST_ASSERT_VAL("alloc order 31", !alloc_ev(kp, 5, 31, 0, CS_A));
	TEST_ASSERT_VAL("free of order -1 alloc", !free_ev(kp, 2, 0));
	kmem_page__finish(kp);
	TEST_ASSERT_VAL("alloc 31", count_is(&s->alloc, 1, PS << 31));
	TEST_ASSERT_VAL("grid orders 31", eq(kmem_page__grid_orders(kp), 32));
	TEST_ASSERT_VAL("grid 31", eq(kmem_page__grid(kp, 31, KMEM_MIGTYPE_UNMOVABLE), 1));
	TEST_ASSERT_VAL("free_only", count_is(&s->free_only, 1, PS));
	TEST_ASSERT_VAL("bad_order after", eq(s->bad_order, 5));
	return TEST_OK;
}

static int test__kmem_page_bad_order(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_bad_order);
}

static int check_bad_migtype(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	/* 7: no kernel has it, but it is below KMEM_PAGE_MAX_MIGTYPE. */
	TEST_ASSERT_VAL("migtype 7", !alloc_ev(kp, 1, 0, 7, CS_A));
	TEST_ASSERT_VAL("bad_migtype 7", eq(s->bad_migtype, 0));
	TEST_ASSERT_VAL("migtype -3", !alloc_ev(kp, 2, 0, -3, CS_A));
	TEST_ASSERT_VAL("bad_migtype -3", eq(s->bad_migtype, 1));
	TEST_ASSERT_VAL("migtype 16", !alloc_ev(kp, 3, 1, 16, CS_A));
	TEST_ASSERT_VAL("bad_migtype 16", eq(s->bad_migtype, 2));
	TEST_ASSERT_VAL("migtype 15", !alloc_ev(kp, 4, 1, 15, CS_A));
	TEST_ASSERT_VAL("bad_migtype 15", eq(s->bad_migtype, 2));
	/* A failure has no page to be of any type. */
	TEST_ASSERT_VAL("fail migtype -3",
			!alloc_ev(kp, KMEM_PAGE_NO_PFN, 0, -3, CS_A));
	kmem_page__finish(kp);

	TEST_ASSERT_VAL("bad_migtype", eq(s->bad_migtype, 2));
	TEST_ASSERT_VAL("grid 0 Special",
			eq(kmem_page__grid(kp, 0, KMEM_MIGTYPE_SPECIAL), 2));
	TEST_ASSERT_VAL("grid 1 Special",
			eq(kmem_page__grid(kp, 1, KMEM_MIGTYPE_SPECIAL), 2));
	TEST_ASSERT_VAL("grid total", eq(grid_total(kp), 4));
	TEST_ASSERT_VAL("alloc", count_is(&s->alloc, 4, PS + PS + 2 * PS + 2 * PS));
	return TEST_OK;
}

static int test__kmem_page_bad_migtype(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_bad_migtype);
}

static int check_columns_current(struct kmem_page *kp)
{
	TEST_ASSERT_VAL("0", eq(kmem_migtype__column(0, false), KMEM_MIGTYPE_UNMOVABLE));
	TEST_ASSERT_VAL("1", eq(kmem_migtype__column(1, false), KMEM_MIGTYPE_MOVABLE));
	TEST_ASSERT_VAL("2", eq(kmem_migtype__column(2, false), KMEM_MIGTYPE_RECLAIMABLE));
	TEST_ASSERT_VAL("3", eq(kmem_migtype__column(3, false), KMEM_MIGTYPE_SPECIAL));
	TEST_ASSERT_VAL("4", eq(kmem_migtype__column(4, false), KMEM_MIGTYPE_SPECIAL));
	TEST_ASSERT_VAL("-1", eq(kmem_migtype__column(-1, false), KMEM_MIGTYPE_SPECIAL));

	TEST_ASSERT_VAL("alloc 1", !alloc_ev(kp, 1, 0, 1, CS_A));
	TEST_ASSERT_VAL("alloc 2", !alloc_ev(kp, 2, 0, 2, CS_A));
	TEST_ASSERT_VAL("alloc 2", !alloc_ev(kp, 3, 0, 2, CS_A));
	TEST_ASSERT_VAL("grid Movable",
			eq(kmem_page__grid(kp, 0, KMEM_MIGTYPE_MOVABLE), 1));
	TEST_ASSERT_VAL("grid Reclaimable",
			eq(kmem_page__grid(kp, 0, KMEM_MIGTYPE_RECLAIMABLE), 2));
	return TEST_OK;
}

static int check_columns_old(struct kmem_page *kp)
{
	TEST_ASSERT_VAL("0", eq(kmem_migtype__column(0, true), KMEM_MIGTYPE_UNMOVABLE));
	TEST_ASSERT_VAL("1", eq(kmem_migtype__column(1, true), KMEM_MIGTYPE_RECLAIMABLE));
	TEST_ASSERT_VAL("2", eq(kmem_migtype__column(2, true), KMEM_MIGTYPE_MOVABLE));
	TEST_ASSERT_VAL("3", eq(kmem_migtype__column(3, true), KMEM_MIGTYPE_SPECIAL));

	TEST_ASSERT_VAL("alloc 1", !alloc_ev(kp, 1, 0, 1, CS_A));
	TEST_ASSERT_VAL("alloc 2", !alloc_ev(kp, 2, 0, 2, CS_A));
	TEST_ASSERT_VAL("alloc 2", !alloc_ev(kp, 3, 0, 2, CS_A));
	TEST_ASSERT_VAL("grid Reclaimable",
			eq(kmem_page__grid(kp, 0, KMEM_MIGTYPE_RECLAIMABLE), 1));
	TEST_ASSERT_VAL("grid Movable",
			eq(kmem_page__grid(kp, 0, KMEM_MIGTYPE_MOVABLE), 2));
	return TEST_OK;
}

static int test__kmem_page_columns(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_page_config old = plain_config;
	int ret = with_kp(&plain_config, check_columns_current);

	old.pre_v4_4_migtypes = true;
	return ret ? ret : with_kp(&old, check_columns_old);
}

static bool name_is(bool pre_v4_4, int migtype, const char *want)
{
	char buf[32];
	const char *got = kmem_migtype__name(migtype, pre_v4_4, buf, sizeof(buf));

	if (got && !strcmp(got, want))
		return true;
	pr_debug("migtype %d: got '%s', want '%s'\n", migtype,
		 got ?: "(null)", want);
	return false;
}

static int test__kmem_page_names(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	char tiny[5];

	TEST_ASSERT_VAL("0", name_is(false, 0, "Unmovable"));
	TEST_ASSERT_VAL("1", name_is(false, 1, "Movable"));
	TEST_ASSERT_VAL("2", name_is(false, 2, "Reclaimable"));
	TEST_ASSERT_VAL("3", name_is(false, 3, "HighAtomic"));
	TEST_ASSERT_VAL("9", name_is(false, 9, "type 9"));
	TEST_ASSERT_VAL("-2", name_is(false, -2, "type -2"));

	TEST_ASSERT_VAL("old 0", name_is(true, 0, "Unmovable"));
	TEST_ASSERT_VAL("old 1", name_is(true, 1, "Reclaimable"));
	TEST_ASSERT_VAL("old 2", name_is(true, 2, "Movable"));
	TEST_ASSERT_VAL("old 3", name_is(true, 3, "Reserve"));
	TEST_ASSERT_VAL("old 16", name_is(true, 16, "type 16"));
	/* A short buffer is cut, not overrun. */
	TEST_ASSERT_VAL("tiny",
			!strcmp(kmem_migtype__name(12345, true, tiny,
						   sizeof(tiny)), "type"));
	return TEST_OK;
}

/* --- a pseudo-random stream against a model -------------------------- */

#define RND_EVENTS	10000
#define RND_PFNS	256	/* few pfns: many matches, drops, free-onlys */
#define RND_MAX_ORDER	3
#define RND_MIGTYPES	6

/* The semantics of the summary restated in the plainest way possible. */
struct model {
	int			live_order[RND_PFNS];	/* -1: not live */
	struct kmem_count	alloc, freed, dropped, live, free, free_only;
	struct kmem_count	fail;
	u64			grid[RND_MAX_ORDER + 1][KMEM_NR_MIGTYPE_COLUMNS];
};

static void model_count(struct kmem_count *c, int order)
{
	c->nr++;
	c->bytes += PS << order;
}

/* Column of a migration type on a v4.4+ kernel, written out. */
static int model_column(int migtype)
{
	switch (migtype) {
	case 0:
		return KMEM_MIGTYPE_UNMOVABLE;
	case 1:
		return KMEM_MIGTYPE_MOVABLE;
	case 2:
		return KMEM_MIGTYPE_RECLAIMABLE;
	default:
		return KMEM_MIGTYPE_SPECIAL;
	}
}

static void model_alloc(struct model *m, u64 pfn, int order, int migtype)
{
	if (pfn == KMEM_PAGE_NO_PFN) {
		model_count(&m->fail, order);
		return;
	}
	model_count(&m->alloc, order);
	m->grid[order][model_column(migtype)]++;
	if (m->live_order[pfn] >= 0)
		model_count(&m->dropped, m->live_order[pfn]);
	m->live_order[pfn] = order;
}

static void model_free(struct model *m, u64 pfn, int order)
{
	model_count(&m->free, order);
	if (m->live_order[pfn] < 0) {
		model_count(&m->free_only, order);
		return;
	}
	model_count(&m->freed, m->live_order[pfn]);
	m->live_order[pfn] = -1;
}

static void model_finish(struct model *m)
{
	int pfn;

	for (pfn = 0; pfn < RND_PFNS; pfn++)
		if (m->live_order[pfn] >= 0)
			model_count(&m->live, m->live_order[pfn]);
}

/* Feed the same stream to @kp and @m. */
static int feed_random(struct kmem_page *kp, struct model *m)
{
	static const u64 callsites[] = { CS_A, CS_B, CS_C };
	u64 state = 0x2545f4914f6cdd1dULL;
	int i;

	for (i = 0; i < RND_PFNS; i++)
		m->live_order[i] = -1;
	for (i = 0; i < RND_EVENTS; i++) {
		u64 r = kmem_test__rand(&state);
		u64 pfn = (r >> 8) % RND_PFNS;
		int order = (r >> 20) % (RND_MAX_ORDER + 1);
		int migtype = (r >> 24) % RND_MIGTYPES;
		u64 callsite = callsites[(r >> 28) % ARRAY_SIZE(callsites)];
		int kind = r % 100;

		if (kind < 3)		/* 3% failures */
			pfn = KMEM_PAGE_NO_PFN;
		if (kind < 55) {	/* 55% allocations */
			model_alloc(m, pfn, order, migtype);
			if (alloc_ev(kp, pfn, order, migtype, callsite))
				return TEST_FAIL;
		} else {
			model_free(m, pfn, order);
			if (free_ev(kp, pfn, order))
				return TEST_FAIL;
		}
	}
	model_finish(m);
	kmem_page__finish(kp);
	return TEST_OK;
}

static u64 sum_hits(struct kmem_page *kp, enum kmem_page_table table)
{
	size_t i, nr;
	struct kmem_page_row **rows = kmem_page__rows(kp, table, NULL, 0, &nr);
	u64 sum = 0;

	for (i = 0; rows && i < nr; i++)
		sum += rows[i]->hits;
	return sum;
}

static int check_random(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);
	struct model m = { .alloc = { 0 } };
	int order, col;

	TEST_ASSERT_VAL("feed", feed_random(kp, &m) == TEST_OK);

	/* The stream must exercise every path, or the test proves little. */
	TEST_ASSERT_VAL("model has drops", m.dropped.nr > 100);
	TEST_ASSERT_VAL("model has free-only", m.free_only.nr > 100);
	TEST_ASSERT_VAL("model has matches", m.freed.nr > 100);
	TEST_ASSERT_VAL("model has failures", m.fail.nr > 100);

	TEST_ASSERT_VAL("alloc", count_is(&s->alloc, m.alloc.nr, m.alloc.bytes));
	TEST_ASSERT_VAL("alloc_freed",
			count_is(&s->life.freed, m.freed.nr, m.freed.bytes));
	TEST_ASSERT_VAL("alloc_dropped",
			count_is(&s->life.dropped, m.dropped.nr, m.dropped.bytes));
	TEST_ASSERT_VAL("alloc_live",
			count_is(&s->life.live, m.live.nr, m.live.bytes));
	TEST_ASSERT_VAL("free", count_is(&s->free, m.free.nr, m.free.bytes));
	TEST_ASSERT_VAL("free_only",
			count_is(&s->free_only, m.free_only.nr, m.free_only.bytes));
	TEST_ASSERT_VAL("fail", count_is(&s->fail, m.fail.nr, m.fail.bytes));
	for (order = 0; order <= RND_MAX_ORDER; order++)
		for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
			TEST_ASSERT_VAL("grid cell", eq(kmem_page__grid(kp, order, col),
							m.grid[order][col]));

	/* Every allocation ends up freed, live or dropped: exactly one. */
	TEST_ASSERT_VAL("alloc.nr invariant",
			eq(s->alloc.nr, s->life.freed.nr + s->life.live.nr +
					s->life.dropped.nr));
	TEST_ASSERT_VAL("alloc.bytes invariant",
			eq(s->alloc.bytes, s->life.freed.bytes +
					   s->life.live.bytes +
					   s->life.dropped.bytes));
	TEST_ASSERT_VAL("caller hits", eq(sum_hits(kp, KMEM_PAGE_TABLE_CALLER), s->alloc.nr));
	TEST_ASSERT_VAL("alloc hits", eq(sum_hits(kp, KMEM_PAGE_TABLE_ALLOC), s->alloc.nr));
	return TEST_OK;
}

static int check_random_live(struct kmem_page *kp)
{
	struct model m = { .alloc = { 0 } };

	TEST_ASSERT_VAL("feed", feed_random(kp, &m) == TEST_OK);
	/* Under live_only the tables count the pages live at the end. */
	TEST_ASSERT_VAL("live caller hits",
			eq(sum_hits(kp, KMEM_PAGE_TABLE_CALLER), m.live.nr));
	TEST_ASSERT_VAL("live alloc hits",
			eq(sum_hits(kp, KMEM_PAGE_TABLE_ALLOC), m.live.nr));
	return TEST_OK;
}

static int test__kmem_page_random(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_page_config live = plain_config;
	int ret = with_kp(&plain_config, check_random);

	live.live_only = true;
	return ret ? ret : with_kp(&live, check_random_live);
}

/* --- the keyed tables the analyses share ----------------------------- */

#define TAB_OPS		30000
#define TAB_KEYS	6000	/* more than half of the first 4096 slots */

/* A slot of a one-word table: the key, then what the test keeps there. */
struct tab_slot {
	u64	key;
	u64	value;
};

/* Keys far apart, as pfns and addresses are, and some next to each other. */
static u64 tab_key(int i)
{
	return i % 3 ? 0xffff888000000000ULL + 64ULL * i : (u64)i;
}

struct tab_model {
	u64	value[TAB_KEYS];	/* 0: not in the table */
	int	seen[TAB_KEYS];
	int	nr;
	int	nr_keys;		/* keys 0..nr_keys-1 are used */
	int	max_nr;			/* in the table at once */
};

static void tab_visit(void *slot, void *arg)
{
	const struct tab_slot *s = slot;
	struct tab_model *m = arg;
	int i;

	for (i = 0; i < m->nr_keys; i++)
		if (tab_key(i) == s->key)
			m->seen[i]++;
}

/* Add, look up and remove keys at random; the model is a plain array. */
static int tab_ops(struct kmem_live *t, struct tab_model *m)
{
	u64 state = 0x9e3779b97f4a7c15ULL;
	int op;

	for (op = 0; op < TAB_OPS; op++) {
		u64 r = kmem_test__rand(&state);
		int i = r % m->nr_keys;
		u64 key = tab_key(i);
		struct tab_slot *s = kmem_live__find(t, key);

		TEST_ASSERT_VAL("found as the model says",
				!s == !m->value[i] &&
				(!s || eq(s->value, m->value[i])));
		/* Adds twice as often as removes: the table grows. */
		if (!s && (r >> 32) % 3 && m->nr < m->max_nr) {
			s = kmem_live__add(t, kmem_live__probe(t, key), &key);
			TEST_ASSERT_VAL("added", s && eq(s->key, key));
			m->value[i] = op + 1;
			s->value = m->value[i];
			m->nr++;
		} else if (s && !((r >> 32) % 3)) {
			kmem_live__remove_one(t, s, sizeof(*s));
			m->value[i] = 0;
			m->nr--;
		}
	}
	return TEST_OK;
}

/*
 * Keys 0..@nr_keys-1 at random in @t, at most @max_nr at once: a few in
 * a small table make clusters of slots that wrap around its end, and
 * removals in them.
 */
static int check_live_table(struct kmem_live *t, int nr_keys, int max_nr)
{
	static struct tab_model m;
	int i;

	memset(&m, 0, sizeof(m));
	m.nr_keys = nr_keys;
	m.max_nr = max_nr;
	TEST_ASSERT_VAL("ops", tab_ops(t, &m) == TEST_OK);
	TEST_ASSERT_VAL("nr", eq(t->nr, m.nr));
	for (i = 0; i < nr_keys; i++) {
		struct tab_slot *s = kmem_live__find(t, tab_key(i));

		TEST_ASSERT_VAL("every key at the end",
				!s == !m.value[i] &&
				(!s || eq(s->value, m.value[i])));
	}
	TEST_ASSERT_VAL("no empty key", !kmem_live__find(t, KMEM_LIVE_EMPTY));
	kmem_live__for_each(t, tab_visit, &m);
	for (i = 0; i < nr_keys; i++)
		TEST_ASSERT_VAL("visited once if in", eq(m.seen[i], !!m.value[i]));
	return TEST_OK;
}

/* A slot of a three-word table: the key, the mark word, another. */
struct tab3_slot {
	u64	key[3];
	u64	value;		/* never KMEM_LIVE_EMPTY in use */
	u64	other;
};

/* Distinct keys whose words take any value, all ones included. */
static void tab3_key(int i, u64 *key)
{
	key[0] = i % 5 ? KMEM_LIVE_EMPTY : (u64)i;
	key[1] = KMEM_LIVE_EMPTY - i / 2;
	key[2] = i % 2 ? KMEM_LIVE_EMPTY : 0;
}

static u64 tab3_hash(const u64 *key)
{
	return kmem_live__hash_words(key, 3);
}

static int check_keyed_table(struct kmem_live *t)
{
	int i;

	for (i = 0; i < TAB_KEYS; i++) {
		struct tab3_slot *s;
		u64 key[3];

		tab3_key(i, key);
		s = kmem_live__probe_key(t, key, 3, tab3_hash(key));
		TEST_ASSERT_VAL("new key not found", kmem_live__empty_mark(s, t->key_words));
		s = kmem_live__add(t, s, key);
		TEST_ASSERT_VAL("added", s);
		s->value = i;
		s->other = KMEM_LIVE_EMPTY;
	}
	TEST_ASSERT_VAL("nr", eq(t->nr, TAB_KEYS));
	for (i = 0; i < 2 * TAB_KEYS; i++) {
		struct tab3_slot *s;
		u64 key[3];

		tab3_key(i, key);
		s = kmem_live__probe_key(t, key, 3, tab3_hash(key));
		if (i >= TAB_KEYS) {
			TEST_ASSERT_VAL("others not found", kmem_live__empty_mark(s, t->key_words));
			continue;
		}
		TEST_ASSERT_VAL("found", !kmem_live__empty_mark(s, t->key_words) &&
				eq(s->value, i) && !memcmp(s->key, key, sizeof(key)));
	}
	return TEST_OK;
}

static int test__kmem_page_tables(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_live live, small, keyed;
	int ret;

	TEST_ASSERT_VAL("init", !kmem_live__init(&live, sizeof(struct tab_slot)));
	ret = check_live_table(&live, TAB_KEYS, TAB_KEYS);
	TEST_ASSERT_VAL("grew", ret || live.mask + 1 > 4096);
	kmem_live__exit(&live);
	if (ret)
		return ret;
	TEST_ASSERT_VAL("init small",
			!kmem_live__init_keyed(&small, sizeof(struct tab_slot),
					       1, 6));
	ret = check_live_table(&small, 200, 28);
	TEST_ASSERT_VAL("did not grow", ret || small.mask + 1 == 64);
	kmem_live__exit(&small);
	if (ret)
		return ret;
	TEST_ASSERT_VAL("init keyed",
			!kmem_live__init_keyed(&keyed, sizeof(struct tab3_slot),
					       3, 4));
	ret = check_keyed_table(&keyed);
	kmem_live__exit(&keyed);
	return ret;
}

/* A row of a two-word key. */
struct tab_row {
	u64	a, b;
	u64	hits;
};

static int tab_row_cmp(const void *pa, const void *pb)
{
	const struct tab_row *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

#define TAB_ROWS	1000

struct tab_row_walk {
	struct tab_row	*rows[TAB_ROWS];
	int		nr;
	bool		in_order;
};

static void tab_row_visit(void *row, void *arg)
{
	struct tab_row_walk *w = arg;

	w->in_order = w->in_order && w->nr < TAB_ROWS && w->rows[w->nr] == row;
	w->nr++;
}

/* Row i has key (i % 10, i): ten runs of a, and b tells them apart. */
static struct tab_row *tab_findnew(struct kmem_rows *rows, int i)
{
	struct tab_row new = { .a = i % 10, .b = i };
	u64 key[2] = { new.a, new.b };

	return kmem_rows__findnew(rows, key, &new);
}

static int check_rows_table(struct kmem_rows *rows, struct tab_row_walk *w)
{
	struct tab_row **sorted;
	size_t nr;
	int i;

	for (i = 0; i < TAB_ROWS; i++) {
		w->rows[i] = tab_findnew(rows, i);
		TEST_ASSERT_VAL("added", w->rows[i] && eq(w->rows[i]->b, i));
		w->rows[i]->hits++;
		/* Each row found again, after every row added before it. */
		TEST_ASSERT_VAL("stays put", tab_findnew(rows, i / 2) ==
				w->rows[i / 2]);
		w->rows[i / 2]->hits++;
	}
	TEST_ASSERT_VAL("nr", eq(rows->nr, TAB_ROWS));
	for (i = 0; i < TAB_ROWS; i++)
		TEST_ASSERT_VAL("hits", eq(w->rows[i]->hits,
					   i < TAB_ROWS / 2 ? 3 : 1));
	w->in_order = true;
	kmem_rows__for_each(rows, tab_row_visit, w);
	TEST_ASSERT_VAL("visited in the order added", w->in_order &&
			eq(w->nr, TAB_ROWS));
	sorted = (struct tab_row **)kmem_rows__sort(rows, NULL, NULL, 0, &nr);
	TEST_ASSERT_VAL("sorted", sorted && eq(nr, TAB_ROWS));
	for (i = 0; i < TAB_ROWS; i++)
		TEST_ASSERT_VAL("by identity",
				eq(sorted[i]->a, i / 100) &&
				eq(sorted[i]->b, i % 100 * 10 + i / 100));
	return TEST_OK;
}

static int test__kmem_page_rows_table(struct test_suite *t __maybe_unused,
				      int subtest __maybe_unused)
{
	static struct tab_row_walk w;
	struct kmem_rows rows;
	int ret;

	memset(&w, 0, sizeof(w));
	TEST_ASSERT_VAL("init", !kmem_rows__init(&rows, sizeof(struct tab_row),
						 2, tab_row_cmp));
	ret = check_rows_table(&rows, &w);
	kmem_rows__exit(&rows);
	return ret;
}

/* --- sorting ----------------------------------------------------------- */

static int parse(const char *str, struct kmem_sort_key *keys, char *bad)
{
	struct kmem_sort_keys given;

	kmem_sort_keys__split(&given, str);
	return kmem_table__parse_sort(&kmem_tables[KMEM_PAGE_ALLOCS], &given,
				      keys, bad, 32);
}

#define PAGE_KEYS \
	"page, bytes, hit, order, migtype, gfp, xnode, frag, pid, comm, stall, callsite"
/* A key sorts by the column of @member, largest first or not. */
#define IS_KEY(k, member, desc) \
	((k).offset == offsetof(struct kmem_page_row, member) && \
	 (k).descending == (desc))

static int test__kmem_page_parse_sort(struct test_suite *t __maybe_unused,
				      int subtest __maybe_unused)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	struct kmem_sort_keys given;
	char bad[32], known[128];

	TEST_ASSERT_VAL("order,hit", eq(parse("order,hit", keys, bad), 2));
	TEST_ASSERT_VAL("order", IS_KEY(keys[0], order, true));
	TEST_ASSERT_VAL("hit", IS_KEY(keys[1], hits, true));

	TEST_ASSERT_VAL("all keys",
			eq(parse("page,callsite,hit,bytes,order,migtype,gfp,xnode",
				 keys, bad), 8));
	TEST_ASSERT_VAL("page", IS_KEY(keys[0], pfn, false));
	TEST_ASSERT_VAL("callsite", IS_KEY(keys[1], callsite, false));
	TEST_ASSERT_VAL("hit", IS_KEY(keys[2], hits, true));
	TEST_ASSERT_VAL("bytes", IS_KEY(keys[3], bytes, true));
	TEST_ASSERT_VAL("order", IS_KEY(keys[4], order, true));
	TEST_ASSERT_VAL("migtype", IS_KEY(keys[5], migtype, false));
	TEST_ASSERT_VAL("gfp", IS_KEY(keys[6], gfp, false));
	TEST_ASSERT_VAL("xnode", IS_KEY(keys[7], xnode_frees, true));

	TEST_ASSERT_VAL("mtype", eq(parse("mtype", keys, bad), 1));
	TEST_ASSERT_VAL("mtype alias", IS_KEY(keys[0], migtype, false));
	TEST_ASSERT_VAL("empty", eq(parse("", keys, bad), 0));

	memset(bad, 0, sizeof(bad));
	TEST_ASSERT_VAL("unknown", eq(parse("order,frob,hit", keys, bad), -EINVAL));
	TEST_ASSERT_VAL("unknown named", !strcmp(bad, "frob"));
	/* Whole names only: no prefixes, no extensions. */
	TEST_ASSERT_VAL("prefix", eq(parse("hi", keys, bad), -EINVAL));
	TEST_ASSERT_VAL("prefix named", !strcmp(bad, "hi"));
	TEST_ASSERT_VAL("longer", eq(parse("bytes,hits", keys, bad), -EINVAL));
	TEST_ASSERT_VAL("longer named", !strcmp(bad, "hits"));
	/* One key more than fits, even a known one: its own error. */
	TEST_ASSERT_VAL("too many",
			eq(parse("hit,hit,hit,hit,hit,hit,hit,hit,hit", keys, bad),
			   -E2BIG));
	TEST_ASSERT_VAL("eight fit",
			eq(parse("hit,hit,hit,hit,hit,hit,hit,hit", keys, bad), 8));
	/* More than -s takes: a bad key among the first is named first. */
	TEST_ASSERT_VAL("nine keys, one bad",
			eq(parse("hit,frob,hit,hit,hit,hit,hit,hit,hit", keys,
				 bad), -EINVAL) && !strcmp(bad, "frob"));
	/* Every piece of -s is a key: an empty one, last too, is unknown. */
	kmem_sort_keys__split(&given, ",hit,,bytes,");
	TEST_ASSERT_VAL("pieces", eq(given.nr, 5) && !given.too_many &&
			eq(given.len[0], 0) && eq(given.len[1], 3) &&
			!strncmp(given.name[1], "hit", 3) && eq(given.len[2], 0) &&
			!strncmp(given.name[3], "bytes,", 6) &&
			eq(given.len[4], 0));
	TEST_ASSERT_VAL("a last comma",
			eq(parse("hit,", keys, bad), -EINVAL) && !bad[0]);
	kmem_sort_keys__split(&given, "a,b,c,d,e,f,g,h,");
	TEST_ASSERT_VAL("a ninth, empty", eq(given.nr, 8) && given.too_many);
	/* The keys -s takes, in the order of the columns. */
	kmem_table__keys(&kmem_tables[KMEM_PAGE_CALLERS], known, sizeof(known));
	TEST_ASSERT_VAL("key list", !strcmp(known, PAGE_KEYS));
	return TEST_OK;
}

/*
 * Caller rows, all of migration type 0:
 *	CS  order hits bytes
 *	0x10  0    5   20480
 *	0x20  2    1   16384
 *	0x30  2    3   49152
 *	0x40  1    2   16384
 *	0x50  0    2    8192
 *	0x60  0    2    8192
 */
static int feed_rows(struct kmem_page *kp)
{
	static const struct { u64 cs; int order, hits; } spec[] = {
		{ 0x10, 0, 5 }, { 0x20, 2, 1 }, { 0x30, 2, 3 },
		{ 0x40, 1, 2 }, { 0x50, 0, 2 }, { 0x60, 0, 2 },
	};
	u64 pfn = 1000;
	size_t i;
	int h;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		for (h = 0; h < spec[i].hits; h++)
			if (alloc_ev(kp, pfn++, spec[i].order, 0, spec[i].cs))
				return TEST_FAIL;
	return TEST_OK;
}

static bool rows_are(struct kmem_page *kp, const char *sort,
		     const u64 *want, size_t nr_want)
{
	struct kmem_page_row **rows;
	size_t i, nr;

	rows = sorted(kp, KMEM_PAGE_TABLE_CALLER, sort, &nr);
	if (!rows || !eq(nr, nr_want))
		return false;
	for (i = 0; i < nr; i++) {
		if (rows[i]->callsite != want[i]) {
			pr_debug("-s %s: row %zu is %#" PRIx64 ", want %#" PRIx64 "\n",
				 sort, i, rows[i]->callsite, want[i]);
			return false;
		}
	}
	return true;
}

static int check_sorted(struct kmem_page *kp)
{
	static const u64 order_hit[] = { 0x30, 0x20, 0x40, 0x10, 0x50, 0x60 };
	/* 0x40 and 0x20 tie on bytes, 0x50 and 0x60 on both keys. */
	static const u64 bytes_hit[] = { 0x30, 0x10, 0x40, 0x20, 0x50, 0x60 };
	static const u64 hit[] = { 0x10, 0x30, 0x40, 0x50, 0x60, 0x20 };
	static const u64 callsite[] = { 0x10, 0x20, 0x30, 0x40, 0x50, 0x60 };
	struct kmem_page_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("feed", feed_rows(kp) == TEST_OK);
	TEST_ASSERT_VAL("-s order,hit", rows_are(kp, "order,hit", order_hit, 6));
	TEST_ASSERT_VAL("-s bytes,hit", rows_are(kp, "bytes,hit", bytes_hit, 6));
	TEST_ASSERT_VAL("-s hit", rows_are(kp, "hit", hit, 6));
	TEST_ASSERT_VAL("-s callsite", rows_are(kp, "callsite", callsite, 6));

	rows = sorted(kp, KMEM_PAGE_TABLE_CALLER, "bytes,hit", &nr);
	TEST_ASSERT_VAL("rows", rows && eq(nr, 6));
	TEST_ASSERT_VAL("row 0 bytes", eq(rows[0]->bytes, 49152));
	TEST_ASSERT_VAL("row 0 hits", eq(rows[0]->hits, 3));
	TEST_ASSERT_VAL("row 1 bytes", eq(rows[1]->bytes, 20480));
	TEST_ASSERT_VAL("row 2 bytes", eq(rows[2]->bytes, 16384));
	TEST_ASSERT_VAL("row 3 bytes", eq(rows[3]->bytes, 16384));
	TEST_ASSERT_VAL("row 5 bytes", eq(rows[5]->bytes, 8192));
	TEST_ASSERT_VAL("row 2 order", eq(rows[2]->order, 1));
	TEST_ASSERT_VAL("row 0 gfp", eq(rows[0]->gfp, 0xcc0));
	return TEST_OK;
}

static int test__kmem_page_sorted(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_sorted);
}

/* --- live_only --------------------------------------------------------- */

static int feed_live(struct kmem_page *kp)
{
	/* A: pfns 1, 2, 3 and 3 again; 1 and 2 freed: one page live. */
	if (alloc_ev(kp, 1, 0, 0, CS_A) || alloc_ev(kp, 2, 0, 0, CS_A) ||
	    alloc_ev(kp, 3, 0, 0, CS_A) || alloc_ev(kp, 4, 1, 0, CS_B))
		return TEST_FAIL;
	if (free_ev(kp, 1, 0) || free_ev(kp, 2, 0) || free_ev(kp, 4, 1))
		return TEST_FAIL;
	if (alloc_ev(kp, 3, 0, 0, CS_A))
		return TEST_FAIL;
	/* C: pfn 5, order 2, never freed. */
	if (alloc_ev(kp, 5, 2, 1, CS_C))
		return TEST_FAIL;
	kmem_page__finish(kp);
	return TEST_OK;
}

static int check_live_only(struct kmem_page *kp)
{
	struct kmem_page_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("feed", feed_live(kp) == TEST_OK);
	/* B is all freed and drops out. */
	rows = sorted(kp, KMEM_PAGE_TABLE_CALLER, "callsite", &nr);
	TEST_ASSERT_VAL("rows", rows && eq(nr, 2));
	TEST_ASSERT_VAL("A", eq(rows[0]->callsite, CS_A));
	TEST_ASSERT_VAL("A hits", eq(rows[0]->hits, 1));
	TEST_ASSERT_VAL("A bytes", eq(rows[0]->bytes, PS));
	TEST_ASSERT_VAL("C", eq(rows[1]->callsite, CS_C));
	TEST_ASSERT_VAL("C hits", eq(rows[1]->hits, 1));
	TEST_ASSERT_VAL("C bytes", eq(rows[1]->bytes, 4 * PS));

	/* Per pfn: the second allocation of 3 and the one of 5. */
	rows = sorted(kp, KMEM_PAGE_TABLE_ALLOC, "callsite", &nr);
	TEST_ASSERT_VAL("alloc rows", rows && eq(nr, 2));
	TEST_ASSERT_VAL("pfn 3", eq(rows[0]->pfn, 3));
	TEST_ASSERT_VAL("pfn 3 hits", eq(rows[0]->hits, 1));
	TEST_ASSERT_VAL("pfn 5", eq(rows[1]->pfn, 5));
	TEST_ASSERT_VAL("pfn 5 bytes", eq(rows[1]->bytes, 4 * PS));
	TEST_ASSERT_VAL("live",
			count_is(&kmem_page__summary(kp)->life.live, 2, 5 * PS));
	return TEST_OK;
}

/* The same events without live_only: every allocation is in the tables. */
static int check_not_live_only(struct kmem_page *kp)
{
	struct kmem_page_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("feed", feed_live(kp) == TEST_OK);
	rows = sorted(kp, KMEM_PAGE_TABLE_CALLER, "callsite", &nr);
	TEST_ASSERT_VAL("rows", rows && eq(nr, 3));
	TEST_ASSERT_VAL("A hits", eq(rows[0]->hits, 4));
	TEST_ASSERT_VAL("A bytes", eq(rows[0]->bytes, 4 * PS));
	TEST_ASSERT_VAL("A freed", eq(rows[0]->freed, 2));
	TEST_ASSERT_VAL("A dropped", eq(rows[0]->dropped, 1));
	TEST_ASSERT_VAL("B hits", eq(rows[1]->hits, 1));
	TEST_ASSERT_VAL("B bytes", eq(rows[1]->bytes, 2 * PS));
	TEST_ASSERT_VAL("B freed", eq(rows[1]->freed, 1));

	rows = sorted(kp, KMEM_PAGE_TABLE_ALLOC, "callsite", &nr);
	TEST_ASSERT_VAL("alloc rows", rows && eq(nr, 5));
	return TEST_OK;
}

static int test__kmem_page_live_only(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kmem_page_config live = plain_config;
	int ret;

	live.live_only = true;
	ret = with_kp(&live, check_live_only);
	return ret ? ret : with_kp(&plain_config, check_not_live_only);
}

/* --- NUMA -------------------------------------------------------------- */

static int feed_nodes(struct kmem_page *kp)
{
	/* pfn 10: CPU 0 allocates on node 0, CPU 1 frees it. */
	if (alloc_on(kp, 10, 0, CS_A, 0, 0) || free_on(kp, 10, 0, 1, 0))
		return TEST_FAIL;
	/* pfn 11: CPU 0 allocates on node 1 and frees it. */
	if (alloc_on(kp, 11, 1, CS_B, 0, 1) || free_on(kp, 11, 1, 0, 1))
		return TEST_FAIL;
	/* pfn 12: CPU 1 allocates on node 1, CPU 0 frees it. */
	if (alloc_on(kp, 12, 2, CS_A, 1, 1) || free_on(kp, 12, 2, 0, 1))
		return TEST_FAIL;
	/* pfn 99 was allocated before the trace; freed by node 1's CPU. */
	if (free_on(kp, 99, 0, 1, 0))
		return TEST_FAIL;
	/* pfn 13: the allocating CPU's node is unknown. */
	if (alloc_on(kp, 13, 0, CS_C, -1, 0) || free_on(kp, 13, 0, 1, 1))
		return TEST_FAIL;
	kmem_page__finish(kp);
	return TEST_OK;
}

static int check_nodes(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);
	struct kmem_page_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("feed", feed_nodes(kp) == TEST_OK);
	/* Only pfn 11 lies on another node than its allocating CPU. */
	TEST_ASSERT_VAL("alloc_remote", count_is(&s->alloc_remote, 1, 2 * PS));
	/* Frees of 10, 11, 12 and 99 are by CPUs off the page's node. */
	TEST_ASSERT_VAL("free_remote",
			count_is(&s->free_remote, 4, PS + 2 * PS + 4 * PS + PS));
	/* 10 (0 -> 1) and 12 (1 -> 0); 13's allocating node is unknown. */
	TEST_ASSERT_VAL("free_other_node",
			count_is(&s->free_other_node, 2, PS + 4 * PS));
	TEST_ASSERT_VAL("matrix 0,0", eq(kmem_page__node_matrix(kp, 0, 0), 2 * PS));
	TEST_ASSERT_VAL("matrix 0,1", eq(kmem_page__node_matrix(kp, 0, 1), PS));
	TEST_ASSERT_VAL("matrix 1,0", eq(kmem_page__node_matrix(kp, 1, 0), 4 * PS));
	TEST_ASSERT_VAL("matrix 1,1", eq(kmem_page__node_matrix(kp, 1, 1), 0));
	TEST_ASSERT_VAL("matrix 2,0", eq(kmem_page__node_matrix(kp, 2, 0), 0));
	TEST_ASSERT_VAL("matrix 0,-1", eq(kmem_page__node_matrix(kp, 0, -1), 0));

	/* Rows: A order 0 (pfn 10), A order 2 (pfn 12), B, C. */
	rows = sorted(kp, KMEM_PAGE_TABLE_CALLER, "callsite,order", &nr);
	TEST_ASSERT_VAL("rows", rows && eq(nr, 4));
	TEST_ASSERT_VAL("A order 2", eq(rows[0]->order, 2));
	TEST_ASSERT_VAL("A order 2 xnode", eq(rows[0]->xnode_frees, 1));
	TEST_ASSERT_VAL("A order 0", eq(rows[1]->order, 0));
	TEST_ASSERT_VAL("A order 0 xnode", eq(rows[1]->xnode_frees, 1));
	TEST_ASSERT_VAL("B", eq(rows[2]->callsite, CS_B));
	TEST_ASSERT_VAL("B xnode", eq(rows[2]->xnode_frees, 0));
	TEST_ASSERT_VAL("C", eq(rows[3]->callsite, CS_C));
	TEST_ASSERT_VAL("C xnode", eq(rows[3]->xnode_frees, 0));
	return TEST_OK;
}

static int test__kmem_page_nodes(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kmem_page_config two = plain_config;

	two.nr_nodes = 2;
	return with_kp(&two, check_nodes);
}

/* Without a topology no event is cross-node, whatever its nodes say. */
static int check_no_nodes(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	TEST_ASSERT_VAL("feed", feed_nodes(kp) == TEST_OK);
	TEST_ASSERT_VAL("alloc_remote", count_is(&s->alloc_remote, 0, 0));
	TEST_ASSERT_VAL("free_remote", count_is(&s->free_remote, 0, 0));
	TEST_ASSERT_VAL("free_other_node", count_is(&s->free_other_node, 0, 0));
	TEST_ASSERT_VAL("matrix 0,1", eq(kmem_page__node_matrix(kp, 0, 1), 0));
	TEST_ASSERT_VAL("matrix 0,0", eq(kmem_page__node_matrix(kp, 0, 0), 0));
	/* The rest of the analysis is unaffected. */
	TEST_ASSERT_VAL("alloc_freed",
			count_is(&s->life.freed, 4, PS + 2 * PS + 4 * PS + PS));
	return TEST_OK;
}

/* The largest topology followed: node 63 is a node like any other. */
static int check_64_nodes(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	TEST_ASSERT_VAL("alloc", !alloc_on(kp, 1, 0, CS_A, 63, 0));
	TEST_ASSERT_VAL("free", !free_on(kp, 1, 0, 0, 0));
	TEST_ASSERT_VAL("matrix 63,0", eq(kmem_page__node_matrix(kp, 63, 0), PS));
	TEST_ASSERT_VAL("matrix 63,64", eq(kmem_page__node_matrix(kp, 63, 64), 0));
	TEST_ASSERT_VAL("alloc_remote", count_is(&s->alloc_remote, 1, PS));
	TEST_ASSERT_VAL("free_other_node", count_is(&s->free_other_node, 1, PS));
	return TEST_OK;
}

static int test__kmem_page_bad_nr_nodes(struct test_suite *t __maybe_unused,
					int subtest __maybe_unused)
{
	struct kmem_page_config c = plain_config;
	int ret;

	c.nr_nodes = KMEM_PAGE_MAX_NODES + 1;
	ret = with_kp(&c, check_no_nodes);
	if (ret)
		return ret;
	c.nr_nodes = -1;
	ret = with_kp(&c, check_no_nodes);
	if (ret)
		return ret;
	c.nr_nodes = 0;
	ret = with_kp(&c, check_no_nodes);
	if (ret)
		return ret;
	c.nr_nodes = KMEM_PAGE_MAX_NODES;
	return with_kp(&c, check_64_nodes);
}

/*
 * The skip rule against the page allocator's frames as the kernels of each
 * generation name them (seen in their callchains of mm_page_alloc), and
 * against callers that merely look like allocators.
 */
static const char * const alloc_frames_v4[] = {
	"__alloc_pages_nodemask", "alloc_pages_current", "alloc_pages_vma",
	"alloc_page_interleave", "__get_free_pages", "get_zeroed_page",
	"alloc_pages_exact", "alloc_pages_exact_nid", NULL,
};

static const char * const alloc_frames_v5[] = {
	"__alloc_pages_nodemask", "alloc_pages_current", "alloc_pages_vma",
	"__alloc_pages", "alloc_pages", "alloc_pages_preferred_many",
	"__alloc_pages_bulk", "alloc_pages_bulk_array_mempolicy",
	"__folio_alloc", "folio_alloc", "filemap_alloc_folio",
	"alloc_pages_vma.isra.0", NULL,
};

static const char * const alloc_frames_v6[] = {
	"__alloc_pages", "alloc_pages", "vma_alloc_folio", "__folio_alloc",
	"folio_alloc", "filemap_alloc_folio", "alloc_pages_mpol",
	/* v6.10: memory allocation profiling */
	"__alloc_pages_noprof", "alloc_pages_noprof", "alloc_pages_mpol_noprof",
	"vma_alloc_folio_noprof", "__folio_alloc_noprof", "folio_alloc_noprof",
	"folio_alloc_mpol_noprof", "filemap_alloc_folio_noprof",
	"get_free_pages_noprof", "get_zeroed_page_noprof",
	"alloc_pages_exact_noprof", "alloc_pages_bulk_noprof",
	"alloc_pages_bulk_mempolicy_noprof",
	/* v6.15: frozen pages */
	"__alloc_frozen_pages_noprof", "alloc_frozen_pages_noprof",
	"alloc_frozen_pages_nolock_noprof", "alloc_pages_nolock_noprof",
	"__alloc_frozen_pages_noprof.constprop.0",
	/* with a second probe on the tracepoint */
	"__traceiter_mm_page_alloc", "__traceiter_mm_page_alloc_extfrag", NULL,
};

static const char * const callers[] = {
	/*
	 * v4.x.  (The allocator's insides, get_page_from_freelist and the
	 * slow path, are allocator frames: kmem:mm_page_alloc_extfrag fires
	 * there; tests/kmem-frag.c has them.)
	 */
	"__page_cache_alloc", "alloc_page_buffers", "pagecache_get_page",
	"__pte_alloc", "kmalloc_order",
	/* every version */
	"alloc_slab_page", "allocate_slab", "new_slab", "pte_alloc_one",
	"__pmd_alloc", "__pud_alloc", "pgd_alloc", "do_anonymous_page",
	"do_wp_page", "do_fault", "handle_mm_fault", "skb_page_frag_refill",
	"__page_frag_cache_refill", "vm_area_alloc_pages", "tlb_next_batch",
	/* v6.x */
	"alloc_anon_folio", "folio_prealloc", "page_cache_ra_order",
	"page_cache_ra_unbounded", "__filemap_get_folio",
	"___kmalloc_large_node", "__kmalloc_large_node_noprof",
	"anon_pipe_write",
	"x__alloc_pages", "alloc_pagesx", NULL,
};

static int count_matches(struct callsite_resolver *r,
			 const char * const *names, bool want)
{
	int bad = 0;

	for (; *names; names++) {
		if (callsite_resolver__is_alloc_func(r, *names) != want) {
			pr_debug("%s: %s taken for %s\n", *names,
				 want ? "not" : "wrongly",
				 "an allocator frame");
			bad++;
		}
	}
	return bad;
}

static struct callsite_resolver *default_resolver(void)
{
	char err[128];

	return callsite_resolver__new(NULL, NULL, false, false, err,
				      sizeof(err));
}

static int test__kmem_page_alloc_frames(struct test_suite *t __maybe_unused,
					int subtest __maybe_unused)
{
	struct callsite_resolver *r = default_resolver();
	int bad;

	TEST_ASSERT_VAL("resolver", r);
	bad = count_matches(r, alloc_frames_v4, true) +
	      count_matches(r, alloc_frames_v5, true) +
	      count_matches(r, alloc_frames_v6, true) +
	      count_matches(r, callers, false);
	callsite_resolver__delete(r);
	TEST_ASSERT_VAL("every name classified right", bad == 0);
	return TEST_OK;
}

static int test__kmem_page_alloc_pattern(struct test_suite *t __maybe_unused,
					 int subtest __maybe_unused)
{
	struct callsite_resolver *r;
	char err[128] = "";

	/* --alloc-func replaces the list. */
	r = callsite_resolver__new(NULL, "^my_alloc$", false, false, err,
				   sizeof(err));
	TEST_ASSERT_VAL("replace", r);
	TEST_ASSERT_VAL("replace: own", callsite_resolver__is_alloc_func(r, "my_alloc"));
	TEST_ASSERT_VAL("replace: builtin gone",
			!callsite_resolver__is_alloc_func(r, "__alloc_pages"));
	callsite_resolver__delete(r);

	/* --alloc-func-add extends it. */
	r = callsite_resolver__new(NULL, "^my_alloc$", true, false, err,
				   sizeof(err));
	TEST_ASSERT_VAL("extend", r);
	TEST_ASSERT_VAL("extend: own", callsite_resolver__is_alloc_func(r, "my_alloc"));
	TEST_ASSERT_VAL("extend: builtin kept",
			callsite_resolver__is_alloc_func(r, "__alloc_pages"));
	TEST_ASSERT_VAL("extend: callers still callers",
			!callsite_resolver__is_alloc_func(r, "alloc_page_buffers"));
	callsite_resolver__delete(r);

	/* A broken pattern is refused with a reason. */
	r = callsite_resolver__new(NULL, "(", false, false, err, sizeof(err));
	TEST_ASSERT_VAL("bad pattern refused", !r);
	TEST_ASSERT_VAL("bad pattern explained", strstr(err, "--alloc-func '('"));
	r = callsite_resolver__new(NULL, "(", true, false, err, sizeof(err));
	TEST_ASSERT_VAL("bad added pattern refused", !r);
	TEST_ASSERT_VAL("bad added pattern explained", strstr(err, "--alloc-func-add '('"));
	return TEST_OK;
}

/* --- intervals and filtered allocations ----------------------------------- */

#define MS	1000000ULL

/* An allocation at @time: the interval series first, as run.c does. */
static int iv_alloc(struct kmem_interval *iv, struct kmem_page *kp, u64 time,
		    u64 pfn, int order, u64 callsite)
{
	int err = kmem_interval__advance(iv, time, kmem_page__summary(kp), NULL);

	if (!err && pfn != KMEM_PAGE_NO_PFN)
		err = kmem_interval__alloc(iv, callsite, PS << order);
	return err ?: alloc_ev(kp, pfn, order, 0, callsite);
}

static int iv_free(struct kmem_interval *iv, struct kmem_page *kp, u64 time,
		   u64 pfn, int order)
{
	int err = kmem_interval__advance(iv, time, kmem_page__summary(kp), NULL);

	return err ?: free_ev(kp, pfn, order);
}

static int check_intervals(struct kmem_page *kp)
{
	struct kmem_interval_config config = { .length = 10 * MS, .nr_callers = 1 };
	struct kmem_interval *iv = kmem_interval__new(&config);
	const struct kmem_interval_row *r;
	int ret = TEST_FAIL;

	TEST_ASSERT_VAL("kmem_interval__new", iv);
	/*
	 * From the first event at 1000 ms: [0, 10) two allocations of A, one
	 * of B, order 1, and a free of one of A (A and B allocated 8 KiB each:
	 * A, in more allocations, comes first); [10, 20) nothing; [20, 30) a
	 * failure, B's page allocated again by C, and freed.
	 */
	if (iv_alloc(iv, kp, 1000 * MS, 1, 0, CS_A) ||
	    iv_alloc(iv, kp, 1002 * MS, 2, 0, CS_A) ||
	    iv_alloc(iv, kp, 1003 * MS, 4, 1, CS_B) ||
	    iv_free(iv, kp, 1009 * MS, 1, 0) ||
	    iv_alloc(iv, kp, 1020 * MS, KMEM_PAGE_NO_PFN, 2, CS_C) ||
	    iv_alloc(iv, kp, 1021 * MS, 4, 0, CS_C) ||
	    iv_free(iv, kp, 1029 * MS, 4, 0) ||
	    kmem_interval__finish(iv, kmem_page__summary(kp), NULL))
		goto out;
	if (!eq(kmem_interval__nr_rows(iv), 3))
		goto out;
	r = kmem_interval__row(iv, 0);
	if (!eq(r->start, 0) || !count_is(&r->alloc, 3, 4 * PS) ||
	    !count_is(&r->free, 1, PS) || !count_is(&r->fail, 0, 0) ||
	    !eq(r->live_bytes, 3 * PS) || !eq(r->nr_callers, 1) ||
	    !eq(r->callers[0].callsite, CS_A) ||
	    !count_is(&r->callers[0].alloc, 2, 2 * PS))
		goto out;
	r = kmem_interval__row(iv, 1);
	if (!eq(r->start, 10 * MS) || !count_is(&r->alloc, 0, 0) ||
	    !count_is(&r->free, 0, 0) || !eq(r->live_bytes, 3 * PS) ||
	    !eq(r->nr_callers, 0))
		goto out;
	/* B's order-1 page dropped (allocated again), C's freed: A's left. */
	r = kmem_interval__row(iv, 2);
	if (!eq(r->start, 20 * MS) || !count_is(&r->alloc, 1, PS) ||
	    !count_is(&r->fail, 1, 4 * PS) || !count_is(&r->free, 1, PS) ||
	    !eq(r->live_bytes, PS) || !eq(r->callers[0].callsite, CS_C))
		goto out;
	ret = TEST_OK;
out:
	kmem_interval__delete(iv);
	return ret;
}

/*
 * -b's summaries: exact allocations, frees estimated from samples, which
 * may come out larger.  The live bytes are then 0, not a wrapped u64.
 */
static int check_estimated_live(void)
{
	struct kmem_interval_config config = { .length = 10 * MS };
	struct kmem_interval *iv = kmem_interval__new(&config);
	struct kmem_page_summary ps = {};
	int ret = TEST_FAIL;

	TEST_ASSERT_VAL("kmem_interval__new", iv);
	if (kmem_interval__advance(iv, 0, &ps, NULL))
		goto out;
	ps.alloc = (struct kmem_count){ 4, 4 * PS };
	ps.life.freed = (struct kmem_count){ 6, 6 * PS };
	if (kmem_interval__finish(iv, &ps, NULL) ||
	    !eq(kmem_interval__nr_rows(iv), 1) ||
	    !eq(kmem_interval__row(iv, 0)->live_bytes, 0))
		goto out;
	ret = TEST_OK;
out:
	kmem_interval__delete(iv);
	return ret;
}

static int test__kmem_page_intervals(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kmem_interval_config zero = { .length = 0 };

	TEST_ASSERT_VAL("length 0 refused", !kmem_interval__new(&zero));
	TEST_ASSERT_VAL("estimated live bytes", check_estimated_live() == TEST_OK);
	return with_kp(&plain_config, check_intervals);
}

/* Only the chosen tasks' allocations come in: other frees are not counted. */
static int check_filtered(struct kmem_page *kp)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);

	TEST_ASSERT_VAL("alloc", !alloc_ev(kp, 1, 0, 0, CS_A));
	TEST_ASSERT_VAL("free of another's page", !free_ev(kp, 2, 0));
	TEST_ASSERT_VAL("free of a bad order", !free_ev(kp, 3, 99));
	TEST_ASSERT_VAL("free of ours", !free_ev(kp, 1, 0));
	TEST_ASSERT_VAL("frees: ours", count_is(&s->free, 1, PS));
	TEST_ASSERT_VAL("no free-only", count_is(&s->free_only, 0, 0));
	TEST_ASSERT_VAL("no bad order", eq(s->bad_order, 0));
	TEST_ASSERT_VAL("freed", count_is(&s->life.freed, 1, PS));
	return TEST_OK;
}

static int test__kmem_page_filtered(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	struct kmem_page_config config = plain_config;

	config.allocations_filtered = true;
	return with_kp(&config, check_filtered);
}

/* Rows differ by their task key. */
static int check_task_rows(struct kmem_page *kp)
{
	struct kmem_page_event ev = { .pfn = 1, .callsite = CS_A, .cpu_node = -1,
				      .page_node = -1, .task = 7 };
	struct kmem_page_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("task 7", !kmem_page__alloc(kp, &ev, 0, false));
	ev.pfn = 2;
	TEST_ASSERT_VAL("task 7 again", !kmem_page__alloc(kp, &ev, 0, false));
	ev.pfn = 3;
	ev.task = 9;
	TEST_ASSERT_VAL("task 9", !kmem_page__alloc(kp, &ev, 0, false));
	rows = sorted(kp, KMEM_PAGE_TABLE_CALLER, "pid", &nr);
	TEST_ASSERT_VAL("rows", rows);
	TEST_ASSERT_VAL("two rows", eq(nr, 2));
	TEST_ASSERT_VAL("task 7: two hits", eq(rows[0]->task, 7) &&
			eq(rows[0]->hits, 2));
	TEST_ASSERT_VAL("task 9: one", eq(rows[1]->task, 9) &&
			eq(rows[1]->hits, 1));
	return TEST_OK;
}

static int test__kmem_page_task_rows(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	return with_kp(&plain_config, check_task_rows);
}

static struct test_case kmem_page_tests[] = {
	TEST_CASE("kmem page: alloc matched by free", kmem_page_match),
	TEST_CASE("kmem page: bytes follow the page size", kmem_page_page_size),
	TEST_CASE("kmem page: free-only", kmem_page_free_only),
	TEST_CASE("kmem page: allocation failure", kmem_page_failure),
	TEST_CASE("kmem page: allocation of a live pfn", kmem_page_realloc),
	TEST_CASE("kmem page: order 13 grows the grid", kmem_page_order_13),
	TEST_CASE("kmem page: orders out of range", kmem_page_bad_order),
	TEST_CASE("kmem page: unknown migration types", kmem_page_bad_migtype),
	TEST_CASE("kmem page: migration type columns", kmem_page_columns),
	TEST_CASE("kmem page: migration type names", kmem_page_names),
	TEST_CASE("kmem page: random stream against a model", kmem_page_random),
	TEST_CASE("kmem page: keyed tables against a model", kmem_page_tables),
	TEST_CASE("kmem page: table rows stay put", kmem_page_rows_table),
	TEST_CASE("kmem page: sort key parsing", kmem_page_parse_sort),
	TEST_CASE("kmem page: sorted rows", kmem_page_sorted),
	TEST_CASE("kmem page: live-only tables", kmem_page_live_only),
	TEST_CASE("kmem page: cross-node traffic", kmem_page_nodes),
	TEST_CASE("kmem page: nr_nodes out of range", kmem_page_bad_nr_nodes),
	TEST_CASE("kmem page: allocator frames of v4 to v6.18", kmem_page_alloc_frames),
	TEST_CASE("kmem page: --alloc-func and --alloc-func-add", kmem_page_alloc_pattern),
	TEST_CASE("kmem page: intervals of trace time", kmem_page_intervals),
	TEST_CASE("kmem page: frees under a task filter", kmem_page_filtered),
	TEST_CASE("kmem page: rows differ by task", kmem_page_task_rows),
	{ .name = NULL, }
};

struct test_suite suite__kmem_page = {
	.desc = "perf kmem page allocator analysis",
	.test_cases = kmem_page_tests,
};
