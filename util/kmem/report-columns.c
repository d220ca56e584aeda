// SPDX-License-Identifier: GPL-2.0
/*
 * The columns of perf kmem's tables; see report-columns.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>

#include "count-frag.h"
#include "count-page.h"
#include "count-slab.h"
#include "report-columns.h"

const char *kmem_commas(u64 v, char *buf, size_t size)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	size_t o = 0;
	int i;

	for (i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* "12,345,678/32": a total and its size, or its mean per allocation. */
static void total_per(u64 total, u64 per, char *buf, size_t size)
{
	char digits[32];

	snprintf(buf, size, "%s/%" PRIu64,
		 kmem_commas(total, digits, sizeof(digits)), per);
}

static void hex_cell(u64 v, char *buf, size_t size)
{
	snprintf(buf, size, "%#" PRIx64, v);
}

/* --- the page tables ------------------------------------------------- */

#define PAGE_ROW(r)	const struct kmem_page_row *row = r

static void page_pfn(const struct kmem_cell_ctx *ctx __maybe_unused,
		     const void *r, char *buf, size_t size)
{
	PAGE_ROW(r);

	hex_cell(row->pfn, buf, size);
}

static void page_bytes(const struct kmem_cell_ctx *ctx, const void *r,
		       char *buf, size_t size)
{
	PAGE_ROW(r);

	total_per(row->bytes, ctx->page_size << row->order, buf, size);
}

static void page_hits(const struct kmem_cell_ctx *ctx __maybe_unused,
		      const void *r, char *buf, size_t size)
{
	PAGE_ROW(r);

	kmem_commas(row->hits, buf, size);
}

static void page_order(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	PAGE_ROW(r);

	snprintf(buf, size, "%d", row->order);
}

static void page_migtype(const struct kmem_cell_ctx *ctx, const void *r,
			 char *buf, size_t size)
{
	PAGE_ROW(r);
	const char *name = kmem_migtype__name(row->migtype, ctx->pre_v4_4,
					      buf, size);

	if (name != buf)
		snprintf(buf, size, "%s", name);
}

static void page_gfp(const struct kmem_cell_ctx *ctx, const void *r,
		     char *buf, size_t size)
{
	PAGE_ROW(r);

	snprintf(buf, size, "%s", ctx->gfp_name(ctx->arg, row->gfp));
}

static void page_xnode(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	PAGE_ROW(r);

	kmem_commas(row->xnode_frees, buf, size);
}

static void page_frag(const struct kmem_cell_ctx *ctx __maybe_unused,
		      const void *r, char *buf, size_t size)
{
	PAGE_ROW(r);

	kmem_commas(row->fragmenting, buf, size);
}

static void page_callsite(const struct kmem_cell_ctx *ctx, const void *r,
			  char *buf, size_t size)
{
	PAGE_ROW(r);
	const char *name = ctx->callsite_name(ctx->arg, row->callsite, buf,
					      size);

	if (name != buf)
		snprintf(buf, size, "%s", name);
}

static const char *pfn_header(const struct kmem_cell_ctx *ctx)
{
	return ctx->pfn_is_page ? "Page" : "PFN";
}

static const char *hits_header(const struct kmem_cell_ctx *ctx)
{
	return ctx->live ? "Live" : "Hits";
}

/* Frees are of no live page: no column under --live. */
static void page_pid(const struct kmem_cell_ctx *ctx __maybe_unused,
		     const void *r, char *buf, size_t size)
{
	PAGE_ROW(r);

	snprintf(buf, size, "%u", row->task);
}

static void page_comm(const struct kmem_cell_ctx *ctx, const void *r,
		      char *buf, size_t size)
{
	PAGE_ROW(r);

	snprintf(buf, size, "%s", ctx->comm_name(ctx->arg, row->task));
}

static bool pid_shown(const struct kmem_cell_ctx *ctx)
{
	return ctx->task_key == KMEM_TASK_PID;
}

static bool comm_shown(const struct kmem_cell_ctx *ctx)
{
	return ctx->task_key == KMEM_TASK_COMM;
}

static bool xnode_shown(const struct kmem_cell_ctx *ctx)
{
	return ctx->xnode && !ctx->live;
}

static bool callsite_shown(const struct kmem_cell_ctx *ctx)
{
	return ctx->callchains;
}

/* Fragmenting fallbacks of each callsite: a trace with some. */
static bool frag_shown(const struct kmem_cell_ctx *ctx)
{
	return ctx->frag_classes && ctx->fragmenting && ctx->callchains &&
	       !ctx->live;
}

#define PAGE_CALLER	KMEM_TABLE_BIT(KMEM_PAGE_TABLE_CALLER)
#define PAGE_ALLOC	KMEM_TABLE_BIT(KMEM_PAGE_TABLE_ALLOC)
#define PAGE_BOTH	(PAGE_CALLER | PAGE_ALLOC)

const struct kmem_column kmem_page_columns[] = {
	{ .key = "page", .header = "PFN", .width = 18, .tables = PAGE_ALLOC,
	  .cmp = kmem_page_row__cmp_pfn, .cell = page_pfn,
	  .header_of = pfn_header, },
	{ .key = "bytes", .header = "Total_alloc/Size", .width = 19,
	  .tables = PAGE_BOTH, .cmp = kmem_page_row__cmp_bytes,
	  .cell = page_bytes, },
	{ .key = "hit", .header = "Hits", .width = 11, .tables = PAGE_BOTH,
	  .cmp = kmem_page_row__cmp_hits, .cell = page_hits,
	  .header_of = hits_header, },
	{ .key = "order", .header = "Order", .width = 5, .tables = PAGE_BOTH,
	  .cmp = kmem_page_row__cmp_order, .cell = page_order, },
	{ .key = "migtype", .alias = "mtype", .header = "Migration type",
	  .width = 14, .left = true, .header_left = true, .tables = PAGE_BOTH,
	  .cmp = kmem_page_row__cmp_migtype, .cell = page_migtype, },
	{ .key = "gfp", .header = "GFP flags", .left = true,
	  .header_left = true, .tables = PAGE_BOTH,
	  .cmp = kmem_page_row__cmp_gfp, .cell = page_gfp, },
	{ .key = "xnode", .header = "Freed remote", .width = 12,
	  .tables = PAGE_BOTH, .cmp = kmem_page_row__cmp_xnode,
	  .cell = page_xnode, .shown = xnode_shown, },
	{ .key = "frag", .header = "Fragmenting", .width = 11,
	  .tables = PAGE_BOTH, .cmp = kmem_page_row__cmp_frag,
	  .cell = page_frag, .shown = frag_shown, },
	{ .key = "pid", .header = "Pid", .width = 7, .tables = PAGE_BOTH,
	  .cmp = kmem_page_row__cmp_task, .cell = page_pid,
	  .shown = pid_shown, },
	{ .key = "comm", .header = "Command", .width = 15, .left = true,
	  .header_left = true, .tables = PAGE_BOTH,
	  .cmp = kmem_page_row__cmp_task, .cell = page_comm,
	  .shown = comm_shown, },
	{ .key = "callsite", .header = "Callsite", .left = true,
	  .header_left = true, .tables = PAGE_BOTH,
	  .cmp = kmem_page_row__cmp_callsite, .cell = page_callsite,
	  .shown = callsite_shown, },
};

const size_t kmem_page_nr_columns = ARRAY_SIZE(kmem_page_columns);

/* --- the fragmentation tables ---------------------------------------- */

#define FRAG_ROW(r)	const struct kmem_frag_row *row = r
#define FAIL_ROW(r)	const struct kmem_frag_fail_row *row = r

static void migtype_cell(const struct kmem_cell_ctx *ctx, int migtype,
			 char *buf, size_t size)
{
	const char *name = kmem_migtype__name(migtype, ctx->pre_v4_4, buf,
					      size);

	if (name != buf)
		snprintf(buf, size, "%s", name);
}

static void callsite_cell(const struct kmem_cell_ctx *ctx, u64 callsite,
			  char *buf, size_t size)
{
	const char *name = ctx->callsite_name(ctx->arg, callsite, buf, size);

	if (name != buf)
		snprintf(buf, size, "%s", name);
}

static void frag_fragmenting(const struct kmem_cell_ctx *ctx __maybe_unused,
			     const void *r, char *buf, size_t size)
{
	FRAG_ROW(r);

	kmem_commas(kmem_frag_row__fragmenting(row), buf, size);
}

static void frag_fallbacks(const struct kmem_cell_ctx *ctx __maybe_unused,
			   const void *r, char *buf, size_t size)
{
	FRAG_ROW(r);

	kmem_commas(row->fallbacks.nr, buf, size);
}

static void frag_bytes(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	FRAG_ROW(r);

	kmem_commas(row->fallbacks.bytes, buf, size);
}

static void frag_claimed(const struct kmem_cell_ctx *ctx __maybe_unused,
			 const void *r, char *buf, size_t size)
{
	FRAG_ROW(r);

	kmem_commas(row->classes[KMEM_FRAG_CLAIMED], buf, size);
}

static void frag_converted(const struct kmem_cell_ctx *ctx __maybe_unused,
			   const void *r, char *buf, size_t size)
{
	FRAG_ROW(r);

	kmem_commas(row->classes[KMEM_FRAG_CONVERTED], buf, size);
}

static void frag_polluted(const struct kmem_cell_ctx *ctx __maybe_unused,
			  const void *r, char *buf, size_t size)
{
	FRAG_ROW(r);

	kmem_commas(row->classes[KMEM_FRAG_POLLUTED], buf, size);
}

static void frag_severe(const struct kmem_cell_ctx *ctx __maybe_unused,
			const void *r, char *buf, size_t size)
{
	FRAG_ROW(r);

	kmem_commas(row->severe, buf, size);
}

static void frag_requested(const struct kmem_cell_ctx *ctx, const void *r,
			   char *buf, size_t size)
{
	FRAG_ROW(r);

	migtype_cell(ctx, row->alloc_migtype, buf, size);
}

static void frag_fallback(const struct kmem_cell_ctx *ctx, const void *r,
			  char *buf, size_t size)
{
	FRAG_ROW(r);

	migtype_cell(ctx, row->fallback_migtype, buf, size);
}

static void frag_callsite(const struct kmem_cell_ctx *ctx, const void *r,
			  char *buf, size_t size)
{
	FRAG_ROW(r);

	callsite_cell(ctx, row->callsite, buf, size);
}

/* Without the kernel's pageblock_order there are no classes. */
static bool classes_shown(const struct kmem_cell_ctx *ctx)
{
	return ctx->frag_classes;
}

#define FRAG_TABLE	KMEM_TABLE_BIT(0)

const struct kmem_column kmem_frag_columns[] = {
	{ .key = "frag", .header = "Fragmenting", .width = 11,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_row__cmp_frag,
	  .cell = frag_fragmenting, .shown = classes_shown, },
	{ .key = "hit", .header = "Fallbacks", .width = 11,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_row__cmp_hits,
	  .cell = frag_fallbacks, },
	{ .key = "bytes", .header = "Bytes asked", .width = 15,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_row__cmp_bytes,
	  .cell = frag_bytes, },
	{ .key = "claimed", .header = "Claimed", .width = 11,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_row__cmp_claimed,
	  .cell = frag_claimed, .shown = classes_shown, },
	{ .key = "converted", .header = "Converted", .width = 11,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_row__cmp_converted,
	  .cell = frag_converted, .shown = classes_shown, },
	{ .key = "polluted", .header = "Polluted", .width = 11,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_row__cmp_polluted,
	  .cell = frag_polluted, .shown = classes_shown, },
	{ .key = "severe", .header = "Severe", .width = 11,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_row__cmp_severe,
	  .cell = frag_severe, },
	{ .key = "migtype", .alias = "mtype", .header = "Requested",
	  .width = 14, .left = true, .header_left = true, .tables = FRAG_TABLE,
	  .cmp = kmem_frag_row__cmp_migtype, .cell = frag_requested, },
	{ .key = "fallback", .header = "Fell back to", .width = 14,
	  .left = true, .header_left = true, .tables = FRAG_TABLE,
	  .cmp = kmem_frag_row__cmp_fallback, .cell = frag_fallback, },
	{ .key = "callsite", .header = "Callsite", .left = true,
	  .header_left = true, .tables = FRAG_TABLE,
	  .cmp = kmem_frag_row__cmp_callsite, .cell = frag_callsite, },
};

const size_t kmem_frag_nr_columns = ARRAY_SIZE(kmem_frag_columns);

static void fail_hits(const struct kmem_cell_ctx *ctx __maybe_unused,
		      const void *r, char *buf, size_t size)
{
	FAIL_ROW(r);

	kmem_commas(row->asked.nr, buf, size);
}

static void fail_bytes(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	FAIL_ROW(r);

	kmem_commas(row->asked.bytes, buf, size);
}

static void fail_order(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	FAIL_ROW(r);

	snprintf(buf, size, "%d", row->order);
}

static void fail_migtype(const struct kmem_cell_ctx *ctx, const void *r,
			 char *buf, size_t size)
{
	FAIL_ROW(r);

	migtype_cell(ctx, row->migtype, buf, size);
}

static void fail_gfp(const struct kmem_cell_ctx *ctx, const void *r,
		     char *buf, size_t size)
{
	FAIL_ROW(r);

	snprintf(buf, size, "%s", ctx->gfp_name(ctx->arg, row->gfp));
}

static void fail_callsite(const struct kmem_cell_ctx *ctx, const void *r,
			  char *buf, size_t size)
{
	FAIL_ROW(r);

	callsite_cell(ctx, row->callsite, buf, size);
}

const struct kmem_column kmem_frag_fail_columns[] = {
	{ .key = "hit", .header = "Failures", .width = 11,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_fail_row__cmp_hits,
	  .cell = fail_hits, },
	{ .key = "bytes", .header = "Bytes asked", .width = 15,
	  .tables = FRAG_TABLE, .cmp = kmem_frag_fail_row__cmp_bytes,
	  .cell = fail_bytes, },
	{ .key = "order", .header = "Order", .width = 5, .tables = FRAG_TABLE,
	  .cmp = kmem_frag_fail_row__cmp_order, .cell = fail_order, },
	{ .key = "migtype", .alias = "mtype", .header = "Migration type",
	  .width = 14, .left = true, .header_left = true, .tables = FRAG_TABLE,
	  .cmp = kmem_frag_fail_row__cmp_migtype, .cell = fail_migtype, },
	{ .key = "gfp", .header = "GFP flags", .left = true,
	  .header_left = true, .tables = FRAG_TABLE,
	  .cmp = kmem_frag_fail_row__cmp_gfp, .cell = fail_gfp, },
	{ .key = "callsite", .header = "Callsite", .left = true,
	  .header_left = true, .tables = FRAG_TABLE,
	  .cmp = kmem_frag_fail_row__cmp_callsite, .cell = fail_callsite,
	  .shown = callsite_shown, },
};

const size_t kmem_frag_fail_nr_columns = ARRAY_SIZE(kmem_frag_fail_columns);

/* --- the slab tables ------------------------------------------------- */

#define SLAB_ROW(r)	const struct kmem_slab_row *row = r

static void slab_ptr(const struct kmem_cell_ctx *ctx __maybe_unused,
		     const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	hex_cell(row->ptr, buf, size);
}

static void slab_callsite(const struct kmem_cell_ctx *ctx, const void *r,
			  char *buf, size_t size)
{
	SLAB_ROW(r);
	const char *name = ctx->callsite_name(ctx->arg, row->callsite, buf,
					      size);

	if (name != buf)
		snprintf(buf, size, "%s", name);
}

static void slab_cache(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	snprintf(buf, size, "%s", row->cache ?: "");
}

static void slab_hits(const struct kmem_cell_ctx *ctx __maybe_unused,
		      const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	kmem_commas(row->hits, buf, size);
}

static void slab_bytes(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	total_per(row->bytes_alloc, row->hits ? row->bytes_alloc / row->hits : 0,
		  buf, size);
}

static void slab_req(const struct kmem_cell_ctx *ctx __maybe_unused,
		     const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	total_per(row->bytes_req, row->hits ? row->bytes_req / row->hits : 0,
		  buf, size);
}

static void slab_freed(const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	kmem_commas(row->freed, buf, size);
}

static void slab_pingpong(const struct kmem_cell_ctx *ctx __maybe_unused,
			  const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	kmem_commas(row->pingpong, buf, size);
}

static void slab_frag(const struct kmem_cell_ctx *ctx __maybe_unused,
		      const void *r, char *buf, size_t size)
{
	SLAB_ROW(r);

	snprintf(buf, size, "%7.3f%%",
		 kmem_slab__frag(row->bytes_req, row->bytes_alloc));
}

#define SLAB_CALLER	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CALLER)
#define SLAB_ALLOC	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_ALLOC)
#define SLAB_CACHE	KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CACHE)
#define SLAB_ALL	(SLAB_CALLER | SLAB_ALLOC | SLAB_CACHE)

const struct kmem_column kmem_slab_columns[] = {
	{ .key = "ptr", .header = "Alloc Ptr", .width = 18,
	  .header_left = true, .tables = SLAB_ALLOC,
	  .cmp = kmem_slab_row__cmp_ptr, .cell = slab_ptr, },
	{ .key = "callsite", .header = "Callsite", .width = 32, .left = true,
	  .header_left = true, .tables = SLAB_CALLER | SLAB_ALLOC,
	  .cmp = kmem_slab_row__cmp_callsite, .cell = slab_callsite, },
	{ .key = "cache", .header = "Cache", .width = 32, .left = true,
	  .header_left = true, .tables = SLAB_CACHE,
	  .cmp = kmem_slab_row__cmp_cache, .cell = slab_cache, },
	{ .key = "hit", .header = "Hits", .width = 11, .tables = SLAB_ALL,
	  .cmp = kmem_slab_row__cmp_hits, .cell = slab_hits, },
	{ .key = "bytes", .header = "Total_alloc/Size", .width = 22,
	  .tables = SLAB_ALL, .cmp = kmem_slab_row__cmp_bytes,
	  .cell = slab_bytes, },
	{ .header = "Total_req/Size", .width = 22, .tables = SLAB_ALL,
	  .cell = slab_req, },
	{ .header = "Freed", .width = 11, .tables = SLAB_ALL,
	  .cell = slab_freed, },
	{ .key = "pingpong", .header = "Ping-pong", .width = 11,
	  .tables = SLAB_ALL, .cmp = kmem_slab_row__cmp_pingpong,
	  .cell = slab_pingpong, },
	{ .key = "frag", .header = "Frag", .width = 8, .tables = SLAB_ALL,
	  .cmp = kmem_slab_row__cmp_frag, .cell = slab_frag, },
};

const size_t kmem_slab_nr_columns = ARRAY_SIZE(kmem_slab_columns);

/* --- sort keys ------------------------------------------------------- */

static bool is_named(const char *name, const char *str, size_t len)
{
	return name && strlen(name) == len && !strncmp(name, str, len);
}

static const struct kmem_column *column_by_key(const struct kmem_column *cols,
					       size_t nr_cols, const char *str,
					       size_t len)
{
	size_t i;

	for (i = 0; i < nr_cols; i++)
		if (is_named(cols[i].key, str, len) ||
		    is_named(cols[i].alias, str, len))
			return &cols[i];
	return NULL;
}

void kmem_sort_keys__split(struct kmem_sort_keys *keys, const char *str)
{
	keys->nr = 0;
	keys->too_many = false;
	while (str && *str) {
		size_t len = strcspn(str, ",");

		if (keys->nr == KMEM_MAX_SORT_KEYS) {
			keys->too_many = true;
			return;
		}
		keys->name[keys->nr] = str;
		keys->len[keys->nr++] = len;
		str += len + (str[len] == ',');
	}
}

/* Each key known, or the first unknown one; then, too many keys. */
int kmem_columns__parse(const struct kmem_column *cols, size_t nr_cols,
			const struct kmem_sort_keys *given,
			kmem_rows_cmp_fn *keys, int max_keys,
			char *bad, size_t bad_size)
{
	int i;

	for (i = 0; i < given->nr; i++) {
		const struct kmem_column *col;

		if (i == max_keys)
			return -E2BIG;
		col = column_by_key(cols, nr_cols, given->name[i],
				    given->len[i]);
		if (!col) {
			snprintf(bad, bad_size, "%.*s", (int)given->len[i],
				 given->name[i]);
			return -EINVAL;
		}
		keys[i] = col->cmp;
	}
	return given->too_many ? -E2BIG : given->nr;
}

int kmem_columns__task_key(const struct kmem_sort_keys *given,
			   enum kmem_task_key *key)
{
	bool pid = false, comm = false;
	int i;

	for (i = 0; i < given->nr; i++) {
		pid |= is_named("pid", given->name[i], given->len[i]);
		comm |= is_named("comm", given->name[i], given->len[i]);
	}
	if (pid && comm)
		return -EINVAL;
	*key = pid ? KMEM_TASK_PID : comm ? KMEM_TASK_COMM : KMEM_TASK_NONE;
	return 0;
}

const char *kmem_columns__keys(const struct kmem_column *cols, size_t nr_cols,
			       char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < nr_cols && n < size; i++) {
		if (!cols[i].key)
			continue;
		n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
			      cols[i].key);
	}
	return buf;
}

const char *kmem_column__header(const struct kmem_column *col,
				const struct kmem_cell_ctx *ctx)
{
	return col->header_of ? col->header_of(ctx) : col->header;
}

bool kmem_column__shown(const struct kmem_column *col,
			const struct kmem_cell_ctx *ctx, int table)
{
	if (!(col->tables & KMEM_TABLE_BIT(table)))
		return false;
	return !col->shown || col->shown(ctx);
}
