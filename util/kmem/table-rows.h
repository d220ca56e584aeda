/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_TABLE_ROWS_H
#define __PERF_KMEM_TABLE_ROWS_H

/*
 * The tables of perf kmem's page and slab analyses: rows found or added by
 * the columns that make a row, kept in an rb-tree, and sorted by the keys
 * the user names.  Each analysis gives only its row type and how to
 * compare two rows.
 */

#include <linux/rbtree.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define KMEM_ROWS_RECENT	64	/* a power of two */

typedef int (*kmem_rows_cmp_fn)(const void *a, const void *b);

struct kmem_rows {
	struct rb_root		root;
	size_t			nr;
	size_t			row_size;
	void			**sorted;
	/* The columns that make a row: equal rows are one row. */
	kmem_rows_cmp_fn	cmp_identity;
	/* Optional: take copies of what a new row points at, and free them. */
	int			(*copy)(void *row);
	void			(*release)(void *row);
	/*
	 * Optional: a hash of (some of) the columns that make a row.  With
	 * it, rows found lately are kept in a small direct-mapped cache:
	 * events of a few rows come interleaved, and each miss walks the
	 * rb-tree.
	 */
	u64			(*hash)(const void *row);
	void			*recent[KMEM_ROWS_RECENT];
};

void kmem_rows__init(struct kmem_rows *rows, size_t row_size,
		     kmem_rows_cmp_fn cmp_identity);
void kmem_rows__exit(struct kmem_rows *rows);

/* The row equal to @key, added as a copy of it if new; NULL: no memory. */
void *kmem_rows__findnew(struct kmem_rows *rows, const void *key);

/* Call @fn for every row, in identity order. */
void kmem_rows__for_each(struct kmem_rows *rows, void (*fn)(void *row, void *arg),
			 void *arg);

/*
 * How a sort key compares the field of a row it names; WASTE: the share
 * of the u64 at offset2 that the u64 at offset leaves unused.
 */
enum kmem_sort_kind {
	KMEM_SORT_U64,		/* a u64 */
	KMEM_SORT_U32,		/* an int or u32, compared unsigned */
	KMEM_SORT_STRING,	/* a const char *, NULL before any other */
	KMEM_SORT_WASTE,
};

/* A sort key: a field of a row, by its offset, and the way it sorts. */
struct kmem_sort_key {
	u16	offset;
	u16	offset2;	/* KMEM_SORT_WASTE's whole */
	u8	kind;		/* enum kmem_sort_kind */
	bool	descending;	/* amounts sort largest first */
};

/*
 * The rows for which @keep says yes (NULL: all), sorted by each of @keys
 * in turn, then by identity, so that a trace always prints the same.  The
 * array belongs to @rows and holds *@nr rows; NULL: no memory.
 */
void **kmem_rows__sort(struct kmem_rows *rows, bool (*keep)(const void *row),
		       const struct kmem_sort_key *keys, int nr_keys,
		       size_t *nr);

/* Amounts sort largest first, identities smallest first. */
static inline int kmem_sort__cmp_u64(u64 a, u64 b, bool descending)
{
	if (a == b)
		return 0;
	return (a < b) != descending ? -1 : 1;
}

/* 100 * (1 - @part / @whole), in percent; 0 for nothing allocated. */
double kmem_sort__waste(u64 part, u64 whole);

#endif /* __PERF_KMEM_TABLE_ROWS_H */
