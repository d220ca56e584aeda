/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_H
#define __PERF_KMEM_PRINT_H

/* The renderers of a report (report.h), who only read it. */

#include <stdio.h>

#include "json.h"

struct kmem_interval;
struct kmem_report;

/* The report as text, to stdout. */
void kmem_report__text(const struct kmem_report *r);

/* The JSON document, to @fp: 0; -errno; -ENOMEM. */
int kmem_report__json(const struct kmem_report *r, FILE *fp);

/*
 * The document's scalars and their paths to @fn, in the order
 * kmem_report__json() writes them: 0; -EINVAL if the walk misused the
 * JSON writer; -ENOMEM.
 */
int kmem_report__visit(const struct kmem_report *r, kmem_json_visit_fn fn,
		       void *arg);

/*
 * A live run's -I rows of @iv (or NULL) from @from on, a line each as
 * perf stat -I prints them, the first with a header: it has no end to
 * print its INTERVALS at.  Returns the rows printed, the next @from.
 */
size_t kmem_print__interval_lines(const struct kmem_interval *iv, size_t from);

#endif /* __PERF_KMEM_PRINT_H */
