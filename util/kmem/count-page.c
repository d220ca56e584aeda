// SPDX-License-Identifier: GPL-2.0
/*
 * Page allocator analysis for perf kmem.
 *
 * Live pages sit in a struct kmem_live keyed by pfn.  Each live page
 * points at the table rows its allocation was counted in, so that a free
 * found later can mark those rows without looking them up again.  Table
 * rows sit in one struct kmem_rows per table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count-page.h"
#include "table-live.h"

/* A slot of the live table. */
struct live_page {
	u64			pfn;		/* the key */
	struct kmem_page_row	*rows[KMEM_PAGE_NR_TABLES];
	s16			cpu_node;	/* allocating CPU's, if valid_node() */
	u8			order;
	bool			fell_back;	/* kmem_page__walk_fallen() */
	u32			tag;		/* the allocation's */
};

struct kmem_page {
	struct kmem_page_config		config;
	struct kmem_page_summary	summary;
	u64				grid[KMEM_PAGE_MAX_ORDER + 1][KMEM_NR_MIGTYPE_COLUMNS];
	int				max_order;
	struct kmem_live		live;		/* struct live_page */
	struct kmem_rows		rows[KMEM_PAGE_NR_TABLES];
	u64				*node_matrix;	/* nr_nodes x nr_nodes */
	/* Allocations that fell back: none, no walk of the live pages. */
	u64				nr_fell_back;
	bool				finished;
};

/* The columns that make a row of either table. */
static int row_cmp_key(const void *pa, const void *pb)
{
	const struct kmem_page_row *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?:
	       kmem_cmp(a->pfn, b->pfn) ?:
	       kmem_cmp(a->order, b->order) ?:
	       kmem_cmp(a->migtype, b->migtype) ?:
	       kmem_cmp(a->gfp, b->gfp) ?:
	       kmem_cmp(a->task, b->task);
}

#define ROW_KEY_WORDS	5

/*
 * The key of an allocation's row: the columns row_cmp_key() compares,
 * @pfn the allocation's in the --alloc table, 0 in the other.
 */
static void event_key(const struct kmem_page_event *ev, u64 pfn, u64 *key)
{
	key[0] = pfn;
	key[1] = ev->callsite;
	key[2] = ev->gfp;
	key[3] = (u64)(u32)(int)ev->order << 32 | (u32)(int)ev->migtype;
	key[4] = ev->task;
}

struct kmem_page *kmem_page__new(const struct kmem_page_config *config)
{
	struct kmem_page *kp = zalloc(sizeof(*kp));
	int nr_nodes, t;

	if (!kp)
		return NULL;
	kp->config = *config;
	if (!kp->config.page_size)
		kp->config.page_size = 4096;
	nr_nodes = kp->config.nr_nodes;
	/* Between the nodes of one, nothing crosses: not followed. */
	if (nr_nodes < 0 || nr_nodes == 1 || nr_nodes > KMEM_PAGE_MAX_NODES) {
		nr_nodes = 0;
		kp->config.nr_nodes = 0;
	}
	if (nr_nodes)
		kp->node_matrix = calloc(nr_nodes * nr_nodes, sizeof(u64));
	if ((nr_nodes && !kp->node_matrix) ||
	    kmem_live__init(&kp->live, sizeof(struct live_page))) {
		kmem_page__delete(kp);
		return NULL;
	}
	for (t = 0; t < KMEM_PAGE_NR_TABLES; t++) {
		if (kmem_rows__init(&kp->rows[t], sizeof(struct kmem_page_row),
				    ROW_KEY_WORDS, row_cmp_key)) {
			kmem_page__delete(kp);
			return NULL;
		}
	}
	return kp;
}

void kmem_page__delete(struct kmem_page *kp)
{
	int t;

	if (!kp)
		return;
	kmem_live__exit(&kp->live);
	for (t = 0; t < KMEM_PAGE_NR_TABLES; t++)
		kmem_rows__exit(&kp->rows[t]);
	free(kp->node_matrix);
	free(kp);
}

static u64 order_bytes(const struct kmem_page *kp, int order)
{
	return kp->config.page_size << order;
}

static bool valid_node(const struct kmem_page *kp, int node)
{
	return node >= 0 && node < kp->config.nr_nodes;
}

/*
 * Did a CPU of one node touch a page of another?  Nodes outside the
 * topology are unknown, so without one (nr_nodes 0) nothing is remote.
 * The page's first: on a trace of one node it has none.
 */
static bool remote(const struct kmem_page *kp, const struct kmem_page_event *ev)
{
	return valid_node(kp, ev->page_node) && valid_node(kp, ev->cpu_node) &&
	       ev->cpu_node != ev->page_node;
}

enum kmem_migtype_column kmem_migtype__column(int migtype, bool pre_v4_4)
{
	/* v4.4 (016c13daa5c9) swapped Movable and Reclaimable. */
	static const enum kmem_migtype_column current_kernels[] = {
		KMEM_MIGTYPE_UNMOVABLE, KMEM_MIGTYPE_MOVABLE, KMEM_MIGTYPE_RECLAIMABLE,
	};
	static const enum kmem_migtype_column old_kernels[] = {
		KMEM_MIGTYPE_UNMOVABLE, KMEM_MIGTYPE_RECLAIMABLE, KMEM_MIGTYPE_MOVABLE,
	};

	if (migtype < 0 || migtype >= (int)ARRAY_SIZE(current_kernels))
		return KMEM_MIGTYPE_SPECIAL;
	if (pre_v4_4)
		return old_kernels[migtype];
	return current_kernels[migtype];
}

const char * const kmem_migtype_columns[KMEM_NR_MIGTYPE_COLUMNS] = {
	"Unmovable", "Reclaimable", "Movable", "Special",
};

const char *kmem_migtype__name(int migtype, bool pre_v4_4, char *buf,
			       size_t size)
{
	static const char * const current_kernels[] = {
		"Unmovable", "Movable", "Reclaimable", "HighAtomic",
		"CMA/Isolate", "Isolate",
	};
	static const char * const old_kernels[] = {
		"Unmovable", "Reclaimable", "Movable", "Reserve",
		"CMA/Isolate", "Isolate",
	};
	const char * const *names = pre_v4_4 ? old_kernels : current_kernels;

	if (migtype >= 0 && migtype < (int)ARRAY_SIZE(current_kernels))
		return names[migtype];
	snprintf(buf, size, "type %d", migtype);
	return buf;
}

const struct kmem_live *kmem_page__live(const struct kmem_page *kp)
{
	return &kp->live;
}

/*
 * The first allocation of a row: its columns are the allocation's.  The
 * key is made again here: where the caller's would be passed, it would
 * be stored for every allocation, not kept in registers.
 */
static noinline struct kmem_page_row *add_row(struct kmem_page *kp, int table,
					      const struct kmem_page_event *ev,
					      u64 pfn)
{
	u64 key[ROW_KEY_WORDS];
	struct kmem_page_row row = {
		.pfn = pfn,
		.callsite = ev->callsite,
		.gfp = ev->gfp,
		.order = ev->order,
		.migtype = ev->migtype,
		.task = ev->task,
	};

	event_key(ev, pfn, key);
	return kmem_rows__add(&kp->rows[table], key, &row);
}

/*
 * Count the allocation in its row of @table, keyed by @pfn there; NULL: no
 * memory.  Inline, with the table and (in the caller table) the pfn
 * constants: the key's first word is hashed and compared as a constant.
 */
static __always_inline struct kmem_page_row *
count_in_row(struct kmem_page *kp, enum kmem_page_table table,
	     const struct kmem_page_event *ev, u64 pfn, u64 fragmenting)
{
	struct kmem_page_row *row;
	u64 key[ROW_KEY_WORDS];

	event_key(ev, pfn, key);
	row = kmem_rows__find(&kp->rows[table], key, ROW_KEY_WORDS) ?:
	      add_row(kp, table, ev, pfn);
	if (row) {
		row->hits++;
		row->fragmenting += fragmenting;
	}
	return row;
}

/* Count the allocation in the rows of each table asked for. */
static int count_in_rows(struct kmem_page *kp, struct live_page *lp,
			 const struct kmem_page_event *ev, u64 fragmenting)
{
	struct kmem_page_row **rows = lp->rows;

	rows[KMEM_PAGE_TABLE_ALLOC] = NULL;
	rows[KMEM_PAGE_TABLE_CALLER] = count_in_row(kp, KMEM_PAGE_TABLE_CALLER,
						    ev, 0, fragmenting);
	if (!rows[KMEM_PAGE_TABLE_CALLER])
		return -ENOMEM;
	if (!kp->config.want_alloc_table)
		return 0;
	rows[KMEM_PAGE_TABLE_ALLOC] = count_in_row(kp, KMEM_PAGE_TABLE_ALLOC,
						   ev, ev->pfn, fragmenting);
	return rows[KMEM_PAGE_TABLE_ALLOC] ? 0 : -ENOMEM;
}

/* The pfn is allocated again: the trace never saw the old allocation freed. */
static void drop_unfreed(struct kmem_page *kp, struct live_page *lp)
{
	int t;

	kmem_count__add(&kp->summary.life.dropped, order_bytes(kp, lp->order));
	for (t = 0; t < KMEM_PAGE_NR_TABLES; t++)
		if (lp->rows[t])
			lp->rows[t]->dropped++;
}

int kmem_page__alloc(struct kmem_page *kp, const struct kmem_page_event *ev,
		     u64 fragmenting, bool fell_back)
{
	struct kmem_page_summary *s = &kp->summary;
	struct live_page *lp;
	u64 bytes;

	if (!kmem_page__valid_order(ev->order)) {
		s->bad_order++;
		return 0;
	}
	bytes = order_bytes(kp, ev->order);
	if (ev->pfn == KMEM_PAGE_NO_PFN) {
		kmem_count__add(&s->fail, bytes);
		return 0;
	}
	kmem_count__add(&s->alloc, bytes);
	if (ev->migtype < 0 || ev->migtype > KMEM_PAGE_MAX_MIGTYPE)
		s->bad_migtype++;
	kp->grid[ev->order][kmem_migtype__column(ev->migtype,
						  kp->config.pre_v4_4_migtypes)]++;
	if (ev->order > kp->max_order)
		kp->max_order = ev->order;
	if (remote(kp, ev))
		kmem_count__add(&s->alloc_remote, bytes);

	lp = kmem_live__probe(&kp->live, ev->pfn);
	if (lp->pfn == ev->pfn)
		drop_unfreed(kp, lp);
	else
		lp = kmem_live__add_one(&kp->live, lp, ev->pfn, sizeof(*lp));
	if (!lp)
		return -ENOMEM;
	lp->order = ev->order;
	lp->cpu_node = ev->cpu_node;
	lp->tag = ev->tag;
	lp->fell_back = fell_back;
	kp->nr_fell_back += fell_back;
	return count_in_rows(kp, lp, ev, fragmenting);
}

static void count_free_nodes(struct kmem_page *kp, struct live_page *lp,
			     const struct kmem_page_event *ev, u64 bytes)
{
	struct kmem_page_summary *s = &kp->summary;
	int t;

	if (!valid_node(kp, lp->cpu_node) || !valid_node(kp, ev->cpu_node))
		return;
	kp->node_matrix[lp->cpu_node * kp->config.nr_nodes + ev->cpu_node] += bytes;
	if (lp->cpu_node == ev->cpu_node)
		return;
	kmem_count__add(&s->free_other_node, bytes);
	for (t = 0; t < KMEM_PAGE_NR_TABLES; t++)
		if (lp->rows[t])
			lp->rows[t]->xnode_frees++;
}

int kmem_page__free(struct kmem_page *kp, const struct kmem_page_event *ev)
{
	struct kmem_page_summary *s = &kp->summary;
	struct live_page *lp = kmem_live__find(&kp->live, ev->pfn);
	u64 bytes;
	int t;

	/* Only the frees of the allocations counted. */
	if (!lp && kp->config.allocations_filtered)
		return 0;
	if (!kmem_page__valid_order(ev->order)) {
		s->bad_order++;
		return 0;
	}
	kmem_count__add(&s->free, order_bytes(kp, ev->order));
	if (remote(kp, ev))
		kmem_count__add(&s->free_remote, order_bytes(kp, ev->order));
	if (!lp) {
		kmem_count__add(&s->free_only, order_bytes(kp, ev->order));
		return 0;
	}
	/* The allocation's size is what was handed out, whatever the free says. */
	bytes = order_bytes(kp, lp->order);
	kmem_count__add(&s->life.freed, bytes);
	if (ev->order != lp->order)
		s->free_order_differs++;
	count_free_nodes(kp, lp, ev, bytes);
	for (t = 0; t < KMEM_PAGE_NR_TABLES; t++)
		if (lp->rows[t])
			lp->rows[t]->freed++;
	kmem_live__remove_one(&kp->live, lp, sizeof(*lp));
	return 0;
}

static void finish_row(void *r, void *arg)
{
	struct kmem_page_row *row = r;
	struct kmem_page *kp = arg;

	/* A row of live pages: none of them was freed. */
	if (kp->config.live_only) {
		row->hits -= row->freed + row->dropped;
		row->freed = 0;
		row->xnode_frees = 0;
	}
	row->bytes = row->hits * order_bytes(kp, row->order);
}

struct live_walk {
	kmem_page_live_fn	fn;
	void			*arg;
};

static void walk_live(void *slot, void *arg)
{
	const struct live_page *lp = slot;
	struct live_walk *walk = arg;

	walk->fn(lp->tag, lp->order, walk->arg);
}

void kmem_page__walk_live(struct kmem_page *kp, kmem_page_live_fn fn,
			  void *arg)
{
	struct live_walk walk = { .fn = fn, .arg = arg };

	kmem_live__for_each(&kp->live, walk_live, &walk);
}

struct fallen_walk {
	kmem_page_fallen_fn	fn;
	void			*arg;
	int			err;
};

static void walk_fallen(void *slot, void *arg)
{
	const struct live_page *lp = slot;
	const struct kmem_page_row *row = lp->rows[KMEM_PAGE_TABLE_CALLER];
	struct fallen_walk *walk = arg;

	if (lp->fell_back && row && !walk->err)
		walk->err = walk->fn(lp->pfn, lp->order, row->callsite,
				     row->task, walk->arg);
}

int kmem_page__walk_fallen(struct kmem_page *kp, kmem_page_fallen_fn fn,
			   void *arg)
{
	struct fallen_walk walk = { .fn = fn, .arg = arg };

	if (kp->nr_fell_back)
		kmem_live__for_each(&kp->live, walk_fallen, &walk);
	return walk.err;
}

static void count_live(void *slot, void *arg)
{
	const struct live_page *lp = slot;
	struct kmem_page *kp = arg;

	kmem_count__add(&kp->summary.life.live, order_bytes(kp, lp->order));
}

void kmem_page__finish(struct kmem_page *kp)
{
	int t;

	if (kp->finished)
		return;
	kp->finished = true;
	kmem_live__for_each(&kp->live, count_live, kp);
	kp->summary.life.unfreed = kmem_lifetime__unfreed(&kp->summary.life);
	for (t = 0; t < KMEM_PAGE_NR_TABLES; t++)
		kmem_rows__for_each(&kp->rows[t], finish_row, kp);
}

static void add_count(struct kmem_count *to, const struct kmem_count *c)
{
	to->nr += c->nr;
	to->bytes += c->bytes;
}

void kmem_page__add_summary(struct kmem_page *kp,
			    const struct kmem_page_summary *s)
{
	struct kmem_page_summary *to = &kp->summary;

	add_count(&to->alloc, &s->alloc);
	add_count(&to->life.freed, &s->life.freed);
	add_count(&to->life.live, &s->life.live);
	add_count(&to->life.dropped, &s->life.dropped);
	add_count(&to->free, &s->free);
	add_count(&to->free_only, &s->free_only);
	add_count(&to->fail, &s->fail);
	to->free_order_differs += s->free_order_differs;
	to->bad_order += s->bad_order;
	to->bad_migtype += s->bad_migtype;
	add_count(&to->alloc_remote, &s->alloc_remote);
	add_count(&to->free_remote, &s->free_remote);
	add_count(&to->free_other_node, &s->free_other_node);
}

void kmem_page__add_grid(struct kmem_page *kp, int order, int migtype, u64 nr)
{
	if (!kmem_page__valid_order(order) || !nr)
		return;
	kp->grid[order][kmem_migtype__column(migtype,
					     kp->config.pre_v4_4_migtypes)] += nr;
	if (order > kp->max_order)
		kp->max_order = order;
}

int kmem_page__add_row(struct kmem_page *kp, enum kmem_page_table table,
		       const struct kmem_page_row *row)
{
	struct kmem_page_row new = {
		.pfn = table == KMEM_PAGE_TABLE_ALLOC ? row->pfn : 0,
		.callsite = row->callsite,
		.gfp = row->gfp,
		.order = row->order,
		.migtype = row->migtype,
		.task = row->task,
	}, *to;
	u64 key[ROW_KEY_WORDS];

	if (!kmem_page__valid_order(row->order))
		return -EINVAL;
	/* The key an event of the row's columns has (event_key()). */
	key[0] = new.pfn;
	key[1] = new.callsite;
	key[2] = new.gfp;
	key[3] = (u64)(u32)new.order << 32 | (u32)new.migtype;
	key[4] = new.task;
	to = kmem_rows__findnew(&kp->rows[table], key, &new);
	if (!to)
		return -ENOMEM;
	to->hits += row->hits;
	to->freed += row->freed;
	to->dropped += row->dropped;
	to->xnode_frees += row->xnode_frees;
	return 0;
}

void kmem_page__add_node_bytes(struct kmem_page *kp, int from, int to,
			       u64 bytes)
{
	if (valid_node(kp, from) && valid_node(kp, to))
		kp->node_matrix[from * kp->config.nr_nodes + to] += bytes;
}

const struct kmem_page_summary *kmem_page__summary(const struct kmem_page *kp)
{
	return &kp->summary;
}

int kmem_page__grid_orders(const struct kmem_page *kp)
{
	return max(kp->max_order, KMEM_PAGE_MIN_GRID_ORDER) + 1;
}

u64 kmem_page__grid(const struct kmem_page *kp, int order,
		    enum kmem_migtype_column col)
{
	if (!kmem_page__valid_order(order) || col < 0 ||
	    col >= KMEM_NR_MIGTYPE_COLUMNS)
		return 0;
	return kp->grid[order][col];
}

u64 kmem_page__node_matrix(const struct kmem_page *kp, int from, int to)
{
	if (!valid_node(kp, from) || !valid_node(kp, to))
		return 0;
	return kp->node_matrix[from * kp->config.nr_nodes + to];
}

struct row_walk {
	kmem_page_row_fn	fn;
	void			*arg;
};

static void walk_row(void *row, void *arg)
{
	struct row_walk *walk = arg;

	walk->fn(row, walk->arg);
}

void kmem_page__walk_rows(struct kmem_page *kp, enum kmem_page_table table,
			  kmem_page_row_fn fn, void *arg)
{
	struct row_walk walk = { .fn = fn, .arg = arg };

	kmem_rows__for_each(&kp->rows[table], walk_row, &walk);
}

/* Under --live, rows whose pages were all freed are not shown. */
static bool row_has_hits(const void *row)
{
	return ((const struct kmem_page_row *)row)->hits;
}

struct kmem_page_row **kmem_page__rows(struct kmem_page *kp,
				       enum kmem_page_table table,
				       const struct kmem_sort_key *keys,
				       int nr_keys, size_t *nr)
{
	kmem_page__finish(kp);
	return (struct kmem_page_row **)kmem_rows__sort(&kp->rows[table],
							row_has_hits, keys,
							nr_keys, nr);
}
