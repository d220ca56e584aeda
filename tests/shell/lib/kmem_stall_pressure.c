// SPDX-License-Identifier: GPL-2.0
/*
 * Make allocations stall in direct reclaim, memcg reclaim and direct
 * compaction, safely: the workload of tests/shell/kmem_stall.sh.
 *
 *   kmem_stall_pressure DIR [KEEP_MIB]
 *
 * Before the recording:
 * 1. Take the free pageblocks (free blocks of pageblock order or more,
 *    as /proc/buddyinfo counts them) into the hugetlb pool: the kernel
 *    hands them over whole, without touching them, in a moment.  No more
 *    than leaves KEEP_MIB (default 6144) and PRESSURE_BYTES more
 *    available.
 * 2. Then what free memory is left, the pieces smaller than a pageblock:
 *    into the pool too while the kernel compacts them into pageblocks
 *    for it, moving pages of memory already touched, then into the page
 *    cache of a sparse file in DIR, which stays available (the kernel may
 *    reclaim it); for up to FILL_SECONDS, the pool taking again the
 *    pageblocks others free meanwhile.  No huge page now without
 *    compaction, and the less free memory, the more reclaim.
 * 3. Make a sparse file of READ_MIB and a memory cgroup limited to
 *    MEMCG_MIB (v2 memory.max where the memory controller is on the
 *    unified hierarchy, else v1 memory.limit_in_bytes), under the v2
 *    cgroup KMEM_STALL_CGROUP names if it is set.
 * 4. Create DIR/ready and wait for DIR/go: the caller starts recording.
 * The pressure, recorded:
 * 5. A reader in the cgroup reads the file through the page cache, a MiB
 *    at a time: each charge past the limit reclaims in the cgroup.
 * 6. THP_PROCS processes each fault up to THP_MIB of MADV_HUGEPAGE memory:
 *    each fault reclaims and compacts.  Meanwhile the pool takes the
 *    pageblocks others free, every TAKE_EVERY_US.
 * 7. Create DIR/done and wait for DIR/exit (the caller stops recording
 *    first); give the pool back, remove the files and the cgroup.
 *
 * MemAvailable is read every CHECK_BYTES as memory grows; growth stops
 * when it nears KEEP_MIB.  Everything ends after TIME_LIMIT seconds,
 * the pool given back.  What was done goes to stdout as "key value"
 * lines; a line "skip WHY" and exit 3 where the machine cannot be
 * pressured so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB		(1024UL * 1024)
#define GIB		(1024 * MIB)
#define CHECK_BYTES	(64 * MIB)
/* What the pressure may take beyond the pool, with room to spare. */
#define PRESSURE_BYTES	(4 * GIB)
/* The free memory the page cache leaves, a little over the watermarks. */
#define LEAVE_FREE_KIB	(256 * 1024)
#define READ_MIB	2048
#define MEMCG_MIB	512
#define THP_PROCS	2
#define THP_MIB		1536
/*
 * Memory a virtual machine never touched fills slowly, the host backing
 * each page as it is first written: give the fill time to finish.
 */
#define FILL_SECONDS	30
#define TAKE_EVERY_US	20000
#define PRESSURE_SECONDS 8
#define TIME_LIMIT	120
#define SKIP		3
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

static long page_size;
static int pageblock_order;
static unsigned long keep_kib, min_kib = ULONG_MAX;
static const char *dir;
static char memcg[256], file[PATH_MAX], fill_file[PATH_MAX];
static int memcg_v2;
/* The pool's size before ours, as written back at the end. */
static char pool_before[32];
/* The children, for the alarm's clean-up. */
static pid_t pids[1 + THP_PROCS];
static int nr_pids;

static unsigned long meminfo_kib(const char *key)
{
	unsigned long kib = 0;
	char line[128];
	size_t len = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len) && line[len] == ':') {
			kib = strtoul(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kib;
}

/* Seconds of CLOCK_MONOTONIC since @start, itself such a reading. */
static double seconds_since(double start)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9 - start;
}

static unsigned long min_ul(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

static unsigned long available_kib(void)
{
	unsigned long kib = meminfo_kib("MemAvailable");

	if (kib < min_kib)
		min_kib = kib;
	return kib;
}

/* Room for @bytes more with KEEP_MIB still available afterwards? */
static int room_for(unsigned long bytes)
{
	return available_kib() > keep_kib + bytes / 1024;
}

static int read_pageblock_order(void)
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
 * Bytes free in blocks of a pageblock or more, in every zone, from
 * /proc/buddyinfo ("Node 0, zone   Normal" and a count per order): cheap
 * to read, where /proc/pagetypeinfo walks every free list.
 */
static unsigned long free_pageblock_bytes(void)
{
	unsigned long bytes = 0;
	char line[512];
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone"), *end;
		unsigned long n;
		int order;

		if (!p)
			continue;
		p += strlen("zone");
		p += strspn(p, " ");
		p += strcspn(p, " ");
		for (order = 0;; order++, p = end) {
			n = strtoul(p, &end, 10);
			if (end == p)
				break;
			if (order >= pageblock_order)
				bytes += (n * page_size) << order;
		}
	}
	fclose(f);
	return bytes;
}

static void path_in_dir(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s", dir, name);
}

static int exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	path_in_dir(path, sizeof(path), name);
	return !stat(path, &st);
}

static void create(const char *name)
{
	char path[PATH_MAX];
	int fd;

	path_in_dir(path, sizeof(path), name);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
}

static void wait_for(const char *name)
{
	while (!exists(name))
		usleep(10000);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* --- 1. the pool ---------------------------------------------------- */

static long read_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Async-signal-safe: the alarm's handler gives the pool back too. */
static void give_pool_back(void)
{
	int fd;

	if (!pool_before[0])
		return;
	fd = open(NR_HUGEPAGES, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, pool_before, strlen(pool_before)) < 0)
			pool_before[0] = 0;
		close(fd);
	}
}

/*
 * The free pageblocks into the pool, on top of what it has, within the
 * budget of MemAvailable: the kernel takes them whole, untouched.  The
 * pool's size in MiB is kept in *@pool_mib.
 */
/*
 * Up to @want bytes more into the pool, within the budget of MemAvailable:
 * the MiB it took, also added to *@pool_mib.
 */
static unsigned long grow_pool(unsigned long want, unsigned long *pool_mib)
{
	unsigned long avail = available_kib(), budget, blocks;
	long before = read_long(NR_HUGEPAGES), after;
	unsigned long huge = 2 * MIB;
	char count[32];

	if (before < 0 || avail * 1024 < keep_kib * 1024 + PRESSURE_BYTES)
		return 0;
	budget = avail * 1024 - keep_kib * 1024 - PRESSURE_BYTES;
	blocks = min_ul(want, budget) / huge;
	if (!pool_before[0])
		snprintf(pool_before, sizeof(pool_before), "%ld", before);
	snprintf(count, sizeof(count), "%lu", before + blocks);
	if (!blocks || write_file(NR_HUGEPAGES, count))
		return 0;
	after = read_long(NR_HUGEPAGES);
	if (after <= before)
		return 0;
	*pool_mib += (after - before) * huge / MIB;
	return (after - before) * huge / MIB;
}

/* The free pageblocks into the pool: the kernel takes them untouched. */
static void take_pageblocks(unsigned long *pool_mib)
{
	grow_pool(free_pageblock_bytes(), pool_mib);
}

/* --- 2. the page cache ------------------------------------------------ */

/*
 * Read @path from @start, a MiB at a time, up to @end or until @deadline
 * passes (0: never): the offset reached.
 */
static unsigned long read_through(const char *path, unsigned long start,
				  unsigned long end, time_t deadline)
{
	unsigned long total = start;
	char *buf = malloc(MIB);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (!buf || fd < 0 || lseek(fd, start, SEEK_SET) < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return start;
	}
	while (total < end && (!deadline || time(NULL) <= deadline) &&
	       (n = read(fd, buf, MIB)) > 0) {
		total += n;
	}
	close(fd);
	free(buf);
	return total;
}

static int sparse_file(char *path, size_t size, const char *name,
		       unsigned long bytes)
{
	int fd;

	path_in_dir(path, size, name);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, bytes)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * The pool takes the free pageblocks; the page cache of a sparse file the
 * smaller pieces, which the kernel hands out first.  Others free memory
 * meanwhile: take it again, until free memory is down to LEAVE_FREE_KIB.
 */
static void fill_free_memory(unsigned long *pool_mib, unsigned long *fill_mib)
{
	time_t end = time(NULL) + FILL_SECONDS;
	unsigned long free_kib, read = 0, chunk;
	bool compacts = true;

	for (;;) {
		take_pageblocks(pool_mib);
		free_kib = meminfo_kib("MemFree");
		if (free_kib <= LEAVE_FREE_KIB || time(NULL) > end)
			break;
		chunk = min_ul((free_kib - LEAVE_FREE_KIB) * 1024, 256 * MIB);
		/*
		 * The pool makes pageblocks of the pieces by compaction,
		 * which moves pages in memory already touched: faster than
		 * page cache in fresh memory, while it gets most of them.
		 */
		if (compacts) {
			compacts = grow_pool(chunk, pool_mib) * MIB >= chunk / 2;
			continue;
		}
		chunk = read_through(fill_file, read, read + chunk, end) - read;
		if (!chunk)
			break;
		read += chunk;
	}
	*fill_mib = read / MIB;
}

/* --- 3. the file and the cgroup -------------------------------------- */

static int make_files(void)
{
	unsigned long free_bytes = meminfo_kib("MemFree") * 1024;

	return sparse_file(file, sizeof(file), "cache.img", READ_MIB * MIB) ?:
	       sparse_file(fill_file, sizeof(fill_file), "fill.img",
			   free_bytes + GIB);
}

/* Is @controller in the cgroup.controllers of the v2 root @root? */
static int v2_has(const char *root, const char *controller)
{
	char path[PATH_MAX], line[512], *tok, *save;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		line[strcspn(line, "\n")] = 0;
	else
		line[0] = 0;
	for (tok = strtok_r(line, " ", &save); tok && !found;
	     tok = strtok_r(NULL, " ", &save))
		found = !strcmp(tok, controller);
	fclose(f);
	return found;
}

static int make_memcg_in(const char *root, int v2)
{
	char limit[64], path[PATH_MAX];

	snprintf(memcg, sizeof(memcg), "%s/kmem-stall-%d", root, getpid());
	if (mkdir(memcg, 0755) && errno != EEXIST)
		return -1;
	snprintf(limit, sizeof(limit), "%lu", MEMCG_MIB * MIB);
	snprintf(path, sizeof(path), "%s/%s", memcg,
		 v2 ? "memory.max" : "memory.limit_in_bytes");
	if (write_file(path, limit)) {
		rmdir(memcg);
		return -1;
	}
	memcg_v2 = v2;
	return 0;
}

/*
 * A memory cgroup of the reader's own, v2 where the kernel has it there;
 * under the v2 cgroup $KMEM_STALL_CGROUP if set, so that a count of that
 * cgroup's tasks (perf record -G, perf kmem stat -b --cgroup) has the
 * reader's too.
 */
static int make_memcg(void)
{
	static const char * const v2_roots[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	const char *parent = getenv("KMEM_STALL_CGROUP");
	const char * const *roots = v2_roots;
	size_t i, nr = ARRAY_SIZE(v2_roots);
	char path[PATH_MAX];

	if (parent && *parent) {
		roots = &parent;
		nr = 1;
	}
	for (i = 0; i < nr; i++) {
		if (!v2_has(roots[i], "memory"))
			continue;
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control",
			 roots[i]);
		write_file(path, "+memory");
		if (!make_memcg_in(roots[i], 1))
			return 0;
	}
	/* Under the cgroup given, or not at all: no v1 one instead. */
	if (roots != v2_roots)
		return -1;
	if (!access("/sys/fs/cgroup/memory/memory.limit_in_bytes", W_OK))
		return make_memcg_in("/sys/fs/cgroup/memory", 0);
	return -1;
}

/* --- 5. the reader --------------------------------------------------- */

static void die_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
}

static void reader(void)
{
	double start = seconds_since(0);
	char path[PATH_MAX], pid[32];
	unsigned long total;

	die_with_parent();
	snprintf(path, sizeof(path), "%s/%s", memcg,
		 memcg_v2 ? "cgroup.procs" : "tasks");
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_file(path, pid))
		_exit(1);
	total = read_through(file, 0, READ_MIB * MIB, 0);
	printf("read_mib %lu\nread_s %.1f\n", total / MIB, seconds_since(start));
	_exit(total == READ_MIB * MIB ? 0 : 1);
}

/* --- 6. huge page faults --------------------------------------------- */

static unsigned long anon_huge_kib(void)
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
	return kib;
}

static void thp_faults(int id)
{
	size_t size = THP_MIB * MIB, align = 2 * MIB, off, n = 0;
	double start = seconds_since(0);
	time_t end = time(NULL) + PRESSURE_SECONDS;
	char *map, *p;

	die_with_parent();
	map = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		_exit(1);
	p = (char *)(((unsigned long)map + align - 1) & ~(align - 1));
	madvise(p, size, MADV_HUGEPAGE);
	for (off = 0; off < size; off += align, n++) {
		if (off % CHECK_BYTES == 0 &&
		    (!room_for(CHECK_BYTES) || time(NULL) > end))
			break;
		p[off] = 1;
	}
	printf("thp%d_faults %zu\nthp%d_huge_mib %lu\nthp%d_min_available_mib %lu\nthp%d_s %.1f\n",
	       id, n, id, anon_huge_kib() / 1024, id, min_kib / 1024, id,
	       seconds_since(start));
	_exit(0);
}

/* --- the phases ------------------------------------------------------ */

static int thp_enabled(void)
{
	char line[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return !strstr(line, "[never]") && line[0];
}

static int check(void)
{
	unsigned long avail = available_kib();

	if (pageblock_order < 0) {
		printf("skip no /proc/pagetypeinfo\n");
		return SKIP;
	}
	if (!thp_enabled()) {
		printf("skip transparent huge pages are off\n");
		return SKIP;
	}
	if (avail < keep_kib + 4 * GIB / 1024) {
		printf("skip MemAvailable %lu MiB, keeping %lu MiB needs 4 GiB more\n",
		       avail / 1024, keep_kib / 1024);
		return SKIP;
	}
	if (access(NR_HUGEPAGES, W_OK)) {
		printf("skip no hugetlb pool to take free pageblocks into (%s)\n",
		       NR_HUGEPAGES);
		return SKIP;
	}
	if (make_files()) {
		printf("skip cannot make sparse files in %s\n", dir);
		return SKIP;
	}
	if (make_memcg()) {
		printf("skip no memory cgroup to make (v2 memory.max or v1 memory.limit_in_bytes)\n");
		return SKIP;
	}
	return 0;
}

static void prepare(void)
{
	unsigned long pool_mib = 0, fill_mib = 0;

	printf("available_mib %lu\n", available_kib() / 1024);
	fill_free_memory(&pool_mib, &fill_mib);
	printf("pool_mib %lu\nfill_mib %lu\n", pool_mib, fill_mib);
	printf("free_mib %lu\nfree_pageblock_mib %lu\nprepared_available_mib %lu\nmemcg %s\n",
	       meminfo_kib("MemFree") / 1024, free_pageblock_bytes() / MIB,
	       available_kib() / 1024, memcg);
}

/* Has child @i ended?  Its status then counts into *@ok. */
static int ended(int i, int *ok)
{
	int status;

	if (!pids[i] || waitpid(pids[i], &status, WNOHANG) != pids[i])
		return 0;
	*ok += WIFEXITED(status) && !WEXITSTATUS(status);
	pids[i] = 0;
	return 1;
}

/*
 * The reader and the THP faults, while the pool takes the pageblocks that
 * others free meanwhile: a huge page fault would take them first and
 * stall not at all.
 */
static void pressure(void)
{
	unsigned long pool_mib = 0;
	int i, left, ok = 0;

	pids[nr_pids] = fork();
	if (!pids[nr_pids])
		reader();
	nr_pids += pids[nr_pids] > 0;
	for (i = 0; i < THP_PROCS; i++) {
		pids[nr_pids] = fork();
		if (!pids[nr_pids])
			thp_faults(i);
		nr_pids += pids[nr_pids] > 0;
	}
	for (left = nr_pids; left;) {
		take_pageblocks(&pool_mib);
		usleep(TAKE_EVERY_US);
		for (i = 0; i < nr_pids; i++)
			left -= ended(i, &ok);
	}
	printf("procs %d\nprocs_ok %d\npressure_pool_mib %lu\n", nr_pids, ok,
	       pool_mib);
	nr_pids = 0;
}

/* Async-signal-safe: the alarm's handler runs it too. */
static void clean_up(void)
{
	int i;

	for (i = 0; i < nr_pids; i++) {
		if (!pids[i])
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	give_pool_back();
	if (file[0])
		unlink(file);
	if (fill_file[0])
		unlink(fill_file);
	if (memcg[0])
		rmdir(memcg);
}

static void on_alarm(int sig)
{
	clean_up();
	_exit(128 + sig);
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [KEEP_MIB]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	keep_kib = (argc > 2 ? strtoul(argv[2], NULL, 0) : 6144) * 1024;
	page_size = sysconf(_SC_PAGESIZE);
	pageblock_order = read_pageblock_order();
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(TIME_LIMIT);
	ret = check();
	if (ret) {
		clean_up();
		return ret;
	}
	prepare();
	create("ready");
	wait_for("go");
	pressure();
	printf("min_available_mib %lu\n", min_kib / 1024);
	create("done");
	wait_for("exit");
	clean_up();
	return 0;
}
