// SPDX-License-Identifier: GPL-2.0
/*
 * The page allocations as a memory profile: see count-profile.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "count-profile.h"
#include "count.h"
#include "table-live.h"

/* A key packed in words: a slot of the index is these, then the id. */
#define KEY_WORDS	3

struct kmem_profile {
	struct kmem_profile_sample	*samples;	/* by id */
	size_t				nr, max;
	struct kmem_live		index;		/* the ids by key */
	struct kmem_profile_period	*periods;
	size_t				nr_periods, max_periods;
};

struct kmem_profile *kmem_profile__new(void)
{
	struct kmem_profile *kp = calloc(1, sizeof(*kp));

	if (kp && kmem_live__init_keyed(&kp->index, (KEY_WORDS + 1) * sizeof(u64),
					KEY_WORDS, 8)) {
		free(kp);
		return NULL;
	}
	return kp;
}

void kmem_profile__delete(struct kmem_profile *kp)
{
	size_t i;

	if (!kp)
		return;
	for (i = 0; i < kp->nr_periods; i++)
		free(kp->periods[i].samples);
	free(kp->periods);
	free(kp->samples);
	kmem_live__exit(&kp->index);
	free(kp);
}

/* Every field in its own bits: equal words, equal keys. */
static void pack_key(const struct kmem_profile_key *k, u64 *w)
{
	w[0] = (u64)(u32)k->chain << 32 | (u32)(u16)k->order << 16 |
	       (u16)k->migtype;
	w[1] = (u64)(u16)k->node << 48 | (u64)k->task << 8 | k->has_gfp;
	w[2] = k->gfp;
}

static int new_key(struct kmem_profile *kp, const struct kmem_profile_key *key,
		   u64 *slot, const u64 *w)
{
	struct kmem_profile_sample *s;

	if (kp->nr >= INT32_MAX ||
	    kmem_grow(&kp->samples, &kp->max, kp->nr, 1, sizeof(*s)))
		return -ENOMEM;
	slot = kmem_live__add(&kp->index, slot, w);
	if (!slot)
		return -ENOMEM;
	slot[KEY_WORDS] = kp->nr;
	s = &kp->samples[kp->nr];
	/* Keys are told apart by their packed words: padding is not read. */
	*s = (struct kmem_profile_sample){ .key = *key };
	return kp->nr++;
}

int kmem_profile__key(struct kmem_profile *kp, const struct kmem_profile_key *key)
{
	u64 w[KEY_WORDS], *slot;

	pack_key(key, w);
	slot = kmem_live__probe_key(&kp->index, w, KEY_WORDS,
				    kmem_live__hash_words(w, KEY_WORDS));
	if (kmem_live__empty_mark(slot, KEY_WORDS))
		return new_key(kp, key, slot, w);
	return slot[KEY_WORDS];
}

int kmem_profile__add(struct kmem_profile *kp, int id,
		      enum kmem_profile_value value, u64 n)
{
	if (id < 0 || (size_t)id >= kp->nr || value < 0 ||
	    value >= KMEM_PROFILE_NR_VALUES)
		return -EINVAL;
	kp->samples[id].values[value] += n;
	return 0;
}

static bool has_value(const struct kmem_profile_sample *s)
{
	int v;

	for (v = 0; v < KMEM_PROFILE_NR_VALUES; v++)
		if (s->values[v])
			return true;
	return false;
}

int kmem_profile__close(struct kmem_profile *kp, u64 start, u64 length)
{
	struct kmem_profile_period *p;
	size_t i, n = 0;

	if (kmem_grow(&kp->periods, &kp->max_periods, kp->nr_periods, 1,
		      sizeof(*p)))
		return -ENOMEM;
	for (i = 0; i < kp->nr; i++)
		n += has_value(&kp->samples[i]);
	p = &kp->periods[kp->nr_periods];
	*p = (struct kmem_profile_period){ .start = start, .length = length };
	p->samples = malloc((n ? n : 1) * sizeof(*p->samples));
	if (!p->samples)
		return -ENOMEM;
	for (i = 0; i < kp->nr; i++) {
		struct kmem_profile_sample *s = &kp->samples[i];

		if (has_value(s))
			p->samples[p->nr++] = *s;
		memset(s->values, 0, sizeof(s->values));
	}
	kp->nr_periods++;
	return 0;
}

size_t kmem_profile__nr_periods(const struct kmem_profile *kp)
{
	return kp->nr_periods;
}

const struct kmem_profile_period *
kmem_profile__period(const struct kmem_profile *kp, size_t i)
{
	return i < kp->nr_periods ? &kp->periods[i] : NULL;
}
