// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of perf kmem's output engines: the JSON writer
 * (util/kmem-json.c), the folded stacks (util/kmem-stacks.c) and the SVG
 * map of physical memory (util/kmem-map.c).
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
#include "util/kmem-json.h"
#include "util/kmem-stacks.h"

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
	TEST_ASSERT_VAL("a full disk is -EIO", ret == -EIO);
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
	TEST_ASSERT_VAL("add c", !kmem_stacks__add(st, c, 4096, 1));
	TEST_ASSERT_VAL("sub c", !kmem_stacks__sub(st, c, 4096, 1));
	TEST_ASSERT_VAL("add d", !kmem_stacks__add(st, d, 16384, 1));
	TEST_ASSERT_VAL("add e", !kmem_stacks__add(st, e, 4096, 1));
	/* f comes to zero: no line, and its frame is never named. */
	TEST_ASSERT_VAL("add f", !kmem_stacks__add(st, f, 4096, 1));
	TEST_ASSERT_VAL("sub f", !kmem_stacks__sub(st, f, 4096, 1));

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

	/* Blanks and ';' in a name become '_'. */
	TEST_ASSERT_VAL("add f again", !kmem_stacks__add(st, f, 1, 1));
	TEST_ASSERT_VAL("sub a", !kmem_stacks__sub(st, a, 12288, 3));
	TEST_ASSERT_VAL("sub b", !kmem_stacks__sub(st, b, 8192, 1));
	TEST_ASSERT_VAL("sub c", !kmem_stacks__sub(st, c, 4096, 1));
	TEST_ASSERT_VAL("sub d", !kmem_stacks__sub(st, d, 16384, 1));
	TEST_ASSERT_VAL("sub e", !kmem_stacks__sub(st, e, 4096, 1));
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
	return with_stacks(check_folded);
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
	TEST_ASSERT_VAL("nr", kmem_stacks__nr(st) == 4);
	ret = kmem_stacks__intern(st, deep, ARRAY_SIZE(deep));
	TEST_ASSERT_VAL("too deep", ret == -EINVAL);
	ret = kmem_stacks__intern(st, deep, ARRAY_SIZE(deep) - 1);
	TEST_ASSERT_VAL("deepest", ret == 4);

	TEST_ASSERT_VAL("add", !kmem_stacks__add(st, 1, 100, 2));
	TEST_ASSERT_VAL("sub too many bytes",
			kmem_stacks__sub(st, 1, 101, 1) == -ERANGE);
	TEST_ASSERT_VAL("sub too many hits",
			kmem_stacks__sub(st, 1, 1, 3) == -ERANGE);
	TEST_ASSERT_VAL("left as it was",
			kmem_stacks__value(st, 1, KMEM_STACKS_BYTES) == 100 &&
			kmem_stacks__value(st, 1, KMEM_STACKS_HITS) == 2);
	TEST_ASSERT_VAL("add to no id", kmem_stacks__add(st, 5, 1, 1) == -EINVAL);
	TEST_ASSERT_VAL("add to -1", kmem_stacks__add(st, -1, 1, 1) == -EINVAL);
	TEST_ASSERT_VAL("sub from no id",
			kmem_stacks__sub(st, 5, 0, 0) == -EINVAL);
	TEST_ASSERT_VAL("sub to zero", !kmem_stacks__sub(st, 1, 100, 2));
	/* Nothing left: nothing written, nothing named. */
	return write_folded(st, KMEM_STACKS_BYTES, &fn, "", 0);
}

static int test__kmem_output_stack_ids(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	return with_stacks(check_stack_ids);
}

/*
 * Random chains over a small pool of addresses whose names repeat, with
 * random adds and subtracts: the folded lines must be exactly the model's,
 * which joins the names of each event's chain into a string and sums per
 * string.
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
	static u64 ips[RS_EVENTS][8];
	static int ids[RS_EVENTS], nr_ips[RS_EVENTS];
	unsigned int seed = 1414;
	int i, k, nr_model = 0;
	struct capture c;
	bool ok;

	for (i = 0; i < RS_EVENTS; i++) {
		u64 bytes = 4096ULL << (rand_r(&seed) % 4);

		nr_ips[i] = rand_r(&seed) % 8;
		for (k = 0; k < nr_ips[i]; k++)
			ips[i][k] = 0x1000 + rand_r(&seed) % 24;
		ids[i] = kmem_stacks__intern(st, ips[i], nr_ips[i]);
		TEST_ASSERT_VAL("intern", ids[i] >= 0);
		TEST_ASSERT_VAL("add", !kmem_stacks__add(st, ids[i], bytes, 1));
		/* Free an earlier allocation now and then, as --live does. */
		if (i && rand_r(&seed) % 3 == 0) {
			int j = rand_r(&seed) % i;

			if (nr_ips[j] < 0)
				continue;
			bytes = kmem_stacks__value(st, ids[j], KMEM_STACKS_HITS);
			TEST_ASSERT_VAL("freed chain has hits", bytes > 0);
			TEST_ASSERT_VAL("sub", !kmem_stacks__sub(st, ids[j], 0, 1));
			nr_ips[j] = -1;
		}
	}
	/* The model: hits of the allocations not freed, by their names. */
	for (i = 0; i < RS_EVENTS; i++)
		if (nr_ips[i] >= 0)
			model_add(model, &nr_model, ips[i], nr_ips[i], 1);
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
	{ .name = NULL, }
};

struct test_suite suite__kmem_output = {
	.desc = "perf kmem output engines",
	.test_cases = kmem_output_tests,
};
