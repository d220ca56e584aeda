/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_REPORT_H
#define __PERF_KMEM_REPORT_H

/*
 * perf kmem stat's results, filled in from the analyses of a trace
 * (util/kmem-run.c) and rendered either as text for people
 * (util/kmem-text.c) or as one JSON document for programs
 * (util/kmem-report.c): every number the text shows, as integers, with
 * the names beside the values.
 * Documentation/perf-kmem.schema.json describes the JSON; its "schema"
 * member is KMEM_REPORT_SCHEMA, raised when a member changes meaning or
 * goes.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "kmem-columns.h"
#include "kmem-json.h"
#include "kmem-rows.h"

#define KMEM_REPORT_SCHEMA	1

struct kmem_decoder;
struct kmem_page;
struct kmem_frag;
struct kmem_interval;
struct kmem_slab;

/* The -s keys of one analysis: their names and their comparators. */
struct kmem_report_sort {
	const char		*names;		/* "bytes,hit" */
	const kmem_rows_cmp_fn	*keys;
	int			nr_keys;
};

/* The trace, as the perf_data member says it. */
struct kmem_report_trace {
	const char	*path;
	const char	*os_release;	/* NULL: the header has none */
	const char	*hostname;
	const char	*arch;
	int		nr_cpus;
	const char	*time_window;	/* --time, or NULL */
	u64		nr_samples;
	u64		nr_page_events;
	u64		nr_slab_events;
	u64		nr_extfrag_events;
	u64		events_lost;
	u64		events_too_short;
	u64		events_out_of_order;
	bool		callsites_unresolved;	/* no kernel symbols at all */
	const char	*sampled;	/* "": every event recorded */
};

/* A number of where the report's numbers come from, for the JSON. */
struct kmem_report_value {
	const char	*key;
	u64		value;
};

/*
 * Where the numbers come from when they are not all a recording's, as
 * perf kmem stat -b counts in the kernel: its notes are printed before
 * the text, and the JSON has them in "source", with the paths of the
 * members that are estimates and the source's own numbers.
 */
struct kmem_report_source {
	const char			*name;		/* "bpf" */
	const char * const		*notes;		/* one line each */
	size_t				nr_notes;
	const char * const		*estimated;	/* "page.callers", ... */
	size_t				nr_estimated;
	const struct kmem_report_value	*values;
	size_t				nr_values;
	/* No slab object was paired with its free: no lifetimes, ping-pong. */
	bool				slab_unpaired;
};

struct kmem_report {
	struct kmem_report_trace	trace;
	/* NULL: a recording, every number counted from its events. */
	const struct kmem_report_source	*source;
	/* Names, page size and what the trace has. */
	const struct kmem_cell_ctx	*ctx;
	const struct kmem_decoder	*dec;
	struct kmem_page		*kp;	/* NULL: no page analysis */
	struct kmem_frag		*kf;	/* with kp */
	struct kmem_slab		*ks;	/* NULL: no slab analysis */
	const struct kmem_interval	*iv;	/* -I; NULL: none */
	bool				caller;	/* --caller tables */
	bool				alloc;	/* --alloc tables */
	int				lines;	/* rows a table has; -1 all */
	struct kmem_report_sort		page_sort;
	struct kmem_report_sort		slab_sort;
};

/**
 * kmem_report__prepare - settle the analyses before they are reported
 * @r: the report
 *
 * Finishes the analyses and gives each row of the page tables the
 * fragmenting fallbacks of its callsite (its Fragmenting column, -s frag).
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_report__prepare(const struct kmem_report *r);

/**
 * kmem_report__text - print the report as text, to stdout
 * @r: the report, prepared
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_report__text(const struct kmem_report *r);

/**
 * kmem_report__json - write the document
 * @r: what to write
 * @fp: where
 *
 * Return: 0; -EIO when @fp could not be written; -ENOMEM.
 */
int kmem_report__json(const struct kmem_report *r, FILE *fp);

/**
 * kmem_report__visit - walk the document without writing it
 * @r: what to walk
 * @fn: called with each scalar of the document and its path, in the order
 *	kmem_report__json() writes them
 * @arg: for @fn
 *
 * Return: 0; -EINVAL if the walk misused the JSON writer; -ENOMEM.
 */
int kmem_report__visit(const struct kmem_report *r, kmem_json_visit_fn fn,
		       void *arg);

#endif /* __PERF_KMEM_REPORT_H */
