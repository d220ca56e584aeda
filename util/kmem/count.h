/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_H
#define __PERF_KMEM_COUNT_H

/*
 * What the analyses of perf kmem share: events with their bytes, how much
 * of an allocation's life the trace saw, the page allocator's events and
 * migration types, how a count reads, and the small mechanisms each
 * analysis would otherwise write again: growing arrays, three-way
 * comparisons, sums by callsite.
 */

#include <errno.h>
#include <inttypes.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Orders above this cannot be real: the event is counted as invalid. */
#define KMEM_PAGE_MAX_ORDER	31
/* Can @order be of a real allocation: 0..KMEM_PAGE_MAX_ORDER? */
static inline bool kmem_page__valid_order(int order)
{
	return order >= 0 && order <= KMEM_PAGE_MAX_ORDER;
}

/* Largest migration type any kernel defines, with room to spare. */
#define KMEM_PAGE_MAX_MIGTYPE	15
/* pfn of a failed allocation, as the tracepoint records it (-1UL). */
#define KMEM_PAGE_NO_PFN	(~0ULL)

/* Columns of the order x migration type grid. */
enum kmem_migtype_column {
	KMEM_MIGTYPE_UNMOVABLE,
	KMEM_MIGTYPE_RECLAIMABLE,
	KMEM_MIGTYPE_MOVABLE,
	KMEM_MIGTYPE_SPECIAL,	/* HighAtomic, Reserve, CMA, Isolate, ... */
	KMEM_NR_MIGTYPE_COLUMNS,
};

/* Their names, in count-page.c, which sorts migration types into them. */
extern const char * const kmem_migtype_columns[KMEM_NR_MIGTYPE_COLUMNS];

/* One decoded mm_page_alloc or mm_page_free event. */
struct kmem_page_event {
	u64	pfn;		/* or struct page address on kernels < 4.1 */
	u64	gfp;		/* allocation only */
	u64	callsite;	/* allocation only; 0 when unknown */
	s16	order;		/* SHRT_MAX for any order too large */
	s16	migtype;	/* allocation only; SHRT_MAX if too large */
	s16	cpu_node;	/* node of the CPU that ran it, -1 if unknown */
	s16	page_node;	/* node the page lies on, -1 if unknown */
	/* Allocation only: the caller's tag of it, e.g. its callchain's. */
	u32	tag;
	/*
	 * Allocation only: the task that allocated, as the caller groups
	 * tasks (a pid, the id of a command name); rows differ by it.
	 */
	u32	task;
};

struct kmem_count {
	u64	nr;
	u64	bytes;
};

static inline void kmem_count__add(struct kmem_count *c, u64 bytes)
{
	c->nr++;
	c->bytes += bytes;
}

/* @nr events of @bytes in all. */
static inline void kmem_count__add_nr(struct kmem_count *c, u64 nr, u64 bytes)
{
	c->nr += nr;
	c->bytes += bytes;
}

/*
 * Successful allocations by what became of them: freed in the trace,
 * still allocated at its end, or handed out again before any free of them
 * was seen (freed on a path without a tracepoint).
 */
struct kmem_lifetime {
	struct kmem_count	freed;
	struct kmem_count	live;
	struct kmem_count	dropped;
	/* Live and dropped: set when the analysis is finished. */
	struct kmem_count	unfreed;
};

/* The allocations whose free the trace did not see. */
static inline struct kmem_count kmem_lifetime__unfreed(const struct kmem_lifetime *l)
{
	return (struct kmem_count){
		.nr = l->live.nr + l->dropped.nr,
		.bytes = l->live.bytes + l->dropped.bytes,
	};
}

/**
 * kmem_migtype__column - the grid column of a migration type
 * @migtype: the value the recording kernel traced
 * @pre_v4_4: the kernel is older than v4.4, which swapped Movable and
 *	      Reclaimable
 *
 * Return: the column; types other than the first three are Special.
 */
enum kmem_migtype_column kmem_migtype__column(int migtype, bool pre_v4_4);

/**
 * kmem_migtype__name - the recording kernel's name of a migration type
 * @migtype: the value the recording kernel traced
 * @pre_v4_4: the kernel is older than v4.4
 * @buf: where an unknown type's "type N" is written
 * @size: the size of @buf
 *
 * Return: a static name, or @buf.
 */
const char *kmem_migtype__name(int migtype, bool pre_v4_4, char *buf,
			       size_t size);

/* "12,345,678": thousands separators whatever the locale. */
static inline const char *kmem_commas(u64 v, char *buf, size_t size)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	size_t o = 0;
	int i;

	for (i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/*
 * Room in the array *@array, of *@size elements of @elem bytes, for @more
 * after its first @nr: it doubles (from 16) until they fit.  0 or -ENOMEM.
 */
static inline int kmem_grow(void *array, size_t *size, size_t nr,
			    size_t more, size_t elem)
{
	size_t want = *size ? *size : 16;
	void *p;

	if (nr + more <= *size)
		return 0;
	while (want < nr + more)
		want *= 2;
	p = realloc(*(void **)array, want * elem);
	if (!p)
		return -ENOMEM;
	*(void **)array = p;
	*size = want;
	return 0;
}

/* -1, 0 or 1 as @a is below, equal to or above @b, of any one type. */
#define kmem_cmp(a, b)	(((a) > (b)) - ((a) < (b)))

/* qsort() of u64s. */
static inline int kmem_cmp_u64s(const void *a, const void *b)
{
	return kmem_cmp(*(const u64 *)a, *(const u64 *)b);
}

/*
 * A sum over the rows of one callsite: a sort key of the allocation
 * table, looked up for each of a sort's comparisons.
 */
struct kmem_callsite_sum {
	u64	callsite;
	u64	sum;
};

/* Add @v to callsite's sum; rows come in callsite order, so it is last. */
static inline void kmem_callsite_sum__add(struct kmem_callsite_sum *sums,
					  size_t *nr, u64 callsite, u64 v)
{
	if (!*nr || sums[*nr - 1].callsite != callsite)
		sums[(*nr)++] = (struct kmem_callsite_sum){ .callsite = callsite };
	sums[*nr - 1].sum += v;
}

/* The sum of @callsite, by binary search; 0 for one without rows. */
static inline u64 kmem_callsite_sum__find(const struct kmem_callsite_sum *sums,
					  size_t nr, u64 callsite)
{
	size_t lo = 0, hi = sums ? nr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sums[mid].callsite == callsite)
			return sums[mid].sum;
		if (sums[mid].callsite < callsite)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

#endif /* __PERF_KMEM_COUNT_H */
