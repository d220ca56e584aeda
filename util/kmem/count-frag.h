/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_FRAG_H
#define __PERF_KMEM_COUNT_FRAG_H

/*
 * Fragmentation analysis for perf kmem: who makes memory fragment.
 *
 * In: every kmem:mm_page_alloc_extfrag event (an allocation found no free
 * page of its own migration type and took one from another type's free
 * lists: a fallback) and every kmem:mm_page_alloc event, successful or
 * failed, in trace order.  The caller decodes them and resolves their
 * callsites.
 *
 * Out, after kmem_frag__finish():
 * - the fallbacks, each of one class (below), a matrix of requested by
 *   fallen-back-to migration type, and a table by callsite;
 * - the pageblocks the trace allocated into, and how many of them got
 *   allocations of more than one migration type column during the trace;
 * - the failed allocations by callsite, order, migration type and GFP;
 * - the pages that fell back into a Movable pageblock for an Unmovable or
 *   Reclaimable allocation and were still allocated at the end (pinning),
 *   by callsite and task, with the pageblocks they lie in.
 *
 * The classes need the recording kernel's pageblock_order; without it
 * (KMEM_FRAG_ORDER_UNKNOWN) fallbacks are counted, but neither classes nor
 * pageblocks are.
 *
 * Memory grows with the distinct pageblocks and table rows, not with the
 * events.  No file-scope state: everything hangs off a struct kmem_frag.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "count.h"
#include "table-live.h"

/* No pageblock_order: fallbacks are not classed, pageblocks not mapped. */
#define KMEM_FRAG_ORDER_UNKNOWN		(-1)
/* Fallbacks from a free block of at most this order are severe. */
#define KMEM_FRAG_SEVERE_ORDER		3
/*
 * An allocation or fallback over more than 1 << this many pageblocks
 * cannot be a buddy allocator's: the event is refused.
 */
#define KMEM_FRAG_MAX_SPAN_SHIFT	10

/*
 * What a fallback did to the pageblock it took its page from:
 * - claimed: the free block was a whole pageblock or more
 *   (fallback_order >= pageblock_order), now of the requested type;
 * - converted: less than a pageblock, and the pageblock changed to the
 *   requested type (change_ownership 1);
 * - polluted: less than a pageblock, which kept its type: a page of the
 *   requested type now sits in a pageblock of another (change_ownership 0).
 * Converted and polluted are what the kernel calls fragmenting.
 */
enum kmem_frag_class {
	KMEM_FRAG_CLAIMED,
	KMEM_FRAG_CONVERTED,
	KMEM_FRAG_POLLUTED,
	KMEM_FRAG_NR_CLASSES,
};

struct kmem_frag_config {
	u64	page_size;		/* from the trace; 4096 when 0 */
	/*
	 * The recording kernel's; KMEM_FRAG_ORDER_UNKNOWN, or any value
	 * out of 0..KMEM_PAGE_MAX_ORDER, for unknown.
	 */
	int	pageblock_order;
	bool	pre_v4_4_migtypes;	/* Reclaimable was 1, Movable 2 */
	/* The pfns are struct page addresses (kernels < 4.1): no pageblocks. */
	bool	no_pfns;
};

/* One decoded kmem:mm_page_alloc_extfrag event, its fields as traced. */
struct kmem_frag_event {
	u64	pfn;
	u64	callsite;		/* 0 when unknown */
	int	alloc_order;
	int	fallback_order;		/* of the free block taken */
	int	alloc_migtype;		/* the type asked for */
	int	fallback_migtype;	/* the type whose free list gave */
	int	change_ownership;	/* 0 or 1 */
	/* The caller's tag of it, e.g. its callchain's; 0: none. */
	u32	tag;
};

/* Fallbacks from one requested type column into one fallback column. */
struct kmem_frag_cell {
	u64	fallbacks;
	u64	bytes;				/* of the requests */
	u64	classes[KMEM_FRAG_NR_CLASSES];	/* all 0 without classes */
};

/* A row of the fallback table: one callsite, pair of types and task. */
struct kmem_frag_row {
	u64			callsite;
	int			alloc_migtype;
	int			fallback_migtype;
	/* The task, as kmem_frag__fallback_thread() was told; 0: not grouped. */
	u32			task;
	struct kmem_count	fallbacks;	/* bytes of the requests */
	u64			classes[KMEM_FRAG_NR_CLASSES];
	u64			severe;
	/* Converted plus polluted: set by kmem_frag__finish(). */
	u64			fragmenting;
};

/* A row of the failure table: failed allocations alike in all four. */
struct kmem_frag_fail_row {
	u64			callsite;
	u64			gfp;
	int			order;
	int			migtype;
	struct kmem_count	asked;		/* failures, bytes asked for */
};

/*
 * A row of the pinning table: the pages of one callsite and task that
 * fell back and were still allocated at the end (kmem_frag__add_pinning()).
 */
struct kmem_frag_pin_row {
	u64			callsite;
	u32			task;		/* as kmem_page_event::task */
	struct kmem_count	pages;		/* allocations and their bytes */
	u64			pageblocks;	/* distinct ones they lie in */
};

/* A pageblock the trace allocated into or fell back into. */
struct kmem_frag_pageblock {
	u64	pfn;				/* its first */
	u64	allocs[KMEM_NR_MIGTYPE_COLUMNS];	/* successful allocations */
	u64	fallbacks[KMEM_FRAG_NR_CLASSES];
	/*
	 * The callsite of most of its allocations, if one made more than
	 * half of them (a majority vote, no table per pageblock); else one
	 * of the most frequent, likely.
	 */
	u64	main_callsite;
	u64	votes;				/* of the vote: not a count */
	/* Frees in it by a CPU of another node (kmem_frag__free()). */
	u64	remote_frees;
	/* Pinning pages in it at the end: after kmem_frag__finish(). */
	u64	pinning;
};

/*
 * Pageblocks, as far as the trace saw them: not the state of memory.  An
 * allocation larger than a pageblock counts in each pageblock it covers.
 */
struct kmem_frag_blocks {
	u64	allocated;	/* got at least one successful allocation */
	u64	by_column[KMEM_NR_MIGTYPE_COLUMNS];	/* ...of this column */
	u64	unmovable_or_reclaimable;	/* ...of either column */
	u64	mixed;		/* ...of more than one column */
	u64	fallback_only;	/* fallen back into, no allocation seen */
};

struct kmem_frag_summary {
	struct kmem_count	fallbacks;	/* bytes of the requests */
	struct kmem_count	classes[KMEM_FRAG_NR_CLASSES];
	/* Converted plus polluted: set by kmem_frag__finish(). */
	struct kmem_count	fragmenting;
	struct kmem_count	severe;
	/* Successful allocations by column: the shares of bytes. */
	struct kmem_count	alloc[KMEM_NR_MIGTYPE_COLUMNS];
	struct kmem_count	fail;		/* bytes asked for */
	struct kmem_frag_blocks	blocks;		/* after kmem_frag__finish() */
	struct {
		struct kmem_count	pages;	/* allocations and their bytes */
		u64			pageblocks;	/* distinct ones */
	}			pinned;		/* after kmem_frag__finish() */
	u64			bad_fallbacks;	/* extfrag events refused */
	u64			bad_allocs;	/* alloc events refused */
	/* Migration types out of range, each counted under Special. */
	u64			bad_migtype;
};

struct kmem_frag;

/* An analysis of a trace's page size, pageblock_order...; NULL: no memory. */
struct kmem_frag *kmem_frag__new(const struct kmem_frag_config *config);
/* Free an analysis (or NULL) and every row and array it gave out. */
void kmem_frag__delete(struct kmem_frag *kf);

/*
 * Can fallbacks be classed and pageblocks mapped?  Not when the
 * pageblock_order is unknown: the classes, the matrix's class counts and
 * the pageblocks are then all zero.
 */
bool kmem_frag__has_classes(const struct kmem_frag *kf);

/**
 * kmem_frag__fallback_thread - count one kmem:mm_page_alloc_extfrag event
 * @kf: the analysis
 * @ev: the event; copied
 * @task: as the caller groups tasks (a pid, the id of a command name; 0:
 *	  not grouped): fallback rows differ by it
 * @tid: the thread that fell back
 *
 * An event that cannot be real (an order out of range, a fallback order
 * below the allocation's, change_ownership other than 0 or 1, pfn -1) is
 * counted in bad_fallbacks and nowhere else.
 *
 * A converted or polluted fallback is owed to the next allocation of @tid
 * (kmem_frag__take_owed()) if that has the fallback's callsite: the kernel
 * traces the fallbacks of an allocation in __rmqueue(), before the
 * allocation, on its thread, from the same callchain (those of a refill of
 * the per-CPU lists all before the allocation that refills them).  A bulk
 * allocation (alloc_pages_bulk(), as vmalloc's) falls back as others do
 * but traces no mm_page_alloc: its fallbacks are owed to no allocation,
 * and a fallback from another callsite, or an allocation of another,
 * drops them.  Of those of an Unmovable or Reclaimable request into a Movable
 * pageblock, the first since the thread's last allocation is kept: a
 * refill falls back for many pages and hands out the first of them.
 *
 * Return: 0; -ENOMEM; -EBUSY after kmem_frag__finish().
 */
int kmem_frag__fallback_thread(struct kmem_frag *kf,
			       const struct kmem_frag_event *ev, u32 task,
			       u32 tid);

/* What a thread's fallbacks owe its next allocation. */
struct kmem_frag_owed {
	u64	fragmenting;	/* converted and polluted fallbacks */
	/*
	 * The allocation succeeded and its page lies in the pageblock of the
	 * first Unmovable or Reclaimable fallback into a Movable pageblock:
	 * a page of those types in a pageblock the trace saw Movable.
	 */
	bool	fell_back;
};

/**
 * kmem_frag__take_owed - what an allocation of thread @tid is owed
 * @kf: the analysis
 * @tid: the thread that allocates
 * @ev: the allocation
 * @owed: where the fallbacks owed go; all zero when none are
 *
 * Takes what kmem_frag__fallback_thread() owed @tid if @ev has the
 * callsite of those fallbacks, and drops it if not.  Called for every
 * allocation: nothing to copy back, nothing on the stack of its own.
 */
void kmem_frag__take_owed(struct kmem_frag *kf, u32 tid,
			  const struct kmem_page_event *ev,
			  struct kmem_frag_owed *owed);

/**
 * kmem_frag__add_pinning - a page that fell back and is still allocated
 * @kf: the analysis
 * @pfn: its first pfn
 * @order: its order
 * @callsite: the callsite of its allocation
 * @task: the task of its allocation, as kmem_page_event::task
 *
 * After the last event, before kmem_frag__finish(): one call for each
 * live page whose allocation kmem_frag__take_owed() said fell back.
 *
 * Return: 0; -ENOMEM; -EBUSY after kmem_frag__finish().
 */
int kmem_frag__add_pinning(struct kmem_frag *kf, u64 pfn, int order,
			   u64 callsite, u32 task);

/**
 * kmem_frag__alloc - count one kmem:mm_page_alloc event
 * @kf: the analysis
 * @ev: the event, failed when its pfn is KMEM_PAGE_NO_PFN; its nodes are
 *	not used
 *
 * An order out of range is counted in bad_allocs and nowhere else.
 *
 * Return: 0; -ENOMEM; -EBUSY after kmem_frag__finish().
 */
int kmem_frag__alloc(struct kmem_frag *kf, const struct kmem_page_event *ev);

/**
 * kmem_frag__free - count one kmem:mm_page_free event
 * @kf: the analysis
 * @ev: the event, with its nodes
 *
 * A free by a CPU of another node than the page's counts in the remote
 * frees of the pageblocks the trace allocated into; other frees count
 * nowhere.
 *
 * Return: 0; -EBUSY after kmem_frag__finish().
 */
int kmem_frag__free(struct kmem_frag *kf, const struct kmem_page_event *ev);

/* What an aggregated count goes into (kmem_frag__add_*()). */
enum kmem_frag_part {
	KMEM_FRAG_TOTALS	= 1 << 0,	/* the summary and the matrix */
	KMEM_FRAG_ROWS		= 1 << 1,	/* the fallback or failure table */
};

/**
 * kmem_frag__add_fallbacks - add fallbacks counted elsewhere
 * @kf: the analysis
 * @ev: what they were; its pfn is not used
 * @nr: how many
 * @parts: into the totals (counted exactly, say), the rows by callsite
 *	   (estimated from stacks, say), or both
 *
 * perf kmem stat -b counts in the kernel: its counts go into the same
 * analysis events fill, which is then reported the same way.  Pageblocks
 * come from kmem_frag__add_pageblock().
 *
 * Return: 0; -ENOMEM; -EBUSY after kmem_frag__finish().
 */
int kmem_frag__add_fallbacks(struct kmem_frag *kf,
			     const struct kmem_frag_event *ev, u64 nr,
			     unsigned int parts);

/**
 * kmem_frag__add_allocs - add allocations counted elsewhere
 * @kf: the analysis
 * @ev: what they were, failed when its pfn is KMEM_PAGE_NO_PFN; its
 *	callsite counts for the failure table only
 * @nr: how many
 * @parts: as kmem_frag__add_fallbacks(); successful allocations have no
 *	   rows
 *
 * Return: 0; -ENOMEM; -EBUSY after kmem_frag__finish().
 */
int kmem_frag__add_allocs(struct kmem_frag *kf,
			  const struct kmem_page_event *ev, u64 nr,
			  unsigned int parts);

/*
 * Add @pb's counts, counted elsewhere, to the pageblock of @pb->pfn.
 * 0; -ENOMEM; -EBUSY after kmem_frag__finish().
 */
int kmem_frag__add_pageblock(struct kmem_frag *kf,
			     const struct kmem_frag_pageblock *pb);

/*
 * Settle the analysis after the last event: count the pageblocks of the
 * summary, sort them by pfn, build the table of
 * kmem_frag__callsite_fragmenting().  The functions below that say so
 * call it; called again, it returns what the first call did: 0, -ENOMEM.
 */
int kmem_frag__finish(struct kmem_frag *kf);

/* The totals, owned by @kf; their blocks after kmem_frag__finish(). */
const struct kmem_frag_summary *kmem_frag__summary(const struct kmem_frag *kf);

/*
 * The cell of the requested x fallback type matrix of the columns of the
 * type asked for (a row) and fallen back to, owned by @kf; NULL for a
 * column out of range.
 */
const struct kmem_frag_cell *kmem_frag__cell(const struct kmem_frag *kf,
					     enum kmem_migtype_column requested,
					     enum kmem_migtype_column fallback);

/**
 * kmem_frag__rows - the fallback table, sorted
 * @kf: the analysis
 * @keys: the sort keys
 * @nr_keys: how many
 * @nr: where the number of rows goes
 *
 * Finishes the analysis.  Rows tied on every key go by callsite, then
 * types, so that a trace always prints the same.  kmem_frag__fail_rows()
 * and kmem_frag__pin_rows() are the same for the failure and pinning
 * tables.
 *
 * Return: an array of *@nr rows owned by @kf, valid until the next call
 * (or NULL without memory).
 */
struct kmem_frag_row **kmem_frag__rows(struct kmem_frag *kf,
				       const struct kmem_sort_key *keys,
				       int nr_keys, size_t *nr);
struct kmem_frag_fail_row **kmem_frag__fail_rows(struct kmem_frag *kf,
						 const struct kmem_sort_key *keys,
						 int nr_keys, size_t *nr);
struct kmem_frag_pin_row **kmem_frag__pin_rows(struct kmem_frag *kf,
					       const struct kmem_sort_key *keys,
					       int nr_keys, size_t *nr);

/*
 * The converted plus polluted fallbacks of a callsite over all its rows,
 * 0 for one without: a sort key of the allocation table, by a binary
 * search (cheap enough for a sort's comparisons) in a table that
 * kmem_frag__finish() builds, which must have returned 0.
 */
u64 kmem_frag__callsite_fragmenting(const struct kmem_frag *kf, u64 callsite);

/*
 * Every pageblock that got an allocation or a fallback, what a map of
 * memory draws: an array of *@nr in pfn order, owned by @kf; NULL with
 * *@nr 0 when there are none or no classes.  Finishes the analysis.
 */
const struct kmem_frag_pageblock *kmem_frag__pageblocks(struct kmem_frag *kf,
							size_t *nr);

#endif /* __PERF_KMEM_COUNT_FRAG_H */
