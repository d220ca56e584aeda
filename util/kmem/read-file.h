/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_FILE_H
#define __PERF_KMEM_READ_FILE_H

/*
 * The feature sections of a perf.data file read as bytes, before perf
 * opens it: which events it has.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/* More than any feature section perf kmem reads can hold. */
#define KMEM_FILE_MAX_FEATURE	(64U << 20)

/**
 * kmem_file__feature - read a feature section of a perf.data file
 * @path: the file, or the directory perf record --threads wrote
 * @feat: the feature, e.g. HEADER_TRACING_DATA
 * @buf: where the bytes go, for the caller to free()
 * @size: where their number goes
 *
 * Return: 0; -ENOENT when the file has no such section; -EINVAL for a
 * section that cannot be right; -ENOMEM; -errno if it cannot be opened.
 */
int kmem_file__feature(const char *path, int feat, void **buf, size_t *size);

/*
 * Does the event list of the perf.data file @path (HEADER_EVENT_DESC) have
 * an event named @name ("kmem:kmalloc")?  false too if it cannot tell.
 */
bool kmem_file__has_event(const char *path, const char *name);

#endif /* __PERF_KMEM_READ_FILE_H */
