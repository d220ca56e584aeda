// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/print-map.c: pageblocks anywhere in the 64-bit
 * pfn space, node ranges of any shape, cross-node bytes, and a title and
 * callsite names of any bytes (perf.data and kallsyms are untrusted).
 * The SVG must be well-formed XML by a checker of this file (UTF-8, no
 * control characters, tags nested, attributes quoted, '&' only in
 * entities), stay under 5 MB, and every block must lie in a cell on the
 * canvas.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "print-map.h"

#define MAX_BLOCKS	64
#define MAX_NAME	80
#define MAX_DEPTH	16

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-map-fuzz: invariant broken: %s\n", what);
	abort();
}

struct program {
	const u8	*p, *end;
};

static u8 take_byte(struct program *pg)
{
	return pg->p < pg->end ? *pg->p++ : 0;
}

static u64 take_u64(struct program *pg)
{
	u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | take_byte(pg);
	return v;
}

static void take_name(struct program *pg, char *buf)
{
	size_t len = take_byte(pg) % MAX_NAME, i;

	for (i = 0; i < len; i++)
		buf[i] = take_byte(pg);
	buf[len] = '\0';
}

/* A pfn near the last one, or anywhere: both ends of the space matter. */
static u64 take_pfn(struct program *pg, u64 *last)
{
	u8 how = take_byte(pg);

	if (how & 0x80)
		*last = take_u64(pg);
	else
		*last += (u64)(how & 0x7f) << (take_byte(pg) % 24);
	return *last;
}

/* --- the XML checker ---------------------------------------------------- */

struct xml {
	const char	*p, *end;
	char		open[MAX_DEPTH][16];
	int		depth;
	int		roots;
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == ':';
}

/* '&' starts one of the entities the writer uses. */
static bool entity(struct xml *x)
{
	static const char * const names[] = {
		"&amp;", "&lt;", "&gt;", "&quot;",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);

		if ((size_t)(x->end - x->p) >= n && !memcmp(x->p, names[i], n)) {
			x->p += n;
			return true;
		}
	}
	return false;
}

/* Code points by hand: no overlong form, surrogate, U+FFFE/F, > 10FFFF. */
static bool utf8_char(struct xml *x)
{
	const unsigned char *s = (const unsigned char *)x->p;
	int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	static const u32 least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	u32 cp;
	int i;

	if (!n || n > x->end - x->p)
		return false;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp == 0xfffe || cp == 0xffff)
		return false;
	x->p += n;
	return true;
}

/* Character data up to '<', or an attribute value up to '"'. */
static bool chars(struct xml *x, char stop)
{
	while (x->p < x->end && *x->p != stop) {
		unsigned char c = *x->p;

		if (c == '<' || (c < 0x20 && c != '\n') || c == 0x7f)
			return false;
		if (c == '&') {
			if (!entity(x))
				return false;
		} else if (c >= 0x80) {
			if (!utf8_char(x))
				return false;
		} else {
			x->p++;
		}
	}
	return true;
}

static size_t tag_name(struct xml *x)
{
	const char *start = x->p;

	while (x->p < x->end && name_char(*x->p))
		x->p++;
	return x->p - start;
}

static bool take(struct xml *x, char c)
{
	if (x->p >= x->end || *x->p != c)
		return false;
	x->p++;
	return true;
}

static bool close_tag(struct xml *x)
{
	const char *name = x->p;
	size_t n = tag_name(x);

	if (!x->depth || n != strlen(x->open[x->depth - 1]) ||
	    memcmp(name, x->open[x->depth - 1], n))
		return false;
	x->depth--;
	return take(x, '>');
}

static bool open_tag(struct xml *x)
{
	const char *name = x->p;
	size_t n = tag_name(x);

	if (!n || n >= sizeof(x->open[0]))
		return false;
	for (;;) {
		if (take(x, '/'))
			return take(x, '>') && (x->depth || ++x->roots);
		if (take(x, '>'))
			break;
		if (!take(x, ' ') || !tag_name(x) || !take(x, '=') ||
		    !take(x, '"') || !chars(x, '"') || !take(x, '"'))
			return false;
	}
	if (!x->depth)
		x->roots++;
	if (x->depth == MAX_DEPTH)
		return false;
	memcpy(x->open[x->depth], name, n);
	x->open[x->depth++][n] = '\0';
	return true;
}

static bool well_formed(const char *text, size_t len)
{
	static const char decl[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	struct xml x = { .p = text, .end = text + len };

	if (len < sizeof(decl) - 1 || memcmp(text, decl, sizeof(decl) - 1))
		return false;
	x.p += sizeof(decl) - 1;
	while (x.p < x.end) {
		if (!chars(&x, '<'))
			return false;
		if (x.p == x.end)
			break;
		x.p++;
		if (take(&x, '/') ? !close_tag(&x) : !open_tag(&x))
			return false;
		if (!x.depth && x.roots && x.p < x.end && *x.p != '\n')
			return false;
	}
	return !x.depth && x.roots == 1;
}

/* --- the target ---------------------------------------------------------- */

struct fuzz_block {
	u64	pfn;
	bool	added;
};

static struct fuzz_block blocks[MAX_BLOCKS];

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct program pg = { .p = data, .end = data + size };
	struct kmem_map_config config = { .page_size = 4096 };
	char title[MAX_NAME + 1], name[MAX_NAME + 1];
	int nr_blocks, nr_ranges, nr_xnode, i, err, added = 0;
	struct kmem_map *map;
	char *text = NULL;
	size_t len = 0;
	u64 last = 0;
	FILE *fp;

	config.pageblock_order = take_byte(&pg) % (KMEM_MAP_MAX_ORDER + 2);
	take_name(&pg, title);
	config.title = title;
	map = kmem_map__new(&config);
	if (config.pageblock_order > KMEM_MAP_MAX_ORDER) {
		check(!map, "order above the maximum refused");
		return 0;
	}
	check(map, "new");
	nr_blocks = take_byte(&pg) % MAX_BLOCKS;
	for (i = 0; i < nr_blocks; i++) {
		struct kmem_map_block b = { .node = (s8)take_byte(&pg) };
		int t;

		b.pfn = take_pfn(&pg, &last);
		for (t = 0; t < KMEM_MAP_NR_TYPES; t++)
			b.allocs[t] = take_byte(&pg) & 3 ? 0 : take_u64(&pg);
		b.fallbacks = take_byte(&pg) & 1;
		b.remote_frees = take_byte(&pg);
		take_name(&pg, name);
		b.top_callsite = name[0] ? name : NULL;
		err = kmem_map__add_block(map, &b);
		check(!err || err == -EEXIST, "add_block");
		blocks[i] = (struct fuzz_block){ .pfn = b.pfn, .added = !err };
		added += !err;
	}
	nr_ranges = take_byte(&pg) % 8;
	for (i = 0; i < nr_ranges; i++) {
		int node = (s8)take_byte(&pg);
		u64 start = take_pfn(&pg, &last), end = take_pfn(&pg, &last);

		err = kmem_map__add_node_range(map, node, start, end);
		check(err == (node < 0 || node >= KMEM_MAP_MAX_NODES ||
			      end <= start ? -EINVAL : 0), "add_node_range");
	}
	nr_xnode = take_byte(&pg) % 8;
	for (i = 0; i < nr_xnode; i++) {
		int from = take_byte(&pg) % 70, to = take_byte(&pg) % 70;

		err = kmem_map__set_xnode_bytes(map, from, to, take_u64(&pg));
		check(err == (from >= KMEM_MAP_MAX_NODES ||
			      to >= KMEM_MAP_MAX_NODES ? -EINVAL : 0),
		      "set_xnode_bytes");
	}
	fp = open_memstream(&text, &len);
	check(fp, "memstream");
	err = kmem_map__write(map, fp);
	fclose(fp);
	check(err == (added ? 0 : -ENODATA), "written iff blocks");
	if (!err) {
		check(len < 5000000, "under 5 MB");
		check(well_formed(text, len), "well-formed XML");
	}
	for (i = 0; i < nr_blocks && added; i++) {
		struct kmem_map_box box;
		u64 per_cell;

		if (!blocks[i].added)
			continue;
		check(!kmem_map__locate(map, blocks[i].pfn, &box, &per_cell),
		      "every block in a cell");
		check(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1000 &&
		      per_cell && !(per_cell & (per_cell - 1)),
		      "cells on the canvas, a power of two of pageblocks");
	}
	free(text);
	kmem_map__delete(map);
	return 0;
}
