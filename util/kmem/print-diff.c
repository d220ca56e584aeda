// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem diff's report; see print-diff.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "json.h"
#include "print-diff.h"
#include "print-layout.h"
#include "report-columns.h"
#include "report.h"

/* Thousands separators whatever the locale: "12,345,678". */
#define COMMAS(v) kmem_commas((v), (char [32]) { 0 }, 32)

/* Rows of a table shown when no table was asked for, as perf kmem stat. */
#define DEFAULT_TABLE_LINES	20
#define DEFAULT_SORT		"bytes,hit"

/* --- how perf kmem stat's document pairs ----------------------------- */

#define CALLSITE	"callsite.name|callsite.address"
#define GFP		"gfp.names|gfp.value"

static const char * const page_row_ident[] = {
	CALLSITE, "order", "migration_type.name", GFP, NULL,
};

static const char * const page_row_ignore[] = {
	"migration_type.value", NULL,
};

static const char * const frag_row_ident[] = {
	CALLSITE, "requested.name", "fallback.name", NULL,
};

static const char * const frag_cell_ident[] = {
	"requested.name", "fallback.name", NULL,
};

static const char * const frag_ignore[] = {
	"requested.value", "fallback.value", NULL,
};

static const char * const grid_ident[] = { "order", NULL };
static const char * const slab_caller_ident[] = { CALLSITE, NULL };
static const char * const slab_cache_ident[] = { "cache", NULL };

/* Identity slots of the page rows. */
enum { ID_CALLSITE, ID_ORDER, ID_MIGTYPE, ID_GFP };

static const struct kmem_diff_table_spec tables[] = {
	{ .name = "page.grid", .rows = "page.grid.rows",
	  .present = "page.grid.rows.0.order", .identity = grid_ident, },
	{ .name = "page.callers", .rows = "page.callers.rows",
	  .present = "page.callers.nr_rows", .identity = page_row_ident,
	  .ignore = page_row_ignore, },
	{ .name = "page.fragmentation.matrix",
	  .rows = "page.fragmentation.matrix",
	  .present = "page.fragmentation.fallbacks.count",
	  .identity = frag_cell_ident, .ignore = frag_ignore, },
	{ .name = "page.fragmentation.callers",
	  .rows = "page.fragmentation.callers.rows",
	  .present = "page.fragmentation.callers.nr_rows",
	  .identity = frag_row_ident, .ignore = frag_ignore, },
	{ .name = "page.fragmentation.failures",
	  .rows = "page.fragmentation.failures.rows",
	  .present = "page.fragmentation.failures.nr_rows",
	  .identity = page_row_ident, .ignore = page_row_ignore, },
	{ .name = "slab.callers", .rows = "slab.callers.rows",
	  .present = "slab.callers.nr_rows", .identity = slab_caller_ident, },
	{ .name = "slab.caches", .rows = "slab.caches.rows",
	  .present = "slab.caches.nr_rows", .identity = slab_cache_ident, },
};

/* Names, not numbers; and the per-pfn and per-pointer tables. */
static const char * const ignored[] = {
	"schema", "page.grid.columns", "page.callers.sort", "page.allocs",
	"page.fragmentation.callers.sort", "page.fragmentation.failures.sort",
	"slab.callers.sort", "slab.caches.sort", "slab.allocs", NULL,
};

const struct kmem_diff_config kmem_diff_report_config = {
	.tables = tables,
	.nr_tables = ARRAY_SIZE(tables),
	.ignore = ignored,
};

struct add_ctx {
	struct kmem_diff	*d;
	int			side;
	int			err;
};

static void take(void *arg, const char *path, const struct kmem_json_value *v)
{
	struct add_ctx *ctx = arg;
	char buf[32];
	int err;

	switch (v->kind) {
	case KMEM_JSON_U64:
		err = kmem_diff__number(ctx->d, ctx->side, path, v->u);
		break;
	case KMEM_JSON_S64:
		if (v->s >= 0) {
			err = kmem_diff__number(ctx->d, ctx->side, path, v->s);
			break;
		}
		snprintf(buf, sizeof(buf), "%" PRId64, v->s);
		err = kmem_diff__text(ctx->d, ctx->side, path, buf, strlen(buf));
		break;
	case KMEM_JSON_DOUBLE:
		snprintf(buf, sizeof(buf), "%g", v->d);
		err = kmem_diff__text(ctx->d, ctx->side, path, buf, strlen(buf));
		break;
	case KMEM_JSON_BOOL:
		err = kmem_diff__text(ctx->d, ctx->side, path,
				      v->b ? "true" : "false", v->b ? 4 : 5);
		break;
	case KMEM_JSON_NULL:
		err = kmem_diff__text(ctx->d, ctx->side, path, NULL, 0);
		break;
	case KMEM_JSON_HEX:
		snprintf(buf, sizeof(buf), "0x%" PRIx64, v->u);
		err = kmem_diff__text(ctx->d, ctx->side, path, buf, strlen(buf));
		break;
	case KMEM_JSON_STRING:
	default:
		err = kmem_diff__text(ctx->d, ctx->side, path, v->str, v->len);
		break;
	}
	if (err && !ctx->err)
		ctx->err = err;
}

int kmem_diff_report__add(struct kmem_diff *d, int side,
			  const struct kmem_report *r)
{
	struct add_ctx ctx = { .d = d, .side = side };
	int err = kmem_report__visit(r, take, &ctx);

	return err ?: ctx.err;
}

/* --- sort keys -------------------------------------------------------- */

/* A -s key: the member whose delta it sorts by, or an identity slot. */
struct sort_name {
	const char	*key;
	const char	*member;	/* NULL: @slot */
	int		slot;
};

static const struct sort_name page_sort[] = {
	{ "bytes", "bytes", 0 }, { "hit", "hits", 0 },
	{ "xnode", "freed_remote", 0 }, { "callsite", NULL, ID_CALLSITE },
	{ "order", NULL, ID_ORDER }, { "migtype", NULL, ID_MIGTYPE },
	{ "mtype", NULL, ID_MIGTYPE }, { "gfp", NULL, ID_GFP },
	{ NULL, NULL, 0 },
};

static const struct sort_name slab_caller_sort[] = {
	{ "bytes", "bytes_alloc", 0 }, { "hit", "hits", 0 },
	{ "pingpong", "pingpong", 0 }, { "callsite", NULL, 0 },
	{ NULL, NULL, 0 },
};

static const struct sort_name slab_cache_sort[] = {
	{ "bytes", "bytes_alloc", 0 }, { "hit", "hits", 0 },
	{ "pingpong", "pingpong", 0 }, { "cache", NULL, 0 },
	{ NULL, NULL, 0 },
};

static const struct sort_name frag_caller_sort[] = {
	{ "bytes", "fallbacks.bytes", 0 }, { "hit", "fallbacks.count", 0 },
	{ NULL, NULL, 0 },
};

static const struct sort_name fail_sort[] = {
	{ "bytes", "bytes", 0 }, { "hit", "hits", 0 }, { NULL, NULL, 0 },
};

static const struct sort_name *find_sort(const struct sort_name *names,
					 const char *key, size_t len)
{
	for (; names && names->key; names++)
		if (strlen(names->key) == len && !strncmp(names->key, key, len))
			return names;
	return NULL;
}

int kmem_diff_report__check_sort(const struct kmem_sort_keys *sort, bool slab,
				 char *bad, size_t bad_size, char *known,
				 size_t known_size)
{
	int i;

	snprintf(known, known_size, "%s",
		 slab ? "bytes, hit, pingpong, callsite, cache" :
			"bytes, hit, xnode, callsite, order, migtype, gfp");
	for (i = 0; sort && i < sort->nr; i++) {
		const char *key = sort->name[i];
		size_t len = sort->len[i];
		bool known_key = slab ? find_sort(slab_caller_sort, key, len) ||
					find_sort(slab_cache_sort, key, len) :
					!!find_sort(page_sort, key, len);

		if (!known_key) {
			snprintf(bad, bad_size, "%.*s", (int)len, key);
			return -EINVAL;
		}
	}
	return sort && sort->too_many ? -E2BIG : 0;
}

/* Sort @t by the keys of @sort that @names knows, largest delta first. */
static void sort_table(struct kmem_diff_table *t, const struct sort_name *names,
		       const struct kmem_sort_keys *sort)
{
	struct kmem_diff_key keys[KMEM_MAX_SORT_KEYS];
	int i, nr = 0;

	for (i = 0; i < sort->nr; i++) {
		const struct sort_name *n = find_sort(names, sort->name[i],
						      sort->len[i]);

		if (n && n->member) {
			keys[nr].kind = KMEM_DIFF_KEY_DELTA;
			keys[nr].index = kmem_diff_table__member(t, n->member);
			nr += keys[nr].index >= 0;
		} else if (n) {
			keys[nr].kind = KMEM_DIFF_KEY_IDENTITY;
			keys[nr++].index = n->slot;
		}
	}
	kmem_diff_table__sort(t, keys, nr);
}

static void sort_tables(struct kmem_diff *d,
			const struct kmem_diff_report_options *o)
{
	struct kmem_sort_keys by_default;
	static const struct {
		const char		*table;
		const struct sort_name	*names;
		bool			user;	/* by -s, else by bytes,hit */
	} how[] = {
		{ "page.callers", page_sort, true },
		{ "slab.callers", slab_caller_sort, true },
		{ "slab.caches", slab_cache_sort, true },
		{ "page.fragmentation.callers", frag_caller_sort, false },
		{ "page.fragmentation.failures", fail_sort, false },
	};
	size_t i;

	kmem_sort_keys__split(&by_default, DEFAULT_SORT);
	for (i = 0; i < ARRAY_SIZE(how); i++) {
		struct kmem_diff_table *t = kmem_diff__table(d, how[i].table);

		if (t)
			sort_table(t, how[i].names,
				   how[i].user && o->sort ? o->sort : &by_default);
	}
}

/* --- cells ------------------------------------------------------------ */

static const char * const column_names[] = {
	"Unmovable", "Reclaimable", "Movable", "Special",
};

/* A side's number; '-' where that trace has none. */
static const char *side_cell(const struct kmem_diff_value *v, int side,
			     char *buf, size_t size)
{
	if (!v->has[side])
		snprintf(buf, size, "-");
	else
		kmem_commas(v->v[side], buf, size);
	return buf;
}

/* "+1,234", "-5", '.' for none, '-' where a trace has no number. */
static const char *delta_cell(const struct kmem_diff_value *v, char *buf,
			      size_t size)
{
	u64 o = v->v[KMEM_DIFF_OLD], n = v->v[KMEM_DIFF_NEW];
	char digits[32];

	if (!kmem_diff_value__both(v))
		snprintf(buf, size, "-");
	else if (o == n)
		snprintf(buf, size, ".");
	else
		snprintf(buf, size, "%c%s", n > o ? '+' : '-',
			 kmem_commas(n > o ? n - o : o - n, digits,
				     sizeof(digits)));
	return buf;
}

/* "+5.6%", "-100.0%", "+12,345%"; "new" from 0; '.' for none. */
static const char *percent_cell(const struct kmem_diff_value *v, char *buf,
				size_t size)
{
	char digits[32];
	double pct;

	if (!kmem_diff_value__both(v))
		snprintf(buf, size, "-");
	else if (!kmem_diff_value__percent(v, &pct))
		snprintf(buf, size, "new");
	else if (v->v[KMEM_DIFF_OLD] == v->v[KMEM_DIFF_NEW])
		snprintf(buf, size, ".");
	else if (pct > -1000 && pct < 1000)
		snprintf(buf, size, "%+.1f%%", pct);
	else
		snprintf(buf, size, "%c%s%%", pct > 0 ? '+' : '-',
			 kmem_commas((u64)(pct > 0 ? pct : -pct), digits,
				     sizeof(digits)));
	return buf;
}

/* --- lines ------------------------------------------------------------ */

#define LABEL_WIDTH	40

/* The heads of the columns of the lines below; of the bytes too. */
static void print_heads(bool bytes)
{
	printf(" %-*s %13s %13s %13s %9s", LABEL_WIDTH, "", "old", "new",
	       "delta", "delta %");
	if (bytes)
		printf("   %17s %17s %17s %9s", "old bytes", "new bytes",
		       "delta bytes", "delta %");
	printf("\n");
}

/* A label, a count's four cells and a byte count's four; either NULL. */
static void print_line(const char *label, const struct kmem_diff_value *count,
		       const struct kmem_diff_value *bytes)
{
	char c[4][32] = { "", "", "", "" }, b[4][32] = { "", "", "", "" };

	if (count) {
		side_cell(count, KMEM_DIFF_OLD, c[0], sizeof(c[0]));
		side_cell(count, KMEM_DIFF_NEW, c[1], sizeof(c[1]));
		delta_cell(count, c[2], sizeof(c[2]));
		percent_cell(count, c[3], sizeof(c[3]));
	}
	if (bytes) {
		side_cell(bytes, KMEM_DIFF_OLD, b[0], sizeof(b[0]));
		side_cell(bytes, KMEM_DIFF_NEW, b[1], sizeof(b[1]));
		delta_cell(bytes, b[2], sizeof(b[2]));
		percent_cell(bytes, b[3], sizeof(b[3]));
	}
	if (!bytes)
		printf(" %-*s %13s %13s %13s %9s\n", LABEL_WIDTH, label, c[0],
		       c[1], c[2], c[3]);
	else
		printf(" %-*s %13s %13s %13s %9s   %17s %17s %17s %9s\n",
		       LABEL_WIDTH, label, c[0], c[1], c[2], c[3], b[0], b[1],
		       b[2], b[3]);
}

static void print_title(const char *title)
{
	int width = printf("\n %s\n", title);

	printf(" %.*s\n\n", width - 3,
	       "================================================================");
}

enum {
	BYTES	= 1,	/* a byte count: the bytes columns */
	HIDE	= 2,	/* said elsewhere */
};

struct label {
	const char	*path;
	const char	*label;
	unsigned int	flags;
};

/* stat's labels; a pair of "count" and "bytes" goes by the path of both. */
static const struct label labels[] = {
	{ "perf_data.nr_cpus", "CPUs:", 0 },
	{ "perf_data.nr_samples", "Samples analysed:", 0 },
	{ "perf_data.nr_page_events", "  page allocator events:", 0 },
	{ "perf_data.nr_slab_events", "  slab allocator events:", 0 },
	{ "perf_data.nr_extfrag_events", "  fallback (extfrag) events:", 0 },
	{ "perf_data.events_lost", "Events lost while recording:", 0 },
	{ "perf_data.events_too_short", "Events ignored (too short):", 0 },
	{ "perf_data.events_out_of_order", "Events out of time order:", 0 },
	{ "page.page_size", "Page size:", BYTES },
	{ "page.summary.allocated_freed", "Pages allocated+freed:", 0 },
	{ "page.summary.allocated_only", "Pages allocated-only:", 0 },
	{ "page.summary.allocated_only.still_live",
	  "  still allocated at the end:", 0 },
	{ "page.summary.allocated_only.allocated_again",
	  "  allocated again, free not seen:", 0 },
	{ "page.summary.freed_only", "Pages freed-only:", 0 },
	{ "page.summary.failures", "Page allocation failures:", 0 },
	{ "page.summary.total_allocations", "Total allocations:", 0 },
	{ "page.summary.total_frees", "Total frees:", 0 },
	{ "page.summary.frees_of_another_order",
	  "Frees of another order than allocated:", 0 },
	{ "page.summary.unknown_migration_types",
	  "Unknown migration types (as Special):", 0 },
	{ "page.summary.ignored_bad_order",
	  "Events ignored (order out of range):", 0 },
	{ "page.cross_node.nr_nodes", "NUMA nodes:", 0 },
	{ "page.cross_node.allocations_remote",
	  "Allocations of remote memory:", 0 },
	{ "page.cross_node.frees_remote", "Frees of remote memory:", 0 },
	{ "page.cross_node.freed_on_other_node",
	  "Allocations freed on another node:", 0 },
	{ "page.callers.nr_rows", NULL, HIDE },
	{ "page.fragmentation.pageblock_order", "Pageblock order:", 0 },
	{ "page.fragmentation.fallbacks", "Fallbacks to other types' pages:", 0 },
	{ "page.fragmentation.classes.claimed", "  claimed a free pageblock:", 0 },
	{ "page.fragmentation.classes.converted", "  converted a pageblock:", 0 },
	{ "page.fragmentation.classes.polluted", "  polluted a pageblock:", 0 },
	{ "page.fragmentation.severe", "Severe (from orders 0 to 3):", 0 },
	{ "page.fragmentation.ignored_events",
	  "Events ignored (cannot be real):", 0 },
	{ "page.fragmentation.callers.nr_rows", NULL, HIDE },
	{ "page.fragmentation.failures.nr_rows", NULL, HIDE },
	{ "page.fragmentation.mixed_pageblocks.touched",
	  "Pageblocks allocated into:", 0 },
	{ "page.fragmentation.mixed_pageblocks.mixed",
	  "  of more than one type (mixed):", 0 },
	{ "page.fragmentation.mixed_pageblocks.unmovable_or_reclaimable",
	  "  Unmovable or Reclaimable:", 0 },
	{ "page.fragmentation.mixed_pageblocks.fallback_only",
	  "Fallen back into, no allocation:", 0 },
	{ "slab.summary.total_allocations", "Total allocations:", 0 },
	{ "slab.summary.bytes_requested", "Total bytes requested:", BYTES },
	{ "slab.summary.wasted_bytes", "Internal fragmentation:", BYTES },
	{ "slab.summary.allocated_freed", "Allocated+freed:", 0 },
	{ "slab.summary.allocated_only", "Allocated-only:", 0 },
	{ "slab.summary.allocated_only.still_live",
	  "  still allocated at the end:", 0 },
	{ "slab.summary.allocated_only.allocated_again",
	  "  allocated again, free not seen:", 0 },
	{ "slab.summary.frees.total", "Total frees:", 0 },
	{ "slab.summary.frees.unknown_pointers", "  of unknown pointers:", 0 },
	{ "slab.summary.frees.repeated", "  repeated frees of a pointer:", 0 },
	{ "slab.summary.frees.null", "  of NULL or ZERO_SIZE_PTR:", 0 },
	{ "slab.summary.failures", "Allocation failures (requested):", 0 },
	{ "slab.summary.zero_size", "Zero-size allocations:", 0 },
	{ "slab.summary.pingpong", "Ping-pong frees (on another CPU):", 0 },
	{ "slab.summary.cross_node", "Cross-node allocations:", 0 },
	{ "slab.callers.nr_rows", NULL, HIDE },
	{ "slab.caches.nr_rows", NULL, HIDE },
};

/* The node of position @i of the node list, as either trace has it. */
static const char *node_name(struct kmem_diff *d, const char *i, char *buf,
			     size_t size)
{
	const struct kmem_diff_scalar *s;
	char path[64];
	int side;

	snprintf(path, sizeof(path), "page.cross_node.nodes.%s", i);
	s = kmem_diff__scalar(d, path);
	for (side = KMEM_DIFF_NEW; s && side >= KMEM_DIFF_OLD; side--) {
		if (s->num.has[side]) {
			snprintf(buf, size, "%" PRIu64, s->num.v[side]);
			return buf;
		}
	}
	snprintf(buf, size, "#%s", i);
	return buf;
}

/* Labels of the numbers under an array index. */
static bool indexed_label(struct kmem_diff *d, const char *path, char *buf,
			  size_t size, unsigned int *flags)
{
	static const char matrix[] = "page.cross_node.matrix.";
	static const char mixed[] = "page.fragmentation.mixed_pageblocks.";
	char from[16], to[16], a[16], b[16];
	unsigned int col;

	if (!strncmp(path, "page.cross_node.nodes.", 22)) {
		*flags = HIDE;
		return true;
	}
	if (!strncmp(path, matrix, sizeof(matrix) - 1) &&
	    sscanf(path + sizeof(matrix) - 1, "%15[0-9].%15[0-9]", a, b) == 2) {
		snprintf(buf, size, "node %s to node %s:",
			 node_name(d, a, from, sizeof(from)),
			 node_name(d, b, to, sizeof(to)));
		*flags = BYTES;
		return true;
	}
	if (strncmp(path, mixed, sizeof(mixed) - 1))
		return false;
	path += sizeof(mixed) - 1;
	if (sscanf(path, "by_column.%u", &col) == 1 && col < 4) {
		snprintf(buf, size, "  %s allocations in:", column_names[col]);
		*flags = 0;
		return true;
	}
	if (sscanf(path, "bytes_by_column.%u", &col) == 1 && col < 4) {
		snprintf(buf, size, "  %s bytes allocated:", column_names[col]);
		*flags = BYTES;
		return true;
	}
	return false;
}

static const char *label_of(struct kmem_diff *d, const char *path,
			    const char *prefix, char *buf, size_t size,
			    unsigned int *flags)
{
	size_t i, len = strlen(prefix);

	for (i = 0; i < ARRAY_SIZE(labels); i++) {
		if (!strcmp(labels[i].path, path)) {
			*flags = labels[i].flags;
			return labels[i].label;
		}
	}
	if (indexed_label(d, path, buf, size, flags))
		return buf;
	/* A number stat does not print: by its path. */
	*flags = 0;
	if (!strncmp(path, prefix, len) && path[len] == '.')
		path += len + 1;
	snprintf(buf, size, "%s:", path);
	return buf;
}

/* Is @s a "count" whose "bytes" comes next?  Then @base is their path. */
static bool count_pair(const struct kmem_diff_scalar *s, size_t left,
		       char *base, size_t size)
{
	size_t len = strlen(s->path);

	if (left < 2 || len < 6 || strcmp(s->path + len - 6, ".count") ||
	    len - 6 >= size)
		return false;
	snprintf(base, size, "%.*s", (int)(len - 6), s->path);
	return !strncmp(s[1].path, base, len - 6) &&
	       !strcmp(s[1].path + len - 6, ".bytes") && s[1].is_number;
}

struct printing {
	struct kmem_diff			*d;
	const struct kmem_diff_report_options	*o;
	const struct kmem_diff_scalar		*scalars;
	size_t					nr;
	bool					*printed;
};

/* The numbers under @prefix, in document order, as stat labels them. */
static void print_numbers(struct printing *p, const char *prefix)
{
	size_t i, len = strlen(prefix);
	char base[KMEM_JSON_MAX_PATH], buf[128];

	for (i = 0; i < p->nr; i++) {
		const struct kmem_diff_scalar *s = &p->scalars[i];
		const char *label;
		unsigned int flags;

		if (p->printed[i] || !s->is_number ||
		    (len && (strncmp(s->path, prefix, len) ||
			     (s->path[len] && s->path[len] != '.'))))
			continue;
		p->printed[i] = true;
		if (count_pair(s, p->nr - i, base, sizeof(base))) {
			label = label_of(p->d, base, prefix, buf, sizeof(buf),
					 &flags);
			p->printed[++i] = true;
			if (!(flags & HIDE))
				print_line(label, &s->num, &s[1].num);
			continue;
		}
		label = label_of(p->d, s->path, prefix, buf, sizeof(buf),
				 &flags);
		if (flags & HIDE)
			continue;
		if (flags & BYTES)
			print_line(label, NULL, &s->num);
		else
			print_line(label, &s->num, NULL);
	}
}

static const char *text_of(struct kmem_diff *d, const char *path, int side)
{
	const struct kmem_diff_scalar *s = kmem_diff__scalar(d, path);

	return s && s->has_str[side] ? s->str[side] : NULL;
}

/* --- tables ----------------------------------------------------------- */

/* How a table of rows is shown. */
struct table_view {
	const char	*table;
	const char	*what;		/* "page allocations" */
	const char	*bytes;		/* the members shown */
	const char	*count;
	const char	*bytes_head;
	const char	*count_head;
	int		nr_idents;
	int		slots[KMEM_DIFF_MAX_IDENTITY];	/* in column order */
	const char	*heads[KMEM_DIFF_MAX_IDENTITY];
	bool		left[KMEM_DIFF_MAX_IDENTITY];
	bool		by_default;	/* shown without --caller */
};

static const struct table_view views[] = {
	{ "page.callers", "page allocations, by callsite, order, migration type and GFP flags",
	  "bytes", "hits", "Bytes", "Hits", 4,
	  { ID_ORDER, ID_MIGTYPE, ID_GFP, ID_CALLSITE },
	  { "Order", "Migration type", "GFP flags", "Callsite" },
	  { false, true, true, true }, true },
	{ "page.fragmentation.callers",
	  "fallbacks, by callsite, requested type and type fallen back to",
	  "fallbacks.bytes", "fallbacks.count", "Bytes asked", "Fallbacks", 3,
	  { 1, 2, 0 }, { "Requested", "Fell back to", "Callsite" },
	  { true, true, true }, false },
	{ "page.fragmentation.failures",
	  "failed page allocations, by callsite, order, migration type and GFP flags",
	  "bytes", "hits", "Bytes asked", "Failures", 4,
	  { ID_ORDER, ID_MIGTYPE, ID_GFP, ID_CALLSITE },
	  { "Order", "Migration type", "GFP flags", "Callsite" },
	  { false, true, true, true }, false },
	{ "slab.callers", "slab allocations, by callsite",
	  "bytes_alloc", "hits", "Bytes", "Hits", 1, { 0 }, { "Callsite" },
	  { true }, true },
	{ "slab.caches", "slab allocations, by cache",
	  "bytes_alloc", "hits", "Bytes", "Hits", 1, { 0 }, { "Cache" },
	  { true }, true },
};

/* What the cells of a table need: its view and the members' indices. */
struct table_ctx {
	const struct table_view	*view;
	int			bytes;
	int			count;
	bool			one_sided;
};

#define ROW(r)		const struct kmem_diff_row *row = r
#define TCTX(c)		const struct table_ctx *tc = (c)->arg

static const struct kmem_diff_value no_value;

static const struct kmem_diff_value *member(const struct kmem_diff_row *row,
					    int m)
{
	return m >= 0 ? &row->values[m] : &no_value;
}

static void bytes_delta(const struct kmem_cell_ctx *ctx, const void *r,
			char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	delta_cell(member(row, tc->bytes), buf, size);
}

static void bytes_pct(const struct kmem_cell_ctx *ctx, const void *r,
		      char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	percent_cell(member(row, tc->bytes), buf, size);
}

static void bytes_old(const struct kmem_cell_ctx *ctx, const void *r,
		      char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	side_cell(member(row, tc->bytes), KMEM_DIFF_OLD, buf, size);
}

static void bytes_new(const struct kmem_cell_ctx *ctx, const void *r,
		      char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	side_cell(member(row, tc->bytes), KMEM_DIFF_NEW, buf, size);
}

static void count_delta(const struct kmem_cell_ctx *ctx, const void *r,
			char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	delta_cell(member(row, tc->count), buf, size);
}

static void count_pct(const struct kmem_cell_ctx *ctx, const void *r,
		      char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	percent_cell(member(row, tc->count), buf, size);
}

static void count_old(const struct kmem_cell_ctx *ctx, const void *r,
		      char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	side_cell(member(row, tc->count), KMEM_DIFF_OLD, buf, size);
}

static void count_new(const struct kmem_cell_ctx *ctx, const void *r,
		      char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	side_cell(member(row, tc->count), KMEM_DIFF_NEW, buf, size);
}

static void row_in(const struct kmem_cell_ctx *ctx __maybe_unused,
		   const void *r, char *buf, size_t size)
{
	ROW(r);

	snprintf(buf, size, "%s", row->in == KMEM_DIFF_IN_NEW ? "new" :
				  row->in == KMEM_DIFF_IN_OLD ? "gone" : "");
}

static void ident_cell(const struct kmem_cell_ctx *ctx, const void *r,
		       int column, char *buf, size_t size)
{
	ROW(r);
	TCTX(ctx);

	snprintf(buf, size, "%s", row->ident[tc->view->slots[column]]);
}

static void ident0(const struct kmem_cell_ctx *ctx, const void *r, char *buf,
		   size_t size)
{
	ident_cell(ctx, r, 0, buf, size);
}

static void ident1(const struct kmem_cell_ctx *ctx, const void *r, char *buf,
		   size_t size)
{
	ident_cell(ctx, r, 1, buf, size);
}

static void ident2(const struct kmem_cell_ctx *ctx, const void *r, char *buf,
		   size_t size)
{
	ident_cell(ctx, r, 2, buf, size);
}

static void ident3(const struct kmem_cell_ctx *ctx, const void *r, char *buf,
		   size_t size)
{
	ident_cell(ctx, r, 3, buf, size);
}

/* Rows shown: -l, else all with --caller, else the top 20. */
static size_t rows_to_show(const struct kmem_diff_report_options *o,
			   size_t nr)
{
	int lines = o->lines;

	if (lines < 0 && !o->caller)
		lines = DEFAULT_TABLE_LINES;
	return lines >= 0 && (size_t)lines < nr ? (size_t)lines : nr;
}

/* The Row column: only where a row is in one trace only. */
static bool row_in_shown(const struct kmem_cell_ctx *ctx)
{
	TCTX(ctx);

	return tc->one_sided;
}

static void print_table(struct kmem_diff *d, const struct table_view *v,
			const struct kmem_diff_report_options *o)
{
	static void (* const idents[])(const struct kmem_cell_ctx *,
				       const void *, char *, size_t) = {
		ident0, ident1, ident2, ident3,
	};
	struct kmem_diff_table *t = kmem_diff__table(d, v->table);
	struct kmem_column cols[9 + KMEM_DIFF_MAX_IDENTITY];
	char heads[6][32];
	struct table_ctx tc;
	struct kmem_cell_ctx ctx = { .arg = &tc };
	size_t nr = 0;
	int i;

	if (!t || (!t->present[0] && !t->present[1]))
		return;
	tc = (struct table_ctx){
		.view = v,
		.bytes = kmem_diff_table__member(t, v->bytes),
		.count = kmem_diff_table__member(t, v->count),
		.one_sided = t->nr_in[KMEM_DIFF_IN_BOTH] < t->nr_rows,
	};
	printf("\n %s: %s row%s, %s in both traces, %s new, %s gone\n",
	       v->what, COMMAS(t->nr_rows), t->nr_rows == 1 ? "" : "s",
	       COMMAS(t->nr_in[KMEM_DIFF_IN_BOTH]),
	       COMMAS(t->nr_in[KMEM_DIFF_IN_NEW]),
	       COMMAS(t->nr_in[KMEM_DIFF_IN_OLD]));
	snprintf(heads[0], sizeof(heads[0]), "%s delta", v->bytes_head);
	snprintf(heads[1], sizeof(heads[1]), "%s old", v->bytes_head);
	snprintf(heads[2], sizeof(heads[2]), "%s new", v->bytes_head);
	snprintf(heads[3], sizeof(heads[3]), "%s delta", v->count_head);
	snprintf(heads[4], sizeof(heads[4]), "%s old", v->count_head);
	snprintf(heads[5], sizeof(heads[5]), "%s new", v->count_head);
#define COL(h, f, l) ((struct kmem_column){ .header = (h), .cell = (f), \
	.left = (l), .header_left = (l), .tables = KMEM_TABLE_BIT(0) })
	cols[nr++] = COL(heads[0], bytes_delta, false);
	cols[nr++] = COL("%", bytes_pct, false);
	cols[nr++] = COL(heads[1], bytes_old, false);
	cols[nr++] = COL(heads[2], bytes_new, false);
	cols[nr++] = COL(heads[3], count_delta, false);
	cols[nr++] = COL("%", count_pct, false);
	cols[nr++] = COL(heads[4], count_old, false);
	cols[nr++] = COL(heads[5], count_new, false);
	cols[nr] = COL("Row", row_in, true);
	cols[nr++].shown = row_in_shown;
	for (i = 0; i < v->nr_idents; i++)
		cols[nr++] = COL(v->heads[i], idents[i], v->left[i]);
#undef COL
	kmem_print__table(&ctx, cols, nr, 0, (void **)t->rows, t->nr_rows,
			  rows_to_show(o, t->nr_rows));
}

/* --- sections --------------------------------------------------------- */

/* Grid cells, those with allocations in either trace. */
static void print_grid(struct kmem_diff *d)
{
	struct kmem_diff_table *t = kmem_diff__table(d, "page.grid");
	char label[64], name[16];
	size_t r;
	int col;

	if (!t || !t->nr_rows)
		return;
	printf("\n Allocations by order and migration type, cells '.' in both traces left out:\n\n");
	print_heads(false);
	for (r = 0; r < t->nr_rows; r++) {
		const struct kmem_diff_row *row = t->rows[r];

		for (col = 0; col < 4; col++) {
			const struct kmem_diff_value *v;
			int m;

			snprintf(name, sizeof(name), "counts.%d", col);
			m = kmem_diff_table__member(t, name);
			v = member(row, m);
			if (m < 0 || (!v->v[0] && !v->v[1]))
				continue;
			snprintf(label, sizeof(label), "order %s, %s:",
				 row->ident[0], column_names[col]);
			print_line(label, v, NULL);
		}
	}
}

/* The fallback matrix, a requested and fallen back to type a line. */
static void print_frag_matrix(struct kmem_diff *d)
{
	struct kmem_diff_table *t = kmem_diff__table(d,
						     "page.fragmentation.matrix");
	static const char * const classes[] = {
		"claimed", "converted", "polluted",
	};
	char label[80];
	size_t r, c;

	if (!t || !t->nr_rows)
		return;
	printf("\n Fallbacks by requested type and type fallen back to:\n\n");
	print_heads(true);
	for (r = 0; r < t->nr_rows; r++) {
		const struct kmem_diff_row *row = t->rows[r];

		snprintf(label, sizeof(label), "%s to %s:", row->ident[0],
			 row->ident[1]);
		print_line(label,
			   member(row, kmem_diff_table__member(t, "fallbacks.count")),
			   member(row, kmem_diff_table__member(t, "fallbacks.bytes")));
		for (c = 0; c < ARRAY_SIZE(classes); c++) {
			int m = kmem_diff_table__member(t, classes[c]);

			if (m < 0)
				continue;
			snprintf(label, sizeof(label), "  %s:", classes[c]);
			print_line(label, member(row, m), NULL);
		}
	}
}

/* What a status string of the document means, in words. */
static const char *status_text(const char *status)
{
	static const struct {
		const char *status, *text;
	} texts[] = {
		{ "analysed", "analysed" },
		{ "one_node", "one NUMA node: all page traffic node-local" },
		{ "no_topology", "no NUMA and memory topology in the trace" },
		{ "corrupt_topology", "the NUMA or memory topology is corrupt" },
		{ "too_many_nodes", "more NUMA nodes than perf kmem follows" },
		{ "not_recorded", "no kmem:mm_page_alloc_extfrag events" },
	};
	size_t i;

	for (i = 0; status && i < ARRAY_SIZE(texts); i++)
		if (!strcmp(texts[i].status, status))
			return texts[i].text;
	return status ?: "not analysed";
}

/* The statuses of a section; false when neither trace analysed it. */
static bool print_status(struct kmem_diff *d, const char *path)
{
	const char *old = text_of(d, path, KMEM_DIFF_OLD);
	const char *new = text_of(d, path, KMEM_DIFF_NEW);
	bool analysed = (old && !strcmp(old, "analysed")) ||
			(new && !strcmp(new, "analysed"));

	if (old && new && !strcmp(old, new))
		printf(" Both traces: %s.\n", status_text(old));
	else
		printf(" old: %s.\n new: %s.\n", status_text(old),
		       status_text(new));
	return analysed;
}

static void print_fragmentation(struct printing *p)
{
	size_t i;

	print_title("FRAGMENTATION");
	if (!print_status(p->d, "page.fragmentation.status")) {
		print_numbers(p, "page.fragmentation");
		return;
	}
	printf("\n");
	print_heads(true);
	print_numbers(p, "page.fragmentation");
	print_frag_matrix(p->d);
	for (i = 0; p->o->caller && i < ARRAY_SIZE(views); i++)
		if (!strncmp(views[i].table, "page.fragmentation.", 19))
			print_table(p->d, &views[i], p->o);
}

static void print_cross_node(struct printing *p)
{
	print_title("CROSS-NODE TRAFFIC");
	print_status(p->d, "page.cross_node.status");
	printf("\n");
	print_heads(kmem_diff__scalar(p->d, "page.cross_node.freed_on_other_node.bytes"));
	print_numbers(p, "page.cross_node");
}

static void print_trace(struct kmem_diff *d, int side)
{
	const char *os = text_of(d, "perf_data.os_release", side);
	const char *host = text_of(d, "perf_data.hostname", side);

	printf(" %s: %s (kernel %s%s%s)\n", side ? "new" : "old",
	       text_of(d, "perf_data.path", side) ?: "?", os ?: "unknown",
	       host ? ", " : "", host ?: "");
}

static void print_traces(struct printing *p)
{
	const char *window = text_of(p->d, "perf_data.time_window",
				     KMEM_DIFF_OLD);

	printf("\n");
	print_trace(p->d, KMEM_DIFF_OLD);
	print_trace(p->d, KMEM_DIFF_NEW);
	if (window)
		printf(" --time %s, in each\n", window);
	printf(" delta: new - old; delta %%: of old, 'new' where old is 0; '.': no change;\n"
	       " '-': not in that trace\n\n");
	print_heads(true);
	print_numbers(p, "perf_data");
	print_numbers(p, "page.page_size");
}

static void print_view(struct printing *p, const char *table)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(views); i++)
		if (!strcmp(views[i].table, table) &&
		    (p->o->caller || views[i].by_default))
			print_table(p->d, &views[i], p->o);
}

static void print_slab(struct printing *p)
{
	print_view(p, "slab.callers");
	print_view(p, "slab.caches");
	print_title("SUMMARY (slab allocator)");
	print_heads(true);
	print_numbers(p, "slab.summary");
}

static void print_page(struct printing *p)
{
	print_view(p, "page.callers");
	print_title("SUMMARY (page allocator)");
	print_heads(true);
	print_numbers(p, "page.summary");
	print_grid(p->d);
	print_fragmentation(p);
	print_cross_node(p);
}

int kmem_diff_report__text(struct kmem_diff *d,
			   const struct kmem_diff_report_options *o)
{
	struct printing p = { .d = d, .o = o };
	size_t i;

	p.scalars = kmem_diff__scalars(d, &p.nr);
	p.printed = calloc(p.nr ?: 1, sizeof(*p.printed));
	if (!p.printed)
		return -ENOMEM;
	sort_tables(d, o);
	/* What the tables' captions say, and the node numbers of labels. */
	for (i = 0; i < p.nr; i++) {
		unsigned int flags;
		char buf[128];

		label_of(d, p.scalars[i].path, "", buf, sizeof(buf), &flags);
		p.printed[i] = flags & HIDE;
	}
	print_traces(&p);
	if (o->slab)
		print_slab(&p);
	if (o->page)
		print_page(&p);
	/* Numbers stat does not print, by their path: none is left out. */
	for (i = 0; i < p.nr; i++) {
		if (!p.printed[i] && p.scalars[i].is_number) {
			print_title("OTHER NUMBERS");
			print_heads(true);
			print_numbers(&p, "");
			break;
		}
	}
	free(p.printed);
	return 0;
}

/* --- JSON ------------------------------------------------------------- */

static void json_value(struct kmem_json *j, const char *key,
		       const struct kmem_diff_value *v)
{
	static const char * const sides[] = { "old", "new" };
	double pct;
	int side;

	kmem_json__key_object(j, key);
	for (side = 0; side < 2; side++) {
		kmem_json__key(j, sides[side]);
		if (v->has[side])
			kmem_json__u64(j, v->v[side]);
		else
			kmem_json__null(j);
	}
	kmem_json__key(j, "delta");
	if (kmem_diff_value__both(v))
		kmem_json__s64(j, kmem_diff_value__delta(v));
	else
		kmem_json__null(j);
	kmem_json__key(j, "delta_percent");
	if (kmem_diff_value__percent(v, &pct))
		kmem_json__fixed1(j, pct);
	else
		kmem_json__null(j);
	kmem_json__end_object(j);
}

/* A text of a side: the booleans of the document as booleans again. */
static void json_text(struct kmem_json *j, const char *key,
		      const struct kmem_diff_scalar *s, int side)
{
	static const char * const bools[] = {
		"perf_data.callsites_unresolved", "page.live",
	};
	size_t i;

	kmem_json__key(j, key);
	if (!s->has_str[side] || !s->str[side]) {
		kmem_json__null(j);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(bools); i++) {
		if (!strcmp(s->path, bools[i])) {
			kmem_json__bool(j, !strcmp(s->str[side], "true"));
			return;
		}
	}
	kmem_json__string(j, s->str[side]);
}

static void json_trace(struct kmem_json *j, const struct kmem_diff_scalar *s,
		       size_t nr, int side)
{
	size_t i;

	kmem_json__key_object(j, side ? "new" : "old");
	for (i = 0; i < nr; i++) {
		if (s[i].is_number || !s[i].has_str[side] ||
		    strncmp(s[i].path, "perf_data.", 10))
			continue;
		json_text(j, s[i].path + 10, &s[i], side);
	}
	kmem_json__end_object(j);
}

static void json_scalars(struct kmem_json *j, const struct kmem_diff_scalar *s,
			 size_t nr)
{
	size_t i;
	int side;

	kmem_json__key_object(j, "numbers");
	for (i = 0; i < nr; i++)
		if (s[i].is_number)
			json_value(j, s[i].path, &s[i].num);
	kmem_json__end_object(j);
	kmem_json__key_object(j, "texts");
	for (i = 0; i < nr; i++) {
		if (s[i].is_number || !strncmp(s[i].path, "perf_data.", 10))
			continue;
		kmem_json__key_object(j, s[i].path);
		for (side = 0; side < 2; side++)
			json_text(j, side ? "new" : "old", &s[i], side);
		kmem_json__end_object(j);
	}
	kmem_json__end_object(j);
}

/* "callsite.name|callsite.address": "callsite". */
static void json_ident_key(char *buf, size_t size, const char *spec)
{
	snprintf(buf, size, "%.*s", (int)strcspn(spec, ".|"), spec);
}

/* A member's key: a grid cell's by the name of its column. */
static const char *member_key(const struct kmem_diff_table *t, size_t m,
			      char *buf, size_t size)
{
	unsigned int col;

	if (!strcmp(t->spec->name, "page.grid") &&
	    sscanf(t->members[m], "counts.%u", &col) == 1 && col < 4) {
		snprintf(buf, size, "%s", column_names[col]);
		return buf;
	}
	return t->members[m];
}

static void json_row(struct kmem_json *j, const struct kmem_diff_table *t,
		     const struct kmem_diff_row *row)
{
	static const char * const in[] = { "both", "gone", "new" };
	char key[64];
	size_t s, m;

	kmem_json__begin_object(j);
	kmem_json__key_string(j, "in", in[row->in]);
	for (s = 0; s < t->nr_identity; s++) {
		json_ident_key(key, sizeof(key), t->spec->identity[s]);
		kmem_json__key(j, key);
		if (row->ident_is_number[s])
			kmem_json__u64(j, row->ident_number[s]);
		else if (row->ident[s][0])
			kmem_json__string(j, row->ident[s]);
		else
			kmem_json__null(j);
	}
	for (m = 0; m < t->nr_members; m++)
		json_value(j, member_key(t, m, key, sizeof(key)),
			   &row->values[m]);
	kmem_json__end_object(j);
}

static void json_table(struct kmem_json *j, const struct kmem_diff_table *t,
		       const struct kmem_diff_report_options *o)
{
	bool limited = strcmp(t->spec->name, "page.grid") &&
		       strcmp(t->spec->name, "page.fragmentation.matrix");
	size_t i, shown = t->nr_rows;
	char key[64];

	if (limited && o->lines >= 0 && (size_t)o->lines < shown)
		shown = o->lines;
	kmem_json__key_object(j, t->spec->name);
	kmem_json__key_array(j, "identity");
	for (i = 0; i < t->nr_identity; i++) {
		json_ident_key(key, sizeof(key), t->spec->identity[i]);
		kmem_json__string(j, key);
	}
	kmem_json__end_array(j);
	kmem_json__key(j, "old");
	kmem_json__bool(j, t->present[KMEM_DIFF_OLD]);
	kmem_json__key(j, "new");
	kmem_json__bool(j, t->present[KMEM_DIFF_NEW]);
	kmem_json__key_u64(j, "nr_rows", t->nr_rows);
	kmem_json__key_u64(j, "nr_both", t->nr_in[KMEM_DIFF_IN_BOTH]);
	kmem_json__key_u64(j, "nr_new", t->nr_in[KMEM_DIFF_IN_NEW]);
	kmem_json__key_u64(j, "nr_gone", t->nr_in[KMEM_DIFF_IN_OLD]);
	kmem_json__key_array(j, "rows");
	for (i = 0; i < shown; i++)
		json_row(j, t, t->rows[i]);
	kmem_json__end_array(j);
	kmem_json__end_object(j);
}

int kmem_diff_report__json(struct kmem_diff *d,
			   const struct kmem_diff_report_options *o, FILE *fp)
{
	struct kmem_json *j = kmem_json__new(fp);
	const struct kmem_diff_scalar *s;
	size_t nr, i;
	int err;

	if (!j)
		return -ENOMEM;
	sort_tables(d, o);
	s = kmem_diff__scalars(d, &nr);
	kmem_json__begin_object(j);
	kmem_json__key_string(j, "schema", KMEM_DIFF_REPORT_SCHEMA);
	json_trace(j, s, nr, KMEM_DIFF_OLD);
	json_trace(j, s, nr, KMEM_DIFF_NEW);
	kmem_json__key_array(j, "sort");
	for (i = 0; o->sort && i < (size_t)o->sort->nr; i++)
		kmem_json__string_len(j, o->sort->name[i], o->sort->len[i]);
	if (!o->sort) {
		kmem_json__string(j, "bytes");
		kmem_json__string(j, "hit");
	}
	kmem_json__end_array(j);
	json_scalars(j, s, nr);
	kmem_json__key_object(j, "tables");
	for (i = 0; i < kmem_diff_report_config.nr_tables; i++) {
		const struct kmem_diff_table *t =
			kmem_diff__table(d, kmem_diff_report_config.tables[i].name);

		if (t && (t->present[0] || t->present[1]))
			json_table(j, t, o);
	}
	kmem_json__end_object(j);
	kmem_json__end_object(j);
	err = kmem_json__finish(j);
	kmem_json__delete(j);
	return err;
}
