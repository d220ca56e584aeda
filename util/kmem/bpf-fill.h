/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_BPF_FILL_H
#define __PERF_KMEM_BPF_FILL_H

/*
 * perf kmem stat -b's maps, read, into the analyses a recording fills
 * (kmem-page.h, kmem-frag.h, kmem-slab.h), so that everything that
 * reports them is shared.  In: a snapshot of the maps, summed over the
 * CPUs (util/kmem/bpf.c reads it), and who names a stack.  Out: the
 * analyses' numbers, exact where the kernel counted every event, and
 * where it only took a sample, estimates: each sampled allocation of s
 * bytes stands for 1 / (1 - exp(-s / sample_bytes)) allocations.  No
 * libbpf, no global state: the unit tests feed it made-up maps.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf_skel/kmem_data.h"

struct kmem_page;
struct kmem_page_summary;
struct kmem_frag;
struct kmem_frag_summary;
struct kmem_slab;
struct kmem_stall;

/* What the maps held; the arrays belong to whoever filled them in. */
struct kmem_bpf_snapshot {
	u64	page_size;
	u64	sample_bytes;		/* 1: every stack was taken */
	bool	exact_live;		/* every allocation in the live map */
	int	pageblock_order;	/* -1: unknown */
	int	nr_nodes;		/* of node_counts' matrix */
	u64	counts[KMEM_BPF_NR_COUNTS];
	/* [from * nr_nodes + to][order]: frees of pages of the live map */
	const u64 *node_counts;
	const struct kmem_bpf_row_key *row_keys;
	const struct kmem_bpf_row *rows;
	size_t	nr_rows;
	const struct kmem_bpf_fail_key *fail_keys;
	const u64 *fails;
	size_t	nr_fails;
	const struct kmem_bpf_fallback_key *fallback_keys;
	const u64 *fallbacks;
	size_t	nr_fallbacks;
	const struct kmem_bpf_rare_key *rare_keys;
	const struct kmem_bpf_rare *rare;
	size_t	nr_rare;
	const struct kmem_bpf_block *blocks;	/* by pfn >> pageblock_order */
	size_t	nr_blocks;
	const struct kmem_bpf_slab_key *slab_keys;
	const struct kmem_bpf_slab *slab;
	size_t	nr_slab;
};

/*
 * Names a stack id of the maps: the callsite, the first frame that is not
 * the allocator's; 0 when unknown.
 */
typedef u64 (*kmem_bpf_callsite_fn)(u32 stack_id, void *arg);
/* The function of a slab call_site; its cache name, kept. */
typedef u64 (*kmem_bpf_function_fn)(u64 call_site, void *arg);
typedef const char *(*kmem_bpf_cache_fn)(const char *name, void *arg);

struct kmem_bpf_namer {
	kmem_bpf_callsite_fn	callsite;
	kmem_bpf_function_fn	function;
	kmem_bpf_cache_fn	cache;
	void			*arg;
};

/**
 * kmem_bpf_fill__weight - what one sampled allocation stands for
 * @bytes: its size
 * @sample_bytes: the mean of the sampler's gaps; 1 (or 0): every one
 *
 * Return: 1 / (1 - exp(-@bytes / @sample_bytes)), 1 for every one.
 */
double kmem_bpf_fill__weight(u64 bytes, u64 sample_bytes);

/* @nr sampled allocations of @bytes each, estimated, rounded. */
u64 kmem_bpf_fill__estimate(u64 nr, u64 bytes, u64 sample_bytes);

/*
 * Are the lifetime groups, free-only and cross-node frees exact?  Every
 * allocation went into the live map: --exact-live, or every stack taken.
 */
bool kmem_bpf_fill__lifetime_exact(const struct kmem_bpf_snapshot *s);

/* A counter of the maps, summed over the CPUs. */
u64 kmem_bpf_fill__count(const struct kmem_bpf_snapshot *s,
			 enum kmem_bpf_counter c);

/**
 * kmem_bpf_fill__page_summary - the page summary of a snapshot
 * @s: the snapshot
 * @out: filled in: the totals, exact; the lifetime groups, free-only,
 *	 frees of another order and on another node exact or estimated
 *	 (kmem_bpf_fill__lifetime_exact()); the live split included
 */
void kmem_bpf_fill__page_summary(const struct kmem_bpf_snapshot *s,
				 struct kmem_page_summary *out);

/**
 * kmem_bpf_fill__frag_totals - the fallback totals of a snapshot
 * @s: the snapshot
 * @out: filled in: the fallbacks and their classes, as -I wants them
 */
void kmem_bpf_fill__frag_totals(const struct kmem_bpf_snapshot *s,
				struct kmem_frag_summary *out);

/**
 * kmem_bpf_fill__page - a snapshot into a page analysis
 * @s: the snapshot
 * @kp: an analysis with nothing in it yet
 * @namer: names the stacks of the rows
 *
 * The summary (as kmem_bpf_fill__page_summary()), the grid and the node
 * matrix; the --caller rows, estimated from the sampled allocations
 * (exact with every stack); a row without a stack is left out, and said
 * in the counters of the snapshot.
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_bpf_fill__page(const struct kmem_bpf_snapshot *s,
			struct kmem_page *kp,
			const struct kmem_bpf_namer *namer);

/**
 * kmem_bpf_fill__frag - a snapshot into a fragmentation analysis
 * @s: the snapshot
 * @kf: an analysis with nothing in it yet, of the same pageblock order
 * @namer: names the stacks of the rows
 *
 * The totals, the matrix, the failures by order, type and GFP, and the
 * pageblocks, exact; the fallback and failure tables by callsite, exact
 * within the rate of stacks, estimated past it.
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_bpf_fill__frag(const struct kmem_bpf_snapshot *s,
			struct kmem_frag *kf,
			const struct kmem_bpf_namer *namer);

/**
 * kmem_bpf_fill__slab - a snapshot into a slab analysis
 * @s: the snapshot
 * @ks: an analysis with nothing in it yet
 * @namer: names the call_sites and keeps the cache names
 *
 * Allocations, failures, kmalloc(0), cross-node requests and frees,
 * exact, by callsite and by cache: the kernel does not pair objects with
 * their frees, so lifetimes and ping-pong are not counted.
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_bpf_fill__slab(const struct kmem_bpf_snapshot *s,
			struct kmem_slab *ks,
			const struct kmem_bpf_namer *namer);

/*
 * Names the frames of a record of the stall ring: the callsite, past the
 * allocator's frames, or with @memcg past memcg's charging too; 0 when
 * unknown.
 */
typedef u64 (*kmem_bpf_frames_fn)(const u64 *ips, size_t nr, bool memcg,
				  void *arg);

/**
 * kmem_bpf_fill__stall - a record of the stall ring into a stall analysis
 * @st: the analysis, fed the records in the order the ring gave them
 *	(each task's in its own order, as the analysis needs)
 * @data: the record, a struct kmem_bpf_stall or kmem_bpf_stall_stack
 * @size: its size
 * @callsite: names the frames of a record with a stack
 * @arg: its argument
 *
 * Return: as kmem_stall__alloc() for an allocation, 1 when it ended a
 * stall; 0; -EINVAL for a record that cannot be one; -ENOMEM.
 */
int kmem_bpf_fill__stall(struct kmem_stall *st, const void *data, size_t size,
			 kmem_bpf_frames_fn callsite, void *arg);

#endif /* __PERF_KMEM_BPF_FILL_H */
