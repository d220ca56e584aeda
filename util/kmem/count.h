/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_H
#define __PERF_KMEM_COUNT_H

/*
 * What the page and slab analyses of perf kmem count alike: events with
 * their bytes, and how much of an allocation's life the trace saw.
 */

#include <linux/types.h>

struct kmem_count {
	u64	nr;
	u64	bytes;
};

static inline void kmem_count__add(struct kmem_count *c, u64 bytes)
{
	c->nr++;
	c->bytes += bytes;
}

/*
 * Successful allocations by what became of them: freed in the trace,
 * still allocated at its end, or handed out again before any free of them
 * was seen (freed on a path without a tracepoint).
 */
struct kmem_lifetime {
	struct kmem_count	freed;
	struct kmem_count	live;
	struct kmem_count	dropped;
	/* Live and dropped: set when the analysis is finished. */
	struct kmem_count	unfreed;
};

/* The allocations whose free the trace did not see. */
static inline struct kmem_count kmem_lifetime__unfreed(const struct kmem_lifetime *l)
{
	return (struct kmem_count){
		.nr = l->live.nr + l->dropped.nr,
		.bytes = l->live.bytes + l->dropped.bytes,
	};
}

#endif /* __PERF_KMEM_COUNT_H */
