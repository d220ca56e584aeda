/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_PAGE_H
#define __PERF_KMEM_COUNT_PAGE_H

/*
 * Page allocator analysis for perf kmem: the events of kmem:mm_page_alloc
 * and kmem:mm_page_free go in, summary, tables and grids come out.  No
 * file-scope state: everything hangs off a struct kmem_page, so a run of
 * perf kmem (run.h) and the tests can each have as many as they like.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "count.h"
#include "table-live.h"

/* Grids always show orders 0..10, more when the trace has them. */
#define KMEM_PAGE_MIN_GRID_ORDER 10
/* Nodes the cross-node analysis follows; more are reported as unknown. */
#define KMEM_PAGE_MAX_NODES	64

enum kmem_page_table {
	KMEM_PAGE_TABLE_CALLER,	/* one row per callsite, order, type, gfp */
	KMEM_PAGE_TABLE_ALLOC,	/* one row per pfn, callsite, order, type, gfp */
	KMEM_PAGE_NR_TABLES,
};

struct kmem_page_config {
	u64	page_size;		/* from the trace; 4096 when unknown */
	bool	pre_v4_4_migtypes;	/* Reclaimable was 1, Movable 2 */
	bool	want_alloc_table;	/* --alloc: rows per pfn too */
	bool	live_only;		/* tables show pages live at the end */
	int	nr_nodes;		/* 0: no NUMA topology; 1: no traffic */
	/*
	 * The allocations are a chosen part of the trace's (some tasks'):
	 * a free of a page not allocated in the trace is not counted,
	 * since most of those are other tasks' pages.
	 */
	bool	allocations_filtered;
};

/* A row of the --caller or --alloc table. */
struct kmem_page_row {
	u64	pfn;		/* --alloc only */
	u64	callsite;
	u64	gfp;
	int	order;
	int	migtype;
	u32	task;		/* of the events, 0 when not grouped */
	u64	hits;		/* allocations */
	u64	freed;		/* of which a free was seen */
	u64	dropped;	/* of which the pfn was allocated again unfreed */
	u64	xnode_frees;	/* of which freed on another node */
	u64	bytes;		/* of all hits, or live pages under live_only */
	/* Fragmenting fallbacks of its allocations, given to kmem_page__alloc(). */
	u64	fragmenting;
	/* The stall time of the callsite's allocations, set by the caller. */
	u64	stall_ns;
};

struct kmem_page_summary {
	struct kmem_count	alloc;		/* successful allocations */
	struct kmem_lifetime	life;		/* ...by what became of them */
	struct kmem_count	free;		/* all frees */
	struct kmem_count	free_only;	/* frees of pfns not live */
	struct kmem_count	fail;		/* failed allocations */
	u64			free_order_differs;
	u64			bad_order;	/* events dropped: order > max */
	u64			bad_migtype;	/* counted under Special */
	/* Cross-node traffic; zero without a topology. */
	struct kmem_count	alloc_remote;	/* page not on CPU's node */
	struct kmem_count	free_remote;	/* freeing CPU not on page's */
	struct kmem_count	free_other_node; /* freed on another node */
};

struct kmem_page;

/**
 * kmem_page__new - start a page allocator analysis
 * @config: the trace's page size, migration type numbering and nodes,
 *	and which tables to keep; copied
 *
 * Return: the analysis, or NULL without memory.
 */
struct kmem_page *kmem_page__new(const struct kmem_page_config *config);

/**
 * kmem_page__delete - free an analysis, its live pages and its rows
 * @kp: the analysis, or NULL
 */
void kmem_page__delete(struct kmem_page *kp);

/*
 * The live pages by pfn, whose slot for an event coming soon the deliverer
 * prefetches (kmem_live__prefetch(), inline: an event's call costs more).
 */
const struct kmem_live *kmem_page__live(const struct kmem_page *kp);

/**
 * kmem_page__alloc - count an mm_page_alloc event
 * @kp: the analysis
 * @ev: the event; pfn KMEM_PAGE_NO_PFN for a failed allocation
 * @fragmenting: the fallbacks that made the allocation, counted in the
 *	Fragmenting of its rows
 * @fell_back: its page fell back into a pageblock of another type, kept
 *	with the live page for kmem_page__walk_fallen()
 *
 * Events come in time order.  An event that cannot be real (its order
 * out of range) is counted as such, in kmem_page_summary::bad_order, and
 * left out.  A pfn still live is allocated again: the old allocation is
 * counted as dropped (its free was not seen).
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_page__alloc(struct kmem_page *kp, const struct kmem_page_event *ev,
		     u64 fragmenting, bool fell_back);

/**
 * kmem_page__free - count an mm_page_free event
 * @kp: the analysis
 * @ev: the event
 *
 * The free of a live pfn ends its allocation; any other is freed-only,
 * or not counted at all under kmem_page_config::allocations_filtered.
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_page__free(struct kmem_page *kp, const struct kmem_page_event *ev);

typedef void (*kmem_page_live_fn)(u32 tag, int order, void *arg);

/* Call @fn for every page live now, with its allocation's tag. */
void kmem_page__walk_live(struct kmem_page *kp, kmem_page_live_fn fn,
			  void *arg);

typedef int (*kmem_page_fallen_fn)(u64 pfn, int order, u64 callsite,
				   u32 task, void *arg);

/*
 * Call @fn for every page live now whose allocation fell back, with its
 * allocation's callsite and task; the first non-zero return stops it.
 * Return: 0, or what @fn returned.
 */
int kmem_page__walk_fallen(struct kmem_page *kp, kmem_page_fallen_fn fn,
			   void *arg);

/* After the last event: settle the live pages. */
void kmem_page__finish(struct kmem_page *kp);

/*
 * Counts aggregated elsewhere (perf kmem stat -b counts in the kernel),
 * added to the same analysis that events fill, so that everything that
 * reports it is shared.  Before kmem_page__finish().
 */

/* Add every number of @s to the summary; the live split included. */
void kmem_page__add_summary(struct kmem_page *kp,
			    const struct kmem_page_summary *s);

/* Add @nr allocations of @order and traced @migtype to the grid. */
void kmem_page__add_grid(struct kmem_page *kp, int order, int migtype, u64 nr);

/*
 * Add @row's hits, freed, dropped and xnode_frees to the row of @table
 * with its callsite, order, migtype, gfp and task (and pfn, for --alloc).
 * Return: 0 or -ENOMEM; -EINVAL for an order out of range.
 */
int kmem_page__add_row(struct kmem_page *kp, enum kmem_page_table table,
		       const struct kmem_page_row *row);

/* Add @bytes allocated on node @from and freed on node @to. */
void kmem_page__add_node_bytes(struct kmem_page *kp, int from, int to,
			       u64 bytes);

/* The totals: running ones, and the still-live split after _finish(). */
const struct kmem_page_summary *kmem_page__summary(const struct kmem_page *kp);

/* Allocations of @order in @col; orders run 0..kmem_page__grid_orders()-1. */
u64 kmem_page__grid(const struct kmem_page *kp, int order,
		    enum kmem_migtype_column col);
int kmem_page__grid_orders(const struct kmem_page *kp);
/* Bytes allocated on node @from and freed on node @to. */
u64 kmem_page__node_matrix(const struct kmem_page *kp, int from, int to);

typedef void (*kmem_page_row_fn)(struct kmem_page_row *row, void *arg);

/* Call @fn for every row of @table, in no particular order. */
void kmem_page__walk_rows(struct kmem_page *kp, enum kmem_page_table table,
			  kmem_page_row_fn fn, void *arg);

/**
 * kmem_page__rows - the rows of a table, sorted
 * @kp: the analysis, finished by this call if it was not
 * @table: which table
 * @keys: sort keys, each breaking the ties of the one before; the rows
 *	  that stay equal go in the order of the columns that make a row
 * @nr_keys: how many
 * @nr: set to the number of rows
 *
 * Return: an array of *@nr rows, which belongs to @kp and holds until the
 * next call; NULL: no memory.
 */
struct kmem_page_row **kmem_page__rows(struct kmem_page *kp,
				       enum kmem_page_table table,
				       const struct kmem_sort_key *keys,
				       int nr_keys, size_t *nr);

#endif /* __PERF_KMEM_COUNT_PAGE_H */
