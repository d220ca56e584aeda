// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of util/kmem/count-frag.c and util/kmem/read-pageblock.c: synthetic
 * events and print formats with known answers.
 *
 * Every expected number is worked out by hand (the tables below say
 * which class each event is at each pageblock order), or, for the random
 * stream, by a model in this file that shares no code with count-frag.c.
 * The print formats are the kernel's extfrag format as its preprocessor
 * expands it for each configuration (include/trace/events/kmem.h and
 * include/linux/pageblock-flags.h of v6.12).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include "debug.h"
#include "kmem-random.h"
#include "tests.h"
#include "util/kmem/count-frag.h"
#include "util/kmem/count-page.h"
#include "util/kmem/read-callsite.h"
#include "util/kmem/report.h"
#ifdef HAVE_LIBTRACEEVENT
#include <sys/mman.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include "util/kmem/read-pageblock.h"
#include "util/trace-event.h"
#endif

#define PS	4096ULL

#define CS_A	0xffffffff81000100ULL
#define CS_B	0xffffffff81000200ULL
#define CS_C	0xffffffff81000300ULL
#define CS_D	0xffffffff81000400ULL

/* Migration types as kernels from v4.4 on trace them. */
#define MT_UNMOV	0
#define MT_MOV		1
#define MT_RECL		2
#define MT_CMA		4	/* a Special column */

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

static int fallback(struct kmem_frag *kf, u64 pfn, u64 callsite,
		    int alloc_order, int fallback_order, int alloc_mt,
		    int fallback_mt, int change_ownership)
{
	struct kmem_frag_event ev = {
		.pfn = pfn,
		.callsite = callsite,
		.alloc_order = alloc_order,
		.fallback_order = fallback_order,
		.alloc_migtype = alloc_mt,
		.fallback_migtype = fallback_mt,
		.change_ownership = change_ownership,
	};

	return kmem_frag__fallback_thread(kf, &ev, 0, 0);
}

static int alloc(struct kmem_frag *kf, u64 pfn, int order, int migtype,
		 u64 callsite, u64 gfp)
{
	struct kmem_page_event ev = {
		.pfn = pfn,
		.order = order,
		.migtype = migtype,
		.callsite = callsite,
		.gfp = gfp,
		.cpu_node = -1,
		.page_node = -1,
	};

	return kmem_frag__alloc(kf, &ev);
}

/* Run @check on a fresh analysis, deleted whatever the outcome. */
static int with_kf(const struct kmem_frag_config *config,
		   int (*check)(struct kmem_frag *kf))
{
	struct kmem_frag *kf = kmem_frag__new(config);
	int ret;

	TEST_ASSERT_VAL("kmem_frag__new", kf);
	ret = check(kf);
	kmem_frag__delete(kf);
	return ret;
}

/* --- classes ------------------------------------------------------------ */

/*
 * Fallbacks and their class at pageblock orders 9 (x86-64, arm64 4K), 10
 * (no huge pages) and 13 (arm64 64K): Claimed when fallback_order >=
 * pageblock_order, else conVerted with change_ownership, else Polluted.
 */
static const struct class_case {
	int	alloc_order, fallback_order, change_ownership;
	char	cls[4];		/* at orders 9, 10, 13 */
	bool	severe;		/* fallback_order <= 3 */
} class_cases[] = {
	{ 0,  8, 1, "VVV", false },
	{ 0,  8, 0, "PPP", false },
	{ 0,  9, 0, "CPP", false },	/* the boundary of order 9 */
	{ 1,  9, 1, "CVV", false },
	{ 0, 10, 1, "CCV", false },	/* ... of order 10 */
	{ 0, 10, 0, "CCP", false },
	{ 0,  3, 0, "PPP", true },	/* the last severe order */
	{ 2,  4, 0, "PPP", false },
	{ 0,  0, 1, "VVV", true },
	{ 0, 12, 0, "CCP", false },
	{ 0, 12, 1, "CCV", false },
	{ 0, 13, 0, "CCC", false },	/* ... of order 13 */
	{ 3, 13, 1, "CCC", false },
};

static const int class_orders[] = { 9, 10, 13 };

static enum kmem_frag_class class_of(char c)
{
	return c == 'C' ? KMEM_FRAG_CLAIMED :
	       c == 'V' ? KMEM_FRAG_CONVERTED : KMEM_FRAG_POLLUTED;
}

/* Each event alone, in an analysis of its own: exactly its class. */
static int check_one_class(const struct class_case *c, int o, u64 page_size)
{
	struct kmem_frag_config config = {
		.page_size = page_size,
		.pageblock_order = class_orders[o],
	};
	struct kmem_frag *kf = kmem_frag__new(&config);
	const struct kmem_frag_summary *s;
	u64 bytes = page_size << c->alloc_order;
	enum kmem_frag_class want_cls = class_of(c->cls[o]);
	int cls, ret = TEST_FAIL;

	if (!kf)
		return TEST_FAIL;
	s = kmem_frag__summary(kf);
	if (fallback(kf, 1ULL << 20, CS_A, c->alloc_order, c->fallback_order,
		     MT_UNMOV, MT_MOV, c->change_ownership))
		goto out;
	for (cls = 0; cls < KMEM_FRAG_NR_CLASSES; cls++) {
		bool want = cls == (int)want_cls;

		if (!count_is(&s->classes[cls], want, want ? bytes : 0)) {
			pr_debug("fallback_order %d change_ownership %d at pageblock_order %d: class %d\n",
				 c->fallback_order, c->change_ownership,
				 class_orders[o], cls);
			goto out;
		}
	}
	if (count_is(&s->severe, c->severe, c->severe ? bytes : 0))
		ret = TEST_OK;
out:
	kmem_frag__delete(kf);
	return ret;
}

/* All events in one analysis: the totals add up as the table says. */
static int check_all_classes(int o, u64 page_size)
{
	struct kmem_frag_config config = {
		.page_size = page_size,
		.pageblock_order = class_orders[o],
	};
	struct kmem_frag *kf = kmem_frag__new(&config);
	struct kmem_count want[KMEM_FRAG_NR_CLASSES] = { { 0 } }, total = { 0 };
	const struct kmem_frag_summary *s;
	const struct kmem_frag_cell *cell;
	size_t i;
	int ret = TEST_FAIL;

	if (!kf)
		return TEST_FAIL;
	s = kmem_frag__summary(kf);
	for (i = 0; i < ARRAY_SIZE(class_cases); i++) {
		const struct class_case *c = &class_cases[i];
		u64 bytes = page_size << c->alloc_order;

		if (fallback(kf, i << 13, CS_A, c->alloc_order,
			     c->fallback_order, MT_UNMOV, MT_MOV,
			     c->change_ownership))
			goto out;
		kmem_count__add(&want[class_of(c->cls[o])], bytes);
		kmem_count__add(&total, bytes);
	}
	cell = kmem_frag__cell(kf, KMEM_MIGTYPE_UNMOVABLE, KMEM_MIGTYPE_MOVABLE);
	if (count_is(&s->fallbacks, total.nr, total.bytes) &&
	    count_is(&s->classes[0], want[0].nr, want[0].bytes) &&
	    count_is(&s->classes[1], want[1].nr, want[1].bytes) &&
	    count_is(&s->classes[2], want[2].nr, want[2].bytes) &&
	    eq(cell->fallbacks, total.nr) && eq(cell->classes[0], want[0].nr) &&
	    eq(cell->classes[1], want[1].nr) && eq(cell->classes[2], want[2].nr))
		ret = TEST_OK;
out:
	kmem_frag__delete(kf);
	return ret;
}

static int test__kmem_frag_classes(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	size_t i;
	int o;

	for (o = 0; o < (int)ARRAY_SIZE(class_orders); o++) {
		/* arm64 with pageblock order 13 has 64 KiB pages. */
		u64 page_size = class_orders[o] == 13 ? 65536 : PS;

		for (i = 0; i < ARRAY_SIZE(class_cases); i++)
			TEST_ASSERT_VAL("one class per fallback",
					check_one_class(&class_cases[i], o,
							page_size) == TEST_OK);
		TEST_ASSERT_VAL("classes add up",
				check_all_classes(o, page_size) == TEST_OK);
	}
	return TEST_OK;
}

/* Without a pageblock order: fallbacks counted, nothing classed. */
static int check_unknown_order(struct kmem_frag *kf)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	const struct kmem_frag_cell *cell;
	const struct kmem_frag_pageblock *pb;
	struct kmem_frag_row **rows;
	size_t i, nr;
	int cls;

	TEST_ASSERT_VAL("no classes", !kmem_frag__has_classes(kf));
	for (i = 0; i < ARRAY_SIZE(class_cases); i++)
		TEST_ASSERT_VAL("fallback",
				!fallback(kf, i << 13, CS_A,
					  class_cases[i].alloc_order,
					  class_cases[i].fallback_order, MT_UNMOV,
					  MT_MOV, class_cases[i].change_ownership));
	TEST_ASSERT_VAL("alloc", !alloc(kf, 100, 0, MT_MOV, CS_B, 0xcc0));
	TEST_ASSERT_VAL("failure",
			!alloc(kf, KMEM_PAGE_NO_PFN, 9, MT_MOV,
			CS_B, 0xcc0));
	TEST_ASSERT_VAL("finish", !kmem_frag__finish(kf));

	TEST_ASSERT_VAL("fallbacks", eq(s->fallbacks.nr, ARRAY_SIZE(class_cases)));
	TEST_ASSERT_VAL("severe", eq(s->severe.nr, 2));
	for (cls = 0; cls < KMEM_FRAG_NR_CLASSES; cls++)
		TEST_ASSERT_VAL("class", count_is(&s->classes[cls], 0, 0));
	cell = kmem_frag__cell(kf, KMEM_MIGTYPE_UNMOVABLE, KMEM_MIGTYPE_MOVABLE);
	TEST_ASSERT_VAL("cell", eq(cell->fallbacks, ARRAY_SIZE(class_cases)));
	TEST_ASSERT_VAL("cell classes",
			!cell->classes[0] && !cell->classes[1] &&
			!cell->classes[2]);
	rows = kmem_frag__rows(kf, NULL, 0, &nr);
	TEST_ASSERT_VAL("one row", rows && eq(nr, 1));
	TEST_ASSERT_VAL("row hits", eq(rows[0]->fallbacks.nr, ARRAY_SIZE(class_cases)));
	TEST_ASSERT_VAL("row severe", eq(rows[0]->severe, 2));
	pb = kmem_frag__pageblocks(kf, &nr);
	TEST_ASSERT_VAL("no pageblocks", !pb && !nr);
	TEST_ASSERT_VAL("no blocks counted",
			!s->blocks.allocated &&
			!s->blocks.fallback_only);
	/* Allocations and failures need no pageblock order. */
	TEST_ASSERT_VAL("alloc counted", count_is(&s->alloc[KMEM_MIGTYPE_MOVABLE], 1, PS));
	TEST_ASSERT_VAL("failure counted", count_is(&s->fail, 1, PS << 9));
	return TEST_OK;
}

static int test__kmem_frag_unknown_order(struct test_suite *t __maybe_unused,
					 int subtest __maybe_unused)
{
	struct kmem_frag_config unknown = {
		.page_size = PS,
		.pageblock_order = KMEM_FRAG_ORDER_UNKNOWN,
	};
	struct kmem_frag_config absurd = {
		.page_size = PS,
		.pageblock_order = KMEM_PAGE_MAX_ORDER + 1,
	};
	int ret = with_kf(&unknown, check_unknown_order);

	return ret ? ret : with_kf(&absurd, check_unknown_order);
}

/* Events no kernel traces are refused, and counted as such only. */
static int check_refused(struct kmem_frag *kf)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	size_t nr;

	TEST_ASSERT_VAL("alloc_order -1",
			fallback(kf, 1, CS_A, -1, 3, 0, 1, 0) == 0);
	TEST_ASSERT_VAL("alloc_order 32",
			fallback(kf, 1, CS_A, 32, 32, 0, 1, 0) == 0);
	TEST_ASSERT_VAL("fallback_order 32",
			fallback(kf, 1, CS_A, 0, 32, 0, 1, 0) == 0);
	TEST_ASSERT_VAL("fallback below alloc",
			fallback(kf, 1, CS_A, 3, 2, 0, 1, 0) == 0);
	TEST_ASSERT_VAL("change_ownership 2",
			fallback(kf, 1, CS_A, 0, 2, 0, 1, 2) == 0);
	TEST_ASSERT_VAL("pfn -1",
			fallback(kf, KMEM_PAGE_NO_PFN, CS_A, 0, 2, 0, 1, 0) == 0);
	/* Over 1 << 10 pageblocks of order 9. */
	TEST_ASSERT_VAL("fallback span",
			fallback(kf, 0, CS_A, 0, 20, 0, 1, 0) == 0);
	TEST_ASSERT_VAL("alloc order 32", alloc(kf, 1, 32, 0, CS_A, 0) == 0);
	TEST_ASSERT_VAL("alloc order -1", alloc(kf, 1, -1, 0, CS_A, 0) == 0);
	TEST_ASSERT_VAL("alloc span", alloc(kf, 0, 20, 0, CS_A, 0) == 0);
	/* The widest span taken: 1 << 10 pageblocks. */
	TEST_ASSERT_VAL("alloc order 19", !alloc(kf, 0, 19, MT_MOV, CS_A, 0));
	/* Migration types out of range go to Special. */
	TEST_ASSERT_VAL("bad migtypes", !fallback(kf, 1 << 20, CS_A, 0, 0, -3, 99, 0));
	TEST_ASSERT_VAL("bad alloc migtype", !alloc(kf, 1 << 20, 0, 16, CS_A, 0));

	TEST_ASSERT_VAL("bad_fallbacks", eq(s->bad_fallbacks, 7));
	TEST_ASSERT_VAL("bad_allocs", eq(s->bad_allocs, 3));
	TEST_ASSERT_VAL("bad_migtype", eq(s->bad_migtype, 3));
	TEST_ASSERT_VAL("only the good fallback", eq(s->fallbacks.nr, 1));
	TEST_ASSERT_VAL("Special x Special",
			eq(kmem_frag__cell(kf, KMEM_MIGTYPE_SPECIAL,
					   KMEM_MIGTYPE_SPECIAL)->fallbacks, 1));
	TEST_ASSERT_VAL("alloc Special",
			count_is(&s->alloc[KMEM_MIGTYPE_SPECIAL], 1, PS));
	TEST_ASSERT_VAL("alloc Movable",
			count_is(&s->alloc[KMEM_MIGTYPE_MOVABLE], 1, PS << 19));
	TEST_ASSERT_VAL("no cell out of range",
			!kmem_frag__cell(kf, KMEM_NR_MIGTYPE_COLUMNS, 0) &&
			!kmem_frag__cell(kf, 0, -1));
	kmem_frag__pageblocks(kf, &nr);
	/* 1024 for order 19, one for the order-0 pair at pfn 1 << 20. */
	TEST_ASSERT_VAL("pageblocks", eq(nr, 1025));
	TEST_ASSERT_VAL("busy after finish",
			fallback(kf, 1, CS_A, 0, 2, 0, 1, 0) == -EBUSY &&
			alloc(kf, 1, 0, 0, CS_A, 0) == -EBUSY);
	return TEST_OK;
}

static int test__kmem_frag_refused(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_frag_config config = { .page_size = PS, .pageblock_order = 9 };

	return with_kf(&config, check_refused);
}

/* --- the matrix ----------------------------------------------------------- */

static const struct matrix_case {
	int	alloc_mt, fallback_mt, fallback_order, change_ownership, times;
} matrix_cases[] = {
	{ MT_UNMOV, MT_MOV,  0, 0, 3 },		/* polluted */
	{ MT_UNMOV, MT_RECL, 2, 1, 1 },		/* converted */
	{ MT_RECL,  MT_UNMOV, 1, 0, 2 },	/* polluted */
	{ MT_MOV,   MT_UNMOV, 9, 0, 2 },	/* claimed */
	{ MT_MOV,   MT_RECL, 5, 1, 1 },		/* converted */
	{ MT_RECL,  MT_MOV, 10, 1, 1 },		/* claimed */
	{ MT_CMA,   MT_UNMOV, 0, 0, 1 },	/* polluted, Special row */
};

/* The cells by hand: [requested][fallback] = { claimed, converted, polluted }. */
static const u64 matrix_want[KMEM_NR_MIGTYPE_COLUMNS][KMEM_NR_MIGTYPE_COLUMNS][3] = {
	[KMEM_MIGTYPE_UNMOVABLE][KMEM_MIGTYPE_MOVABLE] = { 0, 0, 3 },
	[KMEM_MIGTYPE_UNMOVABLE][KMEM_MIGTYPE_RECLAIMABLE] = { 0, 1, 0 },
	[KMEM_MIGTYPE_RECLAIMABLE][KMEM_MIGTYPE_UNMOVABLE] = { 0, 0, 2 },
	[KMEM_MIGTYPE_MOVABLE][KMEM_MIGTYPE_UNMOVABLE] = { 2, 0, 0 },
	[KMEM_MIGTYPE_MOVABLE][KMEM_MIGTYPE_RECLAIMABLE] = { 0, 1, 0 },
	[KMEM_MIGTYPE_RECLAIMABLE][KMEM_MIGTYPE_MOVABLE] = { 1, 0, 0 },
	[KMEM_MIGTYPE_SPECIAL][KMEM_MIGTYPE_UNMOVABLE] = { 0, 0, 1 },
};

static int check_matrix(struct kmem_frag *kf)
{
	u64 pfn = 0;
	size_t i;
	int r, c, n;

	for (i = 0; i < ARRAY_SIZE(matrix_cases); i++)
		for (n = 0; n < matrix_cases[i].times; n++)
			TEST_ASSERT_VAL("fallback",
					!fallback(kf, pfn++ << 11, CS_A, 0,
						  matrix_cases[i].fallback_order,
						  matrix_cases[i].alloc_mt,
						  matrix_cases[i].fallback_mt,
						  matrix_cases[i].change_ownership));
	for (r = 0; r < KMEM_NR_MIGTYPE_COLUMNS; r++) {
		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++) {
			const struct kmem_frag_cell *cell = kmem_frag__cell(kf, r, c);
			const u64 *want = matrix_want[r][c];

			pr_debug("cell %d x %d\n", r, c);
			TEST_ASSERT_VAL("claimed", eq(cell->classes[0], want[0]));
			TEST_ASSERT_VAL("converted", eq(cell->classes[1], want[1]));
			TEST_ASSERT_VAL("polluted", eq(cell->classes[2], want[2]));
			TEST_ASSERT_VAL("fallbacks",
					eq(cell->fallbacks, want[0] + want[1] + want[2]));
		}
	}
	return TEST_OK;
}

/* Before v4.4, type 1 was Reclaimable and 2 Movable. */
static int check_matrix_pre_v4_4(struct kmem_frag *kf)
{
	TEST_ASSERT_VAL("fallback", !fallback(kf, 0, CS_A, 0, 0, 0, 1, 0));
	TEST_ASSERT_VAL("fallback", !fallback(kf, 1 << 11, CS_A, 0, 0, 2, 0, 0));
	TEST_ASSERT_VAL("Unmovable from Reclaimable",
			eq(kmem_frag__cell(kf, KMEM_MIGTYPE_UNMOVABLE,
					   KMEM_MIGTYPE_RECLAIMABLE)->classes[2], 1));
	TEST_ASSERT_VAL("Movable from Unmovable",
			eq(kmem_frag__cell(kf, KMEM_MIGTYPE_MOVABLE,
					   KMEM_MIGTYPE_UNMOVABLE)->classes[2], 1));
	TEST_ASSERT_VAL("not Unmovable from Movable",
			eq(kmem_frag__cell(kf, KMEM_MIGTYPE_UNMOVABLE,
					   KMEM_MIGTYPE_MOVABLE)->fallbacks, 0));
	return TEST_OK;
}

static int test__kmem_frag_matrix(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_frag_config config = { .page_size = PS, .pageblock_order = 9 };
	struct kmem_frag_config old = config;
	int ret = with_kf(&config, check_matrix);

	old.pre_v4_4_migtypes = true;
	return ret ? ret : with_kf(&old, check_matrix_pre_v4_4);
}

/* --- the fallback table ----------------------------------------------------- */

/*
 * Rows, at pageblock order 9:
 *	row		events				frag hit bytes  severe
 *	A  U->M		3 polluted, order 0		3    3   12288  3
 *	B  U->M		5 claimed, order 0		0    5   20480  0
 *	B  R->M		1 converted, order 0 (fb 5)	1    1    4096  0
 *	C  U->M		2 converted, order 2 (fb 4)	2    2   32768  0
 *	C  U->R		1 polluted, order 0 (fb 0)	1    1    4096  1
 */
static int feed_rows(struct kmem_frag *kf)
{
	static const struct {
		u64 cs;
		int alloc_order, fallback_order, alloc_mt, fallback_mt, co, n;
	} spec[] = {
		{ CS_A, 0, 1, MT_UNMOV, MT_MOV, 0, 3 },
		{ CS_B, 0, 9, MT_UNMOV, MT_MOV, 0, 5 },
		{ CS_B, 0, 5, MT_RECL, MT_MOV, 1, 1 },
		{ CS_C, 2, 4, MT_UNMOV, MT_MOV, 1, 2 },
		{ CS_C, 0, 0, MT_UNMOV, MT_RECL, 0, 1 },
	};
	u64 pfn = 0;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		for (n = 0; n < spec[i].n; n++)
			if (fallback(kf, pfn++ << 10, spec[i].cs,
				     spec[i].alloc_order, spec[i].fallback_order,
				     spec[i].alloc_mt, spec[i].fallback_mt,
				     spec[i].co))
				return TEST_FAIL;
	return TEST_OK;
}

/* "A01" is the row of CS_A, Unmovable from Movable. */
static void row_name(const struct kmem_frag_row *row, char *buf)
{
	buf[0] = 'A' + (row->callsite - CS_A) / (CS_B - CS_A);
	buf[1] = '0' + row->alloc_migtype;
	buf[2] = '0' + row->fallback_migtype;
	buf[3] = ' ';
}

/* The sort keys of -s @sort for table @id; -1: a bad key. */
static int keys_of(enum kmem_report_table_id id, const char *sort,
		   struct kmem_sort_key *keys)
{
	struct kmem_sort_keys given;
	char bad[32];

	kmem_sort_keys__split(&given, sort);
	return kmem_table__parse_sort(&kmem_tables[id], &given, keys, bad,
				      sizeof(bad));
}

/* The fallback rows as perf kmem shows them: by the table's own keys. */
static struct kmem_frag_row **shown_rows(struct kmem_frag *kf, size_t *nr)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	int n = keys_of(KMEM_FRAG_CALLERS, kmem_tables[KMEM_FRAG_CALLERS].sort,
			keys);

	return n < 0 ? NULL : kmem_frag__rows(kf, keys, n, nr);
}

/* The failure rows as perf kmem shows them. */
static struct kmem_frag_fail_row **shown_fails(struct kmem_frag *kf, size_t *nr)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	int n = keys_of(KMEM_FRAG_FAILURES,
			kmem_tables[KMEM_FRAG_FAILURES].sort, keys);

	return n < 0 ? NULL : kmem_frag__fail_rows(kf, keys, n, nr);
}

/* The rows sorted by @sort, named, e.g. "A01 C01 B21 C02 B01". */
static bool rows_are(struct kmem_frag *kf, const char *sort, const char *want)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	struct kmem_frag_row **rows;
	char got[64] = "";
	size_t i, nr;
	int nr_keys = keys_of(KMEM_FRAG_CALLERS, sort, keys);

	if (nr_keys < 0)
		return false;
	rows = kmem_frag__rows(kf, keys, nr_keys, &nr);
	if (!rows)
		return false;
	for (i = 0; i < nr && i < 15; i++)
		row_name(rows[i], got + 4 * i);
	got[i ? 4 * i - 1 : 0] = '\0';
	if (!strcmp(got, want))
		return true;
	pr_debug("-s %s: got %s, want %s\n", sort, got, want);
	return false;
}

static int check_rows(struct kmem_frag *kf)
{
	struct kmem_frag_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("feed", feed_rows(kf) == TEST_OK);
	rows = shown_rows(kf, &nr);
	TEST_ASSERT_VAL("rows", rows && eq(nr, 5));
	/* The array is good until the next call: look at it first. */
	TEST_ASSERT_VAL("first row",
			eq(rows[0]->fallbacks.nr, 3) &&
			eq(rows[0]->fallbacks.bytes, 3 * PS) &&
			eq(rows[0]->classes[KMEM_FRAG_POLLUTED], 3) &&
			eq(rows[0]->severe, 3));
	/* By default: frag, then hit, then callsite and types. */
	TEST_ASSERT_VAL("default", rows_are(kf, kmem_tables[KMEM_FRAG_CALLERS].sort,
					    "A01 C01 B21 C02 B01"));
	TEST_ASSERT_VAL("frag", rows_are(kf, "frag", "A01 C01 B21 C02 B01"));
	TEST_ASSERT_VAL("hit", rows_are(kf, "hit", "B01 A01 C01 B21 C02"));
	TEST_ASSERT_VAL("bytes", rows_are(kf, "bytes", "C01 B01 A01 B21 C02"));
	TEST_ASSERT_VAL("claimed", rows_are(kf, "claimed", "B01 A01 B21 C01 C02"));
	TEST_ASSERT_VAL("converted", rows_are(kf, "converted", "C01 B21 A01 B01 C02"));
	TEST_ASSERT_VAL("polluted", rows_are(kf, "polluted", "A01 C02 B01 B21 C01"));
	TEST_ASSERT_VAL("severe", rows_are(kf, "severe", "A01 C02 B01 B21 C01"));
	TEST_ASSERT_VAL("callsite,frag",
			rows_are(kf, "callsite,frag", "A01 B21 B01 C01 C02"));
	TEST_ASSERT_VAL("migtype,fallback",
			rows_are(kf, "migtype,fallback", "A01 B01 C01 C02 B21"));
	TEST_ASSERT_VAL("fallback,hit",
			rows_are(kf, "fallback,hit", "B01 A01 C01 B21 C02"));

	TEST_ASSERT_VAL("A fragments 3", eq(kmem_frag__callsite_fragmenting(kf, CS_A), 3));
	TEST_ASSERT_VAL("B fragments 1", eq(kmem_frag__callsite_fragmenting(kf, CS_B), 1));
	TEST_ASSERT_VAL("C fragments 3", eq(kmem_frag__callsite_fragmenting(kf, CS_C), 3));
	TEST_ASSERT_VAL("others 0",
			eq(kmem_frag__callsite_fragmenting(kf, CS_A + 1), 0) &&
			eq(kmem_frag__callsite_fragmenting(kf, 0), 0));
	return TEST_OK;
}

static int test__kmem_frag_rows(struct test_suite *t __maybe_unused,
				int subtest __maybe_unused)
{
	struct kmem_frag_config config = { .page_size = PS, .pageblock_order = 9 };

	return with_kf(&config, check_rows);
}

/*
 * The fallback table by task (-s pid, -s comm): one callsite and pair of
 * types in a row per task, each with its own counts; the callsite's
 * fragmenting fallbacks still of all its tasks.
 */
static int check_task_rows(struct kmem_frag *kf)
{
	struct kmem_frag_event ev = {
		.pfn = 0x1000, .callsite = CS_A, .alloc_order = 0,
		.fallback_order = 2, .alloc_migtype = MT_UNMOV,
		.fallback_migtype = MT_MOV, .change_ownership = 0,
	};
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	struct kmem_frag_row **rows;
	int i, nr_keys;
	size_t nr;

	/* Task 7 pollutes 3 times, task 9 once, and claims once. */
	for (i = 0; i < 3; i++)
		TEST_ASSERT_VAL("7", !kmem_frag__fallback_thread(kf, &ev, 7, 7));
	TEST_ASSERT_VAL("9", !kmem_frag__fallback_thread(kf, &ev, 9, 9));
	ev.fallback_order = 9;
	TEST_ASSERT_VAL("9 claims", !kmem_frag__fallback_thread(kf, &ev, 9, 9));
	nr_keys = keys_of(KMEM_FRAG_CALLERS, "hit", keys);
	TEST_ASSERT_VAL("keys", nr_keys == 1);
	rows = kmem_frag__rows(kf, keys, nr_keys, &nr);
	TEST_ASSERT_VAL("a row per task", rows && eq(nr, 2));
	TEST_ASSERT_VAL("task 7",
			rows[0]->task == 7 && eq(rows[0]->fallbacks.nr, 3) &&
			eq(rows[0]->classes[KMEM_FRAG_POLLUTED], 3) &&
			eq(rows[0]->fragmenting, 3));
	TEST_ASSERT_VAL("task 9",
			rows[1]->task == 9 && eq(rows[1]->fallbacks.nr, 2) &&
			eq(rows[1]->classes[KMEM_FRAG_POLLUTED], 1) &&
			eq(rows[1]->classes[KMEM_FRAG_CLAIMED], 1) &&
			eq(rows[1]->fragmenting, 1));
	/* -s pid: the smaller task first, whatever the counts. */
	nr_keys = keys_of(KMEM_FRAG_CALLERS, "pid", keys);
	TEST_ASSERT_VAL("pid key", nr_keys == 1);
	rows = kmem_frag__rows(kf, keys, nr_keys, &nr);
	TEST_ASSERT_VAL("by pid", rows && eq(nr, 2) && rows[0]->task == 7 &&
			rows[1]->task == 9);
	TEST_ASSERT_VAL("the callsite's, of both",
			eq(kmem_frag__callsite_fragmenting(kf, CS_A), 4));
	return TEST_OK;
}

static int test__kmem_frag_task_rows(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kmem_frag_config config = { .page_size = PS, .pageblock_order = 9 };

	return with_kf(&config, check_task_rows);
}

/* --- the pages that fell back and stay -------------------------------- */

/* The two analyses as a run wires them: a thread's fallbacks, its pages. */
struct pin_run {
	struct kmem_frag	*kf;
	struct kmem_page	*kp;
};

/* A fallback from callsite @cs by thread @tid at @pfn. */
static int thread_fallback(struct pin_run *r, u32 tid, u64 cs, u64 pfn,
			   int alloc_mt, int fallback_mt, int fallback_order,
			   int change_ownership)
{
	struct kmem_frag_event ev = {
		.pfn = pfn, .callsite = cs, .alloc_order = 0,
		.fallback_order = fallback_order, .alloc_migtype = alloc_mt,
		.fallback_migtype = fallback_mt,
		.change_ownership = change_ownership,
	};

	return kmem_frag__fallback_thread(r->kf, &ev, 0, tid);
}

static int thread_alloc(struct pin_run *r, u32 tid, u64 pfn, int order,
			int migtype, u64 callsite, u32 task)
{
	struct kmem_page_event ev = {
		.pfn = pfn, .order = order, .migtype = migtype,
		.callsite = callsite, .cpu_node = -1, .page_node = -1,
		.task = task,
	};
	struct kmem_frag_owed owed;

	kmem_frag__take_owed(r->kf, tid, &ev, &owed);
	return kmem_page__alloc(r->kp, &ev, owed.fragmenting,
				owed.fell_back) ?:
	       kmem_frag__alloc(r->kf, &ev);
}

static int thread_free(struct pin_run *r, u64 pfn, int order)
{
	struct kmem_page_event ev = {
		.pfn = pfn, .order = order, .cpu_node = -1, .page_node = -1,
	};

	return kmem_page__free(r->kp, &ev) ?: kmem_frag__free(r->kf, &ev);
}

static int add_pin(u64 pfn, int order, u64 callsite, u32 task, void *arg)
{
	return kmem_frag__add_pinning(arg, pfn, order, callsite, task);
}

/*
 * Pageblocks of order 9: 0x1000, 0x2000, ... each begin one.  Thread 10
 * (task 1) pollutes 0x1000 twice and keeps both pages, one pageblock;
 * thread 11 keeps its page till it frees it; thread 12's fallback is not
 * thread 13's page, nor its own page in another pageblock; a claimed
 * fallback and a Movable one into an Unmovable pageblock pin nothing;
 * thread 16's Reclaimable page of a converted fallback stays; thread 17's
 * page is allocated again unfreed; thread 19's page is in the pageblock
 * of its second fallback, not of its first.  Every converted or polluted
 * fallback is owed to its thread's next allocation from its callsite,
 * pinning or not.
 */
static int pin_events(struct pin_run *r)
{
	TEST_ASSERT_VAL("10", !thread_fallback(r, 10, CS_A, 0x1000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_alloc(r, 10, 0x1000, 0, MT_UNMOV, CS_A, 1) &&
			!thread_fallback(r, 10, CS_A, 0x1004, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_alloc(r, 10, 0x1004, 1, MT_UNMOV, CS_A, 1) &&
			!thread_alloc(r, 10, 0x1008, 0, MT_UNMOV, CS_A, 1));
	TEST_ASSERT_VAL("11", !thread_fallback(r, 11, CS_B, 0x2000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_alloc(r, 11, 0x2000, 0, MT_UNMOV, CS_B, 2) &&
			!thread_free(r, 0x2000, 0));
	TEST_ASSERT_VAL("12", !thread_fallback(r, 12, CS_C, 0x3000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_alloc(r, 13, 0x3000, 0, MT_UNMOV, CS_C, 3) &&
			!thread_alloc(r, 12, 0x5000, 0, MT_UNMOV, CS_C, 3));
	TEST_ASSERT_VAL("14", !thread_fallback(r, 14, CS_C, 0x4000, MT_UNMOV, MT_MOV, 9, 0) &&
			!thread_alloc(r, 14, 0x4000, 0, MT_UNMOV, CS_C, 3));
	TEST_ASSERT_VAL("15", !thread_fallback(r, 15, CS_C, 0x4400, MT_MOV, MT_UNMOV, 2, 0) &&
			!thread_alloc(r, 15, 0x4400, 0, MT_MOV, CS_C, 3));
	TEST_ASSERT_VAL("16", !thread_fallback(r, 16, CS_C, 0x6000, MT_RECL, MT_MOV, 3, 1) &&
			!thread_alloc(r, 16, 0x6001, 0, MT_RECL, CS_C, 4));
	TEST_ASSERT_VAL("17", !thread_fallback(r, 17, CS_B, 0x7000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_alloc(r, 17, 0x7000, 0, MT_UNMOV, CS_B, 2) &&
			!thread_alloc(r, 18, 0x7000, 0, MT_UNMOV, CS_B, 2));
	TEST_ASSERT_VAL("19", !thread_fallback(r, 19, CS_B, 0x8000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_fallback(r, 19, CS_B, 0x9000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_alloc(r, 19, 0x9000, 0, MT_UNMOV, CS_B, 2));
	/*
	 * A bulk allocation (CS_D) falls back and traces no allocation: its
	 * fallbacks are not thread 20's next allocation's, nor thread 21's.
	 */
	TEST_ASSERT_VAL("20", !thread_fallback(r, 20, CS_D, 0xa000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_alloc(r, 20, 0xa000, 0, MT_UNMOV, CS_A, 5));
	TEST_ASSERT_VAL("21", !thread_fallback(r, 21, CS_D, 0xb000, MT_UNMOV, MT_MOV, 2, 0) &&
			!thread_fallback(r, 21, CS_B, 0xb400, MT_MOV, MT_UNMOV, 2, 0) &&
			!thread_alloc(r, 21, 0xb400, 0, MT_MOV, CS_B, 5));
	return TEST_OK;
}

/* Pinning pages in each pageblock: 2 in 0x1000, 1 in 0x6000. */
static int check_pin_blocks(struct kmem_frag *kf)
{
	const struct kmem_frag_pageblock *pb;
	size_t i, nr;
	u64 pins = 0;

	pb = kmem_frag__pageblocks(kf, &nr);
	TEST_ASSERT_VAL("pageblocks", pb);
	for (i = 0; i < nr; i++) {
		u64 want = pb[i].pfn == 0x1000 ? 2 : pb[i].pfn == 0x6000;

		TEST_ASSERT_VAL("pinning of a pageblock", eq(pb[i].pinning, want));
		pins += pb[i].pinning;
	}
	TEST_ASSERT_VAL("pinning in all", eq(pins, 3));
	return TEST_OK;
}

/*
 * The fragmenting fallbacks each allocation took, by callsite, task and
 * type: CS_B of task 2 those of threads 11, 17 and 19 (two), none of 18;
 * CS_C of task 3 thread 12's, not the claimed one of 14; its Movable row
 * thread 15's.
 */
static int check_owed_rows(struct kmem_page *kp)
{
	struct kmem_page_row **rows;
	size_t i, nr, seen = 0;

	rows = kmem_page__rows(kp, KMEM_PAGE_TABLE_CALLER, NULL, 0, &nr);
	TEST_ASSERT_VAL("rows", rows);
	for (i = 0; i < nr; i++) {
		const struct kmem_page_row *row = rows[i];

		if (row->callsite == CS_B && row->task == 2) {
			TEST_ASSERT_VAL("CS_B", eq(row->hits, 4) &&
					eq(row->fragmenting, 4));
			seen++;
		} else if (row->callsite == CS_C && row->migtype == MT_UNMOV) {
			TEST_ASSERT_VAL("CS_C", eq(row->hits, 3) &&
					eq(row->fragmenting, 1));
			seen++;
		} else if (row->callsite == CS_C && row->migtype == MT_MOV) {
			TEST_ASSERT_VAL("CS_C Movable", eq(row->hits, 1) &&
					eq(row->fragmenting, 1));
			seen++;
		} else if (row->callsite == CS_A && row->task == 5) {
			TEST_ASSERT_VAL("after a bulk allocation", eq(row->hits, 1) &&
					eq(row->fragmenting, 0));
			seen++;
		} else if (row->callsite == CS_B && row->task == 5) {
			TEST_ASSERT_VAL("its own, not the bulk one's",
					eq(row->hits, 1) && eq(row->fragmenting, 1));
			seen++;
		}
	}
	TEST_ASSERT_VAL("the five rows", seen == 5);
	return TEST_OK;
}

static int check_pinning(struct pin_run *r)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(r->kf);
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	struct kmem_frag_pin_row **rows;
	int nr_keys, ret;
	size_t nr;

	ret = pin_events(r);
	if (ret != TEST_OK)
		return ret;
	kmem_page__finish(r->kp);
	TEST_ASSERT_VAL("walk", !kmem_page__walk_fallen(r->kp, add_pin, r->kf));
	TEST_ASSERT_VAL("finish", !kmem_frag__finish(r->kf));
	TEST_ASSERT_VAL("pages", count_is(&s->pinned.pages, 3, 4 * PS));
	TEST_ASSERT_VAL("two pages in one pageblock: 2 pinned",
			eq(s->pinned.pageblocks, 2));
	nr_keys = keys_of(KMEM_FRAG_PINNED, kmem_tables[KMEM_FRAG_PINNED].sort,
			  keys);
	TEST_ASSERT_VAL("keys", nr_keys == 2);
	rows = kmem_frag__pin_rows(r->kf, keys, nr_keys, &nr);
	TEST_ASSERT_VAL("a row per callsite and task", rows && eq(nr, 2));
	/* Tied on pageblocks: the larger bytes first. */
	TEST_ASSERT_VAL("task 1", rows[0]->callsite == CS_A &&
			rows[0]->task == 1 &&
			count_is(&rows[0]->pages, 2, 3 * PS) &&
			eq(rows[0]->pageblocks, 1));
	TEST_ASSERT_VAL("task 4", rows[1]->callsite == CS_C &&
			rows[1]->task == 4 &&
			count_is(&rows[1]->pages, 1, PS) &&
			eq(rows[1]->pageblocks, 1));
	TEST_ASSERT_VAL("too late", kmem_frag__add_pinning(r->kf, 0x1000, 0,
							   CS_A, 1) == -EBUSY);
	ret = check_pin_blocks(r->kf);
	return ret == TEST_OK ? check_owed_rows(r->kp) : ret;
}

static int test__kmem_frag_pinning(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_frag_config fc = { .page_size = PS, .pageblock_order = 9 };
	struct kmem_page_config pc = { .page_size = PS };
	struct pin_run r = {
		.kf = kmem_frag__new(&fc),
		.kp = kmem_page__new(&pc),
	};
	int ret = TEST_FAIL;

	if (r.kf && r.kp)
		ret = check_pinning(&r);
	kmem_frag__delete(r.kf);
	kmem_page__delete(r.kp);
	return ret;
}

#define EIGHT_KEYS \
	"claimed,converted,polluted,severe,callsite,mtype,fallback,bytes"

/* A key sorts by the field @member of @type, largest first or not. */
#define IS_KEY(k, type, member, desc) \
	((k).offset == offsetof(type, member) && (k).descending == (desc))
#define FALLBACK_KEY(k, member, desc) \
	IS_KEY(k, struct kmem_frag_row, member, desc)
#define FAILURE_KEY(k, member, desc) \
	IS_KEY(k, struct kmem_frag_fail_row, member, desc)

static int test__kmem_frag_parse_sort(struct test_suite *t __maybe_unused,
				      int subtest __maybe_unused)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];

	TEST_ASSERT_VAL("frag,hit",
			keys_of(KMEM_FRAG_CALLERS, "frag,hit", keys) == 2 &&
			FALLBACK_KEY(keys[0], fragmenting, true) &&
			FALLBACK_KEY(keys[1], fallbacks.nr, true));
	TEST_ASSERT_VAL("eight",
			keys_of(KMEM_FRAG_CALLERS, EIGHT_KEYS, keys) == 8 &&
			FALLBACK_KEY(keys[0], classes[KMEM_FRAG_CLAIMED], true) &&
			FALLBACK_KEY(keys[1], classes[KMEM_FRAG_CONVERTED], true) &&
			FALLBACK_KEY(keys[2], classes[KMEM_FRAG_POLLUTED], true) &&
			FALLBACK_KEY(keys[3], severe, true) &&
			FALLBACK_KEY(keys[4], callsite, false) &&
			FALLBACK_KEY(keys[5], alloc_migtype, false) &&
			FALLBACK_KEY(keys[6], fallback_migtype, false) &&
			FALLBACK_KEY(keys[7], fallbacks.bytes, true));
	TEST_ASSERT_VAL("order,gfp,migtype",
			keys_of(KMEM_FRAG_FAILURES, "order,gfp,migtype", keys) == 3 &&
			FAILURE_KEY(keys[0], order, true) &&
			FAILURE_KEY(keys[1], gfp, false) &&
			FAILURE_KEY(keys[2], migtype, false));
	TEST_ASSERT_VAL("unknown",
			keys_of(KMEM_FRAG_CALLERS, "frag,fragmenting", keys) == -EINVAL);
	TEST_ASSERT_VAL("no order in fallbacks",
			keys_of(KMEM_FRAG_CALLERS, "order", keys) == -EINVAL);
	TEST_ASSERT_VAL("too many",
			keys_of(KMEM_FRAG_CALLERS, "hit,bytes,frag,hit,bytes,frag,hit,bytes,frag",
				keys) == -E2BIG);
	return TEST_OK;
}

/* --- pageblocks ------------------------------------------------------------- */

/*
 * At pageblock order 9 (512 pages a block), by hand:
 *	block  pfn   allocations                      fallbacks
 *	0        0   U U
 *	1      512   M U                              polluted 1
 *	2     1024   R M(order 2)
 *	3     1536   M M M
 *	4,5   2048   M(order 10, both blocks)
 *	7     3584   -                                polluted 1
 *	8     4096   CMA U
 * Allocated into: 7; Unmovable 3, Reclaimable 1, Movable 5, Special 1;
 * mixed 3 (1, 2, 8); Unmovable or Reclaimable 4; fallback-only 1.
 */
static int check_pageblocks(struct kmem_frag *kf)
{
	static const struct {
		u64 pfn;
		u64 allocs[KMEM_NR_MIGTYPE_COLUMNS];	/* U R M S */
		u64 polluted;
	} want[] = {
		{ 0,	{ 2, 0, 0, 0 }, 0 },
		{ 512,	{ 1, 0, 1, 0 }, 1 },
		{ 1024,	{ 0, 1, 1, 0 }, 0 },
		{ 1536,	{ 0, 0, 3, 0 }, 0 },
		{ 2048,	{ 0, 0, 1, 0 }, 0 },
		{ 2560,	{ 0, 0, 1, 0 }, 0 },
		{ 3584,	{ 0, 0, 0, 0 }, 1 },
		{ 4096,	{ 1, 0, 0, 1 }, 0 },
	};
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	const struct kmem_frag_blocks *b = &s->blocks;
	const struct kmem_frag_pageblock *pb;
	size_t i, nr;
	int col;

	/* Out of pfn order, so that the result's order is the sort's. */
	TEST_ASSERT_VAL("a", !alloc(kf, 4097, 0, MT_UNMOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 5, 0, MT_UNMOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 6, 0, MT_UNMOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 512, 0, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 600, 0, MT_UNMOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 1030, 0, MT_RECL, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 1040, 2, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 1536, 0, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 1536, 0, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 1536, 0, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 2048, 10, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 4096, 0, MT_CMA, CS_A, 0));
	TEST_ASSERT_VAL("failure", !alloc(kf, KMEM_PAGE_NO_PFN, 0, MT_UNMOV, CS_A, 0));
	TEST_ASSERT_VAL("f", !fallback(kf, 600, CS_A, 0, 0, MT_UNMOV, MT_MOV, 0));
	TEST_ASSERT_VAL("f", !fallback(kf, 3600, CS_A, 0, 0, MT_UNMOV, MT_MOV, 0));
	TEST_ASSERT_VAL("finish", !kmem_frag__finish(kf));

	TEST_ASSERT_VAL("allocated", eq(b->allocated, 7));
	TEST_ASSERT_VAL("Unmovable", eq(b->by_column[KMEM_MIGTYPE_UNMOVABLE], 3));
	TEST_ASSERT_VAL("Reclaimable", eq(b->by_column[KMEM_MIGTYPE_RECLAIMABLE], 1));
	TEST_ASSERT_VAL("Movable", eq(b->by_column[KMEM_MIGTYPE_MOVABLE], 5));
	TEST_ASSERT_VAL("Special", eq(b->by_column[KMEM_MIGTYPE_SPECIAL], 1));
	TEST_ASSERT_VAL("mixed", eq(b->mixed, 3));
	TEST_ASSERT_VAL("U or R", eq(b->unmovable_or_reclaimable, 4));
	TEST_ASSERT_VAL("fallback only", eq(b->fallback_only, 1));
	TEST_ASSERT_VAL("bytes U", count_is(&s->alloc[KMEM_MIGTYPE_UNMOVABLE], 4, 4 * PS));
	TEST_ASSERT_VAL("bytes R", count_is(&s->alloc[KMEM_MIGTYPE_RECLAIMABLE], 1, PS));
	TEST_ASSERT_VAL("bytes M",
			count_is(&s->alloc[KMEM_MIGTYPE_MOVABLE], 6,
				 PS + 4 * PS + 3 * PS + 1024 * PS));
	TEST_ASSERT_VAL("bytes S", count_is(&s->alloc[KMEM_MIGTYPE_SPECIAL], 1, PS));

	pb = kmem_frag__pageblocks(kf, &nr);
	TEST_ASSERT_VAL("pageblocks", pb && eq(nr, ARRAY_SIZE(want)));
	for (i = 0; i < nr; i++) {
		pr_debug("pageblock %zu\n", i);
		TEST_ASSERT_VAL("pfn", eq(pb[i].pfn, want[i].pfn));
		for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
			TEST_ASSERT_VAL("allocs", eq(pb[i].allocs[col], want[i].allocs[col]));
		TEST_ASSERT_VAL("polluted",
				eq(pb[i].fallbacks[KMEM_FRAG_POLLUTED],
				   want[i].polluted));
		TEST_ASSERT_VAL("others",
				!pb[i].fallbacks[KMEM_FRAG_CLAIMED] &&
				!pb[i].fallbacks[KMEM_FRAG_CONVERTED]);
	}
	return TEST_OK;
}

/* arm64 64K: 8192 pages a block; a claim of order 13 is one block. */
static int check_pageblocks_13(struct kmem_frag *kf)
{
	const struct kmem_frag_pageblock *pb;
	size_t nr;

	TEST_ASSERT_VAL("a", !alloc(kf, 8191, 0, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("a", !alloc(kf, 8192, 0, MT_UNMOV, CS_A, 0));
	TEST_ASSERT_VAL("f", !fallback(kf, 8192, CS_A, 0, 13, MT_UNMOV, MT_MOV, 0));
	TEST_ASSERT_VAL("f", !fallback(kf, 16384, CS_A, 0, 12, MT_UNMOV, MT_MOV, 1));
	pb = kmem_frag__pageblocks(kf, &nr);
	TEST_ASSERT_VAL("three", pb && eq(nr, 3));
	TEST_ASSERT_VAL("0", eq(pb[0].pfn, 0) && eq(pb[0].allocs[KMEM_MIGTYPE_MOVABLE], 1));
	TEST_ASSERT_VAL("8192",
			eq(pb[1].pfn, 8192) &&
			eq(pb[1].allocs[KMEM_MIGTYPE_UNMOVABLE], 1) &&
			eq(pb[1].fallbacks[KMEM_FRAG_CLAIMED], 1));
	TEST_ASSERT_VAL("16384",
			eq(pb[2].pfn, 16384) &&
			eq(pb[2].fallbacks[KMEM_FRAG_CONVERTED], 1));
	TEST_ASSERT_VAL("bytes", eq(kmem_frag__summary(kf)->fallbacks.bytes, 2 * 65536));
	return TEST_OK;
}

static int test__kmem_frag_pageblocks(struct test_suite *t __maybe_unused,
				      int subtest __maybe_unused)
{
	struct kmem_frag_config config = { .page_size = PS, .pageblock_order = 9 };
	struct kmem_frag_config arm64 = { .page_size = 65536, .pageblock_order = 13 };
	int ret = with_kf(&config, check_pageblocks);

	return ret ? ret : with_kf(&arm64, check_pageblocks_13);
}

/* Pfns that are struct page addresses: classes, but no pageblocks. */
static int check_no_pfns(struct kmem_frag *kf)
{
	size_t nr;

	TEST_ASSERT_VAL("a", !alloc(kf, 0xffffea0000001000ULL, 0, MT_MOV, CS_A, 0));
	TEST_ASSERT_VAL("f",
			!fallback(kf, 0xffffea0000001000ULL, CS_A, 0, 0,
			MT_UNMOV, MT_MOV, 0));
	TEST_ASSERT_VAL("classes", kmem_frag__has_classes(kf));
	TEST_ASSERT_VAL("polluted", eq(kmem_frag__summary(kf)->classes[2].nr, 1));
	TEST_ASSERT_VAL("no pageblocks", !kmem_frag__pageblocks(kf, &nr) && !nr);
	return TEST_OK;
}

static int test__kmem_frag_no_pfns(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_frag_config config = {
		.page_size = PS, .pageblock_order = 9, .no_pfns = true,
	};

	return with_kf(&config, check_no_pfns);
}

/* --- failures ----------------------------------------------------------------- */

#define GFP_THP		0x140cca	/* a THP fault's, __GFP_NORETRY */

static int check_failures(struct kmem_frag *kf)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	struct kmem_frag_fail_row **rows;
	size_t nr;
	int i;

	for (i = 0; i < 3; i++)
		TEST_ASSERT_VAL("thp", !alloc(kf, KMEM_PAGE_NO_PFN, 9, MT_MOV, CS_A, GFP_THP));
	TEST_ASSERT_VAL("thp other gfp", !alloc(kf, KMEM_PAGE_NO_PFN, 9, MT_MOV, CS_A, 0x1));
	TEST_ASSERT_VAL("b", !alloc(kf, KMEM_PAGE_NO_PFN, 0, MT_UNMOV, CS_B, 0xcc0));
	TEST_ASSERT_VAL("b", !alloc(kf, KMEM_PAGE_NO_PFN, 0, MT_UNMOV, CS_B, 0xcc0));
	/* Successes are no failures. */
	TEST_ASSERT_VAL("ok", !alloc(kf, 7, 9, MT_MOV, CS_A, GFP_THP));

	TEST_ASSERT_VAL("fail", count_is(&s->fail, 6, 4 * (PS << 9) + 2 * PS));
	rows = shown_fails(kf, &nr);
	TEST_ASSERT_VAL("rows", rows && eq(nr, 3));
	TEST_ASSERT_VAL("1st",
			eq(rows[0]->callsite, CS_A) && eq(rows[0]->gfp, GFP_THP) &&
			eq(rows[0]->order, 9) && eq(rows[0]->migtype, MT_MOV) &&
			count_is(&rows[0]->asked, 3, 3 * (PS << 9)));
	TEST_ASSERT_VAL("2nd",
			eq(rows[1]->callsite, CS_B) && eq(rows[1]->order, 0) &&
			count_is(&rows[1]->asked, 2, 2 * PS));
	TEST_ASSERT_VAL("3rd", eq(rows[2]->gfp, 1) && count_is(&rows[2]->asked, 1, PS << 9));
	rows = kmem_frag__fail_rows(kf, keys,
				    keys_of(KMEM_FRAG_FAILURES, "bytes", keys), &nr);
	TEST_ASSERT_VAL("by bytes",
			rows && eq(nr, 3) && eq(rows[0]->gfp, GFP_THP) &&
			eq(rows[1]->gfp, 1) && eq(rows[2]->callsite, CS_B));
	TEST_ASSERT_VAL("allocs", count_is(&s->alloc[KMEM_MIGTYPE_MOVABLE], 1, PS << 9));
	return TEST_OK;
}

static int test__kmem_frag_failures(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	struct kmem_frag_config config = { .page_size = PS, .pageblock_order = 9 };

	return with_kf(&config, check_failures);
}

/* --- a random stream against a model ---------------------------------------- */

#define RND_EVENTS	30000
#define RND_PBO		4		/* small blocks: many, and mixed */
#define RND_BLOCKS	256
#define RND_PFNS	(RND_BLOCKS << RND_PBO)
#define RND_MAX_ORDER	6		/* up to 4 blocks */
#define RND_MIGTYPES	6
#define RND_CALLSITES	3

/* Columns by hand: 0 Unmovable, 1 Movable, 2 Reclaimable, others Special. */
static const int model_col[RND_MIGTYPES] = { 0, 2, 1, 3, 3, 3 };

struct model {
	struct kmem_count	fallbacks, classes[3], severe, fail;
	struct kmem_count	alloc[KMEM_NR_MIGTYPE_COLUMNS];
	u64			cells[KMEM_NR_MIGTYPE_COLUMNS][KMEM_NR_MIGTYPE_COLUMNS][3];
	u64			block_allocs[RND_BLOCKS][KMEM_NR_MIGTYPE_COLUMNS];
	u64			block_fallbacks[RND_BLOCKS][3];
	u64			row_frag[RND_CALLSITES];
	u64			fail_nr[RND_CALLSITES][RND_MAX_ORDER + 1][RND_MIGTYPES];
};

/* The blocks a block of 1 << @order pages at @pfn covers, as the model sees it. */
static void model_blocks(u64 pfn, int order, u64 *first, u64 *n)
{
	*first = pfn / (1 << RND_PBO);
	*n = order > RND_PBO ? 1ULL << (order - RND_PBO) : 1;
}

static void model_fallback(struct model *m, u64 pfn, int cs, int ao, int fo,
			   int amt, int fmt, int co)
{
	int cls = fo >= RND_PBO ? 0 : co ? 1 : 2;
	u64 bytes = PS << ao, first, n, i;

	kmem_count__add(&m->fallbacks, bytes);
	kmem_count__add(&m->classes[cls], bytes);
	if (fo <= 3)
		kmem_count__add(&m->severe, bytes);
	m->cells[model_col[amt]][model_col[fmt]][cls]++;
	model_blocks(pfn, fo, &first, &n);
	for (i = 0; i < n; i++)
		m->block_fallbacks[first + i][cls]++;
	if (cls)
		m->row_frag[cs]++;
}

static void model_alloc(struct model *m, u64 pfn, int cs, int order, int mt)
{
	u64 first, n, i;

	if (pfn == KMEM_PAGE_NO_PFN) {
		kmem_count__add(&m->fail, PS << order);
		m->fail_nr[cs][order][mt]++;
		return;
	}
	kmem_count__add(&m->alloc[model_col[mt]], PS << order);
	model_blocks(pfn, order, &first, &n);
	for (i = 0; i < n; i++)
		m->block_allocs[first + i][model_col[mt]]++;
}

static int feed_random(struct kmem_frag *kf, struct model *m)
{
	static const u64 callsites[RND_CALLSITES] = { CS_A, CS_B, CS_C };
	u64 state = 0x9e3779b97f4a7c15ULL;
	int i;

	for (i = 0; i < RND_EVENTS; i++) {
		u64 r = kmem_test__rand(&state);
		int cs = (r >> 8) % RND_CALLSITES;
		int order = (r >> 12) % (RND_MAX_ORDER + 1);
		/* Aligned to the order, as the buddy allocator's. */
		u64 pfn = ((r >> 24) % RND_PFNS) & ~((1ULL << order) - 1);
		/*
		 * Mostly one type to an aligned run of 4 blocks, which the
		 * largest order spans, so that some blocks stay unmixed.
		 */
		int mt = (r >> 16) % 64 ? (pfn >> (RND_PBO + 2)) % 3 :
					  (r >> 22) % RND_MIGTYPES;

		if (r % 3 == 0) {
			int fo = order + (r >> 40) % (RND_MAX_ORDER + 1 - order);
			int fmt = (r >> 44) % RND_MIGTYPES, co = (r >> 48) & 1;

			pfn &= ~((1ULL << fo) - 1);
			model_fallback(m, pfn, cs, order, fo, mt, fmt, co);
			if (fallback(kf, pfn, callsites[cs], order, fo, mt, fmt, co))
				return TEST_FAIL;
		} else {
			if (r % 17 == 1)
				pfn = KMEM_PAGE_NO_PFN;
			model_alloc(m, pfn, cs, order, mt);
			if (alloc(kf, pfn, order, mt, callsites[cs], 0xcc0))
				return TEST_FAIL;
		}
	}
	return kmem_frag__finish(kf) ? TEST_FAIL : TEST_OK;
}

static int check_random_blocks(struct kmem_frag *kf, struct model *m)
{
	const struct kmem_frag_blocks *b = &kmem_frag__summary(kf)->blocks;
	const struct kmem_frag_pageblock *pb;
	u64 allocated = 0, mixed = 0, fb_only = 0;
	size_t i, nr, k = 0;
	int c;

	pb = kmem_frag__pageblocks(kf, &nr);
	for (i = 0; i < RND_BLOCKS; i++) {
		int cols = 0, touched;

		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
			cols += !!m->block_allocs[i][c];
		touched = cols || m->block_fallbacks[i][0] ||
			  m->block_fallbacks[i][1] || m->block_fallbacks[i][2];
		allocated += !!cols;
		mixed += cols > 1;
		fb_only += touched && !cols;
		if (!touched)
			continue;
		TEST_ASSERT_VAL("a pageblock for each touched", k < nr);
		TEST_ASSERT_VAL("pfn", eq(pb[k].pfn, i << RND_PBO));
		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
			TEST_ASSERT_VAL("allocs", eq(pb[k].allocs[c], m->block_allocs[i][c]));
		for (c = 0; c < 3; c++)
			TEST_ASSERT_VAL("fallbacks",
					eq(pb[k].fallbacks[c], m->block_fallbacks[i][c]));
		k++;
	}
	TEST_ASSERT_VAL("no other pageblock", eq(nr, k));
	TEST_ASSERT_VAL("allocated", eq(b->allocated, allocated));
	TEST_ASSERT_VAL("mixed", eq(b->mixed, mixed));
	TEST_ASSERT_VAL("fallback only", eq(b->fallback_only, fb_only));
	pr_debug("%" PRIu64 " of %" PRIu64 " pageblocks mixed\n", mixed, allocated);
	TEST_ASSERT_VAL("stream mixes", mixed > 10 && mixed + 10 < allocated);
	return TEST_OK;
}

static int check_random(struct kmem_frag *kf)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	struct model *m = zalloc(sizeof(*m));
	struct kmem_frag_fail_row **fails;
	size_t i, nr;
	int r, c, k, ret = TEST_FAIL;

	if (!m || feed_random(kf, m))
		goto out;
	if (!count_is(&s->fallbacks, m->fallbacks.nr, m->fallbacks.bytes) ||
	    !count_is(&s->severe, m->severe.nr, m->severe.bytes) ||
	    !count_is(&s->fail, m->fail.nr, m->fail.bytes))
		goto out;
	for (k = 0; k < 3; k++)
		if (!count_is(&s->classes[k], m->classes[k].nr, m->classes[k].bytes) ||
		    m->classes[k].nr < 100)
			goto out;
	for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
		if (!count_is(&s->alloc[c], m->alloc[c].nr, m->alloc[c].bytes))
			goto out;
	for (r = 0; r < KMEM_NR_MIGTYPE_COLUMNS; r++)
		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
			for (k = 0; k < 3; k++)
				if (!eq(kmem_frag__cell(kf, r, c)->classes[k],
					m->cells[r][c][k]))
					goto out;
	for (i = 0; i < RND_CALLSITES; i++)
		if (!eq(kmem_frag__callsite_fragmenting(kf, CS_A + i * (CS_B - CS_A)),
			m->row_frag[i]))
			goto out;
	fails = shown_fails(kf, &nr);
	for (i = 0; fails && i < nr; i++) {
		const struct kmem_frag_fail_row *row = fails[i];

		if (!eq(row->asked.nr,
			m->fail_nr[(row->callsite - CS_A) / (CS_B - CS_A)]
				  [row->order][row->migtype]) ||
		    (i && fails[i - 1]->asked.nr < row->asked.nr))
			goto out;
	}
	ret = check_random_blocks(kf, m);
out:
	free(m);
	return ret;
}

static int test__kmem_frag_random(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_frag_config config = {
		.page_size = PS, .pageblock_order = RND_PBO,
	};

	return with_kf(&config, check_random);
}

/* --- callsites ---------------------------------------------------------------- */

/*
 * Where kmem:mm_page_alloc_extfrag fires: the buddy allocator's insides,
 * then the entry points, then the callsite.  The first frames of real
 * callchains on v6.18, and the names of earlier kernels.
 */
static const char * const extfrag_frames[] = {
	"__rmqueue_pcplist", "get_page_from_freelist", "rmqueue_bulk",
	"rmqueue", "rmqueue.constprop.0", "rmqueue_buddy", "__rmqueue",
	"__rmqueue_smallest", "__rmqueue_claim", "__rmqueue_steal",
	"try_to_claim_block", "__rmqueue_fallback", "steal_suitable_fallback",
	"__rmqueue_cma_fallback", "__alloc_pages_slowpath.constprop.0",
	"__alloc_pages_direct_compact", "__alloc_pages_direct_reclaim",
	"__alloc_pages_cpuset_fallback", "__alloc_pages_may_oom",
	"alloc_pages_bulk_noprof", "__alloc_frozen_pages_noprof", NULL,
};

/* The callsites of the same callchains. */
static const char * const extfrag_callers[] = {
	"anon_pipe_write", "pte_alloc_one", "__pmd_alloc", "pgd_alloc",
	"__vmalloc_node_range_noprof", "copy_process", "allocate_slab",
	"__filemap_get_folio", "vma_alloc_anon_folio_pmd", "rmqueue_stats",
	"my_get_page_from_freelist", NULL,
};

static int test__kmem_frag_callsites(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	struct callsite_resolver *r;
	const char * const *name;
	char err[128];
	int bad = 0;

	r = callsite_resolver__new(NULL, NULL, false, false, err, sizeof(err));
	TEST_ASSERT_VAL("resolver", r);
	for (name = extfrag_frames; *name; name++) {
		if (!callsite_resolver__is_alloc_func(r, *name)) {
			pr_debug("%s: not an allocator frame\n", *name);
			bad++;
		}
	}
	for (name = extfrag_callers; *name; name++) {
		if (callsite_resolver__is_alloc_func(r, *name)) {
			pr_debug("%s: taken for an allocator frame\n", *name);
			bad++;
		}
	}
	callsite_resolver__delete(r);
	TEST_ASSERT_VAL("every frame classified right", !bad);
	return TEST_OK;
}

#ifdef HAVE_LIBTRACEEVENT
/* --- pageblock_order from print formats --------------------------------------- */

#define EXTFRAG_HEAD \
	"name: mm_page_alloc_extfrag\n" \
	"ID: 650\n" \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:int alloc_order;\toffset:16;\tsize:4;\tsigned:1;\n" \
	"\tfield:int fallback_order;\toffset:20;\tsize:4;\tsigned:1;\n" \
	"\tfield:int alloc_migratetype;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int fallback_migratetype;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:int change_ownership;\toffset:32;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"print fmt: \"page=%p pfn=0x%lx alloc_order=%d fallback_order=%d " \
	"pageblock_order=%d alloc_migratetype=%d fallback_migratetype=%d " \
	"fragmenting=%d change_ownership=%d\", "

/* The print format of v6.12's TP_printk, pfn_to_page() and pageblock_order expanded. */
#define EXTFRAG(page, pageblock_order) \
	EXTFRAG_HEAD page ", REC->pfn, REC->alloc_order, REC->fallback_order, " \
	pageblock_order ", REC->alloc_migratetype, REC->fallback_migratetype, " \
	"REC->fallback_order < " pageblock_order ", REC->change_ownership\n"

#define X86_PAGE	"(((struct page *)vmemmap_base) + (REC->pfn))"

/* MIN_T(unsigned int, a, b) as v6.12 spells it out. */
#define MIN_T_UINT(a, b) \
	"(((unsigned int)(" a ")) < ((unsigned int)(" b ")) ? " \
	"((unsigned int)(" a ")) : ((unsigned int)(" b ")))"

/* CONFIG_HUGETLB_PAGE: HUGETLB_PAGE_ORDER is (HPAGE_SHIFT - PAGE_SHIFT). */
#define X86_HUGETLB	EXTFRAG(X86_PAGE, MIN_T_UINT("(21 - 12)", "10"))
/* Only CONFIG_TRANSPARENT_HUGEPAGE: HPAGE_PMD_ORDER, (HPAGE_PMD_SHIFT-PAGE_SHIFT). */
#define X86_THP		EXTFRAG(X86_PAGE, MIN_T_UINT("(21-12)", "10"))
/* Neither: MAX_PAGE_ORDER. */
#define X86_PLAIN	EXTFRAG(X86_PAGE, "10")

/*
 * arm64: vmemmap is (struct page *)VMEMMAP_START less memstart_addr's pfn,
 * with sizeof(struct page) in VMEMMAP_SIZE; PMD_SHIFT is
 * ARM64_HW_PGTABLE_LEVEL_SHIFT(2), ((PAGE_SHIFT - 3) * (4 - (2)) + 3);
 * MAX_PAGE_ORDER is CONFIG_ARCH_FORCE_MAX_ORDER: 10, 11 or 13.
 */
#define ARM64_PAGE(shift, va) \
	"(((struct page *)((-(((0x40000000UL)))) - ((((-((((1UL))) << ((((" va \
	"))) - 1))) - ((-((((1UL))) << ((" va ")))))) >> " shift \
	") * sizeof(struct page))) - (memstart_addr >> " shift ")) + (REC->pfn))"
#define ARM64_ORDER(shift, max) \
	MIN_T_UINT("(((" shift " - 3) * (4 - (2)) + 3) - " shift ")", max)
#define ARM64_4K	EXTFRAG(ARM64_PAGE("12", "48"), ARM64_ORDER("12", "10"))
#define ARM64_16K	EXTFRAG(ARM64_PAGE("14", "48"), ARM64_ORDER("14", "11"))
#define ARM64_64K	EXTFRAG(ARM64_PAGE("16", "52"), ARM64_ORDER("16", "13"))

/* 32-bit arm before v6.4 without huge pages: MAX_ORDER - 1. */
#define ARM_OLD \
	EXTFRAG("(mem_map + ((REC->pfn) - (__pv_phys_pfn_offset)))", "(12-1)")

/* min_t() of v6.1 or so: a statement expression, which no one evaluates. */
#define X86_MIN_T \
	EXTFRAG(X86_PAGE, "({ unsigned int __x = ((21 - 12)); " \
		"unsigned int __y = (10); __x < __y ? __x : __y; })")

/* A format without pageblock_order. */
#define NO_PAGEBLOCK \
	"name: mm_page_alloc\nID: 1\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n" \
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n\n" \
	"print fmt: \"order=%d\", REC->order\n"

/* pageblock_order read from a field. */
#define FROM_FIELD	EXTFRAG(X86_PAGE, "REC->alloc_order")

static const struct format_case {
	const char	*name, *text;
	int		order;
} format_cases[] = {
	{ "x86-64 hugetlb",	X86_HUGETLB,	9 },
	{ "x86-64 THP only",	X86_THP,	9 },
	{ "x86-64 no huge pages", X86_PLAIN,	10 },
	{ "arm64 4K",		ARM64_4K,	9 },
	{ "arm64 16K",		ARM64_16K,	11 },
	{ "arm64 64K",		ARM64_64K,	13 },
	{ "arm before v6.4",	ARM_OLD,	11 },
	{ "statement expression", X86_MIN_T,	-EINVAL },
	{ "no pageblock_order",	NO_PAGEBLOCK,	-ENOENT },
	{ "a field",		FROM_FIELD,	-EINVAL },
};

static int test__kmem_frag_formats(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(format_cases); i++) {
		const struct format_case *c = &format_cases[i];
		char why[256] = "";
		int order;

		order = kmem_pageblock__order_of_format(c->text, strlen(c->text),
							8, why, sizeof(why));
		pr_debug("%s: %d (%s)\n", c->name, order, why);
		TEST_ASSERT_VAL("order from the text", order == c->order);
		TEST_ASSERT_VAL("a reason for no order", order >= 0 || why[0]);
	}
	return TEST_OK;
}

static const struct expr_case {
	const char	*expr;
	long long	value;
	int		err;
} expr_cases[] = {
	{ "9", 9, 0 },
	{ "(12-1)", 11, 0 },
	{ "9 * (4 - (2))", 18, 0 },		/* libtraceevent: 34 */
	{ "(signed char)-1 + 10", 9, 0 },	/* libtraceevent: -11 */
	{ "(unsigned char)-(-11)", 11, 0 },
	{ "2 + 3 * 4 - 6 / 2 % 2", 13, 0 },
	{ "(unsigned int)-1 < 10", 0, 0 },
	{ "-1 < 10U", 0, 0 },
	{ "-1L < 10U", 1, 0 },			/* long holds every unsigned int */
	{ "0xffffffff == -1", 1, 0 },		/* unsigned int */
	{ "4294967295 == -1", 0, 0 },		/* decimal: long */
	{ "-2147483648 < 0", 1, 0 },
	{ "(char)300", 44, 0 },			/* -funsigned-char */
	{ "(signed char)200", -56, 0 },
	{ "(unsigned char)-1 >> 4", 15, 0 },
	{ "(u8)257 + (s16)65535", 0, 0 },
	{ "(bool)5 + (_Bool)0", 1, 0 },
	{ "(unsigned long long)1 << 40 >> 36", 16, 0 },
	{ "1L << 40 >> 36", 16, 0 },
	{ "-16 >> 2", -4, 0 },
	{ "~0U >> 28", 15, 0 },
	{ "!0 + !5 + (3 ^ 1) + (6 & 3) + (4 | 1)", 10, 0 },
	{ "(2 < 2) + (2 <= 2) * 2 + (2 > 2) * 4 + (2 >= 2) * 8 + (2 == 2) * 16 + (2 != 2) * 32",
	  26, 0 },
	{ "1 ? 2 : 3", 2, 0 },
	{ "0 ? 2 : 0 ? 3 : 4", 4, 0 },
	{ "(3 > 2) && (1 || 0)", 1, 0 },
	{ "0 ? 1 / 0 : 7", 7, 0 },		/* not evaluated, as in C */
	{ "1 || 1 / 0", 1, 0 },
	{ "0 && 1 << 99", 0, 0 },
	{ "1 ? -1 : 0U", 4294967295LL, 0 },	/* the type of both branches */
	{ "sizeof(long) + sizeof(unsigned short)", 10, 0 },
	{ "07 + 0x10 + 1u + 2UL + 3llu", 29, 0 },
	{ "1 / 0", 0, -EINVAL },
	{ "1 << 32", 0, -EINVAL },
	{ "1 << -1", 0, -EINVAL },
	{ "(-9223372036854775807L - 1) / -1", 0, -EINVAL },
	{ "0 && x", 0, -EINVAL },		/* not a constant, evaluated or not */
	{ "pageblock_order", 0, -EINVAL },	/* powerpc: a variable */
	{ "REC->pfn", 0, -EINVAL },
	{ "(struct page *)9", 0, -EINVAL },
	{ "sizeof(struct page)", 0, -EINVAL },
	{ "08", 0, -EINVAL },
	{ "99999999999999999999", 0, -EINVAL },
	{ "1 +", 0, -EINVAL },
	{ "(1", 0, -EINVAL },
	{ "1 2", 0, -EINVAL },
	{ "1 @ 2", 0, -EINVAL },
	{ "1 ? 2", 0, -EINVAL },
	{ "min(1, 2)", 0, -EINVAL },
	{ "", 0, -EINVAL },
};

static int test__kmem_frag_expressions(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	char deep[3 * 100 + 2], why[128];
	long long v;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(expr_cases); i++) {
		const struct expr_case *c = &expr_cases[i];

		v = 0;
		why[0] = '\0';
		err = kmem_pageblock__eval(c->expr, strlen(c->expr), 8, &v,
					   why, sizeof(why));
		pr_debug("'%s': %d %lld (%s)\n", c->expr, err, v, why);
		TEST_ASSERT_VAL("error", err == c->err);
		TEST_ASSERT_VAL("value", err || v == c->value);
		TEST_ASSERT_VAL("reason", !err || why[0]);
	}
	/* A 32-bit kernel's long. */
	TEST_ASSERT_VAL("long of 4",
			!kmem_pageblock__eval("-1L < 10U", 9, 4, &v, why,
					      sizeof(why)) && v == 0);
	/* Nested beyond any macro: refused, not a stack overflow. */
	memset(deep, '(', 100);
	deep[100] = '1';
	memset(deep + 101, ')', 100);
	deep[201] = '\0';
	TEST_ASSERT_VAL("too deep",
			kmem_pageblock__eval(deep, strlen(deep), 8, &v, why,
					     sizeof(why)) == -EINVAL);
	return TEST_OK;
}

#define EXTFRAG_FORMAT \
	"page=%p pfn=0x%lx alloc_order=%d fallback_order=%d pageblock_order=%d x=%d"

/* A format whose print fmt is @fmt, each argument its own index. */
#define PRINT_FMT(fmt)	"name: x\nprint fmt: \"" fmt "\", 0, 1, 2, 3, 4, 5, 6\n"

static const struct format_case arg_cases[] = {
	{ "extfrag",	PRINT_FMT(EXTFRAG_FORMAT),	4 },
	{ "%% and %pS",	PRINT_FMT("a=%% b=%pS c=%pISpc pageblock_order=%u"), 2 },
	{ "* width",	PRINT_FMT("a=%*d b=%-*.*s pageblock_order=%d"), 5 },
	{ "whole word",	PRINT_FMT("max_pageblock_order=%d pageblock_order=%d"), 1 },
	{ "not %%",	PRINT_FMT("pageblock_order=%%d"), -ENOENT },
	{ "absent",	PRINT_FMT("order=%d"), -ENOENT },
};

/* The argument printed as pageblock_order=, found by the conversions before it. */
static int test__kmem_frag_arg_index(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	char why[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arg_cases); i++) {
		const struct format_case *c = &arg_cases[i];

		pr_debug("%s\n", c->name);
		TEST_ASSERT_VAL(c->name,
				kmem_pageblock__order_of_format(c->text, strlen(c->text), 8,
								why, sizeof(why)) ==
				c->order);
	}
	return TEST_OK;
}

/* --- format files in tracing data ---------------------------------------------- */

struct blob {
	u8	buf[16384];
	size_t	len;
	bool	big_endian;
};

static void put(struct blob *b, const void *p, size_t n)
{
	if (b->len + n <= sizeof(b->buf))
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void put_num(struct blob *b, u64 v, int size)
{
	u8 bytes[8];
	int i;

	for (i = 0; i < size; i++)
		bytes[b->big_endian ? size - 1 - i : i] = v >> (8 * i);
	put(b, bytes, size);
}

static void put_block(struct blob *b, const char *s)
{
	put_num(b, strlen(s), 8);
	put(b, s, strlen(s));
}

#define SCHED_EXTFRAG	"name: mm_page_alloc_extfrag\nID: 3\n"

/* Tracing data as perf record writes it (util/trace-event-info.c). */
static void make_tracing_data(struct blob *b, bool big_endian)
{
	static const u8 magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	u8 endian = big_endian, long_size = 8;

	b->len = 0;
	b->big_endian = big_endian;
	put(b, magic, sizeof(magic));
	put(b, "0.6", 4);
	put(b, &endian, 1);
	put(b, &long_size, 1);
	put_num(b, 4096, 4);
	put(b, "header_page", 12);
	put_block(b, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n");
	put(b, "header_event", 13);
	put_block(b, "# compressed entry header\n");
	put_num(b, 1, 4);				/* ftrace formats */
	put_block(b, "name: function\nID: 1\n");
	put_num(b, 2, 4);				/* systems */
	put(b, "sched", 6);
	put_num(b, 1, 4);
	put_block(b, SCHED_EXTFRAG);			/* not kmem's */
	put(b, "kmem", 5);
	put_num(b, 2, 4);
	put_block(b, NO_PAGEBLOCK);
	put_block(b, X86_HUGETLB);
	put_num(b, 0, 4);				/* kallsyms */
	put_num(b, 0, 4);				/* printk formats */
	put_num(b, 0, 8);				/* saved cmdlines */
}

/* perf's reader of @len bytes of @b, as a perf.data's tracing data. */
static int report_tracing_data(const struct blob *b, size_t len,
			       struct trace_event *tevent)
{
	int fd = memfd_create("kmem-frag-test", 0);
	ssize_t ret = -1;

	if (fd < 0)
		return -1;
	if (write(fd, b->buf, len) == (ssize_t)len && !lseek(fd, 0, SEEK_SET))
		ret = trace_report(fd, tevent, false);
	close(fd);
	return ret < 0 ? -1 : 0;
}

/* The text perf keeps of the format of sys:name, or NULL. */
static const char *kept_format(const struct trace_event *tevent,
			       const char *sys, const char *name,
			       unsigned long *len)
{
	struct tep_event *event = tep_find_event_by_name(tevent->pevent, sys,
							 name);

	return event ? trace_event__format(tevent, event, len) : NULL;
}

/* Each event's format as the tracing data has it, kept by perf's reader. */
static int kept_formats(const struct blob *b)
{
	struct trace_event tevent = { .pevent = NULL };
	const char *text;
	unsigned long len;
	char why[128];
	int ok;

	if (report_tracing_data(b, b->len, &tevent))
		return TEST_FAIL;
	text = kept_format(&tevent, "kmem", "mm_page_alloc_extfrag", &len);
	ok = text && len == strlen(X86_HUGETLB) && !memcmp(text, X86_HUGETLB, len) &&
	     tep_get_long_size(tevent.pevent) == 8 &&
	     kmem_pageblock__order_of_format(text, len, 8, why, sizeof(why)) == 9;
	text = kept_format(&tevent, "sched", "mm_page_alloc_extfrag", &len);
	ok = ok && text && len == strlen(SCHED_EXTFRAG) &&
	     !memcmp(text, SCHED_EXTFRAG, len);
	ok = ok && !kept_format(&tevent, "kmem", "mm_page_free", &len);
	trace_event__cleanup(&tevent);
	return ok ? TEST_OK : TEST_FAIL;
}

static int test__kmem_frag_tracing_data(struct test_suite *t __maybe_unused,
					int subtest __maybe_unused)
{
	struct trace_event tevent = { .pevent = NULL };
	struct blob *b = zalloc(sizeof(*b));
	int endian, ret = TEST_FAIL;

	if (!b)
		return TEST_FAIL;
	for (endian = 0; endian < 2; endian++) {
		make_tracing_data(b, endian);
		if (b->len > sizeof(b->buf) || kept_formats(b) != TEST_OK)
			goto out;
		/* Cut short inside the extfrag format: nothing is kept. */
		if (!report_tracing_data(b, b->len - 60, &tevent) || tevent.pevent ||
		    tevent.formats)
			goto out;
	}
	b->buf[3] = 'T';
	if (report_tracing_data(b, b->len, &tevent))
		ret = TEST_OK;
out:
	free(b);
	return ret;
}

/* The running kernel's format against the order it states in /proc/pagetypeinfo. */
static int test__kmem_frag_running_kernel(struct test_suite *t __maybe_unused,
					  int subtest __maybe_unused)
{
	static const char * const paths[] = {
		"/sys/kernel/tracing/events/kmem/mm_page_alloc_extfrag/format",
		"/sys/kernel/debug/tracing/events/kmem/mm_page_alloc_extfrag/format",
	};
	char text[8192], line[256], why[128];
	int stated = -1, order;
	size_t i, len = 0;
	FILE *f;

	f = fopen("/proc/pagetypeinfo", "r");
	if (!f)
		return TEST_SKIP;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Page block order: %d", &stated) == 1)
			break;
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(paths) && !len; i++) {
		f = fopen(paths[i], "r");
		if (!f)
			continue;
		len = fread(text, 1, sizeof(text), f);
		fclose(f);
	}
	if (stated < 0 || !len || len == sizeof(text))
		return TEST_SKIP;
	order = kmem_pageblock__order_of_format(text, len, sizeof(long), why,
						sizeof(why));
	pr_debug("pageblock_order %d (%s), /proc/pagetypeinfo says %d\n", order,
		 why, stated);
	TEST_ASSERT_VAL("the kernel's own", order == stated);
	return TEST_OK;
}
#endif /* HAVE_LIBTRACEEVENT */

static struct test_case kmem_frag_tests[] = {
	TEST_CASE("kmem frag: classes at pageblock orders 9, 10, 13", kmem_frag_classes),
	TEST_CASE("kmem frag: pageblock order unknown", kmem_frag_unknown_order),
	TEST_CASE("kmem frag: events that cannot be real", kmem_frag_refused),
	TEST_CASE("kmem frag: requested x fallback matrix", kmem_frag_matrix),
	TEST_CASE("kmem frag: fallback table and its sorting", kmem_frag_rows),
	TEST_CASE("kmem frag: fallback table by task", kmem_frag_task_rows),
	TEST_CASE("kmem frag: pages fallen back that stay, by task", kmem_frag_pinning),
	TEST_CASE("kmem frag: sort key parsing", kmem_frag_parse_sort),
	TEST_CASE("kmem frag: mixed pageblocks", kmem_frag_pageblocks),
	TEST_CASE("kmem frag: struct page addresses, no pageblocks", kmem_frag_no_pfns),
	TEST_CASE("kmem frag: failure table", kmem_frag_failures),
	TEST_CASE("kmem frag: random stream against a model", kmem_frag_random),
	TEST_CASE("kmem frag: allocator insides of extfrag callchains", kmem_frag_callsites),
#ifdef HAVE_LIBTRACEEVENT
	TEST_CASE("kmem frag: pageblock_order of x86-64, arm64, arm formats", kmem_frag_formats),
	TEST_CASE("kmem frag: C constant expressions", kmem_frag_expressions),
	TEST_CASE("kmem frag: the argument of pageblock_order=", kmem_frag_arg_index),
	TEST_CASE("kmem frag: the format texts perf keeps of tracing data", kmem_frag_tracing_data),
	TEST_CASE("kmem frag: the running kernel's pageblock_order", kmem_frag_running_kernel),
#endif
	{ .name = NULL, }
};

struct test_suite suite__kmem_frag = {
	.desc = "perf kmem fragmentation analysis",
	.test_cases = kmem_frag_tests,
};
