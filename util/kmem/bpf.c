// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem stat -b: load util/bpf_skel/kmem.bpf.c, count, read its maps
 * into the analyses.  See kmem/bpf.h for where the builtin ends and this
 * begins, kmem/bpf-fill.h for how the maps become the analyses' numbers.
 *
 * The report needs what a recording's header and tracing data give: the
 * tracepoint formats (to name GFP flags and read pageblock_order the way
 * a recording's are), the kernel's symbols and the NUMA topology.  A live
 * perf session holds them, taken from this machine: tracefs, kallsyms and
 * sysfs.
 */
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <api/fs/fs.h>
#include <api/fs/tracing_path.h>
#include <traceevent/event-parse.h>

#include "cgroup.h"
#include "debug.h"
#include "env.h"
#include "evlist.h"
#include "evsel.h"
#include "hashmap.h"
#include "header.h"
#include "bpf.h"
#include "bpf-fill.h"
#include "count-frag.h"
#include "count-interval.h"
#include "count-page.h"
#include "count-profile.h"
#include "count-slab.h"
#include "count-stacks.h"
#include "count-stall.h"
#include "count.h"
#include "read-callsite.h"
#include "read-decode.h"
#include "read-procmem.h"
#include "run.h"
#include "sample.h"
#include "session.h"
#include "strlist.h"
#include "synthetic-events.h"
#include "time-utils.h"
#include "tool.h"
#include "trace-event.h"
#include "tracepoint.h"

#include "bpf_skel/kmem.skel.h"

#define NOTE_SIZE	256

/*
 * A profile key's allocations and bytes, as the rows' estimates give
 * them: now, and when the last period of the profile closed.
 */
struct kmem_bpf_estimate {
	u64	now[2];
	u64	before[2];
};

struct kmem_bpf_run {
	struct kmem_bpf_config		config;
	struct kmem_bpf			*skel;
	/* This machine as a recording's header would describe it. */
	struct perf_tool		tool;
	struct perf_session		*session;
	struct evlist			*evlist;
	struct cgroup			*cgrp;
	struct kmem_stacks		*stacks;	/* --folded, --pprof */
	struct kmem_profile		*profile;	/* --pprof */
	struct kmem_bpf_estimate	*estimates;	/* by profile key */
	size_t				nr_estimates;
	size_t				profiled;	/* -I intervals in it */
	s64				wall_offset;	/* at the end */
	/* The comment of kmem_bpf_run__profile()'s view. */
	char				pprof_line[200];
	const char			*pprof_comments[1];
	/* Allocation stalls, from the records of the ring as they come. */
	struct ring_buffer		*stall_ring;
	struct callsite_resolver	*memcg_resolver;
	u32				stall_programs;	/* 1 << type: loaded */
	int				stall_err;	/* of a record */
	char				stall_missing[512];
	char				exact[160];	/* the source's, with stalls */
	int				nr_cpus;
	int				nr_nodes;
	u64				page_size;
	u64				max_pfn;
	u64				nr_blocks;
	u32				live_entries;
	/* Frames walked: --max-stack, and the BPF side's of a raw one. */
	int				stack_depth;
	bool				raw_pages;	/* the raw tracepoints */
	/* The page programs' links: raw or not, chosen at the start. */
	struct bpf_link			*page_links[2];
	bool				finished;
	u64				start_ns;
	u64				stop_ns;
	/* Runs the kernel skipped: a program of ours already ran on the CPU. */
	u64				recursion_misses;
	u64				prog_runs, prog_ns;	/* bpf_stats */
	/* The maps, read at the end; the snapshot points into these. */
	struct kmem_bpf_snapshot	snap;
	void				*bufs[10];
	struct hashmap			*callsites;	/* stack id -> callsite */
	struct hashmap			*stack_ips;	/* stack id -> frames */
	struct strlist			*caches;	/* the cache names, once */
	struct strlist			*left_out;	/* kmem.bpf-leave-out */
	/* The analyses, the report: where its numbers come from. */
	struct kmem_run_core		core;
	struct kmem_report_source	source;
	bool				settled;
	/* /proc/vmstat and /proc/pagetypeinfo at the start and the end. */
	struct kmem_vmstat		vmstat[2];
	int				vmstat_err[2];
	struct kmem_pagetypeinfo	free_lists[2];
	int				free_err[2];
	struct kmem_report_memory	memory;
	char				memory_why[2][NOTE_SIZE];
	char				vmstat_missing[256];
};

/* --- libbpf's messages ------------------------------------------------ */

/*
 * libbpf reports through one callback for the whole process, with no
 * argument: while a run loads, its messages are kept here, the last
 * error line for the one line perf kmem prints, all of them for -v.
 */
static char libbpf_last[NOTE_SIZE];

static int keep_libbpf_message(enum libbpf_print_level level,
			       const char *fmt, va_list ap)
{
	char line[NOTE_SIZE];
	size_t len;
	va_list copy;

	va_copy(copy, ap);
	if (verbose > 0)
		vfprintf(stderr, fmt, copy);
	va_end(copy);
	vsnprintf(line, sizeof(line), fmt, ap);
	len = strlen(line);
	if (len && line[len - 1] == '\n')
		line[len - 1] = '\0';
	if (level == LIBBPF_WARN && (strstr(line, "prog '") || !libbpf_last[0]))
		snprintf(libbpf_last, sizeof(libbpf_last), "%s", line);
	return 0;
}

/* --- this machine ----------------------------------------------------- */

/* The highest pfn of any zone, +1: /proc/zoneinfo's start_pfn + spanned. */
static u64 read_max_pfn(void)
{
	u64 start = 0, spanned, max = 0;
	char line[256];
	FILE *fp = fopen("/proc/zoneinfo", "r");

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, " spanned %" SCNu64, &spanned) == 1)
			continue;
		if (sscanf(line, " start_pfn: %" SCNu64, &start) == 1 &&
		    start + spanned > max)
			max = start + spanned;
	}
	fclose(fp);
	return max;
}

/* The features of a recording's header that describe its machine. */
static const int machine_features[] = {
	HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_ARCH, HEADER_NRCPUS,
	HEADER_NUMA_TOPOLOGY, HEADER_MEM_TOPOLOGY,
};

static int read_feature(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample __maybe_unused,
			struct machine *machine __maybe_unused)
{
	struct kmem_bpf_run *run = container_of(tool, struct kmem_bpf_run, tool);

	/* The end mark of the features is no feature. */
	if (event->feat.feat_id >= HEADER_LAST_FEATURE)
		return 0;
	return perf_event__process_feature(run->session, event);
}

/*
 * What a recording's header says of the machine, of this one: perf's own
 * writers of those features, read back as a pipe's are.
 */
static int fill_env(struct kmem_bpf_run *run)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(machine_features); i++)
		perf_header__set_feat(&run->session->header, machine_features[i]);
	return perf_event__synthesize_features(&run->tool, run->session,
					       run->evlist, read_feature);
}

/* --- the tracepoints and the live session ----------------------------- */

/* Those of the allocators, then the number that they cannot do without. */
static const char * const page_events[] = {
	"kmem:mm_page_alloc", "kmem:mm_page_free", "kmem:mm_page_alloc_extfrag",
};

static const char * const slab_events[] = {
	"kmem:kmalloc", "kmem:kfree", "kmem:kmem_cache_alloc",
	"kmem:kmem_cache_free",
};

/*
 * The text of the tracepoint's format, kept in the session as perf keeps
 * a recording's (trace_event__format()): the decoder reads
 * pageblock_order from it.  Without it the decoder says why not.
 */
static void keep_format(struct kmem_bpf_run *run, const char *sys,
			const char *name, struct evsel *evsel)
{
	char *dir = get_events_file(sys), path[PATH_MAX], *text;
	size_t size;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s/format", dir, name);
	put_events_file(dir);
	if (filename__read_str(path, &text, &size))
		return;
	if (trace_event__keep_format(&run->session->tevent, evsel->tp_format,
				     text, size))
		free(text);
}

/*
 * An evsel of tracepoint @event ("sys:name"), with its format from
 * tracefs: 0; 1 where the kernel has none, or perf config
 * kmem.bpf-leave-out left it out; -EINVAL.
 */
static int add_tracepoint(struct kmem_bpf_run *run, const char *event,
			  char *err, size_t err_size)
{
	const char *name = strchr(event, ':') + 1;
	struct evsel *evsel;
	char sys[32];

	if (strlist__has_entry(run->left_out, name) ||
	    !is_valid_tracepoint(event))
		return 1;
	snprintf(sys, sizeof(sys), "%.*s", (int)(name - 1 - event), event);
	evsel = evsel__newtp(sys, name);
	if (IS_ERR(evsel)) {
		snprintf(err, err_size,
			 "cannot read the format of %s in tracefs: %s",
			 event, strerror(-PTR_ERR(evsel)));
		return -EINVAL;
	}
	keep_format(run, sys, name, evsel);
	/* The callsites come from stacks, as a recording's callchains. */
	if (!strcmp(name, "mm_page_alloc"))
		evsel->core.attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	evlist__add(run->evlist, evsel);
	return 0;
}

static bool is_event_named(const char * const *events, size_t nr, const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(strchr(events[i], ':') + 1, name))
			return true;
	return false;
}

/* Each name of kmem.bpf-leave-out one of our tracepoints: a typo says so. */
static int check_left_out(struct kmem_bpf_run *run, char *err, size_t err_size)
{
	struct str_node *node;
	bool chain;
	int type;

	strlist__for_each_entry(node, run->left_out) {
		const char *name = node->s;
		bool ours = is_event_named(page_events, ARRAY_SIZE(page_events), name) ||
			    is_event_named(slab_events, ARRAY_SIZE(slab_events), name);

		for (type = 0; !ours && type < KMEM_STALL_NR_TYPES; type++) {
			const char *event = kmem_stall_tracepoint(type, &chain);

			ours = !strcmp(strchr(event, ':') + 1, name);
		}
		if (!ours) {
			snprintf(err, err_size,
				 "kmem.bpf-leave-out = %s: no tracepoint of perf kmem is named %s",
				 run->config.leave_out, name);
			return -EINVAL;
		}
	}
	return 0;
}

/* The tracepoints of an allocator, of which the first @needed must be. */
static int add_allocator(struct kmem_bpf_run *run, const char * const *events,
			 size_t nr, size_t needed, const char *what, char *err,
			 size_t err_size)
{
	size_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		ret = add_tracepoint(run, events[i], err, err_size);
		if (ret < 0)
			return ret;
		if (ret && i < needed) {
			snprintf(err, err_size,
				 "the kernel has no %s tracepoint: the %s allocator cannot be counted",
				 events[i], what);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The stall tracepoints the kernel has (and kmem.bpf-leave-out did not
 * leave out), in the session as a recording's: the decoder names
 * mm_compaction_end's statuses from its format.  One that is missing
 * only takes its part of the section away.
 */
static int add_stall_tracepoints(struct kmem_bpf_run *run, char *err,
				 size_t err_size)
{
	size_t n = 0, size = sizeof(run->stall_missing);
	int type, ret;

	for (type = 0; type < KMEM_STALL_NR_TYPES; type++) {
		bool chain;
		const char *event = kmem_stall_tracepoint(type, &chain);

		ret = add_tracepoint(run, event, err, err_size);
		if (ret < 0)
			return ret;
		if (ret)
			n += snprintf(run->stall_missing + n, size - n, "%s%s",
				      n ? "," : "", event);
		else
			run->stall_programs |= 1U << type;
	}
	return 0;
}

static int add_tracepoints(struct kmem_bpf_run *run, char *err, size_t err_size)
{
	const struct kmem_run_config *c = &run->config.stat;

	if (c->page && (add_allocator(run, page_events, ARRAY_SIZE(page_events),
				      2, "page", err, err_size) ||
			add_stall_tracepoints(run, err, err_size)))
		return -EINVAL;
	run->core.extfrag = c->page &&
		evlist__find_tracepoint_by_name(run->evlist, page_events[2]);
	if (c->slab && add_allocator(run, slab_events, ARRAY_SIZE(slab_events),
				     ARRAY_SIZE(slab_events), "slab", err,
				     err_size))
		return -EINVAL;
	return 0;
}

/*
 * A memcg reclaim's row is named by its begin's stack past memcg's
 * charging functions as well as the allocator's, as a recording's is
 * (run.c): the allocator pattern the user gave, or the built-in one,
 * and memcg's.
 */
static int setup_memcg_resolver(struct kmem_bpf_run *run, char *err,
				size_t err_size)
{
	const struct kmem_run_config *c = &run->config.stat;
	const char *user = c->alloc_regex_add ?: c->alloc_regex;

	if (!(run->stall_programs & (1U << KMEM_STALL_MEMCG_BEGIN)))
		return 0;
	run->memcg_resolver =
		callsite_resolver__new_memcg(&run->session->machines.host, user,
					     c->alloc_regex_add, c->raw_ip,
					     err, err_size);
	if (!run->memcg_resolver)
		return -EINVAL;
	return callsite_resolver__use_kallsyms(run->memcg_resolver,
					       "/proc/kallsyms");
}

/*
 * The machine as perf.data would describe it, and the decoder of its
 * formats: the same pageblock_order and GFP names as its recordings get.
 */
static int live_session(struct kmem_bpf_run *run, char *err, size_t err_size)
{
	const struct kmem_bpf_config *c = &run->config;
	struct kmem_decode_config dc = {
		.page = c->stat.page,
		.slab = c->stat.slab,
		.pageblock_order = -1,
		.command = "stat",
	};

	perf_tool__init(&run->tool, false);
	run->session = perf_session__new(NULL, &run->tool);
	if (IS_ERR(run->session)) {
		run->session = NULL;
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	run->evlist = evlist__new();
	run->left_out = strlist__new(c->leave_out, NULL);
	if (!run->evlist || !run->left_out || fill_env(run)) {
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	run->session->evlist = run->evlist;
	if (check_left_out(run, err, err_size) || add_tracepoints(run, err, err_size))
		return -EINVAL;
	run->core.resolver = callsite_resolver__new(&run->session->machines.host,
						    c->stat.alloc_regex_add ?: c->stat.alloc_regex,
						    c->stat.alloc_regex_add, c->stat.raw_ip,
						    err, err_size);
	if (!run->core.resolver)
		return -EINVAL;
	callsite_resolver__use_kallsyms(run->core.resolver, "/proc/kallsyms");
	if (setup_memcg_resolver(run, err, err_size))
		return -EINVAL;
	dc.resolver = run->core.resolver;
	run->core.dec = kmem_decoder__new(run->session, &dc, err, err_size);
	return run->core.dec ? 0 : -EINVAL;
}

/* --- sizing and loading the program ---------------------------------- */

/* What the program needs of the machine: one line of what is missing. */
static int check_machine(const struct kmem_bpf_run *run, char *err,
			 size_t err_size)
{
	const char *btf = run->config.btf ?: "/sys/kernel/btf/vmlinux";

	if (geteuid()) {
		snprintf(err, err_size, "stat -b loads a BPF program into the kernel: run it as root");
		return -EPERM;
	}
	if (access(btf, R_OK)) {
		snprintf(err, err_size, "the kernel has no BTF (%s): the BPF program cannot be relocated to its types",
			 btf);
		return -ENOENT;
	}
	if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL) <= 0) {
		snprintf(err, err_size, "this kernel cannot load BPF tracepoint programs (CONFIG_BPF_SYSCALL, CONFIG_BPF_EVENTS)");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* log2(1 + i / 256) in Q32, for the sampler in the kernel. */
static void fill_log2_table(__u64 *table)
{
	int i;

	for (i = 0; i < KMEM_BPF_LOG2_SIZE; i++)
		table[i] = llround(log2(1.0 + (double)i / (1 << KMEM_BPF_LOG2_BITS)) *
				   4294967296.0);
}

/* A run of a node's memory, for the node of a pfn in the kernel. */
static void add_node_range(int node, u64 start_pfn, u64 end_pfn, void *arg)
{
	struct kmem_bpf *skel = arg;
	int n = skel->rodata->nr_ranges;

	if (n >= KMEM_BPF_MAX_RANGES)
		return;
	skel->rodata->range_start[n] = start_pfn;
	skel->rodata->range_end[n] = end_pfn;
	skel->rodata->range_node[n] = node;
	skel->rodata->nr_ranges = n + 1;
}

static void set_entries(struct bpf_map *map, u32 nr)
{
	bpf_map__set_max_entries(map, nr ?: 1);
}

/* The stall ring: a power of two of pages, from -M. */
static u32 stall_ring_bytes(const struct kmem_bpf_run *run)
{
	u64 want = (u64)(run->config.map_entries ?: KMEM_BPF_MAP_ENTRIES) *
		   KMEM_BPF_STALL_RING_PER_ENTRY;

	if (!run->stall_programs)
		return run->page_size;
	return clamp((u64)roundup_pow_of_two(want), run->page_size, (u64)1 << 30);
}

static void size_maps(struct kmem_bpf_run *run)
{
	const struct kmem_bpf_config *c = &run->config;
	struct kmem_bpf *skel = run->skel;
	u32 entries = c->map_entries ?: KMEM_BPF_MAP_ENTRIES;
	u32 nodes = run->nr_nodes > 1 ? run->nr_nodes : 0;

	run->live_entries = c->map_entries ?: c->exact_live ?
			    KMEM_BPF_EXACT_LIVE_ENTRIES : KMEM_BPF_MAP_ENTRIES;
	bpf_map__set_key_size(skel->maps.stacks, run->stack_depth * sizeof(__u64));
	set_entries(skel->maps.stacks, c->stat.page ? entries : 0);
	set_entries(skel->maps.rows, c->stat.page ? entries : 0);
	set_entries(skel->maps.rare_rows, c->stat.page ? entries : 0);
	set_entries(skel->maps.live, c->stat.page ? run->live_entries : 0);
	set_entries(skel->maps.blocks, run->nr_blocks);
	set_entries(skel->maps.live_pfns, c->stat.page && !c->exact_live ?
		    run->max_pfn / 64 + 1 : 0);
	set_entries(skel->maps.tasks, c->tasks ? entries : 0);
	set_entries(skel->maps.slab_rows, c->stat.slab ? entries : 0);
	set_entries(skel->maps.node_bytes,
		    nodes * nodes * KMEM_BPF_NR_ORDERS);
	bpf_map__set_max_entries(skel->maps.stall_events, stall_ring_bytes(run));
	set_entries(skel->maps.stall_tasks,
		    run->stall_programs ? KMEM_BPF_STALL_TASKS : 0);
}

static void configure(struct kmem_bpf_run *run)
{
	const struct kmem_bpf_config *c = &run->config;
	const struct kmem_trace_info *info = kmem_decoder__info(run->core.dec);
	struct kmem_bpf *skel = run->skel;

	skel->rodata->filter = c->cgroup ? KMEM_BPF_FILTER_CGROUP :
			       c->tasks ? KMEM_BPF_FILTER_TASKS :
			       KMEM_BPF_FILTER_NONE;
	skel->rodata->own_tgid = c->include_perf ? 0 : getpid();
	skel->rodata->sample_bytes = c->sample_bytes;
	skel->rodata->sample_all = c->sample_bytes <= 1;
	skel->rodata->exact_live = c->exact_live;
	skel->rodata->page_shift = __builtin_ctzll(run->page_size);
	skel->rodata->pageblock_order = info->pageblock_order;
	skel->rodata->nr_blocks = run->nr_blocks;
	skel->rodata->max_stack = run->stack_depth;
	skel->rodata->nr_nodes = run->nr_nodes > 1 ? run->nr_nodes : 1;
	/* Before the load, rodata is plain memory of the skeleton's. */
	fill_log2_table((__u64 *)skel->rodata->log2_table);
	kmem_decoder__node_ranges(run->core.dec, add_node_range, skel);
	size_maps(run);
	skel->rodata->live_max = run->live_entries;
	skel->rodata->nr_pfn_words = c->exact_live ? 0 : run->max_pfn / 64 + 1;
}

/*
 * Is @prog to be loaded?  A tracepoint's program is where the session has
 * the tracepoint (there, and asked for); those following tasks where
 * tasks are followed, or stalls are.
 */
static bool want_program(const struct kmem_bpf_run *run,
			 const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	char name[96], *slash;

	if (strstarts(sec, "raw_tp/"))
		return run->config.stat.page;
	if (!strcmp(sec, "tp_btf/sched_process_exit"))
		return run->stall_programs;
	if (strstarts(sec, "tp_btf/"))
		return run->config.tasks;
	/* tp/SYS/NAME */
	snprintf(name, sizeof(name), "%s", sec + 3);
	slash = strchr(name, '/');
	if (slash)
		*slash = ':';
	return evlist__find_tracepoint_by_name(run->evlist, name);
}

static void choose_programs(struct kmem_bpf_run *run)
{
	struct kmem_bpf *skel = run->skel;
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, want_program(run, prog));
	/* Both kinds: the raw ones if the calibration works, else these. */
	bpf_program__set_autoattach(skel->progs.kmem_page_alloc, false);
	bpf_program__set_autoattach(skel->progs.kmem_page_free, false);
	bpf_program__set_autoattach(skel->progs.kmem_page_alloc_raw, false);
	bpf_program__set_autoattach(skel->progs.kmem_page_free_raw, false);
}

/* The one line of a program the kernel refused, from libbpf's messages. */
static void load_error(int ret, char *err, size_t err_size)
{
	const char *prog = strstr(libbpf_last, "prog '");

	/* Root gets EACCES from the verifier, not for want of a right. */
	if (ret == -EACCES && prog && geteuid() == 0)
		snprintf(err, err_size,
			 "the kernel's verifier refused the BPF program: %s (perf kmem -v shows its log)",
			 prog);
	else if (ret == -EPERM || ret == -EACCES)
		snprintf(err, err_size,
			 "the kernel does not allow this BPF program (%s): run as root, with BPF enabled",
			 strerror(-ret));
	else if (ret == -EOPNOTSUPP)
		snprintf(err, err_size, "this kernel has no BPF (%s)",
			 strerror(-ret));
	else if (prog)
		snprintf(err, err_size,
			 "the kernel refused the BPF program: %s (perf kmem -v shows libbpf's messages)",
			 prog);
	else
		snprintf(err, err_size, "cannot load the BPF program: %s",
			 libbpf_last[0] ? libbpf_last : strerror(-ret));
}

static int open_and_load(struct kmem_bpf_run *run, char *err, size_t err_size)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts,
		    .btf_custom_path = run->config.btf);
	libbpf_print_fn_t old = libbpf_set_print(keep_libbpf_message);
	int ret;

	libbpf_last[0] = '\0';
	run->skel = kmem_bpf__open_opts(&opts);
	ret = run->skel ? 0 : -errno;
	if (!ret) {
		configure(run);
		choose_programs(run);
		ret = kmem_bpf__load(run->skel);
	}
	libbpf_set_print(old);
	if (ret)
		load_error(ret, err, err_size);
	return ret;
}

/*
 * Where perf opens the cgroup @name, readable: else why not, in @err
 * (cgroup__new() would print a line of its own, perf's).
 */
static int check_cgroup(const char *name, char *err, size_t err_size)
{
	char mnt[PATH_MAX + 1], path[2 * PATH_MAX + 2];

	if (cgroupfs_find_mountpoint(mnt, sizeof(mnt), "perf_event")) {
		snprintf(err, err_size, "--cgroup %s: no cgroup file system is mounted", name);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	if (access(path, R_OK)) {
		snprintf(err, err_size, "cannot open cgroup %s (%s): %s", name, path,
			 strerror(errno));
		return -EINVAL;
	}
	return 0;
}

static int setup_cgroup(struct kmem_bpf_run *run, char *err, size_t err_size)
{
	int zero = 0, fd;

	if (check_cgroup(run->config.cgroup, err, err_size))
		return -EINVAL;
	run->cgrp = cgroup__new(run->config.cgroup, /*do_open=*/true);
	if (!run->cgrp || run->cgrp->fd < 0) {
		snprintf(err, err_size, "cannot open cgroup %s", run->config.cgroup);
		return -EINVAL;
	}
	fd = run->cgrp->fd;
	if (bpf_map_update_elem(bpf_map__fd(run->skel->maps.cgroup), &zero,
				&fd, BPF_ANY)) {
		snprintf(err, err_size, "cannot count cgroup %s: %s",
			 run->config.cgroup, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

static size_t u64_hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static bool u64_equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

/*
 * A stack walked from a raw tracepoint begins in the BPF side: the
 * program, bpf_trace_run*(), the tracepoint's __bpf_trace_*() and
 * __traceiter_*().  A recording's callchain begins where they were
 * called from.
 */
static bool bpf_side_frame(struct kmem_bpf_run *run, u64 ip)
{
	static const char * const prefixes[] = {
		"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_",
	};
	char name[KSYM_NAME_LEN + 32];
	size_t i;

	callsite_resolver__name(run->core.resolver, ip, false, name, sizeof(name));
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * The @nr frames @ips walked in the kernel, as a recording's callchain
 * has them, in @cc: with @raw, past the BPF side's frames.
 */
static void to_chain(struct kmem_bpf_run *run, const u64 *ips, size_t nr,
		     bool raw, struct ip_callchain *cc)
{
	size_t i = 0, n = 0;

	while (raw && i < nr && i < KMEM_BPF_RAW_FRAMES && ips[i] &&
	       bpf_side_frame(run, ips[i]))
		i++;
	cc->ips[n++] = PERF_CONTEXT_KERNEL;
	for (; i < nr && ips[i] && n <= (size_t)run->config.max_stack; i++)
		cc->ips[n++] = ips[i];
	cc->nr = n;
}

/* Stack @id of the stacks map as a callchain; of no frames if not read. */
static void id_chain(struct kmem_bpf_run *run, u32 id, struct ip_callchain *cc)
{
	u64 *ips;

	cc->nr = 0;
	if (hashmap__find(run->stack_ips, id, &ips))
		to_chain(run, ips, run->stack_depth, run->raw_pages, cc);
}

/* @cc from its callsite on, in the stacks kept: its id, -1, or -ENOMEM. */
static int keep_stack(struct kmem_bpf_run *run, const struct ip_callchain *cc)
{
	u64 ips[KMEM_BPF_MAX_STACK];
	size_t nr = callsite_resolver__frames(run->core.resolver, cc, ips,
					      ARRAY_SIZE(ips));
	int id;

	if (!nr)
		return -1;
	id = kmem_stacks__intern(run->stacks, ips, nr);
	return id < 0 ? -ENOMEM : id;
}

static int keep_stack_id(struct kmem_bpf_run *run, u32 id)
{
	u64 chain[KMEM_BPF_MAX_STACK + 2];
	struct ip_callchain *cc = (struct ip_callchain *)chain;

	id_chain(run, id, cc);
	return keep_stack(run, cc);
}

/* The callsite of a stall record's frames, as of a recording's callchain. */
static u64 stall_frames_callsite(const u64 *ips, size_t nr, bool memcg,
				 void *arg)
{
	struct kmem_bpf_run *run = arg;
	u64 chain[KMEM_BPF_MAX_STACK + 2];
	struct ip_callchain *cc = (struct ip_callchain *)chain;

	to_chain(run, ips, nr, true, cc);
	return callsite_resolver__callsite(memcg && run->memcg_resolver ?
					   run->memcg_resolver : run->core.resolver,
					   cc);
}

/* The stack of an allocation that ended a stall, as keep_stack(). */
static int stall_stack(struct kmem_bpf_run *run, const void *data, size_t size)
{
	const struct kmem_bpf_stall_stack *r = data;
	u64 chain[KMEM_BPF_MAX_STACK + 2];
	struct ip_callchain *cc = (struct ip_callchain *)chain;

	if (size < sizeof(*r) || !r->ev.nr_ips)
		return -1;
	to_chain(run, (const u64 *)r->ips,
		 min_t(size_t, r->ev.nr_ips, KMEM_BPF_MAX_STACK), true, cc);
	return keep_stack(run, cc);
}

/* A stall's time, exact, to the profile's sample of its allocation. */
static int profile_stall(struct kmem_bpf_run *run, const struct kmem_bpf_stall *r,
			 int chain)
{
	struct kmem_profile_key key = {
		.chain = chain, .order = r->order,
		.migtype = clamp(r->migtype, SHRT_MIN, SHRT_MAX),
		.node = -1, .gfp = r->gfp, .has_gfp = true,
	};
	int id = kmem_profile__key(run->profile, &key);

	if (id < 0)
		return id;
	return kmem_profile__add(run->profile, id, KMEM_PROFILE_STALL,
				 kmem_stall__ended_ns(run->core.st));
}

/*
 * An allocation that ended a stall, with the stacks kept: --folded=stall
 * weighs its stack by the stall's length, as a recording's; --pprof
 * gives the length to its sample, in the interval it ended in.
 */
static int stall_ended(struct kmem_bpf_run *run, const void *data, size_t size)
{
	int chain = stall_stack(run, data, size);

	if (chain == -ENOMEM)
		return chain;
	if (run->profile)
		return profile_stall(run, data, chain);
	if (!run->config.stat.folded_stall || chain < 0)
		return 0;
	return kmem_stacks__add(run->stacks, chain,
				kmem_stall__ended_ns(run->core.st), 1);
}

static int name_gfp(struct kmem_bpf_run *run, u64 gfp);

/*
 * A record of the stall ring, into the stall analysis as it comes.  The
 * GFP flags of the rows it may name are named as a recording's are.
 */
static int stall_record(void *ctx, void *data, size_t size)
{
	const struct kmem_bpf_stall *r = data;
	struct kmem_bpf_run *run = ctx;
	int err = 0;

	if (size >= sizeof(*r) && (r->type == KMEM_BPF_STALL_ALLOC ||
				   r->type == KMEM_BPF_STALL_MEMCG_BEGIN))
		err = name_gfp(run, r->gfp);
	if (!err)
		err = kmem_bpf_fill__stall(run->core.st, data, size,
					   stall_frames_callsite, run);
	if (err > 0 && run->stacks)
		err = stall_ended(run, data, size);

	/* One bad record stops the reading: said at the end, not lost. */
	if (err < 0 && !run->stall_err)
		run->stall_err = err;
	return err < 0 ? err : 0;
}

static int setup_stalls(struct kmem_bpf_run *run)
{
	run->core.st = kmem_stall__new();
	if (!run->core.st)
		return -ENOMEM;
	run->stall_ring = ring_buffer__new(bpf_map__fd(run->skel->maps.stall_events),
					   stall_record, run, NULL);
	return run->stall_ring ? 0 : -ENOMEM;
}

/* What the ring holds so far, into the stall analysis. */
static int drain_stalls(struct kmem_bpf_run *run)
{
	int ret;

	if (!run->stall_ring || run->stall_err)
		return run->stall_err;
	ret = ring_buffer__consume(run->stall_ring);
	return ret < 0 ? ret : 0;
}

static int setup_analyses(struct kmem_bpf_run *run)
{
	const struct kmem_trace_info *info = kmem_decoder__info(run->core.dec);
	const struct kmem_bpf_config *c = &run->config;

	run->callsites = hashmap__new(u64_hash, u64_equal, NULL);
	run->stack_ips = hashmap__new(u64_hash, u64_equal, NULL);
	run->caches = strlist__new(NULL, NULL);
	if (IS_ERR(run->callsites) || IS_ERR(run->stack_ips) || !run->caches)
		return -ENOMEM;
	if (c->stat.slab) {
		run->core.ks = kmem_slab__new(&(struct kmem_slab_config){ 0 });
		if (!run->core.ks)
			return -ENOMEM;
	}
	if (!c->stat.page)
		return 0;
	/* A profile is of the sampled stacks too. */
	if (c->stat.folded || c->stat.pprof) {
		run->stacks = kmem_stacks__new();
		if (!run->stacks)
			return -ENOMEM;
	}
	run->core.kp = kmem_page__new(&(struct kmem_page_config){
		.page_size = run->page_size,
		.live_only = c->stat.live,
		.nr_nodes = info->has_mem2node ? info->nr_nodes : 0,
	});
	run->core.kf = kmem_frag__new(&(struct kmem_frag_config){
		.page_size = run->page_size,
		.pageblock_order = info->pageblock_order,
	});
	if (!run->core.kp || !run->core.kf)
		return -ENOMEM;
	if (run->stall_programs && setup_stalls(run))
		return -ENOMEM;
	if (c->stat.pprof) {
		run->profile = kmem_profile__new();
		if (!run->profile)
			return -ENOMEM;
	}
	if (!c->stat.interval)
		return 0;
	run->core.iv = kmem_interval__new(&(struct kmem_interval_config){
		.length = c->stat.interval,
		.stalls = run->core.st ? &kmem_stall__summary(run->core.st)->all : NULL,
	});
	return run->core.iv ? 0 : -ENOMEM;
}

struct kmem_bpf_run *kmem_bpf_run__new(const struct kmem_bpf_config *config,
				       char *err, size_t err_size)
{
	struct kmem_bpf_run *run = zalloc(sizeof(*run));

	if (!run) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	run->config = *config;
	run->config.max_stack = min(run->config.max_stack, KMEM_BPF_MAX_STACK);
	run->core.config = &run->config.stat;
	run->core.no_callsite = "(no stack)";
	run->page_size = sysconf(_SC_PAGESIZE);
	run->snap.page_size = run->page_size;
	run->snap.sample_bytes = run->config.sample_bytes;
	run->snap.exact_live = run->config.exact_live;
	run->max_pfn = read_max_pfn();
	run->nr_cpus = libbpf_num_possible_cpus();
	if (check_machine(run, err, err_size) || live_session(run, err, err_size))
		goto fail;
	run->stack_depth = min(run->config.max_stack + KMEM_BPF_RAW_FRAMES,
			       KMEM_BPF_MAX_STACK);
	run->nr_nodes = kmem_decoder__info(run->core.dec)->nr_nodes;
	run->snap.pageblock_order = kmem_decoder__info(run->core.dec)->pageblock_order;
	if (run->snap.pageblock_order >= 0)
		run->nr_blocks = (run->max_pfn >> run->snap.pageblock_order) + 1;
	if (open_and_load(run, err, err_size) ||
	    (run->config.cgroup && setup_cgroup(run, err, err_size)))
		goto fail;
	if (setup_analyses(run)) {
		snprintf(err, err_size, "out of memory");
		goto fail;
	}
	return run;
fail:
	kmem_bpf_run__delete(run);
	return NULL;
}

/* --- reading the maps ------------------------------------------------- */

/*
 * Every entry of a map, keys (unless @keys is NULL) and values (per-CPU
 * values summed: they are all of u64 fields), through the lookup-batch
 * call.  The arrays are the run's until it is deleted.
 */
static int read_map(struct kmem_bpf_run *run, struct bpf_map *map, int slot,
		    void **keys, void **values, size_t *nr)
{
	size_t ksize = bpf_map__key_size(map), vsize = bpf_map__value_size(map);
	bool percpu = bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_ARRAY ||
		      bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_HASH;
	/* The kernel rounds each CPU's value up to 8 bytes, no other. */
	size_t ncpu = percpu ? run->nr_cpus : 1;
	size_t stride = percpu ? ALIGN(vsize, 8) * ncpu : vsize;
	size_t max = bpf_map__max_entries(map), i, j, c;
	__u32 count = max;
	u64 *out, batch = 0;
	char *k, *v;
	int fd = bpf_map__fd(map), ret;

	free(run->bufs[slot]);
	/* The values after the keys, 8-byte aligned: they hold u64s. */
	k = calloc(1, ALIGN(max * ksize, 8) + max * stride);
	run->bufs[slot] = k;
	if (!k)
		return -ENOMEM;
	v = k + ALIGN(max * ksize, 8);
	ret = bpf_map_lookup_batch(fd, NULL, &batch, k, v, &count, NULL);
	if (ret && errno != ENOENT)
		return -EIO;
	/* Sum the CPUs' values into the first's. */
	for (i = 0; i < count && ncpu > 1; i++) {
		out = (u64 *)(v + i * stride);
		for (c = 1; c < ncpu; c++)
			for (j = 0; j < vsize / 8; j++)
				out[j] += ((u64 *)(v + i * stride + c * ALIGN(vsize, 8)))[j];
	}
	/* Packed: one value after the other. */
	for (i = 1; i < count && stride != vsize; i++)
		memmove(v + i * vsize, v + i * stride, vsize);
	if (keys)
		*keys = k;
	*values = v;
	*nr = count;
	return 0;
}

/* --- attaching -------------------------------------------------------- */

/* Programs attached at once, at most: ours are 30. */
#define KMEM_BPF_MAX_LINKS	64

static void detach_pages(struct kmem_bpf_run *run)
{
	bpf_link__destroy(run->page_links[0]);
	bpf_link__destroy(run->page_links[1]);
	run->page_links[0] = NULL;
	run->page_links[1] = NULL;
}

static int attach_pages(struct kmem_bpf_run *run, struct bpf_program *alloc,
			struct bpf_program *free_prog)
{
	run->page_links[0] = bpf_program__attach(alloc);
	run->page_links[1] = run->page_links[0] ?
			     bpf_program__attach(free_prog) : NULL;
	if (run->page_links[1])
		return 0;
	detach_pages(run);
	return -errno ?: -EINVAL;
}

/* The pfns of @nr pages at @p, from /proc/self/pagemap (root sees them). */
static int page_pfns(const char *p, size_t nr, u64 page_size, u64 *pfns)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	size_t i;
	u64 e;

	if (fd < 0)
		return -errno;
	for (i = 0; i < nr; i++) {
		off_t off = ((uintptr_t)p / page_size + i) * sizeof(e);

		if (pread(fd, &e, sizeof(e), off) != sizeof(e) ||
		    !(e & (1ULL << 63)))
			break;
		pfns[i] = e & ((1ULL << 55) - 1);
	}
	close(fd);
	return i == nr ? 0 : -ENOENT;
}

/*
 * vmemmap: each of our own pages is both a struct page * the raw
 * program kept and a pfn of pagemap; the address that most of the pairs
 * agree on, ptr - pfn * sizeof(struct page), is vmemmap's.  Wrong pairs
 * scatter, and the page tables the faults allocate too.
 */
static bool is_pfn_of(u64 pfn, const u64 *pfns, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (pfns[i] == pfn)
			return true;
	return false;
}

static u64 vote_vmemmap(const u64 *ptrs, size_t nr_ptrs, const u64 *pfns,
			size_t nr_pfns, u64 size)
{
	u64 best = 0, cand;
	size_t i, j, k, votes, most = 0;

	for (i = 0; i < nr_ptrs; i++) {
		for (j = 0; j < nr_pfns; j++) {
			cand = ptrs[i] - pfns[j] * size;
			for (k = 0, votes = 0; k < nr_ptrs; k++)
				votes += ptrs[k] >= cand &&
					 is_pfn_of((ptrs[k] - cand) / size, pfns,
						   nr_pfns);
			if (votes > most) {
				most = votes;
				best = cand;
			}
		}
	}
	/* Every page of ours, and each once: no chance agreement. */
	return most == nr_pfns ? best : 0;
}

#define CALIB_PAGES	32

static u64 find_vmemmap(struct kmem_bpf_run *run)
{
	struct kmem_bpf *skel = run->skel;
	size_t i, n, len = CALIB_PAGES * run->page_size;
	u64 pfns[CALIB_PAGES], *ptrs, size;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return 0;
	skel->bss->calib_tid = gettid();
	for (i = 0; i < len; i += run->page_size)
		p[i] = 1;
	skel->bss->calib_tid = 0;
	n = min_t(size_t, skel->bss->nr_calib, KMEM_BPF_CALIB_PAGES);
	/* The size the program divides by, as CO-RE relocated it. */
	size = skel->bss->page_struct_size;
	if (page_pfns(p, CALIB_PAGES, run->page_size, pfns) ||
	    read_map(run, skel->maps.calib_pages, 9, NULL, (void **)&ptrs, &i))
		n = 0;
	munmap(p, len);
	return n && size ? vote_vmemmap(ptrs, n, pfns, CALIB_PAGES, size) : 0;
}

/*
 * The raw tracepoints where vmemmap could be found, else the
 * tracepoints' records.  Nothing is counted before either is attached.
 */
static int attach_page_programs(struct kmem_bpf_run *run)
{
	struct kmem_bpf *skel = run->skel;
	u64 base;

	if (!attach_pages(run, skel->progs.kmem_page_alloc_raw,
			  skel->progs.kmem_page_free_raw)) {
		base = find_vmemmap(run);
		if (base) {
			skel->bss->vmemmap = base;
			run->raw_pages = true;
			return 0;
		}
		detach_pages(run);
	}
	return attach_pages(run, skel->progs.kmem_page_alloc,
			    skel->progs.kmem_page_free);
}

void kmem_bpf_run__delete(struct kmem_bpf_run *run)
{
	size_t i;

	if (!run)
		return;
	detach_pages(run);
	kmem_bpf__destroy(run->skel);
	kmem_page__delete(run->core.kp);
	kmem_frag__delete(run->core.kf);
	kmem_slab__delete(run->core.ks);
	kmem_interval__delete(run->core.iv);
	kmem_stacks__delete(run->stacks);
	ring_buffer__free(run->stall_ring);
	kmem_stall__delete(run->core.st);
	kmem_profile__delete(run->profile);
	free(run->estimates);
	kmem_decoder__delete(run->core.dec);
	callsite_resolver__delete(run->core.resolver);
	callsite_resolver__delete(run->memcg_resolver);
	hashmap__free(run->callsites);
	hashmap__free(run->stack_ips);
	strlist__delete(run->caches);
	strlist__delete(run->left_out);
	cgroup__put(run->cgrp);
	for (i = 0; i < ARRAY_SIZE(run->bufs); i++)
		free(run->bufs[i]);
	evlist__delete(run->evlist);
	if (run->session)
		run->session->evlist = NULL;
	perf_session__delete(run->session);
	free(run);
}

int kmem_bpf_run__add_task(struct kmem_bpf_run *run, pid_t tid)
{
	__u32 key = tid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(run->skel->maps.tasks), &key, &one,
				BPF_ANY))
		return -errno;
	return 0;
}

/* --- the state of memory around the run ------------------------------ */

/* /proc/vmstat and /proc/pagetypeinfo into slot @end (0 start, 1 end). */
static void read_memory(struct kmem_bpf_run *run, int end)
{
	char *text = kmem_proc__read("/proc/vmstat");

	run->vmstat_err[end] = text ? kmem_vmstat__parse(&run->vmstat[end], text) :
			       -errno;
	free(text);
	text = kmem_proc__read("/proc/pagetypeinfo");
	run->free_err[end] = text ?
		kmem_pagetypeinfo__parse(&run->free_lists[end], text) : -errno;
	free(text);
}

static const char *read_why(int err, char *buf, size_t size)
{
	snprintf(buf, size, "%s", err == -EINVAL ? "not in the format known" :
		 err == -E2BIG ? "more zones, types or orders than known" :
		 strerror(-err));
	return buf;
}

/* The report's memory source: the counters' change, the free lists. */
static void settle_memory(struct kmem_bpf_run *run)
{
	struct kmem_report_memory *m = &run->memory;
	int err = run->vmstat_err[0] ? run->vmstat_err[0] : run->vmstat_err[1];
	u32 missing;
	int i;

	*m = (struct kmem_report_memory){ .vmstat = "", .missing = "",
					  .pagetypeinfo = "" };
	if (err) {
		m->vmstat = read_why(err, run->memory_why[0], NOTE_SIZE);
	} else {
		missing = kmem_vmstat__delta(&run->vmstat[0], &run->vmstat[1],
					     &m->delta);
		run->vmstat_missing[0] = '\0';
		for (i = 0; i < KMEM_NR_VMSTAT; i++) {
			size_t len = strlen(run->vmstat_missing);

			if (missing & (1U << i))
				snprintf(run->vmstat_missing + len,
					 sizeof(run->vmstat_missing) - len, "%s%s",
					 len ? "," : "", kmem_vmstat__name(i));
		}
		m->missing = run->vmstat_missing;
	}
	err = run->free_err[0] ? run->free_err[0] : run->free_err[1];
	if (err) {
		m->pagetypeinfo = read_why(err, run->memory_why[1], NOTE_SIZE);
		return;
	}
	m->free_start = &run->free_lists[0];
	m->free_end = &run->free_lists[1];
}

int kmem_bpf_run__start(struct kmem_bpf_run *run, char *err, size_t err_size)
{
	int ret = kmem_bpf__attach(run->skel);

	if (!ret && run->config.stat.page)
		ret = attach_page_programs(run);
	if (ret) {
		snprintf(err, err_size, "cannot attach the BPF program: %s",
			 strerror(-ret));
		return ret;
	}
	read_memory(run, 0);
	run->start_ns = rdclock();
	if (run->core.iv) {
		struct kmem_page_summary ps = { .alloc = { 0, 0 } };
		struct kmem_frag_summary fs = { .fallbacks = { 0, 0 } };

		kmem_interval__advance(run->core.iv, 0, &ps, &fs);
	}
	return 0;
}

/* --- the snapshot of the maps ----------------------------------------- */

/* The counters alone, as each -I interval needs them. */
static int read_counts(struct kmem_bpf_run *run)
{
	struct kmem_bpf_snapshot *s = &run->snap;
	void *values;
	size_t nr;
	int err;

	err = read_map(run, run->skel->maps.counts, 0, NULL, &values, &nr);
	if (err)
		return err;
	/* An array: its values come in the order of their indexes. */
	memset(s->counts, 0, sizeof(s->counts));
	memcpy(s->counts, values, min(nr, ARRAY_SIZE(s->counts)) * sizeof(u64));
	err = read_map(run, run->skel->maps.fails, 1, (void **)&s->fail_keys,
		       (void **)&s->fails, &s->nr_fails);
	if (!err)
		err = read_map(run, run->skel->maps.fallbacks, 2,
			       (void **)&s->fallback_keys,
			       (void **)&s->fallbacks, &s->nr_fallbacks);
	return err;
}

/* The rows of the sampled stacks, as -I --pprof reads them each interval. */
static int read_rows(struct kmem_bpf_run *run)
{
	struct kmem_bpf_snapshot *s = &run->snap;

	return read_map(run, run->skel->maps.rows, 3, (void **)&s->row_keys,
			(void **)&s->rows, &s->nr_rows);
}

static int read_snapshot(struct kmem_bpf_run *run)
{
	struct kmem_bpf_snapshot *s = &run->snap;
	size_t nr;
	int err;

	err = read_counts(run);
	if (!err)
		err = read_rows(run);
	if (!err)
		err = read_map(run, run->skel->maps.rare_rows, 4,
			       (void **)&s->rare_keys, (void **)&s->rare,
			       &s->nr_rare);
	if (!err && run->nr_blocks)
		err = read_map(run, run->skel->maps.blocks, 5, NULL,
			       (void **)&s->blocks, &s->nr_blocks);
	if (!err && run->config.stat.slab)
		err = read_map(run, run->skel->maps.slab_rows, 6,
			       (void **)&s->slab_keys, (void **)&s->slab,
			       &s->nr_slab);
	if (!err && run->nr_nodes > 1) {
		s->nr_nodes = run->nr_nodes;
		err = read_map(run, run->skel->maps.node_bytes, 7, NULL,
			       (void **)&s->node_counts, &nr);
	}
	return err;
}

/* The frames of every stack the maps kept, by id: read_map()'s keys. */
static int read_stacks(struct kmem_bpf_run *run)
{
	size_t i, nr;
	u64 *frames;
	u32 *ids;
	int err;

	hashmap__clear(run->stack_ips);
	err = read_map(run, run->skel->maps.stacks, 8, (void **)&frames,
		       (void **)&ids, &nr);
	for (i = 0; !err && i < nr; i++)
		err = hashmap__set(run->stack_ips, ids[i],
				   frames + i * run->stack_depth, NULL, NULL);
	return err;
}

/* --- naming ----------------------------------------------------------- */

static u64 stack_callsite(u32 id, void *arg)
{
	struct kmem_bpf_run *run = arg;
	u64 chain[KMEM_BPF_MAX_STACK + 2];
	struct ip_callchain *cc = (struct ip_callchain *)chain;
	u64 callsite;

	if (hashmap__find(run->callsites, id, &callsite))
		return callsite;
	id_chain(run, id, cc);
	callsite = cc->nr ? callsite_resolver__callsite(run->core.resolver, cc) : 0;
	hashmap__add(run->callsites, id, callsite);
	return callsite;
}

static u64 slab_function(u64 call_site, void *arg)
{
	struct kmem_bpf_run *run = arg;

	return callsite_resolver__function(run->core.resolver, call_site);
}

static const char *cache_name(const char *name, void *arg)
{
	struct kmem_bpf_run *run = arg;
	struct str_node *n;

	strlist__add(run->caches, name);
	n = strlist__find(run->caches, name);
	return n ? n->s : NULL;
}

/* Set a field of a made-up record of @evsel's format: 2, 4 or 8 bytes. */
static void set_field(struct evsel *evsel, const char *name, u8 *raw,
		      size_t size, u64 val)
{
	struct tep_format_field *f = tep_find_any_field(evsel->tp_format, name);

	if (!f || f->offset < 0 || (size_t)(f->offset + f->size) > size)
		return;
	switch (f->size) {
	case 2:
		*(u16 *)(raw + f->offset) = val;
		break;
	case 4:
		*(u32 *)(raw + f->offset) = val;
		break;
	case 8:
		*(u64 *)(raw + f->offset) = val;
		break;
	default:
		break;
	}
}

/*
 * The kernel's names of a GFP value: a record of mm_page_alloc with it,
 * through the decoder, which names it as it names a recording's, from
 * the tracepoint's print format.
 */
static int name_gfp(struct kmem_bpf_run *run, u64 gfp)
{
	struct evsel *alloc = evlist__find_tracepoint_by_name(run->evlist,
							      "kmem:mm_page_alloc");
	u8 raw[512] = { 0 };
	struct perf_sample sample = {
		.raw_data = raw,
		.raw_size = sizeof(raw),
	};
	struct kmem_event ev;

	if (!alloc)
		return 0;
	set_field(alloc, "common_type", raw, sizeof(raw), alloc->tp_format->id);
	set_field(alloc, "gfp_flags", raw, sizeof(raw), gfp);
	return kmem_decoder__decode(run->core.dec, alloc, &sample, &ev) < 0 ?
	       -ENOMEM : 0;
}

static int name_gfps(struct kmem_bpf_run *run)
{
	const struct kmem_bpf_snapshot *s = &run->snap;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < s->nr_rows; i++)
		err = name_gfp(run, s->row_keys[i].gfp);
	for (i = 0; !err && i < s->nr_rare; i++)
		err = name_gfp(run, s->rare_keys[i].gfp);
	for (i = 0; !err && i < s->nr_fails; i++)
		err = name_gfp(run, s->fail_keys[i].gfp);
	return err;
}

/* --- folded stacks ---------------------------------------------------- */

/* A row's sampled stack, from its callsite on, with what it stands for. */
static int fold_row(struct kmem_bpf_run *run, const struct kmem_bpf_row_key *k,
		    const struct kmem_bpf_row *v)
{
	u64 n = v->samples, hits;
	int id;

	if (run->config.stat.live)
		n = n > v->freed + v->dropped ? n - v->freed - v->dropped : 0;
	hits = kmem_bpf_fill__estimate(n, run->page_size << k->order,
				       run->config.sample_bytes);
	if (!hits)
		return 0;
	id = keep_stack_id(run, k->stack_id);
	if (id < 0)
		return id == -ENOMEM ? id : 0;
	return kmem_stacks__add(run->stacks, id, hits * (run->page_size << k->order),
				hits);
}

int kmem_bpf_run__write_folded(struct kmem_bpf_run *run,
			       enum kmem_stacks_weight weight, FILE *fp)
{
	size_t i;
	int err;

	/* The stalls' stacks were added as their records came. */
	for (i = 0; !run->config.stat.folded_stall && i < run->snap.nr_rows; i++) {
		if (run->snap.row_keys[i].order >= KMEM_BPF_NR_ORDERS)
			continue;
		err = fold_row(run, &run->snap.row_keys[i], &run->snap.rows[i]);
		if (err)
			return err;
	}
	return kmem_stacks__write(run->stacks, weight, kmem_run_core__frame,
				  &run->core, fp, NULL);
}

/* --- a memory profile (--pprof) --------------------------------------- */

/*
 * Room for the estimates of key @id.  The array holds the power of two
 * at or above their number, so that realloc() grows it by doubling.
 */
static int grow_estimates(struct kmem_bpf_run *run, int id)
{
	size_t nr = id + 1;
	struct kmem_bpf_estimate *e;

	if (nr <= run->nr_estimates)
		return 0;
	e = realloc(run->estimates, roundup_pow_of_two(nr) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	memset(e + run->nr_estimates, 0, (nr - run->nr_estimates) * sizeof(*e));
	run->estimates = e;
	run->nr_estimates = nr;
	return 0;
}

/*
 * A row's sampled stack as a sample: the allocations and bytes it stands
 * for so far, into the estimates of its key, and of them those still
 * live, into the period's inuse values.  Rows of one key (stacks that
 * differ in the allocator's frames) add up.
 */
static int profile_row(struct kmem_bpf_run *run, const struct kmem_bpf_row_key *k,
		       const struct kmem_bpf_row *v)
{
	u64 size = run->page_size << k->order, sample = run->config.sample_bytes;
	u64 live = v->samples > v->freed + v->dropped ?
		   v->samples - v->freed - v->dropped : 0;
	u64 hits = kmem_bpf_fill__estimate(v->samples, size, sample);
	u64 live_hits = kmem_bpf_fill__estimate(live, size, sample);
	struct kmem_profile_key key = {
		.order = k->order, .migtype = k->migtype,
		.node = -1, .gfp = k->gfp, .has_gfp = true,
	};
	int id, err;

	/*
	 * A walk of the stacks map while the programs add to it can miss a
	 * stack: its row waits for the next interval rather than move from
	 * no chain to its own, taking back what it gave.
	 */
	if (!run->finished && !hashmap__find(run->stack_ips, k->stack_id, NULL))
		return 0;
	/* -1: no chain */
	key.chain = keep_stack_id(run, k->stack_id);
	if (key.chain == -ENOMEM)
		return key.chain;
	id = kmem_profile__key(run->profile, &key);
	if (id < 0)
		return id;
	err = grow_estimates(run, id);
	if (err)
		return err;
	run->estimates[id].now[0] += hits;
	run->estimates[id].now[1] += hits * size;
	kmem_profile__add(run->profile, id, KMEM_PROFILE_INUSE_OBJECTS,
			  live_hits);
	return kmem_profile__add(run->profile, id, KMEM_PROFILE_INUSE_SPACE,
				 live_hits * size);
}

/*
 * Close a period of the profile at what the maps hold now: a key's
 * allocations in it are what its estimates grew by since the last one,
 * so that the periods add up to the run's estimates.
 */
static int profile_period(struct kmem_bpf_run *run, u64 start, u64 length)
{
	struct kmem_bpf_estimate *e;
	size_t i;
	int err = 0;

	for (i = 0; i < run->nr_estimates; i++)
		memset(run->estimates[i].now, 0, sizeof(run->estimates[i].now));
	for (i = 0; !err && i < run->snap.nr_rows; i++) {
		if (run->snap.row_keys[i].order >= KMEM_BPF_NR_ORDERS)
			continue;
		err = profile_row(run, &run->snap.row_keys[i], &run->snap.rows[i]);
	}
	for (i = 0; !err && i < run->nr_estimates; i++) {
		e = &run->estimates[i];
		/* A map row does not shrink: the estimates only grow. */
		kmem_profile__add(run->profile, i, KMEM_PROFILE_ALLOC_OBJECTS,
				  e->now[0] - e->before[0]);
		kmem_profile__add(run->profile, i, KMEM_PROFILE_ALLOC_SPACE,
				  e->now[1] - e->before[1]);
		e->before[0] = e->now[0];
		e->before[1] = e->now[1];
	}
	return err ?: kmem_profile__close(run->profile, start, length);
}

/* -I: a period of the profile for each interval closed since the last. */
static int profile_intervals(struct kmem_bpf_run *run)
{
	size_t nr = kmem_interval__nr_rows(run->core.iv);
	u64 length = kmem_interval__length(run->core.iv);
	int err = 0;

	for (; !err && run->profiled < nr; run->profiled++)
		err = profile_period(run, run->start_ns +
				     kmem_interval__row(run->core.iv, run->profiled)->start,
				     length);
	return err;
}

/* Wall-clock time less CLOCK_MONOTONIC's, which the run's times are in. */
static s64 wall_clock_offset(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (s64)(ts.tv_sec * 1000000000ULL + ts.tv_nsec) - (s64)rdclock();
}

size_t kmem_bpf_run__nr_profiles(const struct kmem_bpf_run *run)
{
	return run->profile ? kmem_profile__nr_periods(run->profile) : 0;
}

int kmem_bpf_run__profile(struct kmem_bpf_run *run, size_t i,
			  struct kmem_profile_view *v)
{
	if (i >= kmem_bpf_run__nr_profiles(run))
		return -EINVAL;
	snprintf(run->pprof_line, sizeof(run->pprof_line),
		 "perf kmem stat -b --pprof: the weights are estimates, from the stacks of allocations sampled one per %"
		 PRIu64 " bytes on average",
		 run->config.sample_bytes);
	run->pprof_comments[0] = run->pprof_line;
	*v = (struct kmem_profile_view){
		.profile = run->profile,
		.period = i,
		.stacks = run->stacks,
		.config = {
			.page_size = run->page_size,
			.task = KMEM_PROFILE_TASK_NONE,
			.stalls = !!run->core.st,
			.time_offset = run->wall_offset,
			.comments = run->pprof_comments,
			.nr_comments = ARRAY_SIZE(run->pprof_comments),
			.kernel = {
				.limit = ~0ULL,
				.file = "[kernel.kallsyms]",
			},
			.names = kmem_run_core__profile_names(&run->core),
		},
	};
	return 0;
}

/* --- the end ---------------------------------------------------------- */

static int advance(struct kmem_bpf_run *run, u64 t, bool last)
{
	struct kmem_page_summary ps;
	struct kmem_frag_summary fs;
	int err = read_counts(run);

	if (err)
		return err;
	kmem_bpf_fill__page_summary(&run->snap, &ps);
	kmem_bpf_fill__frag_totals(&run->snap, &fs);
	if (last)
		return kmem_interval__finish(run->core.iv, &ps, &fs);
	return kmem_interval__advance(run->core.iv, t, &ps, &fs);
}

int kmem_bpf_run__tick(struct kmem_bpf_run *run)
{
	int err;

	err = drain_stalls(run);
	if (err || !run->core.iv)
		return err;
	err = advance(run, rdclock() - run->start_ns, false);
	/* The rows and stacks after the counters: never fewer than they say. */
	if (!err && run->profile &&
	    run->profiled < kmem_interval__nr_rows(run->core.iv)) {
		err = read_rows(run);
		if (!err)
			err = read_stacks(run);
		if (!err)
			err = profile_intervals(run);
	}
	return err;
}

const struct kmem_interval *kmem_bpf_run__intervals(const struct kmem_bpf_run *run)
{
	return run->core.iv;
}

/*
 * The kernel's account of each program, read once at the end: the events
 * it missed (a tracepoint that fires while one of our programs runs on
 * the CPU, an allocation in an interrupt, is not run again, but counted),
 * and where bpf_stats_enabled its runs and their time.
 */
static void read_prog_info(struct kmem_bpf_run *run)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, run->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_prog_get_info_by_fd(fd, &info, &len))
			continue;
		run->recursion_misses += info.recursion_misses;
		/* With sysctl kernel.bpf_stats_enabled=1: what each cost. */
		run->prog_runs += info.run_cnt;
		run->prog_ns += info.run_time_ns;
		if (info.run_cnt)
			pr_debug("perf kmem: %s ran %llu times, %.0f ns each\n",
				 bpf_program__name(prog), (unsigned long long)info.run_cnt,
				 (double)info.run_time_ns / info.run_cnt);
	}
}

/*
 * Each tracepoint link's close waits for an RCU grace period: one after
 * the other, the programs took a second to detach.  Closed each on a
 * thread of its own, the waits overlap in part.
 */
static void *destroy_link(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

static void detach_all(struct kmem_bpf_run *run)
{
	struct bpf_object_skeleton *s = run->skel->skeleton;
	struct bpf_link **links[KMEM_BPF_MAX_LINKS];
	pthread_t threads[KMEM_BPF_MAX_LINKS];
	bool started[KMEM_BPF_MAX_LINKS] = { false };
	int i, n = 0;

	for (i = 0; i < s->prog_cnt && n < KMEM_BPF_MAX_LINKS - 2; i++) {
		struct bpf_prog_skeleton *p = (void *)s->progs + i * s->prog_skel_sz;

		if (*p->link)
			links[n++] = p->link;
	}
	links[n++] = &run->page_links[0];
	links[n++] = &run->page_links[1];
	for (i = 0; i < n; i++)
		started[i] = *links[i] &&
			     !pthread_create(&threads[i], NULL, destroy_link, *links[i]);
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		else
			bpf_link__destroy(*links[i]);
		*links[i] = NULL;
	}
	/* What is left: the links of maps, none of ours today. */
	kmem_bpf__detach(run->skel);
}

int kmem_bpf_run__finish(struct kmem_bpf_run *run)
{
	const struct kmem_bpf_namer n = {
		.callsite = stack_callsite,
		.function = slab_function,
		.cache = cache_name,
		.arg = run,
	};
	int err;

	/* The end of the counting: what the programs see from now on is not counted. */
	run->skel->bss->stopped = 1;
	run->stop_ns = rdclock();
	detach_all(run);
	/* One for every profile: their times are as far apart as their intervals. */
	run->wall_offset = wall_clock_offset();
	read_memory(run, 1);
	read_prog_info(run);
	run->finished = true;
	err = drain_stalls(run);
	if (!err && run->core.iv)
		err = advance(run, run->stop_ns - run->start_ns, true);
	if (!err)
		err = read_snapshot(run);
	if (!err)
		err = read_stacks(run);
	if (!err)
		err = name_gfps(run);
	if (!err && run->profile)
		err = run->core.iv ? profile_intervals(run) :
		      profile_period(run, run->start_ns,
				     run->stop_ns - run->start_ns);
	if (!err && run->core.kp)
		err = kmem_bpf_fill__page(&run->snap, run->core.kp, &n);
	if (!err && run->core.kf)
		err = kmem_bpf_fill__frag(&run->snap, run->core.kf, &n);
	if (!err && run->core.ks)
		err = kmem_bpf_fill__slab(&run->snap, run->core.ks, &n);
	return err;
}

u64 kmem_bpf_run__map_bytes(const struct kmem_bpf_run *run)
{
	struct bpf_map *map;
	u64 total = 0;

	bpf_object__for_each_map(map, run->skel->obj) {
		char path[64], line[128];
		unsigned long long kb;
		FILE *fp;

		if (bpf_map__fd(map) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d",
			 bpf_map__fd(map));
		fp = fopen(path, "r");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "memlock: %llu", &kb) == 1)
				total += kb;
		fclose(fp);
	}
	return total;
}

/* --- the report ------------------------------------------------------- */

static void set_fragmenting(struct kmem_page_row *row, void *arg)
{
	row->fragmenting = kmem_frag__callsite_fragmenting(arg, row->callsite);
}

static u64 count_of(const struct kmem_bpf_run *run, enum kmem_bpf_counter c)
{
	return kmem_bpf_fill__count(&run->snap, c);
}

static struct kmem_report_trace report_trace(struct kmem_bpf_run *run)
{
	const struct kmem_trace_info *info = kmem_decoder__info(run->core.dec);
	const struct perf_env *env = &run->session->header.env;
	const struct kmem_page_summary *ps = run->core.kp ? kmem_page__summary(run->core.kp) : NULL;
	const struct kmem_slab_summary *ss = run->core.ks ? kmem_slab__summary(run->core.ks) : NULL;
	u64 page = 0, slab = 0, extfrag = 0;
	size_t i;

	if (ps)
		page = ps->alloc.nr + ps->fail.nr + ps->free.nr + ps->bad_order;
	if (ss)
		slab = ss->alloc.nr + ss->fail.nr + ss->zero_size.nr + ss->free;
	for (i = 0; i < run->snap.nr_fallbacks; i++)
		extfrag += run->snap.fallbacks[i];
	return (struct kmem_report_trace){
		.path = "(bpf)",
		.os_release = env->os_release,
		.hostname = env->hostname,
		.arch = env->arch,
		.nr_cpus = env->nr_cpus_avail,
		.nr_samples = page + slab + extfrag,
		.nr_page_events = page,
		.nr_slab_events = slab,
		.nr_extfrag_events = extfrag,
		.sampled = "",
		.page_size = run->page_size,
		.live = run->config.stat.live,
		.cross_node = kmem_decoder__cross_node_status(run->core.dec),
		.nr_nodes = kmem_decoder__nr_trace_nodes(run->core.dec),
		.fragmentation = run->core.extfrag ? "analysed" : "not_recorded",
		.pageblock_order = info->pageblock_order,
		.pageblock_why = info->pageblock_why,
		.stalls = run->core.st ? "analysed" : "no_stall_events",
		.stall_missing = run->stall_missing,
	};
}

static const char *whose(const struct kmem_bpf_run *run)
{
	bool own = run->config.include_perf;

	if (run->config.cgroup)
		return own ? "the tasks of the cgroup" :
			     "the tasks of the cgroup but perf kmem";
	if (run->config.tasks)
		return "the tasks followed and their children";
	return own ? "all tasks" : "all tasks but perf kmem";
}

/* What is exact, what estimated, from how much; what was not counted. */
static void fill_source(struct kmem_bpf_run *run)
{
	struct kmem_report_source *src = &run->source;
	bool every = run->config.sample_bytes <= 1;
	bool life = run->core.kp && kmem_bpf_fill__lifetime_exact(&run->snap);

	*src = (struct kmem_report_source){
		.name = "bpf",
		.tasks = whose(run),
		.duration_ns = run->stop_ns - run->start_ns,
		.duration_ms = (run->stop_ns - run->start_ns) / 1000000,
		.exact = run->core.extfrag ?
			 "the totals, grid, failures, fallbacks and pageblocks" :
			 "the totals, grid, failures and pageblocks",
		.estimated = "",
		.callers = every ? "exact" : "estimated",
		.lifetimes = life ? "exact" : "estimated",
		.sample_bytes = run->config.sample_bytes,
		.sampled = count_of(run, KMEM_BPF_SAMPLED),
		.rare_taken = count_of(run, KMEM_BPF_RARE_TAKEN),
		.rare_sampled = count_of(run, KMEM_BPF_RARE_SAMPLED),
		.live_entries = run->live_entries,
		.untracked = count_of(run, KMEM_BPF_UNTRACKED),
		.untracked_sampled = count_of(run, KMEM_BPF_UNTRACKED_SAMPLED),
		.events_missed = run->recursion_misses,
		.stack_walks_failed = count_of(run, KMEM_BPF_STACK_FAILED),
		.stacks_map_full = count_of(run, KMEM_BPF_STACKS_FULL),
		.rows_map_full = count_of(run, KMEM_BPF_ROWS_FULL) +
				 count_of(run, KMEM_BPF_RARE_FULL),
		.tasks_map_full = count_of(run, KMEM_BPF_TASKS_FULL),
		.slab_map_full = count_of(run, KMEM_BPF_SLAB_FULL),
		.blocks_outside = count_of(run, KMEM_BPF_BLOCK_OUTSIDE),
		.fallbacks = run->core.extfrag,
		.no_fallbacks = run->core.extfrag ? "" :
			"no kmem:mm_page_alloc_extfrag (or it was left out)",
		.map_bytes = kmem_bpf_run__map_bytes(run),
		.stall_events_lost = count_of(run, KMEM_BPF_STALL_LOST) +
				     count_of(run, KMEM_BPF_STALL_NO_TASK),
		/* The kernel's account, kept where bpf_stats_enabled. */
		.prog_runs = run->prog_runs,
		.prog_ns = run->prog_ns,
		.prog_ns_per_run = run->prog_runs ? run->prog_ns / run->prog_runs : 0,
	};
	if (!run->core.kp)
		src->exact = "the slab counts by callsite and cache";
	else if (every && life)
		src->exact = "every number: every stack was taken";
	else if (life)
		src->exact = run->core.extfrag ?
			"the totals, grid, failures, fallbacks, pageblocks and lifetime groups" :
			"the totals, grid, failures, pageblocks and lifetime groups";
	if (run->core.st) {
		snprintf(run->exact, sizeof(run->exact), "%s; the stalls", src->exact);
		src->exact = run->exact;
	}
	if (run->core.kp && !every && life)
		src->estimated = "the callsite rows, from the sampled stacks";
	else if (run->core.kp && !every)
		src->estimated =
			"the callsite rows and lifetime groups, from the sampled allocations";
	else if (run->core.kp && !life)
		src->estimated =
			"the lifetime groups, from the allocations the live-page map tracked";
}

/*
 * Every analysis finished and joined, the tables sorted as a recording's.
 * A recording's page rows count their fragmenting fallbacks as they come;
 * here they are the callsite's, once the fallbacks are read.
 */
static int settle(struct kmem_bpf_run *run)
{
	int err = 0;

	if (run->settled)
		return 0;
	run->settled = true;
	if (run->core.kp)
		err = kmem_frag__finish(run->core.kf);
	if (!err && run->core.kp && run->core.extfrag)
		kmem_page__walk_rows(run->core.kp, KMEM_PAGE_TABLE_CALLER,
				     set_fragmenting, run->core.kf);
	run->core.ctx = (struct kmem_cell_ctx){
		.page_size = run->page_size,
		.callchains = true,
		.callers_estimated = run->config.sample_bytes > 1,
		.slab_unpaired = true,
		.task_key = KMEM_TASK_NONE,
	};
	if (!err)
		err = kmem_run_core__settle(&run->core);
	fill_source(run);
	return err;
}

int kmem_bpf_run__report(struct kmem_bpf_run *run, struct kmem_report *r)
{
	int err = settle(run);

	kmem_run_core__report(&run->core, r);
	r->trace = report_trace(run);
	r->src[KMEM_SRC_COUNTED] = &run->source;
	settle_memory(run);
	r->src[KMEM_SRC_MEMORY] = &run->memory;
	return err;
}
