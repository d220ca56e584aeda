/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_RUN_H
#define __PERF_KMEM_RUN_H

/*
 * The analyses of one trace: feed it the trace's records as perf's reader
 * delivers them, finish it, take its results.
 *
 * The boundary with the builtin: the builtin owns the perf_session (the
 * file or pipe, the tool callbacks, perf's messages), the options and the
 * output; a kmem_run owns what lies between a record perf delivers and the
 * numbers printed.  Each kmem sample goes one way through it: the decoder
 * (read-decode.h) turns it into a struct kmem_event, the queue
 * (read-queue.h) puts it in time order with the COMM, FORK and EXIT
 * records, and each round it comes out of the queue is delivered to the
 * analyses the config asks for (count-page.h, count-frag.h, count-stall.h,
 * count-slab.h, count-interval.h, count-tasks.h, count-stacks.h).  The run
 * also owns the callsite resolvers the decoder and the names in the
 * results share.
 *
 * A run is created with the options, before its trace's events are known,
 * and set up on the session once they are: at once for a file, at
 * FINISHED_INIT or the first sample for a pipe.  It prints nothing: what
 * goes wrong comes back as an error, with a reason where there is one to
 * give, for the builtin to say.  It has no state outside the object, so
 * that perf kmem diff can run two.
 */

#include <linux/types.h>
#include <perf/event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "count-page.h"
#include "count-profile.h"
#include "count-stacks.h"
#include "count-tasks.h"
#include "read-decode.h"
#include "report.h"
#include "time-utils.h"
#include "tool.h"

struct callsite_resolver;
struct evsel;
struct kmem_frag;
struct kmem_interval;
struct kmem_profile_view;
struct kmem_slab;
struct kmem_stall;
struct perf_sample;
struct perf_session;
union perf_event;

/* What perf kmem stat's options ask of a run. */
struct kmem_run_config {
	const char		*path;		/* the trace, as the report names it */
	const char		*command;	/* "stat" or "diff", as advice names it */
	bool			page;		/* the page allocator's analyses */
	bool			slab;		/* the slab allocator's */
	bool			caller;		/* --caller: the tables by callsite */
	bool			alloc;		/* --alloc: by pfn or by object */
	bool			live;		/* --live */
	bool			folded;		/* --folded: keep the callchains */
	bool			folded_stall;	/* --folded=stall: by stall time */
	/* --folded=fallbacks: the extfrag events' chains, by fallbacks */
	bool			folded_fallbacks;
	/* --folded=fragmenting: the same, of converted and polluted ones */
	bool			folded_fragmenting;
	bool			pprof;		/* --pprof: a memory profile */
	bool			raw_ip;		/* --raw-ip: a row per call address */
	int			lines;		/* the rows a table shows; -1: all */
	struct kmem_report_sort	page_sort;	/* -s, of the page tables */
	struct kmem_report_sort	slab_sort;	/* -s, of the slab tables */
	const char		*time_window;	/* --time as given; NULL: none */
	struct perf_time_interval ptime;	/* --time parsed */
	u64			interval;	/* -I, in ns; 0: no intervals */
	size_t			interval_callers; /* callsites of each interval */
	/* -s pid or comm, --pid, --tid, --comm: not owned. */
	struct kmem_tasks_config tasks;
	bool			task_filter;	/* --pid, --tid or --comm */
	/* Either of the two: COMM, FORK and EXIT go to the run. */
	bool			follow_tasks;
	const char		*alloc_regex;	/* --alloc-func */
	const char		*alloc_regex_add; /* --alloc-func-add */
	const char		*kallsyms;	/* --kallsyms */
	bool			vmlinux;	/* --vmlinux: perf's maps resolve */
	int			pageblock_order; /* -1: the trace's */
	size_t			queue_size;	/* the time-order queue's bound */
};

/* What a run counted of the trace's records, besides the analyses. */
struct kmem_run_stats {
	u64	nr_events;		/* kmem samples in the --time window */
	u64	nr_outside_time;	/* samples --time left out */
	u64	first_outside;		/* the time of the first of them */
	u64	last_outside;		/* and of the last */
	u64	nr_lost;		/* events the kernel lost */
	u64	nr_queue_bounds;	/* the queue reached queue_size */
	/* Delivered, by kind; those too short for their fields too. */
	u64	nr_of_kind[KMEM_EVENT_SKIPPED + 1];
};

/*
 * What a report is built from, in a recording's run and in perf kmem stat
 * -b's (bpf.h) alike: each fills the same analyses its own way, and the
 * report is settled from them the same way.  The run that embeds it
 * creates and frees the analyses, points it at the options, and sets the
 * cell context's fields of its source before kmem_run_core__settle().
 */
struct kmem_run_core {
	struct kmem_decoder		*dec;
	struct callsite_resolver	*resolver;	/* NULL: addresses */
	struct kmem_tasks		*tasks;		/* names the task keys */
	struct kmem_page		*kp;
	struct kmem_frag		*kf;		/* with kp */
	struct kmem_stall		*st;		/* with kp, of stall events */
	struct kmem_slab		*ks;
	struct kmem_interval		*iv;		/* -I */
	/* What the report asks: --caller, --alloc, --live, -s, -l... */
	const struct kmem_run_config	*config;
	/* The name of callsite 0, -b's allocations of no stack; NULL: none. */
	const char			*no_callsite;
	bool				extfrag;	/* fallbacks counted */
	/* Which pages fell back is known: a recording's pfns. */
	bool				pinning;
	/* The report, settled. */
	struct kmem_cell_ctx		ctx;
	struct kmem_report_table	tables[KMEM_NR_TABLES];
	bool				has_node[KMEM_PAGE_MAX_NODES];
	/* What kmem_run_core__frame() returns: the stack writer keeps no two. */
	char				frame[KSYM_NAME_LEN + 32];
};

/**
 * kmem_run_core__settle - finish the analyses and sort their tables
 * @core: its analyses filled, and in its ctx the fields of its source
 *	(page_size, sampled...)
 *
 * Finishes every analysis, gives each page row the stall time of its
 * callsite, completes the cell context with what the analyses found and
 * the names of rows, and sorts the tables asked for.
 *
 * Return: 0; -EINVAL for a bad sort key; -ENOMEM.
 */
int kmem_run_core__settle(struct kmem_run_core *core);

/*
 * The report of a settled core, for the renderers; @r->trace is the
 * caller's to fill.  @r points into @core.
 */
void kmem_run_core__report(const struct kmem_run_core *core,
			   struct kmem_report *r);

/* A frame of a folded stack or a profile, named by @arg, a core. */
const char *kmem_run_core__frame(u64 ip, void *arg);

/* What names a profile's samples: frames, GFP flags, migration types, tasks. */
struct kmem_profile_names kmem_run_core__profile_names(struct kmem_run_core *core);

struct kmem_run;

/**
 * kmem_run__new - a run of the analyses, not yet set up
 * @config: what to analyse and how to report it; copied, but what its
 *	pointers point at must outlive the run
 *
 * Return: the run, or NULL without memory.
 */
struct kmem_run *kmem_run__new(const struct kmem_run_config *config);

/**
 * kmem_run__delete - free a run and all its analyses
 * @run: the run, or NULL
 */
void kmem_run__delete(struct kmem_run *run);

/**
 * kmem_run__setup - bind the run to its trace and set up the analyses
 * @run: a run, not yet set up
 * @session: the trace, its attrs and tracepoint formats read; it must
 *	outlive the run
 * @err: where a one-line reason goes
 * @err_size: the size of @err
 *
 * Sets up the callsite resolver, where the analyses need one, the decoder,
 * the analyses and the time-order queue.  Called once: a run that failed
 * to set up can only be deleted.
 *
 * Return: 0; -EINVAL with @err set, e.g. when the trace has none of the
 * events asked for; -ENOMEM.
 */
int kmem_run__setup(struct kmem_run *run, struct perf_session *session,
		    char *err, size_t err_size);

/**
 * struct kmem_run_tool - perf's tool, bound to the run its samples go to
 * @tool: what perf's session calls
 * @run: the run, once set up
 *
 * With kmem_run__sample() as @tool's sample callback, perf's reader calls
 * the run for every sample, without a call of the builtin in between.
 */
struct kmem_run_tool {
	struct perf_tool	tool;
	struct kmem_run		*run;
};

/**
 * kmem_run__sample - take a sample perf's reader delivers
 * @tool: the tool of a struct kmem_run_tool whose run is set up
 * @event: the record
 * @sample: the sample
 * @evsel: the sample's event
 * @machine: unused
 *
 * Counts it, or leaves it out (not a kmem event, outside --time), and
 * queues its decoded numbers for the analyses.
 *
 * Return: 0, or an error of the queue (-ENOMEM) or the decoder.
 */
int kmem_run__sample(const struct perf_tool *tool, union perf_event *event,
		     struct perf_sample *sample, struct evsel *evsel,
		     struct machine *machine);

/**
 * kmem_run__task_event - take a COMM, FORK or EXIT record
 * @run: the run
 * @event: the record
 * @sample: its sample fields (time, cpu)
 *
 * perf's thread tracking, which names the task of an allocation, must take
 * these records in time order with the samples: a child's FORK read after
 * its COMM (they come from two CPUs' buffers) would lose the exec'ed name.
 * They are queued with the samples, and handed to perf's tracking as they
 * come out.  Before kmem_run__setup() they are ignored.
 *
 * Return: 0, or an error of the queue.
 */
int kmem_run__task_event(struct kmem_run *run, union perf_event *event,
			 struct perf_sample *sample);

/**
 * kmem_run__round - a FINISHED_ROUND record came
 * @run: the run
 *
 * Delivers the events perf's flush rule says are in order.
 *
 * Return: 0, or the first error of an analysis (-ENOMEM).
 */
int kmem_run__round(struct kmem_run *run);

/**
 * kmem_run__lost - count events the kernel lost
 * @run: the run
 * @nr: how many a LOST or LOST_SAMPLES record says
 */
void kmem_run__lost(struct kmem_run *run, u64 nr);

/**
 * kmem_run__finish - the end of the trace
 * @run: the run, set up
 * @read_err: what perf's reader returned: 0 at the end of the trace, an
 *	error where it stopped at a record it could not read, -ENOMEM
 *
 * Unless @read_err is -ENOMEM, delivers what is still queued and closes
 * the last interval: what came before a record perf could not read is
 * analysed all the same.  Counts the times the queue reached its bound.
 * Then settles the report: finishes every analysis, gives each page row
 * the fragmenting fallbacks of its callsite, and sorts the tables the
 * config asks for.
 *
 * Return: 0; -ENOMEM, or @read_err if it is -ENOMEM.
 */
int kmem_run__finish(struct kmem_run *run, int read_err);

/* What the run counted, updated as it goes. */
const struct kmem_run_stats *kmem_run__stats(const struct kmem_run *run);

/*
 * What the decoder found out about the trace: its page size, topology,
 * what it recorded...; NULL until kmem_run__setup() got as far as the
 * decoder.
 */
const struct kmem_trace_info *kmem_run__info(const struct kmem_run *run);

/*
 * The build-id the trace's build-id records give its kernel, the one whose
 * symbols the callsite resolver looked for (or, of a pipe whose records
 * came later, read since); NULL when they give none.
 */
const char *kmem_run__kernel_build_id(struct kmem_run *run);

/*
 * The parts of a run, NULL before kmem_run__setup(): the callsite resolver
 * (NULL when the analyses need none: a page analysis of a trace without
 * callchains), the page allocator analysis and its fallback analysis (NULL
 * without --page), and the decoder, for the trace's memory topology (page
 * nodes, node ranges) as the builtin's --map draws it.
 */
struct callsite_resolver *kmem_run__resolver(const struct kmem_run *run);
struct kmem_page *kmem_run__page(const struct kmem_run *run);
struct kmem_frag *kmem_run__frag(const struct kmem_run *run);
struct kmem_decoder *kmem_run__decoder(const struct kmem_run *run);

/**
 * kmem_run__report - the results, for the renderers
 * @run: a finished run
 * @r: filled in: the trace, the analyses and the tables the config asks
 *	for; it points into @run
 */
void kmem_run__report(const struct kmem_run *run, struct kmem_report *r);

/**
 * kmem_run__write_folded - the page allocations as folded stacks
 * @run: a finished run of a config with folded, on a trace with callchains
 * @weight: what a line counts
 * @fp: where the lines go
 * @nr_lines: the lines written
 *
 * One line per distinct chain of function names, root first, with what
 * its allocations came to, or with live what is still allocated of them;
 * with folded_fallbacks, what its fallbacks came to (the callchains of
 * kmem:mm_page_alloc_extfrag), of the fragmenting classes only with
 * folded_fragmenting.
 *
 * Return: 0; -ENOMEM; -errno when @fp could not be written.
 */
int kmem_run__write_folded(struct kmem_run *run,
			   enum kmem_stacks_weight weight, FILE *fp,
			   size_t *nr_lines);

/*
 * The memory profiles of a finished run, for --pprof: one per -I interval,
 * or one of the whole trace; 0 without pprof.
 */
size_t kmem_run__nr_profiles(const struct kmem_run *run);

/**
 * kmem_run__profile - a memory profile of the page allocations
 * @run: a finished run of a config with pprof, on a trace with callchains
 * @i: which profile, from 0
 * @v: set to the profile's period and what it says, for the renderer
 *	(print-pprof.h's kmem_profile__pprof()); its strings are the
 *	run's, until the next call
 *
 * A sample per distinct callchain, order, migration type, GFP flags,
 * node and, where the run follows tasks, task: the objects and bytes
 * allocated in the profile's time, those still allocated at its end,
 * and the fallbacks, where the trace has them.
 *
 * Return: 0; -EINVAL for a profile that does not exist.
 */
int kmem_run__profile(struct kmem_run *run, size_t i,
		      struct kmem_profile_view *v);

#endif /* __PERF_KMEM_RUN_H */
