// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem stat -b: the maps' counts into the analyses.  See
 * bpf-fill.h; the maps' layout is in bpf_skel/kmem_data.h.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <linux/kernel.h>

#include "bpf-fill.h"
#include "count-frag.h"
#include "count-page.h"
#include "count-slab.h"
#include "count-stall.h"

double kmem_bpf_fill__weight(u64 bytes, u64 sample_bytes)
{
	if (sample_bytes <= 1 || !bytes)
		return 1.0;
	return 1.0 / -expm1(-(double)bytes / (double)sample_bytes);
}

u64 kmem_bpf_fill__estimate(u64 nr, u64 bytes, u64 sample_bytes)
{
	return llround((double)nr * kmem_bpf_fill__weight(bytes, sample_bytes));
}

bool kmem_bpf_fill__lifetime_exact(const struct kmem_bpf_snapshot *s)
{
	return s->exact_live || s->sample_bytes <= 1;
}

u64 kmem_bpf_fill__count(const struct kmem_bpf_snapshot *s,
			 enum kmem_bpf_counter c)
{
	return s->counts[KMEM_BPF_COUNTER_BASE + c];
}

static u64 order_count(const struct kmem_bpf_snapshot *s,
		       enum kmem_bpf_order_counter c, int order)
{
	return s->counts[KMEM_BPF_ORDER_BASE + c * KMEM_BPF_NR_ORDERS + order];
}

static u64 grid_count(const struct kmem_bpf_snapshot *s, int order, int slot)
{
	return s->counts[order * KMEM_BPF_NR_MIGTYPES + slot];
}

static u64 order_bytes(const struct kmem_bpf_snapshot *s, int order)
{
	return s->page_size << order;
}

/*
 * An order counter of the live map's pages as a count and bytes: each of
 * them stands for 1 / p allocations of its order when only the sampled
 * ones went into the map.
 */
struct estimate {
	double	nr;
	double	bytes;
};

static void add_estimate(const struct kmem_bpf_snapshot *s,
			 struct estimate *e, int order, double n)
{
	double w = 1.0;

	if (!kmem_bpf_fill__lifetime_exact(s))
		w = kmem_bpf_fill__weight(order_bytes(s, order), s->sample_bytes);
	e->nr += n * w;
	e->bytes += n * w * order_bytes(s, order);
}

static struct kmem_count to_count(const struct estimate *e)
{
	return (struct kmem_count){
		.nr = e->nr > 0 ? llround(e->nr) : 0,
		.bytes = e->bytes > 0 ? llround(e->bytes) : 0,
	};
}

static struct kmem_count order_total(const struct kmem_bpf_snapshot *s,
				     enum kmem_bpf_order_counter c)
{
	struct kmem_count total = { 0, 0 };
	int order;

	for (order = 0; order < KMEM_BPF_NR_ORDERS; order++) {
		u64 n = order_count(s, c, order);

		total.nr += n;
		total.bytes += n * order_bytes(s, order);
	}
	return total;
}

static struct kmem_count live_estimate(const struct kmem_bpf_snapshot *s,
				       enum kmem_bpf_order_counter c)
{
	struct estimate e = { 0, 0 };
	int order;

	for (order = 0; order < KMEM_BPF_NR_ORDERS; order++)
		add_estimate(s, &e, order, order_count(s, c, order));
	return to_count(&e);
}

/* Still in the map: put in, and neither freed nor allocated again since. */
static struct kmem_count still_live(const struct kmem_bpf_snapshot *s)
{
	struct estimate e = { 0, 0 };
	int order;

	for (order = 0; order < KMEM_BPF_NR_ORDERS; order++) {
		s64 n = order_count(s, KMEM_BPF_TRACKED, order) -
			order_count(s, KMEM_BPF_FREED, order) -
			order_count(s, KMEM_BPF_DROPPED, order);

		/* A free may be read before the allocation it ends. */
		if (n > 0)
			add_estimate(s, &e, order, n);
	}
	return to_count(&e);
}

/* @c, no more than @max: a count or bytes past an exact bound it breaks down. */
static void bound(struct kmem_count *c, struct kmem_count max)
{
	c->nr = min(c->nr, max.nr);
	c->bytes = min(c->bytes, max.bytes);
}

static struct kmem_count less(struct kmem_count a, struct kmem_count b)
{
	return (struct kmem_count){
		.nr = a.nr > b.nr ? a.nr - b.nr : 0,
		.bytes = a.bytes > b.bytes ? a.bytes - b.bytes : 0,
	};
}

/*
 * The lifetime groups estimated from a sample are pieces of the exact
 * totals: a few samples of 4 KiB pages, each standing for 128 of them,
 * can estimate more pages freed than were freed, or allocated.  Each is
 * kept within what the totals leave it.
 */
static void bound_lifetimes(struct kmem_page_summary *out)
{
	bound(&out->life.freed, out->free);
	bound(&out->life.freed, out->alloc);
	bound(&out->life.dropped, less(out->alloc, out->life.freed));
	bound(&out->life.live, less(less(out->alloc, out->life.freed),
				    out->life.dropped));
	bound(&out->free_other_node, out->life.freed);
}

/* Frees of pages the map did not hold: exact, or all frees but those. */
static struct kmem_count free_only(const struct kmem_bpf_snapshot *s,
				   const struct kmem_page_summary *sum)
{
	struct kmem_count c;

	if (kmem_bpf_fill__lifetime_exact(s))
		return order_total(s, KMEM_BPF_FREE_ONLY);
	c.nr = sum->free.nr > sum->life.freed.nr ?
	       sum->free.nr - sum->life.freed.nr : 0;
	c.bytes = sum->free.bytes > sum->life.freed.bytes ?
		  sum->free.bytes - sum->life.freed.bytes : 0;
	return c;
}

static void fail_totals(const struct kmem_bpf_snapshot *s,
			struct kmem_count *fail)
{
	size_t i;

	for (i = 0; i < s->nr_fails; i++) {
		if (s->fail_keys[i].order >= KMEM_BPF_NR_ORDERS)
			continue;
		fail->nr += s->fails[i];
		fail->bytes += s->fails[i] *
			       order_bytes(s, s->fail_keys[i].order);
	}
}

void kmem_bpf_fill__page_summary(const struct kmem_bpf_snapshot *s,
				 struct kmem_page_summary *out)
{
	int order, slot;

	memset(out, 0, sizeof(*out));
	for (order = 0; order < KMEM_BPF_NR_ORDERS; order++) {
		for (slot = 0; slot < KMEM_BPF_NR_MIGTYPES; slot++) {
			u64 n = grid_count(s, order, slot);

			out->alloc.nr += n;
			out->alloc.bytes += n * order_bytes(s, order);
		}
		out->bad_migtype += grid_count(s, order, KMEM_BPF_BAD_MIGTYPE);
	}
	fail_totals(s, &out->fail);
	out->free = order_total(s, KMEM_BPF_FREE);
	out->alloc_remote = order_total(s, KMEM_BPF_ALLOC_REMOTE);
	out->free_remote = order_total(s, KMEM_BPF_FREE_REMOTE);
	out->bad_order = kmem_bpf_fill__count(s, KMEM_BPF_BAD_ORDER) +
			 kmem_bpf_fill__count(s, KMEM_BPF_BAD_FREE_ORDER);
	out->life.freed = live_estimate(s, KMEM_BPF_FREED);
	out->life.dropped = live_estimate(s, KMEM_BPF_DROPPED);
	out->life.live = still_live(s);
	out->free_other_node = live_estimate(s, KMEM_BPF_FREED_XNODE);
	out->free_order_differs = live_estimate(s, KMEM_BPF_ORDER_DIFFERS).nr;
	if (!kmem_bpf_fill__lifetime_exact(s))
		bound_lifetimes(out);
	out->free_only = free_only(s, out);
}

/* Which column of the matrix a fallback's fields make: see kmem-frag.h. */
static int fallback_class(const struct kmem_bpf_snapshot *s,
			  const struct kmem_bpf_fallback_key *k)
{
	if (k->fallback_order >= s->pageblock_order)
		return KMEM_FRAG_CLAIMED;
	return k->change_ownership ? KMEM_FRAG_CONVERTED : KMEM_FRAG_POLLUTED;
}

void kmem_bpf_fill__frag_totals(const struct kmem_bpf_snapshot *s,
				struct kmem_frag_summary *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->nr_fallbacks; i++) {
		const struct kmem_bpf_fallback_key *k = &s->fallback_keys[i];
		u64 bytes;

		if (k->alloc_order < 0 || k->alloc_order >= KMEM_BPF_NR_ORDERS)
			continue;
		bytes = s->fallbacks[i] * order_bytes(s, k->alloc_order);
		out->fallbacks.nr += s->fallbacks[i];
		out->fallbacks.bytes += bytes;
		if (s->pageblock_order < 0)
			continue;
		out->classes[fallback_class(s, k)].nr += s->fallbacks[i];
		out->classes[fallback_class(s, k)].bytes += bytes;
	}
	fail_totals(s, &out->fail);
}

/* --- the page analysis ---------------------------------------------- */

static u64 row_estimate(const struct kmem_bpf_snapshot *s,
			const struct kmem_bpf_row_key *k, u64 n)
{
	return kmem_bpf_fill__estimate(n, order_bytes(s, k->order),
				       s->sample_bytes);
}

static int add_page_row(const struct kmem_bpf_snapshot *s, struct kmem_page *kp,
			const struct kmem_bpf_namer *namer, size_t i)
{
	const struct kmem_bpf_row_key *k = &s->row_keys[i];
	const struct kmem_bpf_row *v = &s->rows[i];
	struct kmem_page_row row = {
		.callsite = namer->callsite(k->stack_id, namer->arg),
		.gfp = k->gfp,
		.order = k->order,
		.migtype = k->migtype,
		.hits = row_estimate(s, k, v->samples),
		.freed = row_estimate(s, k, v->freed),
		.dropped = row_estimate(s, k, v->dropped),
		.xnode_frees = row_estimate(s, k, v->xnode_frees),
	};

	if (k->order >= KMEM_BPF_NR_ORDERS)
		return 0;
	/* Rounded apart, they could come to more than the hits. */
	if (row.freed + row.dropped > row.hits)
		row.hits = row.freed + row.dropped;
	return kmem_page__add_row(kp, KMEM_PAGE_TABLE_CALLER, &row);
}

static void add_node_matrix(const struct kmem_bpf_snapshot *s,
			    struct kmem_page *kp)
{
	int from, to, order, n = s->nr_nodes;

	for (from = 0; s->node_counts && from < n; from++) {
		for (to = 0; to < n; to++) {
			struct estimate e = { 0, 0 };
			const u64 *c = &s->node_counts[(from * n + to) *
						       KMEM_BPF_NR_ORDERS];

			for (order = 0; order < KMEM_BPF_NR_ORDERS; order++)
				add_estimate(s, &e, order, c[order]);
			kmem_page__add_node_bytes(kp, from, to,
						  to_count(&e).bytes);
		}
	}
}

int kmem_bpf_fill__page(const struct kmem_bpf_snapshot *s,
			struct kmem_page *kp,
			const struct kmem_bpf_namer *namer)
{
	struct kmem_page_summary sum;
	int order, slot, err;
	size_t i;

	kmem_bpf_fill__page_summary(s, &sum);
	kmem_page__add_summary(kp, &sum);
	for (order = 0; order < KMEM_BPF_NR_ORDERS; order++)
		for (slot = 0; slot < KMEM_BPF_NR_MIGTYPES; slot++)
			kmem_page__add_grid(kp, order, slot,
					    grid_count(s, order, slot));
	add_node_matrix(s, kp);
	for (i = 0; i < s->nr_rows; i++) {
		err = add_page_row(s, kp, namer, i);
		if (err)
			return err;
	}
	return 0;
}

/* --- the fragmentation analysis ------------------------------------- */

static int add_grid_allocs(const struct kmem_bpf_snapshot *s,
			   struct kmem_frag *kf)
{
	int order, slot, err;

	for (order = 0; order < KMEM_BPF_NR_ORDERS; order++) {
		for (slot = 0; slot < KMEM_BPF_NR_MIGTYPES; slot++) {
			struct kmem_page_event ev = {
				.order = order, .migtype = slot,
			};
			u64 n = grid_count(s, order, slot);

			if (!n)
				continue;
			err = kmem_frag__add_allocs(kf, &ev, n, KMEM_FRAG_TOTALS);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Failed allocations, of a callsite or (0) of none. */
static int add_failures(struct kmem_frag *kf, u64 gfp, u32 order, int migtype,
			u64 callsite, u64 nr, unsigned int parts)
{
	struct kmem_page_event ev = {
		.pfn = KMEM_PAGE_NO_PFN,
		.gfp = gfp,
		.callsite = callsite,
		.order = min_t(u32, order, SHRT_MAX),
		.migtype = migtype,
	};

	return kmem_frag__add_allocs(kf, &ev, nr, parts);
}

static int add_fails(const struct kmem_bpf_snapshot *s, struct kmem_frag *kf)
{
	size_t i;
	int err;

	for (i = 0; i < s->nr_fails; i++) {
		const struct kmem_bpf_fail_key *k = &s->fail_keys[i];

		err = add_failures(kf, k->gfp, k->order, k->migtype, 0,
				   s->fails[i], KMEM_FRAG_TOTALS);
		if (err)
			return err;
	}
	return 0;
}

static struct kmem_frag_event fallback_event(const struct kmem_bpf_fallback_key *k)
{
	return (struct kmem_frag_event){
		.alloc_order = k->alloc_order,
		.fallback_order = k->fallback_order,
		.alloc_migtype = k->alloc_migtype,
		.fallback_migtype = k->fallback_migtype,
		.change_ownership = k->change_ownership,
	};
}

static int add_fallbacks(const struct kmem_bpf_snapshot *s,
			 struct kmem_frag *kf)
{
	size_t i;
	int err;

	for (i = 0; i < s->nr_fallbacks; i++) {
		struct kmem_frag_event ev = fallback_event(&s->fallback_keys[i]);

		err = kmem_frag__add_fallbacks(kf, &ev, s->fallbacks[i],
					       KMEM_FRAG_TOTALS);
		if (err)
			return err;
	}
	return 0;
}

/* A failure or fallback row: those within the rate, and the sampled. */
static u64 rare_estimate(const struct kmem_bpf_snapshot *s,
			 const struct kmem_bpf_rare_key *k,
			 const struct kmem_bpf_rare *v)
{
	return v->taken + kmem_bpf_fill__estimate(v->sampled,
						  order_bytes(s, k->order),
						  s->sample_bytes);
}

static int add_rare_row(const struct kmem_bpf_snapshot *s, struct kmem_frag *kf,
			const struct kmem_bpf_namer *namer, size_t i)
{
	const struct kmem_bpf_rare_key *k = &s->rare_keys[i];
	u64 callsite = namer->callsite(k->stack_id, namer->arg);
	u64 n = rare_estimate(s, k, &s->rare[i]);
	struct kmem_frag_event ev = {
		.alloc_order = k->order,
		.fallback_order = k->fallback_order,
		.alloc_migtype = k->migtype,
		.fallback_migtype = k->fallback_migtype,
		.change_ownership = k->change_ownership,
		.callsite = callsite,
	};

	if (k->order >= KMEM_BPF_NR_ORDERS)
		return 0;
	if (k->kind == KMEM_BPF_RARE_FAIL)
		return add_failures(kf, k->gfp, k->order, k->migtype, callsite,
				    n, KMEM_FRAG_ROWS);
	return kmem_frag__add_fallbacks(kf, &ev, n, KMEM_FRAG_ROWS);
}

static int add_blocks(const struct kmem_bpf_snapshot *s, struct kmem_frag *kf)
{
	size_t i;
	int c, err;

	if (s->pageblock_order < 0)
		return 0;
	for (i = 0; i < s->nr_blocks; i++) {
		const struct kmem_bpf_block *b = &s->blocks[i];
		struct kmem_frag_pageblock pb = {
			.pfn = (u64)i << s->pageblock_order,
			.remote_frees = b->remote_frees,
		};

		/* The analysis knows only pageblocks allocated into. */
		if (!b->seen)
			continue;
		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
			pb.allocs[c] = !!(b->seen & (1U << c));
		for (c = 0; c < KMEM_FRAG_NR_CLASSES; c++)
			pb.fallbacks[c] = !!(b->seen &
					     (1U << (KMEM_BPF_BLOCK_FALLBACK + c)));
		err = kmem_frag__add_pageblock(kf, &pb);
		if (err)
			return err;
	}
	return 0;
}

int kmem_bpf_fill__frag(const struct kmem_bpf_snapshot *s,
			struct kmem_frag *kf,
			const struct kmem_bpf_namer *namer)
{
	size_t i;
	int err;

	err = add_grid_allocs(s, kf);
	if (!err)
		err = add_fails(s, kf);
	if (!err)
		err = add_fallbacks(s, kf);
	for (i = 0; !err && i < s->nr_rare; i++)
		err = add_rare_row(s, kf, namer, i);
	if (!err)
		err = add_blocks(s, kf);
	return err;
}

/* --- the slab analysis ---------------------------------------------- */

static void add_slab_summary(struct kmem_slab_summary *sum,
			     const struct kmem_bpf_slab *v)
{
	sum->alloc.nr += v->hits;
	sum->alloc.bytes += v->bytes_alloc;
	sum->bytes_req += v->bytes_req;
	sum->fail.nr += v->fails;
	sum->fail.bytes += v->fail_bytes;
	sum->zero_size.nr += v->zero_size;
	sum->xnode.nr += v->xnode;
	sum->xnode.bytes += v->xnode_bytes;
}

static int add_slab_rows(struct kmem_slab *ks, const struct kmem_bpf_namer *namer,
			 const struct kmem_bpf_slab_key *k,
			 const struct kmem_bpf_slab *v)
{
	struct kmem_slab_row row = {
		.callsite = namer->function(k->call_site, namer->arg),
		.hits = v->hits,
		.bytes_req = v->bytes_req,
		.bytes_alloc = v->bytes_alloc,
		.xnode = v->xnode,
	};
	char name[KMEM_BPF_CACHE_NAME];
	int err;

	/* Failures and kmalloc(0) make no row, as in a recording. */
	if (!v->hits)
		return 0;
	err = kmem_slab__add_row(ks, KMEM_SLAB_TABLE_CALLER, &row);
	if (err || !k->cache[0])
		return err;
	memcpy(name, k->cache, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	row.callsite = 0;
	row.cache = namer->cache(name, namer->arg);
	if (!row.cache)
		return -ENOMEM;
	return kmem_slab__add_row(ks, KMEM_SLAB_TABLE_CACHE, &row);
}

int kmem_bpf_fill__slab(const struct kmem_bpf_snapshot *s,
			struct kmem_slab *ks,
			const struct kmem_bpf_namer *namer)
{
	struct kmem_slab_summary sum;
	size_t i;
	int err;

	memset(&sum, 0, sizeof(sum));
	sum.free = kmem_bpf_fill__count(s, KMEM_BPF_SLAB_FREE);
	sum.free_null = kmem_bpf_fill__count(s, KMEM_BPF_SLAB_FREE_NULL);
	for (i = 0; i < s->nr_slab; i++) {
		add_slab_summary(&sum, &s->slab[i]);
		err = add_slab_rows(ks, namer, &s->slab_keys[i], &s->slab[i]);
		if (err)
			return err;
	}
	kmem_slab__add_summary(ks, &sum);
	return 0;
}

/* --- stalls ------------------------------------------------------------ */

/* The ring's event types are the stall analysis's, in its order. */
#define SAME(_type)	((int)KMEM_BPF_STALL_##_type == (int)KMEM_STALL_##_type)
static_assert(SAME(RECLAIM_BEGIN) && SAME(RECLAIM_END) && SAME(MEMCG_BEGIN) &&
	      SAME(MEMCG_END) && SAME(COMPACT_TRY) && SAME(COMPACT_BEGIN) &&
	      SAME(COMPACT_END) && SAME(COMPACT_DEFERRED) &&
	      SAME(KSWAPD_WAKEUP) && SAME(KSWAPD_WAKE) &&
	      SAME(KCOMPACTD_WAKEUP) && SAME(KCOMPACTD_WAKE) &&
	      (int)KMEM_BPF_STALL_ALLOC == (int)KMEM_STALL_NR_TYPES,
	      "the ring's stall types");
#undef SAME

/* The callsite of a record with a stack; 0 without one. */
static u64 stall_callsite(const struct kmem_bpf_stall *r, size_t size,
			  bool memcg, kmem_bpf_frames_fn callsite, void *arg)
{
	const struct kmem_bpf_stall_stack *rs = (const void *)r;
	size_t nr = min_t(size_t, r->nr_ips, KMEM_BPF_MAX_STACK);

	if (size < sizeof(*rs) || !nr)
		return 0;
	return callsite((const u64 *)rs->ips, nr, memcg, arg);
}

int kmem_bpf_fill__stall(struct kmem_stall *st, const void *data, size_t size,
			 kmem_bpf_frames_fn callsite, void *arg)
{
	const struct kmem_bpf_stall *r = data;
	struct kmem_stall_event ev;
	struct kmem_page_event page;

	if (size < sizeof(*r) || r->type >= KMEM_BPF_NR_STALL_TYPES)
		return -EINVAL;
	if (r->type == KMEM_BPF_STALL_ALLOC) {
		page = (struct kmem_page_event){
			.pfn = r->value,
			.gfp = r->gfp,
			.callsite = stall_callsite(r, size, false, callsite, arg),
			.order = r->order,
			.migtype = clamp(r->migtype, SHRT_MIN, SHRT_MAX),
			.cpu_node = -1,
			.page_node = -1,
		};
		return kmem_stall__alloc(st, r->tid, r->time, &page);
	}
	ev = (struct kmem_stall_event){
		.gfp = r->gfp,
		.value = r->value,
		.order = r->order,
		.type = r->type,
	};
	if (r->type == KMEM_BPF_STALL_MEMCG_BEGIN)
		ev.callsite = stall_callsite(r, size, true, callsite, arg);
	return kmem_stall__event(st, r->tid, r->time, &ev);
}
