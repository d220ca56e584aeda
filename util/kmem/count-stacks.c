// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "count-stacks.h"
#include "count.h"
#include "table-live.h"

struct chain {
	size_t	first;		/* index of its leaf frame in ->frames */
	u32	nr;
	u64	bytes;
	u64	hits;
};

struct kmem_stacks {
	u64		*frames;	/* every chain's frames, leaf first */
	size_t		nr_frames;
	size_t		frames_size;
	struct chain	*chains;	/* by id */
	size_t		nr;
	size_t		size;
	/*
	 * The ids by chain: a slot is a chain's hash, how many chains of
	 * that hash came before it (64 bits alike are all but unheard of,
	 * but must not make two chains one), then its id.
	 */
	struct kmem_live ids;
};

struct kmem_stacks *kmem_stacks__new(void)
{
	struct kmem_stacks *st = calloc(1, sizeof(*st));

	if (st && kmem_live__init_keyed(&st->ids, 3 * sizeof(u64), 2, 6)) {
		free(st);
		return NULL;
	}
	return st;
}

void kmem_stacks__delete(struct kmem_stacks *st)
{
	if (!st)
		return;
	free(st->frames);
	free(st->chains);
	kmem_live__exit(&st->ids);
	free(st);
}

static u64 chain_hash(const u64 *ips, size_t nr)
{
	u64 h = 0x9e3779b97f4a7c15ULL ^ nr;
	size_t i;

	for (i = 0; i < nr; i++) {
		h ^= ips[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

/* The slot of a chain in the index, or the empty one for it, and its @key. */
static u64 *slot_of(struct kmem_stacks *st, const u64 *ips, size_t nr,
		    u64 *key)
{
	const struct chain *c;
	u64 *slot;

	key[0] = chain_hash(ips, nr);
	for (key[1] = 0;; key[1]++) {
		slot = kmem_live__probe_key(&st->ids, key, 2,
					    kmem_live__hash_words(key, 2));
		if (kmem_live__empty_mark(slot, 2))
			return slot;
		c = &st->chains[slot[2]];
		if (c->nr == nr && (!nr || !memcmp(st->frames + c->first, ips,
						   nr * sizeof(*ips))))
			return slot;
	}
}

int kmem_stacks__intern(struct kmem_stacks *st, const u64 *ips, size_t nr)
{
	u64 key[2], *slot;

	if (nr > KMEM_STACKS_MAX_FRAMES)
		return -EINVAL;
	slot = slot_of(st, ips, nr, key);
	if (!kmem_live__empty_mark(slot, 2))
		return slot[2];
	/* Room for one frame more than needed: ->frames is never NULL. */
	if (st->nr >= INT_MAX ||
	    kmem_grow(&st->chains, &st->size, st->nr, 1, sizeof(*st->chains)) ||
	    kmem_grow(&st->frames, &st->frames_size, st->nr_frames, nr + 1,
		      sizeof(*st->frames)))
		return -ENOMEM;
	slot = kmem_live__add(&st->ids, slot, key);
	if (!slot)
		return -ENOMEM;
	slot[2] = st->nr;
	st->chains[st->nr] = (struct chain){ .first = st->nr_frames, .nr = nr };
	if (nr)
		memcpy(st->frames + st->nr_frames, ips, nr * sizeof(*ips));
	st->nr_frames += nr;
	return st->nr++;
}

static struct chain *chain_by_id(const struct kmem_stacks *st, int id)
{
	return id >= 0 && (size_t)id < st->nr ? &st->chains[id] : NULL;
}

const u64 *kmem_stacks__frames(const struct kmem_stacks *st, int id,
			       size_t *nr)
{
	const struct chain *c = chain_by_id(st, id);

	if (!c)
		return NULL;
	*nr = c->nr;
	return st->frames + c->first;
}

int kmem_stacks__add(struct kmem_stacks *st, int id, u64 bytes, u64 hits)
{
	struct chain *c = chain_by_id(st, id);

	if (!c)
		return -EINVAL;
	c->bytes += bytes;
	c->hits += hits;
	return 0;
}

static u64 chain_value(const struct chain *c, enum kmem_stacks_weight weight)
{
	return weight == KMEM_STACKS_HITS ? c->hits : c->bytes;
}

/* --- writing ----------------------------------------------------------- */

/*
 * A chain written is a line: the names of its frames, root first, joined
 * by SEP, a byte below any a name holds (folded_name() leaves none), so
 * that lines sort as their names do, frame by frame, a shorter stack
 * before the longer ones it begins.  Each distinct address is named once.
 */
#define SEP	'\1'

struct line {
	char	*text;
	u64	value;
};

struct folding {
	u64		*addrs;		/* of the chains written, sorted */
	char		**names;	/* by address */
	size_t		nr_addrs;
	struct line	*lines;
	size_t		nr_lines;
};

/* Blanks split a line's value off, ';' splits frames: neither in a name. */
static char *folded_name(const char *name, u64 ip)
{
	char hex[24], *s, *p;

	if (!name || !*name) {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, ip);
		name = hex;
	}
	s = strdup(name);
	if (!s)
		return NULL;
	for (p = s; *p; p++)
		if (*p == ';' || (unsigned char)*p <= ' ' || *p == 0x7f)
			*p = '_';
	return s;
}

static int collect_addrs(struct folding *f, const struct kmem_stacks *st,
			 enum kmem_stacks_weight weight)
{
	size_t i, n = 0;

	for (i = 0; i < st->nr; i++)
		if (chain_value(&st->chains[i], weight))
			n += st->chains[i].nr;
	f->addrs = malloc((n ? n : 1) * sizeof(*f->addrs));
	if (!f->addrs)
		return -ENOMEM;
	for (i = 0; i < st->nr; i++) {
		const struct chain *c = &st->chains[i];

		if (!chain_value(c, weight))
			continue;
		memcpy(f->addrs + f->nr_addrs, st->frames + c->first,
		       c->nr * sizeof(u64));
		f->nr_addrs += c->nr;
	}
	qsort(f->addrs, f->nr_addrs, sizeof(u64), kmem_cmp_u64s);
	for (i = n = 0; i < f->nr_addrs; i++)
		if (!n || f->addrs[i] != f->addrs[n - 1])
			f->addrs[n++] = f->addrs[i];
	f->nr_addrs = n;
	return 0;
}

static int name_addrs(struct folding *f, kmem_stacks_name_fn name_of,
		      void *arg)
{
	size_t i;

	f->names = calloc(f->nr_addrs ? f->nr_addrs : 1, sizeof(*f->names));
	if (!f->names)
		return -ENOMEM;
	for (i = 0; i < f->nr_addrs; i++) {
		f->names[i] = folded_name(name_of(f->addrs[i], arg),
					  f->addrs[i]);
		if (!f->names[i])
			return -ENOMEM;
	}
	return 0;
}

static const char *name_at(const struct folding *f, u64 ip)
{
	const u64 *a = bsearch(&ip, f->addrs, f->nr_addrs, sizeof(u64),
			       kmem_cmp_u64s);

	return f->names[a - f->addrs];
}

static char *line_text(const struct folding *f, const u64 *ips, size_t nr)
{
	size_t len = 1, k;
	char *text, *p;

	for (k = 0; k < nr; k++)
		len += strlen(name_at(f, ips[k])) + 1;
	text = malloc(len);
	if (!text)
		return NULL;
	for (p = text, k = nr; k-- > 0;) {	/* root first */
		p = stpcpy(p, name_at(f, ips[k]));
		if (k)
			*p++ = SEP;
	}
	*p = '\0';
	return text;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text,
		      ((const struct line *)b)->text);
}

static int make_lines(struct folding *f, const struct kmem_stacks *st,
		      enum kmem_stacks_weight weight)
{
	size_t i;

	f->lines = malloc((st->nr ? st->nr : 1) * sizeof(*f->lines));
	if (!f->lines)
		return -ENOMEM;
	for (i = 0; i < st->nr; i++) {
		const struct chain *c = &st->chains[i];
		struct line *l = &f->lines[f->nr_lines];

		if (!chain_value(c, weight))
			continue;
		l->value = chain_value(c, weight);
		l->text = line_text(f, st->frames + c->first, c->nr);
		if (!l->text)
			return -ENOMEM;
		f->nr_lines++;
	}
	qsort(f->lines, f->nr_lines, sizeof(*f->lines), cmp_line);
	return 0;
}

/* Equal lines, from chains whose addresses differ, are one line. */
static size_t write_lines(const struct folding *f, FILE *fp)
{
	size_t i = 0, written = 0;
	char *p;

	while (i < f->nr_lines) {
		char *text = f->lines[i].text;
		u64 value = 0;

		for (; i < f->nr_lines && !strcmp(text, f->lines[i].text); i++)
			value += f->lines[i].value;
		for (p = text; (p = strchr(p, SEP)); )
			*p = ';';
		fprintf(fp, "%s %" PRIu64 "\n", *text ? text : "[unknown]",
			value);
		written++;
	}
	return written;
}

static void folding_exit(struct folding *f)
{
	size_t i;

	for (i = 0; f->names && i < f->nr_addrs; i++)
		free(f->names[i]);
	for (i = 0; i < f->nr_lines; i++)
		free(f->lines[i].text);
	free(f->names);
	free(f->addrs);
	free(f->lines);
}

int kmem_stacks__write(struct kmem_stacks *st, enum kmem_stacks_weight weight,
		       kmem_stacks_name_fn name_of, void *arg, FILE *fp,
		       size_t *nr_lines)
{
	struct folding f = { .addrs = NULL };
	size_t written = 0;
	int err;

	err = collect_addrs(&f, st, weight);
	if (!err)
		err = name_addrs(&f, name_of, arg);
	if (!err)
		err = make_lines(&f, st, weight);
	if (!err) {
		written = write_lines(&f, fp);
		if (fflush(fp) || ferror(fp))
			err = -errno ?: -EIO;
	}
	folding_exit(&f);
	if (nr_lines)
		*nr_lines = written;
	return err;
}
