// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem stat's report as one JSON document, for programs: every
 * number the text shows, as integers, with the names beside the values.
 * The members and their order are report.c's; see print.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "count-frag.h"
#include "count-interval.h"
#include "count-page.h"
#include "json.h"
#include "print.h"
#include "report.h"

#define NAME_SIZE	(KSYM_NAME_LEN + 32)

/* Migration types whose names a kernel of this trace's vintage has. */
#define KNOWN_MIGTYPES	6

#define VALUE(row, offset, type) \
	(*(const type *)((const char *)(row) + (offset)))

/* {"count": 1, "bytes": 4096}; left open for more members with @open. */
static void count(struct kmem_json *j, const char *key,
		  const struct kmem_count *c, bool open)
{
	kmem_json__key_object(j, key);
	kmem_json__key_u64(j, "count", c->nr);
	kmem_json__key_u64(j, "bytes", c->bytes);
	if (!open)
		kmem_json__end_object(j);
}

/* {"value": 1, "name": "Movable"}, @key's (NULL: in an array). */
static void migtype(struct kmem_json *j, const struct kmem_report *r,
		    const char *key, int value)
{
	char buf[32];

	if (key)
		kmem_json__key(j, key);
	kmem_json__begin_object(j);
	kmem_json__key(j, "value");
	kmem_json__s64(j, value);
	kmem_json__key_string(j, "name",
			      kmem_migtype__name(value, r->ctx->pre_v4_4, buf,
						 sizeof(buf)));
	kmem_json__end_object(j);
}

/* The gfp value and its names, as the kernel's print format joins them. */
static void gfp(struct kmem_json *j, const struct kmem_report *r,
		const char *key, u64 value)
{
	const char *names = r->ctx->gfp_name(r->ctx->arg, value), *p;

	kmem_json__key_object(j, key);
	kmem_json__key_u64(j, "value", value);
	kmem_json__key_array(j, "names");
	/* A value the kernel printed no names for is shown in hex: none. */
	for (p = names; *p && strncmp(names, "0x", 2) && strcmp(names, "?");) {
		size_t len = strcspn(p, "|");

		kmem_json__string_len(j, p, len);
		p += len + (p[len] == '|');
	}
	kmem_json__end_array(j);
	kmem_json__end_object(j);
}

static void callsite(struct kmem_json *j, const struct kmem_report *r,
		     const char *key, u64 addr)
{
	char buf[NAME_SIZE];

	kmem_json__key_object(j, key);
	kmem_json__key_string(j, "name",
			      r->ctx->symbol(r->ctx->arg, addr, buf, sizeof(buf)));
	kmem_json__key(j, "address");
	kmem_json__hex(j, addr);
	kmem_json__end_object(j);
}

/* --- sections -------------------------------------------------------- */

static bool field_known(const struct kmem_report *r, const struct kmem_field *f,
			const void *v)
{
	if (!v || !kmem_report__holds(r->ctx, f->json_when))
		return false;
	return f->json_when != KMEM_IF_SET || !kmem_field__is_zero(f, v);
}

/* A field's member; true when it stays open for the nested ones. */
static bool write_field(struct kmem_json *j, const struct kmem_field *f,
			const void *v, bool nested_next)
{
	switch (f->unit) {
	case KMEM_UNIT_COUNT:
		count(j, f->name, v, nested_next);
		return nested_next;
	case KMEM_UNIT_GROUP:
		kmem_json__key_object(j, f->name);
		return true;
	case KMEM_UNIT_TEXT:
		kmem_json__key_string(j, f->name, *(const char * const *)v);
		return false;
	case KMEM_UNIT_BOOL:
		kmem_json__key(j, f->name);
		kmem_json__bool(j, *(const bool *)v);
		return false;
	case KMEM_UNIT_PERCENT:
		kmem_json__key(j, f->name);
		kmem_json__fixed1(j, *(const double *)v);
		return false;
	default:
		kmem_json__key_u64(j, f->name, *(const u64 *)v);
		return false;
	}
}

/* Fields [@from, @to or the end) of @s, their values in @src. */
static void write_fields(struct kmem_json *j, const struct kmem_report *r,
			 const void * const *src, const struct kmem_section *s,
			 size_t from, size_t to)
{
	bool open = false, above = true;
	size_t i;

	for (i = from; i < to && i < s->nr_fields; i++) {
		const struct kmem_field *f = &s->fields[i];
		const void *v = kmem_field__value(f, src);
		bool nested = f->flags & KMEM_FIELD_NESTED;
		bool nested_next = i + 1 < s->nr_fields &&
				   (s->fields[i + 1].flags & KMEM_FIELD_NESTED);

		if (!nested && open) {
			kmem_json__end_object(j);
			open = false;
		}
		if (nested && !above)
			continue;
		if (!field_known(r, f, v)) {
			if (f->flags & KMEM_FIELD_NULLABLE) {
				kmem_json__key(j, f->name);
				kmem_json__null(j);
			}
			above = nested ? above : false;
			continue;
		}
		if (!nested)
			above = true;
		if (write_field(j, f, v, nested_next && !nested))
			open = true;
	}
	if (open)
		kmem_json__end_object(j);
}

/* A section's member: the last component of its path. */
static const char *section_name(const struct kmem_section *s)
{
	const char *name = strrchr(s->path, '.');

	return name ? name + 1 : s->path;
}

/* A section as the object of its name. */
static void write_section(struct kmem_json *j, const struct kmem_report *r,
			  const struct kmem_section *s)
{
	kmem_json__key_object(j, section_name(s));
	write_fields(j, r, r->src, s, 0, s->nr_fields);
	kmem_json__end_object(j);
}

/* --- tables ---------------------------------------------------------- */

static void write_cell(struct kmem_json *j, const struct kmem_report *r,
		       const struct kmem_column *col, const void *row)
{
	u64 v = kmem_column__u64(col, row);

	switch (col->kind) {
	case KMEM_CELL_COUNT:
		count(j, col->json, (const void *)((const char *)row + col->offset),
		      false);
		break;
	case KMEM_CELL_ORDER:
		kmem_json__key_u64(j, col->json, VALUE(row, col->offset, int));
		break;
	case KMEM_CELL_PFN:
	case KMEM_CELL_HEX:
		kmem_json__key(j, kmem_column__json(col, r->ctx));
		if (col->kind == KMEM_CELL_PFN && !r->ctx->pfn_is_page)
			kmem_json__u64(j, v);
		else
			kmem_json__hex(j, v);
		break;
	case KMEM_CELL_MIGTYPE:
		migtype(j, r, col->json, VALUE(row, col->offset, int));
		break;
	case KMEM_CELL_GFP:
		gfp(j, r, col->json, v);
		break;
	case KMEM_CELL_CALLSITE:
		callsite(j, r, col->json, v);
		break;
	case KMEM_CELL_PID:
		kmem_json__key_u64(j, col->json, VALUE(row, col->offset, u32));
		break;
	case KMEM_CELL_COMM:
		kmem_json__key_string(j, col->json,
				      r->ctx->comm_name(r->ctx->arg,
							VALUE(row, col->offset, u32)));
		break;
	case KMEM_CELL_STRING:
		kmem_json__key_string(j, col->json,
				      VALUE(row, col->offset, const char *) ?: "");
		break;
	default:
		kmem_json__key_u64(j, col->json, v);
		break;
	}
}

static void write_row(struct kmem_json *j, const struct kmem_report *r,
		      const struct kmem_table *t, const void *row)
{
	size_t i;

	kmem_json__begin_object(j);
	for (i = 0; i < t->nr_cols; i++)
		if (kmem_column__in(&t->cols[i], r->ctx, t->bit, KMEM_IN_JSON))
			write_cell(j, r, &t->cols[i], row);
	kmem_json__end_object(j);
}

static void write_table(struct kmem_json *j, const struct kmem_report *r,
			enum kmem_report_table_id id)
{
	const struct kmem_report_table *t = &r->tables[id];
	const struct kmem_table *desc = &kmem_tables[id];
	const char *name = strrchr(desc->path, '.') + 1;
	size_t i, shown = kmem_report__rows_shown(r->lines, t->nr, false);
	int k;

	if (!t->rows)
		return;
	kmem_json__key_object(j, name);
	/* The keys bytes and hit as ["bytes", "hit"]. */
	kmem_json__key_array(j, "sort");
	for (k = 0; k < t->sort.nr; k++)
		kmem_json__string_len(j, t->sort.name[k], t->sort.len[k]);
	kmem_json__end_array(j);
	kmem_json__key_u64(j, "nr_rows", t->nr);
	kmem_json__key_array(j, "rows");
	for (i = 0; i < shown; i++)
		write_row(j, r, desc, t->rows[i]);
	kmem_json__end_array(j);
	kmem_json__end_object(j);
}

/* --- page ------------------------------------------------------------ */

static void grid_columns(struct kmem_json *j, const struct kmem_report *r)
{
	int col, mt;

	kmem_json__key_array(j, "columns");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++) {
		kmem_json__begin_object(j);
		kmem_json__key_string(j, "name", kmem_migtype_columns[col]);
		kmem_json__key_array(j, "types");
		for (mt = 0; mt < KNOWN_MIGTYPES; mt++)
			if (kmem_migtype__column(mt, r->ctx->pre_v4_4) == (unsigned int)col)
				migtype(j, r, NULL, mt);
		kmem_json__end_array(j);
		kmem_json__end_object(j);
	}
	kmem_json__end_array(j);
}

static void grid(struct kmem_json *j, const struct kmem_report *r)
{
	int order, col, orders = kmem_page__grid_orders(r->kp);

	kmem_json__key_object(j, "grid");
	grid_columns(j, r);
	kmem_json__key_array(j, "rows");
	for (order = 0; order < orders; order++) {
		kmem_json__begin_object(j);
		kmem_json__key_u64(j, "order", order);
		kmem_json__key_array(j, "counts");
		for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
			kmem_json__u64(j, kmem_page__grid(r->kp, order, col));
		kmem_json__end_array(j);
		kmem_json__end_object(j);
	}
	kmem_json__end_array(j);
	kmem_json__end_object(j);
}

static void node_matrix(struct kmem_json *j, const struct kmem_report *r)
{
	int from, to;

	kmem_json__key_array(j, "nodes");
	for (from = 0; from < r->nr_node_ids; from++)
		if (r->has_node[from])
			kmem_json__u64(j, from);
	kmem_json__end_array(j);
	kmem_json__key_array(j, "matrix");
	for (from = 0; from < r->nr_node_ids; from++) {
		if (!r->has_node[from])
			continue;
		kmem_json__begin_array(j);
		for (to = 0; to < r->nr_node_ids; to++)
			if (r->has_node[to])
				kmem_json__u64(j, kmem_page__node_matrix(r->kp,
									 from, to));
		kmem_json__end_array(j);
	}
	kmem_json__end_array(j);
}

static void cross_node(struct kmem_json *j, const struct kmem_report *r)
{
	const struct kmem_section *s = &kmem_cross_node_section;

	kmem_json__key_object(j, section_name(s));
	write_fields(j, r, r->src, s, 0, 2);
	if (!strcmp(r->trace.cross_node, "analysed")) {
		node_matrix(j, r);
		write_fields(j, r, r->src, s, 2, s->nr_fields);
	}
	kmem_json__end_object(j);
}

/* The first migration type of a grid column, to name a matrix cell. */
static int column_type(const struct kmem_report *r, int col)
{
	int mt;

	for (mt = 0; mt < KNOWN_MIGTYPES; mt++)
		if (kmem_migtype__column(mt, r->ctx->pre_v4_4) == (unsigned int)col)
			return mt;
	return KNOWN_MIGTYPES;
}

static void frag_matrix(struct kmem_json *j, const struct kmem_report *r)
{
	int req, fb, i;

	kmem_json__key_array(j, "matrix");
	for (req = 0; req < KMEM_NR_MIGTYPE_COLUMNS; req++) {
		for (fb = 0; fb < KMEM_NR_MIGTYPE_COLUMNS; fb++) {
			const struct kmem_frag_cell *cell = kmem_frag__cell(r->kf, req, fb);

			if (!cell->fallbacks)
				continue;
			kmem_json__begin_object(j);
			migtype(j, r, "requested", column_type(r, req));
			migtype(j, r, "fallback", column_type(r, fb));
			count(j, "fallbacks", &(struct kmem_count){
				.nr = cell->fallbacks, .bytes = cell->bytes }, false);
			for (i = 0; r->ctx->frag_classes && i < KMEM_FRAG_NR_CLASSES; i++)
				kmem_json__key_u64(j, kmem_frag_classes[i], cell->classes[i]);
			kmem_json__end_object(j);
		}
	}
	kmem_json__end_array(j);
}

static void mixed_pageblocks(struct kmem_json *j, const struct kmem_report *r)
{
	const struct kmem_section *s = &kmem_pageblock_section;
	const struct kmem_frag_summary *fs = r->src[KMEM_SRC_FRAG];
	int col;

	kmem_json__key_object(j, section_name(s));
	write_fields(j, r, r->src, s, 0, 1);
	kmem_json__key_array(j, "by_column");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		kmem_json__u64(j, fs->blocks.by_column[col]);
	kmem_json__end_array(j);
	kmem_json__key_array(j, "bytes_by_column");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		kmem_json__u64(j, fs->alloc[col].bytes);
	kmem_json__end_array(j);
	write_fields(j, r, r->src, s, 1, s->nr_fields);
	kmem_json__end_object(j);
}

/* The pages that fell back and stay; null where they are not known. */
static void pinned(struct kmem_json *j, const struct kmem_report *r)
{
	kmem_json__key(j, section_name(&kmem_pinned_section));
	if (!kmem_report__holds(r->ctx, KMEM_IF_PINNING)) {
		kmem_json__null(j);
		return;
	}
	kmem_json__begin_object(j);
	write_fields(j, r, r->src, &kmem_pinned_section, 0, SIZE_MAX);
	write_table(j, r, KMEM_FRAG_PINNED);
	kmem_json__end_object(j);
}

static void fragmentation(struct kmem_json *j, const struct kmem_report *r)
{
	const struct kmem_section *s = &kmem_frag_section;
	bool recorded = strcmp(r->trace.fragmentation, "not_recorded");

	kmem_json__key_object(j, section_name(s));
	write_fields(j, r, r->src, s, 0, recorded ? s->nr_fields : 1);
	if (recorded) {
		frag_matrix(j, r);
		write_table(j, r, KMEM_FRAG_CALLERS);
		if (r->ctx->frag_classes) {
			mixed_pageblocks(j, r);
			pinned(j, r);
		}
		write_table(j, r, KMEM_FRAG_FAILURES);
	}
	kmem_json__end_object(j);
}

/* Allocation stalls: the section, its parts and its tables. */
static void stalls(struct kmem_json *j, const struct kmem_report *r)
{
	const struct kmem_section *s = &kmem_stall_section;
	int id;

	kmem_json__key_object(j, section_name(s));
	write_fields(j, r, r->src, s, 0, r->src[KMEM_SRC_STALL] ? s->nr_fields : 1);
	if (r->src[KMEM_SRC_STALL]) {
		write_section(j, r, &kmem_stall_apart_section);
		write_section(j, r, &kmem_stall_events_section);
		write_section(j, r, &kmem_stall_memcg_section);
		for (id = KMEM_STALL_ORDERS; id <= KMEM_STALL_MEMCG; id++)
			write_table(j, r, id);
	}
	kmem_json__end_object(j);
}

static void interval_row(struct kmem_json *j, const struct kmem_report *r,
			 const struct kmem_interval_row *row)
{
	const void *src[KMEM_NR_SOURCES];
	size_t i;

	memcpy(src, r->src, sizeof(src));
	src[KMEM_SRC_INTERVAL] = row;
	kmem_json__begin_object(j);
	write_fields(j, r, src, &kmem_interval_section, 0, SIZE_MAX);
	if (r->caller) {
		kmem_json__key_array(j, "callers");
		for (i = 0; i < row->nr_callers; i++) {
			kmem_json__begin_object(j);
			if (r->ctx->callchains)
				callsite(j, r, "callsite", row->callers[i].callsite);
			kmem_json__key_u64(j, "hits", row->callers[i].alloc.nr);
			kmem_json__key_u64(j, "bytes", row->callers[i].alloc.bytes);
			kmem_json__end_object(j);
		}
		kmem_json__end_array(j);
	}
	kmem_json__end_object(j);
}

/* -I: the page analysis in intervals of trace time. */
static void intervals(struct kmem_json *j, const struct kmem_report *r)
{
	size_t i;

	kmem_json__key_object(j, "intervals");
	kmem_json__key_u64(j, "length_ns", kmem_interval__length(r->iv));
	kmem_json__key_array(j, "rows");
	for (i = 0; i < kmem_interval__nr_rows(r->iv); i++)
		interval_row(j, r, kmem_interval__row(r->iv, i));
	kmem_json__end_array(j);
	kmem_json__end_object(j);
}

static void page(struct kmem_json *j, const struct kmem_report *r)
{
	kmem_json__key_object(j, section_name(&kmem_page_section));
	write_fields(j, r, r->src, &kmem_page_section, 0, SIZE_MAX);
	write_section(j, r, &kmem_page_summary_section);
	grid(j, r);
	cross_node(j, r);
	write_table(j, r, KMEM_PAGE_CALLERS);
	write_table(j, r, KMEM_PAGE_ALLOCS);
	fragmentation(j, r);
	stalls(j, r);
	if (r->iv)
		intervals(j, r);
	kmem_json__end_object(j);
}

static void slab(struct kmem_json *j, const struct kmem_report *r)
{
	kmem_json__key_object(j, "slab");
	write_section(j, r, &kmem_slab_summary_section);
	write_table(j, r, KMEM_SLAB_CALLERS);
	write_table(j, r, KMEM_SLAB_CACHES);
	write_table(j, r, KMEM_SLAB_ALLOCS);
	kmem_json__end_object(j);
}

/* --- the state of memory around stat -b ------------------------------ */

/* A zone's free lists at one end of the run; NULL: not in that file. */
static void zone_free(struct kmem_json *j, const char *key,
		      const struct kmem_pagetypeinfo *pt,
		      const struct kmem_zone_free *z)
{
	int o, t;

	if (!z) {
		kmem_json__key(j, key);
		kmem_json__null(j);
		return;
	}
	kmem_json__key_object(j, key);
	kmem_json__key_u64(j, "free_pages", kmem_zone_free__pages(z, pt->nr_orders, 0));
	kmem_json__key(j, "capped");
	kmem_json__bool(j, z->capped);
	kmem_json__key_object(j, "blocks");
	for (t = 0; t < pt->nr_types; t++) {
		kmem_json__key_array(j, pt->types[t]);
		for (o = 0; o < pt->nr_orders; o++)
			kmem_json__u64(j, z->blocks[t][o]);
		kmem_json__end_array(j);
	}
	kmem_json__end_object(j);
	kmem_json__key_array(j, "unusable_index_permille");
	for (o = 0; o < pt->nr_orders; o++)
		kmem_json__u64(j, kmem_zone_free__unusable(z, pt->nr_orders, o));
	kmem_json__end_array(j);
	kmem_json__end_object(j);
}

static void zone_pair(struct kmem_json *j, const struct kmem_report_memory *m,
		      const struct kmem_zone_free *z)
{
	kmem_json__begin_object(j);
	kmem_json__key_u64(j, "node", z->node);
	kmem_json__key_string(j, "zone", z->zone);
	zone_free(j, "start", m->free_start,
		  kmem_pagetypeinfo__zone(m->free_start, z->node, z->zone));
	zone_free(j, "end", m->free_end,
		  kmem_pagetypeinfo__zone(m->free_end, z->node, z->zone));
	kmem_json__end_object(j);
}

/* stat -b: the /proc/vmstat counters of stalls and the free lists. */
static void memory(struct kmem_json *j, const struct kmem_report *r)
{
	const struct kmem_report_memory *m = r->src[KMEM_SRC_MEMORY];
	const struct kmem_zone_free *z;
	int i;

	kmem_json__key_object(j, "memory");
	write_section(j, r, &kmem_memory_section);
	kmem_json__key_object(j, "pagetypeinfo");
	if (!m->free_start || !m->free_end) {
		kmem_json__key_string(j, "not_read", m->pagetypeinfo);
	} else {
		kmem_json__key_u64(j, "nr_orders", max(m->free_start->nr_orders,
						       m->free_end->nr_orders));
		kmem_json__key_array(j, "zones");
		for (i = 0; i < m->free_start->nr_zones; i++)
			zone_pair(j, m, &m->free_start->zones[i]);
		/* Then the zones only the end has. */
		for (i = 0; i < m->free_end->nr_zones; i++) {
			z = &m->free_end->zones[i];
			if (!kmem_pagetypeinfo__zone(m->free_start, z->node, z->zone))
				zone_pair(j, m, z);
		}
		kmem_json__end_array(j);
	}
	kmem_json__end_object(j);
	kmem_json__end_object(j);
}

/* The document, to a writer or a visitor. */
static int document(struct kmem_json *j, const struct kmem_report *r)
{
	int err;

	if (!j)
		return -ENOMEM;
	kmem_json__begin_object(j);
	kmem_json__key_u64(j, "schema", KMEM_REPORT_SCHEMA);
	write_section(j, r, &kmem_trace_section);
	if (r->src[KMEM_SRC_COUNTED])
		write_section(j, r, &kmem_counted_section);
	if (r->kp)
		page(j, r);
	if (r->slab)
		slab(j, r);
	if (r->src[KMEM_SRC_MEMORY])
		memory(j, r);
	kmem_json__end_object(j);
	err = kmem_json__finish(j);
	kmem_json__delete(j);
	return err;
}

int kmem_report__json(const struct kmem_report *r, FILE *fp)
{
	return document(kmem_json__new(fp), r);
}

int kmem_report__visit(const struct kmem_report *r, kmem_json_visit_fn fn,
		       void *arg)
{
	return document(kmem_json__new_visitor(fn, arg), r);
}
