/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_STALL_H
#define __PERF_KMEM_COUNT_STALL_H

/*
 * Allocation stalls for perf kmem: who waited for memory, how long, and
 * in what.
 *
 * In, in time order: the events of direct reclaim, memcg reclaim and
 * direct compaction, of kswapd and kcompactd waking, and every
 * kmem:mm_page_alloc, each with the task that ran it.
 *
 * A stall is what one allocation waited in the page allocator's slow
 * path.  It begins on a task at the first direct reclaim begin or
 * try_to_compact_pages event while that task has no stall open, and ends
 * at the task's next mm_page_alloc, successful or failed, of the same
 * order and GFP flags that is not inside a reclaim: the allocation's own.
 * Between the two, the allocation may reclaim and compact many times
 * (attempts); allocations of the task inside a reclaim (its own
 * writeback, say) or of another order or GFP (an interrupt's) are nested,
 * not the end.  A reclaim lasts from its begin to its end event, a
 * compaction attempt from its try_to_compact_pages event to the last
 * compaction event on the task before anything else happens there.
 *
 * Stalls whose begin or end the trace does not hold are counted apart,
 * never in the distribution: a reclaim end without a begin on its task
 * (it began before the trace), a stall still open at the end, a stall
 * whose allocation never came before the task began one of another
 * order or GFP.
 *
 * memcg reclaim stalls the charge that follows an allocation, not the
 * next allocation: each memcg reclaim is timed from its begin to its end
 * on the same task, and counted in rows of its own by the callsite of
 * its begin event.
 *
 * Memory grows with the tasks that stall and the stalls (8 bytes each,
 * for the percentiles), not with the events.  No file-scope state.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "count.h"
#include "table-live.h"

/* What a stall event is; decoded from its tracepoint. */
enum kmem_stall_type {
	KMEM_STALL_RECLAIM_BEGIN,	/* vmscan:mm_vmscan_direct_reclaim_begin */
	KMEM_STALL_RECLAIM_END,		/* ...direct_reclaim_end */
	KMEM_STALL_MEMCG_BEGIN,		/* vmscan:mm_vmscan_memcg_reclaim_begin */
	KMEM_STALL_MEMCG_END,		/* ...memcg_reclaim_end */
	KMEM_STALL_COMPACT_TRY,		/* compaction:mm_compaction_try_to_compact_pages */
	KMEM_STALL_COMPACT_BEGIN,	/* compaction:mm_compaction_begin */
	KMEM_STALL_COMPACT_END,		/* compaction:mm_compaction_end */
	KMEM_STALL_COMPACT_DEFERRED,	/* compaction:mm_compaction_deferred */
	/* The wake-ups, in the order of enum kmem_stall_wake. */
	KMEM_STALL_KSWAPD_WAKEUP,	/* vmscan:mm_vmscan_wakeup_kswapd */
	KMEM_STALL_KSWAPD_WAKE,		/* vmscan:mm_vmscan_kswapd_wake */
	KMEM_STALL_KCOMPACTD_WAKEUP,	/* compaction:mm_compaction_wakeup_kcompactd */
	KMEM_STALL_KCOMPACTD_WAKE,	/* compaction:mm_compaction_kcompactd_wake */
	KMEM_STALL_NR_TYPES,
};

/* mm_compaction_end's status values counted apart; higher ones together. */
#define KMEM_STALL_NR_STATUS	16
/* Buckets of the histograms: [0, 1) us, then [2^(k-1), 2^k) us. */
#define KMEM_STALL_NR_BUCKETS	40
/* Orders of the distribution and of the wake-ups; -1 is a wake-up's too. */
#define KMEM_STALL_MAX_ORDER	KMEM_PAGE_MAX_ORDER

/* One decoded stall event. */
struct kmem_stall_event {
	u64	gfp;		/* reclaim begins and try_to_compact_pages */
	u64	callsite;	/* memcg reclaim begins; 0 when unknown */
	/*
	 * Reclaim ends: the pages reclaimed; mm_compaction_end: its
	 * status; try_to_compact_pages: its priority.
	 */
	u64	value;
	s16	order;		/* reclaim begins, try, deferred, wake-ups */
	u16	type;		/* enum kmem_stall_type */
};

/* The daemons whose wake-ups are counted by order. */
enum kmem_stall_wake {
	KMEM_WAKE_KSWAPD_WAKEUP,	/* an allocation woke kswapd */
	KMEM_WAKE_KSWAPD,		/* kswapd woke to reclaim */
	KMEM_WAKE_KCOMPACTD_WAKEUP,	/* an allocation or reclaim woke kcompactd */
	KMEM_WAKE_KCOMPACTD,		/* kcompactd woke to compact */
	KMEM_NR_WAKES,
};

/* How a compaction attempt (a try_to_compact_pages) ended. */
enum kmem_stall_outcome {
	/* The allocation got its page before anything else on the task. */
	KMEM_COMPACT_SUCCESS,
	/* It compacted a zone or found one deferred, and no page came. */
	KMEM_COMPACT_FAIL,
	/* Neither: no zone was compacted or deferred, no page came. */
	KMEM_COMPACT_SKIPPED,
	KMEM_NR_OUTCOMES,
};

/* The event totals, to hold against /proc/vmstat. */
struct kmem_stall_events {
	u64	reclaims;		/* direct reclaim begins: allocstall */
	u64	reclaim_ends;
	u64	reclaimed;		/* pages, by direct reclaim ends */
	u64	memcg_reclaims;		/* memcg reclaim begins */
	u64	memcg_reclaim_ends;
	u64	memcg_reclaimed;	/* pages, by memcg reclaim ends */
	u64	compactions;		/* try_to_compact_pages: compact_stall... */
	u64	outcomes[KMEM_NR_OUTCOMES];	/* ...of these, by outcome */
	u64	runs;			/* mm_compaction_begin, on any task */
	u64	run_ends;		/* mm_compaction_end, on any task */
	u64	direct_runs;		/* begins inside a compaction attempt */
	u64	deferred;		/* mm_compaction_deferred, on any task */
	/* Allocations of a stalled task that did not end its stall. */
	u64	nested_allocs;
};

/* What the trace cannot time whole: never in the distribution. */
struct kmem_stall_apart {
	/* Allocations after a reclaim end without begin: begun before. */
	u64	begun_before;
	/* Stalls still open at the end of the trace. */
	u64	not_ended;
	/* Stalls whose allocation did not come before another began. */
	u64	abandoned;
	u64	memcg_begun_before;	/* memcg reclaim ends without begin */
	u64	memcg_not_ended;	/* memcg reclaims open at the end */
	/* Reclaim begins inside a reclaim, ends outside one: events lost. */
	u64	unpaired;
};

/* Stalled allocations, all or of one order. */
struct kmem_stall_dist {
	int	order;		/* -1 for all orders */
	u64	stalls;
	u64	failed;		/* allocations that failed after all */
	u64	total_ns;
	u64	mean_ns;	/* total_ns / stalls, from kmem_stall__finish() */
	u64	max_ns;
	/* Nearest rank: the smallest stall that many percent are not above. */
	u64	p50_ns;
	u64	p90_ns;
	u64	p99_ns;
	u64	reclaim_ns;	/* inside direct reclaim */
	u64	compact_ns;	/* inside compaction attempts */
	u64	reclaims;	/* attempts */
	u64	compactions;
	u64	reclaimed;	/* pages, by the stalls' reclaims */
	u64	hist[KMEM_STALL_NR_BUCKETS];
};

/* A row of the memcg table: reclaims begun from one callsite, GFP. */
struct kmem_stall_memcg_row {
	u64	callsite;	/* of the begin event's callchain */
	u64	gfp;
	u64	reclaims;
	u64	total_ns;
	u64	max_ns;
	u64	reclaimed;
	u64	mean_ns;	/* total_ns / reclaims, from kmem_stall__finish() */
};

struct kmem_stall_summary {
	struct kmem_stall_dist		all;
	struct kmem_stall_events	events;
	struct kmem_stall_apart		apart;
	/* Successes and failures of the stalls' compaction attempts. */
	u64				compact_outcomes[KMEM_NR_OUTCOMES];
	/* memcg reclaims with begin and end: a row of every callsite, GFP */
	struct kmem_stall_memcg_row	memcg;
};

/* A bucket of the histogram of one order. */
struct kmem_stall_bucket {
	int	order;
	u64	lo_us;		/* [lo_us, hi_us) */
	u64	hi_us;
	u64	stalls;
};

/* The wake-ups of one order, by enum kmem_stall_wake. */
struct kmem_stall_wake_row {
	int	order;
	u64	wakeups[KMEM_NR_WAKES];
};

/* The mm_compaction_end events of one status, counted as they come. */
struct kmem_stall_status_row {
	u64		status;		/* the last counts the higher ones */
	u64		ends;
	const char	*name;		/* the caller's to set; NULL: none */
};

/* A row of the stall table: stalled allocations alike in all four. */
struct kmem_stall_row {
	u64	callsite;	/* the allocation's */
	u64	gfp;
	int	order;
	int	migtype;
	u64	stalls;
	u64	failed;
	u64	total_ns;
	u64	max_ns;
	u64	reclaim_ns;
	u64	compact_ns;
	u64	reclaims;
	u64	compactions;
	u64	reclaimed;
	u64	compact_ok;	/* attempts of KMEM_COMPACT_SUCCESS */
	u64	compact_fail;	/* ...of KMEM_COMPACT_FAIL */
	u64	mean_ns;	/* total_ns / stalls, from kmem_stall__finish() */
};

struct kmem_stall;

/* A new stall analysis, or NULL without memory. */
struct kmem_stall *kmem_stall__new(void);
/* Free an analysis (or NULL) and all it gave out. */
void kmem_stall__delete(struct kmem_stall *ks);

/**
 * kmem_stall__event - take a stall event
 * @ks: the analysis
 * @tid: the task that ran it
 * @time: its time in ns; events come in time order
 * @ev: the event
 *
 * Return: 0; -ENOMEM; -EINVAL for a type out of range; -EBUSY after
 * kmem_stall__finish().
 */
int kmem_stall__event(struct kmem_stall *ks, u32 tid, u64 time,
		      const struct kmem_stall_event *ev);

/**
 * kmem_stall__alloc - take a kmem:mm_page_alloc event
 * @ks: the analysis
 * @tid: the task that ran it
 * @time: its time in ns
 * @ev: the event, failed when its pfn is KMEM_PAGE_NO_PFN
 *
 * Every allocation of a trace comes here; while no task has a stall
 * open, as almost always, there is nothing to do.
 *
 * Return: 1 when it ended a stall of the distribution (its length:
 * kmem_stall__ended_ns()), else 0; -ENOMEM; -EBUSY after
 * kmem_stall__finish().
 */
int kmem_stall__alloc(struct kmem_stall *ks, u32 tid, u64 time,
		      const struct kmem_page_event *ev);

/* The length of the stall the last kmem_stall__alloc() ended. */
u64 kmem_stall__ended_ns(const struct kmem_stall *ks);

/*
 * Settle the analysis after the last event: count what is still open
 * apart, work out the distributions and the stall time of each callsite.
 * The functions below that say so call it; called again, it does nothing.
 * 0, or -ENOMEM.
 */
int kmem_stall__finish(struct kmem_stall *ks);

/* The totals; the distribution's after kmem_stall__finish(). */
const struct kmem_stall_summary *kmem_stall__summary(const struct kmem_stall *ks);

/**
 * kmem_stall__orders - the distributions of the orders with stalls
 * @ks: the analysis, finished by this call if it was not
 * @nr: where their number goes
 *
 * Return: an array of *@nr pointers, by order, owned by @ks; *@nr 0
 * without memory (or stalls).  So are the arrays below, each by order
 * (then bucket, status), of the entries that are not 0.
 */
const struct kmem_stall_dist * const *kmem_stall__orders(struct kmem_stall *ks, size_t *nr);
/* The histogram buckets of each order's stalls. */
const struct kmem_stall_bucket * const *kmem_stall__buckets(struct kmem_stall *ks, size_t *nr);
/*
 * The wake-ups of each order that has any, -1 (kcompactd woken for
 * proactive compaction) to KMEM_STALL_MAX_ORDER, under which orders out
 * of range count.
 */
struct kmem_stall_wake_row * const *kmem_stall__wake_rows(struct kmem_stall *ks,
							  size_t *nr);
/* The compaction ends of each status that has any; names left NULL. */
struct kmem_stall_status_row * const *kmem_stall__status_rows(struct kmem_stall *ks,
							      size_t *nr);

/**
 * kmem_stall__rows - the stall table, sorted
 * @ks: the analysis, finished by this call if it was not
 * @keys: the sort keys, fields of struct kmem_stall_row; none (@nr_keys
 *	0): total stall time, then stalls
 * @nr_keys: how many
 * @nr: where the number of rows goes
 *
 * Return: an array of *@nr rows owned by @ks, valid until the next call
 * (or NULL without memory).
 */
struct kmem_stall_row **kmem_stall__rows(struct kmem_stall *ks,
					 const struct kmem_sort_key *keys,
					 int nr_keys, size_t *nr);

/* The memcg reclaim table, by total time: as kmem_stall__rows(). */
struct kmem_stall_memcg_row **kmem_stall__memcg_rows(struct kmem_stall *ks,
						     size_t *nr);

/*
 * The stall time in ns of a callsite over all its rows, 0 if it never
 * stalled, from a finished analysis: a sort key of the allocation table,
 * a binary search cheap enough for a sort's comparisons.
 */
u64 kmem_stall__callsite_ns(const struct kmem_stall *ks, u64 callsite);

#endif /* __PERF_KMEM_COUNT_STALL_H */
