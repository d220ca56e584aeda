// SPDX-License-Identifier: GPL-2.0
/*
 * The pageblock_order argument of the extfrag print format, evaluated as
 * it is parsed (see read-pageblock.h).  A value carries its C type, so
 * that casts, comparisons and shifts come out as in C; its 64 bits are
 * extended from its width as its signedness says, and all arithmetic is
 * done on them unsigned, where wrapping is defined.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include "count.h"
#include "read-pageblock.h"

/* Deeper than any kernel macro nests: the rest is not a print format. */
#define MAX_DEPTH	64
#define PAGEBLOCK_NAME	"pageblock_order"
/* Longer than any number or type name a print format casts to. */
#define MAX_WORD	64

struct cval {
	u64	bits;
	int	width;		/* 1 (_Bool), 8, 16, 32 or 64 */
	bool	is_unsigned;
};

struct parser {
	const char	*p, *end;	/* what follows the current token */
	size_t		len;		/* the token's length, 0 at the end */
	char		word[MAX_WORD];	/* the token, cut to fit */
	int		op;		/* its enum op_kind, or -1 */
	int		long_bits;
	int		depth;
	/*
	 * In an operand C does not evaluate (the other branch of a ?:, the
	 * right of a decided && or ||) a division by zero does not count.
	 */
	int		dead;
	char		*why;
	size_t		why_size;
};

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->why, ps->why_size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static struct cval typed(u64 bits, int width, bool is_unsigned)
{
	u64 mask = width >= 64 ? ~0ULL : (1ULL << width) - 1;

	if (width == 1)			/* _Bool: any non-zero value is 1 */
		bits = bits != 0;
	else if (!is_unsigned && width < 64 && (bits >> (width - 1) & 1))
		bits |= ~mask;
	else
		bits &= mask;
	return (struct cval){ bits, width, is_unsigned };
}

static struct cval int_of(bool truth)
{
	return typed(truth, 32, false);
}

/* Integer promotion: what is narrower than int becomes int. */
static struct cval promote(struct cval v)
{
	return v.width < 32 ? typed(v.bits, 32, false) : v;
}

/*
 * The usual arithmetic conversions, of promoted operands (a signed 64-bit
 * type holds every unsigned 32-bit value).
 */
static void common_type(struct cval *a, struct cval *b)
{
	int width = max(a->width, b->width);
	bool uns = a->width == b->width ? a->is_unsigned || b->is_unsigned :
		   a->width > b->width ? a->is_unsigned : b->is_unsigned;

	*a = typed(a->bits, width, uns);
	*b = typed(b->bits, width, uns);
}

#define NAME_CHARS \
	"_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

static bool name_char(char c)
{
	return c && strchr(NAME_CHARS, c);
}

/*
 * An integer literal gets the first type it fits of int, (unsigned int,)
 * long, ...: the unsigned ones for octal and hex literals, or with a u.
 */
static int eval_number(struct parser *ps, const char *atom, struct cval *v)
{
	int widths[] = { 32, ps->long_bits, 64 }, longs = 0, i, uns;
	bool suffix_u = false, decimal = atom[0] != '0' || !atom[1], fits;
	char *end;
	u64 n;

	errno = 0;
	n = strtoull(atom, &end, 0);
	for (; *end && !errno; end++) {
		if ((*end == 'u' || *end == 'U') && !suffix_u)
			suffix_u = true;
		else if ((*end == 'l' || *end == 'L') && longs < 2)
			longs++;
		else
			errno = EINVAL;
	}
	if (errno)
		return fail(ps, "'%s' is not an integer constant", atom);
	for (i = longs; i < (int)ARRAY_SIZE(widths); i++) {
		for (uns = suffix_u; uns <= (suffix_u || !decimal); uns++) {
			fits = widths[i] < 64 ? n < 1ULL << (widths[i] - !uns) :
			       uns || n <= (u64)LLONG_MAX;
			if (fits) {
				*v = typed(n, widths[i], uns);
				return 0;
			}
		}
	}
	return fail(ps, "'%s' is too large", atom);
}

/* What a word of a type in a cast is; struct, union, enum: no integer. */
enum type_word { CHAR, SHORT, INT, LONG, UNSIGNED, SIGNED, QUALIFIER, OTHER,
		 TYPEDEF };

static const struct type_name {
	const char	*name;
	enum type_word	kind;
	int		width;		/* of a typedef */
	bool		is_unsigned;
} type_names[] = {
#define WORD(name, kind)	{ name, kind, 0, false }
#define U(name, width)		{ name, TYPEDEF, width, true }
#define S(name, width)		{ name, TYPEDEF, width, false }
	WORD("char", CHAR), WORD("short", SHORT), WORD("int", INT),
	WORD("long", LONG), WORD("unsigned", UNSIGNED), WORD("signed", SIGNED),
	WORD("const", QUALIFIER), WORD("volatile", QUALIFIER),
	WORD("struct", OTHER), WORD("union", OTHER), WORD("enum", OTHER),
	/* The kernel's typedefs a print format may cast to; width 0: long. */
	U("u8", 8), U("u16", 16), U("u32", 32), U("u64", 64),
	S("s8", 8), S("s16", 16), S("s32", 32), S("s64", 64),
	U("__u8", 8), U("__u16", 16), U("__u32", 32), U("__u64", 64),
	S("__s8", 8), S("__s16", 16), S("__s32", 32), S("__s64", 64),
	U("uint8_t", 8), U("uint16_t", 16), U("uint32_t", 32), U("uint64_t", 64),
	S("int8_t", 8), S("int16_t", 16), S("int32_t", 32), S("int64_t", 64),
	U("size_t", 0), S("ssize_t", 0), U("gfp_t", 32), U("bool", 1),
	U("_Bool", 1),
#undef WORD
#undef U
#undef S
};

static const struct type_name *type_name(const char *word, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(type_names); i++)
		if (strlen(type_names[i].name) == len &&
		    !strncmp(word, type_names[i].name, len))
			return &type_names[i];
	return NULL;
}

/* Do the counts of the words name one integer type? */
static bool one_type(const int *n)
{
	int basic = n[CHAR] + n[SHORT] + n[INT] + n[LONG] + n[UNSIGNED] +
		    n[SIGNED];

	if (n[TYPEDEF] || n[OTHER])
		return n[TYPEDEF] == 1 && !n[OTHER] && !basic;
	return basic && n[UNSIGNED] + n[SIGNED] <= 1 &&
	       n[CHAR] + n[SHORT] <= 1 && !((n[CHAR] + n[SHORT]) && n[LONG]) &&
	       n[LONG] <= 2 && n[INT] <= 1 && !(n[CHAR] && n[INT]);
}

enum op_kind {
	OP_MUL, OP_DIV, OP_MOD, OP_ADD, OP_SUB, OP_SHL, OP_SHR, OP_LE, OP_GE,
	OP_LT, OP_GT, OP_EQ, OP_NE, OP_AND, OP_XOR, OP_OR, OP_LAND, OP_LOR,
};

/* In the order of enum op_kind, with C's precedence: higher binds tighter. */
static const struct {
	const char	*name;
	int		prec;
} binary_ops[] = {
	{ "*", 10 }, { "/", 10 }, { "%", 10 }, { "+", 9 }, { "-", 9 },
	{ "<<", 8 }, { ">>", 8 }, { "<=", 7 }, { ">=", 7 }, { "<", 7 },
	{ ">", 7 }, { "==", 6 }, { "!=", 6 }, { "&", 5 }, { "^", 4 },
	{ "|", 3 }, { "&&", 2 }, { "||", 1 },
};

static struct cval eval_unary(char op, struct cval a)
{
	a = op == '!' ? int_of(!a.bits) : promote(a);
	if (op == '-' || op == '~')
		a = typed(op == '-' ? 0 - a.bits : ~a.bits, a.width, a.is_unsigned);
	return a;
}

static int eval_shift(struct parser *ps, enum op_kind op, struct cval a,
		      struct cval b, struct cval *v)
{
	s64 n = b.is_unsigned && (s64)b.bits < 0 ? -1 : (s64)b.bits;

	if (n < 0 || n >= a.width)
		return fail(ps, "a shift of a %d-bit value by %lld", a.width,
			    (long long)b.bits);
	*v = typed(op == OP_SHL ? a.bits << n :
		   a.is_unsigned ? a.bits >> n : (u64)((s64)a.bits >> n),
		   a.width, a.is_unsigned);
	return 0;
}

static int eval_divide(struct parser *ps, enum op_kind op, struct cval a,
		       struct cval b, struct cval *v)
{
	s64 x = a.bits, y = b.bits;
	u64 q;

	if (!b.bits)
		return fail(ps, "a division by zero");
	if (!a.is_unsigned && x == LLONG_MIN && y == -1)
		return fail(ps, "a division that overflows");
	q = a.is_unsigned ? (op == OP_DIV ? a.bits / b.bits : a.bits % b.bits) :
	    (op == OP_DIV ? (u64)(x / y) : (u64)(x % y));
	*v = typed(q, a.width, a.is_unsigned);
	return 0;
}

/* a @op b of operands of their common type, but for / % << >>. */
static struct cval arithmetic(enum op_kind op, struct cval a, struct cval b)
{
	int cmp = a.is_unsigned ? (a.bits > b.bits) - (a.bits < b.bits) :
		  ((s64)a.bits > (s64)b.bits) - ((s64)a.bits < (s64)b.bits);
	const u64 r[] = {
		[OP_MUL] = a.bits * b.bits, [OP_ADD] = a.bits + b.bits,
		[OP_SUB] = a.bits - b.bits, [OP_LE] = cmp <= 0, [OP_GE] = cmp >= 0,
		[OP_LT] = cmp < 0, [OP_GT] = cmp > 0, [OP_EQ] = cmp == 0,
		[OP_NE] = cmp != 0, [OP_AND] = a.bits & b.bits,
		[OP_XOR] = a.bits ^ b.bits, [OP_OR] = a.bits | b.bits,
		[OP_LAND] = a.bits && b.bits, [OP_LOR] = a.bits || b.bits,
	};

	/* Comparisons and logical operators give an int. */
	if ((op >= OP_LE && op <= OP_NE) || op >= OP_LAND)
		return int_of(r[op]);
	return typed(r[op], a.width, a.is_unsigned);
}

/* a @op b; for && and ||, b was evaluated only if it had to be. */
static int eval_binary(struct parser *ps, enum op_kind op, struct cval a,
		       struct cval b, struct cval *v)
{
	a = promote(a);
	b = promote(b);
	if (op == OP_SHL || op == OP_SHR)
		return eval_shift(ps, op, a, b, v);
	common_type(&a, &b);
	if (op == OP_DIV || op == OP_MOD)
		return eval_divide(ps, op, a, b, v);
	*v = arithmetic(op, a, b);
	return 0;
}

/* Is the current token @s?  A token too long for word[] is none. */
static bool token_is(const struct parser *ps, const char *s)
{
	return ps->len && ps->len < sizeof(ps->word) && !strcmp(ps->word, s);
}

/* A word, a two-character operator or any other character. */
static void next_token(struct parser *ps)
{
	static const char pairs[] = "<<>><=>===!=&&||->";
	const char *p = ps->p;
	size_t i;

	while (p < ps->end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	ps->len = p < ps->end;
	if (ps->len && name_char(*p)) {
		while (p + ps->len < ps->end && name_char(p[ps->len]))
			ps->len++;
	}
	for (i = 0; ps->len == 1 && ps->end - p >= 2 && i < sizeof(pairs) - 1;
	     i += 2)
		if (p[0] == pairs[i] && p[1] == pairs[i + 1])
			ps->len = 2;
	ps->p = p + ps->len;
	snprintf(ps->word, sizeof(ps->word), "%.*s",
		 (int)min(ps->len, sizeof(ps->word) - 1), p);
	if (!ps->len)
		snprintf(ps->word, sizeof(ps->word), "the end");
	for (ps->op = ARRAY_SIZE(binary_ops) - 1; ps->op >= 0; ps->op--)
		if (token_is(ps, binary_ops[ps->op].name))
			break;
}

static bool is_name(const struct parser *ps)
{
	return ps->len && name_char(ps->word[0]) &&
	       !strchr("0123456789", ps->word[0]);
}

static int expect(struct parser *ps, const char *s)
{
	if (!token_is(ps, s))
		return fail(ps, "'%s' where '%s' was expected", ps->word, s);
	next_token(ps);
	return 0;
}

/* Is the token after the current one a word that starts a type? */
static bool type_follows(const struct parser *ps)
{
	struct parser next = *ps;

	next_token(&next);
	return is_name(&next) && type_name(next.word, next.len);
}

static int deeper(struct parser *ps)
{
	return ++ps->depth > MAX_DEPTH ?
	       fail(ps, "an expression nested more than %d deep", MAX_DEPTH) : 0;
}

static int parse_conditional(struct parser *ps, struct cval *v);
static int parse_unary(struct parser *ps, struct cval *v);

/*
 * (type) of a cast or sizeof, the words of its name read as they come:
 * its width and signedness in *@v.
 */
static int parse_type_name(struct parser *ps, struct cval *v)
{
	const struct type_name *word, *named = NULL;
	int n[TYPEDEF + 1] = { 0 };
	const char *start;
	size_t len;

	next_token(ps);
	for (start = ps->p - ps->len; ps->len && !token_is(ps, ")");
	     next_token(ps)) {
		word = is_name(ps) ? type_name(ps->word, ps->len) : NULL;
		n[word ? word->kind : OTHER]++;
		if (word && word->kind == TYPEDEF)
			named = word;
	}
	len = ps->p - ps->len - start;
	if (expect(ps, ")"))
		return -EINVAL;
	if (!one_type(n))
		return fail(ps, "a cast to '%.*s'", (int)len, start);
	if (named) {
		*v = typed(0, named->width ?: ps->long_bits, named->is_unsigned);
		return 0;
	}
	v->width = n[CHAR] ? 8 : n[SHORT] ? 16 : n[LONG] == 1 ? ps->long_bits :
		   n[LONG] ? 64 : 32;
	/* Plain char is unsigned: the kernel builds with -funsigned-char. */
	v->is_unsigned = n[UNSIGNED] || (n[CHAR] && !n[SIGNED]);
	return 0;
}

/* A name: sizeof(type), or not a constant. */
static int parse_name(struct parser *ps, struct cval *v)
{
	char name[MAX_WORD];
	struct cval t;

	memcpy(name, ps->word, sizeof(name));
	next_token(ps);
	/* REC->field: perf prints a field of each event there. */
	if (!strcmp(name, "REC") && token_is(ps, "->")) {
		next_token(ps);
		return fail(ps, "it reads the field '%s' of each event", ps->word);
	}
	if (strcmp(name, "sizeof"))
		return fail(ps, "'%s' is not a constant", name);
	if (!token_is(ps, "(") || !type_follows(ps))
		return fail(ps, "sizeof of something else than a type");
	if (parse_type_name(ps, &t))
		return -EINVAL;
	*v = typed(t.width == 1 ? 1 : t.width / 8, ps->long_bits, true);
	return 0;
}

static int parse_primary(struct parser *ps, struct cval *v)
{
	int err;

	if (is_name(ps))
		return parse_name(ps, v);
	if (ps->len && name_char(ps->word[0])) {
		err = ps->len < sizeof(ps->word) ? eval_number(ps, ps->word, v) :
		      fail(ps, "a number too long");
		next_token(ps);
		return err;
	}
	if (!token_is(ps, "("))
		return fail(ps, "unexpected '%s'", ps->word);
	next_token(ps);
	return parse_conditional(ps, v) ?: expect(ps, ")");
}

/* A unary operator, a cast or a primary expression. */
static int parse_unary(struct parser *ps, struct cval *v)
{
	struct cval a, type;
	char op = ps->word[0];
	int err = deeper(ps);

	if (err)
		return err;
	if (ps->len == 1 && memchr("-+!~", op, 4)) {
		next_token(ps);
		err = parse_unary(ps, &a);
		if (!err)
			*v = eval_unary(op, a);
	} else if (token_is(ps, "(") && type_follows(ps)) {
		err = parse_type_name(ps, &type) ?: parse_unary(ps, &a);
		if (!err)
			*v = typed(a.bits, type.width, type.is_unsigned);
	} else {
		err = parse_primary(ps, v);
	}
	ps->depth--;
	return err;
}

/*
 * Operands joined by operators of precedence @min_prec or higher, left to
 * right; the right of && and || is dead once the left decides.
 */
static int parse_binary(struct parser *ps, int min_prec, struct cval *v)
{
	struct cval b;
	int op, decided, err;

	err = parse_unary(ps, v);
	while (!err && (op = ps->op) >= 0 && binary_ops[op].prec >= min_prec) {
		next_token(ps);
		decided = (op == OP_LAND && !v->bits) || (op == OP_LOR && v->bits);
		ps->dead += decided;
		err = parse_binary(ps, binary_ops[op].prec + 1, &b);
		ps->dead -= decided;
		if (err)
			break;
		err = eval_binary(ps, op, *v, b, v);
		if (err && ps->dead) {
			*v = int_of(false);
			err = 0;
		}
	}
	return err;
}

/* c ? x : y, of which only one branch is evaluated; both give the type. */
static int parse_conditional(struct parser *ps, struct cval *v)
{
	struct cval x, y, other;
	bool taken;
	int err;

	err = parse_binary(ps, 1, v);
	if (err || !token_is(ps, "?"))
		return err;
	if (deeper(ps))
		return -EINVAL;
	next_token(ps);
	taken = v->bits;
	ps->dead += !taken;
	err = parse_conditional(ps, &x);
	ps->dead += taken - !taken;	/* y is dead where x is not */
	err = err ?: expect(ps, ":") ?: parse_conditional(ps, &y);
	ps->dead -= taken;
	ps->depth--;
	if (err)
		return err;
	*v = promote(taken ? x : y);
	other = promote(taken ? y : x);
	common_type(v, &other);
	return 0;
}

int kmem_pageblock__eval(const char *expr, size_t len, int long_size,
			 long long *value, char *why, size_t why_size)
{
	struct parser ps = {
		.p = expr,
		.end = expr + len,
		.long_bits = long_size == 4 ? 32 : 64,
		.why = why,
		.why_size = why_size,
	};
	struct cval v;
	int err;

	next_token(&ps);
	err = parse_conditional(&ps, &v) ?:
	      (ps.len ? fail(&ps, "unexpected '%s'", ps.word) : 0);
	if (!err)
		*value = (s64)v.bits;
	return err;
}

/*
 * Which argument the format string (without its quotes) prints after
 * "@name=", or -ENOENT.  Each conversion before "@name=%" takes an
 * argument, and each '*' of its width and precision one more.  What
 * follows its first letter is read as text: it holds no '%', and "@name="
 * follows no letter.
 */
static int arg_index(const char *format, const char *name)
{
	size_t len = strlen(name);
	const char *p;
	int index = 0;

	for (p = format; *p; p++) {
		if (*p == '%' && p[1] == '%') {
			p++;
		} else if (*p == '%') {
			for (; p[1] && strchr("-+ #0'*.123456789", p[1]); p++)
				index += p[1] == '*';
			p += !!p[1];
			index++;
		} else if ((p == format || !name_char(p[-1])) &&
			   !strncmp(p, name, len) && p[len] == '=' &&
			   p[len + 1] == '%' && p[len + 2] != '%') {
			return index;
		}
	}
	return -ENOENT;
}

/* Past a quoted string or character literal starting at @p; NULL: open. */
static const char *skip_quoted(const char *p, const char *end)
{
	char quote = *p++;

	for (; p < end && *p != quote; p++)
		p += *p == '\\';
	return p < end ? p + 1 : NULL;
}

/*
 * The text of argument @n of the print format from @p, past its format
 * string, to @end: commas outside any brackets separate arguments.
 */
static int arg_text(const char *p, const char *end, int n,
		    const char **start, size_t *len)
{
	int depth = 0, i = -1;

	for (; p < end; p++) {
		if (*p == '"' || *p == '\'') {
			p = skip_quoted(p, end);
			if (!p)
				return -ENOENT;
			p--;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if (*p == ')' || *p == ']' || *p == '}') {
			depth--;
		} else if (*p == ',' && !depth) {
			if (i == n)
				break;
			*start = p + 1;
			i++;
		}
	}
	if (i != n || depth)
		return -ENOENT;
	*len = p - *start;
	return 0;
}

/*
 * The text of the argument printed as pageblock_order= in @text: -ENOENT
 * when the print format prints none, -EINVAL when it has no argument for it.
 */
static int pageblock_arg_text(const char *text, size_t len, const char **arg,
			      size_t *arg_len)
{
	static const char tag[] = "\nprint fmt: \"";
	const char *open, *close, *end;
	char *format;
	int index;

	open = memmem(text, len, tag, strlen(tag));
	if (!open)
		return -ENOENT;
	open += strlen(tag) - 1;
	end = memchr(open, '\n', text + len - open) ?: text + len;
	close = skip_quoted(open, end);
	if (!close)
		return -ENOENT;
	format = strndup(open + 1, close - open - 2);
	if (!format)
		return -ENOMEM;
	index = arg_index(format, PAGEBLOCK_NAME);
	free(format);
	if (index < 0)
		return index;
	return arg_text(close, end, index, arg, arg_len) ? -EINVAL : 0;
}

int kmem_pageblock__order_of_format(const char *text, size_t len,
				    int long_size, char *why, size_t why_size)
{
	char reason[160];
	long long order;
	const char *arg = NULL;
	size_t arg_len;
	int err;

	err = pageblock_arg_text(text, len, &arg, &arg_len);
	if (err == -ENOENT || err == -EINVAL)
		snprintf(why, why_size, err == -ENOENT ?
			 "the print format has no %s=%%d" :
			 "the print format has no argument for %s", PAGEBLOCK_NAME);
	if (err)
		return err;
	if (kmem_pageblock__eval(arg, arg_len, long_size, &order, reason,
				 sizeof(reason))) {
		snprintf(why, why_size, "cannot evaluate %s: %s", PAGEBLOCK_NAME,
			 reason);
		return -EINVAL;
	}
	if (order < 0 || order > KMEM_PAGE_MAX_ORDER) {
		snprintf(why, why_size, "%s %lld is not an order",
			 PAGEBLOCK_NAME, order);
		return -ERANGE;
	}
	return (int)order;
}
