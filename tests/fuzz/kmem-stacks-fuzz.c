// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/count-stacks.c: callchains of any length and
 * addresses (perf.data is untrusted) and frame names of any bytes (so is
 * a kallsyms file).  The input is a program of intern and add steps;
 * weights are modelled here per id.  The folded output must be
 * lines of "frame;...;frame value" with no blank or empty frame, values
 * adding up to the model's total, at most one line per chain with a
 * weight, and each address named at most once.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "count-stacks.h"

#define MAX_IDS		512
#define MAX_CHAIN	40
#define NR_ADDRS	64	/* addresses are drawn from a small pool */

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-stacks-fuzz: invariant broken: %s\n", what);
	abort();
}

struct program {
	const u8	*p, *end;
};

static u8 take_byte(struct program *pg)
{
	return pg->p < pg->end ? *pg->p++ : 0;
}

struct state {
	u64	bytes[MAX_IDS];
	u64	hits[MAX_IDS];
	int	nr_ids;
	char	names[NR_ADDRS][16];	/* from the input, any bytes */
	int	calls[NR_ADDRS];
};

/* Kernel-looking addresses, and the top of the address space. */
#define NR_HIGH		16
#define KERNEL_BASE	0xffffffff81000000ULL

static u64 addr(u8 b)
{
	b %= NR_ADDRS;
	return b < NR_ADDRS - NR_HIGH ? KERNEL_BASE + b : ~0ULL - (b % NR_HIGH);
}

static int addr_index(u64 ip)
{
	if (ip >= ~0ULL - (NR_HIGH - 1))
		return NR_ADDRS - NR_HIGH + (~0ULL - ip);
	check(ip >= KERNEL_BASE && ip < KERNEL_BASE + NR_ADDRS - NR_HIGH,
	      "only addresses of the chains are named");
	return ip - KERNEL_BASE;
}

static const char *name_of(u64 ip, void *arg)
{
	struct state *s = arg;
	int i = addr_index(ip);

	s->calls[i]++;
	/* An empty name stands for an unknown one: NULL. */
	return s->names[i][0] ? s->names[i] : NULL;
}

static void step(struct kmem_stacks *st, struct state *s, struct program *pg)
{
	u64 ips[MAX_CHAIN];
	u8 op = take_byte(pg);
	int id, n, i;
	u64 bytes, hits;

	if (op % 2 == 0 || !s->nr_ids) {
		n = take_byte(pg) % MAX_CHAIN;
		for (i = 0; i < n; i++)
			ips[i] = addr(take_byte(pg));
		id = kmem_stacks__intern(st, ips, n);
		check(id >= 0 && id <= s->nr_ids, "ids count up from 0");
		if (id == s->nr_ids && s->nr_ids < MAX_IDS)
			s->nr_ids++;
		return;
	}
	id = take_byte(pg) % s->nr_ids;
	bytes = 4096ULL << (take_byte(pg) % 12);
	hits = 1;
	check(!kmem_stacks__add(st, id, bytes, hits), "add");
	s->bytes[id] += bytes;
	s->hits[id] += hits;
}

/* Each line well formed; returns the sum of the values. */
static u64 check_lines(char *text, size_t len, size_t nr_lines)
{
	char *line = text, *end = text + len;
	size_t lines = 0;
	u64 sum = 0;

	check(!len || text[len - 1] == '\n', "lines end with a newline");
	while (line < end) {
		char *nl = memchr(line, '\n', end - line);
		char *sp = memchr(line, ' ', nl - line);
		char *p, *num;

		check(sp && sp > line, "a stack, a blank");
		num = sp + 1;
		check(num < nl && !memchr(num, ' ', nl - num), "one blank");
		for (p = line; p < sp; p++) {
			check((unsigned char)*p > ' ' && *p != 0x7f,
			      "no blank or control in a frame");
			check(*p != ';' || (p > line && p[-1] != ';' &&
					    p + 1 < sp), "no empty frame");
		}
		*nl = '\0';
		sum += strtoull(num, &p, 10);
		check(p == nl && *num != '0', "a positive decimal value");
		line = nl + 1;
		lines++;
	}
	check(lines == nr_lines, "as many lines as said");
	return sum;
}

static void check_write(struct kmem_stacks *st, struct state *s,
			enum kmem_stacks_weight w)
{
	const u64 *want = w == KMEM_STACKS_BYTES ? s->bytes : s->hits;
	size_t len = 0, nr_lines = 0, chains = 0;
	char *text = NULL;
	u64 total = 0;
	FILE *fp;
	int i;

	for (i = 0; i < s->nr_ids; i++) {
		total += want[i];
		chains += want[i] != 0;
	}
	memset(s->calls, 0, sizeof(s->calls));
	fp = open_memstream(&text, &len);
	check(fp, "memstream");
	check(!kmem_stacks__write(st, w, name_of, s, fp, &nr_lines), "write");
	fclose(fp);
	check(check_lines(text, len, nr_lines) == total, "values add up");
	check(nr_lines <= chains, "at most a line per chain");
	for (i = 0; i < NR_ADDRS; i++)
		check(s->calls[i] <= 1, "each address named once");
	free(text);
}

static struct state state;

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct program pg = { .p = data, .end = data + size };
	struct kmem_stacks *st = kmem_stacks__new();
	int i;

	check(st, "new");
	memset(&state, 0, sizeof(state));
	for (i = 0; i < NR_ADDRS; i++) {
		int k, n = take_byte(&pg) % sizeof(state.names[i]);

		for (k = 0; k < n; k++)
			state.names[i][k] = take_byte(&pg);
	}
	while (pg.p < pg.end && state.nr_ids < MAX_IDS)
		step(st, &state, &pg);
	check_write(st, &state, KMEM_STACKS_BYTES);
	check_write(st, &state, KMEM_STACKS_HITS);
	kmem_stacks__delete(st);
	return 0;
}
