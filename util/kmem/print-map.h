/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_MAP_H
#define __PERF_KMEM_PRINT_MAP_H

/*
 * An SVG map of physical memory for perf kmem stat --page --map: the
 * pageblocks a trace allocated into go in, one SVG document comes out.
 *
 * The map is a grid of cells, pfn increasing left to right, then top to
 * bottom, over the pfn range the blocks span.  A cell is one pageblock,
 * or, when the range is large, a power of two of them, so that there are
 * at most KMEM_MAP_MAX_CELLS cells (a 1 TiB range stays far below 5 MB).
 * A cell is filled with the colour of the migration-type column that was
 * allocated into it, split into equal bands when it received more than
 * one; hatched when one of its pageblocks received more than one (a
 * mixed pageblock); outlined when fallbacks happened in it; dotted when
 * pages that fell back into it were still allocated at the end (they pin
 * it, see count-frag.h).  Cells no
 * allocation went into are grey, holes (pfns in no node's range, when
 * node ranges are given) hatched grey, node starts marked with a line.
 * Each cell's tooltip (<title>) gives its pfn range, its counts, remote
 * frees, node and top callsite.  With more than one node in the
 * cross-node matrix, a node x node panel shows the bytes allocated on
 * one node and freed on another.
 *
 * The caller owns what it passes; the map keeps copies of strings.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The columns of perf kmem's grid, in its order. */
enum kmem_map_type {
	KMEM_MAP_UNMOVABLE,
	KMEM_MAP_RECLAIMABLE,
	KMEM_MAP_MOVABLE,
	KMEM_MAP_SPECIAL,
	KMEM_MAP_NR_TYPES,
};

#define KMEM_MAP_MAX_CELLS	4096
#define KMEM_MAP_MAX_NODES	64
#define KMEM_MAP_MAX_ORDER	30	/* pageblock orders 0..30 */

struct kmem_map_config {
	const char	*title;		/* e.g. the trace's name and kernel */
	int		pageblock_order;
	u64		page_size;	/* 0: 4096 */
};

/* What the trace did in one pageblock. */
struct kmem_map_block {
	u64		pfn;		/* any pfn of the pageblock */
	u64		allocs[KMEM_MAP_NR_TYPES];
	u64		fallbacks;	/* mm_page_alloc_extfrag in it */
	u64		remote_frees;	/* frees by CPUs of other nodes */
	u64		pinning;	/* pages fallen back, still allocated */
	const char	*top_callsite;	/* NULL: unknown */
	int		node;		/* -1: unknown */
};

/* Where a cell lies in the SVG, in px. */
struct kmem_map_box {
	int	x, y, width, height;
};

struct kmem_map;

/* NULL: no memory, or a pageblock order above KMEM_MAP_MAX_ORDER. */
struct kmem_map *kmem_map__new(const struct kmem_map_config *config);
void kmem_map__delete(struct kmem_map *map);

/* 0; -EEXIST if the pageblock was added before; -ENOMEM. */
int kmem_map__add_block(struct kmem_map *map, const struct kmem_map_block *b);

/*
 * pfns [@start, @end) are memory of @node.  0; -EINVAL for an empty range
 * or a node out of 0..KMEM_MAP_MAX_NODES-1; -ENOMEM.
 */
int kmem_map__add_node_range(struct kmem_map *map, int node, u64 start,
			     u64 end);

/*
 * @bytes were allocated by CPUs of node @from and freed by CPUs of node
 * @to.  0, or -EINVAL for a node out of range.
 */
int kmem_map__set_xnode_bytes(struct kmem_map *map, int from, int to,
			      u64 bytes);

/*
 * Write the SVG to @fp.  0; -ENODATA if no block was added; -ENOMEM;
 * -errno if @fp failed.
 */
int kmem_map__write(struct kmem_map *map, FILE *fp);

/*
 * The box of the cell that holds @pfn, and how many pageblocks a cell
 * holds.  0, or -ENOENT if @pfn is outside the map, -ENODATA as above.
 */
int kmem_map__locate(struct kmem_map *map, u64 pfn, struct kmem_map_box *box,
		     u64 *blocks_per_cell);

#endif /* __PERF_KMEM_PRINT_MAP_H */
