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

#define F(s, type, member, ...) \
	{ .src = KMEM_SRC_##s, .offset = offsetof(type, member), __VA_ARGS__ }
#define TRACE(member, ...)	F(TRACE, struct kmem_report_trace, member, __VA_ARGS__)
#define PAGE(member, ...)	F(PAGE, struct kmem_page_summary, member, __VA_ARGS__)
#define FRAG(member, ...)	F(FRAG, struct kmem_frag_summary, member, __VA_ARGS__)
#define SLAB(member, ...)	F(SLAB, struct kmem_slab_summary, member, __VA_ARGS__)
#define IV(member, ...)		F(INTERVAL, struct kmem_interval_row, member, __VA_ARGS__)
#define SRC(member, ...)	F(COUNTED, struct kmem_report_source, member, __VA_ARGS__)
#define STALL(member, ...)	F(STALL, struct kmem_stall_summary, member, __VA_ARGS__)
#define SECTION(p, f)		{ .path = p, .fields = f, .nr_fields = ARRAY_SIZE(f) }

#define TEXT_ONLY	.unit = KMEM_UNIT_TEXT, .text_when = KMEM_NEVER
#define NUMBER		.unit = KMEM_UNIT_NUMBER
#define BYTES		.unit = KMEM_UNIT_BYTES
#define NONZERO		.text_when = KMEM_IF_NONZERO
#define NOT_IN_TEXT	.text_when = KMEM_NEVER
#define PAIRED		.text_when = KMEM_IF_PAIRED
#define SLAB_PAIRED	.text_when = KMEM_IF_SLAB_PAIRED
#define TEXT		.unit = KMEM_UNIT_TEXT
#define TEXT_LINE	.json_when = KMEM_NEVER

static const struct kmem_field trace_fields[] = {
	TRACE(path, .name = "path", TEXT_ONLY),
	TRACE(os_release, .name = "os_release", TEXT_ONLY),
	TRACE(hostname, .name = "hostname", TEXT_ONLY, .json_when = KMEM_IF_SET),
	TRACE(arch, .name = "arch", TEXT_ONLY, .json_when = KMEM_IF_SET),
	TRACE(nr_cpus, .name = "nr_cpus", .label = "CPUs:", NUMBER, NOT_IN_TEXT,
	      .json_when = KMEM_IF_SET),
	TRACE(time_window, .name = "time_window", TEXT_ONLY,
	      .json_when = KMEM_IF_SET),
	TRACE(nr_samples, .name = "nr_samples", .label = "Samples analysed:",
	      NUMBER, NOT_IN_TEXT),
	TRACE(nr_page_events, .name = "nr_page_events",
	      .label = "  page allocator events:", NUMBER, NOT_IN_TEXT),
	TRACE(nr_slab_events, .name = "nr_slab_events",
	      .label = "  slab allocator events:", NUMBER, NOT_IN_TEXT),
	TRACE(nr_extfrag_events, .name = "nr_extfrag_events",
	      .label = "  fallback (extfrag) events:", NUMBER, NOT_IN_TEXT),
	TRACE(events_lost, .name = "events_lost",
	      .label = "Events lost while recording:", NUMBER, NONZERO,
	      .note = " Totals are approximate: record with a larger -m."),
	TRACE(events_too_short, .name = "events_too_short",
	      .label = "Events ignored (too short):", NUMBER, NONZERO),
	TRACE(events_out_of_order, .name = "events_out_of_order",
	      .label = "Events out of time order:", NUMBER, NONZERO,
	      .note =
	      " They came after later events were counted: a larger kmem.queue-size helps."),
	TRACE(sampled, .name = "sampled", TEXT_ONLY, .json_when = KMEM_IF_SET),
	TRACE(callsites_unresolved, .name = "callsites_unresolved",
	      .unit = KMEM_UNIT_BOOL, NOT_IN_TEXT),
};

const struct kmem_section kmem_trace_section = SECTION("perf_data", trace_fields);

static const struct kmem_field page_fields[] = {
	TRACE(page_size, .name = "page_size", .label = "Page size:", BYTES,
	      NOT_IN_TEXT),
	TRACE(live, .name = "live", .unit = KMEM_UNIT_BOOL, NOT_IN_TEXT),
};

const struct kmem_section kmem_page_section = SECTION("page", page_fields);

static const struct kmem_field page_summary_fields[] = {
	PAGE(life.freed, .name = "allocated_freed",
	     .label = "Pages allocated+freed:", PAIRED, .flags = KMEM_FIELD_GAP),
	PAGE(life.unfreed, .name = "allocated_only",
	     .label = "Pages allocated-only:", PAIRED),
	PAGE(life.live, .name = "still_live",
	     .label = "  still allocated at the end:", PAIRED,
	     .flags = KMEM_FIELD_NESTED),
	PAGE(life.dropped, .name = "allocated_again",
	     .label = "  allocated again, free not seen:", PAIRED,
	     .flags = KMEM_FIELD_NESTED),
	PAGE(free_only, .name = "freed_only", .label = "Pages freed-only:",
	     PAIRED, .flags = KMEM_FIELD_GAP),
	PAGE(fail, .name = "failures", .label = "Page allocation failures:",
	     .flags = KMEM_FIELD_GAP),
	PAGE(alloc, .name = "total_allocations", .label = "Total allocations:"),
	PAGE(free, .name = "total_frees", .label = "Total frees:"),
	PAGE(free_order_differs, .name = "frees_of_another_order",
	     .label = "Frees of another order:", NUMBER, NONZERO),
	PAGE(bad_migtype, .name = "unknown_migration_types",
	     .label = "Unknown migration types (Special):", NUMBER, NONZERO),
	PAGE(bad_order, .name = "ignored_bad_order",
	     .label = "Events ignored (bad order):", NUMBER, NONZERO),
};

const struct kmem_section kmem_page_summary_section =
	SECTION("page.summary", page_summary_fields);

static const struct kmem_field cross_node_fields[] = {
	TRACE(cross_node, .name = "status", TEXT_ONLY),
	TRACE(nr_nodes, .name = "nr_nodes", .label = "NUMA nodes:", NUMBER,
	      NOT_IN_TEXT),
	PAGE(alloc_remote, .name = "allocations_remote",
	     .label = "Allocations of remote memory:",
	     .json_when = KMEM_IF_PFNS, .flags = KMEM_FIELD_NULLABLE,
	     .unknown =
	     " Remote memory unknown: the kernel traced struct page addresses, not pfns."),
	PAGE(free_remote, .name = "frees_remote",
	     .label = "Frees of remote memory:", .json_when = KMEM_IF_PFNS,
	     .flags = KMEM_FIELD_NULLABLE),
	PAGE(free_other_node, .name = "freed_on_other_node",
	     .label = "Allocations freed on another node:"),
};

const struct kmem_section kmem_cross_node_section =
	SECTION("page.cross_node", cross_node_fields);

static const struct kmem_field frag_fields[] = {
	TRACE(fragmentation, .name = "status", TEXT_ONLY),
	TRACE(pageblock_order, .name = "pageblock_order",
	      .label = "Pageblock order:", NUMBER, NOT_IN_TEXT,
	      .json_when = KMEM_IF_CLASSES, .flags = KMEM_FIELD_NULLABLE),
	FRAG(fallbacks, .name = "fallbacks",
	     .label = "Fallbacks to other types' pages:"),
	FRAG(classes, .name = "classes", .unit = KMEM_UNIT_GROUP,
	     .text_when = KMEM_IF_CLASSES, .json_when = KMEM_IF_CLASSES),
	FRAG(classes[KMEM_FRAG_CLAIMED], .name = "claimed",
	     .label = "  claimed a free pageblock:", .flags = KMEM_FIELD_NESTED),
	FRAG(classes[KMEM_FRAG_CONVERTED], .name = "converted",
	     .label = "  converted a pageblock:", .flags = KMEM_FIELD_NESTED),
	FRAG(classes[KMEM_FRAG_POLLUTED], .name = "polluted",
	     .label = "  polluted a pageblock:", .flags = KMEM_FIELD_NESTED),
	FRAG(fragmenting, .name = "fragmenting",
	     .label = "Fragmenting (converted+polluted):",
	     .text_when = KMEM_IF_CLASSES, .json_when = KMEM_IF_CLASSES),
	FRAG(severe, .name = "severe", .label = "Severe (from orders 0 to 3):"),
	FRAG(bad_fallbacks, .name = "ignored_events",
	     .label = "Events ignored (cannot be real):", NUMBER, NONZERO),
};

const struct kmem_section kmem_frag_section =
	SECTION("page.fragmentation", frag_fields);

/* The arrays by column are the renderers': shares in the text. */
static const struct kmem_field pageblock_fields[] = {
	FRAG(blocks.allocated, .name = "touched",
	     .label = "Pageblocks allocated into:", NUMBER),
	FRAG(blocks.mixed, .name = "mixed",
	     .label = "  of more than one type (mixed):", NUMBER),
	FRAG(blocks.unmovable_or_reclaimable, .name = "unmovable_or_reclaimable",
	     .label = "  Unmovable or Reclaimable:", NUMBER),
	FRAG(blocks.fallback_only, .name = "fallback_only",
	     .label = "Fallen back into, no allocation:", NUMBER, NONZERO),
};

const struct kmem_section kmem_pageblock_section =
	SECTION("page.fragmentation.mixed_pageblocks", pageblock_fields);

/*
 * The pages that fell back into a Movable pageblock for an Unmovable or
 * Reclaimable allocation and were still allocated at the end: what keeps
 * compaction from freeing those pageblocks.
 */
static const struct kmem_field pinned_fields[] = {
	FRAG(pinned.pages, .name = "pages",
	     .label = "Fallen back, still allocated:"),
	FRAG(pinned.pageblocks, .name = "pageblocks",
	     .label = "  pageblocks they pin:", NUMBER),
};

const struct kmem_section kmem_pinned_section =
	SECTION("page.fragmentation.pinned", pinned_fields);

static const struct kmem_field slab_summary_fields[] = {
	SLAB(alloc, .name = "total_allocations", .label = "Total allocations:"),
	SLAB(bytes_req, .name = "bytes_requested",
	     .label = "Total bytes requested:", BYTES),
	SLAB(wasted, .name = "wasted_bytes", .label = "Internal fragmentation:",
	     BYTES),
	SLAB(wasted_share, .label = "  wasted of allocated:",
	     .unit = KMEM_UNIT_PERCENT, .json_when = KMEM_NEVER,
	     .flags = KMEM_FIELD_GAP),
	SLAB(life.freed, .name = "allocated_freed", .label = "Allocated+freed:",
	     SLAB_PAIRED),
	SLAB(life.unfreed, .name = "allocated_only", .label = "Allocated-only:",
	     SLAB_PAIRED),
	SLAB(life.live, .name = "still_live",
	     .label = "  still allocated at the end:", SLAB_PAIRED,
	     .flags = KMEM_FIELD_NESTED),
	SLAB(life.dropped, .name = "allocated_again",
	     .label = "  allocated again, free not seen:", SLAB_PAIRED,
	     .flags = KMEM_FIELD_NESTED | KMEM_FIELD_GAP),
	SLAB(free, .name = "frees", .unit = KMEM_UNIT_GROUP),
	SLAB(free, .name = "total", .label = "Total frees:", NUMBER,
	     .flags = KMEM_FIELD_NESTED),
	SLAB(free_unknown, .name = "unknown_pointers",
	     .label = "  of unknown pointers:", NUMBER, SLAB_PAIRED,
	     .flags = KMEM_FIELD_NESTED),
	SLAB(free_again, .name = "repeated",
	     .label = "  repeated frees of a pointer:", NUMBER, SLAB_PAIRED,
	     .flags = KMEM_FIELD_NESTED),
	SLAB(free_null, .name = "null", .label = "  of NULL or ZERO_SIZE_PTR:",
	     NUMBER, .flags = KMEM_FIELD_NESTED | KMEM_FIELD_GAP),
	SLAB(fail, .name = "failures",
	     .label = "Allocation failures (requested):"),
	SLAB(zero_size.nr, .name = "zero_size", .label = "Zero-size allocations:",
	     NUMBER, NONZERO),
	SLAB(pingpong, .name = "pingpong",
	     .label = "Ping-pong frees (on another CPU):", SLAB_PAIRED),
	SLAB(xnode, .name = "cross_node", .label = "Cross-node allocations:",
	     .json_when = KMEM_IF_CPU_NODES, .flags = KMEM_FIELD_NULLABLE,
	     .unknown = " Cross-node analysis needs the NUMA topology of a newer perf record."),
};

const struct kmem_section kmem_slab_summary_section =
	SECTION("slab.summary", slab_summary_fields);

static const struct kmem_field interval_fields[] = {
	IV(start, .name = "start_ns", NUMBER),
	IV(time, .name = "time_ns", NUMBER),
	IV(alloc, .name = "allocations"),
	IV(free, .name = "frees"),
	IV(fail, .name = "failures"),
	IV(live_bytes, .name = "live_bytes", NUMBER),
	IV(free_other_node, .name = "freed_on_other_node",
	   .json_when = KMEM_IF_XNODE),
	IV(fallbacks, .name = "fallbacks", .json_when = KMEM_IF_CLASSES),
	IV(classes[KMEM_FRAG_CLAIMED], .name = "claimed",
	   .json_when = KMEM_IF_CLASSES),
	IV(classes[KMEM_FRAG_CONVERTED], .name = "converted",
	   .json_when = KMEM_IF_CLASSES),
	IV(classes[KMEM_FRAG_POLLUTED], .name = "polluted",
	   .json_when = KMEM_IF_CLASSES),
	IV(stalls, .name = "stalls", NUMBER, .json_when = KMEM_IF_STALLS),
	IV(stall_ns, .name = "stall_ns", NUMBER, .json_when = KMEM_IF_STALLS),
};

const struct kmem_section kmem_interval_section =
	SECTION("page.intervals.rows", interval_fields);

/*
 * perf kmem stat -b: where the numbers come from, what is exact, what is
 * estimated and from how many samples, and what could not be counted.
 */
static const struct kmem_field counted_fields[] = {
	SRC(name, .name = "name", TEXT_ONLY),
	SRC(tasks, .name = "tasks", .label = "Events of:", TEXT),
	SRC(duration_ms, .label = "Counted for (ms):", NUMBER, TEXT_LINE),
	SRC(duration_ns, .name = "duration_ns", NUMBER, NOT_IN_TEXT),
	SRC(exact, .label = "Exact:", TEXT, TEXT_LINE),
	SRC(estimated, .label = "Estimated:", TEXT, NONZERO, TEXT_LINE),
	SRC(callers, .name = "callers", TEXT_ONLY),
	SRC(lifetimes, .name = "lifetimes", TEXT_ONLY),
	SRC(sample_bytes, .name = "sample_bytes",
	    .label = "A stack per bytes (mean):", NUMBER,
	    .text_when = KMEM_IF_ESTIMATED,
	    .note =
	    " An allocation of s bytes is sampled with p = 1 - exp(-s / that), and counts 1/p."),
	SRC(sampled, .name = "sampled_allocations",
	    .label = "Allocations sampled:", NUMBER,
	    .text_when = KMEM_IF_ESTIMATED),
	SRC(rare_taken, .name = "rare_stacks_taken",
	    .label = "Failures, fallbacks with a stack:", NUMBER, NONZERO),
	SRC(rare_sampled, .name = "rare_stacks_sampled",
	    .label = "  past the rate, sampled:", NUMBER, NONZERO),
	SRC(live_entries, .name = "live_map_entries",
	    .label = "Live-page map entries (-M):", NUMBER),
	SRC(untracked, .name = "untracked",
	    .label = "Allocations untracked (map full):", NUMBER, NONZERO,
	    .note = " Their frees count as freed-only: a larger -M tracks them."),
	SRC(untracked_sampled, .name = "untracked_sampled",
	    .label = "  of them sampled:", NUMBER, NONZERO),
	SRC(stack_walks_failed, .name = "stack_walks_failed",
	    .label = "Stack walks failed:", NUMBER, NONZERO),
	SRC(stacks_map_full, .name = "stacks_map_full",
	    .label = "Stacks not kept (map full, -M):", NUMBER, NONZERO),
	SRC(rows_map_full, .name = "rows_map_full",
	    .label = "Sampled rows not kept (map full):", NUMBER, NONZERO,
	    .note = " Those samples are in no callsite row."),
	SRC(tasks_map_full, .name = "tasks_map_full",
	    .label = "Forked tasks not followed (-M):", NUMBER, NONZERO),
	SRC(events_missed, .name = "events_missed",
	    .label = "Runs skipped by the kernel:", NUMBER, NONZERO,
	    .note = " Events of any task that came while a program of perf kmem ran on their CPU."),
	SRC(fallbacks, .name = "fallbacks_counted", .unit = KMEM_UNIT_BOOL,
	    NOT_IN_TEXT),
	SRC(no_fallbacks, .label = "Fallbacks not counted:", TEXT, NONZERO,
	    TEXT_LINE),
	SRC(map_bytes, .name = "map_bytes", BYTES, NOT_IN_TEXT),
	SRC(stall_events_lost, .name = "stall_events_lost",
	    .label = "Stall events lost (ring full, -M):", NUMBER, NONZERO,
	    .note = " The STALLS section misses them: a larger -M keeps them."),
	SRC(prog_runs, .name = "program_runs",
	    .label = "Runs of the BPF programs:", NUMBER, NONZERO,
	    .json_when = KMEM_IF_SET),
	SRC(prog_ns, .name = "program_ns", .label = "  their time in the kernel (ns):",
	    NUMBER, NONZERO, .json_when = KMEM_IF_SET),
	SRC(prog_ns_per_run, .label = "  per run (ns):", NUMBER, NONZERO,
	    TEXT_LINE),
};

const struct kmem_section kmem_counted_section =
	SECTION("source", counted_fields);

/* --- the state of memory around stat -b ---------------------------- */

#define MEM(member, ...)	F(MEMORY, struct kmem_report_memory, member, __VA_ARGS__)
#define VM(item, ...)		MEM(delta.v[item], NUMBER, __VA_ARGS__)

static const struct kmem_field memory_fields[] = {
	MEM(vmstat, .name = "not_read", .label = "/proc/vmstat not read:", TEXT,
	    NONZERO, .json_when = KMEM_IF_SET),
	MEM(missing, .name = "missing", .label = "Counters the kernel lacks:",
	    TEXT, NONZERO, .json_when = KMEM_IF_SET),
	VM(KMEM_VM_ALLOCSTALL, .name = "allocstall",
	   .label = "Direct reclaims (allocstall_*):"),
	VM(KMEM_VM_PGSCAN_DIRECT, .name = "pgscan_direct",
	   .label = "  pages scanned (pgscan_direct):"),
	VM(KMEM_VM_PGSTEAL_DIRECT, .name = "pgsteal_direct",
	   .label = "  reclaimed (pgsteal_direct):"),
	VM(KMEM_VM_COMPACT_STALL, .name = "compact_stall",
	   .label = "Compaction stalls (compact_stall):"),
	VM(KMEM_VM_COMPACT_FAIL, .name = "compact_fail",
	   .label = "  failed (compact_fail):"),
	VM(KMEM_VM_COMPACT_SUCCESS, .name = "compact_success",
	   .label = "  succeeded (compact_success):"),
	VM(KMEM_VM_THP_FAULT_ALLOC, .name = "thp_fault_alloc",
	   .label = "THP faults (thp_fault_alloc):"),
	VM(KMEM_VM_THP_FAULT_FALLBACK, .name = "thp_fault_fallback",
	   .label = "  fell back (thp_fault_fallback):"),
};

const struct kmem_section kmem_memory_section =
	SECTION("memory.vmstat", memory_fields);

/* --- stalls --------------------------------------------------------- */

#define NS		.unit = KMEM_UNIT_NS
#define IN_STALL	.flags = KMEM_FIELD_NESTED
#define STALLS_ONLY	.text_when = KMEM_IF_STALLS, .json_when = KMEM_IF_STALLS

static const struct kmem_field stall_fields[] = {
	TRACE(stalls, .name = "status", TEXT_ONLY),
	TRACE(stall_missing, .name = "missing_events", TEXT_ONLY,
	      .json_when = KMEM_IF_SET),
	STALL(all, .name = "all", .unit = KMEM_UNIT_GROUP),
	STALL(all.stalls, .name = "stalls", .label = "Stalled allocations:",
	      NUMBER, IN_STALL),
	STALL(all.failed, .name = "failed", .label = "  failed after all:",
	      NUMBER, IN_STALL),
	STALL(all.total_ns, .name = "total_ns", .label = "Stall time:", NS,
	      IN_STALL),
	STALL(all.reclaim_ns, .name = "reclaim_ns", .label = "  in direct reclaim:",
	      NS, IN_STALL),
	STALL(all.compact_ns, .name = "compaction_ns",
	      .label = "  in compaction:", NS, IN_STALL),
	STALL(all.mean_ns, .name = "mean_ns", .label = "Mean stall:", NS, IN_STALL),
	STALL(all.p50_ns, .name = "p50_ns", .label = "  p50:", NS, IN_STALL),
	STALL(all.p90_ns, .name = "p90_ns", .label = "  p90:", NS, IN_STALL),
	STALL(all.p99_ns, .name = "p99_ns", .label = "  p99:", NS, IN_STALL),
	STALL(all.max_ns, .name = "max_ns", .label = "  max:", NS, IN_STALL),
	STALL(all.reclaims, .name = "reclaims",
	      .label = "Direct reclaims in them:", NUMBER, IN_STALL),
	STALL(all.reclaimed, .name = "pages_reclaimed",
	      .label = "  pages reclaimed:", NUMBER, IN_STALL),
	STALL(all.compactions, .name = "compactions",
	      .label = "Compaction attempts in them:", NUMBER, IN_STALL),
	STALL(compact_outcomes, .name = "compaction_attempts",
	      .unit = KMEM_UNIT_GROUP),
	STALL(compact_outcomes[KMEM_COMPACT_SUCCESS], .name = "succeeded",
	      .label = "  succeeded (the page came next):", NUMBER, IN_STALL),
	STALL(compact_outcomes[KMEM_COMPACT_FAIL], .name = "failed",
	      .label = "  failed (compacted, no page):", NUMBER, IN_STALL),
	STALL(compact_outcomes[KMEM_COMPACT_SKIPPED], .name = "skipped",
	      .label = "  skipped (nothing compacted):", NUMBER, IN_STALL),
};

const struct kmem_section kmem_stall_section = SECTION("page.stalls", stall_fields);

static const struct kmem_field stall_apart_fields[] = {
	STALL(apart.begun_before, .name = "begun_before",
	      .label = "  begun before the trace:", NUMBER),
	STALL(apart.not_ended, .name = "not_ended",
	      .label = "  still stalled at its end:", NUMBER),
	STALL(apart.abandoned, .name = "abandoned",
	      .label = "  allocation not seen:", NUMBER),
	STALL(apart.memcg_begun_before, .name = "memcg_begun_before",
	      .label = "  memcg reclaims begun before:", NUMBER),
	STALL(apart.memcg_not_ended, .name = "memcg_not_ended",
	      .label = "  memcg reclaims not ended:", NUMBER),
	STALL(apart.unpaired, .name = "unpaired",
	      .label = "  begins or ends without a pair:", NUMBER, NONZERO),
};

const struct kmem_section kmem_stall_apart_section =
	SECTION("page.stalls.apart", stall_apart_fields);

static const struct kmem_field stall_event_fields[] = {
	STALL(events.reclaims, .name = "direct_reclaims",
	      .label = "  direct reclaims (allocstall):", NUMBER),
	STALL(events.reclaim_ends, .name = "direct_reclaim_ends",
	      .label = "    ended:", NUMBER),
	STALL(events.reclaimed, .name = "direct_pages_reclaimed",
	      .label = "    pages reclaimed:", NUMBER),
	STALL(events.memcg_reclaims, .name = "memcg_reclaims",
	      .label = "  memcg reclaims:", NUMBER),
	STALL(events.memcg_reclaim_ends, .name = "memcg_reclaim_ends",
	      .label = "    ended:", NUMBER),
	STALL(events.memcg_reclaimed, .name = "memcg_pages_reclaimed",
	      .label = "    pages reclaimed:", NUMBER),
	STALL(events.compactions, .name = "compaction_attempts",
	      .label = "  compactions (compact_stall):", NUMBER),
	STALL(events.outcomes[KMEM_COMPACT_SUCCESS], .name = "compaction_succeeded",
	      .label = "    succeeded:", NUMBER),
	STALL(events.outcomes[KMEM_COMPACT_FAIL], .name = "compaction_failed",
	      .label = "    failed:", NUMBER),
	STALL(events.outcomes[KMEM_COMPACT_SKIPPED], .name = "compaction_skipped",
	      .label = "    skipped:", NUMBER),
	STALL(events.runs, .name = "compaction_runs",
	      .label = "  compaction runs (begin):", NUMBER),
	STALL(events.direct_runs, .name = "direct_compaction_runs",
	      .label = "    in direct compactions:", NUMBER),
	STALL(events.run_ends, .name = "compaction_run_ends",
	      .label = "    ended:", NUMBER),
	STALL(events.deferred, .name = "compaction_deferred",
	      .label = "  compactions deferred:", NUMBER),
	STALL(events.nested_allocs, .name = "nested_allocations",
	      .label = "  allocations nested in stalls:", NUMBER),
};

const struct kmem_section kmem_stall_events_section =
	SECTION("page.stalls.events", stall_event_fields);

static const struct kmem_field stall_memcg_fields[] = {
	STALL(memcg.reclaims, .name = "reclaims",
	      .label = "  memcg reclaims timed:", NUMBER),
	STALL(memcg.total_ns, .name = "total_ns",
	      .label = "    time, begin to end:", NS),
	STALL(memcg.mean_ns, .name = "mean_ns", .label = "    mean:", NS),
	STALL(memcg.max_ns, .name = "max_ns", .label = "    max:", NS),
	STALL(memcg.reclaimed, .name = "pages_reclaimed",
	      .label = "    pages reclaimed:", NUMBER),
};

const struct kmem_section kmem_stall_memcg_section =
	SECTION("page.stalls.memcg", stall_memcg_fields);

/* --- tables --------------------------------------------------------- */

#define C(type, member, ...) { .offset = offsetof(type, member), __VA_ARGS__ }
#define C2(type, member, second, ...) \
	C(type, member, .offset2 = offsetof(type, second), __VA_ARGS__)
#define NAME_COLUMN	.flags = KMEM_COL_LEFT | KMEM_COL_HEADER_LEFT | KMEM_COL_IDENT

#define PAGE_CALLER	KMEM_TABLE_BIT(KMEM_PAGE_TABLE_CALLER)
#define PAGE_ALLOC	KMEM_TABLE_BIT(KMEM_PAGE_TABLE_ALLOC)
#define PAGE_BOTH	(PAGE_CALLER | PAGE_ALLOC)
#define PROW(...)	C(struct kmem_page_row, __VA_ARGS__)

static const struct kmem_column page_columns[] = {
	PROW(pfn, .key = "page", .header = "PFN", .alt_header = "Page",
	     .alt_when = KMEM_IF_PAGES, .json = "pfn", .kind = KMEM_CELL_PFN,
	     .width = 18, .tables = PAGE_ALLOC, .flags = KMEM_COL_IDENT),
	C2(struct kmem_page_row, bytes, order, .key = "bytes",
	   .header = "Total_alloc/Size", .alt_header = "Live_bytes/Size",
	   .alt_when = KMEM_IF_LIVE, .diff_header = "Bytes", .json = "bytes",
	   .kind = KMEM_CELL_PAGES, .width = 19, .tables = PAGE_BOTH),
	PROW(hits, .key = "hit", .header = "Hits", .alt_header = "Live",
	     .alt_when = KMEM_IF_LIVE, .json = "hits", .width = 11,
	     .tables = PAGE_BOTH),
	PROW(freed, .json = "freed", .tables = PAGE_BOTH, .when = KMEM_NEVER),
	PROW(order, .key = "order", .header = "Order", .json = "order",
	     .kind = KMEM_CELL_ORDER, .width = 5, .tables = PAGE_BOTH,
	     .flags = KMEM_COL_IDENT),
	PROW(migtype, .key = "migtype", .alias = "mtype",
	     .header = "Migration type", .json = "migration_type",
	     .kind = KMEM_CELL_MIGTYPE, .width = 14, .tables = PAGE_BOTH,
	     NAME_COLUMN),
	PROW(gfp, .key = "gfp", .header = "GFP flags", .json = "gfp",
	     .kind = KMEM_CELL_GFP, .tables = PAGE_BOTH, NAME_COLUMN),
	PROW(xnode_frees, .key = "xnode", .header = "Freed remote",
	     .json = "freed_remote", .width = 12, .tables = PAGE_BOTH,
	     .when = KMEM_IF_XNODE_TOTALS, .json_when = KMEM_IF_XNODE),
	PROW(fragmenting, .key = "frag", .header = "Fragmenting",
	     .json = "fragmenting", .width = 11, .tables = PAGE_BOTH,
	     .when = KMEM_IF_FRAGMENTING, .json_when = KMEM_IF_FRAG_TOTALS),
	PROW(task, .key = "pid", .header = "Pid", .json = "pid",
	     .kind = KMEM_CELL_PID, .width = 7, .tables = PAGE_BOTH,
	     .flags = KMEM_COL_IDENT, .when = KMEM_IF_PID,
	     .json_when = KMEM_IF_PID),
	PROW(task, .key = "comm", .header = "Command", .json = "comm",
	     .kind = KMEM_CELL_COMM, .width = 15, .tables = PAGE_BOTH,
	     NAME_COLUMN, .when = KMEM_IF_COMM, .json_when = KMEM_IF_COMM),
	PROW(stall_ns, .key = "stall", .header = "Stall us", .json = "stall_ns",
	     .kind = KMEM_CELL_NS, .width = 10, .tables = PAGE_BOTH,
	     .when = KMEM_IF_STALLS, .json_when = KMEM_IF_STALLS),
	PROW(callsite, .key = "callsite", .header = "Callsite",
	     .json = "callsite", .kind = KMEM_CELL_CALLSITE, .tables = PAGE_BOTH,
	     NAME_COLUMN, .when = KMEM_IF_CALLCHAINS,
	     .json_when = KMEM_IF_CALLCHAINS),
};

#define FROW(...)	C(struct kmem_frag_row, __VA_ARGS__)
#define CLASS_COLUMN	.width = 11, .tables = 1, .when = KMEM_IF_CLASSES, \
			.json_when = KMEM_IF_CLASSES

static const struct kmem_column frag_columns[] = {
	FROW(fragmenting, .key = "frag", .header = "Fragmenting", .width = 11,
	     .tables = 1, .when = KMEM_IF_CLASSES),
	FROW(fallbacks, .key = "hit", .header = "Fallbacks", .json = "fallbacks",
	     .kind = KMEM_CELL_COUNT, .width = 11, .tables = 1),
	FROW(fallbacks.bytes, .key = "bytes", .header = "Bytes asked",
	     .width = 15, .tables = 1, .flags = KMEM_COL_COUNT_BYTES),
	FROW(classes[KMEM_FRAG_CLAIMED], .key = "claimed", .header = "Claimed",
	     .json = "claimed", CLASS_COLUMN),
	FROW(classes[KMEM_FRAG_CONVERTED], .key = "converted",
	     .header = "Converted", .json = "converted", CLASS_COLUMN),
	FROW(classes[KMEM_FRAG_POLLUTED], .key = "polluted",
	     .header = "Polluted", .json = "polluted", CLASS_COLUMN),
	FROW(severe, .key = "severe", .header = "Severe", .width = 11,
	     .tables = 1),
	FROW(alloc_migtype, .key = "migtype", .alias = "mtype",
	     .header = "Requested", .json = "requested",
	     .kind = KMEM_CELL_MIGTYPE, .width = 14, .tables = 1, NAME_COLUMN),
	FROW(fallback_migtype, .key = "fallback", .header = "Fell back to",
	     .json = "fallback", .kind = KMEM_CELL_MIGTYPE, .width = 14,
	     .tables = 1, NAME_COLUMN),
	FROW(task, .key = "pid", .header = "Pid", .json = "pid",
	     .kind = KMEM_CELL_PID, .width = 7, .tables = 1,
	     .flags = KMEM_COL_IDENT, .when = KMEM_IF_PID,
	     .json_when = KMEM_IF_PID),
	FROW(task, .key = "comm", .header = "Command", .json = "comm",
	     .kind = KMEM_CELL_COMM, .width = 15, .tables = 1, NAME_COLUMN,
	     .when = KMEM_IF_COMM, .json_when = KMEM_IF_COMM),
	FROW(callsite, .key = "callsite", .header = "Callsite",
	     .json = "callsite", .kind = KMEM_CELL_CALLSITE, .tables = 1,
	     NAME_COLUMN),
};

#define PINROW(...)	C(struct kmem_frag_pin_row, __VA_ARGS__)

static const struct kmem_column pin_columns[] = {
	PINROW(pageblocks, .key = "blocks", .header = "Pageblocks",
	       .json = "pageblocks", .width = 11, .tables = 1),
	PINROW(pages, .key = "hit", .header = "Pages", .json = "pages",
	       .kind = KMEM_CELL_COUNT, .width = 11, .tables = 1),
	PINROW(pages.bytes, .key = "bytes", .header = "Bytes", .width = 15,
	       .tables = 1, .flags = KMEM_COL_COUNT_BYTES),
	PINROW(task, .key = "pid", .header = "Pid", .json = "pid",
	       .kind = KMEM_CELL_PID, .width = 7, .tables = 1,
	       .flags = KMEM_COL_IDENT, .when = KMEM_IF_PID,
	       .json_when = KMEM_IF_PID),
	PINROW(task, .key = "comm", .header = "Command", .json = "comm",
	       .kind = KMEM_CELL_COMM, .width = 15, .tables = 1, NAME_COLUMN,
	       .when = KMEM_IF_COMM, .json_when = KMEM_IF_COMM),
	PINROW(callsite, .key = "callsite", .header = "Callsite",
	       .json = "callsite", .kind = KMEM_CELL_CALLSITE, .tables = 1,
	       NAME_COLUMN, .when = KMEM_IF_CALLCHAINS,
	       .json_when = KMEM_IF_CALLCHAINS),
};

#define XROW(...)	C(struct kmem_frag_fail_row, __VA_ARGS__)

static const struct kmem_column fail_columns[] = {
	XROW(asked.nr, .key = "hit", .header = "Failures", .json = "hits",
	     .width = 11, .tables = 1),
	XROW(asked.bytes, .key = "bytes", .header = "Bytes asked",
	     .json = "bytes", .width = 15, .tables = 1),
	XROW(order, .key = "order", .header = "Order", .json = "order",
	     .kind = KMEM_CELL_ORDER, .width = 5, .tables = 1,
	     .flags = KMEM_COL_IDENT),
	XROW(migtype, .key = "migtype", .alias = "mtype",
	     .header = "Migration type", .json = "migration_type",
	     .kind = KMEM_CELL_MIGTYPE, .width = 14, .tables = 1, NAME_COLUMN),
	XROW(gfp, .key = "gfp", .header = "GFP flags", .json = "gfp",
	     .kind = KMEM_CELL_GFP, .tables = 1, NAME_COLUMN),
	XROW(callsite, .key = "callsite", .header = "Callsite",
	     .json = "callsite", .kind = KMEM_CELL_CALLSITE, .tables = 1,
	     NAME_COLUMN, .when = KMEM_IF_CALLCHAINS,
	     .json_when = KMEM_IF_CALLCHAINS),
};

#define SLAB_CALLER	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CALLER)
#define SLAB_ALLOC	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_ALLOC)
#define SLAB_CACHE	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CACHE)
#define SLAB_ALL	(SLAB_CALLER | SLAB_ALLOC | SLAB_CACHE)
#define SROW(...)	C(struct kmem_slab_row, __VA_ARGS__)

static const struct kmem_column slab_columns[] = {
	SROW(ptr, .key = "ptr", .header = "Alloc Ptr", .json = "ptr",
	     .kind = KMEM_CELL_HEX, .width = 18, .tables = SLAB_ALLOC,
	     .flags = KMEM_COL_HEADER_LEFT | KMEM_COL_IDENT),
	SROW(callsite, .key = "callsite", .header = "Callsite",
	     .json = "callsite", .kind = KMEM_CELL_CALLSITE, .width = 32,
	     .tables = SLAB_CALLER | SLAB_ALLOC, NAME_COLUMN),
	SROW(cache, .key = "cache", .header = "Cache", .json = "cache",
	     .kind = KMEM_CELL_STRING, .width = 32, .tables = SLAB_CACHE,
	     NAME_COLUMN),
	SROW(hits, .key = "hit", .header = "Hits", .json = "hits", .width = 11,
	     .tables = SLAB_ALL),
	C2(struct kmem_slab_row, bytes_alloc, hits, .key = "bytes",
	   .header = "Total_alloc/Size", .diff_header = "Bytes",
	   .json = "bytes_alloc", .kind = KMEM_CELL_MEAN, .width = 22,
	   .tables = SLAB_ALL),
	C2(struct kmem_slab_row, bytes_req, hits, .header = "Total_req/Size",
	   .json = "bytes_req", .kind = KMEM_CELL_MEAN, .width = 22,
	   .tables = SLAB_ALL),
	SROW(freed, .header = "Freed", .json = "freed", .width = 11,
	     .tables = SLAB_ALL),
	SROW(pingpong, .key = "pingpong", .header = "Ping-pong",
	     .json = "pingpong", .width = 11, .tables = SLAB_ALL),
	C2(struct kmem_slab_row, bytes_req, bytes_alloc, .key = "frag",
	   .header = "Frag", .kind = KMEM_CELL_WASTE, .width = 8,
	   .tables = SLAB_ALL),
};

#define DROW(...)	C(struct kmem_stall_dist, __VA_ARGS__)
#define US_COLUMN	.kind = KMEM_CELL_NS, .width = 9, .tables = 1
#define JSON_ONLY	.tables = 1, .when = KMEM_NEVER

static const struct kmem_column stall_order_columns[] = {
	DROW(order, .key = "order", .header = "Order", .json = "order",
	     .kind = KMEM_CELL_ORDER, .width = 5, .tables = 1,
	     .flags = KMEM_COL_IDENT),
	DROW(stalls, .key = "hit", .header = "Stalls", .json = "stalls",
	     .width = 9, .tables = 1),
	DROW(failed, .header = "Failed", .json = "failed", .width = 7,
	     .tables = 1),
	DROW(total_ns, .key = "stall", .header = "Total us", .json = "total_ns",
	     .diff_header = "Total ns",
	     .kind = KMEM_CELL_NS, .width = 12, .tables = 1),
	DROW(mean_ns, .header = "Mean us", .json = "mean_ns", US_COLUMN),
	DROW(p50_ns, .header = "p50 us", .json = "p50_ns", US_COLUMN),
	DROW(p90_ns, .header = "p90 us", .json = "p90_ns", US_COLUMN),
	DROW(p99_ns, .header = "p99 us", .json = "p99_ns", US_COLUMN),
	DROW(max_ns, .header = "Max us", .json = "max_ns", US_COLUMN),
	DROW(reclaim_ns, .json = "reclaim_ns", JSON_ONLY),
	DROW(compact_ns, .json = "compaction_ns", JSON_ONLY),
	DROW(reclaims, .json = "reclaims", JSON_ONLY),
	DROW(compactions, .json = "compactions", JSON_ONLY),
	DROW(reclaimed, .json = "pages_reclaimed", JSON_ONLY),
};

#define BROW(...)	C(struct kmem_stall_bucket, __VA_ARGS__)

static const struct kmem_column stall_bucket_columns[] = {
	BROW(order, .key = "order", .header = "Order", .json = "order",
	     .kind = KMEM_CELL_ORDER, .width = 5, .tables = 1,
	     .flags = KMEM_COL_IDENT),
	BROW(lo_us, .key = "lo", .header = "From us", .json = "lo_us",
	     .width = 10, .tables = 1, .flags = KMEM_COL_IDENT),
	/* Named by lo_us already, but a bound, not a count to take a delta of. */
	BROW(hi_us, .header = "To us", .json = "hi_us", .width = 10,
	     .tables = 1, .flags = KMEM_COL_IDENT),
	BROW(stalls, .key = "hit", .header = "Stalls", .json = "stalls",
	     .width = 9, .tables = 1),
};

#define ENDROW(...)	C(struct kmem_stall_status_row, __VA_ARGS__)

static const struct kmem_column stall_status_columns[] = {
	ENDROW(ends, .key = "hit", .header = "Ends", .json = "count", .width = 9,
	       .tables = 1),
	ENDROW(status, .header = "Value", .json = "value", .width = 5,
	       .tables = 1, .flags = KMEM_COL_IDENT),
	ENDROW(name, .key = "status", .header = "Status", .json = "name",
	       .kind = KMEM_CELL_STRING, .tables = 1, NAME_COLUMN),
};

#define WROW(...)	C(struct kmem_stall_wake_row, __VA_ARGS__)
#define WAKE_COLUMN	.width = 15, .tables = 1

static const struct kmem_column stall_wake_columns[] = {
	WROW(order, .key = "order", .header = "Order", .json = "order",
	     .kind = KMEM_CELL_ORDER, .width = 5, .tables = 1,
	     .flags = KMEM_COL_IDENT),
	WROW(wakeups[KMEM_WAKE_KSWAPD_WAKEUP], .key = "kswapd",
	     .header = "kswapd woken", .json = "kswapd_woken", WAKE_COLUMN),
	WROW(wakeups[KMEM_WAKE_KSWAPD], .header = "kswapd ran",
	     .json = "kswapd_ran", WAKE_COLUMN),
	WROW(wakeups[KMEM_WAKE_KCOMPACTD_WAKEUP], .key = "kcompactd",
	     .header = "kcompactd woken", .json = "kcompactd_woken", WAKE_COLUMN),
	WROW(wakeups[KMEM_WAKE_KCOMPACTD], .header = "kcompactd ran",
	     .json = "kcompactd_ran", WAKE_COLUMN),
};

#define TROW(...)	C(struct kmem_stall_row, __VA_ARGS__)

static const struct kmem_column stall_columns[] = {
	TROW(stalls, .key = "hit", .header = "Stalls", .json = "stalls",
	     .width = 8, .tables = 1),
	TROW(failed, .key = "failed", .header = "Failed", .json = "failed",
	     .width = 6, .tables = 1),
	TROW(total_ns, .key = "stall", .header = "Total us", .json = "total_ns",
	     .diff_header = "Total ns",
	     .kind = KMEM_CELL_NS, .width = 12, .tables = 1),
	TROW(mean_ns, .key = "mean", .header = "Mean us", .json = "mean_ns",
	     US_COLUMN),
	TROW(max_ns, .key = "max", .header = "Max us", .json = "max_ns",
	     US_COLUMN),
	TROW(reclaim_ns, .key = "reclaim", .header = "Reclaim us",
	     .json = "reclaim_ns", .kind = KMEM_CELL_NS, .width = 10,
	     .tables = 1),
	TROW(compact_ns, .key = "compaction", .header = "Compact us",
	     .json = "compaction_ns", .kind = KMEM_CELL_NS, .width = 10,
	     .tables = 1),
	TROW(reclaimed, .key = "pages", .header = "Pages",
	     .json = "pages_reclaimed", .width = 8, .tables = 1),
	TROW(reclaims, .json = "reclaims", JSON_ONLY),
	TROW(compactions, .json = "compactions", JSON_ONLY),
	TROW(compact_ok, .header = "Compact ok", .json = "compaction_succeeded",
	     .width = 10, .tables = 1),
	TROW(compact_fail, .header = "fail", .json = "compaction_failed",
	     .width = 6, .tables = 1),
	TROW(order, .key = "order", .header = "Order", .json = "order",
	     .kind = KMEM_CELL_ORDER, .width = 5, .tables = 1,
	     .flags = KMEM_COL_IDENT),
	TROW(migtype, .key = "migtype", .alias = "mtype",
	     .header = "Migration type", .json = "migration_type",
	     .kind = KMEM_CELL_MIGTYPE, .width = 14, .tables = 1, NAME_COLUMN),
	TROW(gfp, .key = "gfp", .header = "GFP flags", .json = "gfp",
	     .kind = KMEM_CELL_GFP, .tables = 1, NAME_COLUMN),
	TROW(callsite, .key = "callsite", .header = "Callsite",
	     .json = "callsite", .kind = KMEM_CELL_CALLSITE, .tables = 1,
	     NAME_COLUMN, .when = KMEM_IF_CALLCHAINS,
	     .json_when = KMEM_IF_CALLCHAINS),
};

#define MROW(...)	C(struct kmem_stall_memcg_row, __VA_ARGS__)

static const struct kmem_column stall_memcg_columns[] = {
	MROW(reclaims, .key = "hit", .header = "memcg reclaims",
	     .json = "reclaims", .width = 14, .tables = 1),
	MROW(total_ns, .key = "stall", .header = "Total us", .json = "total_ns",
	     .diff_header = "Total ns",
	     .kind = KMEM_CELL_NS, .width = 12, .tables = 1),
	MROW(mean_ns, .header = "Mean us", .json = "mean_ns", US_COLUMN),
	MROW(max_ns, .header = "Max us", .json = "max_ns", US_COLUMN),
	MROW(reclaimed, .header = "Pages", .json = "pages_reclaimed", .width = 8,
	     .tables = 1),
	MROW(gfp, .key = "gfp", .header = "GFP flags", .json = "gfp",
	     .kind = KMEM_CELL_GFP, .tables = 1, NAME_COLUMN),
	MROW(callsite, .key = "callsite", .header = "Callsite (of the reclaim)",
	     .json = "callsite", .kind = KMEM_CELL_CALLSITE, .tables = 1,
	     NAME_COLUMN, .when = KMEM_IF_CALLCHAINS,
	     .json_when = KMEM_IF_CALLCHAINS),
};

#define TABLE(p, c, b, ...) \
	{ .path = p, .cols = c, .nr_cols = ARRAY_SIZE(c), .bit = b, __VA_ARGS__ }

const struct kmem_table kmem_tables[KMEM_NR_TABLES] = {
	[KMEM_PAGE_CALLERS] = TABLE("page.callers", page_columns,
		KMEM_PAGE_TABLE_CALLER, .sort = "bytes,hit", .user_sort = true,
		.what = "page allocations, by callsite, order, migration type and GFP flags",
		.by_default = true),
	[KMEM_PAGE_ALLOCS] = TABLE("page.allocs", page_columns,
		KMEM_PAGE_TABLE_ALLOC, .sort = "bytes,hit", .user_sort = true),
	[KMEM_FRAG_CALLERS] = TABLE("page.fragmentation.callers", frag_columns,
		0, .sort = "frag,hit",
		.what = "fallbacks, by callsite, requested type and type fallen back to"),
	[KMEM_FRAG_PINNED] = TABLE("page.fragmentation.pinned.callers",
		pin_columns, 0, .sort = "blocks,bytes",
		.what =
		"pages fallen back into Movable pageblocks and still allocated, by callsite"),
	[KMEM_FRAG_FAILURES] = TABLE("page.fragmentation.failures", fail_columns,
		0, .sort = "hit,bytes",
		.what =
		"failed page allocations, by callsite, order, migration type and GFP flags"),
	[KMEM_SLAB_CALLERS] = TABLE("slab.callers", slab_columns,
		KMEM_SLAB_TABLE_CALLER, .sort = "frag,hit,bytes",
		.user_sort = true, .what = "slab allocations, by callsite",
		.by_default = true),
	[KMEM_SLAB_CACHES] = TABLE("slab.caches", slab_columns,
		KMEM_SLAB_TABLE_CACHE, .sort = "frag,hit,bytes",
		.user_sort = true, .what = "slab allocations, by cache",
		.by_default = true),
	[KMEM_SLAB_ALLOCS] = TABLE("slab.allocs", slab_columns,
		KMEM_SLAB_TABLE_ALLOC, .sort = "frag,hit,bytes",
		.user_sort = true),
	[KMEM_STALL_ORDERS] = TABLE("page.stalls.by_order", stall_order_columns,
		0, .sort = "order", .what = "stalled allocations, by order",
		.by_default = true, .diff_keys = "stall,hit"),
	[KMEM_STALL_BUCKETS] = TABLE("page.stalls.histogram",
		stall_bucket_columns, 0, .sort = "order,lo",
		.what = "stalls, by order and log2 bucket of their length",
		.diff_keys = "hit"),
	[KMEM_STALL_STATUSES] = TABLE("page.stalls.compaction_ends",
		stall_status_columns, 0, .sort = "status",
		.what = "compaction runs, by the status they ended with",
		.by_default = true, .diff_keys = "hit"),
	[KMEM_STALL_WAKEUPS] = TABLE("page.stalls.wakeups", stall_wake_columns,
		0, .sort = "order", .what = "kswapd and kcompactd wake-ups, by order",
		.by_default = true, .diff_keys = "kswapd,kcompactd"),
	[KMEM_STALL_CALLERS] = TABLE("page.stalls.callers", stall_columns, 0,
		.sort = "stall,hit",
		.what = "stalled allocations, by callsite, order, migration type and GFP flags",
		.diff_keys = "stall,hit"),
	[KMEM_STALL_MEMCG] = TABLE("page.stalls.memcg_callers",
		stall_memcg_columns, 0, .sort = "stall,hit",
		.what = "memcg reclaims, by the callsite of their begin and GFP flags",
		.diff_keys = "stall,hit"),
};

/* --- sorting ------------------------------------------------------- */

/* Does -s name, in @names, the column that @len bytes of @key name? */
static bool among_keys(const struct kmem_table *t, const char *key,
		       size_t len, const struct kmem_sort_keys *names)
{
	const struct kmem_column *col = kmem_table__column(t, key, len);
	int i;

	for (i = 0; names && i < names->nr; i++)
		if (kmem_table__column(t, names->name[i], names->len[i]) == col)
			return true;
	return false;
}

/*
 * The keys a table sorts by, into @keys: those of -s (@names; NULL:
 * none), then the table's own that the trace has a column for and -s
 * did not name, as many as fit.  Rows tied on every key of -s (-s frag
 * on a trace without fallbacks, -s comm) then come in the table's usual
 * order, largest first, not in that of their callsites' addresses.
 */
static void sort_names(const struct kmem_cell_ctx *ctx,
		       enum kmem_report_table_id id,
		       const struct kmem_sort_keys *names,
		       struct kmem_sort_keys *keys)
{
	const struct kmem_table *t = &kmem_tables[id];
	struct kmem_sort_keys own;
	int i;

	if (names)
		*keys = *names;
	else
		kmem_sort_keys__split(keys, NULL);
	kmem_sort_keys__split(&own, t->sort);
	for (i = 0; i < own.nr && keys->nr < KMEM_MAX_SORT_KEYS; i++) {
		const char *p = own.name[i];
		size_t len = own.len[i];
		const struct kmem_column *col = kmem_table__column(t, p, len);

		if (col && kmem_report__holds(ctx, col->when) &&
		    !among_keys(t, p, len, names)) {
			keys->name[keys->nr] = p;
			keys->len[keys->nr++] = len;
		}
	}
}

/* The stall analysis's tables: by order, bucket and status as they come. */
static int stall_table(struct kmem_report_table *t, enum kmem_report_table_id id,
		       struct kmem_stall *st, const struct kmem_sort_key *keys,
		       int nr_keys)
{
	if (id == KMEM_STALL_ORDERS)
		t->rows = (const void * const *)kmem_stall__orders(st, &t->nr);
	else if (id == KMEM_STALL_BUCKETS)
		t->rows = (const void * const *)kmem_stall__buckets(st, &t->nr);
	else if (id == KMEM_STALL_STATUSES)
		t->rows = (const void * const *)kmem_stall__status_rows(st, &t->nr);
	else if (id == KMEM_STALL_WAKEUPS)
		t->rows = (const void * const *)kmem_stall__wake_rows(st, &t->nr);
	else if (id == KMEM_STALL_CALLERS)
		t->rows = (const void * const *)kmem_stall__rows(st, keys, nr_keys, &t->nr);
	else
		t->rows = (const void * const *)kmem_stall__memcg_rows(st, &t->nr);
	return t->rows || !t->nr ? 0 : -ENOMEM;
}

int kmem_report__sort_table(struct kmem_report_table *t,
			    enum kmem_report_table_id id,
			    const struct kmem_cell_ctx *ctx,
			    const struct kmem_report_analyses *a,
			    const struct kmem_report_sort *sort)
{
	const struct kmem_table *desc = &kmem_tables[id];
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	char bad[32];
	int nr_keys = 0;

	if (sort && !sort->nr_keys) {
		kmem_sort_keys__split(&t->sort, NULL);
		if (sort->names)
			t->sort = *sort->names;
	} else {
		sort_names(ctx, id, sort ? sort->names : NULL, &t->sort);
		nr_keys = kmem_table__parse_sort(desc, &t->sort, keys, bad,
						 sizeof(bad));
		if (nr_keys < 0)
			return nr_keys;
	}
	switch (id) {
	case KMEM_PAGE_CALLERS:
	case KMEM_PAGE_ALLOCS:
		t->rows = (const void * const *)kmem_page__rows(a->kp, desc->bit, keys,
						   nr_keys, &t->nr);
		break;
	case KMEM_FRAG_CALLERS:
		t->rows = (const void * const *)kmem_frag__rows(a->kf, keys, nr_keys,
						   &t->nr);
		break;
	case KMEM_FRAG_PINNED:
		t->rows = (const void * const *)kmem_frag__pin_rows(a->kf, keys,
								    nr_keys, &t->nr);
		break;
	case KMEM_FRAG_FAILURES:
		t->rows = (const void * const *)kmem_frag__fail_rows(a->kf, keys, nr_keys,
							&t->nr);
		break;
	case KMEM_SLAB_CALLERS:
	case KMEM_SLAB_CACHES:
	case KMEM_SLAB_ALLOCS:
		t->rows = (const void * const *)kmem_slab__rows(a->ks, desc->bit, keys,
						   nr_keys, &t->nr);
		break;
	case KMEM_STALL_ORDERS:
	case KMEM_STALL_BUCKETS:
	case KMEM_STALL_STATUSES:
	case KMEM_STALL_WAKEUPS:
	case KMEM_STALL_CALLERS:
	case KMEM_STALL_MEMCG:
		return stall_table(t, id, a->st, keys, nr_keys);
	case KMEM_NR_TABLES:
	default:
		return -EINVAL;
	}
	return t->rows ? 0 : -ENOMEM;
}
