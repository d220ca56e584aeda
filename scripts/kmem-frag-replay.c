// SPDX-License-Identifier: GPL-2.0
/*
 * Replay decoded events through util/kmem-frag.c and print its numbers as
 * kmem-frag-count.py prints its own, so that the two can be compared line
 * by line on a real recording before perf kmem stat prints them.
 *
 *   kmem-frag-replay PAGEBLOCK_ORDER PAGE_SIZE < events
 *
 * The events are those kmem-frag-count.py --events writes: "F pfn cs ao fo
 * amt fmt co", "A pfn order mt gfp cs" (pfn -1: a failure), then "C id
 * name" and "G id gfp" naming the callsites and GFP flags.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-frag.h"

#define MAX_NAMES	65536
#define TOP		10

static char *callsites[MAX_NAMES], *gfps[MAX_NAMES];

static const char *name_of(char **names, u64 id)
{
	return id < MAX_NAMES && names[id] ? names[id] : "(unknown)";
}

static const char *column_name(int col)
{
	static const char * const names[] = {
		"Unmovable", "Reclaimable", "Movable", "Special",
	};

	return names[col];
}

static const char *type_name(int mt, char *buf, size_t size)
{
	return kmem_migtype__name(mt, false, buf, size);
}

static const char * const class_names[] = { "claimed", "converted", "polluted" };

static int feed(struct kmem_frag *kf, FILE *in)
{
	char line[4096], name[4096];
	unsigned long long id;
	long long pfn;
	int ao, fo, amt, fmt, co, order, mt;
	unsigned long long gfp, cs;

	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "F %lld %llu %d %d %d %d %d", &pfn, &cs, &ao,
			   &fo, &amt, &fmt, &co) == 7) {
			struct kmem_frag_event ev = {
				.pfn = pfn, .callsite = cs, .alloc_order = ao,
				.fallback_order = fo, .alloc_migtype = amt,
				.fallback_migtype = fmt, .change_ownership = co,
			};

			if (kmem_frag__fallback(kf, &ev))
				return -1;
		} else if (sscanf(line, "A %lld %d %d %llu %llu", &pfn, &order,
				  &mt, &gfp, &cs) == 5) {
			struct kmem_page_event ev = {
				.pfn = pfn < 0 ? KMEM_PAGE_NO_PFN : (u64)pfn,
				.order = order, .migtype = mt, .gfp = gfp,
				.callsite = cs, .cpu_node = -1, .page_node = -1,
			};

			if (kmem_frag__alloc(kf, &ev))
				return -1;
		} else if (sscanf(line, "C %llu %4095[^\n]", &id, name) == 2 &&
			   id < MAX_NAMES) {
			callsites[id] = strdup(name);
		} else if (sscanf(line, "G %llu %4095[^\n]", &id, name) == 2 &&
			   id < MAX_NAMES) {
			gfps[id] = strdup(name);
		}
	}
	return kmem_frag__finish(kf);
}

static void print_count(const char *key, const struct kmem_count *c)
{
	if (!c->nr)
		return;
	printf("%s %llu\n%s.bytes %llu\n", key, (unsigned long long)c->nr, key,
	       (unsigned long long)c->bytes);
}

static void print_n(const char *key, u64 n)
{
	if (n)
		printf("%s %llu\n", key, (unsigned long long)n);
}

static void print_summary(struct kmem_frag *kf, int pbo)
{
	const struct kmem_frag_summary *s = kmem_frag__summary(kf);
	char key[256];
	int c, r, k;

	printf("frag.pageblock_order %d\n", pbo);
	print_count("frag.fallbacks", &s->fallbacks);
	for (k = 0; k < KMEM_FRAG_NR_CLASSES; k++) {
		snprintf(key, sizeof(key), "frag.%s", class_names[k]);
		print_count(key, &s->classes[k]);
	}
	print_count("frag.severe", &s->severe);
	print_count("frag.fail", &s->fail);
	for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++) {
		snprintf(key, sizeof(key), "frag.alloc.%s", column_name(c));
		print_count(key, &s->alloc[c]);
		snprintf(key, sizeof(key), "frag.blocks.%s", column_name(c));
		print_n(key, s->blocks.by_column[c]);
	}
	print_n("frag.blocks.allocated", s->blocks.allocated);
	print_n("frag.blocks.mixed", s->blocks.mixed);
	print_n("frag.blocks.unmovable_or_reclaimable",
		s->blocks.unmovable_or_reclaimable);
	print_n("frag.blocks.fallback_only", s->blocks.fallback_only);
	for (r = 0; r < KMEM_NR_MIGTYPE_COLUMNS; r++) {
		for (c = 0; c < KMEM_NR_MIGTYPE_COLUMNS; c++) {
			const struct kmem_frag_cell *cell = kmem_frag__cell(kf, r, c);

			snprintf(key, sizeof(key), "frag.matrix.%s.%s.fallbacks",
				 column_name(r), column_name(c));
			print_n(key, cell->fallbacks);
			for (k = 0; k < KMEM_FRAG_NR_CLASSES; k++) {
				snprintf(key, sizeof(key), "frag.matrix.%s.%s.%s",
					 column_name(r), column_name(c),
					 class_names[k]);
				print_n(key, cell->classes[k]);
			}
		}
	}
}

/* A callsite's totals over its rows. */
struct caller {
	const char	*name;
	u64		fallbacks, bytes, severe, classes[KMEM_FRAG_NR_CLASSES];
};

static int cmp_caller(const void *pa, const void *pb)
{
	const struct caller *a = pa, *b = pb;
	u64 fa = a->classes[1] + a->classes[2], fb = b->classes[1] + b->classes[2];

	if (fa != fb)
		return fa > fb ? -1 : 1;
	if (a->fallbacks != b->fallbacks)
		return a->fallbacks > b->fallbacks ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void print_row(const struct kmem_frag_row *row)
{
	char key[512], t1[32], t2[32];
	int k;

	snprintf(key, sizeof(key), "frag.row.%s.%s.%s",
		 name_of(callsites, row->callsite),
		 type_name(row->alloc_migtype, t1, sizeof(t1)),
		 type_name(row->fallback_migtype, t2, sizeof(t2)));
	printf("%s.fallbacks %llu\n%s.bytes %llu\n", key,
	       (unsigned long long)row->fallbacks.nr, key,
	       (unsigned long long)row->fallbacks.bytes);
	for (k = 0; k < KMEM_FRAG_NR_CLASSES; k++) {
		if (row->classes[k])
			printf("%s.%s %llu\n", key, class_names[k],
			       (unsigned long long)row->classes[k]);
	}
	if (row->severe)
		printf("%s.severe %llu\n", key, (unsigned long long)row->severe);
}

static void print_callers(struct kmem_frag *kf)
{
	struct kmem_frag_row **rows;
	struct caller *callers;
	size_t nr, i, n = 0, j;
	int k;

	rows = kmem_frag__rows(kf, NULL, 0, &nr);
	callers = calloc(nr + 1, sizeof(*callers));
	if (!rows || !callers)
		exit(1);
	for (i = 0; i < nr; i++) {
		const char *name = name_of(callsites, rows[i]->callsite);

		print_row(rows[i]);
		for (j = 0; j < n && strcmp(callers[j].name, name); j++)
			;
		if (j == n)
			callers[n++].name = name;
		callers[j].fallbacks += rows[i]->fallbacks.nr;
		callers[j].bytes += rows[i]->fallbacks.bytes;
		callers[j].severe += rows[i]->severe;
		for (k = 0; k < KMEM_FRAG_NR_CLASSES; k++)
			callers[j].classes[k] += rows[i]->classes[k];
	}
	qsort(callers, n, sizeof(*callers), cmp_caller);
	for (i = 0; i < n; i++) {
		const struct caller *c = &callers[i];

		printf("frag.caller.%s.fallbacks %llu\n", c->name,
		       (unsigned long long)c->fallbacks);
		printf("frag.caller.%s.bytes %llu\n", c->name,
		       (unsigned long long)c->bytes);
		if (c->severe)
			printf("frag.caller.%s.severe %llu\n", c->name,
			       (unsigned long long)c->severe);
		for (k = 0; k < KMEM_FRAG_NR_CLASSES; k++)
			if (c->classes[k])
				printf("frag.caller.%s.%s %llu\n", c->name,
				       class_names[k],
				       (unsigned long long)c->classes[k]);
		if (c->classes[1] + c->classes[2])
			printf("frag.caller.%s.fragmenting %llu\n", c->name,
			       (unsigned long long)(c->classes[1] + c->classes[2]));
		if (i < TOP)
			printf("frag.top.%zu %s\n", i + 1, c->name);
	}
	free(callers);
}

static void print_failures(struct kmem_frag *kf)
{
	struct kmem_frag_fail_row **rows;
	char key[8192], t[32];
	size_t nr, i;

	rows = kmem_frag__fail_rows(kf, NULL, 0, &nr);
	for (i = 0; rows && i < nr; i++) {
		snprintf(key, sizeof(key), "frag.fail.%s.%d.%s.%s",
			 name_of(callsites, rows[i]->callsite), rows[i]->order,
			 type_name(rows[i]->migtype, t, sizeof(t)),
			 name_of(gfps, rows[i]->gfp));
		print_count(key, &rows[i]->asked);
	}
}

int main(int argc, char **argv)
{
	struct kmem_frag_config config = { 0 };
	struct kmem_frag *kf;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PAGEBLOCK_ORDER PAGE_SIZE < events\n",
			argv[0]);
		return 2;
	}
	config.pageblock_order = atoi(argv[1]);
	config.page_size = strtoull(argv[2], NULL, 0);
	kf = kmem_frag__new(&config);
	if (!kf || feed(kf, stdin)) {
		fprintf(stderr, "kmem-frag-replay: cannot replay the events\n");
		return 1;
	}
	print_summary(kf, config.pageblock_order);
	print_callers(kf);
	print_failures(kf);
	kmem_frag__delete(kf);
	return 0;
}
