// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>
#include <linux/zalloc.h>

#include "print-map.h"
#include "report.h"
#include "utf8.h"

/* The grid: cells of CELL px drawn every PITCH px, COLUMNS to a row. */
#define COLUMNS		64
#define PITCH		12
#define CELL		11
#define LEFT		100	/* room for the pfn of each row */
#define TOP		60	/* room for the title */
#define RIGHT		64	/* room for node names */
#define WIDTH		(LEFT + COLUMNS * PITCH + RIGHT)
#define LABEL_EVERY	4	/* rows between pfn labels */
#define NAME_MAX_BYTES	48	/* of a callsite in a tooltip */

/* The map's types are the grid's columns, named by the report. */
static_assert((int)KMEM_MAP_NR_TYPES == (int)KMEM_NR_MIGTYPE_COLUMNS, "a type per column");

/* CSS classes of the types' colours (Okabe-Ito, told apart by most eyes). */
static const char * const type_classes[KMEM_MAP_NR_TYPES] = {
	"class=\"u\"", "class=\"r\"", "class=\"m\"", "class=\"s\"",
};

static void put_rect(FILE *fp, int x, int y, int width, int height,
		     const char *attrs)
{
	fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" %s/>",
		x, y, width, height, attrs);
}

struct stored_block {
	struct rb_node		rb;
	u64			block;	/* pfn >> pageblock_order */
	struct kmem_map_block	b;	/* its top_callsite a copy */
};

struct node_range {
	int	node;
	u64	start, end;	/* pfns [start, end) */
};

struct layout {
	u64	first_block;	/* of cell 0 */
	int	shift;		/* a cell holds 1 << shift pageblocks */
	u64	nr_cells;
	u64	rows;
};

struct kmem_map {
	char			*title;
	int			order;
	u64			page_size;
	struct rb_root		blocks;
	size_t			nr_blocks;
	struct node_range	*ranges;
	size_t			nr_ranges;
	size_t			max_ranges;	/* allocated */
	u64			*xnode;		/* [from * MAX_NODES + to] */
	int			nr_xnodes;	/* highest node set + 1 */
	struct layout		layout;
};

struct kmem_map *kmem_map__new(const struct kmem_map_config *config)
{
	struct kmem_map *map;

	if (config->pageblock_order < 0 ||
	    config->pageblock_order > KMEM_MAP_MAX_ORDER)
		return NULL;
	map = calloc(1, sizeof(*map));
	if (!map)
		return NULL;
	map->title = strdup(config->title ? config->title : "");
	map->xnode = calloc(KMEM_MAP_MAX_NODES * KMEM_MAP_MAX_NODES,
			    sizeof(*map->xnode));
	if (!map->title || !map->xnode) {
		kmem_map__delete(map);
		return NULL;
	}
	map->order = config->pageblock_order;
	map->page_size = config->page_size ? config->page_size : 4096;
	map->blocks = RB_ROOT;
	return map;
}

void kmem_map__delete(struct kmem_map *map)
{
	struct stored_block *b, *tmp;

	if (!map)
		return;
	rbtree_postorder_for_each_entry_safe(b, tmp, &map->blocks, rb) {
		free((char *)b->b.top_callsite);
		free(b);
	}
	free(map->ranges);
	free(map->xnode);
	free(map->title);
	free(map);
}

int kmem_map__add_block(struct kmem_map *map, const struct kmem_map_block *b)
{
	struct rb_node **p = &map->blocks.rb_node, *parent = NULL;
	u64 block = b->pfn >> map->order;
	struct stored_block *sb;

	while (*p) {
		parent = *p;
		sb = rb_entry(parent, struct stored_block, rb);
		if (block == sb->block)
			return -EEXIST;
		p = block < sb->block ? &parent->rb_left : &parent->rb_right;
	}
	sb = malloc(sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	sb->block = block;
	sb->b = *b;
	sb->b.top_callsite = b->top_callsite ? strdup(b->top_callsite) : NULL;
	if (b->top_callsite && !sb->b.top_callsite) {
		free(sb);
		return -ENOMEM;
	}
	rb_link_node(&sb->rb, parent, p);
	rb_insert_color(&sb->rb, &map->blocks);
	map->nr_blocks++;
	return 0;
}

int kmem_map__add_node_range(struct kmem_map *map, int node, u64 start,
			     u64 end)
{
	if (node < 0 || node >= KMEM_MAP_MAX_NODES || end <= start)
		return -EINVAL;
	if (kmem_grow(&map->ranges, &map->max_ranges, map->nr_ranges, 1,
		      sizeof(*map->ranges)))
		return -ENOMEM;
	map->ranges[map->nr_ranges++] = (struct node_range){
		.node = node, .start = start, .end = end,
	};
	return 0;
}

int kmem_map__set_xnode_bytes(struct kmem_map *map, int from, int to,
			      u64 bytes)
{
	if (from < 0 || from >= KMEM_MAP_MAX_NODES ||
	    to < 0 || to >= KMEM_MAP_MAX_NODES)
		return -EINVAL;
	map->xnode[from * KMEM_MAP_MAX_NODES + to] = bytes;
	if (from >= map->nr_xnodes || to >= map->nr_xnodes)
		map->nr_xnodes = (from > to ? from : to) + 1;
	return 0;
}

/* --- layout ------------------------------------------------------------ */

static struct stored_block *block_of(struct rb_node *rb)
{
	return rb ? rb_entry(rb, struct stored_block, rb) : NULL;
}

/* The fewest pageblocks per cell, a power of two, that fit the range. */
static int layout(struct kmem_map *map)
{
	struct stored_block *lo = block_of(rb_first(&map->blocks));
	struct stored_block *hi = block_of(rb_last(&map->blocks));
	struct layout *l = &map->layout;

	if (!lo)
		return -ENODATA;
	l->shift = 0;
	while ((hi->block >> l->shift) - (lo->block >> l->shift) >=
	       KMEM_MAP_MAX_CELLS)
		l->shift++;
	l->first_block = (lo->block >> l->shift) << l->shift;
	l->nr_cells = (hi->block >> l->shift) - (lo->block >> l->shift) + 1;
	l->rows = (l->nr_cells + COLUMNS - 1) / COLUMNS;
	return 0;
}

/* pfns per cell, as a shift; at most 64 - log2(KMEM_MAP_MAX_CELLS) + 1. */
static int cell_pfn_shift(const struct kmem_map *map)
{
	return map->layout.shift + map->order;
}

static u64 cell_first_pfn(const struct kmem_map *map, u64 cell)
{
	return (map->layout.first_block << map->order) +
	       (cell << cell_pfn_shift(map));
}

/* The last pfn of @cell, kept below 2^64. */
static u64 cell_last_pfn(const struct kmem_map *map, u64 cell)
{
	u64 first = cell_first_pfn(map, cell);
	u64 span = (1ULL << cell_pfn_shift(map)) - 1;

	return first > ~0ULL - span ? ~0ULL : first + span;
}

static u64 cell_of_block(const struct kmem_map *map, u64 block)
{
	return (block - map->layout.first_block) >> map->layout.shift;
}

/* The cell that holds @pfn, or nr_cells if none does. */
static u64 cell_of_pfn(const struct kmem_map *map, u64 pfn)
{
	u64 block = pfn >> map->order;

	if (block < map->layout.first_block)
		return map->layout.nr_cells;
	return min(cell_of_block(map, block), map->layout.nr_cells);
}

static int cell_x(u64 cell)
{
	return LEFT + (cell % COLUMNS) * PITCH;
}

static int cell_y(u64 cell)
{
	return TOP + (cell / COLUMNS) * PITCH;
}

static int grid_bottom(const struct kmem_map *map)
{
	return TOP + map->layout.rows * PITCH;
}

int kmem_map__locate(struct kmem_map *map, u64 pfn, struct kmem_map_box *box,
		     u64 *blocks_per_cell)
{
	int err = layout(map);
	u64 cell;

	if (err)
		return err;
	cell = cell_of_pfn(map, pfn);
	if (cell >= map->layout.nr_cells)
		return -ENOENT;
	*box = (struct kmem_map_box){
		.x = cell_x(cell), .y = cell_y(cell),
		.width = CELL, .height = CELL,
	};
	if (blocks_per_cell)
		*blocks_per_cell = 1ULL << map->layout.shift;
	return 0;
}

/* --- text --------------------------------------------------------------- */

/*
 * @s as XML character data, at most @max bytes of it: markup escaped,
 * blanks and controls (not XML characters, or line breaks in a tooltip)
 * as spaces, bytes that are not UTF-8 and U+FFFE/U+FFFF as U+FFFD.
 */
static void xml_text(FILE *fp, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strnlen(str, max), i = 0;

	while (i < len) {
		int n;

		switch (s[i]) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			if (s[i] < 0x80) {
				fputc(s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i],
				      fp);
				break;
			}
			n = kmem_utf8_sequence(s + i, len - i);
			if (n == 3 && s[i] == 0xef && s[i + 1] == 0xbf &&
			    s[i + 2] >= 0xbe)
				n = -3;		/* U+FFFE, U+FFFF */
			if (n > 0) {
				fwrite(s + i, 1, n, fp);
				i += n;
			} else {
				fputs(KMEM_UTF8_REPLACEMENT, fp);
				i += -n;
			}
			continue;
		}
		i++;
	}
}

static const char * const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

/* @bytes in the largest unit it has one of, and that unit's index. */
static int scale(long double *bytes)
{
	int u = 0;

	while (*bytes >= 1024 && u < (int)ARRAY_SIZE(units) - 1) {
		*bytes /= 1024;
		u++;
	}
	return u;
}

/* "2 MiB": sizes of cells and pageblocks, powers of two. */
static void print_size(FILE *fp, u64 page_size, int shift)
{
	long double bytes = (long double)page_size * (1ULL << min(shift, 63));
	int u = scale(&bytes);

	fprintf(fp, "%.3Lg %s", bytes, units[u]);
}

static void print_bytes(FILE *fp, u64 bytes)
{
	long double v = bytes;
	int u = scale(&v);

	if (u)
		fprintf(fp, "%.1f %s", (double)v, units[u]);
	else
		fprintf(fp, "%" PRIu64 " B", bytes);
}

/* --- the document ------------------------------------------------------- */

static void write_head(struct kmem_map *map, FILE *fp, int height)
{
	fprintf(fp,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		WIDTH, height, WIDTH, height);
	fputs("<style>\n"
	      "text{font-family:sans-serif;font-size:11px;fill:#222}\n"
	      ".t{font-size:15px;font-weight:bold}\n"
	      ".p{font-family:monospace;font-size:9px;text-anchor:end}\n"
	      ".u{fill:#d55e00}.r{fill:#e69f00}.m{fill:#009e73}.s{fill:#cc79a7}\n"
	      ".x{fill:url(#mixed)}\n"
	      ".f{fill:none;stroke:#000;stroke-width:2}\n"
	      ".k{fill:#000;stroke:#fff;stroke-width:1}\n"
	      ".n{fill:none;stroke:#0072b2;stroke-width:2}\n"
	      "</style>\n", fp);
	/* Untouched cells, holes, and the hatch of mixed pageblocks. */
	fprintf(fp, "<defs>\n<pattern id=\"free\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" patternUnits=\"userSpaceOnUse\"><rect width=\"%d\" height=\"%d\" fill=\"#e4e4e4\"/></pattern>\n",
		LEFT, TOP, PITCH, PITCH, CELL, CELL);
	fputs("<pattern id=\"hole\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff\"/><rect width=\"2\" height=\"6\" fill=\"#aaa\"/></pattern>\n",
	      fp);
	fputs("<pattern id=\"mixed\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"1.2\" height=\"4\" fill=\"#000\"/></pattern>\n</defs>\n",
	      fp);
	fprintf(fp, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		WIDTH, height);
	fprintf(fp, "<text x=\"%d\" y=\"22\" class=\"t\">", LEFT);
	xml_text(fp, map->title, 256);
	fputs("</text>\n", fp);
}

/* What the pageblocks of a cell, or of the map, came to. */
struct cell_sum {
	u64			cell;
	u64			allocs[KMEM_MAP_NR_TYPES];
	u64			fallbacks;
	u64			remote_frees;
	u64			pinning;
	u64			pinned;		/* blocks with pinning pages */
	u64			blocks;		/* in the trace */
	u64			allocated;	/* of them, allocated into */
	u64			mixed;
	u64			with_fallbacks;
	int			node;	/* -2: blocks of several nodes */
	const struct kmem_map_block *busiest;
};

static void write_subtitle(struct kmem_map *map, FILE *fp,
			   const struct cell_sum *t)
{
	u64 last = map->layout.nr_cells - 1;

	fprintf(fp, "<text x=\"%d\" y=\"42\">pfn 0x%" PRIx64 "-0x%" PRIx64
		", pageblocks of order %d (", LEFT, cell_first_pfn(map, 0),
		cell_last_pfn(map, last), map->order);
	print_size(fp, map->page_size, map->order);
	fprintf(fp, "), a cell is %" PRIu64 " pageblock%s (",
		(u64)1 << map->layout.shift, map->layout.shift ? "s" : "");
	print_size(fp, map->page_size, cell_pfn_shift(map));
	fprintf(fp, "); %" PRIu64 " pageblocks allocated into, %" PRIu64
		" mixed, %" PRIu64 " with fallbacks", t->allocated, t->mixed,
		t->with_fallbacks);
	/* Said where there are some: a trace of -b or of old pfns has none. */
	if (t->pinned)
		fprintf(fp, ", %" PRIu64 " pinned by pages fallen back",
			t->pinned);
	fputs("</text>\n", fp);
}

/*
 * Cells [@from, @to) as at most three rectangles: the rest of the first
 * row, whole rows, the start of the last row.
 */
static void write_cell_run(FILE *fp, u64 from, u64 to, const char *attrs)
{
	while (from < to) {
		u64 col = from % COLUMNS, n, w, h;

		if (col || to - from < COLUMNS) {
			n = min(to - from, COLUMNS - col);
			w = n;
			h = 1;
		} else {
			n = (to - from) / COLUMNS * COLUMNS;
			w = COLUMNS;
			h = n / COLUMNS;
		}
		put_rect(fp, cell_x(from), cell_y(from), w * PITCH, h * PITCH, attrs);
		fputc('\n', fp);
		from += n;
	}
}

static int cmp_range(const void *a, const void *b)
{
	const struct node_range *x = a, *y = b;

	return kmem_cmp(x->start, y->start) ?: kmem_cmp(x->node, y->node);
}

/* Whole cells in no node's range: holes.  Only with node ranges. */
static void write_holes(struct kmem_map *map, FILE *fp)
{
	u64 cells = map->layout.nr_cells, covered = 0, start_cell;
	int shift = cell_pfn_shift(map);
	u64 base = cell_first_pfn(map, 0);
	size_t i;

	if (!map->nr_ranges)
		return;
	fputs("<g><title>hole: no memory of any node</title>\n", fp);
	/* covered: cells [0, covered) hold memory or are done. */
	for (i = 0; i <= map->nr_ranges && covered < cells; i++) {
		const struct node_range *r = i < map->nr_ranges ?
					     &map->ranges[i] : NULL;
		u64 end_cell;

		if (r && r->end <= base)
			continue;
		/* The cells wholly before this range's first pfn. */
		start_cell = !r ? cells : r->start <= base ? 0 :
			     (r->start - base) >> shift;
		if (start_cell > covered)
			write_cell_run(fp, covered, min(start_cell, cells),
				       "fill=\"url(#hole)\"");
		if (!r)
			break;
		/* A cell the range ends in holds memory. */
		end_cell = ((r->end - 1 - base) >> shift) + 1;
		covered = max(covered, end_cell);
	}
	fputs("</g>\n", fp);
}

/* The allocations by type of a block or a cell: their sum, their types. */
static u64 sum_allocs(const u64 *allocs)
{
	u64 sum = 0;
	int t;

	for (t = 0; t < KMEM_MAP_NR_TYPES; t++)
		sum += allocs[t];
	return sum;
}

static int nr_types(const u64 *allocs)
{
	int t, n = 0;

	for (t = 0; t < KMEM_MAP_NR_TYPES; t++)
		n += allocs[t] != 0;
	return n;
}

static void add_to_cell(struct cell_sum *c, const struct kmem_map_block *b)
{
	int t;

	for (t = 0; t < KMEM_MAP_NR_TYPES; t++)
		c->allocs[t] += b->allocs[t];
	c->fallbacks += b->fallbacks;
	c->with_fallbacks += b->fallbacks != 0;
	c->remote_frees += b->remote_frees;
	c->pinning += b->pinning;
	c->pinned += b->pinning != 0;
	c->blocks++;
	c->allocated += sum_allocs(b->allocs) > 0;
	c->mixed += nr_types(b->allocs) > 1;
	if (c->blocks == 1)
		c->node = b->node;
	else if (c->node != b->node)
		c->node = -2;
	if (!c->busiest || sum_allocs(b->allocs) > sum_allocs(c->busiest->allocs))
		c->busiest = b;
}

static void write_tooltip(struct kmem_map *map, FILE *fp,
			  const struct cell_sum *c)
{
	u64 per_cell = 1ULL << map->layout.shift;
	int t;

	fprintf(fp, "<title>pfn 0x%" PRIx64 "-0x%" PRIx64 ": ",
		cell_first_pfn(map, c->cell), cell_last_pfn(map, c->cell));
	if (per_cell == 1)
		fputs("1 pageblock", fp);
	else
		fprintf(fp, "%" PRIu64 " pageblocks, %" PRIu64
			" allocated into, %" PRIu64 " mixed", per_cell,
			c->allocated, c->mixed);
	if (per_cell == 1 && c->mixed)
		fputs(", mixed", fp);
	fputs("\nallocations:", fp);
	for (t = 0; t < KMEM_MAP_NR_TYPES; t++)
		fprintf(fp, "%s %s %" PRIu64, t ? "," : "", kmem_migtype_columns[t],
			c->allocs[t]);
	fprintf(fp, "\nfallbacks %" PRIu64 ", frees by CPUs of other nodes %"
		PRIu64, c->fallbacks, c->remote_frees);
	if (c->pinning)
		fprintf(fp, "\nfallen back, still allocated: %" PRIu64
			" page%s, in %" PRIu64 " pageblock%s", c->pinning,
			c->pinning == 1 ? "" : "s", c->pinned,
			c->pinned == 1 ? "" : "s");
	if (c->node >= 0)
		fprintf(fp, "\nnode %d", c->node);
	else if (c->node == -2)
		fputs("\nnodes: several", fp);
	if (c->busiest->top_callsite) {
		fputs(per_cell == 1 ? "\nmain callsite: " :
				      "\nmain callsite of its busiest pageblock: ",
		      fp);
		xml_text(fp, c->busiest->top_callsite, NAME_MAX_BYTES);
	}
	fputs("</title>", fp);
}

/* The mark of pages fallen back and still allocated: a dot in the middle. */
static void write_pin(FILE *fp, int x, int y)
{
	fprintf(fp, "<circle cx=\"%d.5\" cy=\"%d.5\" r=\"2.5\" class=\"k\"/>",
		x + CELL / 2, y + CELL / 2);
}

/* Bands of equal width, one per type allocated into the cell. */
static void write_cell(struct kmem_map *map, FILE *fp,
		       const struct cell_sum *c)
{
	int x = cell_x(c->cell), y = cell_y(c->cell), t, k = 0;
	int n = nr_types(c->allocs);

	fputs("<g>", fp);
	write_tooltip(map, fp, c);
	for (t = 0; t < KMEM_MAP_NR_TYPES; t++) {
		int from, to;

		if (!c->allocs[t])
			continue;
		from = k * CELL / n;
		to = ++k * CELL / n;
		put_rect(fp, x + from, y, to - from, CELL, type_classes[t]);
	}
	if (!n)		/* blocks added with no allocations: as free */
		put_rect(fp, x, y, CELL, CELL, "fill=\"#e4e4e4\"");
	if (c->mixed)
		put_rect(fp, x, y, CELL, CELL, "class=\"x\"");
	if (c->fallbacks)
		put_rect(fp, x + 1, y + 1, CELL - 2, CELL - 2, "class=\"f\"");
	if (c->pinning)
		write_pin(fp, x, y);
	fputs("</g>\n", fp);
}

static void write_cells(struct kmem_map *map, FILE *fp)
{
	struct cell_sum c = { .cell = ~0ULL };
	struct rb_node *rb;

	for (rb = rb_first(&map->blocks); rb; rb = rb_next(rb)) {
		struct stored_block *b = block_of(rb);
		u64 cell = cell_of_block(map, b->block);

		if (cell != c.cell) {
			if (c.busiest)
				write_cell(map, fp, &c);
			c = (struct cell_sum){ .cell = cell };
		}
		add_to_cell(&c, &b->b);
	}
	if (c.busiest)
		write_cell(map, fp, &c);
}

/* The whole map as one cell: the subtitle's totals. */
static void count_totals(struct kmem_map *map, struct cell_sum *t)
{
	struct rb_node *rb;

	for (rb = rb_first(&map->blocks); rb; rb = rb_next(rb))
		add_to_cell(t, &block_of(rb)->b);
}

/* Row labels: the first pfn of every LABEL_EVERY-th row. */
static void write_row_labels(struct kmem_map *map, FILE *fp)
{
	u64 row;

	for (row = 0; row < map->layout.rows; row += LABEL_EVERY)
		fprintf(fp, "<text x=\"%d\" y=\"%" PRIu64 "\" class=\"p\">0x%"
			PRIx64 "</text>\n", LEFT - 4,
			TOP + row * PITCH + CELL - 2,
			cell_first_pfn(map, row * COLUMNS));
}

/* The right end of a line along the top of @cell's row: the grid's. */
static int right_end(const struct kmem_map *map, u64 cell)
{
	u64 last = map->layout.nr_cells - 1;

	if (cell / COLUMNS == last / COLUMNS)
		return cell_x(last) + CELL;
	return LEFT + COLUMNS * PITCH - 1;
}

/* The end of the ranges of @i's node that follow it, holes between. */
static u64 node_end(const struct kmem_map *map, size_t i)
{
	int node = map->ranges[i].node;

	while (i + 1 < map->nr_ranges && map->ranges[i + 1].node == node)
		i++;
	return map->ranges[i].end;
}

/*
 * Where a node's memory starts: a line between the cells before and the
 * cells from there on, and its name at the end of the row.  A node goes
 * on after a hole (the one below 4 GiB) until another node's memory.
 */
static void write_node_starts(struct kmem_map *map, FILE *fp)
{
	u64 base = cell_first_pfn(map, 0), prev_row = ~0ULL;
	int shift = cell_pfn_shift(map), stacked = 0;
	size_t i;

	for (i = 0; i < map->nr_ranges; i++) {
		const struct node_range *r = &map->ranges[i];
		u64 cell = r->start <= base ? 0 : (r->start - base) >> shift;
		int x = cell_x(cell) - 1, y = cell_y(cell) - 1;

		if (cell >= map->layout.nr_cells || r->end <= base)
			continue;
		if (i && r->node == map->ranges[i - 1].node)
			continue;	/* the same node goes on */
		fprintf(fp, "<g><title>node %d: pfn 0x%" PRIx64 "-0x%" PRIx64
			"</title>", r->node, r->start, node_end(map, i) - 1);
		if (cell)
			fprintf(fp, "<path d=\"M%d %dH%dV%dH%d\" class=\"n\"/>",
				LEFT - 1, y + PITCH, x, y, right_end(map, cell));
		stacked = cell / COLUMNS == prev_row ? stacked + 1 : 0;
		prev_row = cell / COLUMNS;
		fprintf(fp, "<text x=\"%d\" y=\"%d\">node %d</text></g>\n",
			LEFT + COLUMNS * PITCH + 6, y + CELL + stacked * 11,
			r->node);
	}
}

static void legend_swatch(FILE *fp, int x, int y, const char *fill,
			  const char *label)
{
	put_rect(fp, x, y, CELL, CELL, fill);
	fprintf(fp, "<text x=\"%d\" y=\"%d\">%s</text>\n", x + 16, y + 10,
		label);
}

/*
 * Two rows: the types' colours and the pinned mark, then the other marks.
 * Returns the end.
 */
static int write_legend(FILE *fp, int y, bool ranges)
{
	int t, x = LEFT;

	for (t = 0; t < KMEM_MAP_NR_TYPES; t++, x += 120)
		legend_swatch(fp, x, y, type_classes[t], kmem_migtype_columns[t]);
	/* A mark, as the row below: where there is room for it. */
	legend_swatch(fp, x, y, "fill=\"#fff\"", "pinned: fell back, stays");
	write_pin(fp, x, y);
	fputs("\n", fp);
	y += 18;
	x = LEFT;
	legend_swatch(fp, x, y, "class=\"m\"", "mixed pageblock");
	put_rect(fp, x, y, CELL, CELL, "class=\"x\"");
	fputc('\n', fp);
	x += 120;
	legend_swatch(fp, x, y, "fill=\"#fff\"", "fallbacks");
	put_rect(fp, x + 1, y + 1, CELL - 2, CELL - 2, "class=\"f\"");
	fputc('\n', fp);
	x += 120;
	legend_swatch(fp, x, y, "fill=\"#e4e4e4\"", "no allocation");
	x += 120;
	if (!ranges) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\">no memory topology in the trace: nodes and holes unknown</text>\n",
			x, y + 10);
		return y + 18;
	}
	legend_swatch(fp, x, y, "fill=\"url(#hole)\"", "hole");
	x += 120;
	fprintf(fp, "<path d=\"M%d %dV%d\" class=\"n\"/><text x=\"%d\" y=\"%d\">node start</text>\n",
		x + 5, y, y + CELL, x + 16, y + 10);
	return y + 18;
}

/* The shade of @bytes against @max: white to dark blue. */
static void write_shade(FILE *fp, u64 bytes, u64 max)
{
	double f = max ? (double)bytes / max : 0;

	fprintf(fp, "rgb(%d,%d,%d)", (int)(247 - f * (247 - 8)),
		(int)(251 - f * (251 - 48)), (int)(255 - f * (255 - 107)));
}

static int write_xnode_panel(struct kmem_map *map, FILE *fp, int y)
{
	int n = map->nr_xnodes, cw, from, to;
	u64 max_remote = 0;

	if (n < 2)
		return y;
	cw = min(80, COLUMNS * PITCH / n);
	for (from = 0; from < n; from++)
		for (to = 0; to < n; to++)
			if (from != to)
				max_remote = max(max_remote,
						 map->xnode[from * KMEM_MAP_MAX_NODES + to]);
	y += 14;
	fprintf(fp, "<text x=\"%d\" y=\"%d\">Bytes allocated by CPUs of a node (rows) and freed by CPUs of a node (columns); shaded off the diagonal</text>\n",
		LEFT, y);
	y += 8;
	for (to = 0; to < n && cw >= 40; to++)
		fprintf(fp, "<text x=\"%d\" y=\"%d\">node %d</text>\n",
			LEFT + to * cw + 4, y + 10, to);
	y += cw >= 40 ? 14 : 0;
	for (from = 0; from < n; from++, y += 20) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"p\">node %d</text>\n",
			LEFT - 4, y + 13, from);
		for (to = 0; to < n; to++) {
			u64 b = map->xnode[from * KMEM_MAP_MAX_NODES + to];
			int x = LEFT + to * cw;
			bool dark = from != to && max_remote &&
				    b * 2 > max_remote;

			fprintf(fp, "<g><title>allocated on node %d, freed on node %d: %" PRIu64
				" bytes%s</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"19\" ",
				from, to, b, from == to ? " (same node)" : "",
				x, y, cw - 1);
			if (from == to) {
				fputs("fill=\"#fff\" stroke=\"#bbb\"/>", fp);
			} else {
				fputs("fill=\"", fp);
				write_shade(fp, b, max_remote);
				fputs("\"/>", fp);
			}
			if (cw >= 40) {
				fprintf(fp, "<text x=\"%d\" y=\"%d\"%s>", x + 4,
					y + 13, dark ? " style=\"fill:#fff\"" :
					from == to ? " style=\"fill:#888\"" : "");
				print_bytes(fp, b);
				fputs("</text>", fp);
			}
			fputs("</g>\n", fp);
		}
	}
	return y;
}

int kmem_map__write(struct kmem_map *map, FILE *fp)
{
	struct cell_sum totals = { 0 };
	int err = layout(map), y, height;

	if (err)
		return err;
	if (map->nr_ranges)
		qsort(map->ranges, map->nr_ranges, sizeof(*map->ranges),
		      cmp_range);
	count_totals(map, &totals);
	/* Below the grid: the legend (36 px), then the node x node panel. */
	y = grid_bottom(map) + 16;
	height = y + 36 + 12;
	if (map->nr_xnodes > 1)
		height += 36 + 20 * map->nr_xnodes;
	write_head(map, fp, height);
	write_subtitle(map, fp, &totals);
	write_cell_run(fp, 0, map->layout.nr_cells, "fill=\"url(#free)\"");
	write_holes(map, fp);
	write_cells(map, fp);
	write_row_labels(map, fp);
	write_node_starts(map, fp);
	y = write_legend(fp, y, map->nr_ranges > 0);
	write_xnode_panel(map, fp, y);
	fputs("</svg>\n", fp);
	if (fflush(fp) || ferror(fp))
		return -errno ?: -EIO;
	return 0;
}
