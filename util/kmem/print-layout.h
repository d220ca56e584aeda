/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_LAYOUT_H
#define __PERF_KMEM_PRINT_LAYOUT_H

/*
 * perf kmem's text layout, as the review of the first page analysis asked
 * for it: counts and bytes on one line, thousands separators, numbers
 * flush right, '.' for zero; and tables drawn from their columns
 * (report.h).  Everything goes to stdout.
 */

#include <linux/types.h>
#include <stddef.h>

#include "count.h"
#include "report.h"

/* A line of @width dashes. */
void kmem_print__rule(int width);

/* "label                    12,345" */
void kmem_print__plain(const char *label, u64 v);

/* "label                    12,345   [      50,565,120 bytes ]" */
void kmem_print__count(const char *label, const struct kmem_count *c);

/* Bytes alone, under the bytes of the count lines around it. */
void kmem_print__bytes(const char *label, u64 bytes);

/* "12,345", or "." for 0: a cell of a grid. */
const char *kmem_print__cell(u64 v, char *buf, size_t size);

/**
 * kmem_print__table - a table of rows by its columns
 * @ctx: what cells need beyond their row
 * @cols: the columns of the table's kind
 * @nr_cols: how many
 * @table: which table of that kind: its columns are the ones shown in it
 * @rows: the rows, sorted
 * @nr: how many
 * @shown: how many to print; a line says how many more there are
 */
void kmem_print__table(const struct kmem_cell_ctx *ctx,
		       const struct kmem_column *cols, size_t nr_cols,
		       int table, const void * const *rows, size_t nr,
		       size_t shown);

#endif /* __PERF_KMEM_PRINT_LAYOUT_H */
