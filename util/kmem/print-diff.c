// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem diff's report; see print-diff.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "json.h"
#include "print-csv.h"
#include "print-diff.h"
#include "print-layout.h"
#include "print.h"
#include "report-diff.h"
#include "report.h"

/* The measures of a table without diff_keys of its own. */
#define DEFAULT_SORT		"bytes,hit"
/* The tables of the report, and the grid and the fallback matrix. */
#define NR_SPECS		(KMEM_NR_TABLES + 2)
#define MAX_COLUMNS		16
#define NO_SLOT			(-1)
/* A header of a value column: "fallbacks.count.delta_percent". */
#define HEAD_SIZE		64

static const char * const grid_ident[] = { "order", NULL };

static const char * const matrix_ident[] = {
	"requested.name", "fallback.name", NULL,
};

static const char * const matrix_ignore[] = {
	"requested.value", "fallback.value", NULL,
};

/* The tables the report writes without a description: by hand, here. */
static const struct kmem_diff_table_spec grid_spec = {
	.name = "page.grid", .rows = "page.grid.rows",
	.present = "page.grid.rows.0.order", .identity = grid_ident,
};

static const struct kmem_diff_table_spec matrix_spec = {
	.name = "page.fragmentation.matrix", .rows = "page.fragmentation.matrix",
	.present = "page.fragmentation.fallbacks.count",
	.identity = matrix_ident, .ignore = matrix_ignore,
};

struct kmem_diff_report {
	struct kmem_diff		*d;
	struct kmem_diff_config		config;
	struct kmem_diff_table_spec	specs[NR_SPECS];
	const char			*idents[KMEM_NR_TABLES][KMEM_DIFF_MAX_IDENTITY + 1];
	const char			*ignores[KMEM_NR_TABLES][KMEM_DIFF_MAX_IDENTITY + 1];
	const char			*ignored[2 * KMEM_NR_TABLES + 5];
	/* The identity slot of each column of each table, or NO_SLOT. */
	int				slot[KMEM_NR_TABLES][MAX_COLUMNS];
	/* The measures of each table, as -s keys: its diff_keys. */
	struct kmem_sort_keys		measures[KMEM_NR_TABLES];
	char				pool[4096];
	size_t				used;
};

/* --- how the documents pair, from the report's tables ---------------- */

/* A string kept in @dr, as printf makes it; "" when the pool is full. */
static __printf(2, 3) const char *keep(struct kmem_diff_report *dr,
				       const char *fmt, ...)
{
	size_t room = sizeof(dr->pool) - dr->used;
	char *s = dr->pool + dr->used;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		return "";
	dr->used += n + 1;
	return s;
}

static bool in_table(const struct kmem_table *t, const struct kmem_column *col)
{
	return col->tables & KMEM_TABLE_BIT(t->bit);
}

/* A name is the first to pair by: a callsite's or a cache's. */
static bool names_first(const struct kmem_column *col)
{
	return col->kind == KMEM_CELL_CALLSITE || col->kind == KMEM_CELL_STRING;
}

/*
 * The columns a diffed row is named by; not the task's, which only
 * perf kmem stat -s pid and -s comm add.
 */
static bool pairs_by(const struct kmem_table *t, const struct kmem_column *col)
{
	return in_table(t, col) && col->json && (col->flags & KMEM_COL_IDENT) &&
	       col->kind != KMEM_CELL_PID && col->kind != KMEM_CELL_COMM;
}

/* How the member of an identity column pairs: by a name where it has one. */
static const char *ident_path(struct kmem_diff_report *dr,
			      const struct kmem_column *col)
{
	switch (col->kind) {
	case KMEM_CELL_CALLSITE:
		return keep(dr, "%s.name|%s.address", col->json, col->json);
	case KMEM_CELL_MIGTYPE:
		return keep(dr, "%s.name", col->json);
	case KMEM_CELL_GFP:
		return keep(dr, "%s.names|%s.value", col->json, col->json);
	default:
		return col->json;
	}
}

/* The rows of table @id pair by its identity columns, names first. */
static void table_spec(struct kmem_diff_report *dr, int id,
		       struct kmem_diff_table_spec *spec)
{
	const struct kmem_table *t = &kmem_tables[id];
	int pass, nr = 0, nr_ignored = 0;
	size_t c;

	for (c = 0; c < MAX_COLUMNS; c++)
		dr->slot[id][c] = NO_SLOT;
	for (pass = 0; pass < 2; pass++) {
		for (c = 0; c < t->nr_cols && c < MAX_COLUMNS &&
		     nr < KMEM_DIFF_MAX_IDENTITY; c++) {
			const struct kmem_column *col = &t->cols[c];

			if (!pairs_by(t, col) || names_first(col) == pass)
				continue;
			dr->slot[id][c] = nr;
			dr->idents[id][nr++] = ident_path(dr, col);
			if (col->kind == KMEM_CELL_MIGTYPE)
				dr->ignores[id][nr_ignored++] =
					keep(dr, "%s.value", col->json);
		}
	}
	*spec = (struct kmem_diff_table_spec){
		.name = t->path,
		.rows = keep(dr, "%s.rows", t->path),
		.present = keep(dr, "%s.nr_rows", t->path),
		.identity = dr->idents[id],
		.ignore = dr->ignores[id],
	};
}

static void build_config(struct kmem_diff_report *dr, bool page, bool slab)
{
	size_t nr = 0, nr_ignored = 0;
	int id;

	if (!page)
		dr->ignored[nr_ignored++] = "page";
	if (!slab)
		dr->ignored[nr_ignored++] = "slab";

	dr->specs[nr++] = grid_spec;
	dr->ignored[nr_ignored++] = "schema";
	dr->ignored[nr_ignored++] = "page.grid.columns";
	for (id = 0; id < KMEM_NR_TABLES; id++) {
		const struct kmem_table *t = &kmem_tables[id];

		/* In document order: the matrix comes before the tables. */
		if (id == KMEM_FRAG_CALLERS)
			dr->specs[nr++] = matrix_spec;

		dr->ignored[nr_ignored++] = t->what ? keep(dr, "%s.sort", t->path) :
						      t->path;
		kmem_sort_keys__split(&dr->measures[id], t->diff_keys ?: DEFAULT_SORT);
		if (t->what)
			table_spec(dr, id, &dr->specs[nr++]);
	}
	dr->config = (struct kmem_diff_config){
		.tables = dr->specs,
		.nr_tables = nr,
		.ignore = dr->ignored,
	};
}

struct kmem_diff_report *kmem_diff_report__new(bool page, bool slab)
{
	struct kmem_diff_report *dr = zalloc(sizeof(*dr));

	if (!dr)
		return NULL;
	build_config(dr, page, slab);
	dr->d = kmem_diff__new(&dr->config);
	if (!dr->d) {
		free(dr);
		return NULL;
	}
	return dr;
}

void kmem_diff_report__delete(struct kmem_diff_report *dr)
{
	if (!dr)
		return;
	kmem_diff__delete(dr->d);
	free(dr);
}

/* What a saved document says it is: the schema, its analyses. */
static void note_saved(struct kmem_saved_report *s, const char *path,
		       const struct kmem_json_value *v)
{
	if (!strcmp(path, "schema"))
		s->schema = v->kind == KMEM_JSON_U64 && v->u < INT_MAX ?
			    (int)v->u : INT_MAX;
	s->page |= !strncmp(path, "page.", 5);
	s->slab |= !strncmp(path, "slab.", 5);
}

void kmem_diff_report__take(void *arg, const char *path,
			    const struct kmem_json_value *v)
{
	struct kmem_diff_side *ctx = arg;
	/* Without a diff, a saved document is only looked at. */
	int err = ctx->dr ? kmem_diff__take(ctx->dr->d, ctx->side, path, v) : 0;

	if (err && !ctx->err)
		ctx->err = err;
	if (ctx->saved)
		note_saved(ctx->saved, path, v);
}

int kmem_diff_report__add(struct kmem_diff_report *dr, int side,
			  const struct kmem_report *r)
{
	struct kmem_diff_side ctx = { .dr = dr, .side = side };
	int err = kmem_report__visit(r, kmem_diff_report__take, &ctx);

	return err ?: ctx.err;
}

/* --- sort keys -------------------------------------------------------- */

/* The member of a row that a measure column's delta is of. */
static const char *member_path(const struct kmem_table *t,
			       const struct kmem_column *col, char *buf,
			       size_t size)
{
	const struct kmem_column *count = col - 1;

	if (col->kind == KMEM_CELL_COUNT)
		snprintf(buf, size, "%s.count", col->json);
	else if ((col->flags & KMEM_COL_COUNT_BYTES) && col > t->cols &&
		 count->kind == KMEM_CELL_COUNT)
		snprintf(buf, size, "%s.bytes", count->json);
	else if (col->json)
		snprintf(buf, size, "%s", col->json);
	else
		return NULL;
	return buf;
}

/* Does the diff sort table @t by the column of -s @key? */
static const struct kmem_column *diff_column(const struct kmem_table *t,
					     const char *key, size_t len)
{
	const struct kmem_column *col = kmem_table__column(t, key, len);
	char buf[64];

	if (!col || !in_table(t, col) || col->kind == KMEM_CELL_PID ||
	    col->kind == KMEM_CELL_COMM)
		return NULL;
	if (!(col->flags & KMEM_COL_IDENT) &&
	    !member_path(t, col, buf, sizeof(buf)))
		return NULL;
	return col;
}

/* The -s keys of the diff of @t into @buf, as a list. */
static void diff_keys(const struct kmem_table *t, char *buf, size_t size,
		      size_t *n)
{
	size_t i;

	for (i = 0; i < t->nr_cols && *n < size; i++) {
		const struct kmem_column *col = &t->cols[i];

		if (col->key && diff_column(t, col->key, strlen(col->key)) &&
		    !strstr(buf, col->key))
			*n += snprintf(buf + *n, size - *n, "%s%s",
				       *n ? ", " : "", col->key);
	}
}

int kmem_diff_report__check_sort(const struct kmem_sort_keys *sort, bool slab,
				 char *bad, size_t bad_size, char *known,
				 size_t known_size)
{
	const struct kmem_table *a = &kmem_tables[slab ? KMEM_SLAB_CALLERS :
							 KMEM_PAGE_CALLERS];
	const struct kmem_table *b = &kmem_tables[slab ? KMEM_SLAB_CACHES :
							 KMEM_PAGE_CALLERS];
	size_t n = 0;
	int i;

	known[0] = '\0';
	diff_keys(a, known, known_size, &n);
	diff_keys(b, known, known_size, &n);
	for (i = 0; sort && i < sort->nr; i++) {
		const char *key = sort->name[i];
		size_t len = sort->len[i];

		if (!len || (!diff_column(a, key, len) && !diff_column(b, key, len))) {
			snprintf(bad, bad_size, "%.*s", (int)len, key);
			return -EINVAL;
		}
	}
	return sort && sort->too_many ? -E2BIG : 0;
}

/* Sort the rows of table @id by the keys of @sort, largest delta first. */
static void sort_table(struct kmem_diff_report *dr, int id,
		       const struct kmem_sort_keys *sort)
{
	const struct kmem_table *desc = &kmem_tables[id];
	struct kmem_diff_table *t = kmem_diff__table(dr->d, desc->path);
	struct kmem_diff_key keys[KMEM_MAX_SORT_KEYS];
	char member[64];
	int i, nr = 0;

	for (i = 0; t && i < sort->nr; i++) {
		const struct kmem_column *col = diff_column(desc, sort->name[i],
							    sort->len[i]);
		int slot = col ? dr->slot[id][col - desc->cols] : NO_SLOT;

		if (slot != NO_SLOT) {
			keys[nr].kind = KMEM_DIFF_KEY_IDENTITY;
			keys[nr++].index = slot;
		} else if (col) {
			member_path(desc, col, member, sizeof(member));
			keys[nr].kind = KMEM_DIFF_KEY_DELTA;
			keys[nr].index = kmem_diff_table__member(t, member);
			nr += keys[nr].index >= 0;
		}
	}
	if (t)
		kmem_diff_table__sort(t, keys, nr);
}

int kmem_diff_report__finish(struct kmem_diff_report *dr,
			     const struct kmem_diff_report_options *o)
{
	int id, err = kmem_diff__pair(dr->d);

	/* A table the diff does not have is sorted as none. */
	for (id = 0; !err && id < KMEM_NR_TABLES; id++)
		sort_table(dr, id, kmem_tables[id].user_sort && o->sort ?
				   o->sort : &dr->measures[id]);
	return err;
}

/* --- cells ------------------------------------------------------------ */

/* The four cells of a value: old, new, delta and delta %; the JSON's names. */
enum { CELL_OLD, CELL_NEW, CELL_DELTA, CELL_PERCENT, NR_CELLS };

static const char * const cell_names[NR_CELLS] = {
	"old", "new", "delta", "delta_percent",
};

/*
 * A cell of the text: a side's number, the delta ("+1,234") or its
 * percentage ("+5.6%", "+12,345%", "new" from 0); '.' for no change, '-'
 * where a trace has no number.
 */
static const char *text_cell(const struct kmem_diff_value *v, int which,
			     char *buf, size_t size)
{
	u64 o = v->v[KMEM_DIFF_OLD], n = v->v[KMEM_DIFF_NEW];
	char digits[32];
	double pct;

	if (which <= CELL_NEW ? !v->has[which] : !kmem_diff_value__both(v))
		snprintf(buf, size, "-");
	else if (which <= CELL_NEW)
		kmem_commas(v->v[which], buf, size);
	else if (which == CELL_PERCENT && !kmem_diff_value__percent(v, &pct))
		snprintf(buf, size, "new");
	else if (o == n)
		snprintf(buf, size, ".");
	else if (which == CELL_DELTA)
		snprintf(buf, size, "%c%s", n > o ? '+' : '-',
			 kmem_commas(n > o ? n - o : o - n, digits,
				     sizeof(digits)));
	else if (pct > -1000 && pct < 1000)
		snprintf(buf, size, "%+.1f%%", pct);
	else
		snprintf(buf, size, "%c%s%%", pct > 0 ? '+' : '-',
			 kmem_commas((u64)(pct > 0 ? pct : -pct), digits,
				     sizeof(digits)));
	return buf;
}

/*
 * -x: the numbers of the JSON, nothing where it has null: a side a trace
 * lacks, a delta without both, a percentage of 0.
 */
static const char *raw_cell(const struct kmem_diff_value *v, int which,
			    char *buf, size_t size)
{
	double pct;

	buf[0] = '\0';
	if (which <= CELL_NEW && v->has[which])
		snprintf(buf, size, "%" PRIu64, v->v[which]);
	else if (which == CELL_DELTA && kmem_diff_value__both(v))
		snprintf(buf, size, "%" PRId64, kmem_diff_value__delta(v));
	else if (which == CELL_PERCENT && kmem_diff_value__percent(v, &pct))
		snprintf(buf, size, "%.1f", pct);
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
	char c[NR_CELLS][40] = { "" }, b[NR_CELLS][40] = { "" };
	int i;

	for (i = 0; i < NR_CELLS; i++) {
		if (count)
			text_cell(count, i, c[i], sizeof(c[i]));
		if (bytes)
			text_cell(bytes, i, b[i], sizeof(b[i]));
	}
	printf(" %-*s %13s %13s %13s %9s", LABEL_WIDTH, label, c[0], c[1], c[2], c[3]);
	if (bytes)
		printf("   %17s %17s %17s %9s", b[0], b[1], b[2], b[3]);
	printf("\n");
}

enum {
	BYTES	= 1,	/* a byte count: the bytes columns */
	HIDE	= 2,	/* said elsewhere */
	NONZERO	= 4,	/* stat shows it only where it is not 0 */
};

static const struct kmem_section * const sections[] = {
	&kmem_trace_section, &kmem_page_section, &kmem_page_summary_section,
	&kmem_cross_node_section, &kmem_frag_section, &kmem_pageblock_section,
	&kmem_pinned_section,
	&kmem_slab_summary_section, &kmem_stall_section, &kmem_stall_apart_section,
	&kmem_stall_events_section, &kmem_stall_memcg_section,
};

/* The field of the sections at @path ("page.summary.failures"), or NULL. */
static const struct kmem_field *field_at(const char *path)
{
	size_t s, i;

	for (s = 0; s < ARRAY_SIZE(sections); s++) {
		const char *p = kmem_diff__under(path, sections[s]->path);
		const char *parent = NULL;

		for (i = 0; p && *p && i < sections[s]->nr_fields; i++) {
			const struct kmem_field *f = &sections[s]->fields[i];
			const char *name = p;

			if (!(f->flags & KMEM_FIELD_NESTED))
				parent = f->name;
			else
				name = parent ? kmem_diff__under(p, parent) : NULL;
			if (name && f->name && !strcmp(name, f->name))
				return f;
		}
	}
	return NULL;
}

/* The node of position @i of the node list, as either trace has it. */
static const char *node_name(struct kmem_diff *d, const char *i, char *buf,
			     size_t size)
{
	const struct kmem_diff_scalar *s;
	char path[64];
	int side;

	snprintf(path, sizeof(path), "%s.nodes.%s", kmem_cross_node_section.path, i);
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
	const char *node = kmem_diff__under(path, kmem_cross_node_section.path);
	const char *mixed = kmem_diff__under(path, kmem_pageblock_section.path);
	char from[16], to[16], a[16], b[16];
	unsigned int col;

	if (node && !strncmp(node, "nodes.", 6)) {
		*flags = HIDE;
		return true;
	}
	if (node && sscanf(node, "matrix.%15[0-9].%15[0-9]", a, b) == 2) {
		snprintf(buf, size, "node %s to node %s:",
			 node_name(d, a, from, sizeof(from)),
			 node_name(d, b, to, sizeof(to)));
		*flags = BYTES;
		return true;
	}
	if (mixed && sscanf(mixed, "by_column.%u", &col) == 1 &&
	    col < KMEM_NR_MIGTYPE_COLUMNS) {
		snprintf(buf, size, "  %s allocations in:", kmem_migtype_columns[col]);
		*flags = 0;
		return true;
	}
	if (mixed && sscanf(mixed, "bytes_by_column.%u", &col) == 1 &&
	    col < KMEM_NR_MIGTYPE_COLUMNS) {
		snprintf(buf, size, "  %s bytes allocated:", kmem_migtype_columns[col]);
		*flags = BYTES;
		return true;
	}
	return false;
}

/* Is @path a table's row count, which its caption says? */
static bool is_row_count(const char *path)
{
	int id;

	for (id = 0; id < KMEM_NR_TABLES; id++) {
		const char *rest = kmem_diff__under(path, kmem_tables[id].path);

		if (rest && !strcmp(rest, "nr_rows"))
			return true;
	}
	return false;
}

static const char *label_of(struct kmem_diff *d, const char *path,
			    const char *prefix, char *buf, size_t size,
			    unsigned int *flags)
{
	const struct kmem_field *f = field_at(path);
	const char *rest;

	if (f && f->label) {
		*flags = (f->unit == KMEM_UNIT_BYTES ? BYTES : 0) |
			 (f->text_when == KMEM_IF_NONZERO ? NONZERO : 0);
		if (f->unit != KMEM_UNIT_NS)
			return f->label;
		/* stat prints us; the diff the document's ns. */
		snprintf(buf, size, "%.*s (ns):", (int)strlen(f->label) - 1,
			 f->label);
		return buf;
	}
	*flags = is_row_count(path) ? HIDE : 0;
	if (*flags || indexed_label(d, path, buf, size, flags))
		return buf;
	/* A number stat does not print: by its path. */
	rest = kmem_diff__under(path, prefix);
	snprintf(buf, size, "%s:", rest && *rest ? rest : path);
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

static bool is_zero(const struct kmem_diff_value *v)
{
	return !v->v[KMEM_DIFF_OLD] && !v->v[KMEM_DIFF_NEW];
}

struct printing {
	const struct kmem_diff_report		*dr;
	const struct kmem_diff_report_options	*o;
	const struct kmem_diff_scalar		*scalars;
	size_t					nr;
	bool					*printed;
};

/* The numbers under @prefix, in document order, as stat labels them. */
static void print_numbers(struct printing *p, const char *prefix)
{
	char base[KMEM_JSON_MAX_PATH], buf[128];
	size_t i;

	for (i = 0; i < p->nr; i++) {
		const struct kmem_diff_scalar *s = &p->scalars[i];
		const struct kmem_diff_value *bytes = NULL;
		const char *label;
		unsigned int flags;

		if (p->printed[i] || !s->is_number ||
		    (*prefix && !kmem_diff__under(s->path, prefix)))
			continue;
		p->printed[i] = true;
		if (count_pair(s, p->nr - i, base, sizeof(base))) {
			bytes = &s[1].num;
			p->printed[++i] = true;
		}
		label = label_of(p->dr->d, bytes ? base : s->path, prefix, buf,
				 sizeof(buf), &flags);
		if ((flags & HIDE) || ((flags & NONZERO) && is_zero(&s->num)))
			continue;
		if (flags & BYTES)
			print_line(label, NULL, &s->num);
		else
			print_line(label, &s->num, bytes);
	}
}

static const char *text_of(struct kmem_diff *d, const char *path, int side)
{
	const struct kmem_diff_scalar *s = kmem_diff__scalar(d, path);

	return s && s->has_str[side] ? s->str[side] : NULL;
}

/* --- tables ----------------------------------------------------------- */

static const struct kmem_diff_value no_value;

/* A value's cell: the member is the column's offset, the cell its offset2. */
static void member_cell(const struct kmem_column *col,
			const struct kmem_cell_ctx *ctx,
			const void *r, char *buf, size_t size)
{
	const struct kmem_diff_row *row = r;
	const struct kmem_diff_value *v = col->offset == (u16)NO_SLOT ?
					  &no_value : &row->values[col->offset];

	(ctx->raw ? raw_cell : text_cell)(v, col->offset2, buf, size);
}

/* "new", "gone"; "" in the text and "both" in the CSV for the others. */
static void in_cell(const struct kmem_column *col __maybe_unused,
		    const struct kmem_cell_ctx *ctx,
		    const void *r, char *buf, size_t size)
{
	const struct kmem_diff_row *row = r;

	snprintf(buf, size, "%s", row->in == KMEM_DIFF_IN_NEW ? "new" :
				  row->in == KMEM_DIFF_IN_OLD ? "gone" :
				  ctx->raw ? "both" : "");
}

/* An identity column's cell: the slot is the column's offset. */
static void ident_cell(const struct kmem_column *col,
		       const struct kmem_cell_ctx *ctx __maybe_unused,
		       const void *r, char *buf, size_t size)
{
	const struct kmem_diff_row *row = r;

	snprintf(buf, size, "%s", row->ident[col->offset]);
}

/*
 * The delta, %, old and new columns of the member of the -s @key column;
 * for -x (@raw) old, new, delta and delta percent, named as the JSON's
 * members ("bytes.old").
 */
static size_t value_columns(const struct kmem_table *desc,
			    const struct kmem_diff_table *t, const char *key,
			    size_t len, bool raw, struct kmem_column *cols,
			    char (*heads)[HEAD_SIZE])
{
	static const char * const suffix[] = { "delta", NULL, "old", "new" };
	static const int cell[] = { CELL_DELTA, CELL_PERCENT, CELL_OLD, CELL_NEW };
	const struct kmem_column *col = kmem_table__column(desc, key, len);
	const char *head, *path;
	char member[64];
	int m;
	size_t i;

	if (!col)
		return 0;
	head = col->diff_header ?: col->header;
	path = member_path(desc, col, member, sizeof(member));
	m = kmem_diff_table__member(t, path);

	for (i = 0; i < ARRAY_SIZE(cell); i++) {
		if (raw)
			snprintf(heads[i], HEAD_SIZE, "%.*s.%s",
				 path ? (int)strlen(path) : (int)len,
				 path ?: key, cell_names[i]);
		else
			snprintf(heads[i], HEAD_SIZE, "%s%s%s",
				 suffix[i] ? head : "%", suffix[i] ? " " : "",
				 suffix[i] ?: "");
		cols[i] = (struct kmem_column){
			.header = heads[i], .json = raw ? heads[i] : NULL,
			.cell = member_cell,
			.offset = m < 0 ? (u16)NO_SLOT : m,
			.offset2 = raw ? (int)i : cell[i], .tables = 1,
		};
	}
	return ARRAY_SIZE(cell);
}

/*
 * Table @id of the diff, as text, or for -x (@sep) as CSV: the same
 * columns, the CSV's named as the JSON's members, with a row's side in
 * every row.
 */
static void print_table(const struct kmem_diff_report *dr, int id,
			const struct kmem_diff_report_options *o,
			const char *sep, FILE *fp)
{
	const struct kmem_table *desc = &kmem_tables[id];
	struct kmem_diff_table *t = kmem_diff__table(dr->d, desc->path);
	struct kmem_column cols[MAX_COLUMNS];
	struct kmem_cell_ctx ctx = { .raw = !!sep };
	char heads[8][HEAD_SIZE];
	const struct kmem_sort_keys *measures = &dr->measures[id];
	size_t nr = 0, c, shown;
	int m;

	if (!t || (!t->present[0] && !t->present[1]))
		return;
	if (!sep)
		printf("\n %s: %s row%s, %s in both traces, %s new, %s gone\n",
		       desc->what, COMMAS(t->nr_rows),
		       t->nr_rows == 1 ? "" : "s",
		       COMMAS(t->nr_in[KMEM_DIFF_IN_BOTH]),
		       COMMAS(t->nr_in[KMEM_DIFF_IN_NEW]),
		       COMMAS(t->nr_in[KMEM_DIFF_IN_OLD]));
	for (m = 0; m < measures->nr && m < 2; m++)
		nr += value_columns(desc, t, measures->name[m], measures->len[m],
				    sep, cols + nr, heads + 4 * m);
	if (sep || t->nr_in[KMEM_DIFF_IN_BOTH] < t->nr_rows)
		cols[nr++] = (struct kmem_column){
			.header = "Row", .json = "in", .cell = in_cell,
			.tables = 1,
			.flags = KMEM_COL_LEFT | KMEM_COL_HEADER_LEFT,
		};
	for (c = 0; c < desc->nr_cols && nr < MAX_COLUMNS; c++) {
		const struct kmem_column *col = &desc->cols[c];

		if (dr->slot[id][c] == NO_SLOT)
			continue;
		cols[nr++] = (struct kmem_column){
			.header = col->header, .json = col->json,
			.cell = ident_cell, .offset = dr->slot[id][c],
			.tables = 1,
			.flags = col->flags & (KMEM_COL_LEFT | KMEM_COL_HEADER_LEFT),
		};
	}
	shown = kmem_report__rows_shown(o->lines, t->nr_rows, !sep && !o->caller);
	if (sep)
		kmem_print__csv_table(fp, &ctx, sep, desc->path, cols, nr, 0,
				      (const void * const *)t->rows, shown);
	else
		kmem_print__table(&ctx, cols, nr, 0, (const void * const *)t->rows,
				  t->nr_rows, shown);
}

/* --- sections --------------------------------------------------------- */

static const struct kmem_diff_value *member(const struct kmem_diff_row *row,
					    int m)
{
	return m >= 0 ? &row->values[m] : &no_value;
}

/* A member's key: a grid cell's by the name of its column. */
static const char *member_key(const struct kmem_diff_table *t, size_t m,
			      char *buf, size_t size)
{
	unsigned int col;

	if (!strcmp(t->spec->name, grid_spec.name) &&
	    sscanf(t->members[m], "counts.%u", &col) == 1 && col < KMEM_NR_MIGTYPE_COLUMNS) {
		snprintf(buf, size, "%s", kmem_migtype_columns[col]);
		return buf;
	}
	return t->members[m];
}

/* Grid cells, those with allocations in either trace. */
static void print_grid(struct kmem_diff *d)
{
	struct kmem_diff_table *t = kmem_diff__table(d, grid_spec.name);
	char label[64], name[16];
	size_t r, m;

	if (!t || !t->nr_rows)
		return;
	printf("\n Allocations by order and migration type, cells '.' in both traces left out:\n\n");
	print_heads(false);
	for (r = 0; r < t->nr_rows; r++) {
		for (m = 0; m < t->nr_members; m++) {
			const struct kmem_diff_value *v = &t->rows[r]->values[m];

			if (is_zero(v))
				continue;
			snprintf(label, sizeof(label), "order %s, %s:", t->rows[r]->ident[0],
				 member_key(t, m, name, sizeof(name)));
			print_line(label, v, NULL);
		}
	}
}

/* The fallback matrix, a requested and fallen back to type a line. */
static void print_frag_matrix(struct kmem_diff *d)
{
	struct kmem_diff_table *t = kmem_diff__table(d, matrix_spec.name);
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
		for (c = 0; kmem_frag_classes[c]; c++) {
			int m = kmem_diff_table__member(t, kmem_frag_classes[c]);

			if (m < 0)
				continue;
			snprintf(label, sizeof(label), "  %s:", kmem_frag_classes[c]);
			print_line(label, member(row, m), NULL);
		}
	}
}

/* The statuses of a section; false when neither trace analysed it. */
/* Did either trace analyse the section of the status at @path? */
static bool analysed(struct kmem_diff *d, const char *path)
{
	const char *old = text_of(d, path, KMEM_DIFF_OLD);
	const char *new = text_of(d, path, KMEM_DIFF_NEW);

	return (old && !strcmp(old, "analysed")) ||
	       (new && !strcmp(new, "analysed"));
}

static bool print_status(struct kmem_diff *d, const char *path)
{
	const char *old = text_of(d, path, KMEM_DIFF_OLD);
	const char *new = text_of(d, path, KMEM_DIFF_NEW);

	if (old && new && !strcmp(old, new))
		printf(" Both traces: %s.\n", kmem_status__text(old));
	else
		printf(" old: %s.\n new: %s.\n", kmem_status__text(old),
		       kmem_status__text(new));
	return analysed(d, path);
}

/* Tables @first to @last: those shown by default, or all with --caller. */
static void print_views(struct printing *p, int first, int last)
{
	int id;

	for (id = first; id <= last; id++)
		if (p->o->caller || kmem_tables[id].by_default)
			print_table(p->dr, id, p->o, NULL, NULL);
}

/* A section of a status: false when neither trace analysed it. */
static bool print_analysed(struct printing *p, const char *title,
			   const char *prefix, bool bytes)
{
	char status[64];

	kmem_print__title("%s", title);
	snprintf(status, sizeof(status), "%s.status", prefix);
	if (!print_status(p->dr->d, status)) {
		print_numbers(p, prefix);
		return false;
	}
	printf("\n");
	print_heads(bytes);
	print_numbers(p, prefix);
	return true;
}

/*
 * Every number of the sections under @prefix 0 in both traces (what its
 * tables hold apart), the numbers under @prefix then taken as printed:
 * stat says in a line that nothing stalled, and so does the diff, not in
 * 40 lines of zeros.
 */
static bool take_zeros(struct printing *p, const char *prefix)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (p->scalars[i].is_number &&
		    kmem_diff__under(p->scalars[i].path, prefix) &&
		    field_at(p->scalars[i].path) && !is_zero(&p->scalars[i].num))
			return false;
	for (i = 0; i < p->nr; i++)
		if (kmem_diff__under(p->scalars[i].path, prefix))
			p->printed[i] = true;
	return true;
}

static void print_stalls(struct printing *p)
{
	const char *prefix = kmem_stall_section.path;
	struct kmem_diff_table *wakeups;
	char status[64];

	snprintf(status, sizeof(status), "%s.status", prefix);
	if (!analysed(p->dr->d, status) || !take_zeros(p, prefix)) {
		if (print_analysed(p, "STALLS", prefix, false))
			print_views(p, KMEM_STALL_ORDERS, KMEM_STALL_MEMCG);
		return;
	}
	kmem_print__title("STALLS");
	print_status(p->dr->d, status);
	printf(" No allocation stalled in either: neither trace has direct reclaim, memcg\n"
	       " reclaim or compaction in it.\n");
	wakeups = kmem_diff__table(p->dr->d, kmem_tables[KMEM_STALL_WAKEUPS].path);
	if (wakeups && wakeups->nr_rows)
		print_table(p->dr, KMEM_STALL_WAKEUPS, p->o, NULL, NULL);
}

static void print_cross_node(struct printing *p)
{
	kmem_print__title("CROSS-NODE TRAFFIC");
	print_status(p->dr->d, "page.cross_node.status");
	printf("\n");
	print_heads(kmem_diff__scalar(p->dr->d,
				      "page.cross_node.freed_on_other_node.bytes"));
	print_numbers(p, kmem_cross_node_section.path);
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
	const char *window = text_of(p->dr->d, "perf_data.time_window",
				     KMEM_DIFF_OLD);

	printf("\n");
	print_trace(p->dr->d, KMEM_DIFF_OLD);
	print_trace(p->dr->d, KMEM_DIFF_NEW);
	if (window)
		printf(" --time %s, in each\n", window);
	printf(" delta: new - old; delta %%: of old, 'new' where old is 0; '.': no change;\n"
	       " '-': not in that trace\n\n");
	print_heads(true);
	print_numbers(p, kmem_trace_section.path);
	print_numbers(p, "page.page_size");
}

static void print_slab(struct printing *p)
{
	print_views(p, KMEM_SLAB_CALLERS, KMEM_SLAB_CACHES);
	kmem_print__title("SUMMARY (slab allocator)");
	print_heads(true);
	print_numbers(p, kmem_slab_summary_section.path);
}

static void print_page(struct printing *p)
{
	print_views(p, KMEM_PAGE_CALLERS, KMEM_PAGE_CALLERS);
	kmem_print__title("SUMMARY (page allocator)");
	print_heads(true);
	print_numbers(p, kmem_page_summary_section.path);
	print_grid(p->dr->d);
	if (print_analysed(p, "FRAGMENTATION", kmem_frag_section.path, true)) {
		print_frag_matrix(p->dr->d);
		print_views(p, KMEM_FRAG_CALLERS, KMEM_FRAG_FAILURES);
	}
	print_stalls(p);
	print_cross_node(p);
}

int kmem_diff_report__text(const struct kmem_diff_report *dr,
			   const struct kmem_diff_report_options *o)
{
	struct printing p = { .dr = dr, .o = o };
	size_t i;

	p.scalars = kmem_diff__scalars(dr->d, &p.nr);
	p.printed = calloc(p.nr ?: 1, sizeof(*p.printed));
	if (!p.printed)
		return -ENOMEM;
	/* What the tables' captions say, and the node numbers of labels. */
	for (i = 0; i < p.nr; i++) {
		unsigned int flags;
		char buf[128];

		label_of(dr->d, p.scalars[i].path, "", buf, sizeof(buf), &flags);
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
			kmem_print__title("OTHER NUMBERS");
			print_heads(true);
			print_numbers(&p, "");
			break;
		}
	}
	free(p.printed);
	return 0;
}

/* --- CSV -------------------------------------------------------------- */

int kmem_diff_report__csv(const struct kmem_diff_report *dr,
			  const struct kmem_diff_report_options *o,
			  const char *sep, FILE *fp)
{
	int id;

	/* The tables of the text, in the order of the report's. */
	for (id = 0; id < KMEM_NR_TABLES; id++)
		if (o->caller || kmem_tables[id].by_default)
			print_table(dr, id, o, sep, fp);
	return fflush(fp) || ferror(fp) ? (-errno ?: -EIO) : 0;
}

/* --- JSON ------------------------------------------------------------- */

/* Old, new, delta and delta percent; null where a cell is '-' or "new". */
static void json_value(struct kmem_json *j, const char *key,
		       const struct kmem_diff_value *v)
{
	double pct;
	int i;

	kmem_json__key_object(j, key);
	for (i = 0; i < NR_CELLS; i++) {
		kmem_json__key(j, cell_names[i]);
		if (i <= CELL_NEW && v->has[i])
			kmem_json__u64(j, v->v[i]);
		else if (i == CELL_DELTA && kmem_diff_value__both(v))
			kmem_json__s64(j, kmem_diff_value__delta(v));
		else if (i == CELL_PERCENT && kmem_diff_value__percent(v, &pct))
			kmem_json__fixed1(j, pct);
		else
			kmem_json__null(j);
	}
	kmem_json__end_object(j);
}

/* A text of a side: the booleans of the document as booleans again. */
static void json_text(struct kmem_json *j, const char *key,
		      const struct kmem_diff_scalar *s, int side)
{
	const struct kmem_field *f = field_at(s->path);

	kmem_json__key(j, key);
	if (!s->has_str[side] || !s->str[side])
		kmem_json__null(j);
	else if (f && f->unit == KMEM_UNIT_BOOL)
		kmem_json__bool(j, !strcmp(s->str[side], "true"));
	else
		kmem_json__string(j, s->str[side]);
}

static void json_trace(struct kmem_json *j, const struct kmem_diff_scalar *s,
		       size_t nr, int side)
{
	size_t i;

	kmem_json__key_object(j, side ? "new" : "old");
	for (i = 0; i < nr; i++) {
		const char *key = kmem_diff__under(s[i].path,
						   kmem_trace_section.path);

		if (!s[i].is_number && s[i].has_str[side] && key && *key)
			json_text(j, key, &s[i], side);
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
		if (s[i].is_number ||
		    kmem_diff__under(s[i].path, kmem_trace_section.path))
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
	/* -l limits the tables, not the grid and the matrix. */
	int lines = strcmp(t->spec->name, grid_spec.name) &&
		    strcmp(t->spec->name, matrix_spec.name) ? o->lines : -1;
	size_t i, shown = kmem_report__rows_shown(lines, t->nr_rows, false);
	char key[64];

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

/* The -s keys, or the diff's own. */
static void json_sort(struct kmem_json *j, const struct kmem_sort_keys *sort)
{
	struct kmem_sort_keys own;
	int i;

	if (!sort) {
		kmem_sort_keys__split(&own, DEFAULT_SORT);
		sort = &own;
	}
	kmem_json__key_array(j, "sort");
	for (i = 0; i < sort->nr; i++)
		kmem_json__string_len(j, sort->name[i], sort->len[i]);
	kmem_json__end_array(j);
}

int kmem_diff_report__json(const struct kmem_diff_report *dr,
			   const struct kmem_diff_report_options *o, FILE *fp)
{
	const struct kmem_diff_scalar *s;
	struct kmem_json *j;
	size_t nr, i;
	int err;

	j = kmem_json__new(fp);
	if (!j)
		return -ENOMEM;
	s = kmem_diff__scalars(dr->d, &nr);
	kmem_json__begin_object(j);
	kmem_json__key_string(j, "schema", KMEM_DIFF_REPORT_SCHEMA);
	json_trace(j, s, nr, KMEM_DIFF_OLD);
	json_trace(j, s, nr, KMEM_DIFF_NEW);
	json_sort(j, o->sort);
	json_scalars(j, s, nr);
	kmem_json__key_object(j, "tables");
	for (i = 0; i < dr->config.nr_tables; i++) {
		const struct kmem_diff_table *t =
			kmem_diff__table(dr->d, dr->config.tables[i].name);

		if (t && (t->present[0] || t->present[1]))
			json_table(j, t, o);
	}
	kmem_json__end_object(j);
	kmem_json__end_object(j);
	err = kmem_json__finish(j);
	kmem_json__delete(j);
	return err;
}
