// SPDX-License-Identifier: GPL-2.0
/*
 * Fragmentation analysis for perf kmem.
 *
 * The pageblocks sit in a keyed table (table-live.h) by their first pfn,
 * never a deletion: every allocation looks its pageblock up, and a
 * machine has tens of thousands of them.
 * Allocations come in runs from one pageblock, so the last one found is
 * tried first.  After the last event the table is packed and sorted by
 * pfn in place: it is then the array kmem_frag__pageblocks() returns.
 *
 * The three tables are kmem_rows (table-live.h): fallbacks by callsite and
 * pair of types, failures by callsite, order, type and GFP, pinning pages
 * by callsite and task.
 *
 * What a thread's fallbacks owe its next allocation sits in a small
 * keyed table by tid, empty but for the threads between a fragmenting
 * fallback and their allocation.  The pinning pages come once, after the
 * last event, into an array that kmem_frag__finish() sorts to count the
 * distinct pageblocks of each row.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count-frag.h"
#include "table-live.h"

/* The log2 of the pageblock table's slots to begin with. */
#define BLOCKS_BITS	10
/* The first pfn of no pageblock: an empty slot's key. */
#define NO_BLOCK	KMEM_LIVE_EMPTY

/* Threads owed fallbacks: a slot of kmem_frag::owed. */
struct owed {
	u64	tid;		/* the key */
	u64	fragmenting;
	u64	callsite;	/* of the fallbacks owed */
	/* The first pfn of the pinning fallback's pageblock, or NO_BLOCK. */
	u64	block;
};

/* The log2 of the slots of kmem_frag::owed to begin with. */
#define OWED_BITS	6

/* A pinning page, till kmem_frag__finish(). */
struct pin_page {
	u64	callsite;
	u64	block;		/* the first pfn of its pageblock */
	u64	bytes;
	u32	task;
};

struct kmem_frag {
	struct kmem_frag_config		config;
	/* What every event asks of the configuration, worked out once. */
	bool				classes;	/* pageblock_order known */
	bool				map;		/* ...and pfns are pfns */
	u8				columns[KMEM_PAGE_MAX_MIGTYPE + 1];
	struct kmem_frag_summary	summary;
	struct kmem_frag_cell		matrix[KMEM_NR_MIGTYPE_COLUMNS][KMEM_NR_MIGTYPE_COLUMNS];
	/* Pageblocks; packed and sorted by kmem_frag__finish(). */
	struct kmem_live		blocks;
	size_t				nr_blocks;	/* ...then */
	struct kmem_frag_pageblock	*last_block;
	struct kmem_rows		rows;
	struct kmem_rows		fail_rows;
	struct kmem_rows		pin_rows;
	struct kmem_live		owed;		/* struct owed; with classes */
	struct pin_page			*pins;
	size_t				nr_pins;
	size_t				pins_size;	/* allocated */
	/* By callsite, from kmem_frag__finish(). */
	struct kmem_callsite_sum	*by_callsite;
	size_t				nr_callsites;
	bool				finished;
	int				finish_err;
};

static int row_cmp_identity(const void *pa, const void *pb)
{
	const struct kmem_frag_row *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?:
	       kmem_cmp(a->alloc_migtype, b->alloc_migtype) ?:
	       kmem_cmp(a->fallback_migtype, b->fallback_migtype) ?:
	       kmem_cmp(a->task, b->task);
}

#define ROW_KEY_WORDS	3

/* The row of a fallback's callsite, pair of types and task. */
static struct kmem_frag_row *fallback_row(struct kmem_frag *kf,
					  const struct kmem_frag_event *ev,
					  u32 task)
{
	struct kmem_frag_row row = {
		.callsite = ev->callsite,
		.alloc_migtype = ev->alloc_migtype,
		.fallback_migtype = ev->fallback_migtype,
		.task = task,
	};
	/* The columns row_cmp_identity() compares. */
	u64 key[ROW_KEY_WORDS] = {
		ev->callsite,
		(u64)(u32)ev->alloc_migtype << 32 | (u32)ev->fallback_migtype,
		task,
	};

	return kmem_rows__find(&kf->rows, key, ROW_KEY_WORDS) ?:
	       kmem_rows__add(&kf->rows, key, &row);
}

static int fail_cmp_identity(const void *pa, const void *pb)
{
	const struct kmem_frag_fail_row *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?:
	       kmem_cmp(a->order, b->order) ?:
	       kmem_cmp(a->migtype, b->migtype) ?: kmem_cmp(a->gfp, b->gfp);
}

#define FAIL_KEY_WORDS	3

static int pin_cmp_identity(const void *pa, const void *pb)
{
	const struct kmem_frag_pin_row *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?: kmem_cmp(a->task, b->task);
}

#define PIN_KEY_WORDS	2

struct kmem_frag *kmem_frag__new(const struct kmem_frag_config *config)
{
	struct kmem_frag *kf = zalloc(sizeof(*kf));
	int mt;

	if (!kf)
		return NULL;
	kf->config = *config;
	if (!kf->config.page_size)
		kf->config.page_size = 4096;
	if (!kmem_page__valid_order(kf->config.pageblock_order))
		kf->config.pageblock_order = KMEM_FRAG_ORDER_UNKNOWN;
	kf->classes = kf->config.pageblock_order != KMEM_FRAG_ORDER_UNKNOWN;
	kf->map = kf->classes && !kf->config.no_pfns;
	for (mt = 0; mt <= KMEM_PAGE_MAX_MIGTYPE; mt++)
		kf->columns[mt] = kmem_migtype__column(mt, config->pre_v4_4_migtypes);
	if ((kf->map && kmem_live__init_keyed(&kf->blocks,
					      sizeof(struct kmem_frag_pageblock),
					      1, BLOCKS_BITS)) ||
	    (kf->classes && kmem_live__init_keyed(&kf->owed, sizeof(struct owed),
						  1, OWED_BITS)) ||
	    kmem_rows__init(&kf->rows, sizeof(struct kmem_frag_row),
			    ROW_KEY_WORDS, row_cmp_identity) ||
	    kmem_rows__init(&kf->fail_rows, sizeof(struct kmem_frag_fail_row),
			    FAIL_KEY_WORDS, fail_cmp_identity) ||
	    kmem_rows__init(&kf->pin_rows, sizeof(struct kmem_frag_pin_row),
			    PIN_KEY_WORDS, pin_cmp_identity)) {
		kmem_frag__delete(kf);
		return NULL;
	}
	return kf;
}

void kmem_frag__delete(struct kmem_frag *kf)
{
	if (!kf)
		return;
	kmem_live__exit(&kf->blocks);
	kmem_rows__exit(&kf->rows);
	kmem_rows__exit(&kf->fail_rows);
	kmem_rows__exit(&kf->pin_rows);
	kmem_live__exit(&kf->owed);
	free(kf->pins);
	free(kf->by_callsite);
	free(kf);
}

bool kmem_frag__has_classes(const struct kmem_frag *kf)
{
	return kf->classes;
}

static u64 order_bytes(const struct kmem_frag *kf, int order)
{
	return kf->config.page_size << order;
}

/* Can a block of @order lie in few enough pageblocks to be real? */
static bool valid_span(const struct kmem_frag *kf, int order)
{
	return !kf->map ||
	       order - kf->config.pageblock_order <= KMEM_FRAG_MAX_SPAN_SHIFT;
}

/* The column of @migtype: Special for one out of range. */
static enum kmem_migtype_column column(const struct kmem_frag *kf, int migtype)
{
	if (migtype < 0 || migtype > KMEM_PAGE_MAX_MIGTYPE)
		return KMEM_MIGTYPE_SPECIAL;
	return kf->columns[migtype];
}

/* The same of @nr events, those out of range counted. */
static enum kmem_migtype_column column_nr(struct kmem_frag *kf, int migtype,
					  u64 nr)
{
	if (migtype < 0 || migtype > KMEM_PAGE_MAX_MIGTYPE)
		kf->summary.bad_migtype += nr;
	return column(kf, migtype);
}

/* The pageblock starting at @first_pfn, added if new; NULL: no memory. */
static struct kmem_frag_pageblock *lookup_block(struct kmem_frag *kf,
						u64 first_pfn)
{
	struct kmem_frag_pageblock *pb = kmem_live__probe(&kf->blocks, first_pfn);

	if (pb->pfn == NO_BLOCK)
		pb = kmem_live__add(&kf->blocks, pb, &first_pfn);
	kf->last_block = pb;
	return pb;
}

/* The same, the last one found first: no call for most events. */
static inline struct kmem_frag_pageblock *find_block(struct kmem_frag *kf,
						     u64 first_pfn)
{
	struct kmem_frag_pageblock *pb = kf->last_block;

	if (pb && pb->pfn == first_pfn)
		return pb;
	return lookup_block(kf, first_pfn);
}

/*
 * The pageblocks of a block of 1 << @order pages at @pfn, one by one: the
 * pageblock of @pfn, and those after it that a block larger than a
 * pageblock covers (buddy blocks are aligned to their size).
 */
static u64 blocks_spanned(const struct kmem_frag *kf, int order)
{
	int pbo = kf->config.pageblock_order;

	return order > pbo ? 1ULL << (order - pbo) : 1;
}

static u64 block_start(const struct kmem_frag *kf, u64 pfn, u64 i)
{
	int pbo = kf->config.pageblock_order;

	return ((pfn >> pbo) + i) << pbo;
}

/* Boyer-Moore: a callsite of more than half the votes comes out on top. */
static void vote(struct kmem_frag_pageblock *pb, u64 callsite)
{
	if (pb->main_callsite == callsite) {
		pb->votes++;
	} else if (!pb->votes) {
		pb->main_callsite = callsite;
		pb->votes = 1;
	} else {
		pb->votes--;
	}
}

/*
 * Count in the pageblocks a block lies in an allocation of column @col
 * by @callsite, or (@col < 0) a fallback of class @cls.
 */
static int count_blocks(struct kmem_frag *kf, u64 pfn, int order, int col,
			u64 callsite, enum kmem_frag_class cls)
{
	u64 i, n = blocks_spanned(kf, order);

	for (i = 0; i < n; i++) {
		struct kmem_frag_pageblock *pb;

		pb = find_block(kf, block_start(kf, pfn, i));
		if (!pb)
			return -ENOMEM;
		if (col < 0) {
			pb->fallbacks[cls]++;
			continue;
		}
		pb->allocs[col]++;
		vote(pb, callsite);
	}
	return 0;
}

int kmem_frag__free(struct kmem_frag *kf, const struct kmem_page_event *ev)
{
	struct kmem_frag_pageblock *pb;

	if (kf->finished)
		return -EBUSY;
	if (!kf->map || ev->pfn == KMEM_PAGE_NO_PFN || ev->cpu_node < 0 ||
	    ev->page_node < 0 || ev->cpu_node == ev->page_node)
		return 0;
	pb = kmem_live__probe(&kf->blocks, block_start(kf, ev->pfn, 0));
	if (pb->pfn != NO_BLOCK)
		pb->remote_frees++;
	return 0;
}

int kmem_frag__alloc(struct kmem_frag *kf, const struct kmem_page_event *ev)
{
	int err;

	if (kf->finished)
		return -EBUSY;
	if (!kmem_page__valid_order(ev->order) ||
	    !valid_span(kf, ev->order)) {
		kf->summary.bad_allocs++;
		return 0;
	}
	err = kmem_frag__add_allocs(kf, ev, 1,
				    KMEM_FRAG_TOTALS | KMEM_FRAG_ROWS);
	if (err || !kf->map || ev->pfn == KMEM_PAGE_NO_PFN)
		return err;
	return count_blocks(kf, ev->pfn, ev->order, column(kf, ev->migtype),
			    ev->callsite, 0);
}

/* Can @ev be real, whatever its pfn (counted elsewhere, it has none)? */
static bool valid_fallback(const struct kmem_frag *kf,
			   const struct kmem_frag_event *ev)
{
	/* The kernel falls back to a free block at least the size asked for. */
	return kmem_page__valid_order(ev->alloc_order) &&
	       kmem_page__valid_order(ev->fallback_order) &&
	       ev->fallback_order >= ev->alloc_order &&
	       valid_span(kf, ev->fallback_order) &&
	       (ev->change_ownership == 0 || ev->change_ownership == 1);
}

static enum kmem_frag_class classify(const struct kmem_frag *kf,
				     const struct kmem_frag_event *ev)
{
	if (ev->fallback_order >= kf->config.pageblock_order)
		return KMEM_FRAG_CLAIMED;
	return ev->change_ownership ? KMEM_FRAG_CONVERTED : KMEM_FRAG_POLLUTED;
}

/* @nr fallbacks like @ev, valid, in the totals and matrix. */
static void count_fallback_totals(struct kmem_frag *kf,
				  const struct kmem_frag_event *ev, u64 nr)
{
	struct kmem_frag_summary *s = &kf->summary;
	u64 bytes = nr * order_bytes(kf, ev->alloc_order);
	struct kmem_frag_cell *cell;
	enum kmem_frag_class cls;

	cell = &kf->matrix[column_nr(kf, ev->alloc_migtype, nr)]
			  [column_nr(kf, ev->fallback_migtype, nr)];
	kmem_count__add_nr(&s->fallbacks, nr, bytes);
	cell->fallbacks += nr;
	cell->bytes += bytes;
	if (ev->fallback_order <= KMEM_FRAG_SEVERE_ORDER)
		kmem_count__add_nr(&s->severe, nr, bytes);
	if (!kf->classes)
		return;
	cls = classify(kf, ev);
	kmem_count__add_nr(&s->classes[cls], nr, bytes);
	cell->classes[cls] += nr;
}

/* ...and in the table by callsite, pair of types and task. */
static int count_fallback_row(struct kmem_frag *kf,
			      const struct kmem_frag_event *ev, u32 task,
			      u64 nr)
{
	struct kmem_frag_row *row = fallback_row(kf, ev, task);

	if (!row)
		return -ENOMEM;
	kmem_count__add_nr(&row->fallbacks, nr,
			   nr * order_bytes(kf, ev->alloc_order));
	if (ev->fallback_order <= KMEM_FRAG_SEVERE_ORDER)
		row->severe += nr;
	if (kf->classes)
		row->classes[classify(kf, ev)] += nr;
	return 0;
}

/*
 * Does @ev leave an Unmovable or Reclaimable page in a Movable pageblock,
 * converted (now of the type asked for, its movable pages held) or
 * polluted (still Movable)?
 */
static bool pins_movable(const struct kmem_frag *kf,
			 const struct kmem_frag_event *ev)
{
	enum kmem_migtype_column asked = column(kf, ev->alloc_migtype);
	enum kmem_migtype_column from = column(kf, ev->fallback_migtype);

	return classify(kf, ev) != KMEM_FRAG_CLAIMED &&
	       from == KMEM_MIGTYPE_MOVABLE &&
	       (asked == KMEM_MIGTYPE_UNMOVABLE ||
		asked == KMEM_MIGTYPE_RECLAIMABLE);
}

/* A converted or polluted fallback of @tid, owed to its next allocation. */
static int owe(struct kmem_frag *kf, const struct kmem_frag_event *ev, u32 tid)
{
	u64 key = tid;
	struct owed *o = kmem_live__probe(&kf->owed, key);

	if (o->tid != key)
		o = kmem_live__add(&kf->owed, o, &key);
	if (!o)
		return -ENOMEM;
	/*
	 * New, or from another callsite: those before were of an allocation
	 * the kernel does not trace (a bulk allocation), not of the next one.
	 */
	if (!o->fragmenting || o->callsite != ev->callsite) {
		o->fragmenting = 0;
		o->callsite = ev->callsite;
		o->block = NO_BLOCK;
	}
	o->fragmenting++;
	/* The first since the thread's last allocation: its page. */
	if (kf->map && o->block == NO_BLOCK && pins_movable(kf, ev))
		o->block = block_start(kf, ev->pfn, 0);
	return 0;
}

int kmem_frag__fallback_thread(struct kmem_frag *kf,
			       const struct kmem_frag_event *ev, u32 task,
			       u32 tid)
{
	int err;

	if (kf->finished)
		return -EBUSY;
	if (!valid_fallback(kf, ev) || ev->pfn == KMEM_PAGE_NO_PFN) {
		kf->summary.bad_fallbacks++;
		return 0;
	}
	err = count_fallback_row(kf, ev, task, 1);
	if (err)
		return err;
	count_fallback_totals(kf, ev, 1);
	if (kf->map)
		err = count_blocks(kf, ev->pfn, ev->fallback_order, -1, 0,
				   classify(kf, ev));
	if (err || !kf->classes || classify(kf, ev) == KMEM_FRAG_CLAIMED)
		return err;
	return owe(kf, ev, tid);
}

void kmem_frag__take_owed(struct kmem_frag *kf, u32 tid,
			  const struct kmem_page_event *ev,
			  struct kmem_frag_owed *owed)
{
	struct owed *o;

	owed->fragmenting = 0;
	owed->fell_back = false;
	if (!kf->owed.nr)
		return;
	o = kmem_live__find(&kf->owed, tid);
	if (!o)
		return;
	/* Owed by an allocation not traced: see kmem_frag__fallback_thread(). */
	if (o->callsite != ev->callsite) {
		kmem_live__remove_one(&kf->owed, o, sizeof(*o));
		return;
	}
	owed->fragmenting = o->fragmenting;
	owed->fell_back = o->block != NO_BLOCK &&
			  ev->pfn != KMEM_PAGE_NO_PFN &&
			  block_start(kf, ev->pfn, 0) == o->block;
	kmem_live__remove_one(&kf->owed, o, sizeof(*o));
}

int kmem_frag__add_pinning(struct kmem_frag *kf, u64 pfn, int order,
			   u64 callsite, u32 task)
{
	struct pin_page *p;

	if (kf->finished)
		return -EBUSY;
	if (!kf->map || !kmem_page__valid_order(order))
		return 0;
	if (kmem_grow(&kf->pins, &kf->pins_size, kf->nr_pins, 1, sizeof(*p)))
		return -ENOMEM;
	kf->pins[kf->nr_pins++] = (struct pin_page){
		.callsite = callsite,
		.block = block_start(kf, pfn, 0),
		.bytes = order_bytes(kf, order),
		.task = task,
	};
	return 0;
}

int kmem_frag__add_fallbacks(struct kmem_frag *kf,
			     const struct kmem_frag_event *ev, u64 nr,
			     unsigned int parts)
{
	if (kf->finished)
		return -EBUSY;
	/* Its pfn is none: the pageblocks come whole (add_pageblock). */
	if (!valid_fallback(kf, ev)) {
		if (parts & KMEM_FRAG_TOTALS)
			kf->summary.bad_fallbacks += nr;
		return 0;
	}
	if (parts & KMEM_FRAG_TOTALS)
		count_fallback_totals(kf, ev, nr);
	return parts & KMEM_FRAG_ROWS ? count_fallback_row(kf, ev, 0, nr) : 0;
}

int kmem_frag__add_allocs(struct kmem_frag *kf,
			  const struct kmem_page_event *ev, u64 nr,
			  unsigned int parts)
{
	struct kmem_frag_fail_row new = {
		.callsite = ev->callsite,
		.gfp = ev->gfp,
		.order = ev->order,
		.migtype = ev->migtype,
	}, *row;
	struct kmem_frag_summary *s = &kf->summary;
	u64 key[FAIL_KEY_WORDS] = {
		ev->callsite, ev->gfp,
		(u64)(u32)(int)ev->order << 32 | (u32)(int)ev->migtype,
	};
	u64 bytes;

	if (kf->finished)
		return -EBUSY;
	if (!kmem_page__valid_order(ev->order)) {
		if (parts & KMEM_FRAG_TOTALS)
			s->bad_allocs += nr;
		return 0;
	}
	bytes = nr * order_bytes(kf, ev->order);
	if (ev->pfn != KMEM_PAGE_NO_PFN) {
		if (parts & KMEM_FRAG_TOTALS)
			kmem_count__add_nr(&s->alloc[column_nr(kf, ev->migtype, nr)],
					   nr, bytes);
		return 0;
	}
	if (parts & KMEM_FRAG_TOTALS)
		kmem_count__add_nr(&s->fail, nr, bytes);
	if (!(parts & KMEM_FRAG_ROWS))
		return 0;
	row = kmem_rows__findnew(&kf->fail_rows, key, &new);
	if (!row)
		return -ENOMEM;
	kmem_count__add_nr(&row->asked, nr, bytes);
	return 0;
}

int kmem_frag__add_pageblock(struct kmem_frag *kf,
			     const struct kmem_frag_pageblock *pb)
{
	struct kmem_frag_pageblock *to;
	int i;

	if (kf->finished)
		return -EBUSY;
	if (!kf->map)
		return 0;
	to = find_block(kf, block_start(kf, pb->pfn, 0));
	if (!to)
		return -ENOMEM;
	for (i = 0; i < KMEM_NR_MIGTYPE_COLUMNS; i++)
		to->allocs[i] += pb->allocs[i];
	for (i = 0; i < KMEM_FRAG_NR_CLASSES; i++)
		to->fallbacks[i] += pb->fallbacks[i];
	to->remote_frees += pb->remote_frees;
	if (pb->main_callsite && !to->main_callsite) {
		to->main_callsite = pb->main_callsite;
		to->votes = pb->votes;
	}
	return 0;
}

/* Pack the pageblocks at the front of their table, sorted by pfn. */
static void sort_blocks(struct kmem_frag *kf)
{
	struct kmem_frag_pageblock *pb = (void *)kf->blocks.slots;
	size_t i, n = 0;

	for (i = 0; pb && i <= kf->blocks.mask; i++)
		if (pb[i].pfn != NO_BLOCK)
			pb[n++] = pb[i];
	if (n)	/* by pfn, their first field */
		qsort(pb, n, sizeof(*pb), kmem_cmp_u64s);
	kf->nr_blocks = n;
	kf->last_block = NULL;
}

static void count_block(struct kmem_frag_blocks *b,
			const struct kmem_frag_pageblock *pb)
{
	int col, cols = 0;

	for (col = 0; col < KMEM_NR_MIGTYPE_COLUMNS; col++) {
		if (!pb->allocs[col])
			continue;
		b->by_column[col]++;
		cols++;
	}
	if (!cols) {
		b->fallback_only++;
		return;
	}
	b->allocated++;
	if (cols > 1)
		b->mixed++;
	if (pb->allocs[KMEM_MIGTYPE_UNMOVABLE] || pb->allocs[KMEM_MIGTYPE_RECLAIMABLE])
		b->unmovable_or_reclaimable++;
}

static int cmp_pin(const void *pa, const void *pb)
{
	const struct pin_page *a = pa, *b = pb;

	return kmem_cmp(a->callsite, b->callsite) ?:
	       kmem_cmp(a->task, b->task) ?: kmem_cmp(a->block, b->block);
}

/* The pinning pages into their pageblocks, before those are sorted. */
static void pin_blocks(struct kmem_frag *kf)
{
	size_t i;

	for (i = 0; i < kf->nr_pins; i++) {
		struct kmem_frag_pageblock *pb;

		pb = kmem_live__probe(&kf->blocks, kf->pins[i].block);
		if (pb->pfn == kf->pins[i].block)
			pb->pinning++;
	}
}

/* Sorted by callsite, task and pageblock: a row per run of the first two. */
static int pin_rows(struct kmem_frag *kf)
{
	struct kmem_frag_pin_row *row = NULL;
	size_t i;

	if (!kf->nr_pins)
		return 0;
	qsort(kf->pins, kf->nr_pins, sizeof(*kf->pins), cmp_pin);
	for (i = 0; i < kf->nr_pins; i++) {
		const struct pin_page *p = &kf->pins[i];
		bool same_row = row && row->callsite == p->callsite &&
				row->task == p->task;

		if (!same_row) {
			struct kmem_frag_pin_row new = {
				.callsite = p->callsite,
				.task = p->task,
			};
			u64 key[PIN_KEY_WORDS] = { p->callsite, p->task };

			row = kmem_rows__add(&kf->pin_rows, key, &new);
			if (!row)
				return -ENOMEM;
		}
		kmem_count__add(&row->pages, p->bytes);
		kmem_count__add(&kf->summary.pinned.pages, p->bytes);
		if (!same_row || p->block != p[-1].block)
			row->pageblocks++;
	}
	return 0;
}

int kmem_frag__finish(struct kmem_frag *kf)
{
	struct kmem_frag_row **rows;
	size_t i, nr;

	if (kf->finished)
		return kf->finish_err;
	kf->finished = true;
	kf->summary.fragmenting = (struct kmem_count){
		.nr = kf->summary.classes[KMEM_FRAG_CONVERTED].nr +
		      kf->summary.classes[KMEM_FRAG_POLLUTED].nr,
		.bytes = kf->summary.classes[KMEM_FRAG_CONVERTED].bytes +
			 kf->summary.classes[KMEM_FRAG_POLLUTED].bytes,
	};
	if (kf->map)
		pin_blocks(kf);
	sort_blocks(kf);
	for (i = 0; i < kf->nr_blocks; i++) {
		const struct kmem_frag_pageblock *pb = kmem_live__slot(&kf->blocks, i);

		count_block(&kf->summary.blocks, pb);
		kf->summary.pinned.pageblocks += !!pb->pinning;
	}
	if (pin_rows(kf)) {
		kf->finish_err = -ENOMEM;
		return kf->finish_err;
	}
	kf->by_callsite = calloc(kf->rows.nr + 1, sizeof(*kf->by_callsite));
	rows = (struct kmem_frag_row **)kmem_rows__sort(&kf->rows, NULL, NULL,
							0, &nr);
	if (!kf->by_callsite || !rows) {
		kf->finish_err = -ENOMEM;
		return kf->finish_err;
	}
	for (i = 0; i < nr; i++) {
		rows[i]->fragmenting = rows[i]->classes[KMEM_FRAG_CONVERTED] +
				       rows[i]->classes[KMEM_FRAG_POLLUTED];
		kmem_callsite_sum__add(kf->by_callsite, &kf->nr_callsites,
				       rows[i]->callsite, rows[i]->fragmenting);
	}
	return 0;
}

const struct kmem_frag_summary *kmem_frag__summary(const struct kmem_frag *kf)
{
	return &kf->summary;
}

const struct kmem_frag_cell *kmem_frag__cell(const struct kmem_frag *kf,
					     enum kmem_migtype_column requested,
					     enum kmem_migtype_column fallback)
{
	if ((unsigned int)requested >= KMEM_NR_MIGTYPE_COLUMNS ||
	    (unsigned int)fallback >= KMEM_NR_MIGTYPE_COLUMNS)
		return NULL;
	return &kf->matrix[requested][fallback];
}

u64 kmem_frag__callsite_fragmenting(const struct kmem_frag *kf, u64 callsite)
{
	return kmem_callsite_sum__find(kf->by_callsite, kf->nr_callsites,
				       callsite);
}

const struct kmem_frag_pageblock *kmem_frag__pageblocks(struct kmem_frag *kf,
							size_t *nr)
{
	kmem_frag__finish(kf);
	*nr = kf->nr_blocks;
	return kf->nr_blocks ? (void *)kf->blocks.slots : NULL;
}

/* A table of @kf, finished first, sorted. */
static void *sorted(struct kmem_frag *kf, struct kmem_rows *rows,
		    const struct kmem_sort_key *keys, int nr_keys, size_t *nr)
{
	kmem_frag__finish(kf);
	return kmem_rows__sort(rows, NULL, keys, nr_keys, nr);
}

struct kmem_frag_row **kmem_frag__rows(struct kmem_frag *kf,
				       const struct kmem_sort_key *keys,
				       int nr_keys, size_t *nr)
{
	return sorted(kf, &kf->rows, keys, nr_keys, nr);
}

struct kmem_frag_pin_row **kmem_frag__pin_rows(struct kmem_frag *kf,
					       const struct kmem_sort_key *keys,
					       int nr_keys, size_t *nr)
{
	return sorted(kf, &kf->pin_rows, keys, nr_keys, nr);
}

struct kmem_frag_fail_row **kmem_frag__fail_rows(struct kmem_frag *kf,
						 const struct kmem_sort_key *keys,
						 int nr_keys, size_t *nr)
{
	return sorted(kf, &kf->fail_rows, keys, nr_keys, nr);
}
