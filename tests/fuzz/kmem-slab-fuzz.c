// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/count-slab.c: random streams of allocations and
 * frees, with NULL, ZERO_SIZE_PTR, repeated and unknown pointers, must
 * never crash the slab analysis, and what it reports must add up.
 *
 * Each event takes EVENT_BYTES bytes of input.  Pointers come from a small
 * range so that allocations and frees of one object meet often.
 */
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count-slab.h"

#define EVENT_BYTES	8
#define NR_PTRS		48

static const char * const caches[] = { NULL, "filp", "dentry", "kmalloc-64" };

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-slab-fuzz: invariant broken: %s\n", what);
	abort();
}

/* Pointers 0..16 are NULL and ZERO_SIZE_PTR; real objects lie above. */
static u64 decode_ptr(u8 b)
{
	b %= NR_PTRS;
	return b < 4 ? b * 8 : 0x1000 + b * 64;
}

static void decode_alloc(const u8 *b, struct kmem_slab_alloc_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ptr = decode_ptr(b[1]);
	ev->callsite = 0x100 + b[2] % 8;
	ev->bytes_req = b[3];
	ev->bytes_alloc = b[3] + b[4] % 64;
	ev->cache = caches[b[5] % 4];
	ev->cpu = b[6] % 4;
	ev->cpu_node = (s8)b[7] % 3;
	ev->node = (s8)b[7] / 64;
}

static void decode_free(const u8 *b, struct kmem_slab_free_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ptr = decode_ptr(b[1]);
	ev->cpu = b[6] % 4;
}

static u64 rows_hits(struct kmem_slab *ks, enum kmem_slab_table table)
{
	struct kmem_sort_key key = {
		.offset = offsetof(struct kmem_slab_row, bytes_req),
		.offset2 = offsetof(struct kmem_slab_row, bytes_alloc),
		.kind = KMEM_SORT_WASTE,
		.descending = true,
	};
	struct kmem_slab_row **rows;
	u64 sum = 0;
	size_t nr, i;

	rows = kmem_slab__rows(ks, table, &key, 1, &nr);
	check(rows, "rows returned");
	for (i = 0; i < nr; i++) {
		check(rows[i]->freed <= rows[i]->hits, "row frees within its hits");
		check(rows[i]->pingpong <= rows[i]->freed,
		      "row ping-pong within its frees");
		sum += rows[i]->hits;
	}
	return sum;
}

static void check_totals(struct kmem_slab *ks, size_t nr_allocs,
			 size_t nr_frees)
{
	const struct kmem_slab_summary *s = kmem_slab__summary(ks);

	check(s->alloc.nr + s->fail.nr + s->zero_size.nr == nr_allocs,
	      "every allocation counted once");
	check(s->free == nr_frees, "every free counted");
	check(s->alloc.nr == s->life.freed.nr + s->life.live.nr +
			     s->life.dropped.nr, "allocations add up");
	check(s->free == s->life.freed.nr + s->free_null + s->free_unknown +
			 s->free_again, "frees add up");
	check(s->pingpong.nr <= s->life.freed.nr,
	      "ping-pong within matched frees");
	check(s->xnode.nr <= s->alloc.nr, "cross-node within allocations");
	check(rows_hits(ks, KMEM_SLAB_TABLE_CALLER) == s->alloc.nr,
	      "caller rows add up to allocations");
	check(rows_hits(ks, KMEM_SLAB_TABLE_ALLOC) == s->alloc.nr,
	      "object rows add up to allocations");
	check(rows_hits(ks, KMEM_SLAB_TABLE_CACHE) <= s->alloc.nr,
	      "cache rows within allocations");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kmem_slab_config config = {
		.want_alloc_table = true,
	};
	struct kmem_slab_alloc_event alloc;
	struct kmem_slab_free_event free_ev;
	size_t i, nr = size / EVENT_BYTES, nr_allocs = 0, nr_frees = 0;
	struct kmem_slab *ks = kmem_slab__new(&config);

	check(ks, "new");
	for (i = 0; i < nr; i++) {
		const u8 *b = data + i * EVENT_BYTES;

		if (b[0] & 1) {
			decode_alloc(b, &alloc);
			check(!kmem_slab__alloc(ks, &alloc), "alloc accepted");
			nr_allocs++;
		} else {
			decode_free(b, &free_ev);
			check(!kmem_slab__free(ks, &free_ev), "free accepted");
			nr_frees++;
		}
	}
	kmem_slab__finish(ks);
	check_totals(ks, nr_allocs, nr_frees);
	kmem_slab__delete(ks);
	return 0;
}
