/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_FILE_H
#define __PERF_KMEM_READ_FILE_H

/*
 * A perf.data file read as bytes: why perf could not open one, what perf
 * kmem can still read of it when it is damaged, and the feature sections
 * perf does not keep (the text of the tracepoint formats).
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/**
 * kmem_file__check - can perf read a perf.data file?
 * @path: the file
 * @force: do not refuse a file owned by another user (perf's -f)
 * @buf: why not, in the words a user needs
 * @size: the size of @buf
 *
 * Checks what perf's reader would otherwise report in several lines of its
 * own: a file missing, empty, of another format or owner, left by a perf
 * record that did not finish, truncated, or without tracepoint formats.
 *
 * Return: 0 when the file looks readable (@buf then says "its header is
 * corrupt", the reason left if perf fails to read it all the same), -1
 * with the reason in @buf.
 */
int kmem_file__check(const char *path, bool force, char *buf, size_t size);

#define KMEM_FILE_UNKNOWN	(~0ULL)

/**
 * kmem_file__stop_place - where a reader that stopped in a file stopped
 * @path: the file
 * @nr_records: the records the reader counted, the one it stopped at
 *	included, or not if it stopped before counting it
 * @data_size: the size of the data section, as the header says it
 * @buf: where the words go: "after 1,234 of its 5,678 bytes of events",
 *	or "after 12 records" when the file cannot be walked
 * @size: the size of @buf
 *
 * Return: @buf.
 */
const char *kmem_file__stop_place(const char *path, u64 nr_records,
				  u64 data_size, char *buf, size_t size);

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
