// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of perf kmem diff's engine (util/kmem/report-diff.c), of the
 * JSON writer's visitor that feeds it (util/kmem/json.c) and of the reader
 * of saved documents (util/kmem/read-json.c): documents made up here,
 * their pairs worked out by hand.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include "debug.h"
#include "tests.h"
#include "util/kmem/json.h"
#include "util/kmem/read-json.h"
#include "util/kmem/report-diff.h"

/* A table like perf kmem stat's page callers, and one of caches. */
static const char * const caller_ident[] = {
	"callsite.name|callsite.address", "order", "gfp.names|gfp.value", NULL,
};

static const char * const caller_ignore[] = { "migration_type.value", NULL };
static const char * const cache_ident[] = { "cache", NULL };

static const struct kmem_diff_table_spec specs[] = {
	{ .name = "callers", .rows = "page.callers.rows",
	  .present = "page.callers.nr_rows", .identity = caller_ident,
	  .ignore = caller_ignore, },
	{ .name = "caches", .rows = "slab.caches.rows",
	  .present = "slab.caches.nr_rows", .identity = cache_ident, },
};

static const char * const ignore[] = { "schema", "page.columns", NULL };

static const struct kmem_diff_config config = {
	.tables = specs,
	.nr_tables = ARRAY_SIZE(specs),
	.ignore = ignore,
};

static int num(struct kmem_diff *d, int side, const char *path, u64 v)
{
	struct kmem_json_value val = { .kind = KMEM_JSON_U64, .u = v };

	return kmem_diff__take(d, side, path, &val);
}

/* @len bytes of @s; NULL: null. */
static int text_len(struct kmem_diff *d, int side, const char *path,
		    const char *s, size_t len)
{
	struct kmem_json_value val = {
		.kind = s ? KMEM_JSON_STRING : KMEM_JSON_NULL,
		.str = s, .len = len,
	};

	return kmem_diff__take(d, side, path, &val);
}

static int text(struct kmem_diff *d, int side, const char *path,
		const char *s)
{
	return text_len(d, side, path, s, s ? strlen(s) : 0);
}

/* A caller row: name (NULL: none), address, order, gfp names, hits, bytes. */
static int caller(struct kmem_diff *d, int side, int i, const char *name,
		  u64 addr, u64 order, const char *gfp, u64 hits, u64 bytes)
{
	char path[128], hex[32];
	int err = 0;

#define P(m) (snprintf(path, sizeof(path), "page.callers.rows.%d." m, i), path)
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
	err |= text(d, side, P("callsite.name"), name);
	err |= text(d, side, P("callsite.address"), hex);
	err |= num(d, side, P("order"), order);
	err |= num(d, side, P("migration_type.value"), 1);
	err |= text(d, side, P("migration_type.name"), "Movable");
	err |= num(d, side, P("gfp.value"), 0xcc0);
	/* The names as the JSON has them: an array, "A|B" as A and B. */
	err |= text_len(d, side, P("gfp.names.0"), gfp, strcspn(gfp, "|"));
	if (strchr(gfp, '|'))
		err |= text(d, side, P("gfp.names.1"), strchr(gfp, '|') + 1);
	err |= num(d, side, P("hits"), hits);
	err |= num(d, side, P("bytes"), bytes);
#undef P
	return err;
}

static const struct kmem_diff_row *find_row(const struct kmem_diff_table *t,
					    const char *ident0,
					    const char *ident1)
{
	size_t i;

	for (i = 0; i < t->nr_rows; i++)
		if (!strcmp(t->rows[i]->ident[0], ident0) &&
		    (!ident1 || !strcmp(t->rows[i]->ident[1], ident1)))
			return t->rows[i];
	return NULL;
}

static bool value_is(const struct kmem_diff_value *v, bool has_old, u64 old,
		     bool has_new, u64 new)
{
	if (v->has[0] == has_old && v->has[1] == has_new &&
	    (!has_old || v->v[0] == old) && (!has_new || v->v[1] == new))
		return true;
	pr_debug("got %d:%llu %d:%llu, want %d:%llu %d:%llu\n", v->has[0],
		 (unsigned long long)v->v[0], v->has[1],
		 (unsigned long long)v->v[1], has_old,
		 (unsigned long long)old, has_new, (unsigned long long)new);
	return false;
}

/* The same document twice: every delta 0, no row on one side only. */
static int test__kmem_diff_same(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	struct kmem_diff *d = kmem_diff__new(&config);
	const struct kmem_diff_scalar *s;
	struct kmem_diff_table *t;
	size_t nr, i, m;
	int side, err = 0;
	double pct;

	TEST_ASSERT_VAL("new", d);
	for (side = 0; side < 2; side++) {
		err |= num(d, side, "schema", 1);
		err |= num(d, side, "page.summary.failures.count", 0);
		err |= num(d, side, "page.summary.total.count", 1833);
		err |= num(d, side, "page.summary.total.bytes", 10141696);
		err |= text(d, side, "page.cross_node.status", "one_node");
		err |= num(d, side, "page.callers.nr_rows", 2);
		err |= caller(d, side, 0, "do_anonymous_page", 0xffffffff815ebb90,
			      0, "GFP_HIGHUSER_MOVABLE|__GFP_ZERO", 1593,
			      6524928);
		err |= caller(d, side, 1, "pte_alloc_one", 0xffffffff81111000,
			      0, "GFP_KERNEL", 30, 122880);
	}
	TEST_ASSERT_VAL("add", !err);
	TEST_ASSERT_VAL("pair", !kmem_diff__pair(d));
	TEST_ASSERT_VAL("no more after pairing",
			num(d, 0, "page.x", 1) == -EINVAL);

	s = kmem_diff__scalars(d, &nr);
	/* schema is ignored; nr_rows stays a scalar. */
	TEST_ASSERT_VAL("scalars", nr == 5);
	TEST_ASSERT_VAL("order kept",
			!strcmp(s[0].path, "page.summary.failures.count") &&
			!strcmp(s[4].path, "page.callers.nr_rows"));
	for (i = 0; i < nr; i++) {
		if (!s[i].is_number) {
			TEST_ASSERT_VAL("text both", s[i].has_str[0] &&
					s[i].has_str[1] &&
					!strcmp(s[i].str[0], s[i].str[1]));
			continue;
		}
		TEST_ASSERT_VAL("scalar delta 0",
				kmem_diff_value__both(&s[i].num) &&
				kmem_diff_value__delta(&s[i].num) == 0);
		TEST_ASSERT_VAL("scalar 0%",
				kmem_diff_value__percent(&s[i].num, &pct) &&
				pct == 0);
	}
	t = kmem_diff__table(d, "callers");
	TEST_ASSERT_VAL("table", t && t->present[0] && t->present[1]);
	TEST_ASSERT_VAL("rows", t->nr_rows == 2 &&
			t->nr_in[KMEM_DIFF_IN_BOTH] == 2);
	/* Members: hits and bytes; the migration type's value is ignored. */
	TEST_ASSERT_VAL("members", t->nr_members == 2 &&
			kmem_diff_table__member(t, "hits") >= 0 &&
			kmem_diff_table__member(t, "bytes") >= 0 &&
			kmem_diff_table__member(t, "migration_type.value") < 0);
	for (i = 0; i < t->nr_rows; i++)
		for (m = 0; m < t->nr_members; m++)
			TEST_ASSERT_VAL("row delta 0",
					kmem_diff_value__both(&t->rows[i]->values[m]) &&
					!kmem_diff_value__delta(&t->rows[i]->values[m]));
	/* Sorted by identity: "do_..." before "pte_...". */
	TEST_ASSERT_VAL("identity order",
			!strcmp(t->rows[0]->ident[0], "do_anonymous_page") &&
			!strcmp(t->rows[0]->ident[2],
				"GFP_HIGHUSER_MOVABLE|__GFP_ZERO") &&
			t->rows[0]->ident_is_number[1] &&
			t->rows[0]->ident_number[1] == 0);
	t = kmem_diff__table(d, "caches");
	TEST_ASSERT_VAL("absent table", t && !t->present[0] && !t->present[1] &&
			!t->nr_rows);
	kmem_diff__delete(d);
	return TEST_OK;
}

/*
 * Rows on one side only: A only in old (gone), C only in new (new), B in
 * both.  The side without a row has it at 0, and from 0 there is no
 * percentage.
 */
static int test__kmem_diff_one_sided(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct kmem_diff *d = kmem_diff__new(&config);
	const struct kmem_diff_row *a, *b, *c;
	struct kmem_diff_table *t;
	int hits, bytes, err = 0;
	double pct;

	TEST_ASSERT_VAL("new", d);
	err |= num(d, 0, "page.callers.nr_rows", 2);
	err |= caller(d, 0, 0, "A", 0x10, 0, "GFP_KERNEL", 4, 16384);
	err |= caller(d, 0, 1, "B", 0x20, 1, "GFP_KERNEL", 10, 81920);
	err |= num(d, 1, "page.callers.nr_rows", 2);
	err |= caller(d, 1, 0, "C", 0x30, 0, "GFP_KERNEL", 3, 12288);
	err |= caller(d, 1, 1, "B", 0x20, 1, "GFP_KERNEL", 15, 122880);
	TEST_ASSERT_VAL("add", !err);
	TEST_ASSERT_VAL("pair", !kmem_diff__pair(d));
	t = kmem_diff__table(d, "callers");
	TEST_ASSERT_VAL("rows", t && t->nr_rows == 3 &&
			t->nr_in[KMEM_DIFF_IN_BOTH] == 1 &&
			t->nr_in[KMEM_DIFF_IN_OLD] == 1 &&
			t->nr_in[KMEM_DIFF_IN_NEW] == 1);
	hits = kmem_diff_table__member(t, "hits");
	bytes = kmem_diff_table__member(t, "bytes");
	a = find_row(t, "A", NULL);
	b = find_row(t, "B", NULL);
	c = find_row(t, "C", NULL);
	TEST_ASSERT_VAL("A gone", a && a->in == KMEM_DIFF_IN_OLD &&
			value_is(&a->values[hits], true, 4, true, 0) &&
			value_is(&a->values[bytes], true, 16384, true, 0));
	TEST_ASSERT_VAL("A -100%", kmem_diff_value__percent(&a->values[bytes],
							    &pct) &&
			pct == -100.0);
	TEST_ASSERT_VAL("C new", c && c->in == KMEM_DIFF_IN_NEW &&
			value_is(&c->values[hits], true, 0, true, 3) &&
			kmem_diff_value__delta(&c->values[bytes]) == 12288);
	TEST_ASSERT_VAL("C no percent",
			!kmem_diff_value__percent(&c->values[bytes], &pct));
	/* B: 10 -> 15 hits, +50%; 81920 -> 122880 bytes, +40960, +50%. */
	TEST_ASSERT_VAL("B both", b && b->in == KMEM_DIFF_IN_BOTH &&
			kmem_diff_value__delta(&b->values[hits]) == 5 &&
			kmem_diff_value__delta(&b->values[bytes]) == 40960);
	TEST_ASSERT_VAL("B +50%", kmem_diff_value__percent(&b->values[hits],
							   &pct) &&
			pct == 50.0);
	kmem_diff__delete(d);
	return TEST_OK;
}

/*
 * Sorted by the size of the byte delta, largest first, whatever its sign;
 * equal sizes by name.  Then by hits: -s bytes,hit.
 */
static int test__kmem_diff_sort(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	/* name, old bytes, new bytes: deltas +5, -100, +50, 0, +100, -50. */
	static const struct {
		const char	*name;
		u64		old, new;
	} rows[] = {
		{ "a", 10, 15 }, { "b", 200, 100 }, { "c", 0, 50 },
		{ "d", 7, 7 }, { "e", 100, 200 }, { "f", 50, 0 },
	};
	/* b and e tie at 100: e's hits 1 -> 5 before b's 1 -> 2; c and f
	 * at 50: c's 0 -> 3 before f's 1 -> 0.
	 */
	static const char * const want[] = { "e", "b", "c", "f", "a", "d" };
	struct kmem_diff_key keys[] = {
		{ KMEM_DIFF_KEY_DELTA, 0 }, { KMEM_DIFF_KEY_DELTA, 0 },
	};
	struct kmem_diff *d = kmem_diff__new(&config);
	struct kmem_diff_table *t;
	size_t i;
	int err = 0;

	TEST_ASSERT_VAL("new", d);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		/* "c" only in new, "f" only in old. */
		if (rows[i].old)
			err |= caller(d, 0, i - (i > 2), rows[i].name, i, 0,
				      "GFP_KERNEL", 1, rows[i].old);
		if (rows[i].new)
			err |= caller(d, 1, i - (i > 5), rows[i].name, i, 0,
				      "GFP_KERNEL", 1 + i, rows[i].new);
	}
	err |= num(d, 0, "page.callers.nr_rows", 5);
	err |= num(d, 1, "page.callers.nr_rows", 5);
	TEST_ASSERT_VAL("add", !err);
	TEST_ASSERT_VAL("pair", !kmem_diff__pair(d));
	t = kmem_diff__table(d, "callers");
	TEST_ASSERT_VAL("rows", t && t->nr_rows == 6);
	keys[0].index = kmem_diff_table__member(t, "bytes");
	keys[1].index = kmem_diff_table__member(t, "hits");
	kmem_diff_table__sort(t, keys, 2);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		if (strcmp(t->rows[i]->ident[0], want[i]))
			pr_debug("row %zu: got %s, want %s\n", i,
				 t->rows[i]->ident[0], want[i]);
		TEST_ASSERT_VAL("by |byte delta|",
				!strcmp(t->rows[i]->ident[0], want[i]));
	}
	keys[0] = (struct kmem_diff_key){ KMEM_DIFF_KEY_IDENTITY, 0 };
	kmem_diff_table__sort(t, keys, 1);
	TEST_ASSERT_VAL("by name", !strcmp(t->rows[0]->ident[0], "a") &&
			!strcmp(t->rows[5]->ident[0], "f"));
	kmem_diff__delete(d);
	return TEST_OK;
}

/*
 * Rows in the order of their identity, numbers by value: the grid's
 * orders 1, 2 and 10, not 1, 10 and 2 as the text of their keys sorts.
 */
static int test__kmem_diff_order(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	static const u64 orders[] = { 10, 2, 1 };
	struct kmem_diff *d = kmem_diff__new(&config);
	struct kmem_diff_table *t;
	size_t i;
	int err = 0;

	TEST_ASSERT_VAL("new", d);
	for (i = 0; i < ARRAY_SIZE(orders); i++)
		err |= caller(d, 0, i, "A", 0x10, orders[i], "GFP_KERNEL", 1,
			      4096ULL << orders[i]);
	err |= num(d, 0, "page.callers.nr_rows", ARRAY_SIZE(orders));
	err |= num(d, 1, "page.callers.nr_rows", 0);
	TEST_ASSERT_VAL("add", !err);
	TEST_ASSERT_VAL("pair", !kmem_diff__pair(d));
	t = kmem_diff__table(d, "callers");
	TEST_ASSERT_VAL("rows", t && t->nr_rows == ARRAY_SIZE(orders));
	for (i = 0; i < ARRAY_SIZE(orders); i++)
		TEST_ASSERT_VAL("by order", t->rows[i]->ident_is_number[1] &&
				t->rows[i]->ident_number[1] ==
				orders[ARRAY_SIZE(orders) - 1 - i]);
	kmem_diff__delete(d);
	return TEST_OK;
}

/*
 * Two boots: the same functions at other addresses pair by name.  A
 * callsite without a name pairs by its address; two functions of one name
 * (static functions of two files) in a trace add up.
 */
static int test__kmem_diff_names(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kmem_diff *d = kmem_diff__new(&config);
	const struct kmem_diff_row *row;
	struct kmem_diff_table *t;
	int hits, err = 0;

	TEST_ASSERT_VAL("new", d);
	err |= caller(d, 0, 0, "do_wp_page", 0xffffffff81200000, 0,
		      "GFP_HIGHUSER_MOVABLE", 100, 409600);
	err |= caller(d, 0, 1, NULL, 0xffffffffc0001000, 0, "GFP_KERNEL", 1,
		      4096);
	err |= caller(d, 0, 2, NULL, 0xffffffffc0002000, 0, "GFP_KERNEL", 2,
		      8192);
	err |= caller(d, 0, 3, "shmem_alloc", 0xffffffff81300000, 0,
		      "GFP_KERNEL", 5, 20480);
	err |= caller(d, 0, 4, "shmem_alloc", 0xffffffff81400000, 0,
		      "GFP_KERNEL", 6, 24576);
	/* The new boot's kernel lies 2 MiB higher. */
	err |= caller(d, 1, 0, "do_wp_page", 0xffffffff81400000, 0,
		      "GFP_HIGHUSER_MOVABLE", 120, 491520);
	err |= caller(d, 1, 1, NULL, 0xffffffffc0001000, 0, "GFP_KERNEL", 3,
		      12288);
	err |= caller(d, 1, 2, "shmem_alloc", 0xffffffff81500000, 0,
		      "GFP_KERNEL", 11, 45056);
	err |= num(d, 0, "page.callers.nr_rows", 5);
	err |= num(d, 1, "page.callers.nr_rows", 3);
	TEST_ASSERT_VAL("add", !err);
	TEST_ASSERT_VAL("pair", !kmem_diff__pair(d));
	t = kmem_diff__table(d, "callers");
	hits = kmem_diff_table__member(t, "hits");
	TEST_ASSERT_VAL("rows", t && t->nr_rows == 4 &&
			t->nr_in[KMEM_DIFF_IN_BOTH] == 3 &&
			t->nr_in[KMEM_DIFF_IN_OLD] == 1);
	row = find_row(t, "do_wp_page", NULL);
	TEST_ASSERT_VAL("moved function pairs", row &&
			row->in == KMEM_DIFF_IN_BOTH &&
			value_is(&row->values[hits], true, 100, true, 120));
	row = find_row(t, "0xffffffffc0001000", NULL);
	TEST_ASSERT_VAL("no name: address", row &&
			row->in == KMEM_DIFF_IN_BOTH &&
			value_is(&row->values[hits], true, 1, true, 3));
	row = find_row(t, "0xffffffffc0002000", NULL);
	TEST_ASSERT_VAL("no name, other address", row &&
			row->in == KMEM_DIFF_IN_OLD);
	row = find_row(t, "shmem_alloc", NULL);
	TEST_ASSERT_VAL("one name twice adds up", row &&
			value_is(&row->values[hits], true, 11, true, 11) &&
			kmem_diff_value__delta(&row->values[hits]) == 0);
	kmem_diff__delete(d);
	return TEST_OK;
}

/*
 * Scalars one document lacks are not had (not 0); they stand after the
 * scalar before them in the document that has them.  A table one document
 * lacks leaves its side of every row not had.  An empty array of names
 * leaves the identity to its alternative.
 */
static int test__kmem_diff_missing(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_diff *d = kmem_diff__new(&config);
	const struct kmem_diff_scalar *s;
	const struct kmem_diff_row *row;
	struct kmem_diff_table *t;
	size_t nr;
	int err = 0, m;

	TEST_ASSERT_VAL("new", d);
	err |= num(d, 0, "a", 1);
	err |= num(d, 0, "c", 3);
	err |= num(d, 0, "frag.severe", 9);
	err |= text(d, 0, "frag.status", "analysed");
	err |= num(d, 1, "a", 2);
	err |= num(d, 1, "b", 5);
	err |= num(d, 1, "c", 3);
	err |= text(d, 1, "frag.status", "not_recorded");
	err |= num(d, 0, "page.columns.0.value", 7);
	err |= num(d, 1, "slab.caches.nr_rows", 1);
	err |= text(d, 1, "slab.caches.rows.0.cache", "dentry");
	err |= num(d, 1, "slab.caches.rows.0.hits", 12);
	/* A gfp value the kernel printed no names for: no names array. */
	err |= text(d, 0, "page.callers.rows.0.callsite.name", "f");
	err |= num(d, 0, "page.callers.rows.0.gfp.value", 3264);
	err |= num(d, 0, "page.callers.rows.0.hits", 1);
	TEST_ASSERT_VAL("row out of order",
			num(d, 0, "page.callers.rows.2.hits", 1) == -EINVAL);
	TEST_ASSERT_VAL("add", !err);
	TEST_ASSERT_VAL("pair", !kmem_diff__pair(d));
	s = kmem_diff__scalars(d, &nr);
	/* The present scalar of a table is a scalar too. */
	TEST_ASSERT_VAL("scalars", nr == 6);
	TEST_ASSERT_VAL("new-only after its predecessor",
			!strcmp(s[0].path, "a") && !strcmp(s[1].path, "b") &&
			!strcmp(s[2].path, "c"));
	TEST_ASSERT_VAL("b only new",
			value_is(&s[1].num, false, 0, true, 5));
	TEST_ASSERT_VAL("severe only old",
			value_is(&kmem_diff__scalar(d, "frag.severe")->num,
				 true, 9, false, 0));
	TEST_ASSERT_VAL("texts", !strcmp(s[4].str[0], "analysed") &&
			!strcmp(s[4].str[1], "not_recorded") &&
			!s[4].is_number);
	TEST_ASSERT_VAL("ignored", !kmem_diff__scalar(d, "page.columns.0.value"));
	t = kmem_diff__table(d, "caches");
	m = kmem_diff_table__member(t, "hits");
	TEST_ASSERT_VAL("table only new", t && !t->present[0] && t->present[1] &&
			t->nr_rows == 1 && t->rows[0]->in == KMEM_DIFF_IN_NEW &&
			value_is(&t->rows[0]->values[m], false, 0, true, 12));
	t = kmem_diff__table(d, "callers");
	row = t && t->nr_rows == 1 ? t->rows[0] : NULL;
	TEST_ASSERT_VAL("gfp by value", row && !strcmp(row->ident[2], "3264") &&
			row->ident_is_number[2] && row->ident_number[2] == 3264 &&
			!strcmp(row->ident[1], "") && !row->ident_is_number[1]);
	kmem_diff__delete(d);
	return TEST_OK;
}

/*
 * A column one trace has and the other lacks (Freed remote, of a trace of
 * two nodes against one of one): not had on the side that lacks it, in
 * every row, whether the row is in both traces or in one.
 */
static int test__kmem_diff_column(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_diff *d = kmem_diff__new(&config);
	const struct kmem_diff_row *a, *b, *c;
	struct kmem_diff_table *t;
	int hits, remote, err = 0;

	TEST_ASSERT_VAL("new", d);
	err |= num(d, 0, "page.callers.nr_rows", 2);
	err |= caller(d, 0, 0, "A", 0x10, 0, "GFP_KERNEL", 4, 16384);
	err |= caller(d, 0, 1, "B", 0x20, 0, "GFP_KERNEL", 2, 8192);
	err |= num(d, 1, "page.callers.nr_rows", 2);
	err |= caller(d, 1, 0, "B", 0x20, 0, "GFP_KERNEL", 3, 12288);
	err |= num(d, 1, "page.callers.rows.0.freed_remote", 1);
	err |= caller(d, 1, 1, "C", 0x30, 0, "GFP_KERNEL", 5, 20480);
	err |= num(d, 1, "page.callers.rows.1.freed_remote", 0);
	TEST_ASSERT_VAL("add", !err);
	TEST_ASSERT_VAL("pair", !kmem_diff__pair(d));
	t = kmem_diff__table(d, "callers");
	hits = kmem_diff_table__member(t, "hits");
	remote = kmem_diff_table__member(t, "freed_remote");
	a = find_row(t, "A", NULL);
	b = find_row(t, "B", NULL);
	c = find_row(t, "C", NULL);
	TEST_ASSERT_VAL("rows", a && b && c && hits >= 0 && remote >= 0);
	TEST_ASSERT_VAL("gone: new side 0",
			value_is(&a->values[hits], true, 4, true, 0) &&
			value_is(&a->values[remote], false, 0, true, 0));
	TEST_ASSERT_VAL("both: old side not had",
			value_is(&b->values[remote], false, 0, true, 1) &&
			value_is(&b->values[hits], true, 2, true, 3));
	TEST_ASSERT_VAL("new: old side not had",
			value_is(&c->values[remote], false, 0, true, 0) &&
			value_is(&c->values[hits], true, 0, true, 5));
	kmem_diff__delete(d);
	return TEST_OK;
}

/* Percentages of the old value, worked out by hand. */
static int test__kmem_diff_percent(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_diff_value v = { .has = { true, true } };
	double pct;

	v.v[0] = 852;
	v.v[1] = 900;		/* 48 / 852 = 5.6338% */
	TEST_ASSERT_VAL("+5.63%", kmem_diff_value__percent(&v, &pct) &&
			fabs(pct - 5.6338) < 0.0001);
	TEST_ASSERT_VAL("delta", kmem_diff_value__delta(&v) == 48);
	v.v[0] = 900;
	v.v[1] = 852;		/* -48 / 900 = -5.3333% */
	TEST_ASSERT_VAL("-5.33%", kmem_diff_value__percent(&v, &pct) &&
			fabs(pct + 5.3333) < 0.0001);
	TEST_ASSERT_VAL("negative delta", kmem_diff_value__delta(&v) == -48);
	v.v[0] = 0;
	v.v[1] = 0;
	TEST_ASSERT_VAL("0 to 0", kmem_diff_value__percent(&v, &pct) &&
			pct == 0);
	v.v[1] = 5;
	TEST_ASSERT_VAL("0 to 5: new", !kmem_diff_value__percent(&v, &pct));
	v.v[0] = 5;
	v.v[1] = 0;
	TEST_ASSERT_VAL("5 to 0", kmem_diff_value__percent(&v, &pct) &&
			pct == -100);
	v.has[1] = false;
	TEST_ASSERT_VAL("one side", !kmem_diff_value__percent(&v, &pct) &&
			!kmem_diff_value__both(&v));
	return TEST_OK;
}

/* --- the JSON writer's visitor ---------------------------------------- */

struct visited {
	char	text[2048];
	size_t	len;
};

static void visit(void *arg, const char *path, const struct kmem_json_value *v)
{
	struct visited *w = arg;
	char value[64];

	switch (v->kind) {
	case KMEM_JSON_U64:
		snprintf(value, sizeof(value), "%llu", (unsigned long long)v->u);
		break;
	case KMEM_JSON_S64:
		snprintf(value, sizeof(value), "%lld", (long long)v->s);
		break;
	case KMEM_JSON_DOUBLE:
		snprintf(value, sizeof(value), "%.1f", v->d);
		break;
	case KMEM_JSON_BOOL:
		snprintf(value, sizeof(value), "%s", v->b ? "true" : "false");
		break;
	case KMEM_JSON_NULL:
		snprintf(value, sizeof(value), "null");
		break;
	case KMEM_JSON_HEX:
		snprintf(value, sizeof(value), "hex:%llx", (unsigned long long)v->u);
		break;
	case KMEM_JSON_STRING:
	default:
		snprintf(value, sizeof(value), "'%.*s'", (int)v->len, v->str);
		break;
	}
	w->len += snprintf(w->text + w->len, sizeof(w->text) - w->len,
			   "%s=%s\n", path, value);
}

/* Each scalar with its path; nothing written. */
static int test__kmem_diff_visitor(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	static const char want[] =
		"schema=1\n"
		"page.summary.failures.count=0\n"
		"page.grid.rows.0.order=0\n"
		"page.grid.rows.0.counts.0=126\n"
		"page.grid.rows.0.counts.1=0\n"
		"page.grid.rows.1.order=1\n"
		"page.grid.rows.1.counts.0=7\n"
		"page.grid.rows.1.counts.1=-2\n"
		"page.callsite.name=null\n"
		"page.callsite.address=hex:ffffffff81000000\n"
		"page.gfp.names.0='GFP_KERNEL'\n"
		"page.live=false\n"
		"page.pct=5.6\n"
		"empty=null\n";
	struct visited w = { .len = 0 };
	struct kmem_json *j = kmem_json__new_visitor(visit, &w);
	char key[KMEM_JSON_MAX_PATH + 8];
	int order;

	TEST_ASSERT_VAL("new", j);
	kmem_json__begin_object(j);
	kmem_json__key_u64(j, "schema", 1);
	kmem_json__key_object(j, "page");
	kmem_json__key_object(j, "summary");
	kmem_json__key_object(j, "failures");
	kmem_json__key_u64(j, "count", 0);
	kmem_json__end_object(j);
	kmem_json__end_object(j);
	kmem_json__key_object(j, "grid");
	kmem_json__key_array(j, "rows");
	for (order = 0; order < 2; order++) {
		kmem_json__begin_object(j);
		kmem_json__key_u64(j, "order", order);
		kmem_json__key_array(j, "counts");
		kmem_json__u64(j, order ? 7 : 126);
		if (order)
			kmem_json__s64(j, -2);
		else
			kmem_json__u64(j, 0);
		kmem_json__end_array(j);
		kmem_json__end_object(j);
	}
	kmem_json__end_array(j);
	kmem_json__end_object(j);
	kmem_json__key_object(j, "callsite");
	kmem_json__key_string(j, "name", NULL);
	kmem_json__key(j, "address");
	kmem_json__hex(j, 0xffffffff81000000ULL);
	kmem_json__end_object(j);
	kmem_json__key_object(j, "gfp");
	kmem_json__key_array(j, "names");
	kmem_json__string(j, "GFP_KERNEL");
	kmem_json__end_array(j);
	kmem_json__end_object(j);
	kmem_json__key(j, "live");
	kmem_json__bool(j, false);
	kmem_json__key(j, "pct");
	kmem_json__fixed1(j, 5.6338);
	kmem_json__end_object(j);
	kmem_json__key(j, "empty");
	kmem_json__null(j);
	kmem_json__end_object(j);
	TEST_ASSERT_VAL("complete", !kmem_json__finish(j));
	kmem_json__delete(j);
	if (strcmp(w.text, want))
		pr_debug("got:\n%s\nwant:\n%s\n", w.text, want);
	TEST_ASSERT_VAL("paths", !strcmp(w.text, want));

	/* A path too long for the visitor is a misuse, not a cut path. */
	j = kmem_json__new_visitor(visit, &w);
	TEST_ASSERT_VAL("new", j);
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	kmem_json__begin_object(j);
	kmem_json__key_u64(j, key, 1);
	kmem_json__end_object(j);
	TEST_ASSERT_VAL("long path", kmem_json__finish(j) == -EINVAL &&
			strstr(kmem_json__error(j), "path"));
	kmem_json__delete(j);
	return TEST_OK;
}

/* @text read back; its scalars as visit() writes them, or the error. */
static const char *read_back(const char *text, struct visited *w, char *err,
			     size_t size)
{
	struct kmem_json *j = kmem_json__new_visitor(visit, w);
	int ret;

	w->len = 0;
	w->text[0] = '\0';
	ret = j ? kmem_json__read(text, strlen(text), j, err, size) : -ENOMEM;
	kmem_json__delete(j);
	return ret ? err : w->text;
}

static bool reads_as(const char *text, const char *want)
{
	struct visited w;
	char err[128];
	const char *got = read_back(text, &w, err, sizeof(err));

	if (!strcmp(got, want))
		return true;
	pr_debug("%s:\ngot:  %s\nwant: %s\n", text, got, want);
	return false;
}

/* Documents and what they read as: their scalars, or the error. */
static const struct {
	const char	*text;
	const char	*want;
} saved_docs[] = {
	{ .text =
	  "{\"schema\": 1, \"page\": {\"rows\": [{\"n\": 0}, {\"n\": 18446744073709551615}], \"d\": -2, \"live\": false, \"pct\": 5.6, \"cs\": null, \"address\": \"0xffffffff81000000\"}}",
	  .want =
	  "schema=1\npage.rows.0.n=0\npage.rows.1.n=18446744073709551615\npage.d=-2\npage.live=false\npage.pct=5.6\npage.cs=null\npage.address='0xffffffff81000000'\n"
	},
	{ " [\"a\\n\\u00e9\\ud83d\\ude00\\/\\\"\"] ",
	  "0='a\n\xc3\xa9\xf0\x9f\x98\x80/\"'\n" },
	{ "{\"a\": {}, \"b\": []}", "" },
	{ "{\"schema\": 1, \"page\": {", "it ends early, at byte 23" },
	{ "{} {}", "more after the document at byte 3" },
	{ "[\"\\x\"]", "an unknown escape in a string at byte 3" },
	{ "[\"\\udc00\"]", "a lone low surrogate at byte 8" },
	{ "[01]", "a ',' or ']' expected in an array at byte 2" },
	{ "{\"a\": }", "a value expected at byte 6" },
	{ "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	  "nested too deep at byte 33" },
};

/* A saved document plays to the visitor as it did when it was written. */
static int test__kmem_diff_reader(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(saved_docs); i++)
		TEST_ASSERT_VAL("read back",
				reads_as(saved_docs[i].text, saved_docs[i].want));
	return TEST_OK;
}

static struct test_case kmem_diff_tests[] = {
	TEST_CASE("kmem diff: a trace with itself", kmem_diff_same),
	TEST_CASE("kmem diff: rows on one side only", kmem_diff_one_sided),
	TEST_CASE("kmem diff: sorted by the size of the byte delta", kmem_diff_sort),
	TEST_CASE("kmem diff: rows in the order of their identity", kmem_diff_order),
	TEST_CASE("kmem diff: rows paired by name, not address", kmem_diff_names),
	TEST_CASE("kmem diff: numbers and tables one trace lacks", kmem_diff_missing),
	TEST_CASE("kmem diff: a column one trace lacks", kmem_diff_column),
	TEST_CASE("kmem diff: delta percentages", kmem_diff_percent),
	TEST_CASE("kmem diff: the JSON writer's visitor", kmem_diff_visitor),
	TEST_CASE("kmem diff: a saved document read back", kmem_diff_reader),
	{ .name = NULL, }
};

struct test_suite suite__kmem_diff = {
	.desc = "perf kmem diff",
	.test_cases = kmem_diff_tests,
};
