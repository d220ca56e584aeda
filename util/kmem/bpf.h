/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_BPF_H
#define __PERF_KMEM_BPF_H

/*
 * perf kmem stat -b: the page (and slab) allocator counted in the running
 * kernel by a BPF program (util/bpf_skel/kmem.bpf.c), nothing recorded.
 *
 * A kmem_bpf_run is the live counterpart of a kmem_run (run.h): it
 * loads and attaches the program, follows the tasks asked for, reads the
 * maps and fills the same analyses a recording fills (count-page.h,
 * count-frag.h, count-slab.h) through bpf-fill.h, and settles them into
 * the same report (report.h) with a recording's struct kmem_run_core, so
 * that text, JSON and folded stacks are shared.  The builtin owns the
 * options, the workload and the output.  No global state, no printing:
 * what goes wrong comes back as one line.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "count-stacks.h"
#include "report.h"
#include "run.h"

/* What perf kmem stat -b's options ask. */
struct kmem_bpf_config {
	/*
	 * The options a recording's run takes too: --page, --slab,
	 * --caller, --live, --raw-ip, -l, -s, -I, --folded, --pprof...
	 */
	struct kmem_run_config	stat;
	/* Whose events: all, tasks added with kmem_bpf_run__add_task(), a cgroup. */
	bool		system_wide;	/* -a */
	bool		tasks;		/* -p, -t or a workload */
	const char	*cgroup;	/* --cgroup, as perf record -G */
	bool		include_perf;	/* --include-perf: perf kmem's own events too */
	u64		sample_bytes;	/* --sample-bytes; 1: every stack */
	bool		exact_live;	/* --exact-live */
	int		max_stack;	/* --max-stack */
	u32		map_entries;	/* -M; 0: the defaults */
	/* perf config kmem.bpf-leave-out: tracepoints taken as missing. */
	const char	*leave_out;
	const char	*btf;		/* kmem.bpf-btf; NULL: the kernel's */
};

/* The defaults of the options above. */
#define KMEM_BPF_SAMPLE_BYTES	(512 * 1024)
#define KMEM_BPF_MAX_STACK_DEFAULT	16
#define KMEM_BPF_MAP_ENTRIES	16384
#define KMEM_BPF_EXACT_LIVE_ENTRIES	262144

struct kmem_bpf_run;
struct kmem_interval;
struct kmem_profile_view;

/*
 * Built with BUILD_BPF_SKEL=1 only: without it perf kmem hides -b
 * (set_option_nobuild()) and builtin-kmem.c leaves out what calls these.
 */

/**
 * kmem_bpf_run__new - open and load the program
 * @config: the options; copied, but what its pointers point at must
 *	    outlive the run
 * @err: where a one-line reason goes
 * @err_size: the size of @err
 *
 * Checks what the program needs (root, the kernel's BTF, the tracepoints),
 * sizes the maps, loads the program and sets up the live session the
 * report names callsites and GFP flags with.  Nothing is counted yet.
 *
 * Return: the run, or NULL with @err set.
 */
struct kmem_bpf_run *kmem_bpf_run__new(const struct kmem_bpf_config *config,
				       char *err, size_t err_size);
void kmem_bpf_run__delete(struct kmem_bpf_run *run);

/* Count the events of task @tid, and of the tasks it forks from now on. */
int kmem_bpf_run__add_task(struct kmem_bpf_run *run, pid_t tid);

/* Attach the programs: counting starts. */
int kmem_bpf_run__start(struct kmem_bpf_run *run, char *err, size_t err_size);

/**
 * kmem_bpf_run__tick - the end of an -I interval
 * @run: the run, started
 *
 * Closes the interval's row in kmem_bpf_run__intervals(), which the
 * builtin prints as perf stat -I does.
 *
 * Return: 0 or -ENOMEM.
 */
int kmem_bpf_run__tick(struct kmem_bpf_run *run);

/* The -I rows closed so far (after finish, all of them); NULL: no -I. */
const struct kmem_interval *kmem_bpf_run__intervals(const struct kmem_bpf_run *run);

/**
 * kmem_bpf_run__finish - stop counting and fill the analyses
 * @run: the run, started
 *
 * Return: 0; -ENOMEM; -EIO if a map could not be read.
 */
int kmem_bpf_run__finish(struct kmem_bpf_run *run);

/**
 * kmem_bpf_run__report - the results, for the renderers (print.h)
 * @run: a finished run
 * @r: filled in, points into @run: the analyses finished, the tables
 *	sorted, and in src[KMEM_SRC_COUNTED] where the numbers come from
 *
 * Return: 0; -EINVAL for a bad sort key; -ENOMEM.
 */
int kmem_bpf_run__report(struct kmem_bpf_run *run, struct kmem_report *r);

/* The kernel memory the maps take, as the kernel accounts it. */
u64 kmem_bpf_run__map_bytes(const struct kmem_bpf_run *run);

/**
 * kmem_bpf_run__write_folded - the sampled stacks as folded stacks
 * @run: a finished run of a config with folded
 * @weight: what a line counts
 * @fp: where the lines go
 *
 * Each sampled stack from its callsite on, weighted as its rows are: the
 * estimated bytes or allocations (with live, of those still live).  With
 * folded_stall, instead, the stack of each allocation that ended a stall,
 * its stall's length in ns as the bytes (exact, as the stalls are).
 *
 * Return: 0; -ENOMEM; -errno when @fp could not be written.
 */
int kmem_bpf_run__write_folded(struct kmem_bpf_run *run,
			       enum kmem_stacks_weight weight, FILE *fp);

/* The profiles of a finished run of a config with pprof: 1, or per -I interval. */
size_t kmem_bpf_run__nr_profiles(const struct kmem_bpf_run *run);

/**
 * kmem_bpf_run__profile - the sampled stacks as a memory profile
 * @run: a finished run of a config with pprof
 * @i: which profile: 0, or with -I the interval's
 * @v: set to the profile's period and what it says, for the renderer
 *	(print-pprof.h's kmem_profile__pprof()); its strings are the
 *	run's, until the next call
 *
 * A sample per sampled stack, order, migration type and GFP flags, its
 * alloc and inuse objects and space estimated as the rows are; a comment
 * says so.  With -I, an interval's alloc values are what the estimates
 * grew by over it, and its inuse values what is estimated live at its
 * end.
 *
 * Return: 0; -EINVAL for a profile that does not exist.
 */
int kmem_bpf_run__profile(struct kmem_bpf_run *run, size_t i,
			  struct kmem_profile_view *v);

#endif /* __PERF_KMEM_BPF_H */
