// SPDX-License-Identifier: GPL-2.0
/*
 * The page analysis over time: see count-interval.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count-interval.h"
#include "count-stall.h"
#include "hashmap.h"

/* The running totals a row is the difference of. */
struct totals {
	struct kmem_count	alloc;
	struct kmem_count	free;
	struct kmem_count	fail;
	struct kmem_count	free_other_node;
	struct kmem_count	fallbacks;
	struct kmem_count	classes[KMEM_FRAG_NR_CLASSES];
	u64			unfreed_bytes;	/* freed or dropped: gone */
	u64			stalls;
	u64			stall_ns;
};

struct kmem_interval {
	struct kmem_interval_config	config;
	bool				started;
	u64				first;		/* time of the first event */
	u64				end;		/* of the current interval */
	struct totals			last;		/* at its start */
	struct kmem_interval_row	*rows;
	size_t				nr_rows;
	size_t				max_rows;
	/* The current interval's allocations by callsite. */
	struct hashmap			*callers;	/* callsite -> kmem_count * */
};

static size_t callsite_hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static bool callsite_equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

struct kmem_interval *kmem_interval__new(const struct kmem_interval_config *config)
{
	struct kmem_interval *iv;

	if (!config->length)
		return NULL;
	iv = zalloc(sizeof(*iv));
	if (!iv)
		return NULL;
	iv->config = *config;
	if (config->nr_callers) {
		iv->callers = hashmap__new(callsite_hash, callsite_equal, NULL);
		if (IS_ERR(iv->callers)) {
			free(iv);
			return NULL;
		}
	}
	return iv;
}

static void forget_callers(struct kmem_interval *iv)
{
	struct hashmap_entry *e;
	size_t bkt;

	if (!iv->callers)
		return;
	hashmap__for_each_entry(iv->callers, e, bkt)
		free(e->pvalue);
	hashmap__clear(iv->callers);
}

void kmem_interval__delete(struct kmem_interval *iv)
{
	size_t i;

	if (!iv)
		return;
	forget_callers(iv);
	hashmap__free(iv->callers);
	for (i = 0; i < iv->nr_rows; i++)
		free(iv->rows[i].callers);
	free(iv->rows);
	free(iv);
}

static void read_totals(const struct kmem_interval *iv, struct totals *t,
			const struct kmem_page_summary *ps,
			const struct kmem_frag_summary *fs)
{
	const struct kmem_stall_dist *st = iv->config.stalls;
	int c;

	*t = (struct totals){
		.alloc = ps->alloc,
		.free = ps->free,
		.fail = ps->fail,
		.free_other_node = ps->free_other_node,
		.unfreed_bytes = ps->life.freed.bytes + ps->life.dropped.bytes,
		.stalls = st ? st->stalls : 0,
		.stall_ns = st ? st->total_ns : 0,
	};
	if (!fs)
		return;
	t->fallbacks = fs->fallbacks;
	for (c = 0; c < KMEM_FRAG_NR_CLASSES; c++)
		t->classes[c] = fs->classes[c];
}

static struct kmem_count count_diff(struct kmem_count now, struct kmem_count then)
{
	return (struct kmem_count){
		.nr = now.nr - then.nr,
		.bytes = now.bytes - then.bytes,
	};
}

static int by_bytes(const void *pa, const void *pb)
{
	const struct kmem_interval_caller *a = pa, *b = pb;

	return kmem_cmp(b->alloc.bytes, a->alloc.bytes) ?:
	       kmem_cmp(b->alloc.nr, a->alloc.nr) ?:
	       kmem_cmp(a->callsite, b->callsite);
}

/* The callsites of the interval that allocated the most, into @row. */
static int keep_callers(struct kmem_interval *iv, struct kmem_interval_row *row)
{
	struct kmem_interval_caller *all;
	struct hashmap_entry *e;
	size_t bkt, n = 0;

	if (!iv->callers || !hashmap__size(iv->callers))
		return 0;
	all = calloc(hashmap__size(iv->callers), sizeof(*all));
	if (!all)
		return -ENOMEM;
	hashmap__for_each_entry(iv->callers, e, bkt) {
		all[n].callsite = e->key;
		all[n++].alloc = *(struct kmem_count *)e->pvalue;
	}
	qsort(all, n, sizeof(*all), by_bytes);
	row->nr_callers = min(n, iv->config.nr_callers);
	row->callers = realloc(all, row->nr_callers * sizeof(*all)) ?: all;
	forget_callers(iv);
	return 0;
}

/*
 * Allocated and neither freed nor allocated again: exact from a trace.
 * With -b what is gone is estimated from the sampled allocations and may
 * come out above the exact allocations, when the pages still live are few.
 */
static u64 live_bytes(const struct totals *t)
{
	return t->alloc.bytes > t->unfreed_bytes ?
	       t->alloc.bytes - t->unfreed_bytes : 0;
}

/* End the current interval with the totals @now. */
static int close_interval(struct kmem_interval *iv, const struct totals *now)
{
	const struct totals *then = &iv->last;
	struct kmem_interval_row *row;
	int c;

	if (kmem_grow(&iv->rows, &iv->max_rows, iv->nr_rows, 1, sizeof(*row)))
		return -ENOMEM;
	row = &iv->rows[iv->nr_rows];
	*row = (struct kmem_interval_row){
		.start = iv->end - iv->config.length - iv->first,
		.time = iv->end - iv->config.length,
		.alloc = count_diff(now->alloc, then->alloc),
		.free = count_diff(now->free, then->free),
		.fail = count_diff(now->fail, then->fail),
		.free_other_node = count_diff(now->free_other_node,
					      then->free_other_node),
		.fallbacks = count_diff(now->fallbacks, then->fallbacks),
		.live_bytes = live_bytes(now),
		.stalls = now->stalls - then->stalls,
		.stall_ns = now->stall_ns - then->stall_ns,
	};
	for (c = 0; c < KMEM_FRAG_NR_CLASSES; c++)
		row->classes[c] = count_diff(now->classes[c], then->classes[c]);
	if (keep_callers(iv, row))
		return -ENOMEM;
	iv->nr_rows++;
	iv->last = *now;
	return 0;
}

int kmem_interval__advance(struct kmem_interval *iv, u64 time,
			   const struct kmem_page_summary *ps,
			   const struct kmem_frag_summary *fs)
{
	struct totals now;

	if (!iv->started) {
		iv->started = true;
		iv->first = time;
		iv->end = time + iv->config.length;
		read_totals(iv, &iv->last, ps, fs);
		return 0;
	}
	if (time < iv->end)
		return 0;
	read_totals(iv, &now, ps, fs);
	while (time >= iv->end) {
		if (close_interval(iv, &now))
			return -ENOMEM;
		iv->end += iv->config.length;
	}
	return 0;
}

int kmem_interval__alloc(struct kmem_interval *iv, u64 callsite, u64 bytes)
{
	struct kmem_count *count;

	if (!iv->callers)
		return 0;
	if (!hashmap__find(iv->callers, callsite, &count)) {
		count = zalloc(sizeof(*count));
		if (!count || hashmap__add(iv->callers, callsite, count)) {
			free(count);
			return -ENOMEM;
		}
	}
	kmem_count__add(count, bytes);
	return 0;
}

int kmem_interval__finish(struct kmem_interval *iv,
			  const struct kmem_page_summary *ps,
			  const struct kmem_frag_summary *fs)
{
	struct totals now;

	if (!iv->started)
		return 0;
	read_totals(iv, &now, ps, fs);
	return close_interval(iv, &now);
}

size_t kmem_interval__nr_rows(const struct kmem_interval *iv)
{
	return iv->nr_rows;
}

const struct kmem_interval_row *kmem_interval__row(const struct kmem_interval *iv,
						   size_t i)
{
	return i < iv->nr_rows ? &iv->rows[i] : NULL;
}

u64 kmem_interval__length(const struct kmem_interval *iv)
{
	return iv->config.length;
}
