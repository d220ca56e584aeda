// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/vmstat and /proc/pagetypeinfo read for perf kmem stat -b; see
 * read-procmem.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <api/fs/fs.h>

#include "read-procmem.h"

static const char * const vmstat_names[KMEM_NR_VMSTAT] = {
	[KMEM_VM_ALLOCSTALL]		= "allocstall",
	[KMEM_VM_COMPACT_STALL]		= "compact_stall",
	[KMEM_VM_COMPACT_FAIL]		= "compact_fail",
	[KMEM_VM_COMPACT_SUCCESS]	= "compact_success",
	[KMEM_VM_PGSCAN_DIRECT]		= "pgscan_direct",
	[KMEM_VM_PGSTEAL_DIRECT]	= "pgsteal_direct",
	[KMEM_VM_THP_FAULT_ALLOC]	= "thp_fault_alloc",
	[KMEM_VM_THP_FAULT_FALLBACK]	= "thp_fault_fallback",
};

const char *kmem_vmstat__name(enum kmem_vmstat_item item)
{
	return item < KMEM_NR_VMSTAT ? vmstat_names[item] : NULL;
}

/*
 * The item a counter's name adds to, or -1.  allocstall, pgscan_direct and
 * pgsteal_direct were per zone in some kernels ("allocstall_normal",
 * "pgscan_direct_dma32"): those are summed, but pgscan_direct_throttle
 * counts something else.
 */
static int vmstat_item(const char *name, size_t len)
{
	int i;

	for (i = 0; i < KMEM_NR_VMSTAT; i++) {
		size_t n = strlen(vmstat_names[i]);

		if (len < n || memcmp(name, vmstat_names[i], n))
			continue;
		if (len == n)
			return i;
		if (name[n] != '_')
			continue;
		if (i == KMEM_VM_ALLOCSTALL || i == KMEM_VM_PGSTEAL_DIRECT)
			return i;
		if (i == KMEM_VM_PGSCAN_DIRECT &&
		    !(len == n + 9 && !memcmp(name + n, "_throttle", 9)))
			return i;
	}
	return -1;
}

int kmem_vmstat__parse(struct kmem_vmstat *vs, const char *text)
{
	const char *line = text;
	bool any = false;

	memset(vs, 0, sizeof(*vs));
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = strcspn(line, "\n ");
		unsigned long long v;
		char *num_end;
		int item;

		if (line[len] == ' ') {
			errno = 0;
			v = strtoull(line + len + 1, &num_end, 10);
			if (!errno && num_end != line + len + 1 &&
			    (*num_end == '\n' || !*num_end)) {
				any = true;
				item = vmstat_item(line, len);
				if (item >= 0) {
					vs->v[item] += v;
					vs->have |= 1U << item;
				}
			}
		}
		line = end ? end + 1 : NULL;
	}
	return any ? 0 : -EINVAL;
}

u32 kmem_vmstat__delta(const struct kmem_vmstat *before,
		       const struct kmem_vmstat *after,
		       struct kmem_vmstat *delta)
{
	int i;

	memset(delta, 0, sizeof(*delta));
	delta->have = before->have & after->have;
	for (i = 0; i < KMEM_NR_VMSTAT; i++) {
		if ((delta->have & (1U << i)) && after->v[i] > before->v[i])
			delta->v[i] = after->v[i] - before->v[i];
	}
	return ((1U << KMEM_NR_VMSTAT) - 1) & ~delta->have;
}

/* --- /proc/pagetypeinfo ---------------------------------------------- */

#define FREE_HEAD	"Free pages count per migrate type at order"

static int type_index(struct kmem_pagetypeinfo *pt, const char *name)
{
	int i;

	for (i = 0; i < pt->nr_types; i++) {
		if (!strcmp(pt->types[i], name))
			return i;
	}
	if (pt->nr_types == KMEM_PROC_MAX_TYPES)
		return -E2BIG;
	snprintf(pt->types[pt->nr_types], KMEM_PROC_NAME_LEN, "%s", name);
	return pt->nr_types++;
}

static struct kmem_zone_free *zone_of(struct kmem_pagetypeinfo *pt, int node,
				      const char *zone)
{
	struct kmem_zone_free *z;

	z = (struct kmem_zone_free *)kmem_pagetypeinfo__zone(pt, node, zone);
	if (z || pt->nr_zones == KMEM_PROC_MAX_ZONES)
		return z;
	z = &pt->zones[pt->nr_zones++];
	z->node = node;
	snprintf(z->zone, sizeof(z->zone), "%s", zone);
	return z;
}

/* "Node 0, zone Normal, type Movable  c0 c1 ...": its counts into @pt. */
static int free_line(struct kmem_pagetypeinfo *pt, const char *line)
{
	char zone[KMEM_PROC_NAME_LEN], type[KMEM_PROC_NAME_LEN];
	struct kmem_zone_free *z;
	const char *p;
	int node, t, order, n = 0;

	if (sscanf(line, "Node %d, zone %15[^, ], type %15s%n", &node, zone,
		   type, &n) != 3 || !n || node < 0)
		return -EINVAL;
	t = type_index(pt, type);
	if (t < 0)
		return t;
	z = zone_of(pt, node, zone);
	if (!z)
		return -E2BIG;
	p = line + n;
	for (order = 0; order < pt->nr_orders; order++) {
		unsigned long long v;
		char *end;

		p += strspn(p, " \t");
		z->capped |= *p == '>';
		p += *p == '>';
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno)
			return -EINVAL;
		z->blocks[t][order] = v;
		p = end;
	}
	p += strspn(p, " \t");
	return *p && *p != '\n' ? -EINVAL : 0;
}

int kmem_pagetypeinfo__parse(struct kmem_pagetypeinfo *pt, const char *text)
{
	const char *line = strstr(text, FREE_HEAD), *p;
	int err;

	memset(pt, 0, sizeof(*pt));
	if (!line || (line != text && line[-1] != '\n'))
		return -EINVAL;
	/* The orders: 0 1 2 ..., each the one before and one. */
	for (p = line + strlen(FREE_HEAD); *p && *p != '\n';) {
		char *end;
		long o;

		p += strspn(p, " ");
		if (!*p || *p == '\n')
			break;
		o = strtol(p, &end, 10);
		if (end == p || o != pt->nr_orders)
			return -EINVAL;
		if (pt->nr_orders == KMEM_PROC_MAX_ORDERS)
			return -E2BIG;
		pt->nr_orders++;
		p = end;
	}
	if (!pt->nr_orders)
		return -EINVAL;
	line = strchr(line, '\n');
	while (line && line[1] && line[1] != '\n') {
		line++;
		err = free_line(pt, line);
		if (err)
			return err;
		line = strchr(line, '\n');
	}
	return pt->nr_zones ? 0 : -EINVAL;
}

const struct kmem_zone_free *
kmem_pagetypeinfo__zone(const struct kmem_pagetypeinfo *pt, int node,
			const char *zone)
{
	int i;

	for (i = 0; i < pt->nr_zones; i++) {
		if (pt->zones[i].node == node && !strcmp(pt->zones[i].zone, zone))
			return &pt->zones[i];
	}
	return NULL;
}

const u64 *kmem_pagetypeinfo__blocks(const struct kmem_pagetypeinfo *pt,
				     const struct kmem_zone_free *z,
				     const char *type)
{
	int t;

	for (t = 0; z && t < pt->nr_types; t++) {
		if (!strcmp(pt->types[t], type))
			return z->blocks[t];
	}
	return NULL;
}

u64 kmem_zone_free__pages(const struct kmem_zone_free *z, int nr_orders,
			  int order)
{
	u64 pages = 0;
	int t, i;

	for (t = 0; t < KMEM_PROC_MAX_TYPES; t++) {
		for (i = order; i < nr_orders; i++)
			pages += z->blocks[t][i] << i;
	}
	return pages;
}

unsigned int kmem_zone_free__unusable(const struct kmem_zone_free *z,
				      int nr_orders, int order)
{
	u64 free = kmem_zone_free__pages(z, nr_orders, 0);

	if (!free)
		return 0;
	return (free - kmem_zone_free__pages(z, nr_orders, order)) * 1000 / free;
}

char *kmem_proc__read(const char *path)
{
	size_t len;
	char *text;
	int err = filename__read_str(path, &text, &len);

	if (!err)
		return text;
	errno = -err;
	return NULL;
}
