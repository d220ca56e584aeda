// SPDX-License-Identifier: GPL-2.0
/* Unit tests of util/kmem/count-slab.c: synthetic events with known answers. */
#include <errno.h>
#include <string.h>
#include <linux/kernel.h>
#include "debug.h"
#include "tests.h"
#include "util/kmem/count-slab.h"
#include "util/kmem/report.h"

static const struct kmem_sort_key by_callsite = {
	.offset = offsetof(struct kmem_slab_row, callsite),
};

#define CALLER_A	0xffffffff81000100ULL
#define CALLER_B	0xffffffff81000200ULL
#define CALLER_C	0xffffffff81000300ULL

static const struct kmem_slab_config all_tables = {
	.want_alloc_table = true,
};

static int alloc_on(struct kmem_slab *ks, u64 callsite, u64 ptr, u64 req,
		    u64 alloc, int cpu)
{
	struct kmem_slab_alloc_event ev = {
		.callsite = callsite,
		.ptr = ptr,
		.bytes_req = req,
		.bytes_alloc = alloc,
		.cpu = cpu,
		.cpu_node = -1,
		.node = -1,
	};

	return kmem_slab__alloc(ks, &ev);
}

static int free_on(struct kmem_slab *ks, u64 ptr, int cpu)
{
	struct kmem_slab_free_event ev = { .ptr = ptr, .cpu = cpu };

	return kmem_slab__free(ks, &ev);
}

static int test__kmem_slab_frag(struct test_suite *t __maybe_unused,
				int subtest __maybe_unused)
{
	struct kmem_slab *ks = kmem_slab__new(&all_tables);
	const struct kmem_slab_summary *s;
	double frag;

	TEST_ASSERT_VAL("new", ks);
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x1000, 24, 32, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x2000, 40, 64, 0));
	TEST_ASSERT_VAL("free", !free_on(ks, 0x1000, 0));
	kmem_slab__finish(ks);
	s = kmem_slab__summary(ks);
	TEST_ASSERT_VAL("allocs", s->alloc.nr == 2 && s->alloc.bytes == 96);
	TEST_ASSERT_VAL("requested", s->bytes_req == 64);
	TEST_ASSERT_VAL("freed", s->life.freed.nr == 1 &&
			s->life.freed.bytes == 32);
	TEST_ASSERT_VAL("live", s->life.live.nr == 1 &&
			s->life.live.bytes == 64);
	/* 32 of 96 bytes wasted: a third. */
	frag = kmem_sort__waste(s->bytes_req, s->alloc.bytes);
	TEST_ASSERT_VAL("frag", frag > 33.333 && frag < 33.334);
	TEST_ASSERT_VAL("frag of nothing", kmem_sort__waste(0, 0) == 0.0);
	kmem_slab__delete(ks);
	return TEST_OK;
}

static int test__kmem_slab_double_free(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	struct kmem_slab *ks = kmem_slab__new(&all_tables);
	const struct kmem_slab_summary *s;

	TEST_ASSERT_VAL("new", ks);
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x1000, 8, 8, 0));
	TEST_ASSERT_VAL("free", !free_on(ks, 0x1000, 0));
	TEST_ASSERT_VAL("free again", !free_on(ks, 0x1000, 0));
	TEST_ASSERT_VAL("free 3rd time", !free_on(ks, 0x1000, 0));
	/* Allocated again and freed: a normal lifetime, not a double free. */
	TEST_ASSERT_VAL("realloc", !alloc_on(ks, CALLER_A, 0x1000, 8, 8, 0));
	TEST_ASSERT_VAL("free", !free_on(ks, 0x1000, 0));
	kmem_slab__finish(ks);
	s = kmem_slab__summary(ks);
	TEST_ASSERT_VAL("frees", s->free == 4);
	TEST_ASSERT_VAL("repeated", s->free_again == 2);
	TEST_ASSERT_VAL("unknown", s->free_unknown == 0);
	/* Repeated frees do not count bytes again. */
	TEST_ASSERT_VAL("freed", s->life.freed.nr == 2 &&
			s->life.freed.bytes == 16);
	TEST_ASSERT_VAL("live", s->life.live.nr == 0);
	kmem_slab__delete(ks);
	return TEST_OK;
}

static int test__kmem_slab_unknown_free(struct test_suite *t __maybe_unused,
					int subtest __maybe_unused)
{
	struct kmem_slab *ks = kmem_slab__new(&all_tables);
	const struct kmem_slab_summary *s;

	TEST_ASSERT_VAL("new", ks);
	TEST_ASSERT_VAL("free", !free_on(ks, 0x5000, 1));
	TEST_ASSERT_VAL("free again", !free_on(ks, 0x5000, 1));
	TEST_ASSERT_VAL("kfree(NULL)", !free_on(ks, 0, 1));
	TEST_ASSERT_VAL("kfree(ZERO_SIZE_PTR)", !free_on(ks, 16, 1));
	TEST_ASSERT_VAL("failure", !alloc_on(ks, CALLER_A, 0, 100, 128, 0));
	TEST_ASSERT_VAL("kmalloc(0)", !alloc_on(ks, CALLER_A, 16, 0, 0, 0));
	/* Allocated twice with no free between: the first one is dropped. */
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x6000, 8, 16, 0));
	TEST_ASSERT_VAL("alloc again", !alloc_on(ks, CALLER_A, 0x6000, 8, 8, 0));
	kmem_slab__finish(ks);
	s = kmem_slab__summary(ks);
	TEST_ASSERT_VAL("frees", s->free == 4);
	TEST_ASSERT_VAL("unknown", s->free_unknown == 1);
	TEST_ASSERT_VAL("repeated", s->free_again == 1);
	TEST_ASSERT_VAL("null", s->free_null == 2);
	TEST_ASSERT_VAL("freed", s->life.freed.nr == 0);
	TEST_ASSERT_VAL("fail", s->fail.nr == 1 && s->fail.bytes == 100);
	TEST_ASSERT_VAL("zero size", s->zero_size.nr == 1);
	TEST_ASSERT_VAL("allocs", s->alloc.nr == 2 && s->alloc.bytes == 24);
	TEST_ASSERT_VAL("dropped", s->life.dropped.nr == 1 &&
			s->life.dropped.bytes == 16);
	TEST_ASSERT_VAL("live", s->life.live.nr == 1 &&
			s->life.live.bytes == 8);
	kmem_slab__delete(ks);
	return TEST_OK;
}

static int test__kmem_slab_pingpong(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	struct kmem_slab *ks = kmem_slab__new(&all_tables);
	const struct kmem_slab_summary *s;
	struct kmem_slab_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("new", ks);
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x1000, 8, 8, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x2000, 8, 8, 1));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_B, 0x3000, 8, 32, 1));
	TEST_ASSERT_VAL("free elsewhere", !free_on(ks, 0x1000, 1));
	TEST_ASSERT_VAL("free here", !free_on(ks, 0x2000, 1));
	TEST_ASSERT_VAL("free elsewhere", !free_on(ks, 0x3000, 0));
	kmem_slab__finish(ks);
	s = kmem_slab__summary(ks);
	TEST_ASSERT_VAL("pingpong", s->pingpong.nr == 2 &&
			s->pingpong.bytes == 40);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CALLER, &by_callsite, 1, &nr);
	TEST_ASSERT_VAL("rows", rows && nr == 2);
	TEST_ASSERT_VAL("row A", rows[0]->callsite == CALLER_A &&
			rows[0]->hits == 2 && rows[0]->freed == 2 &&
			rows[0]->pingpong == 1);
	TEST_ASSERT_VAL("row B", rows[1]->callsite == CALLER_B &&
			rows[1]->pingpong == 1);
	kmem_slab__delete(ks);
	return TEST_OK;
}

static int test__kmem_slab_cross_node(struct test_suite *t __maybe_unused,
				      int subtest __maybe_unused)
{
	struct kmem_slab *ks = kmem_slab__new(&all_tables);
	struct kmem_slab_alloc_event ev = {
		.callsite = CALLER_A, .bytes_req = 8, .bytes_alloc = 8,
	};
	const struct kmem_slab_summary *s;
	struct kmem_slab_row **rows;
	size_t nr;

	TEST_ASSERT_VAL("new", ks);
	/* Asked for node 1 from a CPU of node 0: cross-node. */
	ev.ptr = 0x1000, ev.cpu_node = 0, ev.node = 1;
	TEST_ASSERT_VAL("alloc", !kmem_slab__alloc(ks, &ev));
	/* Its own node, any node, or a CPU of unknown node: not. */
	ev.ptr = 0x2000, ev.cpu_node = 1, ev.node = 1;
	TEST_ASSERT_VAL("alloc", !kmem_slab__alloc(ks, &ev));
	ev.ptr = 0x3000, ev.cpu_node = 1, ev.node = -1;
	TEST_ASSERT_VAL("alloc", !kmem_slab__alloc(ks, &ev));
	ev.ptr = 0x4000, ev.cpu_node = -1, ev.node = 0;
	TEST_ASSERT_VAL("alloc", !kmem_slab__alloc(ks, &ev));
	s = kmem_slab__summary(ks);
	TEST_ASSERT_VAL("xnode", s->xnode.nr == 1 && s->xnode.bytes == 8);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CALLER, NULL, 0, &nr);
	TEST_ASSERT_VAL("row", rows && nr == 1 && rows[0]->xnode == 1);
	kmem_slab__delete(ks);
	return TEST_OK;
}

static int add_cache_alloc(struct kmem_slab *ks, const char *cache, u64 ptr,
			   u64 req, u64 alloc)
{
	struct kmem_slab_alloc_event ev = {
		.callsite = CALLER_C, .ptr = ptr, .bytes_req = req,
		.bytes_alloc = alloc, .cpu_node = -1, .node = -1,
	};
	/* Names outlive the analysis: perf kmem's decoder owns them. */
	ev.cache = cache;
	return kmem_slab__alloc(ks, &ev);
}

static int slab_parse(const char *str, struct kmem_sort_key *keys, char *bad)
{
	struct kmem_sort_keys given;

	kmem_sort_keys__split(&given, str);
	return kmem_table__parse_sort(&kmem_tables[KMEM_SLAB_CALLERS], &given,
				      keys, bad, 16);
}

static int test__kmem_slab_sorting(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_slab *ks = kmem_slab__new(&all_tables);
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	struct kmem_slab_row **rows;
	char bad[16];
	size_t nr;
	int n;

	TEST_ASSERT_VAL("new", ks);
	/* A: 2 hits, 64 bytes, 50% wasted.  B: 3 hits, 48 bytes, 0%. */
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x1000, 16, 32, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A, 0x2000, 16, 32, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_B, 0x3000, 16, 16, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_B, 0x4000, 16, 16, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_B, 0x5000, 16, 16, 0));
	/* C, a cache: 1 hit, 100 bytes, 10% wasted. */
	TEST_ASSERT_VAL("alloc", !add_cache_alloc(ks, "dentry", 0x6000, 90, 100));

	n = slab_parse("frag,hit,bytes", keys, bad);
	TEST_ASSERT_VAL("parse", n == 3);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CALLER, keys, n, &nr);
	TEST_ASSERT_VAL("frag order", rows && nr == 3 &&
			rows[0]->callsite == CALLER_A &&
			rows[1]->callsite == CALLER_C &&
			rows[2]->callsite == CALLER_B);

	n = slab_parse("hit", keys, bad);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CALLER, keys, n, &nr);
	TEST_ASSERT_VAL("hit order", rows && rows[0]->callsite == CALLER_B &&
			rows[1]->callsite == CALLER_A);

	n = slab_parse("bytes", keys, bad);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CALLER, keys, n, &nr);
	TEST_ASSERT_VAL("bytes order", rows && rows[0]->callsite == CALLER_C &&
			rows[1]->callsite == CALLER_A);

	n = slab_parse("ptr", keys, bad);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_ALLOC, keys, n, &nr);
	TEST_ASSERT_VAL("ptr order", rows && nr == 6 &&
			rows[0]->ptr == 0x1000 && rows[5]->ptr == 0x6000);

	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CACHE, keys, n, &nr);
	TEST_ASSERT_VAL("cache rows", rows && nr == 1 &&
			!strcmp(rows[0]->cache, "dentry") &&
			rows[0]->bytes_req == 90);

	n = slab_parse("hit,nonsense", keys, bad);
	TEST_ASSERT_VAL("bad key", n == -EINVAL && !strcmp(bad, "nonsense"));
	kmem_slab__delete(ks);
	return TEST_OK;
}

/* Call_sites are return addresses; their function starts at 0x...00. */
static u64 function_of(u64 call_site, void *arg)
{
	(*(int *)arg)++;
	return call_site & ~0xffULL;
}

static int slab_cache_alloc(struct kmem_slab *ks, u64 call_site, u64 ptr,
			    const char *cache, u64 req, u64 alloc)
{
	struct kmem_slab_alloc_event ev = {
		.callsite = call_site, .ptr = ptr, .bytes_req = req,
		.bytes_alloc = alloc, .cache = cache, .cpu_node = -1,
		.node = -1,
	};

	return kmem_slab__alloc(ks, &ev);
}

static int check_functions(struct kmem_slab *ks, const int *calls)
{
	struct kmem_slab_row **rows;
	size_t nr;

	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CALLER, &by_callsite, 1, &nr);
	TEST_ASSERT_VAL("one row a function", rows && nr == 2);
	TEST_ASSERT_VAL("A", rows[0]->callsite == CALLER_A &&
			rows[0]->hits == 5 && rows[0]->bytes_alloc == 72 &&
			rows[0]->bytes_req == 64 && rows[0]->freed == 2 &&
			rows[0]->pingpong == 1);
	TEST_ASSERT_VAL("B", rows[1]->callsite == CALLER_B &&
			rows[1]->hits == 1 && rows[1]->bytes_alloc == 32);
	/* Resolved when the rows were added up, not at each event. */
	TEST_ASSERT_VAL("calls", *calls == 10);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_CACHE, NULL, 0, &nr);
	TEST_ASSERT_VAL("cache", rows && nr == 1 && rows[0]->hits == 2 &&
			rows[0]->bytes_alloc == 64 && rows[0]->bytes_req == 56);
	rows = kmem_slab__rows(ks, KMEM_SLAB_TABLE_ALLOC, NULL, 0, &nr);
	TEST_ASSERT_VAL("objects", rows && nr == 5);
	/* By callsite, then pointer: 0x1000 of A from both call_sites. */
	TEST_ASSERT_VAL("0x1000", rows[0]->ptr == 0x1000 &&
			rows[0]->callsite == CALLER_A && rows[0]->hits == 2 &&
			rows[0]->bytes_alloc == 16 && rows[0]->freed == 1);
	TEST_ASSERT_VAL("0x3000", rows[2]->ptr == 0x3000 &&
			rows[2]->pingpong == 1);
	return TEST_OK;
}

static int test__kmem_slab_functions(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	int calls = 0;
	struct kmem_slab_config config = {
		.want_alloc_table = true,
		.callsite = function_of,
		.callsite_arg = &calls,
	};
	struct kmem_slab *ks = kmem_slab__new(&config);
	int ret;

	TEST_ASSERT_VAL("new", ks);
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A + 0x10, 0x1000, 8, 8, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A + 0x20, 0x2000, 16, 16, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A + 0x10, 0x3000, 8, 8, 0));
	TEST_ASSERT_VAL("free", !free_on(ks, 0x3000, 1));
	TEST_ASSERT_VAL("free", !free_on(ks, 0x1000, 0));
	TEST_ASSERT_VAL("alloc", !alloc_on(ks, CALLER_A + 0x20, 0x1000, 8, 8, 0));
	TEST_ASSERT_VAL("alloc", !slab_cache_alloc(ks, CALLER_B + 0x30, 0x4000,
						   "dentry", 32, 32));
	TEST_ASSERT_VAL("alloc", !slab_cache_alloc(ks, CALLER_A + 0x20, 0x5000,
						   "dentry", 24, 32));
	TEST_ASSERT_VAL("no call yet", calls == 0);
	ret = check_functions(ks, &calls);
	kmem_slab__delete(ks);
	return ret;
}

static struct test_case kmem_slab_tests[] = {
	TEST_CASE("kmem slab: internal fragmentation", kmem_slab_frag),
	TEST_CASE("kmem slab: repeated frees", kmem_slab_double_free),
	TEST_CASE("kmem slab: frees of unknown pointers", kmem_slab_unknown_free),
	TEST_CASE("kmem slab: ping-pong frees", kmem_slab_pingpong),
	TEST_CASE("kmem slab: cross-node allocations", kmem_slab_cross_node),
	TEST_CASE("kmem slab: sorting", kmem_slab_sorting),
	TEST_CASE("kmem slab: call_sites counted by their function",
		  kmem_slab_functions),
	{ .name = NULL, }
};

struct test_suite suite__kmem_slab = {
	.desc = "perf kmem slab allocator analysis",
	.test_cases = kmem_slab_tests,
};
