/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_SALVAGE_H
#define __PERF_KMEM_SALVAGE_H

/*
 * What perf kmem can still read of a damaged perf.data, and why perf
 * could not open one, found from the file's own header and records.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/**
 * kmem_salvage__check - can perf read a perf.data file?
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
int kmem_salvage__check(const char *path, bool force, char *buf, size_t size);

#define KMEM_SALVAGE_UNKNOWN	(~0ULL)

/**
 * kmem_salvage__record_offset - where a record of the event stream starts
 * @path: the file
 * @nr: the record's index, 0 for the first
 *
 * Return: the offset of record @nr from the start of the data section, or
 * of the first record whose header cannot be right if that comes first;
 * KMEM_SALVAGE_UNKNOWN for a file that cannot be read or a directory.
 */
u64 kmem_salvage__record_offset(const char *path, u64 nr);

#endif /* __PERF_KMEM_SALVAGE_H */
