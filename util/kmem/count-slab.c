// SPDX-License-Identifier: GPL-2.0
/*
 * Slab allocator analysis for perf kmem.
 *
 * Every pointer the trace has seen sits in a struct kmem_live keyed by
 * address, live or freed: a freed object stays so that a second free of it
 * can be told from a free of something allocated before the trace began.
 *
 * An allocation is counted in the row of its call_site and cache
 * together, and a live object points at that row, so that its free can
 * mark it without looking it up again.  The tables by callsite (the
 * function of a call_site, say) and by cache are added up from those rows
 * after the last event, and with --alloc the table by object from rows by
 * object and call_site: each event finds one row, not one in each table,
 * and each distinct call_site is resolved once, not at every event.
 * Table rows sit in one struct kmem_rows per table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count-slab.h"
#include "table-live.h"

/* A slot of the object table. */
struct object {
	u64			ptr;		/* the key */
	struct kmem_slab_row	*site;		/* of its callsite and cache */
	u32			bytes_alloc;	/* saturated */
	s32			cpu;		/* that allocated it; -1: freed */
};

#define FREED	(-1)

struct kmem_slab {
	struct kmem_slab_config		config;
	struct kmem_slab_summary	summary;
	struct kmem_live		objects;	/* struct object */
	/* By call_site and cache: what the caller and cache rows add up. */
	struct kmem_rows		sites;
	/* By object and call_site: what the --alloc rows add up. */
	struct kmem_rows		by_object;
	struct kmem_rows		rows[KMEM_SLAB_NR_TABLES];
	bool				finished;
	int				finish_err;
};

#define ROW_KEY_WORDS	3
/* Allocations from a callsite of a cache: the key of a row of ks->sites. */
#define SITE_KEY_WORDS	2

/*
 * The columns row_cmp_key() compares, as the key of the row; the cache
 * name by its address, one per name as the decoder interns them.
 */
static void row_key(u64 callsite, u64 ptr, const char *cache, u64 *key)
{
	key[0] = ptr;
	key[1] = callsite;
	key[2] = (uintptr_t)cache;
}

/* The columns that make a row of any of the tables. */
static int row_cmp_key(const void *pa, const void *pb)
{
	const struct kmem_slab_row *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?:
	       kmem_cmp(a->ptr, b->ptr) ?:
	       kmem_sort__cmp_strings(a->cache, b->cache);
}

struct kmem_slab *kmem_slab__new(const struct kmem_slab_config *config)
{
	struct kmem_slab *ks = zalloc(sizeof(*ks));
	int t, err;

	if (!ks)
		return NULL;
	ks->config = *config;
	err = kmem_live__init(&ks->objects, sizeof(struct object)) ?:
	      kmem_rows__init(&ks->sites, sizeof(struct kmem_slab_row),
			      SITE_KEY_WORDS, row_cmp_key) ?:
	      kmem_rows__init(&ks->by_object, sizeof(struct kmem_slab_row),
			      ROW_KEY_WORDS, row_cmp_key);
	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++)
		err = err ?: kmem_rows__init(&ks->rows[t],
					     sizeof(struct kmem_slab_row),
					     ROW_KEY_WORDS, row_cmp_key);
	if (err) {
		kmem_slab__delete(ks);
		return NULL;
	}
	return ks;
}

void kmem_slab__delete(struct kmem_slab *ks)
{
	int t;

	if (!ks)
		return;
	kmem_live__exit(&ks->objects);
	kmem_rows__exit(&ks->sites);
	kmem_rows__exit(&ks->by_object);
	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++)
		kmem_rows__exit(&ks->rows[t]);
	free(ks);
}

static noinline struct kmem_slab_row *add_row(struct kmem_rows *rows,
					      const u64 *key)
{
	struct kmem_slab_row row = {
		.ptr = key[0],
		.callsite = key[1],
		.cache = (const char *)(uintptr_t)key[2],
	};

	return kmem_rows__add(rows, key, &row);
}

static __always_inline struct kmem_slab_row *find_row(struct kmem_rows *rows,
						      u64 callsite, u64 ptr,
						      const char *cache)
{
	u64 key[ROW_KEY_WORDS];

	row_key(callsite, ptr, cache, key);
	return kmem_rows__find(rows, key, ROW_KEY_WORDS) ?: add_row(rows, key);
}

static noinline struct kmem_slab_row *add_site(struct kmem_slab *ks,
					       const u64 *key)
{
	struct kmem_slab_row row = {
		.callsite = key[0],
		.cache = (const char *)(uintptr_t)key[1],
	};

	return kmem_rows__add(&ks->sites, key, &row);
}

/* The row of allocations from @callsite of @cache (NULL: kmalloc). */
static __always_inline struct kmem_slab_row *find_site(struct kmem_slab *ks,
						       u64 callsite,
						       const char *cache)
{
	u64 key[SITE_KEY_WORDS] = { callsite, (uintptr_t)cache };

	return kmem_rows__find(&ks->sites, key, SITE_KEY_WORDS) ?:
	       add_site(ks, key);
}

static void count_alloc_in(struct kmem_slab_row *row,
			   const struct kmem_slab_alloc_event *ev, bool xnode)
{
	row->hits++;
	row->bytes_req += ev->bytes_req;
	row->bytes_alloc += ev->bytes_alloc;
	row->xnode += xnode;
}

/* Count the allocation in its row of callsite and cache, and per object. */
static int count_in_rows(struct kmem_slab *ks, struct object *obj,
			 const struct kmem_slab_alloc_event *ev, bool xnode)
{
	struct kmem_slab_row *row;

	obj->site = find_site(ks, ev->callsite, ev->cache);
	if (!obj->site)
		return -ENOMEM;
	count_alloc_in(obj->site, ev, xnode);
	if (!ks->config.want_alloc_table)
		return 0;
	row = find_row(&ks->by_object, ev->callsite, ev->ptr, NULL);
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
		obj = kmem_live__add(&ks->objects, obj, &ev->ptr);
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
	bool pingpong = ev->cpu != obj->cpu;
	struct kmem_slab_row *row;

	kmem_count__add(&ks->summary.life.freed, obj->bytes_alloc);
	if (pingpong)
		kmem_count__add(&ks->summary.pingpong, obj->bytes_alloc);
	obj->cpu = FREED;
	count_free_in(obj->site, pingpong);
	if (!ks->config.want_alloc_table)
		return;
	/* Found when it was allocated: no memory is needed. */
	row = find_row(&ks->by_object, obj->site->callsite, obj->ptr, NULL);
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
	obj = kmem_live__add(&ks->objects, obj, &ev->ptr);
	if (!obj)
		return -ENOMEM;
	obj->cpu = FREED;
	return 0;
}

const struct kmem_live *kmem_slab__live(const struct kmem_slab *ks)
{
	return &ks->objects;
}

static void count_live(void *slot, void *arg)
{
	const struct object *obj = slot;
	struct kmem_slab *ks = arg;

	if (obj->cpu != FREED)
		kmem_count__add(&ks->summary.life.live, obj->bytes_alloc);
}

static void sum_row(struct kmem_slab_row *to, const struct kmem_slab_row *from)
{
	to->hits += from->hits;
	to->bytes_req += from->bytes_req;
	to->bytes_alloc += from->bytes_alloc;
	to->freed += from->freed;
	to->pingpong += from->pingpong;
	to->xnode += from->xnode;
}

static u64 callsite_of(const struct kmem_slab *ks, u64 call_site)
{
	if (!ks->config.callsite)
		return call_site;
	return ks->config.callsite(call_site, ks->config.callsite_arg);
}

/* @from, added to the row of @table that its columns make. */
static void sum_into(struct kmem_slab *ks, enum kmem_slab_table table,
		     u64 callsite, u64 ptr, const char *cache,
		     const struct kmem_slab_row *from)
{
	struct kmem_slab_row *row = find_row(&ks->rows[table], callsite, ptr,
					     cache);

	if (row)
		sum_row(row, from);
	else
		ks->finish_err = -ENOMEM;
}

/* A row of call_site and cache, added to its callsite's and its cache's. */
static void sum_site(void *r, void *arg)
{
	const struct kmem_slab_row *site = r;
	struct kmem_slab *ks = arg;

	sum_into(ks, KMEM_SLAB_TABLE_CALLER, callsite_of(ks, site->callsite),
		 0, NULL, site);
	/* kmalloc does not say which cache it took the object from. */
	if (site->cache)
		sum_into(ks, KMEM_SLAB_TABLE_CACHE, 0, 0, site->cache, site);
}

/* A row of object and call_site, added to its object and callsite's. */
static void sum_object(void *r, void *arg)
{
	const struct kmem_slab_row *from = r;
	struct kmem_slab *ks = arg;

	sum_into(ks, KMEM_SLAB_TABLE_ALLOC, callsite_of(ks, from->callsite),
		 from->ptr, NULL, from);
}

void kmem_slab__finish(struct kmem_slab *ks)
{
	struct kmem_slab_summary *s = &ks->summary;

	if (ks->finished)
		return;
	ks->finished = true;
	kmem_live__for_each(&ks->objects, count_live, ks);
	kmem_rows__for_each(&ks->sites, sum_site, ks);
	kmem_rows__for_each(&ks->by_object, sum_object, ks);
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
	struct kmem_slab_row *to;

	/* Straight into the table: kmem_slab__finish() sums only events'. */
	to = find_row(&ks->rows[table], row->callsite, row->ptr, row->cache);
	if (!to)
		return -ENOMEM;
	sum_row(to, row);
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
	if (ks->finish_err) {
		*nr = 0;
		return NULL;
	}
	return (struct kmem_slab_row **)kmem_rows__sort(&ks->rows[table], NULL,
							keys, nr_keys, nr);
}
