// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/read-pageblock.c: random C expressions
 * and format files must never crash the evaluator, and every answer is an
 * order or an error with a reason.
 *
 * The first byte says which of the two the rest is, or that it is the
 * pageblock_order argument of an extfrag format: random bytes seldom make
 * a whole format file.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count-page.h"
#include "read-pageblock.h"

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-pageblock-fuzz: invariant broken: %s\n", what);
	abort();
}

static void expression(const char *text, size_t len, int long_size)
{
	char why[128] = "";
	long long value;
	int err;

	err = kmem_pageblock__eval(text, len, long_size, &value, why,
				   sizeof(why));
	check(err == 0 || err == -EINVAL, "0 or -EINVAL");
	check(!err || why[0], "a reason for an error");
}

static void format(const char *text, size_t len, int long_size)
{
	char why[128] = "";
	int order;

	order = kmem_pageblock__order_of_format(text, len, long_size, why,
						sizeof(why));
	check(order <= KMEM_PAGE_MAX_ORDER, "an order");
	check(order >= 0 || order == -EINVAL || order == -ENOENT ||
	      order == -ERANGE || order == -ENOMEM, "a known error");
	check(order >= 0 || order == -ENOMEM || why[0], "a reason for an error");
}

#define FORMAT_HEAD \
	"name: mm_page_alloc_extfrag\nID: 1\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n" \
	"print fmt: \"page=%p pfn=0x%lx pageblock_order=%d x=%d\", " \
	"(((struct page *)vmemmap_base) + (REC->pfn)), REC->pfn, "

/* @text as the argument of pageblock_order=%d in a format file. */
static void argument(const char *text, size_t len, int long_size)
{
	size_t head = strlen(FORMAT_HEAD);
	char *file = malloc(head + len + 16);

	if (!file)
		return;
	memcpy(file, FORMAT_HEAD, head);
	memcpy(file + head, text, len);
	memcpy(file + head + len, ", REC->pfn\n", 11);
	format(file, head + len + 11, long_size);
	free(file);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	/* A copy of its own size, so that reads past the end are caught. */
	char *text;
	int long_size;

	if (!size)
		return 0;
	long_size = data[0] & 4 ? 4 : 8;
	text = malloc(size - 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	switch (data[0] % 3) {
	case 0:
		expression(text, size - 1, long_size);
		break;
	case 1:
		format(text, size - 1, long_size);
		break;
	default:
		argument(text, size - 1, long_size);
		break;
	}
	free(text);
	return 0;
}
