// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of how perf kmem reads its input: util/kmem/read-queue.c, which
 * puts events in time order, and util/kmem/read-kallsyms.c, which reads kernel
 * symbols.  Expected orders and symbols are written out by hand, or, for
 * the random stream, computed by a plain insertion sort in this file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include "debug.h"
#include "event.h"
#include "kmem-random.h"
#include "tests.h"
#include "util/kmem/read-callsite.h"
#include "util/kmem/read-kallsyms.h"
#include "util/kmem/read-queue.h"

/* --- the queue -------------------------------------------------------- */

struct rec {
	u64	time;
	u64	id;	/* arrival number */
};

#define MAX_SEEN	20000

struct seen {
	u64	ids[MAX_SEEN];
	u64	times[MAX_SEEN];
	int	nr;
	int	stop_after;	/* fail the delivery after this many; 0: never */
	int	ahead;		/* deliveries told of a record to come */
	int	bad_ahead;	/* told of one older than the record */
};

/* One record delivered; @ahead: one the queue says it delivers later. */
static int note_one(struct seen *s, const struct rec *r, const struct rec *ahead)
{
	/* A record a few on: in time order, so not older. */
	if (ahead) {
		s->ahead++;
		if (ahead->time < r->time)
			s->bad_ahead++;
	}
	if (s->nr < MAX_SEEN) {
		s->ids[s->nr] = r->id;
		s->times[s->nr] = r->time;
	}
	s->nr++;
	return s->stop_after && s->nr == s->stop_after ? -EINTR : 0;
}

/* Told of the record 8 on, as perf kmem is. */
static int note(struct kmem_queue_span *span, void *arg)
{
	struct rec **r = (struct rec **)span->records;
	size_t i;
	int err = 0;

	for (i = 0; i < span->nr && !err; i++)
		err = note_one(arg, r[i], i + 8 < span->nr ? r[i + 8] : NULL);
	span->done = i;
	return err;
}

static int add_from(struct kmem_queue *q, u64 time, u32 cpu, u64 id)
{
	void *r;
	int err = kmem_queue__add(q, time, cpu, &r);

	if (!err)
		((struct rec *)r)->id = id;
	return err;
}

static int add(struct kmem_queue *q, u64 time, u64 id)
{
	return add_from(q, time, 0, id);
}

static int end_round(struct kmem_queue *q)
{
	return kmem_queue__flush(q, KMEM_QUEUE_FLUSH__ROUND);
}

static int add_recs(struct kmem_queue *q, const struct rec *recs, int nr)
{
	int i, err = 0;

	for (i = 0; i < nr && !err; i++)
		err = add(q, recs[i].time, recs[i].id);
	return err;
}

/* A queue delivering to @s, emptied. */
static struct kmem_queue *queue_for(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return kmem_queue__new(sizeof(struct rec),
			       KMEM_QUEUE_DEFAULT_MAX_BYTES, note, s);
}

/* Did the deliveries so far carry these ids, in this order? */
static bool ids_are(const struct seen *s, const u64 *ids, int nr)
{
	int i;

	if (s->nr != nr) {
		pr_debug("got %d records, want %d\n", s->nr, nr);
		return false;
	}
	for (i = 0; i < nr; i++) {
		if (s->ids[i] != ids[i]) {
			pr_debug("got id %" PRIu64 " at %d, want %" PRIu64 "\n",
				 s->ids[i], i, ids[i]);
			return false;
		}
	}
	return true;
}

static int test__kmem_input_rounds(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	/* Round 1: CPU 0, then CPU 1, each in time order. */
	static const struct rec round1[] = { {10, 1}, {30, 3}, {20, 2}, {40, 4} };
	/* Round 2 has an event older than round 1's latest. */
	static const struct rec round2[] = { {35, 5}, {50, 6}, {45, 7} };
	static struct seen s;
	struct kmem_queue *q = queue_for(&s);

	TEST_ASSERT_VAL("queue", q);
	TEST_ASSERT_VAL("add", !add_recs(q, round1, ARRAY_SIZE(round1)));
	/* Nothing is known to be complete after the first round. */
	TEST_ASSERT_VAL("round 1", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__ROUND) && s.nr == 0);
	TEST_ASSERT_VAL("waiting", kmem_queue__nr(q) == 4);
	TEST_ASSERT_VAL("add 2", !add_recs(q, round2, ARRAY_SIZE(round2)));
	/* Up to round 1's latest (40), round 2's 35 among them. */
	TEST_ASSERT_VAL("round 2", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__ROUND));
	TEST_ASSERT_VAL("round 2 order",
			ids_are(&s, (const u64[]){ 1, 2, 3, 5, 4 }, 5));
	TEST_ASSERT_VAL("flush", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	TEST_ASSERT_VAL("flush order",
			ids_are(&s, (const u64[]){ 1, 2, 3, 5, 4, 7, 6 }, 7));
	TEST_ASSERT_VAL("empty", kmem_queue__nr(q) == 0);
	kmem_queue__delete(q);
	return TEST_OK;
}

static int test__kmem_input_stable(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	/* Three runs; events of equal time go in the order they came. */
	static const struct rec recs[] = {
		{5, 1}, {7, 2}, {5, 3}, {7, 4}, {5, 5}, {5, 6},
	};
	static struct seen s;
	struct kmem_queue *q = queue_for(&s);

	TEST_ASSERT_VAL("queue", q);
	TEST_ASSERT_VAL("add", !add_recs(q, recs, ARRAY_SIZE(recs)));
	TEST_ASSERT_VAL("flush", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	TEST_ASSERT_VAL("stable",
			ids_are(&s, (const u64[]){ 1, 3, 5, 6, 2, 4 }, 6));
	kmem_queue__delete(q);
	return TEST_OK;
}

static int test__kmem_input_late(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	static struct seen s;
	struct kmem_queue *q = queue_for(&s);

	TEST_ASSERT_VAL("queue", q);
	TEST_ASSERT_VAL("round 1", !add(q, 100, 1) && !end_round(q));
	TEST_ASSERT_VAL("round 2", !add(q, 200, 2) && !end_round(q));
	TEST_ASSERT_VAL("100 out", ids_are(&s, (const u64[]){ 1 }, 1));
	/* Older than what was delivered: late, but not lost. */
	TEST_ASSERT_VAL("round 3", !add(q, 50, 3) && !end_round(q));
	TEST_ASSERT_VAL("flush", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	TEST_ASSERT_VAL("late delivered",
			ids_are(&s, (const u64[]){ 1, 3, 2 }, 3));
	kmem_queue__delete(q);
	return TEST_OK;
}

static int test__kmem_input_error(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	static const struct rec recs[] = { {1, 1}, {2, 2}, {3, 3} };
	static struct seen s;
	struct kmem_queue *q = queue_for(&s);

	TEST_ASSERT_VAL("queue", q);
	TEST_ASSERT_VAL("bad size", !kmem_queue__new(12, 4096, note, &s));
	TEST_ASSERT_VAL("add", !add_recs(q, recs, ARRAY_SIZE(recs)));
	s.stop_after = 2;
	TEST_ASSERT_VAL("error returned", kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL) == -EINTR);
	TEST_ASSERT_VAL("stopped", s.nr == 2 && kmem_queue__nr(q) == 1);
	s.stop_after = 0;
	TEST_ASSERT_VAL("rest", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	TEST_ASSERT_VAL("all once", ids_are(&s, (const u64[]){ 1, 2, 3 }, 3));
	kmem_queue__delete(q);
	return TEST_OK;
}

/*
 * A recording without rounds, as perf record --threads writes: the queue
 * holds at most 8 records and delivers its older half when full.  Two
 * CPUs' runs interleaved, each a little ahead of the other in turn, come
 * out in time order; a record older than what was delivered comes late,
 * is counted, and is not lost.
 */
static int test__kmem_input_bound(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	static struct seen s;
	struct kmem_queue *q;
	u64 i, want[41];
	int n = 0;

	memset(&s, 0, sizeof(s));
	q = kmem_queue__new(sizeof(struct rec), 8 * sizeof(struct rec), note,
			    &s);
	TEST_ASSERT_VAL("queue", q);
	/* CPU 0 at even times, CPU 1 at odd ones, two records a turn. */
	for (i = 0; i < 40; i += 4) {
		TEST_ASSERT_VAL("cpu 0",
				!add_from(q, i, 0, i) && !add_from(q, i + 2, 0, i + 2));
		TEST_ASSERT_VAL("cpu 1", !add_from(q, i + 1, 1, i + 1) &&
				!add_from(q, i + 3, 1, i + 3));
		TEST_ASSERT_VAL("bounded", kmem_queue__nr(q) <= 8);
	}
	TEST_ASSERT_VAL("flushed halves", kmem_queue__nr_half_flushes(q) >= 4);
	TEST_ASSERT_VAL("flush", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	for (i = 0; i < 40; i++)
		want[n++] = i;
	TEST_ASSERT_VAL("in order", ids_are(&s, want, n));
	TEST_ASSERT_VAL("none late", kmem_queue__nr_late(q) == 0);

	/* 39 was delivered: 5 comes late. */
	TEST_ASSERT_VAL("late add", !add_from(q, 5, 2, 100));
	TEST_ASSERT_VAL("late", kmem_queue__nr_late(q) == 1);
	TEST_ASSERT_VAL("flush late",
			!kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	want[n++] = 100;
	TEST_ASSERT_VAL("late delivered", ids_are(&s, want, n));
	kmem_queue__delete(q);
	return TEST_OK;
}

/*
 * perf record --threads writes a file per CPU, which perf's reader reads
 * in turns of a few megabytes, so one CPU's records may run ahead of
 * another's.  At the bound, the queue delivers only what both CPUs have
 * come past, so nothing comes late; the older half (up to the median)
 * would take some of CPU 1's lead and leave CPU 0's next turn late.
 */
static int test__kmem_input_frontier(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	static struct seen s;
	struct kmem_queue *q;
	u64 turn, i, want[200];
	int n = 0;

	memset(&s, 0, sizeof(s));
	q = kmem_queue__new(sizeof(struct rec), 40 * sizeof(struct rec), note,
			    &s);
	TEST_ASSERT_VAL("queue", q);
	/* Turns of 10: CPU 0 at even times, CPU 1 at odd ones 25 records on. */
	for (turn = 0; turn < 10; turn++) {
		for (i = 0; i < 10; i++) {
			u64 k = 10 * turn + i;

			TEST_ASSERT_VAL("cpu 0", !add_from(q, 2 * k, 0, 2 * k));
		}
		for (i = 0; i < 10; i++) {
			u64 k = 10 * turn + i + 25;

			TEST_ASSERT_VAL("cpu 1",
					!add_from(q, 2 * k + 1, 1, 2 * k + 1));
		}
	}
	TEST_ASSERT_VAL("bound reached", kmem_queue__nr_half_flushes(q) > 0);
	TEST_ASSERT_VAL("none late", kmem_queue__nr_late(q) == 0);
	TEST_ASSERT_VAL("flush", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	for (i = 0; i < 250; i++)
		if (i % 2 ? i >= 51 : i < 200)
			want[n++] = i;
	TEST_ASSERT_VAL("in order", ids_are(&s, want, n));
	kmem_queue__delete(q);
	return TEST_OK;
}

/*
 * The older half, exactly: of records with many equal times, a half flush
 * delivers every record up to the median time, and keeps the rest.
 */
static int test__kmem_input_half(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	/*
	 * CPU 99 came up to time 0 and went quiet: nothing waiting is older,
	 * so the half is up to the median time.  Of times 10 9 ... 1 and
	 * 1 2 ... 10 that is 5 (the 10th of 20).
	 */
	static struct seen s;
	struct kmem_queue *q = queue_for(&s);
	u64 i;

	TEST_ASSERT_VAL("queue", q);
	TEST_ASSERT_VAL("quiet", !add_from(q, 0, 99, 99) &&
			!kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	for (i = 0; i < 10; i++)
		TEST_ASSERT_VAL("add", !add_from(q, 10 - i, 0, 9 - i));
	for (i = 0; i < 10; i++)
		TEST_ASSERT_VAL("add", !add_from(q, i + 1, 1, 10 + i));
	TEST_ASSERT_VAL("half", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__HALF));
	/* Times 1..5 of both sets: 10 records, the first set's first. */
	TEST_ASSERT_VAL("older half",
			ids_are(&s, (const u64[]){ 99, 0, 10, 1, 11, 2, 12, 3, 13, 4, 14 },
				11));
	TEST_ASSERT_VAL("kept", kmem_queue__nr(q) == 10);
	kmem_queue__delete(q);
	return TEST_OK;
}

/* More records than the queue's first array holds: it must close holes. */
#define RND_ROUNDS	200
#define RND_CPUS	5
#define RND_PER_CPU	20	/* at most, per round */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Rounds of per-CPU runs whose times overlap the round before, as perf
 * record writes them: delivered, they must be all the records, each once,
 * in the order of a stable sort by time.
 */
static int test__kmem_input_random(struct test_suite *t __maybe_unused,
				   int subtest __maybe_unused)
{
	static struct rec all[RND_ROUNDS * RND_CPUS * RND_PER_CPU];
	static struct seen s;
	struct kmem_queue *q;
	u64 state = 0x2545F4914F6CDD1DULL;
	int nr = 0, round, cpu, i, j;

	q = queue_for(&s);
	TEST_ASSERT_VAL("queue", q);
	for (round = 0; round < RND_ROUNDS; round++) {
		for (cpu = 0; cpu < RND_CPUS; cpu++) {
			u64 times[RND_PER_CPU];
			int n = kmem_test__rand(&state) % RND_PER_CPU;

			/* Round r's times lie in [100r, 100r + 150). */
			for (i = 0; i < n; i++)
				times[i] = 100 * round + kmem_test__rand(&state) % 150;
			qsort(times, n, sizeof(times[0]), cmp_u64);
			for (i = 0; i < n; i++) {
				all[nr] = (struct rec){ times[i], nr };
				TEST_ASSERT_VAL("add", !add(q, times[i], nr));
				nr++;
			}
		}
		TEST_ASSERT_VAL("round", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__ROUND));
	}
	TEST_ASSERT_VAL("flush", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	/* Insertion sort: stable, and nothing like the queue's merge. */
	for (i = 1; i < nr; i++) {
		struct rec r = all[i];

		for (j = i; j > 0 && all[j - 1].time > r.time; j--)
			all[j] = all[j - 1];
		all[j] = r;
	}
	TEST_ASSERT_VAL("count", s.nr == nr && nr <= MAX_SEEN && nr > 8192);
	for (i = 0; i < nr; i++)
		TEST_ASSERT_VAL("order", s.ids[i] == all[i].id);
	TEST_ASSERT_VAL("ahead", s.ahead > 0 && s.ahead < nr && !s.bad_ahead);
	kmem_queue__delete(q);
	return TEST_OK;
}

/* Delivered: every record once, and before a later one only if late. */
static bool delivered_once(struct kmem_queue *q, const struct seen *s, int nr)
{
	static bool got[MAX_SEEN];
	u64 latest = 0, descents = 0;
	int i;

	if (s->nr != nr)
		return false;
	memset(got, 0, sizeof(got));
	for (i = 0; i < nr; i++) {
		if (s->ids[i] >= (u64)nr || got[s->ids[i]])
			return false;
		got[s->ids[i]] = true;
		descents += s->times[i] < latest;
		latest = max(latest, s->times[i]);
	}
	return descents == kmem_queue__nr_late(q);
}

/*
 * Random rounds, some never ended, into a queue bounded at @max_recs: the
 * records wrap around its array, which grows, and holes close.
 */
static int bounded_random(u64 max_recs, u64 per_cpu, u64 state)
{
	static struct seen s;
	struct kmem_queue *q;
	u64 round, cpu, i, times[400];
	int nr = 0;

	memset(&s, 0, sizeof(s));
	q = kmem_queue__new(sizeof(struct rec), max_recs * sizeof(struct rec),
			    note, &s);
	TEST_ASSERT_VAL("queue", q);
	for (round = 0; nr + RND_CPUS * per_cpu <= MAX_SEEN; round++) {
		for (cpu = 0; cpu < RND_CPUS; cpu++) {
			u64 n = kmem_test__rand(&state) % per_cpu;

			for (i = 0; i < n; i++)
				times[i] = 10 * per_cpu * round +
					   kmem_test__rand(&state) % (15 * per_cpu);
			qsort(times, n, sizeof(times[0]), cmp_u64);
			for (i = 0; i < n; i++, nr++)
				TEST_ASSERT_VAL("add", !add_from(q, times[i], cpu, nr));
		}
		if (kmem_test__rand(&state) % 4)
			TEST_ASSERT_VAL("round", !end_round(q));
		TEST_ASSERT_VAL("bounded", kmem_queue__nr(q) <= max_recs);
	}
	TEST_ASSERT_VAL("flush", !kmem_queue__flush(q, KMEM_QUEUE_FLUSH__FINAL));
	TEST_ASSERT_VAL("each once", delivered_once(q, &s, nr));
	kmem_queue__delete(q);
	return TEST_OK;
}

static int test__kmem_input_ring(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	TEST_ASSERT_VAL("small", bounded_random(40, RND_PER_CPU, 7) == TEST_OK);
	/* These grow from 4096 records, wrapped around the ring or not. */
	TEST_ASSERT_VAL("grown", bounded_random(6000, 400, 11) == TEST_OK);
	TEST_ASSERT_VAL("grown twice", bounded_random(12000, 400, 17) == TEST_OK);
	TEST_ASSERT_VAL("grown wrapped", bounded_random(9000, 400, 19) == TEST_OK);
	TEST_ASSERT_VAL("large", bounded_random(1 << 20, 400, 13) == TEST_OK);
	return TEST_OK;
}

/* --- the kallsyms table ---------------------------------------------- */

/*
 * Aliases at one address, a type perf skips (r), a line out of order, a
 * line that is not a symbol, and two modules.
 */
static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t __alloc_pages_noprof\n"
	"ffffffff81000200 r __ksymtab_something\n"
	"ffffffff81000300 T alloc_pages_mpol\n"
	"ffffffff81000400 T do_anonymous_page\n"
	"not a symbol line\n"
	"ffffffff81000080 t early_fn\n"
	"ffffffff81000500 D some_data\n"
	"ffffffffc0000000 t mod_fn\t[mymod]\n"
	"ffffffffc0000100 t mod_fn2\t[mymod]\n"
	"ffffffffc0003000 t other_fn\t[other]";

static int write_file(char *path, const char *text)
{
	int fd = mkstemp(path);
	ssize_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != len) {
		close(fd);
		unlink(path);
		return -EIO;
	}
	close(fd);
	return 0;
}

static bool finds(const struct kmem_kallsyms *ks, u64 addr, const char *name,
		  u64 start)
{
	struct kmem_ksym sym;

	if (!kmem_kallsyms__find(ks, addr, &sym)) {
		pr_debug("%#" PRIx64 ": no symbol, want %s\n", addr, name);
		return false;
	}
	if (sym.start != start || sym.len != (int)strlen(name) ||
	    memcmp(sym.name, name, sym.len)) {
		pr_debug("%#" PRIx64 ": got %.*s at %#" PRIx64 ", want %s\n",
			 addr, sym.len, sym.name, sym.start, name);
		return false;
	}
	return true;
}

static bool finds_none(const struct kmem_kallsyms *ks, u64 addr)
{
	struct kmem_ksym sym;

	return !kmem_kallsyms__find(ks, addr, &sym);
}

static void count_sym(const struct kmem_ksym *sym __maybe_unused, void *arg)
{
	(*(int *)arg)++;
}

static int check_kallsyms(const char *path)
{
	char err[256];
	struct kmem_kallsyms *ks = kmem_kallsyms__read(path, err, sizeof(err));
	int nr = 0;
	u64 addr;

	TEST_ASSERT_VAL("read", ks);
	/* Of aliases, the last in the file, as perf's loader keeps. */
	TEST_ASSERT_VAL("alias", finds(ks, 0xffffffff81000010ULL, "startup_64",
				       0xffffffff81000000ULL));
	TEST_ASSERT_VAL("out of order", finds(ks, 0xffffffff810000ffULL,
					      "early_fn", 0xffffffff81000080ULL));
	/* 'r' is not kept: the function before runs on to the next. */
	TEST_ASSERT_VAL("rodata skipped",
			finds(ks, 0xffffffff81000250ULL, "__alloc_pages_noprof",
			      0xffffffff81000100ULL));
	TEST_ASSERT_VAL("exact start", finds(ks, 0xffffffff81000400ULL,
					     "do_anonymous_page",
					     0xffffffff81000400ULL));
	/* The last of vmlinux ends a page after its start. */
	TEST_ASSERT_VAL("end of vmlinux", finds(ks, 0xffffffff81001fffULL,
						"some_data",
						0xffffffff81000500ULL));
	TEST_ASSERT_VAL("past vmlinux", finds_none(ks, 0xffffffff81002000ULL));
	TEST_ASSERT_VAL("before all", finds_none(ks, 0xffffffff80000000ULL));
	/* The last of a module, too; the module's name is not the symbol's. */
	TEST_ASSERT_VAL("module", finds(ks, 0xffffffffc0001fffULL, "mod_fn2",
					0xffffffffc0000100ULL));
	TEST_ASSERT_VAL("past module", finds_none(ks, 0xffffffffc0002000ULL));
	TEST_ASSERT_VAL("other module", finds(ks, 0xffffffffc0003004ULL,
					      "other_fn",
					      0xffffffffc0003000ULL));
	/* An alias dropped from the table is still found by name. */
	TEST_ASSERT_VAL("_text", kmem_kallsyms__address(ks, "_text", &addr) &&
			addr == 0xffffffff81000000ULL);
	TEST_ASSERT_VAL("no such name", !kmem_kallsyms__address(ks, "_tex", &addr));
	kmem_kallsyms__for_each(ks, count_sym, &nr);
	TEST_ASSERT_VAL("kept", nr == 9);

	/* Another boot put vmlinux 0x1000 higher: move it back, drop modules. */
	kmem_kallsyms__relocate(ks, 0x1000);
	TEST_ASSERT_VAL("moved", finds(ks, 0xffffffff80fff410ULL,
				       "do_anonymous_page",
				       0xffffffff80fff400ULL));
	TEST_ASSERT_VAL("modules dropped", finds_none(ks, 0xffffffffbffff100ULL) &&
			finds_none(ks, 0xffffffffc0000100ULL));
	nr = 0;
	kmem_kallsyms__for_each(ks, count_sym, &nr);
	TEST_ASSERT_VAL("vmlinux kept", nr == 6);
	kmem_kallsyms__delete(ks);
	return TEST_OK;
}

static int test__kmem_input_kallsyms(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	char path[] = "/tmp/kmem-kallsyms-XXXXXX", err[256];
	char zeros[] = "/tmp/kmem-kallsyms-XXXXXX";
	int ret;

	TEST_ASSERT_VAL("write", !write_file(path, kallsyms_text));
	ret = check_kallsyms(path);
	unlink(path);
	if (ret != TEST_OK)
		return ret;

	/* kptr_restrict: every address 0, nothing to resolve with. */
	TEST_ASSERT_VAL("write zeros",
			!write_file(zeros, "0000000000000000 T _text\n0000000000000000 T f\n"));
	TEST_ASSERT_VAL("zeros refused",
			!kmem_kallsyms__read(zeros, err, sizeof(err)) &&
			strstr(err, "kptr_restrict"));
	unlink(zeros);
	TEST_ASSERT_VAL("missing refused",
			!kmem_kallsyms__read("/nonexistent/kallsyms", err,
					     sizeof(err)) &&
			strstr(err, "/nonexistent/kallsyms"));
	return TEST_OK;
}

/* The resolver on the table: callsite and name of a made-up chain. */
static int test__kmem_input_resolver(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	char path[] = "/tmp/kmem-kallsyms-XXXXXX", err[256], name[128];
	struct {
		u64 nr;
		u64 ips[5];
	} chain = { 5, {
		PERF_CONTEXT_KERNEL,
		0xffffffff81000120ULL,	/* __alloc_pages_noprof */
		0xffffffff81000310ULL,	/* alloc_pages_mpol */
		0xffffffff81000432ULL,	/* do_anonymous_page: the callsite */
		0xffffffff81000090ULL,	/* early_fn */
	} };
	struct callsite_resolver *r;
	u64 cs;

	TEST_ASSERT_VAL("write", !write_file(path, kallsyms_text));
	r = callsite_resolver__new(NULL, NULL, false, false, err, sizeof(err));
	TEST_ASSERT_VAL("resolver", r);
	TEST_ASSERT_VAL("use", !callsite_resolver__use_kallsyms(r, path));
	cs = callsite_resolver__callsite(r, (struct ip_callchain *)&chain);
	TEST_ASSERT_VAL("callsite", cs == 0xffffffff81000400ULL);
	callsite_resolver__name(r, 0xffffffff81000432ULL, true, name,
				sizeof(name));
	TEST_ASSERT_VAL("name+off", !strcmp(name, "do_anonymous_page+0x32"));
	callsite_resolver__name(r, 0xffffffff90000000ULL, false, name,
				sizeof(name));
	TEST_ASSERT_VAL("no symbol", !strcmp(name, "0xffffffff90000000"));
	callsite_resolver__delete(r);
	unlink(path);
	return TEST_OK;
}

static struct test_case kmem_input_tests[] = {
	TEST_CASE("kmem input: rounds delivered by perf's rule", kmem_input_rounds),
	TEST_CASE("kmem input: equal times in arrival order", kmem_input_stable),
	TEST_CASE("kmem input: late events not lost", kmem_input_late),
	TEST_CASE("kmem input: delivery error stops and resumes", kmem_input_error),
	TEST_CASE("kmem input: random rounds against a stable sort", kmem_input_random),
	TEST_CASE("kmem input: a small bound delivers each record once", kmem_input_ring),
	TEST_CASE("kmem input: memory bound without rounds", kmem_input_bound),
	TEST_CASE("kmem input: a half flush delivers up to the median", kmem_input_half),
	TEST_CASE("kmem input: the bound waits for a CPU behind", kmem_input_frontier),
	TEST_CASE("kmem input: kallsyms table", kmem_input_kallsyms),
	TEST_CASE("kmem input: callsites from the kallsyms table", kmem_input_resolver),
	{ .name = NULL, }
};

struct test_suite suite__kmem_input = {
	.desc = "perf kmem input: event order and kernel symbols",
	.test_cases = kmem_input_tests,
};
