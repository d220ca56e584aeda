// SPDX-License-Identifier: GPL-2.0
/*
 * The page allocations as a memory profile: see count-profile.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "count-profile.h"
#include "count-stacks.h"

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

/* --- written as pprof ------------------------------------------------- */

/*
 * Go's heap profile types, and the fallbacks and stall time of the page
 * allocator.
 */
static const struct kmem_pprof_type sample_types[KMEM_PROFILE_NR_VALUES] = {
	[KMEM_PROFILE_ALLOC_OBJECTS]	= { "alloc_objects", "count" },
	[KMEM_PROFILE_ALLOC_SPACE]	= { "alloc_space", "bytes" },
	[KMEM_PROFILE_INUSE_OBJECTS]	= { "inuse_objects", "count" },
	[KMEM_PROFILE_INUSE_SPACE]	= { "inuse_space", "bytes" },
	[KMEM_PROFILE_FALLBACKS]	= { "fallbacks", "count" },
	[KMEM_PROFILE_STALL]		= { "stall", "nanoseconds" },
};

/* The types after Go's four are there where the trace has their events. */
static bool has_type(const struct kmem_profile_write_config *c, int v)
{
	if (v == KMEM_PROFILE_FALLBACKS)
		return c->fallbacks;
	if (v == KMEM_PROFILE_STALL)
		return c->stalls;
	return true;
}

#define MAX_LABELS	7

/* The labels of a sample; the strings are in @bufs. */
static size_t sample_labels(const struct kmem_profile_sample *s,
			    const struct kmem_profile_write_config *c,
			    struct kmem_pprof_label *l, char bufs[][32])
{
	const struct kmem_profile_names *n = &c->names;
	const struct kmem_profile_key *k = &s->key;
	size_t nr = 0;

	/* An order no kernel has makes no size: 0, not a shift too far. */
	l[nr++] = (struct kmem_pprof_label){
		.key = "bytes", .unit = "bytes",
		.num = k->order >= 0 && k->order <= 31 ?
		       (s64)(c->page_size << k->order) : 0,
	};
	snprintf(bufs[0], sizeof(bufs[0]), "%d", k->order);
	l[nr++] = (struct kmem_pprof_label){ .key = "order", .str = bufs[0] };
	l[nr++] = (struct kmem_pprof_label){
		.key = "migtype",
		.str = n->migtype(k->migtype, bufs[1], sizeof(bufs[1]), n->arg),
	};
	if (k->has_gfp)
		l[nr++] = (struct kmem_pprof_label){
			.key = "gfp", .str = n->gfp(k->gfp, n->arg),
		};
	if (k->node >= 0) {
		snprintf(bufs[2], sizeof(bufs[2]), "%d", k->node);
		l[nr++] = (struct kmem_pprof_label){ .key = "node", .str = bufs[2] };
	}
	if (c->task == KMEM_PROFILE_TASK_PID) {
		snprintf(bufs[3], sizeof(bufs[3]), "%" PRIu32, k->task);
		l[nr++] = (struct kmem_pprof_label){ .key = "pid", .str = bufs[3] };
	} else if (c->task == KMEM_PROFILE_TASK_COMM) {
		l[nr++] = (struct kmem_pprof_label){
			.key = "comm", .str = n->comm(k->task, n->arg),
		};
	}
	return nr;
}

/* A sample of a period with its stack's frames, leaf first. */
struct sample_ref {
	const struct kmem_profile_sample	*s;
	const u64				*frames;
	size_t					nr;
};

static int add_sample(struct kmem_pprof *pp, const struct sample_ref *r,
		      const struct kmem_profile_write_config *c)
{
	struct kmem_pprof_label labels[MAX_LABELS];
	s64 values[KMEM_PROFILE_NR_VALUES];
	char bufs[4][32];
	size_t nr_labels, n;
	int v;

	for (v = 0, n = 0; v < KMEM_PROFILE_NR_VALUES; v++)
		if (has_type(c, v))
			values[n++] = (s64)r->s->values[v];
	nr_labels = sample_labels(r->s, c, labels, bufs);
	return kmem_pprof__add_sample(pp, r->frames, r->nr, values, labels,
				      nr_labels);
}

/*
 * Stacks compared from the root, frame by frame, then by key id: samples
 * of the same callers are neighbours in the file, which gzip compresses
 * better, and the order is the same whatever qsort does with ties.
 */
static int cmp_stack(const void *a, const void *b)
{
	const struct sample_ref *x = a, *y = b;
	size_t i;

	for (i = 0; i < x->nr && i < y->nr; i++) {
		u64 fx = x->frames[x->nr - 1 - i], fy = y->frames[y->nr - 1 - i];

		if (fx != fy)
			return fx < fy ? -1 : 1;
	}
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return x->s < y->s ? -1 : x->s > y->s;
}

static int cmp_addr(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The period's samples with their frames, in stack order; NULL: no memory. */
static struct sample_ref *sample_refs(const struct kmem_profile_period *p,
				      const struct kmem_stacks *st,
				      size_t *nr_frames)
{
	struct sample_ref *refs = malloc((p->nr ? p->nr : 1) * sizeof(*refs));
	size_t i;

	if (!refs)
		return NULL;
	*nr_frames = 0;
	for (i = 0; i < p->nr; i++) {
		refs[i] = (struct sample_ref){ .s = &p->samples[i] };
		if (p->samples[i].key.chain >= 0)
			refs[i].frames = kmem_stacks__frames(st, p->samples[i].key.chain,
							     &refs[i].nr);
		if (!refs[i].frames)
			refs[i].nr = 0;
		*nr_frames += refs[i].nr;
	}
	qsort(refs, p->nr, sizeof(*refs), cmp_stack);
	return refs;
}

/* Every address of the samples' stacks, in address order: their locations. */
static int add_locations(struct kmem_pprof *pp, const struct sample_ref *refs,
			 size_t nr, size_t nr_frames)
{
	u64 *addrs = malloc((nr_frames ? nr_frames : 1) * sizeof(*addrs));
	size_t i, n = 0;
	s64 id = 0;

	if (!addrs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		memcpy(addrs + n, refs[i].frames, refs[i].nr * sizeof(*addrs));
		n += refs[i].nr;
	}
	qsort(addrs, n, sizeof(*addrs), cmp_addr);
	for (i = 0; id >= 0 && i < n; i++)
		if (!i || addrs[i] != addrs[i - 1])
			id = kmem_pprof__add_location(pp, addrs[i]);
	free(addrs);
	return id < 0 ? id : 0;
}

static struct kmem_pprof *new_pprof(const struct kmem_profile_period *p,
				    const struct kmem_profile_write_config *c)
{
	struct kmem_pprof_type types[KMEM_PROFILE_NR_VALUES];
	struct kmem_pprof_config config = {
		.sample_types = types,
		.default_sample_type = "alloc_space",
		/* Every allocation, each of its bytes, is counted. */
		.period_type = { "space", "bytes" },
		.period = 1,
		.time_nanos = (s64)p->start + c->time_offset,
		.duration_nanos = (s64)p->length,
		.name_of = c->names.frame,
		.arg = c->names.arg,
	};
	int v;

	for (v = 0; v < KMEM_PROFILE_NR_VALUES; v++)
		if (has_type(c, v))
			types[config.nr_sample_types++] = sample_types[v];
	return kmem_pprof__new(&config);
}

static int add_header(struct kmem_pprof *pp,
		      const struct kmem_profile_write_config *c)
{
	size_t i;
	int err;

	for (i = 0; i < c->nr_comments; i++) {
		err = kmem_pprof__add_comment(pp, c->comments[i]);
		if (err)
			return err;
	}
	if (!c->kernel.file)
		return 0;
	err = kmem_pprof__add_mapping(pp, &c->kernel);
	return err < 0 ? err : 0;
}

struct kmem_pprof *kmem_profile__pprof(const struct kmem_profile *kp,
				       size_t period,
				       const struct kmem_stacks *st,
				       const struct kmem_profile_write_config *c)
{
	const struct kmem_profile_period *p = kmem_profile__period(kp, period);
	struct sample_ref *refs;
	struct kmem_pprof *pp;
	size_t i, nr_frames;
	int err;

	if (!p)
		return NULL;
	pp = new_pprof(p, c);
	if (!pp)
		return NULL;
	refs = sample_refs(p, st, &nr_frames);
	err = refs ? add_header(pp, c) : -ENOMEM;
	if (!err)
		err = add_locations(pp, refs, p->nr, nr_frames);
	for (i = 0; !err && i < p->nr; i++)
		err = add_sample(pp, &refs[i], c);
	free(refs);
	if (err) {
		kmem_pprof__delete(pp);
		return NULL;
	}
	return pp;
}
