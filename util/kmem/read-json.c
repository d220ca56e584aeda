// SPDX-License-Identifier: GPL-2.0
/*
 * A JSON document read back, as the writer that wrote it; see read-json.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "read-json.h"

struct reader {
	const char		*start;
	const char		*p;
	const char		*end;
	struct kmem_json	*j;
	char			*scratch;	/* a decoded string */
	const char		*error;
};

static bool fail(struct reader *r, const char *what)
{
	if (!r->error)
		r->error = what;
	return false;
}

static void skip_blanks(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool take(struct reader *r, char c)
{
	skip_blanks(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;	/* 'A' to 'a' */
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The four hex digits of a \u escape, after the 'u'. */
static bool read_u16(struct reader *r, unsigned int *v)
{
	int i, d;

	*v = 0;
	for (i = 0; i < 4; i++) {
		d = r->p < r->end ? hex_digit(*r->p++) : -1;
		if (d < 0)
			return fail(r, "a \\u escape without four hex digits");
		*v = *v << 4 | d;
	}
	return true;
}

static size_t put_utf8(char *out, unsigned int c)
{
	static const unsigned char lead[] = { 0, 0xc0, 0xe0, 0xf0 };
	size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4, i;

	for (i = n - 1; i > 0; i--, c >>= 6)
		out[i] = 0x80 | (c & 0x3f);
	out[0] = lead[n - 1] | c;
	return n;
}

/* A \u escape, a surrogate pair as one character, into @out. */
static bool read_unicode(struct reader *r, char *out, size_t *n)
{
	unsigned int c, low;

	if (!read_u16(r, &c))
		return false;
	if (c >= 0xdc00 && c <= 0xdfff)
		return fail(r, "a lone low surrogate");
	if (c >= 0xd800 && c <= 0xdbff) {
		if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
			return fail(r, "a high surrogate without its low one");
		r->p += 2;
		if (!read_u16(r, &low))
			return false;
		if (low < 0xdc00 || low > 0xdfff)
			return fail(r, "a high surrogate without its low one");
		c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
	}
	*n += put_utf8(out + *n, c);
	return true;
}

static bool read_escape(struct reader *r, char *out, size_t *n)
{
	static const char plain[] = "\"\\/bfnrt", means[] = "\"\\/\b\f\n\r\t";
	const char *e;

	if (r->p >= r->end)
		return fail(r, "a string that does not end");
	if (*r->p == 'u') {
		r->p++;
		return read_unicode(r, out, n);
	}
	e = strchr(plain, *r->p);
	if (!e || !*e)
		return fail(r, "an unknown escape in a string");
	out[(*n)++] = means[e - plain];
	r->p++;
	return true;
}

/* A string, decoded into the scratch buffer; its length in *@len. */
static bool read_string(struct reader *r, size_t *len)
{
	size_t n = 0;

	if (!take(r, '"'))
		return fail(r, "a string expected");
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = *r->p++;

		if (c < 0x20)
			return fail(r, "a control character in a string");
		if (c != '\\')
			r->scratch[n++] = c;
		else if (!read_escape(r, r->scratch, &n))
			return false;
	}
	if (r->p >= r->end)
		return fail(r, "a string that does not end");
	r->p++;
	r->scratch[n] = '\0';
	*len = n;
	return true;
}

/* The end of a JSON number at @p, or NULL: -?int(.digits)?([eE][+-]?digits)? */
static const char *number_end(const char *p, const char *end, bool *integer)
{
	const char *digits;

	*integer = true;
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (p < end && *p == '.') {
		*integer = false;
		for (digits = ++p; p < end && *p >= '0' && *p <= '9'; p++)
			;
		if (p == digits)
			return NULL;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		*integer = false;
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		for (digits = p; p < end && *p >= '0' && *p <= '9'; p++)
			;
		if (p == digits)
			return NULL;
	}
	return p;
}

static bool read_number(struct reader *r)
{
	char buf[64];
	bool integer;
	const char *end = number_end(r->p, r->end, &integer);
	size_t len = end ? (size_t)(end - r->p) : 0;

	if (!end || len >= sizeof(buf))
		return fail(r, "a value expected");
	memcpy(buf, r->p, len);
	buf[len] = '\0';
	r->p = end;
	errno = 0;
	if (integer && buf[0] != '-') {
		u64 v = strtoull(buf, NULL, 10);

		if (!errno) {
			kmem_json__u64(r->j, v);
			return true;
		}
	} else if (integer) {
		s64 v = strtoll(buf, NULL, 10);

		if (!errno) {
			kmem_json__s64(r->j, v);
			return true;
		}
	}
	kmem_json__fixed1(r->j, strtod(buf, NULL));
	return true;
}

static bool read_word(struct reader *r, const char *word)
{
	size_t len = strlen(word);

	if ((size_t)(r->end - r->p) < len || strncmp(r->p, word, len))
		return fail(r, "a value expected");
	r->p += len;
	return true;
}

static bool read_value(struct reader *r, int depth);

/* A member's key, and the ':' after it. */
static bool read_key(struct reader *r)
{
	size_t len;

	if (!read_string(r, &len))
		return false;
	kmem_json__key(r->j, r->scratch);
	return take(r, ':') || fail(r, "a ':' expected after a key");
}

/* The members of an object or the values of an array, and its end. */
static bool read_level(struct reader *r, int depth, bool object)
{
	char close = object ? '}' : ']';

	(object ? kmem_json__begin_object : kmem_json__begin_array)(r->j);
	if (!take(r, close)) {
		do {
			if (object && !read_key(r))
				return false;
			if (!read_value(r, depth + 1))
				return false;
		} while (take(r, ','));
		if (!take(r, close))
			return fail(r, object ? "a ',' or '}' expected in an object" :
						"a ',' or ']' expected in an array");
	}
	(object ? kmem_json__end_object : kmem_json__end_array)(r->j);
	return true;
}

static bool read_value(struct reader *r, int depth)
{
	size_t len;

	if (depth > KMEM_JSON_MAX_DEPTH)
		return fail(r, "nested too deep");
	skip_blanks(r);
	if (r->p >= r->end)
		return fail(r, "a value expected");
	switch (*r->p) {
	case '{':
	case '[':
		return read_level(r, depth, *r->p++ == '{');
	case '"':
		if (!read_string(r, &len))
			return false;
		kmem_json__string_len(r->j, r->scratch, len);
		return true;
	case 't':
		kmem_json__bool(r->j, true);
		return read_word(r, "true");
	case 'f':
		kmem_json__bool(r->j, false);
		return read_word(r, "false");
	case 'n':
		kmem_json__null(r->j);
		return read_word(r, "null");
	default:
		return read_number(r);
	}
}

int kmem_json__read(const char *text, size_t len, struct kmem_json *j,
		    char *err, size_t err_size)
{
	struct reader r = {
		.start = text, .p = text, .end = text + len, .j = j,
		/* A decoded string is never longer than its text. */
		.scratch = malloc(len + 1),
	};
	int ret = 0;

	if (!r.scratch)
		return -ENOMEM;
	if (read_value(&r, 0)) {
		skip_blanks(&r);
		if (r.p != r.end)
			fail(&r, "more after the document");
	}
	/* The writer's refusal is noticed only at the end: say it as it is. */
	if (!r.error && kmem_json__error(j))
		snprintf(err, err_size, "%s", kmem_json__error(j));
	else if (r.error && r.p >= r.end)
		snprintf(err, err_size, "it ends early, at byte %zu",
			 (size_t)(r.p - r.start));
	else if (r.error)
		snprintf(err, err_size, "%s at byte %zu", r.error,
			 (size_t)(r.p - r.start));
	if (r.error || kmem_json__error(j))
		ret = -EINVAL;
	free(r.scratch);
	return ret;
}
