// SPDX-License-Identifier: GPL-2.0
/*
 * The page analysis over time: see count-interval.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count-interval.h"
#include "count-stall.h"
#include "table-live.h"

struct kmem_interval {
	struct kmem_interval_config	config;
	bool				started;
	u64				first;		/* time of the first event */
	u64				end;		/* of the current interval */
	/* The running totals at its start: a row of the trace so far. */
	struct kmem_interval_row	last;
	struct kmem_interval_row	*rows;
	size_t				nr_rows;
	size_t				max_rows;
	/* The current interval's allocations by callsite (struct caller). */
	struct kmem_live		callers;
};

/* A slot of the callers: the callsite, 0, and its allocations. */
struct caller {
	u64			key[2];
	struct kmem_count	alloc;
};

static int callers_init(struct kmem_interval *iv)
{
	return kmem_live__init_keyed(&iv->callers, sizeof(struct caller), 2, 6);
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
	if (config->nr_callers && callers_init(iv)) {
		free(iv);
		return NULL;
	}
	return iv;
}

void kmem_interval__delete(struct kmem_interval *iv)
{
	size_t i;

	if (!iv)
		return;
	kmem_live__exit(&iv->callers);
	for (i = 0; i < iv->nr_rows; i++)
		free(iv->rows[i].callers);
	free(iv->rows);
	free(iv);
}

/*
 * The running totals, as a row of the trace so far.  Live bytes are those
 * allocated and neither freed nor allocated again: exact from a trace.
 * With -b what is gone is estimated from the sampled allocations and may
 * come out above the exact allocations, when the pages still live are few.
 */
static void read_totals(const struct kmem_interval *iv,
			struct kmem_interval_row *t,
			const struct kmem_page_summary *ps,
			const struct kmem_frag_summary *fs)
{
	const struct kmem_stall_dist *st = iv->config.stalls;
	u64 gone = ps->life.freed.bytes + ps->life.dropped.bytes;
	int c;

	*t = (struct kmem_interval_row){
		.alloc = ps->alloc,
		.free = ps->free,
		.fail = ps->fail,
		.free_other_node = ps->free_other_node,
		.live_bytes = ps->alloc.bytes > gone ? ps->alloc.bytes - gone : 0,
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

static void collect_caller(void *slot, void *arg)
{
	struct kmem_interval_row *row = arg;
	struct caller *c = slot;

	row->callers[row->nr_callers++] = (struct kmem_interval_caller){
		.callsite = c->key[0], .alloc = c->alloc,
	};
}

/* The callsites of the interval that allocated the most, into @row. */
static int keep_callers(struct kmem_interval *iv, struct kmem_interval_row *row)
{
	size_t n = iv->callers.nr;

	if (!n)
		return 0;
	row->callers = calloc(n, sizeof(*row->callers));
	if (!row->callers)
		return -ENOMEM;
	kmem_live__for_each(&iv->callers, collect_caller, row);
	qsort(row->callers, n, sizeof(*row->callers), by_bytes);
	row->nr_callers = min(n, iv->config.nr_callers);
	row->callers = realloc(row->callers, row->nr_callers *
			       sizeof(*row->callers)) ?: row->callers;
	/* The next interval's begin with none. */
	kmem_live__exit(&iv->callers);
	return callers_init(iv);
}

/* End the current interval with the totals @now. */
static int close_interval(struct kmem_interval *iv,
			  const struct kmem_interval_row *now)
{
	const struct kmem_interval_row *then = &iv->last;
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
		.live_bytes = now->live_bytes,
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
	struct kmem_interval_row now;

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
	u64 key[2] = { callsite, 0 };
	struct caller *c;

	if (!iv->config.nr_callers)
		return 0;
	c = kmem_live__probe_key(&iv->callers, key, 2,
				 kmem_live__hash_words(key, 2));
	if (kmem_live__empty_mark(c, 2)) {
		c = kmem_live__add(&iv->callers, c, key);
		if (!c)
			return -ENOMEM;
	}
	kmem_count__add(&c->alloc, bytes);
	return 0;
}

int kmem_interval__finish(struct kmem_interval *iv,
			  const struct kmem_page_summary *ps,
			  const struct kmem_frag_summary *fs)
{
	struct kmem_interval_row now;

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
