/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_SORT_H
#define __PERF_KMEM_SORT_H

/* Sort keys of perf kmem's tables, shared by the page and slab analyses. */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct kmem_sort_name {
	const char	*name;
	int		key;
};

/*
 * Parse "order,hit" against @names into @keys; returns the number of keys,
 * or -EINVAL with the unknown (or one too many) key copied into @bad.
 */
int kmem_sort__parse(const char *str, const struct kmem_sort_name *names,
		     size_t nr_names, int *keys, int max_keys,
		     char *bad, size_t bad_size);

/*
 * How to order the rows of a table: by each key in turn, then by the
 * columns that make a row, so that a trace always prints the same.
 */
struct kmem_sort_spec {
	int		(*cmp_key)(const void *a, const void *b, int key);
	int		(*cmp_identity)(const void *a, const void *b);
	const int	*keys;
	int		nr_keys;
};

/* Sort an array of @nr pointers to rows. */
void kmem_sort__rows(void **rows, size_t nr, const struct kmem_sort_spec *spec);

/* Amounts sort largest first, identities smallest first. */
static inline int kmem_sort__cmp_u64(u64 a, u64 b, bool descending)
{
	if (a == b)
		return 0;
	return (a < b) != descending ? -1 : 1;
}

#endif /* __PERF_KMEM_SORT_H */
