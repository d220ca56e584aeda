/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_REPORT_H
#define __PERF_KMEM_REPORT_H

/*
 * What perf kmem stat reports, described once: sections of named numbers
 * (struct kmem_field) and tables of rows (struct kmem_table) whose columns
 * (struct kmem_column) say how a value is printed, written as JSON,
 * compared, sorted and paired.  The text, the JSON document, the CSV and
 * perf kmem diff iterate these descriptions (report-desc.c): a number or
 * a column added there is in all of them.  KMEM_REPORT_SCHEMA is the
 * JSON's "schema" member, raised when a member changes meaning or goes.
 *
 * A struct kmem_report is what one finished run (run.h) hands its
 * renderers, who only read it.  Its values are where the analyses keep
 * them, found through enum kmem_source; this header declares no
 * analysis's summary or row, so that a renderer knows the model only.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "count-tasks.h"
#include "count.h"
#include "read-procmem.h"
#include "table-live.h"

#define KMEM_REPORT_SCHEMA	1
#define KMEM_MAX_SORT_KEYS	8

/* A -s argument split at its commas, once for all its readers. */
struct kmem_sort_keys {
	const char	*name[KMEM_MAX_SORT_KEYS];	/* into the argument */
	size_t		len[KMEM_MAX_SORT_KEYS];
	int		nr;
	bool		too_many;	/* it had more than KMEM_MAX_SORT_KEYS */
};

/*
 * Split @str ("a,b", NULL: none) into @keys, which point into it.  An
 * empty piece ("a,,b") is a key of length 0, which no table knows.
 */
void kmem_sort_keys__split(struct kmem_sort_keys *keys, const char *str);

struct kmem_frag;
struct kmem_interval;
struct kmem_page;
struct kmem_slab;
struct kmem_stall;

/* What a value needs beyond itself: the trace, the options, the names. */
struct kmem_cell_ctx {
	u64		page_size;
	bool		pre_v4_4;	/* migration types of kernels < v4.4 */
	bool		pfn_is_page;	/* kernels < v4.1 traced struct page * */
	bool		live;		/* --live: hits are pages still live */
	bool		sampled;	/* counts are of sampled events */
	bool		xnode;		/* the trace has nodes to free across */
	bool		cpu_nodes;	/* it says which CPU is on which node */
	bool		callchains;	/* page callsites are known */
	bool		pageblocks;	/* the pageblock order is known */
	bool		frag_classes;	/* ...and the trace has fallbacks */
	bool		fragmenting;	/* ...and some fragmented */
	/* ...and which pages fell back is known: a recording, with pfns. */
	bool		pinning;
	/* Counted in the kernel (stat -b): what is estimated, what is not. */
	bool		callers_estimated;	/* from sampled stacks */
	bool		slab_unpaired;	/* no slab object paired with its free */
	bool		stalls;		/* the trace has stall events */
	bool		raw;		/* -x: numbers as the JSON has them */
	enum kmem_task_key task_key;	/* what kmem_page_row::task holds */
	const char	*(*comm_name)(void *arg, u32 task);
	const char	*(*gfp_name)(void *arg, u64 gfp);
	/* "func+0x1a"; NULL if no symbol covers @addr. */
	const char	*(*symbol)(void *arg, u64 addr, char *buf, size_t size);
	/* A function, func+0xoff or an address. */
	const char	*(*callsite_name)(void *arg, u64 callsite, char *buf,
					  size_t size);
	void		*arg;
};

/* The structs a report's fields point into. */
enum kmem_source {
	KMEM_SRC_TRACE,		/* struct kmem_report_trace */
	KMEM_SRC_PAGE,		/* struct kmem_page_summary */
	KMEM_SRC_FRAG,		/* struct kmem_frag_summary */
	KMEM_SRC_SLAB,		/* struct kmem_slab_summary */
	KMEM_SRC_INTERVAL,	/* struct kmem_interval_row, one at a time */
	KMEM_SRC_COUNTED,	/* struct kmem_report_source: not a recording */
	KMEM_SRC_STALL,		/* struct kmem_stall_summary */
	KMEM_SRC_MEMORY,	/* struct kmem_report_memory: stat -b */
	KMEM_NR_SOURCES,
};

/* When a field or a column is part of the report. */
enum kmem_when {
	KMEM_ALWAYS,
	KMEM_NEVER,
	KMEM_IF_SET,		/* not 0, NULL or "" */
	KMEM_IF_PAIRED,		/* allocations paired with frees: not sampled */
	KMEM_IF_PFNS,		/* pfns, not struct page addresses (>= v4.1) */
	KMEM_IF_PAGES,		/* struct page addresses, not pfns */
	KMEM_IF_CPU_NODES,	/* the topology names the node of each CPU */
	KMEM_IF_CALLCHAINS,	/* page callsites are known */
	KMEM_IF_CLASSES,	/* fallbacks are classed */
	KMEM_IF_XNODE,		/* nodes to free across */
	KMEM_IF_XNODE_TOTALS,	/* ...and not --live */
	KMEM_IF_FRAG_TOTALS,	/* classes, callchains, not --live */
	KMEM_IF_FRAGMENTING,	/* ...and some fallback fragmented */
	KMEM_IF_PINNING,	/* the pages fallen back are known */
	KMEM_IF_PID,		/* -s pid */
	KMEM_IF_COMM,		/* -s comm */
	KMEM_IF_LIVE,		/* --live */
	KMEM_IF_ESTIMATED,	/* callsite rows estimated from sampled stacks */
	KMEM_IF_SLAB_PAIRED,	/* slab objects paired with their frees */
	KMEM_IF_STALLS,		/* the trace has stall events */
};

/* What a field holds: a u64 where not said. */
enum kmem_unit {
	KMEM_UNIT_NUMBER,
	KMEM_UNIT_COUNT,	/* a struct kmem_count: events and their bytes */
	KMEM_UNIT_BYTES,
	KMEM_UNIT_NS,		/* us in the text */
	KMEM_UNIT_PERCENT,	/* a double */
	KMEM_UNIT_TEXT,		/* a const char * */
	KMEM_UNIT_BOOL,
	KMEM_UNIT_TIME,		/* ns in the trace's clock: s.us in the text */
	KMEM_UNIT_GROUP,	/* nothing: the NESTED fields after it */
};

/* A member of the JSON object of the last field that is not NESTED. */
#define KMEM_FIELD_NESTED	0x1
/* Text: a blank line after it. */
#define KMEM_FIELD_GAP		0x2
/* JSON: null, not left out, where json_when does not hold. */
#define KMEM_FIELD_NULLABLE	0x4

/* A number of a section. */
struct kmem_field {
	const char	*name;		/* its JSON member */
	const char	*label;		/* its line in the text and the diff */
	const char	*note;		/* a line after it in the text */
	const char	*unknown;	/* the text's line where JSON has null */
	u16		offset;		/* of its value in its source */
	u8		src;		/* enum kmem_source */
	u8		unit;		/* enum kmem_unit */
	u8		text_when;	/* enum kmem_when, or NONZERO */
	u8		json_when;
	u8		flags;		/* KMEM_FIELD_* */
	/* A row of columns (-I): its column's place in the text, from 1; 0: none. */
	u8		column;
	u8		width;
};

/* A text_when: shown where the value is not 0. */
#define KMEM_IF_NONZERO		0xff

/* Named numbers, written as one JSON object. */
struct kmem_section {
	const char		*path;	/* of its object in the document */
	const struct kmem_field	*fields;
	size_t			nr_fields;
};

extern const struct kmem_section kmem_trace_section;	/* perf_data */
extern const struct kmem_section kmem_page_section;	/* page */
extern const struct kmem_section kmem_page_summary_section;
extern const struct kmem_section kmem_cross_node_section;
extern const struct kmem_section kmem_frag_section;
extern const struct kmem_section kmem_pageblock_section;
extern const struct kmem_section kmem_pinned_section;
extern const struct kmem_section kmem_slab_summary_section;
extern const struct kmem_section kmem_interval_section;	/* a row of -I */
extern const struct kmem_section kmem_stall_section;	/* page.stalls */
extern const struct kmem_section kmem_stall_apart_section;
extern const struct kmem_section kmem_stall_events_section;
extern const struct kmem_section kmem_stall_memcg_section;
extern const struct kmem_section kmem_counted_section;	/* source */
extern const struct kmem_section kmem_memory_section;	/* memory.vmstat */

/*
 * How a column's value is read, printed and written.  COUNT is a struct
 * kmem_count, printed as its events and written as the object; PAGES the
 * u64 bytes of pages and the int order at offset2 ("12,345/4096"); MEAN
 * u64 bytes and the u64 count at offset2 they are a mean over
 * ("12,345/32"); PFN a pfn (JSON "pfn") or a struct page address (JSON
 * "page"); WASTE the share of the u64 at offset2 that the u64 at offset
 * leaves unused ("12.345%").
 */
enum kmem_cell_kind {
	KMEM_CELL_U64,		/* "12,345" */
	KMEM_CELL_COUNT,
	KMEM_CELL_PAGES,
	KMEM_CELL_MEAN,
	KMEM_CELL_ORDER,	/* an int */
	KMEM_CELL_PFN,
	KMEM_CELL_HEX,		/* a u64 address */
	KMEM_CELL_MIGTYPE,	/* an int migration type, by its name */
	KMEM_CELL_GFP,		/* u64 gfp flags, by their names */
	KMEM_CELL_CALLSITE,	/* a u64 callsite, by its name */
	KMEM_CELL_PID,		/* a u32 task key, a pid */
	KMEM_CELL_COMM,		/* a u32 task key, a command's name */
	KMEM_CELL_STRING,	/* a const char * */
	KMEM_CELL_WASTE,
	KMEM_CELL_NS,		/* a u64 of ns: "12,345" us in the text */
	KMEM_NR_CELL_KINDS,
};

/* The cells, the header flush left. */
#define KMEM_COL_LEFT		0x1
#define KMEM_COL_HEADER_LEFT	0x2
/* Names a row (not a measure): the diff pairs rows by these. */
#define KMEM_COL_IDENT		0x4
/* The bytes of the KMEM_CELL_COUNT column before it (JSON: in that). */
#define KMEM_COL_COUNT_BYTES	0x8

/* A column of a table. */
struct kmem_column {
	const char	*key;		/* its -s name; NULL: not a sort key */
	const char	*alias;		/* another -s name, or NULL */
	const char	*header;
	const char	*alt_header;	/* the header where alt_when holds */
	const char	*diff_header;	/* the diff's, where it differs */
	const char	*json;		/* its member in a row; NULL: none */
	u16		offset;		/* of its value in a row */
	u16		offset2;	/* of a second value, by the kind */
	u8		kind;		/* enum kmem_cell_kind */
	u8		width;		/* the least; 0: the header's */
	u8		flags;		/* KMEM_COL_* */
	u8		tables;		/* KMEM_TABLE_BIT() of those that show it */
	u8		when;		/* enum kmem_when: in the text */
	u8		json_when;
	u8		alt_when;
	/* Optional, for tables of other renderers: the cell as text. */
	void		(*cell)(const struct kmem_column *col,
				const struct kmem_cell_ctx *ctx, const void *row,
				char *buf, size_t size);
};

#define KMEM_TABLE_BIT(t)	(1U << (t))

/* A table of rows, all of one kind, and its columns. */
struct kmem_table {
	const char			*path;	/* of its object */
	const struct kmem_column	*cols;
	size_t				nr_cols;
	int				bit;	/* of kmem_column::tables */
	const char			*sort;	/* its keys where -s gives none */
	bool				user_sort; /* -s sorts it */
	/* The diff's: what a row is, and whether it shows without --caller. */
	const char			*what;
	bool				by_default;
	const char			*diff_keys;	/* NULL: "bytes,hit" */
};

enum kmem_report_table_id {
	KMEM_PAGE_CALLERS,
	KMEM_PAGE_ALLOCS,
	KMEM_FRAG_CALLERS,
	KMEM_FRAG_PINNED,
	KMEM_FRAG_FAILURES,
	KMEM_SLAB_CALLERS,
	KMEM_SLAB_CACHES,
	KMEM_SLAB_ALLOCS,
	KMEM_STALL_ORDERS,
	KMEM_STALL_BUCKETS,
	KMEM_STALL_STATUSES,
	KMEM_STALL_WAKEUPS,
	KMEM_STALL_CALLERS,
	KMEM_STALL_MEMCG,
	KMEM_NR_TABLES,
};

extern const struct kmem_table kmem_tables[KMEM_NR_TABLES];

/* The fallback classes' JSON members, by enum kmem_frag_class. */
extern const char * const kmem_frag_classes[];

/* The trace, as the perf_data member says it. */
struct kmem_report_trace {
	const char	*path;
	const char	*os_release;	/* NULL: the header has none */
	const char	*hostname;
	const char	*arch;
	u64		nr_cpus;
	const char	*time_window;	/* --time, or NULL */
	u64		nr_samples;
	u64		nr_page_events;
	u64		nr_slab_events;
	u64		nr_extfrag_events;
	u64		events_too_short;
	u64		events_out_of_order;
	u64		events_lost;
	const char	*sampled;	/* "": every event recorded */
	bool		callsites_unresolved;	/* no kernel symbols at all */
	u64		page_size;
	bool		live;
	/* The statuses of the sections (kmem_status__text()), and theirs. */
	const char	*cross_node;
	u64		nr_nodes;
	const char	*fragmentation;
	u64		pageblock_order;
	const char	*pageblock_why;
	const char	*stalls;
	const char	*stall_missing;	/* tracepoints: "a,b"; "" none */
};

/* Where perf kmem stat -b's numbers come from (bpf.c): not a recording. */
struct kmem_report_source {
	const char	*name;		/* "bpf" */
	const char	*tasks;		/* whose events, in words */
	u64		duration_ns;
	u64		duration_ms;	/* the text's */
	const char	*exact;		/* what is exact, in words */
	const char	*estimated;	/* what is estimated, in words; "": none */
	const char	*callers;	/* the callsite rows: "exact", "estimated" */
	const char	*lifetimes;	/* the lifetime groups: the same */
	u64		sample_bytes;	/* --sample-bytes; 1: every stack */
	u64		sampled;	/* allocations whose stack was taken */
	u64		rare_taken;	/* failures, fallbacks: within the rate */
	u64		rare_sampled;	/* ...past it, sampled by bytes */
	u64		live_entries;	/* of the live-page map (-M) */
	u64		untracked;	/* allocations it had no room for */
	u64		untracked_sampled;
	u64		events_missed;	/* runs of the programs the kernel skipped */
	u64		stack_walks_failed;
	u64		stacks_map_full;
	u64		rows_map_full;
	u64		tasks_map_full;	/* forks not followed */
	u64		slab_map_full;	/* slab events in no row, no total */
	u64		blocks_outside;	/* pages past the pageblock map */
	bool		fallbacks;	/* mm_page_alloc_extfrag counted */
	const char	*no_fallbacks;	/* why not, in words; "": they are */
	u64		map_bytes;	/* kernel memory of the BPF maps */
	/* Stall events not shipped (ring full, no task element): said. */
	u64		stall_events_lost;
	/* With sysctl kernel.bpf_stats_enabled=1, else 0: */
	u64		prog_runs;	/* runs of the programs */
	u64		prog_ns;	/* their time in the kernel */
	u64		prog_ns_per_run;
};

/* /proc/vmstat and /proc/pagetypeinfo around a stat -b run (bpf.c). */
struct kmem_report_memory {
	struct kmem_vmstat	delta;		/* end - start */
	const char		*vmstat;	/* why not read; "": read */
	const char		*missing;	/* counters it lacks: "a,b" */
	/* NULL where not read, and why in @pagetypeinfo. */
	const struct kmem_pagetypeinfo *free_start;
	const struct kmem_pagetypeinfo *free_end;
	const char		*pagetypeinfo;	/* "": read */
};

/* -s's names, each known to the tables (kmem_table__parse_sort()). */
struct kmem_report_sort {
	const struct kmem_sort_keys *names;	/* -s split; NULL: none */
	bool			unsorted;	/* the diff's: rows as they come */
};

struct kmem_report_table {
	const void * const *rows;	/* sorted; NULL: not in the report */
	size_t		nr;
	struct kmem_sort_keys sort;	/* its keys: bytes, hit */
};

/* One finished run, for its renderers to read. */
struct kmem_report {
	struct kmem_report_trace	trace;
	const struct kmem_cell_ctx	*ctx;
	const void			*src[KMEM_NR_SOURCES];
	const struct kmem_page		*kp;	/* NULL: no page analysis */
	const struct kmem_frag		*kf;	/* with kp */
	const struct kmem_interval	*iv;	/* -I; NULL: none */
	bool				slab;	/* a slab analysis */
	const bool			*has_node;	/* NULL: no nodes */
	int				nr_node_ids;
	struct kmem_report_table	tables[KMEM_NR_TABLES];
	bool				caller;	/* --caller */
	int				lines;	/* -l; -1: all, or the default */
};

/* Rows of a table shown by default when no table was asked for. */
#define DEFAULT_TABLE_LINES	20

/*
 * Rows a table of @nr shows: -l (@lines), else all, or the top
 * DEFAULT_TABLE_LINES of one shown @by_default.
 */
size_t kmem_report__rows_shown(int lines, size_t nr, bool by_default);

/* Does @when hold in @ctx?  Conditions on a value (IF_SET, NONZERO) do. */
bool kmem_report__holds(const struct kmem_cell_ctx *ctx, int when);

/* The value of @f in the sources @src, as a pointer to it. */
static inline const void *kmem_field__value(const struct kmem_field *f,
					    const void * const *src)
{
	return src[f->src] ? (const char *)src[f->src] + f->offset : NULL;
}

/* Is the value of @f (a count's events) 0, NULL or ""? */
bool kmem_field__is_zero(const struct kmem_field *f, const void *v);

const char *kmem_column__header(const struct kmem_column *col,
				const struct kmem_cell_ctx *ctx);

/* The JSON member of @col: before v4.1 a pfn is a struct page's "page". */
static inline const char *kmem_column__json(const struct kmem_column *col,
					    const struct kmem_cell_ctx *ctx)
{
	return col->kind == KMEM_CELL_PFN && ctx->pfn_is_page ? "page" : col->json;
}

#define KMEM_IN_TEXT	0x1
#define KMEM_IN_JSON	0x2

/* Is @col in table @table of the trace of @ctx, in the text or the JSON? */
bool kmem_column__in(const struct kmem_column *col,
		     const struct kmem_cell_ctx *ctx, int table, unsigned int where);

/* Does --live, and nothing else, leave @col out of the text? */
bool kmem_column__hidden_by_live(const struct kmem_column *col);

/* The u64 of the cell of @col in @row; 0 for a kind of an int or a name. */
u64 kmem_column__u64(const struct kmem_column *col, const void *row);

/* The cell as text; under @ctx->raw a number as the JSON has it. */
void kmem_column__cell(const struct kmem_column *col,
		       const struct kmem_cell_ctx *ctx, const void *row,
		       char *buf, size_t size);

/* The column of @t's kind that -s calls @key (@len bytes), or NULL. */
const struct kmem_column *kmem_table__column(const struct kmem_table *t,
					     const char *key, size_t len);

/*
 * The sort keys of @given for @t, into @keys: their number; -EINVAL for
 * the first unknown key, named in @bad; -E2BIG for too many.
 */
int kmem_table__parse_sort(const struct kmem_table *t,
			   const struct kmem_sort_keys *given,
			   struct kmem_sort_key *keys, char *bad,
			   size_t bad_size);

/* "key, key, ..." of @t's kind, into @buf. */
const char *kmem_table__keys(const struct kmem_table *t, char *buf,
			     size_t size);

/* The same, of the columns in the tables @tables (KMEM_TABLE_BIT()s) only. */
const char *kmem_table__keys_in(const struct kmem_table *t, unsigned int tables,
				char *buf, size_t size);

/* The task key a -s argument asks for; -EINVAL when both pid and comm. */
int kmem_sort__task_key(const struct kmem_sort_keys *given,
			enum kmem_task_key *key);

/* The analyses a table's rows are of; NULL where there is none. */
struct kmem_report_analyses {
	struct kmem_page	*kp;
	struct kmem_frag	*kf;
	struct kmem_slab	*ks;
	struct kmem_stall	*st;
};

/*
 * The rows of table @id of the analyses @a into @t, sorted by -s @sort
 * (NULL: none; unsorted, the diff's: in identity order), then by the
 * table's own keys.  0; -EINVAL for a bad key; -ENOMEM.
 */
int kmem_report__sort_table(struct kmem_report_table *t,
			    enum kmem_report_table_id id,
			    const struct kmem_cell_ctx *ctx,
			    const struct kmem_report_analyses *a,
			    const struct kmem_report_sort *sort);

/* The diff's words for a status of a section. */
const char *kmem_status__text(const char *name);

#endif /* __PERF_KMEM_REPORT_H */
