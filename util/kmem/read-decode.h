/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_DECODE_H
#define __PERF_KMEM_READ_DECODE_H

/*
 * perf kmem's samples decoded: perf events of the kmem tracepoints go in,
 * the few numbers each analysis needs come out, as a struct kmem_event.
 * The decoder binds itself to the tracepoints of a session, checks their
 * formats once, and reads every sample at the offsets found then.  It also
 * owns what outlives a sample: the recording kernel's names of gfp values
 * and the slab cache names.
 */

#include <linux/kernel.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "count-frag.h"
#include "count-page.h"
#include "count-slab.h"
#include "count-stall.h"
#include "evsel.h"
#include "sample.h"

struct callsite_resolver;
struct kmem_stacks;
struct perf_session;

enum kmem_event_kind {
	KMEM_EVENT_PAGE_ALLOC,
	KMEM_EVENT_PAGE_FREE,
	KMEM_EVENT_SLAB_ALLOC,
	KMEM_EVENT_SLAB_FREE,
	KMEM_EVENT_EXTFRAG,
	KMEM_EVENT_STALL,	/* reclaim, compaction, kswapd, kcompactd */
	/* Not samples: what perf's thread tracking takes, kept in order too. */
	KMEM_EVENT_TASK_COMM,
	KMEM_EVENT_TASK_FORK,
	KMEM_EVENT_TASK_EXIT,
	KMEM_NR_EVENT_KINDS,
	/* A sample too short for its fields: it delivers nothing. */
	KMEM_EVENT_SKIPPED = KMEM_NR_EVENT_KINDS,
};

/* A COMM, FORK or EXIT record, as much of it as perf's tracking reads. */
struct kmem_task_event {
	u32	pid, tid;
	u32	ppid, ptid;	/* FORK and EXIT */
	u16	misc;		/* PERF_RECORD_MISC_COMM_EXEC */
	char	comm[16];	/* COMM: TASK_COMM_LEN */
};

/* A decoded sample, as it waits to be put in time order. */
struct kmem_event {
	u64	time;		/* first, as struct kmem_queue wants */
	u32	kind;		/* enum kmem_event_kind */
	u32	tid;		/* of the task that ran it */
	union {
		struct kmem_page_event		page;
		struct kmem_slab_alloc_event	slab_alloc;
		struct kmem_slab_free_event	slab_free;
		struct kmem_frag_event		extfrag;
		struct kmem_stall_event		stall;
		struct kmem_task_event		task;
	};
};

/*
 * The bytes of a struct kmem_event that a page-only analysis uses: its
 * queue holds smaller records.
 */
#define KMEM_PAGE_EVENT_SIZE \
	(offsetof(struct kmem_event, page) + \
	 ALIGN(max(sizeof(struct kmem_page_event), \
		   sizeof(struct kmem_frag_event)), sizeof(u64)))
_Static_assert(sizeof(struct kmem_task_event) <= sizeof(struct kmem_page_event),
	       "a page-only queue holds the task records too");
_Static_assert(sizeof(struct kmem_stall_event) <= sizeof(struct kmem_page_event),
	       "a page-only queue holds the stall events too");

struct kmem_decode_config {
	bool	page;		/* decode the page allocator's events */
	bool	slab;		/* decode the slab allocator's events */
	/*
	 * Resolves callsites: the first non-allocator frame of a page
	 * allocation's callchain.  NULL: page callsites are 0.  A slab
	 * event's call_site is left as it came, for the slab analysis to
	 * resolve once per distinct address (kmem_slab_config::callsite).
	 */
	struct callsite_resolver *resolver;
	/* The kernel's pageblock_order as the user says; -1: from the trace. */
	int	pageblock_order;
	/* The perf kmem command that advice names: "stat" or "diff". */
	const char *command;
	/*
	 * Where page allocations' callchains are interned: the tag of
	 * each allocation is then its chain's id + 1 (0: none).  NULL: no
	 * tags.
	 */
	struct kmem_stacks *stacks;
	/*
	 * Resolves the callsites of memcg reclaim begins: the first frame
	 * of the chain outside the allocator and memcg's charging.  NULL:
	 * @resolver's callsite.
	 */
	struct callsite_resolver *memcg_resolver;
};

/* What the decoder found out about the trace, for the analyses. */
struct kmem_trace_info {
	u64	page_size;	/* the recording kernel's, 4096 if unknown */
	bool	pfn_is_page;	/* kernels before v4.1 traced struct page * */
	bool	pre_v4_4;	/* Movable and Reclaimable were swapped */
	bool	has_page_alloc;
	bool	has_page_free;	/* kmem:mm_page_free was recorded */
	bool	has_callchains;	/* on kmem:mm_page_alloc */
	bool	has_extfrag;	/* kmem:mm_page_alloc_extfrag was recorded */
	/* The stall events recorded: a bit per enum kmem_stall_type. */
	u32	stall_events;
	/* The recording kernel's; KMEM_FRAG_ORDER_UNKNOWN, see pageblock_why. */
	int	pageblock_order;
	char	pageblock_why[160];	/* why it is unknown */
	int	nr_nodes;	/* highest NUMA node id + 1; 0: no topology */
	bool	has_cpu_nodes;	/* the topology says which CPU is on which node */
	bool	has_mem2node;	/* the memory topology maps pfns to nodes */
	bool	topology_corrupt;	/* recorded, but could not be read */
	/* "" or how an event was sampled: counts are of sampled events. */
	char	sampled[96];
};

struct kmem_decoder;

/**
 * kmem_decoder__new - bind a decoder to the kmem tracepoints of a session
 * @session: the perf.data being read; it must outlive the decoder
 * @config: what to decode
 * @err: where a one-line reason goes on failure
 * @err_size: the size of @err
 *
 * Binds the handlers of the tracepoints that @config asks for and checks
 * their formats: every field it reads must be there and inside the record.
 *
 * Return: the decoder, or NULL with @err set, e.g. when the trace holds
 * none of the events asked for.
 */
struct kmem_decoder *kmem_decoder__new(struct perf_session *session,
				       const struct kmem_decode_config *config,
				       char *err, size_t err_size);
void kmem_decoder__delete(struct kmem_decoder *dec);

/* How the decoder reads the samples of an event: its evsel->handler. */
typedef int (*kmem_decode_fn)(struct kmem_decoder *dec, struct evsel *evsel,
			      struct perf_sample *sample, struct kmem_event *ev);

/**
 * kmem_decoder__decode - decode one sample
 * @dec: the decoder
 * @evsel: the sample's event, one the decoder was bound to (a handler)
 * @sample: the sample
 * @ev: filled in, but for its time (the queue's record has it)
 *
 * Inline: it runs for every sample of a trace, and is no more than a jump
 * to the function the decoder bound to the sample's event, which its
 * caller can make as its last: nothing is left to do after it.
 *
 * Return: 0, with @ev of kind KMEM_EVENT_SKIPPED where the sample is too
 * short for its fields (counted, see kmem_decoder__nr_short()); -ENOMEM.
 */
static inline int kmem_decoder__decode(struct kmem_decoder *dec,
				       struct evsel *evsel,
				       struct perf_sample *sample,
				       struct kmem_event *ev)
{
	kmem_decode_fn decode = evsel->handler;

	ev->tid = sample->tid;
	return decode(dec, evsel, sample, ev);
}

/**
 * kmem_stall_tracepoint - the tracepoint of a stall event
 * @type: an enum kmem_stall_type
 * @callchain: set when perf kmem record takes its kernel callchain (it
 *	begins a stall)
 *
 * Return: "system:name", or NULL for a type out of range.
 */
const char *kmem_stall_tracepoint(enum kmem_stall_type type, bool *callchain);

/*
 * The recording kernel's name of an mm_compaction_end status, from the
 * event's print format: "success", "partial_skipped"...; NULL if it has
 * none for @status.
 */
const char *kmem_decoder__compact_status(const struct kmem_decoder *dec,
					 u64 status);

/* What the trace is: valid after kmem_decoder__new(). */
const struct kmem_trace_info *kmem_decoder__info(const struct kmem_decoder *dec);

/* The recording kernel's names of the gfp flags @gfp, "?" if not seen. */
const char *kmem_decoder__gfp_name(const struct kmem_decoder *dec, u64 gfp);

/* Samples skipped because they were too short to hold their fields. */
u64 kmem_decoder__nr_short(const struct kmem_decoder *dec);

/* Is NUMA node @node one of the trace's (ids need not be dense)? */
bool kmem_decoder__has_node(const struct kmem_decoder *dec, int node);
/* The number of NUMA nodes of the trace. */
int kmem_decoder__nr_trace_nodes(const struct kmem_decoder *dec);
/*
 * Whether memory can cross between the trace's nodes, as the report
 * says it: "analysed", or why not ("one_node", "no_topology", ...).
 */
const char *kmem_decoder__cross_node_status(const struct kmem_decoder *dec);

/* The NUMA node of page @pfn, by the trace's memory topology; -1. */
int kmem_decoder__page_node(struct kmem_decoder *dec, u64 pfn);

typedef void (*kmem_node_range_fn)(int node, u64 start_pfn, u64 end_pfn,
				   void *arg);

/*
 * Call @fn for each run of memory blocks of a node that the trace's
 * memory topology has, pfns [start_pfn, end_pfn).
 */
void kmem_decoder__node_ranges(const struct kmem_decoder *dec,
			       kmem_node_range_fn fn, void *arg);

#endif /* __PERF_KMEM_READ_DECODE_H */
