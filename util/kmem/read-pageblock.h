/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_PAGEBLOCK_H
#define __PERF_KMEM_READ_PAGEBLOCK_H

/*
 * The recording kernel's pageblock_order, read from the print format of
 * kmem:mm_page_alloc_extfrag, which prints it as "pageblock_order=%d"
 * of whatever the kernel's preprocessor made of the macro: min(21 - 12,
 * 10) spelled out as casts and a conditional on x86-64, 10 without huge
 * pages, a product of shifts on arm64.  It is evaluated from the text of
 * the format, which perf keeps (trace_event__format()), as C would:
 * integer constants, casts to integer types, sizeof of one, unary,
 * binary, logical and conditional operators.  Anything else (a field, a
 * variable, a function) cannot be: the user then gives the order.
 * libtraceevent's parse of the format is no substitute: it reads
 * "9 * (4 - 2)" as 34, and cannot parse arm64's sizeof(struct page).
 */

#include <stddef.h>

/**
 * kmem_pageblock__order_of_format - pageblock_order from a format file
 * @text: the event's format file, as tracefs or a perf.data's tracing
 *	  data hold it: "name: ...", the fields, "print fmt: ..."
 * @len: the length of @text
 * @long_size: the recording kernel's sizeof(long), 4 or 8; 0: 8
 * @why: where a line saying why it cannot be evaluated is written
 * @why_size: the size of @why
 *
 * Return: the order, 0..KMEM_PAGE_MAX_ORDER; -ENOENT when the format
 * prints no pageblock_order, -EINVAL when it cannot be evaluated, -ERANGE
 * for a value no order can be, with @why saying which; -ENOMEM.
 */
int kmem_pageblock__order_of_format(const char *text, size_t len,
				    int long_size, char *why, size_t why_size);

/**
 * kmem_pageblock__eval - evaluate a C constant expression
 * @expr: the expression, e.g. "(((unsigned int)((21 - 12))) < ..."
 * @len: its length
 * @long_size: the recording kernel's sizeof(long); 0: 8
 * @value: where its value goes, converted to long long
 * @why: where a line saying why it cannot be evaluated is written
 * @why_size: the size of @why
 *
 * Return: 0, or -EINVAL.
 */
int kmem_pageblock__eval(const char *expr, size_t len, int long_size,
			 long long *value, char *why, size_t why_size);

#endif /* __PERF_KMEM_READ_PAGEBLOCK_H */
