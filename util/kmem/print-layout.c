// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's tables as text; see print-layout.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "print-layout.h"

void kmem_print__title(const char *fmt, ...)
{
	char title[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(title, sizeof(title), fmt, ap);
	va_end(ap);
	printf("\n %s\n %.*s\n\n", title, (int)strlen(title),
	       "================================================================");
}

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

		if (!kmem_column__in(col, ctx, table, KMEM_IN_TEXT))
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
 * The header (@row NULL) or a row, " a | b | c": cells padded to their
 * column's width, but for a last one flush left, which would only end the
 * line in blanks.
 */
static void print_line(const struct table_layout *t,
		       const struct kmem_cell_ctx *ctx, const void *row)
{
	char cell[CELL_SIZE];
	int i;

	for (i = 0; i < t->nr; i++) {
		const struct kmem_column *col = t->cols[i];
		const char *text = cell;
		bool left;

		if (row) {
			kmem_column__cell(col, ctx, row, cell, sizeof(cell));
			left = col->flags & KMEM_COL_LEFT;
		} else {
			text = kmem_column__header(col, ctx);
			left = col->flags & KMEM_COL_HEADER_LEFT;
		}
		printf("%s ", i ? " |" : "");
		if (left && i == t->nr - 1)
			printf("%s", text);
		else
			printf(left ? "%-*s" : "%*s", t->widths[i], text);
	}
	printf("\n");
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
	char more[32];
	struct table_layout t;
	size_t i;
	int width;

	lay_out(&t, cols, nr_cols, table, ctx, rows, shown);
	width = table_width(&t);
	printf("\n");
	rule(width);
	print_line(&t, ctx, NULL);
	rule(width);
	for (i = 0; i < shown; i++)
		print_line(&t, ctx, rows[i]);
	if (shown < nr)
		printf(" ... %s more rows (-l to show them)\n",
		       kmem_commas(nr - shown, more, sizeof(more)));
	rule(width);
}

