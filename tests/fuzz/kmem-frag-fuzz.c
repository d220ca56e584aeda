// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/count-frag.c: random streams of fallbacks,
 * allocations and failures, with orders, migration types and flags out of
 * range, must never crash the analysis, and what it reports must add up.
 *
 * The first byte picks the configuration; then each event takes
 * EVENT_BYTES bytes.  Pfns come from a small range so that pageblocks get
 * many events, and the events of four threads interleave: what their
 * fallbacks owe their allocations must add up too, and every allocation
 * said to have fallen back goes in as a page that stays.
 */
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count-frag.h"

#define EVENT_BYTES	8
#define NR_PFNS		65536

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-frag-fuzz: invariant broken: %s\n", what);
	abort();
}

/* What the stream fed, counted here as the engine should take it. */
struct fed {
	size_t		fallbacks, allocs;
	u64	fallback_spans, alloc_spans;
	u64	owed;		/* fragmenting fallbacks allocations took */
	u64	pins;		/* pages fallen back, added as staying */
	u64	pin_bytes;
};

#define NR_THREADS	4

static int pageblock_orders[] = { KMEM_FRAG_ORDER_UNKNOWN, 0, 4, 9, 13, 40 };

static void config_of(u8 b, struct kmem_frag_config *config)
{
	memset(config, 0, sizeof(*config));
	config->page_size = b & 1 ? 65536 : 4096;
	config->pre_v4_4_migtypes = b & 2;
	config->no_pfns = (b & 0x1c) == 0x1c;
	config->pageblock_order = pageblock_orders[(b >> 5) % 6];
}

/* The pageblocks of a block of @order the engine should count, or 0. */
static u64 span(const struct kmem_frag_config *config, int order)
{
	int pbo = config->pageblock_order;

	if (pbo < 0 || pbo > KMEM_PAGE_MAX_ORDER || config->no_pfns)
		return 0;
	return order > pbo ? 1ULL << (order - pbo) : 1;
}

static void feed(struct kmem_frag *kf, const struct kmem_frag_config *config,
		 const u8 *b, struct fed *fed)
{
	u64 pfn = (b[1] | b[2] << 8) % NR_PFNS;
	int err;

	if (b[0] & 1) {
		struct kmem_frag_event ev = {
			.pfn = b[0] & 2 ? pfn : KMEM_PAGE_NO_PFN,
			.callsite = b[3] % 8,
			.alloc_order = (s8)b[4] % 36,
			.fallback_order = (s8)b[5] % 36,
			.alloc_migtype = (s8)b[6] >> 3,
			.fallback_migtype = (s8)(b[6] << 4) >> 4,
			.change_ownership = (s8)b[7] % 3,
		};

		u64 refused = kmem_frag__summary(kf)->bad_fallbacks;

		err = kmem_frag__fallback_thread(kf, &ev, 0, b[3] % NR_THREADS);
		check(err == 0, "fallbacks: taken or counted as refused");
		if (kmem_frag__summary(kf)->bad_fallbacks == refused) {
			fed->fallbacks++;
			fed->fallback_spans += span(config, ev.fallback_order);
		}
	} else {
		struct kmem_page_event ev = {
			.pfn = b[0] & 2 ? pfn : KMEM_PAGE_NO_PFN,
			.callsite = b[3] % 8,
			.order = (s8)b[4] % 36,
			.migtype = (s8)b[6] >> 2,
			.gfp = b[7],
		};

		u64 refused = kmem_frag__summary(kf)->bad_allocs;
		struct kmem_frag_owed owed;
		bool taken;

		kmem_frag__take_owed(kf, b[3] % NR_THREADS, &ev, &owed);
		fed->owed += owed.fragmenting;
		check(!owed.fell_back || (ev.pfn != KMEM_PAGE_NO_PFN &&
					  span(config, 0)),
		      "fallen back: a page, with pageblocks");
		if (owed.fell_back && ev.order >= 0 &&
		    ev.order <= KMEM_PAGE_MAX_ORDER) {
			check(!kmem_frag__add_pinning(kf, ev.pfn, ev.order,
						      ev.callsite, 1),
			      "pinning page added");
			fed->pins++;
			fed->pin_bytes += config->page_size << ev.order;
		}
		err = kmem_frag__alloc(kf, &ev);
		check(err == 0, "allocations: taken or counted as refused");
		taken = kmem_frag__summary(kf)->bad_allocs == refused;
		check(!taken || (ev.order >= 0 && ev.order <= KMEM_PAGE_MAX_ORDER),
		      "orders out of range refused");
		if (taken) {
			fed->allocs++;
			if (ev.pfn != KMEM_PAGE_NO_PFN)
				fed->alloc_spans += span(config, ev.order);
		}
	}
}

static const struct kmem_sort_key by_fragmenting = {
	.offset = offsetof(struct kmem_frag_row, fragmenting),
	.descending = true,
};

static const struct kmem_sort_key by_failures = {
	.offset = offsetof(struct kmem_frag_fail_row, asked.nr),
	.descending = true,
};

static void check_rows(struct kmem_frag *kf, const struct kmem_frag_summary *s)
{
	u64 hits = 0, classes[KMEM_FRAG_NR_CLASSES] = { 0 }, frag = 0;
	struct kmem_frag_row **rows;
	struct kmem_frag_fail_row **fails;
	struct kmem_count failed = { 0 };
	size_t nr, i;
	int c;

	rows = kmem_frag__rows(kf, &by_fragmenting, 1, &nr);
	check(rows || !nr, "rows returned");
	for (i = 0; i < nr; i++) {
		hits += rows[i]->fallbacks.nr;
		for (c = 0; c < KMEM_FRAG_NR_CLASSES; c++)
			classes[c] += rows[i]->classes[c];
		check(rows[i]->severe <= rows[i]->fallbacks.nr, "row severe");
		if (i)
			check(rows[i - 1]->fragmenting >= rows[i]->fragmenting,
			      "rows sorted by fragmenting");
	}
	check(hits == s->fallbacks.nr, "rows add up to fallbacks");
	for (c = 0; c < KMEM_FRAG_NR_CLASSES; c++)
		check(classes[c] == s->classes[c].nr, "rows add up to classes");
	for (i = 0; i < 8; i++)
		frag += kmem_frag__callsite_fragmenting(kf, i);
	check(frag == s->classes[KMEM_FRAG_CONVERTED].nr +
		      s->classes[KMEM_FRAG_POLLUTED].nr,
	      "callsites add up to fragmenting");

	fails = kmem_frag__fail_rows(kf, &by_failures, 1, &nr);
	check(fails || !nr, "failure rows returned");
	for (i = 0; i < nr; i++) {
		failed.nr += fails[i]->asked.nr;
		failed.bytes += fails[i]->asked.bytes;
		if (i)
			check(fails[i - 1]->asked.nr >= fails[i]->asked.nr,
			      "failures sorted by count");
	}
	check(failed.nr == s->fail.nr && failed.bytes == s->fail.bytes,
	      "failure rows add up");
}

static void check_totals(struct kmem_frag *kf, const struct fed *fed)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	struct kmem_count classes = { 0 };
	u64 cells = 0, allocs = s->fail.nr;
	int r, c;

	check(s->fallbacks.nr == fed->fallbacks, "every good fallback counted");
	for (c = 0; c < KMEM_FRAG_NR_CLASSES; c++) {
		classes.nr += s->classes[c].nr;
		classes.bytes += s->classes[c].bytes;
	}
	if (kmem_frag__has_classes(kf))
		check(classes.nr == s->fallbacks.nr &&
		      classes.bytes == s->fallbacks.bytes,
		      "classes add up to fallbacks");
	else
		check(!classes.nr && !classes.bytes, "no classes without an order");
	check(s->severe.nr <= s->fallbacks.nr &&
	      s->severe.bytes <= s->fallbacks.bytes, "severe within fallbacks");
	for (r = 0; r < KMEM_NR_MIGTYPE_COLUMNS; r++) {
		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++) {
			const struct kmem_frag_cell *cell = kmem_frag__cell(kf, r, c);
			u64 sum = cell->classes[0] + cell->classes[1] +
				       cell->classes[2];

			cells += cell->fallbacks;
			check(sum == (kmem_frag__has_classes(kf) ?
				      cell->fallbacks : 0), "cell classes add up");
		}
	}
	check(cells == s->fallbacks.nr, "cells add up to fallbacks");
	for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
		allocs += s->alloc[c].nr;
	check(allocs == fed->allocs, "every good allocation counted");
	check_rows(kf, s);
}

static void check_pageblocks(struct kmem_frag *kf,
			     const struct kmem_frag_config *config,
			     const struct fed *fed)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	const struct kmem_frag_blocks *b = &s->blocks;
	const struct kmem_frag_pageblock *pb;
	u64 allocs = 0, fallbacks = 0;
	size_t nr, i;
	int c;

	pb = kmem_frag__pageblocks(kf, &nr);
	check(pb || !nr, "pageblocks returned");
	for (i = 0; i < nr; i++) {
		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
			allocs += pb[i].allocs[c];
		for (c = 0; c < KMEM_FRAG_NR_CLASSES; c++)
			fallbacks += pb[i].fallbacks[c];
		check(!(pb[i].pfn & ((1ULL << config->pageblock_order) - 1)),
		      "pageblocks start aligned");
		if (i)
			check(pb[i - 1].pfn < pb[i].pfn, "pageblocks in pfn order");
	}
	check(allocs == fed->alloc_spans, "pageblocks add up to allocations");
	check(fallbacks == fed->fallback_spans, "pageblocks add up to fallbacks");
	check(b->allocated + b->fallback_only == nr, "pageblocks counted once");
	check(b->mixed <= b->allocated &&
	      b->unmovable_or_reclaimable <= b->allocated, "mixed within allocated");
	for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++)
		check(b->by_column[c] <= b->allocated, "columns within allocated");
}

/* The pages that stay: each added once, in at most as many pageblocks. */
static void check_pinned(struct kmem_frag *kf, const struct fed *fed)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	const struct kmem_frag_pageblock *pb;
	struct kmem_frag_pin_row **rows;
	u64 pages = 0, blocks = 0, in_blocks = 0;
	size_t nr, i;

	check(fed->owed <= s->fragmenting.nr, "owed at most the fragmenting");
	check(s->pinned.pages.nr == fed->pins &&
	      s->pinned.pages.bytes == fed->pin_bytes, "every pin counted");
	rows = kmem_frag__pin_rows(kf, NULL, 0, &nr);
	check(rows || !nr, "pin rows returned");
	for (i = 0; i < nr; i++) {
		check(rows[i]->pageblocks && rows[i]->pageblocks <=
		      rows[i]->pages.nr, "a row's pageblocks within its pages");
		pages += rows[i]->pages.nr;
		blocks += rows[i]->pageblocks;
	}
	check(pages == fed->pins, "pin rows add up to the pins");
	check(s->pinned.pageblocks <= blocks, "pinned within the rows'");
	pb = kmem_frag__pageblocks(kf, &nr);
	for (i = 0; i < nr; i++)
		in_blocks += pb[i].pinning;
	check(in_blocks <= fed->pins, "pageblocks' pins within the pins");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kmem_frag_config config;
	struct fed fed = { 0 };
	struct kmem_frag *kf;
	size_t i, nr;

	if (!size)
		return 0;
	config_of(data[0], &config);
	kf = kmem_frag__new(&config);
	check(kf, "new");
	nr = (size - 1) / EVENT_BYTES;
	for (i = 0; i < nr; i++)
		feed(kf, &config, data + 1 + i * EVENT_BYTES, &fed);
	check(kmem_frag__finish(kf) == 0, "finish");
	check_totals(kf, &fed);
	check_pageblocks(kf, &config, &fed);
	check_pinned(kf, &fed);
	kmem_frag__delete(kf);
	return 0;
}
