// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-json.h"
#include "kmem-utf8.h"

enum json_level_kind {
	LEVEL_DOCUMENT,		/* the bottom level: holds one value */
	LEVEL_OBJECT,
	LEVEL_ARRAY,
};

struct json_level {
	enum json_level_kind	kind;
	bool			key_pending;	/* objects: a key awaits its value */
	size_t			nr;		/* members written so far */
};

struct kmem_json {
	FILE			*fp;
	const char		*error;		/* the first misuse */
	int			depth;		/* levels open above the document */
	struct json_level	level[KMEM_JSON_MAX_DEPTH + 1];
};

struct kmem_json *kmem_json__new(FILE *fp)
{
	struct kmem_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->fp = fp;
	j->level[0].kind = LEVEL_DOCUMENT;
	return j;
}

void kmem_json__delete(struct kmem_json *j)
{
	free(j);
}

static struct json_level *top(struct kmem_json *j)
{
	return &j->level[j->depth];
}

static bool misuse(struct kmem_json *j, const char *what)
{
	if (!j->error)
		j->error = what;
	return false;
}

static void indent(struct kmem_json *j, int depth)
{
	fputc('\n', j->fp);
	while (depth-- > 0)
		fputs("  ", j->fp);
}

/*
 * Before a value: check that one may stand here, and write what separates
 * it from the member before.  False after any misuse.
 */
static bool start_value(struct kmem_json *j)
{
	struct json_level *l = top(j);

	if (j->error)
		return false;
	switch (l->kind) {
	case LEVEL_OBJECT:
		if (!l->key_pending)
			return misuse(j, "a value where a key is expected");
		l->key_pending = false;
		break;
	case LEVEL_ARRAY:
		if (l->nr)
			fputc(',', j->fp);
		indent(j, j->depth);
		break;
	case LEVEL_DOCUMENT:
	default:
		if (l->nr)
			return misuse(j, "a second document");
		break;
	}
	l->nr++;
	return true;
}

/* After a value: a document ends with a newline. */
static void end_value(struct kmem_json *j)
{
	if (j->depth == 0)
		fputc('\n', j->fp);
}

/* Bytes that can be written as they are: printable ASCII but '"' '\\'. */
static bool plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

static void write_escape(FILE *fp, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", fp);
		break;
	case '\\':
		fputs("\\\\", fp);
		break;
	case '\b':
		fputs("\\b", fp);
		break;
	case '\f':
		fputs("\\f", fp);
		break;
	case '\n':
		fputs("\\n", fp);
		break;
	case '\r':
		fputs("\\r", fp);
		break;
	case '\t':
		fputs("\\t", fp);
		break;
	default:
		fprintf(fp, "\\u%04x", c);
		break;
	}
}

static void write_string(FILE *fp, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run;

	fputc('"', fp);
	while (i < len) {
		int n;

		for (run = i; run < len && plain_ascii(s[run]); run++)
			;
		if (run > i) {
			fwrite(s + i, 1, run - i, fp);
			i = run;
			continue;
		}
		if (s[i] < 0x80) {
			write_escape(fp, s[i++]);
			continue;
		}
		n = kmem_utf8_sequence(s + i, len - i);
		if (n > 0) {
			fwrite(s + i, 1, n, fp);
			i += n;
		} else {
			fputs(KMEM_UTF8_REPLACEMENT, fp);
			i += -n;
		}
	}
	fputc('"', fp);
}

void kmem_json__begin_object(struct kmem_json *j)
{
	if (j->depth == KMEM_JSON_MAX_DEPTH)
		misuse(j, "nesting too deep");
	if (!start_value(j))
		return;
	fputc('{', j->fp);
	j->depth++;
	*top(j) = (struct json_level){ .kind = LEVEL_OBJECT };
}

void kmem_json__begin_array(struct kmem_json *j)
{
	if (j->depth == KMEM_JSON_MAX_DEPTH)
		misuse(j, "nesting too deep");
	if (!start_value(j))
		return;
	fputc('[', j->fp);
	j->depth++;
	*top(j) = (struct json_level){ .kind = LEVEL_ARRAY };
}

static void end_level(struct kmem_json *j, enum json_level_kind kind,
		      char close)
{
	struct json_level *l = top(j);

	if (j->error)
		return;
	if (l->kind != kind) {
		misuse(j, kind == LEVEL_OBJECT ? "end of an object not open" :
						 "end of an array not open");
		return;
	}
	if (l->key_pending) {
		misuse(j, "end of an object after a key");
		return;
	}
	j->depth--;
	if (l->nr)
		indent(j, j->depth);
	fputc(close, j->fp);
	end_value(j);
}

void kmem_json__end_object(struct kmem_json *j)
{
	end_level(j, LEVEL_OBJECT, '}');
}

void kmem_json__end_array(struct kmem_json *j)
{
	end_level(j, LEVEL_ARRAY, ']');
}

void kmem_json__key(struct kmem_json *j, const char *key)
{
	struct json_level *l = top(j);

	if (j->error)
		return;
	if (l->kind != LEVEL_OBJECT) {
		misuse(j, "a key outside an object");
		return;
	}
	if (l->key_pending) {
		misuse(j, "a key where a value is expected");
		return;
	}
	if (!key) {
		misuse(j, "a NULL key");
		return;
	}
	if (l->nr)
		fputc(',', j->fp);
	indent(j, j->depth);
	write_string(j->fp, key, strlen(key));
	fputs(": ", j->fp);
	l->key_pending = true;
}

void kmem_json__u64(struct kmem_json *j, u64 v)
{
	if (!start_value(j))
		return;
	fprintf(j->fp, "%" PRIu64, v);
	end_value(j);
}

void kmem_json__s64(struct kmem_json *j, s64 v)
{
	if (!start_value(j))
		return;
	fprintf(j->fp, "%" PRId64, v);
	end_value(j);
}

void kmem_json__bool(struct kmem_json *j, bool v)
{
	if (!start_value(j))
		return;
	fputs(v ? "true" : "false", j->fp);
	end_value(j);
}

void kmem_json__null(struct kmem_json *j)
{
	if (!start_value(j))
		return;
	fputs("null", j->fp);
	end_value(j);
}

void kmem_json__string_len(struct kmem_json *j, const char *s, size_t len)
{
	if (!start_value(j))
		return;
	write_string(j->fp, s, len);
	end_value(j);
}

void kmem_json__string(struct kmem_json *j, const char *s)
{
	if (!s)
		kmem_json__null(j);
	else
		kmem_json__string_len(j, s, strlen(s));
}

void kmem_json__hex(struct kmem_json *j, u64 v)
{
	if (!start_value(j))
		return;
	fprintf(j->fp, "\"0x%" PRIx64 "\"", v);
	end_value(j);
}

void kmem_json__key_u64(struct kmem_json *j, const char *key, u64 v)
{
	kmem_json__key(j, key);
	kmem_json__u64(j, v);
}

void kmem_json__key_string(struct kmem_json *j, const char *key,
			   const char *s)
{
	kmem_json__key(j, key);
	kmem_json__string(j, s);
}

void kmem_json__key_object(struct kmem_json *j, const char *key)
{
	kmem_json__key(j, key);
	kmem_json__begin_object(j);
}

void kmem_json__key_array(struct kmem_json *j, const char *key)
{
	kmem_json__key(j, key);
	kmem_json__begin_array(j);
}

int kmem_json__finish(struct kmem_json *j)
{
	if (!j->error && j->depth)
		misuse(j, "the document is not complete");
	if (!j->error && !j->level[0].nr)
		misuse(j, "the document is empty");
	if (fflush(j->fp) || ferror(j->fp))
		return -EIO;
	return j->error ? -EINVAL : 0;
}

const char *kmem_json__error(const struct kmem_json *j)
{
	return j->error;
}
