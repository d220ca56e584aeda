/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_PROCMEM_H
#define __PERF_KMEM_READ_PROCMEM_H

/*
 * The state of memory around a perf kmem stat -b run: the counters of
 * /proc/vmstat that belong with allocation stalls, and /proc/pagetypeinfo's
 * free blocks by zone, migration type and order, with Mel Gorman's unusable
 * free space index.  The parsers take the files' text, so that the C suite
 * feeds them made-up files; no global state.
 */

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The /proc/vmstat counters reported, summed over zones where per zone. */
enum kmem_vmstat_item {
	KMEM_VM_ALLOCSTALL,		/* allocstall_* (allocstall before v4.8) */
	KMEM_VM_COMPACT_STALL,
	KMEM_VM_COMPACT_FAIL,
	KMEM_VM_COMPACT_SUCCESS,
	KMEM_VM_PGSCAN_DIRECT,		/* not pgscan_direct_throttle */
	KMEM_VM_PGSTEAL_DIRECT,
	KMEM_VM_THP_FAULT_ALLOC,
	KMEM_VM_THP_FAULT_FALLBACK,	/* not thp_fault_fallback_charge */
	KMEM_NR_VMSTAT,
};

struct kmem_vmstat {
	u64	v[KMEM_NR_VMSTAT];
	u32	have;		/* a bit per item the file has */
};

/* The name of an item as /proc/vmstat spells it ("allocstall" for the sum). */
const char *kmem_vmstat__name(enum kmem_vmstat_item item);

/**
 * kmem_vmstat__parse - the counters of a /proc/vmstat text
 * @vs: filled in
 * @text: the file, NUL-terminated
 *
 * Return: 0; -EINVAL where no line is "name number".
 */
int kmem_vmstat__parse(struct kmem_vmstat *vs, const char *text);

/*
 * @after - @before of each item both have, into @delta; a counter that
 * went down (it cannot) gives 0.  Return: the bits of the items not in both.
 */
u32 kmem_vmstat__delta(const struct kmem_vmstat *before,
		       const struct kmem_vmstat *after,
		       struct kmem_vmstat *delta);

#define KMEM_PROC_MAX_ORDERS	16
#define KMEM_PROC_MAX_TYPES	8
#define KMEM_PROC_MAX_ZONES	64
#define KMEM_PROC_NAME_LEN	16
/* pagetypeinfo counts a free list up to this, and prints ">100000". */
#define KMEM_PROC_FREE_CAP	100000

/* The free blocks of one zone of one node, by migration type and order. */
struct kmem_zone_free {
	int	node;
	char	zone[KMEM_PROC_NAME_LEN];
	u64	blocks[KMEM_PROC_MAX_TYPES][KMEM_PROC_MAX_ORDERS];
	bool	capped;		/* a count was ">100000": a lower bound */
};

struct kmem_pagetypeinfo {
	int			nr_orders;
	int			nr_types;
	int			nr_zones;
	char			types[KMEM_PROC_MAX_TYPES][KMEM_PROC_NAME_LEN];
	struct kmem_zone_free	zones[KMEM_PROC_MAX_ZONES];
};

/**
 * kmem_pagetypeinfo__parse - the free lists of a /proc/pagetypeinfo text
 * @pt: filled in
 * @text: the file, NUL-terminated
 *
 * Reads the "Free pages count per migrate type at order" table: its
 * header gives the orders, each "Node N, zone Z, type T c0 c1 ..." line a
 * zone's counts of one type.
 *
 * Return: 0; -EINVAL where there is no such table or a line of it is
 * malformed; -E2BIG past the limits above.
 */
int kmem_pagetypeinfo__parse(struct kmem_pagetypeinfo *pt, const char *text);

/* The zone of @pt that is node @node's @zone, or NULL. */
const struct kmem_zone_free *
kmem_pagetypeinfo__zone(const struct kmem_pagetypeinfo *pt, int node,
			const char *zone);

/* The free blocks of type @type of zone @z of @pt, by order, or NULL. */
const u64 *kmem_pagetypeinfo__blocks(const struct kmem_pagetypeinfo *pt,
				     const struct kmem_zone_free *z,
				     const char *type);

/* Free pages of @z in blocks of order @order and above (0: all of them). */
u64 kmem_zone_free__pages(const struct kmem_zone_free *z, int nr_orders,
			  int order);

/*
 * The unusable free space index of order @order, in thousandths: the share
 * of the free pages of @z in blocks too small for an allocation of that
 * order, 1000 * (free - free in blocks of order >= @order) / free, rounded
 * down, as the kernel's debugfs extfrag/unusable_index computes it per
 * zone; 0 where nothing is free.
 */
unsigned int kmem_zone_free__unusable(const struct kmem_zone_free *z,
				      int nr_orders, int order);

/*
 * The whole of a /proc file, NUL-terminated, in a buffer to free();
 * NULL with errno set.
 */
char *kmem_proc__read(const char *path);

#endif /* __PERF_KMEM_READ_PROCMEM_H */
