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

/* Does @sep hold none of KMEM_CSV_USED? */
bool kmem_csv__sep_ok(const char *sep);

/*
 * Table @name (its JSON path), @table of the kind of @cols, as CSV: the
 * first @nr @rows, raw, in the columns the text or the JSON has.
 */
void kmem_print__csv_table(FILE *fp, const struct kmem_cell_ctx *ctx,
			   const char *sep, const char *name, const struct kmem_column *cols,
			   size_t nr_cols, int table, const void * const *rows,
			   size_t nr);

/*
 * The tables of the JSON document of @r, in its order, as CSV to @fp,
 * each with its rows or the first -l; the summaries are not printed.
 * 0; -errno of a failed write; -ENOMEM.
 */
int kmem_report__csv(const struct kmem_report *r, const char *sep, FILE *fp);

#endif /* __PERF_KMEM_PRINT_CSV_H */
