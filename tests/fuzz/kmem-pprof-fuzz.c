// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/print-pprof.c: samples of any stacks,
 * values and labels, function names and label strings of any bytes
 * (kallsyms files and task names are untrusted), mappings of any range.
 * The input is a program of steps.  The profile written must inflate to
 * the bytes kmem_pprof__encode() gives, and those must read back, with
 * a protobuf reader of this file's own, as a profile that keeps
 * profile.proto's rules: string 0 is "", every string is UTF-8 and
 * every index is in the table, ids are non-zero and unique, every id
 * referred to exists, every sample has a value per sample type; and as
 * what was put in: each sample's addresses, values and label count,
 * each address named once and given its first mapping.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <linux/types.h>
#include <linux/kernel.h>

#include "print-pprof.h"
#include "utf8.h"

#define NR_ADDRS	32
#define MAX_SAMPLES	64
#define MAX_STACK	24
#define MAX_LABELS	4
#define MAX_MAPPINGS	3

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-pprof-fuzz: invariant broken: %s\n", what);
	abort();
}

struct program {
	const u8	*p, *end;
};

static u8 take(struct program *pg)
{
	return pg->p < pg->end ? *pg->p++ : 0;
}

static u64 take_u64(struct program *pg)
{
	u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | take(pg);
	return v;
}

/* A string of any bytes but NUL, up to 15 of them. */
static void take_string(struct program *pg, char *s)
{
	int n = take(pg) % 16, i;

	for (i = 0; i < n; i++)
		s[i] = take(pg) ?: 'x';
	s[n] = '\0';
}

struct model {
	u64	addrs[NR_ADDRS];
	char	names[NR_ADDRS][16];
	int	calls[NR_ADDRS];
	struct kmem_pprof_mapping maps[MAX_MAPPINGS];
	int	nr_maps;
	u64	stack[MAX_SAMPLES][MAX_STACK];
	int	nr_stack[MAX_SAMPLES];
	s64	values[MAX_SAMPLES][KMEM_PPROF_MAX_VALUES];
	int	nr_labels[MAX_SAMPLES];
	int	nr_samples;
	int	nr_types;
};

static int addr_index(const struct model *m, u64 addr)
{
	int i;

	for (i = 0; i < NR_ADDRS; i++)
		if (m->addrs[i] == addr)
			return i;
	check(false, "only addresses of the samples are named");
	return 0;
}

static const char *name_of(u64 addr, void *arg)
{
	struct model *m = arg;
	int i = addr_index(m, addr);

	m->calls[i]++;
	return m->names[i][0] ? m->names[i] : NULL;
}

/* --- reading back -------------------------------------------------------- */

struct rd {
	const u8	*p, *end;
};

static u64 rd_varint(struct rd *r)
{
	u64 v = 0;
	int shift;

	for (shift = 0; shift < 70; shift += 7) {
		check(r->p < r->end, "varints end inside their message");
		v |= (u64)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
	}
	check(false, "varints of ten bytes at most");
	return 0;
}

/* The next field; its varint in *@v, or its bytes in @sub. */
static int rd_field(struct rd *r, u64 *v, struct rd *sub)
{
	u64 key = rd_varint(r), len;

	check((key >> 3) > 0, "field numbers from 1");
	if ((key & 7) == 0) {
		*v = rd_varint(r);
		return key >> 3;
	}
	check((key & 7) == 2, "wire types 0 and 2 only");
	len = rd_varint(r);
	check(len <= (u64)(r->end - r->p), "lengths inside their message");
	sub->p = r->p;
	sub->end = r->p + len;
	r->p += len;
	return key >> 3;
}

struct read {
	u64	nr_strings;
	u64	loc_addr[NR_ADDRS + 1];	/* by id */
	u64	loc_map[NR_ADDRS + 1];
	int	nr_locs, nr_funcs, nr_maps, nr_samples, nr_types;
	bool	func_seen[NR_ADDRS + 1];
	u64	line_func[NR_ADDRS + 1];
	u64	max_string;		/* the largest index referred to */
	u64	ids[MAX_SAMPLES][MAX_STACK];	/* the samples' locations */
};

static void string_ref(struct read *rd, u64 idx)
{
	if (idx > rd->max_string)
		rd->max_string = idx;
}

static void check_string(struct read *rd, struct rd *s)
{
	const u8 *p = s->p;
	int n;

	check(rd->nr_strings || s->p == s->end, "string 0 is \"\"");
	while (p < s->end) {
		n = *p < 0x80 ? (*p ? 1 : -1) : kmem_utf8_sequence(p, s->end - p);
		check(n > 0, "strings are UTF-8 without NUL");
		p += n;
	}
	rd->nr_strings++;
}

static void read_location(struct read *rd, struct rd *r)
{
	struct rd sub, line;
	u64 v = 0, id = 0, addr = 0, map = 0, fn = 0;
	int f;

	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f == 1)
			id = v;
		else if (f == 2)
			map = v;
		else if (f == 3)
			addr = v;
		else if (f == 4)
			while (sub.p < sub.end)
				if (rd_field(&sub, &v, &line) == 1)
					fn = v;
	}
	check(id == (u64)rd->nr_locs + 1 && id <= NR_ADDRS,
	      "location ids 1, 2, 3... one per address");
	rd->loc_addr[id] = addr;
	rd->loc_map[id] = map;
	rd->line_func[id] = fn;
	rd->nr_locs++;
}

static void read_function(struct read *rd, struct rd *r)
{
	struct rd sub;
	u64 v = 0, id = 0;
	int f;

	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f == 1)
			id = v;
		else if (f == 2 || f == 3)
			string_ref(rd, v);
	}
	check(id >= 1 && id <= NR_ADDRS && !rd->func_seen[id],
	      "function ids unique, from 1");
	rd->func_seen[id] = true;
	rd->nr_funcs++;
}

static void read_label(struct read *rd, struct rd *r)
{
	bool has_key = false;
	struct rd sub;
	u64 v = 0;
	int f;

	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		check(f >= 1 && f <= 4, "label fields");
		if (f == 1)
			has_key = v != 0;
		if (f != 3)
			string_ref(rd, v);
	}
	check(has_key, "a label has a key");
}

static void read_sample(struct read *rd, struct rd *r, const struct model *m)
{
	int i = rd->nr_samples++, nr_loc = 0, nr_val = 0, nr_lab = 0, f;
	struct rd sub;
	u64 v = 0;

	check(i < m->nr_samples, "as many samples as added");
	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f == 1) {
			while (sub.p < sub.end) {
				check(nr_loc < m->nr_stack[i], "the stack's length");
				rd->ids[i][nr_loc++] = rd_varint(&sub);
			}
		} else if (f == 2) {
			while (sub.p < sub.end) {
				v = rd_varint(&sub);
				check(nr_val < m->nr_types &&
				      (s64)v == m->values[i][nr_val],
				      "the values added");
				nr_val++;
			}
		} else {
			check(f == 3, "sample fields");
			read_label(rd, &sub);
			nr_lab++;
		}
	}
	check(nr_val == m->nr_types, "a value per sample type");
	check(nr_loc == m->nr_stack[i], "the stack's length");
	check(nr_lab == m->nr_labels[i], "the labels added");
}

/* Locations come after the samples: the stacks are checked at the end. */
static void check_stacks(const struct read *rd, const struct model *m)
{
	int i, k;

	for (i = 0; i < m->nr_samples; i++) {
		for (k = 0; k < m->nr_stack[i]; k++) {
			u64 id = rd->ids[i][k];

			check(id >= 1 && id <= (u64)rd->nr_locs &&
			      rd->loc_addr[id] == m->stack[i][k],
			      "a stack's locations are its addresses");
		}
	}
}

static void read_profile(const u8 *buf, size_t len, const struct model *m)
{
	struct rd r = { buf, buf + len }, sub;
	static struct read rd;
	u64 v = 0;
	int f, id;

	memset(&rd, 0, sizeof(rd));
	while (r.p < r.end) {
		f = rd_field(&r, &v, &sub);
		check(f <= 14 && f != 7 && f != 8, "profile.proto's fields");
		if (f == 1)
			rd.nr_types++;
		else if (f == 2)
			read_sample(&rd, &sub, m);
		else if (f == 3)
			rd.nr_maps++;
		else if (f == 4)
			read_location(&rd, &sub);
		else if (f == 5)
			read_function(&rd, &sub);
		else if (f == 6)
			check_string(&rd, &sub);
		else if (f == 13)
			while (sub.p < sub.end)
				string_ref(&rd, rd_varint(&sub));
		else if (f == 14)
			string_ref(&rd, v);
	}
	check(rd.nr_types == m->nr_types && rd.nr_samples == m->nr_samples &&
	      rd.nr_maps == m->nr_maps, "types, samples and mappings");
	check(rd.nr_strings && rd.max_string < rd.nr_strings,
	      "string indices inside the table");
	for (id = 1; id <= rd.nr_locs; id++) {
		int a = addr_index(m, rd.loc_addr[id]);

		check(!rd.line_func[id] || rd.func_seen[rd.line_func[id]],
		      "a line's function exists");
		check(!rd.line_func[id] == !m->names[a][0],
		      "a line where the address has a name");
		check(rd.loc_map[id] <= (u64)m->nr_maps, "a location's mapping exists");
	}
	check_stacks(&rd, m);
}

/* The mapping an address gets: the first whose range holds it. */
static u64 mapping_of(const struct model *m, u64 addr)
{
	int i;

	for (i = 0; i < m->nr_maps; i++)
		if (addr >= m->maps[i].start && addr < m->maps[i].limit)
			return i + 1;
	return 0;
}

static void check_locations(struct kmem_pprof *p, const struct model *m,
			    const u8 *buf, size_t len)
{
	struct rd r = { buf, buf + len }, sub;
	u64 v = 0, addr = 0, map = 0;
	int g, nr = 0;

	while (r.p < r.end) {
		if (rd_field(&r, &v, &sub) != 4)
			continue;
		addr = 0;
		map = 0;
		while (sub.p < sub.end) {
			struct rd line;

			g = rd_field(&sub, &v, &line);
			if (g == 2)
				map = v;
			else if (g == 3)
				addr = v;
		}
		check(map == mapping_of(m, addr), "the first mapping that holds it");
		check(m->calls[addr_index(m, addr)] == 1, "each address named once");
		nr++;
	}
	check((size_t)nr == kmem_pprof__sizes(p).locations, "a location per address");
}

/* --- the program ----------------------------------------------------------- */

static const struct kmem_pprof_type types[KMEM_PPROF_MAX_VALUES] = {
	{ "a", "count" }, { "b", "bytes" }, { "c", "count" }, { "d", "bytes" },
	{ "e", "count" }, { "f", "bytes" }, { "g", "count" }, { "h", "bytes" },
};

static void add_sample(struct kmem_pprof *p, struct model *m, struct program *pg)
{
	char strs[MAX_LABELS][2][16];
	struct kmem_pprof_label labels[MAX_LABELS];
	int i = m->nr_samples, k, nr_labels = take(pg) % (MAX_LABELS + 1);

	m->nr_stack[i] = take(pg) % MAX_STACK;
	for (k = 0; k < m->nr_stack[i]; k++)
		m->stack[i][k] = m->addrs[take(pg) % NR_ADDRS];
	for (k = 0; k < m->nr_types; k++)
		m->values[i][k] = (s64)take_u64(pg);
	for (k = 0; k < nr_labels; k++) {
		take_string(pg, strs[k][0]);
		take_string(pg, strs[k][1]);
		labels[k] = (struct kmem_pprof_label){
			.key = strs[k][0][0] ? strs[k][0] : "k",
			.str = take(pg) & 1 ? strs[k][1] : NULL,
			.num = (s64)take_u64(pg),
		};
		if (!labels[k].str && take(pg) & 1)
			labels[k].unit = "bytes";
	}
	check(!kmem_pprof__add_sample(p, m->stack[i], m->nr_stack[i],
				      m->values[i], labels, nr_labels),
	      "add a sample");
	m->nr_labels[i] = nr_labels;
	m->nr_samples++;
}

static void check_gzip(struct kmem_pprof *p, const u8 *raw, size_t raw_len)
{
	z_stream zs = { .zalloc = Z_NULL };
	char *buf = NULL;
	size_t size = 0;
	u8 *out = malloc(raw_len + 1);
	FILE *fp = open_memstream(&buf, &size);

	check(fp && out, "memory");
	check(!kmem_pprof__write(p, fp), "write");
	fclose(fp);
	check(inflateInit2(&zs, 15 + 16) == Z_OK, "inflate");
	zs.next_in = (u8 *)buf;
	zs.avail_in = size;
	zs.next_out = out;
	zs.avail_out = raw_len + 1;
	check(inflate(&zs, Z_FINISH) == Z_STREAM_END && !zs.avail_in &&
	      zs.total_out == raw_len && !memcmp(out, raw, raw_len),
	      "the file is the bytes, gzip-compressed");
	inflateEnd(&zs);
	free(out);
	free(buf);
}

static struct model model;

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct program pg = { .p = data, .end = data + size };
	struct kmem_pprof_config config = { .sample_types = types };
	struct kmem_pprof *p;
	const u8 *buf;
	size_t len = 0;
	int i;

	memset(&model, 0, sizeof(model));
	model.nr_types = 1 + take(&pg) % KMEM_PPROF_MAX_VALUES;
	config.nr_sample_types = model.nr_types;
	config.name_of = name_of;
	config.arg = &model;
	config.time_nanos = (s64)take_u64(&pg);
	for (i = 0; i < NR_ADDRS; i++) {
		/* Distinct, kernel-like, and the top of the address space. */
		model.addrs[i] = i < NR_ADDRS - 4 ? 0xffffffff81000000ULL + i * 16 +
						    take(&pg) % 16 : ~0ULL - i;
		take_string(&pg, model.names[i]);
	}
	p = kmem_pprof__new(&config);
	check(p, "new");
	for (i = take(&pg) % (MAX_MAPPINGS + 1); i > 0; i--) {
		struct kmem_pprof_mapping *map = &model.maps[model.nr_maps];
		char file[16];

		take_string(&pg, file);
		map->start = model.addrs[take(&pg) % NR_ADDRS];
		map->limit = map->start + take(&pg) * 8;
		map->file = file;
		/* A range that is empty, or wraps, is refused. */
		if (map->limit <= map->start) {
			check(kmem_pprof__add_mapping(p, map) == -EINVAL,
			      "an empty range refused");
			continue;
		}
		check(kmem_pprof__add_mapping(p, map) == ++model.nr_maps,
		      "mapping ids");
		map->file = NULL;
	}
	while (pg.p < pg.end && model.nr_samples < MAX_SAMPLES) {
		if (take(&pg) % 8 == 0) {
			char comment[16];

			take_string(&pg, comment);
			check(!kmem_pprof__add_comment(p, comment), "comment");
		} else {
			add_sample(p, &model, &pg);
		}
	}
	buf = kmem_pprof__encode(p, &len);
	check(buf, "encode");
	read_profile(buf, len, &model);
	check_locations(p, &model, buf, len);
	check_gzip(p, buf, len);
	kmem_pprof__delete(p);
	return 0;
}
