/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_PAGEBLOCK_H
#define __PERF_KMEM_READ_PAGEBLOCK_H

/*
 * The recording kernel's pageblock_order, read from the print format of
 * kmem:mm_page_alloc_extfrag, which prints it as "pageblock_order=%d".
 * The argument is whatever the kernel's preprocessor made of the macro:
 * min(21 - 12, 10) spelled out as casts and a conditional on x86-64,
 * MAX_PAGE_ORDER (10) without huge pages, on arm64 a product of shifts.
 *
 * It is evaluated as C would: integer constants, casts to integer types,
 * sizeof of one, unary, binary, comparison, logical and conditional
 * operators.  Anything else (a field of the record, a variable, a
 * function) cannot be evaluated: the caller then needs the order from the
 * user.
 *
 * Two ways in:
 * - from the format file's text, parsed here: always right.  A perf.data
 *   file holds the format files in its tracing data:
 *   kmem_pageblock__find_format() finds the one wanted there;
 * - from the tree libtraceevent parsed.  libtraceevent (1.7.1 at least)
 *   drops the parentheses around an operator's right operand when that
 *   binds less tightly: it reads "9 * (4 - 2)" as 9 * 4 - 2, the
 *   same mistake that makes it print fragmenting=10.  x86-64's formats
 *   come out right; arm64's (where pfn_to_page() has sizeof(struct page),
 *   which defeats libtraceevent, and pageblock_order a product) cannot be
 *   evaluated that way.  Use the text where there is one.
 */

#include <stddef.h>

struct tep_event;
struct tep_print_arg;

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
 * for a value no order can be; @why says which.
 */
int kmem_pageblock__order_of_format(const char *text, size_t len,
				    int long_size, char *why, size_t why_size);

/**
 * kmem_pageblock__order - pageblock_order from libtraceevent's parse
 * @event: kmem:mm_page_alloc_extfrag as libtraceevent parsed its format;
 *	   the size of long is its tep handle's
 * @why: where a line saying why it cannot be evaluated is written
 * @why_size: the size of @why
 *
 * Only as right as libtraceevent's parse: see above.
 *
 * Return: as kmem_pageblock__order_of_format(); also -EINVAL when
 * libtraceevent could not parse the print format.
 */
int kmem_pageblock__order(const struct tep_event *event, char *why,
			  size_t why_size);

/**
 * kmem_pageblock__find_format - an event's format file in tracing data
 * @data: the tracing data of a perf.data file (its HEADER_TRACING_DATA
 *	  section), as perf record writes it
 * @size: its size
 * @sys: the event's system, e.g. "kmem"
 * @name: the event's name, e.g. "mm_page_alloc_extfrag"
 * @text: where a pointer to the format file inside @data goes
 * @len: where its length goes
 * @long_size: where the recording kernel's sizeof(long) goes
 *
 * Return: 0; -ENOENT when the tracing data has no such event, -EINVAL
 * when it is not tracing data or is cut short.
 */
int kmem_pageblock__find_format(const void *data, size_t size, const char *sys,
				const char *name, const char **text,
				size_t *len, int *long_size);

/**
 * kmem_pageblock__arg_index - which argument a print format prints after
 *	"@name="
 * @format: the format string, without its quotes
 * @name: the name printed before the conversion, e.g. "pageblock_order"
 *
 * Counts the conversions before it, a '*' width or precision as one more.
 *
 * Return: the index of the argument, or -ENOENT.
 */
int kmem_pageblock__arg_index(const char *format, const char *name);

/**
 * kmem_pageblock__eval_text - evaluate a C constant expression
 * @expr: the expression, e.g. "(((unsigned int)((21 - 12))) < ..."
 * @len: its length
 * @long_size: the recording kernel's sizeof(long); 0: 8
 * @value: where its value goes, converted to long long
 * @why: where a line saying why it cannot be evaluated is written
 * @why_size: the size of @why
 *
 * Return: 0, or -EINVAL.
 */
int kmem_pageblock__eval_text(const char *expr, size_t len, int long_size,
			      long long *value, char *why, size_t why_size);

/**
 * kmem_pageblock__eval - evaluate a print argument libtraceevent parsed
 * @arg: the argument
 * @long_size: the recording kernel's sizeof(long); 0: 8
 * @value: where its value goes, converted to long long
 * @why: where a line saying why it cannot be evaluated is written
 * @why_size: the size of @why
 *
 * Return: 0, or -EINVAL.
 */
int kmem_pageblock__eval(const struct tep_print_arg *arg, int long_size,
			 long long *value, char *why, size_t why_size);

#endif /* __PERF_KMEM_READ_PAGEBLOCK_H */
