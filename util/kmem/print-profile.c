// SPDX-License-Identifier: GPL-2.0
/*
 * A period of the memory profile (count-profile.h) as a pprof profile,
 * through the pprof writer: the analysis sums the samples, this renders
 * them, so that nothing that counts includes the writer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "count-profile.h"
#include "count.h"
#include "count-stacks.h"
#include "print-pprof.h"

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
			return kmem_cmp(fx, fy);
	}
	return kmem_cmp(x->nr, y->nr) ?: kmem_cmp(x->s, y->s);
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
		/* No frames for no chain (-1). */
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
		/* A sample with no kernel frame left has no array to copy. */
		if (!refs[i].nr)
			continue;
		memcpy(addrs + n, refs[i].frames, refs[i].nr * sizeof(*addrs));
		n += refs[i].nr;
	}
	qsort(addrs, n, sizeof(*addrs), kmem_cmp_u64s);
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
	/* The frames are named by names.frame: pprof need not look. */
	err = kmem_pprof__add_mapping(pp, &(struct kmem_pprof_mapping){
		.start = c->kernel.start, .limit = c->kernel.limit,
		.file = c->kernel.file, .build_id = c->kernel.build_id,
		.has_functions = true,
	});
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
