// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of perf kmem's output engines: the JSON writer
 * (util/kmem/json.c), the folded stacks (util/kmem/count-stacks.c) and the SVG
 * map of physical memory (util/kmem/print-map.c), and the tables of -x
 * (util/kmem/print-csv.c).
 *
 * Expected outputs are written out by hand; the JSON writer's strings are
 * also read back by Python's own json module, an independent parser, and
 * compared with Python's own UTF-8 decoding of the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include "debug.h"
#include "tests.h"
#include "util/kmem/count-slab.h"
#include "util/kmem/count-stacks.h"
#include "util/kmem/json.h"
#include "util/kmem/print-csv.h"
#include "util/kmem/print-map.h"
#include "util/kmem/report.h"

/* --- capturing what an engine writes ----------------------------------- */

struct capture {
	FILE	*fp;
	char	*buf;
	size_t	size;
};

static bool capture_open(struct capture *c)
{
	c->buf = NULL;
	c->size = 0;
	c->fp = open_memstream(&c->buf, &c->size);
	return !!c->fp;
}

/* The text written so far; stays valid until capture_close(). */
static const char *capture_text(struct capture *c)
{
	fflush(c->fp);
	return c->buf ? c->buf : "";
}

static void capture_close(struct capture *c)
{
	if (c->fp)
		fclose(c->fp);
	free(c->buf);
	c->fp = NULL;
	c->buf = NULL;
}

/* Say what differed: TEST_ASSERT_VAL only names the check. */
static bool text_is(const char *got, const char *want)
{
	if (!strcmp(got, want))
		return true;
	pr_debug("got:\n%s\nwant:\n%s\n", got, want);
	return false;
}

/* --- JSON -------------------------------------------------------------- */

/* A writer into a fresh capture; both closed by json_done(). */
static struct kmem_json *json_open(struct capture *c)
{
	struct kmem_json *j;

	if (!capture_open(c))
		return NULL;
	j = kmem_json__new(c->fp);
	if (!j)
		capture_close(c);
	return j;
}

/* Finish, compare with @want (NULL: do not), and free everything. */
static int json_done(struct kmem_json *j, struct capture *c, int want_ret,
		     const char *want_error, const char *want)
{
	int ret = kmem_json__finish(j);
	const char *err = kmem_json__error(j);
	bool ok = ret == want_ret &&
		  (!want_error ? !err : err && !strcmp(err, want_error)) &&
		  (!want || text_is(capture_text(c), want));

	if (!ok)
		pr_debug("got finish %d (%s), want %d (%s)\n", ret,
			 err ?: "no error", want_ret, want_error ?: "no error");
	kmem_json__delete(j);
	capture_close(c);
	return ok ? TEST_OK : TEST_FAIL;
}

static int test__kmem_output_json_layout(struct test_suite *t __maybe_unused,
					 int subtest __maybe_unused)
{
	struct capture c;
	struct kmem_json *j = json_open(&c);

	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_object(j);
	kmem_json__key_u64(j, "schema", 1);
	kmem_json__key_object(j, "empty");
	kmem_json__end_object(j);
	kmem_json__key_array(j, "none");
	kmem_json__end_array(j);
	kmem_json__key_array(j, "values");
	kmem_json__u64(j, ~0ULL);
	kmem_json__s64(j, -9223372036854775807LL - 1);
	kmem_json__bool(j, true);
	kmem_json__bool(j, false);
	kmem_json__null(j);
	kmem_json__string(j, NULL);
	kmem_json__hex(j, 0xffffffff81000100ULL);
	kmem_json__hex(j, 0);
	kmem_json__begin_array(j);
	kmem_json__begin_object(j);
	kmem_json__key_string(j, "k", "v");
	kmem_json__end_object(j);
	kmem_json__end_array(j);
	kmem_json__end_array(j);
	kmem_json__key_u64(j, "last", 0);
	kmem_json__end_object(j);
	return json_done(j, &c, 0, NULL,
		"{\n"
		"  \"schema\": 1,\n"
		"  \"empty\": {},\n"
		"  \"none\": [],\n"
		"  \"values\": [\n"
		"    18446744073709551615,\n"
		"    -9223372036854775808,\n"
		"    true,\n"
		"    false,\n"
		"    null,\n"
		"    null,\n"
		"    \"0xffffffff81000100\",\n"
		"    \"0x0\",\n"
		"    [\n"
		"      {\n"
		"        \"k\": \"v\"\n"
		"      }\n"
		"    ]\n"
		"  ],\n"
		"  \"last\": 0\n"
		"}\n");
}

/* One string value as a whole document: its escaped form and a newline. */
static int check_escape(const char *s, size_t len, const char *want)
{
	struct capture c;
	struct kmem_json *j = json_open(&c);

	TEST_ASSERT_VAL("writer", j);
	kmem_json__string_len(j, s, len);
	return json_done(j, &c, 0, NULL, want);
}

#define ESCAPE(s, want) check_escape(s, sizeof(s) - 1, want "\n")
#define FFFD "\xef\xbf\xbd"

static int test__kmem_output_json_escape(struct test_suite *t __maybe_unused,
					 int subtest __maybe_unused)
{
	int bad = 0;

	bad |= ESCAPE("plain /:{}[],", "\"plain /:{}[],\"");
	bad |= ESCAPE("\"\\", "\"\\\"\\\\\"");
	bad |= ESCAPE("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	bad |= ESCAPE("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"");
	bad |= ESCAPE("a\0b", "\"a\\u0000b\"");
	/* Valid UTF-8 of 2, 3 and 4 bytes, and the ends of the ranges. */
	bad |= ESCAPE("\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e",
		      "\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\"");
	bad |= ESCAPE("\xc2\x80\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf",
		      "\"\xc2\x80\xed\x9f\xbf\xee\x80\x80\xf4\x8f\xbf\xbf\"");
	/* Bytes that never start a sequence: one U+FFFD each. */
	bad |= ESCAPE("\x80\xbf\xc0\xc1\xf5\xff",
		      "\"" FFFD FFFD FFFD FFFD FFFD FFFD "\"");
	/* Overlong "/" (c0 af): c0 cannot start, af cannot either. */
	bad |= ESCAPE("\xc0\xaf", "\"" FFFD FFFD "\"");
	/* Overlong and surrogate 3-byte forms: e0 80 and ed a0 break at once. */
	bad |= ESCAPE("\xe0\x80\x80", "\"" FFFD FFFD FFFD "\"");
	bad |= ESCAPE("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");
	/* A truncated sequence is one maximal subpart, whatever follows. */
	bad |= ESCAPE("\xf0\x90\x80", "\"" FFFD "\"");
	bad |= ESCAPE("\xe2\x82\x41", "\"" FFFD "A\"");
	bad |= ESCAPE("\xe2\x82\"", "\"" FFFD "\\\"\"");
	/* Above U+10FFFF: f4 90 breaks after f4. */
	bad |= ESCAPE("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"");
	/* Keys are escaped the same way. */
	{
		struct capture c;
		struct kmem_json *j = json_open(&c);

		TEST_ASSERT_VAL("writer", j);
		kmem_json__begin_object(j);
		kmem_json__key_u64(j, "a\"\n\xff", 1);
		kmem_json__end_object(j);
		bad |= json_done(j, &c, 0, NULL,
				 "{\n  \"a\\\"\\n" FFFD "\": 1\n}\n");
	}
	TEST_ASSERT_VAL("every string escaped as worked out", !bad);
	return TEST_OK;
}

/* Each misuse: the first one is reported, nothing is written after it. */
static int test__kmem_output_json_misuse(struct test_suite *t __maybe_unused,
					 int subtest __maybe_unused)
{
	struct capture c;
	struct kmem_json *j;
	int bad = 0, i;

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_object(j);
	kmem_json__u64(j, 1);
	kmem_json__key(j, "not written");
	kmem_json__end_object(j);
	bad |= json_done(j, &c, -EINVAL, "a value where a key is expected",
			 "{");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_array(j);
	kmem_json__key(j, "k");
	bad |= json_done(j, &c, -EINVAL, "a key outside an object", "[");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_object(j);
	kmem_json__key(j, "a");
	kmem_json__key(j, "b");
	bad |= json_done(j, &c, -EINVAL, "a key where a value is expected",
			 "{\n  \"a\": ");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_object(j);
	kmem_json__key(j, "a");
	kmem_json__end_object(j);
	bad |= json_done(j, &c, -EINVAL, "end of an object after a key", NULL);

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_array(j);
	kmem_json__end_object(j);
	bad |= json_done(j, &c, -EINVAL, "end of an object not open", "[");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__end_array(j);
	bad |= json_done(j, &c, -EINVAL, "end of an array not open", "");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__u64(j, 1);
	kmem_json__u64(j, 2);
	bad |= json_done(j, &c, -EINVAL, "a second document", "1\n");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_array(j);
	bad |= json_done(j, &c, -EINVAL, "the document is not complete", "[");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	bad |= json_done(j, &c, -EINVAL, "the document is empty", "");

	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_object(j);
	kmem_json__key(j, NULL);
	bad |= json_done(j, &c, -EINVAL, "a NULL key", "{");

	/* KMEM_JSON_MAX_DEPTH levels are fine, one more is not. */
	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	for (i = 0; i < KMEM_JSON_MAX_DEPTH; i++)
		kmem_json__begin_array(j);
	for (i = 0; i < KMEM_JSON_MAX_DEPTH; i++)
		kmem_json__end_array(j);
	bad |= json_done(j, &c, 0, NULL, NULL);
	j = json_open(&c);
	TEST_ASSERT_VAL("writer", j);
	for (i = 0; i <= KMEM_JSON_MAX_DEPTH; i++)
		kmem_json__begin_array(j);
	bad |= json_done(j, &c, -EINVAL, "nesting too deep", NULL);

	TEST_ASSERT_VAL("each misuse reported as itself", !bad);
	return TEST_OK;
}

static int test__kmem_output_json_io_error(struct test_suite *t __maybe_unused,
					   int subtest __maybe_unused)
{
	FILE *fp = fopen("/dev/full", "w");
	struct kmem_json *j;
	int i, ret;

	if (!fp)
		return TEST_SKIP;
	j = kmem_json__new(fp);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_array(j);
	for (i = 0; i < 10000; i++)
		kmem_json__string(j, "more than a stdio buffer of text");
	kmem_json__end_array(j);
	ret = kmem_json__finish(j);
	kmem_json__delete(j);
	fclose(fp);
	TEST_ASSERT_VAL("a full disk is -ENOSPC", ret == -ENOSPC);
	return TEST_OK;
}

/*
 * Reads the document on stdin with Python's json module, checks that each
 * string equals Python's own decoding of the bytes given beside it in hex,
 * and that json.dumps() lays the document out byte for byte as we did.
 */
static const char python_check[] =
	"import json, sys\n"
	"text = sys.stdin.buffer.read().decode('utf-8')\n"
	"doc = json.loads(text)\n"
	"bad = [d['hex'] for d in doc\n"
	"       if bytes.fromhex(d['hex']).decode('utf-8', 'replace') != d['s']]\n"
	"if bad:\n"
	"    sys.exit('strings differ: ' + ' '.join(bad[:3]))\n"
	"if json.dumps(doc, indent=2, ensure_ascii=False) + '\\n' != text:\n"
	"    sys.exit('layout differs from json.dumps')\n";

/* Bytes a hostile comm or cache name could hold, most of them not text. */
static size_t hostile_string(unsigned int *seed, char *buf, size_t size)
{
	static const unsigned char edges[] = {
		0x00, 0x01, 0x1f, 0x20, '"', '\\', 0x7f, 0x80, 0xbf, 0xc0,
		0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
		0x9f, 0xa0, 0x8f, 0x90,
	};
	size_t len = rand_r(seed) % size, i;

	for (i = 0; i < len; i++) {
		unsigned int r = rand_r(seed);

		buf[i] = r % 3 ? (char)edges[(r >> 8) % ARRAY_SIZE(edges)] :
				 (char)(r >> 8);
	}
	return len;
}

static int test__kmem_output_json_python(struct test_suite *t __maybe_unused,
					 int subtest __maybe_unused)
{
	char path[] = "/tmp/kmem-json-check.XXXXXX", cmd[128], buf[24], hex[64];
	unsigned int seed = 14;
	void (*old_pipe)(int sig);
	struct kmem_json *j;
	FILE *py;
	int fd, i, ret;
	size_t len, k;

	if (system("python3 -c '' 2>/dev/null"))
		return TEST_SKIP;
	fd = mkstemp(path);
	TEST_ASSERT_VAL("temporary file", fd >= 0);
	ret = write(fd, python_check, strlen(python_check));
	close(fd);
	if (ret != (int)strlen(python_check)) {
		unlink(path);
		TEST_ASSERT_VAL("script written", false);
	}
	snprintf(cmd, sizeof(cmd), "python3 %s", path);
	/* Should python3 stop reading early, its exit status says why. */
	old_pipe = signal(SIGPIPE, SIG_IGN);
	py = popen(cmd, "w");
	if (!py) {
		signal(SIGPIPE, old_pipe);
		unlink(path);
		TEST_ASSERT_VAL("popen python3", false);
	}
	j = kmem_json__new(py);
	TEST_ASSERT_VAL("writer", j);
	kmem_json__begin_array(j);
	for (i = 0; i < 500; i++) {
		len = hostile_string(&seed, buf, sizeof(buf));
		for (k = 0; k < len; k++)
			sprintf(hex + 2 * k, "%02x", (unsigned char)buf[k]);
		hex[2 * len] = '\0';
		kmem_json__begin_object(j);
		kmem_json__key_string(j, "hex", hex);
		kmem_json__key(j, "s");
		kmem_json__string_len(j, buf, len);
		kmem_json__end_object(j);
	}
	kmem_json__end_array(j);
	ret = kmem_json__finish(j);
	kmem_json__delete(j);
	i = pclose(py);
	signal(SIGPIPE, old_pipe);
	unlink(path);
	TEST_ASSERT_VAL("document complete", ret == 0);
	TEST_ASSERT_VAL("python3 reads the strings as written", i == 0);
	return TEST_OK;
}

/* --- folded stacks ------------------------------------------------------ */

struct frame_names {
	const u64	*ips;
	const char	* const *names;
	int		nr;
	int		calls[16];	/* name_of() calls per address */
	int		unknown;	/* calls for addresses not in the table */
};

static const char *name_from_table(u64 ip, void *arg)
{
	struct frame_names *fn = arg;
	int i;

	for (i = 0; i < fn->nr; i++) {
		if (fn->ips[i] == ip) {
			fn->calls[i]++;
			return fn->names[i];
		}
	}
	fn->unknown++;
	return "not in the table";
}

static int write_folded(struct kmem_stacks *st, enum kmem_stacks_weight w,
			struct frame_names *fn, const char *want,
			size_t want_lines)
{
	struct capture c;
	size_t lines = 0;
	int ret;
	bool ok;

	TEST_ASSERT_VAL("capture", capture_open(&c));
	ret = kmem_stacks__write(st, w, name_from_table, fn, c.fp, &lines);
	ok = ret == 0 && lines == want_lines && text_is(capture_text(&c), want);
	capture_close(&c);
	if (!ok)
		pr_debug("got write %d, %zu lines, want %zu\n", ret, lines,
			 want_lines);
	return ok ? TEST_OK : TEST_FAIL;
}

/* Chains as perf gives them, leaf first, allocator frames dropped. */
static const u64 fs_ips[] = { 0x10, 0x11, 0x20, 0x30, 0x40, 0x50, 0x60 };
static const char * const fs_names[] = {
	"do_anonymous_page", "do_anonymous_page", "handle_mm_fault",
	"exc_page_fault", "pte_alloc_one", NULL, "not; a\tname",
};

static const u64 chain_a[] = { 0x10, 0x20, 0x30 };
static const u64 chain_b[] = { 0x11, 0x20, 0x30 };	/* same names as a */
static const u64 chain_c[] = { 0x40, 0x20, 0x30 };
static const u64 chain_d[] = { 0x50, 0x30 };		/* 0x50 has no name */
static const u64 chain_f[] = { 0x60 };

static int check_folded(struct kmem_stacks *st)
{
	struct frame_names fn = {
		.ips = fs_ips, .names = fs_names, .nr = ARRAY_SIZE(fs_ips),
	};
	int a = kmem_stacks__intern(st, chain_a, ARRAY_SIZE(chain_a));
	int b = kmem_stacks__intern(st, chain_b, ARRAY_SIZE(chain_b));
	int c = kmem_stacks__intern(st, chain_c, ARRAY_SIZE(chain_c));
	int d = kmem_stacks__intern(st, chain_d, ARRAY_SIZE(chain_d));
	int e = kmem_stacks__intern(st, NULL, 0);
	int f = kmem_stacks__intern(st, chain_f, ARRAY_SIZE(chain_f));
	int i, ret;

	TEST_ASSERT_VAL("ids in order of first sight",
			a == 0 && b == 1 && c == 2 && d == 3 && e == 4 &&
			f == 5);
	for (i = 0; i < 3; i++)
		TEST_ASSERT_VAL("add a", !kmem_stacks__add(st, a, 4096, 1));
	TEST_ASSERT_VAL("add b", !kmem_stacks__add(st, b, 8192, 1));
	TEST_ASSERT_VAL("add c", !kmem_stacks__add(st, c, 4096, 1));
	TEST_ASSERT_VAL("add d", !kmem_stacks__add(st, d, 16384, 1));
	TEST_ASSERT_VAL("add e", !kmem_stacks__add(st, e, 4096, 1));
	/* f has no weight: no line, and its frame is never named. */

	/*
	 * a and b are one line, 3 * 4096 + 8192; names sort "0x50" <
	 * "do_anonymous_page" < "exc_page_fault" < "handle_mm_fault" <
	 * "pte_alloc_one", frame by frame from the root, and the stack of no
	 * frames comes first.
	 */
	ret = write_folded(st, KMEM_STACKS_BYTES, &fn,
			   "[unknown] 4096\n"
			   "exc_page_fault;0x50 16384\n"
			   "exc_page_fault;handle_mm_fault;do_anonymous_page 20480\n"
			   "exc_page_fault;handle_mm_fault;pte_alloc_one 4096\n",
			   4);
	TEST_ASSERT_VAL("bytes", ret == TEST_OK);
	for (i = 0; i < (int)ARRAY_SIZE(fs_ips); i++)
		TEST_ASSERT_VAL("each address named once",
				fn.calls[i] == (fs_ips[i] == 0x60 ? 0 : 1));
	TEST_ASSERT_VAL("only addresses of the chains", !fn.unknown);

	ret = write_folded(st, KMEM_STACKS_HITS, &fn,
			   "[unknown] 1\n"
			   "exc_page_fault;0x50 1\n"
			   "exc_page_fault;handle_mm_fault;do_anonymous_page 4\n"
			   "exc_page_fault;handle_mm_fault;pte_alloc_one 1\n",
			   4);
	TEST_ASSERT_VAL("hits", ret == TEST_OK);

	return TEST_OK;
}

/* Blanks and ';' in a name become '_'. */
static int check_folded_name(struct kmem_stacks *st)
{
	struct frame_names fn = {
		.ips = fs_ips, .names = fs_names, .nr = ARRAY_SIZE(fs_ips),
	};
	int f = kmem_stacks__intern(st, chain_f, ARRAY_SIZE(chain_f));

	TEST_ASSERT_VAL("add f", !kmem_stacks__add(st, f, 1, 1));
	return write_folded(st, KMEM_STACKS_BYTES, &fn, "not__a_name 1\n", 1);
}

static int with_stacks(int (*check)(struct kmem_stacks *st))
{
	struct kmem_stacks *st = kmem_stacks__new();
	int ret;

	TEST_ASSERT_VAL("kmem_stacks__new", st);
	ret = check(st);
	kmem_stacks__delete(st);
	return ret;
}

static int test__kmem_output_folded(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	return with_stacks(check_folded) ?: with_stacks(check_folded_name);
}

static int check_stack_ids(struct kmem_stacks *st)
{
	static const u64 one[] = { 1 }, two[] = { 1, 2 }, three[] = { 1, 2, 3 };
	static const u64 turned[] = { 2, 1 };
	static u64 deep[KMEM_STACKS_MAX_FRAMES + 1];
	struct frame_names fn = { .nr = 0 };
	int ret;

	TEST_ASSERT_VAL("one", kmem_stacks__intern(st, one, 1) == 0);
	TEST_ASSERT_VAL("two", kmem_stacks__intern(st, two, 2) == 1);
	TEST_ASSERT_VAL("three", kmem_stacks__intern(st, three, 3) == 2);
	TEST_ASSERT_VAL("turned", kmem_stacks__intern(st, turned, 2) == 3);
	TEST_ASSERT_VAL("two again", kmem_stacks__intern(st, two, 2) == 1);
	ret = kmem_stacks__intern(st, deep, ARRAY_SIZE(deep));
	TEST_ASSERT_VAL("too deep", ret == -EINVAL);
	ret = kmem_stacks__intern(st, deep, ARRAY_SIZE(deep) - 1);
	TEST_ASSERT_VAL("deepest", ret == 4);

	TEST_ASSERT_VAL("add to no id", kmem_stacks__add(st, 5, 1, 1) == -EINVAL);
	TEST_ASSERT_VAL("add to -1", kmem_stacks__add(st, -1, 1, 1) == -EINVAL);
	/* No weight: nothing written, nothing named. */
	return write_folded(st, KMEM_STACKS_BYTES, &fn, "", 0);
}

static int test__kmem_output_stack_ids(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	return with_stacks(check_stack_ids);
}

/*
 * Random chains over a small pool of addresses whose names repeat, added
 * unless freed: the folded lines must be exactly the model's, which joins
 * the names of each event's chain into a string and sums per string.
 */
#define RS_EVENTS	3000
#define RS_LINE		(8 * 12)

struct model_line {
	char	stack[RS_LINE];
	u64	value;
};

static const char *pool_name(u64 ip, void *arg __maybe_unused)
{
	static const char * const names[] = {
		"a", "b", "c", "ab", "a.b", "b_c", "c1", NULL,
	};
	static char buf[24];

	if (!names[ip % 8]) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, ip);
		return buf;
	}
	return names[ip % 8];
}

static void model_add(struct model_line *m, int *nr, const u64 *ips, int n,
		      u64 value)
{
	char stack[RS_LINE] = "";
	int i;

	for (i = n - 1; i >= 0; i--) {
		strcat(stack, pool_name(ips[i], NULL));
		if (i)
			strcat(stack, ";");
	}
	if (!n)
		snprintf(stack, sizeof(stack), "[unknown]");
	for (i = 0; i < *nr && strcmp(m[i].stack, stack); i++)
		;
	if (i == *nr) {
		memcpy(m[(*nr)++].stack, stack, sizeof(stack));
		m[i].value = 0;
	}
	m[i].value += value;
}

/* Every line of @text is a model line with its value, and none twice. */
static bool folded_is_model(char *text, struct model_line *m, int nr)
{
	int i, want = 0, got = 0;
	char *line, *save = NULL;

	for (i = 0; i < nr; i++)
		want += m[i].value != 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		if (!sp)
			return false;
		*sp = '\0';
		for (i = 0; i < nr && strcmp(m[i].stack, line); i++)
			;
		if (i == nr || !m[i].value ||
		    m[i].value != strtoull(sp + 1, NULL, 10))
			return false;
		m[i].value = 0;		/* a second line of it fails */
		got++;
	}
	return got == want;
}

static int check_random_stacks(struct kmem_stacks *st)
{
	static struct model_line model[RS_EVENTS];
	unsigned int seed = 1414;
	int i, k, id, nr, nr_model = 0;
	struct capture c;
	u64 ips[8];
	bool ok;

	for (i = 0; i < RS_EVENTS; i++) {
		u64 bytes = 4096ULL << (rand_r(&seed) % 4);

		nr = rand_r(&seed) % 8;
		for (k = 0; k < nr; k++)
			ips[k] = 0x1000 + rand_r(&seed) % 24;
		id = kmem_stacks__intern(st, ips, nr);
		TEST_ASSERT_VAL("intern", id >= 0);
		/* A third are freed: --live adds only the pages still allocated. */
		if (rand_r(&seed) % 3 == 0)
			continue;
		TEST_ASSERT_VAL("add", !kmem_stacks__add(st, id, bytes, 1));
		/* The model: hits of the allocations not freed, by their names. */
		model_add(model, &nr_model, ips, nr, 1);
	}
	TEST_ASSERT_VAL("capture", capture_open(&c));
	ok = !kmem_stacks__write(st, KMEM_STACKS_HITS, pool_name, NULL, c.fp,
				 NULL);
	capture_text(&c);
	ok = ok && folded_is_model(c.buf, model, nr_model);
	capture_close(&c);
	TEST_ASSERT_VAL("folded lines equal the model's", ok);
	return TEST_OK;
}

static int test__kmem_output_random_stacks(struct test_suite *t __maybe_unused,
					   int subtest __maybe_unused)
{
	return with_stacks(check_random_stacks);
}

/* --- the SVG map --------------------------------------------------------- */

static const struct kmem_map_config map_config = {
	.title = "trace <1> & 6.18",
	.pageblock_order = 9,
	.page_size = 4096,
};

/* A pageblock of allocations of one type, or none (type -1). */
static int map_block(struct kmem_map *map, u64 pfn, int type, u64 nr,
		     int node, const char *callsite)
{
	struct kmem_map_block b = {
		.pfn = pfn, .node = node, .top_callsite = callsite,
	};

	if (type >= 0)
		b.allocs[type] = nr;
	return kmem_map__add_block(map, &b);
}

/* The map as text; NULL if writing failed.  Free it. */
static char *map_text(struct kmem_map *map)
{
	struct capture c;
	char *text;
	int err;

	if (!capture_open(&c))
		return NULL;
	err = kmem_map__write(map, c.fp);
	fclose(c.fp);
	text = c.buf;
	if (err) {
		pr_debug("got write %d\n", err);
		free(text);
		return NULL;
	}
	return text;
}

static bool has(const char *text, const char *want)
{
	if (strstr(text, want))
		return true;
	pr_debug("got no:\n%s\n", want);
	return false;
}

/* @text holds the concatenation of @parts (NULL-terminated). */
static bool has_parts(const char *text, const char * const *parts)
{
	size_t len = 1, i;
	char *want;
	bool ok;

	for (i = 0; parts[i]; i++)
		len += strlen(parts[i]);
	want = malloc(len);
	if (!want)
		return false;
	want[0] = '\0';
	for (i = 0; parts[i]; i++)
		strcat(want, parts[i]);
	ok = has(text, want);
	free(want);
	return ok;
}

static int check_map_cells(struct kmem_map *map)
{
	struct kmem_map_block mixed = {
		.pfn = 0x5ff,		/* the last pfn of pageblock 2 */
		.allocs = { [KMEM_MAP_UNMOVABLE] = 1, [KMEM_MAP_MOVABLE] = 2 },
		.fallbacks = 1,
		.remote_frees = 2,
		.pinning = 3,
		/* Markup, a control, a byte not UTF-8, U+FFFE: not XML. */
		.top_callsite = "a<b>&c\n\xff\xef\xbf\xbe",
		.node = 0,
	};
	struct kmem_map_box box;
	u64 per_cell;
	char *svg;
	bool ok;

	TEST_ASSERT_VAL("block 1", !map_block(map, 0x200, KMEM_MAP_MOVABLE, 5,
					      0, "do_anonymous_page"));
	TEST_ASSERT_VAL("block 2", !kmem_map__add_block(map, &mixed));
	TEST_ASSERT_VAL("locate", !kmem_map__locate(map, 0x400, &box, &per_cell));
	ok = box.x == 112 && box.y == 60 && box.width == 11 && per_cell == 1;
	TEST_ASSERT_VAL("second cell", ok);
	svg = map_text(map);
	TEST_ASSERT_VAL("written", svg);
	/* 64 cells of 12 px and the margins; one row, the legend. */
	ok = has(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ") &&
	     has(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"932\" ") &&
	     has(svg, " width=\"932\" height=\"136\" viewBox=\"0 0 932 136\">\n") &&
	     has(svg, "<text x=\"100\" y=\"22\" class=\"t\">trace &lt;1&gt; &amp; 6.18</text>\n") &&
	     has(svg, ">pfn 0x200-0x5ff, pageblocks of order 9 (2 MiB), a cell ") &&
	     has(svg, "a cell is 1 pageblock (2 MiB); 2 pageblocks allocated into, ") &&
	     has(svg, "1 with fallbacks, 1 pinned by pages fallen back</text>\n") &&
	     /* The untouched background: the two cells. */
	     has(svg,
		 "<rect x=\"100\" y=\"60\" width=\"24\" height=\"12\" fill=\"url(#free)\"/>\n") &&
	     has_parts(svg, (const char * const []){
		      "<g><title>pfn 0x200-0x3ff: 1 pageblock\n",
		      "allocations: Unmovable 0, Reclaimable 0, Movable 5, Special 0\n",
		      "fallbacks 0, frees by CPUs of other nodes 0\n",
		      "node 0\n",
		      "main callsite: do_anonymous_page</title>",
		      "<rect x=\"100\" y=\"60\" width=\"11\" height=\"11\" class=\"m\"/></g>\n",
		      NULL }) &&
	     /* Two bands, hatched, outlined, dotted; the name escaped. */
	     has_parts(svg, (const char * const []){
		      "<g><title>pfn 0x400-0x5ff: 1 pageblock, mixed\n",
		      "allocations: Unmovable 1, Reclaimable 0, Movable 2, Special 0\n",
		      "fallbacks 1, frees by CPUs of other nodes 2\n",
		      "fallen back, still allocated: 3 pages, in 1 pageblock\n",
		      "node 0\n",
		      "main callsite: a&lt;b&gt;&amp;c \xef\xbf\xbd\xef\xbf\xbd</title>",
		      "<rect x=\"112\" y=\"60\" width=\"5\" height=\"11\" class=\"u\"/>",
		      "<rect x=\"117\" y=\"60\" width=\"6\" height=\"11\" class=\"m\"/>",
		      "<rect x=\"112\" y=\"60\" width=\"11\" height=\"11\" class=\"x\"/>",
		      "<rect x=\"113\" y=\"61\" width=\"9\" height=\"9\" class=\"f\"/>",
		      "<circle cx=\"117.5\" cy=\"65.5\" r=\"2.5\" class=\"k\"/></g>\n",
		      NULL }) &&
	     /* The first cell has no pages fallen back: no dot. */
	     !strstr(strstr(svg, "<g><title>pfn 0x200"), "<circle cx=\"105.5") &&
	     has(svg, "<text x=\"96\" y=\"69\" class=\"p\">0x200</text>\n") &&
	     has(svg, "no memory topology in the trace") &&
	     !strstr(svg, "url(#hole)\"/>") && !strstr(svg, "Bytes allocated") &&
	     has(svg, "</svg>\n");
	free(svg);
	TEST_ASSERT_VAL("cells as worked out", ok);
	return TEST_OK;
}

static int with_map(const struct kmem_map_config *config,
		    int (*check)(struct kmem_map *map))
{
	struct kmem_map *map = kmem_map__new(config);
	int ret;

	TEST_ASSERT_VAL("kmem_map__new", map);
	ret = check(map);
	kmem_map__delete(map);
	return ret;
}

static int test__kmem_output_map_cells(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	return with_map(&map_config, check_map_cells);
}

/* 4097 pageblocks: two to a cell, 2049 cells. */
static int check_map_aggregate(struct kmem_map *map)
{
	struct kmem_map_block busy = {
		.pfn = 0x200,
		.allocs = { [KMEM_MAP_UNMOVABLE] = 5 },
		.fallbacks = 1,
		.top_callsite = "busy",
		.node = 1,
	};
	struct kmem_map_box box;
	u64 per_cell;
	char *svg;
	bool ok;

	TEST_ASSERT_VAL("block 0", !map_block(map, 0, KMEM_MAP_MOVABLE, 3, 0,
					      "quiet"));
	TEST_ASSERT_VAL("block 1", !kmem_map__add_block(map, &busy));
	TEST_ASSERT_VAL("block 4096", !map_block(map, 4096 << 9,
						 KMEM_MAP_SPECIAL, 1, 0, NULL));
	TEST_ASSERT_VAL("locate", !kmem_map__locate(map, 4096 << 9, &box,
						    &per_cell));
	/* Cell 2048: row 32, column 0. */
	ok = box.x == 100 && box.y == 60 + 32 * 12 && per_cell == 2;
	TEST_ASSERT_VAL("last cell", ok);
	TEST_ASSERT_VAL("outside", kmem_map__locate(map, 4098 << 9, &box,
						    NULL) == -ENOENT);
	svg = map_text(map);
	TEST_ASSERT_VAL("written", svg);
	/* Two types in the cell, neither pageblock mixed: split, no hatch. */
	ok = has_parts(svg, (const char * const []){
		      "<g><title>pfn 0x0-0x3ff: 2 pageblocks, 2 allocated into, 0 mixed\n",
		      "allocations: Unmovable 5, Reclaimable 0, Movable 3, Special 0\n",
		      "fallbacks 1, frees by CPUs of other nodes 0\n",
		      "nodes: several\n",
		      "main callsite of its busiest pageblock: busy</title>",
		      "<rect x=\"100\" y=\"60\" width=\"5\" height=\"11\" class=\"u\"/>",
		      "<rect x=\"105\" y=\"60\" width=\"6\" height=\"11\" class=\"m\"/>",
		      "<rect x=\"101\" y=\"61\" width=\"9\" height=\"9\" class=\"f\"/></g>\n",
		      NULL }) &&
	     has_parts(svg, (const char * const []){
		      "<g><title>pfn 0x200000-0x2003ff: 2 pageblocks, 1 allocated into, 0 mixed\n",
		      "allocations: Unmovable 0, Reclaimable 0, Movable 0, Special 1\n",
		      "fallbacks 0, frees by CPUs of other nodes 0\n",
		      "node 0</title>",
		      "<rect x=\"100\" y=\"444\" width=\"11\" height=\"11\" class=\"s\"/></g>\n",
		      NULL }) &&
	     /* 32 whole rows, then one cell. */
	     has_parts(svg, (const char * const []){
		      "<rect x=\"100\" y=\"60\" width=\"768\" height=\"384\" fill=\"url(#free)\"/>\n",
		      "<rect x=\"100\" y=\"444\" width=\"12\" height=\"12\" fill=\"url(#free)\"/>\n",
		      NULL }) &&
	     has(svg, "a cell is 2 pageblocks (4 MiB); 3 pageblocks allocated into, 0 mixed, 1 with fallbacks");
	free(svg);
	TEST_ASSERT_VAL("aggregated cells as worked out", ok);
	return TEST_OK;
}

static int test__kmem_output_map_aggregate(struct test_suite *t __maybe_unused,
					   int subtest __maybe_unused)
{
	return with_map(&map_config, check_map_aggregate);
}

/* Node 0 on pageblocks 0-2, a hole on 3-4, node 1 on 5-9. */
static int check_map_nodes(struct kmem_map *map)
{
	char *svg;
	bool ok;
	int i, ret;

	for (i = 0; i < 10; i++) {
		if (i >= 3 && i <= 4)
			continue;
		ret = map_block(map, i << 9, KMEM_MAP_MOVABLE, 1, i > 4, NULL);
		TEST_ASSERT_VAL("block", !ret);
	}
	TEST_ASSERT_VAL("node 1", !kmem_map__add_node_range(map, 1, 0xa00, 0x1400));
	TEST_ASSERT_VAL("node 0", !kmem_map__add_node_range(map, 0, 0, 0x600));
	TEST_ASSERT_VAL("0 -> 1", !kmem_map__set_xnode_bytes(map, 0, 1, 3 << 20));
	TEST_ASSERT_VAL("1 -> 0", !kmem_map__set_xnode_bytes(map, 1, 0, 1 << 20));
	TEST_ASSERT_VAL("0 -> 0", !kmem_map__set_xnode_bytes(map, 0, 0, 5 << 20));
	svg = map_text(map);
	TEST_ASSERT_VAL("written", svg);
	ok = has(svg, "width=\"932\" height=\"212\"") &&
	     has_parts(svg, (const char * const []){
		      "<g><title>hole: no memory of any node</title>\n",
		      "<rect x=\"136\" y=\"60\" width=\"24\" height=\"12\" fill=\"url(#hole)\"/>\n",
		      "</g>\n",
		      NULL }) &&
	     has_parts(svg, (const char * const []){
		      "<g><title>node 0: pfn 0x0-0x5ff</title>",
		      "<text x=\"874\" y=\"70\">node 0</text></g>\n",
		      NULL }) &&
	     /* A line between the cells before node 1 and those from it. */
	     has_parts(svg, (const char * const []){
		      "<g><title>node 1: pfn 0xa00-0x13ff</title>",
		      "<path d=\"M99 71H159V59H219\" class=\"n\"/>",
		      "<text x=\"874\" y=\"81\">node 1</text></g>\n",
		      NULL }) &&
	     has(svg, ">hole</text>") && !strstr(svg, "no memory topology") &&
	     /* The panel: the largest remote cell darkest, the diagonal apart. */
	     has_parts(svg, (const char * const []){
		      "<g><title>allocated on node 0, freed on node 1: 3145728 bytes</title>",
		      "<rect x=\"180\" y=\"160\" width=\"79\" height=\"19\" fill=\"rgb(8,48,107)\"/>",
		      "<text x=\"184\" y=\"173\" style=\"fill:#fff\">3.0 MiB</text></g>\n",
		      NULL }) &&
	     has_parts(svg, (const char * const []){
		      "<g><title>allocated on node 0, freed on node 0: 5242880 bytes (same node)</title>",
		      "<rect x=\"100\" y=\"160\" width=\"79\" height=\"19\" fill=\"#fff\" stroke=\"#bbb\"/>",
		      NULL }) &&
	     has_parts(svg, (const char * const []){
		      "<g><title>allocated on node 1, freed on node 0: 1048576 bytes</title>",
		      "<rect x=\"100\" y=\"180\" width=\"79\" height=\"19\" fill=\"rgb(167,183,205)\"/>",
		      NULL });
	free(svg);
	TEST_ASSERT_VAL("nodes, hole and panel as worked out", ok);
	return TEST_OK;
}

static int test__kmem_output_map_nodes(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	return with_map(&map_config, check_map_nodes);
}

/*
 * One node on pageblocks 0-2 and 5-9, a hole between (as below 4 GiB):
 * named once, at its start, where it was named again after the hole.
 */
static int check_map_one_node(struct kmem_map *map)
{
	char *svg;
	const char *p;
	int i, names = 0;
	bool ok;

	for (i = 0; i < 10; i++) {
		if (i >= 3 && i <= 4)
			continue;
		TEST_ASSERT_VAL("block", !map_block(map, i << 9,
						    KMEM_MAP_MOVABLE, 1, 0,
						    NULL));
	}
	TEST_ASSERT_VAL("range 1", !kmem_map__add_node_range(map, 0, 0, 0x600));
	TEST_ASSERT_VAL("range 2", !kmem_map__add_node_range(map, 0, 0xa00,
							     0x1400));
	svg = map_text(map);
	TEST_ASSERT_VAL("written", svg);
	for (p = svg; (p = strstr(p, ">node 0</text>")); p++)
		names++;
	ok = names == 1 &&
	     has_parts(svg, (const char * const []){
		      "<g><title>node 0: pfn 0x0-0x13ff</title>",
		      "<text x=\"874\" y=\"70\">node 0</text></g>\n",
		      NULL }) &&
	     has(svg, "<g><title>hole: no memory of any node</title>\n") &&
	     !strstr(svg, "</title><path d=");
	free(svg);
	TEST_ASSERT_VAL("one node named once, across the hole", ok);
	return TEST_OK;
}

static int test__kmem_output_map_one_node(struct test_suite *t __maybe_unused,
					  int subtest __maybe_unused)
{
	return with_map(&map_config, check_map_one_node);
}

static int check_map_errors(struct kmem_map *map)
{
	struct kmem_map_config bad = { .pageblock_order = 31 };
	struct kmem_map_box box;
	struct capture c;
	int ret;

	TEST_ASSERT_VAL("order 31 refused", !kmem_map__new(&bad));
	TEST_ASSERT_VAL("capture", capture_open(&c));
	ret = kmem_map__write(map, c.fp);
	capture_close(&c);
	TEST_ASSERT_VAL("nothing to draw", ret == -ENODATA);
	TEST_ASSERT_VAL("nothing to locate",
			kmem_map__locate(map, 0, &box, NULL) == -ENODATA);
	TEST_ASSERT_VAL("block", !map_block(map, 0x200, 0, 1, -1, NULL));
	TEST_ASSERT_VAL("same pageblock",
			map_block(map, 0x3ff, 0, 1, -1, NULL) == -EEXIST);
	TEST_ASSERT_VAL("empty range",
			kmem_map__add_node_range(map, 0, 5, 5) == -EINVAL);
	TEST_ASSERT_VAL("node 64", kmem_map__add_node_range(map, 64, 0, 1) ==
				   -EINVAL);
	TEST_ASSERT_VAL("node -1", kmem_map__set_xnode_bytes(map, -1, 0, 1) ==
				   -EINVAL);
	TEST_ASSERT_VAL("to node 64",
			kmem_map__set_xnode_bytes(map, 0, 64, 1) == -EINVAL);
	TEST_ASSERT_VAL("below the map",
			kmem_map__locate(map, 0x1ff, &box, NULL) == -ENOENT);
	return TEST_OK;
}

static int test__kmem_output_map_errors(struct test_suite *t __maybe_unused,
					int subtest __maybe_unused)
{
	return with_map(&map_config, check_map_errors);
}

/*
 * The largest map 1 TiB of 2 MiB pageblocks can make: every pageblock
 * allocated into with all four types, with fallbacks and remote frees,
 * 20-digit counts, a callsite name of 199 '&', 64 nodes and a full node x
 * node panel.
 */
#define TIB_BLOCKS	((1ULL << 40) >> 21)
#define TIB_BASE	0x100000ULL	/* pfn: 4 GiB */

static int check_map_size(struct kmem_map *map)
{
	struct kmem_map_block b = {
		.allocs = { ~0ULL, ~0ULL, ~0ULL, ~0ULL },
		.fallbacks = ~0ULL,
		.remote_frees = ~0ULL,
		.pinning = ~0ULL,
	};
	u64 i, per_cell, span = TIB_BLOCKS << 9;
	struct kmem_map_box box;
	struct capture c;
	char name[200];
	size_t cells = 0;
	const char *p;
	int from, to;

	memset(name, '&', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	b.top_callsite = name;
	for (i = 0; i < TIB_BLOCKS; i++) {
		b.pfn = TIB_BASE + (i << 9);
		b.node = i * 64 / TIB_BLOCKS;
		TEST_ASSERT_VAL("block", !kmem_map__add_block(map, &b));
	}
	for (from = 0; from < 64; from++) {
		u64 start = TIB_BASE + from * span / 64 + 7;
		u64 end = TIB_BASE + (from + 1) * span / 64;

		TEST_ASSERT_VAL("range",
				!kmem_map__add_node_range(map, from, start, end));
		for (to = 0; to < 64; to++)
			TEST_ASSERT_VAL("xnode",
					!kmem_map__set_xnode_bytes(map, from, to,
								   ~0ULL - to));
	}
	TEST_ASSERT_VAL("locate", !kmem_map__locate(map, TIB_BASE, &box,
						    &per_cell));
	TEST_ASSERT_VAL("128 pageblocks a cell", per_cell == 128);
	TEST_ASSERT_VAL("capture", capture_open(&c));
	TEST_ASSERT_VAL("written", !kmem_map__write(map, c.fp));
	capture_text(&c);
	for (p = c.buf; (p = strstr(p, "<g><title>pfn ")); p++)
		cells++;
	pr_debug("1 TiB map: %zu bytes, %zu cells\n", c.size, cells);
	TEST_ASSERT_VAL("all cells drawn", cells == KMEM_MAP_MAX_CELLS);
	TEST_ASSERT_VAL("under 5 MB", c.size < 5000000);
	capture_close(&c);
	return TEST_OK;
}

static int test__kmem_output_map_size(struct test_suite *t __maybe_unused,
				      int subtest __maybe_unused)
{
	return with_map(&map_config, check_map_size);
}

/*
 * Reads a PNG (8-bit RGB or RGBA, not interlaced) with zlib and checks
 * pixels: "x,y,#rrggbb" that pixel, "x,y,w,h,#rrggbb" some pixel of the
 * box, each channel within 12.
 */
static const char png_check[] =
	"import struct, sys, zlib\n"
	"data = open(sys.argv[1], 'rb').read()\n"
	"assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'\n"
	"pos, idat = 8, b''\n"
	"while pos < len(data):\n"
	"    n, kind = struct.unpack('>I4s', data[pos:pos + 8])\n"
	"    body = data[pos + 8:pos + 8 + n]\n"
	"    if kind == b'IHDR':\n"
	"        w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', body)\n"
	"    elif kind == b'IDAT':\n"
	"        idat += body\n"
	"    pos += 12 + n\n"
	"assert depth == 8 and ctype in (2, 6) and not lace, 'PNG kind'\n"
	"bpp = 4 if ctype == 6 else 3\n"
	"raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], None\n"
	"for y in range(h):\n"
	"    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])\n"
	"    up = prev or bytearray(stride)\n"
	"    for i in range(stride):\n"
	"        a = line[i - bpp] if i >= bpp else 0\n"
	"        b, c = up[i], up[i - bpp] if i >= bpp else 0\n"
	"        if f == 1: line[i] = (line[i] + a) & 255\n"
	"        elif f == 2: line[i] = (line[i] + b) & 255\n"
	"        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255\n"
	"        elif f == 4:\n"
	"            p = a + b - c\n"
	"            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)\n"
	"            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255\n"
	"    rows.append(line)\n"
	"    prev = line\n"
	"def rgb(x, y):\n"
	"    return tuple(rows[y][x * bpp:x * bpp + 3])\n"
	"def near(p, want):\n"
	"    return all(abs(a - b) <= 12 for a, b in zip(p, want))\n"
	"bad = 0\n"
	"for spec in sys.argv[2:]:\n"
	"    *box, colour = spec.split(',')\n"
	"    want = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))\n"
	"    box = [int(v) for v in box]\n"
	"    if len(box) == 2:\n"
	"        box += [1, 1]\n"
	"    x0, y0, bw, bh = box\n"
	"    seen = [rgb(x, y) for x in range(x0, x0 + bw) for y in range(y0, y0 + bh)]\n"
	"    if not any(near(p, want) for p in seen):\n"
	"        print('pixel', spec, 'is', '#%02x%02x%02x' % seen[0])\n"
	"        bad += 1\n"
	"sys.exit(1 if bad else 0)\n";

static bool have_tool(const char *name)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* Pageblocks 0-9 of node 0 and 16-19 of node 1; 10-15 a hole. */
static int render_blocks(struct kmem_map *map)
{
	struct kmem_map_block mixed = {
		.pfn = 5 << 9,
		.allocs = { [KMEM_MAP_UNMOVABLE] = 1, [KMEM_MAP_MOVABLE] = 1 },
		.node = 0,
	};
	struct kmem_map_block fell_back = {
		.pfn = 4 << 9,
		.allocs = { [KMEM_MAP_MOVABLE] = 7 },
		.fallbacks = 3,
		.node = 0,
	};
	int t, err = 0;

	for (t = 0; t < KMEM_MAP_NR_TYPES; t++)
		err |= map_block(map, t << 9, t, 1, 0, "x");
	err |= kmem_map__add_block(map, &fell_back);
	err |= kmem_map__add_block(map, &mixed);
	/* 6-9 untouched; 16-19 of node 1. */
	err |= map_block(map, 19 << 9, KMEM_MAP_MOVABLE, 1, 1, "x");
	err |= kmem_map__add_node_range(map, 0, 0, 10 << 9);
	err |= kmem_map__add_node_range(map, 1, 16 << 9, 20 << 9);
	err |= kmem_map__set_xnode_bytes(map, 0, 1, 1 << 20);
	err |= kmem_map__set_xnode_bytes(map, 1, 0, 1 << 19);
	return err;
}

struct pixel_check {
	char	spec[64];
};

/* The centre of the cell of pageblock @block (a band's, for @band of @n). */
static void cell_pixel(struct kmem_map *map, struct pixel_check *pc,
		       int block, int band, int n, const char *colour)
{
	struct kmem_map_box b;

	if (kmem_map__locate(map, (u64)block << 9, &b, NULL))
		memset(&b, 0, sizeof(b));
	snprintf(pc->spec, sizeof(pc->spec), "%d,%d,%s",
		 b.x + (2 * band + 1) * b.width / (2 * n), b.y + b.height / 2,
		 colour);
}

static void cell_area(struct kmem_map *map, struct pixel_check *pc, int block,
		      const char *colour)
{
	struct kmem_map_box b;

	if (kmem_map__locate(map, (u64)block << 9, &b, NULL))
		memset(&b, 0, sizeof(b));
	snprintf(pc->spec, sizeof(pc->spec), "%d,%d,%d,%d,%s", b.x, b.y,
		 b.width, b.height, colour);
}

static int check_map_render(struct kmem_map *map)
{
	char dir[] = "/tmp/kmem-map-render.XXXXXX", svg[64], png[64], py[64];
	char cmd[1024];
	struct pixel_check pc[16];
	struct kmem_map_box b;
	int n = 0, i, ret = TEST_FAIL;
	FILE *fp;
	size_t len;

	TEST_ASSERT_VAL("blocks", !render_blocks(map));
	if (!have_tool("xmllint") || !have_tool("rsvg-convert") ||
	    !have_tool("python3"))
		return TEST_SKIP;
	TEST_ASSERT_VAL("temporary directory", mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/map.svg", dir);
	snprintf(png, sizeof(png), "%s/map.png", dir);
	snprintf(py, sizeof(py), "%s/png.py", dir);
	fp = fopen(svg, "w");
	if (!fp || kmem_map__write(map, fp) || fclose(fp))
		goto out;
	fp = fopen(py, "w");
	if (!fp || fputs(png_check, fp) < 0 || fclose(fp))
		goto out;

	cell_pixel(map, &pc[n++], 0, 0, 1, "#d55e00");	/* Unmovable */
	cell_pixel(map, &pc[n++], 1, 0, 1, "#e69f00");	/* Reclaimable */
	cell_pixel(map, &pc[n++], 2, 0, 1, "#009e73");	/* Movable */
	cell_pixel(map, &pc[n++], 3, 0, 1, "#cc79a7");	/* Special */
	cell_pixel(map, &pc[n++], 4, 0, 1, "#009e73");	/* inside the outline */
	cell_pixel(map, &pc[n++], 7, 0, 1, "#e4e4e4");	/* untouched */
	cell_pixel(map, &pc[n++], 19, 0, 1, "#009e73");	/* node 1 */
	/* The outline, the hatch over both bands, the hole's hatch. */
	kmem_map__locate(map, 4 << 9, &b, NULL);
	snprintf(pc[n++].spec, sizeof(pc[0].spec), "%d,%d,#000000", b.x + 1,
		 b.y + b.height / 2);
	cell_area(map, &pc[n++], 5, "#000000");
	cell_area(map, &pc[n++], 5, "#d55e00");
	cell_area(map, &pc[n++], 5, "#009e73");
	cell_area(map, &pc[n++], 12, "#aaaaaa");
	cell_area(map, &pc[n++], 12, "#ffffff");
	/* The node start: just left of pageblock 16's cell. */
	kmem_map__locate(map, 16 << 9, &b, NULL);
	snprintf(pc[n++].spec, sizeof(pc[0].spec), "%d,%d,#0072b2", b.x - 1,
		 b.y + b.height / 2);

	len = snprintf(cmd, sizeof(cmd),
		       "xmllint --noout %s && rsvg-convert -o %s %s && python3 %s %s",
		       svg, png, svg, py, png);
	for (i = 0; i < n; i++)
		len += snprintf(cmd + len, sizeof(cmd) - len, " %s", pc[i].spec);
	if (len >= sizeof(cmd))
		goto out;
	pr_debug("%s\n", cmd);
	if (!system(cmd))
		ret = TEST_OK;
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		pr_debug("could not remove %s\n", dir);
	TEST_ASSERT_VAL("valid XML, rendered, the colours expected", !ret);
	return TEST_OK;
}

static int test__kmem_output_map_render(struct test_suite *t __maybe_unused,
					int subtest __maybe_unused)
{
	return with_map(&map_config, check_map_render);
}

/* --- -x tables --------------------------------------------------------- */

/* A callsite by name where the test knows one, else by its address. */
static const char *csv_callsite(void *arg __maybe_unused, u64 callsite,
				char *buf, size_t size)
{
	if (callsite == 0xffffffff81000000ULL)
		return "kmalloc_reserve+0x1a";
	snprintf(buf, size, "%#" PRIx64, callsite);
	return buf;
}

/*
 * Two slab tables by their columns, as perf lock -x writes its own: the
 * numbers the JSON has, bytes not divided into means, no thousands
 * separators, '0' for zero, frag as a bare percentage; a callsite with
 * its offset and an address unresolved; and the separators refused.
 */
static int test__kmem_output_csv(struct test_suite *t __maybe_unused,
				 int subtest __maybe_unused)
{
	static const char want_callers[] =
		"# table: slab.callers\n"
		"# output: callsite, hits, bytes_alloc, bytes_req, freed, pingpong, frag\n"
		"kmalloc_reserve+0x1a, 3, 3072, 2000, 2, 1, 34.896\n"
		"0x1234, 1234567, 1234567000, 1234567000, 0, 0, 0.000\n";
	static const char want_allocs[] =
		"# table: slab.allocs\n"
		"# output: ptr;\t callsite;\t hits;\t bytes_alloc;\t bytes_req;\t"
		" freed;\t pingpong;\t frag\n"
		"0xffff888100000040;\t kmalloc_reserve+0x1a;\t 3;\t 3072;\t"
		" 2000;\t 2;\t 1;\t 34.896\n";
	struct kmem_slab_row rows[] = {
		{ .ptr = 0xffff888100000040ULL, .callsite = 0xffffffff81000000ULL,
		  .hits = 3, .bytes_req = 2000, .bytes_alloc = 3072, .freed = 2,
		  .pingpong = 1 },
		{ .callsite = 0x1234, .hits = 1234567, .bytes_req = 1234567000,
		  .bytes_alloc = 1234567000 },
	};
	const void *row_ptrs[] = { &rows[0], &rows[1] };
	struct kmem_cell_ctx ctx = { .callsite_name = csv_callsite };
	const struct kmem_table *callers = &kmem_tables[KMEM_SLAB_CALLERS];
	const struct kmem_table *allocs = &kmem_tables[KMEM_SLAB_ALLOCS];
	struct capture c;
	bool ok;

	TEST_ASSERT_VAL("capture", capture_open(&c));
	kmem_print__csv_table(c.fp, &ctx, ",", callers->path, callers->cols,
			      callers->nr_cols, callers->bit, row_ptrs, 2);
	ok = text_is(capture_text(&c), want_callers);
	capture_close(&c);
	TEST_ASSERT_VAL("callers as CSV", ok);

	TEST_ASSERT_VAL("capture", capture_open(&c));
	kmem_print__csv_table(c.fp, &ctx, ";\t", allocs->path, allocs->cols,
			      allocs->nr_cols, allocs->bit, row_ptrs, 1);
	ok = text_is(capture_text(&c), want_allocs);
	capture_close(&c);
	TEST_ASSERT_VAL("allocs, a separator of two characters", ok);
	/* The text's cells are as before: raw is for -x only. */
	TEST_ASSERT_VAL("ctx left as it was", !ctx.raw);

	TEST_ASSERT_VAL("','", kmem_csv__sep_ok(","));
	TEST_ASSERT_VAL("';'", kmem_csv__sep_ok(";"));
	TEST_ASSERT_VAL("tab", kmem_csv__sep_ok("\t"));
	TEST_ASSERT_VAL("'|' of GFP flags", !kmem_csv__sep_ok("|"));
	TEST_ASSERT_VAL("'+' of offsets", !kmem_csv__sep_ok("+"));
	TEST_ASSERT_VAL("'.' of names", !kmem_csv__sep_ok("."));
	TEST_ASSERT_VAL("':'", !kmem_csv__sep_ok(":"));
	TEST_ASSERT_VAL("one in two", !kmem_csv__sep_ok(",:"));
	TEST_ASSERT_VAL("empty", !kmem_csv__sep_ok(""));
	TEST_ASSERT_VAL("none", !kmem_csv__sep_ok(NULL));
	return TEST_OK;
}

static struct test_case kmem_output_tests[] = {
	TEST_CASE("kmem output: JSON layout", kmem_output_json_layout),
	TEST_CASE("kmem output: JSON escapes", kmem_output_json_escape),
	TEST_CASE("kmem output: JSON misuse", kmem_output_json_misuse),
	TEST_CASE("kmem output: JSON write error", kmem_output_json_io_error),
	TEST_CASE("kmem output: JSON hostile strings read by python3",
		  kmem_output_json_python),
	TEST_CASE("kmem output: folded stacks", kmem_output_folded),
	TEST_CASE("kmem output: folded stack ids", kmem_output_stack_ids),
	TEST_CASE("kmem output: folded random chains against a model",
		  kmem_output_random_stacks),
	TEST_CASE("kmem output: SVG map cells", kmem_output_map_cells),
	TEST_CASE("kmem output: SVG map aggregates pageblocks",
		  kmem_output_map_aggregate),
	TEST_CASE("kmem output: SVG map nodes, holes, node panel",
		  kmem_output_map_nodes),
	TEST_CASE("kmem output: SVG map of one node across a hole",
		  kmem_output_map_one_node),
	TEST_CASE("kmem output: SVG map errors", kmem_output_map_errors),
	TEST_CASE("kmem output: SVG map of 1 TiB under 5 MB",
		  kmem_output_map_size),
	TEST_CASE("kmem output: SVG map is XML and renders as drawn",
		  kmem_output_map_render),
	TEST_CASE("kmem output: -x tables as perf lock writes them",
		  kmem_output_csv),
	{ .name = NULL, }
};

struct test_suite suite__kmem_output = {
	.desc = "perf kmem output engines",
	.test_cases = kmem_output_tests,
};
