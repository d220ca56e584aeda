// SPDX-License-Identifier: GPL-2.0
/*
 * perf kmem: how the kernel allocates memory.
 *
 * 'perf kmem record' records the slab (--slab) and page allocator (--page)
 * tracepoints, 'perf kmem stat' replays them and 'perf kmem diff' compares
 * two traces.  A sample goes one way: perf's reader hands it to this file's
 * tool, which hands it to the run of the analyses (util/kmem/run.c): the
 * decoder (util/kmem/read-decode.c) reads it, the queue (util/kmem/read-queue.c) puts
 * it in time order, and the analyses (util/kmem/count-page.c, util/kmem/count-slab.c,
 * util/kmem/count-frag.c...) count it; util/kmem/report.c and util/kmem/print-text.c
 * render the results as JSON or text.  This file does the options, the
 * session set-up and the choice of output.
 */
#include "builtin.h"
#include "perf-sys.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <subcmd/pager.h>
#include <subcmd/parse-options.h>

#include "ui/util.h"
#include "util/build-id.h"
#include "util/config.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/kmem/bpf.h"
#include "util/kmem/count-frag.h"
#include "util/kmem/count-page.h"
#include "util/kmem/count-profile.h"
#include "util/kmem/count-slab.h"
#include "util/kmem/print-csv.h"
#include "util/kmem/print-diff.h"
#include "util/kmem/print-layout.h"
#include "util/kmem/print-map.h"
#include "util/kmem/print-pprof.h"
#include "util/kmem/read-callsite.h"
#include "util/kmem/read-json.h"
#include "util/kmem/read-kallsyms.h"
#include "util/kmem/read-queue.h"
#include "util/kmem/print.h"
#include "util/kmem/report.h"
#include "util/kmem/run.h"
#include "util/levenshtein.h"
#include "util/machine.h"
#include "util/session.h"
#include "util/strbuf.h"
#include "util/symbol.h"
#include "util/target.h"
#include "util/thread_map.h"
#include "util/time-utils.h"
#include "util/tool.h"
#include "util/tracepoint.h"

/* -I --caller: the callsites shown of each interval, without -l. */
#define DEFAULT_INTERVAL_CALLERS	3

/* What the user asked for, set once from the command line. */
struct perf_kmem {
	/* What the analyses of each trace take: see util/kmem/run.h. */
	struct kmem_run_config	opts;
	const char		*input_name;
	bool			force;
	const char		*lines_str;	/* -l */
	const char		*sort_str;
	/* -s split once; without it, the default of each analysis. */
	struct kmem_sort_keys	page_names;
	struct kmem_sort_keys	slab_names;
	const char		*pageblock_order_str;
	bool			json;
	const char		*folded;	/* "bytes", "hits" or "stall" */
	const char		*output_name;	/* -o; NULL: stdout */
	const char		*field_sep;	/* -x; NULL: no CSV */
	const char		*map_name;	/* --map */
	const char		*pprof_name;	/* --pprof */
	const char		*interval_str;	/* -I */
	bool			diff;		/* perf kmem diff */
	bool			include_perf;	/* record and stat -b --include-perf */
	/* perf config */
	const char		*default_mode;	/* kmem.default; NULL: unset */
	bool			mode_from_trace; /* no --page, --slab, config */
	bool			bad_config;	/* a kmem.* value refused */
	/* stat -b: see util/kmem/bpf.h */
	bool			use_bpf;
	struct kmem_bpf_config	bpf;
	const char		*sample_bytes_str;
	const char		*map_entries_str;
	const char		*max_stack_str;
};

/*
 * One perf.data file or pipe being read: perf's session, and the tool that
 * hands its records to the run of the analyses.  What comes before corrupt
 * data is analysed in the same pass, when perf's reader stops.
 */
struct kmem_input {
	struct kmem_run_tool		tool;		/* its sample callback the run's */
	const struct perf_kmem		*kmem;
	const char			*path;		/* the trace */
	struct perf_data		data;
	struct perf_session		*session;
	struct kmem_run			*run;
	bool				set_up;		/* the run, or tried to */
	bool				setup_failed;	/* and said why */
	FILE				*perf_messages;	/* held back */
	FILE				*saved_debug_file;
};

static const char * const slab_tracepoints[] = {
	"kmem:kmalloc", "kmem:kfree", "kmem:kmem_cache_alloc",
	"kmem:kmem_cache_free",
	/* Merged into kmalloc and kmem_cache_alloc in v6.1. */
	"kmem:kmalloc_node", "kmem:kmem_cache_alloc_node",
};

/*
 * What perf kmem cannot do as asked, said as pr_err() says it: the error
 * of the request, -EINVAL, for the caller to return.
 */
static int __printf(1, 2) kmem_error(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	veprintf(0, verbose, fmt, args);
	va_end(args);
	return -EINVAL;
}

/* --- reading events -------------------------------------------------- */

static int setup_streamed_analyses(struct kmem_input *in);

/*
 * The sample callback until the analyses are set up: a pipe without a
 * FINISHED_INIT record sets them up at its first sample.  Then the run
 * takes the samples itself.
 */
static int process_sample_event(const struct perf_tool *tool,
				union perf_event *event,
				struct perf_sample *sample,
				struct evsel *evsel,
				struct machine *machine)
{
	struct kmem_input *in = container_of(tool, struct kmem_input,
					     tool.tool);

	if (!in->set_up && setup_streamed_analyses(in))
		return -EINVAL;
	return kmem_run__sample(tool, event, sample, evsel, machine);
}

/*
 * COMM, FORK and EXIT wait in the run's queue with the samples.  A pipe
 * brings the tasks perf record found running (and its command's first
 * name) before the analyses are set up, before any sample: they go to
 * perf's thread tracking at once, or every task but those that began or
 * exec'ed during the recording would have no name, and no pid but its
 * tid.
 */
static int process_task_event(const struct perf_tool *tool,
			      union perf_event *event,
			      struct perf_sample *sample,
			      struct machine *machine)
{
	struct kmem_input *in = container_of(tool, struct kmem_input, tool.tool);

	if (!in->set_up)
		return machine__process_event(machine, event, sample);
	return kmem_run__task_event(in->run, event, sample);
}

static int process_finished_round(const struct perf_tool *tool,
				  union perf_event *event __maybe_unused,
				  struct ordered_events *oe __maybe_unused)
{
	struct kmem_input *in = container_of(tool, struct kmem_input, tool.tool);

	return kmem_run__round(in->run);
}

/*
 * A pipe brings what a file has in its header as records before the
 * samples: the attrs, the tracepoint formats and the features (topology,
 * os-release), then FINISHED_INIT.  The analyses are set up there.
 */
static int process_finished_init(struct perf_session *session __maybe_unused,
				 union perf_event *event __maybe_unused)
{
	struct kmem_input *in = container_of(session->tool, struct kmem_input,
					     tool.tool);

	return in->set_up ? 0 : setup_streamed_analyses(in);
}

static int process_feature(struct perf_session *session, union perf_event *event)
{
	/* A newer perf's feature: not one the analyses use. */
	if (event->feat.feat_id >= HEADER_LAST_FEATURE)
		return 0;
	return perf_event__process_feature(session, event);
}

/* Events the kernel lost, or samples it dropped (that did not fit the buffer). */
static int process_lost_event(const struct perf_tool *tool,
			      union perf_event *event,
			      struct perf_sample *sample __maybe_unused,
			      struct machine *machine __maybe_unused)
{
	struct kmem_input *in = container_of(tool, struct kmem_input, tool.tool);

	kmem_run__lost(in->run, event->header.type == PERF_RECORD_LOST ?
		       event->lost.lost : event->lost_samples.lost);
	return 0;
}

/*
 * Callsites are kernel code and no table names a task, so of the side-band
 * events only the kernel's maps matter.  The maps of every user task, and
 * their comm events, would each create a thread, looking its namespaces up
 * on this machine: a tenth of the time on a system-wide trace, for nothing.
 */
static int process_kernel_mmap(const struct perf_tool *tool,
			       union perf_event *event,
			       struct perf_sample *sample,
			       struct machine *machine)
{
	u16 cpumode = event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (cpumode == PERF_RECORD_MISC_USER ||
	    cpumode == PERF_RECORD_MISC_GUEST_USER)
		return 0;
	if (event->header.type == PERF_RECORD_MMAP)
		return perf_event__process_mmap(tool, event, sample, machine);
	return perf_event__process_mmap2(tool, event, sample, machine);
}

/* --- setting up a run ------------------------------------------------ */

static void alloc_func_print(const char *name, void *arg __maybe_unused)
{
	printf("alloc func: %s\n", name);
}

/* After the events: the kernel map comes from the trace's own records. */
static void list_alloc_funcs(struct kmem_run *run)
{
	struct callsite_resolver *resolver = run ? kmem_run__resolver(run) : NULL;

	if (verbose > 0 && resolver &&
	    callsite_resolver__list_alloc_funcs(resolver, alloc_func_print, NULL))
		pr_err("perf kmem: no kernel symbols to list allocator functions from\n");
}

static int pprof_needs_callchains(struct kmem_input *in)
{
	return kmem_error("perf kmem: --pprof needs the callchains of the page allocations, which %s has not: record with perf kmem record --page\n",
			  in->path);
}

/* Set up the analyses, or say why not. */
static int setup_analyses(struct kmem_input *in)
{
	const struct kmem_trace_info *info;
	char why[256];
	int err;

	in->set_up = true;
	in->tool.run = in->run;
	in->tool.tool.sample = kmem_run__sample;
	err = kmem_run__setup(in->run, in->session, why, sizeof(why));
	info = kmem_run__info(in->run);
	if (in->kmem->opts.page && info && info->has_page_alloc &&
	    !info->has_callchains) {
		if (in->kmem->pprof_name) {
			in->setup_failed = true;
			return pprof_needs_callchains(in);
		}
		pr_err("perf kmem: no callchains in %s: callsites need 'perf kmem record --page'\n",
		       in->path);
	}
	/* Without frees every page allocated would look still allocated. */
	if (in->kmem->opts.page && info && info->has_page_alloc &&
	    !info->has_page_free)
		pr_err("perf kmem: no kmem:mm_page_free in %s: no page is seen freed, the lifetimes need 'perf kmem record --page'\n",
		       in->path);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory setting up the analyses\n");
	else if (err)
		pr_err("perf kmem: %s\n", why);
	in->setup_failed = err != 0;
	return err;
}

/* --- reading a trace ------------------------------------------------- */

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

static void hold_perf_messages(struct kmem_input *in)
{
	if (verbose > 0 || !in->perf_messages)
		return;
	in->saved_debug_file = debug_file();
	debug_set_file(in->perf_messages);
	perf_error__register(&discard_ui_messages);
}

static void release_perf_messages(struct kmem_input *in)
{
	if (verbose > 0 || !in->perf_messages)
		return;
	perf_error__unregister(&discard_ui_messages);
	debug_set_file(in->saved_debug_file);
}

/*
 * Set up from what a pipe brought so far, in the middle of perf's reading:
 * perf's messages are held back, ours must not be.
 */
static int setup_streamed_analyses(struct kmem_input *in)
{
	int err;

	release_perf_messages(in);
	err = setup_analyses(in);
	hold_perf_messages(in);
	return err;
}

/*
 * -i FIFO: perf reads a pipe from a file descriptor it is given, or from
 * standard input.
 */
static int open_fifo(struct kmem_input *in, const char *path)
{
	struct stat st;
	int fd;

	if (!strcmp(path, "-") || stat(path, &st) || !S_ISFIFO(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		pr_err("perf kmem: cannot read %s: %s\n", path, strerror(errno));
		return -errno;
	}
	in->data.path = "-";
	in->data.file.fd = fd;
	return 0;
}

/*
 * Is the file, of *@size bytes, cut inside this feature section, or just
 * before it?  (A section that starts further on points out of the file:
 * it is corrupt, and perf reads the others.)
 */
static int feature_cut(struct perf_file_section *section,
		       struct perf_header *ph __maybe_unused, int feat __maybe_unused,
		       int fd __maybe_unused, void *size)
{
	u64 *file_size = size;

	return section->offset <= *file_size &&
	       section->offset + section->size > *file_size ? -ERANGE : 0;
}

/*
 * Do the feature sections that header @ph of @fd gives run past the end
 * of the file, of @file_size bytes?  perf reads what it can of them and
 * goes on: a file cut there is read as corrupt (its tracing data), or as
 * whole (its topology).
 */
static bool features_cut(struct perf_header *ph, int fd, u64 file_size)
{
	int nr = bitmap_weight(ph->adds_features, HEADER_FEAT_BITS);

	if (!nr)
		return false;
	return ph->feat_offset + nr * sizeof(struct perf_file_section) > file_size ||
	       perf_header__process_sections(ph, fd, &file_size, feature_cut) < 0;
}

/*
 * The part of @fd's perf.data, of @file_size bytes, that perf's session
 * could not open, which its header says lies past the end of the file;
 * or NULL.
 */
static const char *cut_part(int fd, u64 file_size)
{
	struct perf_file_header f;
	struct perf_header ph = { .needs_swap = false };

	if (lseek(fd, 0, SEEK_SET) || perf_file_header__read(&f, &ph, fd))
		return NULL;
	if (f.attrs.offset + f.attrs.size > file_size)
		return "its event attributes";
	if (f.data.offset + f.data.size > file_size)
		return "its data section";
	return features_cut(&ph, fd, file_size) ? "its header features" : NULL;
}

/* @in's regular file, which perf could not open, cut short: where, or NULL. */
static const char *where_cut(struct kmem_input *in, char *buf, size_t size)
{
	struct stat st;
	const char *part;
	int fd;

	if (perf_data__is_dir(&in->data) || stat(in->data.path, &st) ||
	    !S_ISREG(st.st_mode))
		return NULL;
	fd = open(in->data.path, O_RDONLY);
	if (fd < 0)
		return NULL;
	part = cut_part(fd, st.st_size);
	close(fd);
	if (!part)
		return NULL;
	snprintf(buf, size, "truncated: the file ends inside %s, after %s bytes",
		 part, COMMAS(st.st_size));
	return buf;
}

/* Why perf's session cannot read @in's file (@err), in one line. */
static const char *open_error(struct kmem_input *in, int err, char *buf,
			      size_t size)
{
	const char *cut;

	if (!strcmp(in->data.path, "-"))
		return "no 'perf record -o -' stream on it";
	/* Before what perf made of it: "corrupt" attrs or tracing data. */
	if (err != PERF_DATA_ERRNO__NOT_OWNER && err != PERF_DATA_ERRNO__EMPTY &&
	    err != PERF_DATA_ERRNO__UNFINISHED) {
		cut = where_cut(in, buf, size);
		if (cut)
			return cut;
	}
	/* Not "No such file or directory" of a directory that is there. */
	if (err == -ENOENT && perf_data__is_dir(&in->data))
		return "a directory, not one of perf record --threads: it has no data file";
	switch (err) {
	case PERF_DATA_ERRNO__NOT_OWNER:
		return "it is owned by another user: -f (--force) reads it anyway";
	case PERF_DATA_ERRNO__EMPTY:
		return "the file is empty";
	case PERF_DATA_ERRNO__NOT_PERF_DATA:
		return "not a perf.data file";
	case PERF_DATA_ERRNO__UNFINISHED:
		return "its data size is 0: the perf record that wrote it did not finish (killed?)";
	case PERF_DATA_ERRNO__TRUNCATED:
		snprintf(buf, size, "truncated: the file ends inside its data section, after %s bytes",
			 COMMAS(in->data.file.size));
		return buf;
	case PERF_DATA_ERRNO__HEADER:
		return "its header is corrupt";
	case PERF_DATA_ERRNO__NO_TRACING_DATA:
		return "it has no tracepoint formats (the tracing data feature is missing)";
	case PERF_DATA_ERRNO__TRACING_DATA:
		return "its tracing data is corrupt";
	case -ENOMEM:
		return "out of memory";
	default:
		break;
	}
	/* The rest are errnos, of open() or fstat(); -1 and -EINVAL say nothing. */
	if (err < -1 && err > __PERF_DATA_ERRNO__START && err != -EINVAL)
		return strerror(-err);
	return "its header is corrupt";
}

/*
 * A file perf's session opened that cannot be read all the same: one
 * that a killed perf record left (a directory has no data size of its
 * own), or cut short.  perf fails to open one with tracepoint events.
 */
static int unreadable(struct kmem_input *in)
{
	struct perf_header *h = &in->session->header;

	if (perf_data__is_pipe(&in->data))
		return 0;
	if (!h->data_size && !perf_data__is_dir(&in->data))
		return PERF_DATA_ERRNO__UNFINISHED;
	if (h->data_offset + h->data_size > in->data.file.size)
		return PERF_DATA_ERRNO__TRUNCATED;
	/* Cut in its features, of the header the session read. */
	if (features_cut(&in->session->header, perf_data__fd(&in->data),
			 in->data.file.size))
		return PERF_DATA_ERRNO__TRUNCATED;
	return 0;
}

static int open_session(struct kmem_input *in)
{
	const char *path = in->path;
	char why[160];
	int err;

	/* The session keeps a pointer to its perf_data until it is deleted. */
	in->data.path = path;
	in->data.mode = PERF_DATA_MODE_READ;
	in->data.force = in->kmem->force;
	/* A pipe through stdio: one read() for many records, not two each. */
	in->data.use_stdio = true;
	if (open_fifo(in, path))
		return -EINVAL;

	/* Our queue puts the events in time order: see util/kmem/read-queue.h. */
	perf_tool__init(&in->tool.tool, /*ordered_events=*/false);
	in->tool.tool.finished_round = process_finished_round;
	in->tool.tool.sample = process_sample_event;
	in->tool.tool.mmap = process_kernel_mmap;
	in->tool.tool.mmap2 = process_kernel_mmap;
	in->tool.tool.lost = process_lost_event;
	in->tool.tool.lost_samples = process_lost_event;
	/* What a pipe has in records, a file in its header. */
	in->tool.tool.attr = perf_event__process_attr;
	in->tool.tool.event_update = perf_event__process_event_update;
	in->tool.tool.tracing_data = perf_event__process_tracing_data;
	in->tool.tool.feature = process_feature;
	in->tool.tool.id_index = perf_event__process_id_index;
	in->tool.tool.build_id = perf_event__process_build_id;
	in->tool.tool.finished_init = process_finished_init;

	/* perf's session says why it cannot read a file: in one line. */
	hold_perf_messages(in);
	in->session = perf_session__new(&in->data, &in->tool.tool);
	release_perf_messages(in);
	if (IS_ERR(in->session)) {
		err = PTR_ERR(in->session);
		in->session = NULL;
	} else {
		err = unreadable(in);
	}
	if (err)
		pr_err("perf kmem: cannot read %s: %s\n", path,
		       open_error(in, err, why, sizeof(why)));
	return err ? -EINVAL : 0;
}

static void kmem_input__delete(struct kmem_input *in)
{
	if (!in)
		return;
	/* The run's decoder and resolver point into the session. */
	kmem_run__delete(in->run);
	if (in->session)
		perf_session__delete(in->session);
	if (in->perf_messages)
		fclose(in->perf_messages);
	free(in);
}

/*
 * The trace @path, open: its attrs and formats read (the events of a
 * pipe come with its records).  NULL: it could not be, and perf kmem
 * said why.
 */
static struct kmem_input *kmem_input__open(const struct perf_kmem *kmem,
					   const char *path)
{
	struct kmem_input *in = zalloc(sizeof(*in));

	if (!in)
		return NULL;
	in->kmem = kmem;
	in->path = path;
	/* Without it, perf's messages are not held back. */
	in->perf_messages = fopen("/dev/null", "w");
	if (!open_session(in))
		return in;
	kmem_input__delete(in);
	return NULL;
}

/*
 * A run of the analyses @in->kmem asks for, set up on the open trace
 * @in, ready to read, or one line saying why not.
 */
static int kmem_input__setup(struct kmem_input *in)
{
	const struct perf_kmem *kmem = in->kmem;
	struct kmem_run_config config;
	int err;

	if (kmem->opts.follow_tasks) {
		in->tool.tool.comm = process_task_event;
		in->tool.tool.fork = process_task_event;
		in->tool.tool.exit = process_task_event;
	}
	hold_perf_messages(in);
	err = symbol__init(&in->session->header.env);
	release_perf_messages(in);
	if (err < 0)
		return kmem_error("perf kmem: cannot set up symbol resolution\n");
	config = kmem->opts;
	config.path = in->path;
	config.command = kmem->diff ? "diff" : "stat";
	/* The diff pairs and sorts the rows itself: all of them, unsorted. */
	if (kmem->diff) {
		config.caller = true;
		config.alloc = false;
		config.lines = -1;
		config.page_sort.unsorted = true;
		config.slab_sort.unsorted = true;
	}
	/* symbol__init() made these of --pid, --tid and --comm. */
	config.tasks.pids = symbol_conf.pid_list;
	config.tasks.tids = symbol_conf.tid_list;
	config.tasks.comms = symbol_conf.comm_list;
	in->run = kmem_run__new(&config);
	if (!in->run) {
		pr_err("perf kmem: out of memory setting up the analyses\n");
		return -ENOMEM;
	}
	/* A pipe's analyses are set up as its first records come. */
	if (perf_data__is_pipe(&in->data))
		return 0;
	return setup_analyses(in);
}

/* A pipe read through stdio that the reader stopped in at its end. */
static bool ended_inside_record(struct kmem_input *in)
{
	return perf_data__is_pipe(&in->data) && in->data.use_stdio &&
	       feof(in->data.file.fptr);
}

/*
 * Read the events and deliver them all.  A record perf's reader cannot
 * read stops it (it says where, and why): what came before is analysed
 * all the same, and *@stopped says so.
 */
static int kmem_input__read(struct kmem_input *in, bool *stopped)
{
	int err;

	hold_perf_messages(in);
	err = perf_session__process_events(in->session);
	release_perf_messages(in);
	*stopped = false;
	if (in->setup_failed)
		return -EINVAL;
	/*
	 * A pipe that ended or broke before its first sample, and before the
	 * record that says its header records are all there (either sets the
	 * analyses up).
	 */
	if (!in->set_up)
		return kmem_error("perf kmem: cannot read %s: %s before its first sample\n",
				  in->path, err && !ended_inside_record(in) ?
				  "corrupt data" : "the stream ended");
	*stopped = err && err != -ENOMEM;
	err = kmem_run__finish(in->run, err);
	if (kmem_run__stats(in->run)->nr_queue_bounds)
		pr_debug("perf kmem: the event queue reached kmem.queue-size %" PRIu64 " times\n",
			 kmem_run__stats(in->run)->nr_queue_bounds);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory reading %s\n", in->path);
	return err;
}

/* --- writing the results --------------------------------------------- */

/*
 * Where the results go: stdout, or -o FILE, written under another name
 * and renamed when complete, so that a failed run leaves no half of it.
 */
struct kmem_output {
	const char	*path;		/* NULL: stdout */
	char		*tmp;
	FILE		*fp;
	bool		direct;		/* a device or a pipe, written as is */
	int		werr;		/* the errno of its first failed write */
};

/* Where @path is written first: a regular file is renamed after. */
static char *tmp_name(const char *path)
{
	struct stat st;
	char *tmp;

	/* Only a file is replaced whole: /dev/null stays a device. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return strdup(path);
	return asprintf(&tmp, "%s.tmp.%d", path, getpid()) < 0 ? NULL : tmp;
}

/* Open @path for writing, or say why not. */
static int output_open(struct kmem_output *out, const char *path)
{
	int err;

	*out = (struct kmem_output){ .path = path, .fp = stdout };
	if (!path)
		return 0;
	out->tmp = tmp_name(path);
	out->fp = out->tmp ? fopen(out->tmp, "w") : NULL;
	if (out->fp) {
		out->direct = !strcmp(out->tmp, path);
		return 0;
	}
	err = out->tmp ? errno ?: EIO : ENOMEM;
	pr_err("perf kmem: cannot write %s: %s\n", path, strerror(err));
	zfree(&out->tmp);
	return -err;
}

/*
 * A write that failed on the way left the stream's error flag, and errno
 * as it set it, though the last flush may succeed (glibc drops what it
 * could not write): the first errno, kept until the output is closed.
 */
static void output_flush(struct kmem_output *out)
{
	if (out->fp && !out->werr && (fflush(out->fp) || ferror(out->fp)))
		out->werr = errno ?: EIO;
}

/*
 * @err: of the analysis, said; the output is kept only without one.  A
 * write of it that failed, on the way or at its end, is said here, once.
 */
static int output_close(struct kmem_output *out, int err)
{
	bool replace = out->tmp && !out->direct;

	if (!out->fp)
		return err;
	output_flush(out);
	if (out->fp != stdout && fclose(out->fp) && !out->werr)
		out->werr = errno ?: EIO;
	if (replace && !err && !out->werr && rename(out->tmp, out->path))
		out->werr = errno ?: EIO;
	if (out->werr)
		pr_err("perf kmem: cannot write %s: %s\n",
		       out->path ?: "standard output", strerror(out->werr));
	if (replace && (err || out->werr))
		unlink(out->tmp);
	zfree(&out->tmp);
	return err ?: -out->werr;
}

/* --folded=fallbacks or =fragmenting: the chains of the fallbacks. */
static bool folded_fallbacks(const char *folded)
{
	return folded && (!strcmp(folded, "fallbacks") ||
			  !strcmp(folded, "fragmenting"));
}

/* Of hits and of fallbacks a stack weighs its count; of the rest a sum. */
static enum kmem_stacks_weight folded_weight(const char *folded)
{
	return strcmp(folded, "hits") && !folded_fallbacks(folded) ?
	       KMEM_STACKS_BYTES : KMEM_STACKS_HITS;
}

/* What the folded stacks of @folded would weigh, found nowhere in a trace. */
static const char *nothing_folded(const struct perf_kmem *kmem)
{
	const char *folded = kmem->folded;

	if (!strcmp(folded, "stall"))
		return "no allocation stalled in";
	if (!strcmp(folded, "fallbacks"))
		return "no allocation fell back in";
	if (!strcmp(folded, "fragmenting"))
		return "no fallback fragmented in";
	return kmem->opts.live ? "no page is still allocated at the end of" :
	       "no page allocation with a callsite in";
}

static int print_folded(struct kmem_input *in, FILE *fp)
{
	const struct kmem_trace_info *info = kmem_run__info(in->run);
	const char *folded = in->kmem->folded;
	size_t nr_lines = 0;
	int err;

	if (!info->has_callchains)
		return kmem_error("perf kmem: --folded needs the callchains of the page allocations: record with perf kmem record --page\n");
	if (folded_fallbacks(folded) && !info->has_extfrag)
		return kmem_error("perf kmem: --folded=%s needs the kmem:mm_page_alloc_extfrag events, which %s has not: record with perf kmem record --page\n",
				  folded, in->path);
	if (!strcmp(folded, "stall") && !info->stall_events)
		return kmem_error("perf kmem: --folded=stall needs the reclaim and compaction events, which %s has not: record with perf kmem record --page\n",
				  in->path);
	if (!strcmp(folded, "fragmenting") &&
	    !kmem_frag__has_classes(kmem_run__frag(in->run)))
		return kmem_error("perf kmem: --folded=fragmenting needs the pageblock order: %s; --pageblock-order N gives it\n",
				  info->pageblock_why);
	err = kmem_run__write_folded(in->run, folded_weight(folded), fp,
				     &nr_lines);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing folded stacks\n");
	/* Nothing to draw: said, as stat says of an analysis of nothing. */
	if (!err && !nr_lines)
		err = kmem_error("perf kmem: --folded=%s: %s %s, no stack to write\n",
				 folded, nothing_folded(in->kmem), in->path);
	return err;
}

/* --- the memory profile (--pprof) ------------------------------------ */

/* The file of profile @i: FILE, or with -I one per interval, FILE.i. */
static char *pprof_path(const struct perf_kmem *kmem, size_t i)
{
	char *path;

	if (!kmem->opts.interval)
		return strdup(kmem->pprof_name);
	return asprintf(&path, "%s.%zu", kmem->pprof_name, i) < 0 ? NULL : path;
}

/*
 * --pprof is the page analysis, in a file of its own.  Before the trace is
 * read: can the first profile be written?
 */
static int check_pprof(const struct perf_kmem *kmem)
{
	char *path = pprof_path(kmem, 0);
	struct kmem_output probe;
	int err;

	if (!kmem->opts.page)
		err = kmem_error("perf kmem: --pprof writes the page analysis: add --page\n");
	else if (kmem->json || kmem->folded || kmem->output_name)
		err = kmem_error("perf kmem: --pprof writes a file of its own: use it without --json, --folded and -o\n");
	else if (!path)
		err = kmem_error("perf kmem: cannot write %s: %s\n",
				 kmem->pprof_name, strerror(ENOMEM));
	else
		err = output_open(&probe, path);
	/* Not kept: what it wrote would be a profile of nothing. */
	if (!err)
		output_close(&probe, -EINVAL);
	free(path);
	return err;
}

/* What gives profile @i of a run, a recording's or a -b run's. */
typedef int (*pprof_view_fn)(void *run, size_t i, struct kmem_profile_view *v);

/* Profile @i, rendered by print-pprof.h, into @out, open. */
static int write_one_pprof(pprof_view_fn view, void *run, size_t i,
			   struct kmem_output *out)
{
	struct kmem_profile_view v;
	struct kmem_pprof *pp = NULL;
	int err = view(run, i, &v);

	if (!err) {
		pp = kmem_profile__pprof(v.profile, v.period, v.stacks, &v.config);
		err = pp ? kmem_pprof__write(pp, out->fp) : -ENOMEM;
	}
	kmem_pprof__delete(pp);
	output_flush(out);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing the profile %s\n", out->path);
	return err ?: -out->werr;
}

/*
 * --pprof: every profile under a name of its own, renamed when all are
 * written, so that a failed run leaves none of them behind.  A rename
 * that fails leaves the files not renamed yet unwritten.
 */
static int write_pprofs(const struct perf_kmem *kmem, size_t nr,
			pprof_view_fn view, void *run)
{
	struct kmem_output *outs = calloc(nr + 1, sizeof(*outs));
	char **paths = calloc(nr + 1, sizeof(*paths));
	int err = outs && paths ? 0 : -ENOMEM;
	size_t i, done = 0;

	for (i = 0; !err && i < nr; i++, done++) {
		paths[i] = pprof_path(kmem, i);
		err = paths[i] ? output_open(&outs[i], paths[i]) : -ENOMEM;
		if (!err)
			err = write_one_pprof(view, run, i, &outs[i]);
		else if (!paths[i])
			pr_err("perf kmem: out of memory writing the profiles\n");
	}
	for (i = 0; i < done; i++) {
		err = output_close(&outs[i], err);
		free(paths[i]);
	}
	if (!outs || !paths)
		pr_err("perf kmem: out of memory writing the profiles\n");
	free(paths);
	free(outs);
	return err;
}

static int run_profile(void *run, size_t i, struct kmem_profile_view *v)
{
	return kmem_run__profile(run, i, v);
}

/* Text goes to stdout: the pager, or for -o the file, through stdout. */
static int text_output(struct kmem_output *out)
{
	if (out->fp == stdout)
		setup_pager();
	else if (fflush(stdout) || dup2(fileno(out->fp), STDOUT_FILENO) < 0)
		return -errno;
	if (out->fp != stdout)
		fclose(out->fp);
	out->fp = stdout;
	return 0;
}

/*
 * The report in the format asked: JSON, CSV or text.  @run: a recording's,
 * whose allocator functions -v lists before the text, or NULL.
 */
static int print_report(const struct perf_kmem *kmem, struct kmem_run *run,
			const struct kmem_report *report,
			struct kmem_output *out)
{
	int err;

	if (kmem->json) {
		err = kmem_report__json(report, out->fp);
	} else if (kmem->field_sep) {
		err = kmem_report__csv(report, kmem->field_sep, out->fp);
	} else {
		err = text_output(out);
		if (err)
			return err;
		list_alloc_funcs(run);
		kmem_report__text(report);
	}
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing the results\n");
	return err;
}

static int print_results(struct kmem_input *in, struct kmem_output *out)
{
	struct kmem_report report;

	if (in->kmem->folded)
		return print_folded(in, out->fp);
	if (in->kmem->pprof_name && !kmem_run__info(in->run)->has_callchains)
		return pprof_needs_callchains(in);
	if (in->kmem->pprof_name)
		return write_pprofs(in->kmem, kmem_run__nr_profiles(in->run),
				    run_profile, in->run);
	kmem_run__report(in->run, &report);
	return print_report(in->kmem, in->run, &report, out);
}

/* -s for one analysis: its keys, or one line naming the unknown key. */
static int parse_keys(const char *what, enum kmem_report_table_id table,
		      const struct kmem_sort_keys *names,
		      struct kmem_report_sort *sort)
{
	struct kmem_sort_key keys[KMEM_MAX_SORT_KEYS];
	char bad[64], known[256];
	int nr;

	nr = kmem_table__parse_sort(&kmem_tables[table], names, keys, bad,
				    sizeof(bad));
	if (nr >= 0) {
		sort->names = names;
		return 0;
	}
	if (nr == -E2BIG)
		return kmem_error("perf kmem: too many sort keys for --%s: at most %d\n",
				  what, KMEM_MAX_SORT_KEYS);
	return kmem_error("perf kmem: unknown sort key '%s' for --%s: use %s\n", bad, what,
			  kmem_table__keys(&kmem_tables[table], known, sizeof(known)));
}

/* -s under --live: a key whose column --live leaves out sorts nothing. */
static int check_live_sort(const struct perf_kmem *kmem)
{
	const struct kmem_table *t = &kmem_tables[KMEM_PAGE_CALLERS];
	const struct kmem_sort_keys *keys = &kmem->page_names;
	int i;

	for (i = 0; kmem->opts.live && kmem->sort_str && i < keys->nr; i++) {
		const struct kmem_column *col;

		col = kmem_table__column(t, keys->name[i], keys->len[i]);
		if (col && kmem_column__hidden_by_live(col))
			return kmem_error("perf kmem: -s %.*s sorts by the %s column, which --live leaves out\n",
					  (int)keys->len[i], keys->name[i], col->header);
	}
	return 0;
}

/*
 * The tables of an analysis that -s sorts and the output shows: the
 * --caller ones (also without --caller or --alloc), the --alloc one.
 */
static unsigned int sorted_tables(const struct perf_kmem *kmem, bool slab)
{
	const struct kmem_run_config *o = &kmem->opts;
	unsigned int tables = 0;

	if (o->caller || !o->alloc)
		tables |= slab ? KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CALLER) |
				 KMEM_TABLE_BIT(KMEM_SLAB_TABLE_CACHE) :
				 KMEM_TABLE_BIT(KMEM_PAGE_TABLE_CALLER);
	if (o->alloc)
		tables |= KMEM_TABLE_BIT(slab ? KMEM_SLAB_TABLE_ALLOC :
					 KMEM_PAGE_TABLE_ALLOC);
	return tables;
}

/*
 * -s of a column that only the table not shown has (page and ptr are
 * --alloc's, cache --caller's) sorts nothing: say what the tables shown
 * take.  Folded stacks and profiles sort no table (check_folded()).
 */
static int check_shown_sort(const struct perf_kmem *kmem)
{
	const struct kmem_sort_keys *keys = &kmem->page_names;
	char known[256];
	int slab, i;

	if (!kmem->sort_str || kmem->folded || kmem->pprof_name)
		return 0;
	for (slab = 0; slab < 2; slab++) {
		const struct kmem_table *t = &kmem_tables[slab ? KMEM_SLAB_CALLERS :
							     KMEM_PAGE_CALLERS];
		unsigned int shown = sorted_tables(kmem, slab);
		bool caller = kmem->opts.caller || !kmem->opts.alloc;

		if (!(slab ? kmem->opts.slab : kmem->opts.page))
			continue;
		for (i = 0; i < keys->nr; i++) {
			const struct kmem_column *col;

			col = kmem_table__column(t, keys->name[i], keys->len[i]);
			if (!col || (col->tables & shown))
				continue;
			return kmem_error("perf kmem: sort key '%.*s' sorts only the rows of --%s: the --%s table%s of --%s take%s %s\n",
					  (int)keys->len[i], keys->name[i],
					  caller ? "alloc" : "caller",
					  caller ? "caller" : "alloc",
					  caller && slab ? "s" : "",
					  slab ? "slab" : "page",
					  caller && slab ? "" : "s",
					  kmem_table__keys_in(t, shown, known,
							      sizeof(known)));
		}
	}
	return 0;
}

/*
 * -x: the tables as CSV, as perf lock contention -x writes them; one
 * format at a time, as perf stat takes -x or -j, and a separator that
 * no cell holds.
 */
static int check_csv(struct perf_kmem *kmem)
{
	const char *other = kmem->json ? "--json" :
			    kmem->pprof_name ? "--pprof" :
			    kmem->folded ? "--folded" : NULL;

	if (!kmem->field_sep)
		return 0;
	if (!strcmp(kmem->field_sep, "\\t"))
		kmem->field_sep = "\t";
	if (other)
		return kmem_error("perf kmem: -x and %s are two output formats: use one of them\n",
				  other);
	if (kmem->interval_str)
		return kmem_error("perf kmem: -x prints the tables, not the intervals of -I: use -I without -x\n");
	if (!kmem_csv__sep_ok(kmem->field_sep))
		return kmem_error("perf kmem: -x '%s': a separator cannot hold '|', '+', '.' or ':', which the cells hold (GFP flags, callsite offsets, symbol names, percentages)\n",
				  kmem->field_sep);
	return 0;
}

/*
 * --folded: a weight it knows, of the page analysis, and what it does not
 * do: one line, not an option ignored.  -b keeps no fallbacks' chains,
 * and lets the table options be.
 */
static int check_folded(const struct perf_kmem *kmem)
{
	const char *folded = kmem->folded;
	bool stall = folded && !strcmp(folded, "stall");
	bool known = folded && (!strcmp(folded, "bytes") ||
				!strcmp(folded, "hits") || stall ||
				(!kmem->use_bpf && folded_fallbacks(folded)));
	const char *opt = kmem->opts.alloc ? "--alloc" :
			  kmem->opts.caller ? "--caller" :
			  kmem->interval_str ? "-I" :
			  kmem->sort_str ? "-s" :
			  kmem->lines_str ? "-l" :
			  kmem->opts.raw_ip ? "--raw-ip" : NULL;

	if (!folded)
		return 0;
	if (kmem->json)
		return kmem_error("perf kmem: --folded and --json are two output formats: use one of them\n");
	if (!kmem->opts.page)
		return kmem_error("perf kmem: --folded writes the page analysis: add --page\n");
	if (kmem->use_bpf && kmem->opts.slab)
		return kmem_error("perf kmem: --folded with -b writes the page analysis: use it without --slab\n");
	if (!known && kmem->use_bpf)
		return kmem_error("perf kmem: --folded=%s: the weights of -b are bytes, hits and stall\n",
				  folded);
	if (!known)
		return kmem_error("perf kmem: --folded=%s: the weights are bytes, hits, stall, fallbacks and fragmenting\n",
				  folded);
	if (kmem->opts.live && (stall || folded_fallbacks(folded)))
		return kmem_error("perf kmem: --folded=%s weighs %s, which --live has no part in\n",
				  folded, stall ? "stalls" : "fallbacks");
	if (!opt)
		return 0;
	return kmem_error("perf kmem: --folded takes no %s: it writes the stacks of all the allocations, for flame graphs\n",
			  opt);
}

/*
 * -s '' and -s bytes, were taken, as no key and as bytes: an empty key is
 * a typo, or a key lost to the shell.
 */
static int check_sort_syntax(const struct perf_kmem *kmem)
{
	const struct kmem_sort_keys *keys = &kmem->page_names;
	bool empty = kmem->sort_str && !keys->nr;
	int i;

	for (i = 0; kmem->sort_str && i < keys->nr; i++)
		empty |= !keys->len[i];
	if (empty)
		return kmem_error("perf kmem: invalid -s '%s': a sort key is empty: use key[,key...]\n",
				  kmem->sort_str);
	return 0;
}

/* Before reading a trace that may take a while: are the sort keys known? */
static int parse_sort_keys(struct perf_kmem *kmem)
{
	struct kmem_run_config *o = &kmem->opts;

	if (check_sort_syntax(kmem))
		return -EINVAL;

	if (kmem_sort__task_key(&kmem->page_names, &o->tasks.key))
		return kmem_error("perf kmem: -s takes one of pid and comm\n");
	if (o->page &&
	    parse_keys("page", KMEM_PAGE_CALLERS, &kmem->page_names,
		       &o->page_sort))
		return -EINVAL;
	if (o->slab &&
	    parse_keys("slab", KMEM_SLAB_CALLERS, &kmem->slab_names,
		       &o->slab_sort))
		return -EINVAL;
	return 0;
}

/* --- the map of physical memory ------------------------------------- */

/*
 * --map's file: one named .svg, or without a suffix (/dev/stdout); not
 * SVG under a .png name.
 */
static bool svg_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');

	return !dot || dot == base || !strcasecmp(dot, ".svg");
}

/* --map: the map needs the pageblock order, and one it can draw. */
static int check_map_order(struct kmem_input *in)
{
	const struct kmem_trace_info *info = kmem_run__info(in->run);

	if (!kmem_frag__has_classes(kmem_run__frag(in->run)))
		return kmem_error("perf kmem: --map needs the pageblock order: %s; --pageblock-order N gives it\n",
				  info->pageblock_why);
	if (info->pageblock_order > KMEM_MAP_MAX_ORDER)
		return kmem_error("perf kmem: --map draws pageblocks of order %d at most, not %d\n",
				  KMEM_MAP_MAX_ORDER, info->pageblock_order);
	return 0;
}

static void add_node_range(int node, u64 start, u64 end, void *arg)
{
	kmem_map__add_node_range(arg, node, start, end);
}

/* A pageblock of the fallback analysis, as the map draws it. */
static int add_map_block(struct kmem_run *run, struct kmem_map *map,
			 const struct kmem_frag_pageblock *pb)
{
	char name[KSYM_NAME_LEN + 32];
	struct kmem_map_block b = {
		.pfn = pb->pfn,
		.fallbacks = pb->fallbacks[KMEM_FRAG_CLAIMED] +
			     pb->fallbacks[KMEM_FRAG_CONVERTED] +
			     pb->fallbacks[KMEM_FRAG_POLLUTED],
		.remote_frees = pb->remote_frees,
		.pinning = pb->pinning,
		.node = kmem_decoder__page_node(kmem_run__decoder(run), pb->pfn),
	};

	memcpy(b.allocs, pb->allocs, sizeof(b.allocs));
	/* An address the kernel's symbols do not name is left unnamed. */
	if (pb->main_callsite) {
		callsite_resolver__name(kmem_run__resolver(run), pb->main_callsite,
					false, name, sizeof(name));
		if (strncmp(name, "0x", 2))
			b.top_callsite = name;
	}
	return kmem_map__add_block(map, &b);
}

/*
 * Each pageblock the trace allocated into, the trace's node ranges and,
 * with several nodes, the bytes allocated on one and freed on another.
 */
static int fill_map(struct kmem_run *run, struct kmem_map *map)
{
	const struct kmem_frag_pageblock *blocks;
	struct kmem_decoder *dec = kmem_run__decoder(run);
	int from, to, nodes = kmem_run__info(run)->nr_nodes;
	size_t i, nr;
	int err;

	blocks = kmem_frag__pageblocks(kmem_run__frag(run), &nr);
	for (i = 0; i < nr; i++) {
		err = add_map_block(run, map, &blocks[i]);
		if (err)
			return err;
	}
	kmem_decoder__node_ranges(dec, add_node_range, map);
	for (from = 0; kmem_decoder__nr_trace_nodes(dec) > 1 &&
	     from < nodes && nodes <= KMEM_PAGE_MAX_NODES; from++)
		for (to = 0; to < nodes; to++)
			kmem_map__set_xnode_bytes(map, from, to,
						  kmem_page__node_matrix(kmem_run__page(run),
									 from, to));
	return 0;
}

/* --map: the pageblocks the trace allocated into, as an SVG picture. */
static int write_map(struct kmem_input *in, struct kmem_output *out)
{
	const struct kmem_trace_info *info = kmem_run__info(in->run);
	struct kmem_map *map;
	char title[PATH_MAX + 100];
	size_t nr = 0;
	int err;

	if (check_map_order(in))
		return -EINVAL;
	kmem_frag__pageblocks(kmem_run__frag(in->run), &nr);
	if (!nr)
		return kmem_error("perf kmem: --map: %s has no page allocation to draw\n",
				  in->path);
	snprintf(title, sizeof(title), "perf kmem: %s, kernel %s", in->path,
		 in->session->header.env.os_release ?: "unknown");
	map = kmem_map__new(&(struct kmem_map_config){
		.title = title,
		.pageblock_order = info->pageblock_order,
		.page_size = info->page_size,
	});
	if (!map)
		return -ENOMEM;
	err = fill_map(in->run, map);
	if (!err)
		err = kmem_map__write(map, out->fp);
	kmem_map__delete(map);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory drawing the map\n");
	return err;
}

/*
 * Where perf's reader stopped, and what the analysis covers: a line.  How
 * far into a file's data section, or of a pipe or a directory (perf record
 * --threads), after how many of the records it counted, the one it
 * stopped at included or not.
 */
static void stop_line(struct kmem_input *in, char *buf, size_t size)
{
	u64 nr_events = kmem_run__stats(in->run)->nr_events;
	u64 nr = in->session->evlist->stats.nr_events[0];
	bool cut = ended_inside_record(in);
	const char *path = in->path;
	char where[128];

	/* The record it stopped at is counted, unless the input ended in it. */
	if (perf_data__is_pipe(&in->data) || perf_data__is_dir(&in->data))
		snprintf(where, sizeof(where), "after %s records",
			 COMMAS(cut || !nr ? nr : nr - 1));
	else
		snprintf(where, sizeof(where), "after %s of its %s bytes of events",
			 COMMAS(in->session->data_read),
			 COMMAS(in->session->header.data_size));
	if (!nr_events)
		snprintf(buf, size, "perf kmem: cannot read %s: %s %s, before any kmem event",
			 path, cut ? "it ends inside a record" : "corrupt data", where);
	else
		snprintf(buf, size, "perf kmem: %s %s %s: the analysis covers the %s events before",
			 path, cut ? "ends inside a record" : "is corrupt", where,
			 COMMAS(nr_events));
}

static int report_stop(struct kmem_input *in)
{
	char line[PATH_MAX + 200];

	stop_line(in, line, sizeof(line));
	return kmem_error("%s\n", line);
}

/*
 * A number option in [@min, @max], if given: parse-options' OPT_INTEGER
 * would take 4294967297 as 1.
 */
static int parse_int_arg(const char *opt, const char *str, int min, int max,
			 int *val)
{
	char *end;
	long v;

	if (!str)
		return 0;
	errno = 0;
	v = strtol(str, &end, 10);
	if (errno || end == str || *end || v < min || v > max)
		return kmem_error("perf kmem: invalid %s '%s': use %d to %d\n", opt, str,
				  min, max);
	*val = v;
	return 0;
}

/* Does @head begin as /proc/kallsyms lines do: "ffffffff81000000 T _text"? */
static bool kallsyms_line(const char *head)
{
	size_t n = strspn(head, "0123456789abcdefABCDEF");

	return n && head[n] == ' ' && isalpha(head[n + 1]) &&
	       head[n + 2] == ' ' && head[n + 3] > ' ';
}

static const char not_kallsyms[] =
	"not a kallsyms file: its first line is not 'address type symbol'";

static bool elf_file(const char *head)
{
	return !memcmp(head, "\177ELF", 4);
}

/*
 * --kallsyms and --vmlinux: a file that can be read, of the kind, by its
 * first bytes.  Of another, perf's loader finds no symbol, and every
 * callsite would be an address, blamed on the build-id cache.
 */
static int check_symbols_file(const char *opt, const char *path,
			      bool (*of_kind)(const char *head),
			      const char *kind)
{
	char head[64] = "";
	FILE *fp;

	if (!path)
		return 0;
	fp = fopen(path, "r");
	if (!fp)
		return kmem_error("perf kmem: cannot read %s %s: %s\n", opt, path,
				  strerror(errno));
	if (!fgets(head, sizeof(head), fp))
		head[0] = '\0';
	fclose(fp);
	if (!of_kind(head))
		return kmem_error("perf kmem: cannot use %s %s: %s\n", opt, path,
				  kind);
	return 0;
}

/*
 * A --kallsyms or --vmlinux of the right kind gave no symbol for any
 * callsite: it is not the recording kernel's.  Name it, and say why.
 */
static int report_unused_symbols(struct kmem_input *in)
{
	const char *kallsyms = symbol_conf.kallsyms_name;
	const char *vmlinux = symbol_conf.vmlinux_name;
	char why[PATH_MAX + 100] = "none of its symbols covers a callsite";
	const char *bid = kmem_run__kernel_build_id(in->run);
	char file_bid[SBUILD_ID_SIZE];
	struct kmem_kallsyms *ks;
	struct build_id id;

	if (kallsyms) {
		ks = kmem_kallsyms__read(kallsyms, why, sizeof(why));
		kmem_kallsyms__delete(ks);
		if (!ks)
			return kmem_error("perf kmem: cannot use --kallsyms %s\n", why);
		return kmem_error("perf kmem: no symbol of --kallsyms %s covers a callsite of %s: it is another kernel's\n",
				  kallsyms, in->path);
	}
	if (bid && filename__read_build_id(vmlinux, &id) > 0) {
		build_id__sprintf(&id, file_bid);
		if (strcmp(file_bid, bid))
			snprintf(why, sizeof(why), "its build-id is %s, the recording kernel's %s",
				 file_bid, bid);
	}
	return kmem_error("perf kmem: no symbol of --vmlinux %s covers a callsite of %s: %s\n",
			  vmlinux, in->path, why);
}

/* Kernel addresses, and no symbol for any of them: say why, or where to look. */
static int check_kernel_symbols(struct kmem_input *in)
{
	struct callsite_resolver *resolver = kmem_run__resolver(in->run);

	if (!resolver || !callsite_resolver__named_none(resolver))
		return 0;
	if (symbol_conf.kallsyms_name || symbol_conf.vmlinux_name)
		return report_unused_symbols(in);
	/* Which kernel's symbols were looked for, where, how to get them. */
	if (!in->kmem->diff)
		pr_warning("perf kmem: no symbols of the recording kernel (%s, build-id %s) in the build-id cache %s or /proc/kallsyms: callsites are unresolved; give that kernel's --kallsyms or --vmlinux, or run perf archive where it was recorded\n",
			   in->session->header.env.os_release ?: "release unknown",
			   kmem_run__kernel_build_id(in->run) ?: "unknown", buildid_dir);
	else
		pr_warning("perf kmem: no kernel symbols of the kernel that recorded %s: its callsites are addresses, which match no other boot's; give its --kallsyms or --vmlinux\n",
			   in->path);
	return 0;
}

/* --pid, --tid and --comm that chose no allocation: nothing to show. */
static int check_task_allocated(struct kmem_input *in)
{
	const struct kmem_page_summary *s;

	s = kmem_page__summary(kmem_run__page(in->run));
	if (s->alloc.nr || s->fail.nr)
		return 0;
	return kmem_error("perf kmem: no page allocation in %s of the tasks of%s%s%s%s%s%s\n",
			  in->path,
			  symbol_conf.pid_list_str ? " --pid " : "",
			  symbol_conf.pid_list_str ?: "",
			  symbol_conf.tid_list_str ? " --tid " : "",
			  symbol_conf.tid_list_str ?: "",
			  symbol_conf.comm_list_str ? " --comm " : "",
			  symbol_conf.comm_list_str ?: "");
}

/* A --time span the trace's events are all outside of: say so. */
static int check_time_window(struct kmem_input *in)
{
	const struct kmem_run_stats *stats = kmem_run__stats(in->run);
	char first[32], last[32];

	if (stats->nr_events || !stats->nr_outside_time)
		return 0;
	timestamp__scnprintf_usec(stats->first_outside, first, sizeof(first));
	timestamp__scnprintf_usec(stats->last_outside, last, sizeof(last));
	if (in->kmem->diff)
		return kmem_error("perf kmem: no kmem event of %s in --time %s: its events are from %s to %s\n",
				  in->path, in->kmem->opts.time_window, first, last);
	return kmem_error("perf kmem: no kmem event in --time %s: the trace's are from %s to %s\n",
			  in->kmem->opts.time_window, first, last);
}

/* Page events and no slab event; a pipe has none before its records. */
static bool only_page_events(struct perf_session *session)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(slab_tracepoints); i++)
		if (evlist__find_tracepoint_by_name(session->evlist,
						    slab_tracepoints[i]))
			return false;
	return evlist__find_tracepoint_by_name(session->evlist,
					       "kmem:mm_page_alloc");
}

/*
 * Without --page, --slab or kmem.default: the page allocator's analysis
 * where the input has only page events, else slab's (already chosen), as
 * perf kmem always did.  A pipe has no events before its records: slab.
 */
static void choose_page_analysis(struct perf_kmem *kmem, bool only_page)
{
	if (!kmem->mode_from_trace || !only_page)
		return;
	kmem->opts.slab = false;
	kmem->opts.page = true;
}

/*
 * perf report's shares of the trace's span, "10%/2" or "0%-10%,50%-60%",
 * in a span of 1 s: the run takes them of each trace's own.
 */
static bool time_shares(const char *str)
{
	struct perf_time_interval *ranges;
	int size, nr;

	if (!strchr(str, '%'))
		return false;
	ranges = perf_time__range_alloc(str, &size);
	nr = ranges ? perf_time__percent_parse_str(ranges, size, str, 1,
						   1000000001) : -1;
	free(ranges);
	return nr > 0;
}

static int parse_time(struct perf_kmem *kmem)
{
	const char *str = kmem->opts.time_window;

	if (!str || time_shares(str) ||
	    (!strchr(str, '%') && !perf_time__parse_str(&kmem->opts.ptime, str)))
		return 0;
	return kmem_error("perf kmem: invalid --time '%s': use start,stop in seconds, or shares of the trace's time as perf report takes them (10%%/2, 0%%-10%%)\n",
			  str);
}

/* What the analyses take that is not the value of one option. */
static void set_derived_options(struct perf_kmem *kmem)
{
	struct kmem_run_config *o = &kmem->opts;

	o->folded = kmem->folded;
	o->folded_stall = kmem->folded && !strcmp(kmem->folded, "stall");
	o->folded_fallbacks = folded_fallbacks(kmem->folded);
	o->folded_fragmenting = kmem->folded &&
				!strcmp(kmem->folded, "fragmenting");
	o->pprof = kmem->pprof_name;
	/* A profile of chosen tasks says which task allocated. */
	if (o->pprof && o->task_filter && o->tasks.key == KMEM_TASK_NONE)
		o->tasks.key = KMEM_TASK_PID;
	/* Only the tasks' keys and filters need perf to follow the tasks. */
	o->follow_tasks = o->tasks.key != KMEM_TASK_NONE || o->task_filter;
	o->interval_callers = !o->caller ? 0 : o->lines >= 0 ? o->lines :
			      DEFAULT_INTERVAL_CALLERS;
	o->kallsyms = symbol_conf.kallsyms_name;
	o->vmlinux = symbol_conf.vmlinux_name;
}

/*
 * --pid and --tid: decimal ids, each a number.  perf's list reader takes
 * "-5" as a pid and says what it refuses only with -v.
 */
static int check_task_ids(const char *opt, const char *what,
			  const char *list)
{
	const char *p = list;

	while (p) {
		size_t len = strcspn(p, ",");
		size_t digits = strspn(p, "0123456789");

		errno = 0;
		if (!len || digits != len || strtol(p, NULL, 10) > INT_MAX ||
		    errno)
			return kmem_error("perf kmem: invalid %s '%s': '%.*s' is not a %s id: use %s[,%s...]\n",
					  opt, list, (int)len, p, what, opt + 2, opt + 2);
		p = p[len] ? p + len + 1 : NULL;
	}
	return 0;
}

/*
 * What only the page analysis uses, without it: one line, not an option
 * ignored.  The slab events name their callsite: no callchain to walk
 * past the allocator's functions.
 */
static int check_page_only(const struct perf_kmem *kmem)
{
	const char *opt = kmem->interval_str ? "-I" :
			  kmem->opts.alloc_regex ? "--alloc-func" :
			  kmem->opts.alloc_regex_add ? "--alloc-func-add" :
			  kmem->pageblock_order_str ? "--pageblock-order" : NULL;

	if (!opt || kmem->opts.page)
		return 0;
	return kmem_error("perf kmem: %s is for the page analysis: use --page\n", opt);
}

/* -l, --pageblock-order and --pid, --tid, the symbol files, before any trace is read. */
static int check_options(struct perf_kmem *kmem)
{
	int ms = 0;

	/* -l 0 would print the tables' headers over no row. */
	if (parse_int_arg("-l", kmem->lines_str, 1, INT_MAX, &kmem->opts.lines) ||
	    parse_int_arg("-I", kmem->interval_str, 1, INT_MAX, &ms) ||
	    check_page_only(kmem))
		return -EINVAL;
	kmem->opts.interval = ms * 1000000ULL;
	if (parse_int_arg("--pageblock-order", kmem->pageblock_order_str, 0,
			  KMEM_PAGE_MAX_ORDER, &kmem->opts.pageblock_order))
		return -EINVAL;
	if (kmem->opts.live && (kmem->opts.slab || !kmem->opts.page))
		return kmem_error("perf kmem: --live is for the page analysis: use --page without --slab\n");
	if (check_task_ids("--pid", "process", symbol_conf.pid_list_str) ||
	    check_task_ids("--tid", "thread", symbol_conf.tid_list_str))
		return -EINVAL;
	if (check_symbols_file("--kallsyms", symbol_conf.kallsyms_name,
			       kallsyms_line, not_kallsyms) ||
	    check_symbols_file("--vmlinux", symbol_conf.vmlinux_name,
			       elf_file, "not an ELF file"))
		return -EINVAL;
	set_derived_options(kmem);
	return 0;
}

/*
 * What only a count in the kernel takes, given to a command that reads
 * a trace: one line, not an option ignored.
 */
static int check_bpf_only(const struct perf_kmem *kmem)
{
	const char *opt = kmem->bpf.system_wide ? "-a" :
			  kmem->bpf.cgroup ? "--cgroup" :
			  kmem->sample_bytes_str ? "--sample-bytes" :
			  kmem->bpf.exact_live ? "--exact-live" :
			  kmem->map_entries_str ? "-M" :
			  kmem->max_stack_str ? "--max-stack" : NULL;

	if (kmem->include_perf)
		return kmem_error("perf kmem: --include-perf is for record and stat -b: a trace has perf's own allocations if recorded with it\n");
	if (!opt)
		return 0;
	return kmem_error("perf kmem: %s is for stat -b, counting in the kernel, not for reading a trace\n",
			  opt);
}

static bool task_filter(void)
{
	return symbol_conf.pid_list_str || symbol_conf.tid_list_str ||
	       symbol_conf.comm_list_str;
}

/* --pid, --tid and --comm: tasks of the page analysis. */
static int check_task_filter(struct perf_kmem *kmem)
{
	kmem->opts.task_filter = task_filter();
	if (kmem->opts.task_filter && (kmem->opts.slab || !kmem->opts.page))
		return kmem_error("perf kmem: --pid, --tid and --comm are for the page analysis: use --page without --slab\n");
	return 0;
}

/*
 * A thread still allocates after its EXIT record (exit_mmap() takes
 * pages for the TLB batches): keep exited threads, as perf report
 * does, so that those allocations keep the thread's pid and name.
 */
static void keep_exited_threads(const struct perf_kmem *kmem)
{
	if (kmem->opts.follow_tasks)
		symbol_conf.keep_exited_threads = true;
}

/* stat's options, against each other and the analyses chosen. */
static int check_stat_options(struct perf_kmem *kmem)
{
	if (parse_time(kmem) || parse_sort_keys(kmem) ||
	    check_task_filter(kmem))
		return -EINVAL;
	if (kmem->map_name && !kmem->opts.page)
		return kmem_error("perf kmem: --map draws the page analysis: add --page\n");
	if (kmem->map_name && !svg_name(kmem->map_name))
		return kmem_error("perf kmem: --map writes SVG, which %s does not name: use a .svg name\n",
				  kmem->map_name);
	if (check_csv(kmem) || check_folded(kmem) || check_live_sort(kmem) ||
	    check_shown_sort(kmem) || check_options(kmem) ||
	    (kmem->pprof_name && check_pprof(kmem)))
		return -EINVAL;
	keep_exited_threads(kmem);
	return 0;
}

/*
 * stat's trace, open, its analyses chosen and set up, and its outputs
 * open: what the options ask is checked against what the trace has
 * before its events are read.  NULL: one line said why not.
 */
static struct kmem_input *stat_input(struct perf_kmem *kmem,
				     struct kmem_output *out,
				     struct kmem_output *map)
{
	struct kmem_input *in = kmem_input__open(kmem, kmem->input_name);
	int err;

	if (!in)
		return NULL;
	choose_page_analysis(kmem, only_page_events(in->session));
	err = check_stat_options(kmem);
	/* An output that cannot be written is found before the trace is read. */
	if (!err)
		err = output_open(out, kmem->output_name);
	if (!err && kmem->map_name)
		err = output_open(map, kmem->map_name);
	if (!err)
		err = kmem_input__setup(in);
	/* A file's pageblock order is known before its events are read. */
	if (!err && kmem->map_name && in->set_up)
		err = check_map_order(in);
	if (!err)
		return in;
	kmem_input__delete(in);
	output_close(map, err);
	output_close(out, err);
	return NULL;
}

static int kmem_stat(struct perf_kmem *kmem)
{
	struct kmem_output out = { .fp = NULL }, map = { .fp = NULL };
	struct kmem_input *in;
	struct stat st;
	bool stopped, analysed;
	int err;

	if (check_bpf_only(kmem))
		return -EINVAL;
	/* As perf report: without -i, a pipe on standard input is the input. */
	if (!kmem->input_name || !*kmem->input_name)
		kmem->input_name = !fstat(STDIN_FILENO, &st) &&
				   S_ISFIFO(st.st_mode) ? "-" : "perf.data";
	in = stat_input(kmem, &out, &map);
	if (!in)
		return -EINVAL;
	err = kmem_input__read(in, &stopped);
	if (!err)
		err = check_time_window(in);
	if (!err && kmem->opts.task_filter)
		err = check_task_allocated(in);
	if (!err)
		err = check_kernel_symbols(in);
	if (!err && kmem_run__info(in->run)->sampled[0])
		pr_warning("perf kmem: %s: counts are of sampled events, and allocations and frees cannot be paired\n",
			   kmem_run__info(in->run)->sampled);
	/* Of a trace perf's reader stopped in: what came before, if any. */
	analysed = !stopped || kmem_run__stats(in->run)->nr_events;
	if (!err && analysed)
		err = print_results(in, &out);
	/*
	 * What follows on stderr (the map's errors, where the reader
	 * stopped) comes after the results, also where the two are one
	 * pipe (2>&1 | less).
	 */
	output_flush(&out);
	if (!err && kmem->map_name && analysed)
		err = write_map(in, &map);
	if (kmem->map_name)
		err = output_close(&map, err);
	if (!err && stopped)
		err = report_stop(in);
	kmem_input__delete(in);
	return output_close(&out, err);
}

/* --- perf kmem stat -b: counted in the kernel ------------------------ */

#ifdef HAVE_BPF_SKEL

/* What a recording has and a count in the kernel has not: one line each. */
static const char *bpf_unsupported(const struct perf_kmem *kmem)
{
	enum kmem_task_key key = KMEM_TASK_NONE;

	/* -s is parsed after: its pid or comm key is not in opts yet. */
	if (kmem_sort__task_key(&kmem->page_names, &key))
		key = KMEM_TASK_PID;
	if (kmem->input_name)
		return "-i: stat -b counts in the running kernel, it reads no perf.data";
	if (kmem->opts.alloc)
		return "--alloc: stat -b keeps no row per page";
	if (kmem->map_name)
		return "--map: stat -b keeps no pageblock callsites";
	if (kmem->opts.time_window)
		return "--time: stat -b counts from its start to its end";
	if (symbol_conf.comm_list_str || key != KMEM_TASK_NONE)
		return "--comm, -s pid and -s comm: stat -b keeps no task of each allocation";
	if (symbol_conf.kallsyms_name || symbol_conf.vmlinux_name)
		return "--kallsyms, --vmlinux: stat -b names callsites with /proc/kallsyms";
	return NULL;
}

/* Option @opt's number, K or M suffixed, into @val unless not given. */
static int bpf_number(const char *opt, const char *str, u64 min, u64 max,
		      u64 *val)
{
	char *end;

	if (!str)
		return 0;
	errno = 0;
	*val = strtoull(str, &end, 0);
	if (!errno && end != str && *str != '-' && *val >= min && *val <= max) {
		if (*end == 'K' || *end == 'k')
			*val <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			*val <<= 20, end++;
		if (!*end && *val >= min && *val <= max)
			return 0;
	}
	return kmem_error("perf kmem: invalid %s '%s': use a number from %" PRIu64 " to %" PRIu64 "\n",
			  opt, str, min, max);
}

static int bpf_options(struct perf_kmem *kmem, int argc)
{
	struct kmem_bpf_config *c = &kmem->bpf;
	const char *why = bpf_unsupported(kmem);
	int targets = c->system_wide + !!c->cgroup +
		      !!(symbol_conf.pid_list_str || symbol_conf.tid_list_str);
	u64 max_stack = KMEM_BPF_MAX_STACK_DEFAULT, entries = 0;

	if (why)
		return kmem_error("perf kmem: %s\n", why);
	if (check_folded(kmem))
		return -EINVAL;
	if (targets > 1 || (!targets && !argc))
		return kmem_error("perf kmem: stat -b counts the tasks of one of -a, -p PID, --tid TID and --cgroup CG, or without them of -- CMD\n");
	c->sample_bytes = KMEM_BPF_SAMPLE_BYTES;
	if (bpf_number("--sample-bytes", kmem->sample_bytes_str, 1, 1ULL << 40,
		       &c->sample_bytes) ||
	    bpf_number("--max-stack", kmem->max_stack_str, 1, 127, &max_stack) ||
	    bpf_number("-M", kmem->map_entries_str, 1, 1 << 24, &entries))
		return -EINVAL;
	c->max_stack = max_stack;
	c->map_entries = entries;
	/* Without --page or --slab: the page allocator. */
	choose_page_analysis(kmem, true);
	if (check_options(kmem) || check_csv(kmem) || parse_sort_keys(kmem) ||
	    check_shown_sort(kmem) || (kmem->pprof_name && check_pprof(kmem)))
		return -EINVAL;
	c->stat = kmem->opts;
	c->tasks = !c->system_wide && !c->cgroup;
	c->include_perf = kmem->include_perf;
	return 0;
}

/* Are all the tasks of -p or --tid gone? */
static bool bpf_targets_gone(struct perf_thread_map *threads)
{
	int i;

	if (!threads)
		return false;
	for (i = 0; i < perf_thread_map__nr(threads); i++)
		if (!kill(perf_thread_map__pid(threads, i), 0) || errno != ESRCH)
			return false;
	return true;
}

/* -p, --tid: their threads now; the kernel follows what they fork. */
static int bpf_add_targets(struct kmem_bpf_run *run, struct perf_thread_map **threads)
{
	int i, err;

	if (!symbol_conf.pid_list_str && !symbol_conf.tid_list_str)
		return 0;
	*threads = thread_map__new_str(symbol_conf.pid_list_str,
				       symbol_conf.tid_list_str, UINT_MAX, false);
	/* A --tid map is made of the numbers as given, tasks or not. */
	if (!*threads || !perf_thread_map__nr(*threads) || bpf_targets_gone(*threads))
		return kmem_error("perf kmem: no such task: %s %s\n",
				  symbol_conf.pid_list_str ? "-p" : "--tid",
				  symbol_conf.pid_list_str ?: symbol_conf.tid_list_str);
	for (i = 0; i < perf_thread_map__nr(*threads); i++) {
		err = kmem_bpf_run__add_task(run, perf_thread_map__pid(*threads, i));
		if (err) {
			pr_err("perf kmem: cannot follow task %d: %s\n",
			       perf_thread_map__pid(*threads, i), strerror(-err));
			return err;
		}
	}
	return 0;
}

/* bpf_wait(): the workload could not be run. */
#define BPF_EXEC_FAILED	1

/* How often the end of -p and --tid targets is looked for, without -I. */
#define BPF_POLL_NS	100000000ULL

/*
 * Wait for a stop signal until @deadline (CLOCK_MONOTONIC ns): the signal,
 * or 0 if none came.  Ticks are kept to deadlines a period apart, not to
 * a period after the work of the tick before, so that -I does not drift.
 */
static int bpf_wait_until(const sigset_t *stop, u64 deadline, siginfo_t *info)
{
	for (;;) {
		u64 now = rdclock(), left = deadline > now ? deadline - now : 0;
		struct timespec ts = { left / NSEC_PER_SEC, left % NSEC_PER_SEC };
		int sig = sigtimedwait(stop, info, &ts);

		if (sig > 0)
			return sig;
		if (errno != EINTR)
			return 0;
	}
}

/*
 * -I's lines of a count in the kernel go to the terminal as each interval
 * ends; JSON and a file of -o have them in the report instead, with the
 * rest of the results.
 */
static bool live_intervals(const struct perf_kmem *kmem)
{
	return !kmem->json && !kmem->output_name;
}

/*
 * Until Ctrl-C, the workload's end or the targets', an -I tick at a
 * time.  The signals are blocked and waited for: no handler, no flag.
 */
static int bpf_wait(struct perf_kmem *kmem, struct kmem_bpf_run *run,
		    struct perf_thread_map *threads, const sigset_t *stop,
		    size_t *printed, int *exec_errno)
{
	u64 tick = kmem->opts.interval ?: BPF_POLL_NS;
	u64 deadline = rdclock() + tick;
	int err = 0, sig;
	siginfo_t info;

	/* Each tick also takes in the stall events the ring holds. */
	while (!err && !(sig = bpf_wait_until(stop, deadline, &info))) {
		/* A tick later than a period skips the deadlines it missed. */
		do {
			deadline += tick;
		} while (deadline <= rdclock());
		err = kmem_bpf_run__tick(run);
		if (!err && kmem->opts.interval && live_intervals(kmem))
			*printed = kmem_print__interval_lines(kmem_bpf_run__intervals(run),
							      *printed);
		if (bpf_targets_gone(threads))
			break;
	}
	/* The workload's exec failed: its errno, sigqueue()d. */
	if (!err && sig == SIGUSR1 && info.si_code == SI_QUEUE) {
		*exec_errno = info.si_value.sival_int;
		return BPF_EXEC_FAILED;
	}
	return err;
}

static int bpf_profile(void *run, size_t i, struct kmem_profile_view *v)
{
	return kmem_bpf_run__profile(run, i, v);
}

static int bpf_print(struct perf_kmem *kmem, struct kmem_bpf_run *run)
{
	struct kmem_output out;
	struct kmem_report report;
	int err = output_open(&out, kmem->output_name);

	if (err)
		return err;
	if (kmem->folded)
		return output_close(&out, kmem_bpf_run__write_folded(run,
					folded_weight(kmem->folded), out.fp));
	/* --pprof: one profile, or with -I one per interval, as stat's. */
	if (kmem->pprof_name)
		return output_close(&out, write_pprofs(kmem, kmem_bpf_run__nr_profiles(run),
						       bpf_profile, run));
	err = kmem_bpf_run__report(run, &report);
	/* The text printed the intervals as they ended. */
	if (live_intervals(kmem))
		report.iv = NULL;
	if (!err)
		err = print_report(kmem, NULL, &report, &out);
	else if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing the results\n");
	if (verbose > 0)
		pr_err("perf kmem: the BPF maps took %" PRIu64 " kB of kernel memory\n",
		       kmem_bpf_run__map_bytes(run) >> 10);
	return output_close(&out, err);
}

/*
 * The workload's process, reaped (its time is then the parent's, as
 * perf stat's): ended, or told to end when the counting was stopped.
 */
static void bpf_reap(pid_t pid)
{
	int status;

	if (pid <= 0 || waitpid(pid, &status, WNOHANG))
		return;
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
}

/*
 * What perf itself costs while it counts: its CPU time against the time
 * counted, and its peak RSS (no perf.data is mapped in -b, so that is its
 * heap and its libraries).  The workload's time is not in RUSAGE_SELF.
 */
struct bpf_self_usage {
	u64 wall;		/* CLOCK_MONOTONIC ns */
	struct rusage usage;
};

static void bpf_self_usage__start(struct bpf_self_usage *self)
{
	self->wall = rdclock();
	getrusage(RUSAGE_SELF, &self->usage);
}

static double timeval_secs(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static void bpf_self_usage__print(const struct bpf_self_usage *self)
{
	double wall = (rdclock() - self->wall) / 1e9, cpu;
	struct rusage usage;

	getrusage(RUSAGE_SELF, &usage);
	cpu = timeval_secs(&usage.ru_utime) + timeval_secs(&usage.ru_stime) -
	      timeval_secs(&self->usage.ru_utime) -
	      timeval_secs(&self->usage.ru_stime);
	pr_err("perf kmem: while counting, perf used %.3f s of CPU in %.3f s (%.2f%% of a CPU); peak RSS %ld kB\n",
	       cpu, wall, wall > 0 ? 100 * cpu / wall : 0.0, usage.ru_maxrss);
}

/*
 * The signal of evlist__prepare_workload()'s child whose exec failed,
 * after it printed why: blocked, and waited for with the stop signals.
 */
static void bpf_exec_failed(int sig __maybe_unused, siginfo_t *info __maybe_unused,
			    void *ucontext __maybe_unused)
{
}

/* The workload's process, stopped before its exec until the counting starts. */
static int bpf_workload(struct kmem_bpf_run *run, struct evlist **evlist,
			int argc, const char **argv)
{
	struct target target = { .uid = UINT_MAX, };
	int err;

	if (!argc)
		return 0;
	*evlist = evlist__new();
	if (!*evlist || evlist__create_maps(*evlist, &target) < 0)
		return -ENOMEM;
	err = evlist__prepare_workload(*evlist, &target, argv, false,
				       bpf_exec_failed);
	if (err < 0) {
		pr_err("perf kmem: cannot start %s\n", argv[0]);
		return err;
	}
	if (!run)
		return 0;
	err = kmem_bpf_run__add_task(run, (*evlist)->workload.pid);
	if (err)
		pr_err("perf kmem: cannot follow %s: %s\n", argv[0], strerror(-err));
	return err;
}

/*
 * perf kmem stat -b [-a | -p PID | --tid TID | --cgroup CG] [-- CMD]: the
 * analyses of util/kmem/bpf.c, printed as a recording's are.
 */
static int kmem_bpf_stat(struct perf_kmem *kmem, int argc, const char **argv)
{
	struct perf_thread_map *threads = NULL;
	struct evlist *workload = NULL;
	struct kmem_bpf_run *run;
	struct bpf_self_usage self;
	size_t printed = 0;	/* -I rows */
	int exec_errno = 0;
	sigset_t stop, old;
	char why[512];
	int err;

	if (bpf_options(kmem, argc))
		return -EINVAL;
	run = kmem_bpf_run__new(&kmem->bpf, why, sizeof(why));
	if (!run)
		return kmem_error("perf kmem: %s\n", why);
	err = bpf_add_targets(run, &threads);
	if (!err)
		err = bpf_workload(kmem->bpf.tasks ? run : NULL, &workload,
				   argc, argv);
	/* After the fork: the workload must not inherit them blocked. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGCHLD);
	if (workload)
		sigaddset(&stop, SIGUSR1);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if (!err && kmem_bpf_run__start(run, why, sizeof(why)))
		err = kmem_error("perf kmem: %s\n", why);
	if (err)
		goto out;
	pr_debug("perf kmem: counting in the kernel\n");
	bpf_self_usage__start(&self);
	if (workload)
		evlist__start_workload(workload);
	err = bpf_wait(kmem, run, threads, &stop, &printed, &exec_errno);
	if (err == BPF_EXEC_FAILED)
		pr_err("perf kmem: cannot run %s: %s\n", argv[0], strerror(exec_errno));
	if (verbose > 0)
		bpf_self_usage__print(&self);
	if (workload)
		bpf_reap(workload->workload.pid);
	if (!err)
		err = kmem_bpf_run__finish(run);
	/* The last interval, which the end of the counting closed. */
	if (!err && live_intervals(kmem))
		kmem_print__interval_lines(kmem_bpf_run__intervals(run), printed);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory reading the BPF maps\n");
	else if (err < 0)
		pr_err("perf kmem: cannot read the BPF maps: %s\n", strerror(-err));
	/* -I's lines went to stdout: a write of them that failed, first. */
	if (!err)
		err = output_close(&(struct kmem_output){ .fp = stdout }, 0) ?:
		      bpf_print(kmem, run);
out:
	if (workload)
		evlist__delete(workload);
	perf_thread_map__put(threads);
	kmem_bpf_run__delete(run);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

#else /* perf kmem hides -b: set_option_nobuild() */
static int kmem_bpf_stat(struct perf_kmem *kmem __maybe_unused,
			 int argc __maybe_unused, const char **argv __maybe_unused)
{
	return -EOPNOTSUPP;
}
#endif /* HAVE_BPF_SKEL */

/* --- perf kmem diff -------------------------------------------------- */

/* What stat does that diff cannot: one line, not an option ignored. */
static int check_diff_options(const struct perf_kmem *kmem)
{
	const char *opt = kmem->opts.alloc ? "--alloc" :
			  kmem->interval_str ? "-I" :
			  kmem->folded ? "--folded" :
			  kmem->map_name ? "--map" :
			  kmem->pprof_name ? "--pprof" :
			  kmem->use_bpf ? "-b" : NULL;

	if (kmem->input_name)
		return kmem_error("perf kmem: diff takes its traces as arguments, not -i: perf kmem diff [<options>] OLD.data NEW.data\n");
	if (opt)
		return kmem_error("perf kmem: diff takes no %s: it pairs the --caller rows and the numbers of two traces\n",
				  opt);
	return check_bpf_only(kmem);
}

/* -s, or NULL: the diff has one default for both analyses. */
static const struct kmem_sort_keys *diff_sort(const struct perf_kmem *kmem)
{
	return kmem->sort_str ? &kmem->page_names : NULL;
}

/* -s: the keys diff sorts the rows of each analysis by. */
static int check_diff_sort(const struct perf_kmem *kmem)
{
	char bad[64], known[128];
	int slab, err;

	for (slab = 0; slab < 2; slab++) {
		if (!(slab ? kmem->opts.slab : kmem->opts.page))
			continue;
		err = kmem_diff_report__check_sort(diff_sort(kmem), slab, bad,
						   sizeof(bad), known,
						   sizeof(known));
		if (err == -E2BIG)
			return kmem_error("perf kmem: too many sort keys for --%s: at most %d\n",
					  slab ? "slab" : "page", KMEM_MAX_SORT_KEYS);
		if (err)
			return kmem_error("perf kmem: unknown sort key '%s' for diff --%s: use %s\n",
					  bad, slab ? "slab" : "page", known);
	}
	return 0;
}

/*
 * One side of the diff: the trace read as perf kmem stat reads it, and
 * every number of its report, with all the rows of its --caller tables,
 * taken.  A trace corrupt in the middle is taken up to there, and @stop
 * gets stat's line about it, to end the output with.
 */
static int diff_side(struct kmem_input *in, struct kmem_diff_report *d,
		     int side, char *stop, size_t stop_size)
{
	struct kmem_report report;
	bool stopped;
	int err;

	err = kmem_input__read(in, &stopped);
	if (!err)
		err = check_time_window(in);
	if (!err && in->kmem->opts.task_filter)
		err = check_task_allocated(in);
	if (err)
		return err;
	if (stopped && !kmem_run__stats(in->run)->nr_events)
		return report_stop(in);
	if (stopped)
		stop_line(in, stop, stop_size);
	err = check_kernel_symbols(in);
	if (err)
		return err;
	kmem_run__report(in->run, &report);
	err = kmem_diff_report__add(d, side, &report);
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory comparing the traces\n");
	else if (err)
		pr_err("perf kmem: cannot compare %s: its report is not one the diff knows\n",
		       in->path);
	return err;
}

static int print_diff(struct perf_kmem *kmem, struct kmem_diff_report *d,
		      struct kmem_output *out)
{
	struct kmem_diff_report_options o = {
		.page = kmem->opts.page,
		.slab = kmem->opts.slab,
		.caller = kmem->opts.caller,
		.lines = kmem->opts.lines,
		.sort = diff_sort(kmem),
	};
	int err = kmem_diff_report__finish(d, &o);

	if (!err && kmem->json) {
		err = kmem_diff_report__json(d, &o, out->fp);
	} else if (!err && kmem->field_sep) {
		err = kmem_diff_report__csv(d, &o, kmem->field_sep, out->fp);
	} else if (!err) {
		err = text_output(out);
		if (!err)
			err = kmem_diff_report__text(d, &o);
	}
	if (err == -ENOMEM)
		pr_err("perf kmem: out of memory writing the results\n");
	return err;
}

/* The most of a saved report perf kmem diff reads. */
#define MAX_SAVED_REPORT	(1024UL * 1024 * 1024)

/*
 * A saved report (perf kmem stat --json), not a recording: its text, or
 * NULL for a file that is not one.  A document begins with '{': a
 * recording is not read past its first byte.
 */
static char *read_saved_report(const char *path, size_t *len)
{
	char *text = NULL;
	struct stat st;
	FILE *fp = fopen(path, "r");
	int c;

	if (!fp)
		return NULL;
	do
		c = getc(fp);
	while (isspace(c));
	if (c == '{' && !fstat(fileno(fp), &st) && S_ISREG(st.st_mode) &&
	    (u64)st.st_size <= MAX_SAVED_REPORT)
		text = malloc(st.st_size + 1);
	if (text) {
		rewind(fp);
		*len = fread(text, 1, st.st_size, fp);
		text[*len] = '\0';
	}
	fclose(fp);
	return text;
}

/*
 * Take the saved report @text of file @path (perf kmem stat --json) as
 * side @side of @d; with @d NULL only look at it.  @saved says what it
 * is.  Read back here, where the diff's inputs meet, so that the diff's
 * renderer reads no input.  Return: 0; -EINVAL, said in one line, for a
 * document that is not JSON or not of perf kmem stat's schema; -ENOMEM.
 */
static int add_saved_report(struct kmem_diff_report *d, int side,
			    const char *path, const char *text, size_t len,
			    struct kmem_saved_report *saved)
{
	struct kmem_diff_side s = { .dr = d, .side = side, .saved = saved };
	struct kmem_json *j = kmem_json__new_visitor(kmem_diff_report__take, &s);
	char why[160] = "its table rows are not as perf kmem stat writes them";
	int ret = -ENOMEM;

	*saved = (struct kmem_saved_report){ .schema = -1 };
	if (j)
		ret = kmem_json__read(text, len, j, why, sizeof(why)) ?: s.err;
	kmem_json__delete(j);
	if (!ret && saved->schema < 0) {
		snprintf(why, sizeof(why), "it has no \"schema\" member");
		ret = -EINVAL;
	} else if (!ret && saved->schema != KMEM_REPORT_SCHEMA) {
		snprintf(why, sizeof(why), "its schema is not %d, that of perf kmem stat --json",
			 KMEM_REPORT_SCHEMA);
		ret = -EINVAL;
	}
	if (ret == -ENOMEM)
		pr_err("perf kmem: out of memory comparing the traces\n");
	else if (ret)
		pr_err("perf kmem: %s is not a perf kmem stat --json report: %s\n",
		       path, why);
	return ret;
}

/* What the saved sides are; one line for what the diff cannot take. */
static int check_saved_sides(struct perf_kmem *kmem, char * const *texts,
			     const size_t *lens, const char * const *paths)
{
	struct kmem_saved_report s[2];
	bool page = true, slab = false;
	int side;

	for (side = 0; side < 2; side++) {
		if (!texts[side])
			continue;
		if (add_saved_report(NULL, side, paths[side], texts[side],
				     lens[side], &s[side]))
			return -EINVAL;
		page &= s[side].page;
		slab |= s[side].slab;
	}
	choose_page_analysis(kmem, page && !slab);
	for (side = 0; side < 2; side++) {
		const char *missing = !texts[side] ? NULL :
				      kmem->opts.page && !s[side].page ? "page" :
				      kmem->opts.slab && !s[side].slab ? "slab" : NULL;

		if (missing)
			return kmem_error("perf kmem: %s has no %s analysis: save it with perf kmem stat --%s --json\n",
					  paths[side], missing, missing);
	}
	if ((texts[0] || texts[1]) && kmem->opts.time_window)
		return kmem_error("perf kmem: --time takes recordings, not saved reports\n");
	if ((texts[0] || texts[1]) && task_filter())
		return kmem_error("perf kmem: --pid, --tid and --comm take recordings, not saved reports\n");
	return 0;
}

/*
 * perf kmem diff OLD NEW: both traces read with stat's own code, one
 * after the other, each run deleted once its numbers are taken; a saved
 * report (stat --json) taken as its document.  Both are opened and set
 * up first, so that a trace that cannot be analysed is found before the
 * other one is read.
 */
static int kmem_diff(struct perf_kmem *kmem, const char * const *paths)
{
	struct kmem_input *ins[2] = { NULL, NULL };
	char stops[2][PATH_MAX + 200] = { "", "" };
	char *texts[2] = { NULL, NULL };
	struct kmem_diff_report *d = NULL;
	struct kmem_output out = { .fp = NULL };
	size_t lens[2] = { 0, 0 };
	int side, err = 0;

	for (side = 0; side < 2; side++)
		texts[side] = read_saved_report(paths[side], &lens[side]);
	err = check_diff_options(kmem) ?: check_csv(kmem) ?: parse_time(kmem);
	/* The recordings open: the analysis is chosen from their events. */
	for (side = 0; side < 2 && !err; side++) {
		if (!texts[side])
			ins[side] = kmem_input__open(kmem, paths[side]);
		if (!texts[side] && !ins[side])
			err = -EINVAL;
	}
	/* As stat chooses, where both recordings have only page events. */
	if (!err && !(texts[0] && texts[1]))
		choose_page_analysis(kmem, (!ins[0] || only_page_events(ins[0]->session)) &&
				     (!ins[1] || only_page_events(ins[1]->session)));
	if (!err)
		err = check_saved_sides(kmem, texts, lens, paths) ?:
		      check_task_filter(kmem) ?:
		      check_sort_syntax(kmem) ?: check_diff_sort(kmem) ?:
		      check_options(kmem) ?: output_open(&out, kmem->output_name);
	if (!err)
		keep_exited_threads(kmem);
	if (!err) {
		d = kmem_diff_report__new(kmem->opts.page, kmem->opts.slab);
		if (!d)
			pr_err("perf kmem: out of memory comparing the traces\n");
		err = d ? 0 : -ENOMEM;
	}
	for (side = 0; side < 2 && !err; side++) {
		if (!texts[side] && kmem_input__setup(ins[side]))
			err = -EINVAL;
	}
	for (side = 0; side < 2 && !err; side++) {
		if (texts[side]) {
			struct kmem_saved_report saved;

			err = add_saved_report(d, side, paths[side], texts[side],
					       lens[side], &saved);
			continue;
		}
		err = diff_side(ins[side], d, side, stops[side],
				sizeof(stops[side]));
		kmem_input__delete(ins[side]);
		ins[side] = NULL;
	}
	if (!err)
		err = print_diff(kmem, d, &out);
	/* As stat's, the lines about where a reader stopped come last. */
	output_flush(&out);
	for (side = 0; side < 2 && !err; side++) {
		if (stops[side][0])
			err = kmem_error("%s\n", stops[side]);
	}
	for (side = 0; side < 2; side++) {
		kmem_input__delete(ins[side]);
		free(texts[side]);
	}
	kmem_diff_report__delete(d);
	return output_close(&out, err);
}

/* perf kmem diff's two traces, or one line saying what is missing. */
static int diff_traces(int argc, const char **argv)
{
	static const char how[] = "perf kmem diff [<options>] OLD.data NEW.data";

	if (argc == 2)
		return 0;
	if (!argc)
		return kmem_error("perf kmem: diff needs two traces: %s\n", how);
	if (argc == 1)
		return kmem_error("perf kmem: diff needs a second trace to compare %s with: %s\n",
				  argv[0], how);
	return kmem_error("perf kmem: diff compares two traces, not %d: %s\n",
			  argc, how);
}

/* --- perf kmem record ------------------------------------------------ */

static void add_arg(const char **argv, int *argc, const char *arg)
{
	argv[(*argc)++] = arg;
}

/*
 * Is descriptor @fd of task @pid a read end of the pipe @name (its link in
 * /proc: "pipe:[INO]", or the path of a named pipe)?  The link is read,
 * not followed: a file behind it may not answer.
 */
static bool reads_pipe(int pid, int fd, const char *name)
{
	char path[64], line[PATH_MAX];
	unsigned int flags;
	bool reads = false;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	len = readlink(path, line, sizeof(line) - 1);
	if (len < 0)
		return false;
	line[len] = '\0';
	if (strcmp(line, name))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "flags: %o", &flags) == 1) {
			reads = (flags & O_ACCMODE) == O_RDONLY;
			break;
		}
	}
	if (f)
		fclose(f);
	return reads;
}

/*
 * "common_pid != TID" of each thread of @pid, after what @sb has, @left
 * of them at most: the kernel tests each on every event.
 */
static void add_task_filter(struct strbuf *sb, int pid, int *left)
{
	char path[64];
	struct dirent *d;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tasks = opendir(path);
	while (tasks && *left && (d = readdir(tasks))) {
		if (!isdigit(d->d_name[0]))
			continue;
		strbuf_addf(sb, "%scommon_pid != %d", sb->len ? " && " : "",
			    atoi(d->d_name));
		--*left;
	}
	if (tasks)
		closedir(tasks);
}

/*
 * A filter that leaves out the tasks reading the pipe on standard output
 * as perf record starts (perf kmem stat, tee, at its other end), or NULL:
 * reading the stream, they allocate for as long as it flows.
 */
static char *pipe_readers_filter(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct dirent *p, *d;
	char path[64], name[PATH_MAX];
	struct stat out;
	DIR *proc, *fds;
	int pid, left = 16;
	ssize_t len;

	if (fstat(STDOUT_FILENO, &out) || !S_ISFIFO(out.st_mode))
		return NULL;
	len = readlink("/proc/self/fd/1", name, sizeof(name) - 1);
	if (len < 0)
		return NULL;
	name[len] = '\0';
	proc = opendir("/proc");
	while (proc && left && (p = readdir(proc))) {
		pid = atoi(p->d_name);
		if (!isdigit(p->d_name[0]) || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		fds = opendir(path);
		while (fds && (d = readdir(fds))) {
			if (isdigit(d->d_name[0]) &&
			    reads_pipe(pid, atoi(d->d_name), name)) {
				pr_debug("perf kmem: leaving out pid %d, which reads the stream\n",
					 pid);
				add_task_filter(&sb, pid, &left);
				break;
			}
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	if (sb.len)
		return strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	return NULL;
}

/*
 * -e @event, and perf record's --exclude-perf after it unless @keep_perf:
 * a tracepoint filter "common_pid != <perf's pid>" on that event alone, so
 * that perf writing its own perf.data is not in the trace, and @readers,
 * the filter of the tasks reading its stream, if any.  Frees stay of
 * every task: perf's context frees other tasks' pages too (in reclaim),
 * and a page of theirs whose free is not seen would stay live.
 */
static void add_event(const char **argv, int *argc, const char *event,
		      bool keep_perf, const char *readers)
{
	add_arg(argv, argc, "-e");
	add_arg(argv, argc, event);
	if (keep_perf)
		return;
	add_arg(argv, argc, "--exclude-perf");
	if (readers) {
		add_arg(argv, argc, "--filter");
		add_arg(argv, argc, readers);
	}
}

/*
 * Does perf record write a stream, to a pipe on standard output?  With
 * -o - among the options before a '--' (or a command's own -o, which
 * only costs this answer), or without -o where standard output is a
 * pipe, but then perf record names its output "(null)": *@name_it, name
 * it "-" for it.
 */
static bool record_to_pipe(int argc, const char **argv, bool *name_it)
{
	const char *output = NULL;
	struct stat st;
	int i;

	for (i = 0; !output && i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
			output = i + 1 < argc ? argv[i + 1] : NULL;
		else if (strstarts(argv[i], "--output="))
			output = argv[i] + strlen("--output=");
		else if (strstarts(argv[i], "-o"))
			output = argv[i] + 2;
	}
	*name_it = !output && !fstat(STDOUT_FILENO, &st) &&
		   S_ISFIFO(st.st_mode);
	return *name_it || (output && !strcmp(output, "-"));
}

/*
 * The events of allocation stalls the kernel has, with callchains on
 * those that begin one, as -e options; what they need is in @events.
 * perf's own stalls go with its allocations, unless @keep_perf.
 */
static int add_stall_events(const char **argv, int *argc, char **events,
			    bool keep_perf, const char *readers)
{
	int type, n = 0;

	for (type = 0; type < KMEM_STALL_NR_TYPES; type++) {
		bool chain;
		const char *name = kmem_stall_tracepoint(type, &chain);

		if (!is_valid_tracepoint(name))
			continue;
		if (asprintf(&events[n], "%s%s", name,
			     chain ? "/call-graph=fp/" : "") < 0)
			return -ENOMEM;
		add_event(argv, argc, events[n++], keep_perf, readers);
	}
	return 0;
}

/*
 * Ring buffer pages per CPU where the user gives no -m, or the most this
 * user may lock: every event is recorded, and one lost is an allocation
 * without its free.  perf record's own default (perf_event_mlock_kb, 128
 * pages) loses slab events to a dd writing a file, 2048 (8 MiB) did not.
 */
#define KMEM_RECORD_MMAP_PAGES	2048

/* Do the options before a '--' give perf record's -m/--mmap-pages? */
static bool record_has_mmap_pages(int argc, const char **argv)
{
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		if (strstarts(argv[i], "-m") || strstarts(argv[i], "--mmap-pages"))
			return true;
	}
	return false;
}

/*
 * May this user lock @pages ring buffer pages for each CPU?  Past
 * perf_event_mlock_kb the kernel charges them to RLIMIT_MEMLOCK, which
 * root and perf_event_paranoid -1 are exempt from: map as many buffers of
 * an event of our own and see.
 */
static bool can_mmap_pages(unsigned long pages)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.disabled = 1,
		.exclude_kernel = 1,
	};
	long nr = sysconf(_SC_NPROCESSORS_ONLN), n;
	size_t len = (pages + 1) * (size_t)sysconf(_SC_PAGESIZE);
	void **maps = calloc(nr > 0 ? nr : 1, sizeof(*maps));
	bool ok = maps && nr > 0;
	int fd;

	/* All mapped at once: each is charged until it is unmapped. */
	for (n = 0; ok && n < nr; n++) {
		fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		maps[n] = fd < 0 ? MAP_FAILED :
			  mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ok = maps[n] != MAP_FAILED;
		if (fd >= 0)
			close(fd);
	}
	while (maps && n--)
		if (maps[n] != MAP_FAILED)
			munmap(maps[n], len);
	free(maps);
	return ok;
}

/* Can execvp() run @file: a file that is executable, as @cmd names it? */
static int runnable(const char *file)
{
	struct stat st;

	if (stat(file, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || access(file, X_OK))
		return -EACCES;
	return 0;
}

/*
 * The command after '--', looked for as execvp() looks for it: perf
 * record that cannot run it says so in a line naming all our events, and
 * leaves a perf.data of nothing.
 */
static int check_record_command(int argc, const char **argv)
{
	char path[PATH_MAX], *dirs, *dir, *save = NULL;
	const char *cmd = NULL;
	int i, err = -ENOENT;

	for (i = 0; i + 1 < argc && !cmd; i++)
		if (!strcmp(argv[i], "--"))
			cmd = argv[i + 1];
	if (!cmd)
		return 0;
	if (strchr(cmd, '/')) {
		err = runnable(cmd);
	} else {
		dirs = strdup(getenv("PATH") ?: "/usr/bin:/bin");
		for (dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && err;
		     dir = strtok_r(NULL, ":", &save)) {
			snprintf(path, sizeof(path), "%s/%s", *dir ? dir : ".", cmd);
			err = runnable(path) ? err : 0;
		}
		free(dirs);
	}
	if (!err)
		return 0;
	return kmem_error("perf kmem: cannot run %s: %s\n", cmd,
			  strchr(cmd, '/') ? strerror(-err) : "no such command in PATH");
}

static int kmem_record(const struct perf_kmem *kmem, int argc,
		       const char **argv)
{
	char *stall_events[KMEM_STALL_NR_TYPES] = { NULL };
	const char **rec_argv;
	int rec_argc = 0, i, err, nr_slab = 0;
	bool name_pipe, pipe = record_to_pipe(argc, argv, &name_pipe);
	bool keep_perf = kmem->include_perf;
	unsigned long pages, perf_pages = perf_event_mlock_kb_in_pages();
	char *readers = NULL, mmap_pages[24];

	/* Exit status 1, as perf kmem's other refusals. */
	if (check_record_command(argc, argv))
		return 1;
	rec_argv = calloc(argc + 40 + 5 * KMEM_STALL_NR_TYPES +
			  5 * ARRAY_SIZE(slab_tracepoints), sizeof(char *));
	if (!rec_argv)
		return -ENOMEM;
	if (pipe && !keep_perf)
		readers = pipe_readers_filter();
	add_arg(rec_argv, &rec_argc, "record");
	add_arg(rec_argv, &rec_argc, "-a");	/* allocations of every CPU */
	add_arg(rec_argv, &rec_argc, "-R");	/* the tracepoint fields */
	add_arg(rec_argv, &rec_argc, "-c");	/* every event */
	add_arg(rec_argv, &rec_argc, "1");
	/* Before the user's options: perf record takes their -m instead. */
	if (!record_has_mmap_pages(argc, argv)) {
		pages = KMEM_RECORD_MMAP_PAGES;
		while (pages > perf_pages && !can_mmap_pages(pages))
			pages /= 2;
		if (pages < KMEM_RECORD_MMAP_PAGES)
			pr_warning("perf kmem: cannot lock %d ring buffer pages per CPU (perf_event_mlock_kb, ulimit -l): recording with %lu, which may lose events\n",
				   KMEM_RECORD_MMAP_PAGES, max(pages, perf_pages));
		if (pages > perf_pages) {
			snprintf(mmap_pages, sizeof(mmap_pages), "%lu", pages);
			add_arg(rec_argv, &rec_argc, "-m");
			add_arg(rec_argv, &rec_argc, mmap_pages);
		}
	}
	/*
	 * The filter leaves out perf's own thread only: its side-band thread,
	 * which records BPF program loads, allocates as it wakes for them.
	 */
	if (!keep_perf)
		add_arg(rec_argv, &rec_argc, "--no-bpf-event");
	if (kmem->opts.page) {
		/* Only allocations need their callchain, and only its kernel part. */
		add_event(rec_argv, &rec_argc,
			  "kmem:mm_page_alloc/call-graph=fp/", keep_perf, readers);
		add_event(rec_argv, &rec_argc, "kmem:mm_page_free", true, NULL);
		/* Fallbacks, where the kernel traces them: by callsite too. */
		if (is_valid_tracepoint("kmem:mm_page_alloc_extfrag"))
			add_event(rec_argv, &rec_argc,
				  "kmem:mm_page_alloc_extfrag/call-graph=fp/",
				  keep_perf, readers);
		/* Who waited for memory, where the kernel traces it. */
		err = add_stall_events(rec_argv, &rec_argc, stall_events,
				       keep_perf, readers);
		if (err)
			goto out;
		add_arg(rec_argv, &rec_argc, "--kernel-callchains");
	}
	for (i = 0; kmem->opts.slab && i < (int)ARRAY_SIZE(slab_tracepoints); i++) {
		if (!is_valid_tracepoint(slab_tracepoints[i]))
			continue;
		/* Frees are kept of every task, as the page frees are. */
		add_event(rec_argv, &rec_argc, slab_tracepoints[i],
			  keep_perf || strstr(slab_tracepoints[i], "free"),
			  readers);
		nr_slab++;
	}
	/* Else perf record would quietly record cycles instead. */
	if (kmem->opts.slab && !nr_slab) {
		pr_err("perf kmem: no kmem slab tracepoints found: is tracefs mounted and readable?\n");
		err = -ENOENT;
		goto out;
	}
	if (name_pipe) {
		add_arg(rec_argv, &rec_argc, "-o");
		add_arg(rec_argv, &rec_argc, "-");
	}
	for (i = 0; i < argc; i++)
		add_arg(rec_argv, &rec_argc, argv[i]);
	err = cmd_record(rec_argc, rec_argv);
	/*
	 * The kernel's symbols are in this machine's build-id cache, which
	 * perf archive packs with a file, not with a stream.
	 */
	if (!err && !pipe)
		pr_info("perf kmem: to analyse it on another machine, take its kernel symbols along: perf archive\n");
out:
	for (i = 0; i < KMEM_STALL_NR_TYPES; i++)
		free(stall_events[i]);
	free(readers);
	free(rec_argv);
	return err;
}

/* perf kmem record -h: our options, before perf record's help of its own. */
static void record_help(void)
{
	fprintf(stderr, "\n Usage: perf kmem record [--page] [--slab] [--include-perf] [<perf record options>] [-- <command>]\n\n"
		"        --page            record the page allocator: allocations with their\n"
		"                          kernel callchains, frees and fallbacks\n"
		"        --slab            record the slab allocator (the default)\n"
		"        --include-perf    record perf's own allocations too (writing its\n"
		"                          perf.data), which are left out by default\n"
		"\n All other options are perf record's, passed on:\n");
}

/*
 * 'perf kmem record' passes what it does not know to perf record, so take
 * our own options out first: --page, --slab and --include-perf may stand anywhere before
 * a '--'.  -h and --help go on to perf record, whose help follows ours.
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
			kmem->opts.page = true;
		else if (!strcmp(argv[i], "--slab"))
			kmem->opts.slab = true;
		else if (!strcmp(argv[i], "--include-perf"))
			kmem->include_perf = true;
		else
			argv[n++] = argv[i];
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			record_help();
	}
	return n;
}

/* --- options --------------------------------------------------------- */

/* -s, split once for all that read it. */
static void split_sort_keys(struct perf_kmem *kmem)
{
	kmem_sort_keys__split(&kmem->page_names, kmem->sort_str ?:
			      kmem_tables[KMEM_PAGE_CALLERS].sort);
	if (kmem->sort_str)
		kmem->slab_names = kmem->page_names;
	else
		kmem_sort_keys__split(&kmem->slab_names,
				      kmem_tables[KMEM_SLAB_CALLERS].sort);
}

/*
 * kmem.queue-size: bytes, decimal, octal or hex, with the k, m or g of
 * perf's config sizes.  Not perf_config_u64(), which takes "-5" for 16
 * EiB and says of a bad value that it is ignored.
 */
static bool parse_config_size(const char *value, u64 *size)
{
	static const char units[] = "kmg";
	const char *unit;
	unsigned int shift;
	char *end;
	u64 n;

	if (!value || !isdigit((unsigned char)*value))
		return false;
	errno = 0;
	n = strtoull(value, &end, 0);
	if (errno)
		return false;
	if (*end) {
		unit = end[1] ? NULL : strchr(units, tolower((unsigned char)*end));
		if (!unit)
			return false;
		shift = 10 * (unit - units + 1);
		if (n > ULLONG_MAX >> shift)
			return false;
		n <<= shift;
	}
	*size = n;
	return true;
}

/*
 * A value refused is said in one line, and the run ends with exit status
 * 1: not -1, on which perf's reader of the config adds a line of its own
 * ("wrong config key-value pair") and perf exits 255.
 */
static int kmem_config(const char *var, const char *value, void *cb)
{
	struct perf_kmem *kmem = cb;
	u64 size;

	if (!strcmp(var, "kmem.queue-size")) {
		if (!parse_config_size(value, &size) ||
		    size < KMEM_QUEUE_MIN_BYTES || size > SIZE_MAX) {
			pr_err("perf kmem: invalid kmem.queue-size '%s': use a size of at least %u bytes\n",
			       value, KMEM_QUEUE_MIN_BYTES);
			kmem->bad_config = true;
			return 0;
		}
		kmem->opts.queue_size = size;
		return 0;
	}
	/* perf keeps its config's values until it exits, as kmem.default's. */
	if (!strcmp(var, "kmem.bpf-leave-out"))
		kmem->bpf.leave_out = value;
	if (!strcmp(var, "kmem.bpf-btf"))
		kmem->bpf.btf = value;
	if (strcmp(var, "kmem.default"))
		return 0;
	if (!strcmp(value, "page") || !strcmp(value, "slab")) {
		kmem->default_mode = value;
		return 0;
	}
	pr_err("perf kmem: invalid kmem.default '%s': use page or slab\n", value);
	kmem->bad_config = true;
	return 0;
}

/* The -s help: the keys of each analysis, from its columns. */
static const char *sort_keys_help(char *buf, size_t size)
{
	char page[256], slab[256];

	snprintf(buf, size, "sort by keys: slab: %s; page: %s",
		 kmem_table__keys(&kmem_tables[KMEM_SLAB_CALLERS], slab,
				  sizeof(slab)),
		 kmem_table__keys(&kmem_tables[KMEM_PAGE_CALLERS], page,
				  sizeof(page)));
	return buf;
}

/*
 * Not a subcommand: name the nearest, as perf does for its commands, or
 * the three.  A swap of two letters costs nothing, any other edit one,
 * and one edit is near: "report" is not "record".
 */
static int unknown_subcommand(const char *cmd,
			      const char * const *subcommands)
{
	const char *best = NULL;
	int i, d, best_d = 2;

	for (i = 0; subcommands[i]; i++) {
		d = levenshtein(cmd, subcommands[i], 0, 1, 1, 1);
		if (d < best_d) {
			best_d = d;
			best = subcommands[i];
		}
	}
	if (best)
		return kmem_error("perf kmem: unknown subcommand '%s': did you mean '%s'?\n",
				  cmd, best);
	return kmem_error("perf kmem: unknown subcommand '%s': use record, stat or diff\n",
			  cmd);
}

/*
 * What stat has left after its options: a trace it takes with -i, or a
 * command, as perf stat takes one, that perf kmem records or counts.
 */
static int stat_arguments(int argc, const char **argv)
{
	struct stat st;

	if (stat(argv[0], &st))
		return kmem_error("perf kmem: stat reads a trace given with -i, and %s is no file: a command is recorded with perf kmem record -- CMD, or counted with perf kmem stat -b -- CMD\n",
				  argv[0]);
	if (argc == 1)
		return kmem_error("perf kmem: stat takes its trace with -i: perf kmem stat -i %s\n",
				  argv[0]);
	return kmem_error("perf kmem: stat takes one trace, with -i, not %d: perf kmem diff compares two\n",
			  argc);
}

int cmd_kmem(int argc, const char **argv)
{
	char sort_help_buf[600];
	const char *sort_help = sort_keys_help(sort_help_buf,
					       sizeof(sort_help_buf));
	struct perf_kmem kmem = {
		.opts = {
			.lines = -1,
			.pageblock_order = -1,
			.queue_size = KMEM_QUEUE_DEFAULT_MAX_BYTES,
		},
	};
	struct option options[] = {
	OPT_STRING('i', "input", &kmem.input_name, "file", "input file name"),
	OPT_INCR('v', "verbose", &verbose,
		 "be more verbose: list allocator functions, show perf's messages"),
	OPT_BOOLEAN(0, "caller", &kmem.opts.caller, "show per-callsite statistics"),
	OPT_BOOLEAN(0, "alloc", &kmem.opts.alloc,
		    "show per-object (slab) or per-page statistics"),
	OPT_STRING('s', "sort", &kmem.sort_str, "key[,key2...]", sort_help),
	OPT_STRING('l', "line", &kmem.lines_str, "n", "show this many rows"),
	OPT_BOOLEAN(0, "raw-ip", &kmem.opts.raw_ip,
		    "one row per call address, shown as func+0xoff"),
	OPT_BOOLEAN('f', "force", &kmem.force, "don't complain, do it"),
	OPT_BOOLEAN(0, "slab", &kmem.opts.slab, "analyse the slab allocator"),
	OPT_BOOLEAN(0, "page", &kmem.opts.page, "analyse the page allocator"),
	OPT_BOOLEAN('j', "json", &kmem.json,
		    "write the results as one JSON document"),
	OPT_STRING_OPTARG(0, "folded", &kmem.folded,
			  "bytes|hits|stall|fallbacks|fragmenting",
			  "write page allocations as folded stacks for flame graphs",
			  "bytes"),
	OPT_STRING(0, "pprof", &kmem.pprof_name, "file",
		   "write the page allocations as a pprof memory profile (-I: file.N)"),
	OPT_STRING(0, "map", &kmem.map_name, "file.svg",
		   "draw the pageblocks the trace allocated into, as SVG"),
	OPT_STRING('o', "output", &kmem.output_name, "file",
		   "write the results to this file"),
	OPT_STRING_NOEMPTY('x', "field-separator", &kmem.field_sep, "separator",
			   "print the tables as CSV, cells separated by this"),
	OPT_BOOLEAN(0, "live", &kmem.opts.live,
		    "show only pages still allocated at the end of the trace"),
	OPT_STRING(0, "time", &kmem.opts.time_window, "start,stop",
		   "only events in this time span"),
	OPT_STRING('I', "interval-print", &kmem.interval_str, "msecs",
		   "print the page analysis every msecs of trace time"),
	OPT_STRING('p', "pid", &symbol_conf.pid_list_str, "pid[,pid...]",
		   "only the page allocations of these processes"),
	OPT_STRING(0, "tid", &symbol_conf.tid_list_str, "tid[,tid...]",
		   "only the page allocations of these threads"),
	/* stat -b, spelled as perf lock contention -b */
	OPT_BOOLEAN('b', "use-bpf", &kmem.use_bpf,
		    "count in the kernel with BPF, no perf.data: stat -b [-- cmd]"),
	OPT_BOOLEAN('a', "all-cpus", &kmem.bpf.system_wide,
		    "with -b: the events of all tasks"),
	OPT_STRING(0, "cgroup", &kmem.bpf.cgroup, "cgroup",
		   "with -b: the events of the tasks of this cgroup"),
	OPT_STRING(0, "sample-bytes", &kmem.sample_bytes_str, "bytes",
		   "with -b: a stack per this many bytes allocated (512K; 1: all)"),
	OPT_BOOLEAN(0, "include-perf", &kmem.include_perf,
		    "record and -b: perf's own allocations too"),
	OPT_BOOLEAN(0, "exact-live", &kmem.bpf.exact_live,
		    "with -b: every allocation in the live-page map: exact lifetimes"),
	OPT_STRING('M', "map-nr-entries", &kmem.map_entries_str, "num",
		   "with -b: entries of each BPF map"),
	OPT_STRING(0, "max-stack", &kmem.max_stack_str, "num",
		   "with -b: frames of a stack at most (16)"),
	OPT_STRING(0, "comm", &symbol_conf.comm_list_str, "comm[,comm...]",
		   "only the page allocations of tasks of these names"),
	OPT_STRING(0, "alloc-func", &kmem.opts.alloc_regex, "regex",
		   "functions to skip to find a callsite, instead of the built-in list"),
	OPT_STRING(0, "alloc-func-add", &kmem.opts.alloc_regex_add, "regex",
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
	if (err || kmem.bad_config)
		return 1;
#ifndef HAVE_BPF_SKEL
	set_option_nobuild(options, 'b', "use-bpf", "no BUILD_BPF_SKEL=1", false);
#endif

	argc = parse_options_subcommand(argc, argv, options, subcommands, usage,
					PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(usage, options);

	if (strlen(argv[0]) > 2 && strstarts("record", argv[0])) {
		argc = take_record_mode_options(&kmem, argc - 1, argv + 1);
		if (!kmem.opts.page && !kmem.opts.slab)
			kmem.opts.slab = true;
		err = kmem_record(&kmem, argc, argv + 1);
		/* parse_options_subcommand() built the usage string. */
		free((void *)usage[0]);
		return err;
	}
	kmem.diff = !strcmp(argv[0], "diff");
	if (strcmp(argv[0], "stat") && !kmem.diff)
		err = unknown_subcommand(argv[0], subcommands);

	/* Options may follow 'stat' and 'diff' too. */
	if (!err)
		argc = parse_options(argc, argv, options, usage, 0);
	if (!err && argc && !kmem.diff && !kmem.use_bpf)
		err = stat_arguments(argc, argv);
	if (err) {
		free((void *)usage[0]);
		return 1;
	}
	if (!kmem.opts.page && !kmem.opts.slab) {
		if (kmem.default_mode && !strcmp(kmem.default_mode, "page"))
			kmem.opts.page = true;
		else
			kmem.opts.slab = true;
		kmem.mode_from_trace = !kmem.default_mode;
	}
	split_sort_keys(&kmem);
	if (kmem.diff)
		err = diff_traces(argc, argv) ?: kmem_diff(&kmem, argv);
	else if (kmem.use_bpf)
		err = kmem_bpf_stat(&kmem, argc, argv);
	else
		err = kmem_stat(&kmem);
	free((void *)usage[0]);
	return err ? 1 : 0;
}
