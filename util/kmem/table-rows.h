/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_TABLE_ROWS_H
#define __PERF_KMEM_TABLE_ROWS_H

/*
 * The tables of perf kmem's analyses: rows found or added by a key of the
 * columns that make a row, in a keyed table (table-live.h), and sorted by
 * the keys the user names when the table is printed.  Each analysis gives
 * its row type, how it makes a key of a row's columns, and how to compare
 * two rows.  Rows stay where they are added until the table is freed.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "table-live.h"

/* Rows come in chunks of twice the rows of the chunk before. */
#define KMEM_ROWS_MAX_CHUNKS	40

typedef int (*kmem_rows_cmp_fn)(const void *a, const void *b);

struct kmem_rows {
	struct kmem_live	index;		/* slot: a key, then its row */
	size_t			key_words;
	size_t			row_size;
	size_t			nr;
	char			*chunks[KMEM_ROWS_MAX_CHUNKS];
	void			**sorted;
	/* The columns that make a row: equal rows are one row. */
	kmem_rows_cmp_fn	cmp_identity;
};

/**
 * kmem_rows__init - an empty table
 * @rows: the table
 * @row_size: the bytes of a row
 * @key_words: the u64 words of the key the caller makes of the columns
 *	       that make a row, at least 2
 * @cmp_identity: compares those columns, to sort rows that tie on every
 *		  sort key
 *
 * Return: 0, -EINVAL or -ENOMEM; kmem_rows__exit() frees what it made.
 */
int kmem_rows__init(struct kmem_rows *rows, size_t row_size,
		    size_t key_words, kmem_rows_cmp_fn cmp_identity);
void kmem_rows__exit(struct kmem_rows *rows);

/**
 * kmem_rows__find - the row of a key
 * @rows: the table
 * @key: the key
 * @words: rows->key_words
 *
 * Inline: an event finds its row through it.  Where @words is a constant,
 * hashing and comparing the key unroll.
 *
 * Return: the row, or NULL if the key is not in the table.
 */
static __always_inline void *kmem_rows__find(const struct kmem_rows *rows,
					     const u64 *key, size_t words)
{
	const u64 *slot;

	slot = kmem_live__probe_key(&rows->index, key, words,
				    kmem_live__hash_words(key, words));
	if (kmem_live__empty_mark(slot, words))
		return NULL;
	return (void *)(uintptr_t)slot[words];
}

/**
 * kmem_rows__add - add a row
 * @rows: the table
 * @key: its key, rows->key_words words, not in the table
 * @row: the row, its columns set as only @key would have them
 *
 * Return: the table's copy of @row; NULL: no memory.
 */
void *kmem_rows__add(struct kmem_rows *rows, const u64 *key, const void *row);

/* The row of @key, or else a copy of @row added; NULL: no memory. */
void *kmem_rows__findnew(struct kmem_rows *rows, const u64 *key,
			 const void *row);

/* Call @fn for every row, in the order they were added. */
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
