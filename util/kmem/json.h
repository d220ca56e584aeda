/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_JSON_H
#define __PERF_KMEM_JSON_H

/*
 * A JSON writer for perf kmem: calls that open and close objects and
 * arrays, name keys and give values go in; one pretty-printed document
 * (two spaces a level, "key": value, a newline at the end) comes out on
 * the caller's FILE.  The writer places the commas and the indentation,
 * so the same calls always write the same bytes: exactly what Python's
 * json.dumps(doc, indent=2, ensure_ascii=False) writes, plus a newline.
 *
 * Strings may hold any bytes.  '"', '\\' and the control characters are
 * escaped (\b \f \n \r \t, else \u00XX); valid UTF-8 is written as it is;
 * each byte sequence that is not valid UTF-8 becomes one U+FFFD per
 * maximal subpart, as the Unicode standard recommends and Python's
 * bytes.decode("utf-8", "replace") does.  The output is always valid JSON.
 *
 * Misuse (a value where a key is expected, a key in an array, closing what
 * is not open, nesting deeper than KMEM_JSON_MAX_DEPTH, a second document)
 * does not abort: the writer stops writing and remembers the first
 * mistake, which kmem_json__finish() reports.  Duplicate keys are not
 * detected.
 *
 * A visitor takes the same calls and writes nothing: it hands each scalar
 * value to a function, with its path in the document, the keys and array
 * indices from the top joined by dots ("page.grid.rows.3.counts.2"), so
 * that a program can take the numbers of a document without reading its
 * text.  Misuse is found as by a writer.
 *
 * perf's util/data-convert-json.c has string and delimiter helpers, but
 * they are static and tied to its converter's own depth and comma state.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KMEM_JSON_MAX_DEPTH	32
/* The longest path a visitor is given, its NUL included. */
#define KMEM_JSON_MAX_PATH	256

struct kmem_json;

enum kmem_json_kind {
	KMEM_JSON_U64,
	KMEM_JSON_S64,
	KMEM_JSON_DOUBLE,
	KMEM_JSON_BOOL,
	KMEM_JSON_NULL,
	KMEM_JSON_STRING,	/* @str, @len bytes, not NUL-terminated */
	KMEM_JSON_HEX,		/* an address, @u */
};

/* A scalar as a visitor sees it; @str lives only for the call. */
struct kmem_json_value {
	enum kmem_json_kind	kind;
	u64			u;
	s64			s;
	double			d;
	bool			b;
	const char		*str;
	size_t			len;
};

typedef void (*kmem_json_visit_fn)(void *arg, const char *path,
				   const struct kmem_json_value *v);

/* A writer to @fp, which stays the caller's; NULL: no memory. */
struct kmem_json *kmem_json__new(FILE *fp);
/* A visitor: @visit gets each scalar, with its path; NULL: no memory. */
struct kmem_json *kmem_json__new_visitor(kmem_json_visit_fn visit, void *arg);
void kmem_json__delete(struct kmem_json *j);

void kmem_json__begin_object(struct kmem_json *j);
void kmem_json__end_object(struct kmem_json *j);
void kmem_json__begin_array(struct kmem_json *j);
void kmem_json__end_array(struct kmem_json *j);

/* The key of the next value, in an object. */
void kmem_json__key(struct kmem_json *j, const char *key);

void kmem_json__u64(struct kmem_json *j, u64 v);
void kmem_json__s64(struct kmem_json *j, s64 v);
/* @v rounded to one decimal, "12.5": as Python writes that float. */
void kmem_json__fixed1(struct kmem_json *j, double v);
void kmem_json__bool(struct kmem_json *j, bool v);
void kmem_json__null(struct kmem_json *j);
/* A NUL-terminated string; NULL writes null. */
void kmem_json__string(struct kmem_json *j, const char *s);
/* @len bytes of @s, NULs included. */
void kmem_json__string_len(struct kmem_json *j, const char *s, size_t len);
/* "0x1f": an address as a string (jq and JavaScript round big numbers). */
void kmem_json__hex(struct kmem_json *j, u64 v);

/* A key and its value in one call. */
void kmem_json__key_u64(struct kmem_json *j, const char *key, u64 v);
void kmem_json__key_string(struct kmem_json *j, const char *key,
			   const char *s);
void kmem_json__key_object(struct kmem_json *j, const char *key);
void kmem_json__key_array(struct kmem_json *j, const char *key);

/*
 * After the document: 0 if it is complete and written, -EINVAL after a
 * misuse or with the document still open or empty, -errno if @fp failed.
 * Flushes @fp (a writer's).
 */
int kmem_json__finish(struct kmem_json *j);

/* What the first misuse was; NULL if none. */
const char *kmem_json__error(const struct kmem_json *j);

#endif /* __PERF_KMEM_JSON_H */
