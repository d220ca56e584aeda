// SPDX-License-Identifier: GPL-2.0
/*
 * The description of perf kmem stat's report; see report.h.  Each number
 * and each column is here once, with its label, its JSON member and where
 * its value is in the analyses' summaries and rows; and the tables' rows
 * sorted from the analyses.  The renderers include report.h alone, which
 * declares these: what an analysis keeps is known here, not there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>

#include "count-frag.h"
#include "count-interval.h"
#include "count-page.h"
#include "count-slab.h"
#include "count-stall.h"
#include "report.h"

/* --- sections ------------------------------------------------------- */

/*
 * A field: its member in its source, its JSON name, its label (NULL: none
 * in the text), then what else it has: unit (a u64 number where none),
 * conditions, flags, notes.
 */
#define F(s, type, member, n, l, ...) { .src = KMEM_SRC_##s, \
	.offset = offsetof(type, member), .name = n, .label = l, __VA_ARGS__ }
#define TRACE(m, ...)	F(TRACE, struct kmem_report_trace, m, __VA_ARGS__)
#define PAGE(m, ...)	F(PAGE, struct kmem_page_summary, m, __VA_ARGS__)
#define FRAG(m, ...)	F(FRAG, struct kmem_frag_summary, m, __VA_ARGS__)
#define SLAB(m, ...)	F(SLAB, struct kmem_slab_summary, m, __VA_ARGS__)
#define IV(m, ...)	F(INTERVAL, struct kmem_interval_row, m, __VA_ARGS__)
#define SRC(m, ...)	F(COUNTED, struct kmem_report_source, m, __VA_ARGS__)
#define STALL(m, ...)	F(STALL, struct kmem_stall_summary, m, __VA_ARGS__)

/* A section: its path in the document, then its fields, in their order. */
#define FIELDS(...)	((const struct kmem_field[]){ __VA_ARGS__ })
#define SECTION(p, ...)	{ .path = p, .fields = FIELDS(__VA_ARGS__), \
	.nr_fields = sizeof(FIELDS(__VA_ARGS__)) / sizeof(struct kmem_field) }

#define TEXT_ONLY	.unit = KMEM_UNIT_TEXT, .text_when = KMEM_NEVER
#define COUNT		.unit = KMEM_UNIT_COUNT
#define BYTES		.unit = KMEM_UNIT_BYTES
#define BOOL		.unit = KMEM_UNIT_BOOL
#define GROUP		.unit = KMEM_UNIT_GROUP
#define PERCENT		.unit = KMEM_UNIT_PERCENT
#define NS		.unit = KMEM_UNIT_NS
#define TEXT		.unit = KMEM_UNIT_TEXT
#define NONZERO		.text_when = KMEM_IF_NONZERO
#define NOT_IN_TEXT	.text_when = KMEM_NEVER
#define PAIRED		.text_when = KMEM_IF_PAIRED
#define SLAB_PAIRED	.text_when = KMEM_IF_SLAB_PAIRED
#define TEXT_IF(w)	.text_when = KMEM_IF_##w
#define JSON_IF(w)	.json_when = KMEM_IF_##w
#define TEXT_LINE	.json_when = KMEM_NEVER
#define NESTED		.flags = KMEM_FIELD_NESTED
#define GAP		.flags = KMEM_FIELD_GAP
#define NULLABLE	.flags = KMEM_FIELD_NULLABLE

const struct kmem_section kmem_trace_section = SECTION("perf_data",
	TRACE(path, "path", NULL, TEXT_ONLY),
	TRACE(os_release, "os_release", NULL, TEXT_ONLY),
	TRACE(hostname, "hostname", NULL, TEXT_ONLY, JSON_IF(SET)),
	TRACE(arch, "arch", NULL, TEXT_ONLY, JSON_IF(SET)),
	TRACE(nr_cpus, "nr_cpus", "CPUs:", NOT_IN_TEXT, JSON_IF(SET)),
	TRACE(time_window, "time_window", NULL, TEXT_ONLY, JSON_IF(SET)),
	TRACE(nr_samples, "nr_samples", "Samples analysed:", NOT_IN_TEXT),
	TRACE(nr_page_events, "nr_page_events", "  page allocator events:", NOT_IN_TEXT),
	TRACE(nr_slab_events, "nr_slab_events", "  slab allocator events:", NOT_IN_TEXT),
	TRACE(nr_extfrag_events, "nr_extfrag_events", "  fallback (extfrag) events:", NOT_IN_TEXT),
	TRACE(events_lost, "events_lost", "Events lost while recording:", NONZERO, .note =
	      " Totals are approximate: record with a larger -m."),
	TRACE(events_too_short, "events_too_short", "Events ignored (too short):", NONZERO),
	TRACE(events_out_of_order, "events_out_of_order", "Events out of time order:", NONZERO,
	      .note =
	      " They came after later events were counted: a larger kmem.queue-size helps."),
	TRACE(sampled, "sampled", NULL, TEXT_ONLY, JSON_IF(SET)),
	TRACE(callsites_unresolved, "callsites_unresolved", NULL, BOOL, NOT_IN_TEXT),
);

const struct kmem_section kmem_page_section = SECTION("page",
	TRACE(page_size, "page_size", "Page size:", BYTES, NOT_IN_TEXT),
	TRACE(live, "live", NULL, BOOL, NOT_IN_TEXT),
);

const struct kmem_section kmem_page_summary_section = SECTION("page.summary",
	PAGE(life.freed, "allocated_freed", "Pages allocated+freed:", COUNT, PAIRED, GAP),
	PAGE(life.unfreed, "allocated_only", "Pages allocated-only:", COUNT, PAIRED),
	PAGE(life.live, "still_live", "  still allocated at the end:", COUNT, PAIRED, NESTED),
	PAGE(life.dropped, "allocated_again", "  allocated again, free not seen:", COUNT, PAIRED,
	     NESTED),
	PAGE(free_only, "freed_only", "Pages freed-only:", COUNT, PAIRED, GAP),
	PAGE(fail, "failures", "Page allocation failures:", COUNT, GAP),
	PAGE(alloc, "total_allocations", "Total allocations:", COUNT),
	PAGE(free, "total_frees", "Total frees:", COUNT),
	PAGE(free_order_differs, "frees_of_another_order", "Frees of another order:", NONZERO),
	PAGE(bad_migtype, "unknown_migration_types", "Unknown migration types (Special):", NONZERO),
	PAGE(bad_order, "ignored_bad_order", "Events ignored (bad order):", NONZERO),
);

const struct kmem_section kmem_cross_node_section = SECTION("page.cross_node",
	TRACE(cross_node, "status", NULL, TEXT_ONLY),
	TRACE(nr_nodes, "nr_nodes", "NUMA nodes:", NOT_IN_TEXT),
	PAGE(alloc_remote, "allocations_remote", "Allocations of remote memory:", COUNT,
	     JSON_IF(PFNS), NULLABLE, .unknown =
	     " Remote memory unknown: the kernel traced struct page addresses, not pfns."),
	PAGE(free_remote, "frees_remote", "Frees of remote memory:", COUNT, JSON_IF(PFNS),
	     NULLABLE),
	PAGE(free_other_node, "freed_on_other_node", "Allocations freed on another node:", COUNT),
);

const struct kmem_section kmem_frag_section = SECTION("page.fragmentation",
	TRACE(fragmentation, "status", NULL, TEXT_ONLY),
	TRACE(pageblock_order, "pageblock_order", "Pageblock order:", NOT_IN_TEXT, JSON_IF(CLASSES),
	      NULLABLE),
	FRAG(fallbacks, "fallbacks", "Fallbacks to other types' pages:", COUNT),
	FRAG(classes, "classes", NULL, GROUP, TEXT_IF(CLASSES), JSON_IF(CLASSES)),
	FRAG(classes[KMEM_FRAG_CLAIMED], "claimed", "  claimed a free pageblock:", COUNT, NESTED),
	FRAG(classes[KMEM_FRAG_CONVERTED], "converted", "  converted a pageblock:", COUNT, NESTED),
	FRAG(classes[KMEM_FRAG_POLLUTED], "polluted", "  polluted a pageblock:", COUNT, NESTED),
	FRAG(fragmenting, "fragmenting", "Fragmenting (converted+polluted):", COUNT,
	     TEXT_IF(CLASSES), JSON_IF(CLASSES)),
	FRAG(severe, "severe", "Severe (from orders 0 to 3):", COUNT),
	FRAG(bad_fallbacks, "ignored_events", "Events ignored (cannot be real):", NONZERO),
);

/* The classes as the fallback matrix has them, where no field says them. */
const char * const kmem_frag_classes[KMEM_FRAG_NR_CLASSES + 1] = {
	"claimed", "converted", "polluted",
};

/* The arrays by column are the renderers': shares in the text. */
const struct kmem_section kmem_pageblock_section = SECTION("page.fragmentation.mixed_pageblocks",
	FRAG(blocks.allocated, "touched", "Pageblocks allocated into:"),
	FRAG(blocks.mixed, "mixed", "  of more than one type (mixed):"),
	FRAG(blocks.unmovable_or_reclaimable, "unmovable_or_reclaimable",
	     "  Unmovable or Reclaimable:"),
	FRAG(blocks.fallback_only, "fallback_only", "Fallen back into, no allocation:", NONZERO),
);

/*
 * The pages that fell back into a Movable pageblock for an Unmovable or
 * Reclaimable allocation and were still allocated at the end: what keeps
 * compaction from freeing those pageblocks.
 */
const struct kmem_section kmem_pinned_section = SECTION("page.fragmentation.pinned",
	FRAG(pinned.pages, "pages", "Fallen back, still allocated:", COUNT),
	FRAG(pinned.pageblocks, "pageblocks", "  pageblocks they pin:"),
);

const struct kmem_section kmem_slab_summary_section = SECTION("slab.summary",
	SLAB(alloc, "total_allocations", "Total allocations:", COUNT),
	SLAB(bytes_req, "bytes_requested", "Total bytes requested:", BYTES),
	SLAB(wasted, "wasted_bytes", "Internal fragmentation:", BYTES),
	SLAB(wasted_share, NULL, "  wasted of allocated:", PERCENT, .json_when = KMEM_NEVER, GAP),
	SLAB(life.freed, "allocated_freed", "Allocated+freed:", COUNT, SLAB_PAIRED),
	SLAB(life.unfreed, "allocated_only", "Allocated-only:", COUNT, SLAB_PAIRED),
	SLAB(life.live, "still_live", "  still allocated at the end:", COUNT, SLAB_PAIRED, NESTED),
	SLAB(life.dropped, "allocated_again", "  allocated again, free not seen:", COUNT,
	     SLAB_PAIRED, .flags = KMEM_FIELD_NESTED | KMEM_FIELD_GAP),
	SLAB(free, "frees", NULL, GROUP),
	SLAB(free, "total", "Total frees:", NESTED),
	SLAB(free_unknown, "unknown_pointers", "  of unknown pointers:", SLAB_PAIRED, NESTED),
	SLAB(free_again, "repeated", "  repeated frees of a pointer:", SLAB_PAIRED, NESTED),
	SLAB(free_null, "null", "  of NULL or ZERO_SIZE_PTR:",
	     .flags = KMEM_FIELD_NESTED | KMEM_FIELD_GAP),
	SLAB(fail, "failures", "Allocation failures (requested):", COUNT),
	SLAB(zero_size.nr, "zero_size", "Zero-size allocations:", NONZERO),
	SLAB(pingpong, "pingpong", "Ping-pong frees (on another CPU):", COUNT, SLAB_PAIRED),
	SLAB(xnode, "cross_node", "Cross-node allocations:", COUNT, JSON_IF(CPU_NODES), NULLABLE,
	     .unknown = " Cross-node analysis needs the NUMA topology of a newer perf record."),
);

/*
 * -I's rows.  The JSON has the members in this order; the text a column
 * for each field with a place (COL(place, width), the label its header),
 * in the order of the places: the bytes of the counts it shows are
 * columns of their own, and freed remote comes after the classes.
 */
#define COL(place, w)	.column = place, .width = w
#define BOTH_IF(w)	.text_when = KMEM_IF_##w, .json_when = KMEM_IF_##w
#define BYTES_COL(m, place)	IV(m.bytes, NULL, "bytes", TEXT_LINE, COL(place, 14))

const struct kmem_section kmem_interval_section = SECTION("page.intervals.rows",
	IV(start, "start_ns", NULL),
	IV(time, "time_ns", "time (s)", .unit = KMEM_UNIT_TIME, COL(1, 17)),
	IV(alloc, "allocations", "allocations", COUNT, COL(2, 12)),
	BYTES_COL(alloc, 3),
	IV(free, "frees", "frees", COUNT, COL(4, 12)),
	BYTES_COL(free, 5),
	IV(fail, "failures", "failures", COUNT, COL(6, 9)),
	IV(live_bytes, "live_bytes", "live bytes", COL(7, 14)),
	IV(free_other_node, "freed_on_other_node", "freed remote", COUNT, BOTH_IF(XNODE),
	   COL(11, 12)),
	IV(fallbacks, "fallbacks", NULL, COUNT, JSON_IF(CLASSES)),
	IV(classes[KMEM_FRAG_CLAIMED], "claimed", "claimed", COUNT, BOTH_IF(CLASSES), COL(8, 9)),
	IV(classes[KMEM_FRAG_CONVERTED], "converted", "converted", COUNT, BOTH_IF(CLASSES),
	   COL(9, 9)),
	IV(classes[KMEM_FRAG_POLLUTED], "polluted", "polluted", COUNT, BOTH_IF(CLASSES),
	   COL(10, 9)),
	IV(stalls, "stalls", "stalls", BOTH_IF(STALLS), COL(12, 9)),
	IV(stall_ns, "stall_ns", "stall us", NS, BOTH_IF(STALLS), COL(13, 12)),
);

/*
 * perf kmem stat -b: where the numbers come from, what is exact, what is
 * estimated and from how many samples, and what could not be counted.
 */
const struct kmem_section kmem_counted_section = SECTION("source",
	SRC(name, "name", NULL, TEXT_ONLY),
	SRC(tasks, "tasks", "Events of:", TEXT),
	SRC(duration_ms, NULL, "Counted for (ms):", TEXT_LINE),
	SRC(duration_ns, "duration_ns", NULL, NOT_IN_TEXT),
	SRC(exact, NULL, "Exact:", TEXT, TEXT_LINE),
	SRC(estimated, NULL, "Estimated:", TEXT, NONZERO, TEXT_LINE),
	SRC(callers, "callers", NULL, TEXT_ONLY),
	SRC(lifetimes, "lifetimes", NULL, TEXT_ONLY),
	SRC(sample_bytes, "sample_bytes", "A stack per bytes (mean):", TEXT_IF(ESTIMATED), .note =
	    " An allocation of s bytes is sampled with p = 1 - exp(-s / that), and counts 1/p."),
	SRC(sampled, "sampled_allocations", "Allocations sampled:", TEXT_IF(ESTIMATED)),
	SRC(rare_taken, "rare_stacks_taken", "Failures, fallbacks with a stack:", NONZERO),
	SRC(rare_sampled, "rare_stacks_sampled", "  past the rate, sampled:", NONZERO),
	SRC(live_entries, "live_map_entries", "Live-page map entries (-M):"),
	SRC(untracked, "untracked", "Allocations untracked (map full):", NONZERO, .note =
	    " Their frees count as freed-only: a larger -M tracks them."),
	SRC(untracked_sampled, "untracked_sampled", "  of them sampled:", NONZERO),
	SRC(stack_walks_failed, "stack_walks_failed", "Stack walks failed:", NONZERO),
	SRC(stacks_map_full, "stacks_map_full", "Stacks not kept (map full, -M):", NONZERO),
	SRC(rows_map_full, "rows_map_full", "Sampled rows not kept (map full):", NONZERO, .note =
	    " Those samples are in no callsite row."),
	SRC(tasks_map_full, "tasks_map_full", "Forked tasks not followed (-M):", NONZERO),
	SRC(slab_map_full, "slab_map_full", "Slab events lost (map full, -M):", NONZERO, .note =
	    " They are in no row and no total."),
	SRC(blocks_outside, "pages_past_pageblocks", "Pages past the pageblock map:", NONZERO,
	    .note = " Memory added after the start: their pageblocks are not counted."),
	SRC(events_missed, "events_missed", "Runs skipped by the kernel:", NONZERO, .note =
	    " Events of any task that came while a program of perf kmem ran on their CPU."),
	SRC(fallbacks, "fallbacks_counted", NULL, BOOL, NOT_IN_TEXT),
	SRC(no_fallbacks, NULL, "Fallbacks not counted:", TEXT, NONZERO, TEXT_LINE),
	SRC(map_bytes, "map_bytes", NULL, BYTES, NOT_IN_TEXT),
	SRC(stall_events_lost, "stall_events_lost", "Stall events lost (ring full, -M):", NONZERO,
	    .note = " The STALLS section misses them: a larger -M keeps them."),
	SRC(prog_runs, "program_runs", "Runs of the BPF programs:", NONZERO, JSON_IF(SET)),
	SRC(prog_ns, "program_ns", "  their time in the kernel (ns):", NONZERO, JSON_IF(SET)),
	SRC(prog_ns_per_run, NULL, "  per run (ns):", NONZERO, TEXT_LINE),
);

/* --- the state of memory around stat -b ---------------------------- */

#define MEM(m, ...)	F(MEMORY, struct kmem_report_memory, m, __VA_ARGS__)
#define VM(item, ...)	MEM(delta.v[item], __VA_ARGS__)

const struct kmem_section kmem_memory_section = SECTION("memory.vmstat",
	MEM(vmstat, "not_read", "/proc/vmstat not read:", TEXT, NONZERO, JSON_IF(SET)),
	MEM(missing, "missing", "Counters the kernel lacks:", TEXT, NONZERO, JSON_IF(SET)),
	VM(KMEM_VM_ALLOCSTALL, "allocstall", "Direct reclaims (allocstall_*):"),
	VM(KMEM_VM_PGSCAN_DIRECT, "pgscan_direct", "  pages scanned (pgscan_direct):"),
	VM(KMEM_VM_PGSTEAL_DIRECT, "pgsteal_direct", "  reclaimed (pgsteal_direct):"),
	VM(KMEM_VM_COMPACT_STALL, "compact_stall", "Compaction stalls (compact_stall):"),
	VM(KMEM_VM_COMPACT_FAIL, "compact_fail", "  failed (compact_fail):"),
	VM(KMEM_VM_COMPACT_SUCCESS, "compact_success", "  succeeded (compact_success):"),
	VM(KMEM_VM_THP_FAULT_ALLOC, "thp_fault_alloc", "THP faults (thp_fault_alloc):"),
	VM(KMEM_VM_THP_FAULT_FALLBACK, "thp_fault_fallback", "  fell back (thp_fault_fallback):"),
);

/* --- stalls --------------------------------------------------------- */

const struct kmem_section kmem_stall_section = SECTION("page.stalls",
	TRACE(stalls, "status", NULL, TEXT_ONLY),
	TRACE(stall_missing, "missing_events", NULL, TEXT_ONLY, JSON_IF(SET)),
	STALL(all, "all", NULL, GROUP),
	STALL(all.stalls, "stalls", "Stalled allocations:", NESTED),
	STALL(all.failed, "failed", "  failed after all:", NESTED),
	STALL(all.total_ns, "total_ns", "Stall time:", NS, NESTED),
	STALL(all.reclaim_ns, "reclaim_ns", "  in direct reclaim:", NS, NESTED),
	STALL(all.compact_ns, "compaction_ns", "  in compaction:", NS, NESTED),
	STALL(all.mean_ns, "mean_ns", "Mean stall:", NS, NESTED),
	STALL(all.p50_ns, "p50_ns", "  p50:", NS, NESTED),
	STALL(all.p90_ns, "p90_ns", "  p90:", NS, NESTED),
	STALL(all.p99_ns, "p99_ns", "  p99:", NS, NESTED),
	STALL(all.max_ns, "max_ns", "  max:", NS, NESTED),
	STALL(all.reclaims, "reclaims", "Direct reclaims in them:", NESTED),
	STALL(all.reclaimed, "pages_reclaimed", "  pages reclaimed:", NESTED),
	STALL(all.compactions, "compactions", "Compaction attempts in them:", NESTED),
	STALL(compact_outcomes, "compaction_attempts", NULL, GROUP),
	STALL(compact_outcomes[KMEM_COMPACT_SUCCESS], "succeeded",
	      "  succeeded (the page came next):", NESTED),
	STALL(compact_outcomes[KMEM_COMPACT_FAIL], "failed", "  failed (compacted, no page):",
	      NESTED),
	STALL(compact_outcomes[KMEM_COMPACT_SKIPPED], "skipped", "  skipped (nothing compacted):",
	      NESTED),
);

const struct kmem_section kmem_stall_apart_section = SECTION("page.stalls.apart",
	STALL(apart.begun_before, "begun_before", "  begun before the trace:"),
	STALL(apart.not_ended, "not_ended", "  still stalled at its end:"),
	STALL(apart.abandoned, "abandoned", "  allocation not seen:"),
	STALL(apart.memcg_begun_before, "memcg_begun_before", "  memcg reclaims begun before:"),
	STALL(apart.memcg_not_ended, "memcg_not_ended", "  memcg reclaims not ended:"),
	STALL(apart.unpaired, "unpaired", "  begins or ends without a pair:", NONZERO),
);

const struct kmem_section kmem_stall_events_section = SECTION("page.stalls.events",
	STALL(events.reclaims, "direct_reclaims", "  direct reclaims (allocstall):"),
	STALL(events.reclaim_ends, "direct_reclaim_ends", "    ended:"),
	STALL(events.reclaimed, "direct_pages_reclaimed", "    pages reclaimed:"),
	STALL(events.memcg_reclaims, "memcg_reclaims", "  memcg reclaims:"),
	STALL(events.memcg_reclaim_ends, "memcg_reclaim_ends", "    ended:"),
	STALL(events.memcg_reclaimed, "memcg_pages_reclaimed", "    pages reclaimed:"),
	STALL(events.compactions, "compaction_attempts", "  compactions (compact_stall):"),
	STALL(events.outcomes[KMEM_COMPACT_SUCCESS], "compaction_succeeded", "    succeeded:"),
	STALL(events.outcomes[KMEM_COMPACT_FAIL], "compaction_failed", "    failed:"),
	STALL(events.outcomes[KMEM_COMPACT_SKIPPED], "compaction_skipped", "    skipped:"),
	STALL(events.runs, "compaction_runs", "  compaction runs (begin):"),
	STALL(events.direct_runs, "direct_compaction_runs", "    in direct compactions:"),
	STALL(events.run_ends, "compaction_run_ends", "    ended:"),
	STALL(events.deferred, "compaction_deferred", "  compactions deferred:"),
	STALL(events.nested_allocs, "nested_allocations", "  allocations nested in stalls:"),
);

const struct kmem_section kmem_stall_memcg_section = SECTION("page.stalls.memcg",
	STALL(memcg.reclaims, "reclaims", "  memcg reclaims timed:"),
	STALL(memcg.total_ns, "total_ns", "    time, begin to end:", NS),
	STALL(memcg.mean_ns, "mean_ns", "    mean:", NS),
	STALL(memcg.max_ns, "max_ns", "    max:", NS),
	STALL(memcg.reclaimed, "pages_reclaimed", "    pages reclaimed:"),
);

/* --- tables --------------------------------------------------------- */

/*
 * A column: its member in a row, its -s key (NULL: not one), its header
 * (NULL: not in the text), its JSON member (NULL: none), then the rest.
 * A row macro of a table adds the tables of its kind that show it.
 */
#define C(type, member, k, h, j, ...) { .offset = offsetof(type, member), \
	.key = k, .header = h, .json = j, __VA_ARGS__ }
#define C2(type, member, second, ...) \
	C(type, member, __VA_ARGS__, .offset2 = offsetof(type, second))
#define KIND(k)		.kind = KMEM_CELL_##k
#define ONLY_IF(w)	.when = KMEM_IF_##w, .json_when = KMEM_IF_##w
#define IDENT		.flags = KMEM_COL_IDENT
#define NAME_COLUMN	.flags = KMEM_COL_LEFT | KMEM_COL_HEADER_LEFT | KMEM_COL_IDENT
#define JSON_ONLY	.when = KMEM_NEVER
#define US_COLUMN	KIND(NS), .width = 9

/* Columns that several tables have alike; @R is the table's row macro. */
#define ORDER_COL(R)	R(order, "order", "Order", "order", KIND(ORDER), .width = 5, IDENT)
#define MIGTYPE_COL(R)	R(migtype, "migtype", "Migration type", "migration_type", \
			  .alias = "mtype", KIND(MIGTYPE), .width = 14, NAME_COLUMN)
#define GFP_COL(R)	R(gfp, "gfp", "GFP flags", "gfp", KIND(GFP), NAME_COLUMN)
#define PID_COL(R)	R(task, "pid", "Pid", "pid", KIND(PID), .width = 7, IDENT, ONLY_IF(PID))
#define COMM_COL(R)	R(task, "comm", "Command", "comm", KIND(COMM), .width = 15, \
			  NAME_COLUMN, ONLY_IF(COMM))
#define CALLSITE_COL(R, h) \
	R(callsite, "callsite", h, "callsite", KIND(CALLSITE), NAME_COLUMN, ONLY_IF(CALLCHAINS))

#define PAGE_CALLER	KMEM_TABLE_BIT(KMEM_PAGE_TABLE_CALLER)
#define PAGE_ALLOC	KMEM_TABLE_BIT(KMEM_PAGE_TABLE_ALLOC)
#define PAGE_BOTH	(PAGE_CALLER | PAGE_ALLOC)
#define PROW(m, ...)	C(struct kmem_page_row, m, __VA_ARGS__, .tables = PAGE_BOTH)

static const struct kmem_column page_columns[] = {
	C(struct kmem_page_row, pfn, "page", "PFN", "pfn", .alt_header = "Page",
	  .alt_when = KMEM_IF_PAGES, KIND(PFN), .width = 18, .tables = PAGE_ALLOC, IDENT),
	C2(struct kmem_page_row, bytes, order, "bytes", "Total_alloc/Size", "bytes",
	   .alt_header = "Live_bytes/Size", .alt_when = KMEM_IF_LIVE, .diff_header = "Bytes",
	   KIND(PAGES), .width = 19, .tables = PAGE_BOTH),
	PROW(hits, "hit", "Hits", "hits", .alt_header = "Live", .alt_when = KMEM_IF_LIVE,
	     .width = 11),
	PROW(freed, NULL, NULL, "freed", JSON_ONLY),
	ORDER_COL(PROW),
	MIGTYPE_COL(PROW),
	GFP_COL(PROW),
	PROW(xnode_frees, "xnode", "Freed remote", "freed_remote", .width = 12,
	     .when = KMEM_IF_XNODE_TOTALS, JSON_IF(XNODE)),
	PROW(fragmenting, "frag", "Fragmenting", "fragmenting", .width = 11,
	     .when = KMEM_IF_FRAGMENTING, JSON_IF(FRAG_TOTALS)),
	PID_COL(PROW),
	COMM_COL(PROW),
	PROW(stall_ns, "stall", "Stall us", "stall_ns", KIND(NS), .width = 10, ONLY_IF(STALLS)),
	CALLSITE_COL(PROW, "Callsite"),
};

#define FROW(m, ...)	C(struct kmem_frag_row, m, __VA_ARGS__, .tables = 1)
#define CLASS_COLUMN	.width = 11, ONLY_IF(CLASSES)

static const struct kmem_column frag_columns[] = {
	FROW(fragmenting, "frag", "Fragmenting", NULL, .width = 11, .when = KMEM_IF_CLASSES),
	FROW(fallbacks, "hit", "Fallbacks", "fallbacks", KIND(COUNT), .width = 11),
	FROW(fallbacks.bytes, "bytes", "Bytes asked", NULL, .width = 15,
	     .flags = KMEM_COL_COUNT_BYTES),
	FROW(classes[KMEM_FRAG_CLAIMED], "claimed", "Claimed", "claimed", CLASS_COLUMN),
	FROW(classes[KMEM_FRAG_CONVERTED], "converted", "Converted", "converted", CLASS_COLUMN),
	FROW(classes[KMEM_FRAG_POLLUTED], "polluted", "Polluted", "polluted", CLASS_COLUMN),
	FROW(severe, "severe", "Severe", NULL, .width = 11),
	FROW(alloc_migtype, "migtype", "Requested", "requested", .alias = "mtype", KIND(MIGTYPE),
	     .width = 14, NAME_COLUMN),
	FROW(fallback_migtype, "fallback", "Fell back to", "fallback", KIND(MIGTYPE), .width = 14,
	     NAME_COLUMN),
	PID_COL(FROW),
	COMM_COL(FROW),
	FROW(callsite, "callsite", "Callsite", "callsite", KIND(CALLSITE), NAME_COLUMN),
};

#define PINROW(m, ...)	C(struct kmem_frag_pin_row, m, __VA_ARGS__, .tables = 1)

static const struct kmem_column pin_columns[] = {
	PINROW(pageblocks, "blocks", "Pageblocks", "pageblocks", .width = 11),
	PINROW(pages, "hit", "Pages", "pages", KIND(COUNT), .width = 11),
	PINROW(pages.bytes, "bytes", "Bytes", NULL, .width = 15, .flags = KMEM_COL_COUNT_BYTES),
	PID_COL(PINROW),
	COMM_COL(PINROW),
	CALLSITE_COL(PINROW, "Callsite"),
};

#define XROW(m, ...)	C(struct kmem_frag_fail_row, m, __VA_ARGS__, .tables = 1)

static const struct kmem_column fail_columns[] = {
	XROW(asked.nr, "hit", "Failures", "hits", .width = 11),
	XROW(asked.bytes, "bytes", "Bytes asked", "bytes", .width = 15),
	ORDER_COL(XROW),
	MIGTYPE_COL(XROW),
	GFP_COL(XROW),
	CALLSITE_COL(XROW, "Callsite"),
};

#define SLAB_CALLER	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CALLER)
#define SLAB_ALLOC	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_ALLOC)
#define SLAB_CACHE	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CACHE)
#define SLAB_ALL	(SLAB_CALLER | SLAB_ALLOC | SLAB_CACHE)
#define SROW(m, ...)	C(struct kmem_slab_row, m, __VA_ARGS__)
#define SLAB2(m, second, ...) \
	C2(struct kmem_slab_row, m, second, __VA_ARGS__, .tables = SLAB_ALL)

static const struct kmem_column slab_columns[] = {
	SROW(ptr, "ptr", "Alloc Ptr", "ptr", KIND(HEX), .width = 18, .tables = SLAB_ALLOC,
	     .flags = KMEM_COL_HEADER_LEFT | KMEM_COL_IDENT),
	SROW(callsite, "callsite", "Callsite", "callsite", KIND(CALLSITE), .width = 32,
	     .tables = SLAB_CALLER | SLAB_ALLOC, NAME_COLUMN),
	SROW(cache, "cache", "Cache", "cache", KIND(STRING), .width = 32, .tables = SLAB_CACHE,
	     NAME_COLUMN),
	SROW(hits, "hit", "Hits", "hits", .width = 11, .tables = SLAB_ALL),
	SLAB2(bytes_alloc, hits, "bytes", "Total_alloc/Size", "bytes_alloc",
	      .diff_header = "Bytes", KIND(MEAN), .width = 22),
	SLAB2(bytes_req, hits, NULL, "Total_req/Size", "bytes_req", KIND(MEAN), .width = 22),
	SROW(freed, NULL, "Freed", "freed", .width = 11, .tables = SLAB_ALL),
	SROW(pingpong, "pingpong", "Ping-pong", "pingpong", .width = 11, .tables = SLAB_ALL),
	SLAB2(bytes_req, bytes_alloc, "frag", "Frag", NULL, KIND(WASTE), .width = 8),
};

#define DROW(m, ...)	C(struct kmem_stall_dist, m, __VA_ARGS__, .tables = 1)
#define TOTAL_NS	.diff_header = "Total ns", KIND(NS), .width = 12

static const struct kmem_column stall_order_columns[] = {
	ORDER_COL(DROW),
	DROW(stalls, "hit", "Stalls", "stalls", .width = 9),
	DROW(failed, NULL, "Failed", "failed", .width = 7),
	DROW(total_ns, "stall", "Total us", "total_ns", TOTAL_NS),
	DROW(mean_ns, NULL, "Mean us", "mean_ns", US_COLUMN),
	DROW(p50_ns, NULL, "p50 us", "p50_ns", US_COLUMN),
	DROW(p90_ns, NULL, "p90 us", "p90_ns", US_COLUMN),
	DROW(p99_ns, NULL, "p99 us", "p99_ns", US_COLUMN),
	DROW(max_ns, NULL, "Max us", "max_ns", US_COLUMN),
	DROW(reclaim_ns, NULL, NULL, "reclaim_ns", JSON_ONLY),
	DROW(compact_ns, NULL, NULL, "compaction_ns", JSON_ONLY),
	DROW(reclaims, NULL, NULL, "reclaims", JSON_ONLY),
	DROW(compactions, NULL, NULL, "compactions", JSON_ONLY),
	DROW(reclaimed, NULL, NULL, "pages_reclaimed", JSON_ONLY),
};

#define BROW(m, ...)	C(struct kmem_stall_bucket, m, __VA_ARGS__, .tables = 1)

static const struct kmem_column stall_bucket_columns[] = {
	ORDER_COL(BROW),
	BROW(lo_us, "lo", "From us", "lo_us", .width = 10, IDENT),
	/* Named by lo_us already, but a bound, not a count to take a delta of. */
	BROW(hi_us, NULL, "To us", "hi_us", .width = 10, IDENT),
	BROW(stalls, "hit", "Stalls", "stalls", .width = 9),
};

#define ENDROW(m, ...)	C(struct kmem_stall_status_row, m, __VA_ARGS__, .tables = 1)

static const struct kmem_column stall_status_columns[] = {
	ENDROW(ends, "hit", "Ends", "count", .width = 9),
	ENDROW(status, NULL, "Value", "value", .width = 5, IDENT),
	ENDROW(name, "status", "Status", "name", KIND(STRING), NAME_COLUMN),
};

#define WROW(m, ...)	C(struct kmem_stall_wake_row, m, __VA_ARGS__, .tables = 1)
#define WAKE(w)		wakeups[KMEM_WAKE_##w]

static const struct kmem_column stall_wake_columns[] = {
	ORDER_COL(WROW),
	WROW(WAKE(KSWAPD_WAKEUP), "kswapd", "kswapd woken", "kswapd_woken", .width = 15),
	WROW(WAKE(KSWAPD), NULL, "kswapd ran", "kswapd_ran", .width = 15),
	WROW(WAKE(KCOMPACTD_WAKEUP), "kcompactd", "kcompactd woken", "kcompactd_woken",
	     .width = 15),
	WROW(WAKE(KCOMPACTD), NULL, "kcompactd ran", "kcompactd_ran", .width = 15),
};

#define TROW(m, ...)	C(struct kmem_stall_row, m, __VA_ARGS__, .tables = 1)

static const struct kmem_column stall_columns[] = {
	TROW(stalls, "hit", "Stalls", "stalls", .width = 8),
	TROW(failed, "failed", "Failed", "failed", .width = 6),
	TROW(total_ns, "stall", "Total us", "total_ns", TOTAL_NS),
	TROW(mean_ns, "mean", "Mean us", "mean_ns", US_COLUMN),
	TROW(max_ns, "max", "Max us", "max_ns", US_COLUMN),
	TROW(reclaim_ns, "reclaim", "Reclaim us", "reclaim_ns", KIND(NS), .width = 10),
	TROW(compact_ns, "compaction", "Compact us", "compaction_ns", KIND(NS), .width = 10),
	TROW(reclaimed, "pages", "Pages", "pages_reclaimed", .width = 8),
	TROW(reclaims, NULL, NULL, "reclaims", JSON_ONLY),
	TROW(compactions, NULL, NULL, "compactions", JSON_ONLY),
	TROW(compact_ok, NULL, "Compact ok", "compaction_succeeded", .width = 10),
	TROW(compact_fail, NULL, "fail", "compaction_failed", .width = 6),
	ORDER_COL(TROW),
	MIGTYPE_COL(TROW),
	GFP_COL(TROW),
	CALLSITE_COL(TROW, "Callsite"),
};

#define MROW(m, ...)	C(struct kmem_stall_memcg_row, m, __VA_ARGS__, .tables = 1)

static const struct kmem_column stall_memcg_columns[] = {
	MROW(reclaims, "hit", "memcg reclaims", "reclaims", .width = 14),
	MROW(total_ns, "stall", "Total us", "total_ns", TOTAL_NS),
	MROW(mean_ns, NULL, "Mean us", "mean_ns", US_COLUMN),
	MROW(max_ns, NULL, "Max us", "max_ns", US_COLUMN),
	MROW(reclaimed, NULL, "Pages", "pages_reclaimed", .width = 8),
	GFP_COL(MROW),
	CALLSITE_COL(MROW, "Callsite (of the reclaim)"),
};

/* A table: its path, columns, table bit, sort keys, the diff's words. */
#define TABLE(p, c, b, s, w, ...) { .path = p, .cols = c, .nr_cols = ARRAY_SIZE(c), \
	.bit = b, .sort = s, .what = w, __VA_ARGS__ }
#define USER_SORT	.user_sort = true
#define BY_DEFAULT	.by_default = true
#define DIFF_KEYS(k)	.diff_keys = k

const struct kmem_table kmem_tables[KMEM_NR_TABLES] = {
	[KMEM_PAGE_CALLERS] = TABLE("page.callers", page_columns, KMEM_PAGE_TABLE_CALLER,
		"bytes,hit",
		"page allocations, by callsite, order, migration type and GFP flags",
		USER_SORT, BY_DEFAULT),
	[KMEM_PAGE_ALLOCS] = TABLE("page.allocs", page_columns, KMEM_PAGE_TABLE_ALLOC,
		"bytes,hit", NULL, USER_SORT),
	[KMEM_FRAG_CALLERS] = TABLE("page.fragmentation.callers", frag_columns, 0, "frag,hit",
		"fallbacks, by callsite, requested type and type fallen back to"),
	[KMEM_FRAG_PINNED] = TABLE("page.fragmentation.pinned.callers", pin_columns, 0,
		"blocks,bytes",
		"pages fallen back into Movable pageblocks and still allocated, by callsite"),
	[KMEM_FRAG_FAILURES] = TABLE("page.fragmentation.failures", fail_columns, 0, "hit,bytes",
		"failed page allocations, by callsite, order, migration type and GFP flags"),
	[KMEM_SLAB_CALLERS] = TABLE("slab.callers", slab_columns, KMEM_SLAB_TABLE_CALLER,
		"frag,hit,bytes", "slab allocations, by callsite", USER_SORT, BY_DEFAULT),
	[KMEM_SLAB_CACHES] = TABLE("slab.caches", slab_columns, KMEM_SLAB_TABLE_CACHE,
		"frag,hit,bytes", "slab allocations, by cache", USER_SORT, BY_DEFAULT),
	[KMEM_SLAB_ALLOCS] = TABLE("slab.allocs", slab_columns, KMEM_SLAB_TABLE_ALLOC,
		"frag,hit,bytes", NULL, USER_SORT),
	[KMEM_STALL_ORDERS] = TABLE("page.stalls.by_order", stall_order_columns, 0, "order",
		"stalled allocations, by order", BY_DEFAULT, DIFF_KEYS("stall,hit")),
	[KMEM_STALL_BUCKETS] = TABLE("page.stalls.histogram", stall_bucket_columns, 0,
		"order,lo", "stalls, by order and log2 bucket of their length",
		DIFF_KEYS("hit")),
	[KMEM_STALL_STATUSES] = TABLE("page.stalls.compaction_ends", stall_status_columns, 0,
		"status", "compaction runs, by the status they ended with", BY_DEFAULT,
		DIFF_KEYS("hit")),
	[KMEM_STALL_WAKEUPS] = TABLE("page.stalls.wakeups", stall_wake_columns, 0, "order",
		"kswapd and kcompactd wake-ups, by order", BY_DEFAULT,
		DIFF_KEYS("kswapd,kcompactd")),
	[KMEM_STALL_CALLERS] = TABLE("page.stalls.callers", stall_columns, 0, "stall,hit",
		"stalled allocations, by callsite, order, migration type and GFP flags",
		DIFF_KEYS("stall,hit")),
	[KMEM_STALL_MEMCG] = TABLE("page.stalls.memcg_callers", stall_memcg_columns, 0,
		"stall,hit", "memcg reclaims, by the callsite of their begin and GFP flags",
		DIFF_KEYS("stall,hit")),
};

/* --- sorting ------------------------------------------------------- */

/* Does -s, in @names, name @col? */
static bool among_keys(const struct kmem_table *t, const struct kmem_column *col,
		       const struct kmem_sort_keys *names)
{
	int i;

	for (i = 0; names && i < names->nr; i++)
		if (kmem_table__column(t, names->name[i], names->len[i]) == col)
			return true;
	return false;
}

/*
 * The keys of -s, then the table's own (kmem_report__sort_table()): rows
 * tied on every key of -s (-s frag on a trace without fallbacks, -s comm)
 * come largest first, not in the order of their callsites' addresses.
 */
static void sort_names(const struct kmem_cell_ctx *ctx, const struct kmem_table *t,
		       const struct kmem_sort_keys *names, struct kmem_sort_keys *keys)
{
	struct kmem_sort_keys own;
	int i;

	if (names)
		*keys = *names;
	else
		kmem_sort_keys__split(keys, NULL);
	kmem_sort_keys__split(&own, t->sort);
	for (i = 0; i < own.nr && keys->nr < KMEM_MAX_SORT_KEYS; i++) {
		const struct kmem_column *col = kmem_table__column(t, own.name[i], own.len[i]);

		if (col && kmem_report__holds(ctx, col->when) && !among_keys(t, col, names)) {
			keys->name[keys->nr] = own.name[i];
			keys->len[keys->nr++] = own.len[i];
		}
	}
}

#define ROWS(call)	(t->rows = (const void * const *)(call))

int kmem_report__sort_table(struct kmem_report_table *t,
			    enum kmem_report_table_id id,
			    const struct kmem_cell_ctx *ctx,
			    const struct kmem_report_analyses *a,
			    const struct kmem_report_sort *sort)
{
	const struct kmem_table *desc = &kmem_tables[id];
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	char bad[32];
	int i, nr_keys = 0;

	if (sort && sort->unsorted) {
		kmem_sort_keys__split(&t->sort, NULL);
	} else {
		sort_names(ctx, desc, sort ? sort->names : NULL, &t->sort);
		nr_keys = kmem_table__parse_sort(desc, &t->sort, keys, bad,
						 sizeof(bad));
		if (nr_keys < 0)
			return nr_keys;
	}
	/* A callsite sorts by its name, which only the report knows. */
	for (i = 0; i < nr_keys; i++) {
		if (keys[i].kind == KMEM_SORT_NAME) {
			keys[i].name = ctx->callsite_name;
			keys[i].name_arg = ctx->arg;
		}
	}
	switch (id) {
	case KMEM_PAGE_CALLERS:
	case KMEM_PAGE_ALLOCS:
		ROWS(kmem_page__rows(a->kp, desc->bit, keys, nr_keys, &t->nr));
		break;
	case KMEM_FRAG_CALLERS:
		ROWS(kmem_frag__rows(a->kf, keys, nr_keys, &t->nr));
		break;
	case KMEM_FRAG_PINNED:
		ROWS(kmem_frag__pin_rows(a->kf, keys, nr_keys, &t->nr));
		break;
	case KMEM_FRAG_FAILURES:
		ROWS(kmem_frag__fail_rows(a->kf, keys, nr_keys, &t->nr));
		break;
	case KMEM_SLAB_CALLERS:
	case KMEM_SLAB_CACHES:
	case KMEM_SLAB_ALLOCS:
		ROWS(kmem_slab__rows(a->ks, desc->bit, keys, nr_keys, &t->nr));
		break;
	/* The stall analysis's tables: by order, bucket and status as they come. */
	case KMEM_STALL_ORDERS:
		ROWS(kmem_stall__orders(a->st, &t->nr));
		break;
	case KMEM_STALL_BUCKETS:
		ROWS(kmem_stall__buckets(a->st, &t->nr));
		break;
	case KMEM_STALL_STATUSES:
		ROWS(kmem_stall__status_rows(a->st, &t->nr));
		break;
	case KMEM_STALL_WAKEUPS:
		ROWS(kmem_stall__wake_rows(a->st, &t->nr));
		break;
	case KMEM_STALL_CALLERS:
		ROWS(kmem_stall__rows(a->st, keys, nr_keys, &t->nr));
		break;
	case KMEM_STALL_MEMCG:
		ROWS(kmem_stall__memcg_rows(a->st, &t->nr));
		break;
	case KMEM_NR_TABLES:
	default:
		return -EINVAL;
	}
	/* The stall analysis has no rows where the trace has no stalls. */
	return t->rows || (id >= KMEM_STALL_ORDERS && !t->nr) ? 0 : -ENOMEM;
}
