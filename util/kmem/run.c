// SPDX-License-Identifier: GPL-2.0
/*
 * The analyses of one trace: the decoder, the time-order queue and the
 * analyses behind it, fed from perf's reader by the builtin.  See
 * run.h for where the builtin ends and this begins.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include <perf/event.h>

#include "build-id.h"
#include "count-frag.h"
#include "count-interval.h"
#include "count-page.h"
#include "count-profile.h"
#include "count-slab.h"
#include "count-stall.h"
#include "dso.h"
#include "dsos.h"
#include "env.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "machine.h"
#include "map.h"
#include "read-callsite.h"
#include "read-queue.h"
#include "run.h"
#include "sample.h"
#include "session.h"
#include "table-live.h"

struct kmem_run {
	struct kmem_run_config		config;
	struct perf_session		*session;	/* not owned */
	/* The analyses, -s pid/comm's tasks, the report once finished. */
	struct kmem_run_core		core;
	const struct kmem_trace_info	*info;
	struct kmem_queue		*queue;
	/* kp's and ks's live tables, for an event's prefetch: no call. */
	const struct kmem_live		*page_live;
	const struct kmem_live		*slab_live;
	struct callsite_resolver	*memcg_resolver;	/* with st */
	struct kmem_stacks		*stacks;	/* folded, pprof */
	struct kmem_profile		*profile;	/* pprof */
	u64				profile_first;	/* its span */
	u64				profile_last;
	bool				profile_started;
	size_t				profile_rows;	/* -I: closed */
	bool				per_event_extras; /* tasks, iv or profile */
	char				*recorded_kallsyms;
	/* --time in shares of the trace's span: its windows. */
	struct perf_time_interval	*time_ranges;
	int				nr_time_ranges;
	/* Of the trace's kernel, from its build-id records; "": none yet. */
	char				kernel_build_id[SBUILD_ID_SIZE];
	struct kmem_run_stats		stats;
	/* The stall tracepoints the trace lacks, "a,b", for the report. */
	char				stall_missing[512];
	/* The strings of the last kmem_run__profile()'s view. */
	char				pprof_lines[4][PATH_MAX + 160];
	const char			*pprof_comments[4];
};

struct kmem_run *kmem_run__new(const struct kmem_run_config *config)
{
	struct kmem_run *run = zalloc(sizeof(*run));

	if (!run)
		return NULL;
	run->config = *config;
	run->core.config = &run->config;
	return run;
}

void kmem_run__delete(struct kmem_run *run)
{
	if (!run)
		return;
	kmem_queue__delete(run->queue);
	kmem_slab__delete(run->core.ks);
	kmem_page__delete(run->core.kp);
	kmem_frag__delete(run->core.kf);
	kmem_stall__delete(run->core.st);
	callsite_resolver__delete(run->memcg_resolver);
	kmem_stacks__delete(run->stacks);
	kmem_profile__delete(run->profile);
	kmem_tasks__delete(run->core.tasks);
	kmem_interval__delete(run->core.iv);
	kmem_decoder__delete(run->core.dec);
	callsite_resolver__delete(run->core.resolver);
	free(run->recorded_kallsyms);
	free(run->time_ranges);
	free(run);
}

/* --- delivering events to the analyses ------------------------------ */

/*
 * Start loading the live slot of an event delivered soon.  Of a page_only
 * run, without slab events, a record is a page event but for a few
 * (fallbacks, stalls, tasks), whose first word loads some slot for
 * nothing: less than a look at every record's kind costs.
 */
static __always_inline void prefetch_queued(const struct kmem_run *run,
					    const struct kmem_event *ev,
					    bool page_only)
{
	if (page_only) {
		kmem_live__prefetch(run->page_live, ev->page.pfn);
		return;
	}
	switch (ev->kind) {
	case KMEM_EVENT_PAGE_ALLOC:
	case KMEM_EVENT_PAGE_FREE:
		kmem_live__prefetch(run->page_live, ev->page.pfn);
		break;
	case KMEM_EVENT_SLAB_ALLOC:
		kmem_live__prefetch(run->slab_live, ev->slab_alloc.ptr);
		break;
	case KMEM_EVENT_SLAB_FREE:
		kmem_live__prefetch(run->slab_live, ev->slab_free.ptr);
		break;
	default:
		break;
	}
}

/* --folded: the bytes and count of an allocation, to its callchain. */
static void count_stack(struct kmem_run *run, u32 tag, int order, bool got)
{
	if (!tag || !got || !kmem_page__valid_order(order))
		return;
	kmem_stacks__add(run->stacks, tag - 1, run->info->page_size << order,
			 1);
}

/*
 * A stalled allocation's stall time, to its callchain for --folded=stall,
 * to its sample for --pprof (where the tag is the sample's).
 */
static int count_stall_stack(struct kmem_run *run, u32 tag)
{
	u64 ns = kmem_stall__ended_ns(run->core.st);

	if (!tag)
		return 0;
	if (run->profile)
		return kmem_profile__add(run->profile, tag - 1,
					 KMEM_PROFILE_STALL, ns);
	if (run->stacks && run->config.folded_stall)
		kmem_stacks__add(run->stacks, tag - 1, ns, 1);
	return 0;
}

static void count_live_stack(u32 tag, int order, void *arg)
{
	count_stack(arg, tag, order, true);
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
	if (run->core.tasks && ev->kind != KMEM_EVENT_TASK_EXIT)
		kmem_tasks__forget(run->core.tasks, ev->task.tid);
	return err;
}

/* --- the memory profile (--pprof) ----------------------------------- */

/*
 * An allocation of the profile: its key's id is its tag, which the live
 * page keeps, so that what is still allocated is found at the end of a
 * period without a look at each free.
 */
static int profile_alloc(struct kmem_run *run, struct kmem_page_event *page)
{
	struct kmem_profile_key key = {
		.chain = (int)page->tag - 1,
		.order = page->order,
		.migtype = page->migtype,
		.node = page->page_node,
		.task = page->task,
		.gfp = page->gfp,
		.has_gfp = true,
	};
	int id;

	page->tag = 0;
	if (!kmem_page__valid_order(page->order))
		return 0;
	id = kmem_profile__key(run->profile, &key);
	if (id < 0)
		return id;
	/* A failed allocation's sample is there for its stall time only. */
	page->tag = id + 1;
	if (page->pfn == KMEM_PAGE_NO_PFN)
		return 0;
	kmem_profile__add(run->profile, id, KMEM_PROFILE_ALLOC_OBJECTS, 1);
	return kmem_profile__add(run->profile, id, KMEM_PROFILE_ALLOC_SPACE,
				 run->info->page_size << page->order);
}

/* A fallback the fragmentation analysis took, to its own sample. */
static int profile_fallback(struct kmem_run *run,
			    const struct kmem_frag_event *f, u32 task)
{
	bool order_ok = kmem_page__valid_order(f->alloc_order);
	struct kmem_profile_key key = {
		.chain = (int)f->tag - 1,
		.order = order_ok ? f->alloc_order : -1,
		.migtype = f->alloc_migtype >= 0 &&
			   f->alloc_migtype <= KMEM_PAGE_MAX_MIGTYPE ?
			   f->alloc_migtype : SHRT_MAX,
		.node = kmem_decoder__page_node(run->core.dec, f->pfn),
		.task = task,
	};
	int id = kmem_profile__key(run->profile, &key);

	return id < 0 ? id : kmem_profile__add(run->profile, id,
					       KMEM_PROFILE_FALLBACKS, 1);
}

static void profile_live_page(u32 tag, int order, void *arg)
{
	struct kmem_run *run = arg;

	if (!tag)
		return;
	kmem_profile__add(run->profile, tag - 1, KMEM_PROFILE_INUSE_OBJECTS, 1);
	kmem_profile__add(run->profile, tag - 1, KMEM_PROFILE_INUSE_SPACE,
			  run->info->page_size << order);
}

/* The end of a period: what is live then, and the sums kept. */
static int profile_close(struct kmem_run *run, u64 start, u64 length)
{
	kmem_page__walk_live(run->core.kp, profile_live_page, run);
	return kmem_profile__close(run->profile, start, length);
}

/* -I: a profile for each interval the last event closed. */
static int profile_intervals(struct kmem_run *run)
{
	size_t nr = kmem_interval__nr_rows(run->core.iv);
	u64 length = kmem_interval__length(run->core.iv);
	int err = 0;

	for (; !err && run->profile_rows < nr; run->profile_rows++)
		err = profile_close(run, run->profile_first +
				    kmem_interval__row(run->core.iv,
						       run->profile_rows)->start,
				    length);
	return err;
}

/* The span of the page events, which a profile of the trace covers. */
static void profile_time(struct kmem_run *run, u64 time)
{
	if (!run->profile_started) {
		run->profile_started = true;
		run->profile_first = time;
	}
	run->profile_last = time;
}

static int profile_finish(struct kmem_run *run)
{
	if (run->core.iv)
		return profile_intervals(run);
	return profile_close(run, run->profile_first,
			     run->profile_last - run->profile_first);
}

/*
 * -I: close the intervals before a page event's, and count an
 * allocation's bytes to its callsite in its interval.
 */
static int interval_event(struct kmem_run *run, const struct kmem_event *ev)
{
	const struct kmem_page_event *page = &ev->page;
	int err;

	err = kmem_interval__advance(run->core.iv, ev->time, kmem_page__summary(run->core.kp),
				     kmem_frag__summary(run->core.kf));
	if (!err && run->profile)
		err = profile_intervals(run);
	if (err || ev->kind != KMEM_EVENT_PAGE_ALLOC ||
	    page->pfn == KMEM_PAGE_NO_PFN ||
	    !kmem_page__valid_order(page->order))
		return err;
	return kmem_interval__alloc(run->core.iv, page->callsite,
				    run->info->page_size << page->order);
}

/* A fallback; those the fragmentation analysis takes, to the profile. */
/* Converted and polluted fallbacks so far: the fragmenting ones. */
static u64 nr_fragmenting(struct kmem_run *run)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(run->core.kf);

	return s->classes[KMEM_FRAG_CONVERTED].nr +
	       s->classes[KMEM_FRAG_POLLUTED].nr;
}

/*
 * --folded=fallbacks: a fallback the analysis took, to its callchain, a
 * hit and the bytes asked for; --folded=fragmenting: if it fragments.
 */
static void count_fallback_stack(struct kmem_run *run,
				 const struct kmem_frag_event *f,
				 bool fragmenting)
{
	if (!f->tag || !run->stacks || !run->config.folded_fallbacks ||
	    (run->config.folded_fragmenting && !fragmenting))
		return;
	kmem_stacks__add(run->stacks, f->tag - 1,
			 run->info->page_size << f->alloc_order, 1);
}

static int deliver_fallback(struct kmem_run *run,
			    const struct kmem_frag_event *f, u32 tid, u32 task)
{
	u64 taken = kmem_frag__summary(run->core.kf)->fallbacks.nr;
	u64 fragmenting = nr_fragmenting(run);
	int err = kmem_frag__fallback_thread(run->core.kf, f, task, tid);
	bool frags;

	if (err || kmem_frag__summary(run->core.kf)->fallbacks.nr == taken)
		return err;
	frags = nr_fragmenting(run) != fragmenting;
	count_fallback_stack(run, f, frags);
	if (!run->profile)
		return 0;
	return profile_fallback(run, f, task);
}

/* A page allocation, to the page and fragmentation analyses. */
static __always_inline int deliver_page_alloc(struct kmem_run *run,
					      struct kmem_event *ev)
{
	struct kmem_frag_owed owed = { 0 };
	int err;

	/*
	 * Only fallbacks owe: none is owed while none was delivered, as on
	 * most traces, and the call is not made.
	 */
	if (run->stats.nr_of_kind[KMEM_EVENT_EXTFRAG])
		kmem_frag__take_owed(run->core.kf, ev->tid, &ev->page, &owed);
	err = kmem_page__alloc(run->core.kp, &ev->page, owed.fragmenting,
			       owed.fell_back);
	return err ?: kmem_frag__alloc(run->core.kf, &ev->page);
}

static __always_inline int deliver_page_free(struct kmem_run *run,
					     struct kmem_event *ev)
{
	int err = kmem_page__free(run->core.kp, &ev->page);

	/* Of a page of a known node: the fragmentation counts remote frees. */
	if (!err && ev->page.page_node >= 0 &&
	    ev->page.cpu_node != ev->page.page_node)
		err = kmem_frag__free(run->core.kf, &ev->page);
	return err;
}

/*
 * Analyses count the events they cannot take; only -ENOMEM stops.  Of a
 * page_only run (below), the extras, stacks and stalls are known to be
 * none.
 */
static __always_inline int deliver_queued(struct kmem_run *run,
					  struct kmem_event *ev, bool page_only)
{
	u32 task = 0;
	int err;

	/* Tested once an event: most runs have none of them. */
	if (!page_only && run->per_event_extras) {
		if (run->core.tasks && (ev->kind == KMEM_EVENT_PAGE_ALLOC ||
					ev->kind == KMEM_EVENT_EXTFRAG ||
					ev->kind == KMEM_EVENT_STALL)) {
			err = kmem_tasks__key(run->core.tasks, ev->tid, ev->time,
					      &task);
			/* Of a task --pid, --tid or --comm leaves out. */
			if (err)
				return err < 0 ? err : 0;
			if (ev->kind == KMEM_EVENT_PAGE_ALLOC)
				ev->page.task = task;
		}
		if (run->core.iv && (ev->kind == KMEM_EVENT_PAGE_ALLOC ||
				     ev->kind == KMEM_EVENT_PAGE_FREE ||
				     ev->kind == KMEM_EVENT_EXTFRAG)) {
			err = interval_event(run, ev);
			if (err)
				return err;
		}
		if (run->profile && (ev->kind == KMEM_EVENT_PAGE_ALLOC ||
				     ev->kind == KMEM_EVENT_PAGE_FREE ||
				     ev->kind == KMEM_EVENT_EXTFRAG)) {
			profile_time(run, ev->time);
			if (ev->kind == KMEM_EVENT_PAGE_ALLOC) {
				err = profile_alloc(run, &ev->page);
				if (err)
					return err;
			}
		}
	}
	run->stats.nr_of_kind[ev->kind]++;
	/* Nearly all of a page_only run's events: two tests, not a table. */
	if (page_only && ev->kind == KMEM_EVENT_PAGE_FREE)
		return deliver_page_free(run, ev);
	if (page_only && ev->kind == KMEM_EVENT_PAGE_ALLOC)
		return deliver_page_alloc(run, ev);
	switch (ev->kind) {
	case KMEM_EVENT_PAGE_ALLOC:
		err = deliver_page_alloc(run, ev);
		if (!err && run->config.folded && !run->config.live &&
		    !run->config.folded_stall && !run->config.folded_fallbacks)
			count_stack(run, ev->page.tag, ev->page.order,
				    ev->page.pfn != KMEM_PAGE_NO_PFN);
		/* No stall is open while none began: most traces have none. */
		if (!err && run->core.st &&
		    run->stats.nr_of_kind[KMEM_EVENT_STALL])
			err = kmem_stall__alloc(run->core.st, ev->tid, ev->time,
						&ev->page);
		if (err > 0)
			err = count_stall_stack(run, ev->page.tag);
		break;
	case KMEM_EVENT_EXTFRAG:
		err = deliver_fallback(run, &ev->extfrag, ev->tid, task);
		break;
	case KMEM_EVENT_STALL:
		err = kmem_stall__event(run->core.st, ev->tid, ev->time, &ev->stall);
		break;
	case KMEM_EVENT_PAGE_FREE:
		err = deliver_page_free(run, ev);
		break;
	case KMEM_EVENT_SLAB_ALLOC:
		err = kmem_slab__alloc(run->core.ks, &ev->slab_alloc);
		break;
	case KMEM_EVENT_SLAB_FREE:
		err = kmem_slab__free(run->core.ks, &ev->slab_free);
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

/* How many records on the delivery starts loading what one will touch. */
#define DELIVERY_PREFETCH	8

static __always_inline int deliver_records(struct kmem_run *run,
					   struct kmem_queue_span *span,
					   bool page_only)
{
	void **r = span->records, **end = r + span->nr;
	/* Told ahead: the records DELIVERY_PREFETCH on, up to the end. */
	void **ahead_end = end - min_t(size_t, span->nr, DELIVERY_PREFETCH);
	int err = 0;

	/* In locals: the analyses' calls would have the span read again. */
	while (r < end && !err) {
		if (r < ahead_end)
			prefetch_queued(run, r[DELIVERY_PREFETCH], page_only);
		err = deliver_queued(run, *r++, page_only);
	}
	span->done = r - span->records;
	return err;
}

/* Each copy a function of its own: its registers are its own. */
static noinline int deliver_page_records(struct kmem_run *run,
					 struct kmem_queue_span *span)
{
	return deliver_records(run, span, true);
}

static noinline int deliver_any_records(struct kmem_run *run,
					struct kmem_queue_span *span)
{
	return deliver_records(run, span, false);
}

/*
 * Queued events, each delivered inline: see kmem_queue_fn.  Whether the
 * run is page_only, without slab events, per-event extras, --folded and
 * stall events, is asked once a batch, not once a record.
 */
static int deliver_span(struct kmem_queue_span *span, void *arg)
{
	struct kmem_run *run = arg;

	if (!run->slab_live && !run->per_event_extras &&
	    !run->config.folded && !run->core.st)
		return deliver_page_records(run, span);
	return deliver_any_records(run, span);
}

/* --- taking records from perf's reader ------------------------------ */

/* Is a sample of @time outside the --time windows? */
static bool outside_time(struct kmem_run *run, u64 time)
{
	if (run->time_ranges)
		return perf_time__ranges_skip_sample(run->time_ranges,
						     run->nr_time_ranges, time);
	return perf_time__skip_sample(&run->config.ptime, time);
}

/*
 * Is a sample of @time left out by --time?  Counted if it is.  Not
 * inline: the registers it needs would be saved for every sample.
 */
static noinline bool left_out(struct kmem_run *run, u64 time)
{
	struct kmem_run_stats *stats = &run->stats;

	if (!outside_time(run, time))
		return false;
	/* Records come in the order of the CPUs' buffers, not of time. */
	if (!stats->nr_outside_time++ || time < stats->first_outside)
		stats->first_outside = time;
	if (time > stats->last_outside)
		stats->last_outside = time;
	return true;
}

/*
 * A sample of a run with --time, or one for which the queue needs more
 * room or a new run: out of the line of kmem_run__sample(), whose frame
 * would save the registers these calls need for every sample.
 */
static noinline int queue_sample(struct kmem_run *run, struct evsel *evsel,
				 struct perf_sample *sample)
{
	void *queued;
	int ret;

	if (run->config.time_window && left_out(run, sample->time))
		return 0;
	run->stats.nr_events++;
	ret = kmem_queue__add(run->queue, sample->time, sample->cpu, &queued);
	return ret ?: kmem_decoder__decode(run->core.dec, evsel, sample, queued);
}

/*
 * A sample's numbers decoded where it waits in the queue, not copied
 * there: a page-only queue's records are as large as the events bound to
 * its decoder (below).  A sample decoded to nothing, too short, waits all
 * the same: the queue cannot take a record back, and such samples are
 * rare.  The decoder's call is the last: a jump, and this function's frame
 * saves no register for it.
 */
int kmem_run__sample(const struct perf_tool *tool,
		     union perf_event *event __maybe_unused,
		     struct perf_sample *sample, struct evsel *evsel,
		     struct machine *machine __maybe_unused)
{
	struct kmem_run *run = container_of(tool, struct kmem_run_tool,
					    tool)->run;
	struct kmem_event *ev;

	if (!evsel->handler)
		return 0;
	if (run->config.time_window)
		return queue_sample(run, evsel, sample);
	ev = kmem_queue__add_common(run->queue, sample->time, sample->cpu);
	if (!ev)
		return queue_sample(run, evsel, sample);
	run->stats.nr_events++;
	return kmem_decoder__decode(run->core.dec, evsel, sample, ev);
}

static enum kmem_event_kind task_event_kind(const union perf_event *event)
{
	switch (event->header.type) {
	case PERF_RECORD_COMM:
		return KMEM_EVENT_TASK_COMM;
	case PERF_RECORD_FORK:
		return KMEM_EVENT_TASK_FORK;
	default:
		return KMEM_EVENT_TASK_EXIT;
	}
}

int kmem_run__task_event(struct kmem_run *run, union perf_event *event,
			 struct perf_sample *sample)
{
	enum kmem_event_kind kind = task_event_kind(event);
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

int kmem_run__round(struct kmem_run *run)
{
	return run->queue ? kmem_queue__flush(run->queue, KMEM_QUEUE_FLUSH__ROUND) : 0;
}

void kmem_run__lost(struct kmem_run *run, u64 nr)
{
	run->stats.nr_lost += nr;
}

static int settle_report(struct kmem_run *run);

int kmem_run__finish(struct kmem_run *run, int read_err)
{
	int err = read_err;

	if (err != -ENOMEM)
		err = kmem_queue__flush(run->queue, KMEM_QUEUE_FLUSH__FINAL);
	if (!err && run->core.iv)
		err = kmem_interval__finish(run->core.iv, kmem_page__summary(run->core.kp),
					    kmem_frag__summary(run->core.kf));
	if (!err && run->profile)
		err = profile_finish(run);
	run->stats.nr_queue_bounds = kmem_queue__nr_half_flushes(run->queue);
	return err ?: settle_report(run);
}

/* --- setting up ----------------------------------------------------- */

/* The build-id of the trace's kernel, as its build-id records give it. */
static void find_kernel_build_id(struct kmem_run *run)
{
	struct dso *kernel;

	kernel = dsos__find_kernel_dso(&run->session->machines.host.dsos);
	if (kernel && dso__has_build_id(kernel))
		build_id__sprintf(dso__bid(kernel), run->kernel_build_id);
	dso__put(kernel);
}

/*
 * perf record keeps a copy of the kernel's symbols in the build-id cache.
 * It is the recording kernel's for sure, and reading it takes a tenth of
 * the time of /proc/kallsyms, which the kernel formats anew on each read:
 * @resolver reads it, unless told which symbols to use.  A vmlinux stays
 * with perf's maps.
 */
static int use_kallsyms(struct kmem_run *run, struct callsite_resolver *resolver)
{
	const char *kallsyms = run->config.kallsyms;
	char path[PATH_MAX];

	if (run->config.vmlinux)
		return 0;
	/* Asked again for the memcg resolver: the copy found the first time. */
	if (!kallsyms && !run->recorded_kallsyms && run->kernel_build_id[0] &&
	    build_id_cache__kallsyms_path(run->kernel_build_id, path,
					  sizeof(path)) &&
	    !access(path, R_OK))
		run->recorded_kallsyms = strdup(path);
	kallsyms = kallsyms ?: run->recorded_kallsyms;
	return kallsyms ? callsite_resolver__use_kallsyms(resolver, kallsyms) : 0;
}

/*
 * One resolver of kernel addresses serves both analyses.  Loading a
 * kallsyms file into perf's maps is slow; the resolver reads it into a
 * table of its own.  A kallsyms the table refuses stays with perf's maps.
 */
static int setup_resolver(struct kmem_run *run, char *err, size_t err_size)
{
	const struct kmem_run_config *c = &run->config;

	run->core.resolver = callsite_resolver__new(&run->session->machines.host,
						    c->alloc_regex_add ?: c->alloc_regex,
						    c->alloc_regex_add, c->raw_ip,
						    err, err_size);
	if (!run->core.resolver)
		return -EINVAL;
	find_kernel_build_id(run);
	return use_kallsyms(run, run->core.resolver);
}

/*
 * The callsite of a memcg reclaim is past the charging functions as well
 * as the allocator's: the allocator pattern the user gave (or the
 * built-in one), and memcg's.
 */
static int setup_memcg_resolver(struct kmem_run *run, char *err,
				size_t err_size)
{
	const struct kmem_run_config *c = &run->config;
	const char *user = c->alloc_regex_add ?: c->alloc_regex;
	struct evsel *begin;

	begin = evlist__find_tracepoint_by_name(run->session->evlist,
						"vmscan:mm_vmscan_memcg_reclaim_begin");
	if (!run->core.resolver || !begin || !evsel__has_callchain(begin))
		return 0;
	run->memcg_resolver =
		callsite_resolver__new_memcg(&run->session->machines.host, user,
					     c->alloc_regex_add, c->raw_ip,
					     err, err_size);
	if (!run->memcg_resolver)
		return -EINVAL;
	return use_kallsyms(run, run->memcg_resolver);
}

/* Only the page analysis needs callchains; the slab events name their caller. */
static bool need_resolver(const struct kmem_run *run)
{
	struct evsel *alloc;

	if (run->config.slab)
		return true;
	alloc = evlist__find_tracepoint_by_name(run->session->evlist,
						"kmem:mm_page_alloc");
	return alloc && evsel__has_callchain(alloc);
}

/* The names of the stall tracepoints the trace lacks. */
static void note_stall_missing(struct kmem_run *run)
{
	size_t n = 0, size = sizeof(run->stall_missing);
	bool chain;
	int type;

	for (type = 0; type < KMEM_STALL_NR_TYPES && n < size; type++)
		if (!(run->info->stall_events & (1U << type)))
			n += snprintf(run->stall_missing + n, size - n, "%s%s",
				      n ? "," : "",
				      kmem_stall_tracepoint(type, &chain));
}

static int setup_page_analysis(struct kmem_run *run)
{
	const struct kmem_run_config *c = &run->config;
	const struct kmem_trace_info *info = run->info;
	struct kmem_page_config config = {
		.page_size = info->page_size,
		.pre_v4_4_migtypes = info->pre_v4_4,
		.want_alloc_table = c->alloc,
		.live_only = c->live,
		.nr_nodes = info->has_mem2node ? info->nr_nodes : 0,
		.allocations_filtered = c->task_filter,
	};
	struct kmem_frag_config frag = {
		.page_size = info->page_size,
		.pageblock_order = info->pageblock_order,
		.pre_v4_4_migtypes = info->pre_v4_4,
		.no_pfns = info->pfn_is_page,
	};

	run->core.kp = kmem_page__new(&config);
	run->core.kf = kmem_frag__new(&frag);
	if (!run->core.kp || !run->core.kf)
		return -ENOMEM;
	run->page_live = kmem_page__live(run->core.kp);
	if (info->stall_events) {
		run->core.st = kmem_stall__new();
		if (!run->core.st)
			return -ENOMEM;
		note_stall_missing(run);
	}
	if (c->interval) {
		struct kmem_interval_config iv = {
			.length = c->interval,
			.nr_callers = c->interval_callers,
			.stalls = run->core.st ? &kmem_stall__summary(run->core.st)->all : NULL,
		};

		run->core.iv = kmem_interval__new(&iv);
		if (!run->core.iv)
			return -ENOMEM;
	}
	if (!c->follow_tasks)
		return 0;
	run->core.tasks = kmem_tasks__new(&run->session->machines.host, &c->tasks);
	return run->core.tasks ? 0 : -ENOMEM;
}

/*
 * --time in shares of the trace's time span, as perf report takes them
 * (10%/2, 0%-10%,30%-40%): of this trace's span, from the times of its
 * first and last samples in the header, so that each trace of a diff
 * gets its own.
 */
static int setup_time_shares(struct kmem_run *run, char *err,
			     size_t err_size)
{
	const struct evlist *evlist = run->session->evlist;
	const char *str = run->config.time_window;
	int size;

	if (!str || !strchr(str, '%'))
		return 0;
	if (!evlist->first_sample_time && !evlist->last_sample_time) {
		snprintf(err, err_size,
			 "--time %s takes shares of the time span of %s, which it does not record (a stream does not): use start,stop in seconds",
			 str, run->config.path);
		return -EINVAL;
	}
	run->time_ranges = perf_time__range_alloc(str, &size);
	if (!run->time_ranges)
		return -ENOMEM;
	run->nr_time_ranges = perf_time__percent_parse_str(run->time_ranges,
							   size, str,
							   evlist->first_sample_time,
							   evlist->last_sample_time);
	if (run->nr_time_ranges > 0)
		return 0;
	snprintf(err, err_size, "invalid --time '%s'", str);
	return -EINVAL;
}

/* Rows go by function unless --raw-ip asks for one per return address. */
static u64 slab_callsite(u64 call_site, void *arg)
{
	return callsite_resolver__function(arg, call_site);
}

static int setup_slab_analysis(struct kmem_run *run)
{
	struct kmem_slab_config config = {
		.want_alloc_table = run->config.alloc,
		.callsite = run->core.resolver ? slab_callsite : NULL,
		.callsite_arg = run->core.resolver,
	};

	run->core.ks = kmem_slab__new(&config);
	if (!run->core.ks)
		return -ENOMEM;
	run->slab_live = kmem_slab__live(run->core.ks);
	return 0;
}

int kmem_run__setup(struct kmem_run *run, struct perf_session *session,
		    char *err, size_t err_size)
{
	const struct kmem_run_config *c = &run->config;
	struct kmem_decode_config config = {
		.page = c->page,
		.slab = c->slab,
		.pageblock_order = c->pageblock_order,
		.command = c->command,
	};
	int ret = 0;

	run->session = session;
	ret = setup_time_shares(run, err, err_size);
	if (ret)
		return ret;
	if (c->pprof) {
		run->profile = kmem_profile__new();
		if (!run->profile)
			return -ENOMEM;
	}
	if (c->folded || c->pprof) {
		run->stacks = kmem_stacks__new();
		if (!run->stacks)
			return -ENOMEM;
		config.stacks = run->stacks;
	}
	if (need_resolver(run)) {
		ret = setup_resolver(run, err, err_size);
		if (ret)
			return ret;
	}
	config.resolver = run->core.resolver;
	if (c->page) {
		ret = setup_memcg_resolver(run, err, err_size);
		if (ret)
			return ret;
		config.memcg_resolver = run->memcg_resolver;
	}
	run->core.dec = kmem_decoder__new(session, &config, err, err_size);
	if (!run->core.dec)
		return -EINVAL;
	run->info = kmem_decoder__info(run->core.dec);
	if (c->slab)
		ret = setup_slab_analysis(run);
	if (!ret && c->page)
		ret = setup_page_analysis(run);
	if (ret)
		return ret;
	run->per_event_extras = run->core.tasks || run->core.iv || run->profile;
	/* A page-only analysis queues records no larger than a page event. */
	run->queue = kmem_queue__new(c->slab ? sizeof(struct kmem_event) :
						KMEM_PAGE_EVENT_SIZE,
				     c->queue_size, deliver_span, run);
	return run->queue ? 0 : -ENOMEM;
}

/* --- what a run gives ----------------------------------------------- */

const struct kmem_run_stats *kmem_run__stats(const struct kmem_run *run)
{
	return &run->stats;
}

const struct kmem_trace_info *kmem_run__info(const struct kmem_run *run)
{
	return run->info;
}

const char *kmem_run__kernel_build_id(struct kmem_run *run)
{
	/* A pipe may bring its build-id records after the set-up. */
	if (!run->kernel_build_id[0])
		find_kernel_build_id(run);
	return run->kernel_build_id[0] ? run->kernel_build_id : NULL;
}

struct callsite_resolver *kmem_run__resolver(const struct kmem_run *run)
{
	return run->core.resolver;
}

struct kmem_page *kmem_run__page(const struct kmem_run *run)
{
	return run->core.kp;
}

struct kmem_frag *kmem_run__frag(const struct kmem_run *run)
{
	return run->core.kf;
}

struct kmem_decoder *kmem_run__decoder(const struct kmem_run *run)
{
	return run->core.dec;
}

/* --- the report, of either run ------------------------------------- */

static const char *gfp_name(void *arg, u64 gfp)
{
	struct kmem_run_core *core = arg;

	return kmem_decoder__gfp_name(core->dec, gfp);
}

/*
 * A function, or with --raw-ip func+0xoff (a row is a function's start
 * without it), or a bare address.
 */
static const char *callsite_name(void *arg, u64 callsite, char *buf,
				 size_t size)
{
	struct kmem_run_core *core = arg;

	if (!callsite && core->no_callsite) {
		snprintf(buf, size, "%s", core->no_callsite);
		return buf;
	}
	if (!core->resolver) {
		snprintf(buf, size, "%#" PRIx64, callsite);
		return buf;
	}
	/* Not an allocator address shown as if it were a callsite. */
	if (callsite_resolver__named_none(core->resolver)) {
		snprintf(buf, size, "(unresolved) %#" PRIx64, callsite);
		return buf;
	}
	return callsite_resolver__name(core->resolver, callsite,
				       core->config->raw_ip, buf, size);
}

/* A callsite's symbol, with an offset into it, or NULL. */
static const char *symbol_name(void *arg, u64 addr, char *buf, size_t size)
{
	struct kmem_run_core *core = arg;

	if (!core->resolver || !addr)
		return NULL;
	callsite_resolver__name(core->resolver, addr, true, buf, size);
	return strncmp(buf, "0x", 2) ? buf : NULL;
}

static const char *comm_name(void *arg, u32 task)
{
	struct kmem_run_core *core = arg;

	return kmem_tasks__comm(core->tasks, task);
}

/* A frame of a folded stack, or a map cell's callsite: its function. */
const char *kmem_run_core__frame(u64 ip, void *arg)
{
	struct kmem_run_core *core = arg;

	callsite_resolver__name(core->resolver, ip, false, core->frame,
				sizeof(core->frame));
	return strncmp(core->frame, "0x", 2) ? core->frame : NULL;
}

static const char *profile_gfp(u64 gfp, void *arg)
{
	return gfp_name(arg, gfp);
}

static const char *profile_migtype(int migtype, char *buf, size_t size,
				   void *arg)
{
	struct kmem_run_core *core = arg;

	return kmem_migtype__name(migtype, kmem_decoder__info(core->dec)->pre_v4_4,
				  buf, size);
}

static const char *profile_comm(u32 task, void *arg)
{
	return comm_name(arg, task);
}

struct kmem_profile_names kmem_run_core__profile_names(struct kmem_run_core *core)
{
	return (struct kmem_profile_names){
		.frame = kmem_run_core__frame,
		.gfp = profile_gfp,
		.migtype = profile_migtype,
		.comm = profile_comm,
		.arg = core,
	};
}

/*
 * The cell context's fields of what the analyses found, and its names:
 * the fields of the source are the run's.
 */
static void settle_ctx(struct kmem_run_core *core)
{
	const struct kmem_trace_info *info = kmem_decoder__info(core->dec);
	struct kmem_cell_ctx *ctx = &core->ctx;

	ctx->live = core->config->live;
	ctx->xnode = !strcmp(kmem_decoder__cross_node_status(core->dec), "analysed");
	ctx->cpu_nodes = info->has_cpu_nodes;
	ctx->pageblocks = core->kf && kmem_frag__has_classes(core->kf);
	ctx->frag_classes = core->extfrag && ctx->pageblocks;
	ctx->fragmenting = core->kf &&
			   kmem_frag__summary(core->kf)->fragmenting.nr;
	ctx->pinning = core->pinning && ctx->frag_classes;
	ctx->stalls = core->st && kmem_stall__summary(core->st)->all.stalls;
	ctx->gfp_name = gfp_name;
	ctx->symbol = symbol_name;
	ctx->callsite_name = callsite_name;
	ctx->comm_name = comm_name;
	ctx->arg = core;
}

/*
 * The names of the statuses of mm_compaction_end, as the trace has them:
 * set in the analysis's rows, which the report shows read-only.
 */
static void name_statuses(struct kmem_run_core *core)
{
	struct kmem_stall_status_row * const *rows;
	size_t i, nr;

	rows = kmem_stall__status_rows(core->st, &nr);
	for (i = 0; i < nr; i++) {
		if (rows[i]->status < KMEM_STALL_NR_STATUS - 1)
			rows[i]->name = kmem_decoder__compact_status(core->dec,
								     rows[i]->status);
	}
}

/* The rows of a table, sorted by -s or by the table's own keys. */
static int sort_table(struct kmem_run_core *core, enum kmem_report_table_id id,
		      const struct kmem_report_sort *sort)
{
	const struct kmem_report_analyses a = {
		.kp = core->kp, .kf = core->kf, .ks = core->ks, .st = core->st,
	};
	int err;

	err = kmem_report__sort_table(&core->tables[id], id, &core->ctx, &a,
				      sort);
	if (!err && id == KMEM_STALL_STATUSES && core->st)
		name_statuses(core);
	return err;
}

static void set_stall(struct kmem_page_row *row, void *arg)
{
	row->stall_ns = kmem_stall__callsite_ns(arg, row->callsite);
}

/* The stall analysis settled, its tables sorted, -s stall's values set. */
static int settle_stalls(struct kmem_run_core *core)
{
	int id, err = kmem_stall__finish(core->st);

	if (err)
		return err;
	kmem_page__walk_rows(core->kp, KMEM_PAGE_TABLE_CALLER, set_stall, core->st);
	kmem_page__walk_rows(core->kp, KMEM_PAGE_TABLE_ALLOC, set_stall, core->st);
	for (id = KMEM_STALL_ORDERS; !err && id <= KMEM_STALL_MEMCG; id++)
		err = sort_table(core, id, NULL);
	return err;
}

static int add_pinning(u64 pfn, int order, u64 callsite, u32 task, void *arg)
{
	return kmem_frag__add_pinning(arg, pfn, order, callsite, task);
}

static int settle_page(struct kmem_run_core *core)
{
	const struct kmem_run_config *c = core->config;
	int err;

	kmem_page__finish(core->kp);
	/* The pages that fell back and stay, before the pageblocks settle. */
	err = kmem_page__walk_fallen(core->kp, add_pinning, core->kf);
	if (!err)
		err = kmem_frag__finish(core->kf);
	if (!err && core->st)
		err = settle_stalls(core);
	settle_ctx(core);
	if (!err && (c->caller || !c->alloc))
		err = sort_table(core, KMEM_PAGE_CALLERS, &c->page_sort);
	if (!err && c->alloc)
		err = sort_table(core, KMEM_PAGE_ALLOCS, &c->page_sort);
	if (!err)
		err = sort_table(core, KMEM_FRAG_CALLERS, NULL);
	if (!err)
		err = sort_table(core, KMEM_FRAG_FAILURES, NULL);
	if (!err && core->ctx.pinning)
		err = sort_table(core, KMEM_FRAG_PINNED, NULL);
	return err;
}

static int settle_slab(struct kmem_run_core *core)
{
	const struct kmem_run_config *c = core->config;
	int err = 0;

	kmem_slab__finish(core->ks);
	if (c->caller || !c->alloc) {
		err = sort_table(core, KMEM_SLAB_CALLERS, &c->slab_sort);
		if (!err)
			err = sort_table(core, KMEM_SLAB_CACHES, &c->slab_sort);
	}
	if (!err && c->alloc)
		err = sort_table(core, KMEM_SLAB_ALLOCS, &c->slab_sort);
	return err;
}

int kmem_run_core__settle(struct kmem_run_core *core)
{
	int node, err = 0;

	settle_ctx(core);
	for (node = 0; node < KMEM_PAGE_MAX_NODES; node++)
		core->has_node[node] = kmem_decoder__has_node(core->dec, node);
	if (core->ks)
		err = settle_slab(core);
	if (!err && core->kp)
		err = settle_page(core);
	return err;
}

void kmem_run_core__report(const struct kmem_run_core *core,
			   struct kmem_report *r)
{
	*r = (struct kmem_report){
		.ctx = &core->ctx,
		.kp = core->kp,
		.kf = core->kf,
		.iv = core->iv,
		.slab = core->ks,
		.has_node = core->has_node,
		.nr_node_ids = kmem_decoder__info(core->dec)->nr_nodes,
		.caller = core->config->caller,
		.lines = core->config->lines,
	};
	r->src[KMEM_SRC_TRACE] = &r->trace;
	if (core->kp)
		r->src[KMEM_SRC_PAGE] = kmem_page__summary(core->kp);
	if (core->kf)
		r->src[KMEM_SRC_FRAG] = kmem_frag__summary(core->kf);
	if (core->ks)
		r->src[KMEM_SRC_SLAB] = kmem_slab__summary(core->ks);
	if (core->st)
		r->src[KMEM_SRC_STALL] = kmem_stall__summary(core->st);
	memcpy(r->tables, core->tables, sizeof(r->tables));
}

/* --- the report of a recording -------------------------------------- */

/* Every analysis finished and joined, the tables sorted. */
static int settle_report(struct kmem_run *run)
{
	const struct kmem_trace_info *info = run->info;

	run->core.extfrag = info->has_extfrag;
	run->core.pinning = !info->pfn_is_page;
	run->core.ctx = (struct kmem_cell_ctx){
		.page_size = info->page_size,
		.pre_v4_4 = info->pre_v4_4,
		.pfn_is_page = info->pfn_is_page,
		.sampled = info->sampled[0],
		.callchains = info->has_callchains,
		.task_key = run->config.tasks.key,
	};
	return kmem_run_core__settle(&run->core);
}

static struct kmem_report_trace report_trace(const struct kmem_run *run)
{
	const struct perf_env *env = &run->session->header.env;
	const u64 *nr = run->stats.nr_of_kind;
	const struct kmem_trace_info *info = run->info;

	return (struct kmem_report_trace){
		.path = run->config.path,
		.os_release = env->os_release,
		.hostname = env->hostname,
		.arch = env->arch,
		.nr_cpus = env->nr_cpus_avail > 0 ? env->nr_cpus_avail : 0,
		.time_window = run->config.time_window,
		.nr_samples = run->stats.nr_events,
		.nr_page_events = nr[KMEM_EVENT_PAGE_ALLOC] +
				  nr[KMEM_EVENT_PAGE_FREE],
		.nr_slab_events = nr[KMEM_EVENT_SLAB_ALLOC] +
				  nr[KMEM_EVENT_SLAB_FREE],
		.nr_extfrag_events = nr[KMEM_EVENT_EXTFRAG],
		.events_lost = run->stats.nr_lost,
		.events_too_short = kmem_decoder__nr_short(run->core.dec),
		.events_out_of_order = kmem_queue__nr_late(run->queue),
		.callsites_unresolved = run->core.resolver &&
			callsite_resolver__named_none(run->core.resolver),
		.sampled = info->sampled,
		.page_size = info->page_size,
		.live = run->config.live,
		.cross_node = kmem_decoder__cross_node_status(run->core.dec),
		.nr_nodes = kmem_decoder__nr_trace_nodes(run->core.dec),
		.fragmentation = info->has_extfrag ? "analysed" : "not_recorded",
		.pageblock_order = info->pageblock_order,
		.pageblock_why = info->pageblock_why,
		.stalls = run->core.st ? "analysed" : "no_stall_events",
		.stall_missing = run->stall_missing,
	};
}

void kmem_run__report(const struct kmem_run *run, struct kmem_report *r)
{
	kmem_run_core__report(&run->core, r);
	r->trace = report_trace(run);
}

int kmem_run__write_folded(struct kmem_run *run,
			   enum kmem_stacks_weight weight, FILE *fp,
			   size_t *nr_lines)
{
	kmem_page__finish(run->core.kp);
	if (run->config.live)
		kmem_page__walk_live(run->core.kp, count_live_stack, run);
	return kmem_stacks__write(run->stacks, weight, kmem_run_core__frame,
				  &run->core, fp, nr_lines);
}

size_t kmem_run__nr_profiles(const struct kmem_run *run)
{
	return run->profile ? kmem_profile__nr_periods(run->profile) : 0;
}

/* The kernel's image: the range of its map, and its build-id. */
static void kernel_mapping(struct kmem_run *run, struct kmem_profile_image *m)
{
	struct map *kmap = machine__kernel_map(&run->session->machines.host);

	*m = (struct kmem_profile_image){
		.limit = ~0ULL,
		.file = "[kernel.kallsyms]",
	};
	if (kmap && map__end(kmap) > map__start(kmap)) {
		m->start = map__start(kmap);
		m->limit = map__end(kmap);
	}
	/* The kernel's build-id as the trace's records gave it, looked up once. */
	m->build_id = kmem_run__kernel_build_id(run);
}

/* What the profile says of itself: its trace, and how exact it is. */
static size_t profile_comments(struct kmem_run *run, size_t i,
			       char lines[][PATH_MAX + 160], bool clock)
{
	const struct kmem_profile_period *p = kmem_profile__period(run->profile, i);
	const struct perf_env *env = &run->session->header.env;
	size_t n = 0;

	snprintf(lines[n++], sizeof(lines[0]),
		 "perf kmem stat --page --pprof of %s: every page allocation of the trace, exact counts and bytes, not sampled",
		 run->config.path);
	snprintf(lines[n++], sizeof(lines[0]), "recorded on %s, kernel %s",
		 env->hostname ?: "an unknown host",
		 env->os_release ?: "unknown");
	if (run->core.iv)
		snprintf(lines[n++], sizeof(lines[0]),
			 "interval %zu of -I %" PRIu64 " ms: %.9f s to %.9f s of the trace clock",
			 i, run->config.interval / 1000000, p->start / 1e9,
			 (p->start + p->length) / 1e9);
	if (!clock)
		snprintf(lines[n++], sizeof(lines[0]),
			 "time_nanos is of the trace clock, not wall-clock time: the trace has no clock reference (perf kmem record -k CLOCK_MONOTONIC records one)");
	return n;
}

static enum kmem_profile_task profile_task(const struct kmem_run *run)
{
	if (run->config.tasks.key == KMEM_TASK_PID)
		return KMEM_PROFILE_TASK_PID;
	if (run->config.tasks.key == KMEM_TASK_COMM)
		return KMEM_PROFILE_TASK_COMM;
	return KMEM_PROFILE_TASK_NONE;
}

int kmem_run__profile(struct kmem_run *run, size_t i,
		      struct kmem_profile_view *v)
{
	const struct perf_env *env = &run->session->header.env;
	struct kmem_profile_write_config *c = &v->config;
	size_t k;

	if (i >= kmem_run__nr_profiles(run))
		return -EINVAL;
	*v = (struct kmem_profile_view){
		.profile = run->profile,
		.period = i,
		.stacks = run->stacks,
		.config = {
			.page_size = run->info->page_size,
			.task = profile_task(run),
			.fallbacks = run->info->has_extfrag,
			.stalls = !!run->core.st,
			.comments = run->pprof_comments,
			.names = kmem_run_core__profile_names(&run->core),
		},
	};
	if (env->clock.enabled)
		c->time_offset = (s64)(env->clock.tod_ns - env->clock.clockid_ns);
	c->nr_comments = profile_comments(run, i, run->pprof_lines,
					  env->clock.enabled);
	for (k = 0; k < c->nr_comments; k++)
		run->pprof_comments[k] = run->pprof_lines[k];
	kernel_mapping(run, &c->kernel);
	return 0;
}
