/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_KALLSYMS_H
#define __PERF_KMEM_READ_KALLSYMS_H

/*
 * The kernel symbols of a kallsyms file, as a sorted table, for resolving
 * the few thousand distinct addresses of a kmem trace.
 *
 * perf's dso__load() of the same file builds an rb-tree of every symbol,
 * splits the module symbols into maps of their own and, on a trace of a
 * million samples, takes a quarter of perf kmem's time.  The table reads
 * the file in place (mmap) and keeps 16 bytes a symbol.  Lookups give what
 * perf's own lookup gives: the symbols of types T, W, D and B, a symbol
 * ending where the next begins (a page past its start at the end of the
 * kernel or of a module), and of symbols at one address, the last.
 */

#include <linux/types.h>
#include <stddef.h>

struct kmem_kallsyms;

/* Read @path, "/proc/kallsyms" format.  NULL and @err set on failure. */
struct kmem_kallsyms *kmem_kallsyms__read(const char *path, char *err,
					  size_t err_size);
void kmem_kallsyms__delete(struct kmem_kallsyms *ks);

/*
 * Move the symbols of vmlinux down by @delta, where another boot (KASLR)
 * put the kernel; drop the modules', which moved each by its own.
 */
void kmem_kallsyms__relocate(struct kmem_kallsyms *ks, u64 delta);

/* A symbol's name, not NUL terminated in the file. */
struct kmem_ksym {
	u64		start;
	const char	*name;
	int		len;
};

/* The symbol @addr is in; false if none. */
bool kmem_kallsyms__find(const struct kmem_kallsyms *ks, u64 addr,
			 struct kmem_ksym *sym);

/* The address of the symbol @name in the file; false if none. */
bool kmem_kallsyms__address(const struct kmem_kallsyms *ks, const char *name,
			    u64 *addr);

/* Call @fn for every symbol of the table, in address order. */
void kmem_kallsyms__for_each(const struct kmem_kallsyms *ks,
			     void (*fn)(const struct kmem_ksym *sym, void *arg),
			     void *arg);

#endif /* __PERF_KMEM_READ_KALLSYMS_H */
