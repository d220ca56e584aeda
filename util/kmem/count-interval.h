/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_INTERVAL_H
#define __PERF_KMEM_COUNT_INTERVAL_H

/*
 * The page analysis over time, for perf kmem stat --page -I: one row per
 * interval of trace time, from the first event on.  A row is the
 * difference of the analyses' running totals at the interval's two ends,
 * so that the rows add up to the totals of the summary, and with
 * nr_callers the callsites that allocated the most bytes in it.  No
 * file-scope state.
 */

#include <linux/types.h>
#include <stddef.h>

#include "count-frag.h"
#include "count-page.h"
#include "count.h"

struct kmem_stall_dist;

struct kmem_interval_config {
	u64	length;		/* of an interval, in ns; not 0 */
	size_t	nr_callers;	/* callsites kept per interval; 0: none */
	/*
	 * The stall analysis's running totals, read with the page
	 * analysis's; NULL: no stalls in the rows.  Not owned.
	 */
	const struct kmem_stall_dist *stalls;
};

/* A callsite of an interval: its allocations in it. */
struct kmem_interval_caller {
	u64			callsite;
	struct kmem_count	alloc;
};

struct kmem_interval_row {
	u64			start;		/* ns after the first event */
	u64			time;		/* its start, as --time takes it */
	struct kmem_count	alloc;		/* successful allocations */
	struct kmem_count	free;		/* all frees */
	struct kmem_count	fail;		/* failed allocations */
	struct kmem_count	free_other_node; /* freed on another node */
	struct kmem_count	fallbacks;
	struct kmem_count	classes[KMEM_FRAG_NR_CLASSES];
	/* Bytes the trace allocated and had not seen freed, at the end. */
	u64			live_bytes;
	u64			stalls;		/* stalled allocations */
	u64			stall_ns;	/* their stall time */
	struct kmem_interval_caller *callers;	/* most bytes first */
	size_t			nr_callers;
};

struct kmem_interval;

/*
 * A series of intervals of @config's length, keeping its callsites
 * (copied); NULL without memory or with a length of 0.
 */
struct kmem_interval *kmem_interval__new(const struct kmem_interval_config *config);
void kmem_interval__delete(struct kmem_interval *iv);

/**
 * kmem_interval__advance - move to the interval of an event
 * @iv: the series
 * @time: the event's time; events come in time order
 * @ps: the page analysis's totals before the event is counted
 * @fs: the fragmentation analysis's totals then, or NULL
 *
 * Closes every interval that ends at or before @time, empty ones too.
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_interval__advance(struct kmem_interval *iv, u64 time,
			   const struct kmem_page_summary *ps,
			   const struct kmem_frag_summary *fs);

/* A successful allocation of the current interval, for its callsites. */
int kmem_interval__alloc(struct kmem_interval *iv, u64 callsite, u64 bytes);

/* Close the last interval, with the analyses' final totals. */
int kmem_interval__finish(struct kmem_interval *iv,
			  const struct kmem_page_summary *ps,
			  const struct kmem_frag_summary *fs);

size_t kmem_interval__nr_rows(const struct kmem_interval *iv);
const struct kmem_interval_row *kmem_interval__row(const struct kmem_interval *iv,
						   size_t i);
u64 kmem_interval__length(const struct kmem_interval *iv);

#endif /* __PERF_KMEM_COUNT_INTERVAL_H */
