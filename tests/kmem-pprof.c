// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of perf kmem's memory profiles: the pprof writer
 * (util/kmem/print-pprof.c) and the page profile that feeds it
 * (util/kmem/count-profile.c).
 *
 * The bytes of a small profile are written out by hand from the wire
 * format and profile.proto's field numbers; larger ones are read back
 * by a protobuf reader of the test's own, which shares no code with the
 * writer, and compared with what went in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <linux/kernel.h>
#include "debug.h"
#include "tests.h"
#include "util/kmem/count-profile.h"
#include "util/kmem/count-stacks.h"
#include "util/kmem/print-pprof.h"

/* U+FFFD, what the writer puts for bytes that are not UTF-8. */
#define KMEM_UTF8_TEST_FFFD	"\xef\xbf\xbd"

/* --- a protobuf reader of the test's own ------------------------------- */

#define MAX_ITEMS	512
#define MAX_LIST	64

struct dec_label {
	u64	key, str, unit;
	s64	num;
};

struct dec_sample {
	u64		loc[MAX_LIST];
	int		nr_loc;
	s64		val[MAX_LIST];
	int		nr_val;
	struct dec_label label[MAX_LIST];
	int		nr_label;
};

struct dec_location {
	u64	id, mapping, addr, function;
	int	nr_lines;
};

struct decoded {
	const char		*str[MAX_ITEMS];
	int			len[MAX_ITEMS];
	int			nr_str;
	struct dec_sample	*sample;	/* MAX_ITEMS of them */
	int			nr_sample;
	struct dec_location	loc[MAX_ITEMS];
	int			nr_loc;
	u64			func_id[MAX_ITEMS], func_name[MAX_ITEMS];
	int			nr_func;
	u64			map_id, map_start, map_limit, map_file;
	u64			map_build_id, map_fn;
	int			nr_map;
	u64			type[MAX_LIST][2];
	int			nr_type;
	u64			comment[MAX_LIST];
	int			nr_comment;
	s64			time, duration, period, default_type;
	u64			period_type[2];
	void			*owner;		/* of the bytes read */
};

struct rd {
	const u8	*p, *end;
	bool		bad;
};

static u64 rd_varint(struct rd *r)
{
	u64 v = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		v |= (u64)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
	}
	r->bad = true;
	return v;
}

/* The next field: its number, and its value or its bytes in @sub. */
static int rd_field(struct rd *r, u64 *v, struct rd *sub)
{
	u64 key = rd_varint(r), len;

	if (r->bad)
		return -1;
	if ((key & 7) == 0) {
		*v = rd_varint(r);
	} else if ((key & 7) == 2) {
		len = rd_varint(r);
		if (r->bad || len > (u64)(r->end - r->p)) {
			r->bad = true;
			return -1;
		}
		sub->p = r->p;
		sub->end = r->p + len;
		sub->bad = false;
		r->p += len;
	} else {
		r->bad = true;
		return -1;
	}
	return key >> 3;
}

static int rd_packed(struct rd *r, u64 *out, int max)
{
	int n = 0;

	while (r->p < r->end && !r->bad && n < max)
		out[n++] = rd_varint(r);
	return r->p == r->end ? n : -1;
}

static bool rd_label(struct rd *r, struct dec_label *l)
{
	struct rd sub;
	u64 v = 0;
	int f;

	memset(l, 0, sizeof(*l));
	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f == 1)
			l->key = v;
		else if (f == 2)
			l->str = v;
		else if (f == 3)
			l->num = (s64)v;
		else if (f == 4)
			l->unit = v;
		else
			return false;
	}
	return !r->bad;
}

static bool rd_sample(struct rd *r, struct dec_sample *s)
{
	struct rd sub;
	u64 v = 0, vals[MAX_LIST];
	int f, i;

	memset(s, 0, sizeof(*s));
	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f == 1) {
			s->nr_loc = rd_packed(&sub, s->loc, MAX_LIST);
		} else if (f == 2) {
			s->nr_val = rd_packed(&sub, vals, MAX_LIST);
			for (i = 0; i < s->nr_val; i++)
				s->val[i] = (s64)vals[i];
		} else if (f == 3 && s->nr_label < MAX_LIST) {
			if (!rd_label(&sub, &s->label[s->nr_label++]))
				return false;
		} else {
			return false;
		}
		if (s->nr_loc < 0 || s->nr_val < 0)
			return false;
	}
	return !r->bad;
}

static bool rd_location(struct rd *r, struct dec_location *l)
{
	struct rd sub, line;
	u64 v = 0;
	int f;

	memset(l, 0, sizeof(*l));
	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f == 1) {
			l->id = v;
		} else if (f == 2) {
			l->mapping = v;
		} else if (f == 3) {
			l->addr = v;
		} else if (f == 4) {
			l->nr_lines++;
			while (sub.p < sub.end)
				if (rd_field(&sub, &v, &line) == 1)
					l->function = v;
		} else {
			return false;
		}
	}
	return !r->bad;
}

static bool rd_pair(struct rd *r, u64 *a, u64 *b)
{
	struct rd sub;
	u64 v = 0;
	int f;

	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f == 1)
			*a = v;
		else if (f == 2)
			*b = v;
		else if (f < 0)
			return false;
	}
	return true;
}

static bool rd_mapping(struct rd *r, struct decoded *d)
{
	u64 *field[] = {
		NULL, &d->map_id, &d->map_start, &d->map_limit, NULL,
		&d->map_file, &d->map_build_id, &d->map_fn,
	};
	struct rd sub;
	u64 v = 0;
	int f;

	while (r->p < r->end) {
		f = rd_field(r, &v, &sub);
		if (f < 0)
			return false;
		if (f < (int)ARRAY_SIZE(field) && field[f])
			*field[f] = v;
	}
	d->nr_map++;
	return true;
}

/* The profile's numbers: time, duration, period, default type. */
static bool rd_number(struct decoded *d, int f, u64 v)
{
	s64 *field[] = {
		&d->time, &d->duration, NULL, &d->period, NULL, &d->default_type,
	};

	if (f < 9 || f > 14 || !field[f - 9])
		return false;
	*field[f - 9] = (s64)v;
	return true;
}

static bool rd_top(struct decoded *d, int f, u64 v, struct rd *sub)
{
	switch (f) {
	case 1:
		if (d->nr_type >= MAX_LIST)
			return false;
		d->nr_type++;
		return rd_pair(sub, &d->type[d->nr_type - 1][0],
			       &d->type[d->nr_type - 1][1]);
	case 2:
		return d->nr_sample < MAX_ITEMS &&
		       rd_sample(sub, &d->sample[d->nr_sample++]);
	case 3:
		return rd_mapping(sub, d);
	case 4:
		return d->nr_loc < MAX_ITEMS && rd_location(sub, &d->loc[d->nr_loc++]);
	case 5:
		if (d->nr_func >= MAX_ITEMS)
			return false;
		d->func_id[d->nr_func] = 0;
		d->func_name[d->nr_func] = 0;
		d->nr_func++;
		return rd_pair(sub, &d->func_id[d->nr_func - 1],
			       &d->func_name[d->nr_func - 1]);
	case 6:
		if (d->nr_str >= MAX_ITEMS)
			return false;
		d->str[d->nr_str] = (const char *)sub->p;
		d->len[d->nr_str++] = sub->end - sub->p;
		return true;
	case 11:
		return rd_pair(sub, &d->period_type[0], &d->period_type[1]);
	case 13:
		d->nr_comment = rd_packed(sub, d->comment, MAX_LIST);
		return d->nr_comment >= 0;
	default:
		return rd_number(d, f, v);
	}
}

/* Read @len bytes of a profile into @d; false if they are not one. */
static bool decode(const u8 *buf, size_t len, struct decoded *d)
{
	struct rd r = { .p = buf, .end = buf + len }, sub;
	u64 v = 0;
	int f;

	memset(d, 0, sizeof(*d));
	d->sample = calloc(MAX_ITEMS, sizeof(*d->sample));
	if (!d->sample)
		return false;
	while (r.p < r.end) {
		f = rd_field(&r, &v, &sub);
		if (f < 0 || !rd_top(d, f, v, &sub)) {
			pr_debug("cannot read field %d at byte %td\n", f, r.p - buf);
			return false;
		}
	}
	return true;
}

static void decoded_exit(struct decoded *d)
{
	free(d->sample);
	d->sample = NULL;
}

/* String @i of the table is @s. */
static bool str_is(const struct decoded *d, u64 i, const char *s)
{
	return i < (u64)d->nr_str && d->len[i] == (int)strlen(s) &&
	       !memcmp(d->str[i], s, d->len[i]);
}

static const struct dec_location *loc_by_id(const struct decoded *d, u64 id)
{
	int i;

	for (i = 0; i < d->nr_loc; i++)
		if (d->loc[i].id == id)
			return &d->loc[i];
	return NULL;
}

static u64 func_name(const struct decoded *d, u64 id)
{
	int i;

	for (i = 0; i < d->nr_func; i++)
		if (d->func_id[i] == id)
			return d->func_name[i];
	return 0;
}

/* The string label @key of @s, or NULL. */
static const struct dec_label *label_of(const struct decoded *d,
					const struct dec_sample *s,
					const char *key)
{
	int i;

	for (i = 0; i < s->nr_label; i++)
		if (str_is(d, s->label[i].key, key))
			return &s->label[i];
	return NULL;
}

static bool label_is(const struct decoded *d, const struct dec_sample *s,
		     const char *key, const char *str)
{
	const struct dec_label *l = label_of(d, s, key);

	return l && str_is(d, l->str, str);
}

/* --- the writer's bytes ------------------------------------------------ */

static const char *small_name(u64 addr, void *arg __maybe_unused)
{
	return addr == 0x10 || addr == 0x11 ? "f" : NULL;
}

static const struct kmem_pprof_type small_types[] = {
	{ "alloc_objects", "count" },
	{ "alloc_space", "bytes" },
};

/*
 * Two sample types, a period, times, a comment, a mapping, three
 * addresses of which two name one function and one is unknown, a string
 * and a numeric label, a negative value.
 */
static struct kmem_pprof *small_profile(void)
{
	struct kmem_pprof_config config = {
		.sample_types = small_types,
		.nr_sample_types = ARRAY_SIZE(small_types),
		.default_sample_type = "alloc_space",
		.period_type = { "space", "bytes" },
		.period = 1,
		.time_nanos = 1000,
		.duration_nanos = 2000,
		.name_of = small_name,
	};
	struct kmem_pprof_mapping map = {
		.start = 0x10, .limit = 0x100, .file = "k", .build_id = "ab",
		.has_functions = true,
	};
	struct kmem_pprof_label labels[] = {
		{ .key = "order", .str = "0" },
		{ .key = "bytes", .num = 4096, .unit = "bytes" },
	};
	u64 a1[] = { 0x10, 0x20 }, a2[] = { 0x11 };
	s64 v1[] = { 1, 4096 }, v2[] = { 2, -1 };
	struct kmem_pprof *p = kmem_pprof__new(&config);

	if (!p || kmem_pprof__add_comment(p, "c") ||
	    kmem_pprof__add_mapping(p, &map) != 1 ||
	    kmem_pprof__add_sample(p, a1, 2, v1, labels, 2) ||
	    kmem_pprof__add_sample(p, a2, 1, v2, NULL, 0)) {
		kmem_pprof__delete(p);
		return NULL;
	}
	return p;
}

/* The same profile, worked out by hand from the wire format. */
static const u8 small_bytes[] = {
	/* sample_type (1): { type 1, unit 2 }, { type 3, unit 4 } */
	0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,
	0x0a, 0x04, 0x08, 0x03, 0x10, 0x04,
	/* sample (2): location_id [1 2], value [1 4096], two labels */
	0x12, 0x18,
	0x0a, 0x02, 0x01, 0x02,
	0x12, 0x03, 0x01, 0x80, 0x20,
	0x1a, 0x04, 0x08, 0x0a, 0x10, 0x0b,		/* order: "0" */
	0x1a, 0x07, 0x08, 0x04, 0x18, 0x80, 0x20, 0x20, 0x04, /* 4096 bytes */
	/* sample (2): location_id [3], value [2 -1] */
	0x12, 0x10,
	0x0a, 0x01, 0x03,
	0x12, 0x0b, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0x01,
	/* mapping (3): id 1, 0x10 to 0x100, file 7, build_id 8, functions */
	0x1a, 0x0d, 0x08, 0x01, 0x10, 0x10, 0x18, 0x80, 0x02, 0x28, 0x07,
	0x30, 0x08, 0x38, 0x01,
	/* location (4): 1 at 0x10 in f; 2 at 0x20, no line; 3 at 0x11 in f */
	0x22, 0x0a, 0x08, 0x01, 0x10, 0x01, 0x18, 0x10, 0x22, 0x02, 0x08, 0x01,
	0x22, 0x06, 0x08, 0x02, 0x10, 0x01, 0x18, 0x20,
	0x22, 0x0a, 0x08, 0x03, 0x10, 0x01, 0x18, 0x11, 0x22, 0x02, 0x08, 0x01,
	/* function (5): id 1, name 9 */
	0x2a, 0x04, 0x08, 0x01, 0x10, 0x09,
	/* string_table (6), "" first */
	0x32, 0x00,
	0x32, 0x0d, 'a', 'l', 'l', 'o', 'c', '_', 'o', 'b', 'j', 'e', 'c', 't', 's',
	0x32, 0x05, 'c', 'o', 'u', 'n', 't',
	0x32, 0x0b, 'a', 'l', 'l', 'o', 'c', '_', 's', 'p', 'a', 'c', 'e',
	0x32, 0x05, 'b', 'y', 't', 'e', 's',
	0x32, 0x05, 's', 'p', 'a', 'c', 'e',
	0x32, 0x01, 'c',
	0x32, 0x01, 'k',
	0x32, 0x02, 'a', 'b',
	0x32, 0x01, 'f',
	0x32, 0x05, 'o', 'r', 'd', 'e', 'r',
	0x32, 0x01, '0',
	/* time_nanos (9) 1000, duration_nanos (10) 2000 */
	0x48, 0xe8, 0x07, 0x50, 0xd0, 0x0f,
	/* period_type (11) { 5, 4 }, period (12) 1 */
	0x5a, 0x04, 0x08, 0x05, 0x10, 0x04, 0x60, 0x01,
	/* comment (13) [6], default_sample_type (14) 3 */
	0x6a, 0x01, 0x06, 0x70, 0x03,
};

static bool bytes_are(const u8 *got, size_t len, const u8 *want, size_t want_len)
{
	size_t i;

	if (len == want_len && !memcmp(got, want, len))
		return true;
	for (i = 0; i < len && i < want_len && got[i] == want[i]; i++)
		;
	pr_debug("got %zu bytes, want %zu; first difference at byte %zu: %#x, want %#x\n",
		 len, want_len, i, i < len ? got[i] : 0,
		 i < want_len ? want[i] : 0);
	return false;
}

static int test__kmem_pprof_bytes(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct kmem_pprof *p = small_profile();
	const u8 *buf;
	size_t len = 0;
	bool ok;

	TEST_ASSERT_VAL("small profile", p);
	TEST_ASSERT_VAL("counts", kmem_pprof__sizes(p).samples == 2 &&
			kmem_pprof__sizes(p).locations == 3 &&
			kmem_pprof__sizes(p).functions == 1 &&
			kmem_pprof__sizes(p).strings == 12);
	buf = kmem_pprof__encode(p, &len);
	ok = buf && bytes_are(buf, len, small_bytes, sizeof(small_bytes));
	/* Encoding again gives the same: nothing is consumed. */
	buf = kmem_pprof__encode(p, &len);
	ok = ok && buf && bytes_are(buf, len, small_bytes, sizeof(small_bytes));
	kmem_pprof__delete(p);
	TEST_ASSERT_VAL("bytes as worked out by hand", ok);
	return TEST_OK;
}

/* Inflate a gzip member of @len bytes into @out, @max bytes at most. */
static long gunzip(const u8 *in, size_t len, u8 *out, size_t max)
{
	z_stream zs = { .zalloc = Z_NULL };
	long n = -1;

	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -1;
	zs.next_in = (u8 *)in;
	zs.avail_in = len;
	zs.next_out = out;
	zs.avail_out = max;
	if (inflate(&zs, Z_FINISH) == Z_STREAM_END && !zs.avail_in)
		n = zs.total_out;
	inflateEnd(&zs);
	return n;
}

static int test__kmem_pprof_gzip(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	struct kmem_pprof *p = small_profile();
	u8 out[1024];
	char *buf = NULL;
	size_t size = 0;
	long n = -1;
	FILE *fp;
	int err = -1;

	TEST_ASSERT_VAL("small profile", p);
	fp = open_memstream(&buf, &size);
	if (fp) {
		err = kmem_pprof__write(p, fp);
		fclose(fp);
	}
	if (!err && size > 2)
		n = gunzip((u8 *)buf, size, out, sizeof(out));
	TEST_ASSERT_VAL("written", !err);
	TEST_ASSERT_VAL("gzip magic", size > 2 && (u8)buf[0] == 0x1f &&
			(u8)buf[1] == 0x8b);
	TEST_ASSERT_VAL("inflates to the bytes",
			n >= 0 && bytes_are(out, n, small_bytes, sizeof(small_bytes)));
	free(buf);
	kmem_pprof__delete(p);
	return TEST_OK;
}

static const char *bad_name(u64 addr, void *arg __maybe_unused)
{
	/* A lone continuation byte, and a surrogate: neither is UTF-8. */
	return addr & 1 ? "a\x80z" : "b\xed\xa0\x80";
}

static int test__kmem_pprof_strings(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	struct kmem_pprof_config config = {
		.sample_types = small_types, .nr_sample_types = 1,
		.name_of = bad_name,
	};
	struct kmem_pprof_label l = { .key = "comm", .str = "\xff" };
	u64 addrs[] = { 1, 3, 2, 1 };
	s64 v = 1;
	struct kmem_pprof *p = kmem_pprof__new(&config);
	struct decoded d;
	const u8 *buf;
	size_t len = 0;
	bool ok;

	TEST_ASSERT_VAL("new", p);
	TEST_ASSERT_VAL("samples", !kmem_pprof__add_sample(p, addrs, 4, &v, &l, 1) &&
			!kmem_pprof__add_sample(p, addrs, 2, &v, &l, 1));
	/* Four addresses, three distinct; names of two distinct functions. */
	TEST_ASSERT_VAL("locations", kmem_pprof__sizes(p).locations == 3);
	TEST_ASSERT_VAL("functions", kmem_pprof__sizes(p).functions == 2);
	buf = kmem_pprof__encode(p, &len);
	ok = buf && decode(buf, len, &d);
	TEST_ASSERT_VAL("decodes", ok);
	/* "", alloc_objects, count, 2 names, comm, "\xff" repaired. */
	ok = d.nr_str == 7 && str_is(&d, 0, "") &&
	     str_is(&d, 3, "a" KMEM_UTF8_TEST_FFFD "z") &&
	     str_is(&d, 4, "b" KMEM_UTF8_TEST_FFFD KMEM_UTF8_TEST_FFFD KMEM_UTF8_TEST_FFFD) &&
	     label_is(&d, &d.sample[0], "comm", KMEM_UTF8_TEST_FFFD) &&
	     d.sample[0].nr_loc == 4 && d.sample[0].loc[0] == d.sample[0].loc[3] &&
	     d.nr_func == 2 && d.nr_loc == 3 && d.nr_sample == 2;
	decoded_exit(&d);
	kmem_pprof__delete(p);
	TEST_ASSERT_VAL("each string once, as UTF-8", ok);
	return TEST_OK;
}

static int test__kmem_pprof_misuse(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	struct kmem_pprof_type no_unit[] = { { "alloc_space", NULL } };
	struct kmem_pprof_config config = {
		.sample_types = small_types, .nr_sample_types = 2,
	};
	struct kmem_pprof_mapping map = { .start = 0x20, .limit = 0x20 };
	struct kmem_pprof_label no_key = { .str = "x" };
	struct kmem_pprof_label str_unit = { .key = "k", .str = "x", .unit = "bytes" };
	s64 v[2] = { 1, 2 };
	u64 a = 0x20;
	struct kmem_pprof *p;
	size_t len;

	config.nr_sample_types = 0;
	TEST_ASSERT_VAL("no sample type", !kmem_pprof__new(&config));
	config.nr_sample_types = KMEM_PPROF_MAX_VALUES + 1;
	TEST_ASSERT_VAL("too many types", !kmem_pprof__new(&config));
	config.sample_types = no_unit;
	config.nr_sample_types = 1;
	TEST_ASSERT_VAL("a type without unit", !kmem_pprof__new(&config));
	config.sample_types = small_types;
	config.nr_sample_types = 2;
	p = kmem_pprof__new(&config);
	TEST_ASSERT_VAL("new", p);
	TEST_ASSERT_VAL("empty mapping", kmem_pprof__add_mapping(p, &map) == -EINVAL);
	TEST_ASSERT_VAL("label without key",
			kmem_pprof__add_sample(p, &a, 1, v, &no_key, 1) == -EINVAL);
	TEST_ASSERT_VAL("unit of a string",
			kmem_pprof__add_sample(p, &a, 1, v, &str_unit, 1) == -EINVAL);
	TEST_ASSERT_VAL("refused samples not kept", kmem_pprof__sizes(p).samples == 0);
	TEST_ASSERT_VAL("sample", !kmem_pprof__add_sample(p, &a, 1, v, NULL, 0));
	map.limit = 0x30;
	TEST_ASSERT_VAL("mapping after a sample",
			kmem_pprof__add_mapping(p, &map) == -EINVAL);
	TEST_ASSERT_VAL("still encodes", kmem_pprof__encode(p, &len) && len > 0);
	kmem_pprof__delete(p);
	return TEST_OK;
}

static int test__kmem_pprof_write_error(struct test_suite *t __maybe_unused,
					int subtest __maybe_unused)
{
	struct kmem_pprof *p = small_profile();
	FILE *fp = fopen("/dev/full", "w");
	int err;

	TEST_ASSERT_VAL("small profile", p);
	if (!fp) {
		kmem_pprof__delete(p);
		return TEST_SKIP;
	}
	err = kmem_pprof__write(p, fp);
	fclose(fp);
	kmem_pprof__delete(p);
	TEST_ASSERT_VAL("-ENOSPC on a full device", err == -ENOSPC);
	return TEST_OK;
}

/* --- random profiles read back ---------------------------------------- */

#define RANDOM_ADDRS	40

struct model_sample {
	u64	addrs[16];
	int	nr;
	s64	values[3];
	int	order;		/* -1: no label */
};

static const char *random_name(u64 addr, void *arg)
{
	int *calls = arg;
	static char name[16];

	calls[addr % RANDOM_ADDRS]++;
	if (addr % 7 == 0)
		return NULL;
	/* Every third address shares its function with the one before. */
	snprintf(name, sizeof(name), "fn%" PRIu64, (addr % RANDOM_ADDRS) / 3);
	return name;
}

static bool check_random(const struct decoded *d, const struct model_sample *m,
			 int nr)
{
	int i, k;

	if (d->nr_sample != nr || d->nr_type != 3 || d->nr_map != 0)
		return false;
	for (i = 0; i < nr; i++) {
		const struct dec_sample *s = &d->sample[i];
		const struct dec_location *l;
		char want[16];

		if (s->nr_loc != m[i].nr || s->nr_val != 3)
			return false;
		for (k = 0; k < 3; k++)
			if (s->val[k] != m[i].values[k])
				return false;
		for (k = 0; k < m[i].nr; k++) {
			l = loc_by_id(d, s->loc[k]);
			if (!l || l->addr != m[i].addrs[k] ||
			    (l->addr % 7 == 0) != !l->function)
				return false;
			snprintf(want, sizeof(want), "fn%" PRIu64,
				 (l->addr % RANDOM_ADDRS) / 3);
			if (l->function && !str_is(d, func_name(d, l->function), want))
				return false;
		}
		snprintf(want, sizeof(want), "%d", m[i].order);
		if (m[i].order >= 0 ? !label_is(d, s, "order", want) : s->nr_label)
			return false;
	}
	return true;
}

static int test__kmem_pprof_random(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	static struct model_sample m[300];
	int calls[RANDOM_ADDRS] = { 0 }, i, k, round;
	struct kmem_pprof_config config = {
		.sample_types = small_types, .nr_sample_types = 3,
		.name_of = random_name, .arg = calls,
	};
	struct kmem_pprof_type types[3] = { small_types[0], small_types[1],
					    { "inuse_space", "bytes" } };
	struct kmem_pprof *p;
	struct decoded d;
	const u8 *buf;
	size_t len = 0;
	bool ok = true;

	config.sample_types = types;
	srand(24);
	for (round = 0; round < 20 && ok; round++) {
		int nr = rand() % ARRAY_SIZE(m);

		memset(calls, 0, sizeof(calls));
		p = kmem_pprof__new(&config);
		TEST_ASSERT_VAL("new", p);
		for (i = 0; i < nr && ok; i++) {
			struct kmem_pprof_label l = { .key = "order" };
			char order[16];

			m[i].nr = rand() % 16;
			for (k = 0; k < m[i].nr; k++)
				m[i].addrs[k] = 0xffffffff81000000ULL + rand() % RANDOM_ADDRS;
			for (k = 0; k < 3; k++)
				m[i].values[k] = (s64)(rand() % 3 - 1) *
						 ((s64)rand() << (rand() % 32));
			m[i].order = rand() % 3 ? rand() % 11 : -1;
			snprintf(order, sizeof(order), "%d", m[i].order);
			l.str = order;
			ok = !kmem_pprof__add_sample(p, m[i].addrs, m[i].nr,
						     m[i].values, &l,
						     m[i].order >= 0);
		}
		buf = ok ? kmem_pprof__encode(p, &len) : NULL;
		ok = buf && decode(buf, len, &d) && check_random(&d, m, nr);
		for (k = 0; k < RANDOM_ADDRS; k++)
			ok = ok && calls[k] <= 1;
		if (buf)
			decoded_exit(&d);
		kmem_pprof__delete(p);
	}
	TEST_ASSERT_VAL("random profiles read back as written, each address named once",
			ok);
	return TEST_OK;
}

/* --- the page profile -------------------------------------------------- */

static const struct kmem_profile_key key_a = {
	.chain = 0, .order = 0, .migtype = 2, .node = 0, .task = 1234,
	.gfp = 0xcc0, .has_gfp = true,
};

static int test__kmem_pprof_periods(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	struct kmem_profile_key b = key_a, fallback = key_a, no_gfp = key_a;
	const struct kmem_profile_period *p;
	struct kmem_profile *kp = kmem_profile__new();
	int a, ib, ifb;

	TEST_ASSERT_VAL("new", kp);
	b.order = 1;
	fallback.has_gfp = false;
	fallback.gfp = 0;
	no_gfp.gfp = 0;
	a = kmem_profile__key(kp, &key_a);
	ib = kmem_profile__key(kp, &b);
	ifb = kmem_profile__key(kp, &fallback);
	TEST_ASSERT_VAL("ids in order of first sight", a == 0 && ib == 1 && ifb == 2);
	/* GFP flags of 0 are flags: not the fallback's lack of them. */
	TEST_ASSERT_VAL("a key that differs by has_gfp",
			kmem_profile__key(kp, &no_gfp) == 3);
	TEST_ASSERT_VAL("a key again", kmem_profile__key(kp, &key_a) == 0);
	TEST_ASSERT_VAL("add", !kmem_profile__add(kp, a, KMEM_PROFILE_ALLOC_OBJECTS, 2) &&
			!kmem_profile__add(kp, a, KMEM_PROFILE_ALLOC_SPACE, 8192) &&
			!kmem_profile__add(kp, ifb, KMEM_PROFILE_FALLBACKS, 1));
	TEST_ASSERT_VAL("an id never given",
			kmem_profile__add(kp, 4, KMEM_PROFILE_ALLOC_OBJECTS, 1) == -EINVAL &&
			kmem_profile__add(kp, -1, KMEM_PROFILE_ALLOC_OBJECTS, 1) == -EINVAL);
	TEST_ASSERT_VAL("a value out of range",
			kmem_profile__add(kp, a, KMEM_PROFILE_NR_VALUES, 1) == -EINVAL);
	TEST_ASSERT_VAL("close", !kmem_profile__close(kp, 100, 50));
	/* The next period: what it adds, and only that. */
	TEST_ASSERT_VAL("add", !kmem_profile__add(kp, ib, KMEM_PROFILE_INUSE_SPACE, 8192));
	TEST_ASSERT_VAL("close", !kmem_profile__close(kp, 150, 50));
	TEST_ASSERT_VAL("an empty period", !kmem_profile__close(kp, 200, 50));
	TEST_ASSERT_VAL("periods", kmem_profile__nr_periods(kp) == 3 &&
			!kmem_profile__period(kp, 3));
	p = kmem_profile__period(kp, 0);
	TEST_ASSERT_VAL("period 0: the keys with a value, by id",
			p->start == 100 && p->length == 50 && p->nr == 2 &&
			p->samples[0].key.order == 0 &&
			p->samples[0].values[KMEM_PROFILE_ALLOC_OBJECTS] == 2 &&
			p->samples[0].values[KMEM_PROFILE_ALLOC_SPACE] == 8192 &&
			!p->samples[1].key.has_gfp &&
			p->samples[1].values[KMEM_PROFILE_FALLBACKS] == 1);
	p = kmem_profile__period(kp, 1);
	TEST_ASSERT_VAL("period 1: its own sums",
			p->start == 150 && p->nr == 1 && p->samples[0].key.order == 1 &&
			p->samples[0].values[KMEM_PROFILE_INUSE_SPACE] == 8192 &&
			!p->samples[0].values[KMEM_PROFILE_ALLOC_OBJECTS]);
	TEST_ASSERT_VAL("period 2: empty", kmem_profile__period(kp, 2)->nr == 0);
	kmem_profile__delete(kp);
	return TEST_OK;
}

static const char *page_frame(u64 ip, void *arg __maybe_unused)
{
	return ip == 0x100 ? "do_anonymous_page" : ip == 0x200 ? "handle_mm_fault" :
	       ip == 0x300 ? "pte_alloc_one" : NULL;
}

static const char *page_gfp(u64 gfp, void *arg __maybe_unused)
{
	return gfp == 0xcc0 ? "GFP_KERNEL" : "__GFP_DMA";
}

static const char *page_migtype(int migtype, char *buf, size_t size,
				void *arg __maybe_unused)
{
	snprintf(buf, size, "%s", migtype == 2 ? "Movable" : "Unmovable");
	return buf;
}

static const char *page_comm(u32 task, void *arg __maybe_unused)
{
	return task == 1234 ? "sh" : "?";
}

/*
 * Two chains, four keys: an allocation with a node, one without, a
 * fallback, which has no GFP flags, and an allocation without a chain.
 */
static struct kmem_profile *page_profile(struct kmem_stacks *st)
{
	u64 chain_a[] = { 0x100, 0x200 }, chain_b[] = { 0x300 };
	struct kmem_profile_key b = key_a, fb = key_a, none = key_a;
	struct kmem_profile *kp = kmem_profile__new();
	int id[4];

	b.chain = 1;
	b.order = 2;
	b.migtype = 0;
	b.node = -1;
	b.gfp = 0x1;
	fb = b;
	fb.node = 1;
	fb.has_gfp = false;
	fb.gfp = 0;
	none.chain = -1;
	if (!kp || kmem_stacks__intern(st, chain_a, 2) != 0 ||
	    kmem_stacks__intern(st, chain_b, 1) != 1) {
		kmem_profile__delete(kp);
		return NULL;
	}
	id[0] = kmem_profile__key(kp, &key_a);
	id[1] = kmem_profile__key(kp, &b);
	id[2] = kmem_profile__key(kp, &fb);
	id[3] = kmem_profile__key(kp, &none);
	kmem_profile__add(kp, id[0], KMEM_PROFILE_ALLOC_OBJECTS, 3);
	kmem_profile__add(kp, id[0], KMEM_PROFILE_ALLOC_SPACE, 12288);
	kmem_profile__add(kp, id[0], KMEM_PROFILE_INUSE_OBJECTS, 1);
	kmem_profile__add(kp, id[0], KMEM_PROFILE_INUSE_SPACE, 4096);
	kmem_profile__add(kp, id[1], KMEM_PROFILE_ALLOC_OBJECTS, 1);
	kmem_profile__add(kp, id[1], KMEM_PROFILE_ALLOC_SPACE, 16384);
	kmem_profile__add(kp, id[1], KMEM_PROFILE_STALL, 7000);
	kmem_profile__add(kp, id[2], KMEM_PROFILE_FALLBACKS, 2);
	kmem_profile__add(kp, id[3], KMEM_PROFILE_ALLOC_OBJECTS, 1);
	kmem_profile__add(kp, id[3], KMEM_PROFILE_ALLOC_SPACE, 4096);
	if (kmem_profile__close(kp, 1000, 500)) {
		kmem_profile__delete(kp);
		return NULL;
	}
	return kp;
}

/* A numeric label of @s: @key, @num bytes. */
static bool num_label_is(const struct decoded *d, const struct dec_sample *s,
			 const char *key, s64 num)
{
	const struct dec_label *l = label_of(d, s, key);

	return l && !l->str && l->num == num && str_is(d, l->unit, "bytes");
}

static bool values_are(const struct dec_sample *s, const s64 *want, int nr)
{
	int i;

	if (s->nr_val != nr)
		return false;
	for (i = 0; i < nr; i++)
		if (s->val[i] != want[i])
			return false;
	return true;
}

/* The locations of @s name @names, leaf first, in mapping 1. */
static bool stack_is(const struct decoded *d, const struct dec_sample *s,
		     const char * const *names, int nr)
{
	const struct dec_location *l;
	int i;

	if (s->nr_loc != nr)
		return false;
	for (i = 0; i < nr; i++) {
		l = loc_by_id(d, s->loc[i]);
		if (!l || l->mapping != 1 ||
		    !str_is(d, func_name(d, l->function), names[i]))
			return false;
	}
	return true;
}

/* Go's four sample types, and @fifth after them if not NULL. */
static bool header_is(const struct decoded *d, int nr_types,
		      const char *fifth)
{
	const char *types[][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
		{ fifth, !fifth ? NULL : strcmp(fifth, "stall") ? "count" :
		  "nanoseconds" },
	};
	int i;

	if (d->nr_type != nr_types)
		return false;
	for (i = 0; i < nr_types; i++)
		if (!str_is(d, d->type[i][0], types[i][0]) ||
		    !str_is(d, d->type[i][1], types[i][1]))
			return false;
	return str_is(d, d->default_type, "alloc_space") &&
	       str_is(d, d->period_type[0], "space") &&
	       str_is(d, d->period_type[1], "bytes") && d->period == 1 &&
	       d->time == 1000 + 1000000000 && d->duration == 500 &&
	       d->nr_comment == 1 && str_is(d, d->comment[0], "exact") &&
	       d->nr_map == 1 && d->map_start == 0x100 && d->map_limit == 0x1000 &&
	       str_is(d, d->map_file, "[kernel.kallsyms]") &&
	       str_is(d, d->map_build_id, "abcd") && d->map_fn == 1;
}

/* Ids 1, 2, 3 at 0x100, 0x200, 0x300: the locations in address order. */
static bool locations_sorted(const struct decoded *d)
{
	const struct dec_location *l;
	u64 id;

	for (id = 1; id <= 3; id++) {
		l = loc_by_id(d, id);
		if (!l || l->addr != id << 8)
			return false;
	}
	return !loc_by_id(d, 4);
}

/*
 * The samples in stack order from the root: the one without a stack,
 * then a (root 0x200), then the two of b (root 0x300) in key order.
 */
static bool page_samples_are(const struct decoded *d)
{
	static const char * const a[] = { "do_anonymous_page", "handle_mm_fault" };
	static const char * const b[] = { "pte_alloc_one" };
	static const s64 va[] = { 3, 12288, 1, 4096, 0 }, vb[] = { 1, 16384, 0, 0, 0 };
	static const s64 vf[] = { 0, 0, 0, 0, 2 }, vn[] = { 1, 4096, 0, 0, 0 };
	const struct dec_sample *s = d->sample;

	return d->nr_sample == 4 && locations_sorted(d) &&
	       s[0].nr_loc == 0 && values_are(&s[0], vn, 5) &&
	       stack_is(d, &s[1], a, 2) && values_are(&s[1], va, 5) &&
	       num_label_is(d, &s[1], "bytes", 4096) &&
	       label_is(d, &s[1], "order", "0") &&
	       label_is(d, &s[1], "migtype", "Movable") &&
	       label_is(d, &s[1], "gfp", "GFP_KERNEL") &&
	       label_is(d, &s[1], "node", "0") && label_is(d, &s[1], "pid", "1234") &&
	       s[1].nr_label == 6 &&
	       stack_is(d, &s[2], b, 1) && values_are(&s[2], vb, 5) &&
	       num_label_is(d, &s[2], "bytes", 16384) &&
	       label_is(d, &s[2], "order", "2") &&
	       label_is(d, &s[2], "migtype", "Unmovable") &&
	       label_is(d, &s[2], "gfp", "__GFP_DMA") && !label_of(d, &s[2], "node") &&
	       stack_is(d, &s[3], b, 1) && values_are(&s[3], vf, 5) &&
	       !label_of(d, &s[3], "gfp") && label_is(d, &s[3], "node", "1");
}

/* Write period 0 of @kp as pprof, and read it back into @d. */
static bool write_page_profile(struct kmem_profile *kp, struct kmem_stacks *st,
			       struct kmem_profile_write_config *c,
			       struct decoded *d)
{
	struct kmem_pprof *pp = kmem_profile__pprof(kp, 0, st, c);
	size_t len = 0;
	const u8 *buf = pp ? kmem_pprof__encode(pp, &len) : NULL;
	bool ok;

	memset(d, 0, sizeof(*d));
	ok = buf && decode(buf, len, d);
	/* The strings are the profile's: keep it until the checks are done. */
	d->owner = pp;
	return ok;
}

static void page_profile_done(struct decoded *d)
{
	kmem_pprof__delete(d->owner);
	decoded_exit(d);
}

static int test__kmem_pprof_page(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	static const char * const comments[] = { "exact" };
	struct kmem_profile_write_config c = {
		.page_size = 4096, .task = KMEM_PROFILE_TASK_PID, .fallbacks = true,
		.time_offset = 1000000000, .comments = comments, .nr_comments = 1,
		.kernel = { .start = 0x100, .limit = 0x1000,
			    .file = "[kernel.kallsyms]", .build_id = "abcd" },
		.names = { .frame = page_frame, .gfp = page_gfp,
			   .migtype = page_migtype, .comm = page_comm },
	};
	struct kmem_stacks *st = kmem_stacks__new();
	struct kmem_profile *kp = st ? page_profile(st) : NULL;
	struct decoded d;
	bool ok;

	TEST_ASSERT_VAL("profile", kp);
	ok = write_page_profile(kp, st, &c, &d) && header_is(&d, 5, "fallbacks") &&
	     page_samples_are(&d);
	page_profile_done(&d);
	TEST_ASSERT_VAL("samples, labels, stacks, header as put in", ok);
	/* The task as a command name, and no fallbacks: four types. */
	c.task = KMEM_PROFILE_TASK_COMM;
	c.fallbacks = false;
	ok = write_page_profile(kp, st, &c, &d) && header_is(&d, 4, NULL) &&
	     d.nr_sample == 4 && d.sample[0].nr_val == 4 &&
	     label_is(&d, &d.sample[0], "comm", "sh") &&
	     !label_of(&d, &d.sample[0], "pid");
	page_profile_done(&d);
	TEST_ASSERT_VAL("comm labels, four sample types", ok);
	/* Stall time without fallbacks: the fifth type, right after Go's. */
	c.stalls = true;
	ok = write_page_profile(kp, st, &c, &d) && header_is(&d, 5, "stall") &&
	     d.sample[2].nr_val == 5 && d.sample[2].val[4] == 7000 &&
	     d.sample[1].val[4] == 0;
	page_profile_done(&d);
	TEST_ASSERT_VAL("stall/nanoseconds, five sample types", ok);
	TEST_ASSERT_VAL("no such period", !kmem_profile__pprof(kp, 1, st, &c));
	kmem_profile__delete(kp);
	kmem_stacks__delete(st);
	return TEST_OK;
}

static struct test_case kmem_pprof_tests[] = {
	TEST_CASE("kmem pprof: protobuf bytes of a small profile", kmem_pprof_bytes),
	TEST_CASE("kmem pprof: gzip that inflates to them", kmem_pprof_gzip),
	TEST_CASE("kmem pprof: strings once, as UTF-8", kmem_pprof_strings),
	TEST_CASE("kmem pprof: misuse refused", kmem_pprof_misuse),
	TEST_CASE("kmem pprof: write error", kmem_pprof_write_error),
	TEST_CASE("kmem pprof: random profiles read back", kmem_pprof_random),
	TEST_CASE("kmem pprof: page profile sums, period by period", kmem_pprof_periods),
	TEST_CASE("kmem pprof: page profile written as pprof", kmem_pprof_page),
	{ .name = NULL, }
};

struct test_suite suite__kmem_pprof = {
	.desc = "perf kmem memory profiles",
	.test_cases = kmem_pprof_tests,
};
