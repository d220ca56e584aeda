/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_PPROF_H
#define __PERF_KMEM_PRINT_PPROF_H

/*
 * A writer of Google's pprof format: profile.proto of
 * github.com/google/pprof, gzip-compressed, as go tool pprof, Pyroscope
 * and Parca read it.  Samples go in as stacks of addresses with their
 * values and labels; the profile comes out with one location per
 * distinct address, named once through a callback, one function per
 * distinct name, and the mappings the addresses fall into.  Samples are
 * encoded as they are added, the tables they refer to after them.  No
 * global state, no perf headers: a fuzz target builds it alone.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KMEM_PPROF_MAX_VALUES	8

/* What a value means: e.g. "alloc_space" in "bytes". */
struct kmem_pprof_type {
	const char	*type;
	const char	*unit;
};

/* The function at @addr, or NULL: no line.  Lasts until the next call. */
typedef const char *(*kmem_pprof_name_fn)(u64 addr, void *arg);

struct kmem_pprof_config {
	const struct kmem_pprof_type	*sample_types;
	size_t				nr_sample_types; /* 1..MAX_VALUES */
	/* The type of the preferred value; NULL: the last, as pprof does. */
	const char			*default_sample_type;
	struct kmem_pprof_type		period_type;	/* .type NULL: none */
	s64				period;
	s64				time_nanos;	/* 0: not said */
	s64				duration_nanos;	/* 0: not said */
	kmem_pprof_name_fn		name_of;	/* NULL: no names */
	void				*arg;
};

/* An image the addresses are in: the kernel, a module. */
struct kmem_pprof_mapping {
	u64		start;		/* first address */
	u64		limit;		/* the address after the last */
	u64		offset;		/* file offset of start */
	const char	*file;		/* e.g. "[kernel.kallsyms]" */
	const char	*build_id;	/* hex; NULL: unknown */
	bool		has_functions;	/* names are given, do not look */
};

/*
 * A label of a sample: a string, or a number in a unit.  pprof drops
 * a numeric label whose number and unit are both 0: give a unit to a
 * number that can be 0.
 */
struct kmem_pprof_label {
	const char	*key;
	const char	*str;		/* NULL: a numeric label */
	s64		num;
	const char	*unit;		/* of num; NULL: none */
};

struct kmem_pprof;

/*
 * An empty profile of @config, which it copies; NULL without memory, or
 * for a number of sample types out of range or one without a name.
 */
struct kmem_pprof *kmem_pprof__new(const struct kmem_pprof_config *config);
void kmem_pprof__delete(struct kmem_pprof *p);

/* Add a line of free text, which pprof shows: 0, -ENOMEM. */
int kmem_pprof__add_comment(struct kmem_pprof *p, const char *text);

/*
 * An image, before the samples: an address is in the first whose range
 * holds it.  Its id (1, 2...); -EINVAL for an empty range or a mapping
 * after a sample; -ENOMEM.
 */
int kmem_pprof__add_mapping(struct kmem_pprof *p,
			    const struct kmem_pprof_mapping *m);

/*
 * The location id of @addr (1, 2...), added if new; -ENOMEM.  Ids go in
 * the order addresses are first seen: adding them in address order
 * before the samples makes the table compress better.
 */
s64 kmem_pprof__add_location(struct kmem_pprof *p, u64 addr);

/*
 * A sample: @nr addresses, leaf first, a value per sample type and its
 * labels.  Samples are not merged.  0; -EINVAL for a label without a
 * key, or with a unit on a string; -ENOMEM.
 */
int kmem_pprof__add_sample(struct kmem_pprof *p, const u64 *addrs, size_t nr,
			   const s64 *values,
			   const struct kmem_pprof_label *labels,
			   size_t nr_labels);

/* Samples, distinct locations and functions so far; strings with "". */
struct kmem_pprof_sizes {
	size_t	samples, locations, functions, strings;
};

struct kmem_pprof_sizes kmem_pprof__sizes(const struct kmem_pprof *p);

/*
 * The profile as protobuf bytes, @len of them, not compressed: fields in
 * the order of their numbers, 0 left out as proto3 does, repeated numbers
 * packed.  They are @p's, until the next call; NULL without memory.
 */
const u8 *kmem_pprof__encode(struct kmem_pprof *p, size_t *len);

/* The profile, gzip-compressed, to @fp: 0; -ENOMEM; -errno. */
int kmem_pprof__write(struct kmem_pprof *p, FILE *fp);

struct kmem_profile;
struct kmem_profile_write_config;
struct kmem_stacks;

/*
 * Period @period of a memory profile (count-profile.h) as pprof, its
 * chains in @st: a sample per key, in the order of their stacks from the
 * root, labelled bytes (of one allocation), order, migration type, GFP
 * flags, node and pid or comm.  NULL without memory or for no such
 * period.  In print-profile.c, so that the writer builds alone.
 */
struct kmem_pprof *kmem_profile__pprof(const struct kmem_profile *kp,
				       size_t period,
				       const struct kmem_stacks *st,
				       const struct kmem_profile_write_config *c);

#endif /* __PERF_KMEM_PRINT_PPROF_H */
