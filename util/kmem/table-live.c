// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's keyed tables; see table-live.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static __always_inline void remove_words(struct kmem_live *t, void *slot,
					 size_t words)
{
	size_t hole = ((char *)slot - t->slots) / t->slot_size, i = hole;

	/*
	 * Move back the keys after the hole that could not sit in their home
	 * slot, so that no lookup stops short of them.
	 */
	for (;;) {
		void *next;
		size_t home;

		i = (i + 1) & t->mask;
		next = kmem_live__slot(t, i);
		if (kmem_live__empty_mark(next, words))
			break;
		home = kmem_live__home(t, slot_hash(next, words));
		/* It stays if its home lies cyclically in (hole, i]. */
		if (hole <= i ? hole < home && home <= i :
				hole < home || home <= i)
			continue;
		copy_slot(t, kmem_live__slot(t, hole), next);
		hole = i;
	}
	((u64 *)kmem_live__slot(t, hole))[kmem_live__mark(words)] =
		KMEM_LIVE_EMPTY;
	t->nr--;
}

void kmem_live__remove(struct kmem_live *t, void *slot)
{
	if (t->key_words == 1)
		remove_words(t, slot, 1);
	else
		remove_words(t, slot, t->key_words);
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
