// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem stat's results as text, for people: the tables, the summaries,
 * the grid, the fragmentation and cross-node sections, in the layout of
 * kmem-print.h.  The same report as kmem_report__json() writes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "debug.h"
#include "kmem-decode.h"
#include "kmem-frag.h"
#include "kmem-interval.h"
#include "kmem-page.h"
#include "kmem-print.h"
#include "kmem-report.h"
#include "kmem-slab.h"

/* Thousands separators whatever the locale: "12,345,678". */
#define COMMAS(v) kmem_commas((v), (char [32]) { 0 }, 32)

/* Rows of the callsite table shown when no table was asked for. */
#define DEFAULT_TABLE_LINES	20

/* What a damaged or incomplete trace kept from both analyses. */
static void print_lost_events(const struct kmem_report *r)
{
	u64 late = r->trace.events_out_of_order;

	if (r->trace.events_too_short)
		kmem_print__plain("Events ignored (too short):",
				  r->trace.events_too_short);
	if (late) {
		kmem_print__plain("Events out of time order:", late);
		printf(" They came after later events were counted: a larger kmem.queue-size helps.\n");
	}
	if (!r->trace.events_lost)
		return;
	kmem_print__plain("Events lost while recording:", r->trace.events_lost);
	printf(" Totals are approximate: record with a larger -m.\n");
}

static bool sampled(const struct kmem_report *r)
{
	return kmem_decoder__info(r->dec)->sampled[0];
}

static void print_page_summary(const struct kmem_report *r)
{
	const struct kmem_page_summary *s = kmem_page__summary(r->kp);
	struct kmem_count alloc_only = kmem_lifetime__unfreed(&s->life);

	printf("\n SUMMARY (page allocator)\n ========================\n\n");
	/* Of sampled events, allocations and frees cannot be paired. */
	if (!sampled(r)) {
		kmem_print__count("Pages allocated+freed:", &s->life.freed);
		printf("\n");
		kmem_print__count("Pages allocated-only:", &alloc_only);
		kmem_print__count("  still allocated at the end:", &s->life.live);
		kmem_print__count("  allocated again, free not seen:",
				  &s->life.dropped);
		kmem_print__count("Pages freed-only:", &s->free_only);
		printf("\n");
	}
	kmem_print__count("Page allocation failures:", &s->fail);
	printf("\n");
	kmem_print__count("Total allocations:", &s->alloc);
	kmem_print__count("Total frees:", &s->free);
	if (s->free_order_differs)
		kmem_print__plain("Frees of another order:",
				  s->free_order_differs);
	if (s->bad_migtype)
		kmem_print__plain("Unknown migration types (Special):",
				  s->bad_migtype);
	if (s->bad_order)
		kmem_print__plain("Events ignored (bad order):",
				  s->bad_order);
	print_lost_events(r);
}

static void print_grid(const struct kmem_report *r)
{
	static const char * const heads[KMEM_NR_MIGTYPE_COLUMNS] = {
		"Unmovable", "Reclaimable", "Movable", "Special",
	};
	int order, col, orders = kmem_page__grid_orders(r->kp);

	printf("\n Order");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		printf("  %12s", heads[col]);
	printf("\n -----");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		printf("  ------------");
	printf("\n");
	for (order = 0; order < orders; order++) {
		printf(" %5d", order);
		for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++) {
			u64 n = kmem_page__grid(r->kp, order, col);

			printf("  %12s", n ? COMMAS(n) : ".");
		}
		printf("\n");
	}
}

static void print_node_traffic(const struct kmem_report *r)
{
	const struct kmem_page_summary *s = kmem_page__summary(r->kp);
	char node[16];
	int from, to, width;

	printf("\n");
	if (kmem_decoder__info(r->dec)->topology_corrupt) {
		printf(" No cross-node analysis: the NUMA or memory topology in this trace is corrupt.\n");
		return;
	}
	if (!kmem_decoder__info(r->dec)->nr_nodes || !kmem_decoder__info(r->dec)->has_mem2node) {
		printf(" Cross-node analysis needs the NUMA and memory topology, not in this trace.\n");
		return;
	}
	if (kmem_decoder__nr_trace_nodes(r->dec) == 1) {
		printf(" All page traffic was node-local: the trace has one NUMA node.\n");
		return;
	}
	if (kmem_decoder__info(r->dec)->nr_nodes > KMEM_PAGE_MAX_NODES) {
		printf(" No cross-node analysis: the trace has %d NUMA nodes, perf kmem follows at most %d.\n",
		       kmem_decoder__info(r->dec)->nr_nodes, KMEM_PAGE_MAX_NODES);
		return;
	}
	width = printf(" CROSS-NODE TRAFFIC (%d NUMA nodes)\n",
		       kmem_decoder__nr_trace_nodes(r->dec));
	printf(" %.*s\n\n", width - 2, "=========================================");
	if (kmem_decoder__info(r->dec)->pfn_is_page) {
		/* No pfn, no page node: these would be zero, not measured. */
		printf(" Remote memory unknown: the kernel traced struct page addresses, not pfns.\n");
	} else {
		kmem_print__count("Allocations of remote memory:",
				  &s->alloc_remote);
		kmem_print__count("Frees of remote memory:", &s->free_remote);
	}
	kmem_print__count("Allocations freed on another node:",
			  &s->free_other_node);
	printf("\n Remote memory: the page is on another node than the CPU that allocates\n"
	       " or frees it.  Freed on another node: the freeing CPU is on another node\n"
	       " than the allocating CPU.\n");

	printf("\n Bytes allocated and freed in the trace, by node of the allocating CPU\n"
	       " (rows) and of the freeing CPU (columns):\n\n %-10s", "alloc\\free");
	for (to = 0; to < kmem_decoder__info(r->dec)->nr_nodes; to++) {
		if (!kmem_decoder__has_node(r->dec, to))
			continue;
		snprintf(node, sizeof(node), "node %d", to);
		printf("  %14s", node);
	}
	printf("\n");
	for (from = 0; from < kmem_decoder__info(r->dec)->nr_nodes; from++) {
		if (!kmem_decoder__has_node(r->dec, from))
			continue;
		snprintf(node, sizeof(node), "node %d", from);
		printf(" %10s", node);
		for (to = 0; to < kmem_decoder__info(r->dec)->nr_nodes; to++) {
			u64 b;

			if (!kmem_decoder__has_node(r->dec, to))
				continue;
			b = kmem_page__node_matrix(r->kp, from, to);
			printf("  %14s", b ? COMMAS(b) : ".");
		}
		printf("\n");
	}
	if (s->free_other_node.nr && !r->caller)
		printf("\n Callsites of the allocations freed on another node: --caller -s xnode\n");
}

/*
 * Rows a table shows: -l, else all of a table asked for by name, and the
 * top DEFAULT_TABLE_LINES of one shown by default.
 */
static size_t rows_to_show(const struct kmem_report *r, size_t nr, bool by_default)
{
	int lines = r->lines;

	if (lines < 0 && by_default)
		lines = DEFAULT_TABLE_LINES;
	return lines >= 0 && (size_t)lines < nr ? (size_t)lines : nr;
}

/* --- fragmentation -------------------------------------------------- */

static const char * const migtype_heads[KMEM_NR_MIGTYPE_COLUMNS] = {
	"Unmovable", "Reclaimable", "Movable", "Special",
};

static void print_frag_counts(const struct kmem_frag_summary *s, bool classes)
{
	kmem_print__count("Fallbacks to other types' pages:", &s->fallbacks);
	if (classes) {
		struct kmem_count frag = {
			.nr = s->classes[KMEM_FRAG_CONVERTED].nr +
			      s->classes[KMEM_FRAG_POLLUTED].nr,
			.bytes = s->classes[KMEM_FRAG_CONVERTED].bytes +
				 s->classes[KMEM_FRAG_POLLUTED].bytes,
		};

		kmem_print__count("  claimed a free pageblock:",
				  &s->classes[KMEM_FRAG_CLAIMED]);
		kmem_print__count("  converted a pageblock:",
				  &s->classes[KMEM_FRAG_CONVERTED]);
		kmem_print__count("  polluted a pageblock:",
				  &s->classes[KMEM_FRAG_POLLUTED]);
		kmem_print__count("Fragmenting (converted+polluted):", &frag);
	}
	kmem_print__count("Severe (from orders 0 to 3):", &s->severe);
	if (s->bad_fallbacks)
		kmem_print__plain("Events ignored (cannot be real):",
				  s->bad_fallbacks);
}

/* "claimed/converted/polluted", '.' for each zero; '.' for no fallback. */
static const char *matrix_cell(const struct kmem_frag_cell *cell,
			       bool classes, char *buf, size_t size)
{
	char part[KMEM_FRAG_NR_CLASSES][32];
	int i;

	if (!cell->fallbacks || !classes)
		return kmem_print__cell(cell->fallbacks, buf, size);
	for (i = 0; i < KMEM_FRAG_NR_CLASSES; i++)
		kmem_print__cell(cell->classes[i], part[i], sizeof(part[i]));
	snprintf(buf, size, "%s/%s/%s", part[0], part[1], part[2]);
	return buf;
}

static void print_frag_matrix(const struct kmem_report *r, bool classes)
{
	int req, fb;
	char cell[100];

	printf("\n Fallbacks by requested type (rows) and type fallen back to (columns)%s:\n\n %-12s",
	       classes ? ",\n claimed/converted/polluted" : "", "");
	for (fb = 0; fb < KMEM_NR_MIGTYPE_COLUMNS; fb++)
		printf("  %24s", migtype_heads[fb]);
	printf("\n");
	for (req = 0; req < KMEM_NR_MIGTYPE_COLUMNS; req++) {
		printf(" %-12s", migtype_heads[req]);
		for (fb = 0; fb < KMEM_NR_MIGTYPE_COLUMNS; fb++)
			printf("  %24s",
			       matrix_cell(kmem_frag__cell(r->kf, req, fb),
					   classes, cell, sizeof(cell)));
		printf("\n");
	}
}

static double percent(u64 part, u64 whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* Shares of the bytes allocated, and of the pageblocks they went to. */
static void print_pageblock_shares(const struct kmem_frag_summary *s)
{
	const struct kmem_frag_blocks *b = &s->blocks;
	u64 bytes = 0;
	int col;

	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		bytes += s->alloc[col].bytes;
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++) {
		char label[40];

		snprintf(label, sizeof(label), "  %s allocations in:",
			 migtype_heads[col]);
		printf(" %-34s %14s   [ %5.1f%% of the blocks, %5.1f%% of the bytes ]\n",
		       label, COMMAS(b->by_column[col]),
		       percent(b->by_column[col], b->allocated),
		       percent(s->alloc[col].bytes, bytes));
	}
}

static void print_pageblocks(const struct kmem_report *r)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(r->kf);
	const struct kmem_frag_blocks *b = &s->blocks;

	printf("\n");
	kmem_print__plain("Pageblocks allocated into:", b->allocated);
	print_pageblock_shares(s);
	kmem_print__plain("  of more than one type (mixed):", b->mixed);
	kmem_print__plain("  Unmovable or Reclaimable:",
			  b->unmovable_or_reclaimable);
	if (b->fallback_only)
		kmem_print__plain("Fallen back into, no allocation:",
				  b->fallback_only);
	printf(" Pageblocks as the trace saw them allocated into, not the state of memory.\n");
}

static void print_frag_tables(const struct kmem_report *r)
{
	struct kmem_cell_ctx ctx = *r->ctx;
	struct kmem_frag_fail_row **fails;
	struct kmem_frag_row **rows;
	size_t nr;

	rows = kmem_frag__rows(r->kf, NULL, 0, &nr);
	if (rows && nr)
		kmem_print__table(&ctx, kmem_frag_columns, kmem_frag_nr_columns,
				  0, (void **)rows, nr, rows_to_show(r, nr, false));
	fails = kmem_frag__fail_rows(r->kf, NULL, 0, &nr);
	if (fails && nr)
		kmem_print__table(&ctx, kmem_frag_fail_columns,
				  kmem_frag_fail_nr_columns, 0, (void **)fails,
				  nr, rows_to_show(r, nr, false));
}

static void print_fragmentation(const struct kmem_report *r)
{
	const struct kmem_trace_info *info = kmem_decoder__info(r->dec);
	bool classes = kmem_frag__has_classes(r->kf);
	int width;

	if (kmem_frag__finish(r->kf)) {
		pr_err("perf kmem: out of memory in the fragmentation analysis\n");
		return;
	}
	if (classes)
		width = printf("\n FRAGMENTATION (pageblocks of order %d, %s KiB)\n",
			       info->pageblock_order,
			       COMMAS((info->page_size << info->pageblock_order) >> 10));
	else
		width = printf("\n FRAGMENTATION\n");
	printf(" %.*s\n\n", width - 3,
	       "================================================================");
	if (!info->has_extfrag)
		printf(" No fallbacks: the trace has no kmem:mm_page_alloc_extfrag events (perf kmem\n"
		       " record --page records them where the kernel has the tracepoint).\n");
	else
		print_frag_counts(kmem_frag__summary(r->kf), classes);
	if (!classes)
		printf(" %s: the pageblock order is unknown\n (%s); --pageblock-order N gives it.\n",
		       info->has_extfrag ? "Fallbacks not classed, pageblocks not mapped" :
					   "Pageblocks not mapped",
		       info->pageblock_why);
	if (info->has_extfrag && kmem_frag__summary(r->kf)->fallbacks.nr)
		print_frag_matrix(r, classes);
	if (classes)
		print_pageblocks(r);
	if (r->caller)
		print_frag_tables(r);
}

static void print_page_table(const struct kmem_report *r, enum kmem_page_table table,
			     bool by_default)
{
	struct kmem_page_row **rows;
	size_t nr;

	rows = kmem_page__rows(r->kp, table, r->page_sort.keys,
			       r->page_sort.nr_keys, &nr);
	if (!rows) {
		pr_err("perf kmem: out of memory sorting the table\n");
		return;
	}
	kmem_print__table(r->ctx, kmem_page_columns, kmem_page_nr_columns, table,
			  (void **)rows, nr, rows_to_show(r, nr, by_default));
}

/* A row's cell: "12,345", or "." for 0, right-aligned in @width. */
static void print_cell(int width, u64 v)
{
	char buf[32];

	printf(" %*s", width, kmem_print__cell(v, buf, sizeof(buf)));
}

static void print_interval_callers(const struct kmem_report *r,
				   const struct kmem_interval_row *row)
{
	char name[KSYM_NAME_LEN + 32];
	size_t i;

	for (i = 0; i < row->nr_callers; i++) {
		const struct kmem_interval_caller *c = &row->callers[i];
		const char *s = r->ctx->callsite_name(r->ctx->arg, c->callsite,
						      name, sizeof(name));

		printf("  %10s %12s %14s   %s\n", "", COMMAS(c->alloc.nr),
		       COMMAS(c->alloc.bytes), s);
	}
}

/*
 * -I: the page analysis in intervals of trace time, each row what
 * changed in it (the live bytes: where they stand at its end).
 */
static void print_intervals(const struct kmem_report *r)
{
	bool classes = r->ctx->frag_classes, xnode = r->ctx->xnode;
	u64 length = kmem_interval__length(r->iv);
	size_t i;
	int width;

	width = printf("\n INTERVALS (every %s ms of trace time)\n",
		       COMMAS(length / 1000000));
	printf(" %.*s\n\n", width - 3,
	       "==============================================================");
	printf("  %10s %12s %14s %12s %14s %9s %14s", "time (s)", "allocations",
	       "bytes", "frees", "bytes", "failures", "live bytes");
	if (classes)
		printf(" %9s %9s %9s", "claimed", "converted", "polluted");
	if (xnode)
		printf(" %12s", "freed remote");
	printf("\n");
	for (i = 0; i < kmem_interval__nr_rows(r->iv); i++) {
		const struct kmem_interval_row *row = kmem_interval__row(r->iv, i);

		printf("  %10.3f", row->start / 1e9);
		print_cell(12, row->alloc.nr);
		print_cell(14, row->alloc.bytes);
		print_cell(12, row->free.nr);
		print_cell(14, row->free.bytes);
		print_cell(9, row->fail.nr);
		print_cell(14, row->live_bytes);
		if (classes) {
			print_cell(9, row->classes[KMEM_FRAG_CLAIMED].nr);
			print_cell(9, row->classes[KMEM_FRAG_CONVERTED].nr);
			print_cell(9, row->classes[KMEM_FRAG_POLLUTED].nr);
		}
		if (xnode)
			print_cell(12, row->free_other_node.nr);
		printf("\n");
		if (r->caller)
			print_interval_callers(r, row);
	}
}

static int print_page_result(const struct kmem_report *r)
{
	kmem_page__finish(r->kp);
	if (r->caller || !r->alloc)
		print_page_table(r, KMEM_PAGE_TABLE_CALLER, !r->caller);
	if (r->alloc)
		print_page_table(r, KMEM_PAGE_TABLE_ALLOC, false);
	print_page_summary(r);
	print_grid(r);
	print_fragmentation(r);
	print_node_traffic(r);
	if (r->iv)
		print_intervals(r);
	return 0;
}

/* Does the source pair slab objects with their frees, as a recording does? */
static bool slab_paired(const struct kmem_report *r)
{
	return !sampled(r) && !(r->source && r->source->slab_unpaired);
}

static void print_slab_frees(const struct kmem_report *r,
			     const struct kmem_slab_summary *s)
{
	kmem_print__plain("Total frees:", s->free);
	if (slab_paired(r)) {
		kmem_print__plain("  of unknown pointers:", s->free_unknown);
		kmem_print__plain("  repeated frees of a pointer:", s->free_again);
	}
	kmem_print__plain("  of NULL or ZERO_SIZE_PTR:", s->free_null);
}

static void print_slab_numa(const struct kmem_report *r,
			    const struct kmem_slab_summary *s)
{
	if (slab_paired(r))
		kmem_print__count("Ping-pong frees (on another CPU):", &s->pingpong);
	if (!kmem_decoder__info(r->dec)->has_cpu_nodes)
		printf(" Cross-node analysis needs the NUMA topology of a newer perf record.\n");
	else
		kmem_print__count("Cross-node allocations:", &s->xnode);
}

static void print_slab_summary(const struct kmem_report *r)
{
	const struct kmem_slab_summary *s = kmem_slab__summary(r->ks);
	struct kmem_count alloc_only = kmem_lifetime__unfreed(&s->life);
	/* No allocator hands out less than asked, but a damaged trace might. */
	u64 wasted = s->alloc.bytes > s->bytes_req ?
		     s->alloc.bytes - s->bytes_req : 0;

	printf("\n SUMMARY (slab allocator)\n ========================\n\n");
	kmem_print__count("Total allocations:", &s->alloc);
	kmem_print__bytes("Total bytes requested:", s->bytes_req);
	kmem_print__bytes("Internal fragmentation:", wasted);
	printf(" %-34s %13.3f%%\n", "  wasted of allocated:",
	       kmem_slab__frag(s->bytes_req, s->alloc.bytes));
	printf("\n");
	if (slab_paired(r)) {
		kmem_print__count("Allocated+freed:", &s->life.freed);
		kmem_print__count("Allocated-only:", &alloc_only);
		kmem_print__count("  still allocated at the end:", &s->life.live);
		kmem_print__count("  allocated again, free not seen:",
				  &s->life.dropped);
		printf("\n");
	}
	print_slab_frees(r, s);
	printf("\n");
	kmem_print__count("Allocation failures (requested):", &s->fail);
	if (s->zero_size.nr)
		kmem_print__plain("Zero-size allocations:", s->zero_size.nr);
	print_slab_numa(r, s);
	print_lost_events(r);
}

static void print_slab_table(const struct kmem_report *r, enum kmem_slab_table table,
			     bool by_default)
{
	struct kmem_slab_row **rows;
	size_t nr;

	rows = kmem_slab__rows(r->ks, table, r->slab_sort.keys,
			       r->slab_sort.nr_keys, &nr);
	if (!rows) {
		pr_err("perf kmem: out of memory sorting the table\n");
		return;
	}
	/* kmalloc events name no cache: a trace of them has no cache table. */
	if (table == KMEM_SLAB_TABLE_CACHE && !nr)
		return;
	kmem_print__table(r->ctx, kmem_slab_columns, kmem_slab_nr_columns, table,
			  (void **)rows, nr, rows_to_show(r, nr, by_default));
}

static int print_slab_result(const struct kmem_report *r)
{
	kmem_slab__finish(r->ks);
	if (r->caller || !r->alloc) {
		print_slab_table(r, KMEM_SLAB_TABLE_CALLER, !r->caller);
		print_slab_table(r, KMEM_SLAB_TABLE_CACHE, !r->caller);
	}
	if (r->alloc)
		print_slab_table(r, KMEM_SLAB_TABLE_ALLOC, false);
	print_slab_summary(r);
	return 0;
}

int kmem_report__text(const struct kmem_report *r)
{
	int err = 0;
	size_t i;

	for (i = 0; r->source && i < r->source->nr_notes; i++)
		printf(" %s\n", r->source->notes[i]);

	if (r->ks)
		err = print_slab_result(r);
	if (!err && r->kp)
		err = print_page_result(r);
	return err;
}
