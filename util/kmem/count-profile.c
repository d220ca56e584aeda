// SPDX-License-Identifier: GPL-2.0
/*
 * The page allocations as a memory profile: see count-profile.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "count-profile.h"

struct kmem_profile {
	struct kmem_profile_sample	*samples;	/* by id */
	size_t				nr, max;
	u32				*slots;		/* id + 1; 0 empty */
	size_t				nr_slots;	/* a power of two */
	struct kmem_profile_period	*periods;
	size_t				nr_periods, max_periods;
	size_t				last;	/* id + 1 of the last key; 0 none */
};

struct kmem_profile *kmem_profile__new(void)
{
	return calloc(1, sizeof(struct kmem_profile));
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
	free(kp->slots);
	free(kp);
}

static u32 key_hash(const struct kmem_profile_key *k)
{
	u64 h = (u64)(u32)k->chain << 32 | (u16)k->order << 16 | (u16)k->migtype;

	h ^= ((u64)(u16)k->node << 48 | (u64)k->task << 8 | k->has_gfp) *
	     0x9e3779b97f4a7c15ULL;
	h ^= k->gfp * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdULL;
	return (u32)(h >> 32);
}

static bool key_equal(const struct kmem_profile_key *a,
		      const struct kmem_profile_key *b)
{
	return a->chain == b->chain && a->order == b->order &&
	       a->migtype == b->migtype && a->node == b->node &&
	       a->task == b->task && a->gfp == b->gfp &&
	       a->has_gfp == b->has_gfp;
}

static u32 *key_slot(struct kmem_profile *kp, const struct kmem_profile_key *k,
		     u32 hash)
{
	size_t mask = kp->nr_slots - 1, i = hash & mask;

	while (kp->slots[i] && !key_equal(&kp->samples[kp->slots[i] - 1].key, k))
		i = (i + 1) & mask;
	return &kp->slots[i];
}

/* Keep the table at most half full, so that probes stay short. */
static int grow_slots(struct kmem_profile *kp)
{
	size_t n = kp->nr_slots ? 2 * kp->nr_slots : 256, i;
	u32 *old = kp->slots;

	if (2 * (kp->nr + 1) <= kp->nr_slots)
		return 0;
	kp->slots = calloc(n, sizeof(*kp->slots));
	if (!kp->slots) {
		kp->slots = old;
		return -ENOMEM;
	}
	kp->nr_slots = n;
	for (i = 0; i < kp->nr; i++)
		*key_slot(kp, &kp->samples[i].key,
			  key_hash(&kp->samples[i].key)) = i + 1;
	free(old);
	return 0;
}

static int grow_samples(struct kmem_profile *kp)
{
	size_t max = kp->max ? 2 * kp->max : 256;
	struct kmem_profile_sample *s;

	if (kp->nr < kp->max)
		return 0;
	s = realloc(kp->samples, max * sizeof(*s));
	if (!s)
		return -ENOMEM;
	kp->samples = s;
	kp->max = max;
	return 0;
}

static int new_key(struct kmem_profile *kp, const struct kmem_profile_key *key,
		   u32 hash)
{
	struct kmem_profile_sample *s;

	if (kp->nr >= INT32_MAX || grow_slots(kp) || grow_samples(kp))
		return -ENOMEM;
	s = &kp->samples[kp->nr];
	memset(s, 0, sizeof(*s));
	s->key.chain = key->chain;
	s->key.order = key->order;
	s->key.migtype = key->migtype;
	s->key.node = key->node;
	s->key.task = key->task;
	s->key.gfp = key->gfp;
	s->key.has_gfp = key->has_gfp;
	*key_slot(kp, key, hash) = kp->nr + 1;
	return kp->nr++;
}

/*
 * Allocations come in runs of one key (a fault loop, a file read): the
 * last key is compared before anything is hashed.
 */
int kmem_profile__key(struct kmem_profile *kp, const struct kmem_profile_key *key)
{
	u32 hash, *slot;
	int id;

	if (kp->last && key_equal(&kp->samples[kp->last - 1].key, key))
		return kp->last - 1;
	hash = key_hash(key);
	if (kp->nr_slots) {
		slot = key_slot(kp, key, hash);
		if (*slot) {
			kp->last = *slot;
			return *slot - 1;
		}
	}
	id = new_key(kp, key, hash);
	if (id >= 0)
		kp->last = id + 1;
	return id;
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

	if (kp->nr_periods == kp->max_periods) {
		size_t max = kp->max_periods ? 2 * kp->max_periods : 16;

		p = realloc(kp->periods, max * sizeof(*p));
		if (!p)
			return -ENOMEM;
		kp->periods = p;
		kp->max_periods = max;
	}
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
