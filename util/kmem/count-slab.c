// SPDX-License-Identifier: GPL-2.0
/*
 * Slab allocator analysis for perf kmem.
 *
 * Every pointer the trace has seen sits in a struct kmem_live keyed by
 * address, live or freed: a freed object stays so that a second free of it
 * can be told from a free of something allocated before the trace began.
 * A live object points at the pair of rows, by callsite and by cache, its
 * allocation was counted in, so that its free can mark them without
 * looking them up again; a slot is 32 bytes, two to a cache line, since
 * each event probes one at random.  Table rows sit in one struct kmem_rows
 * per table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count-slab.h"
#include "table-live.h"
#include "table-rows.h"

/* The rows an allocation from a callsite, of a cache, is counted in. */
struct row_pair {
	u64			callsite;
	const char		*cache;
	struct kmem_slab_row	*caller;
	struct kmem_slab_row	*cache_row;	/* NULL: no cache named */
};

/* A slot of the object table. */
struct object {
	u64			ptr;		/* the key */
	struct row_pair		*rows;
	u32			bytes_alloc;	/* saturated */
	s32			cpu;		/* that allocated it; -1: freed */
};

#define FREED	(-1)

#define RECENT_PAIRS_BITS	8

struct kmem_slab {
	struct kmem_slab_config		config;
	struct kmem_slab_summary	summary;
	struct kmem_live		objects;	/* struct object */
	struct kmem_rows		rows[KMEM_SLAB_NR_TABLES];
	struct kmem_rows		pairs;		/* struct row_pair */
	/* Pairs found lately, direct-mapped: see recent_pair(). */
	struct row_pair			*recent_pairs[1 << RECENT_PAIRS_BITS];
	bool				finished;
};

static int cmp_cache(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}

/*
 * Of the columns row_cmp_key() compares; the cache name by its address,
 * which is one per cache where names are interned and otherwise only
 * spreads equal names over more slots: the comparison decides.
 */
static u64 row_hash(const void *r)
{
	const struct kmem_slab_row *row = r;

	return row->callsite ^ row->ptr ^ (u64)(uintptr_t)row->cache;
}

/* The columns that make a row of any of the tables. */
static int row_cmp_key(const void *pa, const void *pb)
{
	const struct kmem_slab_row *a = pa, *b = pb;

	if (a->callsite != b->callsite)
		return a->callsite < b->callsite ? -1 : 1;
	if (a->ptr != b->ptr)
		return a->ptr < b->ptr ? -1 : 1;
	return cmp_cache(a->cache, b->cache);
}

static u64 pair_hash(const void *p)
{
	const struct row_pair *pair = p;

	return pair->callsite ^ (u64)(uintptr_t)pair->cache;
}

static int pair_cmp(const void *pa, const void *pb)
{
	const struct row_pair *a = pa, *b = pb;

	if (a->callsite != b->callsite)
		return a->callsite < b->callsite ? -1 : 1;
	return cmp_cache(a->cache, b->cache);
}

struct kmem_slab *kmem_slab__new(const struct kmem_slab_config *config)
{
	struct kmem_slab *ks = zalloc(sizeof(*ks));
	int t;

	if (!ks)
		return NULL;
	ks->config = *config;
	if (kmem_live__init(&ks->objects, sizeof(struct object))) {
		free(ks);
		return NULL;
	}
	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++) {
		kmem_rows__init(&ks->rows[t], sizeof(struct kmem_slab_row),
				row_cmp_key);
		ks->rows[t].hash = row_hash;
	}
	kmem_rows__init(&ks->pairs, sizeof(struct row_pair), pair_cmp);
	ks->pairs.hash = pair_hash;
	return ks;
}

void kmem_slab__delete(struct kmem_slab *ks)
{
	int t;

	if (!ks)
		return;
	kmem_live__exit(&ks->objects);
	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++)
		kmem_rows__exit(&ks->rows[t]);
	kmem_rows__exit(&ks->pairs);
	free(ks);
}

static struct kmem_slab_row *find_row(struct kmem_slab *ks,
				      enum kmem_slab_table table,
				      u64 callsite, u64 ptr, const char *cache)
{
	struct kmem_slab_row key = {
		.callsite = callsite,
		.ptr = ptr,
		.cache = cache,
	};

	return kmem_rows__findnew(&ks->rows[table], &key);
}

/* The rows of allocations from @callsite of @cache (NULL: kmalloc). */
static struct row_pair *find_pair(struct kmem_slab *ks, u64 callsite,
				  const char *cache)
{
	struct row_pair key = { .callsite = callsite, .cache = cache };
	struct row_pair *pair = kmem_rows__findnew(&ks->pairs, &key);

	if (!pair || pair->caller)
		return pair;
	pair->caller = find_row(ks, KMEM_SLAB_TABLE_CALLER, callsite, 0, NULL);
	/* kmalloc does not say which cache it took the object from. */
	if (cache)
		pair->cache_row = find_row(ks, KMEM_SLAB_TABLE_CACHE, 0, 0,
					   cache);
	return pair->caller && (!cache || pair->cache_row) ? pair : NULL;
}

/*
 * find_pair(), first through a direct-mapped cache.  Every allocation
 * looks its pair up, and most come from a few hundred callsites: compared
 * by the cache name's address, one per name as the decoder interns them,
 * a recent pair is found without the tables' calls through pointers.  A
 * name at another address only misses here.
 */
static struct row_pair *recent_pair(struct kmem_slab *ks, u64 callsite,
				    const char *cache)
{
	struct row_pair **slot, *pair;

	slot = &ks->recent_pairs[hash_64(callsite ^ (uintptr_t)cache,
					 RECENT_PAIRS_BITS)];
	pair = *slot;
	if (pair && pair->callsite == callsite && pair->cache == cache)
		return pair;
	pair = find_pair(ks, callsite, cache);
	if (pair)
		*slot = pair;
	return pair;
}

static void count_alloc_in(struct kmem_slab_row *row,
			   const struct kmem_slab_alloc_event *ev, bool xnode)
{
	row->hits++;
	row->bytes_req += ev->bytes_req;
	row->bytes_alloc += ev->bytes_alloc;
	row->xnode += xnode;
}

/* Count the allocation in the rows of each table. */
static int count_in_rows(struct kmem_slab *ks, struct object *obj,
			 const struct kmem_slab_alloc_event *ev, bool xnode)
{
	struct row_pair *pair = recent_pair(ks, ev->callsite, ev->cache);
	struct kmem_slab_row *row;

	if (!pair)
		return -ENOMEM;
	obj->rows = pair;
	count_alloc_in(pair->caller, ev, xnode);
	if (pair->cache_row)
		count_alloc_in(pair->cache_row, ev, xnode);
	if (!ks->config.want_alloc_table)
		return 0;
	row = find_row(ks, KMEM_SLAB_TABLE_ALLOC, ev->callsite, ev->ptr, NULL);
	if (!row)
		return -ENOMEM;
	count_alloc_in(row, ev, xnode);
	return 0;
}

/* Failures and kmalloc(0) hand out no object to follow. */
static bool count_no_object(struct kmem_slab *ks,
			    const struct kmem_slab_alloc_event *ev)
{
	if (!ev->ptr) {
		kmem_count__add(&ks->summary.fail, ev->bytes_req);
		return true;
	}
	if (ev->ptr <= KMEM_SLAB_ZERO_OR_NULL) {
		kmem_count__add(&ks->summary.zero_size, ev->bytes_alloc);
		return true;
	}
	return false;
}

int kmem_slab__alloc(struct kmem_slab *ks,
		     const struct kmem_slab_alloc_event *ev)
{
	struct kmem_slab_summary *s = &ks->summary;
	struct object *obj;
	bool xnode;

	if (count_no_object(ks, ev))
		return 0;
	kmem_count__add(&s->alloc, ev->bytes_alloc);
	s->bytes_req += ev->bytes_req;
	/* NUMA_NO_NODE (-1) asks for no node in particular. */
	xnode = ev->node >= 0 && ev->cpu_node >= 0 && ev->node != ev->cpu_node;
	if (xnode)
		kmem_count__add(&s->xnode, ev->bytes_alloc);

	obj = kmem_live__probe(&ks->objects, ev->ptr);
	if (obj->ptr != ev->ptr) {
		obj = kmem_live__add(&ks->objects, obj, ev->ptr);
		if (!obj)
			return -ENOMEM;
	} else if (obj->cpu != FREED) {
		/* Handed out again: its free took a path without a tracepoint. */
		kmem_count__add(&s->life.dropped, obj->bytes_alloc);
	}
	obj->bytes_alloc = min_t(u64, ev->bytes_alloc, UINT32_MAX);
	obj->cpu = ev->cpu < 0 ? 0 : ev->cpu;
	return count_in_rows(ks, obj, ev, xnode);
}

static void count_free_in(struct kmem_slab_row *row, bool pingpong)
{
	row->freed++;
	row->pingpong += pingpong;
}

static void free_live(struct kmem_slab *ks, struct object *obj,
		      const struct kmem_slab_free_event *ev)
{
	struct row_pair *pair = obj->rows;
	bool pingpong = ev->cpu != obj->cpu;
	struct kmem_slab_row *row;

	kmem_count__add(&ks->summary.life.freed, obj->bytes_alloc);
	if (pingpong)
		kmem_count__add(&ks->summary.pingpong, obj->bytes_alloc);
	obj->cpu = FREED;
	count_free_in(pair->caller, pingpong);
	if (pair->cache_row)
		count_free_in(pair->cache_row, pingpong);
	if (!ks->config.want_alloc_table)
		return;
	/* Found when it was allocated: no memory is needed. */
	row = find_row(ks, KMEM_SLAB_TABLE_ALLOC, pair->callsite, obj->ptr,
		       NULL);
	if (row)
		count_free_in(row, pingpong);
}

int kmem_slab__free(struct kmem_slab *ks, const struct kmem_slab_free_event *ev)
{
	struct kmem_slab_summary *s = &ks->summary;
	struct object *obj;

	s->free++;
	if (ev->ptr <= KMEM_SLAB_ZERO_OR_NULL) {
		s->free_null++;
		return 0;
	}
	obj = kmem_live__probe(&ks->objects, ev->ptr);
	if (obj->ptr == ev->ptr && obj->cpu != FREED) {
		free_live(ks, obj, ev);
		return 0;
	}
	if (obj->ptr == ev->ptr) {
		s->free_again++;
		return 0;
	}
	/* Allocated before the trace began; remember it to see it freed again. */
	s->free_unknown++;
	obj = kmem_live__add(&ks->objects, obj, ev->ptr);
	if (!obj)
		return -ENOMEM;
	obj->cpu = FREED;
	return 0;
}

void kmem_slab__prefetch(const struct kmem_slab *ks, u64 ptr)
{
	kmem_live__prefetch(&ks->objects, ptr);
}

static void count_live(void *slot, void *arg)
{
	const struct object *obj = slot;
	struct kmem_slab *ks = arg;

	if (obj->cpu != FREED)
		kmem_count__add(&ks->summary.life.live, obj->bytes_alloc);
}

void kmem_slab__finish(struct kmem_slab *ks)
{
	struct kmem_slab_summary *s = &ks->summary;

	if (ks->finished)
		return;
	ks->finished = true;
	kmem_live__for_each(&ks->objects, count_live, ks);
	s->life.unfreed = kmem_lifetime__unfreed(&s->life);
	/* No allocator hands out less than asked, but a damaged trace might. */
	s->wasted = s->alloc.bytes > s->bytes_req ?
		    s->alloc.bytes - s->bytes_req : 0;
	s->wasted_share = kmem_sort__waste(s->bytes_req, s->alloc.bytes);
}

static void add_count(struct kmem_count *to, const struct kmem_count *c)
{
	to->nr += c->nr;
	to->bytes += c->bytes;
}

void kmem_slab__add_summary(struct kmem_slab *ks,
			    const struct kmem_slab_summary *s)
{
	struct kmem_slab_summary *to = &ks->summary;

	add_count(&to->alloc, &s->alloc);
	to->bytes_req += s->bytes_req;
	add_count(&to->life.freed, &s->life.freed);
	add_count(&to->life.live, &s->life.live);
	add_count(&to->life.dropped, &s->life.dropped);
	add_count(&to->fail, &s->fail);
	add_count(&to->zero_size, &s->zero_size);
	add_count(&to->xnode, &s->xnode);
	add_count(&to->pingpong, &s->pingpong);
	to->free += s->free;
	to->free_null += s->free_null;
	to->free_unknown += s->free_unknown;
	to->free_again += s->free_again;
}

int kmem_slab__add_row(struct kmem_slab *ks, enum kmem_slab_table table,
		       const struct kmem_slab_row *row)
{
	struct kmem_slab_row *to = find_row(ks, table, row->callsite, row->ptr,
					    row->cache);

	if (!to)
		return -ENOMEM;
	to->hits += row->hits;
	to->bytes_req += row->bytes_req;
	to->bytes_alloc += row->bytes_alloc;
	to->freed += row->freed;
	to->pingpong += row->pingpong;
	to->xnode += row->xnode;
	return 0;
}

const struct kmem_slab_summary *kmem_slab__summary(const struct kmem_slab *ks)
{
	return &ks->summary;
}

struct kmem_slab_row **kmem_slab__rows(struct kmem_slab *ks,
				       enum kmem_slab_table table,
				       const struct kmem_sort_key *keys,
				       int nr_keys, size_t *nr)
{
	kmem_slab__finish(ks);
	return (struct kmem_slab_row **)kmem_rows__sort(&ks->rows[table], NULL,
							keys, nr_keys, nr);
}
