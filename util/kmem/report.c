// SPDX-License-Identifier: GPL-2.0
/*
 * The conditions, cells and sort keys of perf kmem stat's report; see
 * report.h.  What the report holds is described in report-desc.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/bits.h>
#include <linux/kernel.h>

#include "report.h"

/* A status of a section: its name in the JSON, its words in the diff. */
static const struct {
	const char	*name;
	const char	*text;
} statuses[] = {
	{ "analysed", "analysed" },
	{ "one_node", "one NUMA node: all page traffic node-local" },
	{ "no_topology", "no NUMA and memory topology in the trace" },
	{ "corrupt_topology", "the NUMA or memory topology is corrupt" },
	{ "too_many_nodes", "more NUMA nodes than perf kmem follows" },
	{ "not_recorded", "no kmem:mm_page_alloc_extfrag events" },
	{ "no_stall_events", "no reclaim or compaction events" },
};

const char *kmem_status__text(const char *name)
{
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(statuses); i++)
		if (!strcmp(statuses[i].name, name))
			return statuses[i].text;
	return name ?: "not analysed";
}

/* --- conditions, cells and sort keys -------------------------------- */

size_t kmem_report__rows_shown(int lines, size_t nr, bool by_default)
{
	if (lines < 0 && by_default)
		lines = DEFAULT_TABLE_LINES;
	return lines >= 0 && (size_t)lines < nr ? (size_t)lines : nr;
}

bool kmem_report__holds(const struct kmem_cell_ctx *c, int when)
{
	bool frag_totals = c->frag_classes && c->callchains && !c->live;

	switch (when) {
	case KMEM_NEVER:
		return false;
	case KMEM_IF_PAIRED:
		return !c->sampled;
	case KMEM_IF_PFNS:
		return !c->pfn_is_page;
	case KMEM_IF_PAGES:
		return c->pfn_is_page;
	case KMEM_IF_CPU_NODES:
		return c->cpu_nodes;
	case KMEM_IF_CALLCHAINS:
		return c->callchains;
	case KMEM_IF_CLASSES:
		return c->frag_classes;
	case KMEM_IF_XNODE:
		return c->xnode;
	case KMEM_IF_XNODE_TOTALS:
		return c->xnode && !c->live;
	case KMEM_IF_FRAG_TOTALS:
		return frag_totals;
	case KMEM_IF_FRAGMENTING:
		return frag_totals && c->fragmenting;
	case KMEM_IF_PINNING:
		return c->pinning;
	case KMEM_IF_PID:
		return c->task_key == KMEM_TASK_PID;
	case KMEM_IF_COMM:
		return c->task_key == KMEM_TASK_COMM;
	case KMEM_IF_LIVE:
		return c->live;
	case KMEM_IF_ESTIMATED:
		return c->callers_estimated;
	case KMEM_IF_SLAB_PAIRED:
		return !c->sampled && !c->slab_unpaired;
	case KMEM_IF_STALLS:
		return c->stalls;
	default:
		return true;
	}
}

bool kmem_field__is_zero(const struct kmem_field *f, const void *v)
{
	switch (f->unit) {
	case KMEM_UNIT_COUNT:
		return !((const struct kmem_count *)v)->nr;
	case KMEM_UNIT_PERCENT:
		return *(const double *)v == 0.0;
	case KMEM_UNIT_TEXT:
		return !*(const char * const *)v || !**(const char * const *)v;
	case KMEM_UNIT_BOOL:
		return !*(const bool *)v;
	case KMEM_UNIT_GROUP:
		return false;
	default:
		return !*(const u64 *)v;
	}
}

const char *kmem_column__header(const struct kmem_column *col,
				const struct kmem_cell_ctx *ctx)
{
	if (col->alt_header && kmem_report__holds(ctx, col->alt_when))
		return col->alt_header;
	return col->header;
}

bool kmem_column__in(const struct kmem_column *col,
		     const struct kmem_cell_ctx *ctx, int table, unsigned int where)
{
	if (!(col->tables & KMEM_TABLE_BIT(table)))
		return false;
	return ((where & KMEM_IN_TEXT) && kmem_report__holds(ctx, col->when)) ||
	       ((where & KMEM_IN_JSON) && col->json && kmem_report__holds(ctx, col->json_when));
}

/*
 * A column that every trace has where its analyses do, but for --live:
 * Freed remote (no live page was freed) and Fragmenting.
 */
bool kmem_column__hidden_by_live(const struct kmem_column *col)
{
	struct kmem_cell_ctx all = {
		.xnode = true, .cpu_nodes = true, .callchains = true,
		.pageblocks = true, .frag_classes = true, .fragmenting = true,
		.task_key = KMEM_TASK_PID,
	};
	bool shown = kmem_report__holds(&all, col->when);

	all.live = true;
	return shown && !kmem_report__holds(&all, col->when);
}

#define VALUE(row, offset, type) \
	(*(const type *)((const char *)(row) + (offset)))

u64 kmem_column__u64(const struct kmem_column *col, const void *row)
{
	int k = col->kind;

	/* An int need not be aligned as a u64 is, nor have 4 bytes after it. */
	return k == KMEM_CELL_ORDER || k == KMEM_CELL_MIGTYPE || k == KMEM_CELL_PID ||
	       k == KMEM_CELL_COMM || k == KMEM_CELL_STRING ? 0 : VALUE(row, col->offset, u64);
}

/* A name the context gives, copied into @buf unless it is @buf. */
static void name_cell(const char *name, char *buf, size_t size)
{
	if (name != buf)
		snprintf(buf, size, "%s", name ?: "");
}

/* "12,345,678/32": a total and its size, or its mean per allocation. */
static void total_per(u64 total, u64 per, char *buf, size_t size)
{
	char digits[32];

	snprintf(buf, size, "%s/%" PRIu64,
		 kmem_commas(total, digits, sizeof(digits)), per);
}

/* The kinds -x writes as the JSON has them, a u64 without separators. */
#define RAW_KINDS	(BIT(KMEM_CELL_PAGES) | BIT(KMEM_CELL_MEAN) | BIT(KMEM_CELL_NS) | \
			 BIT(KMEM_CELL_COUNT) | BIT(KMEM_CELL_U64) | BIT(KMEM_CELL_PFN))

void kmem_column__cell(const struct kmem_column *col,
		       const struct kmem_cell_ctx *ctx, const void *row,
		       char *buf, size_t size)
{
	u64 v, per;

	if (col->cell)
		return col->cell(col, ctx, row, buf, size);
	v = kmem_column__u64(col, row);
	/* A struct page address is hex in the JSON too. */
	if (ctx->raw && (RAW_KINDS & BIT(col->kind)) &&
	    !(col->kind == KMEM_CELL_PFN && ctx->pfn_is_page)) {
		snprintf(buf, size, "%" PRIu64, v);
		return;
	}
	switch (col->kind) {
	case KMEM_CELL_PAGES:
		total_per(v, ctx->page_size << VALUE(row, col->offset2, int),
			  buf, size);
		break;
	case KMEM_CELL_MEAN:
		per = VALUE(row, col->offset2, u64);
		total_per(v, per ? v / per : 0, buf, size);
		break;
	case KMEM_CELL_ORDER:
		snprintf(buf, size, "%d", VALUE(row, col->offset, int));
		break;
	case KMEM_CELL_PFN:
	case KMEM_CELL_HEX:
		snprintf(buf, size, "%#" PRIx64, v);
		break;
	case KMEM_CELL_MIGTYPE:
		name_cell(kmem_migtype__name(VALUE(row, col->offset, int),
					     ctx->pre_v4_4, buf, size),
			  buf, size);
		break;
	case KMEM_CELL_GFP:
		name_cell(ctx->gfp_name(ctx->arg, v), buf, size);
		break;
	case KMEM_CELL_CALLSITE:
		name_cell(ctx->callsite_name(ctx->arg, v, buf, size), buf, size);
		break;
	case KMEM_CELL_PID:
		snprintf(buf, size, "%u", VALUE(row, col->offset, u32));
		break;
	case KMEM_CELL_COMM:
		name_cell(ctx->comm_name(ctx->arg, VALUE(row, col->offset, u32)),
			  buf, size);
		break;
	case KMEM_CELL_STRING:
		name_cell(VALUE(row, col->offset, const char *), buf, size);
		break;
	case KMEM_CELL_WASTE:
		snprintf(buf, size, ctx->raw ? "%.3f" : "%7.3f%%",
			 kmem_sort__waste(v, VALUE(row, col->offset2, u64)));
		break;
	case KMEM_CELL_NS:
		kmem_commas(v / 1000, buf, size);
		break;
	case KMEM_CELL_COUNT:
	case KMEM_CELL_U64:
	default:
		kmem_commas(v, buf, size);
		break;
	}
}

/*
 * How a column of each kind sorts: amounts largest first, names and
 * addresses smallest first; a kind not here is a u64 amount.
 */
static const struct {
	u8	kind;		/* enum kmem_sort_kind */
	bool	ascending;
} sorts[KMEM_NR_CELL_KINDS] = {
	[KMEM_CELL_ORDER] = { KMEM_SORT_U32, false },
	[KMEM_CELL_MIGTYPE] = { KMEM_SORT_U32, true },
	[KMEM_CELL_PID] = { KMEM_SORT_U32, true },
	[KMEM_CELL_COMM] = { KMEM_SORT_U32, true },
	[KMEM_CELL_PFN] = { KMEM_SORT_U64, true },
	[KMEM_CELL_HEX] = { KMEM_SORT_U64, true },
	[KMEM_CELL_GFP] = { KMEM_SORT_U64, true },
	/* By the name shown, as diff sorts: not by where the linker put it. */
	[KMEM_CELL_CALLSITE] = { KMEM_SORT_NAME, true },
	[KMEM_CELL_STRING] = { KMEM_SORT_STRING, true },
	[KMEM_CELL_WASTE] = { KMEM_SORT_WASTE, false },
};

static struct kmem_sort_key sort_key(const struct kmem_column *col)
{
	return (struct kmem_sort_key){
		.offset = col->offset,
		.offset2 = col->offset2,
		.kind = sorts[col->kind].kind,
		.descending = !sorts[col->kind].ascending,
	};
}

static bool is_named(const char *name, const char *str, size_t len)
{
	return name && strlen(name) == len && !strncmp(name, str, len);
}

const struct kmem_column *kmem_table__column(const struct kmem_table *t,
					     const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++)
		if (is_named(t->cols[i].key, key, len) || is_named(t->cols[i].alias, key, len))
			return &t->cols[i];
	return NULL;
}

void kmem_sort_keys__split(struct kmem_sort_keys *keys, const char *str)
{
	keys->nr = 0;
	keys->too_many = false;
	if (!str || !*str)
		return;
	for (;;) {
		size_t len = strcspn(str, ",");

		if (keys->nr == KMEM_MAX_SORT_KEYS) {
			keys->too_many = true;
			return;
		}
		keys->name[keys->nr] = str;
		keys->len[keys->nr++] = len;
		if (!str[len])
			return;
		str += len + 1;
	}
}

/* Each key known, or the first unknown one; then, too many keys. */
int kmem_table__parse_sort(const struct kmem_table *t,
			   const struct kmem_sort_keys *given,
			   struct kmem_sort_key *keys, char *bad,
			   size_t bad_size)
{
	int i;

	for (i = 0; i < given->nr; i++) {
		const struct kmem_column *col = kmem_table__column(t, given->name[i],
								   given->len[i]);

		if (!col) {
			snprintf(bad, bad_size, "%.*s", (int)given->len[i],
				 given->name[i]);
			return -EINVAL;
		}
		keys[i] = sort_key(col);
	}
	return given->too_many ? -E2BIG : given->nr;
}

const char *kmem_table__keys_in(const struct kmem_table *t, unsigned int tables,
				char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < t->nr_cols && n < size; i++)
		if (t->cols[i].key && (t->cols[i].tables & tables))
			n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "", t->cols[i].key);
	return buf;
}

const char *kmem_table__keys(const struct kmem_table *t, char *buf,
			     size_t size)
{
	return kmem_table__keys_in(t, ~0U, buf, size);
}

int kmem_sort__task_key(const struct kmem_sort_keys *given,
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
