// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's text layout; see print-layout.h.
 */
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "print-layout.h"

/* A line of @width dashes. */
static void rule(int width)
{
	while (width-- > 0)
		putchar('-');
	putchar('\n');
}

/* Room for a cell: a kernel symbol's name and an offset. */
#define CELL_SIZE	(KSYM_NAME_LEN + 32)
#define MAX_COLUMNS	16

/* The columns of @table that the trace has, and their widths. */
struct table_layout {
	const struct kmem_column	*cols[MAX_COLUMNS];
	int				widths[MAX_COLUMNS];
	int				nr;
};

static void lay_out(struct table_layout *t, const struct kmem_column *cols,
		    size_t nr_cols, int table, const struct kmem_cell_ctx *ctx,
		    const void * const *rows, size_t shown)
{
	char cell[CELL_SIZE];
	size_t i, r;

	t->nr = 0;
	for (i = 0; i < nr_cols && t->nr < MAX_COLUMNS; i++) {
		const struct kmem_column *col = &cols[i];
		int width = col->width;

		if (!kmem_column__shown(col, ctx, table))
			continue;
		/* A set width is the least: a wider cell widens its column. */
		if (!width)
			width = strlen(kmem_column__header(col, ctx));
		for (r = 0; r < shown; r++) {
			kmem_column__cell(col, ctx, rows[r], cell, sizeof(cell));
			width = max_t(int, width, strlen(cell));
		}
		t->cols[t->nr] = col;
		t->widths[t->nr++] = width;
	}
}

/*
 * " a | b | c": cells padded to their column's width, but for a last one
 * flush left, which would only end the line in blanks.  Returns the width.
 */
static int print_line(const struct table_layout *t, const char **cells,
		      const bool *left)
{
	int i, n = 0;

	for (i = 0; i < t->nr; i++) {
		bool last = i == t->nr - 1;

		n += printf("%s ", i ? " |" : "");
		if (last && left[i])
			n += printf("%s", cells[i]);
		else
			n += printf(left[i] ? "%-*s" : "%*s", t->widths[i],
				    cells[i]);
	}
	printf("\n");
	return n;
}

static int print_header(const struct table_layout *t,
			const struct kmem_cell_ctx *ctx)
{
	const char *heads[MAX_COLUMNS] = { NULL };
	bool left[MAX_COLUMNS] = { false };
	int i;

	for (i = 0; i < t->nr; i++) {
		heads[i] = kmem_column__header(t->cols[i], ctx);
		left[i] = t->cols[i]->flags & KMEM_COL_HEADER_LEFT;
	}
	return print_line(t, heads, left);
}

/* @cells: the caller's room for a row's cells, MAX_COLUMNS of them. */
static void print_row(const struct table_layout *t,
		      const struct kmem_cell_ctx *ctx, const void *row,
		      char (*cells)[CELL_SIZE])
{
	const char *texts[MAX_COLUMNS] = { NULL };
	bool left[MAX_COLUMNS] = { false };
	int i;

	for (i = 0; i < t->nr; i++) {
		kmem_column__cell(t->cols[i], ctx, row, cells[i],
				  sizeof(cells[i]));
		texts[i] = cells[i];
		left[i] = t->cols[i]->flags & KMEM_COL_LEFT;
	}
	print_line(t, texts, left);
}

/*
 * The width of the widest line, the header or a row shown: each column's
 * is that of its widest cell, and the last one's too, though it is not
 * padded.  (The header's own width left the rules 71 columns wide over
 * rows of 140 where the GFP flags are the last column.)
 */
static int table_width(const struct table_layout *t)
{
	int i, n = 0;

	for (i = 0; i < t->nr; i++)
		n += (i ? 3 : 1) + t->widths[i];
	return n;
}

void kmem_print__table(const struct kmem_cell_ctx *ctx,
		       const struct kmem_column *cols, size_t nr_cols,
		       int table, const void * const *rows, size_t nr,
		       size_t shown)
{
	char cells[MAX_COLUMNS][CELL_SIZE], more[32];
	struct table_layout t;
	size_t i;
	int width;

	lay_out(&t, cols, nr_cols, table, ctx, rows, shown);
	width = table_width(&t);
	printf("\n");
	rule(width);
	print_header(&t, ctx);
	rule(width);
	for (i = 0; i < shown; i++)
		print_row(&t, ctx, rows[i], cells);
	if (shown < nr)
		printf(" ... %s more rows (-l to show them)\n",
		       kmem_commas(nr - shown, more, sizeof(more)));
	rule(width);
}

