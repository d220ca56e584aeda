// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem: how the kernel allocates memory.
 *
 * 'perf kmem record' records the slab (--slab) and page allocator (--page)
 * tracepoints, 'perf kmem stat' replays them.  The analysis itself lives in
 * util/kmem-page.c; this file does the options, the reading and the
 * printing.
 */
#include "builtin.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <api/fs/tracing_path.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <subcmd/pager.h>
#include <subcmd/parse-options.h>
#include <traceevent/event-parse.h>

#include "util/callchain.h"
#include "util/util.h"
#include "util/callsite-regex.h"
#include "util/config.h"
#include "util/cpumap.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/kmem-page.h"
#include "util/machine.h"
#include "util/mem2node.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/time-utils.h"
#include "util/tool.h"
#include "util/trace-event.h"

#define DEFAULT_PAGE_SORT	"bytes,hit"
/* Rows of the callsite table shown when no table was asked for. */
#define DEFAULT_TABLE_LINES	20

/* The tracepoint fields one page event is decoded from. */
struct page_fields {
	struct tep_format_field	*pfn;		/* "pfn", or "page" < v4.1 */
	struct tep_format_field	*order;
	struct tep_format_field	*migtype;	/* alloc only */
	struct tep_format_field	*gfp;		/* alloc only */
};

struct perf_kmem {
	struct perf_tool	tool;
	struct perf_session	*session;
	struct perf_data	data;
	const char		*input_name;
	bool			force;

	/* What to analyse and show. */
	bool			slab;
	bool			page;
	bool			caller;
	bool			alloc;
	bool			live;
	bool			raw_ip;
	int			lines;
	const char		*sort_str;
	const char		*time_str;
	const char		*alloc_regex;
	const char		*alloc_regex_add;
	struct perf_time_interval ptime;

	/* Page analysis. */
	struct kmem_page	*kp;
	struct callsite_resolver *resolver;
	struct page_fields	alloc_fields;
	struct page_fields	free_fields;
	bool			have_callchains;
	bool			pfn_is_page;	/* pre-v4.1 'page' field */
	u64			page_size;
	struct hashmap		*gfp_names;	/* gfp value -> char * */
	int			*cpu_node;	/* indexed by cpu */
	int			nr_cpu_node;
	struct mem2node		mem2node;
	bool			have_mem2node;
	int			nr_nodes;

	/* What went wrong on the way. */
	u64			nr_lost;
	u64			nr_bad_events;
};

static const char default_mode_slab[] = "slab";

/* Thousands separators whatever the locale: "12,345,678". */
static const char *commas(u64 v, char *buf, size_t size)
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

#define COMMAS(v) commas((v), (char[32]){}, 32)

/* --- decoding events ------------------------------------------------- */

static struct tep_format_field *need_field(struct evsel *evsel,
					   const char *name)
{
	struct tep_format_field *f = evsel__field(evsel, name);

	if (!f)
		pr_err("perf kmem: %s has no '%s' field\n",
		       evsel__name(evsel), name);
	return f;
}

static int setup_page_fields(struct perf_kmem *kmem, struct evsel *evsel,
			     struct page_fields *f, bool is_alloc)
{
	f->pfn = evsel__field(evsel, "pfn");
	if (!f->pfn) {
		f->pfn = evsel__field(evsel, "page");
		kmem->pfn_is_page = f->pfn != NULL;
	}
	if (!f->pfn) {
		pr_err("perf kmem: %s has neither a 'pfn' nor a 'page' field\n",
		       evsel__name(evsel));
		return -EINVAL;
	}
	f->order = need_field(evsel, "order");
	if (!f->order)
		return -EINVAL;
	if (!is_alloc)
		return 0;
	f->migtype = need_field(evsel, "migratetype");
	f->gfp = need_field(evsel, "gfp_flags");
	return f->migtype && f->gfp ? 0 : -EINVAL;
}

static u64 field_val(struct tep_format_field *f, struct perf_sample *sample,
		     struct evsel *evsel)
{
	return format_field__intval(f, sample, evsel->needs_swap);
}

/* A signed field, sign-extended from its own width; huge values saturate. */
static int field_int(struct tep_format_field *f, struct perf_sample *sample,
		     struct evsel *evsel)
{
	u64 v = field_val(f, sample, evsel);
	s64 s;

	switch (f->size) {
	case 1:
		s = (s8)v;
		break;
	case 2:
		s = (s16)v;
		break;
	case 4:
		s = (s32)v;
		break;
	default:
		s = (s64)v;
		break;
	}
	return s < INT_MIN || s > INT_MAX ? INT_MAX : (int)s;
}

static int cpu_to_node(struct perf_kmem *kmem, u32 cpu)
{
	if (!kmem->cpu_node || cpu >= (u32)kmem->nr_cpu_node)
		return -1;
	return kmem->cpu_node[cpu];
}

static int page_to_node(struct perf_kmem *kmem, u64 pfn)
{
	if (!kmem->have_mem2node || kmem->pfn_is_page ||
	    pfn == KMEM_PAGE_NO_PFN)
		return -1;
	return mem2node__node(&kmem->mem2node, pfn * kmem->page_size);
}

static void decode_page_event(struct perf_kmem *kmem, struct evsel *evsel,
			      struct perf_sample *sample,
			      const struct page_fields *f,
			      struct kmem_page_event *ev)
{
	ev->pfn = field_val(f->pfn, sample, evsel);
	if (kmem->pfn_is_page && ev->pfn == 0)
		ev->pfn = KMEM_PAGE_NO_PFN;	/* NULL page: a failure */
	else if (f->pfn->size == 4 && ev->pfn == 0xffffffffULL)
		ev->pfn = KMEM_PAGE_NO_PFN;
	ev->order = field_int(f->order, sample, evsel);
	ev->cpu_node = cpu_to_node(kmem, sample->cpu);
	ev->page_node = page_to_node(kmem, ev->pfn);
}

/* The recording kernel's names for a gfp value, remembered per value. */
static int note_gfp_name(struct perf_kmem *kmem, struct evsel *evsel,
			 struct perf_sample *sample, u64 gfp)
{
	struct tep_record record = {
		.cpu = sample->cpu,
		.data = sample->raw_data,
		.size = sample->raw_size,
	};
	struct trace_seq seq;
	char *name, *p, *end;

	if (hashmap__find(kmem->gfp_names, gfp, &name))
		return 0;
	trace_seq_init(&seq);
	tep_print_event(evsel->tp_format->tep, &seq, &record, "%s",
			TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	p = strstr(seq.buffer, "gfp_flags=");
	if (p) {
		p += strlen("gfp_flags=");
		end = strchrnul(p, ' ');
		name = strndup(p, end - p);
	} else {
		name = NULL;
	}
	trace_seq_destroy(&seq);
	if (!name || !*name) {
		free(name);
		if (asprintf(&name, "%#" PRIx64, gfp) < 0)
			return -ENOMEM;
	}
	if (hashmap__add(kmem->gfp_names, gfp, name)) {
		free(name);
		return -ENOMEM;
	}
	return 0;
}

static const char *gfp_name(struct perf_kmem *kmem, u64 gfp)
{
	char *name;

	return hashmap__find(kmem->gfp_names, gfp, &name) ? name : "?";
}

static int process_page_alloc(struct perf_kmem *kmem, struct evsel *evsel,
			      struct perf_sample *sample)
{
	const struct page_fields *f = &kmem->alloc_fields;
	struct kmem_page_event ev;
	int err;

	decode_page_event(kmem, evsel, sample, f, &ev);
	ev.migtype = field_int(f->migtype, sample, evsel);
	ev.gfp = field_val(f->gfp, sample, evsel);
	ev.callsite = 0;
	if (kmem->resolver && sample->callchain)
		ev.callsite = callsite_resolver__callsite(kmem->resolver,
							  sample->callchain);
	if (kmem->gfp_names) {
		err = note_gfp_name(kmem, evsel, sample, ev.gfp);
		if (err)
			return err;
	}
	err = kmem_page__alloc(kmem->kp, &ev);
	if (err == -EINVAL) {
		kmem->nr_bad_events++;
		return 0;
	}
	return err;
}

static int process_page_free(struct perf_kmem *kmem, struct evsel *evsel,
			     struct perf_sample *sample)
{
	struct kmem_page_event ev = { .migtype = -1 };
	int err;

	decode_page_event(kmem, evsel, sample, &kmem->free_fields, &ev);
	err = kmem_page__free(kmem->kp, &ev);
	if (err == -EINVAL) {
		kmem->nr_bad_events++;
		return 0;
	}
	return err;
}

typedef int (*kmem_handler_t)(struct perf_kmem *kmem, struct evsel *evsel,
			      struct perf_sample *sample);

static int process_sample_event(const struct perf_tool *tool,
				union perf_event *event __maybe_unused,
				struct perf_sample *sample,
				struct evsel *evsel,
				struct machine *machine __maybe_unused)
{
	struct perf_kmem *kmem = container_of(tool, struct perf_kmem, tool);
	kmem_handler_t handler = evsel->handler;

	if (!handler)
		return 0;
	if (perf_time__skip_sample(&kmem->ptime, sample->time))
		return 0;
	return handler(kmem, evsel, sample);
}

static int process_lost_event(const struct perf_tool *tool,
			      union perf_event *event,
			      struct perf_sample *sample __maybe_unused,
			      struct machine *machine __maybe_unused)
{
	struct perf_kmem *kmem = container_of(tool, struct perf_kmem, tool);

	kmem->nr_lost += event->lost.lost;
	return 0;
}

/*
 * Callsites are kernel code and no table names a task, so of the side-band
 * events only the kernel's maps matter.  The maps of every user task, and
 * their comm events, would each create a thread, looking its namespaces up
 * on this machine: a tenth of the time on a system-wide trace, for nothing.
 */
static bool user_space_event(union perf_event *event)
{
	u16 cpumode = event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return cpumode == PERF_RECORD_MISC_USER ||
	       cpumode == PERF_RECORD_MISC_GUEST_USER;
}

static int process_kernel_mmap(const struct perf_tool *tool,
			       union perf_event *event,
			       struct perf_sample *sample,
			       struct machine *machine)
{
	if (user_space_event(event))
		return 0;
	return perf_event__process_mmap(tool, event, sample, machine);
}

static int process_kernel_mmap2(const struct perf_tool *tool,
				union perf_event *event,
				struct perf_sample *sample,
				struct machine *machine)
{
	if (user_space_event(event))
		return 0;
	return perf_event__process_mmap2(tool, event, sample, machine);
}

/* --- NUMA topology --------------------------------------------------- */

static int setup_nodes(struct perf_kmem *kmem)
{
	struct perf_env *env = &kmem->session->header.env;
	int i, max_cpu = -1;

	for (i = 0; i < env->nr_numa_nodes; i++) {
		struct perf_cpu_map *map = env->numa_nodes[i].map;

		if (map && perf_cpu_map__max(map).cpu > max_cpu)
			max_cpu = perf_cpu_map__max(map).cpu;
		if ((int)env->numa_nodes[i].node >= kmem->nr_nodes)
			kmem->nr_nodes = env->numa_nodes[i].node + 1;
	}
	if (max_cpu >= 0) {
		kmem->cpu_node = malloc((max_cpu + 1) * sizeof(int));
		if (!kmem->cpu_node)
			return -ENOMEM;
		kmem->nr_cpu_node = max_cpu + 1;
		for (i = 0; i <= max_cpu; i++)
			kmem->cpu_node[i] = -1;
	}
	for (i = 0; i < env->nr_numa_nodes; i++) {
		struct perf_cpu_map *map = env->numa_nodes[i].map;
		struct perf_cpu cpu;
		int idx;

		if (!map)
			continue;
		perf_cpu_map__for_each_cpu(cpu, idx, map)
			kmem->cpu_node[cpu.cpu] = env->numa_nodes[i].node;
	}
	if (env->nr_memory_nodes && env->memory_bsize &&
	    !mem2node__init(&kmem->mem2node, env))
		kmem->have_mem2node = true;
	return 0;
}

/* --- printing -------------------------------------------------------- */

static void print_rule(int width)
{
	printf("%.*s\n", width,
	       "------------------------------------------------------------"
	       "------------------------------------------------------------"
	       "------------------------------------------------------------");
}

static void print_count_line(const char *label, const struct kmem_page_count *c)
{
	printf(" %-34s %14s   [ %18s bytes ]\n", label, COMMAS(c->nr),
	       COMMAS(c->bytes));
}

static void print_plain_line(const char *label, u64 v)
{
	printf(" %-34s %14s\n", label, COMMAS(v));
}

static void print_page_summary(struct perf_kmem *kmem)
{
	const struct kmem_page_summary *s = kmem_page__summary(kmem->kp);
	struct kmem_page_count alloc_only = {
		.nr = s->alloc_live.nr + s->alloc_dropped.nr,
		.bytes = s->alloc_live.bytes + s->alloc_dropped.bytes,
	};

	printf("\n SUMMARY (page allocator)\n ========================\n\n");
	print_count_line("Pages allocated+freed:", &s->alloc_freed);
	printf("\n");
	print_count_line("Pages allocated-only:", &alloc_only);
	print_count_line("  still allocated at the end:", &s->alloc_live);
	print_count_line("  allocated again, free not seen:", &s->alloc_dropped);
	print_count_line("Pages freed-only:", &s->free_only);
	printf("\n");
	print_count_line("Page allocation failures:", &s->fail);
	printf("\n");
	print_count_line("Total allocations:", &s->alloc);
	print_count_line("Total frees:", &s->free);
	if (s->free_order_differs)
		print_plain_line("Frees of another order than allocated:",
				 s->free_order_differs);
	if (s->bad_migtype)
		print_plain_line("Unknown migration types (as Special):",
				 s->bad_migtype);
	if (kmem->nr_bad_events)
		print_plain_line("Events ignored (order out of range):",
				 kmem->nr_bad_events);
	if (kmem->nr_lost) {
		print_plain_line("Events lost while recording:", kmem->nr_lost);
		printf(" Totals are approximate: record with a larger -m.\n");
	}
}

static void print_grid(struct perf_kmem *kmem)
{
	static const char * const heads[KMEM_NR_COLUMNS] = {
		"Unmovable", "Reclaimable", "Movable", "Special",
	};
	int order, col, orders = kmem_page__grid_orders(kmem->kp);

	printf("\n Order");
	for (col = 0; col < KMEM_NR_COLUMNS; col++)
		printf("  %12s", heads[col]);
	printf("\n -----");
	for (col = 0; col < KMEM_NR_COLUMNS; col++)
		printf("  ------------");
	printf("\n");
	for (order = 0; order < orders; order++) {
		printf(" %5d", order);
		for (col = 0; col < KMEM_NR_COLUMNS; col++) {
			u64 n = kmem_page__grid(kmem->kp, order, col);

			printf("  %12s", n ? COMMAS(n) : ".");
		}
		printf("\n");
	}
}

static void print_node_traffic(struct perf_kmem *kmem)
{
	const struct kmem_page_summary *s = kmem_page__summary(kmem->kp);
	int from, to;

	printf("\n");
	if (!kmem->nr_nodes || !kmem->have_mem2node) {
		printf(" Cross-node analysis needs the NUMA and memory topology of a newer perf record.\n");
		return;
	}
	if (kmem->nr_nodes == 1) {
		printf(" All page traffic was node-local: the trace has one NUMA node.\n");
		return;
	}
	print_count_line("Allocations from a remote node:", &s->alloc_remote);
	print_count_line("Frees by a CPU of another node:", &s->free_remote);
	print_count_line("Freed on another node than allocated:",
			 &s->free_other_node);
	printf("\n Bytes allocated (rows) and freed (columns) by node\n\n alloc\\free");
	for (to = 0; to < kmem->nr_nodes; to++)
		printf("  %14d", to);
	printf("\n");
	for (from = 0; from < kmem->nr_nodes; from++) {
		printf(" %10d", from);
		for (to = 0; to < kmem->nr_nodes; to++) {
			u64 b = kmem_page__node_matrix(kmem->kp, from, to);

			printf("  %14s", b ? COMMAS(b) : ".");
		}
		printf("\n");
	}
}

static const char *callsite_name(struct perf_kmem *kmem, u64 callsite,
				 char *buf, size_t size)
{
	if (!kmem->resolver) {
		snprintf(buf, size, "%#" PRIx64, callsite);
		return buf;
	}
	return callsite_resolver__name(kmem->resolver, callsite,
				       kmem->raw_ip || verbose > 0, buf, size);
}

static int gfp_width(struct perf_kmem *kmem, struct kmem_page_row **rows,
		     size_t nr)
{
	int width = strlen("GFP flags");
	size_t i;

	for (i = 0; i < nr; i++)
		width = max(width, (int)strlen(gfp_name(kmem, rows[i]->gfp)));
	return width;
}

static void print_page_table(struct perf_kmem *kmem, enum kmem_page_table table,
			     const enum kmem_page_sort_key *keys, int nr_keys,
			     int lines)
{
	bool per_pfn = table == KMEM_TABLE_ALLOC;
	bool xnode = kmem->nr_nodes > 1 && kmem->have_mem2node;
	struct kmem_page_row **rows;
	size_t nr, i, shown;
	char mt[32], cs[256];
	int gw, width;

	rows = kmem_page__rows(kmem->kp, table, keys, nr_keys, &nr);
	if (!rows) {
		pr_err("perf kmem: out of memory sorting the table\n");
		return;
	}
	shown = lines >= 0 && (size_t)lines < nr ? (size_t)lines : nr;
	gw = gfp_width(kmem, rows, shown);
	width = (per_pfn ? 19 : 0) + 20 + 14 + 8 + 17 + gw + 3 +
		(xnode ? 14 : 0) + (kmem->have_callchains ? 30 : 0);

	printf("\n");
	print_rule(width);
	if (per_pfn)
		printf(" %16s |", kmem->pfn_is_page ? "Page" : "PFN");
	printf(" %19s | %11s | Order | %-14s | %-*s", "Total_alloc/Size",
	       kmem->live ? "Live" : "Hits", "Migration type", gw, "GFP flags");
	if (xnode)
		printf(" | Freed remote");
	if (kmem->have_callchains)
		printf(" | Callsite");
	printf("\n");
	print_rule(width);
	for (i = 0; i < shown; i++) {
		struct kmem_page_row *r = rows[i];
		char total[48];

		if (per_pfn)
			printf(" %#16" PRIx64 " |", r->pfn);
		snprintf(total, sizeof(total), "%s/%" PRIu64, COMMAS(r->bytes),
			 kmem->page_size << r->order);
		printf(" %19s | %11s | %5d | %-14s | %-*s", total,
		       COMMAS(r->hits), r->order,
		       kmem_page__migtype_name(kmem->kp, r->migtype, mt,
					       sizeof(mt)),
		       gw, gfp_name(kmem, r->gfp));
		if (xnode)
			printf(" | %12s", COMMAS(r->xnode_frees));
		if (kmem->have_callchains)
			printf(" | %s", callsite_name(kmem, r->callsite, cs,
						      sizeof(cs)));
		printf("\n");
	}
	if (shown < nr)
		printf(" ... %s more rows (-l to show them)\n",
		       COMMAS(nr - shown));
	print_rule(width);
}

static int print_page_result(struct perf_kmem *kmem)
{
	enum kmem_page_sort_key keys[KMEM_MAX_SORT_KEYS];
	char bad[64];
	int nr_keys;

	kmem_page__finish(kmem->kp);
	nr_keys = kmem_page__parse_sort(kmem->sort_str ?: DEFAULT_PAGE_SORT,
					keys, KMEM_MAX_SORT_KEYS, bad,
					sizeof(bad));
	if (nr_keys < 0) {
		pr_err("perf kmem: unknown sort key '%s' for --page: use page, callsite, hit, bytes, order, migtype, gfp, xnode\n",
		       bad);
		return -EINVAL;
	}
	if (kmem->caller)
		print_page_table(kmem, KMEM_TABLE_CALLER, keys, nr_keys,
				 kmem->lines);
	else if (!kmem->alloc)
		print_page_table(kmem, KMEM_TABLE_CALLER, keys, nr_keys,
				 kmem->lines >= 0 ? kmem->lines :
				 DEFAULT_TABLE_LINES);
	if (kmem->alloc)
		print_page_table(kmem, KMEM_TABLE_ALLOC, keys, nr_keys,
				 kmem->lines);
	print_page_summary(kmem);
	print_grid(kmem);
	print_node_traffic(kmem);
	return 0;
}

/* --- setting up a page analysis -------------------------------------- */

static bool kernel_before(const char *release, int major, int minor)
{
	int ma, mi;

	if (!release || sscanf(release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

static size_t gfp_hash(long key, void *ctx __maybe_unused)
{
	return (size_t)key * 0x9E3779B97F4A7C15ULL >> 20;
}

static bool gfp_equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

static void alloc_func_print(const char *name, void *arg __maybe_unused)
{
	printf("alloc func: %s\n", name);
}

static int setup_callsites(struct perf_kmem *kmem, struct evsel *alloc)
{
	char err[160];

	kmem->have_callchains = alloc && evsel__has_callchain(alloc);
	if (!kmem->have_callchains) {
		if (alloc)
			pr_warning("perf kmem: no callchains in %s: callsites need 'perf kmem record --page'\n",
				   kmem->input_name);
		return 0;
	}
	symbol_conf.use_callchain = true;
	kmem->resolver = callsite_resolver__new(&kmem->session->machines.host,
						kmem->alloc_regex_add ?: kmem->alloc_regex,
						kmem->alloc_regex_add != NULL,
						kmem->raw_ip, err, sizeof(err));
	if (!kmem->resolver) {
		pr_err("perf kmem: %s\n", err);
		return -EINVAL;
	}
	if (verbose > 0 &&
	    callsite_resolver__for_each_alloc_func(kmem->resolver,
						   alloc_func_print, NULL))
		pr_warning("perf kmem: no kernel symbols to list allocator functions from\n");
	return 0;
}

static int setup_page_analysis(struct perf_kmem *kmem)
{
	struct evlist *evlist = kmem->session->evlist;
	struct evsel *alloc, *free_ev, *any;
	struct kmem_page_config config = {};

	alloc = evlist__find_tracepoint_by_name(evlist, "kmem:mm_page_alloc");
	free_ev = evlist__find_tracepoint_by_name(evlist, "kmem:mm_page_free");
	if (!alloc && !free_ev) {
		pr_err("perf kmem: %s has no page allocator events: record them with 'perf kmem record --page'\n",
		       kmem->input_name);
		return -EINVAL;
	}
	if (alloc && setup_page_fields(kmem, alloc, &kmem->alloc_fields, true))
		return -EINVAL;
	if (free_ev && setup_page_fields(kmem, free_ev, &kmem->free_fields, false))
		return -EINVAL;
	if (alloc)
		alloc->handler = process_page_alloc;
	if (free_ev)
		free_ev->handler = process_page_free;

	any = alloc ?: free_ev;
	kmem->page_size = tep_get_page_size(any->tp_format->tep);
	if (!kmem->page_size)
		kmem->page_size = 4096;
	if (setup_nodes(kmem))
		return -ENOMEM;

	config.page_size = kmem->page_size;
	config.pre_v4_4_migtypes =
		kernel_before(kmem->session->header.env.os_release, 4, 4);
	config.want_caller_table = true;
	config.want_alloc_table = kmem->alloc;
	config.live_only = kmem->live;
	config.nr_nodes = kmem->have_mem2node ? kmem->nr_nodes : 0;
	kmem->kp = kmem_page__new(&config);
	if (!kmem->kp)
		return -ENOMEM;
	kmem->gfp_names = hashmap__new(gfp_hash, gfp_equal, NULL);
	if (IS_ERR(kmem->gfp_names)) {
		kmem->gfp_names = NULL;
		return -ENOMEM;
	}
	return setup_callsites(kmem, alloc);
}

static void cleanup_page_analysis(struct perf_kmem *kmem)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (kmem->gfp_names) {
		hashmap__for_each_entry(kmem->gfp_names, cur, bkt)
			free(cur->pvalue);
		hashmap__free(kmem->gfp_names);
	}
	callsite_resolver__delete(kmem->resolver);
	kmem_page__delete(kmem->kp);
	if (kmem->have_mem2node)
		mem2node__exit(&kmem->mem2node);
	free(kmem->cpu_node);
}

/* --- perf kmem stat -------------------------------------------------- */

static int open_session(struct perf_kmem *kmem)
{
	/* The session keeps a pointer to its perf_data until it is deleted. */
	kmem->data.path = kmem->input_name;
	kmem->data.mode = PERF_DATA_MODE_READ;
	kmem->data.force = kmem->force;

	perf_tool__init(&kmem->tool, /*ordered_events=*/true);
	kmem->tool.sample = process_sample_event;
	kmem->tool.mmap = process_kernel_mmap;
	kmem->tool.mmap2 = process_kernel_mmap2;
	kmem->tool.lost = process_lost_event;

	kmem->session = perf_session__new(&kmem->data, &kmem->tool);
	if (IS_ERR(kmem->session)) {
		int err = PTR_ERR(kmem->session);

		kmem->session = NULL;
		pr_err("perf kmem: cannot read %s: %s\n", kmem->input_name,
		       err == -ENOMEM ? "out of memory" :
		       "not a valid perf.data file (truncated or corrupt?)");
		return err ?: -EINVAL;
	}
	return 0;
}

static int kmem_stat(struct perf_kmem *kmem)
{
	int err;

	if (perf_time__parse_str(&kmem->ptime, kmem->time_str)) {
		pr_err("perf kmem: invalid --time '%s': use start,stop in seconds\n",
		       kmem->time_str);
		return -EINVAL;
	}
	err = open_session(kmem);
	if (err)
		return err;
	if (symbol__init(&kmem->session->header.env) < 0) {
		err = -EINVAL;
		goto out;
	}
	if (!kmem->page) {
		pr_err("perf kmem: slab analysis is not available yet: use --page\n");
		err = -EINVAL;
		goto out;
	}
	err = setup_page_analysis(kmem);
	if (err)
		goto out;
	err = perf_session__process_events(kmem->session);
	if (err) {
		pr_err("perf kmem: error reading %s: %s\n", kmem->input_name,
		       err == -ENOMEM ? "out of memory" :
		       "truncated or corrupt data");
		goto out;
	}
	setup_pager();
	err = print_page_result(kmem);
out:
	cleanup_page_analysis(kmem);
	perf_session__delete(kmem->session);
	return err;
}

/* --- perf kmem record ------------------------------------------------ */

static bool tracepoint_exists(const char *sys, const char *name)
{
	char *path = get_events_file(sys);
	char full[PATH_MAX];
	bool ok;

	if (!path)
		return false;
	snprintf(full, sizeof(full), "%s/%s", path, name);
	put_events_file(path);
	ok = access(full, F_OK) == 0;
	return ok;
}

static int add_arg(const char **argv, int *argc, const char *arg)
{
	argv[(*argc)++] = arg;
	return 0;
}

static int kmem_record(struct perf_kmem *kmem, int argc, const char **argv)
{
	static const char * const slab_events[] = {
		"kmalloc", "kfree", "kmem_cache_alloc", "kmem_cache_free",
		/* Merged into kmalloc and kmem_cache_alloc in v6.1. */
		"kmalloc_node", "kmem_cache_alloc_node",
	};
	const char **rec_argv;
	int rec_argc = 0, i, err;
	char *ev[ARRAY_SIZE(slab_events)] = {};

	rec_argv = calloc(argc + 32, sizeof(char *));
	if (!rec_argv)
		return -ENOMEM;
	add_arg(rec_argv, &rec_argc, "record");
	add_arg(rec_argv, &rec_argc, "-a");	/* allocations of every CPU */
	add_arg(rec_argv, &rec_argc, "-R");	/* the tracepoint fields */
	add_arg(rec_argv, &rec_argc, "-c");	/* every event */
	add_arg(rec_argv, &rec_argc, "1");
	if (kmem->page) {
		/* Only allocations need their callchain, and only its kernel part. */
		add_arg(rec_argv, &rec_argc, "-e");
		add_arg(rec_argv, &rec_argc, "kmem:mm_page_alloc/call-graph=fp/");
		add_arg(rec_argv, &rec_argc, "-e");
		add_arg(rec_argv, &rec_argc, "kmem:mm_page_free");
		add_arg(rec_argv, &rec_argc, "--kernel-callchains");
	}
	if (kmem->slab) {
		for (i = 0; i < (int)ARRAY_SIZE(slab_events); i++) {
			if (!tracepoint_exists("kmem", slab_events[i]))
				continue;
			if (asprintf(&ev[i], "kmem:%s", slab_events[i]) < 0) {
				err = -ENOMEM;
				goto out;
			}
			add_arg(rec_argv, &rec_argc, "-e");
			add_arg(rec_argv, &rec_argc, ev[i]);
		}
	}
	for (i = 0; i < argc; i++)
		add_arg(rec_argv, &rec_argc, argv[i]);
	err = cmd_record(rec_argc, rec_argv);
out:
	for (i = 0; i < (int)ARRAY_SIZE(slab_events); i++)
		free(ev[i]);
	free(rec_argv);
	return err;
}

/*
 * 'perf kmem record' passes what it does not know to perf record, so take
 * our own options out first: --page and --slab may stand anywhere before
 * a '--'.
 */
static int take_record_mode_options(struct perf_kmem *kmem, int argc,
				    const char **argv)
{
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--page"))
			kmem->page = true;
		else if (!strcmp(argv[i], "--slab"))
			kmem->slab = true;
		else
			argv[n++] = argv[i];
	}
	return n;
}

/* --- options --------------------------------------------------------- */

static int kmem_config(const char *var, const char *value, void *cb)
{
	const char **mode = cb;

	if (strcmp(var, "kmem.default"))
		return 0;
	if (!strcmp(value, "page") || !strcmp(value, "slab")) {
		*mode = strcmp(value, "page") ? default_mode_slab : "page";
		return 0;
	}
	pr_err("perf kmem: invalid kmem.default '%s': use page or slab\n", value);
	return -1;
}

int cmd_kmem(int argc, const char **argv)
{
	struct perf_kmem kmem = {
		.input_name = "perf.data",
		.lines = -1,
	};
	const char *default_mode = default_mode_slab;
	const struct option options[] = {
	OPT_STRING('i', "input", &kmem.input_name, "file", "input file name"),
	OPT_INCR('v', "verbose", &verbose,
		 "be more verbose: list allocator functions, show offsets"),
	OPT_BOOLEAN(0, "caller", &kmem.caller, "show per-callsite statistics"),
	OPT_BOOLEAN(0, "alloc", &kmem.alloc, "show per-page statistics"),
	OPT_STRING('s', "sort", &kmem.sort_str, "key[,key2...]",
		   "sort by keys: page, callsite, hit, bytes, order, migtype, gfp, xnode"),
	OPT_INTEGER('l', "line", &kmem.lines, "show this many rows"),
	OPT_BOOLEAN(0, "raw-ip", &kmem.raw_ip,
		    "one row per call address, shown as func+0xoff"),
	OPT_BOOLEAN('f', "force", &kmem.force, "don't complain, do it"),
	OPT_BOOLEAN(0, "slab", &kmem.slab, "analyse the slab allocator"),
	OPT_BOOLEAN(0, "page", &kmem.page, "analyse the page allocator"),
	OPT_BOOLEAN(0, "live", &kmem.live,
		    "show only pages still allocated at the end of the trace"),
	OPT_STRING(0, "time", &kmem.time_str, "start,stop",
		   "only events in this time span"),
	OPT_STRING(0, "alloc-func", &kmem.alloc_regex, "regex",
		   "functions to skip to find a callsite, instead of the built-in list"),
	OPT_STRING(0, "alloc-func-add", &kmem.alloc_regex_add, "regex",
		   "more functions to skip to find a callsite"),
	OPT_STRING(0, "kallsyms", &symbol_conf.kallsyms_name, "file",
		   "kallsyms of the machine the trace was recorded on"),
	OPT_STRING('k', "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux of the kernel the trace was recorded on"),
	OPT_END()
	};
	const char * const subcommands[] = { "record", "stat", NULL };
	const char *usage[] = { NULL, NULL };
	int err;

	err = perf_config(kmem_config, &default_mode);
	if (err)
		return err;

	argc = parse_options_subcommand(argc, argv, options, subcommands, usage,
					PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(usage, options);

	if (strlen(argv[0]) > 2 && strstarts("record", argv[0])) {
		argc = take_record_mode_options(&kmem, argc - 1, argv + 1);
		if (!kmem.page && !kmem.slab)
			kmem.slab = true;
		return kmem_record(&kmem, argc, argv + 1);
	}
	if (strcmp(argv[0], "stat"))
		usage_with_options(usage, options);

	/* Options may follow 'stat' too. */
	argc = parse_options(argc, argv, options, usage, 0);
	if (argc)
		usage_with_options(usage, options);
	if (!kmem.page && !kmem.slab) {
		if (default_mode == default_mode_slab)
			kmem.slab = true;
		else
			kmem.page = true;
	}
	err = kmem_stat(&kmem);
	free((void *)usage[0]);
	return err ? 1 : 0;
}
