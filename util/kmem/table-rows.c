// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hash.h>
#include <linux/zalloc.h>

#include "table-rows.h"

/* A row in its table: the rb-tree node, then the row itself. */
struct row_node {
	struct rb_node	rb;
	u64		row[];	/* u64 for the alignment of any row */
};

void kmem_rows__init(struct kmem_rows *rows, size_t row_size,
		     kmem_rows_cmp_fn cmp_identity)
{
	memset(rows, 0, sizeof(*rows));
	rows->root = RB_ROOT;
	rows->row_size = row_size;
	rows->cmp_identity = cmp_identity;
}

void kmem_rows__exit(struct kmem_rows *rows)
{
	struct row_node *rn, *tmp;

	/* Post-order: a node is freed after both its subtrees. */
	rbtree_postorder_for_each_entry_safe(rn, tmp, &rows->root, rb) {
		if (rows->release)
			rows->release(rn->row);
		free(rn);
	}
	zfree(&rows->sorted);
	memset(rows->recent, 0, sizeof(rows->recent));
	rows->root = RB_ROOT;
	rows->nr = 0;
}

/* The rb-tree's row equal to @key, added as a copy of it if new. */
static void *tree_findnew(struct kmem_rows *rows, const void *key)
{
	struct rb_node **p = &rows->root.rb_node, *parent = NULL;
	struct row_node *rn;

	while (*p) {
		int cmp;

		parent = *p;
		rn = rb_entry(parent, struct row_node, rb);
		cmp = rows->cmp_identity(key, rn->row);
		if (!cmp)
			return rn->row;
		p = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rn = malloc(sizeof(*rn) + rows->row_size);
	if (!rn)
		return NULL;
	memcpy(rn->row, key, rows->row_size);
	if (rows->copy && rows->copy(rn->row)) {
		free(rn);
		return NULL;
	}
	rb_link_node(&rn->rb, parent, p);
	rb_insert_color(&rn->rb, &rows->root);
	rows->nr++;
	return rn->row;
}

void *kmem_rows__findnew(struct kmem_rows *rows, const void *key)
{
	void **slot;

	if (!rows->hash)
		return tree_findnew(rows, key);
	slot = &rows->recent[hash_64(rows->hash(key),
				     __builtin_ctz(KMEM_ROWS_RECENT))];
	if (!*slot || rows->cmp_identity(key, *slot))
		*slot = tree_findnew(rows, key);
	return *slot;
}

void kmem_rows__for_each(struct kmem_rows *rows, void (*fn)(void *row, void *arg),
			 void *arg)
{
	struct rb_node *n;

	for (n = rb_first(&rows->root); n; n = rb_next(n))
		fn(rb_entry(n, struct row_node, rb)->row, arg);
}

double kmem_sort__waste(u64 part, u64 whole)
{
	if (!whole)
		return 0.0;
	return 100.0 - 100.0 * (double)part / (double)whole;
}

struct sort_spec {
	const struct kmem_sort_key	*keys;
	int				nr_keys;
	kmem_rows_cmp_fn		cmp_identity;
};

#define FIELD(row, offset, type) (*(const type *)((const char *)(row) + (offset)))

static int cmp_strings(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}

static int cmp_key(const struct kmem_sort_key *key, const void *a,
		   const void *b)
{
	double wa, wb;

	switch (key->kind) {
	case KMEM_SORT_U32:
		return kmem_sort__cmp_u64(FIELD(a, key->offset, u32),
					  FIELD(b, key->offset, u32),
					  key->descending);
	case KMEM_SORT_STRING:
		return cmp_strings(FIELD(a, key->offset, char *),
				   FIELD(b, key->offset, char *));
	case KMEM_SORT_WASTE:
		wa = kmem_sort__waste(FIELD(a, key->offset, u64),
				      FIELD(a, key->offset2, u64));
		wb = kmem_sort__waste(FIELD(b, key->offset, u64),
				      FIELD(b, key->offset2, u64));
		if (wa == wb)
			return 0;
		return (wa < wb) != key->descending ? -1 : 1;
	case KMEM_SORT_U64:
	default:
		return kmem_sort__cmp_u64(FIELD(a, key->offset, u64),
					  FIELD(b, key->offset, u64),
					  key->descending);
	}
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const void *a = *(void * const *)pa, *b = *(void * const *)pb;
	const struct sort_spec *spec = arg;
	int i, cmp;

	for (i = 0; i < spec->nr_keys; i++) {
		cmp = cmp_key(&spec->keys[i], a, b);
		if (cmp)
			return cmp;
	}
	return spec->cmp_identity(a, b);
}

void **kmem_rows__sort(struct kmem_rows *rows, bool (*keep)(const void *row),
		       const struct kmem_sort_key *keys, int nr_keys,
		       size_t *nr)
{
	struct sort_spec spec = {
		.keys = keys,
		.nr_keys = nr_keys,
		.cmp_identity = rows->cmp_identity,
	};
	struct rb_node *n;
	void **sorted;
	size_t i = 0;

	*nr = 0;
	sorted = realloc(rows->sorted, (rows->nr + 1) * sizeof(*sorted));
	if (!sorted)
		return NULL;
	rows->sorted = sorted;
	for (n = rb_first(&rows->root); n; n = rb_next(n)) {
		void *row = rb_entry(n, struct row_node, rb)->row;

		if (!keep || keep(row))
			sorted[i++] = row;
	}
	qsort_r(sorted, i, sizeof(*sorted), cmp_rows, &spec);
	*nr = i;
	return sorted;
}
