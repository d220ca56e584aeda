/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_PRINT_PPROF_H
#define __PERF_KMEM_PRINT_PPROF_H

/*
 * A writer of Google's pprof format: profile.proto of
 * github.com/google/pprof, gzip-compressed, as go tool pprof, Pyroscope
 * and Parca read it.  Samples go in as stacks of addresses with their
 * values and labels; the profile comes out, with its string table
 * (index 0 is ""), one location per distinct address, one function per
 * distinct name, and the mappings the addresses fall into.
 *
 * The caller names each distinct address once, through a callback, the
 * first time a sample has it.  Everything is held in memory until
 * kmem_pprof__encode() or kmem_pprof__write(): samples are encoded as
 * they are added, and the tables they refer to are written after them.
 * No global state, no perf headers: a fuzz target builds it alone.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Values of a sample: as many as the profile has sample types. */
#define KMEM_PPROF_MAX_VALUES	8

/* What a value means: e.g. "alloc_space" in "bytes". */
struct kmem_pprof_type {
	const char	*type;
	const char	*unit;
};

/*
 * The name of the function at @addr, or NULL if unknown: the location
 * then has no line.  The string need only last until the next call.
 */
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

/**
 * kmem_pprof__new - an empty profile
 * @config: its sample types, period, times and the namer of addresses;
 *	copied, strings interned
 *
 * Return: the profile; NULL without memory, or for a number of sample
 * types out of range or one without a type or unit.
 */
struct kmem_pprof *kmem_pprof__new(const struct kmem_pprof_config *config);

/* Free a profile, or NULL. */
void kmem_pprof__delete(struct kmem_pprof *p);

/* Add a line of free text, which pprof shows: 0, -ENOMEM. */
int kmem_pprof__add_comment(struct kmem_pprof *p, const char *text);

/**
 * kmem_pprof__add_mapping - an image that addresses belong to
 * @p: the profile
 * @m: the image; its strings are copied
 *
 * Add mappings before the samples: an address is given the first
 * mapping added whose range holds it, or none, when it is first seen.
 *
 * Return: the mapping's id (1, 2...); -EINVAL for an empty range or a
 * mapping added after a sample; -ENOMEM.
 */
int kmem_pprof__add_mapping(struct kmem_pprof *p,
			    const struct kmem_pprof_mapping *m);

/**
 * kmem_pprof__add_location - the location of an address, ahead of its samples
 * @p: the profile
 * @addr: the address
 *
 * Locations, and the functions they name, get their ids in the order
 * their addresses are first seen.  Adding every address in address
 * order first makes the location table compress better: neighbours
 * share their high bytes, and their ids are the same small numbers.
 *
 * Return: the location's id (1, 2...), that of @addr's if it has one;
 * -ENOMEM.
 */
s64 kmem_pprof__add_location(struct kmem_pprof *p, u64 addr);

/**
 * kmem_pprof__add_sample - a stack with its values and labels
 * @p: the profile
 * @addrs: the stack's addresses, leaf first, as profile.proto has it
 * @nr: how many; 0 is a sample without a stack
 * @values: one per sample type
 * @labels: the sample's labels
 * @nr_labels: how many
 *
 * New addresses get a location each, named through the config's
 * namer, and new names a function each.  Samples are not merged: the
 * caller adds each stack and label set once.
 *
 * Return: 0; -EINVAL for a label without a key, or with a unit on a
 * string; -ENOMEM.
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

/**
 * kmem_pprof__encode - the profile as protobuf bytes, not compressed
 * @p: the profile
 * @len: set to the number of bytes
 *
 * The fields of each message are in the order of their numbers; fields
 * of value 0 are left out, as proto3 does, and repeated numbers are
 * packed.
 *
 * Return: the bytes, which belong to @p and last until the next call
 * or kmem_pprof__delete(); NULL without memory.
 */
const u8 *kmem_pprof__encode(struct kmem_pprof *p, size_t *len);

/**
 * kmem_pprof__write - the profile, gzip-compressed, as pprof files are
 * @p: the profile
 * @fp: where it goes
 *
 * Return: 0; -ENOMEM; -EIO when @fp could not be written.
 */
int kmem_pprof__write(struct kmem_pprof *p, FILE *fp);

struct kmem_profile;
struct kmem_profile_write_config;
struct kmem_stacks;

/**
 * kmem_profile__pprof - a period of a memory profile (count-profile.h) as pprof
 * @kp: the profile
 * @period: which period
 * @st: the callchains of the keys' chain ids
 * @c: what the profile says besides its samples
 *
 * One sample per key of the period, in the order of their stacks from
 * the root, its chain's frames as locations (in address order), leaf
 * first, labelled bytes (the size of one allocation), order,
 * migration type, GFP flags, node and, with a task key, pid or comm.
 * In print-profile.c: the writer alone builds without the analyses.
 *
 * Return: the profile, for kmem_pprof__write(); NULL without memory or
 * for a period that does not exist.
 */
struct kmem_pprof *kmem_profile__pprof(const struct kmem_profile *kp,
				       size_t period,
				       const struct kmem_stacks *st,
				       const struct kmem_profile_write_config *c);

#endif /* __PERF_KMEM_PRINT_PPROF_H */
