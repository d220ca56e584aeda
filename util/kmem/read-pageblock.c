// SPDX-License-Identifier: GPL-2.0
/*
 * Evaluate the pageblock_order argument of the extfrag print format.
 *
 * Values carry their C type (width and signedness) so that casts,
 * comparisons and shifts come out as the kernel's compiler computed them:
 * (unsigned int)-1 < 10 is false.  A value is kept in 64 bits,
 * sign-extended from its width when signed, zero-extended when not; all
 * arithmetic is done on those unsigned 64 bits, where wrapping is defined.
 * The kernel builds with -funsigned-char (v6.2 on), and long has the
 * recording kernel's size.
 *
 * The text is parsed by recursive descent, one function per level of C's
 * operator precedence; libtraceevent's trees are walked.  Both end in the
 * same operators.
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
#include <traceevent/event-parse.h>

#include "count-page.h"
#include "read-pageblock.h"

/* Deeper than any kernel macro nests: the rest is not a print format. */
#define MAX_DEPTH	64
#define PAGEBLOCK_NAME	"pageblock_order"
#define PRINT_FMT_TAG	"print fmt: "
/* Longer than any number or type name a print format casts to. */
#define MAX_WORDS	64

struct cval {
	u64	bits;
	int	width;		/* 1 (_Bool), 8, 16, 32 or 64 */
	bool	is_unsigned;
};

struct eval_ctx {
	int	long_bits;
	char	*why;
	size_t	why_size;
};

static int fail(struct eval_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->why, ctx->why_size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void init_ctx(struct eval_ctx *ctx, int long_size, char *why,
		     size_t why_size)
{
	ctx->long_bits = long_size == 4 ? 32 : 64;
	ctx->why = why;
	ctx->why_size = why_size;
}

static struct cval typed(u64 bits, int width, bool is_unsigned)
{
	struct cval v = { .width = width, .is_unsigned = is_unsigned };
	u64 mask;

	if (width == 1) {		/* _Bool: any non-zero value is 1 */
		v.bits = bits != 0;
		return v;
	}
	if (width >= 64) {
		v.bits = bits;
		return v;
	}
	mask = (1ULL << width) - 1;
	bits &= mask;
	if (!is_unsigned && (bits >> (width - 1)))
		bits |= ~mask;
	v.bits = bits;
	return v;
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
 * The usual arithmetic conversions, of promoted operands: the wider type,
 * or the unsigned one of two as wide.  (A signed 64-bit type holds every
 * unsigned 32-bit value.)
 */
static void common_type(struct cval *a, struct cval *b)
{
	int width = max(a->width, b->width);
	bool uns;

	if (a->width != b->width)
		uns = a->width > b->width ? a->is_unsigned : b->is_unsigned;
	else
		uns = a->is_unsigned || b->is_unsigned;
	*a = typed(a->bits, width, uns);
	*b = typed(b->bits, width, uns);
}

/* As the %d of the format prints it. */
static long long to_long_long(struct cval v)
{
	if (v.is_unsigned && v.width < 64)
		return (long long)v.bits;
	return (long long)(s64)v.bits;
}

/* --- constants and types ------------------------------------------------ */

static bool name_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* The u and l letters of a literal's suffix; -1: not a suffix. */
static int literal_suffix(const char *s, bool *is_unsigned, int *longs)
{
	*is_unsigned = false;
	*longs = 0;
	for (; *s; s++) {
		if ((*s == 'u' || *s == 'U') && !*is_unsigned)
			*is_unsigned = true;
		else if ((*s == 'l' || *s == 'L') && *longs < 2)
			(*longs)++;
		else
			return -1;
	}
	return 0;
}

static bool fits(u64 n, int width, bool is_unsigned)
{
	if (width >= 64)
		return is_unsigned || n <= (u64)LLONG_MAX;
	return n < (1ULL << (width - (is_unsigned ? 0 : 1)));
}

/*
 * An integer literal gets the first type it fits of int, (unsigned int,)
 * long, (unsigned long,) long long ...: the unsigned ones only for octal
 * and hex literals, or with a u suffix.
 */
static int eval_number(struct eval_ctx *ctx, const char *atom, struct cval *v)
{
	int widths[] = { 32, ctx->long_bits, 64 };
	bool suffix_u, decimal;
	char *end;
	u64 n;
	int longs, i;

	if (atom[0] < '0' || atom[0] > '9')
		return fail(ctx, "'%s' is not a constant", atom);
	errno = 0;
	n = strtoull(atom, &end, 0);
	if (errno || literal_suffix(end, &suffix_u, &longs))
		return fail(ctx, "'%s' is not an integer constant", atom);
	decimal = atom[0] != '0' || !atom[1];
	for (i = longs; i < (int)ARRAY_SIZE(widths); i++) {
		if (!suffix_u && fits(n, widths[i], false)) {
			*v = typed(n, widths[i], false);
			return 0;
		}
		if ((suffix_u || !decimal) && fits(n, widths[i], true)) {
			*v = typed(n, widths[i], true);
			return 0;
		}
	}
	return fail(ctx, "'%s' is too large", atom);
}

struct type_name {
	const char	*name;
	int		width;		/* 0: long */
	bool		is_unsigned;
};

/* Kernel typedefs a print format may cast to. */
static const struct type_name typedefs[] = {
	{ "u8", 8, true }, { "u16", 16, true }, { "u32", 32, true },
	{ "u64", 64, true }, { "s8", 8, false }, { "s16", 16, false },
	{ "s32", 32, false }, { "s64", 64, false },
	{ "__u8", 8, true }, { "__u16", 16, true }, { "__u32", 32, true },
	{ "__u64", 64, true }, { "__s8", 8, false }, { "__s16", 16, false },
	{ "__s32", 32, false }, { "__s64", 64, false },
	{ "uint8_t", 8, true }, { "uint16_t", 16, true },
	{ "uint32_t", 32, true }, { "uint64_t", 64, true },
	{ "int8_t", 8, false }, { "int16_t", 16, false },
	{ "int32_t", 32, false }, { "int64_t", 64, false },
	{ "size_t", 0, true }, { "ssize_t", 0, false },
	{ "gfp_t", 32, true }, { "bool", 1, true }, { "_Bool", 1, true },
};

/* Words that start a type in a cast, besides the typedefs. */
static const char * const type_words[] = {
	"const", "volatile", "unsigned", "signed", "char", "short", "int",
	"long", "struct", "union", "enum",
};

static bool word_is(const char *word, size_t len, const char *s)
{
	return len == strlen(s) && !strncmp(word, s, len);
}

static const struct type_name *find_typedef(const char *word, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(typedefs); i++)
		if (word_is(word, len, typedefs[i].name))
			return &typedefs[i];
	return NULL;
}

static bool starts_type(const char *word, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(type_words); i++)
		if (word_is(word, len, type_words[i]))
			return true;
	return find_typedef(word, len);
}

/* How often each word of a type's name came. */
struct type_count {
	int	chars, shorts, ints, longs, unsigneds, signeds, named;
	const struct type_name *name;
};

static int count_type_word(struct type_count *w, const char *word, size_t len)
{
	const struct type_name *name = find_typedef(word, len);

	if (name) {
		w->name = name;
		w->named++;
		return 0;
	}
	if (word_is(word, len, "const") || word_is(word, len, "volatile"))
		return 0;
	if (word_is(word, len, "char"))
		w->chars++;
	else if (word_is(word, len, "short"))
		w->shorts++;
	else if (word_is(word, len, "int"))
		w->ints++;
	else if (word_is(word, len, "long"))
		w->longs++;
	else if (word_is(word, len, "unsigned"))
		w->unsigneds++;
	else if (word_is(word, len, "signed"))
		w->signeds++;
	else
		return -1;
	return 0;
}

/* Is this a combination of words that names one integer type? */
static bool one_type(const struct type_count *w)
{
	int basic = w->chars + w->shorts + w->ints + w->longs + w->unsigneds +
		    w->signeds;

	if (w->named)
		return w->named == 1 && !basic;
	return basic && w->unsigneds + w->signeds <= 1 &&
	       w->chars + w->shorts <= 1 && !((w->chars + w->shorts) && w->longs) &&
	       w->longs <= 2 && w->ints <= 1 && !(w->chars && w->ints);
}

/* The width and signedness of an integer type, named as in a cast. */
static int parse_type(struct eval_ctx *ctx, const char *type, int *width,
		      bool *is_unsigned)
{
	struct type_count w = { .chars = 0 };
	const char *p = type;

	while (*p) {
		size_t len = 0;

		while (name_char(p[len]))
			len++;
		if ((!len && *p != ' ' && *p != '\t') ||
		    (len && count_type_word(&w, p, len)))
			return fail(ctx, "a cast to '%s'", type);
		p += len ? len : 1;
	}
	if (!one_type(&w))
		return fail(ctx, "a cast to '%s'", type);
	if (w.named) {
		*width = w.name->width ? w.name->width : ctx->long_bits;
		*is_unsigned = w.name->is_unsigned;
		return 0;
	}
	if (w.chars)
		*width = 8;
	else if (w.shorts)
		*width = 16;
	else if (w.longs == 1)
		*width = ctx->long_bits;
	else
		*width = w.longs ? 64 : 32;
	/* Plain char is unsigned: the kernel builds with -funsigned-char. */
	*is_unsigned = w.unsigneds || (w.chars && !w.signeds);
	return 0;
}

static int cast(struct eval_ctx *ctx, const char *type, struct cval item,
		struct cval *v)
{
	bool is_unsigned = false;
	int width = 0;

	if (parse_type(ctx, type, &width, &is_unsigned))
		return -EINVAL;
	*v = typed(item.bits, width, is_unsigned);
	return 0;
}

/* --- operators ----------------------------------------------------------- */

static int eval_unary(struct eval_ctx *ctx, const char *op, struct cval a,
		      struct cval *v)
{
	if (!strcmp(op, "!")) {
		*v = int_of(!a.bits);
		return 0;
	}
	a = promote(a);
	if (!strcmp(op, "-"))
		*v = typed(0 - a.bits, a.width, a.is_unsigned);
	else if (!strcmp(op, "~"))
		*v = typed(~a.bits, a.width, a.is_unsigned);
	else if (!strcmp(op, "+"))
		*v = a;
	else
		return fail(ctx, "the unary operator '%s'", op);
	return 0;
}

static int eval_compare(const char *op, struct cval a, struct cval b,
			struct cval *v)
{
	int cmp;

	a = promote(a);
	b = promote(b);
	common_type(&a, &b);
	if (a.is_unsigned)
		cmp = a.bits < b.bits ? -1 : a.bits > b.bits;
	else
		cmp = (s64)a.bits < (s64)b.bits ? -1 : (s64)a.bits > (s64)b.bits;
	if (!strcmp(op, "<"))
		*v = int_of(cmp < 0);
	else if (!strcmp(op, ">"))
		*v = int_of(cmp > 0);
	else if (!strcmp(op, "<="))
		*v = int_of(cmp <= 0);
	else if (!strcmp(op, ">="))
		*v = int_of(cmp >= 0);
	else if (!strcmp(op, "=="))
		*v = int_of(!cmp);
	else
		*v = int_of(cmp);	/* != */
	return 0;
}

static int eval_shift(struct eval_ctx *ctx, const char *op, struct cval a,
		      struct cval b, struct cval *v)
{
	s64 n;

	a = promote(a);
	b = promote(b);
	n = b.is_unsigned && (s64)b.bits < 0 ? -1 : (s64)b.bits;
	if (n < 0 || n >= a.width)
		return fail(ctx, "a shift of a %d-bit value by %lld", a.width,
			    to_long_long(b));
	if (op[0] == '<')
		*v = typed(a.bits << n, a.width, a.is_unsigned);
	else if (a.is_unsigned)
		*v = typed(a.bits >> n, a.width, true);
	else
		*v = typed((u64)((s64)a.bits >> n), a.width, false);
	return 0;
}

static int eval_divide(struct eval_ctx *ctx, char op, struct cval a,
		       struct cval b, struct cval *v)
{
	u64 q;

	if (!b.bits)
		return fail(ctx, "a division by zero");
	if (a.is_unsigned) {
		q = op == '/' ? a.bits / b.bits : a.bits % b.bits;
	} else {
		s64 x = a.bits, y = b.bits;

		if (x == LLONG_MIN && y == -1)
			return fail(ctx, "a division that overflows");
		q = op == '/' ? (u64)(x / y) : (u64)(x % y);
	}
	*v = typed(q, a.width, a.is_unsigned);
	return 0;
}

static bool is_compare(const char *op)
{
	return !strcmp(op, "<") || !strcmp(op, ">") || !strcmp(op, "<=") ||
	       !strcmp(op, ">=") || !strcmp(op, "==") || !strcmp(op, "!=");
}

/* Binary operators but the logical ones, which do not evaluate both. */
static int eval_binary(struct eval_ctx *ctx, const char *op, struct cval a,
		       struct cval b, struct cval *v)
{
	if (is_compare(op))
		return eval_compare(op, a, b, v);
	if (!strcmp(op, "<<") || !strcmp(op, ">>"))
		return eval_shift(ctx, op, a, b, v);
	if (strlen(op) != 1 || !strchr("+-*/%&|^", op[0]))
		return fail(ctx, "the operator '%s'", op);
	a = promote(a);
	b = promote(b);
	common_type(&a, &b);
	switch (op[0]) {
	case '+':
		*v = typed(a.bits + b.bits, a.width, a.is_unsigned);
		break;
	case '-':
		*v = typed(a.bits - b.bits, a.width, a.is_unsigned);
		break;
	case '*':
		*v = typed(a.bits * b.bits, a.width, a.is_unsigned);
		break;
	case '&':
		*v = typed(a.bits & b.bits, a.width, a.is_unsigned);
		break;
	case '|':
		*v = typed(a.bits | b.bits, a.width, a.is_unsigned);
		break;
	case '^':
		*v = typed(a.bits ^ b.bits, a.width, a.is_unsigned);
		break;
	default:
		return eval_divide(ctx, op[0], a, b, v);
	}
	return 0;
}

/* The type of c ? x : y, of both branches: @taken gets it. */
static void conditional_type(struct cval *taken, struct cval other)
{
	*taken = promote(*taken);
	other = promote(other);
	common_type(taken, &other);
}

/* --- the text of an expression ------------------------------------------ */

enum token_kind {
	TOKEN_END,
	TOKEN_NUMBER,
	TOKEN_NAME,
	TOKEN_PUNCT,
};

struct parser {
	struct eval_ctx	*ctx;
	const char	*p, *end;
	/* The current token. */
	enum token_kind	kind;
	const char	*tok;
	size_t		len;
	int		depth;
	/*
	 * In an operand C does not evaluate (the other branch of a ?:, the
	 * right of a decided && or ||): what its arithmetic would do wrong
	 * does not count, what is not a constant still does.
	 */
	int		dead;
};

static const char * const puncts[] = {
	"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->",
	"(", ")", "+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "!", "~",
	"?", ":", ",", ".", "[", "]",
};

static void next_token(struct parser *ps)
{
	const char *p = ps->p;
	size_t i;

	while (p < ps->end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	ps->tok = p;
	ps->len = 0;
	if (p == ps->end) {
		ps->kind = TOKEN_END;
	} else if (name_char(*p)) {
		ps->kind = *p >= '0' && *p <= '9' ? TOKEN_NUMBER : TOKEN_NAME;
		while (p + ps->len < ps->end && name_char(p[ps->len]))
			ps->len++;
	} else {
		ps->kind = TOKEN_PUNCT;
		ps->len = 1;	/* an unknown character: an error later */
		for (i = 0; i < ARRAY_SIZE(puncts); i++) {
			size_t n = strlen(puncts[i]);

			if (n <= (size_t)(ps->end - p) && !strncmp(p, puncts[i], n)) {
				ps->len = n;
				break;
			}
		}
	}
	ps->p = p + ps->len;
}

static bool token_is(const struct parser *ps, const char *s)
{
	return ps->kind != TOKEN_END && word_is(ps->tok, ps->len, s);
}

/* The current token as a string, in @buf. */
static const char *token_str(const struct parser *ps, char *buf, size_t size)
{
	if (ps->kind == TOKEN_END)
		return "the end";
	snprintf(buf, size, "%.*s", (int)min(ps->len, size - 1), ps->tok);
	return buf;
}

static int fail_unexpected(struct parser *ps)
{
	char buf[MAX_WORDS];

	return fail(ps->ctx, "unexpected '%s'", token_str(ps, buf, sizeof(buf)));
}

static int expect(struct parser *ps, const char *s)
{
	char buf[MAX_WORDS];

	if (!token_is(ps, s))
		return fail(ps->ctx, "'%s' where '%s' was expected",
			    token_str(ps, buf, sizeof(buf)), s);
	next_token(ps);
	return 0;
}

/* An operator's result, or no error and any value in a dead operand. */
static int result(struct parser *ps, int err, struct cval *v)
{
	if (err && ps->dead) {
		*v = int_of(false);
		return 0;
	}
	return err;
}

static int parse_conditional(struct parser *ps, struct cval *v);
static int parse_unary(struct parser *ps, struct cval *v);

/* The words of a type up to the ')' of a cast or sizeof, as one string. */
static int parse_type_name(struct parser *ps, char *buf, size_t size)
{
	const char *start = ps->tok;

	while (ps->kind != TOKEN_END && !token_is(ps, ")"))
		next_token(ps);
	if ((size_t)(ps->tok - start) >= size)
		return fail(ps->ctx, "a cast to a type with a long name");
	snprintf(buf, size, "%.*s", (int)(ps->tok - start), start);
	while (*buf && buf[strlen(buf) - 1] == ' ')
		buf[strlen(buf) - 1] = '\0';
	return expect(ps, ")");
}

/* sizeof(type): of integer types only. */
static int parse_sizeof(struct parser *ps, struct cval *v)
{
	char type[MAX_WORDS];
	struct cval one = int_of(true);
	int err;

	err = expect(ps, "(");
	if (!err && !(ps->kind == TOKEN_NAME && starts_type(ps->tok, ps->len)))
		return fail(ps->ctx, "sizeof of something else than a type");
	if (!err)
		err = parse_type_name(ps, type, sizeof(type));
	if (!err)
		err = cast(ps->ctx, type, one, &one);
	if (!err)
		*v = typed(one.width == 1 ? 1 : one.width / 8, ps->ctx->long_bits,
			   true);
	return err;
}

static int parse_name(struct parser *ps, struct cval *v)
{
	char buf[MAX_WORDS];

	if (token_is(ps, "sizeof")) {
		next_token(ps);
		return parse_sizeof(ps, v);
	}
	if (token_is(ps, "REC")) {
		next_token(ps);
		if (token_is(ps, "->")) {
			next_token(ps);
			return fail(ps->ctx, "it reads the field '%s' of each event",
				    token_str(ps, buf, sizeof(buf)));
		}
	}
	return fail(ps->ctx, "'%s' is not a constant",
		    token_str(ps, buf, sizeof(buf)));
}

static int parse_primary(struct parser *ps, struct cval *v)
{
	char buf[MAX_WORDS];
	int err;

	if (ps->kind == TOKEN_NUMBER) {
		if (ps->len >= sizeof(buf))
			return fail(ps->ctx, "a number too long");
		token_str(ps, buf, sizeof(buf));
		next_token(ps);
		return eval_number(ps->ctx, buf, v);
	}
	if (ps->kind == TOKEN_NAME)
		return parse_name(ps, v);
	if (!token_is(ps, "("))
		return fail_unexpected(ps);
	next_token(ps);
	err = parse_conditional(ps, v);
	return err ? err : expect(ps, ")");
}

/* A cast, its '(' read: the type, then the operand. */
static int parse_cast(struct parser *ps, struct cval *v)
{
	char type[MAX_WORDS];
	struct cval item;
	int err;

	err = parse_type_name(ps, type, sizeof(type));
	if (!err)
		err = parse_unary(ps, &item);
	return err ? err : cast(ps->ctx, type, item, v);
}

static int parse_unary(struct parser *ps, struct cval *v)
{
	struct cval a;
	int err;

	if (++ps->depth > MAX_DEPTH)
		return fail(ps->ctx, "an expression nested more than %d deep",
			    MAX_DEPTH);
	if (token_is(ps, "-") || token_is(ps, "+") || token_is(ps, "!") ||
	    token_is(ps, "~")) {
		char op[2] = { ps->tok[0], '\0' };

		next_token(ps);
		err = parse_unary(ps, &a);
		if (!err)
			err = eval_unary(ps->ctx, op, a, v);
	} else if (token_is(ps, "(")) {
		/* A cast or parentheses: the word after '(' says which. */
		const char *saved_p = ps->p;
		enum token_kind saved_kind = ps->kind;
		const char *saved_tok = ps->tok;
		size_t saved_len = ps->len;

		next_token(ps);
		if (ps->kind == TOKEN_NAME && starts_type(ps->tok, ps->len)) {
			err = parse_cast(ps, v);
		} else {
			ps->p = saved_p;
			ps->kind = saved_kind;
			ps->tok = saved_tok;
			ps->len = saved_len;
			err = parse_primary(ps, v);
		}
	} else {
		err = parse_primary(ps, v);
	}
	ps->depth--;
	return err;
}

/* Binary operators by precedence, tightest first; && and || apart. */
static const char * const binary_levels[][6] = {
	{ "*", "/", "%" },
	{ "+", "-" },
	{ "<<", ">>" },
	{ "<", ">", "<=", ">=" },
	{ "==", "!=" },
	{ "&" },
	{ "^" },
	{ "|" },
};

/* The operator of @level the current token is, or NULL. */
static const char *binary_op(const struct parser *ps, int level)
{
	int i;

	for (i = 0; i < 6 && binary_levels[level][i]; i++)
		if (token_is(ps, binary_levels[level][i]))
			return binary_levels[level][i];
	return NULL;
}

/* Operands joined by operators of @level or tighter, left to right. */
static int parse_binary(struct parser *ps, int level, struct cval *v)
{
	const char *op;
	struct cval b;
	int err;

	err = level ? parse_binary(ps, level - 1, v) : parse_unary(ps, v);
	while (!err && (op = binary_op(ps, level))) {
		next_token(ps);
		err = level ? parse_binary(ps, level - 1, &b) :
			      parse_unary(ps, &b);
		if (!err)
			err = result(ps, eval_binary(ps->ctx, op, *v, b, v), v);
	}
	return err;
}

/* a && b, a || b: b is dead when a decides, as C does not evaluate it. */
static int parse_logical(struct parser *ps, bool is_and, struct cval *v)
{
	const char *op = is_and ? "&&" : "||";
	struct cval b;
	bool decided;
	int err;

	err = is_and ? parse_binary(ps, ARRAY_SIZE(binary_levels) - 1, v) :
		       parse_logical(ps, true, v);
	while (!err && token_is(ps, op)) {
		decided = is_and ? !v->bits : !!v->bits;
		next_token(ps);
		ps->dead += decided;
		err = is_and ? parse_binary(ps, ARRAY_SIZE(binary_levels) - 1, &b) :
			       parse_logical(ps, true, &b);
		ps->dead -= decided;
		if (!err)
			*v = int_of(decided ? !is_and : !!b.bits);
	}
	return err;
}

/* c ? x : y, of which only one branch is evaluated; both give the type. */
static int parse_conditional(struct parser *ps, struct cval *v)
{
	struct cval cond, x, y;
	int err;

	err = parse_logical(ps, false, &cond);
	if (err || !token_is(ps, "?")) {
		*v = cond;
		return err;
	}
	next_token(ps);
	ps->dead += !cond.bits;
	err = parse_conditional(ps, &x);
	ps->dead -= !cond.bits;
	if (!err)
		err = expect(ps, ":");
	ps->dead += !!cond.bits;
	if (!err)
		err = parse_conditional(ps, &y);
	ps->dead -= !!cond.bits;
	if (err)
		return err;
	if (cond.bits) {
		conditional_type(&x, y);
		*v = x;
	} else {
		conditional_type(&y, x);
		*v = y;
	}
	return 0;
}

int kmem_pageblock__eval_text(const char *expr, size_t len, int long_size,
			      long long *value, char *why, size_t why_size)
{
	struct eval_ctx ctx;
	struct parser ps = {
		.ctx = &ctx,
		.p = expr,
		.end = expr + len,
	};
	struct cval v;
	int err;

	init_ctx(&ctx, long_size, why, why_size);
	next_token(&ps);
	err = parse_conditional(&ps, &v);
	if (!err && ps.kind != TOKEN_END)
		err = fail_unexpected(&ps);
	if (!err)
		*value = to_long_long(v);
	return err;
}

/* --- libtraceevent's tree ------------------------------------------------- */

static int eval_arg(struct eval_ctx *ctx, const struct tep_print_arg *arg,
		    int depth, struct cval *v);

/* libtraceevent folds constants, and may make negative numbers. */
static int eval_atom(struct eval_ctx *ctx, const char *atom, struct cval *v)
{
	struct cval n;

	if (atom[0] != '-')
		return eval_number(ctx, atom, v);
	if (eval_number(ctx, atom + 1, &n))
		return -EINVAL;
	return eval_unary(ctx, "-", n, v);
}

/* a && b, a || b: b only when a leaves the answer open, as in C. */
static int eval_logical(struct eval_ctx *ctx, const struct tep_print_arg *arg,
			int depth, struct cval *v)
{
	bool is_and = !strcmp(arg->op.op, "&&");
	struct cval a, b;
	int err;

	err = eval_arg(ctx, arg->op.left, depth, &a);
	if (err)
		return err;
	if (is_and ? !a.bits : !!a.bits) {
		*v = int_of(!is_and);
		return 0;
	}
	err = eval_arg(ctx, arg->op.right, depth, &b);
	if (!err)
		*v = int_of(!!b.bits);
	return err;
}

/*
 * c ? x : y, which libtraceevent makes a '?' whose right is a ':'.  Only
 * the branch taken must be a constant, but the other one still gives the
 * result its type when it can be evaluated.
 */
static int eval_conditional(struct eval_ctx *ctx,
			    const struct tep_print_arg *arg, int depth,
			    struct cval *v)
{
	const struct tep_print_arg *branches = arg->op.right;
	struct cval cond, taken, other;
	int err;

	if (!branches || branches->type != TEP_PRINT_OP || !branches->op.op ||
	    strcmp(branches->op.op, ":"))
		return fail(ctx, "a '?' without its ':'");
	err = eval_arg(ctx, arg->op.left, depth, &cond);
	if (!err)
		err = eval_arg(ctx, cond.bits ? branches->op.left :
						branches->op.right, depth, &taken);
	if (err)
		return err;
	if (!eval_arg(ctx, cond.bits ? branches->op.right : branches->op.left,
		      depth, &other))
		conditional_type(&taken, other);
	*v = taken;
	return 0;
}

static int eval_op(struct eval_ctx *ctx, const struct tep_print_arg *arg,
		   int depth, struct cval *v)
{
	const char *op = arg->op.op;
	struct cval a, b;
	int err;

	if (!op)
		return fail(ctx, "an operator without a name");
	if (!strcmp(op, "?"))
		return eval_conditional(ctx, arg, depth, v);
	if (!strcmp(op, "&&") || !strcmp(op, "||"))
		return eval_logical(ctx, arg, depth, v);
	/* libtraceevent gives a unary operator an empty left operand. */
	if (!arg->op.left || arg->op.left->type == TEP_PRINT_NULL) {
		err = eval_arg(ctx, arg->op.right, depth, &a);
		return err ? err : eval_unary(ctx, op, a, v);
	}
	err = eval_arg(ctx, arg->op.left, depth, &a);
	if (!err)
		err = eval_arg(ctx, arg->op.right, depth, &b);
	return err ? err : eval_binary(ctx, op, a, b, v);
}

static const char *kind_name(enum tep_print_arg_type type)
{
	switch (type) {
	case TEP_PRINT_ATOM:
	case TEP_PRINT_FIELD:
	case TEP_PRINT_TYPE:
	case TEP_PRINT_OP:
		return "an argument";
	case TEP_PRINT_NULL:
		return "a missing operand";
	case TEP_PRINT_FLAGS:
		return "__print_flags()";
	case TEP_PRINT_SYMBOL:
		return "__print_symbolic()";
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		return "__print_hex()";
	case TEP_PRINT_INT_ARRAY:
		return "__print_array()";
	case TEP_PRINT_STRING:
	case TEP_PRINT_BSTRING:
		return "a string";
	case TEP_PRINT_DYNAMIC_ARRAY:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return "a dynamic array";
	case TEP_PRINT_FUNC:
		return "a function call";
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
		return "a bitmask";
	default:
		return "an argument of an unknown kind";
	}
}

static int eval_arg(struct eval_ctx *ctx, const struct tep_print_arg *arg,
		    int depth, struct cval *v)
{
	struct cval item;

	if (!arg)
		return fail(ctx, "a missing operand");
	if (++depth > MAX_DEPTH)
		return fail(ctx, "an expression nested more than %d deep",
			    MAX_DEPTH);
	if (arg->type == TEP_PRINT_ATOM)
		return eval_atom(ctx, arg->atom.atom ? arg->atom.atom : "", v);
	if (arg->type == TEP_PRINT_OP)
		return eval_op(ctx, arg, depth, v);
	if (arg->type == TEP_PRINT_FIELD)
		return fail(ctx, "it reads the field '%s' of each event",
			    arg->field.name ? arg->field.name : "?");
	if (arg->type != TEP_PRINT_TYPE)
		return fail(ctx, "%s", kind_name(arg->type));
	if (eval_arg(ctx, arg->typecast.item, depth, &item))
		return -EINVAL;
	return cast(ctx, arg->typecast.type ? arg->typecast.type : "", item, v);
}

int kmem_pageblock__eval(const struct tep_print_arg *arg, int long_size,
			 long long *value, char *why, size_t why_size)
{
	struct eval_ctx ctx;
	struct cval v;

	init_ctx(&ctx, long_size, why, why_size);
	if (eval_arg(&ctx, arg, 0, &v))
		return -EINVAL;
	*value = to_long_long(v);
	return 0;
}

/* --- the argument of pageblock_order=%d ------------------------------------ */

/*
 * Past one conversion of a printf format, @p just after its '%'.  Sets
 * how many arguments it takes: one, plus one for each '*'.
 */
static const char *skip_conversion(const char *p, int *args)
{
	*args = 1;
	p += strspn(p, "-+ #0'");
	for (; *p == '*' || (*p >= '0' && *p <= '9'); p++)
		*args += *p == '*';
	if (*p == '.')
		for (p++; *p == '*' || (*p >= '0' && *p <= '9'); p++)
			*args += *p == '*';
	p += strspn(p, "hlLqjzZt");
	if (!*p)
		return p;
	/* %p takes extensions: %pS, %pISpc, %pM... */
	if (*(p++) == 'p')
		while (name_char(*p) && *p != '_')
			p++;
	return p;
}

int kmem_pageblock__arg_index(const char *format, const char *name)
{
	size_t len = strlen(name);
	const char *p = format;
	int index = 0, args;

	while (*p) {
		if (*p != '%') {
			/* "name=%" at the start of a word: that conversion. */
			if ((p == format || !name_char(p[-1])) &&
			    !strncmp(p, name, len) && p[len] == '=' &&
			    p[len + 1] == '%' && p[len + 2] != '%')
				return index;
			p++;
			continue;
		}
		if (p[1] == '%') {
			p += 2;
			continue;
		}
		p = skip_conversion(p + 1, &args);
		index += args;
	}
	return -ENOENT;
}

/* Past a quoted string or character literal starting at @p; NULL: open. */
static const char *skip_quoted(const char *p, const char *end)
{
	char quote = *p++;

	while (p < end && *p != quote) {
		if (*p == '\\')
			p++;
		p++;
	}
	return p < end ? p + 1 : NULL;
}

/*
 * The text of argument @n of the print format from @p (its opening quote)
 * to @end: past the format string, arguments are separated by commas
 * outside any brackets.
 */
static int arg_text(const char *p, const char *end, int n,
		    const char **start, size_t *len)
{
	const char *arg_start = NULL;
	int depth = 0, i = -1;

	for (p = skip_quoted(p, end); p && p < end; p++) {
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
			arg_start = p + 1;
			i++;
		}
	}
	if (!p || i != n || depth)
		return -ENOENT;
	*start = arg_start;
	*len = p - arg_start;
	return 0;
}

/* The line of @text that starts with "print fmt: ", and where it ends. */
static const char *find_print_fmt(const char *text, size_t len,
				  const char **line_end)
{
	const char *p = text, *end = text + len, *eol;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if ((size_t)(eol - p) >= strlen(PRINT_FMT_TAG) &&
		    !strncmp(p, PRINT_FMT_TAG, strlen(PRINT_FMT_TAG))) {
			*line_end = eol;
			return p;
		}
	}
	return NULL;
}

/* The text of the argument printed as pageblock_order= in @text. */
static int pageblock_arg_text(const char *text, size_t len, const char **arg,
			      size_t *arg_len)
{
	const char *line, *end, *open, *close;
	char *format;
	int index;

	line = find_print_fmt(text, len, &end);
	if (!line)
		return -ENOENT;
	open = line + strlen(PRINT_FMT_TAG);
	if (open >= end || *open != '"')
		return -ENOENT;
	close = skip_quoted(open, end);
	if (!close)
		return -ENOENT;
	format = strndup(open + 1, close - open - 2);
	if (!format)
		return -ENOMEM;
	index = kmem_pageblock__arg_index(format, PAGEBLOCK_NAME);
	free(format);
	if (index < 0)
		return index;
	return arg_text(open, end, index, arg, arg_len) ? -EINVAL : 0;
}

static int in_range(long long order, char *why, size_t why_size)
{
	if (order < 0 || order > KMEM_PAGE_MAX_ORDER) {
		snprintf(why, why_size, "%s %lld is not an order",
			 PAGEBLOCK_NAME, order);
		return -ERANGE;
	}
	return (int)order;
}

int kmem_pageblock__order_of_format(const char *text, size_t len,
				    int long_size, char *why, size_t why_size)
{
	char reason[160];
	long long order;
	const char *arg;
	size_t arg_len;
	int err;

	err = pageblock_arg_text(text, len, &arg, &arg_len);
	if (err == -ENOENT)
		snprintf(why, why_size, "the print format has no %s=%%d",
			 PAGEBLOCK_NAME);
	else if (err == -EINVAL)
		snprintf(why, why_size, "the print format has no argument for %s",
			 PAGEBLOCK_NAME);
	if (err)
		return err;
	if (kmem_pageblock__eval_text(arg, arg_len, long_size, &order, reason,
				      sizeof(reason))) {
		snprintf(why, why_size, "cannot evaluate %s: %s", PAGEBLOCK_NAME,
			 reason);
		return -EINVAL;
	}
	return in_range(order, why, why_size);
}

static const struct tep_print_arg *nth_arg(const struct tep_print_arg *arg,
					   int n)
{
	while (arg && n--)
		arg = arg->next;
	return arg;
}

int kmem_pageblock__order(const struct tep_event *event, char *why,
			  size_t why_size)
{
	const struct tep_print_arg *arg;
	char reason[160];
	long long order;
	int index;

	if (event->flags & TEP_EVENT_FL_FAILED) {
		snprintf(why, why_size,
			 "libtraceevent could not parse the print format of %s",
			 event->name ? event->name : "the event");
		return -EINVAL;
	}
	index = event->print_fmt.format ?
		kmem_pageblock__arg_index(event->print_fmt.format,
					  PAGEBLOCK_NAME) : -ENOENT;
	if (index < 0) {
		snprintf(why, why_size, "the print format has no %s=%%d",
			 PAGEBLOCK_NAME);
		return -ENOENT;
	}
	arg = nth_arg(event->print_fmt.args, index);
	if (!arg) {
		snprintf(why, why_size, "the print format has no argument for %s",
			 PAGEBLOCK_NAME);
		return -EINVAL;
	}
	if (kmem_pageblock__eval(arg, event->tep ?
				 tep_get_long_size(event->tep) : 0, &order,
				 reason, sizeof(reason))) {
		snprintf(why, why_size, "cannot evaluate %s: %s", PAGEBLOCK_NAME,
			 reason);
		return -EINVAL;
	}
	return in_range(order, why, why_size);
}

/* --- tracing data ----------------------------------------------------------- */

/* A reader of the tracing data perf record writes (trace-event-info.c). */
struct td_reader {
	const u8	*p, *end;
	bool		big_endian;	/* the recording machine's byte order */
};

static int td_skip(struct td_reader *r, u64 n)
{
	if (n > (u64)(r->end - r->p))
		return -EINVAL;
	r->p += n;
	return 0;
}

/* A number of @size bytes in the recording machine's byte order. */
static int td_read(struct td_reader *r, u64 *val, int size)
{
	int i;

	if (r->end - r->p < size)
		return -EINVAL;
	*val = 0;
	for (i = 0; i < size; i++)
		*val |= (u64)r->p[i] << 8 * (r->big_endian ? size - 1 - i : i);
	r->p += size;
	return 0;
}

/* A NUL-terminated string, which must be @expect when given. */
static int td_string(struct td_reader *r, const char **s, const char *expect)
{
	const u8 *nul = memchr(r->p, '\0', r->end - r->p);

	if (!nul || (expect && strcmp((const char *)r->p, expect)))
		return -EINVAL;
	*s = (const char *)r->p;
	r->p = nul + 1;
	return 0;
}

/* Past a size (of @size_bytes) and the block of that many bytes. */
static int td_skip_block(struct td_reader *r, int size_bytes)
{
	u64 n;

	if (td_read(r, &n, size_bytes))
		return -EINVAL;
	return td_skip(r, n);
}

/* The header up to the event files: magic, version, sizes, headers. */
static int td_header(struct td_reader *r, int *long_size)
{
	static const u8 magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *s;
	u64 count, i;

	if (r->end - r->p < (long)sizeof(magic) + 2 ||
	    memcmp(r->p, magic, sizeof(magic)))
		return -EINVAL;
	r->p += sizeof(magic);
	if (td_string(r, &s, NULL) || r->end - r->p < 2)
		return -EINVAL;
	r->big_endian = r->p[0];
	*long_size = r->p[1];
	r->p += 2;
	if (td_skip(r, 4) ||				/* page size */
	    td_string(r, &s, "header_page") || td_skip_block(r, 8) ||
	    td_string(r, &s, "header_event") || td_skip_block(r, 8) ||
	    td_read(r, &count, 4))
		return -EINVAL;
	for (i = 0; i < count; i++)			/* ftrace formats */
		if (td_skip_block(r, 8))
			return -EINVAL;
	return 0;
}

/* Does the format file @text name the event @name? */
static bool names_event(const char *text, size_t len, const char *name)
{
	size_t n = strlen(name);

	return len > 6 + n && !strncmp(text, "name: ", 6) &&
	       !strncmp(text + 6, name, n) &&
	       (text[6 + n] == '\n' || text[6 + n] == '\r');
}

int kmem_pageblock__find_format(const void *data, size_t size, const char *sys,
				const char *name, const char **text,
				size_t *len, int *long_size)
{
	struct td_reader r = { .p = data, .end = (const u8 *)data + size };
	u64 systems, events, i, j, n;
	const char *s;

	if (td_header(&r, long_size) || td_read(&r, &systems, 4))
		return -EINVAL;
	for (i = 0; i < systems; i++) {
		if (td_string(&r, &s, NULL) || td_read(&r, &events, 4))
			return -EINVAL;
		for (j = 0; j < events; j++) {
			if (td_read(&r, &n, 8) || n > (u64)(r.end - r.p))
				return -EINVAL;
			if (!strcmp(s, sys) &&
			    names_event((const char *)r.p, n, name)) {
				*text = (const char *)r.p;
				*len = n;
				return 0;
			}
			r.p += n;
		}
	}
	return -ENOENT;
}
