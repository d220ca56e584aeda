// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem: how the kernel allocates memory.
 *
 * 'perf kmem record' records the slab (--slab) and page allocator (--page)
 * tracepoints, 'perf kmem stat' replays them.  A sample goes one way:
 * util/kmem-decode.c reads it, util/kmem-queue.c puts it in time order,
 * and the analyses (util/kmem-page.c, util/kmem-slab.c, util/kmem-frag.c)
 * count it; util/kmem-report.c and util/kmem-text.c render the results as
 * JSON or text.  This file does the options, the session set-up and the
 * choice of output.
 */
#include "builtin.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <subcmd/pager.h>
#include <subcmd/parse-options.h>

#include "ui/util.h"
#include "util/build-id.h"
#include "util/kmem-callsite.h"
#include "util/config.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/dso.h"
#include "util/dsos.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/kmem-columns.h"
#include "util/kmem-decode.h"
#include "util/kmem-diff.h"
#include "util/kmem-diff-report.h"
#include "util/kmem-frag.h"
#include "util/kmem-interval.h"
#include "util/kmem-map.h"
#include "util/kmem-page.h"
#include "util/kmem-print.h"
#include "util/kmem-queue.h"
#include "util/kmem-report.h"
#include "util/kmem-stacks.h"
#include "util/kmem-tasks.h"
#include "util/kmem-file.h"
#include "util/kmem-slab.h"
#include "util/machine.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/time-utils.h"
#include "util/tool.h"
#include "util/tracepoint.h"

#define DEFAULT_PAGE_SORT	"bytes,hit"
#define DEFAULT_SLAB_SORT	"frag,hit,bytes"
/* -I --caller: the callsites shown of each interval, without -l. */
#define DEFAULT_INTERVAL_CALLERS	3

/* What the user asked for, set once from the command line. */
struct perf_kmem {
	const char		*input_name;
	bool			force;
	bool			slab;
	bool			page;
	bool			caller;
	bool			alloc;
	bool			live;
	bool			raw_ip;
	const char		*lines_str;	/* -l */
	int			lines;		/* -1: the default */
	const char		*sort_str;
	kmem_rows_cmp_fn	page_keys[KMEM_MAX_SORT_KEYS];
	int			nr_page_keys;
	kmem_rows_cmp_fn	slab_keys[KMEM_MAX_SORT_KEYS];
	int			nr_slab_keys;
	const char		*time_str;
	struct perf_time_interval ptime;
	const char		*alloc_regex;
	const char		*alloc_regex_add;
	const char		*pageblock_order_str;
	int			pageblock_order;	/* -1: the trace's */
	bool			json;
	const char		*folded;	/* "bytes" or "hits" */
	const char		*output_name;	/* -o; NULL: stdout */
	const char		*map_name;	/* --map */
	const char		*interval_str;	/* -I */
	u64			interval;	/* ns; 0: none */
	enum kmem_task_key	task_key;	/* -s pid or -s comm */
	bool			task_filter;	/* --pid, --tid or --comm */
	bool			diff;		/* perf kmem diff */
	/* perf config */
	const char		*default_mode;	/* kmem.default; NULL: unset */
	bool			mode_from_trace; /* no --page, --slab, config */
	size_t			queue_size;	/* kmem.queue-size */
};

/*
 * One pass over a perf.data file: what comes before corrupt data is
 * analysed in the same pass, when perf's reader stops.
 */
struct kmem_run {
	struct perf_tool		tool;
	const struct perf_kmem		*kmem;
	const char			*path;		/* the trace */
	struct perf_data		data;
	struct perf_session		*session;
	struct callsite_resolver	*resolver;
	struct kmem_decoder		*dec;
	const struct kmem_trace_info	*info;
	struct kmem_queue		*queue;
	size_t				queue_record_size;
	struct kmem_page		*kp;
	struct kmem_frag		*kf;	/* with kp */
	struct kmem_stacks		*stacks;	/* --folded */
	struct kmem_tasks		*tasks;		/* -s pid/comm, --pid... */
	struct kmem_interval		*iv;		/* -I */
	struct kmem_slab		*ks;
	char				*recorded_kallsyms;
	struct perf_time_interval	ptime;		/* --time */
	u64				nr_events;	/* analysed */
	u64				nr_outside_time;	/* --time */
	u64				first_outside, last_outside;
	u64				nr_of_kind[KMEM_NR_EVENT_KINDS];
	u64				nr_lost;
	bool				setup_failed;	/* and said why */
	bool				stream_began;	/* a pipe's FINISHED_INIT */
	FILE				*perf_messages;	/* held back */
	FILE				*saved_debug_file;
};

static const char * const slab_tracepoints[] = {
	"kmem:kmalloc", "kmem:kfree", "kmem:kmem_cache_alloc",
	"kmem:kmem_cache_free",
	/* Merged into kmalloc and kmem_cache_alloc in v6.1. */
	"kmem:kmalloc_node", "kmem:kmem_cache_alloc_node",
};

/* Thousands separators whatever the locale: "12,345,678". */
#define COMMAS(v) kmem_commas((v), (char [32]) { 0 }, 32)

/* --- reading events -------------------------------------------------- */

static int setup_streamed_analyses(struct kmem_run *run);

static int process_sample_event(const struct perf_tool *tool,
				union perf_event *event __maybe_unused,
				struct perf_sample *sample,
				struct evsel *evsel,
				struct machine *machine __maybe_unused)
{
	struct kmem_run *run = container_of(tool, struct kmem_run, tool);
	struct kmem_event ev;
	void *queued;
	int ret;

	/* A pipe without a FINISHED_INIT record: set up at its first sample. */
	if (!run->dec && setup_streamed_analyses(run))
		return -EINVAL;
	if (!evsel->handler)
		return 0;
	if (run->kmem->time_str &&
	    perf_time__skip_sample(&run->ptime, sample->time)) {
		if (!run->nr_outside_time++)
			run->first_outside = sample->time;
		run->last_outside = sample->time;
		return 0;
	}
	run->nr_events++;
	ret = kmem_decoder__decode(run->dec, evsel, sample, &ev);
	if (ret <= 0)
		return ret;
	run->nr_of_kind[ev.kind]++;
	ret = kmem_queue__add(run->queue, ev.time, sample->cpu, &queued);
	if (ret)
		return ret;
	/* Sizes known at compile time: the copy is a few moves, not a call. */
	if (run->queue_record_size == sizeof(ev))
		memcpy(queued, &ev, sizeof(ev));
	else
		memcpy(queued, &ev, KMEM_PAGE_EVENT_SIZE);
	return 0;
}

static void prefetch_queued(const void *record, void *arg)
{
	const struct kmem_event *ev = record;
	struct kmem_run *run = arg;

	switch (ev->kind) {
	case KMEM_EVENT_PAGE_ALLOC:
	case KMEM_EVENT_PAGE_FREE:
		kmem_page__prefetch(run->kp, ev->page.pfn);
		break;
	case KMEM_EVENT_SLAB_ALLOC:
		kmem_slab__prefetch(run->ks, ev->slab_alloc.ptr);
		break;
	case KMEM_EVENT_SLAB_FREE:
		kmem_slab__prefetch(run->ks, ev->slab_free.ptr);
		break;
	default:
		break;
	}
}

/* --folded: the bytes and count of an allocation, to its callchain. */
static void count_stack(struct kmem_run *run, u32 tag, int order, bool got)
{
	if (!tag || !got || order < 0 || order > KMEM_PAGE_MAX_ORDER)
		return;
	kmem_stacks__add(run->stacks, tag - 1, run->info->page_size << order,
			 1);
}

static void count_live_stack(u32 tag, int order, void *arg)
{
	count_stack(arg, tag, order, true);
}

/*
 * perf's thread tracking must take the COMM, FORK and EXIT records in time
 * order, as the samples are delivered, or a child's FORK read after its
 * COMM (they come from two CPUs' buffers) forgets the exec'ed name.  They
 * wait in the queue with the samples.
 */
static int queue_task_event(const struct perf_tool *tool, union perf_event *event,
			    struct perf_sample *sample, enum kmem_event_kind kind)
{
	struct kmem_run *run = container_of(tool, struct kmem_run, tool);
	struct kmem_event *ev;
	void *queued;
	int err;

	if (!run->queue)
		return 0;
	err = kmem_queue__add(run->queue, sample->time, sample->cpu, &queued);
	if (err)
		return err;
	ev = queued;
	ev->time = sample->time;
	ev->kind = kind;
	ev->task = (struct kmem_task_event){ .misc = event->header.misc };
	if (kind == KMEM_EVENT_TASK_COMM) {
		ev->task.pid = event->comm.pid;
		ev->task.tid = event->comm.tid;
		/* The record's comm may lack its NUL: copy what fits. */
		snprintf(ev->task.comm, sizeof(ev->task.comm), "%.*s",
			 (int)sizeof(ev->task.comm) - 1, event->comm.comm);
	} else {
		ev->task.pid = event->fork.pid;
		ev->task.tid = event->fork.tid;
		ev->task.ppid = event->fork.ppid;
		ev->task.ptid = event->fork.ptid;
	}
	return 0;
}

static int process_comm(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample,
			struct machine *machine __maybe_unused)
{
	return queue_task_event(tool, event, sample, KMEM_EVENT_TASK_COMM);
}

static int process_fork(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample,
			struct machine *machine __maybe_unused)
{
	return queue_task_event(tool, event, sample, KMEM_EVENT_TASK_FORK);
}

static int process_exit(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample,
			struct machine *machine __maybe_unused)
{
	return queue_task_event(tool, event, sample, KMEM_EVENT_TASK_EXIT);
}

/* A queued COMM, FORK or EXIT record, as perf's tracking reads it. */
static int deliver_task_event(struct kmem_run *run, const struct kmem_event *ev)
{
	struct machine *machine = &run->session->machines.host;
	struct perf_sample sample = { .time = ev->time, .pid = ev->task.pid,
				      .tid = ev->task.tid, .cpu = (u32)-1 };
	union perf_event event;
	int err;

	memset(&event, 0, sizeof(event.comm));
	event.header.misc = ev->task.misc;
	if (ev->kind == KMEM_EVENT_TASK_COMM) {
		event.header.type = PERF_RECORD_COMM;
		event.header.size = sizeof(event.comm);
		event.comm.pid = ev->task.pid;
		event.comm.tid = ev->task.tid;
		memcpy(event.comm.comm, ev->task.comm, sizeof(ev->task.comm));
		err = machine__process_comm_event(machine, &event, &sample);
	} else {
		event.header.type = ev->kind == KMEM_EVENT_TASK_FORK ?
				    PERF_RECORD_FORK : PERF_RECORD_EXIT;
		event.header.size = sizeof(event.fork);
		event.fork = (struct perf_record_fork){
			.header = event.header,
			.pid = ev->task.pid, .tid = ev->task.tid,
			.ppid = ev->task.ppid, .ptid = ev->task.ptid,
			.time = ev->time,
		};
		err = ev->kind == KMEM_EVENT_TASK_FORK ?
		      machine__process_fork_event(machine, &event, &sample) :
		      machine__process_exit_event(machine, &event, &sample);
	}
	if (run->tasks && ev->kind != KMEM_EVENT_TASK_EXIT)
		kmem_tasks__forget(run->tasks, ev->task.tid);
	return err;
}

/*
 * -I: close the intervals before a page event's, and count an
 * allocation's bytes to its callsite in its interval.
 */
static int interval_event(struct kmem_run *run, const struct kmem_event *ev)
{
	const struct kmem_page_event *page = &ev->page;
	int err;

	err = kmem_interval__advance(run->iv, ev->time, kmem_page__summary(run->kp),
				     kmem_frag__summary(run->kf));
	if (err || ev->kind != KMEM_EVENT_PAGE_ALLOC ||
	    page->pfn == KMEM_PAGE_NO_PFN || page->order < 0 ||
	    page->order > KMEM_PAGE_MAX_ORDER)
		return err;
	return kmem_interval__alloc(run->iv, page->callsite,
				    run->info->page_size << page->order);
}

/* Analyses count the events they cannot take; only -ENOMEM stops. */
static int deliver_queued(void *record, void *arg)
{
	struct kmem_event *ev = record;
	struct kmem_run *run = arg;
	u32 task;
	int err;

	if (run->tasks && (ev->kind == KMEM_EVENT_PAGE_ALLOC ||
			   ev->kind == KMEM_EVENT_EXTFRAG)) {
		err = kmem_tasks__key(run->tasks, ev->tid, ev->time, &task);
		/* Of a task --pid, --tid or --comm leaves out. */
		if (err)
			return err < 0 ? err : 0;
		if (ev->kind == KMEM_EVENT_PAGE_ALLOC)
			ev->page.task = task;
	}
	if (run->iv && (ev->kind == KMEM_EVENT_PAGE_ALLOC ||
			ev->kind == KMEM_EVENT_PAGE_FREE ||
			ev->kind == KMEM_EVENT_EXTFRAG)) {
		err = interval_event(run, ev);
		if (err)
			return err;
	}
	switch (ev->kind) {
	case KMEM_EVENT_PAGE_ALLOC:
		err = kmem_page__alloc(run->kp, &ev->page);
		if (!err)
			err = kmem_frag__alloc(run->kf, &ev->page);
		if (!err && run->stacks && !run->kmem->live)
			count_stack(run, ev->page.tag, ev->page.order,
				    ev->page.pfn != KMEM_PAGE_NO_PFN);
		break;
	case KMEM_EVENT_EXTFRAG:
		err = kmem_frag__fallback(run->kf, &ev->extfrag);
		break;
	case KMEM_EVENT_PAGE_FREE:
		err = kmem_page__free(run->kp, &ev->page);
		if (!err)
			err = kmem_frag__free(run->kf, &ev->page);
		break;
	case KMEM_EVENT_SLAB_ALLOC:
		err = kmem_slab__alloc(run->ks, &ev->slab_alloc);
		break;
	case KMEM_EVENT_SLAB_FREE:
		err = kmem_slab__free(run->ks, &ev->slab_free);
		break;
	case KMEM_EVENT_TASK_COMM:
	case KMEM_EVENT_TASK_FORK:
	case KMEM_EVENT_TASK_EXIT:
		err = deliver_task_event(run, ev);
		break;
	default:
		err = 0;
	}
	return err;
}

static int process_finished_round(const struct perf_tool *tool,
				  union perf_event *event __maybe_unused,
				  struct ordered_events *oe __maybe_unused)
{
	struct kmem_run *run = container_of(tool, struct kmem_run, tool);

	return run->queue ? kmem_queue__flush(run->queue, KMEM_QUEUE_FLUSH__ROUND) : 0;
}

/*
 * A pipe brings what a file has in its header as records before the
 * samples: the attrs, the tracepoint formats and the features (topology,
 * os-release), then FINISHED_INIT.  The analyses are set up there.
 */
static int process_finished_init(struct perf_session *session __maybe_unused,
				 union perf_event *event __maybe_unused)
{
	struct kmem_run *run = container_of(session->tool, struct kmem_run, tool);

	run->stream_began = true;
	return run->dec ? 0 : setup_streamed_analyses(run);
}

static int process_feature(struct perf_session *session, union perf_event *event)
{
	/* A newer perf's feature: not one the analyses use. */
	if (event->feat.feat_id >= HEADER_LAST_FEATURE)
		return 0;
	return perf_event__process_feature(session, event);
}

static int process_lost_event(const struct perf_tool *tool,
			      union perf_event *event,
			      struct perf_sample *sample __maybe_unused,
			      struct machine *machine __maybe_unused)
{
	struct kmem_run *run = container_of(tool, struct kmem_run, tool);

	run->nr_lost += event->lost.lost;
	return 0;
}

/* Samples the kernel dropped, e.g. when they did not fit the buffer. */
static int process_lost_samples_event(const struct perf_tool *tool,
				      union perf_event *event,
				      struct perf_sample *sample __maybe_unused,
				      struct machine *machine __maybe_unused)
{
	struct kmem_run *run = container_of(tool, struct kmem_run, tool);

	run->nr_lost += event->lost_samples.lost;
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

static const char *gfp_name(void *arg, u64 gfp)
{
	struct kmem_run *run = arg;

	return kmem_decoder__gfp_name(run->dec, gfp);
}

/* A function, with -v or --raw-ip func+0xoff, or a bare address. */
static const char *callsite_name(void *arg, u64 callsite, char *buf,
				 size_t size)
{
	struct kmem_run *run = arg;

	if (!run->resolver) {
		snprintf(buf, size, "%#" PRIx64, callsite);
		return buf;
	}
	/* Not an allocator address shown as if it were a callsite. */
	if (callsite_resolver__named_none(run->resolver)) {
		snprintf(buf, size, "(unresolved) %#" PRIx64, callsite);
		return buf;
	}
	return callsite_resolver__name(run->resolver, callsite,
				       run->kmem->raw_ip || verbose > 0, buf,
				       size);
}

static u64 fragmenting_fallbacks(struct kmem_run *run)
{
	const struct kmem_frag_summary *s;

	if (!run->kf)
		return 0;
	s = kmem_frag__summary(run->kf);
	return s->classes[KMEM_FRAG_CONVERTED].nr +
	       s->classes[KMEM_FRAG_POLLUTED].nr;
}

static const char *comm_name(void *arg, u32 task)
{
	struct kmem_run *run = arg;

	return kmem_tasks__comm(run->tasks, task);
}

static struct kmem_cell_ctx cell_ctx(struct kmem_run *run)
{
	const struct kmem_trace_info *info = run->info;

	return (struct kmem_cell_ctx){
		.page_size = info->page_size,
		.pre_v4_4 = info->pre_v4_4,
		.pfn_is_page = info->pfn_is_page,
		.live = run->kmem->live,
		.xnode = kmem_decoder__nr_trace_nodes(run->dec) > 1 &&
			 info->has_mem2node &&
			 info->nr_nodes <= KMEM_PAGE_MAX_NODES,
		.callchains = info->has_callchains,
		.frag_classes = info->has_extfrag && kmem_frag__has_classes(run->kf),
		.fragmenting = fragmenting_fallbacks(run) > 0,
		.task_key = run->kmem->task_key,
		.gfp_name = gfp_name,
		.callsite_name = callsite_name,
		.comm_name = comm_name,
		.arg = run,
	};
}

/* --- setting up a run ------------------------------------------------ */

static void alloc_func_print(const char *name, void *arg __maybe_unused)
{
	printf("alloc func: %s\n", name);
}

/* After the events: the kernel map comes from the trace's own records. */
static void list_alloc_funcs(struct kmem_run *run)
{
	if (verbose <= 0 || !run->resolver)
		return;
	if (callsite_resolver__list_alloc_funcs(run->resolver,
						alloc_func_print, NULL))
		pr_err("perf kmem: no kernel symbols to list allocator functions from\n");
}

/*
 * perf record keeps a copy of the kernel's symbols in the build-id cache.
 * It is the recording kernel's for sure, and reading it takes a tenth of
 * the time of /proc/kallsyms, which the kernel formats anew on each read:
 * prefer it, unless told which symbols to use.
 */
static const char *kallsyms_to_use(struct kmem_run *run)
{
	char sbuild_id[SBUILD_ID_SIZE], path[PATH_MAX];
	struct dso *kernel;

	if (symbol_conf.kallsyms_name || symbol_conf.vmlinux_name)
		return symbol_conf.kallsyms_name;
	kernel = dsos__find_kernel_dso(&run->session->machines.host.dsos);
	if (!kernel)
		return NULL;
	if (dso__has_build_id(kernel)) {
		build_id__sprintf(dso__bid(kernel), sbuild_id);
		if (build_id_cache__kallsyms_path(sbuild_id, path, sizeof(path)) &&
		    !access(path, R_OK))
			run->recorded_kallsyms = strdup(path);
	}
	dso__put(kernel);
	return run->recorded_kallsyms;
}

/*
 * One resolver of kernel addresses serves both analyses.  Loading a
 * kallsyms file into perf's maps is slow; the resolver reads it into a
 * table of its own.  A vmlinux, or a kallsyms the table refuses, stays
 * with perf's maps.
 */
static int setup_resolver(struct kmem_run *run)
{
	const struct perf_kmem *kmem = run->kmem;
	const char *kallsyms;
	char err[160];

	run->resolver = callsite_resolver__new(&run->session->machines.host,
					       kmem->alloc_regex_add ?: kmem->alloc_regex,
					       kmem->alloc_regex_add,
					       kmem->raw_ip, err, sizeof(err));
	if (!run->resolver) {
		pr_err("perf kmem: %s\n", err);
		return -EINVAL;
	}
	kallsyms = kallsyms_to_use(run);
	if (symbol_conf.vmlinux_name || !kallsyms)
		return 0;
	return callsite_resolver__use_kallsyms(run->resolver, kallsyms);
}

/* Only the page analysis needs callchains; the slab events name their caller. */
static bool need_resolver(const struct perf_kmem *kmem, struct evlist *evlist)
{
	struct evsel *alloc;

	if (kmem->slab)
		return true;
	alloc = evlist__find_tracepoint_by_name(evlist, "kmem:mm_page_alloc");
	return alloc && evsel__has_callchain(alloc);
}

static int setup_page_analysis(struct kmem_run *run)
{
	const struct kmem_trace_info *info = run->info;
	struct kmem_page_config config = {
		.page_size = info->page_size,
		.pre_v4_4_migtypes = info->pre_v4_4,
		.want_alloc_table = run->kmem->alloc,
		.live_only = run->kmem->live,
		.nr_nodes = info->has_mem2node ? info->nr_nodes : 0,
		.allocations_filtered = run->kmem->task_filter,
	};
	struct kmem_tasks_config tasks = {
		.key = run->kmem->task_key,
		.pids = symbol_conf.pid_list,
		.tids = symbol_conf.tid_list,
		.comms = symbol_conf.comm_list,
	};

	struct kmem_frag_config frag = {
		.page_size = info->page_size,
		.pageblock_order = info->pageblock_order,
		.pre_v4_4_migtypes = info->pre_v4_4,
		.no_pfns = info->pfn_is_page,
	};

	if (info->has_page_alloc && !info->has_callchains)
		pr_err("perf kmem: no callchains in %s: callsites need 'perf kmem record --page'\n",
		       run->path);
	run->kp = kmem_page__new(&config);
	run->kf = kmem_frag__new(&frag);
	if (!run->kp || !run->kf)
		return -ENOMEM;
	if (run->kmem->interval) {
		struct kmem_interval_config iv = {
			.length = run->kmem->interval,
			.nr_callers = !run->kmem->caller ? 0 :
				      run->kmem->lines >= 0 ? run->kmem->lines :
				      DEFAULT_INTERVAL_CALLERS,
		};

		run->iv = kmem_interval__new(&iv);
		if (!run->iv)
			return -ENOMEM;
	}
	if (tasks.key == KMEM_TASK_NONE && !run->kmem->task_filter)
		return 0;
	run->tasks = kmem_tasks__new(&run->session->machines.host, &tasks);
	return run->tasks ? 0 : -ENOMEM;
}

static int setup_slab_analysis(struct kmem_run *run)
{
	struct kmem_slab_config config = {
		.want_alloc_table = run->kmem->alloc,
	};

	run->ks = kmem_slab__new(&config);
	return run->ks ? 0 : -ENOMEM;
}

static int setup_each_analysis(struct kmem_run *run)
{
	const struct perf_kmem *kmem = run->kmem;
	struct kmem_decode_config config = {
		.page = kmem->page,
		.slab = kmem->slab,
		.pageblock_order = kmem->pageblock_order,
	};
	char err[256];
	int ret = 0;

	if (kmem->folded) {
		run->stacks = kmem_stacks__new();
		if (!run->stacks)
			return -ENOMEM;
		config.stacks = run->stacks;
	}
	if (need_resolver(kmem, run->session->evlist)) {
		ret = setup_resolver(run);
		if (ret)
			return ret;
	}
	config.resolver = run->resolver;
	run->dec = kmem_decoder__new(run->session, &config, err, sizeof(err));
	if (!run->dec) {
		/* Its advice names stat: under diff, diff takes the same. */
		if (kmem->diff && strstr(err, "'perf kmem stat "))
			memcpy(strstr(err, "'perf kmem stat ") + 11, "diff", 4);
		pr_err("perf kmem: %s\n", err);
		return -EINVAL;
	}
	run->info = kmem_decoder__info(run->dec);
	if (kmem->slab)
		ret = setup_slab_analysis(run);
	if (!ret && kmem->page)
		ret = setup_page_analysis(run);
	if (ret)
		return ret;
	/* A page-only analysis queues records no larger than a page event. */
	run->queue_record_size = kmem->slab ? sizeof(struct kmem_event) :
					      KMEM_PAGE_EVENT_SIZE;
	run->queue = kmem_queue__new(run->queue_record_size, kmem->queue_size,
				     deliver_queued, run);
	if (!run->queue)
		return -ENOMEM;
	kmem_queue__set_prefetch(run->queue, prefetch_queued);
	return 0;
}

/* Set up the analyses, or say why not. */
static int setup_analyses(struct kmem_run *run)
{
	int err = setup_each_analysis(run);

	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory setting up the analyses\n");
	run->setup_failed = err != 0;
	return err;
}

/* --- perf kmem stat -------------------------------------------------- */

/*
 * perf's readers report a problem where they meet it, often in several
 * lines (a "Warning:", the offset and type of a record); perf kmem then
 * says in one line what it means for the analysis.  Without -v, perf's
 * own lines are held back while perf reads the file.
 */
static int discard_ui_message(const char *format __maybe_unused,
			      va_list args __maybe_unused)
{
	return 0;
}

static struct perf_error_ops discard_ui_messages = {
	.error		= discard_ui_message,
	.warning	= discard_ui_message,
};

static void hold_perf_messages(struct kmem_run *run)
{
	if (verbose > 0 || !run->perf_messages)
		return;
	run->saved_debug_file = debug_file();
	debug_set_file(run->perf_messages);
	perf_error__register(&discard_ui_messages);
}

static void release_perf_messages(struct kmem_run *run)
{
	if (verbose > 0 || !run->perf_messages)
		return;
	perf_error__unregister(&discard_ui_messages);
	debug_set_file(run->saved_debug_file);
}

/*
 * Set up from what a pipe brought so far, in the middle of perf's reading:
 * perf's messages are held back, ours must not be.
 */
static int setup_streamed_analyses(struct kmem_run *run)
{
	int err;

	release_perf_messages(run);
	err = setup_analyses(run);
	hold_perf_messages(run);
	return err;
}

/*
 * -i FIFO: perf reads a pipe from a file descriptor it is given, or from
 * standard input.
 */
static int open_fifo(struct kmem_run *run, const char *path)
{
	struct stat st;
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st) || !S_ISFIFO(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		pr_err("perf kmem: cannot read %s: %s\n", path, strerror(errno));
		return -errno;
	}
	run->data.path = "-";
	run->data.file.fd = fd;
	return 0;
}

static int open_session(struct kmem_run *run)
{
	const char *path = run->path;
	char why[160] = "no 'perf record -o -' stream on it";

	/* The session keeps a pointer to its perf_data until it is deleted. */
	run->data.path = path;
	run->data.mode = PERF_DATA_MODE_READ;
	run->data.force = run->kmem->force;
	/* A pipe through stdio: one read() for many records, not two each. */
	run->data.use_stdio = true;
	if (open_fifo(run, path))
		return -EINVAL;

	/* Our queue puts the events in time order: see util/kmem-queue.h. */
	perf_tool__init(&run->tool, /*ordered_events=*/false);
	run->tool.finished_round = process_finished_round;
	run->tool.sample = process_sample_event;
	run->tool.mmap = process_kernel_mmap;
	run->tool.mmap2 = process_kernel_mmap2;
	run->tool.lost = process_lost_event;
	run->tool.lost_samples = process_lost_samples_event;
	/* What a pipe has in records, a file in its header. */
	run->tool.attr = perf_event__process_attr;
	run->tool.event_update = perf_event__process_event_update;
	run->tool.tracing_data = perf_event__process_tracing_data;
	run->tool.feature = process_feature;
	run->tool.id_index = perf_event__process_id_index;
	run->tool.build_id = perf_event__process_build_id;
	run->tool.finished_init = process_finished_init;
	/* Only the tasks' keys and filters need perf to follow the tasks. */
	if (run->kmem->task_key != KMEM_TASK_NONE || run->kmem->task_filter) {
		run->tool.comm = process_comm;
		run->tool.fork = process_fork;
		run->tool.exit = process_exit;
	}

	/* Problems perf's reader would report in several lines, in one. */
	if (strcmp(run->data.path, "-") &&
	    kmem_file__check(path, run->kmem->force, why, sizeof(why))) {
		pr_err("perf kmem: cannot read %s: %s\n", path, why);
		return -EINVAL;
	}
	hold_perf_messages(run);
	run->session = perf_session__new(&run->data, &run->tool);
	release_perf_messages(run);
	if (IS_ERR(run->session)) {
		int err = PTR_ERR(run->session);

		run->session = NULL;
		pr_err("perf kmem: cannot read %s: %s\n", path, why);
		return err ?: -EINVAL;
	}
	return 0;
}

static void kmem_run__delete(struct kmem_run *run)
{
	if (!run)
		return;
	kmem_queue__delete(run->queue);
	kmem_slab__delete(run->ks);
	kmem_page__delete(run->kp);
	kmem_frag__delete(run->kf);
	kmem_stacks__delete(run->stacks);
	kmem_tasks__delete(run->tasks);
	kmem_interval__delete(run->iv);
	kmem_decoder__delete(run->dec);
	callsite_resolver__delete(run->resolver);
	if (run->session)
		perf_session__delete(run->session);
	if (run->perf_messages)
		fclose(run->perf_messages);
	free(run->recorded_kallsyms);
	free(run);
}

/*
 * A run of the analyses @kmem asks for over the trace @path, set up and
 * ready to read.  NULL: it could not be set up, and perf kmem said why.
 */
static struct kmem_run *kmem_run__new(const struct perf_kmem *kmem,
				      const char *path)
{
	struct kmem_run *run = zalloc(sizeof(*run));
	int err;

	if (!run)
		return NULL;
	run->kmem = kmem;
	run->path = path;
	run->ptime = kmem->ptime;
	/* Without it, perf's messages are not held back. */
	run->perf_messages = fopen("/dev/null", "w");
	if (open_session(run))
		goto fail;
	hold_perf_messages(run);
	err = symbol__init(&run->session->header.env);
	release_perf_messages(run);
	if (err < 0) {
		pr_err("perf kmem: cannot set up symbol resolution\n");
		goto fail;
	}
	/* A pipe's analyses are set up as its first records come. */
	if (perf_data__is_pipe(&run->data))
		return run;
	if (setup_analyses(run))
		goto fail;
	return run;
fail:
	kmem_run__delete(run);
	return NULL;
}

/*
 * Read the events and deliver them all.  A record perf's reader cannot
 * read stops it (it says where, and why): what came before is analysed
 * all the same, and *@stopped says so.
 */
static int kmem_run__read(struct kmem_run *run, bool *stopped)
{
	int err;

	hold_perf_messages(run);
	err = perf_session__process_events(run->session);
	release_perf_messages(run);
	*stopped = false;
	if (run->setup_failed)
		return -EINVAL;
	/*
	 * A pipe that ended or broke before its first sample, and before the
	 * record that says its header records are all there.
	 */
	if (!run->dec && (err || !run->stream_began)) {
		pr_err("perf kmem: cannot read %s: %s before its first sample\n",
		       run->path,
		       err ? "corrupt data" : "the stream ended");
		return -EINVAL;
	}
	if (!run->dec && setup_analyses(run))
		return -EINVAL;
	*stopped = err && err != -ENOMEM;
	if (!err || *stopped)
		err = kmem_queue__flush(run->queue, KMEM_QUEUE_FLUSH__FINAL);
	if (!err && run->iv)
		err = kmem_interval__finish(run->iv, kmem_page__summary(run->kp),
					    kmem_frag__summary(run->kf));
	if (kmem_queue__nr_half_flushes(run->queue))
		pr_debug("perf kmem: the event queue reached kmem.queue-size %" PRIu64 " times\n",
			 kmem_queue__nr_half_flushes(run->queue));
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory reading %s\n",
		       run->path);
	return err;
}

/* A callsite's symbol, with an offset into it, or NULL. */
static const char *symbol_name(void *arg, u64 addr, char *buf, size_t size)
{
	struct kmem_run *run = arg;

	if (!run->resolver || !addr)
		return NULL;
	callsite_resolver__name(run->resolver, addr, true, buf, size);
	return strncmp(buf, "0x", 2) ? buf : NULL;
}

static struct kmem_report_trace report_trace(struct kmem_run *run)
{
	const struct perf_env *env = &run->session->header.env;
	const u64 *nr = run->nr_of_kind;

	return (struct kmem_report_trace){
		.path = run->path,
		.os_release = env->os_release,
		.hostname = env->hostname,
		.arch = env->arch,
		.nr_cpus = env->nr_cpus_avail,
		.time_window = run->kmem->time_str,
		.nr_samples = run->nr_events,
		.nr_page_events = nr[KMEM_EVENT_PAGE_ALLOC] +
				  nr[KMEM_EVENT_PAGE_FREE],
		.nr_slab_events = nr[KMEM_EVENT_SLAB_ALLOC] +
				  nr[KMEM_EVENT_SLAB_FREE],
		.nr_extfrag_events = nr[KMEM_EVENT_EXTFRAG],
		.events_lost = run->nr_lost,
		.events_too_short = kmem_decoder__nr_short(run->dec),
		.events_out_of_order = kmem_queue__nr_late(run->queue),
		.callsites_unresolved = run->resolver &&
			callsite_resolver__named_none(run->resolver),
		.sampled = run->info->sampled,
	};
}

/* The run's results, as the text and the JSON report them. */
static void fill_report(struct kmem_run *run, struct kmem_report *r,
			struct kmem_cell_ctx *ctx)
{
	const struct perf_kmem *kmem = run->kmem;

	*ctx = cell_ctx(run);
	ctx->symbol = symbol_name;
	*r = (struct kmem_report){
		.trace = report_trace(run),
		.ctx = ctx,
		.dec = run->dec,
		.kp = run->kp,
		.kf = run->kf,
		.ks = run->ks,
		.iv = run->iv,
		.caller = kmem->caller,
		.alloc = kmem->alloc,
		.lines = kmem->lines,
		.page_sort = {
			.names = kmem->sort_str ?: DEFAULT_PAGE_SORT,
			.keys = kmem->page_keys,
			.nr_keys = kmem->nr_page_keys,
		},
		.slab_sort = {
			.names = kmem->sort_str ?: DEFAULT_SLAB_SORT,
			.keys = kmem->slab_keys,
			.nr_keys = kmem->nr_slab_keys,
		},
	};
}

/*
 * Where the results go: stdout, or -o FILE, written under another name
 * and renamed when complete, so that a failed run leaves no half of it.
 */
struct kmem_output {
	const char	*path;
	char		*tmp;
	FILE		*fp;
};

static int output_open(struct kmem_output *out, const char *path)
{
	out->path = path;
	out->tmp = NULL;
	out->fp = stdout;
	if (!path)
		return 0;
	if (asprintf(&out->tmp, "%s.tmp.%d", path, getpid()) < 0)
		return -ENOMEM;
	out->fp = fopen(out->tmp, "w");
	if (out->fp)
		return 0;
	pr_err("perf kmem: cannot write %s: %s\n", path, strerror(errno));
	zfree(&out->tmp);
	return -errno ?: -EIO;
}

/* @err: of the analysis; the output is kept only without one. */
static int output_close(struct kmem_output *out, int err)
{
	int werr = 0;

	if (!out->tmp)
		return err;
	if (fflush(stdout) || fclose(out->fp))
		werr = -errno ?: -EIO;
	if (!err && !werr && rename(out->tmp, out->path))
		werr = -errno ?: -EIO;
	if (werr)
		pr_err("perf kmem: cannot write %s: %s\n", out->path,
		       strerror(-werr));
	if (err || werr)
		unlink(out->tmp);
	zfree(&out->tmp);
	return err ?: werr;
}

/* A frame of a folded stack: its function. */
static const char *frame_name(u64 ip, void *arg)
{
	static char name[KSYM_NAME_LEN + 32];
	struct kmem_run *run = arg;

	callsite_resolver__name(run->resolver, ip, false, name, sizeof(name));
	return strncmp(name, "0x", 2) ? name : NULL;
}

static int print_folded(struct kmem_run *run, FILE *fp)
{
	enum kmem_stacks_weight weight = strcmp(run->kmem->folded, "hits") ?
					 KMEM_STACKS_BYTES : KMEM_STACKS_HITS;
	size_t nr;
	int err;

	if (!run->info->has_callchains) {
		pr_err("perf kmem: --folded needs the callchains of the page allocations: record with perf kmem record --page\n");
		return -EINVAL;
	}
	kmem_page__finish(run->kp);
	if (run->kmem->live)
		kmem_page__walk_live(run->kp, count_live_stack, run);
	err = kmem_stacks__write(run->stacks, weight, frame_name, run, fp, &nr);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing folded stacks\n");
	return err;
}

/* Text goes to stdout: the pager, or for -o the file. */
static int text_output(struct kmem_output *out)
{
	if (!out->tmp)
		setup_pager();
	else if (fflush(stdout) || dup2(fileno(out->fp), STDOUT_FILENO) < 0)
		return -errno;
	return 0;
}

static int print_results(struct kmem_run *run, struct kmem_output *out)
{
	struct kmem_report report;
	struct kmem_cell_ctx ctx;
	int err;

	if (run->kmem->folded)
		return print_folded(run, out->fp);
	fill_report(run, &report, &ctx);
	err = kmem_report__prepare(&report);
	if (!err && run->kmem->json) {
		err = kmem_report__json(&report, out->fp);
	} else if (!err) {
		err = text_output(out);
		if (err)
			return err;
		list_alloc_funcs(run);
		err = kmem_report__text(&report);
	}
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing the results\n");
	return err;
}

/* -s for one analysis: its keys, or one line naming the unknown key. */
static int parse_keys(const char *what, const struct kmem_column *cols,
		      size_t nr_cols, const char *str, kmem_rows_cmp_fn *keys)
{
	char bad[64], known[256];
	int nr;

	nr = kmem_columns__parse(cols, nr_cols, str, keys, KMEM_MAX_SORT_KEYS,
				 bad, sizeof(bad));
	if (nr >= 0)
		return nr;
	if (nr == -E2BIG) {
		pr_err("perf kmem: too many sort keys for --%s: at most %d\n",
		       what, KMEM_MAX_SORT_KEYS);
		return -EINVAL;
	}
	pr_err("perf kmem: unknown sort key '%s' for --%s: use %s\n", bad, what,
	       kmem_columns__keys(cols, nr_cols, known, sizeof(known)));
	return -EINVAL;
}

/* Before reading a trace that may take a while: are the sort keys known? */
/* Which of the task keys -s has, if any: rows can differ by one only. */
static int parse_task_key(struct perf_kmem *kmem)
{
	const char *s = kmem->sort_str ?: "";
	bool pid = false, comm = false;

	while (*s) {
		size_t len = strcspn(s, ",");

		pid |= len == 3 && !strncmp(s, "pid", len);
		comm |= len == 4 && !strncmp(s, "comm", len);
		s += len + (s[len] == ',');
	}
	if (pid && comm) {
		pr_err("perf kmem: -s takes one of pid and comm\n");
		return -EINVAL;
	}
	kmem->task_key = pid ? KMEM_TASK_PID :
			 comm ? KMEM_TASK_COMM : KMEM_TASK_NONE;
	return 0;
}

static int parse_sort_keys(struct perf_kmem *kmem)
{
	if (parse_task_key(kmem))
		return -EINVAL;
	if (kmem->page) {
		kmem->nr_page_keys = parse_keys("page", kmem_page_columns,
						kmem_page_nr_columns,
						kmem->sort_str ?: DEFAULT_PAGE_SORT,
						kmem->page_keys);
		if (kmem->nr_page_keys < 0)
			return -EINVAL;
	}
	if (kmem->slab) {
		kmem->nr_slab_keys = parse_keys("slab", kmem_slab_columns,
						kmem_slab_nr_columns,
						kmem->sort_str ?: DEFAULT_SLAB_SORT,
						kmem->slab_keys);
		if (kmem->nr_slab_keys < 0)
			return -EINVAL;
	}
	return 0;
}

/* --- the map of physical memory ------------------------------------- */

static void add_node_range(int node, u64 start, u64 end, void *arg)
{
	kmem_map__add_node_range(arg, node, start, end);
}

static int fill_map(struct kmem_run *run, struct kmem_map *map,
		    const struct kmem_frag_pageblock *blocks, size_t nr)
{
	char name[KSYM_NAME_LEN + 32];
	int from, to, nodes = run->info->nr_nodes;
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct kmem_frag_pageblock *pb = &blocks[i];
		struct kmem_map_block b = {
			.pfn = pb->pfn,
			.fallbacks = pb->fallbacks[KMEM_FRAG_CLAIMED] +
				     pb->fallbacks[KMEM_FRAG_CONVERTED] +
				     pb->fallbacks[KMEM_FRAG_POLLUTED],
			.remote_frees = pb->remote_frees,
			.top_callsite = pb->main_callsite ?
					frame_name(pb->main_callsite, run) : NULL,
			.node = kmem_decoder__page_node(run->dec, pb->pfn),
		};
		int err;

		BUILD_BUG_ON((int)KMEM_MAP_NR_TYPES != (int)KMEM_NR_MIGTYPE_COLUMNS);
		memcpy(b.allocs, pb->allocs, sizeof(b.allocs));
		/* frame_name()'s buffer is its own: keep this name apart. */
		if (b.top_callsite) {
			snprintf(name, sizeof(name), "%s", b.top_callsite);
			b.top_callsite = name;
		}
		err = kmem_map__add_block(map, &b);
		if (err)
			return err;
	}
	kmem_decoder__node_ranges(run->dec, add_node_range, map);
	for (from = 0; kmem_decoder__nr_trace_nodes(run->dec) > 1 &&
	     from < nodes && nodes <= KMEM_PAGE_MAX_NODES; from++)
		for (to = 0; to < nodes; to++)
			kmem_map__set_xnode_bytes(map, from, to,
						  kmem_page__node_matrix(run->kp,
									 from, to));
	return 0;
}

/* --map: the pageblocks the trace allocated into, as an SVG picture. */
/* The map needs the pageblock order, and one it can draw. */
static bool map_unusable(struct kmem_run *run)
{
	const struct kmem_trace_info *info = run->info;

	if (!kmem_frag__has_classes(run->kf)) {
		pr_err("perf kmem: --map needs the pageblock order: %s\n",
		       info->pageblock_why);
		return true;
	}
	if (info->pageblock_order > KMEM_MAP_MAX_ORDER) {
		pr_err("perf kmem: --map draws pageblocks of order %d at most, not %d\n",
		       KMEM_MAP_MAX_ORDER, info->pageblock_order);
		return true;
	}
	return false;
}

static int write_map(struct kmem_run *run, struct kmem_output *out)
{
	const struct kmem_frag_pageblock *blocks;
	const struct kmem_trace_info *info = run->info;
	struct kmem_map *map;
	char title[PATH_MAX + 100];
	size_t nr = 0;
	int err;

	if (map_unusable(run))
		return -EINVAL;
	blocks = kmem_frag__pageblocks(run->kf, &nr);
	if (!nr) {
		pr_err("perf kmem: --map: %s has no page allocation to draw\n",
		       run->path);
		return -EINVAL;
	}
	snprintf(title, sizeof(title), "perf kmem: %s, kernel %s",
		 run->path,
		 run->session->header.env.os_release ?: "unknown");
	map = kmem_map__new(&(struct kmem_map_config){
		.title = title,
		.pageblock_order = info->pageblock_order,
		.page_size = info->page_size,
	});
	if (!map)
		return -ENOMEM;
	err = fill_map(run, map, blocks, nr);
	if (!err)
		err = kmem_map__write(map, out->fp);
	kmem_map__delete(map);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory drawing the map\n");
	return err;
}

/* Where perf's reader stopped, in words: "after X of its Y bytes of events". */
static const char *stop_place(struct kmem_run *run, char *buf, size_t size)
{
	/* The record it stopped at was counted, or the one before it. */
	u64 nr = run->session->evlist->stats.nr_events[0];
	u64 at = kmem_file__record_offset(run->path,
					     nr ? nr - 1 : 0);
	char total[32];

	if (at == KMEM_FILE_UNKNOWN) {
		snprintf(buf, size, "after %s records", COMMAS(nr ? nr - 1 : 0));
		return buf;
	}
	kmem_commas(run->session->header.data_size, total, sizeof(total));
	snprintf(buf, size, "after %s of its %s bytes of events", COMMAS(at),
		 total);
	return buf;
}

/* Where perf's reader stopped, and what the analysis covers: a line. */
static void stop_line(struct kmem_run *run, char *buf, size_t size)
{
	const char *path = run->path;
	char where[128];

	stop_place(run, where, sizeof(where));
	if (!run->nr_events)
		snprintf(buf, size, "perf kmem: cannot read %s: corrupt data %s, before any kmem event",
			 path, where);
	else
		snprintf(buf, size, "perf kmem: %s is corrupt %s: the analysis covers the %s events before",
			 path, where, COMMAS(run->nr_events));
}

static int report_stop(struct kmem_run *run)
{
	char line[PATH_MAX + 200];

	stop_line(run, line, sizeof(line));
	pr_err("%s\n", line);
	return -EINVAL;
}

/*
 * A number option in [@min, @max]: parse-options' OPT_INTEGER would take
 * 4294967297 as 1.
 */
static int parse_int_arg(const char *opt, const char *str, int min, int max,
			 int *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(str, &end, 10);
	if (errno || end == str || *end || v < min || v > max) {
		if (max == INT_MAX)
			pr_err("perf kmem: invalid %s '%s': use a number from %d\n",
			       opt, str, min);
		else
			pr_err("perf kmem: invalid %s '%s': use %d to %d\n",
			       opt, str, min, max);
		return -EINVAL;
	}
	*val = v;
	return 0;
}

/* A symbols file that cannot be read would leave every callsite unresolved. */
static int check_readable(const char *opt, const char *path)
{
	if (!path || !access(path, R_OK))
		return 0;
	pr_err("perf kmem: cannot read %s %s: %s\n", opt, path,
	       strerror(errno));
	return -EINVAL;
}

/*
 * No kernel address had a symbol: say which kernel's were looked for,
 * where, and how to get them.
 */
static void report_no_symbols(struct kmem_run *run)
{
	char bid[SBUILD_ID_SIZE] = "unknown";
	struct dso *kernel;

	kernel = dsos__find_kernel_dso(&run->session->machines.host.dsos);
	if (kernel && dso__has_build_id(kernel))
		build_id__sprintf(dso__bid(kernel), bid);
	dso__put(kernel);
	pr_warning("perf kmem: no symbols of the recording kernel (%s, build-id %s) in the build-id cache %s or /proc/kallsyms: callsites are unresolved; give that kernel's --kallsyms or --vmlinux, or run perf archive where it was recorded\n",
		   run->session->header.env.os_release ?: "release unknown",
		   bid, buildid_dir);
}

/* --pid, --tid and --comm that chose no allocation: nothing to show. */
static bool no_task_allocated(struct kmem_run *run)
{
	const struct kmem_page_summary *s = kmem_page__summary(run->kp);

	if (s->alloc.nr || s->fail.nr)
		return false;
	pr_err("perf kmem: no page allocation in %s of the tasks of%s%s%s%s%s%s\n",
	       run->path,
	       symbol_conf.pid_list_str ? " --pid " : "",
	       symbol_conf.pid_list_str ?: "",
	       symbol_conf.tid_list_str ? " --tid " : "",
	       symbol_conf.tid_list_str ?: "",
	       symbol_conf.comm_list_str ? " --comm " : "",
	       symbol_conf.comm_list_str ?: "");
	return true;
}

/* A --time span the trace's events are all outside of. */
static int report_empty_time(struct kmem_run *run)
{
	char first[32], last[32];

	timestamp__scnprintf_usec(run->first_outside, first, sizeof(first));
	timestamp__scnprintf_usec(run->last_outside, last, sizeof(last));
	if (run->kmem->diff)
		pr_err("perf kmem: no kmem event of %s in --time %s: its events are from %s to %s\n",
		       run->path, run->kmem->time_str, first, last);
	else
		pr_err("perf kmem: no kmem event in --time %s: the trace's are from %s to %s\n",
		       run->kmem->time_str, first, last);
	return -EINVAL;
}

/*
 * Without --page, --slab or kmem.default: slab if the trace has slab
 * events, as perf kmem always did, the page allocator if it has only
 * page events.  A pipe cannot be looked into first: slab.
 */
static void choose_analysis(struct perf_kmem *kmem)
{
	const char *path = kmem->input_name;
	struct stat st;
	size_t i;

	if (!strcmp(path, "-") || stat(path, &st) || S_ISFIFO(st.st_mode))
		return;
	for (i = 0; i < ARRAY_SIZE(slab_tracepoints); i++)
		if (kmem_file__has_event(path, slab_tracepoints[i]))
			return;
	if (kmem_file__has_event(path, "kmem:mm_page_alloc")) {
		kmem->slab = false;
		kmem->page = true;
	}
}

static int parse_time(struct perf_kmem *kmem)
{
	if (!perf_time__parse_str(&kmem->ptime, kmem->time_str))
		return 0;
	pr_err("perf kmem: invalid --time '%s': use start,stop in seconds\n",
	       kmem->time_str);
	return -EINVAL;
}

/* -l, --pageblock-order and the symbol files, before any trace is read. */
static int check_options(struct perf_kmem *kmem)
{
	if (kmem->lines_str &&
	    parse_int_arg("-l", kmem->lines_str, 0, INT_MAX, &kmem->lines))
		return -EINVAL;
	if (kmem->interval_str) {
		int ms;

		if (parse_int_arg("-I", kmem->interval_str, 1, INT_MAX, &ms))
			return -EINVAL;
		if (!kmem->page) {
			pr_err("perf kmem: -I is for the page analysis: use --page\n");
			return -EINVAL;
		}
		kmem->interval = ms * 1000000ULL;
	}
	if (kmem->pageblock_order_str &&
	    parse_int_arg("--pageblock-order", kmem->pageblock_order_str, 0,
			  KMEM_PAGE_MAX_ORDER, &kmem->pageblock_order))
		return -EINVAL;
	if (check_readable("--kallsyms", symbol_conf.kallsyms_name) ||
	    check_readable("--vmlinux", symbol_conf.vmlinux_name))
		return -EINVAL;
	return 0;
}

static int kmem_stat(struct perf_kmem *kmem)
{
	struct kmem_output out, map = { .fp = NULL };
	struct kmem_run *run;
	bool stopped;
	int err;

	/* As perf report: without -i, a pipe on standard input is the input. */
	if (!kmem->input_name || !*kmem->input_name) {
		struct stat st;

		if (!fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode))
			kmem->input_name = "-";
		else
			kmem->input_name = "perf.data";
	}
	if (kmem->mode_from_trace)
		choose_analysis(kmem);
	if (parse_time(kmem) || parse_sort_keys(kmem))
		return -EINVAL;
	kmem->task_filter = symbol_conf.pid_list_str || symbol_conf.tid_list_str ||
			    symbol_conf.comm_list_str;
	/*
	 * A thread still allocates after its EXIT record (exit_mmap() takes
	 * pages for the TLB batches): keep exited threads, as perf report
	 * does, so that those allocations keep the thread's pid and name.
	 */
	if (kmem->task_filter || kmem->task_key != KMEM_TASK_NONE)
		symbol_conf.keep_exited_threads = true;
	if (kmem->task_filter && (kmem->slab || !kmem->page)) {
		pr_err("perf kmem: --pid, --tid and --comm are for the page analysis: use --page without --slab\n");
		return -EINVAL;
	}
	if (kmem->map_name && !kmem->page) {
		pr_err("perf kmem: --map draws the page analysis: add --page\n");
		return -EINVAL;
	}
	if (kmem->folded && (!kmem->page || kmem->json ||
			     (strcmp(kmem->folded, "bytes") &&
			      strcmp(kmem->folded, "hits")))) {
		pr_err("perf kmem: --folded takes bytes or hits, with --page and without --json\n");
		return -EINVAL;
	}
	if (check_options(kmem))
		return -EINVAL;
	/* An output that cannot be written is found before the trace is read. */
	err = output_open(&out, kmem->output_name);
	if (!err && kmem->map_name)
		err = output_open(&map, kmem->map_name);
	if (err)
		return output_close(&out, err);
	run = kmem_run__new(kmem, kmem->input_name);
	/* A file's pageblock order is known before its events are read. */
	if (run && kmem->map_name && run->kf && map_unusable(run)) {
		kmem_run__delete(run);
		run = NULL;
	}
	if (!run) {
		output_close(&map, -EINVAL);
		return output_close(&out, -EINVAL);
	}
	err = kmem_run__read(run, &stopped);
	if (!err && !run->nr_events && run->nr_outside_time)
		err = report_empty_time(run);
	if (!err && kmem->task_filter && no_task_allocated(run))
		err = -EINVAL;
	if (!err && run->resolver && callsite_resolver__named_none(run->resolver))
		report_no_symbols(run);
	if (!err && run->info->sampled[0])
		pr_warning("perf kmem: %s: counts are of sampled events, and allocations and frees cannot be paired\n",
			   run->info->sampled);
	if (!err && (!stopped || run->nr_events))
		err = print_results(run, &out);
	if (!err && kmem->map_name && (!stopped || run->nr_events))
		err = write_map(run, &map);
	if (kmem->map_name)
		err = output_close(&map, err);
	if (!err && stopped)
		err = report_stop(run);
	kmem_run__delete(run);
	return output_close(&out, err);
}

/* --- perf kmem diff -------------------------------------------------- */

/* What stat does that diff cannot: one line, not an option ignored. */
static int check_diff_options(const struct perf_kmem *kmem)
{
	const char *opt = kmem->alloc ? "--alloc" :
			  kmem->folded ? "--folded" :
			  kmem->map_name ? "--map" : NULL;

	if (kmem->input_name) {
		pr_err("perf kmem: diff takes its traces as arguments, not -i: perf kmem diff [<options>] OLD.data NEW.data\n");
		return -EINVAL;
	}
	if (opt) {
		pr_err("perf kmem: diff takes no %s: it pairs the --caller rows and the numbers of two traces\n",
		       opt);
		return -EINVAL;
	}
	return 0;
}

/* -s: the keys diff sorts the rows of each analysis by. */
static int check_diff_sort(const struct perf_kmem *kmem)
{
	char bad[64], known[128];
	int slab, err;

	for (slab = 0; slab < 2; slab++) {
		if (!(slab ? kmem->slab : kmem->page))
			continue;
		err = kmem_diff_report__check_sort(kmem->sort_str, slab, bad,
						   sizeof(bad), known,
						   sizeof(known));
		if (err == -E2BIG)
			pr_err("perf kmem: too many sort keys for --%s: at most %d\n",
			       slab ? "slab" : "page", KMEM_MAX_SORT_KEYS);
		else if (err)
			pr_err("perf kmem: unknown sort key '%s' for diff --%s: use %s\n",
			       bad, slab ? "slab" : "page", known);
		if (err)
			return -EINVAL;
	}
	return 0;
}

/*
 * One side of the diff: the trace read as perf kmem stat reads it, and
 * every number of its report, with all the rows of its --caller tables,
 * taken.  A trace corrupt in the middle is taken up to there, and @stop
 * gets stat's line about it, to end the output with.
 */
static int diff_side(struct kmem_run *run, struct kmem_diff *d, int side,
		     char *stop, size_t stop_size)
{
	struct kmem_report report;
	struct kmem_cell_ctx ctx;
	bool stopped;
	int err;

	err = kmem_run__read(run, &stopped);
	if (!err && !run->nr_events && run->nr_outside_time)
		return report_empty_time(run);
	if (err)
		return err;
	if (stopped && !run->nr_events)
		return report_stop(run);
	if (stopped)
		stop_line(run, stop, stop_size);
	if (run->resolver && callsite_resolver__named_none(run->resolver))
		pr_warning("perf kmem: no kernel symbols of the kernel that recorded %s: its callsites are addresses, which match no other boot's; give its --kallsyms or --vmlinux\n",
			   run->path);
	fill_report(run, &report, &ctx);
	report.caller = true;
	report.alloc = false;
	report.lines = -1;
	/* The diff sorts the pairs: no need to sort each side. */
	report.page_sort.nr_keys = 0;
	report.slab_sort.nr_keys = 0;
	err = kmem_report__prepare(&report);
	if (!err)
		err = kmem_diff_report__add(d, side, &report);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory comparing the traces\n");
	else if (err)
		pr_err("perf kmem: cannot compare %s: its report is not one the diff knows\n",
		       run->path);
	return err;
}

static int print_diff(struct perf_kmem *kmem, struct kmem_diff *d,
		      struct kmem_output *out)
{
	struct kmem_diff_report_options o = {
		.page = kmem->page,
		.slab = kmem->slab,
		.caller = kmem->caller,
		.lines = kmem->lines,
		.sort = kmem->sort_str,
	};
	int err = kmem_diff__pair(d);

	if (!err && kmem->json) {
		err = kmem_diff_report__json(d, &o, out->fp);
	} else if (!err) {
		err = text_output(out);
		if (!err)
			err = kmem_diff_report__text(d, &o);
	}
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing the results\n");
	return err;
}

/*
 * perf kmem diff OLD NEW: both traces read with stat's own code, one
 * after the other, each run deleted once its numbers are taken.  Both are
 * set up first, so that a trace that cannot be analysed is found before
 * the other one is read.
 */
static int kmem_diff(struct perf_kmem *kmem, const char * const *paths)
{
	struct kmem_run *runs[2] = { NULL, NULL };
	char stops[2][PATH_MAX + 200] = { "", "" };
	struct kmem_output out;
	struct kmem_diff *d = NULL;
	int side, err;

	if (check_diff_options(kmem) || parse_time(kmem) ||
	    check_diff_sort(kmem) || check_options(kmem))
		return -EINVAL;
	err = output_open(&out, kmem->output_name);
	if (err)
		return err;
	d = kmem_diff__new(&kmem_diff_report_config);
	if (!d) {
		pr_err("perf kmem: out of memory comparing the traces\n");
		err = -ENOMEM;
		goto out;
	}
	for (side = 0; side < 2; side++) {
		runs[side] = kmem_run__new(kmem, paths[side]);
		if (!runs[side]) {
			err = -EINVAL;
			goto out;
		}
	}
	for (side = 0; side < 2 && !err; side++) {
		err = diff_side(runs[side], d, side, stops[side],
				sizeof(stops[side]));
		kmem_run__delete(runs[side]);
		runs[side] = NULL;
	}
	if (!err)
		err = print_diff(kmem, d, &out);
	for (side = 0; side < 2 && !err; side++) {
		if (stops[side][0]) {
			pr_err("%s\n", stops[side]);
			err = -EINVAL;
		}
	}
out:
	for (side = 0; side < 2; side++)
		kmem_run__delete(runs[side]);
	kmem_diff__delete(d);
	return output_close(&out, err);
}

/* perf kmem diff's two traces, or one line saying what is missing. */
static int diff_traces(int argc, const char **argv)
{
	static const char how[] = "perf kmem diff [<options>] OLD.data NEW.data";

	if (argc == 2)
		return 0;
	if (!argc)
		pr_err("perf kmem: diff needs two traces: %s\n", how);
	else if (argc == 1)
		pr_err("perf kmem: diff needs a second trace to compare %s with: %s\n",
		       argv[0], how);
	else
		pr_err("perf kmem: diff compares two traces, not %d: %s\n",
		       argc, how);
	return -EINVAL;
}

/* --- perf kmem record ------------------------------------------------ */

static void add_arg(const char **argv, int *argc, const char *arg)
{
	argv[(*argc)++] = arg;
}

static int kmem_record(const struct perf_kmem *kmem, int argc,
		       const char **argv)
{
	const char **rec_argv;
	int rec_argc = 0, i, err, nr_slab = 0;

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
		/* Fallbacks, where the kernel traces them: by callsite too. */
		if (is_valid_tracepoint("kmem:mm_page_alloc_extfrag")) {
			add_arg(rec_argv, &rec_argc, "-e");
			add_arg(rec_argv, &rec_argc,
				"kmem:mm_page_alloc_extfrag/call-graph=fp/");
		}
		add_arg(rec_argv, &rec_argc, "--kernel-callchains");
	}
	for (i = 0; kmem->slab && i < (int)ARRAY_SIZE(slab_tracepoints); i++) {
		if (!is_valid_tracepoint(slab_tracepoints[i]))
			continue;
		add_arg(rec_argv, &rec_argc, "-e");
		add_arg(rec_argv, &rec_argc, slab_tracepoints[i]);
		nr_slab++;
	}
	/* Else perf record would quietly record cycles instead. */
	if (kmem->slab && !nr_slab) {
		pr_err("perf kmem: no kmem slab tracepoints found: is tracefs mounted and readable?\n");
		err = -ENOENT;
		goto out;
	}
	for (i = 0; i < argc; i++)
		add_arg(rec_argv, &rec_argc, argv[i]);
	err = cmd_record(rec_argc, rec_argv);
	/* The kernel's symbols are in this machine's build-id cache. */
	if (!err)
		pr_info("perf kmem: to analyse it on another machine, take its kernel symbols along: perf archive\n");
out:
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
	struct perf_kmem *kmem = cb;
	u64 size;

	if (!strcmp(var, "kmem.queue-size")) {
		if (perf_config_u64(&size, var, value) ||
		    size < KMEM_QUEUE_MIN_BYTES || size > SIZE_MAX) {
			pr_err("perf kmem: invalid kmem.queue-size '%s': use a size of at least %u bytes\n",
			       value, KMEM_QUEUE_MIN_BYTES);
			return -1;
		}
		kmem->queue_size = size;
		return 0;
	}
	if (strcmp(var, "kmem.default"))
		return 0;
	if (!strcmp(value, "page") || !strcmp(value, "slab")) {
		kmem->default_mode = value;
		return 0;
	}
	pr_err("perf kmem: invalid kmem.default '%s': use page or slab\n", value);
	return -1;
}

/* The -s help: the keys of each analysis, from its columns. */
static const char *sort_keys_help(char *buf, size_t size)
{
	char page[256], slab[256];

	snprintf(buf, size, "sort by keys: slab: %s; page: %s",
		 kmem_columns__keys(kmem_slab_columns, kmem_slab_nr_columns,
				    slab, sizeof(slab)),
		 kmem_columns__keys(kmem_page_columns, kmem_page_nr_columns,
				    page, sizeof(page)));
	return buf;
}

int cmd_kmem(int argc, const char **argv)
{
	char sort_help_buf[600];
	const char *sort_help = sort_keys_help(sort_help_buf,
					       sizeof(sort_help_buf));
	struct perf_kmem kmem = {
		.lines = -1,
		.pageblock_order = -1,
		.queue_size = KMEM_QUEUE_DEFAULT_MAX_BYTES,
	};
	const struct option options[] = {
	OPT_STRING('i', "input", &kmem.input_name, "file", "input file name"),
	OPT_INCR('v', "verbose", &verbose,
		 "be more verbose: list allocator functions, show offsets"),
	OPT_BOOLEAN(0, "caller", &kmem.caller, "show per-callsite statistics"),
	OPT_BOOLEAN(0, "alloc", &kmem.alloc,
		    "show per-object (slab) or per-page statistics"),
	OPT_STRING('s', "sort", &kmem.sort_str, "key[,key2...]", sort_help),
	OPT_STRING('l', "line", &kmem.lines_str, "n", "show this many rows"),
	OPT_BOOLEAN(0, "raw-ip", &kmem.raw_ip,
		    "one row per call address, shown as func+0xoff"),
	OPT_BOOLEAN('f', "force", &kmem.force, "don't complain, do it"),
	OPT_BOOLEAN(0, "slab", &kmem.slab, "analyse the slab allocator"),
	OPT_BOOLEAN(0, "page", &kmem.page, "analyse the page allocator"),
	OPT_BOOLEAN('j', "json", &kmem.json,
		    "write the results as one JSON document"),
	OPT_STRING_OPTARG(0, "folded", &kmem.folded, "bytes|hits",
			  "write page allocations as folded stacks for flame graphs",
			  "bytes"),
	OPT_STRING(0, "map", &kmem.map_name, "file.svg",
		   "draw the pageblocks the trace allocated into, as SVG"),
	OPT_STRING('o', "output", &kmem.output_name, "file",
		   "write the results to this file"),
	OPT_BOOLEAN(0, "live", &kmem.live,
		    "show only pages still allocated at the end of the trace"),
	OPT_STRING(0, "time", &kmem.time_str, "start,stop",
		   "only events in this time span"),
	OPT_STRING('I', "interval-print", &kmem.interval_str, "msecs",
		   "print the page analysis every msecs of trace time"),
	OPT_STRING(0, "pid", &symbol_conf.pid_list_str, "pid[,pid...]",
		   "only the page allocations of these processes"),
	OPT_STRING(0, "tid", &symbol_conf.tid_list_str, "tid[,tid...]",
		   "only the page allocations of these threads"),
	OPT_STRING(0, "comm", &symbol_conf.comm_list_str, "comm[,comm...]",
		   "only the page allocations of tasks of these names"),
	OPT_STRING(0, "alloc-func", &kmem.alloc_regex, "regex",
		   "functions to skip to find a callsite, instead of the built-in list"),
	OPT_STRING(0, "alloc-func-add", &kmem.alloc_regex_add, "regex",
		   "more functions to skip to find a callsite"),
	OPT_STRING(0, "kallsyms", &symbol_conf.kallsyms_name, "file",
		   "kallsyms of the machine the trace was recorded on"),
	OPT_STRING(0, "pageblock-order", &kmem.pageblock_order_str, "order",
		   "the recording kernel's pageblock order, if the trace cannot tell"),
	OPT_STRING('k', "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux of the kernel the trace was recorded on"),
	OPT_END()
	};
	const char * const subcommands[] = { "record", "stat", "diff", NULL };
	const char *usage[2] = { NULL, NULL };
	int err;

	err = perf_config(kmem_config, &kmem);
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
	kmem.diff = !strcmp(argv[0], "diff");
	if (strcmp(argv[0], "stat") && !kmem.diff)
		usage_with_options(usage, options);

	/* Options may follow 'stat' and 'diff' too. */
	argc = parse_options(argc, argv, options, usage, 0);
	if (argc && !kmem.diff)
		usage_with_options(usage, options);
	if (!kmem.page && !kmem.slab) {
		if (kmem.default_mode && !strcmp(kmem.default_mode, "page"))
			kmem.page = true;
		else
			kmem.slab = true;
		kmem.mode_from_trace = !kmem.default_mode;
	}
	if (kmem.diff)
		err = diff_traces(argc, argv) ?: kmem_diff(&kmem, argv);
	else
		err = kmem_stat(&kmem);
	free((void *)usage[0]);
	return err ? 1 : 0;
}
