// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem: how the kernel allocates memory.
 *
 * 'perf kmem record' records the slab (--slab) and page allocator (--page)
 * tracepoints, 'perf kmem stat' replays them.  The analyses themselves live
 * in util/kmem-slab.c and util/kmem-page.c; this file does the options, the
 * reading and the printing, shared by the two wherever they agree.
 */
#include "builtin.h"

#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
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
#include "util/build-id.h"
#include "util/data.h"
#include "util/dso.h"
#include "util/dsos.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/header.h"
#include "util/kmem-page.h"
#include "util/kmem-queue.h"
#include "util/kmem-slab.h"
#include "util/machine.h"
#include "util/mem2node.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/time-utils.h"
#include "util/tool.h"
#include "util/trace-event.h"

#define DEFAULT_PAGE_SORT	"bytes,hit"
#define DEFAULT_SLAB_SORT	"frag,hit,bytes"
/* Rows of the callsite table shown when no table was asked for. */
#define DEFAULT_TABLE_LINES	20

/* The tracepoint fields one page event is decoded from. */
struct page_fields {
	struct tep_format_field	*pfn;		/* "pfn", or "page" < v4.1 */
	struct tep_format_field	*order;
	struct tep_format_field	*migtype;	/* alloc only */
	struct tep_format_field	*gfp;		/* alloc only */
	u32			raw_size;	/* that holds them */
};

/* The tracepoint fields one slab event is decoded from. */
struct slab_fields {
	struct tep_format_field	*call_site;
	struct tep_format_field	*ptr;
	struct tep_format_field	*bytes_req;	/* alloc only */
	struct tep_format_field	*bytes_alloc;	/* alloc only */
	struct tep_format_field	*node;		/* _node events; all since v6.1 */
	struct tep_format_field	*name;		/* kmem_cache_* of recent kernels */
	u32			raw_size;	/* that holds the numbers */
};

static const struct {
	const char	*name;
	bool		is_alloc;
} slab_tracepoints[] = {
	{ "kmalloc",		true },
	{ "kfree",		false },
	{ "kmem_cache_alloc",	true },
	{ "kmem_cache_free",	false },
	/* Merged into kmalloc and kmem_cache_alloc in v6.1. */
	{ "kmalloc_node",	true },
	{ "kmem_cache_alloc_node", true },
};

#define NR_SLAB_TRACEPOINTS	ARRAY_SIZE(slab_tracepoints)

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
	enum kmem_page_sort_key	page_keys[KMEM_MAX_SORT_KEYS];
	int			nr_page_keys;
	enum kmem_slab_sort_key	slab_keys[KMEM_SLAB_MAX_SORT_KEYS];
	int			nr_slab_keys;
	const char		*time_str;
	const char		*alloc_regex;
	const char		*alloc_regex_add;
	struct perf_time_interval ptime;

	/* Both analyses. */
	struct kmem_queue	*queue;		/* events decoded, in time order */
	struct callsite_resolver *resolver;
	int			*cpu_node;	/* indexed by cpu */
	int			nr_cpu_node;
	int			nr_nodes;

	/* Slab analysis: one set of fields per tracepoint, as evsel->priv. */
	struct kmem_slab	*ks;
	struct slab_fields	slab_fields[NR_SLAB_TRACEPOINTS];
	struct hashmap		*cache_names;	/* interned: name -> name */

	/* Page analysis. */
	struct kmem_page	*kp;
	struct page_fields	alloc_fields;
	struct page_fields	free_fields;
	bool			have_callchains;
	bool			pfn_is_page;	/* pre-v4.1 'page' field */
	bool			pre_v4_4;	/* Movable and Reclaimable swapped */
	u64			page_size;
	struct hashmap		*gfp_names;	/* gfp value -> char * */
	u64			last_gfp;	/* named last; runs are common */
	bool			named_a_gfp;
	struct mem2node		mem2node;
	bool			have_mem2node;

	char			*recorded_kallsyms;	/* in the build-id cache */
	u64			nr_events;	/* analysed */
	/* What went wrong on the way. */
	u64			nr_short_events;
	u64			nr_lost;
};

static const char default_mode_slab[] = "slab";

/*
 * Our own messages go to stderr even while perf's are silenced: each is
 * the one line a user reads about a problem.
 */
#define kmem_err(fmt, ...) fprintf(stderr, "perf kmem: " fmt "\n", ##__VA_ARGS__)

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

#define COMMAS(v) commas((v), (char [32]) { 0 }, 32)

/* --- decoding events ------------------------------------------------- */

static struct tep_format_field *need_field(struct evsel *evsel,
					   const char *name)
{
	struct tep_format_field *f = evsel__field(evsel, name);

	if (!f)
		kmem_err("%s has no '%s' field",
		       evsel__name(evsel), name);
	return f;
}

/* Fields are read through the format the trace carries: is it there? */
static bool has_format(struct evsel *evsel)
{
	if (evsel->tp_format)
		return true;
	kmem_err("the trace has no format of %s: record it with 'perf kmem record'",
		 evsel__name(evsel));
	return false;
}

/* Where @f ends in the raw data, if beyond @end. */
static u32 field_end(struct tep_format_field *f, u32 end)
{
	return f ? max(end, (u32)(f->offset + f->size)) : end;
}

static int setup_page_fields(struct perf_kmem *kmem, struct evsel *evsel,
			     struct page_fields *f, bool is_alloc)
{
	if (!has_format(evsel))
		return -EINVAL;
	f->pfn = evsel__field(evsel, "pfn");
	if (!f->pfn) {
		f->pfn = evsel__field(evsel, "page");
		kmem->pfn_is_page = f->pfn != NULL;
	}
	if (!f->pfn) {
		kmem_err("%s has neither a 'pfn' nor a 'page' field",
		       evsel__name(evsel));
		return -EINVAL;
	}
	f->order = need_field(evsel, "order");
	if (!f->order)
		return -EINVAL;
	f->raw_size = field_end(f->pfn, field_end(f->order, 0));
	if (!is_alloc)
		return 0;
	f->migtype = need_field(evsel, "migratetype");
	f->gfp = need_field(evsel, "gfp_flags");
	if (!f->migtype || !f->gfp)
		return -EINVAL;
	f->raw_size = field_end(f->migtype, field_end(f->gfp, f->raw_size));
	return 0;
}

/*
 * A number at its fixed place in the raw data, which the caller checked
 * holds it.  format_field__intval() does the same out of line; every event
 * reads several fields, and calling it cost 96M more instructions (+5.6%)
 * on the 1.2M-sample bench trace.
 */
static inline u64 field_val(const struct tep_format_field *f,
			    const struct perf_sample *sample,
			    const struct evsel *evsel)
{
	const void *p = (const char *)sample->raw_data + f->offset;
	union { u8 b; u16 h; u32 w; u64 q; } v;

	switch (f->size) {
	case 1:
		memcpy(&v.b, p, 1);
		return v.b;
	case 2:
		memcpy(&v.h, p, 2);
		return evsel->needs_swap ? bswap_16(v.h) : v.h;
	case 4:
		memcpy(&v.w, p, 4);
		return evsel->needs_swap ? bswap_32(v.w) : v.w;
	case 8:
		memcpy(&v.q, p, 8);
		return evsel->needs_swap ? bswap_64(v.q) : v.q;
	default:
		return 0;
	}
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
	/* On one node nothing is remote: spare the lookup. */
	if (!kmem->have_mem2node || kmem->nr_nodes < 2 || kmem->pfn_is_page ||
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

/*
 * An event waits in the queue as the numbers it was read for, decoded, so
 * that putting events in time order never goes back to the file.
 */
enum queued_kind {
	QUEUED_PAGE_ALLOC,
	QUEUED_PAGE_FREE,
	QUEUED_SLAB_ALLOC,
	QUEUED_SLAB_FREE,
};

struct queued_event {
	u64			time;	/* first, as the queue wants */
	u64			kind;
	union {
		struct kmem_page_event		page;
		struct kmem_slab_alloc_event	slab_alloc;
		struct kmem_slab_free_event	slab_free;
	};
};

/* A page-only analysis queues records no larger than a page event. */
static size_t queued_size(const struct perf_kmem *kmem)
{
	if (kmem->slab)
		return sizeof(struct queued_event);
	return offsetof(struct queued_event, page) +
	       ALIGN(sizeof(struct kmem_page_event), sizeof(u64));
}

/* The queued record of @sample, its event to be filled in; NULL: no memory. */
static struct queued_event *enqueue(struct perf_kmem *kmem,
				    struct perf_sample *sample,
				    enum queued_kind kind)
{
	struct queued_event *q = kmem_queue__add(kmem->queue, sample->time);

	if (q)
		q->kind = kind;
	return q;
}

/*
 * The fields are read at fixed offsets: a sample too short to hold them is
 * damaged, and skipped rather than read beyond.
 */
static bool sample_too_short(struct perf_kmem *kmem, u32 raw_size,
			     struct perf_sample *sample)
{
	if (sample->raw_size >= raw_size)
		return false;
	kmem->nr_short_events++;
	return true;
}

static void prefetch_queued(const void *record, void *arg)
{
	const struct queued_event *q = record;
	struct perf_kmem *kmem = arg;

	if (q->kind == QUEUED_PAGE_ALLOC || q->kind == QUEUED_PAGE_FREE)
		kmem_page__prefetch(kmem->kp, q->page.pfn);
}

/* An analysis counts the events it refused; go on with the rest. */
static int deliver_queued(void *record, void *arg)
{
	struct queued_event *q = record;
	struct perf_kmem *kmem = arg;
	int err;

	switch (q->kind) {
	case QUEUED_PAGE_ALLOC:
		err = kmem_page__alloc(kmem->kp, &q->page);
		break;
	case QUEUED_PAGE_FREE:
		err = kmem_page__free(kmem->kp, &q->page);
		break;
	case QUEUED_SLAB_ALLOC:
		err = kmem_slab__alloc(kmem->ks, &q->slab_alloc);
		break;
	case QUEUED_SLAB_FREE:
		err = kmem_slab__free(kmem->ks, &q->slab_free);
		break;
	default:
		err = 0;
	}
	return err == -EINVAL ? 0 : err;
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

	if (kmem->named_a_gfp && gfp == kmem->last_gfp)
		return 0;
	if (hashmap__find(kmem->gfp_names, gfp, &name))
		goto named;
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
named:
	kmem->named_a_gfp = true;
	kmem->last_gfp = gfp;
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
	struct queued_event *q;
	struct kmem_page_event *ev;
	int err;

	if (sample_too_short(kmem, f->raw_size, sample))
		return 0;
	q = enqueue(kmem, sample, QUEUED_PAGE_ALLOC);
	if (!q)
		return -ENOMEM;
	ev = &q->page;
	decode_page_event(kmem, evsel, sample, f, ev);
	ev->migtype = field_int(f->migtype, sample, evsel);
	ev->gfp = field_val(f->gfp, sample, evsel);
	ev->callsite = 0;
	if (kmem->resolver && sample->callchain)
		ev->callsite = callsite_resolver__callsite(kmem->resolver,
							   sample->callchain);
	if (kmem->gfp_names) {
		err = note_gfp_name(kmem, evsel, sample, ev->gfp);
		if (err)
			return err;
	}
	return 0;
}

static int process_page_free(struct perf_kmem *kmem, struct evsel *evsel,
			     struct perf_sample *sample)
{
	const struct page_fields *f = &kmem->free_fields;
	struct queued_event *q;

	if (sample_too_short(kmem, f->raw_size, sample))
		return 0;
	q = enqueue(kmem, sample, QUEUED_PAGE_FREE);
	if (!q)
		return -ENOMEM;
	q->page = (struct kmem_page_event){ .migtype = -1 };
	decode_page_event(kmem, evsel, sample, f, &q->page);
	return 0;
}

static int setup_slab_fields(struct evsel *evsel, struct slab_fields *f,
			     bool is_alloc)
{
	f->call_site = need_field(evsel, "call_site");
	f->ptr = need_field(evsel, "ptr");
	if (!f->call_site || !f->ptr)
		return -EINVAL;
	f->raw_size = field_end(f->call_site, field_end(f->ptr, 0));
	if (!is_alloc)
		return 0;
	f->bytes_req = need_field(evsel, "bytes_req");
	f->bytes_alloc = need_field(evsel, "bytes_alloc");
	if (!f->bytes_req || !f->bytes_alloc)
		return -EINVAL;
	/* Older kernels lack these: no cross-node or per-cache counts then. */
	f->node = evsel__field(evsel, "node");
	f->name = evsel__field(evsel, "name");
	f->raw_size = field_end(f->bytes_req, f->raw_size);
	f->raw_size = field_end(f->bytes_alloc, f->raw_size);
	f->raw_size = field_end(f->node, f->raw_size);
	f->raw_size = field_end(f->name, f->raw_size);
	return 0;
}

/*
 * A string field, or NULL when it does not lie within the sample: the
 * trace may be damaged, and the name goes on to strdup().
 */
static const char *field_string(struct tep_format_field *f,
				struct perf_sample *sample,
				struct evsel *evsel)
{
	u32 offset = f->offset, len = f->size;
	const char *s;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		/* __data_loc: length in the high 16 bits, offset in the low. */
		u32 loc = field_val(f, sample, evsel);

		offset = loc & 0xffff;
		len = loc >> 16;
		if (tep_field_is_relative(f->flags))
			offset += f->offset + f->size;
	}
	if (!len || offset > sample->raw_size || len > sample->raw_size - offset)
		return NULL;
	s = (const char *)sample->raw_data + offset;
	return memchr(s, '\0', len) ? s : NULL;
}

static size_t name_hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static bool name_equal(long a, long b, void *ctx __maybe_unused)
{
	return !strcmp((const char *)a, (const char *)b);
}

/*
 * A cache name lies in the event, which is gone by the time the queue
 * delivers it: point *@name at our copy instead, one per cache.
 */
static int intern_cache_name(struct perf_kmem *kmem, const char **name)
{
	char *copy;

	if (hashmap__find(kmem->cache_names, *name, &copy)) {
		*name = copy;
		return 0;
	}
	copy = strdup(*name);
	if (!copy)
		return -ENOMEM;
	if (hashmap__add(kmem->cache_names, copy, copy)) {
		free(copy);
		return -ENOMEM;
	}
	*name = copy;
	return 0;
}

/* Rows go by function unless --raw-ip asks for one per return address. */
static u64 slab_callsite(struct perf_kmem *kmem, u64 call_site)
{
	if (!kmem->resolver)
		return call_site;
	return callsite_resolver__function(kmem->resolver, call_site);
}

static int process_slab_alloc(struct perf_kmem *kmem, struct evsel *evsel,
			      struct perf_sample *sample)
{
	const struct slab_fields *f = evsel->priv;
	struct kmem_slab_alloc_event ev;
	struct queued_event *q;
	const char *cache;

	if (sample_too_short(kmem, f->raw_size, sample))
		return 0;
	cache = f->name ? field_string(f->name, sample, evsel) : NULL;
	if (cache && intern_cache_name(kmem, &cache))
		return -ENOMEM;
	ev = (struct kmem_slab_alloc_event){
		.callsite = slab_callsite(kmem, field_val(f->call_site, sample,
							  evsel)),
		.ptr = field_val(f->ptr, sample, evsel),
		.bytes_req = field_val(f->bytes_req, sample, evsel),
		.bytes_alloc = field_val(f->bytes_alloc, sample, evsel),
		.cache = cache,
		.cpu = sample->cpu,
		.cpu_node = cpu_to_node(kmem, sample->cpu),
		.node = f->node ? field_int(f->node, sample, evsel) : -1,
	};

	q = enqueue(kmem, sample, QUEUED_SLAB_ALLOC);
	if (!q)
		return -ENOMEM;
	q->slab_alloc = ev;
	return 0;
}

static int process_slab_free(struct perf_kmem *kmem, struct evsel *evsel,
			     struct perf_sample *sample)
{
	const struct slab_fields *f = evsel->priv;
	struct kmem_slab_free_event ev;
	struct queued_event *q;

	if (sample_too_short(kmem, f->raw_size, sample))
		return 0;
	/* Nothing is counted by the freeing callsite: leave it unresolved. */
	ev = (struct kmem_slab_free_event){
		.callsite = field_val(f->call_site, sample, evsel),
		.ptr = field_val(f->ptr, sample, evsel),
		.cpu = sample->cpu,
	};

	q = enqueue(kmem, sample, QUEUED_SLAB_FREE);
	if (!q)
		return -ENOMEM;
	q->slab_free = ev;
	return 0;
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
	if (kmem->time_str && perf_time__skip_sample(&kmem->ptime, sample->time))
		return 0;
	kmem->nr_events++;
	return handler(kmem, evsel, sample);
}

static int process_finished_round(const struct perf_tool *tool,
				  union perf_event *event __maybe_unused,
				  struct ordered_events *oe __maybe_unused)
{
	struct perf_kmem *kmem = container_of(tool, struct perf_kmem, tool);

	return kmem_queue__end_round(kmem->queue);
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

/* Samples the kernel dropped, e.g. when they did not fit the buffer. */
static int process_lost_samples_event(const struct perf_tool *tool,
				      union perf_event *event,
				      struct perf_sample *sample __maybe_unused,
				      struct machine *machine __maybe_unused)
{
	struct perf_kmem *kmem = container_of(tool, struct perf_kmem, tool);

	kmem->nr_lost += event->lost_samples.lost;
	return 0;
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
		/*
		 * A node without CPUs (CXL, PMEM) has an empty cpu list, which
		 * perf_cpu_map__new() makes the 'any CPU' map: CPU -1.
		 */
		perf_cpu_map__for_each_cpu(cpu, idx, map)
			if (cpu.cpu >= 0 && cpu.cpu <= max_cpu)
				kmem->cpu_node[cpu.cpu] = env->numa_nodes[i].node;
	}
	return 0;
}

/*
 * Node numbers need not be dense (0 and 8 on some POWER machines): count
 * and show the nodes the trace has, not 0..nr_nodes-1.
 */
static int nr_trace_nodes(struct perf_kmem *kmem)
{
	return kmem->session->header.env.nr_numa_nodes;
}

static bool node_in_trace(struct perf_kmem *kmem, int node)
{
	struct perf_env *env = &kmem->session->header.env;
	int i;

	for (i = 0; i < env->nr_numa_nodes; i++)
		if ((int)env->numa_nodes[i].node == node)
			return true;
	return false;
}

static bool env_has_memory_topology(struct perf_kmem *kmem)
{
	struct perf_env *env = &kmem->session->header.env;

	return env->nr_memory_nodes && env->memory_bsize;
}

/* --- printing -------------------------------------------------------- */

static void print_rule(int width)
{
	while (width-- > 0)
		putchar('-');
	putchar('\n');
}

static void print_plain_line(const char *label, u64 v)
{
	printf(" %-34s %14s\n", label, COMMAS(v));
}

/* Count and bytes on one line, the shape of every summary line. */
static void print_nr_bytes_line(const char *label, u64 nr, u64 bytes)
{
	printf(" %-34s %14s   [ %18s bytes ]\n", label, COMMAS(nr),
	       COMMAS(bytes));
}

static void print_count_line(const char *label, const struct kmem_count *c)
{
	print_nr_bytes_line(label, c->nr, c->bytes);
}

/* Bytes alone, under the bytes column of the lines around it. */
static void print_bytes_line(const char *label, u64 bytes)
{
	printf(" %-34s %14s   [ %18s bytes ]\n", label, "", COMMAS(bytes));
}

/* Shared by both summaries: totals are only as good as the recording. */
/* What a damaged or incomplete trace kept from both analyses. */
static void print_lost_events(struct perf_kmem *kmem)
{
	if (kmem->nr_short_events)
		print_plain_line("Events ignored (too short):",
				 kmem->nr_short_events);
	if (!kmem->nr_lost)
		return;
	print_plain_line("Events lost while recording:", kmem->nr_lost);
	printf(" Totals are approximate: record with a larger -m.\n");
}

static void print_page_summary(struct perf_kmem *kmem)
{
	const struct kmem_page_summary *s = kmem_page__summary(kmem->kp);
	struct kmem_count alloc_only = kmem_lifetime__unfreed(&s->life);

	printf("\n SUMMARY (page allocator)\n ========================\n\n");
	print_count_line("Pages allocated+freed:", &s->life.freed);
	printf("\n");
	print_count_line("Pages allocated-only:", &alloc_only);
	print_count_line("  still allocated at the end:", &s->life.live);
	print_count_line("  allocated again, free not seen:", &s->life.dropped);
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
	if (s->bad_order)
		print_plain_line("Events ignored (order out of range):",
				 s->bad_order);
	print_lost_events(kmem);
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
	char node[16];
	int from, to, width;

	printf("\n");
	if (!kmem->nr_nodes || !kmem->have_mem2node) {
		printf(" Cross-node analysis needs the NUMA and memory topology, not in this trace.\n");
		return;
	}
	if (nr_trace_nodes(kmem) == 1) {
		printf(" All page traffic was node-local: the trace has one NUMA node.\n");
		return;
	}
	if (kmem->nr_nodes > KMEM_PAGE_MAX_NODES) {
		printf(" No cross-node analysis: the trace has %d NUMA nodes, perf kmem follows at most %d.\n",
		       kmem->nr_nodes, KMEM_PAGE_MAX_NODES);
		return;
	}
	width = printf(" CROSS-NODE TRAFFIC (%d NUMA nodes)\n",
		       nr_trace_nodes(kmem));
	printf(" %.*s\n\n", width - 2, "=========================================");
	if (kmem->pfn_is_page) {
		/* No pfn, no page node: these would be zero, not measured. */
		printf(" Remote memory unknown: the kernel traced struct page addresses, not pfns.\n");
	} else {
		print_count_line("Allocations of remote memory:",
				 &s->alloc_remote);
		print_count_line("Frees of remote memory:", &s->free_remote);
	}
	print_count_line("Allocations freed on another node:",
			 &s->free_other_node);
	printf("\n Remote memory: the page is on another node than the CPU that allocates\n"
	       " or frees it.  Freed on another node: the freeing CPU is on another node\n"
	       " than the allocating CPU.\n");

	printf("\n Bytes allocated and freed in the trace, by node of the allocating CPU\n"
	       " (rows) and of the freeing CPU (columns):\n\n %-10s", "alloc\\free");
	for (to = 0; to < kmem->nr_nodes; to++) {
		if (!node_in_trace(kmem, to))
			continue;
		snprintf(node, sizeof(node), "node %d", to);
		printf("  %14s", node);
	}
	printf("\n");
	for (from = 0; from < kmem->nr_nodes; from++) {
		if (!node_in_trace(kmem, from))
			continue;
		snprintf(node, sizeof(node), "node %d", from);
		printf(" %10s", node);
		for (to = 0; to < kmem->nr_nodes; to++) {
			u64 b;

			if (!node_in_trace(kmem, to))
				continue;
			b = kmem_page__node_matrix(kmem->kp, from, to);
			printf("  %14s", b ? COMMAS(b) : ".");
		}
		printf("\n");
	}
	if (s->free_other_node.nr && !kmem->caller)
		printf("\n Callsites of the allocations freed on another node: --caller -s xnode\n");
}

/*
 * Rows a table shows: -l, else all of a table asked for by name, and the
 * top DEFAULT_TABLE_LINES of one shown by default.
 */
static size_t rows_to_show(struct perf_kmem *kmem, size_t nr, bool by_default)
{
	int lines = kmem->lines;

	if (lines < 0 && by_default)
		lines = DEFAULT_TABLE_LINES;
	return lines >= 0 && (size_t)lines < nr ? (size_t)lines : nr;
}

static void print_table_end(size_t shown, size_t nr, int width)
{
	if (shown < nr)
		printf(" ... %s more rows (-l to show them)\n",
		       COMMAS(nr - shown));
	print_rule(width);
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
		width = max_t(int, width, strlen(gfp_name(kmem, rows[i]->gfp)));
	return width;
}

/* The header line of a page table; its length sets the rules' width. */
static int format_page_header(struct perf_kmem *kmem, bool per_pfn, bool xnode,
			      int gw, char *buf, size_t size)
{
	int n = 0;

	if (per_pfn)
		n += scnprintf(buf + n, size - n, " %18s |",
			       kmem->pfn_is_page ? "Page" : "PFN");
	n += scnprintf(buf + n, size - n, " %19s | %11s | Order | %-14s | %-*s",
		       "Total_alloc/Size", kmem->live ? "Live" : "Hits",
		       "Migration type", gw, "GFP flags");
	if (xnode)
		n += scnprintf(buf + n, size - n, " | Freed remote");
	if (kmem->have_callchains)
		n += scnprintf(buf + n, size - n, " | Callsite");
	return n;
}

static void print_page_row(struct perf_kmem *kmem, const struct kmem_page_row *r,
			   bool per_pfn, bool xnode, int gw)
{
	char total[48], mt[32], cs[256];

	if (per_pfn)
		printf(" %#18" PRIx64 " |", r->pfn);
	snprintf(total, sizeof(total), "%s/%" PRIu64, COMMAS(r->bytes),
		 kmem->page_size << r->order);
	printf(" %19s | %11s | %5d | %-14s | %-*s", total, COMMAS(r->hits),
	       r->order,
	       kmem_migtype__name(r->migtype, kmem->pre_v4_4, mt, sizeof(mt)),
	       gw, gfp_name(kmem, r->gfp));
	if (xnode)
		printf(" | %12s", COMMAS(r->xnode_frees));
	if (kmem->have_callchains)
		printf(" | %s", callsite_name(kmem, r->callsite, cs, sizeof(cs)));
	printf("\n");
}

static void print_page_table(struct perf_kmem *kmem, enum kmem_page_table table,
			     const enum kmem_page_sort_key *keys, int nr_keys,
			     bool by_default)
{
	bool per_pfn = table == KMEM_TABLE_ALLOC;
	/* Frees are of no live page: no column under --live. */
	bool xnode = nr_trace_nodes(kmem) > 1 && kmem->have_mem2node &&
		     kmem->nr_nodes <= KMEM_PAGE_MAX_NODES && !kmem->live;
	struct kmem_page_row **rows;
	size_t nr, i, shown;
	char header[512];
	int gw, width;

	rows = kmem_page__rows(kmem->kp, table, keys, nr_keys, &nr);
	if (!rows) {
		kmem_err("out of memory sorting the table");
		return;
	}
	shown = rows_to_show(kmem, nr, by_default);
	gw = gfp_width(kmem, rows, shown);
	width = format_page_header(kmem, per_pfn, xnode, gw, header,
				   sizeof(header));

	printf("\n");
	print_rule(width);
	printf("%s\n", header);
	print_rule(width);
	for (i = 0; i < shown; i++)
		print_page_row(kmem, rows[i], per_pfn, xnode, gw);
	print_table_end(shown, nr, width);
}

static int print_page_result(struct perf_kmem *kmem)
{
	const enum kmem_page_sort_key *keys = kmem->page_keys;
	int nr_keys = kmem->nr_page_keys;

	kmem_page__finish(kmem->kp);
	if (kmem->caller || !kmem->alloc)
		print_page_table(kmem, KMEM_TABLE_CALLER, keys, nr_keys,
				 !kmem->caller);
	if (kmem->alloc)
		print_page_table(kmem, KMEM_TABLE_ALLOC, keys, nr_keys, false);
	print_page_summary(kmem);
	print_grid(kmem);
	print_node_traffic(kmem);
	return 0;
}

static void print_slab_frees(const struct kmem_slab_summary *s)
{
	print_plain_line("Total frees:", s->free);
	print_plain_line("  of unknown pointers:", s->free_unknown);
	print_plain_line("  repeated frees of a pointer:", s->free_again);
	print_plain_line("  of NULL or ZERO_SIZE_PTR:", s->free_null);
}

static void print_slab_numa(struct perf_kmem *kmem,
			    const struct kmem_slab_summary *s)
{
	print_count_line("Ping-pong frees (on another CPU):",
			      &s->pingpong);
	if (!kmem->cpu_node)
		printf(" Cross-node analysis needs the NUMA topology of a newer perf record.\n");
	else
		print_count_line("Cross-node allocations:", &s->xnode);
}

static void print_slab_summary(struct perf_kmem *kmem)
{
	const struct kmem_slab_summary *s = kmem_slab__summary(kmem->ks);
	struct kmem_count alloc_only = kmem_lifetime__unfreed(&s->life);
	/* No allocator hands out less than asked, but a damaged trace might. */
	u64 wasted = s->alloc.bytes > s->bytes_req ?
		     s->alloc.bytes - s->bytes_req : 0;

	printf("\n SUMMARY (slab allocator)\n ========================\n\n");
	print_count_line("Total allocations:", &s->alloc);
	print_bytes_line("Total bytes requested:", s->bytes_req);
	print_bytes_line("Internal fragmentation:", wasted);
	printf(" %-34s %13.3f%%\n", "  wasted of allocated:",
	       kmem_slab__frag(s->bytes_req, s->alloc.bytes));
	printf("\n");
	print_count_line("Allocated+freed:", &s->life.freed);
	print_count_line("Allocated-only:", &alloc_only);
	print_count_line("  still allocated at the end:", &s->life.live);
	print_count_line("  allocated again, free not seen:",
			      &s->life.dropped);
	printf("\n");
	print_slab_frees(s);
	printf("\n");
	print_count_line("Allocation failures (requested):", &s->fail);
	if (s->zero_size.nr)
		print_plain_line("Zero-size allocations:", s->zero_size.nr);
	print_slab_numa(kmem, s);
	print_lost_events(kmem);
}

/* "12,345,678/32": a row's total and its mean per allocation. */
static const char *total_per(u64 total, u64 hits, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%" PRIu64, COMMAS(total),
		 hits ? total / hits : 0);
	return buf;
}

static const char *slab_callsite_name(struct perf_kmem *kmem, u64 callsite,
				      char *buf, size_t size)
{
	if (kmem->raw_ip || !kmem->resolver) {
		snprintf(buf, size, "%#" PRIx64, callsite);
		return buf;
	}
	return callsite_resolver__name(kmem->resolver, callsite, false, buf,
				       size);
}

/* The key columns of a row: what makes it a row of @table. */
static void print_slab_row_key(struct perf_kmem *kmem,
			       enum kmem_slab_table table,
			       const struct kmem_slab_row *r)
{
	char cs[256];

	switch (table) {
	case KMEM_SLAB_TABLE_ALLOC:
		printf(" %#18" PRIx64 " | %-32s", r->ptr,
		       slab_callsite_name(kmem, r->callsite, cs, sizeof(cs)));
		break;
	case KMEM_SLAB_TABLE_CACHE:
		printf(" %-32s", r->cache);
		break;
	case KMEM_SLAB_TABLE_CALLER:
	case KMEM_SLAB_NR_TABLES:
	default:
		printf(" %-32s",
		       slab_callsite_name(kmem, r->callsite, cs, sizeof(cs)));
		break;
	}
}

static void print_slab_table_head(enum kmem_slab_table table, int width)
{
	static const char * const key_heads[KMEM_SLAB_NR_TABLES] = {
		[KMEM_SLAB_TABLE_CALLER] = " Callsite                        ",
		[KMEM_SLAB_TABLE_ALLOC]  = " Alloc Ptr          | Callsite                        ",
		[KMEM_SLAB_TABLE_CACHE]  = " Cache                           ",
	};

	printf("\n");
	print_rule(width);
	printf("%s | %11s | %22s | %22s | %11s | %11s | %8s\n",
	       key_heads[table], "Hits", "Total_alloc/Size", "Total_req/Size",
	       "Freed", "Ping-pong", "Frag");
	print_rule(width);
}

static void print_slab_table(struct perf_kmem *kmem, enum kmem_slab_table table,
			     const enum kmem_slab_sort_key *keys, int nr_keys,
			     bool by_default)
{
	int width = 33 + 14 + 25 + 25 + 14 + 14 + 11 +
		    (table == KMEM_SLAB_TABLE_ALLOC ? 21 : 0);
	struct kmem_slab_row **rows;
	size_t nr, i, shown;
	char alloc[48], req[48];

	rows = kmem_slab__rows(kmem->ks, table, keys, nr_keys, &nr);
	if (!rows) {
		kmem_err("out of memory sorting the table");
		return;
	}
	/* kmalloc events name no cache: a trace of them has no cache table. */
	if (table == KMEM_SLAB_TABLE_CACHE && !nr)
		return;
	shown = rows_to_show(kmem, nr, by_default);
	print_slab_table_head(table, width);
	for (i = 0; i < shown; i++) {
		const struct kmem_slab_row *r = rows[i];

		print_slab_row_key(kmem, table, r);
		printf(" | %11s | %22s | %22s | %11s | %11s | %7.3f%%\n",
		       COMMAS(r->hits),
		       total_per(r->bytes_alloc, r->hits, alloc, sizeof(alloc)),
		       total_per(r->bytes_req, r->hits, req, sizeof(req)),
		       COMMAS(r->freed), COMMAS(r->pingpong),
		       kmem_slab__frag(r->bytes_req, r->bytes_alloc));
	}
	print_table_end(shown, nr, width);
}

static int print_slab_result(struct perf_kmem *kmem)
{
	const enum kmem_slab_sort_key *keys = kmem->slab_keys;
	int nr_keys = kmem->nr_slab_keys;

	kmem_slab__finish(kmem->ks);
	if (kmem->caller || !kmem->alloc) {
		print_slab_table(kmem, KMEM_SLAB_TABLE_CALLER, keys, nr_keys,
				 !kmem->caller);
		print_slab_table(kmem, KMEM_SLAB_TABLE_CACHE, keys, nr_keys,
				 !kmem->caller);
	}
	if (kmem->alloc)
		print_slab_table(kmem, KMEM_SLAB_TABLE_ALLOC, keys, nr_keys,
				 false);
	print_slab_summary(kmem);
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

/*
 * Loading a kallsyms file into perf's maps takes a quarter of the time of
 * a million-sample trace; the resolver reads it faster into a table of its
 * own.  A vmlinux, or a kallsyms the table refuses, stays with perf.
 */
static int use_kallsyms_table(struct perf_kmem *kmem)
{
	if (symbol_conf.vmlinux_name || !symbol_conf.kallsyms_name)
		return 0;
	return callsite_resolver__use_kallsyms(kmem->resolver,
					       symbol_conf.kallsyms_name);
}

/* One resolver of kernel addresses serves both analyses. */
static int need_resolver(struct perf_kmem *kmem)
{
	char err[160];

	if (kmem->resolver)
		return 0;
	kmem->resolver = callsite_resolver__new(&kmem->session->machines.host,
						kmem->alloc_regex_add ?: kmem->alloc_regex,
						kmem->alloc_regex_add != NULL,
						kmem->raw_ip, err, sizeof(err));
	if (!kmem->resolver) {
		kmem_err("%s", err);
		return -EINVAL;
	}
	return use_kallsyms_table(kmem);
}

static int setup_callsites(struct perf_kmem *kmem, struct evsel *alloc)
{
	kmem->have_callchains = alloc && evsel__has_callchain(alloc);
	if (!kmem->have_callchains) {
		if (alloc)
			kmem_err("no callchains in %s: callsites need 'perf kmem record --page'",
				 kmem->input_name);
		return 0;
	}
	symbol_conf.use_callchain = true;
	if (need_resolver(kmem))
		return -EINVAL;
	return 0;
}

/* After the events: the kernel map comes from the trace's own records. */
static void list_alloc_funcs(struct perf_kmem *kmem)
{
	if (verbose <= 0 || !kmem->resolver)
		return;
	if (callsite_resolver__list_alloc_funcs(kmem->resolver,
						   alloc_func_print, NULL))
		kmem_err("no kernel symbols to list allocator functions from");
}

static int setup_page_analysis(struct perf_kmem *kmem)
{
	struct evlist *evlist = kmem->session->evlist;
	struct evsel *alloc, *free_ev, *any;
	struct kmem_page_config config = {};

	alloc = evlist__find_tracepoint_by_name(evlist, "kmem:mm_page_alloc");
	free_ev = evlist__find_tracepoint_by_name(evlist, "kmem:mm_page_free");
	if (!alloc && !free_ev) {
		kmem_err("%s has no page allocator events: record them with 'perf kmem record --page'",
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
	if (env_has_memory_topology(kmem) &&
	    !mem2node__init(&kmem->mem2node, &kmem->session->header.env))
		kmem->have_mem2node = true;

	config.page_size = kmem->page_size;
	kmem->pre_v4_4 = kernel_before(kmem->session->header.env.os_release,
				       4, 4);
	config.pre_v4_4_migtypes = kmem->pre_v4_4;
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
	kmem_page__delete(kmem->kp);
	if (kmem->have_mem2node)
		mem2node__exit(&kmem->mem2node);
}

/* --- setting up a slab analysis -------------------------------------- */

static int setup_slab_tracepoint(struct perf_kmem *kmem, size_t i)
{
	struct evsel *evsel;
	char name[64];

	snprintf(name, sizeof(name), "kmem:%s", slab_tracepoints[i].name);
	evsel = evlist__find_tracepoint_by_name(kmem->session->evlist, name);
	if (!evsel)
		return 0;
	if (!has_format(evsel) || setup_slab_fields(evsel, &kmem->slab_fields[i],
			      slab_tracepoints[i].is_alloc))
		return -EINVAL;
	evsel->priv = &kmem->slab_fields[i];
	evsel->handler = slab_tracepoints[i].is_alloc ? process_slab_alloc :
							 process_slab_free;
	return 1;
}

static int setup_slab_analysis(struct perf_kmem *kmem)
{
	struct kmem_slab_config config = {
		.want_caller_table = true,
		.want_alloc_table = kmem->alloc,
		.want_cache_table = true,
	};
	int found = 0, ret;
	size_t i;

	for (i = 0; i < NR_SLAB_TRACEPOINTS; i++) {
		ret = setup_slab_tracepoint(kmem, i);
		if (ret < 0)
			return ret;
		found += ret;
	}
	if (!found) {
		kmem_err("%s has no slab allocator events: record them with 'perf kmem record --slab'",
		       kmem->input_name);
		return -EINVAL;
	}
	kmem->ks = kmem_slab__new(&config);
	if (!kmem->ks)
		return -ENOMEM;
	kmem->cache_names = hashmap__new(name_hash, name_equal, NULL);
	if (IS_ERR(kmem->cache_names)) {
		kmem->cache_names = NULL;
		return -ENOMEM;
	}
	return need_resolver(kmem);
}

/* --- perf kmem stat -------------------------------------------------- */

/* Why perf could not open @path, in the words a user needs. */
static void explain_unreadable(const char *path, char *buf, size_t size)
{
	struct perf_file_header h;
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		snprintf(buf, size, "%s", strerror(errno));
		return;
	}
	n = fstat(fd, &st) ? -1 : pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n < 0)
		snprintf(buf, size, "%s", strerror(errno));
	else if (st.st_size == 0)
		snprintf(buf, size, "the file is empty");
	else if ((size_t)n < sizeof(h) || memcmp(&h.magic, "PERFILE2", 8))
		snprintf(buf, size, "not a perf.data file");
	else if (h.data.size == 0)
		snprintf(buf, size, "its data size is 0: the perf record that wrote it did not finish (killed?)");
	else if (h.data.offset + h.data.size > (u64)st.st_size)
		snprintf(buf, size, "truncated: %" PRIu64 " bytes of data announced, %" PRIu64 " in the file",
			 h.data.size, (u64)st.st_size - min((u64)st.st_size, h.data.offset));
	else if (!test_bit(HEADER_TRACING_DATA, h.adds_features))
		snprintf(buf, size, "it has no tracepoint formats (the tracing data feature is missing)");
	else
		snprintf(buf, size, "its header is corrupt");
}

static int open_session(struct perf_kmem *kmem)
{
	char why[160];

	/* The session keeps a pointer to its perf_data until it is deleted. */
	kmem->data.path = kmem->input_name;
	kmem->data.mode = PERF_DATA_MODE_READ;
	kmem->data.force = kmem->force;

	/* Our queue puts the events in time order: see util/kmem-queue.h. */
	perf_tool__init(&kmem->tool, /*ordered_events=*/false);
	kmem->tool.finished_round = process_finished_round;
	kmem->tool.sample = process_sample_event;
	kmem->tool.mmap = process_kernel_mmap;
	kmem->tool.mmap2 = process_kernel_mmap2;
	kmem->tool.lost = process_lost_event;
	kmem->tool.lost_samples = process_lost_samples_event;

	kmem->session = perf_session__new(&kmem->data, &kmem->tool);
	if (IS_ERR(kmem->session)) {
		int err = PTR_ERR(kmem->session);

		kmem->session = NULL;
		explain_unreadable(kmem->input_name, why, sizeof(why));
		kmem_err("cannot read %s: %s", kmem->input_name, why);
		return err ?: -EINVAL;
	}
	/*
	 * The analyses are set up from the header before the events are
	 * read; a pipe brings its tracepoint formats and kernel build-id only
	 * as it goes, the build-id last.
	 */
	if (perf_data__is_pipe(&kmem->data)) {
		kmem_err("cannot analyse a pipe: record to a file (perf kmem record -o FILE)");
		return -EINVAL;
	}
	return 0;
}

/*
 * perf's own reader reports problems in several lines of its own; unless
 * asked for them with -v, keep them quiet and say in one line what failed.
 */
static int quiet_perf(void)
{
	int saved = verbose;

	if (verbose == 0)
		verbose = -1;
	return saved;
}

static int read_events(struct perf_kmem *kmem)
{
	int saved = quiet_perf();
	int err;

	kmem->queue = kmem_queue__new(queued_size(kmem), deliver_queued, kmem);
	if (!kmem->queue)
		return -ENOMEM;
	if (kmem->kp)
		kmem_queue__set_prefetch(kmem->queue, prefetch_queued);
	err = perf_session__process_events(kmem->session);
	if (!err)
		err = kmem_queue__flush(kmem->queue);
	verbose = saved;
	return err;
}

/* Before reading a trace that may take a while: are the sort keys known? */
static int parse_sort_keys(struct perf_kmem *kmem)
{
	char bad[64];

	if (kmem->page) {
		kmem->nr_page_keys =
			kmem_page__parse_sort(kmem->sort_str ?: DEFAULT_PAGE_SORT,
					      kmem->page_keys, KMEM_MAX_SORT_KEYS,
					      bad, sizeof(bad));
		if (kmem->nr_page_keys < 0) {
			kmem_err("unknown sort key '%s' for --page: use page, callsite, hit, bytes, order, migtype, gfp, xnode",
				 bad);
			return -EINVAL;
		}
	}
	if (kmem->slab) {
		kmem->nr_slab_keys =
			kmem_slab__parse_sort(kmem->sort_str ?: DEFAULT_SLAB_SORT,
					      kmem->slab_keys,
					      KMEM_SLAB_MAX_SORT_KEYS, bad,
					      sizeof(bad));
		if (kmem->nr_slab_keys < 0) {
			kmem_err("unknown sort key '%s' for --slab: use ptr, callsite, hit, bytes, frag, pingpong, cache",
				 bad);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * How many bytes at the start of the data section hold well-formed
 * records: the event stream up to the first record whose header cannot be
 * right, less @back records, since garbage that begins inside a record
 * spoils its end before it spoils the next header.  0 when the file
 * cannot be read or no such record exists.
 */
#define KMEM_SALVAGE_TRIES	4

static u64 intact_data_size(const char *path, int back)
{
	u64 starts[KMEM_SALVAGE_TRIES] = { 0 };
	struct perf_file_header h;
	struct perf_event_header eh;
	struct stat st;
	u64 pos, end, good = 0, n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || pread(fd, &h, sizeof(h), 0) != sizeof(h))
		goto out;
	end = min(h.data.offset + h.data.size, (u64)st.st_size);
	for (pos = h.data.offset; pos + sizeof(eh) <= end; pos += eh.size, n++) {
		if (pread(fd, &eh, sizeof(eh), pos) != sizeof(eh))
			break;
		if (eh.type == 0 || eh.type >= PERF_RECORD_HEADER_MAX ||
		    eh.size < sizeof(eh) || pos + eh.size > end) {
			if ((u64)back <= n)
				good = (back ? starts[(n - back) % KMEM_SALVAGE_TRIES] :
					pos) - h.data.offset;
			break;
		}
		starts[n % KMEM_SALVAGE_TRIES] = pos;
	}
out:
	close(fd);
	return good;
}

/*
 * perf record keeps a copy of the kernel's symbols in the build-id cache.
 * It is the recording kernel's for sure, and reading it takes a tenth of
 * the time of /proc/kallsyms, which the kernel formats anew on each read:
 * prefer it, unless told which symbols to use.
 */
static void prefer_recorded_kallsyms(struct perf_kmem *kmem)
{
	char sbuild_id[SBUILD_ID_SIZE], path[PATH_MAX];
	struct dso *kernel;

	if (symbol_conf.kallsyms_name || symbol_conf.vmlinux_name)
		return;
	kernel = dsos__find_kernel_dso(&kmem->session->machines.host.dsos);
	if (!kernel)
		return;
	if (dso__has_build_id(kernel)) {
		build_id__sprintf(dso__bid(kernel), sbuild_id);
		if (build_id_cache__kallsyms_path(sbuild_id, path, sizeof(path)) &&
		    !access(path, R_OK))
			kmem->recorded_kallsyms = strdup(path);
	}
	dso__put(kernel);
	symbol_conf.kallsyms_name = kmem->recorded_kallsyms;
}

/* One pass over the trace: open it, set up the analyses, read the events. */
static int analyse(struct perf_kmem *kmem, u64 data_size)
{
	int err, saved;

	saved = quiet_perf();
	err = open_session(kmem);
	verbose = saved;
	if (err)
		return err;
	/* Read no further than @data_size bytes of events. */
	if (data_size)
		kmem->session->header.data_size = data_size;
	prefer_recorded_kallsyms(kmem);
	if (symbol__init(&kmem->session->header.env) < 0) {
		kmem_err("cannot set up symbol resolution");
		return -EINVAL;
	}
	err = setup_nodes(kmem);
	if (!err && kmem->slab)
		err = setup_slab_analysis(kmem);
	if (!err && kmem->page)
		err = setup_page_analysis(kmem);
	if (err)
		return err;
	err = read_events(kmem);
	if (err == -ENOMEM)
		kmem_err("out of memory reading %s", kmem->input_name);
	else if (err)
		err = -EIO;
	return err;
}

static void free_cache_names(struct perf_kmem *kmem)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!kmem->cache_names)
		return;
	hashmap__for_each_entry(kmem->cache_names, cur, bkt)
		free(cur->pvalue);
	hashmap__free(kmem->cache_names);
	kmem->cache_names = NULL;
}

static void teardown(struct perf_kmem *kmem)
{
	kmem_queue__delete(kmem->queue);
	kmem_slab__delete(kmem->ks);
	free_cache_names(kmem);
	cleanup_page_analysis(kmem);
	callsite_resolver__delete(kmem->resolver);
	free(kmem->cpu_node);
	perf_session__delete(kmem->session);
	if (kmem->recorded_kallsyms) {
		symbol_conf.kallsyms_name = NULL;
		zfree(&kmem->recorded_kallsyms);
	}
}

static int print_results(struct perf_kmem *kmem)
{
	int err = 0;

	setup_pager();
	list_alloc_funcs(kmem);
	if (kmem->slab)
		err = print_slab_result(kmem);
	if (!err && kmem->page)
		err = print_page_result(kmem);
	return err;
}

/*
 * A record that cannot be read stops perf's reader: analyse again what
 * comes before it, show that, and say how much it was.
 */
static int analyse_intact_part(struct perf_kmem *kmem,
			       const struct perf_kmem *fresh)
{
	u64 total = kmem->session->header.data_size, good = 0;
	int back, err = -EIO;

	for (back = 0; back < KMEM_SALVAGE_TRIES && err == -EIO; back++) {
		good = intact_data_size(kmem->input_name, back);
		if (!good)
			break;
		teardown(kmem);
		*kmem = *fresh;
		err = analyse(kmem, good);
	}
	if (err || print_results(kmem)) {
		kmem_err("cannot read %s: corrupt data in the event stream",
			 kmem->input_name);
		return -EINVAL;
	}
	kmem_err("%s is corrupt after %s of its %s bytes of events: the analysis covers the %s events before",
		 kmem->input_name, COMMAS(good), COMMAS(total),
		 COMMAS(kmem->nr_events));
	return -EINVAL;
}

static int kmem_stat(struct perf_kmem *kmem)
{
	struct perf_kmem fresh;
	int err;

	if (perf_time__parse_str(&kmem->ptime, kmem->time_str)) {
		kmem_err("invalid --time '%s': use start,stop in seconds",
			 kmem->time_str);
		return -EINVAL;
	}
	if (parse_sort_keys(kmem))
		return -EINVAL;
	fresh = *kmem;
	err = analyse(kmem, 0);
	if (err == -EIO)
		err = analyse_intact_part(kmem, &fresh);
	else if (!err)
		err = print_results(kmem);
	if (kmem->session)
		teardown(kmem);
	return err;
}

/* --- perf kmem record ------------------------------------------------ */

static bool tracepoint_exists(const char *sys, const char *name)
{
	char *path = get_events_file(sys);
	char full[PATH_MAX];

	if (!path)
		return false;
	snprintf(full, sizeof(full), "%s/%s", path, name);
	put_events_file(path);
	return access(full, F_OK) == 0;
}

static void add_arg(const char **argv, int *argc, const char *arg)
{
	argv[(*argc)++] = arg;
}

static int kmem_record(struct perf_kmem *kmem, int argc, const char **argv)
{
	const char **rec_argv;
	int rec_argc = 0, i, err, nr_slab = 0;
	char *ev[NR_SLAB_TRACEPOINTS] = {};

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
		for (i = 0; i < (int)NR_SLAB_TRACEPOINTS; i++) {
			const char *name = slab_tracepoints[i].name;

			if (!tracepoint_exists("kmem", name))
				continue;
			if (asprintf(&ev[i], "kmem:%s", name) < 0) {
				err = -ENOMEM;
				goto out;
			}
			add_arg(rec_argv, &rec_argc, "-e");
			add_arg(rec_argv, &rec_argc, ev[i]);
			nr_slab++;
		}
		/* Else perf record would quietly record cycles instead. */
		if (!nr_slab) {
			kmem_err("no kmem slab tracepoints found: is tracefs mounted and readable?");
			err = -ENOENT;
			goto out;
		}
	}
	for (i = 0; i < argc; i++)
		add_arg(rec_argv, &rec_argc, argv[i]);
	err = cmd_record(rec_argc, rec_argv);
out:
	for (i = 0; i < (int)NR_SLAB_TRACEPOINTS; i++)
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
	kmem_err("invalid kmem.default '%s': use page or slab", value);
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
	OPT_BOOLEAN(0, "alloc", &kmem.alloc,
		    "show per-object (slab) or per-page statistics"),
	OPT_STRING('s', "sort", &kmem.sort_str, "key[,key2...]",
		   "sort by keys: slab: ptr, callsite, hit, bytes, frag, pingpong, cache; page: page, callsite, hit, bytes, order, migtype, gfp, xnode"),
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
	const char *usage[2] = { NULL, NULL };
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
		err = kmem_record(&kmem, argc, argv + 1);
		/* parse_options_subcommand() built the usage string. */
		free((void *)usage[0]);
		return err;
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
