/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_STACKS_H
#define __PERF_KMEM_COUNT_STACKS_H

/*
 * Folded stacks of allocations for flame graphs (flamegraph.pl, inferno,
 * speedscope): kernel callchains go in, "root;...;leaf value" lines come
 * out.
 *
 * The caller interns each callchain as perf gives it, leaf first, with
 * the allocator's own frames (and perf's context markers) already dropped,
 * and gets a small id per distinct chain; it adds the bytes and hits of
 * each allocation to its chain's id (for --live, of each page still
 * allocated at the end).  kmem_stacks__write() names each distinct
 * address once, through the caller's callback, and writes one line per
 * distinct sequence of names with a non-zero value: chains whose
 * addresses differ but whose names are the same (two call sites in one
 * function) are one line.  Lines are sorted by their names, frame by frame
 * from the root, a shorter stack before the longer ones it begins.
 */

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

enum kmem_stacks_weight {
	KMEM_STACKS_BYTES,
	KMEM_STACKS_HITS,
};

/*
 * The name of the frame at @ip, or NULL if unknown (then written as its
 * address).  The string need only last until the next call.  ';' (the
 * separator), blanks and control characters in a name are written as
 * '_'.
 */
typedef const char *(*kmem_stacks_name_fn)(u64 ip, void *arg);

struct kmem_stacks;

/* An empty set of callchains; NULL without memory. */
struct kmem_stacks *kmem_stacks__new(void);
void kmem_stacks__delete(struct kmem_stacks *st);

/*
 * The id of the chain @ips[0..@nr), leaf first, added if new: 0, 1, 2...
 * in order of first sight.  A chain of no frames is written "[unknown]".
 * -ENOMEM, or -EINVAL for more than KMEM_STACKS_MAX_FRAMES frames.
 */
#define KMEM_STACKS_MAX_FRAMES	4096
int kmem_stacks__intern(struct kmem_stacks *st, const u64 *ips, size_t nr);

/*
 * The frames of chain @id, leaf first, *@nr of them; NULL for an id
 * never returned.  They hold until the next kmem_stacks__intern().
 */
const u64 *kmem_stacks__frames(const struct kmem_stacks *st, int id,
			       size_t *nr);

/* Add to chain @id's weight.  0, or -EINVAL for an id never returned. */
int kmem_stacks__add(struct kmem_stacks *st, int id, u64 bytes, u64 hits);

/*
 * Write the folded lines of @weight to @fp, naming frames with @name_of.
 * 0, -ENOMEM, or -errno if @fp failed.  Lines written: *@nr_lines if not
 * NULL.
 */
int kmem_stacks__write(struct kmem_stacks *st, enum kmem_stacks_weight weight,
		       kmem_stacks_name_fn name_of, void *arg, FILE *fp,
		       size_t *nr_lines);

#endif /* __PERF_KMEM_COUNT_STACKS_H */
