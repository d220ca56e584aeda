/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_JSON_H
#define __PERF_KMEM_READ_JSON_H

/*
 * A JSON document read back: a saved perf kmem stat --json report, for
 * perf kmem diff to take as one side.  The reader plays the document to a
 * JSON writer (json.h), value by value, so that a visitor sees it as it
 * saw the document when it was written: the same scalars, in the same
 * order, at the same paths.  Strings keep what they say ("0x1f" stays a
 * string); integers come as u64, negative ones as s64, other numbers as
 * doubles.
 */

#include <stddef.h>

struct kmem_json;

/**
 * kmem_json__read - play a document to a writer
 * @text: the document
 * @len: its length
 * @j: a writer or a visitor, new
 * @err: where a one-line reason goes: what was wrong, and at which byte
 * @err_size: its size
 *
 * Return: 0; -EINVAL for text that is not one JSON document (or that the
 * writer refuses: nested deeper than it takes, paths too long); -ENOMEM.
 */
int kmem_json__read(const char *text, size_t len, struct kmem_json *j,
		    char *err, size_t err_size);

#endif /* __PERF_KMEM_READ_JSON_H */
