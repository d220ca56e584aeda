/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_H
#define __PERF_KMEM_PRINT_H

/*
 * The renderers of a report (report.h): text for people, a JSON document
 * for programs.  Both only read the report.
 */

#include <stdio.h>

#include "json.h"

struct kmem_interval;
struct kmem_report;

/**
 * kmem_report__text - print the report as text, to stdout
 * @r: the report
 */
void kmem_report__text(const struct kmem_report *r);

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

/**
 * kmem_print__interval_lines - -I rows as they close, as perf stat -I
 * @iv: the intervals of a live run, or NULL
 * @from: how many rows earlier calls printed
 *
 * A live run has no end to print its INTERVALS section at: each row is
 * one line when it closes, the first with a header, to stdout.
 *
 * Return: the rows printed so far, for the next call's @from.
 */
size_t kmem_print__interval_lines(const struct kmem_interval *iv, size_t from);

#endif /* __PERF_KMEM_PRINT_H */
