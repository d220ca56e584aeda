// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/compiler.h>

#include "json.h"
#include "utf8.h"

enum json_level_kind {
	LEVEL_DOCUMENT,		/* the bottom level: holds one value */
	LEVEL_OBJECT,
	LEVEL_ARRAY,
};

struct json_level {
	enum json_level_kind	kind;
	bool			key_pending;	/* objects: a key awaits its value */
	size_t			nr;		/* members written so far */
	size_t			path_len;	/* of the path of this level */
};

/*
 * A writer writes to @fp; a visitor (NULL @fp) hands each scalar to @visit
 * with its path instead, which the levels build as they open.
 */
struct kmem_json {
	FILE			*fp;
	kmem_json_visit_fn	visit;
	void			*arg;
	const char		*error;		/* the first misuse */
	int			depth;		/* levels open above the document */
	struct json_level	level[KMEM_JSON_MAX_DEPTH + 1];
	char			path[KMEM_JSON_MAX_PATH];
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

struct kmem_json *kmem_json__new_visitor(kmem_json_visit_fn visit, void *arg)
{
	struct kmem_json *j = kmem_json__new(NULL);

	if (j) {
		j->visit = visit;
		j->arg = arg;
	}
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
	if (!j->fp)
		return;
	fputc('\n', j->fp);
	while (depth-- > 0)
		fputs("  ", j->fp);
}

/* The path of a level's member: its own path, a dot, and @name. */
static bool set_path(struct kmem_json *j, const char *fmt, const char *name,
		     size_t index)
{
	size_t len = top(j)->path_len, room = sizeof(j->path) - len;
	int n;

	if (!j->visit)
		return true;
	if (len && room > 1) {
		j->path[len++] = '.';
		room--;
	}
	n = name ? snprintf(j->path + len, room, fmt, name) :
		   snprintf(j->path + len, room, fmt, index);
	if (n < 0 || (size_t)n >= room)
		return misuse(j, "a path of keys longer than 255 bytes");
	return true;
}

/* Only a writer writes. */
static void put(struct kmem_json *j, const char *s)
{
	if (j->fp)
		fputs(s, j->fp);
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
		if (!set_path(j, "%zu", NULL, l->nr))
			return false;
		if (l->nr)
			put(j, ",");
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
		put(j, "\n");
}

/* A visitor's scalar, at the path start_value() set. */
static void visit(struct kmem_json *j, const struct kmem_json_value *v)
{
	if (j->visit)
		j->visit(j->arg, j->path, v);
}

/* Bytes that can be written as they are: printable ASCII but '"' '\\'. */
static bool plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* JSON's short escapes, "\\n", else "\\u00XX". */
static void write_escape(FILE *fp, unsigned char c)
{
	static const char special[] = "\"\\\b\f\n\r\t", letter[] = "\"\\bfnrt";
	const char *e = c ? strchr(special, c) : NULL;

	if (e)
		fprintf(fp, "\\%c", letter[e - special]);
	else
		fprintf(fp, "\\u%04x", c);
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

static void begin_level(struct kmem_json *j, enum json_level_kind kind,
			const char *open)
{
	if (j->depth == KMEM_JSON_MAX_DEPTH)
		misuse(j, "nesting too deep");
	if (!start_value(j))
		return;
	put(j, open);
	j->depth++;
	*top(j) = (struct json_level){
		.kind = kind,
		.path_len = j->visit ? strlen(j->path) : 0,
	};
}

void kmem_json__begin_object(struct kmem_json *j)
{
	begin_level(j, LEVEL_OBJECT, "{");
}

void kmem_json__begin_array(struct kmem_json *j)
{
	begin_level(j, LEVEL_ARRAY, "[");
}

static void end_level(struct kmem_json *j, enum json_level_kind kind,
		      const char *close)
{
	struct json_level *l = top(j);

	if (l->kind != kind)
		misuse(j, kind == LEVEL_OBJECT ? "end of an object not open" :
						 "end of an array not open");
	else if (l->key_pending)
		misuse(j, "end of an object after a key");
	if (j->error)
		return;
	j->depth--;
	if (l->nr)
		indent(j, j->depth);
	put(j, close);
	end_value(j);
}

void kmem_json__end_object(struct kmem_json *j)
{
	end_level(j, LEVEL_OBJECT, "}");
}

void kmem_json__end_array(struct kmem_json *j)
{
	end_level(j, LEVEL_ARRAY, "]");
}

void kmem_json__key(struct kmem_json *j, const char *key)
{
	struct json_level *l = top(j);

	/* After a misuse each test fails quietly: the first one is kept. */
	if (l->kind != LEVEL_OBJECT)
		misuse(j, "a key outside an object");
	else if (l->key_pending)
		misuse(j, "a key where a value is expected");
	else if (!key)
		misuse(j, "a NULL key");
	if (j->error || !set_path(j, "%s", key, 0))
		return;
	l->key_pending = true;
	if (!j->fp)
		return;
	if (l->nr)
		fputc(',', j->fp);
	indent(j, j->depth);
	write_string(j->fp, key, strlen(key));
	fputs(": ", j->fp);
}

/* A scalar: @fmt and what follows to a writer, @v to a visitor. */
static void __printf(3, 4) scalar(struct kmem_json *j,
				  const struct kmem_json_value *v,
				  const char *fmt, ...)
{
	va_list ap;

	if (!start_value(j))
		return;
	if (j->fp) {
		va_start(ap, fmt);
		vfprintf(j->fp, fmt, ap);
		va_end(ap);
	}
	visit(j, v);
	end_value(j);
}

void kmem_json__u64(struct kmem_json *j, u64 v)
{
	scalar(j, &(struct kmem_json_value){ .kind = KMEM_JSON_U64, .u = v },
	       "%" PRIu64, v);
}

void kmem_json__s64(struct kmem_json *j, s64 v)
{
	scalar(j, &(struct kmem_json_value){ .kind = KMEM_JSON_S64, .s = v },
	       "%" PRId64, v);
}

void kmem_json__fixed1(struct kmem_json *j, double v)
{
	if (!isfinite(v))
		misuse(j, "a number that is not finite");
	else
		scalar(j, &(struct kmem_json_value){ .kind = KMEM_JSON_DOUBLE, .d = v },
		       "%.1f", v);
}

void kmem_json__bool(struct kmem_json *j, bool v)
{
	scalar(j, &(struct kmem_json_value){ .kind = KMEM_JSON_BOOL, .b = v },
	       "%s", v ? "true" : "false");
}

void kmem_json__null(struct kmem_json *j)
{
	scalar(j, &(struct kmem_json_value){ .kind = KMEM_JSON_NULL }, "null");
}

void kmem_json__string_len(struct kmem_json *j, const char *s, size_t len)
{
	if (!start_value(j))
		return;
	if (j->fp)
		write_string(j->fp, s, len);
	visit(j, &(struct kmem_json_value){
		.kind = KMEM_JSON_STRING, .str = s, .len = len,
	});
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
	scalar(j, &(struct kmem_json_value){ .kind = KMEM_JSON_HEX, .u = v },
	       "\"0x%" PRIx64 "\"", v);
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
	if (j->fp && (fflush(j->fp) || ferror(j->fp)))
		return -errno ?: -EIO;
	return j->error ? -EINVAL : 0;
}

const char *kmem_json__error(const struct kmem_json *j)
{
	return j->error;
}
