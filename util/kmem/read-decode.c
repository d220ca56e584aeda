// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem's samples decoded; see read-decode.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <perf/cpumap.h>
#include <traceevent/event-parse.h>

#include "count-page.h"
#include "count-stacks.h"
#include "count-tasks.h"
#include "env.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "hashmap.h"
#include "header.h"
#include "mem2node.h"
#include "read-callsite.h"
#include "read-decode.h"
#include "read-pageblock.h"
#include "sample.h"
#include "session.h"
#include "trace-event.h"

/* The fields a page event is read from. */
struct page_fields {
	struct tep_format_field	*pfn;		/* "pfn", or "page" < v4.1 */
	struct tep_format_field	*order;
	struct tep_format_field	*migtype;	/* alloc only */
	struct tep_format_field	*gfp;		/* alloc only */
	u32			raw_size;	/* that holds them */
	/* Native byte order, a u64 pfn and gfp, an s32 order and migtype. */
	bool			plain;
	/*
	 * The values of the pfn field that say the allocation failed: a
	 * NULL page, a 32-bit -1; KMEM_PAGE_NO_PFN where there is none.
	 */
	u64			failed[2];
};

/* The fields an extfrag event is read from. */
struct extfrag_fields {
	struct tep_format_field	*pfn;		/* "pfn", or "page" < v4.1 */
	struct tep_format_field	*alloc_order;
	struct tep_format_field	*fallback_order;
	struct tep_format_field	*alloc_migtype;
	struct tep_format_field	*fallback_migtype;
	struct tep_format_field	*change_ownership;
	u32			raw_size;	/* that holds them */
};

/* The fields a slab event is read from. */
struct slab_fields {
	struct tep_format_field	*call_site;
	struct tep_format_field	*ptr;
	struct tep_format_field	*bytes_req;	/* alloc only */
	struct tep_format_field	*bytes_alloc;	/* alloc only */
	struct tep_format_field	*node;		/* _node events; all since v6.1 */
	struct tep_format_field	*name;		/* kmem_cache_* of recent kernels */
	u32			raw_size;	/* that holds the numbers */
	/*
	 * The numbers are u64 and the node an int, in this machine's byte
	 * order, as on any 64-bit kernel: read without a look at each
	 * field's size, for every sample.
	 */
	bool			plain;
};

/* The fields a stall event is read from; any but the type may be absent. */
struct stall_fields {
	struct tep_format_field	*order;
	struct tep_format_field	*gfp;
	struct tep_format_field	*value;
	u32			raw_size;	/* that holds them */
	u16			type;		/* enum kmem_stall_type */
};

/*
 * The first and the last 8 bytes of a name, zero-padded: with its length,
 * the whole of a name of up to 16 bytes.
 */
struct name_words {
	u64	head;
	u64	tail;	/* 0 for a name of 8 bytes or fewer */
};

/* A name recently interned, in a direct-mapped cache. */
struct recent_name {
	const char		*name;
	u32			len;	/* the bytes compared, with the NUL */
	struct name_words	words;
};

#define RECENT_NAMES_BITS	6

static int decode_page_alloc(struct kmem_decoder *dec, struct evsel *evsel,
			     struct perf_sample *sample, struct kmem_event *ev);
static int decode_page_free(struct kmem_decoder *dec, struct evsel *evsel,
			    struct perf_sample *sample, struct kmem_event *ev);
static int decode_extfrag(struct kmem_decoder *dec, struct evsel *evsel,
			  struct perf_sample *sample, struct kmem_event *ev);
static int decode_slab_alloc(struct kmem_decoder *dec, struct evsel *evsel,
			     struct perf_sample *sample, struct kmem_event *ev);
static int decode_slab_free(struct kmem_decoder *dec, struct evsel *evsel,
			    struct perf_sample *sample, struct kmem_event *ev);

static const struct evsel_str_handler page_handlers[] = {
	{ "kmem:mm_page_alloc",		decode_page_alloc },
	{ "kmem:mm_page_free",		decode_page_free },
	{ "kmem:mm_page_alloc_extfrag",	decode_extfrag },
};

static const struct evsel_str_handler slab_handlers[] = {
	{ "kmem:kmalloc",		decode_slab_alloc },
	{ "kmem:kfree",			decode_slab_free },
	{ "kmem:kmem_cache_alloc",	decode_slab_alloc },
	{ "kmem:kmem_cache_free",	decode_slab_free },
	/* Merged into kmalloc and kmem_cache_alloc in v6.1. */
	{ "kmem:kmalloc_node",		decode_slab_alloc },
	{ "kmem:kmem_cache_alloc_node",	decode_slab_alloc },
};

#define NR_SLAB_EVENTS	ARRAY_SIZE(slab_handlers)

/*
 * The events of allocation stalls, by enum kmem_stall_type, and the
 * fields each is read from.  Those that begin a stall are recorded with
 * their callchain.  The value of an end is what it reports: the pages
 * reclaimed, the compaction status, try_to_compact_pages's priority (not
 * before v4.8: optional).
 */
static const struct stall_tracepoint {
	const char	*name;
	const char	*order;
	const char	*gfp;
	const char	*value;
	bool		value_optional;
	bool		callchain;
} stall_tracepoints[KMEM_STALL_NR_TYPES] = {
	[KMEM_STALL_RECLAIM_BEGIN] = {
		"vmscan:mm_vmscan_direct_reclaim_begin", "order", "gfp_flags",
		.callchain = true },
	[KMEM_STALL_RECLAIM_END] = {
		"vmscan:mm_vmscan_direct_reclaim_end", .value = "nr_reclaimed" },
	[KMEM_STALL_MEMCG_BEGIN] = {
		"vmscan:mm_vmscan_memcg_reclaim_begin", "order", "gfp_flags",
		.callchain = true },
	[KMEM_STALL_MEMCG_END] = {
		"vmscan:mm_vmscan_memcg_reclaim_end", .value = "nr_reclaimed" },
	[KMEM_STALL_COMPACT_TRY] = {
		"compaction:mm_compaction_try_to_compact_pages", "order",
		"gfp_mask", "prio", .value_optional = true, .callchain = true },
	[KMEM_STALL_COMPACT_BEGIN] = { "compaction:mm_compaction_begin" },
	[KMEM_STALL_COMPACT_END] = {
		"compaction:mm_compaction_end", .value = "status" },
	[KMEM_STALL_COMPACT_DEFERRED] = {
		"compaction:mm_compaction_deferred", "order" },
	[KMEM_STALL_KSWAPD_WAKEUP] = { "vmscan:mm_vmscan_wakeup_kswapd", "order" },
	[KMEM_STALL_KSWAPD_WAKE] = { "vmscan:mm_vmscan_kswapd_wake", "order" },
	[KMEM_STALL_KCOMPACTD_WAKEUP] = {
		"compaction:mm_compaction_wakeup_kcompactd", "order" },
	[KMEM_STALL_KCOMPACTD_WAKE] = {
		"compaction:mm_compaction_kcompactd_wake", "order" },
};

/* The names of mm_compaction_end's statuses, from its print format. */
#define NR_STATUS_NAMES	16

struct kmem_decoder {
	struct kmem_decode_config config;
	struct kmem_trace_info	info;
	struct perf_session	*session;
	struct page_fields	page_alloc;
	struct page_fields	page_free;
	struct extfrag_fields	extfrag;
	struct slab_fields	slab[NR_SLAB_EVENTS];
	struct stall_fields	stall[KMEM_STALL_NR_TYPES];
	char			*status_names[NR_STATUS_NAMES];
	int			*cpu_node;	/* indexed by cpu */
	int			nr_cpu_node;	/* 0 without cpu_node */
	/* Has the trace pages of two nodes or more, by pfn? */
	bool			page_nodes;
	struct mem2node		mem2node;
	struct hashmap		*gfp_names;	/* gfp value -> char * */
	u64			last_gfp;	/* named last; runs are common */
	bool			named_a_gfp;
	/*
	 * May a page event be decoded without a call?  Its fields are plain,
	 * its pages have no nodes; of an allocation, no stacks are kept and
	 * a gfp value was named.  Settled by the full decoders, which decode
	 * the first events: one test an event, not four.
	 */
	bool			quick_alloc;
	bool			quick_free;
	struct hashmap		*cache_names;	/* interned: name -> name */
	struct recent_name	recent_names[1 << RECENT_NAMES_BITS];
	u64			nr_short;
	/* With config.stacks: callchains as recorded, and their tags. */
	struct kmem_stacks	*raw_chains;
	u32			*raw_tags;	/* by raw chain id */
	size_t			nr_raw_tags, max_raw_tags;
	int			last_raw;	/* the last tag's; -1: none */
};

/* --- fields ---------------------------------------------------------- */

/* Where @f ends in the raw data, if beyond @end. */
static u32 field_end(struct tep_format_field *f, u32 end)
{
	return f ? max(end, (u32)(f->offset + f->size)) : end;
}

/* A field an event is read from, by name; none: not of this event. */
struct field_want {
	struct tep_format_field	**field;
	const char		*name;
	bool			optional;
};

/*
 * Look @want's fields up in @evsel, *@raw_size extended to where each
 * ends: -EINVAL, saying which, for one it lacks that is not optional.
 */
static int find_fields(struct evsel *evsel, const struct field_want *want,
		       size_t nr, u32 *raw_size, char *err, size_t err_size)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!want[i].name)
			continue;
		*want[i].field = evsel__field(evsel, want[i].name);
		if (!*want[i].field && !want[i].optional) {
			snprintf(err, err_size, "%s has no '%s' field",
				 evsel__name(evsel), want[i].name);
			return -EINVAL;
		}
		*raw_size = field_end(*want[i].field, *raw_size);
	}
	return 0;
}

/* The "pfn" field of a page event, or its "page" before v4.1; NULL: none. */
static struct tep_format_field *pfn_field(struct evsel *evsel, char *err,
					  size_t err_size)
{
	struct tep_format_field *f = evsel__field(evsel, "pfn") ?:
				     evsel__field(evsel, "page");

	if (!f)
		snprintf(err, err_size, "%s has neither a 'pfn' nor a 'page' field",
			 evsel__name(evsel));
	return f;
}

static int setup_page_fields(struct kmem_decoder *dec, struct evsel *evsel,
			     struct page_fields *f, bool is_alloc, char *err,
			     size_t err_size)
{
	const struct field_want want[] = {
		{ &f->order,	"order", false },
		{ &f->migtype,	is_alloc ? "migratetype" : NULL, false },
		{ &f->gfp,	is_alloc ? "gfp_flags" : NULL, false },
	};

	f->pfn = pfn_field(evsel, err, err_size);
	if (!f->pfn)
		return -EINVAL;
	dec->info.pfn_is_page |= !strcmp(f->pfn->name, "page");
	f->raw_size = field_end(f->pfn, 0);
	if (find_fields(evsel, want, ARRAY_SIZE(want), &f->raw_size, err,
			err_size))
		return -EINVAL;
	f->plain = !evsel->needs_swap && f->pfn->size == sizeof(u64) &&
		   f->order->size == sizeof(s32) &&
		   (!is_alloc || (f->migtype->size == sizeof(s32) &&
				  f->gfp->size == sizeof(u64)));
	return 0;
}

/*
 * Once both events' fields are known: a "page" field of either (before
 * v4.1) makes a NULL page a failure in both, as does -1 in a 32-bit pfn.
 */
static void set_failed_pfns(struct kmem_decoder *dec, struct page_fields *f)
{
	f->failed[0] = dec->info.pfn_is_page ? 0 : KMEM_PAGE_NO_PFN;
	f->failed[1] = f->pfn && f->pfn->size == 4 ? 0xffffffffULL :
						      KMEM_PAGE_NO_PFN;
}

static int setup_extfrag_fields(struct evsel *evsel, struct extfrag_fields *f,
				char *err, size_t err_size)
{
	const struct field_want want[] = {
		{ &f->alloc_order,	"alloc_order", false },
		{ &f->fallback_order,	"fallback_order", false },
		{ &f->alloc_migtype,	"alloc_migratetype", false },
		{ &f->fallback_migtype,	"fallback_migratetype", false },
		{ &f->change_ownership,	"change_ownership", false },
	};

	f->pfn = pfn_field(evsel, err, err_size);
	if (!f->pfn)
		return -EINVAL;
	f->raw_size = field_end(f->pfn, 0);
	return find_fields(evsel, want, ARRAY_SIZE(want), &f->raw_size, err,
			   err_size);
}

static int setup_slab_fields(struct evsel *evsel, struct slab_fields *f,
			     bool is_alloc, char *err, size_t err_size)
{
	/* Older kernels lack node and name: no cross-node or per-cache counts. */
	const struct field_want want[] = {
		{ &f->call_site,	"call_site", false },
		{ &f->ptr,		"ptr", false },
		{ &f->bytes_req,	is_alloc ? "bytes_req" : NULL, false },
		{ &f->bytes_alloc,	is_alloc ? "bytes_alloc" : NULL, false },
		{ &f->node,		is_alloc ? "node" : NULL, true },
		{ &f->name,		is_alloc ? "name" : NULL, true },
	};

	if (find_fields(evsel, want, ARRAY_SIZE(want), &f->raw_size, err,
			err_size))
		return -EINVAL;
	f->plain = !evsel->needs_swap && f->call_site->size == sizeof(u64) &&
		   f->ptr->size == sizeof(u64) &&
		   (!is_alloc || (f->bytes_req->size == sizeof(u64) &&
				  f->bytes_alloc->size == sizeof(u64) &&
				  (!f->node || f->node->size == sizeof(s32))));
	return 0;
}

static u64 field_val(struct tep_format_field *f, struct perf_sample *sample,
		     struct evsel *evsel)
{
	return format_field__intval(f, sample, evsel->needs_swap);
}

/* A signed field, sign-extended from its own width; huge values saturate. */
static __always_inline int field_int(struct tep_format_field *f,
				     struct perf_sample *sample,
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

/* An order or migration type: any too large for s16 is as invalid. */
static s16 to_s16(int v)
{
	return clamp(v, SHRT_MIN, SHRT_MAX);
}

/*
 * A string field and its length with the NUL, or NULL when it does not lie
 * within the sample (the trace may be damaged).  The string may hold no
 * NUL: the caller checks.
 */
static const char *field_bytes(struct tep_format_field *f,
			       struct perf_sample *sample,
			       struct evsel *evsel, u32 *lenp)
{
	u32 offset = f->offset, len = f->size;

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
	*lenp = len;
	return (const char *)sample->raw_data + offset;
}

/*
 * The fields are read at fixed offsets: a sample too short to hold them is
 * damaged, and skipped rather than read beyond.
 */
static bool too_short(struct kmem_decoder *dec, u32 raw_size,
		      struct perf_sample *sample, struct kmem_event *ev)
{
	if (sample->raw_size >= raw_size)
		return false;
	dec->nr_short++;
	ev->kind = KMEM_EVENT_SKIPPED;
	return true;
}

/* --- NUMA nodes ------------------------------------------------------ */

/* No architecture's Kconfig lets NODES_SHIFT go past 10. */
#define MAX_NODE_ID	((1 << 10) - 1)

static int setup_nodes(struct kmem_decoder *dec)
{
	struct perf_env *env = &dec->session->header.env;
	int i, max_cpu = -1;

	for (i = 0; i < env->nr_numa_nodes; i++) {
		struct perf_cpu_map *map = env->numa_nodes[i].map;

		if (env->numa_nodes[i].node > MAX_NODE_ID) {
			dec->info.topology_corrupt = true;
			dec->info.nr_nodes = 0;
			return 0;
		}
		if (map && perf_cpu_map__max(map).cpu > max_cpu)
			max_cpu = perf_cpu_map__max(map).cpu;
		if ((int)env->numa_nodes[i].node >= dec->info.nr_nodes)
			dec->info.nr_nodes = env->numa_nodes[i].node + 1;
	}
	if (max_cpu >= 0) {
		dec->cpu_node = malloc((max_cpu + 1) * sizeof(int));
		if (!dec->cpu_node)
			return -ENOMEM;
		dec->nr_cpu_node = max_cpu + 1;
		dec->info.has_cpu_nodes = true;
		for (i = 0; i <= max_cpu; i++)
			dec->cpu_node[i] = -1;
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
				dec->cpu_node[cpu.cpu] = env->numa_nodes[i].node;
	}
	return 0;
}

static void setup_mem2node(struct kmem_decoder *dec)
{
	struct perf_header *header = &dec->session->header;
	struct perf_env *env = &header->env;

	if (test_bit(HEADER_NUMA_TOPOLOGY, header->unreadable_features) ||
	    test_bit(HEADER_MEM_TOPOLOGY, header->unreadable_features))
		dec->info.topology_corrupt = true;
	if (dec->info.topology_corrupt)
		return;

	if (env->nr_memory_nodes && env->memory_bsize &&
	    !mem2node__init(&dec->mem2node, env))
		dec->info.has_mem2node = true;
}

bool kmem_decoder__has_node(const struct kmem_decoder *dec, int node)
{
	struct perf_env *env = &dec->session->header.env;
	int i;

	for (i = 0; i < env->nr_numa_nodes; i++)
		if ((int)env->numa_nodes[i].node == node)
			return true;
	return false;
}

int kmem_decoder__nr_trace_nodes(const struct kmem_decoder *dec)
{
	return dec->session->header.env.nr_numa_nodes;
}

const char *kmem_decoder__cross_node_status(const struct kmem_decoder *dec)
{
	const struct kmem_trace_info *info = &dec->info;

	if (info->topology_corrupt)
		return "corrupt_topology";
	if (!info->nr_nodes || !info->has_mem2node)
		return "no_topology";
	if (kmem_decoder__nr_trace_nodes(dec) == 1)
		return "one_node";
	if (info->nr_nodes > KMEM_PAGE_MAX_NODES)
		return "too_many_nodes";
	return "analysed";
}

static int cpu_to_node(struct kmem_decoder *dec, u32 cpu)
{
	if (cpu >= (u32)dec->nr_cpu_node)
		return -1;
	return dec->cpu_node[cpu];
}

static int page_to_node(struct kmem_decoder *dec, u64 pfn)
{
	/* On one node nothing is remote: spare the lookup. */
	if (!dec->page_nodes || pfn == KMEM_PAGE_NO_PFN)
		return -1;
	return mem2node__node(&dec->mem2node, pfn * dec->info.page_size);
}

int kmem_decoder__page_node(struct kmem_decoder *dec, u64 pfn)
{
	return page_to_node(dec, pfn);
}

void kmem_decoder__node_ranges(const struct kmem_decoder *dec,
			       kmem_node_range_fn fn, void *arg)
{
	const struct perf_env *env = &dec->session->header.env;
	u64 pages = env->memory_bsize / dec->info.page_size;
	int i;

	for (i = 0; pages && i < env->nr_memory_nodes; i++) {
		const struct memory_node *mn = &env->memory_nodes[i];
		u64 bit = 0, start;

		while (mn->set && bit < mn->size) {
			bit = find_next_bit(mn->set, mn->size, bit);
			if (bit >= mn->size)
				break;
			start = bit;
			bit = find_next_zero_bit(mn->set, mn->size, bit);
			fn(mn->node, start * pages, bit * pages, arg);
		}
	}
}

/* --- names that outlive their sample --------------------------------- */

static size_t u64_hash(long key, void *ctx __maybe_unused)
{
	return hash_64((u64)key, 32);
}

static bool u64_equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

/* The "gfp_flags=..." part of the sample as the recording kernel prints it. */
static char *print_gfp_name(struct evsel *evsel, struct perf_sample *sample)
{
	struct tep_record record = {
		.cpu = sample->cpu,
		.data = sample->raw_data,
		.size = sample->raw_size,
	};
	struct trace_seq seq;
	char *name = NULL, *p, *end;

	trace_seq_init(&seq);
	tep_print_event(evsel->tp_format->tep, &seq, &record, "%s",
			TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	p = strstr(seq.buffer, "gfp_flags=");
	if (p) {
		p += strlen("gfp_flags=");
		end = strchrnul(p, ' ');
		name = strndup(p, end - p);
	}
	trace_seq_destroy(&seq);
	return name;
}

/* A gfp value other than the last one named: named if it is new. */
static noinline int note_other_gfp_name(struct kmem_decoder *dec,
					struct evsel *evsel,
					struct perf_sample *sample, u64 gfp)
{
	char *name;

	if (!hashmap__find(dec->gfp_names, gfp, &name)) {
		name = print_gfp_name(evsel, sample);
		if (!name || !*name) {
			free(name);
			if (asprintf(&name, "%#" PRIx64, gfp) < 0)
				return -ENOMEM;
		}
		if (hashmap__add(dec->gfp_names, gfp, name)) {
			free(name);
			return -ENOMEM;
		}
	}
	dec->named_a_gfp = true;
	dec->last_gfp = gfp;
	return 0;
}

/*
 * The recording kernel's names for a gfp value, remembered per value.
 * Every page allocation asks, mostly for the value asked last: that test
 * stays in the decoder of each event that names gfp flags.
 */
static __always_inline int note_gfp_name(struct kmem_decoder *dec,
					 struct evsel *evsel,
					 struct perf_sample *sample, u64 gfp)
{
	if (dec->named_a_gfp && gfp == dec->last_gfp)
		return 0;
	return note_other_gfp_name(dec, evsel, sample, gfp);
}

const char *kmem_decoder__gfp_name(const struct kmem_decoder *dec, u64 gfp)
{
	char *name;

	if (dec->gfp_names && hashmap__find(dec->gfp_names, gfp, &name))
		return name;
	return "?";
}

/*
 * The decoder's copy of a name, one per distinct name, so that it outlives
 * the sample it lies in; NULL when @bytes holds no NUL.
 */
static const char *intern_name(struct kmem_decoder *dec, const char *bytes,
			       u32 len)
{
	char *copy;

	if (!memchr(bytes, '\0', len))
		return NULL;
	if (hashmap__find(dec->cache_names, bytes, &copy))
		return copy;
	copy = strdup(bytes);
	if (!copy)
		return ERR_PTR(-ENOMEM);
	if (hashmap__add(dec->cache_names, copy, copy)) {
		free(copy);
		return ERR_PTR(-ENOMEM);
	}
	return copy;
}

static struct name_words name_words(const char *bytes, u32 len)
{
	struct name_words w = { 0, 0 };

	/* Most names are this long: a load, not a copy of @len bytes. */
	if (len >= sizeof(w.head))
		memcpy(&w.head, bytes, sizeof(w.head));
	else
		memcpy(&w.head, bytes, len);
	if (len > sizeof(w.tail))
		memcpy(&w.tail, bytes + len - sizeof(w.tail), sizeof(w.tail));
	return w;
}

/* A name not among the recent ones: interned, and kept in @slot. */
static noinline const char *new_recent_name(struct kmem_decoder *dec,
					    struct recent_name *slot,
					    const char *bytes, u32 len,
					    struct name_words w)
{
	const char *name = intern_name(dec, bytes, len);

	/* Only a name whose NUL ends its field can be compared so. */
	if (!IS_ERR_OR_NULL(name) && strlen(name) + 1 == len) {
		slot->name = name;
		slot->len = len;
		slot->words = w;
	}
	return name;
}

/*
 * A slab cache name, as the decoder's copy of it.  Every kmem_cache_alloc
 * names its cache: a small cache of recent names spares hashing the name
 * each time.  It compares the bytes of a name as its first and last words
 * and, past 16 bytes, those between.  A name found there is the same
 * bytes as a copy that ends with its NUL, so it has its NUL too.  The
 * rest is out of line, which leaves the registers to the common case.
 */
static const char *cache_name(struct kmem_decoder *dec, const char *bytes,
			      u32 len)
{
	struct name_words w = name_words(bytes, len);
	struct recent_name *slot;

	slot = &dec->recent_names[hash_64(w.head ^ w.tail ^ len,
					  RECENT_NAMES_BITS)];
	if (slot->name && slot->len == len && slot->words.head == w.head &&
	    slot->words.tail == w.tail &&
	    (len <= 2 * sizeof(u64) ||
	     !memcmp(slot->name + sizeof(u64), bytes + sizeof(u64),
		     len - 2 * sizeof(u64))))
		return slot->name;
	return new_recent_name(dec, slot, bytes, len, w);
}

static void free_names(struct hashmap *names)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!names)
		return;
	hashmap__for_each_entry(names, cur, bkt)
		free(cur->pvalue);
	hashmap__free(names);
}

/* --- decoding -------------------------------------------------------- */

/*
 * A u64 field, read in place where the fields are plain (the sample holds
 * it: see too_short()): every page and slab event reads a few, and
 * format_field__intval() asks each field's size and byte order again.
 */
static __always_inline u64 raw_u64(bool plain, struct tep_format_field *field,
				   struct perf_sample *sample,
				   struct evsel *evsel)
{
	u64 v;

	if (!plain)
		return field_val(field, sample, evsel);
	memcpy(&v, (const char *)sample->raw_data + field->offset, sizeof(v));
	return v;
}

/* An int field, as raw_u64() reads a u64: field_int() where not plain. */
static __always_inline int raw_s32(bool plain, struct tep_format_field *field,
				   struct perf_sample *sample,
				   struct evsel *evsel)
{
	s32 v;

	if (!plain)
		return field_int(field, sample, evsel);
	memcpy(&v, (const char *)sample->raw_data + field->offset, sizeof(v));
	return v;
}

/*
 * What every page event has, but for the node of its page; @plain is
 * f->plain, a constant where the caller knows it.
 */
static __always_inline void decode_page_common(struct kmem_decoder *dec,
					       struct evsel *evsel,
					       struct perf_sample *sample,
					       const struct page_fields *f,
					       bool plain,
					       struct kmem_page_event *ev)
{
	ev->pfn = raw_u64(plain, f->pfn, sample, evsel);
	if (ev->pfn == f->failed[0] || ev->pfn == f->failed[1])
		ev->pfn = KMEM_PAGE_NO_PFN;
	ev->order = to_s16(raw_s32(plain, f->order, sample, evsel));
	ev->cpu_node = cpu_to_node(dec, sample->cpu);
}

static void decode_page_event(struct kmem_decoder *dec, struct evsel *evsel,
			      struct perf_sample *sample,
			      const struct page_fields *f,
			      struct kmem_page_event *ev)
{
	decode_page_common(dec, evsel, sample, f, f->plain, ev);
	ev->page_node = page_to_node(dec, ev->pfn);
}

/* The tag of a chain not seen before: its frames interned, + 1. */
static int new_chain_tag(struct kmem_decoder *dec,
			 const struct ip_callchain *chain, u32 *tag)
{
	/* More than the kernel keeps: kernel.perf_event_max_stack is 127. */
	u64 ips[512];
	size_t n;
	int id;

	n = callsite_resolver__frames(dec->config.resolver, chain, ips,
				      ARRAY_SIZE(ips));
	if (!n)
		return 0;
	id = kmem_stacks__intern(dec->config.stacks, ips, n);
	if (id == -ENOMEM)
		return id;
	if (id >= 0)
		*tag = id + 1;
	return 0;
}

/* Remember what raw chain @raw, new, became. */
static int note_raw_tag(struct kmem_decoder *dec, int raw, u32 tag)
{
	if (kmem_grow(&dec->raw_tags, &dec->max_raw_tags, raw, 1,
		      sizeof(*dec->raw_tags)))
		return -ENOMEM;
	dec->raw_tags[raw] = tag;
	dec->nr_raw_tags = raw + 1;
	return 0;
}

/*
 * Is @chain the last tagged one?  Allocations come in runs from one
 * path (a fault loop, a file read): a compare of its frames is cheaper
 * than their hash and a probe.
 */
static bool same_as_last(const struct kmem_decoder *dec,
			 const struct ip_callchain *chain)
{
	const u64 *ips;
	size_t nr;

	if (dec->last_raw < 0)
		return false;
	ips = kmem_stacks__frames(dec->raw_chains, dec->last_raw, &nr);
	return ips && nr == chain->nr &&
	       !memcmp(ips, chain->ips, nr * sizeof(*ips));
}

/*
 * The tag of an allocation: its callchain's id in config.stacks, + 1.
 * Dropping the allocator's frames looks up frame after frame, and the
 * same chains come again and again: the chain as recorded is interned
 * first, and what it became is remembered by its id.
 */
static int chain_tag(struct kmem_decoder *dec, struct perf_sample *sample,
		     u32 *tag)
{
	const struct ip_callchain *chain = sample->callchain;
	int raw, err;

	*tag = 0;
	if (!dec->config.stacks || !dec->config.resolver || !chain)
		return 0;
	if (same_as_last(dec, chain)) {
		*tag = dec->raw_tags[dec->last_raw];
		return 0;
	}
	raw = kmem_stacks__intern(dec->raw_chains, chain->ips, chain->nr);
	if (raw == -ENOMEM)
		return raw;
	if (raw >= 0 && (size_t)raw < dec->nr_raw_tags) {
		*tag = dec->raw_tags[raw];
		dec->last_raw = raw;
		return 0;
	}
	err = new_chain_tag(dec, chain, tag);
	/* A chain too long to intern is dropped anew each time. */
	if (!err && raw >= 0) {
		err = note_raw_tag(dec, raw, *tag);
		dec->last_raw = err ? -1 : raw;
	}
	return err;
}

static noinline int decode_any_page_alloc(struct kmem_decoder *dec,
					  struct evsel *evsel,
					  struct perf_sample *sample,
					  struct kmem_event *ev)
{
	const struct page_fields *f = &dec->page_alloc;
	struct kmem_page_event *page = &ev->page;
	int err;

	if (too_short(dec, f->raw_size, sample, ev))
		return 0;
	ev->kind = KMEM_EVENT_PAGE_ALLOC;
	decode_page_event(dec, evsel, sample, f, page);
	page->migtype = to_s16(raw_s32(f->plain, f->migtype, sample, evsel));
	page->gfp = raw_u64(f->plain, f->gfp, sample, evsel);
	page->callsite = 0;
	if (dec->config.resolver && sample->callchain)
		page->callsite = callsite_resolver__callsite(dec->config.resolver,
							     sample->callchain);
	err = note_gfp_name(dec, evsel, sample, page->gfp);
	page->tag = 0;
	/* The caller's to set, if it groups tasks: kmem_page_event::task. */
	page->task = 0;
	if (!err && dec->config.stacks)
		err = chain_tag(dec, sample, &page->tag);
	dec->quick_alloc = f->plain && !dec->page_nodes && !dec->config.stacks &&
			   dec->named_a_gfp;
	return err;
}

/*
 * A quick allocation (see kmem_decoder::quick_alloc), long enough, of the
 * gfp flags named last, whose callsite the last walk gives, is decoded
 * without a call: most are.  Any other is decoded by a function of its
 * own, so that this one saves no register for the walk and the calls
 * that one may make.
 */
static int decode_page_alloc(struct kmem_decoder *dec, struct evsel *evsel,
			     struct perf_sample *sample, struct kmem_event *ev)
{
	const struct page_fields *f = &dec->page_alloc;
	struct kmem_page_event *page = &ev->page;
	u64 gfp, callsite = 0;

	if (!dec->quick_alloc || sample->raw_size < f->raw_size)
		return decode_any_page_alloc(dec, evsel, sample, ev);
	gfp = raw_u64(true, f->gfp, sample, evsel);
	if (gfp != dec->last_gfp ||
	    (dec->config.resolver && sample->callchain &&
	     !callsite_resolver__known_callsite(dec->config.resolver,
						sample->callchain, &callsite)))
		return decode_any_page_alloc(dec, evsel, sample, ev);
	ev->kind = KMEM_EVENT_PAGE_ALLOC;
	decode_page_common(dec, evsel, sample, f, true, page);
	page->page_node = -1;
	page->migtype = to_s16(raw_s32(true, f->migtype, sample, evsel));
	page->gfp = gfp;
	page->callsite = callsite;
	page->tag = 0;
	page->task = 0;
	return 0;
}

static noinline int decode_any_page_free(struct kmem_decoder *dec,
					 struct evsel *evsel,
					 struct perf_sample *sample,
					 struct kmem_event *ev)
{
	const struct page_fields *f = &dec->page_free;

	if (too_short(dec, f->raw_size, sample, ev))
		return 0;
	ev->kind = KMEM_EVENT_PAGE_FREE;
	ev->page = (struct kmem_page_event){ .migtype = -1 };
	decode_page_event(dec, evsel, sample, f, &ev->page);
	dec->quick_free = f->plain && !dec->page_nodes;
	return 0;
}

/*
 * A quick free, long enough, is decoded without a call; any other in a
 * function of its own, so that this one saves no register for the calls
 * that one may make.
 */
static int decode_page_free(struct kmem_decoder *dec, struct evsel *evsel,
			    struct perf_sample *sample, struct kmem_event *ev)
{
	const struct page_fields *f = &dec->page_free;

	if (!dec->quick_free || sample->raw_size < f->raw_size)
		return decode_any_page_free(dec, evsel, sample, ev);
	ev->kind = KMEM_EVENT_PAGE_FREE;
	ev->page = (struct kmem_page_event){ .migtype = -1, .page_node = -1 };
	decode_page_common(dec, evsel, sample, f, true, &ev->page);
	return 0;
}

static int decode_extfrag(struct kmem_decoder *dec, struct evsel *evsel,
			  struct perf_sample *sample, struct kmem_event *ev)
{
	const struct extfrag_fields *f = &dec->extfrag;
	struct kmem_frag_event *frag = &ev->extfrag;

	if (too_short(dec, f->raw_size, sample, ev))
		return 0;
	ev->kind = KMEM_EVENT_EXTFRAG;
	*frag = (struct kmem_frag_event){
		.pfn = field_val(f->pfn, sample, evsel),
		.alloc_order = field_int(f->alloc_order, sample, evsel),
		.fallback_order = field_int(f->fallback_order, sample, evsel),
		.alloc_migtype = field_int(f->alloc_migtype, sample, evsel),
		.fallback_migtype = field_int(f->fallback_migtype, sample, evsel),
		.change_ownership = field_int(f->change_ownership, sample,
					      evsel),
	};
	if (dec->config.resolver && sample->callchain)
		frag->callsite = callsite_resolver__callsite(dec->config.resolver,
							     sample->callchain);
	if (dec->config.stacks && chain_tag(dec, sample, &frag->tag))
		return -ENOMEM;
	return 0;
}

/* The callsite of a memcg reclaim, outside the charging functions. */
static u64 memcg_callsite(struct kmem_decoder *dec, struct perf_sample *sample)
{
	struct callsite_resolver *r = dec->config.memcg_resolver ?:
				      dec->config.resolver;

	return r && sample->callchain ?
	       callsite_resolver__callsite(r, sample->callchain) : 0;
}

static int decode_stall(struct kmem_decoder *dec, struct evsel *evsel,
			struct perf_sample *sample, struct kmem_event *ev)
{
	const struct stall_fields *f = evsel->priv;
	struct kmem_stall_event *stall = &ev->stall;

	if (too_short(dec, f->raw_size, sample, ev))
		return 0;
	ev->kind = KMEM_EVENT_STALL;
	*stall = (struct kmem_stall_event){
		.type = f->type,
		.order = f->order ? to_s16(field_int(f->order, sample, evsel)) : -1,
		.gfp = f->gfp ? field_val(f->gfp, sample, evsel) : 0,
	};
	/* A status is an int: negative ones stay negative. */
	if (f->value && f->value->flags & TEP_FIELD_IS_SIGNED)
		stall->value = (s64)field_int(f->value, sample, evsel);
	else if (f->value)
		stall->value = field_val(f->value, sample, evsel);
	if (f->type != KMEM_STALL_MEMCG_BEGIN)
		return 0;
	stall->callsite = memcg_callsite(dec, sample);
	/* Its rows name the GFP flags no allocation may have named. */
	return note_gfp_name(dec, evsel, sample, stall->gfp);
}

/* A number of a slab event; the sample holds it (see too_short()). */
static __always_inline u64 slab_val(const struct slab_fields *f,
				    struct tep_format_field *field,
				    struct perf_sample *sample,
				    struct evsel *evsel)
{
	return raw_u64(f->plain, field, sample, evsel);
}

/* The node a slab allocation asked for; NUMA_NO_NODE (-1) if not said. */
static __always_inline int slab_node(const struct slab_fields *f,
				     struct perf_sample *sample,
				     struct evsel *evsel)
{
	if (!f->node)
		return -1;
	return raw_s32(f->plain, f->node, sample, evsel);
}

static int decode_slab_alloc(struct kmem_decoder *dec, struct evsel *evsel,
			     struct perf_sample *sample, struct kmem_event *ev)
{
	const struct slab_fields *f = evsel->priv;
	const char *cache = NULL, *bytes;
	u32 len;

	if (too_short(dec, f->raw_size, sample, ev))
		return 0;
	bytes = f->name ? field_bytes(f->name, sample, evsel, &len) : NULL;
	if (bytes) {
		cache = cache_name(dec, bytes, len);
		if (IS_ERR(cache))
			return PTR_ERR(cache);
	}
	ev->kind = KMEM_EVENT_SLAB_ALLOC;
	ev->slab_alloc = (struct kmem_slab_alloc_event){
		.callsite = slab_val(f, f->call_site, sample, evsel),
		.ptr = slab_val(f, f->ptr, sample, evsel),
		.bytes_req = slab_val(f, f->bytes_req, sample, evsel),
		.bytes_alloc = slab_val(f, f->bytes_alloc, sample, evsel),
		.cache = cache,
		.cpu = sample->cpu,
		.cpu_node = cpu_to_node(dec, sample->cpu),
		.node = slab_node(f, sample, evsel),
	};
	return 0;
}

static int decode_slab_free(struct kmem_decoder *dec, struct evsel *evsel,
			    struct perf_sample *sample, struct kmem_event *ev)
{
	const struct slab_fields *f = evsel->priv;

	if (too_short(dec, f->raw_size, sample, ev))
		return 0;
	ev->kind = KMEM_EVENT_SLAB_FREE;
	/* Nothing is counted by the freeing callsite: not even read. */
	ev->slab_free = (struct kmem_slab_free_event){
		.ptr = slab_val(f, f->ptr, sample, evsel),
		.cpu = sample->cpu,
	};
	return 0;
}

/* --- binding to a session -------------------------------------------- */

static bool kernel_before(const char *release, int major, int minor)
{
	int ma, mi;

	if (!release || sscanf(release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/*
 * Where a field ends, for a field that lies in one piece in a record of
 * the event and, unless it is an array, has the size of an integer: -1
 * if not.
 */
static int field_layout_end(const struct tep_format_field *f)
{
	if (f->offset < 0 || f->size <= 0 || f->offset > 0xffff ||
	    f->size > 0xffff)
		return -1;
	if (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size != 1 && f->size != 2 &&
	    f->size != 4 && f->size != 8)
		return -1;
	return f->offset + f->size;
}

/*
 * The formats come with the file, and a corrupt one would have numbers
 * read from the wrong bytes: a silent wrong count.  The kernel lays an
 * event's fields out one after the other, the common ones first, so a
 * field that starts before the end of the previous one, or a number that
 * is not 1, 2, 4 or 8 bytes, means a corrupt format.
 */
static bool format_is_laid_out(struct evsel *evsel, char *err, size_t err_size)
{
	struct tep_format_field *lists[] = {
		evsel->tp_format->format.common_fields,
		evsel->tp_format->format.fields,
	};
	struct tep_format_field *f;
	int end = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		for (f = lists[i]; f; f = f->next) {
			if (f->offset >= end && field_layout_end(f) > 0) {
				end = field_layout_end(f);
				continue;
			}
			snprintf(err, err_size,
				 "the format of %s is corrupt: field '%s' at offset %d, size %d",
				 evsel__name(evsel), f->name, f->offset, f->size);
			return false;
		}
	}
	return true;
}

/*
 * Live pages and objects pair each allocation with its free: of an event
 * recorded one time in N (perf record -c N, or -F), most frees have no
 * allocation and every count is of sampled events.  Say so, once.
 */
static void note_sampling(struct kmem_decoder *dec, struct evsel *evsel)
{
	const struct perf_event_attr *attr = &evsel->core.attr;
	struct kmem_trace_info *info = &dec->info;

	if ((!attr->freq && attr->sample_period == 1) || info->sampled[0])
		return;
	if (attr->freq)
		snprintf(info->sampled, sizeof(info->sampled),
			 "%s was sampled at %" PRIu64 " Hz", evsel__name(evsel),
			 (u64)attr->sample_freq);
	else
		snprintf(info->sampled, sizeof(info->sampled),
			 "%s was sampled, one event in %" PRIu64,
			 evsel__name(evsel), (u64)attr->sample_period);
}

/* An event perf kmem can read: its format, well formed. */
static bool is_usable(struct kmem_decoder *dec, struct evsel *evsel, char *err,
		      size_t err_size)
{
	if (!evsel->tp_format) {
		snprintf(err, err_size,
			 "the trace has no format of %s: record it with 'perf kmem record'",
			 evsel__name(evsel));
		return false;
	}
	note_sampling(dec, evsel);
	return format_is_laid_out(evsel, err, err_size);
}

/* perf kmem stat -b decodes the running kernel's formats, of no file. */
static const char *trace_path(const struct kmem_decoder *dec)
{
	return dec->session->data ? dec->session->data->path : "the kernel";
}

static struct evsel *find_event(struct kmem_decoder *dec, const char *name)
{
	return evlist__find_tracepoint_by_name(dec->session->evlist, name);
}

/*
 * The recording kernel's pageblock_order, from the text of the extfrag
 * format that perf kept: libtraceevent's parse of it cannot be trusted
 * (see read-pageblock.h).
 */
static int trace_pageblock_order(struct kmem_decoder *dec, struct evsel *extfrag,
				 char *why, size_t why_size)
{
	const struct tep_event *event = extfrag->tp_format;
	unsigned long len;
	const char *text;

	text = trace_event__format(&dec->session->tevent, event, &len);
	if (!text) {
		snprintf(why, why_size, "the trace has no text of the %s format",
			 page_handlers[2].name);
		return -ENOENT;
	}
	return kmem_pageblock__order_of_format(text, len,
					       tep_get_long_size(event->tep),
					       why, why_size);
}

/* The extfrag event's fields, and the pageblock_order its classes need. */
static int setup_extfrag(struct kmem_decoder *dec, struct evsel *extfrag,
			 char *err, size_t err_size)
{
	struct kmem_trace_info *info = &dec->info;
	int order = dec->config.pageblock_order;

	if (extfrag && (!is_usable(dec, extfrag, err, err_size) ||
			setup_extfrag_fields(extfrag, &dec->extfrag, err,
					     err_size)))
		return -EINVAL;
	info->has_extfrag = !!extfrag;
	if (order < 0 && extfrag)
		order = trace_pageblock_order(dec, extfrag, info->pageblock_why,
					      sizeof(info->pageblock_why));
	else if (order < 0)
		snprintf(info->pageblock_why, sizeof(info->pageblock_why),
			 "the trace has no %s format to read it from",
			 page_handlers[2].name);
	info->pageblock_order = order >= 0 ? order : KMEM_FRAG_ORDER_UNKNOWN;
	return 0;
}

/*
 * The names of mm_compaction_end's __print_symbolic(REC->status, ...),
 * which changed between kernels: kept by value for the report.
 */
static int setup_status_names(struct kmem_decoder *dec, struct evsel *evsel)
{
	struct tep_print_arg *arg = evsel->tp_format->print_fmt.args;
	struct tep_print_flag_sym *sym;

	for (; arg; arg = arg->next) {
		if (arg->type != TEP_PRINT_SYMBOL || !arg->symbol.field ||
		    arg->symbol.field->type != TEP_PRINT_FIELD ||
		    strcmp(arg->symbol.field->field.name, "status"))
			continue;
		for (sym = arg->symbol.symbols; sym; sym = sym->next) {
			char *end;
			unsigned long v = strtoul(sym->value, &end, 0);

			if (*end || end == sym->value || v >= NR_STATUS_NAMES ||
			    dec->status_names[v])
				continue;
			dec->status_names[v] = strdup(sym->str);
			if (!dec->status_names[v])
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The stall events the trace has; those it lacks leave the parts of the
 * stall analysis they feed empty, which info->stall_events says.
 */
static int setup_stall(struct kmem_decoder *dec, char *err, size_t err_size)
{
	size_t i;
	int ret;

	for (i = 0; i < KMEM_STALL_NR_TYPES; i++) {
		const struct stall_tracepoint *tp = &stall_tracepoints[i];
		struct evsel *evsel = find_event(dec, tp->name);
		struct stall_fields *f = &dec->stall[i];
		const struct field_want want[] = {
			{ &f->order,	tp->order, false },
			{ &f->gfp,	tp->gfp, false },
			{ &f->value,	tp->value, tp->value_optional },
		};

		if (!evsel)
			continue;
		if (!is_usable(dec, evsel, err, err_size) ||
		    find_fields(evsel, want, ARRAY_SIZE(want), &f->raw_size,
				err, err_size))
			return -EINVAL;
		if (i == KMEM_STALL_COMPACT_END) {
			ret = setup_status_names(dec, evsel);
			if (ret)
				return ret;
		}
		f->type = i;
		evsel->priv = f;
		evsel->handler = decode_stall;
		dec->info.stall_events |= 1U << i;
	}
	return 0;
}

static int setup_page(struct kmem_decoder *dec, char *err, size_t err_size)
{
	struct evsel *alloc = find_event(dec, page_handlers[0].name);
	struct evsel *free_ev = find_event(dec, page_handlers[1].name);
	struct evsel *extfrag = find_event(dec, page_handlers[2].name);
	struct evsel *any = alloc ?: free_ev;
	int ret;

	if (!any) {
		snprintf(err, err_size,
			 "%s has no page allocator events: record them with 'perf kmem record --page'",
			 trace_path(dec));
		return -EINVAL;
	}
	if (alloc && (!is_usable(dec, alloc, err, err_size) ||
		      setup_page_fields(dec, alloc, &dec->page_alloc, true,
					err, err_size)))
		return -EINVAL;
	if (free_ev && (!is_usable(dec, free_ev, err, err_size) ||
			setup_page_fields(dec, free_ev, &dec->page_free, false,
					  err, err_size)))
		return -EINVAL;
	if (setup_extfrag(dec, extfrag, err, err_size))
		return -EINVAL;
	if (evlist__set_tracepoints_handlers(dec->session->evlist,
					     page_handlers))
		return -EINVAL;
	ret = setup_stall(dec, err, err_size);
	if (ret)
		return ret;
	dec->info.has_page_alloc = !!alloc;
	dec->info.has_page_free = !!free_ev;
	dec->info.has_callchains = alloc && evsel__has_callchain(alloc);
	dec->info.page_size = tep_get_page_size(any->tp_format->tep) ?: 4096;
	setup_mem2node(dec);
	dec->page_nodes = dec->info.has_mem2node && dec->info.nr_nodes >= 2 &&
			  !dec->info.pfn_is_page;
	set_failed_pfns(dec, &dec->page_alloc);
	set_failed_pfns(dec, &dec->page_free);
	dec->gfp_names = hashmap__new(u64_hash, u64_equal, NULL);
	if (IS_ERR(dec->gfp_names)) {
		dec->gfp_names = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int setup_slab(struct kmem_decoder *dec, char *err, size_t err_size)
{
	size_t i, found = 0;

	for (i = 0; i < NR_SLAB_EVENTS; i++) {
		struct evsel *evsel = find_event(dec, slab_handlers[i].name);
		bool is_alloc = slab_handlers[i].handler == decode_slab_alloc;

		if (!evsel)
			continue;
		if (!is_usable(dec, evsel, err, err_size) ||
		    setup_slab_fields(evsel, &dec->slab[i], is_alloc, err,
				      err_size))
			return -EINVAL;
		evsel->priv = &dec->slab[i];
		found++;
	}
	/* Without --page or --slab, perf kmem stat analyses slab. */
	if (!found && find_event(dec, page_handlers[0].name)) {
		snprintf(err, err_size,
			 "%s has no slab allocator events, but page allocator events: use 'perf kmem %s --page'",
			 trace_path(dec), dec->config.command);
		return -EINVAL;
	}
	if (!found) {
		snprintf(err, err_size,
			 "%s has no slab allocator events: record them with 'perf kmem record --slab'",
			 trace_path(dec));
		return -EINVAL;
	}
	if (evlist__set_tracepoints_handlers(dec->session->evlist,
					     slab_handlers))
		return -EINVAL;
	dec->cache_names = hashmap__new(kmem_name_hash, kmem_name_equal, NULL);
	if (IS_ERR(dec->cache_names)) {
		dec->cache_names = NULL;
		return -ENOMEM;
	}
	return 0;
}

struct kmem_decoder *kmem_decoder__new(struct perf_session *session,
				       const struct kmem_decode_config *config,
				       char *err, size_t err_size)
{
	struct kmem_decoder *dec = zalloc(sizeof(*dec));
	int ret;

	if (!dec) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	dec->session = session;
	dec->config = *config;
	dec->info.page_size = 4096;
	dec->info.pageblock_order = KMEM_FRAG_ORDER_UNKNOWN;
	dec->info.pre_v4_4 = kernel_before(session->header.env.os_release,
					   4, 4);
	ret = setup_nodes(dec);
	if (!ret && config->stacks) {
		dec->raw_chains = kmem_stacks__new();
		dec->last_raw = -1;
		if (!dec->raw_chains)
			ret = -ENOMEM;
	}
	if (!ret && config->slab)
		ret = setup_slab(dec, err, err_size);
	if (!ret && config->page)
		ret = setup_page(dec, err, err_size);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, err_size, "out of memory");
		kmem_decoder__delete(dec);
		return NULL;
	}
	return dec;
}

void kmem_decoder__delete(struct kmem_decoder *dec)
{
	size_t i;

	if (!dec)
		return;
	for (i = 0; i < NR_STATUS_NAMES; i++)
		free(dec->status_names[i]);
	free_names(dec->gfp_names);
	free_names(dec->cache_names);
	kmem_stacks__delete(dec->raw_chains);
	free(dec->raw_tags);
	if (dec->info.has_mem2node)
		mem2node__exit(&dec->mem2node);
	free(dec->cpu_node);
	free(dec);
}

const struct kmem_trace_info *kmem_decoder__info(const struct kmem_decoder *dec)
{
	return &dec->info;
}

const char *kmem_stall_tracepoint(enum kmem_stall_type type, bool *callchain)
{
	if ((unsigned int)type >= KMEM_STALL_NR_TYPES)
		return NULL;
	*callchain = stall_tracepoints[type].callchain;
	return stall_tracepoints[type].name;
}

const char *kmem_decoder__compact_status(const struct kmem_decoder *dec,
					 u64 status)
{
	return status < NR_STATUS_NAMES ? dec->status_names[status] : NULL;
}

u64 kmem_decoder__nr_short(const struct kmem_decoder *dec)
{
	return dec->nr_short;
}
