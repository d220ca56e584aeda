// SPDX-License-Identifier: GPL-2.0
/*
 * Slab allocator analysis for perf kmem.
 *
 * Every pointer the trace has seen sits in an rb-tree of objects keyed by
 * address, live or freed: a freed object stays so that a second free of it
 * can be told from a free of something allocated before the trace began.
 * A live object points at the table rows its allocation was counted in, so
 * that its free can mark them without looking them up again.  Table rows
 * sit in one rb-tree per table, keyed by the columns that make a row.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>
#include <linux/zalloc.h>

#include "kmem-slab.h"
#include "kmem-rows.h"

struct object {
	struct rb_node		rb;
	u64			ptr;
	u64			bytes_alloc;
	struct kmem_slab_row	*rows[KMEM_SLAB_NR_TABLES];
	int			cpu;	/* that allocated it */
	bool			live;
};

struct kmem_slab {
	struct kmem_slab_config		config;
	struct kmem_slab_summary	summary;
	struct rb_root			objects;
	/* Rows own a copy of their cache name. */
	struct kmem_rows		rows[KMEM_SLAB_NR_TABLES];
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

/* The event's cache name lives only as long as the event. */
static int copy_cache_name(void *r)
{
	struct kmem_slab_row *row = r;

	if (!row->cache)
		return 0;
	row->cache = strdup(row->cache);
	return row->cache ? 0 : -ENOMEM;
}

static void free_cache_name(void *r)
{
	struct kmem_slab_row *row = r;

	free((char *)row->cache);
}

struct kmem_slab *kmem_slab__new(const struct kmem_slab_config *config)
{
	struct kmem_slab *ks = zalloc(sizeof(*ks));
	int t;

	if (!ks)
		return NULL;
	ks->config = *config;
	ks->objects = RB_ROOT;
	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++) {
		kmem_rows__init(&ks->rows[t], sizeof(struct kmem_slab_row),
				row_cmp_key);
		ks->rows[t].hash = row_hash;
		ks->rows[t].copy = copy_cache_name;
		ks->rows[t].release = free_cache_name;
	}
	return ks;
}

void kmem_slab__delete(struct kmem_slab *ks)
{
	struct object *obj, *tmp;
	int t;

	if (!ks)
		return;
	/* Post-order: a node is freed after both its subtrees. */
	rbtree_postorder_for_each_entry_safe(obj, tmp, &ks->objects, rb)
		free(obj);
	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++)
		kmem_rows__exit(&ks->rows[t]);
	free(ks);
}

static struct object *find_object(struct kmem_slab *ks, u64 ptr)
{
	struct rb_node *n = ks->objects.rb_node;

	while (n) {
		struct object *obj = rb_entry(n, struct object, rb);

		if (ptr == obj->ptr)
			return obj;
		n = ptr < obj->ptr ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/* Only called after find_object() found no object at @ptr. */
static struct object *new_object(struct kmem_slab *ks, u64 ptr)
{
	struct rb_node **p = &ks->objects.rb_node, *parent = NULL;
	struct object *obj;

	while (*p) {
		parent = *p;
		obj = rb_entry(parent, struct object, rb);
		p = ptr < obj->ptr ? &parent->rb_left : &parent->rb_right;
	}
	obj = zalloc(sizeof(*obj));
	if (!obj)
		return NULL;
	obj->ptr = ptr;
	rb_link_node(&obj->rb, parent, p);
	rb_insert_color(&obj->rb, &ks->objects);
	return obj;
}

static bool want_table(const struct kmem_slab *ks, enum kmem_slab_table table,
		       const struct kmem_slab_alloc_event *ev)
{
	const bool want[KMEM_SLAB_NR_TABLES] = {
		[KMEM_SLAB_TABLE_CALLER] = ks->config.want_caller_table,
		[KMEM_SLAB_TABLE_ALLOC] = ks->config.want_alloc_table,
		/* kmalloc does not say which cache it took the object from. */
		[KMEM_SLAB_TABLE_CACHE] = ks->config.want_cache_table &&
					  ev->cache,
	};

	return want[table];
}

/* Count the allocation in the rows of each table asked for. */
static int count_in_rows(struct kmem_slab *ks, struct object *obj,
			 const struct kmem_slab_alloc_event *ev, bool xnode)
{
	int t;

	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++) {
		struct kmem_slab_row key = {};
		struct kmem_slab_row *row;

		obj->rows[t] = NULL;
		if (!want_table(ks, t, ev))
			continue;
		if (t == KMEM_SLAB_TABLE_CACHE)
			key.cache = ev->cache;
		else
			key.callsite = ev->callsite;
		if (t == KMEM_SLAB_TABLE_ALLOC)
			key.ptr = ev->ptr;
		row = kmem_rows__findnew(&ks->rows[t], &key);
		if (!row)
			return -ENOMEM;
		row->hits++;
		row->bytes_req += ev->bytes_req;
		row->bytes_alloc += ev->bytes_alloc;
		row->xnode += xnode;
		obj->rows[t] = row;
	}
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

	obj = find_object(ks, ev->ptr);
	if (obj && obj->live) {
		/* Handed out again: its free took a path without a tracepoint. */
		kmem_count__add(&s->life.dropped, obj->bytes_alloc);
	} else if (!obj) {
		obj = new_object(ks, ev->ptr);
		if (!obj)
			return -ENOMEM;
	}
	obj->live = true;
	obj->bytes_alloc = ev->bytes_alloc;
	obj->cpu = ev->cpu;
	return count_in_rows(ks, obj, ev, xnode);
}

static void free_live(struct kmem_slab *ks, struct object *obj,
		      const struct kmem_slab_free_event *ev)
{
	bool pingpong = ev->cpu != obj->cpu;
	int t;

	kmem_count__add(&ks->summary.life.freed, obj->bytes_alloc);
	if (pingpong)
		kmem_count__add(&ks->summary.pingpong, obj->bytes_alloc);
	for (t = 0; t < KMEM_SLAB_NR_TABLES; t++) {
		if (!obj->rows[t])
			continue;
		obj->rows[t]->freed++;
		obj->rows[t]->pingpong += pingpong;
		obj->rows[t] = NULL;
	}
	obj->live = false;
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
	obj = find_object(ks, ev->ptr);
	if (obj && obj->live) {
		free_live(ks, obj, ev);
		return 0;
	}
	if (obj) {
		s->free_again++;
		return 0;
	}
	/* Allocated before the trace began; remember it to see it freed again. */
	s->free_unknown++;
	return new_object(ks, ev->ptr) ? 0 : -ENOMEM;
}

void kmem_slab__finish(struct kmem_slab *ks)
{
	struct rb_node *n;

	if (ks->finished)
		return;
	ks->finished = true;
	for (n = rb_first(&ks->objects); n; n = rb_next(n)) {
		struct object *obj = rb_entry(n, struct object, rb);

		if (obj->live)
			kmem_count__add(&ks->summary.life.live, obj->bytes_alloc);
	}
}

const struct kmem_slab_summary *kmem_slab__summary(const struct kmem_slab *ks)
{
	return &ks->summary;
}

double kmem_slab__frag(u64 bytes_req, u64 bytes_alloc)
{
	if (!bytes_alloc)
		return 0.0;
	return 100.0 - 100.0 * (double)bytes_req / (double)bytes_alloc;
}

static const struct kmem_sort_name sort_names[] = {
	{ "ptr",	KMEM_SLAB_SORT_PTR },
	{ "callsite",	KMEM_SLAB_SORT_CALLSITE },
	{ "hit",	KMEM_SLAB_SORT_HIT },
	{ "bytes",	KMEM_SLAB_SORT_BYTES },
	{ "frag",	KMEM_SLAB_SORT_FRAG },
	{ "pingpong",	KMEM_SLAB_SORT_PINGPONG },
	{ "cache",	KMEM_SLAB_SORT_CACHE },
};

int kmem_slab__parse_sort(const char *str, enum kmem_slab_sort_key *keys,
			  int max_keys, char *bad, size_t bad_size)
{
	int raw[KMEM_SLAB_MAX_SORT_KEYS], nr, i;

	nr = kmem_sort__parse(str, sort_names, ARRAY_SIZE(sort_names), raw,
			      min(max_keys, KMEM_SLAB_MAX_SORT_KEYS), bad, bad_size);
	for (i = 0; i < nr; i++)
		keys[i] = raw[i];
	return nr;
}


/* Most wasteful first. */
static int cmp_frag(const struct kmem_slab_row *a, const struct kmem_slab_row *b)
{
	double fa = kmem_slab__frag(a->bytes_req, a->bytes_alloc);
	double fb = kmem_slab__frag(b->bytes_req, b->bytes_alloc);

	if (fa == fb)
		return 0;
	return fa > fb ? -1 : 1;
}

static int cmp_by_key(const void *pa, const void *pb, int key)
{
	const struct kmem_slab_row *a = pa, *b = pb;

	switch (key) {
	case KMEM_SLAB_SORT_PTR:
		return kmem_sort__cmp_u64(a->ptr, b->ptr, false);
	case KMEM_SLAB_SORT_CALLSITE:
		return kmem_sort__cmp_u64(a->callsite, b->callsite, false);
	case KMEM_SLAB_SORT_HIT:
		return kmem_sort__cmp_u64(a->hits, b->hits, true);
	case KMEM_SLAB_SORT_BYTES:
		return kmem_sort__cmp_u64(a->bytes_alloc, b->bytes_alloc, true);
	case KMEM_SLAB_SORT_FRAG:
		return cmp_frag(a, b);
	case KMEM_SLAB_SORT_PINGPONG:
		return kmem_sort__cmp_u64(a->pingpong, b->pingpong, true);
	case KMEM_SLAB_SORT_CACHE:
		return cmp_cache(a->cache, b->cache);
	default:
		return 0;
	}
}

struct kmem_slab_row **kmem_slab__rows(struct kmem_slab *ks,
				       enum kmem_slab_table table,
				       const enum kmem_slab_sort_key *keys,
				       int nr_keys, size_t *nr)
{
	int raw_keys[KMEM_SLAB_MAX_SORT_KEYS], k;

	kmem_slab__finish(ks);
	for (k = 0; k < nr_keys && k < KMEM_SLAB_MAX_SORT_KEYS; k++)
		raw_keys[k] = keys[k];
	return (struct kmem_slab_row **)kmem_rows__sort(&ks->rows[table], NULL,
							cmp_by_key, raw_keys,
							k, nr);
}
