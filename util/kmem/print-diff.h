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

/* A diff of two reports; NULL: no memory. */
struct kmem_diff_report *kmem_diff_report__new(void);
void kmem_diff_report__delete(struct kmem_diff_report *dr);

/**
 * kmem_diff_report__add - take one trace's report
 * @dr: the diff
 * @side: KMEM_DIFF_OLD or KMEM_DIFF_NEW
 * @r: the report, with all the rows of its --caller tables
 *
 * Return: 0, -ENOMEM or -EINVAL (a document the diff cannot take).
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
	/* The analyses taken, the rest of the document left out; NULL: all. */
	const struct kmem_diff_report_options *o;
};

/**
 * kmem_diff_report__take - a JSON visitor (json.h) that takes a side
 * @arg: a struct kmem_diff_side
 * @path: the scalar's path in the document
 * @v: the scalar
 *
 * A saved report (perf kmem stat --json) played to it by its reader is
 * taken as the report it was written from would be: a live run of
 * another machine, a recording analysed elsewhere.  The reader is the
 * caller's: the renderers read no input.
 */
void kmem_diff_report__take(void *arg, const char *path,
			    const struct kmem_json_value *v);

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
				 char *bad, size_t bad_size, char *known,
				 size_t known_size);

/**
 * kmem_diff_report__finish - pair both sides and sort the tables, once
 * @dr: the diff, both sides added
 * @o: what is shown: the -s keys the tables sort by
 *
 * The renderers below take the finished diff and only read it.
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_diff_report__finish(struct kmem_diff_report *dr,
			     const struct kmem_diff_report_options *o);

/**
 * kmem_diff_report__text - the diff as text, to stdout
 * @dr: the diff, finished
 * @o: what to show
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_diff_report__text(const struct kmem_diff_report *dr,
			   const struct kmem_diff_report_options *o);

/**
 * kmem_diff_report__csv - the diff's tables as CSV (-x)
 * @dr: the diff, finished
 * @o: what to show: the tables of the text, each with all its rows or -l
 * @sep: the separator
 * @fp: where
 *
 * Each table is a block of print-csv.h's: the row's side ("in"), its
 * identity, and old, new, delta and delta percent of each measure.
 *
 * Return: 0; -EIO when @fp could not be written; -ENOMEM.
 */
int kmem_diff_report__csv(const struct kmem_diff_report *dr,
			  const struct kmem_diff_report_options *o,
			  const char *sep, FILE *fp);

/**
 * kmem_diff_report__json - the diff as one JSON document
 * @dr: the diff, finished
 * @o: what to show
 * @fp: where
 *
 * Return: 0; -EIO when @fp could not be written; -ENOMEM.
 */
int kmem_diff_report__json(const struct kmem_diff_report *dr,
			   const struct kmem_diff_report_options *o, FILE *fp);

#endif /* __PERF_KMEM_PRINT_DIFF_H */
