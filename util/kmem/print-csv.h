/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_CSV_H
#define __PERF_KMEM_PRINT_CSV_H

/*
 * -x SEP: tables as perf lock contention -x writes its own, for scripts.
 * A table is a block: "# table: page.callers", then "# output: " and the
 * names of its columns, then a line per row, unaligned, each separator
 * followed by a space.  The columns are named by their members in the
 * JSON's rows, their numbers are the JSON's (bytes, ns, pfns in decimal),
 * and the names are the text's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report.h"

/* Characters of the data that no separator may hold. */
#define KMEM_CSV_USED	"|+.:"

/* Can @sep separate cells: does it hold none of KMEM_CSV_USED? */
bool kmem_csv__sep_ok(const char *sep);

/*
 * Table @name (its path in the JSON), @table of the kind of the @nr_cols
 * @cols, as CSV to @fp: the first @nr of its sorted @rows, cells split
 * by @sep, in the columns the text or the JSON has.  @ctx is what cells
 * need beyond their row; they are printed raw.
 */
void kmem_print__csv_table(FILE *fp, const struct kmem_cell_ctx *ctx,
			   const char *sep, const char *name, const struct kmem_column *cols,
			   size_t nr_cols, int table, const void * const *rows,
			   size_t nr);

/**
 * kmem_report__csv - write the tables of a report as CSV
 * @r: the report
 * @sep: the separator
 * @fp: where
 *
 * The tables are those of the JSON document, in its order, each with all
 * its rows or the first -l; the sections (the summaries) are not printed.
 *
 * Return: 0; -EIO when @fp could not be written.
 */
int kmem_report__csv(const struct kmem_report *r, const char *sep, FILE *fp);

#endif /* __PERF_KMEM_PRINT_CSV_H */
