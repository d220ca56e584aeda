// SPDX-License-Identifier: GPL-2.0
/*
 * What perf kmem can still read of a damaged perf.data; see
 * read-file.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "header.h"
#include "read-file.h"
#include "count.h"

/*
 * Does the file record a tracepoint?  Each entry of the attrs section is a
 * perf_event_attr, whose first field is the event's type.
 */
static bool has_tracepoint_attr(const char *path,
				const struct perf_file_header *h)
{
	u64 pos, end = h->attrs.offset + h->attrs.size;
	bool found = false;
	int fd, n = 0;
	u32 type;

	if (h->attr_size < sizeof(type))
		return false;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	/* A corrupt header may announce any number: look at the first few. */
	for (pos = h->attrs.offset; !found && pos + h->attr_size <= end &&
	     n++ < 4096; pos += h->attr_size) {
		if (pread(fd, &type, sizeof(type), pos) != sizeof(type))
			break;
		found = type == PERF_TYPE_TRACEPOINT;
	}
	close(fd);
	return found;
}

/* The file, or why it cannot be read: in the words a user needs. */
static int read_file_header(const char *path, struct perf_file_header *h,
			    struct stat *st, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		snprintf(buf, size, "%s", strerror(errno));
		return -1;
	}
	n = fstat(fd, st) ? -1 : pread(fd, h, sizeof(*h), 0);
	close(fd);
	if (n < 0) {
		snprintf(buf, size, "%s", strerror(errno));
		return -1;
	}
	if (st->st_size == 0) {
		snprintf(buf, size, "the file is empty");
		return -1;
	}
	if ((size_t)n < sizeof(*h) || memcmp(&h->magic, "PERFILE2", 8)) {
		snprintf(buf, size, "not a perf.data file");
		return -1;
	}
	return 0;
}

int kmem_file__check(const char *path, bool force, char *buf, size_t size)
{
	struct perf_file_header h;
	char header_path[PATH_MAX], announced[32], present[32];
	struct stat st;
	bool is_dir;

	/* perf record --threads writes a directory: its header is in "data". */
	is_dir = !stat(path, &st) && S_ISDIR(st.st_mode);
	if (is_dir) {
		snprintf(header_path, sizeof(header_path), "%s/data", path);
		path = header_path;
	}
	/* Not "No such file or directory" of a directory that is there. */
	if (is_dir && access(path, F_OK)) {
		snprintf(buf, size,
			 "a directory, not one of perf record --threads: it has no data file");
		return -1;
	}
	if (read_file_header(path, &h, &st, buf, size))
		return -1;
	if (!force && st.st_uid && st.st_uid != geteuid()) {
		snprintf(buf, size,
			 "it is owned by another user: -f (--force) reads it anyway");
		return -1;
	}
	if (h.data.size == 0 && !is_dir) {
		snprintf(buf, size,
			 "its data size is 0: the perf record that wrote it did not finish (killed?)");
		return -1;
	}
	if (h.data.offset + h.data.size > (u64)st.st_size) {
		snprintf(buf, size,
			 "truncated: %s bytes of data announced, %s in the file",
			 kmem_commas(h.data.size, announced, sizeof(announced)),
			 kmem_commas((u64)st.st_size - min((u64)st.st_size, h.data.offset),
				     present, sizeof(present)));
		return -1;
	}
	if (!test_bit(HEADER_TRACING_DATA, h.adds_features) &&
	    has_tracepoint_attr(path, &h)) {
		snprintf(buf, size,
			 "it has no tracepoint formats (the tracing data feature is missing)");
		return -1;
	}
	snprintf(buf, size, "its header is corrupt");
	return 0;
}

/* The header of @path, of its "data" file if it is a directory. */
static int open_header(const char *path, struct perf_file_header *h)
{
	char header_path[PATH_MAX];
	struct stat st;
	int fd;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(header_path, sizeof(header_path), "%s/data", path);
		path = header_path;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	if (pread(fd, h, sizeof(*h), 0) != sizeof(*h) ||
	    memcmp(&h->magic, "PERFILE2", 8)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int kmem_file__feature(const char *path, int feat, void **buf, size_t *size)
{
	struct perf_file_header h;
	struct perf_file_section sec;
	int fd, i, idx = 0;
	void *data;

	*buf = NULL;
	*size = 0;
	if (feat < 0 || feat >= HEADER_FEAT_BITS)
		return -EINVAL;
	fd = open_header(path, &h);
	if (fd < 0)
		return fd;
	if (!test_bit(feat, h.adds_features)) {
		close(fd);
		return -ENOENT;
	}
	/* The sections follow the data, one for each feature bit set. */
	for (i = 0; i < feat; i++)
		idx += test_bit(i, h.adds_features);
	if (pread(fd, &sec, sizeof(sec), h.data.offset + h.data.size +
		  idx * sizeof(sec)) != sizeof(sec) ||
	    !sec.size || sec.size > KMEM_FILE_MAX_FEATURE) {
		close(fd);
		return -EINVAL;
	}
	data = malloc(sec.size);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	if (pread(fd, data, sec.size, sec.offset) != (ssize_t)sec.size) {
		free(data);
		close(fd);
		return -EINVAL;
	}
	close(fd);
	*buf = data;
	*size = sec.size;
	return 0;
}

static bool broken_header(const struct perf_event_header *eh, u64 pos,
			  u64 end)
{
	return eh->type == 0 || eh->type >= PERF_RECORD_HEADER_MAX ||
	       eh->size < sizeof(*eh) || pos + eh->size > end;
}

/*
 * The offset of record @nr (0 for the first) of @path's event stream from
 * the start of its data section, or of the first record whose header
 * cannot be right if that comes first; KMEM_FILE_UNKNOWN for a file that
 * cannot be read or a directory.
 */
static u64 record_offset(const char *path, u64 nr)
{
	struct perf_file_header h;
	struct perf_event_header eh;
	struct stat st;
	u64 pos, end, i;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return KMEM_FILE_UNKNOWN;
	pos = KMEM_FILE_UNKNOWN;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, &h, sizeof(h), 0) != sizeof(h))
		goto out;
	end = min(h.data.offset + h.data.size, (u64)st.st_size);
	for (pos = h.data.offset, i = 0; i < nr && pos + sizeof(eh) <= end;
	     pos += eh.size, i++) {
		if (pread(fd, &eh, sizeof(eh), pos) != sizeof(eh) ||
		    broken_header(&eh, pos, end))
			break;
	}
	pos -= min(pos, h.data.offset);
out:
	close(fd);
	return pos;
}

const char *kmem_file__stop_place(const char *path, u64 nr_records,
				  u64 data_size, char *buf, size_t size)
{
	/* The record it stopped at was counted, or the one before it. */
	u64 nr = nr_records ? nr_records - 1 : 0;
	u64 at = record_offset(path, nr);
	char n[32], total[32];

	if (at == KMEM_FILE_UNKNOWN) {
		snprintf(buf, size, "after %s records",
			 kmem_commas(nr, n, sizeof(n)));
		return buf;
	}
	snprintf(buf, size, "after %s of its %s bytes of events",
		 kmem_commas(at, n, sizeof(n)),
		 kmem_commas(data_size, total, sizeof(total)));
	return buf;
}

/*
 * HEADER_EVENT_DESC: the number of events and the size of an attr, then
 * for each event its attr, its number of ids, its name (a u32 length,
 * then the name, padded) and its ids.
 */
static bool event_desc_has(const u8 *p, size_t size, const char *name)
{
	const u8 *end = p + size;
	u32 nr, attr_size, nr_ids, len, i;

	if (size < 8)
		return false;
	memcpy(&nr, p, 4);
	memcpy(&attr_size, p + 4, 4);
	p += 8;
	for (i = 0; i < nr; i++) {
		if ((size_t)(end - p) < (size_t)attr_size + 8)
			return false;
		p += attr_size;
		memcpy(&nr_ids, p, 4);
		memcpy(&len, p + 4, 4);
		p += 8;
		if (len > (size_t)(end - p))
			return false;
		if (strnlen((const char *)p, len) == strlen(name) &&
		    !memcmp(p, name, strlen(name)))
			return true;
		p += len;
		if (nr_ids > (size_t)(end - p) / sizeof(u64))
			return false;
		p += nr_ids * sizeof(u64);
	}
	return false;
}

bool kmem_file__has_event(const char *path, const char *name)
{
	void *buf;
	size_t size;
	bool found;

	if (kmem_file__feature(path, HEADER_EVENT_DESC, &buf, &size))
		return false;
	found = event_desc_has(buf, size, name);
	free(buf);
	return found;
}
