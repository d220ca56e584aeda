// SPDX-License-Identifier: GPL-2.0
/*
 * Make the page allocator fall back between migration types, safely.
 *
 *   kmem_frag_pressure DIR [KEEP_MIB]
 *
 * 1. Map anonymous memory with small pages, 0.85 of MemAvailable but
 *    never so much that less than KEEP_MIB (default 4096) stays
 *    available, touch it and free every third page: free memory is then
 *    order-0 holes in Movable pageblocks.  (A third, not every other
 *    page: the kernel claims a whole pageblock for the requested type
 *    when half its pages are free, and only pollutes it below that.)
 * 2. Allocate page tables, Unmovable pages, until the free pageblocks
 *    left are few: the allocator claims those first (in ZONE_DMA32 too,
 *    where Normal's allocations go before they pollute Normal's
 *    pageblocks), and their claims need not all be traced.  A read fault
 *    every 2 MiB of a read-only mapping maps the zero page: a page table
 *    each and no other memory, faster than pipes by far.
 * 3. Create DIR/ready and wait for DIR/go (the caller starts recording).
 * 4. From PROCS more processes, fill pipes: the last free pageblocks are
 *    claimed, then the holes polluted.  Then fault huge pages
 *    (MADV_HUGEPAGE) into memory whose pageblocks all hold an Unmovable
 *    page: failed order-9 allocations.
 * 5. Create DIR/done and wait for DIR/exit (the caller stops recording
 *    first, so that the frees of the end are not in the trace); free all.
 *
 * MemAvailable is read as memory grows; growth stops when it nears
 * KEEP_MIB.  Everything ends after 50 s whatever happens.  The counts of
 * what was done go to stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB		(1024UL * 1024)
#define PIPE_BYTES	65536
#define PROCS		2
#define PIPES		9000	/* 18,000 fds: the limit here is 20,000 */
/* The memory a page table maps: one fault there, one page table. */
#define PTE_SPAN	(2 * MIB)
#define MAX_PAGE_TABLES	(8UL << 30)
/* Free pageblocks to leave for the trace to see claimed. */
#define LEAVE_FREE	(256 * MIB)
#define THP_MIB		1024
/* Stop touching after this long: on first touch a VM's memory is slow. */
#define TOUCH_SECONDS	25
/* ... and filling pipes, then faulting huge pages. */
#define PIPE_SECONDS	10
#define PREFILL_SECONDS	10
#define THP_SECONDS	5
/* Whatever happens, and whatever the caller does, end by then. */
#define TIME_LIMIT	90
/* Read MemAvailable this often while memory grows. */
#define CHECK_BYTES	(64 * MIB)
#define CHECK_PIPES	256

static long page_size;
static int pbo;
static unsigned long keep_kib, min_kib = ~0UL;
static const char *dir;

static unsigned long mem_available_kib(void)
{
	char line[128];
	unsigned long kib = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kib) == 1)
			break;
	fclose(f);
	if (kib < min_kib)
		min_kib = kib;
	return kib;
}

/* Is there room for @bytes more, KEEP_MIB staying available? */
static int room_for(unsigned long bytes)
{
	return mem_available_kib() > keep_kib + bytes / 1024;
}

/* The kernel's pageblock_order, as /proc/pagetypeinfo states it. */
static int pageblock_order(void)
{
	char line[128];
	int order = -1;
	FILE *f = fopen("/proc/pagetypeinfo", "r");

	if (!f)
		return -1;
	while (order < 0 && fgets(line, sizeof(line), f))
		sscanf(line, "Page block order: %d", &order);
	fclose(f);
	return order;
}

/*
 * Bytes in free blocks of a pageblock or more, any zone or type, from
 * /proc/buddyinfo: "Node 0, zone   Normal" and a count for each order.
 * (/proc/pagetypeinfo has them by type too, but walks every free list
 * under the zone lock to count them: far too slow to read often.)
 */
static unsigned long free_pageblock_bytes(void)
{
	unsigned long bytes = 0;
	char line[512];
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		int order = 0;

		if (!p)
			continue;
		p += strlen("zone");
		p += strspn(p, " ");
		p += strcspn(p, " ");		/* the zone's name */
		for (;; order++) {
			unsigned long n;
			char *end;

			n = strtoul(p, &end, 10);
			if (end == p)
				break;
			if (order >= pbo)
				bytes += n * page_size << order;
			p = end;
		}
	}
	fclose(f);
	return bytes;
}

/* The huge pages this process got, in MiB. */
static unsigned long anon_huge_mib(void)
{
	unsigned long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu kB", &kib) == 1)
			break;
	fclose(f);
	return kib / 1024;
}

static int exists(const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st);
}

static void create(const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
}

static void wait_for(const char *name)
{
	while (!exists(name))
		usleep(10000);
}

/* Touch up to @size bytes at @p while there is room; returns how many. */
static size_t touch(char *p, size_t size)
{
	time_t end = time(NULL) + TOUCH_SECONDS;
	size_t done, off;

	for (done = 0; done < size; done += CHECK_BYTES) {
		if (!room_for(CHECK_BYTES) || time(NULL) > end)
			break;
		for (off = done; off < size && off < done + CHECK_BYTES;
		     off += page_size)
			p[off] = 1;
	}
	return done < size ? done : size;
}

/* Free every third page: order-0 holes between pages still in use. */
static size_t punch_holes(char *p, size_t size)
{
	size_t off, holes = 0;

	for (off = 0; off + page_size <= size; off += 3 * page_size)
		if (!madvise(p + off, page_size, MADV_DONTNEED))
			holes++;
	return holes;
}

/*
 * Page tables while there is room and free pageblocks are more than
 * LEAVE_FREE, and time: how many bytes of them.
 */
static size_t page_tables(void)
{
	size_t size = MAX_PAGE_TABLES / page_size * PTE_SPAN, off;
	size_t step = CHECK_BYTES / page_size * PTE_SPAN;
	time_t end = time(NULL) + PREFILL_SECONDS;
	unsigned long zeros = 0;
	char *p;

	p = mmap(NULL, size, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	madvise(p, size, MADV_NOHUGEPAGE);
	for (off = 0; off < size; off += PTE_SPAN) {
		if (off % step == 0 &&
		    (!room_for(CHECK_BYTES) || time(NULL) > end ||
		     free_pageblock_bytes() <= LEAVE_FREE))
			break;
		zeros += !p[off];
	}
	/* Printed, so that the reads are not optimized away. */
	printf("zero_page_reads %lu\n", zeros);
	return off / PTE_SPAN * page_size;
}

/* One process's pipes, each filled, while there is room: its count, sent to @report. */
static void fill_pipes(int report)
{
	static char buf[PIPE_BYTES];
	struct rlimit rl = { PIPES * 2 + 64, PIPES * 2 + 64 };
	int fds[2], n;

	/* Whatever ends the parent ends the pipes. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		exit(1);
	setrlimit(RLIMIT_NOFILE, &rl);
	memset(buf, 'x', sizeof(buf));
	for (n = 0; n < PIPES; n++) {
		if (n % CHECK_PIPES == 0 && !room_for(CHECK_PIPES * PIPE_BYTES))
			break;
		if (pipe2(fds, O_NONBLOCK))
			break;
		if (write(fds[1], buf, sizeof(buf)) <= 0) {
			close(fds[0]);
			close(fds[1]);
			break;
		}
	}
	if (write(report, &n, sizeof(n)) != sizeof(n))
		exit(1);
	/* Keep the pipes until the parent ends us. */
	pause();
	exit(0);
}

/* Fault huge pages where there is room: each fault tries order 9 first. */
static size_t thp_faults(void)
{
	size_t size = THP_MIB * MIB, align = 2 * MIB, off, n = 0;
	time_t end = time(NULL) + THP_SECONDS;
	char *map, *p;

	map = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return 0;
	p = (char *)(((unsigned long)map + align - 1) & ~(align - 1));
	madvise(p, size, MADV_HUGEPAGE);
	for (off = 0; off < size; off += align) {
		if (off % CHECK_BYTES == 0 &&
		    (!room_for(CHECK_BYTES) || time(NULL) > end))
			break;
		p[off] = 1;
		n++;
	}
	return n;
}

/*
 * Up to @max children filling pipes, at @pids, one at a time so that
 * memory is read between them, until one stops short or time is up: how
 * many, and their pipes added to *@pipes.
 */
static int spawn(pid_t *pids, int max, const int *report, int *pipes)
{
	time_t end = time(NULL) + PIPE_SECONDS;
	int i, n;

	for (i = 0; i < max && time(NULL) <= end; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			break;
		if (!pids[i])
			fill_pipes(report[1]);
		if (read(report[0], &n, sizeof(n)) != sizeof(n)) {
			i++;
			break;
		}
		*pipes += n;
		if (n < PIPES || !room_for(PIPES * PIPE_BYTES)) {
			i++;
			break;
		}
	}
	return i;
}

int main(int argc, char **argv)
{
	unsigned long avail_kib;
	size_t size, touched, holes, tables, thp;
	int report[2], i, procs, pipes = 0;
	pid_t pids[PROCS];
	char *anon;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [KEEP_MIB]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	keep_kib = (argc > 2 ? strtoul(argv[2], NULL, 0) : 4096) * 1024;
	page_size = sysconf(_SC_PAGESIZE);
	pbo = pageblock_order();
	alarm(TIME_LIMIT);
	if (pbo < 0) {
		printf("skip no /proc/pagetypeinfo\n");
		return 3;
	}

	avail_kib = mem_available_kib();
	if (avail_kib < keep_kib + 4 * 1024 * 1024) {
		printf("skip MemAvailable %lu MiB, keeping %lu MiB\n",
		       avail_kib / 1024, keep_kib / 1024);
		return 3;
	}
	/* A GiB more than KEEP_MIB at the peak: others use the machine too. */
	size = avail_kib / 100 * 85 * 1024;
	if (size > (avail_kib - keep_kib - 1024 * 1024) * 1024)
		size = (avail_kib - keep_kib - 1024 * 1024) * 1024;
	anon = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (anon == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(anon, size, MADV_NOHUGEPAGE);
	touched = touch(anon, size);
	holes = punch_holes(anon, touched);
	printf("available_mib %lu\nanon_mib %zu\nholes %zu\n",
	       avail_kib / 1024, touched / MIB, holes);
	fflush(stdout);

	tables = page_tables();
	printf("page_table_mib %zu\nfree_pageblock_mib %lu\n", tables / MIB,
	       free_pageblock_bytes() / MIB);
	fflush(stdout);

	create("ready");
	wait_for("go");
	if (pipe(report))
		return 1;
	procs = spawn(pids, PROCS, report, &pipes);
	thp = thp_faults();
	mem_available_kib();
	printf("procs %d\npipes %d\npipe_mib %d\nthp_faults %zu\nthp_huge_mib %lu\n",
	       procs, pipes, pipes / 16, thp, anon_huge_mib());
	printf("min_available_mib %lu\n", min_kib / 1024);
	fflush(stdout);

	create("done");
	wait_for("exit");
	for (i = 0; i < procs; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	return 0;
}
