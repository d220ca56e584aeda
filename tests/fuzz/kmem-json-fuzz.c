// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/json.c: the input is a program of writer
 * calls with their keys, strings and numbers.  A model in this file says
 * which calls are allowed; the writer must accept exactly the programs the
 * model accepts, and then write a document that a validator of its own
 * (RFC 8259, strings of valid UTF-8) reads back, with the same scalars in
 * the same order: numbers equal, and each string equal to its bytes with
 * every maximal subpart of ill-formed UTF-8 replaced by U+FFFD.  The reader
 * (util/kmem/read-json.c) reads each such document back to the same
 * scalars, and takes the input itself as a document without a crash.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>

#include "json.h"
#include "read-json.h"

#define MAX_SCALARS	4096
#define MAX_STRING	64		/* bytes of input per string */
#define MAX_DECODED	(3 * MAX_STRING)

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-json-fuzz: invariant broken: %s\n", what);
	abort();
}

/* --- a scalar as the program gave it and as the validator read it ----- */

enum scalar_kind { S_STRING, S_UNSIGNED, S_SIGNED, S_TRUE, S_FALSE, S_NULL };

struct scalar {
	enum scalar_kind	kind;
	bool			key;	/* an object's key, not a value */
	u64			u;
	s64			s;
	size_t			len;
	unsigned char		str[MAX_DECODED];
};

struct scalars {
	struct scalar	v[MAX_SCALARS];
	size_t		nr;
};

/* --- what the model expects a string to read back as ------------------ */

/*
 * Is there a well-formed sequence of @n bytes that starts with the @k
 * bytes at @s?  Completions of a prefix span a range of code points; the
 * range meets the allowed ones iff one of its ends is allowed.
 */
static bool viable(const unsigned char *s, int k, int n)
{
	static const u32 least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	int end, i;

	for (end = 0; end < 2; end++) {
		u32 cp = s[0] & (0x7f >> n);

		for (i = 1; i < n; i++) {
			unsigned char b = i < k ? s[i] : (end ? 0xbf : 0x80);

			if ((b & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (b & 0x3f);
		}
		if (cp >= least[n] && cp <= 0x10ffff &&
		    (cp < 0xd800 || cp > 0xdfff))
			return true;
	}
	return false;
}

/* Leading one bits of a lead byte: its sequence's length, 2..4, else 0. */
static int lead_length(unsigned char c)
{
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 0;
}

static size_t expected_string(const unsigned char *s, size_t len,
			      unsigned char *out)
{
	size_t i = 0, o = 0;

	while (i < len) {
		int n = s[i] < 0x80 ? 1 : lead_length(s[i]), k = 1;

		if (n > 1)
			while (k < n && i + k < len && viable(s + i, k + 1, n))
				k++;
		if (n == 1 || (k == n && viable(s + i, n, n))) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i += n > 1 && viable(s + i, 1, n) ? k : 1;
		}
	}
	return o;
}

/* --- the validator ---------------------------------------------------- */

struct reader {
	const unsigned char	*p, *end;
	struct scalars		*got;
	int			depth;
};

static bool ws(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' ||
				 *r->p == '\t' || *r->p == '\r'))
		r->p++;
	return true;
}

static bool literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return false;
	r->p += n;
	return true;
}

static struct scalar *next_scalar(struct reader *r, enum scalar_kind kind)
{
	struct scalar *v;

	check(r->got->nr < MAX_SCALARS, "scalars fit");
	v = &r->got->v[r->got->nr++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

static int hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_code_point(struct scalar *v, u32 cp)
{
	check(v->len + (cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3) <= MAX_DECODED,
	      "string fits");
	if (cp < 0x80) {
		v->str[v->len++] = cp;
	} else if (cp < 0x800) {
		v->str[v->len++] = 0xc0 | cp >> 6;
		v->str[v->len++] = 0x80 | (cp & 0x3f);
	} else {
		/* \u escapes are never surrogates here, so at most 3 bytes. */
		v->str[v->len++] = 0xe0 | cp >> 12;
		v->str[v->len++] = 0x80 | ((cp >> 6) & 0x3f);
		v->str[v->len++] = 0x80 | (cp & 0x3f);
	}
}

static bool escape(struct reader *r, struct scalar *v)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	u32 cp = 0;
	int i;

	if (r->p >= r->end)
		return false;
	e = memchr(from, *r->p, sizeof(from) - 1);
	if (e) {
		r->p++;
		put_code_point(v, to[e - from]);
		return true;
	}
	if (*r->p++ != 'u' || r->end - r->p < 4)
		return false;
	for (i = 0; i < 4; i++) {
		int d = hex_digit(*r->p++);

		if (d < 0)
			return false;
		cp = cp << 4 | d;
	}
	if (cp >= 0xd800 && cp <= 0xdfff)
		return false;
	put_code_point(v, cp);
	return true;
}

static bool read_string(struct reader *r)
{
	struct scalar *v;

	if (r->p >= r->end || *r->p != '"')
		return false;
	r->p++;
	v = next_scalar(r, S_STRING);
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = *r->p;
		int n;

		if (c < 0x20)
			return false;
		if (c == '\\') {
			r->p++;
			if (!escape(r, v))
				return false;
			continue;
		}
		n = c < 0x80 ? 1 : lead_length(c);
		if (!n || r->end - r->p < n || !viable(r->p, n, n))
			return false;
		check(v->len + n <= MAX_DECODED, "string fits");
		memcpy(v->str + v->len, r->p, n);
		v->len += n;
		r->p += n;
	}
	return literal(r, "\"");
}

static bool number(struct reader *r)
{
	bool minus = literal(r, "-");
	const unsigned char *start = r->p;
	struct scalar *v;
	u64 u = 0;

	while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
		unsigned int d = *r->p++ - '0';

		check(u <= (~0ULL - d) / 10, "numbers fit in 64 bits");
		u = u * 10 + d;
	}
	if (r->p == start || (*start == '0' && r->p - start > 1))
		return false;
	if (minus && u == 0)
		return false;	/* the writer never writes -0 */
	v = next_scalar(r, minus ? S_SIGNED : S_UNSIGNED);
	v->u = u;
	v->s = minus ? (s64)(0 - u) : (s64)u;
	return true;
}

static bool value(struct reader *r);

static bool members(struct reader *r, char close, bool keyed)
{
	ws(r);
	if (literal(r, close == '}' ? "}" : "]"))
		return true;
	for (;;) {
		if (keyed && !read_string(r))
			return false;
		if (keyed)
			r->got->v[r->got->nr - 1].key = true;
		if (keyed && !(ws(r) && literal(r, ":")))
			return false;
		if (!value(r))
			return false;
		ws(r);
		if (literal(r, close == '}' ? "}" : "]"))
			return true;
		if (!literal(r, ","))
			return false;
		ws(r);
	}
}

static bool value(struct reader *r)
{
	bool ok;

	ws(r);
	if (r->p >= r->end)
		return false;
	switch (*r->p) {
	case '{':
	case '[':
		if (++r->depth > KMEM_JSON_MAX_DEPTH)
			return false;
		r->p++;
		ok = members(r, *(r->p - 1) == '{' ? '}' : ']',
			     *(r->p - 1) == '{');
		r->depth--;
		return ok;
	case '"':
		return read_string(r);
	case 't':
		return literal(r, "true") && next_scalar(r, S_TRUE);
	case 'f':
		return literal(r, "false") && next_scalar(r, S_FALSE);
	case 'n':
		return literal(r, "null") && next_scalar(r, S_NULL);
	default:
		return number(r);
	}
}

/* One value and the newline after it, nothing more. */
static bool valid_document(const char *text, size_t len, struct scalars *got)
{
	struct reader r = {
		.p = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
		.got = got,
	};

	return value(&r) && literal(&r, "\n") && r.p == r.end;
}

/* --- the program and its model ---------------------------------------- */

struct model {
	char		open[KMEM_JSON_MAX_DEPTH + 1];	/* '{' or '[' */
	bool		key_pending[KMEM_JSON_MAX_DEPTH + 1];
	size_t		members[KMEM_JSON_MAX_DEPTH + 1];
	size_t		path_len[KMEM_JSON_MAX_DEPTH + 1];	/* a visitor's */
	size_t		member_path_len;
	bool		path_too_long;	/* a visitor refuses the document */
	int		depth;
	int		documents;
	bool		ok;
	struct scalars	want;
};

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

static size_t take_bytes(struct program *pg, unsigned char *buf)
{
	size_t len = take_byte(pg) % (MAX_STRING + 1), i;

	for (i = 0; i < len; i++)
		buf[i] = take_byte(pg);
	return len;
}

/*
 * A visitor's path for a member named by @n bytes: the level's path, a dot
 * if there is one and room for it, the name, and a NUL in
 * KMEM_JSON_MAX_PATH bytes.
 */
static void model_path(struct model *m, size_t n)
{
	size_t len = m->path_len[m->depth];
	size_t dot = len && KMEM_JSON_MAX_PATH - len > 1;

	if (n >= KMEM_JSON_MAX_PATH - len - dot)
		m->path_too_long = true;
	else
		m->member_path_len = len + dot + n;
}

/* A value may stand here: note it in the model. */
static void model_value(struct model *m)
{
	if (m->depth == 0) {
		if (m->documents++)
			m->ok = false;
	} else if (m->open[m->depth] == '[') {
		model_path(m, snprintf(NULL, 0, "%zu",
				       m->members[m->depth]++));
	} else if (m->open[m->depth] == '{') {
		if (!m->key_pending[m->depth])
			m->ok = false;
		m->key_pending[m->depth] = false;
	}
}

static void model_scalar(struct model *m, enum scalar_kind kind, u64 u,
			 const unsigned char *s, size_t len)
{
	struct scalar *v;

	model_value(m);
	if (!m->ok || m->want.nr >= MAX_SCALARS)
		return;
	v = &m->want.v[m->want.nr++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->u = u;
	v->s = (s64)u;
	if (kind == S_STRING)
		v->len = expected_string(s, len, v->str);
}

static void model_open(struct model *m, char c)
{
	model_value(m);
	if (m->depth == KMEM_JSON_MAX_DEPTH)
		m->ok = false;
	if (!m->ok)
		return;
	m->depth++;
	m->open[m->depth] = c;
	m->key_pending[m->depth] = false;
	m->members[m->depth] = 0;
	m->path_len[m->depth] = m->depth > 1 ? m->member_path_len : 0;
}

static void model_close(struct model *m, char c)
{
	if (!m->depth || m->open[m->depth] != c || m->key_pending[m->depth])
		m->ok = false;
	if (m->ok)
		m->depth--;
}

static void model_key(struct model *m, const unsigned char *s, size_t len)
{
	if (!m->depth || m->open[m->depth] != '{' || m->key_pending[m->depth])
		m->ok = false;
	if (!m->ok)
		return;
	m->key_pending[m->depth] = true;
	check(m->want.nr < MAX_SCALARS, "scalars fit");
	m->want.v[m->want.nr] = (struct scalar){ .kind = S_STRING };
	m->want.v[m->want.nr].len = expected_string(s, len,
						    m->want.v[m->want.nr].str);
	model_path(m, m->want.v[m->want.nr].len);
	m->want.nr++;
}

/* Most steps do what the model allows, so that deep documents come out. */
static int pick_op(const struct model *m, u8 b)
{
	static const int value_ops[] = { 0, 2, 5, 6, 7, 8, 9, 10, 11 };
	int d = m->depth;

	if (!(b & 0x80))
		return b % 12;
	if (d && m->open[d] == '{' && !m->key_pending[d])
		return b & 0x40 ? 1 : 4;	/* end_object or key */
	if (d && m->open[d] == '[' && (b & 0x40))
		return 3;			/* end_array */
	return value_ops[(b & 0x3f) % ARRAY_SIZE(value_ops)];
}

static void step(struct kmem_json *j, struct model *m, struct program *pg)
{
	unsigned char buf[MAX_STRING + 1];
	size_t len;
	u64 v;

	switch (pick_op(m, take_byte(pg))) {
	case 0:
		model_open(m, '{');
		kmem_json__begin_object(j);
		break;
	case 1:
		model_close(m, '{');
		kmem_json__end_object(j);
		break;
	case 2:
		model_open(m, '[');
		kmem_json__begin_array(j);
		break;
	case 3:
		model_close(m, '[');
		kmem_json__end_array(j);
		break;
	case 4:
		len = take_bytes(pg, buf);
		buf[len] = '\0';
		len = strlen((char *)buf);
		model_key(m, buf, len);
		kmem_json__key(j, (char *)buf);
		break;
	case 5:
		v = take_u64(pg);
		model_scalar(m, S_UNSIGNED, v, NULL, 0);
		kmem_json__u64(j, v);
		break;
	case 6:
		v = take_u64(pg);
		model_scalar(m, (s64)v < 0 ? S_SIGNED : S_UNSIGNED, v, NULL, 0);
		kmem_json__s64(j, (s64)v);
		break;
	case 7:
		v = take_byte(pg) & 1;
		model_scalar(m, v ? S_TRUE : S_FALSE, 0, NULL, 0);
		kmem_json__bool(j, v);
		break;
	case 8:
		model_scalar(m, S_NULL, 0, NULL, 0);
		kmem_json__null(j);
		break;
	case 9:
		len = take_bytes(pg, buf);
		model_scalar(m, S_STRING, 0, buf, len);
		kmem_json__string_len(j, (char *)buf, len);
		break;
	case 10:
		len = take_bytes(pg, buf);
		buf[len] = '\0';
		len = strlen((char *)buf);
		model_scalar(m, S_STRING, 0, buf, len);
		kmem_json__string(j, (char *)buf);
		break;
	default:
		v = take_u64(pg);
		len = snprintf((char *)buf, sizeof(buf), "0x%llx",
			       (unsigned long long)v);
		model_scalar(m, S_STRING, 0, buf, len);
		kmem_json__hex(j, v);
		break;
	}
}

static bool same_scalar(const struct scalar *a, const struct scalar *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case S_STRING:
		return a->len == b->len && !memcmp(a->str, b->str, a->len);
	case S_UNSIGNED:
		return a->u == b->u;
	case S_SIGNED:
		return a->s == b->s;
	default:
		return true;
	}
}

static struct model model;
static struct scalars got, reread;

/* The reader's scalars, as the validator's are kept. */
static void collect(void *arg, const char *path __maybe_unused,
		    const struct kmem_json_value *v)
{
	struct scalars *s = arg;
	struct scalar *x;

	if (s->nr == MAX_SCALARS)
		return;
	x = &s->v[s->nr++];
	memset(x, 0, sizeof(*x));
	x->kind = S_NULL;
	if (v->kind == KMEM_JSON_U64) {
		x->kind = S_UNSIGNED;
		x->u = v->u;
	} else if (v->kind == KMEM_JSON_S64) {
		x->kind = S_SIGNED;
		x->s = v->s;
	} else if (v->kind == KMEM_JSON_BOOL) {
		x->kind = v->b ? S_TRUE : S_FALSE;
	} else if (v->kind == KMEM_JSON_STRING) {
		x->kind = S_STRING;
		x->len = min_t(size_t, v->len, MAX_DECODED);
		memcpy(x->str, v->str, x->len);
	}
}

/* The reader gives a signed number that is not negative as unsigned. */
static bool same_read(const struct scalar *w, const struct scalar *r)
{
	if (w->kind == S_SIGNED && w->s >= 0)
		return r->kind == S_UNSIGNED && r->u == (u64)w->s;
	return same_scalar(w, r);
}

/*
 * Read @text back; with @want, to the scalars of @want, or refused for a
 * path too long with @path_too_long.
 */
static void read_back(const char *text, size_t len, const struct scalars *want,
		      bool path_too_long)
{
	struct kmem_json *j = kmem_json__new_visitor(collect, &reread);
	char err[128];
	size_t i, n;
	int ret;

	check(j, "visitor");
	reread.nr = 0;
	ret = kmem_json__read(text, len, j, err, sizeof(err));
	kmem_json__delete(j);
	check(ret == 0 || ret == -EINVAL, "reads or says why not");
	if (!want)
		return;
	if (path_too_long) {
		check(ret && strstr(err, "path"), "refuses a path too long");
		return;
	}
	check(!ret, "reads back its own document");
	for (i = 0, n = 0; i < want->nr; i++) {
		if (want->v[i].key)
			continue;
		check(n < reread.nr, "reads back as many values");
		check(same_read(&want->v[i], &reread.v[n++]),
		      "reads back each value as written");
	}
	check(n == reread.nr, "reads back no more values");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct program pg = { .p = data, .end = data + size };
	char *text = NULL;
	size_t text_len = 0, i;
	struct kmem_json *j;
	FILE *fp;
	int ret;

	fp = open_memstream(&text, &text_len);
	check(fp, "memstream");
	j = kmem_json__new(fp);
	check(j, "writer");
	memset(&model, 0, sizeof(model));
	model.ok = true;
	while (pg.p < pg.end && model.want.nr < MAX_SCALARS - 1)
		step(j, &model, &pg);
	ret = kmem_json__finish(j);
	if (model.ok && (model.depth || model.documents != 1))
		model.ok = false;
	check(ret == (model.ok ? 0 : -EINVAL), "accepts what the model does");
	check(!!kmem_json__error(j) == !model.ok, "says why it refused");
	kmem_json__delete(j);
	fclose(fp);
	if (model.ok) {
		got.nr = 0;
		check(valid_document(text, text_len, &got), "valid JSON");
		check(got.nr == model.want.nr, "as many scalars as written");
		for (i = 0; i < got.nr; i++)
			check(same_scalar(&got.v[i], &model.want.v[i]),
			      "each scalar reads back as written");
		read_back(text, text_len, &got, model.path_too_long);
	}
	free(text);
	read_back((const char *)data, size, NULL, false);
	return 0;
}
