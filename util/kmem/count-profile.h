/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_PROFILE_H
#define __PERF_KMEM_COUNT_PROFILE_H

/*
 * The page allocations as the samples of a memory profile, for perf kmem
 * stat --pprof: what tells allocations apart (their callchain, order,
 * migration type, GFP flags, node and task) goes in as a key, with what
 * they came to; the sums of each key come out, per period of the trace
 * (the whole of it, or each -I interval), for kmem_profile__pprof()
 * (print-pprof.h) to write.  The replay of a perf.data (run.c) and
 * stat -b (bpf.c) fill it alike.  The callchains are ids of a struct
 * kmem_stacks.  No global state, no perf headers.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct kmem_stacks;

/* What tells the allocations of one sample from another's. */
struct kmem_profile_key {
	int	chain;		/* id in the kmem_stacks; -1: no callchain */
	s16	order;
	s16	migtype;	/* as the recording kernel traced it */
	s16	node;		/* of the page; -1: unknown */
	u32	task;		/* the task key (pid, comm id); 0: none */
	u64	gfp;		/* 0 with fallbacks: the event has none */
	bool	has_gfp;	/* a fallback has no GFP flags */
};

enum kmem_profile_value {
	KMEM_PROFILE_ALLOC_OBJECTS,
	KMEM_PROFILE_ALLOC_SPACE,
	KMEM_PROFILE_INUSE_OBJECTS,
	KMEM_PROFILE_INUSE_SPACE,
	KMEM_PROFILE_FALLBACKS,
	KMEM_PROFILE_STALL,		/* nanoseconds */
	KMEM_PROFILE_NR_VALUES,
};

/* A key and its sums, in a period. */
struct kmem_profile_sample {
	struct kmem_profile_key	key;
	u64			values[KMEM_PROFILE_NR_VALUES];
};

/* A closed period: the samples of its keys that have a value. */
struct kmem_profile_period {
	u64				start;	/* trace time, ns */
	u64				length;	/* ns */
	struct kmem_profile_sample	*samples;
	size_t				nr;
};

struct kmem_profile;

/* An empty profile; NULL without memory. */
struct kmem_profile *kmem_profile__new(void);
void kmem_profile__delete(struct kmem_profile *kp);

/*
 * The id of @key (0, 1, 2... as first seen, for the whole trace), added
 * with sums of 0 if new; -ENOMEM.  Its padding is not compared.
 */
int kmem_profile__key(struct kmem_profile *kp, const struct kmem_profile_key *key);

/*
 * Add @n to sum @value of key @id in the current period: 0; -EINVAL for
 * an id kmem_profile__key() never returned or a value out of range.
 */
int kmem_profile__add(struct kmem_profile *kp, int id,
		      enum kmem_profile_value value, u64 n);

/*
 * End the current period, of @length ns from @start: it keeps the samples
 * with a value, by id, and every sum, inuse too, starts again at 0.
 * 0 or -ENOMEM.
 */
int kmem_profile__close(struct kmem_profile *kp, u64 start, u64 length);

size_t kmem_profile__nr_periods(const struct kmem_profile *kp);
/* Period @i, from 0; NULL past the last. */
const struct kmem_profile_period *
kmem_profile__period(const struct kmem_profile *kp, size_t i);

/* How the task key of the samples is labelled. */
enum kmem_profile_task {
	KMEM_PROFILE_TASK_NONE,
	KMEM_PROFILE_TASK_PID,
	KMEM_PROFILE_TASK_COMM,
};

/* The names the profile's labels and functions are written with. */
struct kmem_profile_names {
	/* A frame's function; NULL: unknown.  Lasts until the next call. */
	const char	*(*frame)(u64 ip, void *arg);
	/* The recording kernel's names of GFP flags. */
	const char	*(*gfp)(u64 gfp, void *arg);
	/* A migration type's name, in @buf or static. */
	const char	*(*migtype)(int migtype, char *buf, size_t size,
				    void *arg);
	/* The command name of a task key, with KMEM_PROFILE_TASK_COMM. */
	const char	*(*comm)(u32 task, void *arg);
	void		*arg;
};

/* The image the frames are in: the kernel. */
struct kmem_profile_image {
	u64		start;		/* first address */
	u64		limit;		/* the address after the last */
	const char	*file;		/* NULL: no image */
	const char	*build_id;	/* hex; NULL: unknown */
};

/* What a profile written says besides its samples. */
struct kmem_profile_write_config {
	u64				page_size;
	enum kmem_profile_task		task;
	bool				fallbacks;	/* the sample type */
	bool				stalls;		/* stall/nanoseconds */
	/* Added to trace times to make time_nanos: 0 keeps them. */
	s64				time_offset;
	const char * const		*comments;
	size_t				nr_comments;
	struct kmem_profile_image	kernel;
	struct kmem_profile_names	names;
};

/* A period to write; its strings are the run's, until its next fill. */
struct kmem_profile_view {
	const struct kmem_profile		*profile;
	size_t					period;
	const struct kmem_stacks		*stacks;
	struct kmem_profile_write_config	config;
};

#endif /* __PERF_KMEM_COUNT_PROFILE_H */
