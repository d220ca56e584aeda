// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "kmem-sort.h"

static int key_by_name(const struct kmem_sort_name *names, size_t nr_names,
		       const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nr_names; i++)
		if (strlen(names[i].name) == len &&
		    !strncmp(names[i].name, name, len))
			return names[i].key;
	return -1;
}

int kmem_sort__parse(const char *str, const struct kmem_sort_name *names,
		     size_t nr_names, int *keys, int max_keys,
		     char *bad, size_t bad_size)
{
	int nr = 0;

	while (str && *str) {
		size_t len = strcspn(str, ",");
		int key = key_by_name(names, nr_names, str, len);

		if (key < 0 || nr == max_keys) {
			snprintf(bad, bad_size, "%.*s", (int)len, str);
			return -EINVAL;
		}
		keys[nr++] = key;
		str += len;
		if (*str == ',')
			str++;
	}
	return nr;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const void *a = *(void * const *)pa, *b = *(void * const *)pb;
	const struct kmem_sort_spec *spec = arg;
	int i, cmp;

	for (i = 0; i < spec->nr_keys; i++) {
		cmp = spec->cmp_key(a, b, spec->keys[i]);
		if (cmp)
			return cmp;
	}
	return spec->cmp_identity(a, b);
}

void kmem_sort__rows(void **rows, size_t nr, const struct kmem_sort_spec *spec)
{
	qsort_r(rows, nr, sizeof(*rows), cmp_rows, (void *)spec);
}
