/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the BPF program of perf kmem stat -b (kmem.bpf.c) and its user
 * side (util/kmem/bpf.c, util/kmem/bpf-fill.c) share: the layout of the
 * maps, and the sampler, which the unit tests run in user space.
 */
#ifndef __PERF_KMEM_DATA_H
#define __PERF_KMEM_DATA_H

/* Orders 0..31 are counted; an event of a larger one cannot be real. */
#define KMEM_BPF_NR_ORDERS	32
/* Allocations of the calibrating thread kept to find vmemmap. */
#define KMEM_BPF_CALIB_PAGES	128
/* Frames of a stack from a raw tracepoint that are the BPF side's, at most. */
#define KMEM_BPF_RAW_FRAMES	4
/* Migration types 0..15 as traced; slot 16 takes any other value. */
#define KMEM_BPF_NR_MIGTYPES	17
#define KMEM_BPF_BAD_MIGTYPE	16
/* The kernel keeps no more frames (kernel.perf_event_max_stack). */
#define KMEM_BPF_MAX_STACK	127
#define KMEM_BPF_MAX_NODES	64
/* Runs of memory of one node, for the node of a pfn. */
#define KMEM_BPF_MAX_RANGES	64
/* Pageblocks one allocation or fallback is counted in, at most. */
#define KMEM_BPF_MAX_SPAN	16
/*
 * Failures and fallbacks each take a stack up to this many per second
 * and CPU; past it they are sampled by bytes as allocations are.
 */
#define KMEM_BPF_RARE_PER_SEC	1000
/* The log2 table of the sampler: 1 << this many intervals. */
#define KMEM_BPF_LOG2_BITS	8
#define KMEM_BPF_LOG2_SIZE	((1 << KMEM_BPF_LOG2_BITS) + 1)
/* Slab cache names are cut at this many bytes, NUL included. */
#define KMEM_BPF_CACHE_NAME	32

enum kmem_bpf_filter {
	KMEM_BPF_FILTER_NONE,	/* -a */
	KMEM_BPF_FILTER_TASKS,	/* -p, -t, a workload: the tasks map */
	KMEM_BPF_FILTER_CGROUP,	/* --cgroup: under the cgroup of the array */
};

/*
 * The per-CPU array "counts": first the allocations by order and
 * migration type slot, then for each counter below one entry per order,
 * then the single counters.
 */
enum kmem_bpf_order_counter {
	KMEM_BPF_FREE,		/* frees, by their order */
	KMEM_BPF_ALLOC_REMOTE,	/* allocations of another node's page */
	KMEM_BPF_FREE_REMOTE,	/* frees of another node's page */
	/* Of the live-page map, by the order of the allocation: */
	KMEM_BPF_FREED,		/* allocations freed */
	KMEM_BPF_DROPPED,	/* allocated again, no free seen */
	KMEM_BPF_FREED_XNODE,	/* freed on another node than allocated */
	KMEM_BPF_FREE_ONLY,	/* frees of pfns not in the map, their order */
	KMEM_BPF_TRACKED,	/* allocations put in the map */
	KMEM_BPF_ORDER_DIFFERS,	/* freed with another order */
	KMEM_BPF_NR_ORDER_COUNTERS,
};

enum kmem_bpf_counter {
	KMEM_BPF_BAD_ORDER,		/* allocations of an order > 31 */
	KMEM_BPF_BAD_FREE_ORDER,	/* frees of an order > 31 */
	KMEM_BPF_SAMPLED,		/* allocations sampled */
	KMEM_BPF_STACK_FAILED,		/* bpf_get_stack() failed */
	KMEM_BPF_STACKS_FULL,		/* no room for a new stack */
	KMEM_BPF_ROWS_FULL,		/* no room for a new row */
	KMEM_BPF_UNTRACKED,		/* no room in the live-page map */
	KMEM_BPF_UNTRACKED_SAMPLED,	/* ...of them sampled */
	KMEM_BPF_RARE_FULL,		/* no room for a failure or fallback */
	KMEM_BPF_TASKS_FULL,		/* a forked task not followed */
	KMEM_BPF_BLOCK_OUTSIDE,		/* pfn past the pageblock array */
	KMEM_BPF_RARE_TAKEN,		/* failures, fallbacks: stack taken */
	KMEM_BPF_RARE_SAMPLED,		/* ...sampled past the rate */
	KMEM_BPF_SLAB_FREE,		/* kfree, kmem_cache_free */
	KMEM_BPF_SLAB_FREE_NULL,	/* ...of NULL or ZERO_SIZE_PTR */
	KMEM_BPF_SLAB_FULL,		/* no room for a slab row */
	KMEM_BPF_STALL_LOST,		/* stall events the ring had no room for */
	KMEM_BPF_STALL_NO_TASK,		/* ...nor a task's element */
	KMEM_BPF_NR_COUNTERS,
};

#define KMEM_BPF_GRID_SIZE	(KMEM_BPF_NR_ORDERS * KMEM_BPF_NR_MIGTYPES)
#define KMEM_BPF_ORDER_BASE	KMEM_BPF_GRID_SIZE
#define KMEM_BPF_COUNTER_BASE	(KMEM_BPF_ORDER_BASE + \
				 KMEM_BPF_NR_ORDER_COUNTERS * KMEM_BPF_NR_ORDERS)
#define KMEM_BPF_NR_COUNTS	(KMEM_BPF_COUNTER_BASE + KMEM_BPF_NR_COUNTERS)

/* A row of the allocation table: what a sampled allocation was. */
struct kmem_bpf_row_key {
	__u64	gfp;
	__u32	stack_id;	/* of the stacks map */
	__u16	order;
	__s16	migtype;	/* as traced */
};

/* Its sampled allocations, and of those, what became of them. */
struct kmem_bpf_row {
	__u64	samples;
	__u64	freed;
	__u64	dropped;
	__u64	xnode_frees;
};

/* A page in the live-page map. */
struct kmem_bpf_live {
	struct kmem_bpf_row_key	row;	/* of a sampled allocation */
	__u8			order;
	__s8			node;	/* of the allocating CPU */
	__u8			sampled;
	__u8			pad[5];
};

/* Failed allocations by order, migration type and GFP: exact. */
struct kmem_bpf_fail_key {
	__u64	gfp;
	__u32	order;
	__s32	migtype;
};

/* Fallbacks by their fields: exact. */
struct kmem_bpf_fallback_key {
	__s32	alloc_order;
	__s32	fallback_order;
	__s32	alloc_migtype;
	__s32	fallback_migtype;
	__s32	change_ownership;
};

enum kmem_bpf_rare_kind {
	KMEM_BPF_RARE_FAIL,
	KMEM_BPF_RARE_FALLBACK,
};

/* A failure or a fallback with its stack. */
struct kmem_bpf_rare_key {
	__u64	gfp;			/* failure */
	__u32	stack_id;
	__u8	kind;			/* enum kmem_bpf_rare_kind */
	__u8	order;			/* asked for */
	__u8	fallback_order;		/* fallback */
	__u8	change_ownership;	/* fallback */
	__s16	migtype;		/* asked for */
	__s16	fallback_migtype;	/* fallback */
	__u32	pad;
};

/* Within the rate every stack is taken (weight 1), past it sampled. */
struct kmem_bpf_rare {
	__u64	taken;
	__u64	sampled;
};

/*
 * A pageblock, in the array indexed by pfn >> pageblock_order: whether it
 * got allocations of each grid column (bits 0-3) and fallbacks of each
 * class (bits 4-6), claimed, converted, polluted; not how many.
 */
struct kmem_bpf_block {
	__u64	seen;		/* 64 bits: atomic or has no 32-bit form */
	__u64	remote_frees;
};

#define KMEM_BPF_BLOCK_FALLBACK	4

/* A slab row: of a call_site (and cache), exact. */
struct kmem_bpf_slab_key {
	__u64	call_site;
	char	cache[KMEM_BPF_CACHE_NAME];	/* "" for kmalloc */
};

struct kmem_bpf_slab {
	__u64	hits;
	__u64	bytes_req;
	__u64	bytes_alloc;
	__u64	xnode;		/* node asked != the CPU's */
	__u64	xnode_bytes;	/* ...their bytes_alloc */
	__u64	fails;		/* ptr NULL */
	__u64	fail_bytes;	/* ...their bytes_req */
	__u64	zero_size;	/* kmalloc(0): ZERO_SIZE_PTR */
};

/*
 * The events of allocation stalls, as the ring buffer "stall_events"
 * ships them: the rare events of reclaim and compaction, and the
 * allocations of a task while it has a stall open.  The user side feeds
 * them to the same stall analysis a recording's events go to, whose enum
 * kmem_stall_type they are, in the same order (bpf-fill.c checks it).
 */
enum kmem_bpf_stall_type {
	KMEM_BPF_STALL_RECLAIM_BEGIN,	/* vmscan:mm_vmscan_direct_reclaim_begin */
	KMEM_BPF_STALL_RECLAIM_END,
	KMEM_BPF_STALL_MEMCG_BEGIN,	/* vmscan:mm_vmscan_memcg_reclaim_begin */
	KMEM_BPF_STALL_MEMCG_END,
	KMEM_BPF_STALL_COMPACT_TRY,	/* compaction:mm_compaction_try_to_compact_pages */
	KMEM_BPF_STALL_COMPACT_BEGIN,
	KMEM_BPF_STALL_COMPACT_END,
	KMEM_BPF_STALL_COMPACT_DEFERRED,
	KMEM_BPF_STALL_KSWAPD_WAKEUP,	/* vmscan:mm_vmscan_wakeup_kswapd */
	KMEM_BPF_STALL_KSWAPD_WAKE,
	KMEM_BPF_STALL_KCOMPACTD_WAKEUP,
	KMEM_BPF_STALL_KCOMPACTD_WAKE,
	KMEM_BPF_STALL_ALLOC,		/* kmem:mm_page_alloc of a stalled task */
	KMEM_BPF_NR_STALL_TYPES,
};

/* One record of the ring; value: pages reclaimed, a status, a pfn. */
struct kmem_bpf_stall {
	__u64	time;		/* bpf_ktime_get_ns() */
	__u64	gfp;
	__u64	value;
	__u32	tid;
	__s32	migtype;	/* an allocation's */
	__s16	order;
	__u8	type;		/* enum kmem_bpf_stall_type */
	__u8	nr_ips;		/* frames of the record with a stack */
	__u32	pad;
};

/*
 * The record of the events a stall row is named by: the allocation that
 * may end a stall, a memcg reclaim's begin.  They are rare: the stack is
 * walked for each, whole.
 */
struct kmem_bpf_stall_stack {
	struct kmem_bpf_stall	ev;
	__u64			ips[KMEM_BPF_MAX_STACK];
};

/*
 * Tasks with a stall open at once, whatever -M: each holds an element
 * until its stall ends or it exits; one more is counted (no task).
 */
#define KMEM_BPF_STALL_TASKS		4096

/* Bytes of the stall ring per -M entry: two small records. */
#define KMEM_BPF_STALL_RING_PER_ENTRY	128

/* The sampler's state on one CPU. */
struct kmem_bpf_cpu {
	__s64	bytes_left;	/* to the next allocation sampled */
	__s64	rare_left;	/* the same for failures and fallbacks */
	__u64	rare_start;	/* of the current second */
	__u32	rare_taken;	/* stacks taken in it */
	__u32	started;
	__u32	stacks_made;	/* stack ids are this CPU's count and the CPU */
	/* The last answer of tracked(): a tid, and whether it is followed. */
	__u32	task_tid;
	__u32	task_gen;
	__u32	task_tracked;
};

/* A stack id: the CPU in the low bits, never 0. */
#define KMEM_BPF_CPU_BITS	12

/* Position of the most significant bit of @x, 0 for 0 and 1. */
static inline int kmem_bpf_msb(__u64 x)
{
	int e = 0, shift;

	/* A halving search: BPF has no instruction for it. */
	for (shift = 32; shift; shift >>= 1) {
		if (x >> shift) {
			x >>= shift;
			e += shift;
		}
	}
	return e;
}

/* ln 2 in Q24 */
#define KMEM_BPF_LN2_Q24	11629080ULL

/**
 * kmem_bpf_gap - the bytes to the next sampled allocation
 * @rnd: a uniform random 32-bit number
 * @mean: the mean gap, --sample-bytes
 * @log2: log2(1 + i / 256) in Q32 for i = 0..256, filled by the user side
 *
 * An exponential draw, -mean * ln(U) with U = (rnd + 1) / 2^32 in (0, 1],
 * in integers: BPF has no floating point.  A sample point that is
 * exponentially distributed makes the chance that an allocation of s
 * bytes is sampled 1 - exp(-s / mean), whatever came before, and so the
 * weight of a sample 1 / (1 - exp(-s / mean)).  log2 of U is its
 * exponent and the table, interpolated: the error is below 1e-5 of the
 * gap, far below what sampling itself varies.
 *
 * Return: the gap in bytes.
 */
static inline __u64 kmem_bpf_gap(__u32 rnd, __u64 mean, const __u64 *log2)
{
	__u64 x = (__u64)rnd + 1, frac, lo, hi, l, neglog2, neg_ln;
	int e = kmem_bpf_msb(x);
	__u32 i;

	frac = (x << (32 - e)) & 0xffffffffULL;
	i = (frac >> 24) & ((1 << KMEM_BPF_LOG2_BITS) - 1);
	lo = log2[i];
	hi = log2[i + 1];
	l = lo + (((hi - lo) * (frac & 0xffffff)) >> 24);
	/* -log2(U) = 32 - e - log2(x / 2^e), in Q32 */
	neglog2 = ((__u64)(32 - e) << 32) - l;
	neg_ln = ((neglog2 >> 8) * KMEM_BPF_LN2_Q24) >> 16;
	return ((neg_ln >> 16) * mean) >> 16;
}

#endif /* __PERF_KMEM_DATA_H */
