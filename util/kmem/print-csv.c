// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's tables as CSV, as perf lock contention -x prints its own;
 * see print-csv.h.  The columns and cells are report.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/string.h>
#include <perf/event.h>

#include "print-csv.h"
#include "print.h"
#include "report.h"

/* Room for a cell: a kernel symbol's name and an offset. */
#define CELL_SIZE	(KSYM_NAME_LEN + 32)

bool kmem_csv__sep_ok(const char *sep)
{
	return sep && *sep && !sep[strcspn(sep, KMEM_CSV_USED)];
}

/*
 * A column's name: its member in a row of the JSON ("hits",
 * "fallbacks.count"); a column the JSON lacks by its header, lower case,
 * '_' for what is not a letter or a digit ("Bytes asked": "bytes_asked").
 */
static const char *column_name(const struct kmem_column *cols, size_t i,
			       const struct kmem_cell_ctx *ctx, char *buf,
			       size_t size)
{
	const struct kmem_column *col = &cols[i];
	const char *h;
	size_t n = 0;

	if (col->kind == KMEM_CELL_COUNT && col->json) {
		snprintf(buf, size, "%s.count", col->json);
		return buf;
	}
	if ((col->flags & KMEM_COL_COUNT_BYTES) && i &&
	    cols[i - 1].kind == KMEM_CELL_COUNT && cols[i - 1].json) {
		snprintf(buf, size, "%s.bytes", cols[i - 1].json);
		return buf;
	}
	if (col->json)
		return kmem_column__json(col, ctx);
	for (h = kmem_column__header(col, ctx); *h && n + 1 < size; h++)
		buf[n++] = isalnum((unsigned char)*h) ?
			   tolower((unsigned char)*h) : '_';
	buf[n] = '\0';
	return buf;
}

void kmem_print__csv_table(FILE *fp, const struct kmem_cell_ctx *ctx,
			   const char *sep, const char *name, const struct kmem_column *cols,
			   size_t nr_cols, int table, const void * const *rows,
			   size_t nr)
{
	struct kmem_cell_ctx raw = *ctx;
	char cell[CELL_SIZE];
	const char *text;
	size_t i, r;
	bool first;

	raw.raw = true;
	fprintf(fp, "# table: %s\n# output: ", name);
	/* The names of the columns, then a line per row. */
	for (r = 0; r <= nr; r++, fputc('\n', fp)) {
		for (i = 0, first = true; i < nr_cols; i++) {
			if (!kmem_column__in(&cols[i], ctx, table, KMEM_IN_TEXT | KMEM_IN_JSON))
				continue;
			text = cell;
			if (!r)
				text = column_name(cols, i, ctx, cell, sizeof(cell));
			else
				kmem_column__cell(&cols[i], &raw, rows[r - 1], cell,
						  sizeof(cell));
			fprintf(fp, "%s%s%s", first ? "" : sep, first ? "" : " ",
				text);
			first = false;
		}
	}
}

/* The tables of a report's document, as CSV to @fp. */
struct csv_walk {
	const struct kmem_report	*r;
	const char			*sep;
	FILE				*fp;
};

/*
 * Each scalar of the document: a table is in it where its nr_rows is, so
 * that the CSV has the JSON's tables in the JSON's order.
 */
static void csv_visit(void *arg, const char *path,
		      const struct kmem_json_value *v __maybe_unused)
{
	const struct csv_walk *w = arg;
	const struct kmem_report *r = w->r;
	int id;

	for (id = 0; id < KMEM_NR_TABLES; id++) {
		const struct kmem_table *desc = &kmem_tables[id];
		const struct kmem_report_table *t = &r->tables[id];

		if (!strstarts(path, desc->path) ||
		    strcmp(path + strlen(desc->path), ".nr_rows"))
			continue;
		kmem_print__csv_table(w->fp, r->ctx, w->sep, desc->path,
				      desc->cols, desc->nr_cols, desc->bit, t->rows,
				      kmem_report__rows_shown(r->lines, t->nr, false));
	}
}

int kmem_report__csv(const struct kmem_report *r, const char *sep, FILE *fp)
{
	struct csv_walk w = { .r = r, .sep = sep, .fp = fp };
	struct kmem_report shape = *r;
	int err;

	/* The tables' rows are the CSV's to write: the walk needs none. */
	shape.lines = 0;
	err = kmem_report__visit(&shape, csv_visit, &w);

	return err ?: (fflush(fp) || ferror(fp) ? (-errno ?: -EIO) : 0);
}
