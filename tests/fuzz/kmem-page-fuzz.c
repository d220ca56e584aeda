// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/count-page.c: random event streams, including
 * orders, migration types and nodes out of range, must never crash the
 * analysis, and what it reports must add up.
 *
 * Each event takes EVENT_BYTES bytes of input.  Pfns come from a small
 * range so that allocations and frees of one pfn meet often.
 */
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count-page.h"

#define EVENT_BYTES	8
#define NR_PFNS		64

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-page-fuzz: invariant broken: %s\n", what);
	abort();
}

static void decode(const u8 *b, struct kmem_page_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->pfn = b[1] == 0xff ? KMEM_PAGE_NO_PFN : b[1] % NR_PFNS;
	ev->order = (s8)b[2] % 40;	/* -39..39: both ends invalid */
	ev->migtype = (s8)b[3];
	ev->gfp = b[4];
	ev->callsite = b[5] % 8;
	ev->cpu_node = (s8)b[6] % 4;
	ev->page_node = (s8)b[7] % 4;
}

static u64 rows_hits(struct kmem_page *kp, enum kmem_page_table table)
{
	struct kmem_sort_key key = {
		.offset = offsetof(struct kmem_page_row, bytes),
		.descending = true,
	};
	struct kmem_page_row **rows;
	u64 sum = 0;
	size_t nr, i;

	rows = kmem_page__rows(kp, table, &key, 1, &nr);
	check(rows, "rows returned");
	for (i = 0; i < nr; i++) {
		check(rows[i]->hits >= rows[i]->freed + rows[i]->dropped,
		      "row frees within its hits");
		if (i)
			check(rows[i - 1]->bytes >= rows[i]->bytes,
			      "rows sorted by bytes");
		sum += rows[i]->hits;
	}
	return sum;
}

static void check_totals(struct kmem_page *kp, size_t nr_events)
{
	const struct kmem_page_summary *s = kmem_page__summary(kp);
	u64 grid = 0;
	int order, col;

	check(s->alloc.nr == s->life.freed.nr + s->life.live.nr +
			     s->life.dropped.nr, "allocations add up");
	check(s->alloc.bytes == s->life.freed.bytes + s->life.live.bytes +
				s->life.dropped.bytes, "allocated bytes add up");
	check(s->free.nr == s->life.freed.nr + s->free_only.nr,
	      "frees add up");
	check(s->alloc.nr + s->fail.nr + s->free.nr + s->bad_order == nr_events,
	      "every event counted once");
	for (order = 0; order < kmem_page__grid_orders(kp); order++)
		for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
			grid += kmem_page__grid(kp, order, col);
	check(grid == s->alloc.nr, "grid adds up to allocations");
	check(rows_hits(kp, KMEM_PAGE_TABLE_CALLER) == s->alloc.nr,
	      "caller rows add up to allocations");
	check(rows_hits(kp, KMEM_PAGE_TABLE_ALLOC) == s->alloc.nr,
	      "pfn rows add up to allocations");
	check(s->free_other_node.nr <= s->life.freed.nr,
	      "cross-node frees within matched frees");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kmem_page_config config = {
		.page_size = 4096,
		.want_alloc_table = true,
	};
	struct kmem_page_event ev;
	struct kmem_page *kp;
	size_t i, nr = size / EVENT_BYTES;

	if (!size)
		return 0;
	config.pre_v4_4_migtypes = data[0] & 1;
	config.nr_nodes = data[0] >> 5;	/* 0..7, node ids -3..3 */
	kp = kmem_page__new(&config);
	check(kp, "new");
	for (i = 0; i < nr; i++) {
		const u8 *b = data + i * EVENT_BYTES;
		int err;

		decode(b, &ev);
		if (b[0] & 1)
			err = kmem_page__alloc(kp, &ev, 0, false);
		else
			err = kmem_page__free(kp, &ev);
		check(err == 0, "every event is taken");
	}
	kmem_page__finish(kp);
	check_totals(kp, nr);
	kmem_page__delete(kp);
	return 0;
}
