/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_LAYOUT_H
#define __PERF_KMEM_PRINT_LAYOUT_H

/*
 * perf kmem's tables as text, drawn from their columns (report.h), to
 * stdout: a rule, the header, a rule, the rows, a rule.
 */

#include <stddef.h>
#include <linux/compiler.h>

#include "report.h"

/*
 * The review of the first page analysis asked for counts and bytes on one
 * line, thousands separators whatever the locale ("12,345,678"), numbers
 * flush right and '.' for zero: the text's and the diff's.
 */
#define COMMAS(v) kmem_commas((v), (char [32]) { 0 }, 32)

/* A section's title, ruled under with as many '='. */
void __printf(1, 2) kmem_print__title(const char *fmt, ...);

/*
 * Table @table of the kind of @cols: the first @shown of its @nr sorted
 * @rows, and a line saying how many more there are.
 */
void kmem_print__table(const struct kmem_cell_ctx *ctx,
		       const struct kmem_column *cols, size_t nr_cols,
		       int table, const void * const *rows, size_t nr,
		       size_t shown);

#endif /* __PERF_KMEM_PRINT_LAYOUT_H */
