/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_H
#define __PERF_KMEM_PRINT_H

/*
 * The renderers of a report (report.h): text for people, a JSON document
 * for programs.  Both only read the report.
 */

#include <stdio.h>

#include "json.h"

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

#endif /* __PERF_KMEM_PRINT_H */
