// SPDX-License-Identifier: GPL-2.0
/*
 * The feature sections of a perf.data file; see read-file.h.
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
