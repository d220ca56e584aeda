/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_DIFF_H
#define __PERF_KMEM_PRINT_DIFF_H

/*
 * perf kmem diff's report: two reports' documents paired, and the pairs as
 * text or as a JSON document of their own
 * (Documentation/perf-kmem-diff.schema.json), its "schema" member
 * KMEM_DIFF_REPORT_SCHEMA.
 *
 * Each report is walked as its JSON document is written
 * (kmem_report__visit()) and paired by report-diff.c, so every number the
 * document has is paired.  Which arrays are tables, which of their members
 * name a row and which measure it, the labels of the numbers and the -s
 * keys all come from the report's description (report.h): a number or a
 * column described there is in the diff without a word here.  Table rows
 * pair by the names of their callsites, types and flags, never by
 * address: the traces may come from other boots or kernels.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KMEM_DIFF_REPORT_SCHEMA	"perf-kmem-diff/1"

struct kmem_report;
struct kmem_diff_report;
struct kmem_sort_keys;

/* What is shown, and in what order. */
struct kmem_diff_report_options {
	bool		page;
	bool		slab;
	bool		caller;		/* every row, and the fallback tables */
	int		lines;		/* rows a table shows; -1: the default */
	const struct kmem_sort_keys *sort; /* -s keys, or NULL */
};

/*
 * A diff of two reports of the page and/or slab analysis (the rest of a
 * saved report's document left out); NULL: no memory.
 */
struct kmem_diff_report *kmem_diff_report__new(bool page, bool slab);
void kmem_diff_report__delete(struct kmem_diff_report *dr);

/*
 * Take the report @r of side @side (KMEM_DIFF_OLD or KMEM_DIFF_NEW), with
 * all the rows of its --caller tables.  Return: 0, -ENOMEM or -EINVAL (a
 * document the diff cannot take).
 */
int kmem_diff_report__add(struct kmem_diff_report *dr, int side,
			  const struct kmem_report *r);

/* What a saved report is: its schema member, and its analyses. */
struct kmem_saved_report {
	int	schema;		/* -1: none */
	bool	page;
	bool	slab;
};

struct kmem_json_value;

/*
 * One side of a diff taken from a JSON document, scalar by scalar: the
 * argument of kmem_diff_report__take().
 */
struct kmem_diff_side {
	struct kmem_diff_report	*dr;	/* NULL: only look, fill @saved */
	int			side;	/* KMEM_DIFF_OLD or KMEM_DIFF_NEW */
	int			err;	/* the first the diff returned */
	/* Of a saved report: what its document is; NULL for a live one. */
	struct kmem_saved_report *saved;
};

/*
 * A JSON visitor (json.h) that takes a side, @arg a struct kmem_diff_side:
 * a saved report (perf kmem stat --json) played to it by its reader is
 * taken as the report it was written from would be (a live run of
 * another machine, a recording analysed elsewhere).  The reader is the
 * caller's: the renderers read no input.
 */
void kmem_diff_report__take(void *arg, const char *path,
			    const struct kmem_json_value *v);

/*
 * Are the -s keys @sort (or NULL) ones the diff sorts the slab (@slab) or
 * page tables by?  Return: 0; -EINVAL with the first unknown key in @bad
 * and the keys it takes in @known; -E2BIG (more than KMEM_MAX_SORT_KEYS).
 */
int kmem_diff_report__check_sort(const struct kmem_sort_keys *sort, bool slab,
				 char *bad, size_t bad_size, char *known,
				 size_t known_size);

/*
 * Pair both sides and sort the tables by the -s keys of @o: the renderers
 * below take the finished diff and only read it.  Return: 0 or -ENOMEM.
 */
int kmem_diff_report__finish(struct kmem_diff_report *dr,
			     const struct kmem_diff_report_options *o);

/* The finished diff as text, to stdout, as @o says.  Return: 0 or -ENOMEM. */
int kmem_diff_report__text(const struct kmem_diff_report *dr,
			   const struct kmem_diff_report_options *o);

/*
 * The finished diff's tables as CSV (-x, @sep) to @fp: the tables of the
 * text, each with all its rows or -l, a block of print-csv.h's: the row's
 * side ("in"), its identity, and old, new, delta and delta percent of
 * each measure.  Return: 0; -errno when @fp could not be written; -ENOMEM.
 */
int kmem_diff_report__csv(const struct kmem_diff_report *dr,
			  const struct kmem_diff_report_options *o,
			  const char *sep, FILE *fp);

/*
 * The finished diff as one JSON document to @fp, as @o says.  Return: 0;
 * -errno when @fp could not be written; -ENOMEM.
 */
int kmem_diff_report__json(const struct kmem_diff_report *dr,
			   const struct kmem_diff_report_options *o, FILE *fp);

#endif /* __PERF_KMEM_PRINT_DIFF_H */
