// SPDX-License-Identifier: GPL-2.0
/* Unit tests of util/kmem-page.c: synthetic events with known answers. */
#include <linux/kernel.h>
#include "debug.h"
#include "tests.h"
#include "util/kmem-page.h"

static int test__kmem_page_match(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kmem_page_config config = { .page_size = 4096 };
	struct kmem_page *kp = kmem_page__new(&config);
	struct kmem_page_event ev = { .pfn = 1, .cpu_node = -1, .page_node = -1 };

	TEST_ASSERT_VAL("new", kp);
	TEST_ASSERT_VAL("alloc", !kmem_page__alloc(kp, &ev));
	TEST_ASSERT_VAL("free", !kmem_page__free(kp, &ev));
	kmem_page__finish(kp);
	TEST_ASSERT_VAL("matched", kmem_page__summary(kp)->alloc_freed.nr == 1);
	kmem_page__delete(kp);
	return TEST_OK;
}

static struct test_case kmem_page_tests[] = {
	TEST_CASE("alloc matched by free", kmem_page_match),
	{ .name = NULL, }
};

struct test_suite suite__kmem_page = {
	.desc = "perf kmem page allocator analysis",
	.test_cases = kmem_page_tests,
};
