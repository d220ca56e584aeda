// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's keyed tables, and the table rows kept in them; see
 * table-live.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "table-live.h"

#define LIVE_MIN_BITS	12

static int alloc_slots(struct kmem_live *t, int bits)
{
	size_t i, nr = (size_t)1 << bits, mark = kmem_live__mark(t->key_words);

	t->slots = malloc(nr * t->slot_size);
	if (!t->slots)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		((u64 *)kmem_live__slot(t, i))[mark] = KMEM_LIVE_EMPTY;
	t->bits = bits;
	t->shift = 64 - bits;
	t->mask = nr - 1;
	t->nr = 0;
	return 0;
}

int kmem_live__init_keyed(struct kmem_live *t, size_t slot_size,
			  size_t key_words, int bits)
{
	memset(t, 0, sizeof(*t));
	if (!key_words || slot_size % sizeof(u64) ||
	    slot_size < (kmem_live__mark(key_words) + 1) * sizeof(u64) ||
	    bits < 1 || bits > 40)
		return -EINVAL;
	t->slot_size = slot_size;
	t->key_words = key_words;
	return alloc_slots(t, bits);
}

int kmem_live__init(struct kmem_live *t, size_t slot_size)
{
	return kmem_live__init_keyed(t, slot_size, 1, LIVE_MIN_BITS);
}

void kmem_live__exit(struct kmem_live *t)
{
	free(t->slots);
	t->slots = NULL;
	t->nr = 0;
}

/*
 * The functions below take the words of a key as an argument: called with
 * a constant, for tables of one-word keys, they compile to the plain code
 * such a table needs.
 */
static __always_inline u64 slot_hash(const void *slot, size_t words)
{
	return kmem_live__hash_words(slot, words);
}

static __always_inline void *probe(const struct kmem_live *t, const u64 *key,
				   size_t words)
{
	return kmem_live__probe_key(t, key, words, slot_hash(key, words));
}

/* A few words: a loop, not a call; @t's size read once, before stores. */
static __always_inline void copy_slot(const struct kmem_live *t, void *to,
				      const void *from)
{
	size_t i, n = t->slot_size / sizeof(u64);

	for (i = 0; i < n; i++)
		((u64 *)to)[i] = ((const u64 *)from)[i];
}

/* Twice the slots, the keys hashed anew. */
static __always_inline int grow_words(struct kmem_live *t, size_t words)
{
	struct kmem_live old = *t;
	size_t i;

	if (alloc_slots(t, old.bits + 1)) {
		*t = old;
		return -ENOMEM;
	}
	for (i = 0; i <= old.mask; i++) {
		void *from = kmem_live__slot(&old, i);

		if (!kmem_live__empty_mark(from, words))
			copy_slot(t, probe(t, from, words), from);
	}
	t->nr = old.nr;
	free(old.slots);
	return 0;
}

static __always_inline void *add_words(struct kmem_live *t, void *slot,
				       const u64 *key, size_t words)
{
	size_t i;

	/* Grown, the table has another slot for @key. */
	if (2 * (t->nr + 1) > t->mask + 1) {
		if (grow_words(t, words))
			return NULL;
		slot = probe(t, key, words);
	}
	memset(slot, 0, t->slot_size);
	for (i = 0; i < words; i++)
		((u64 *)slot)[i] = key[i];
	t->nr++;
	return slot;
}

void *kmem_live__add(struct kmem_live *t, void *slot, const u64 *key)
{
	if (t->key_words == 1)
		return add_words(t, slot, key, 1);
	return add_words(t, slot, key, t->key_words);
}

void kmem_live__for_each(const struct kmem_live *t,
			 void (*fn)(void *slot, void *arg), void *arg)
{
	size_t i, mark = kmem_live__mark(t->key_words);

	for (i = 0; i <= t->mask; i++) {
		u64 *slot = kmem_live__slot(t, i);

		if (slot[mark] != KMEM_LIVE_EMPTY)
			fn(slot, arg);
	}
}

/* --- table rows ---------------------------------------------------- */

/*
 * A row lies in a chunk of rows, and its key in a slot of the index, a
 * keyed table whose slot holds the key and then the row's address: a
 * lookup compares keys in the index and reads no other row.  Chunks
 * double, so that a table of a few rows takes little memory and one of a
 * million few allocations, and a row never moves: the analyses keep
 * pointers to rows.
 */

#define ROWS_FIRST_CHUNK	16
/* Slots of the index to begin with: room for half as many rows. */
#define ROWS_INDEX_BITS		6

int kmem_rows__init(struct kmem_rows *rows, size_t row_size,
		    size_t key_words, kmem_rows_cmp_fn cmp_identity)
{
	memset(rows, 0, sizeof(*rows));
	rows->row_size = row_size;
	rows->key_words = key_words;
	rows->cmp_identity = cmp_identity;
	/* The row's address follows its key, and marks the slot used. */
	if (key_words < 2)
		return -EINVAL;
	return kmem_live__init_keyed(&rows->index,
				     (key_words + 1) * sizeof(u64), key_words,
				     ROWS_INDEX_BITS);
}

void kmem_rows__exit(struct kmem_rows *rows)
{
	int c;

	for (c = 0; c < KMEM_ROWS_MAX_CHUNKS; c++)
		zfree(&rows->chunks[c]);
	kmem_live__exit(&rows->index);
	zfree(&rows->sorted);
	rows->nr = 0;
}

static size_t chunk_rows(int chunk)
{
	return (size_t)ROWS_FIRST_CHUNK << chunk;
}

/* Where row @n goes: chunk c holds rows [16 * (2^c - 1), 16 * (2^(c+1) - 1)). */
static int chunk_of(size_t n, size_t *first)
{
	int c = 63 - __builtin_clzll(n / ROWS_FIRST_CHUNK + 1);

	*first = ROWS_FIRST_CHUNK * (((size_t)1 << c) - 1);
	return c;
}

/* Room for the next row; NULL: no memory. */
static void *next_row(struct kmem_rows *rows)
{
	size_t first;
	int c = chunk_of(rows->nr, &first);

	if (c >= KMEM_ROWS_MAX_CHUNKS)
		return NULL;
	if (!rows->chunks[c]) {
		rows->chunks[c] = malloc(chunk_rows(c) * rows->row_size);
		if (!rows->chunks[c])
			return NULL;
	}
	return rows->chunks[c] + (rows->nr - first) * rows->row_size;
}

void *kmem_rows__add(struct kmem_rows *rows, const u64 *key, const void *row)
{
	struct kmem_live *index = &rows->index;
	size_t words = rows->key_words;
	u64 *slot;
	void *new;

	slot = kmem_live__probe_key(index, key, words,
				    kmem_live__hash_words(key, words));
	new = next_row(rows);
	if (!new)
		return NULL;
	slot = kmem_live__add(index, slot, key);
	if (!slot)
		return NULL;
	memcpy(new, row, rows->row_size);
	slot[words] = (uintptr_t)new;
	rows->nr++;
	return new;
}

void *kmem_rows__findnew(struct kmem_rows *rows, const u64 *key,
			 const void *row)
{
	return kmem_rows__find(rows, key, rows->key_words) ?:
	       kmem_rows__add(rows, key, row);
}

void kmem_rows__for_each(struct kmem_rows *rows, void (*fn)(void *row, void *arg),
			 void *arg)
{
	size_t i, n, done = 0;
	int c;

	for (c = 0; done < rows->nr; c++) {
		n = min(chunk_rows(c), rows->nr - done);
		for (i = 0; i < n; i++)
			fn(rows->chunks[c] + i * rows->row_size, arg);
		done += n;
	}
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

/* The length of the longest name a KMEM_SORT_NAME key compares. */
#define SORT_NAME_SIZE	640

/* By name; of one name (or none), by value. */
static int cmp_names(const struct kmem_sort_key *key, u64 a, u64 b)
{
	char na[SORT_NAME_SIZE], nb[SORT_NAME_SIZE];
	int cmp;

	if (a == b)
		return 0;
	if (key->name) {
		cmp = kmem_sort__cmp_strings(key->name(key->name_arg, a, na, sizeof(na)),
					     key->name(key->name_arg, b, nb, sizeof(nb)));
		if (cmp)
			return cmp;
	}
	return kmem_sort__cmp_u64(a, b, key->descending);
}

static int cmp_key(const struct kmem_sort_key *key, const void *a,
		   const void *b)
{
	double wa, wb;

	switch (key->kind) {
	case KMEM_SORT_NAME:
		return cmp_names(key, FIELD(a, key->offset, u64),
				 FIELD(b, key->offset, u64));
	case KMEM_SORT_U32:
		return kmem_sort__cmp_u64(FIELD(a, key->offset, u32),
					  FIELD(b, key->offset, u32),
					  key->descending);
	case KMEM_SORT_STRING:
		return kmem_sort__cmp_strings(FIELD(a, key->offset, char *),
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

struct gather {
	void	**rows;
	size_t	nr;
	bool	(*keep)(const void *row);
};

static void gather_row(void *row, void *arg)
{
	struct gather *g = arg;

	if (!g->keep || g->keep(row))
		g->rows[g->nr++] = row;
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
	struct gather g = { .keep = keep };

	*nr = 0;
	g.rows = realloc(rows->sorted, (rows->nr + 1) * sizeof(*g.rows));
	if (!g.rows)
		return NULL;
	rows->sorted = g.rows;
	kmem_rows__for_each(rows, gather_row, &g);
	qsort_r(g.rows, g.nr, sizeof(*g.rows), cmp_rows, &spec);
	*nr = g.nr;
	return g.rows;
}
