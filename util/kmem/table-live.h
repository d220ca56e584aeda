/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_TABLE_LIVE_H
#define __PERF_KMEM_TABLE_LIVE_H

/*
 * What perf kmem knows of each page or object it follows, found by its
 * u64 key (pfn or address): a hash table with open addressing and linear
 * probing, at most half full.  Every event of a trace looks its key up,
 * among up to hundreds of thousands of keys; a tree costs a cache miss a
 * level, a probe here usually one miss.
 *
 * A slot is slot_size bytes, its key first.  Slots move when the table
 * grows and when one is removed: a pointer to a slot is good until the
 * next kmem_live__add() or kmem_live__remove().
 */

#include <linux/hash.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/* The key of an empty slot: no pfn or object address is all ones. */
#define KMEM_LIVE_EMPTY		(~0ULL)

struct kmem_live {
	char	*slots;
	size_t	slot_size;
	size_t	mask;		/* slots - 1, a power of two less one */
	int	bits;		/* log2(slots) */
	size_t	nr;		/* keys in the table */
};

/**
 * kmem_live__init - an empty table
 * @t: the table
 * @slot_size: the bytes of a slot, a multiple of 8 that begins with its
 *	       u64 key
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_live__init(struct kmem_live *t, size_t slot_size);
void kmem_live__exit(struct kmem_live *t);

static inline void *kmem_live__slot(const struct kmem_live *t, size_t i)
{
	return t->slots + i * t->slot_size;
}

static inline u64 kmem_live__key(const void *slot)
{
	return *(const u64 *)slot;
}

static inline size_t kmem_live__home(const struct kmem_live *t, u64 key)
{
	return hash_64(key, t->bits);
}

/* Start loading the slot of @key: an event of it comes soon. */
static inline void kmem_live__prefetch(const struct kmem_live *t, u64 key)
{
	__builtin_prefetch(kmem_live__slot(t, kmem_live__home(t, key)));
}

/* The slot of @key, or the empty slot where it would go. */
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

/* The slot of @key; NULL if it is not in the table. */
static inline void *kmem_live__find(const struct kmem_live *t, u64 key)
{
	void *slot;

	if (key == KMEM_LIVE_EMPTY)
		return NULL;
	slot = kmem_live__probe(t, key);
	return kmem_live__key(slot) == key ? slot : NULL;
}

/**
 * kmem_live__add - make @key's slot
 * @t: the table
 * @slot: the empty slot kmem_live__probe() gave for @key
 * @key: the key, not KMEM_LIVE_EMPTY
 *
 * Return: the slot, zeroed but for its key, perhaps elsewhere than @slot
 * if the table grew; NULL: no memory.
 */
void *kmem_live__add(struct kmem_live *t, void *slot, u64 key);

/* Empty @slot; the slots after it may move to close the gap. */
void kmem_live__remove(struct kmem_live *t, void *slot);

/* Call @fn for every slot in use, in no particular order. */
void kmem_live__for_each(const struct kmem_live *t,
			 void (*fn)(void *slot, void *arg), void *arg);

#endif /* __PERF_KMEM_TABLE_LIVE_H */
