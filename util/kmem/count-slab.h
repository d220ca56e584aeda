/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_SLAB_H
#define __PERF_KMEM_COUNT_SLAB_H

/*
 * Slab allocator analysis for perf kmem: the events of kmem:kmalloc,
 * kmem:kmem_cache_alloc, kmem:kfree and kmem:kmem_cache_free go in,
 * summary and tables come out.  No file-scope state: everything hangs off
 * a struct kmem_slab, so a run of perf kmem (run.h) and the tests can
 * each have as many as they like.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "count.h"
#include "table-live.h"

/*
 * kfree() and kmalloc(0) deal in NULL and ZERO_SIZE_PTR (16): no object
 * lies at or below this address.
 */
#define KMEM_SLAB_ZERO_OR_NULL	16ULL

enum kmem_slab_table {
	KMEM_SLAB_TABLE_CALLER,	/* one row per callsite */
	KMEM_SLAB_TABLE_ALLOC,	/* one row per pointer and callsite */
	KMEM_SLAB_TABLE_CACHE,	/* one row per cache name */
	KMEM_SLAB_NR_TABLES,
};

struct kmem_slab_config {
	bool	want_alloc_table;	/* --alloc: rows per object too */
	/*
	 * The callsite a row of the tables goes by, of an event's
	 * call_site: its function, say.  NULL: the call_site itself.
	 * Called after the last event, not at each: once per row of
	 * call_site and cache, and with --alloc per row of object and
	 * call_site.
	 */
	u64	(*callsite)(u64 call_site, void *arg);
	void	*callsite_arg;
};

/* One decoded kmalloc or kmem_cache_alloc event. */
struct kmem_slab_alloc_event {
	u64		callsite;	/* the call_site, as traced */
	u64		ptr;		/* 0: the allocation failed */
	u64		bytes_req;
	u64		bytes_alloc;
	/* kmem_cache_alloc only, else NULL; must outlive the analysis */
	const char	*cache;
	int		cpu;
	int		cpu_node;	/* node of @cpu, -1 if unknown */
	int		node;		/* node asked for, -1 (NUMA_NO_NODE) */
};

/* One decoded kfree or kmem_cache_free event. */
struct kmem_slab_free_event {
	u64	ptr;
	int	cpu;
};

/* A row of one of the tables. */
struct kmem_slab_row {
	u64		ptr;		/* --alloc only */
	u64		callsite;	/* --caller and --alloc */
	const char	*cache;		/* cache table only */
	u64		hits;		/* allocations */
	u64		bytes_req;
	u64		bytes_alloc;
	u64		freed;		/* of which a free was seen */
	u64		pingpong;	/* of which freed on another CPU */
	u64		xnode;		/* of which asked for another node */
};

struct kmem_slab_summary {
	struct kmem_count	alloc;		/* successful allocations */
	u64			bytes_req;	/* ...what they asked for */
	/* Set when the analysis is finished: allocated, not asked for. */
	u64			wasted;
	double			wasted_share;	/* ...in percent */
	struct kmem_lifetime	life;		/* ...by what became of them */
	struct kmem_count	fail;		/* bytes: bytes_req */
	struct kmem_count	zero_size;	/* ZERO_SIZE_PTR handed out */
	struct kmem_count	xnode;		/* node asked != CPU's node */
	struct kmem_count	pingpong;	/* freed on another CPU */
	u64			free;		/* all free events */
	u64			free_null;	/* kfree(NULL) and friends */
	u64			free_unknown;	/* never seen allocated */
	u64			free_again;	/* freed before, not reallocated */
};

struct kmem_slab;

/**
 * kmem_slab__new - start a slab allocator analysis
 * @config: which tables to keep; copied
 *
 * Return: the analysis, or NULL without memory.
 */
struct kmem_slab *kmem_slab__new(const struct kmem_slab_config *config);

/**
 * kmem_slab__delete - free an analysis, its live objects and its rows
 * @ks: the analysis, or NULL
 */
void kmem_slab__delete(struct kmem_slab *ks);

/* The live objects by address: see kmem_page__live(). */
const struct kmem_live *kmem_slab__live(const struct kmem_slab *ks);

/*
 * Count a kmalloc/kmem_cache_alloc or kfree/kmem_cache_free event, in
 * time order.  Both return 0 or -ENOMEM.
 */
int kmem_slab__alloc(struct kmem_slab *ks,
		     const struct kmem_slab_alloc_event *ev);
int kmem_slab__free(struct kmem_slab *ks,
		    const struct kmem_slab_free_event *ev);

/*
 * After the last event: settle the live objects, add up the tables by
 * callsite, by cache and by object from the counts by call_site.
 */
void kmem_slab__finish(struct kmem_slab *ks);

/*
 * Counts aggregated elsewhere (perf kmem stat -b counts in the kernel),
 * added to the same analysis that events fill, before
 * kmem_slab__finish(): every number of @s, and @row's counts to the row
 * of @table with its callsite, ptr and cache (which must outlive the
 * analysis).  kmem_slab__add_row() returns 0 or -ENOMEM.
 */
void kmem_slab__add_summary(struct kmem_slab *ks,
			    const struct kmem_slab_summary *s);
int kmem_slab__add_row(struct kmem_slab *ks, enum kmem_slab_table table,
		       const struct kmem_slab_row *row);

/* The totals: running ones, and the still-live split after _finish(). */
const struct kmem_slab_summary *kmem_slab__summary(const struct kmem_slab *ks);

/**
 * kmem_slab__rows - the rows of a table, sorted
 * @ks: the analysis, finished by this call if it was not
 * @table: which table
 * @keys: sort keys, each breaking the ties of the one before; the rows
 *	  that stay equal go in the order of the columns that make a row
 * @nr_keys: how many
 * @nr: set to the number of rows
 *
 * Return: an array of *@nr rows, which belongs to @ks and holds until the
 * next call; NULL: no memory.
 */
struct kmem_slab_row **kmem_slab__rows(struct kmem_slab *ks,
				       enum kmem_slab_table table,
				       const struct kmem_sort_key *keys,
				       int nr_keys, size_t *nr);

#endif /* __PERF_KMEM_COUNT_SLAB_H */
