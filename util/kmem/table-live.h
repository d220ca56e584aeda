/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_TABLE_LIVE_H
#define __PERF_KMEM_TABLE_LIVE_H

/*
 * perf kmem's keyed tables: hash tables with open addressing and linear
 * probing, at most half full.  Live pages and objects go by their pfn or
 * address, table rows by the columns that make a row, callchain frames
 * by their address.  Every event of a trace looks a key up, among up to
 * hundreds of thousands of keys; a tree costs a cache miss a level, a
 * probe here usually one miss.
 *
 * A slot is slot_size bytes, its key first: key_words u64s, hashed and
 * compared as they are.  A slot is empty when its mark word is
 * KMEM_LIVE_EMPTY: the key itself where the key is one word (no pfn or
 * object address is all ones), else the word after the key, which a slot
 * in use must hold another value in (a pointer, say).  Slots move when
 * the table grows and when one is removed: a pointer to a slot is good
 * until the next kmem_live__add() or kmem_live__remove_one().
 */

#include <linux/hash.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The mark of an empty slot. */
#define KMEM_LIVE_EMPTY		(~0ULL)

struct kmem_live {
	char	*slots;
	size_t	slot_size;
	size_t	key_words;
	size_t	mask;		/* slots - 1, a power of two less one */
	int	bits;		/* log2(slots) */
	int	shift;		/* 64 - bits: hash_64()'s, once */
	size_t	nr;		/* keys in the table */
};

/**
 * kmem_live__init - an empty table of one-word keys
 * @t: the table
 * @slot_size: the bytes of a slot, a multiple of 8 that begins with its
 *	       u64 key, never KMEM_LIVE_EMPTY
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int kmem_live__init(struct kmem_live *t, size_t slot_size);

/**
 * kmem_live__init_keyed - an empty table of keys of several words
 * @t: the table
 * @slot_size: the bytes of a slot, a multiple of 8: the key, then a word
 *	       that is never KMEM_LIVE_EMPTY in a slot in use, then the rest
 * @key_words: the u64 words of the key, any values
 * @bits: log2 of the slots to begin with; the table grows
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int kmem_live__init_keyed(struct kmem_live *t, size_t slot_size,
			  size_t key_words, int bits);
void kmem_live__exit(struct kmem_live *t);

static inline void *kmem_live__slot(const struct kmem_live *t, size_t i)
{
	return t->slots + i * t->slot_size;
}

static inline u64 kmem_live__key(const void *slot)
{
	return *(const u64 *)slot;
}

/* The word of a slot whose key is @words words that says it is empty. */
static inline size_t kmem_live__mark(size_t words)
{
	return words > 1 ? words : 0;
}

static inline bool kmem_live__empty_mark(const void *slot, size_t words)
{
	return ((const u64 *)slot)[kmem_live__mark(words)] == KMEM_LIVE_EMPTY;
}

/*
 * A key of several words as one: each word multiplied in, so that the
 * same values in other words, or in another order, make another hash.
 * A one-word key is its own.
 */
static inline u64 kmem_live__hash_words(const u64 *key, size_t words)
{
	u64 h = key[0];
	size_t i;

	for (i = 1; i < words; i++)
		h = h * GOLDEN_RATIO_64 + key[i];
	return h;
}

static inline size_t kmem_live__home(const struct kmem_live *t, u64 hash)
{
	return (hash * GOLDEN_RATIO_64) >> t->shift;
}

/* Start loading the slot of @key: an event of it comes soon. */
static inline void kmem_live__prefetch(const struct kmem_live *t, u64 key)
{
	__builtin_prefetch(kmem_live__slot(t, kmem_live__home(t, key)));
}

/* The slot of one-word @key, or the empty slot where it would go. */
static inline void *kmem_live__probe(const struct kmem_live *t, u64 key)
{
	size_t i = kmem_live__home(t, key);
	void *slot = kmem_live__slot(t, i);

	while (kmem_live__key(slot) != KMEM_LIVE_EMPTY &&
	       kmem_live__key(slot) != key) {
		i = (i + 1) & t->mask;
		slot = kmem_live__slot(t, i);
	}
	return slot;
}

/* The slot of one-word @key; NULL if it is not in the table. */
static inline void *kmem_live__find(const struct kmem_live *t, u64 key)
{
	void *slot;

	if (key == KMEM_LIVE_EMPTY)
		return NULL;
	slot = kmem_live__probe(t, key);
	return kmem_live__key(slot) == key ? slot : NULL;
}

static inline bool kmem_live__same_key(const void *slot, const u64 *key,
				       size_t words)
{
	const u64 *w = slot;
	size_t i;

	for (i = 0; i < words; i++)
		if (w[i] != key[i])
			return false;
	return true;
}

/*
 * The slot of @key, whose hash kmem_live__hash_words() gave, or the empty
 * slot where it would go.  @words is t->key_words: inline, where the
 * caller knows it, the comparison unrolls.
 */
static inline void *kmem_live__probe_key(const struct kmem_live *t,
					 const u64 *key, size_t words,
					 u64 hash)
{
	size_t i = kmem_live__home(t, hash);
	void *slot = kmem_live__slot(t, i);

	while (!kmem_live__empty_mark(slot, words) &&
	       !kmem_live__same_key(slot, key, words)) {
		i = (i + 1) & t->mask;
		slot = kmem_live__slot(t, i);
	}
	return slot;
}

/**
 * kmem_live__add - make @key's slot
 * @t: the table
 * @slot: the empty slot a probe gave for @key
 * @key: the key, t->key_words words (of a one-word table, not
 *	 KMEM_LIVE_EMPTY)
 *
 * Return: the slot, zeroed but for its key, perhaps elsewhere than @slot
 * if the table grew; NULL: no memory.  Of a table of several-word keys,
 * the caller then sets the word after the key.
 */
void *kmem_live__add(struct kmem_live *t, void *slot, const u64 *key);

/*
 * kmem_live__add() of a one-word @key into slots of @slot_size bytes, a
 * constant, inline: for a caller that adds on nearly every event (a page
 * allocation), where the call costs as much as the add.
 */
static __always_inline void *kmem_live__add_one(struct kmem_live *t,
						void *slot, u64 key,
						size_t slot_size)
{
	u64 *w = slot;
	size_t i;

	if (2 * (t->nr + 1) > t->mask + 1)
		return kmem_live__add(t, slot, &key);
	w[0] = key;
	for (i = 1; i < slot_size / sizeof(u64); i++)
		w[i] = 0;
	t->nr++;
	return slot;
}

/*
 * Empty @slot of a table of one-word keys, whose slots are @slot_size
 * bytes; the slots after it may move to close the gap.  Inline, for a
 * caller that removes on nearly every event (a page free): a constant
 * @slot_size moves a slot in a few moves.
 */
static __always_inline void kmem_live__remove_one(struct kmem_live *t,
						  void *slot,
						  size_t slot_size)
{
	size_t hole = ((char *)slot - t->slots) / slot_size, i = hole;

	/*
	 * Move back the keys after the hole that could not sit in their home
	 * slot, so that no lookup stops short of them.
	 */
	for (;;) {
		char *next;
		size_t home;

		i = (i + 1) & t->mask;
		next = t->slots + i * slot_size;
		if (kmem_live__key(next) == KMEM_LIVE_EMPTY)
			break;
		home = kmem_live__home(t, kmem_live__key(next));
		/* It stays if its home lies cyclically in (hole, i]. */
		if (hole <= i ? hole < home && home <= i :
				hole < home || home <= i)
			continue;
		memcpy(t->slots + hole * slot_size, next, slot_size);
		hole = i;
	}
	*(u64 *)(t->slots + hole * slot_size) = KMEM_LIVE_EMPTY;
	t->nr--;
}

/* Call @fn for every slot in use, in no particular order. */
void kmem_live__for_each(const struct kmem_live *t,
			 void (*fn)(void *slot, void *arg), void *arg);

/* --- table rows ---------------------------------------------------- */

/*
 * The tables of perf kmem's analyses: rows found or added by a key of the
 * columns that make a row, in a keyed table (above), and sorted by
 * the keys the user names when the table is printed.  Each analysis gives
 * its row type, how it makes a key of a row's columns, and how to compare
 * two rows.  Rows stay where they are added until the table is freed.
 */

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
	KMEM_SORT_NAME,		/* a u64 by the name @name gives it, then by value */
};

/* The name of @v, written into @buf; NULL for none. */
typedef const char *(*kmem_sort_name_fn)(void *arg, u64 v, char *buf, size_t size);

/* A sort key: a field of a row, by its offset, and the way it sorts. */
struct kmem_sort_key {
	u16	offset;
	u16	offset2;	/* KMEM_SORT_WASTE's whole */
	u8	kind;		/* enum kmem_sort_kind */
	bool	descending;	/* amounts sort largest first */
	/* KMEM_SORT_NAME's names; NULL: by value only. */
	kmem_sort_name_fn name;
	void	*name_arg;
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

/* Names in strcmp() order, a missing one (NULL) first. */
static inline int kmem_sort__cmp_strings(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}

/* 100 * (1 - @part / @whole), in percent; 0 for nothing allocated. */
double kmem_sort__waste(u64 part, u64 whole);

#endif /* __PERF_KMEM_TABLE_LIVE_H */
