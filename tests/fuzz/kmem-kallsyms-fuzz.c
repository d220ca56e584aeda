// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/read-kallsyms.c: any bytes as a kallsyms file
 * (the build-id cache's copy, or --kallsyms) must never crash the reader,
 * and what the table finds must be a symbol of the file that starts at or
 * below the address asked for.
 *
 * The input goes to a memfd, read through its /proc/self/fd path, so that
 * the file is mapped as a real one would be.
 */
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "read-kallsyms.h"

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-kallsyms-fuzz: invariant broken: %s\n", what);
	abort();
}

struct walk {
	u64	prev;
	size_t	nr;
	bool	first;
};

static void walk_sym(const struct kmem_ksym *sym, void *arg)
{
	struct walk *w = arg;

	check(w->first || sym->start > w->prev, "table sorted, no aliases");
	check(sym->len > 0, "names not empty");
	w->first = false;
	w->prev = sym->start;
	w->nr++;
}

static void probe(const struct kmem_kallsyms *ks, u64 addr)
{
	struct kmem_ksym sym;

	if (!kmem_kallsyms__find(ks, addr, &sym))
		return;
	check(sym.start <= addr, "symbol starts at or below the address");
	check(sym.len > 0 && !memchr(sym.name, '\n', sym.len),
	      "one line's name");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct walk w = { .first = true };
	struct kmem_kallsyms *ks;
	char path[64], err[256];
	size_t i;
	int fd;

	fd = memfd_create("kallsyms", 0);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ks = kmem_kallsyms__read(path, err, sizeof(err));
	if (ks) {
		kmem_kallsyms__for_each(ks, walk_sym, &w);
		check(w.nr > 0, "a table has symbols");
		/* Addresses taken from the input, and their neighbours. */
		for (i = 0; i + 8 <= size && i < 256; i += 8) {
			u64 addr;

			memcpy(&addr, data + i, sizeof(addr));
			probe(ks, addr);
			probe(ks, addr - 1);
		}
		probe(ks, 0);
		probe(ks, ~0ULL);
		kmem_kallsyms__address(ks, "_text", &(u64){ 0 });
		/* Any delta: the table stays sorted, without aliases. */
		if (size >= 8) {
			u64 delta;

			memcpy(&delta, data, sizeof(delta));
			kmem_kallsyms__relocate(ks, delta);
			w = (struct walk){ .first = true };
			kmem_kallsyms__for_each(ks, walk_sym, &w);
			probe(ks, delta);
		}
		kmem_kallsyms__delete(ks);
	} else {
		check(err[0] != '\0', "a refusal says why");
	}
	close(fd);
	return 0;
}
