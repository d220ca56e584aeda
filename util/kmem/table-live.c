// SPDX-License-Identifier: GPL-2.0
/*
 * The pages and objects perf kmem follows, by key; see table-live.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "table-live.h"

#define LIVE_MIN_BITS	12

static int alloc_slots(struct kmem_live *t, int bits)
{
	size_t i, nr = (size_t)1 << bits;

	t->slots = malloc(nr * t->slot_size);
	if (!t->slots)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		*(u64 *)kmem_live__slot(t, i) = KMEM_LIVE_EMPTY;
	t->bits = bits;
	t->mask = nr - 1;
	t->nr = 0;
	return 0;
}

int kmem_live__init(struct kmem_live *t, size_t slot_size)
{
	memset(t, 0, sizeof(*t));
	if (slot_size < sizeof(u64) || slot_size % sizeof(u64))
		return -EINVAL;
	t->slot_size = slot_size;
	return alloc_slots(t, LIVE_MIN_BITS);
}

void kmem_live__exit(struct kmem_live *t)
{
	free(t->slots);
	t->slots = NULL;
	t->nr = 0;
}

/* Twice the slots, the keys hashed anew. */
static int grow(struct kmem_live *t)
{
	struct kmem_live old = *t;
	size_t i;

	if (alloc_slots(t, old.bits + 1)) {
		*t = old;
		return -ENOMEM;
	}
	for (i = 0; i <= old.mask; i++) {
		void *from = kmem_live__slot(&old, i);

		if (kmem_live__key(from) == KMEM_LIVE_EMPTY)
			continue;
		memcpy(kmem_live__probe(t, kmem_live__key(from)), from,
		       t->slot_size);
	}
	t->nr = old.nr;
	free(old.slots);
	return 0;
}

void *kmem_live__add(struct kmem_live *t, void *slot, u64 key)
{
	/* Grown, the table has another slot for @key. */
	if (2 * (t->nr + 1) > t->mask + 1) {
		if (grow(t))
			return NULL;
		slot = kmem_live__probe(t, key);
	}
	memset(slot, 0, t->slot_size);
	*(u64 *)slot = key;
	t->nr++;
	return slot;
}

void kmem_live__remove(struct kmem_live *t, void *slot)
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
		if (kmem_live__key(next) == KMEM_LIVE_EMPTY)
			break;
		home = kmem_live__home(t, kmem_live__key(next));
		/* It stays if its home lies cyclically in (hole, i]. */
		if (hole <= i ? hole < home && home <= i :
				hole < home || home <= i)
			continue;
		memcpy(kmem_live__slot(t, hole), next, t->slot_size);
		hole = i;
	}
	*(u64 *)kmem_live__slot(t, hole) = KMEM_LIVE_EMPTY;
	t->nr--;
}

void kmem_live__for_each(const struct kmem_live *t,
			 void (*fn)(void *slot, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i <= t->mask; i++) {
		void *slot = kmem_live__slot(t, i);

		if (kmem_live__key(slot) != KMEM_LIVE_EMPTY)
			fn(slot, arg);
	}
}
