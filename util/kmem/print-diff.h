/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_DIFF_H
#define __PERF_KMEM_PRINT_DIFF_H

/*
 * perf kmem diff's report: which numbers of perf kmem stat's document
 * (report.h) pair how, and the pairs as text or as a JSON document
 * of their own (Documentation/perf-kmem-diff.schema.json), its "schema"
 * member KMEM_DIFF_REPORT_SCHEMA.
 *
 * Each trace's report is walked as its JSON document is written
 * (kmem_report__visit()), so every number the document has is paired,
 * and a number added to the document is in the diff without a word here.
 * The --caller tables pair by the callsite's name, order, migration
 * type's name and GFP flags' names (page) or the callsite's name (slab),
 * never by address: the traces may come from other boots or kernels.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report-diff.h"

#define KMEM_DIFF_REPORT_SCHEMA	"perf-kmem-diff/1"

struct kmem_report;

/* How the stat document pairs. */
extern const struct kmem_diff_config kmem_diff_report_config;

/**
 * kmem_diff_report__add - take one trace's numbers
 * @d: a diff of kmem_diff_report_config
 * @side: KMEM_DIFF_OLD or KMEM_DIFF_NEW
 * @r: the trace's report, prepared, with all its rows (lines -1), and
 *     its --caller tables (caller true, alloc false)
 *
 * Return: 0, -ENOMEM or -EINVAL (a document the diff cannot take).
 */
int kmem_diff_report__add(struct kmem_diff *d, int side,
			  const struct kmem_report *r);

/* What is shown, and in what order. */
struct kmem_diff_report_options {
	bool		page;
	bool		slab;
	bool		caller;		/* every row, and the fallback tables */
	int		lines;		/* rows a table shows; -1: the default */
	const struct kmem_sort_keys *sort; /* -s keys, or NULL */
};

/**
 * kmem_diff_report__check_sort - are the -s keys ones the diff sorts by?
 * @sort: the -s keys, or NULL
 * @slab: for the slab tables, else the page ones
 * @bad: the first unknown key, on -EINVAL
 * @bad_size: its size
 * @known: the keys it takes, on -EINVAL
 * @known_size: its size
 *
 * Return: 0, -EINVAL or -E2BIG (more than KMEM_MAX_SORT_KEYS).
 */
int kmem_diff_report__check_sort(const struct kmem_sort_keys *sort, bool slab,
				 char *bad,
				 size_t bad_size, char *known,
				 size_t known_size);

/**
 * kmem_diff_report__text - the diff as text, to stdout
 * @d: the diff, paired
 * @o: what to show
 *
 * Return: 0.
 */
int kmem_diff_report__text(struct kmem_diff *d,
			   const struct kmem_diff_report_options *o);

/**
 * kmem_diff_report__json - the diff as one JSON document
 * @d: the diff, paired
 * @o: what to show
 * @fp: where
 *
 * Return: 0; -EIO when @fp could not be written; -ENOMEM.
 */
int kmem_diff_report__json(struct kmem_diff *d,
			   const struct kmem_diff_report_options *o, FILE *fp);

#endif /* __PERF_KMEM_PRINT_DIFF_H */
