// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem stat's results as JSON; see kmem-report.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "kmem-decode.h"
#include "kmem-frag.h"
#include "kmem-interval.h"
#include "kmem-json.h"
#include "kmem-page.h"
#include "kmem-report.h"
#include "kmem-slab.h"

#define NAME_SIZE	(KSYM_NAME_LEN + 32)

static const char * const column_names[KMEM_NR_MIGTYPE_COLUMNS] = {
	"Unmovable", "Reclaimable", "Movable", "Special",
};

/* Migration types whose names a kernel of this trace's vintage has. */
#define KNOWN_MIGTYPES	6

static void count(struct kmem_json *j, const char *key,
		  const struct kmem_count *c)
{
	kmem_json__key_object(j, key);
	kmem_json__key_u64(j, "count", c->nr);
	kmem_json__key_u64(j, "bytes", c->bytes);
	kmem_json__end_object(j);
}

/* {"value": 1, "name": "Movable"}: a value and the kernel's name of it. */
static void migtype_object(struct kmem_json *j, const struct kmem_report *r,
			   int value)
{
	char buf[32];

	kmem_json__begin_object(j);
	kmem_json__key(j, "value");
	kmem_json__s64(j, value);
	kmem_json__key_string(j, "name",
			      kmem_migtype__name(value, r->ctx->pre_v4_4, buf,
						 sizeof(buf)));
	kmem_json__end_object(j);
}

static void migtype(struct kmem_json *j, const struct kmem_report *r,
		    const char *key, int value)
{
	kmem_json__key(j, key);
	migtype_object(j, r, value);
}

/* The gfp value and its names, as the kernel's print format joins them. */
static void gfp(struct kmem_json *j, const struct kmem_report *r, u64 value)
{
	const char *names = r->ctx->gfp_name(r->ctx->arg, value), *p;

	kmem_json__key_object(j, "gfp");
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
		     u64 addr)
{
	char buf[NAME_SIZE];

	kmem_json__key_object(j, "callsite");
	kmem_json__key_string(j, "name",
			      r->ctx->symbol(r->ctx->arg, addr, buf, sizeof(buf)));
	kmem_json__key(j, "address");
	kmem_json__hex(j, addr);
	kmem_json__end_object(j);
}

/* "bytes,hit" as ["bytes", "hit"]. */
static void sort_keys(struct kmem_json *j, const char *names)
{
	const char *p = names;

	kmem_json__key_array(j, "sort");
	while (p && *p) {
		size_t len = strcspn(p, ",");

		kmem_json__string_len(j, p, len);
		p += len + (p[len] == ',');
	}
	kmem_json__end_array(j);
}

static size_t rows_shown(const struct kmem_report *r, size_t nr)
{
	return r->lines >= 0 && (size_t)r->lines < nr ? (size_t)r->lines : nr;
}

/* --- perf_data ------------------------------------------------------- */

static void perf_data(struct kmem_json *j, const struct kmem_report_trace *t)
{
	kmem_json__key_object(j, "perf_data");
	kmem_json__key_string(j, "path", t->path);
	kmem_json__key_string(j, "os_release", t->os_release);
	if (t->hostname)
		kmem_json__key_string(j, "hostname", t->hostname);
	if (t->arch)
		kmem_json__key_string(j, "arch", t->arch);
	if (t->nr_cpus > 0)
		kmem_json__key_u64(j, "nr_cpus", t->nr_cpus);
	if (t->time_window)
		kmem_json__key_string(j, "time_window", t->time_window);
	kmem_json__key_u64(j, "nr_samples", t->nr_samples);
	kmem_json__key_u64(j, "nr_page_events", t->nr_page_events);
	kmem_json__key_u64(j, "nr_slab_events", t->nr_slab_events);
	kmem_json__key_u64(j, "nr_extfrag_events", t->nr_extfrag_events);
	kmem_json__key_u64(j, "events_lost", t->events_lost);
	kmem_json__key_u64(j, "events_too_short", t->events_too_short);
	kmem_json__key_u64(j, "events_out_of_order", t->events_out_of_order);
	if (t->sampled && *t->sampled)
		kmem_json__key_string(j, "sampled", t->sampled);
	kmem_json__key(j, "callsites_unresolved");
	kmem_json__bool(j, t->callsites_unresolved);
	kmem_json__end_object(j);
}

static void strings(struct kmem_json *j, const char *key,
		    const char * const *s, size_t nr)
{
	size_t i;

	kmem_json__key_array(j, key);
	for (i = 0; i < nr; i++)
		kmem_json__string(j, s[i]);
	kmem_json__end_array(j);
}

static void source(struct kmem_json *j, const struct kmem_report_source *src)
{
	size_t i;

	kmem_json__key_object(j, "source");
	kmem_json__key_string(j, "name", src->name);
	strings(j, "notes", src->notes, src->nr_notes);
	strings(j, "estimated", src->estimated, src->nr_estimated);
	kmem_json__key_object(j, "values");
	for (i = 0; i < src->nr_values; i++)
		kmem_json__key_u64(j, src->values[i].key, src->values[i].value);
	kmem_json__end_object(j);
	kmem_json__end_object(j);
}

/* --- page ------------------------------------------------------------ */

static void allocated_only(struct kmem_json *j, const struct kmem_lifetime *l)
{
	struct kmem_count unfreed = kmem_lifetime__unfreed(l);

	kmem_json__key_object(j, "allocated_only");
	kmem_json__key_u64(j, "count", unfreed.nr);
	kmem_json__key_u64(j, "bytes", unfreed.bytes);
	count(j, "still_live", &l->live);
	count(j, "allocated_again", &l->dropped);
	kmem_json__end_object(j);
}

static void page_summary(struct kmem_json *j, const struct kmem_page_summary *s)
{
	kmem_json__key_object(j, "summary");
	count(j, "allocated_freed", &s->life.freed);
	allocated_only(j, &s->life);
	count(j, "freed_only", &s->free_only);
	count(j, "failures", &s->fail);
	count(j, "total_allocations", &s->alloc);
	count(j, "total_frees", &s->free);
	kmem_json__key_u64(j, "frees_of_another_order", s->free_order_differs);
	kmem_json__key_u64(j, "unknown_migration_types", s->bad_migtype);
	kmem_json__key_u64(j, "ignored_bad_order", s->bad_order);
	kmem_json__end_object(j);
}

static void grid_columns(struct kmem_json *j, const struct kmem_report *r)
{
	int col, mt;

	kmem_json__key_array(j, "columns");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++) {
		kmem_json__begin_object(j);
		kmem_json__key_string(j, "name", column_names[col]);
		kmem_json__key_array(j, "types");
		for (mt = 0; mt < KNOWN_MIGTYPES; mt++) {
			if (kmem_migtype__column(mt, r->ctx->pre_v4_4) == (unsigned int)col)
				migtype_object(j, r, mt);
		}
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

static const char *cross_node_status(const struct kmem_report *r)
{
	const struct kmem_trace_info *info = kmem_decoder__info(r->dec);

	if (info->topology_corrupt)
		return "corrupt_topology";
	if (!info->nr_nodes || !info->has_mem2node)
		return "no_topology";
	if (kmem_decoder__nr_trace_nodes(r->dec) == 1)
		return "one_node";
	if (info->nr_nodes > KMEM_PAGE_MAX_NODES)
		return "too_many_nodes";
	return "analysed";
}

static void node_matrix(struct kmem_json *j, const struct kmem_report *r)
{
	int from, to, nr = kmem_decoder__info(r->dec)->nr_nodes;

	kmem_json__key_array(j, "nodes");
	for (from = 0; from < nr; from++)
		if (kmem_decoder__has_node(r->dec, from))
			kmem_json__u64(j, from);
	kmem_json__end_array(j);
	kmem_json__key_array(j, "matrix");
	for (from = 0; from < nr; from++) {
		if (!kmem_decoder__has_node(r->dec, from))
			continue;
		kmem_json__begin_array(j);
		for (to = 0; to < nr; to++)
			if (kmem_decoder__has_node(r->dec, to))
				kmem_json__u64(j, kmem_page__node_matrix(r->kp,
									 from, to));
		kmem_json__end_array(j);
	}
	kmem_json__end_array(j);
}

static void cross_node(struct kmem_json *j, const struct kmem_report *r)
{
	const struct kmem_page_summary *s = kmem_page__summary(r->kp);
	const char *status = cross_node_status(r);

	kmem_json__key_object(j, "cross_node");
	kmem_json__key_string(j, "status", status);
	kmem_json__key_u64(j, "nr_nodes", kmem_decoder__nr_trace_nodes(r->dec));
	if (!strcmp(status, "analysed")) {
		node_matrix(j, r);
		if (r->ctx->pfn_is_page) {
			kmem_json__key(j, "allocations_remote");
			kmem_json__null(j);
			kmem_json__key(j, "frees_remote");
			kmem_json__null(j);
		} else {
			count(j, "allocations_remote", &s->alloc_remote);
			count(j, "frees_remote", &s->free_remote);
		}
		count(j, "freed_on_other_node", &s->free_other_node);
	}
	kmem_json__end_object(j);
}

static void page_row(struct kmem_json *j, const struct kmem_report *r,
		     const struct kmem_page_row *row, bool per_pfn)
{
	kmem_json__begin_object(j);
	if (per_pfn && r->ctx->pfn_is_page) {
		kmem_json__key(j, "page");
		kmem_json__hex(j, row->pfn);
	} else if (per_pfn) {
		kmem_json__key_u64(j, "pfn", row->pfn);
	}
	if (r->ctx->callchains)
		callsite(j, r, row->callsite);
	if (r->ctx->task_key == KMEM_TASK_PID)
		kmem_json__key_u64(j, "pid", row->task);
	else if (r->ctx->task_key == KMEM_TASK_COMM)
		kmem_json__key_string(j, "comm",
				      r->ctx->comm_name(r->ctx->arg, row->task));
	kmem_json__key_u64(j, "order", row->order);
	migtype(j, r, "migration_type", row->migtype);
	gfp(j, r, row->gfp);
	kmem_json__key_u64(j, "hits", row->hits);
	kmem_json__key_u64(j, "bytes", row->bytes);
	kmem_json__key_u64(j, "freed", r->ctx->live ? 0 : row->freed);
	if (r->ctx->xnode)
		kmem_json__key_u64(j, "freed_remote",
				   r->ctx->live ? 0 : row->xnode_frees);
	if (r->ctx->frag_classes && r->ctx->callchains && !r->ctx->live)
		kmem_json__key_u64(j, "fragmenting", row->fragmenting);
	kmem_json__end_object(j);
}

static int page_table(struct kmem_json *j, const struct kmem_report *r,
		      const char *key, enum kmem_page_table table)
{
	const struct kmem_report_sort *sort = &r->page_sort;
	struct kmem_page_row **rows;
	size_t nr, i, shown;

	rows = kmem_page__rows(r->kp, table, sort->keys, sort->nr_keys, &nr);
	if (!rows)
		return -ENOMEM;
	shown = rows_shown(r, nr);
	kmem_json__key_object(j, key);
	sort_keys(j, sort->names);
	kmem_json__key_u64(j, "nr_rows", nr);
	kmem_json__key_array(j, "rows");
	for (i = 0; i < shown; i++)
		page_row(j, r, rows[i], table == KMEM_PAGE_TABLE_ALLOC);
	kmem_json__end_array(j);
	kmem_json__end_object(j);
	return 0;
}

/* --- fragmentation --------------------------------------------------- */

static void frag_classes(struct kmem_json *j, const u64 *classes)
{
	kmem_json__key_u64(j, "claimed", classes[KMEM_FRAG_CLAIMED]);
	kmem_json__key_u64(j, "converted", classes[KMEM_FRAG_CONVERTED]);
	kmem_json__key_u64(j, "polluted", classes[KMEM_FRAG_POLLUTED]);
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

static void frag_matrix(struct kmem_json *j, const struct kmem_report *r,
			bool classes)
{
	int req, fb;

	kmem_json__key_array(j, "matrix");
	for (req = 0; req < KMEM_NR_MIGTYPE_COLUMNS; req++) {
		for (fb = 0; fb < KMEM_NR_MIGTYPE_COLUMNS; fb++) {
			const struct kmem_frag_cell *cell =
				kmem_frag__cell(r->kf, req, fb);
			struct kmem_count c = {
				.nr = cell->fallbacks,
				.bytes = cell->bytes,
			};

			if (!cell->fallbacks)
				continue;
			kmem_json__begin_object(j);
			migtype(j, r, "requested", column_type(r, req));
			migtype(j, r, "fallback", column_type(r, fb));
			count(j, "fallbacks", &c);
			if (classes)
				frag_classes(j, cell->classes);
			kmem_json__end_object(j);
		}
	}
	kmem_json__end_array(j);
}

static int frag_callers(struct kmem_json *j, const struct kmem_report *r,
			bool classes)
{
	struct kmem_frag_row **rows;
	size_t nr, i, shown;

	rows = kmem_frag__rows(r->kf, NULL, 0, &nr);
	if (!rows)
		return -ENOMEM;
	shown = rows_shown(r, nr);
	kmem_json__key_object(j, "callers");
	sort_keys(j, classes ? "frag,hit" : "hit");
	kmem_json__key_u64(j, "nr_rows", nr);
	kmem_json__key_array(j, "rows");
	for (i = 0; i < shown; i++) {
		kmem_json__begin_object(j);
		callsite(j, r, rows[i]->callsite);
		migtype(j, r, "requested", rows[i]->alloc_migtype);
		migtype(j, r, "fallback", rows[i]->fallback_migtype);
		count(j, "fallbacks", &rows[i]->fallbacks);
		if (classes)
			frag_classes(j, rows[i]->classes);
		kmem_json__end_object(j);
	}
	kmem_json__end_array(j);
	kmem_json__end_object(j);
	return 0;
}

static void mixed_pageblocks(struct kmem_json *j,
			     const struct kmem_frag_summary *s)
{
	int col;

	kmem_json__key_object(j, "mixed_pageblocks");
	kmem_json__key_u64(j, "touched", s->blocks.allocated);
	kmem_json__key_u64(j, "unmovable_or_reclaimable",
			   s->blocks.unmovable_or_reclaimable);
	kmem_json__key_u64(j, "fallback_only", s->blocks.fallback_only);
	kmem_json__key_u64(j, "mixed", s->blocks.mixed);
	kmem_json__key_array(j, "by_column");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		kmem_json__u64(j, s->blocks.by_column[col]);
	kmem_json__end_array(j);
	kmem_json__key_array(j, "bytes_by_column");
	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++)
		kmem_json__u64(j, s->alloc[col].bytes);
	kmem_json__end_array(j);
	kmem_json__end_object(j);
}

static int frag_failures(struct kmem_json *j, const struct kmem_report *r)
{
	struct kmem_frag_fail_row **rows;
	size_t nr, i, shown;

	rows = kmem_frag__fail_rows(r->kf, NULL, 0, &nr);
	if (!rows)
		return -ENOMEM;
	shown = rows_shown(r, nr);
	kmem_json__key_object(j, "failures");
	sort_keys(j, "hit,bytes");
	kmem_json__key_u64(j, "nr_rows", nr);
	kmem_json__key_array(j, "rows");
	for (i = 0; i < shown; i++) {
		kmem_json__begin_object(j);
		if (r->ctx->callchains)
			callsite(j, r, rows[i]->callsite);
		kmem_json__key_u64(j, "order", rows[i]->order);
		migtype(j, r, "migration_type", rows[i]->migtype);
		gfp(j, r, rows[i]->gfp);
		kmem_json__key_u64(j, "hits", rows[i]->asked.nr);
		kmem_json__key_u64(j, "bytes", rows[i]->asked.bytes);
		kmem_json__end_object(j);
	}
	kmem_json__end_array(j);
	kmem_json__end_object(j);
	return 0;
}

static int fragmentation(struct kmem_json *j, const struct kmem_report *r)
{
	const struct kmem_trace_info *info = kmem_decoder__info(r->dec);
	const struct kmem_frag_summary *s;
	bool classes;
	int err;

	kmem_json__key_object(j, "fragmentation");
	if (!info->has_extfrag) {
		kmem_json__key_string(j, "status", "not_recorded");
		kmem_json__end_object(j);
		return 0;
	}
	err = kmem_frag__finish(r->kf);
	if (err)
		return err;
	s = kmem_frag__summary(r->kf);
	classes = kmem_frag__has_classes(r->kf);
	kmem_json__key_string(j, "status", "analysed");
	kmem_json__key(j, "pageblock_order");
	if (classes)
		kmem_json__u64(j, info->pageblock_order);
	else
		kmem_json__null(j);
	count(j, "fallbacks", &s->fallbacks);
	if (classes) {
		kmem_json__key_object(j, "classes");
		count(j, "claimed", &s->classes[KMEM_FRAG_CLAIMED]);
		count(j, "converted", &s->classes[KMEM_FRAG_CONVERTED]);
		count(j, "polluted", &s->classes[KMEM_FRAG_POLLUTED]);
		kmem_json__end_object(j);
	}
	count(j, "severe", &s->severe);
	kmem_json__key_u64(j, "ignored_events", s->bad_fallbacks);
	frag_matrix(j, r, classes);
	err = frag_callers(j, r, classes);
	if (!err && classes)
		mixed_pageblocks(j, s);
	if (!err)
		err = frag_failures(j, r);
	kmem_json__end_object(j);
	return err;
}

static void interval_row(struct kmem_json *j, const struct kmem_report *r,
			 const struct kmem_interval_row *row)
{
	size_t i;

	kmem_json__begin_object(j);
	kmem_json__key_u64(j, "start_ns", row->start);
	count(j, "allocations", &row->alloc);
	count(j, "frees", &row->free);
	count(j, "failures", &row->fail);
	kmem_json__key_u64(j, "live_bytes", row->live_bytes);
	if (r->ctx->xnode)
		count(j, "freed_on_other_node", &row->free_other_node);
	if (r->ctx->frag_classes) {
		count(j, "fallbacks", &row->fallbacks);
		count(j, "claimed", &row->classes[KMEM_FRAG_CLAIMED]);
		count(j, "converted", &row->classes[KMEM_FRAG_CONVERTED]);
		count(j, "polluted", &row->classes[KMEM_FRAG_POLLUTED]);
	}
	if (r->caller) {
		kmem_json__key_array(j, "callers");
		for (i = 0; i < row->nr_callers; i++) {
			kmem_json__begin_object(j);
			if (r->ctx->callchains)
				callsite(j, r, row->callers[i].callsite);
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

static int page(struct kmem_json *j, const struct kmem_report *r)
{
	int err = 0;

	kmem_page__finish(r->kp);
	kmem_json__key_object(j, "page");
	kmem_json__key_u64(j, "page_size", r->ctx->page_size);
	kmem_json__key(j, "live");
	kmem_json__bool(j, r->ctx->live);
	page_summary(j, kmem_page__summary(r->kp));
	grid(j, r);
	cross_node(j, r);
	if (r->caller || !r->alloc)
		err = page_table(j, r, "callers", KMEM_PAGE_TABLE_CALLER);
	if (!err && r->alloc)
		err = page_table(j, r, "allocs", KMEM_PAGE_TABLE_ALLOC);
	if (!err)
		err = fragmentation(j, r);
	if (!err && r->iv)
		intervals(j, r);
	kmem_json__end_object(j);
	return err;
}

/* --- slab ------------------------------------------------------------ */

static void slab_summary(struct kmem_json *j, const struct kmem_report *r,
			 const struct kmem_slab_summary *s)
{
	u64 wasted = s->alloc.bytes > s->bytes_req ?
		     s->alloc.bytes - s->bytes_req : 0;

	kmem_json__key_object(j, "summary");
	count(j, "total_allocations", &s->alloc);
	kmem_json__key_u64(j, "bytes_requested", s->bytes_req);
	kmem_json__key_u64(j, "wasted_bytes", wasted);
	count(j, "allocated_freed", &s->life.freed);
	allocated_only(j, &s->life);
	kmem_json__key_object(j, "frees");
	kmem_json__key_u64(j, "total", s->free);
	kmem_json__key_u64(j, "unknown_pointers", s->free_unknown);
	kmem_json__key_u64(j, "repeated", s->free_again);
	kmem_json__key_u64(j, "null", s->free_null);
	kmem_json__end_object(j);
	count(j, "failures", &s->fail);
	kmem_json__key_u64(j, "zero_size", s->zero_size.nr);
	count(j, "pingpong", &s->pingpong);
	if (kmem_decoder__info(r->dec)->has_cpu_nodes) {
		count(j, "cross_node", &s->xnode);
	} else {
		kmem_json__key(j, "cross_node");
		kmem_json__null(j);
	}
	kmem_json__end_object(j);
}

static void slab_row(struct kmem_json *j, const struct kmem_report *r,
		     const struct kmem_slab_row *row,
		     enum kmem_slab_table table)
{
	kmem_json__begin_object(j);
	if (table == KMEM_SLAB_TABLE_ALLOC) {
		kmem_json__key(j, "ptr");
		kmem_json__hex(j, row->ptr);
	}
	if (table == KMEM_SLAB_TABLE_CACHE)
		kmem_json__key_string(j, "cache", row->cache ?: "");
	else
		callsite(j, r, row->callsite);
	kmem_json__key_u64(j, "hits", row->hits);
	kmem_json__key_u64(j, "bytes_alloc", row->bytes_alloc);
	kmem_json__key_u64(j, "bytes_req", row->bytes_req);
	kmem_json__key_u64(j, "freed", row->freed);
	kmem_json__key_u64(j, "pingpong", row->pingpong);
	kmem_json__end_object(j);
}

static int slab_table(struct kmem_json *j, const struct kmem_report *r,
		      const char *key, enum kmem_slab_table table)
{
	const struct kmem_report_sort *sort = &r->slab_sort;
	struct kmem_slab_row **rows;
	size_t nr, i, shown;

	rows = kmem_slab__rows(r->ks, table, sort->keys, sort->nr_keys, &nr);
	if (!rows)
		return -ENOMEM;
	shown = rows_shown(r, nr);
	kmem_json__key_object(j, key);
	sort_keys(j, sort->names);
	kmem_json__key_u64(j, "nr_rows", nr);
	kmem_json__key_array(j, "rows");
	for (i = 0; i < shown; i++)
		slab_row(j, r, rows[i], table);
	kmem_json__end_array(j);
	kmem_json__end_object(j);
	return 0;
}

static int slab(struct kmem_json *j, const struct kmem_report *r)
{
	int err = 0;

	kmem_slab__finish(r->ks);
	kmem_json__key_object(j, "slab");
	slab_summary(j, r, kmem_slab__summary(r->ks));
	if (r->caller || !r->alloc) {
		err = slab_table(j, r, "callers", KMEM_SLAB_TABLE_CALLER);
		if (!err)
			err = slab_table(j, r, "caches", KMEM_SLAB_TABLE_CACHE);
	}
	if (!err && r->alloc)
		err = slab_table(j, r, "allocs", KMEM_SLAB_TABLE_ALLOC);
	kmem_json__end_object(j);
	return err;
}

static void set_fragmenting(struct kmem_page_row *row, void *arg)
{
	row->fragmenting = kmem_frag__callsite_fragmenting(arg, row->callsite);
}

int kmem_report__prepare(const struct kmem_report *r)
{
	int err = 0;

	if (r->ks)
		kmem_slab__finish(r->ks);
	if (!r->kp)
		return 0;
	kmem_page__finish(r->kp);
	if (r->kf)
		err = kmem_frag__finish(r->kf);
	if (!err && r->kf && kmem_decoder__info(r->dec)->has_extfrag) {
		kmem_page__walk_rows(r->kp, KMEM_PAGE_TABLE_CALLER,
				     set_fragmenting, r->kf);
		kmem_page__walk_rows(r->kp, KMEM_PAGE_TABLE_ALLOC,
				     set_fragmenting, r->kf);
	}
	return err;
}

/* The document, to a writer or a visitor. */
static int document(struct kmem_json *j, const struct kmem_report *r)
{
	int err = 0;

	if (!j)
		return -ENOMEM;
	kmem_json__begin_object(j);
	kmem_json__key_u64(j, "schema", KMEM_REPORT_SCHEMA);
	perf_data(j, &r->trace);
	if (r->source)
		source(j, r->source);
	if (r->kp)
		err = page(j, r);
	if (!err && r->ks)
		err = slab(j, r);
	kmem_json__end_object(j);
	if (!err)
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
