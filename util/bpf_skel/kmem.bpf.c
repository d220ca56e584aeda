// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * perf kmem stat -b: the page allocator counted in the kernel.
 *
 * Every count that needs no stack is kept exact, in per-CPU arrays and
 * small hash maps: nothing goes to user space per allocation.  Only the
 * rare events of allocation stalls go, through a ring buffer, with the
 * allocations of a task while it has a stall open.  Stacks are
 * walked for a sample of the allocations, one per sample_bytes allocated
 * on average (see kmem_bpf_gap()), and for failures and fallbacks up to
 * a rate.  The live-page map holds the sampled allocations still live,
 * or with exact_live every allocation, so that frees can be paired with
 * them.  The layout of the maps is in kmem_data.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "kmem_data.h"

/* The tracepoints' records, relocated by CO-RE against the kernel's. */
struct trace_event_raw_mm_page_alloc___kmem {
	struct trace_entry	ent;
	unsigned long		pfn;
	unsigned int		order;
	unsigned long		gfp_flags;
	int			migratetype;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_page_free___kmem {
	struct trace_entry	ent;
	unsigned long		pfn;
	unsigned int		order;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_page_alloc_extfrag___kmem {
	struct trace_entry	ent;
	unsigned long		pfn;
	int			alloc_order;
	int			fallback_order;
	int			alloc_migratetype;
	int			fallback_migratetype;
	int			change_ownership;
} __attribute__((preserve_access_index));

struct trace_event_raw_kmem_cache_alloc___kmem {
	struct trace_entry	ent;
	unsigned long		call_site;
	const void		*ptr;
	u32			__data_loc_name;
	unsigned long		bytes_req;
	unsigned long		bytes_alloc;
	unsigned long		gfp_flags;
	int			node;
} __attribute__((preserve_access_index));

struct trace_event_raw_kmalloc___kmem {
	struct trace_entry	ent;
	unsigned long		call_site;
	const void		*ptr;
	unsigned long		bytes_req;
	unsigned long		bytes_alloc;
	unsigned long		gfp_flags;
	int			node;
} __attribute__((preserve_access_index));

/* kfree and kmem_cache_free: the pointer freed, wherever it is in each. */
#define FREE_RECORD(_name)					\
	struct trace_event_raw_##_name##___kmem {		\
		struct trace_entry	ent;			\
		const void		*ptr;			\
	} __attribute__((preserve_access_index))

FREE_RECORD(kfree);
FREE_RECORD(kmem_cache_free);

/*
 * What a tracepoint program returns: 0 would keep the event from every
 * perf event of the tracepoint, a perf record running beside it too.
 */
#define PASS		1

#define NO_PFN		(~0UL)
#define ZERO_SIZE_PTR	16UL
#define NUMA_NO_NODE	(-1)

/*
 * A map of BPF_MAP_TYPE_@_type from @_key to @_value.  Most are sized by
 * the user side before the load: 1 entry here.
 */
#define MAP(_type, _key, _value, _entries)		\
	struct {					\
		__uint(type, BPF_MAP_TYPE_##_type);	\
		__uint(key_size, sizeof(_key));		\
		__uint(value_size, sizeof(_value));	\
		__uint(max_entries, _entries);		\
	}

/* Set by the user side before loading. */
const volatile int filter = KMEM_BPF_FILTER_NONE;
/* perf kmem's own process, left out of what it counts; 0: none left out. */
const volatile __u32 own_tgid;
const volatile __u64 sample_bytes = 512 * 1024;
const volatile int sample_all;
const volatile int exact_live;
const volatile int page_shift = 12;
const volatile int pageblock_order = -1;
const volatile __u64 nr_blocks;
const volatile int max_stack = 16;
const volatile __u64 live_max;
const volatile __u64 nr_pfn_words;
const volatile int nr_ranges;
const volatile __u64 range_start[KMEM_BPF_MAX_RANGES];
const volatile __u64 range_end[KMEM_BPF_MAX_RANGES];
const volatile int range_node[KMEM_BPF_MAX_RANGES];
const volatile int nr_nodes = 1;
const volatile __u64 log2_table[KMEM_BPF_LOG2_SIZE];

/* Entries in the live-page map: kept, so that a full map is not tried. */
__u64 nr_live;
/* Raised when a task is freed: the CPUs' cached answers of tracked_task(). */
__u32 tasks_gen;
/* Set by the user side when the counting ends, before the slow detach. */
__u32 stopped;

MAP(PERCPU_ARRAY, __u32, __u64, KMEM_BPF_NR_COUNTS) counts SEC(".maps");

/* Bytes allocated on one node and freed on another: nr_nodes^2. */
MAP(PERCPU_ARRAY, __u32, __u64, 1) node_bytes SEC(".maps");

MAP(PERCPU_ARRAY, __u32, struct kmem_bpf_cpu, 1) cpu_state SEC(".maps");

/* Where a stack is walked to; the stacks map is keyed by its frames. */
struct stack_buf {
	__u64	ips[KMEM_BPF_MAX_STACK];
};

MAP(PERCPU_ARRAY, __u32, struct stack_buf, 1) stack_scratch SEC(".maps");

/* Frames -> id: keys compared whole, so no two stacks ever collide. */
MAP(HASH, struct stack_buf, __u32, 1) stacks SEC(".maps");
MAP(HASH, struct kmem_bpf_row_key, struct kmem_bpf_row, 1) rows SEC(".maps");
MAP(HASH, __u64, struct kmem_bpf_live, 1) live SEC(".maps");

/*
 * A bit per pfn: the pfn is in the live-page map.  Without exact_live
 * only the sampled pages are, and every other allocation and free learns
 * that from its bit, not from a lookup in the map.
 */
MAP(ARRAY, __u32, __u64, 1) live_pfns SEC(".maps");

MAP(HASH, struct kmem_bpf_fail_key, __u64, 4096) fails SEC(".maps");
MAP(HASH, struct kmem_bpf_fallback_key, __u64, 4096) fallbacks SEC(".maps");
MAP(HASH, struct kmem_bpf_rare_key, struct kmem_bpf_rare, 1)
	rare_rows SEC(".maps");
MAP(ARRAY, __u32, struct kmem_bpf_block, 1) blocks SEC(".maps");

/* -p, -t, a workload: the tasks counted, by tid; forks are followed. */
MAP(HASH, __u32, __u8, 1) tasks SEC(".maps");

MAP(CGROUP_ARRAY, __u32, __u32, 1) cgroup SEC(".maps");
MAP(PERCPU_HASH, struct kmem_bpf_slab_key, struct kmem_bpf_slab, 1)
	slab_rows SEC(".maps");

static __always_inline void count_at(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &idx);

	if (v)
		*v += n;
}

static __always_inline void count(enum kmem_bpf_counter c)
{
	count_at(KMEM_BPF_COUNTER_BASE + c, 1);
}

static __always_inline void count_order(enum kmem_bpf_order_counter c,
					__u32 order)
{
	count_at(KMEM_BPF_ORDER_BASE + c * KMEM_BPF_NR_ORDERS +
		 (order & (KMEM_BPF_NR_ORDERS - 1)), 1);
}

/*
 * Is the current task one of those followed?  Events come in runs from one
 * task, so each CPU keeps the last answer: good until a task is freed,
 * whose tid a new task may get.
 */
static __always_inline bool tracked_task(void)
{
	__u32 zero = 0, tid = (__u32)bpf_get_current_pid_tgid();
	struct kmem_bpf_cpu *st = bpf_map_lookup_elem(&cpu_state, &zero);
	bool found;

	if (st && st->task_tid == tid && st->task_gen == tasks_gen)
		return st->task_tracked;
	found = !!bpf_map_lookup_elem(&tasks, &tid);
	if (st) {
		st->task_tid = tid;
		st->task_gen = tasks_gen;
		st->task_tracked = found;
	}
	return found;
}

/*
 * Frees are counted of every task the filter takes, perf kmem's own too:
 * it frees pages others allocated (in reclaim), and a page whose free was
 * not seen would look still allocated.
 */
static __always_inline bool tracked_free(void)
{
	if (stopped)
		return false;
	if (filter == KMEM_BPF_FILTER_NONE)
		return true;
	if (filter == KMEM_BPF_FILTER_CGROUP)
		return bpf_current_task_under_cgroup(&cgroup, 0) == 1;
	return tracked_task();
}

/* Allocations, fallbacks and stalls: of those tasks but perf kmem's own. */
static __always_inline bool tracked(void)
{
	if (own_tgid && bpf_get_current_pid_tgid() >> 32 == own_tgid)
		return false;
	return tracked_free();
}

static __always_inline int migtype_slot(int migtype)
{
	return migtype >= 0 && migtype < KMEM_BPF_BAD_MIGTYPE ? migtype :
	       KMEM_BPF_BAD_MIGTYPE;
}

/* The column of the grid: Movable is 1 and Reclaimable 2 since v4.4. */
static __always_inline int migtype_column(int migtype)
{
	if (migtype == 1)
		return 2;
	if (migtype == 2)
		return 1;
	return migtype == 0 ? 0 : 3;
}

/* The node of a pfn, from the ranges the user side read from sysfs. */
static __always_inline int page_node(__u64 pfn)
{
	int i;

	if (nr_nodes < 2)
		return 0;
	for (i = 0; i < KMEM_BPF_MAX_RANGES && i < nr_ranges; i++)
		if (pfn >= range_start[i] && pfn < range_end[i])
			return range_node[i];
	return NUMA_NO_NODE;
}

static __always_inline int cpu_node(void)
{
	return nr_nodes < 2 ? 0 : bpf_get_numa_node_id();
}

static __always_inline bool remote(int cpu, int page)
{
	return cpu >= 0 && page >= 0 && cpu != page;
}

static __always_inline __u64 next_gap(void)
{
	return kmem_bpf_gap(bpf_get_prandom_u32(), sample_bytes,
			    (const __u64 *)log2_table);
}

static __always_inline struct kmem_bpf_cpu *this_cpu(void)
{
	__u32 zero = 0;
	struct kmem_bpf_cpu *st = bpf_map_lookup_elem(&cpu_state, &zero);

	if (st && !st->started) {
		/* The first countdown is a draw too: no sample at the start. */
		st->bytes_left = next_gap();
		st->rare_left = next_gap();
		st->started = 1;
	}
	return st;
}

/* Does a sample point fall in these @bytes of @left? */
static __always_inline bool sample(__s64 *left, __u64 bytes)
{
	*left -= bytes;
	if (*left > 0)
		return false;
	*left = next_gap();
	return true;
}

/*
 * Unique without an atomic that returns its value (the BPF ISA perf
 * builds for has none): a count of the CPU's own, and the CPU.
 */
static __always_inline __u32 new_stack_id(void)
{
	struct kmem_bpf_cpu *st = this_cpu();

	if (!st)
		return 0;
	return (++st->stacks_made << KMEM_BPF_CPU_BITS) |
	       (bpf_get_smp_processor_id() & ((1 << KMEM_BPF_CPU_BITS) - 1));
}

/* The id of the current kernel stack; 0 if it could not be kept. */
static __always_inline __u32 stack_id(void *ctx)
{
	__u32 zero = 0, id, *found;
	struct stack_buf *buf;
	long len;

	buf = bpf_map_lookup_elem(&stack_scratch, &zero);
	if (!buf)
		return 0;
	/*
	 * The key is the max_stack frames: bpf_get_stack() zeroes those past
	 * the ones it walked (a loop of ours doing it again was refused by the
	 * verifier from --max-stack 60 on, its offsets summed out of range).
	 */
	len = bpf_get_stack(ctx, buf->ips, max_stack * sizeof(__u64), 0);
	if (len <= 0) {
		count(KMEM_BPF_STACK_FAILED);
		return 0;
	}
	found = bpf_map_lookup_elem(&stacks, buf);
	if (found)
		return *found;
	id = new_stack_id();
	if (bpf_map_update_elem(&stacks, buf, &id, BPF_NOEXIST)) {
		/* Another CPU added it meanwhile, or the map is full. */
		found = bpf_map_lookup_elem(&stacks, buf);
		if (found)
			return *found;
		count(KMEM_BPF_STACKS_FULL);
		return 0;
	}
	return id;
}

/* The value of @key in @map, added as @zero if new; NULL in a full map. */
static __always_inline void *find_or_add(void *map, const void *key,
					 const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	/* Or another CPU added it meanwhile. */
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

static __always_inline struct kmem_bpf_row *find_row(struct kmem_bpf_row_key *key)
{
	struct kmem_bpf_row zero = {}, *row = find_or_add(&rows, key, &zero);

	if (!row)
		count(KMEM_BPF_ROWS_FULL);
	return row;
}

/*
 * What a pageblock was seen to get: a bit per column allocated from and
 * per class of fallback into it, written only the first time, so that
 * a pageblock's line is read, not fought over, by the CPUs.
 */
enum block_field {
	BLOCK_ALLOC,		/* + the column */
	BLOCK_FALLBACK = 4,	/* + the class */
	BLOCK_REMOTE_FREE = 7,
};

static __always_inline void block_mark(struct kmem_bpf_block *b, int field)
{
	__u64 bit = 1ULL << field;

	if (field == BLOCK_REMOTE_FREE)
		__sync_fetch_and_add(&b->remote_frees, 1);
	else if (!(b->seen & bit))
		__sync_fetch_and_or(&b->seen, bit);
}

/*
 * Mark the pageblocks a block of 1 << @order pages at @pfn covers: buddy
 * blocks are aligned to their size, a large one spans several.
 */
static __always_inline void block_count(__u64 pfn, __u32 order, int field)
{
	__u64 first, n, i;
	int pbo = pageblock_order;

	if (pbo < 0 || pbo >= KMEM_BPF_NR_ORDERS)
		return;
	first = pfn >> pbo;
	n = order > (__u32)pbo ? 1ULL << ((order - pbo) & 31) : 1;
	for (i = 0; i < KMEM_BPF_MAX_SPAN && i < n; i++) {
		__u32 idx = first + i;
		struct kmem_bpf_block *b;

		if (first + i >= nr_blocks) {
			count(KMEM_BPF_BLOCK_OUTSIDE);
			return;
		}
		b = bpf_map_lookup_elem(&blocks, &idx);
		if (b)
			block_mark(b, field);
	}
}

/* The word of @pfn's bit, and the bit; NULL past the array. */
static __always_inline __u64 *live_word(__u64 pfn, __u64 *bit)
{
	__u32 idx = pfn >> 6;

	if ((pfn >> 6) >= nr_pfn_words)
		return NULL;
	*bit = 1ULL << (pfn & 63);
	return bpf_map_lookup_elem(&live_pfns, &idx);
}

/* Might the live-page map hold @pfn?  A pfn without a bit is looked up. */
static __always_inline bool maybe_live(__u64 pfn)
{
	__u64 bit, *w;

	if (exact_live)
		return true;
	w = live_word(pfn, &bit);
	return !w || (*w & bit);
}

static __always_inline void mark_live(__u64 pfn, bool on)
{
	__u64 bit, *w;

	if (exact_live)
		return;
	w = live_word(pfn, &bit);
	if (!w)
		return;
	if (on)
		__sync_fetch_and_or(w, bit);
	else
		__sync_fetch_and_and(w, ~bit);
}

/* The page allocated at @pfn is in the map now: an older one is dropped. */
static __always_inline void drop_old(struct kmem_bpf_live *old)
{
	struct kmem_bpf_row *row;

	count_order(KMEM_BPF_DROPPED, old->order);
	if (!old->sampled)
		return;
	row = bpf_map_lookup_elem(&rows, &old->row);
	if (row)
		__sync_fetch_and_add(&row->dropped, 1);
}

/*
 * Every allocation looks its pfn up: one still in the map was allocated
 * again without a free seen.  Only what the map keeps is added.
 */
static __always_inline void track_live(__u64 pfn, struct kmem_bpf_live *lp)
{
	bool keep = exact_live || lp->sampled;
	struct kmem_bpf_live *old = NULL;

	if (maybe_live(pfn))
		old = bpf_map_lookup_elem(&live, &pfn);
	if (old) {
		drop_old(old);
		if (keep) {
			*old = *lp;
			count_order(KMEM_BPF_TRACKED, lp->order);
		} else if (!bpf_map_delete_elem(&live, &pfn)) {
			__sync_fetch_and_sub(&nr_live, 1);
			mark_live(pfn, false);
		}
		return;
	}
	if (!keep)
		return;
	/* A full map is not tried: the kernel would search every CPU's list. */
	if (nr_live >= live_max ||
	    bpf_map_update_elem(&live, &pfn, lp, BPF_NOEXIST)) {
		count(KMEM_BPF_UNTRACKED);
		if (lp->sampled)
			count(KMEM_BPF_UNTRACKED_SAMPLED);
		return;
	}
	__sync_fetch_and_add(&nr_live, 1);
	count_order(KMEM_BPF_TRACKED, lp->order);
	mark_live(pfn, true);
}

static __always_inline void sample_alloc(void *ctx, struct kmem_bpf_live *lp)
{
	struct kmem_bpf_row *row;

	count(KMEM_BPF_SAMPLED);
	lp->row.stack_id = stack_id(ctx);
	if (!lp->row.stack_id)
		return;
	row = find_row(&lp->row);
	if (!row)
		return;
	__sync_fetch_and_add(&row->samples, 1);
	lp->sampled = 1;
}

/* A failure or fallback: a stack within the rate, past it sampled. */
static __always_inline void rare_row(void *ctx, struct kmem_bpf_rare_key *key,
				     __u64 bytes)
{
	struct kmem_bpf_cpu *st = this_cpu();
	struct kmem_bpf_rare zero = {}, *row;
	__u64 now = bpf_ktime_get_ns();
	bool taken;

	if (!st)
		return;
	if (now - st->rare_start >= 1000000000ULL) {
		st->rare_start = now;
		st->rare_taken = 0;
	}
	taken = sample_all || st->rare_taken < KMEM_BPF_RARE_PER_SEC;
	if (taken)
		st->rare_taken++;
	else if (!sample(&st->rare_left, bytes))
		return;
	count(taken ? KMEM_BPF_RARE_TAKEN : KMEM_BPF_RARE_SAMPLED);
	key->stack_id = stack_id(ctx);
	if (!key->stack_id)
		return;
	row = find_or_add(&rare_rows, key, &zero);
	if (!row) {
		count(KMEM_BPF_RARE_FULL);
		return;
	}
	__sync_fetch_and_add(taken ? &row->taken : &row->sampled, 1);
}

static __always_inline void count_in(void *map, void *key)
{
	__u64 zero = 0, *v = find_or_add(map, key, &zero);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		count(KMEM_BPF_RARE_FULL);
}

static __always_inline void page_fail(void *ctx, __u32 order, int migtype,
				      __u64 gfp)
{
	struct kmem_bpf_fail_key fk = {
		.gfp = gfp, .order = order, .migtype = migtype,
	};
	struct kmem_bpf_rare_key rk = {
		.gfp = gfp, .kind = KMEM_BPF_RARE_FAIL, .order = order,
		.migtype = migtype,
	};

	count_in(&fails, &fk);
	rare_row(ctx, &rk, 1ULL << (page_shift + order));
}

/* --- allocation stalls ------------------------------------------------ */

/*
 * A stall is defined by the user side's stall analysis (count-stall.h),
 * which these events go to whole.  The kernel keeps of each task only
 * what says whether its allocations can matter to it: whether it has a
 * stall open, of which order and GFP flags, and whether it is inside a
 * direct reclaim (whose own allocations never end a stall).  That state
 * follows the analysis's rules step by step, so that every allocation
 * the analysis would look at is shipped and no other: while no task has
 * a stall open, an allocation costs one load.
 */
struct trace_event_raw_mm_vmscan_direct_reclaim_begin_template___kmem {
	struct trace_entry	ent;
	int			order;
	unsigned long		gfp_flags;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_vmscan_direct_reclaim_end_template___kmem {
	struct trace_entry	ent;
	unsigned long		nr_reclaimed;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_compaction_try_to_compact_pages___kmem {
	struct trace_entry	ent;
	int			order;
	unsigned long		gfp_mask;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_compaction_end___kmem {
	struct trace_entry	ent;
	int			status;
} __attribute__((preserve_access_index));

/* The records of which only the order is read, wherever it is in each. */
#define ORDER_RECORD(_name)					\
	struct trace_event_raw_##_name##___kmem {		\
		struct trace_entry	ent;			\
		int			order;			\
	} __attribute__((preserve_access_index))

ORDER_RECORD(mm_compaction_defer_template);
ORDER_RECORD(mm_vmscan_wakeup_kswapd);
ORDER_RECORD(mm_vmscan_kswapd_wake);
ORDER_RECORD(kcompactd_wake_template);

/* What the kernel keeps of a task's stall. */
struct stall_task {
	__u64	gfp;
	__s16	order;		/* -1: begun before the run, not known yet */
	__u8	open;
	__u8	in_reclaim;
	__u8	partial;	/* begun before the run */
};

/*
 * By tid, as the analysis keys its tasks, and preallocated: a task's
 * first begin takes an element without allocating.  Task storage would
 * allocate it there, and refill its cache from an irq_work of the
 * task's CPU, whose pages come inside the begin's tracepoint: after
 * the begin for the ring, before it for perf, which stamps its sample
 * once the BPF programs of the tracepoint have run, so that the stall
 * would nest allocations no recording of it has nested.  An element is
 * given back when its stall ends or its task exits; sized by the user
 * side.
 */
MAP(HASH, __u32, struct stall_task, 1) stall_tasks SEC(".maps");

/* Sized by the user side from -M; a full ring is counted, never hidden. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} stall_events SEC(".maps");

/* Tasks with a stall open: none, and allocations skip the task lookup. */
__s64 stalls_open;

static __always_inline struct stall_task *stall_task_of(bool create)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct stall_task none = {};

	if (!create)
		return bpf_map_lookup_elem(&stall_tasks, &tid);
	return find_or_add(&stall_tasks, &tid, &none);
}

static __always_inline void stall_fill(struct kmem_bpf_stall *r, int type,
				       int order, __u64 gfp, __u64 value)
{
	r->time = bpf_ktime_get_ns();
	r->gfp = gfp;
	r->value = value;
	r->tid = (__u32)bpf_get_current_pid_tgid();
	r->migtype = 0;
	r->order = order;
	r->type = type;
	r->nr_ips = 0;
	r->pad = 0;
}

static __always_inline void stall_ship(int type, int order, __u64 gfp,
				       __u64 value)
{
	struct kmem_bpf_stall *r;

	r = bpf_ringbuf_reserve(&stall_events, sizeof(*r), 0);
	if (!r) {
		count(KMEM_BPF_STALL_LOST);
		return;
	}
	stall_fill(r, type, order, gfp, value);
	bpf_ringbuf_submit(r, 0);
}

/* An event with the stack that names its row. */
static __always_inline void stall_ship_stack(void *ctx, int type, int order,
					     __u64 gfp, __u64 value,
					     int migtype)
{
	struct kmem_bpf_stall_stack *r;
	long len;

	r = bpf_ringbuf_reserve(&stall_events, sizeof(*r), 0);
	if (!r) {
		count(KMEM_BPF_STALL_LOST);
		return;
	}
	stall_fill(&r->ev, type, order, gfp, value);
	r->ev.migtype = migtype;
	len = bpf_get_stack(ctx, r->ips, sizeof(r->ips), 0);
	if (len > 0)
		r->ev.nr_ips = len / sizeof(__u64);
	else
		count(KMEM_BPF_STACK_FAILED);
	bpf_ringbuf_submit(r, 0);
}

static __always_inline void stall_open(struct stall_task *t, int order,
				       __u64 gfp, bool partial)
{
	t->open = 1;
	t->order = order;
	t->gfp = gfp;
	t->partial = partial;
	__sync_fetch_and_add(&stalls_open, 1);
}

static __always_inline void stall_close(struct stall_task *t)
{
	t->open = 0;
	__sync_fetch_and_sub(&stalls_open, 1);
}

/*
 * A reclaim or compaction attempt begins: of the stall open, or of a new
 * one (the analysis's attempt_begins()).  One open of another order or
 * GFP lost its allocation; one begun before the run takes these.
 */
static __always_inline void stall_attempt(struct stall_task *t, int order,
					  __u64 gfp, bool reclaim)
{
	if (t->open && t->partial && t->order < 0) {
		t->order = order;
		t->gfp = gfp;
	} else if (t->open && (t->order != order || t->gfp != gfp)) {
		stall_close(t);
	}
	if (!t->open)
		stall_open(t, order, gfp, false);
	t->in_reclaim = reclaim;
}

static __always_inline void stall_begin(int type, int order, __u64 gfp)
{
	struct stall_task *t;

	if (!tracked())
		return;
	t = stall_task_of(true);
	if (t)
		stall_attempt(t, order, gfp,
			      type == KMEM_BPF_STALL_RECLAIM_BEGIN);
	else
		count(KMEM_BPF_STALL_NO_TASK);
	stall_ship(type, order, gfp, 0);
}

SEC("tp/vmscan/mm_vmscan_direct_reclaim_begin")
int kmem_reclaim_begin(struct trace_event_raw_mm_vmscan_direct_reclaim_begin_template___kmem *ctx)
{
	stall_begin(KMEM_BPF_STALL_RECLAIM_BEGIN, ctx->order, ctx->gfp_flags);
	return PASS;
}

SEC("tp/compaction/mm_compaction_try_to_compact_pages")
int kmem_compact_try(struct trace_event_raw_mm_compaction_try_to_compact_pages___kmem *ctx)
{
	stall_begin(KMEM_BPF_STALL_COMPACT_TRY, ctx->order, ctx->gfp_mask);
	return PASS;
}

/* A reclaim end without its begin: the stall began before the run. */
SEC("tp/vmscan/mm_vmscan_direct_reclaim_end")
int kmem_reclaim_end(struct trace_event_raw_mm_vmscan_direct_reclaim_end_template___kmem *ctx)
{
	struct stall_task *t;

	if (!tracked())
		return PASS;
	t = stall_task_of(true);
	if (!t)
		count(KMEM_BPF_STALL_NO_TASK);
	else if (t->in_reclaim)
		t->in_reclaim = 0;
	else if (!t->open)
		stall_open(t, -1, 0, true);
	stall_ship(KMEM_BPF_STALL_RECLAIM_END, -1, 0, ctx->nr_reclaimed);
	return PASS;
}

/* memcg reclaim is timed on its own: its begin names its row. */
SEC("tp/vmscan/mm_vmscan_memcg_reclaim_begin")
int kmem_memcg_begin(struct trace_event_raw_mm_vmscan_direct_reclaim_begin_template___kmem *ctx)
{
	if (tracked())
		stall_ship_stack(ctx, KMEM_BPF_STALL_MEMCG_BEGIN, ctx->order,
				 ctx->gfp_flags, 0, 0);
	return PASS;
}

SEC("tp/compaction/mm_compaction_begin")
int kmem_compact_begin(void *ctx)
{
	if (tracked())
		stall_ship(KMEM_BPF_STALL_COMPACT_BEGIN, -1, 0, 0);
	return PASS;
}

/* An event shipped as it comes: its order and value, expressions of ctx. */
#define SHIP_EVENT(_tp, _prog, _record, _type, _order, _value)		\
	SEC("tp/" _tp)							\
	int _prog(struct trace_event_raw_##_record##___kmem *ctx)	\
	{								\
		if (tracked())						\
			stall_ship(KMEM_BPF_STALL_##_type, _order, 0, _value); \
		return PASS;						\
	}

SHIP_EVENT("vmscan/mm_vmscan_memcg_reclaim_end", kmem_memcg_end,
	   mm_vmscan_direct_reclaim_end_template, MEMCG_END, -1, ctx->nr_reclaimed)
/* A status is an int: a negative one stays negative. */
SHIP_EVENT("compaction/mm_compaction_end", kmem_compact_end, mm_compaction_end,
	   COMPACT_END, -1, (__u64)(__s64)ctx->status)
SHIP_EVENT("compaction/mm_compaction_deferred", kmem_compact_deferred,
	   mm_compaction_defer_template, COMPACT_DEFERRED, ctx->order, 0)
SHIP_EVENT("vmscan/mm_vmscan_wakeup_kswapd", kmem_kswapd_wakeup,
	   mm_vmscan_wakeup_kswapd, KSWAPD_WAKEUP, ctx->order, 0)
SHIP_EVENT("vmscan/mm_vmscan_kswapd_wake", kmem_kswapd_wake,
	   mm_vmscan_kswapd_wake, KSWAPD_WAKE, ctx->order, 0)
SHIP_EVENT("compaction/mm_compaction_wakeup_kcompactd", kmem_kcompactd_wakeup,
	   kcompactd_wake_template, KCOMPACTD_WAKEUP, ctx->order, 0)
SHIP_EVENT("compaction/mm_compaction_kcompactd_wake", kmem_kcompactd_wake,
	   kcompactd_wake_template, KCOMPACTD_WAKE, ctx->order, 0)

/*
 * An allocation of a task with a stall open: nested in a reclaim, of
 * another order or GFP (an interrupt's), or the stall's own, which ends
 * it (the analysis's ends_stall()) and takes the stack of its row.
 */
static __always_inline void stall_alloc(void *ctx, __u64 pfn, __u32 order,
					__u64 gfp, int migtype)
{
	struct stall_task *t;
	bool ends;
	__u32 tid;

	if (stalls_open <= 0)
		return;
	t = stall_task_of(false);
	if (!t || !t->open)
		return;
	ends = !t->in_reclaim &&
	       ((t->partial && t->order < 0) ||
		(order == (__u32)t->order && gfp == t->gfp));
	if (!ends) {
		stall_ship(KMEM_BPF_STALL_ALLOC, order, gfp, pfn);
		return;
	}
	stall_close(t);
	stall_ship_stack(ctx, KMEM_BPF_STALL_ALLOC, order, gfp, pfn, migtype);
	/* Closed and out of any reclaim: all a new element would say. */
	tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&stall_tasks, &tid);
}

static __always_inline void page_alloc(void *ctx, __u64 pfn, __u32 order,
				       __u64 gfp, int migtype)
{
	struct kmem_bpf_live lp = {};
	struct kmem_bpf_cpu *st;
	int node, slot;
	__u64 bytes;

	if (!tracked())
		return;
	stall_alloc(ctx, pfn, order, gfp, migtype);
	if (order >= KMEM_BPF_NR_ORDERS) {
		count(KMEM_BPF_BAD_ORDER);
		return;
	}
	if (pfn == NO_PFN) {
		page_fail(ctx, order, migtype, gfp);
		return;
	}
	slot = migtype_slot(migtype);
	count_at(order * KMEM_BPF_NR_MIGTYPES + slot, 1);
	block_count(pfn, order, BLOCK_ALLOC + migtype_column(migtype));
	node = cpu_node();
	if (remote(node, page_node(pfn)))
		count_order(KMEM_BPF_ALLOC_REMOTE, order);

	st = this_cpu();
	if (!st)
		return;
	bytes = 1ULL << (page_shift + order);
	lp.order = order;
	lp.node = node;
	if (sample_all || sample(&st->bytes_left, bytes)) {
		lp.row.gfp = gfp;
		lp.row.order = order;
		lp.row.migtype = migtype;
		sample_alloc(ctx, &lp);
	}
	track_live(pfn, &lp);
}

SEC("tp/kmem/mm_page_alloc")
int kmem_page_alloc(struct trace_event_raw_mm_page_alloc___kmem *ctx)
{
	page_alloc(ctx, ctx->pfn, ctx->order, ctx->gfp_flags, ctx->migratetype);
	return PASS;
}

/*
 * The same tracepoints, raw: the arguments as the kernel passes them,
 * without the record perf's tracepoint handler builds and the perf
 * machinery around it, which cost more than the counting.  The pfn of a
 * struct page is its index in vmemmap, whose address (vmemmap_base on
 * x86-64, randomized) is in no kallsyms without KALLSYMS_ALL and in no
 * BTF: until the user side has found it, the raw programs count nothing
 * and keep the struct page * of the calibrating thread's allocations,
 * whose pfns it reads from /proc/self/pagemap.
 */
__u64 vmemmap;
__u32 calib_tid;
__u32 nr_calib;
__u64 page_struct_size;

MAP(ARRAY, __u32, __u64, KMEM_BPF_CALIB_PAGES) calib_pages SEC(".maps");

struct page___kmem {
	unsigned long	flags;
} __attribute__((preserve_access_index));

/* A raw tracepoint's arguments are numbers: the page's address is one. */
static __always_inline __u64 page_pfn(__u64 page)
{
	if (!page)
		return NO_PFN;
	return (page - vmemmap) / bpf_core_type_size(struct page___kmem);
}

static __always_inline void calibrate(__u64 page)
{
	__u32 i = nr_calib;
	__u64 *slot;

	if (!page || (__u32)bpf_get_current_pid_tgid() != calib_tid ||
	    i >= KMEM_BPF_CALIB_PAGES)
		return;
	slot = bpf_map_lookup_elem(&calib_pages, &i);
	if (slot)
		*slot = page;
	nr_calib = i + 1;
	page_struct_size = bpf_core_type_size(struct page___kmem);
}

SEC("raw_tp/mm_page_alloc")
int BPF_PROG(kmem_page_alloc_raw, __u64 page, unsigned int order,
	     unsigned int gfp_flags, int migratetype)
{
	if (!vmemmap) {
		calibrate(page);
		return 0;
	}
	page_alloc(ctx, page_pfn(page), order, gfp_flags, migratetype);
	return 0;
}

/* A free of a page in the live-page map ends its allocation. */
static __always_inline void free_live(struct kmem_bpf_live *lp, __u32 order,
				      int node)
{
	struct kmem_bpf_row *row = NULL;
	int from = lp->node;

	count_order(KMEM_BPF_FREED, lp->order);
	if (lp->order != order)
		count_order(KMEM_BPF_ORDER_DIFFERS, lp->order);
	if (lp->sampled)
		row = bpf_map_lookup_elem(&rows, &lp->row);
	if (row)
		__sync_fetch_and_add(&row->freed, 1);
	if (nr_nodes < 2 || from < 0 || node < 0)
		return;
	if (from < KMEM_BPF_MAX_NODES && node < KMEM_BPF_MAX_NODES) {
		__u32 idx = from * nr_nodes + node;
		__u64 *v = bpf_map_lookup_elem(&node_bytes, &idx);

		if (v)
			*v += 1ULL << (page_shift + lp->order);
	}
	if (from == node)
		return;
	count_order(KMEM_BPF_FREED_XNODE, lp->order);
	if (row)
		__sync_fetch_and_add(&row->xnode_frees, 1);
}

static __always_inline void page_free(__u64 pfn, __u32 order)
{
	struct kmem_bpf_live *lp;
	int node, pnode;

	if (!tracked_free())
		return;
	if (order >= KMEM_BPF_NR_ORDERS) {
		count(KMEM_BPF_BAD_FREE_ORDER);
		return;
	}
	count_order(KMEM_BPF_FREE, order);
	node = cpu_node();
	pnode = page_node(pfn);
	if (remote(node, pnode)) {
		count_order(KMEM_BPF_FREE_REMOTE, order);
		block_count(pfn, 0, BLOCK_REMOTE_FREE);
	}
	lp = maybe_live(pfn) ? bpf_map_lookup_elem(&live, &pfn) : NULL;
	if (!lp) {
		count_order(KMEM_BPF_FREE_ONLY, order);
		return;
	}
	free_live(lp, order, node);
	if (!bpf_map_delete_elem(&live, &pfn)) {
		__sync_fetch_and_sub(&nr_live, 1);
		mark_live(pfn, false);
	}
}

SEC("tp/kmem/mm_page_free")
int kmem_page_free(struct trace_event_raw_mm_page_free___kmem *ctx)
{
	page_free(ctx->pfn, ctx->order);
	return PASS;
}

SEC("raw_tp/mm_page_free")
int BPF_PROG(kmem_page_free_raw, __u64 page, unsigned int order)
{
	if (vmemmap)
		page_free(page_pfn(page), order);
	return 0;
}

SEC("tp/kmem/mm_page_alloc_extfrag")
int kmem_page_extfrag(struct trace_event_raw_mm_page_alloc_extfrag___kmem *ctx)
{
	struct kmem_bpf_fallback_key fk = {
		.alloc_order = ctx->alloc_order,
		.fallback_order = ctx->fallback_order,
		.alloc_migtype = ctx->alloc_migratetype,
		.fallback_migtype = ctx->fallback_migratetype,
		.change_ownership = ctx->change_ownership,
	};
	struct kmem_bpf_rare_key rk = {
		.kind = KMEM_BPF_RARE_FALLBACK,
		.order = fk.alloc_order,
		.fallback_order = fk.fallback_order,
		.change_ownership = fk.change_ownership,
		.migtype = fk.alloc_migtype,
		.fallback_migtype = fk.fallback_migtype,
	};
	int cls;

	if (!tracked())
		return PASS;
	count_in(&fallbacks, &fk);
	if (fk.alloc_order < 0 || fk.alloc_order >= KMEM_BPF_NR_ORDERS ||
	    fk.fallback_order < fk.alloc_order ||
	    fk.fallback_order >= KMEM_BPF_NR_ORDERS ||
	    (fk.change_ownership != 0 && fk.change_ownership != 1))
		return PASS;
	if (pageblock_order >= 0) {
		cls = fk.fallback_order >= pageblock_order ? 0 :
		      fk.change_ownership ? 1 : 2;
		block_count(ctx->pfn, fk.fallback_order, BLOCK_FALLBACK + cls);
	}
	rare_row(ctx, &rk, 1ULL << (page_shift + fk.alloc_order));
	return PASS;
}

/* --- slab: each event names its call_site, no stack needed ----------- */

static __always_inline void slab_alloc(struct kmem_bpf_slab_key *key,
				       __u64 ptr, __u64 req, __u64 alloc,
				       int node)
{
	struct kmem_bpf_slab zero = {}, *row;

	row = find_or_add(&slab_rows, key, &zero);
	if (!row) {
		count(KMEM_BPF_SLAB_FULL);
		return;
	}
	/* Per-CPU rows: no other CPU writes these. */
	if (!ptr) {
		row->fails++;
		row->fail_bytes += req;
		return;
	}
	if (ptr <= ZERO_SIZE_PTR) {
		row->zero_size++;
		return;
	}
	row->hits++;
	row->bytes_req += req;
	row->bytes_alloc += alloc;
	if (node != NUMA_NO_NODE && node != (int)bpf_get_numa_node_id()) {
		row->xnode++;
		row->xnode_bytes += alloc;
	}
}

SEC("tp/kmem/kmalloc")
int kmem_kmalloc(struct trace_event_raw_kmalloc___kmem *ctx)
{
	struct kmem_bpf_slab_key key = { .call_site = ctx->call_site };

	if (tracked())
		slab_alloc(&key, (__u64)ctx->ptr, ctx->bytes_req,
			   ctx->bytes_alloc, ctx->node);
	return PASS;
}

SEC("tp/kmem/kmem_cache_alloc")
int kmem_cache_alloc(struct trace_event_raw_kmem_cache_alloc___kmem *ctx)
{
	struct kmem_bpf_slab_key key = { .call_site = ctx->call_site };
	__u32 loc = ctx->__data_loc_name;

	if (!tracked())
		return PASS;
	/* __data_loc: the offset of the string in the record, low 16 bits. */
	bpf_probe_read_kernel_str(key.cache, sizeof(key.cache),
				  (void *)ctx + (loc & 0xffff));
	slab_alloc(&key, (__u64)ctx->ptr, ctx->bytes_req, ctx->bytes_alloc,
		   ctx->node);
	return PASS;
}

#define SLAB_FREE(_tp, _prog)						\
	SEC("tp/kmem/" #_tp)						\
	int _prog(struct trace_event_raw_##_tp##___kmem *ctx)		\
	{								\
		if (!tracked_free())					\
			return PASS;					\
		count(KMEM_BPF_SLAB_FREE);				\
		if ((__u64)ctx->ptr <= ZERO_SIZE_PTR)			\
			count(KMEM_BPF_SLAB_FREE_NULL);			\
		return PASS;						\
	}

SLAB_FREE(kfree, kmem_kfree)
SLAB_FREE(kmem_cache_free, kmem_cache_free)

/* --- following the tasks -------------------------------------------- */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(kmem_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = parent->pid, tid = child->pid;
	__u8 one = 1;

	if (filter != KMEM_BPF_FILTER_TASKS ||
	    !bpf_map_lookup_elem(&tasks, &ptid))
		return 0;
	if (bpf_map_update_elem(&tasks, &tid, &one, BPF_ANY))
		count(KMEM_BPF_TASKS_FULL);
	return 0;
}

/*
 * A thread that exits with a stall open (killed in its reclaim) gives
 * its element back before its tid can be another's.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(kmem_stall_exit, struct task_struct *task)
{
	__u32 tid = task->pid;
	struct stall_task *t;

	t = bpf_map_lookup_elem(&stall_tasks, &tid);
	if (!t)
		return 0;
	if (t->open)
		stall_close(t);
	bpf_map_delete_elem(&stall_tasks, &tid);
	return 0;
}

/* A tid is freed with its task: one reused later is another task's. */
SEC("tp_btf/sched_process_free")
int BPF_PROG(kmem_task_free, struct task_struct *task)
{
	__u32 tid = task->pid;

	if (filter != KMEM_BPF_FILTER_TASKS)
		return 0;
	bpf_map_delete_elem(&tasks, &tid);
	__sync_fetch_and_add(&tasks_gen, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
