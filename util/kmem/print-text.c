// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem stat's report as text, for people: the tables (drawn by
 * print-layout.h), the summaries, the grid, the fragmentation, stall and
 * cross-node sections.  The numbers and columns are report-desc.c's.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "count-frag.h"
#include "count-interval.h"
#include "count-page.h"
#include "count-stall.h"
#include "print-layout.h"
#include "print.h"
#include "report.h"

/* A cell: '.' for zero. */
#define CELL(v) ((v) ? COMMAS(v) : ".")

/* A field's line: "label    12,345   [      50,565,120 bytes ]". */
static void print_field(const struct kmem_field *f, const void *v)
{
	const struct kmem_count *c = v;
	const u64 *n = v;

	switch (f->unit) {
	case KMEM_UNIT_COUNT:
		printf(" %-34s %14s   [ %18s bytes ]\n", f->label, COMMAS(c->nr),
		       COMMAS(c->bytes));
		break;
	case KMEM_UNIT_BYTES:
		printf(" %-34s %14s   [ %18s bytes ]\n", f->label, "", COMMAS(*n));
		break;
	case KMEM_UNIT_NS:
		printf(" %-34s %14s us\n", f->label, COMMAS(*n / 1000));
		break;
	case KMEM_UNIT_PERCENT:
		printf(" %-34s %13.3f%%\n", f->label, *(const double *)v);
		break;
	case KMEM_UNIT_NUMBER:
		printf(" %-34s %14s\n", f->label, COMMAS(*n));
		break;
	case KMEM_UNIT_TEXT:
		printf(" %-34s %s\n", f->label, *(const char * const *)v);
		break;
	default:
		return;
	}
	if (f->note)
		printf("%s\n", f->note);
	if (f->flags & KMEM_FIELD_GAP)
		printf("\n");
}

/* Is @f in the text?  What is null in the JSON has its line, if any. */
static bool field_shown(const struct kmem_report *r, const struct kmem_field *f,
			const void *v)
{
	if ((f->flags & KMEM_FIELD_NULLABLE) &&
	    !kmem_report__holds(r->ctx, f->json_when)) {
		if (f->unknown)
			printf("%s\n", f->unknown);
		return false;
	}
	if (f->text_when == KMEM_IF_NONZERO)
		return !kmem_field__is_zero(f, v);
	return kmem_report__holds(r->ctx, f->text_when) && f->label;
}

/* Fields [@from, @to or the end) of @s; a nested one goes with the one above. */
static void print_fields(const struct kmem_report *r, const struct kmem_section *s,
			 size_t from, size_t to)
{
	bool above = true, shown;
	size_t i;

	for (i = from; i < to && i < s->nr_fields; i++) {
		const struct kmem_field *f = &s->fields[i];
		const void *v = kmem_field__value(f, r->src);
		bool nested = f->flags & KMEM_FIELD_NESTED;

		if (!v || (nested && !above))
			continue;
		if (f->unit == KMEM_UNIT_GROUP) {
			above = kmem_report__holds(r->ctx, f->text_when) &&
				kmem_report__holds(r->ctx, f->json_when);
			continue;
		}
		shown = field_shown(r, f, v);
		if (shown)
			print_field(f, v);
		if (!nested)
			above = shown;
	}
}

static void print_section(const struct kmem_report *r, const struct kmem_section *s)
{
	print_fields(r, s, 0, s->nr_fields);
}

static void print_table(const struct kmem_report *r, enum kmem_report_table_id id,
			bool by_default)
{
	const struct kmem_report_table *t = &r->tables[id];
	const struct kmem_table *desc = &kmem_tables[id];

	if (!t->rows || (!t->nr && !desc->user_sort))
		return;
	kmem_print__table(r->ctx, desc->cols, desc->nr_cols, desc->bit, t->rows,
			  t->nr, kmem_report__rows_shown(r->lines, t->nr, by_default));
}

/* --- page ------------------------------------------------------------ */

static void print_grid(const struct kmem_report *r)
{
	int order, col, orders = kmem_page__grid_orders(r->kp);

	printf("\n Order");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		printf("  %12s", kmem_migtype_columns[col]);
	printf("\n -----");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		printf("  ------------");
	printf("\n");
	for (order = 0; order < orders; order++) {
		printf(" %5d", order);
		for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++) {
			u64 n = kmem_page__grid(r->kp, order, col);

			printf("  %12s", CELL(n));
		}
		printf("\n");
	}
}

static void print_node_matrix(const struct kmem_report *r)
{
	char node[16];
	int from, to;

	printf("\n Bytes allocated and freed in the trace, by node of the allocating CPU\n"
	       " (rows) and of the freeing CPU (columns):\n\n %-10s", "alloc\\free");
	for (to = 0; to < r->nr_node_ids; to++) {
		if (!r->has_node[to])
			continue;
		snprintf(node, sizeof(node), "node %d", to);
		printf("  %14s", node);
	}
	printf("\n");
	for (from = 0; from < r->nr_node_ids; from++) {
		if (!r->has_node[from])
			continue;
		snprintf(node, sizeof(node), "node %d", from);
		printf(" %10s", node);
		for (to = 0; to < r->nr_node_ids; to++) {
			u64 b;

			if (!r->has_node[to])
				continue;
			b = kmem_page__node_matrix(r->kp, from, to);
			printf("  %14s", CELL(b));
		}
		printf("\n");
	}
}

/* Why a trace has no cross-node section; false: it has one. */
static bool print_no_cross_node(const struct kmem_report *r)
{
	const char *status = r->trace.cross_node;

	if (!strcmp(status, "corrupt_topology"))
		printf("\n No cross-node analysis: the NUMA or memory topology in this trace is corrupt.\n");
	else if (!strcmp(status, "no_topology"))
		printf("\n Cross-node analysis needs the NUMA and memory topology, not in this trace.\n");
	else if (!strcmp(status, "one_node"))
		printf("\n All page traffic was node-local: the trace has one NUMA node.\n");
	else if (!strcmp(status, "too_many_nodes"))
		printf("\n No cross-node analysis: the trace has %d NUMA nodes, perf kmem follows at most %d.\n",
		       r->nr_node_ids, KMEM_PAGE_MAX_NODES);
	else
		return false;
	return true;
}

static void print_cross_node(const struct kmem_report *r)
{
	const struct kmem_page_summary *s = r->src[KMEM_SRC_PAGE];

	if (print_no_cross_node(r))
		return;
	kmem_print__title("CROSS-NODE TRAFFIC (%" PRIu64 " NUMA nodes)", r->trace.nr_nodes);
	print_section(r, &kmem_cross_node_section);
	printf("\n Remote memory: the page is on another node than the CPU that allocates\n"
	       " or frees it.  Freed on another node: the freeing CPU is on another node\n"
	       " than the allocating CPU.\n");
	print_node_matrix(r);
	if (s->free_other_node.nr && !r->caller)
		printf("\n Callsites of the allocations freed on another node: --caller -s xnode\n");
}

/* "claimed/converted/polluted", '.' for each zero; '.' for no fallback. */
static const char *matrix_cell(const struct kmem_frag_cell *cell,
			       bool classes, char *buf, size_t size)
{
	if (!cell->fallbacks || !classes)
		snprintf(buf, size, "%s", CELL(cell->fallbacks));
	else
		snprintf(buf, size, "%s/%s/%s", CELL(cell->classes[0]),
			 CELL(cell->classes[1]), CELL(cell->classes[2]));
	return buf;
}

static void print_frag_matrix(const struct kmem_report *r, bool classes)
{
	int req, fb;
	char cell[100];

	printf("\n Fallbacks by requested type (rows) and type fallen back to (columns)%s:\n\n %-12s",
	       classes ? ",\n claimed/converted/polluted" : "", "");
	for (fb = 0; fb < KMEM_NR_MIGTYPE_COLUMNS; fb++)
		printf("  %24s", kmem_migtype_columns[fb]);
	printf("\n");
	for (req = 0; req < KMEM_NR_MIGTYPE_COLUMNS; req++) {
		printf(" %-12s", kmem_migtype_columns[req]);
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
			 kmem_migtype_columns[col]);
		printf(" %-34s %14s   [ %5.1f%% of the blocks, %5.1f%% of the bytes ]\n",
		       label, COMMAS(b->by_column[col]),
		       percent(b->by_column[col], b->allocated),
		       percent(s->alloc[col].bytes, bytes));
	}
}

static void print_pageblocks(const struct kmem_report *r)
{
	printf("\n");
	print_fields(r, &kmem_pageblock_section, 0, 1);
	print_pageblock_shares(r->src[KMEM_SRC_FRAG]);
	print_fields(r, &kmem_pageblock_section, 1, SIZE_MAX);
	printf(" Pageblocks as the trace saw them allocated into, not the state of memory.\n");
}

/* The pages that fell back and stay, or why they are not known. */
static void print_pinned(const struct kmem_report *r)
{
	if (r->src[KMEM_SRC_COUNTED]) {
		printf("\n %-34s %s\n", kmem_pinned_section.fields[0].label,
		       "not measured with -b: it pairs no fallback with its page");
		return;
	}
	if (!r->ctx->pinning)
		return;
	printf("\n");
	print_section(r, &kmem_pinned_section);
	printf(" Unmovable and Reclaimable pages in pageblocks the trace saw Movable.\n");
}

static void print_fragmentation(const struct kmem_report *r)
{
	const struct kmem_frag_summary *s = r->src[KMEM_SRC_FRAG];
	bool recorded = strcmp(r->trace.fragmentation, "not_recorded");
	bool blocks = r->ctx->pageblocks;

	if (blocks)
		kmem_print__title("FRAGMENTATION (pageblocks of order %" PRIu64 ", %s KiB)",
				  r->trace.pageblock_order,
				  COMMAS((r->ctx->page_size << r->trace.pageblock_order) >> 10));
	else
		kmem_print__title("FRAGMENTATION");
	if (!recorded)
		printf(" No fallbacks: the trace has no kmem:mm_page_alloc_extfrag events (perf kmem\n"
		       " record --page records them where the kernel has the tracepoint).\n");
	else
		print_fields(r, &kmem_frag_section, 2, kmem_frag_section.nr_fields);
	if (!blocks)
		printf(" %s: the pageblock order is unknown\n (%s); --pageblock-order N gives it.\n",
		       recorded ? "Fallbacks not classed, pageblocks not mapped" :
				  "Pageblocks not mapped",
		       r->trace.pageblock_why);
	if (recorded && s->fallbacks.nr)
		print_frag_matrix(r, blocks);
	if (blocks)
		print_pageblocks(r);
	if (r->ctx->frag_classes)
		print_pinned(r);
	if (r->caller) {
		print_table(r, KMEM_FRAG_CALLERS, false);
		print_table(r, KMEM_FRAG_PINNED, false);
		print_table(r, KMEM_FRAG_FAILURES, false);
	}
}

/* --- stalls --------------------------------------------------------- */

/* One line naming the stall tracepoints the trace lacks, if any. */
static void print_stall_missing(const char *missing)
{
	if (!*missing)
		return;
	printf(" Not in the trace, so not shown:");
	while (*missing) {
		size_t len = strcspn(missing, ",");

		printf(" %.*s%s", (int)len, missing, missing[len] ? "," : ".\n");
		missing += len + (missing[len] == ',');
	}
}

/* As perf ftrace latency and bcc print them: a bar per log2 bucket. */
static void print_histograms(const struct kmem_report *r)
{
	const struct kmem_report_table *t = &r->tables[KMEM_STALL_BUCKETS];
	static const char bars[] = "****************************************";
	u64 most = 0;
	size_t i;
	int order = -1;

	for (i = 0; i < t->nr; i++)
		most = max(most, ((const struct kmem_stall_bucket *)t->rows[i])->stalls);
	for (i = 0; i < t->nr; i++) {
		const struct kmem_stall_bucket *b = t->rows[i];

		if (b->order != order) {
			order = b->order;
			printf("\n Stalls of order %d:\n\n %21s %9s  distribution\n",
			       order, "us", "stalls");
		}
		printf(" %9s .. %-9s", COMMAS(b->lo_us), COMMAS(b->hi_us));
		printf(" %9s  |%-40.*s|\n", COMMAS(b->stalls),
		       (int)(40 * b->stalls / most), bars);
	}
}

/*
 * No stall, no reclaim or compaction event: every number of the stall
 * sections 0.  A line says so, not 40 zeros.
 */
static bool nothing_stalled(const struct kmem_report *r)
{
	static const struct kmem_section * const sections[] = {
		&kmem_stall_section, &kmem_stall_apart_section,
		&kmem_stall_events_section, &kmem_stall_memcg_section,
	};
	size_t s, i;

	for (s = 0; s < ARRAY_SIZE(sections); s++)
		for (i = 0; i < sections[s]->nr_fields; i++) {
			const struct kmem_field *f = &sections[s]->fields[i];

			if (f->src == KMEM_SRC_STALL && f->unit != KMEM_UNIT_GROUP &&
			    !kmem_field__is_zero(f, kmem_field__value(f, r->src)))
				return false;
		}
	return true;
}

static void print_stalls(const struct kmem_report *r)
{
	kmem_print__title("STALLS (allocations that waited in direct reclaim or compaction)");
	if (!r->src[KMEM_SRC_STALL]) {
		printf(" No stalls: %s (perf kmem record\n"
		       " --page records them where the kernel has the tracepoints).\n",
		       r->src[KMEM_SRC_COUNTED] ? "stat -b does not count reclaim or compaction" :
						  "the trace has no reclaim or compaction events");
		return;
	}
	print_stall_missing(r->trace.stall_missing);
	if (nothing_stalled(r)) {
		printf(" No allocation stalled: the trace has no direct reclaim, memcg reclaim or\n"
		       " compaction in it.\n");
		print_table(r, KMEM_STALL_WAKEUPS, false);
		return;
	}
	print_section(r, &kmem_stall_section);
	printf("\n Counted apart, not in the figures above:\n");
	print_section(r, &kmem_stall_apart_section);
	printf("\n Events, to hold against /proc/vmstat:\n");
	print_section(r, &kmem_stall_events_section);
	print_section(r, &kmem_stall_memcg_section);
	print_table(r, KMEM_STALL_ORDERS, false);
	print_histograms(r);
	print_table(r, KMEM_STALL_STATUSES, false);
	print_table(r, KMEM_STALL_WAKEUPS, false);
	if (r->caller) {
		print_table(r, KMEM_STALL_CALLERS, false);
		print_table(r, KMEM_STALL_MEMCG, false);
	}
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

		printf("  %16s %12s %14s   %s\n", "", COMMAS(c->alloc.nr),
		       COMMAS(c->alloc.bytes), s);
	}
}

/*
 * A cell of -I: "12,345", "." for 0; the row's start in the trace's
 * clock in seconds to the microsecond, as perf script prints times and
 * --time takes them.
 */
static void print_interval_cell(const struct kmem_field *f, const void *v)
{
	u64 n = *(const u64 *)v;
	char buf[32];

	if (f->unit == KMEM_UNIT_TIME)
		snprintf(buf, sizeof(buf), "%9" PRIu64 ".%06" PRIu64, n / 1000000000,
			 n % 1000000000 / 1000);
	else
		snprintf(buf, sizeof(buf), "%s", CELL(f->unit == KMEM_UNIT_NS ? n / 1000 : n));
	printf(" %*s", f->width, buf);
}

/*
 * -I's header (@row NULL) or a row: a column for each field of the
 * section that has one, in the order of their places.
 */
static void print_interval(const struct kmem_report *r,
			   const struct kmem_interval_row *row)
{
	const struct kmem_section *s = &kmem_interval_section;
	const void *src[KMEM_NR_SOURCES] = { [KMEM_SRC_INTERVAL] = row };
	size_t i, col;

	for (col = 1; col <= s->nr_fields; col++) {
		for (i = 0; i < s->nr_fields; i++) {
			const struct kmem_field *f = &s->fields[i];

			if (f->column != col || !kmem_report__holds(r->ctx, f->text_when))
				continue;
			if (row)
				print_interval_cell(f, kmem_field__value(f, src));
			else
				printf(" %*s", f->width, f->label);
		}
	}
	printf("\n");
	if (row && r->caller)
		print_interval_callers(r, row);
}

/*
 * -I: the page analysis in intervals of trace time, each row what
 * changed in it (the live bytes: where they stand at its end).
 */
static void print_intervals(const struct kmem_report *r)
{
	u64 length = kmem_interval__length(r->iv);
	size_t i;

	kmem_print__title("INTERVALS (every %s ms of trace time)", COMMAS(length / 1000000));
	print_interval(r, NULL);
	for (i = 0; i < kmem_interval__nr_rows(r->iv); i++)
		print_interval(r, kmem_interval__row(r->iv, i));
}

/* A live row is stamped with its end, in seconds of the run. */
size_t kmem_print__interval_lines(const struct kmem_interval *iv, size_t from)
{
	u64 len;

	if (!iv)
		return from;
	len = kmem_interval__length(iv);
	for (; from < kmem_interval__nr_rows(iv); from++) {
		const struct kmem_interval_row *row = kmem_interval__row(iv, from);

		if (!from)
			printf("#%13s %12s %15s %12s %15s %9s %15s %10s\n", "time",
			       "allocations", "bytes", "frees", "bytes", "failures",
			       "live bytes", "fallbacks");
		printf("%14.6f %12s %15s %12s %15s %9s %15s %10s\n",
		       (row->start + len) / 1e9, COMMAS(row->alloc.nr),
		       COMMAS(row->alloc.bytes), COMMAS(row->free.nr),
		       COMMAS(row->free.bytes), COMMAS(row->fail.nr),
		       COMMAS(row->live_bytes), COMMAS(row->fallbacks.nr));
	}
	fflush(stdout);
	return from;
}

static void print_page(const struct kmem_report *r)
{
	print_table(r, KMEM_PAGE_CALLERS, !r->caller);
	print_table(r, KMEM_PAGE_ALLOCS, false);
	kmem_print__title("SUMMARY (page allocator)");
	print_section(r, &kmem_page_summary_section);
	print_section(r, &kmem_trace_section);
	print_grid(r);
	print_fragmentation(r);
	print_stalls(r);
	print_cross_node(r);
	if (r->iv)
		print_intervals(r);
}

/* --- slab ------------------------------------------------------------ */

static void print_slab(const struct kmem_report *r)
{
	print_table(r, KMEM_SLAB_CALLERS, !r->caller);
	/* kmalloc events name no cache: a trace of them has no cache table. */
	if (r->tables[KMEM_SLAB_CACHES].nr)
		print_table(r, KMEM_SLAB_CACHES, !r->caller);
	print_table(r, KMEM_SLAB_ALLOCS, false);
	kmem_print__title("SUMMARY (slab allocator)");
	print_section(r, &kmem_slab_summary_section);
	print_section(r, &kmem_trace_section);
}

/* --- the state of memory around stat -b ------------------------------ */

/* @n blocks of the zones at the start and end: "12 -> 34", "." for none. */
static void print_change(int width, u64 start, u64 end)
{
	char buf[64];

	if (!start && !end)
		snprintf(buf, sizeof(buf), ".");
	else
		snprintf(buf, sizeof(buf), "%s -> %s", COMMAS(start), COMMAS(end));
	printf(" %*s", width, buf);
}

static const u64 no_blocks[KMEM_PROC_MAX_ORDERS];

static const u64 *blocks_of(const struct kmem_pagetypeinfo *pt,
			    const struct kmem_zone_free *z, const char *type)
{
	const u64 *b = kmem_pagetypeinfo__blocks(pt, z, type);

	return b ? b : no_blocks;
}

static bool any_blocks(const u64 *a, const u64 *b, int nr_orders)
{
	int o;

	for (o = 0; o < nr_orders; o++)
		if (a[o] || b[o])
			return true;
	return false;
}

/* A zone's free blocks by order and type, start -> end, and the index. */
static void print_zone_free(const struct kmem_report_memory *m,
			    const struct kmem_zone_free *zs,
			    const struct kmem_zone_free *ze)
{
	const struct kmem_pagetypeinfo *ps = m->free_start, *pe = m->free_end;
	const struct kmem_zone_free *z = zs ? zs : ze;
	static const struct kmem_zone_free empty;
	int orders = max(ps->nr_orders, pe->nr_orders), o, t;
	const u64 *a[KMEM_PROC_MAX_TYPES], *b[KMEM_PROC_MAX_TYPES];
	unsigned int us, ue;

	zs = zs ? zs : &empty;
	ze = ze ? ze : &empty;
	printf("\n Node %d, zone %s: free pages %s -> %s%s\n", z->node, z->zone,
	       COMMAS(kmem_zone_free__pages(zs, ps->nr_orders, 0)),
	       COMMAS(kmem_zone_free__pages(ze, pe->nr_orders, 0)),
	       zs->capped || ze->capped ? " (a list past 100,000: at least)" : "");
	printf(" %5s", "Order");
	/* A type with no free block at either end has no column. */
	for (t = 0; t < ps->nr_types; t++) {
		a[t] = blocks_of(ps, zs, ps->types[t]);
		b[t] = blocks_of(pe, ze, ps->types[t]);
		if (!any_blocks(a[t], b[t], orders))
			a[t] = NULL;
		else
			printf(" %19s", ps->types[t]);
	}
	printf(" %15s\n", "Unusable index");
	for (o = 0; o < orders; o++) {
		printf(" %5d", o);
		for (t = 0; t < ps->nr_types; t++)
			if (a[t])
				print_change(19, a[t][o], b[t][o]);
		us = kmem_zone_free__unusable(zs, ps->nr_orders, o);
		ue = kmem_zone_free__unusable(ze, pe->nr_orders, o);
		printf("   %u.%03u -> %u.%03u\n", us / 1000, us % 1000, ue / 1000, ue % 1000);
	}
}

static void print_memory(const struct kmem_report *r)
{
	const struct kmem_report_memory *m = r->src[KMEM_SRC_MEMORY];
	int i;

	kmem_print__title("MEMORY AROUND THE RUN (/proc/vmstat, /proc/pagetypeinfo)");
	printf(" Counters of stalls, their change over the run (/proc/vmstat):\n\n");
	print_section(r, &kmem_memory_section);
	if (!m->free_start || !m->free_end) {
		printf("\n /proc/pagetypeinfo not read: %s\n", m->pagetypeinfo);
		return;
	}
	printf("\n Free blocks by order and migration type at the start -> at the end\n"
	       " (/proc/pagetypeinfo), and each order's unusable free space index: the\n"
	       " share of the zone's free pages in blocks smaller than the order.\n");
	for (i = 0; i < m->free_start->nr_zones; i++) {
		const struct kmem_zone_free *zs = &m->free_start->zones[i];

		print_zone_free(m, zs, kmem_pagetypeinfo__zone(m->free_end,
							       zs->node, zs->zone));
	}
	for (i = 0; i < m->free_end->nr_zones; i++) {
		const struct kmem_zone_free *ze = &m->free_end->zones[i];

		if (!kmem_pagetypeinfo__zone(m->free_start, ze->node, ze->zone))
			print_zone_free(m, NULL, ze);
	}
}

void kmem_report__text(const struct kmem_report *r)
{
	/* Not a recording: where the numbers come from, before them. */
	if (r->src[KMEM_SRC_COUNTED]) {
		kmem_print__title("COUNTED IN THE KERNEL (perf kmem stat -b)");
		print_section(r, &kmem_counted_section);
	}
	if (r->slab)
		print_slab(r);
	if (r->kp)
		print_page(r);
	if (r->src[KMEM_SRC_MEMORY])
		print_memory(r);
}
