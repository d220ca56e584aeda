// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for util/kmem/report-diff.c: the input is two documents'
 * scalars, scalars of rows of two tables among them, as a visitor would
 * hand them over, rows in order or not, names, nulls and numbers mixed.
 * A model in this file pairs them its own way, by brute force; the
 * engine must agree with it on every scalar, every row's side and every
 * value, and sort rows as asked.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>

#include "json.h"
#include "report-diff.h"

#define MAX_OPS		512
#define MAX_ROWS	32
#define NR_MEMBERS	3

static void check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "kmem-diff-fuzz: invariant broken: %s\n", what);
	abort();
}

static const char * const ident[] = { "name|addr", "kind", NULL };
static const char * const ignore_members[] = { "code", NULL };

static const struct kmem_diff_table_spec specs[] = {
	{ .name = "t0", .rows = "t0.rows", .present = "t0.nr",
	  .identity = ident, .ignore = ignore_members, },
	{ .name = "t1", .rows = "t1.rows", .present = "t1.nr",
	  .identity = ident, .ignore = ignore_members, },
};

static const char * const ignore[] = { "skip", NULL };

static const struct kmem_diff_config config = {
	.tables = specs,
	.nr_tables = ARRAY_SIZE(specs),
	.ignore = ignore,
};

static int take_number(struct kmem_diff *d, int side, const char *path, u64 v)
{
	struct kmem_json_value val = { .kind = KMEM_JSON_U64, .u = v };

	return kmem_diff__take(d, side, path, &val);
}

/* @len bytes of @s; NULL: null. */
static int take_text(struct kmem_diff *d, int side, const char *path,
		     const char *s, size_t len)
{
	struct kmem_json_value val = {
		.kind = s ? KMEM_JSON_STRING : KMEM_JSON_NULL,
		.str = s, .len = len,
	};

	return kmem_diff__take(d, side, path, &val);
}

static const char * const scalar_paths[] = {
	"a", "b.c", "b.d", "e.0", "e.1", "skip", "skip.x", "t0.nr", "t1.nr",
};

static const char * const names[] = { "f", "g", "h", "f|g" };
static const char * const members[NR_MEMBERS] = { "hits", "bytes", "x.y" };

/* --- the model --------------------------------------------------------- */

struct model_scalar {
	bool	has[2];
	bool	is_number[2];
	u64	v[2];
};

#define NAME_SIZE	64
#define KEY_SIZE	(3 * NAME_SIZE)

struct model_row {
	/* The identity, as the engine joins it: parts joined by '|'. */
	char	name[NAME_SIZE];
	char	addr[NAME_SIZE];
	char	kind[NAME_SIZE];
	bool	has[NR_MEMBERS];
	u64	v[NR_MEMBERS];
};

struct model {
	struct model_scalar	scalars[ARRAY_SIZE(scalar_paths)];
	bool			present[2][2];
	struct model_row	rows[2][2][MAX_ROWS];	/* side, table */
	int			nr_rows[2][2];
};

static void join(char *buf, const char *part)
{
	size_t len = strlen(buf);

	snprintf(buf + len, NAME_SIZE - len, "%s%s", len ? "|" : "", part);
}

/* Would @part still fit the model's @buf? */
static bool fits(const char *buf, const char *part)
{
	return strlen(buf) + strlen(part) + 2 <= NAME_SIZE;
}

/* The identity the model gives a row: name, else address, and kind. */
static void model_key(const struct model_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s\x1f%s\x1f", r->name[0] ? r->name : r->addr,
		 r->kind);
}

/* --- the program ------------------------------------------------------- */

struct input {
	const u8	*p;
	size_t		left;
};

static unsigned int take(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* A scalar outside the tables, each path once a side, as documents have. */
static void scalar_op(struct kmem_diff *d, struct model *m, struct input *in,
		      bool *scalar_used, unsigned int side, unsigned int v)
{
	size_t i = take(in) % ARRAY_SIZE(scalar_paths);
	struct model_scalar *s = &m->scalars[i];
	bool number = v & 1;
	int err;

	if (scalar_used[side * ARRAY_SIZE(scalar_paths) + i])
		return;
	scalar_used[side * ARRAY_SIZE(scalar_paths) + i] = true;
	err = number ? take_number(d, side, scalar_paths[i], v) :
		       take_text(d, side, scalar_paths[i], "s", 1);
	check(!err, "a scalar refused");
	if (i >= 7)
		m->present[side][i - 7] = true;
	s->has[side] = true;
	s->is_number[side] = number;
	s->v[side] = v;
}

/* What a row's scalar adds to the model's row. */
static void model_add(struct model_row *r, const char *member,
		      const char *text, unsigned int v)
{
	int k;

	if (!strcmp(member, "name")) {
		join(r->name, text);
	} else if (!strcmp(member, "addr")) {
		join(r->addr, text);
	} else if (!strcmp(member, "kind")) {
		join(r->kind, text);
	} else {
		for (k = 0; k < NR_MEMBERS; k++) {
			if (strcmp(member, members[k]))
				continue;
			r->has[k] = true;
			r->v[k] += v;
		}
	}
}

/*
 * A scalar of a row: a name (or null), an address, a kind, a member or an
 * ignored number.  @member is what the model takes of it, NULL nothing;
 * false: left out, the model's row would have no room for it.
 */
static bool row_scalar(struct kmem_diff *d, struct model_row *r,
		       bool in_order, unsigned int side, unsigned int what,
		       unsigned int v, char *path, size_t size,
		       const char **member, char *text, size_t text_size,
		       int *err)
{
	size_t len = strlen(path);
	char *field = NULL;

	*member = NULL;
	switch (what % 6) {
	case 0:
		if (v % 5 == 4) {
			snprintf(path + len, size - len, "name");
			*err = take_text(d, side, path, NULL, 0);
			return true;
		}
		snprintf(text, text_size, "%s", names[v % 4]);
		*member = "name";
		field = r->name;
		break;
	case 1:
		snprintf(text, text_size, "0x%x", v % 4);
		*member = "addr";
		field = r->addr;
		break;
	case 2:
		snprintf(text, text_size, "%u", v % 3);
		*member = "kind";
		field = r->kind;
		break;
	case 3:
		snprintf(path + len, size - len, "code");
		*err = take_number(d, side, path, v);
		return true;
	default:
		*member = members[v % NR_MEMBERS];
		snprintf(path + len, size - len, "%s", *member);
		*err = take_number(d, side, path, v);
		return true;
	}
	if (in_order && !fits(field, text))
		return false;
	snprintf(path + len, size - len, "%s", *member);
	if (field == r->kind)
		*err = take_number(d, side, path, v % 3);
	else
		*err = take_text(d, side, path, text, strlen(text));
	return true;
}

static void row_op(struct kmem_diff *d, struct model *m, struct input *in,
		   unsigned int op, unsigned int side, unsigned int v)
{
	unsigned int t = (op >> 3) & 1, what = take(in);
	int nr = m->nr_rows[side][t];
	/* Mostly the current row or the next; sometimes another. */
	int index = (op >> 4) % 4 == 3 ? (int)(take(in) % MAX_ROWS) :
		    nr - 1 + (int)((op >> 4) % 2);
	char path[64], text[32];
	struct model_row *r;
	const char *member;
	bool in_order;
	int err;

	if (index < 0)
		index = 0;
	if (index >= MAX_ROWS)
		return;
	in_order = index == nr || index == nr - 1;
	r = &m->rows[side][t][index];
	snprintf(path, sizeof(path), "t%u.rows.%d.", t, index);
	if (!row_scalar(d, r, in_order, side, what, v, path, sizeof(path),
			&member, text, sizeof(text), &err))
		return;
	if (!in_order) {
		check(err == -EINVAL, "a row out of order taken");
		return;
	}
	check(!err, "a row scalar refused");
	if (index == nr)
		m->nr_rows[side][t]++;
	if (member)
		model_add(r, member, text, v);
}

/* --- comparing --------------------------------------------------------- */

static void check_scalars(struct kmem_diff *d, const struct model *m)
{
	size_t i, n = 0, nr;
	int side;

	kmem_diff__scalars(d, &nr);
	for (i = 0; i < ARRAY_SIZE(scalar_paths); i++) {
		const struct model_scalar *ms = &m->scalars[i];
		const struct kmem_diff_scalar *ds;

		ds = kmem_diff__scalar(d, scalar_paths[i]);
		if (!strncmp(scalar_paths[i], "skip", 4) ||
		    (!ms->has[0] && !ms->has[1])) {
			check(!ds, "an ignored or absent scalar");
			continue;
		}
		n++;
		check(ds, "a scalar lost");
		check(ds->is_number == ((ms->has[0] && ms->is_number[0]) ||
					(ms->has[1] && ms->is_number[1])),
		      "a scalar's kind");
		for (side = 0; side < 2; side++) {
			bool num = ms->has[side] && ms->is_number[side];

			check(ds->num.has[side] == num, "a number's side");
			check(!num || ds->num.v[side] == ms->v[side],
			      "a number's value");
			check(ds->has_str[side] == (ms->has[side] && !num),
			      "a text's side");
		}
	}
	check(nr == n, "the number of scalars");
}

/* The model's rows of a side with @key, summed; false if none. */
static bool model_sum(const struct model *m, int side, int t, const char *key,
		      u64 *v, bool *has)
{
	char k[KEY_SIZE];
	bool found = false;
	int i, j;

	for (j = 0; j < NR_MEMBERS; j++) {
		v[j] = 0;
		has[j] = false;
	}
	for (i = 0; i < m->nr_rows[side][t]; i++) {
		model_key(&m->rows[side][t][i], k, sizeof(k));
		if (strcmp(k, key))
			continue;
		found = true;
		for (j = 0; j < NR_MEMBERS; j++) {
			v[j] += m->rows[side][t][i].v[j];
			has[j] |= m->rows[side][t][i].has[j];
		}
	}
	return found;
}

/* Has any row of a side member @j; a side with no rows has them all. */
static bool model_had(const struct model *m, int side, int t, int j,
		      bool present)
{
	int i;

	if (!present)
		return false;
	if (!m->nr_rows[side][t])
		return true;
	for (i = 0; i < m->nr_rows[side][t]; i++)
		if (m->rows[side][t][i].has[j])
			return true;
	return false;
}

static void check_table(struct kmem_diff *d, const struct model *m, int t)
{
	struct kmem_diff_table *dt = kmem_diff__table(d, specs[t].name);
	size_t i, in_sum = 0, keys = 0;
	struct kmem_diff_key key;
	int side, j, a, b;
	char k[KEY_SIZE];

	check(dt, "a table lost");
	for (side = 0; side < 2; side++)
		check(dt->present[side] == (m->present[side][t] ||
					    m->nr_rows[side][t] > 0),
		      "a table's presence");
	/* Each distinct model key once. */
	for (side = 0; side < 2; side++) {
		for (a = 0; a < m->nr_rows[side][t]; a++) {
			bool first = true;

			model_key(&m->rows[side][t][a], k, sizeof(k));
			for (b = 0; b < a && first; b++) {
				char o[KEY_SIZE];

				model_key(&m->rows[side][t][b], o, sizeof(o));
				first = strcmp(k, o);
			}
			for (b = 0; side && b < m->nr_rows[0][t] && first; b++) {
				char o[KEY_SIZE];

				model_key(&m->rows[0][t][b], o, sizeof(o));
				first = strcmp(k, o);
			}
			keys += first;
		}
	}
	check(dt->nr_rows == keys, "the number of rows");
	for (i = 0; i < KMEM_DIFF_NR_IN; i++)
		in_sum += dt->nr_in[i];
	check(in_sum == dt->nr_rows, "rows by side add up");
	for (i = 0; i < dt->nr_rows; i++) {
		const struct kmem_diff_row *row = dt->rows[i];
		bool seen[2];
		u64 v[2][NR_MEMBERS];
		bool has[2][NR_MEMBERS];

		snprintf(k, sizeof(k), "%s\x1f%s\x1f", row->ident[0],
			 row->ident[1]);
		for (side = 0; side < 2; side++)
			seen[side] = model_sum(m, side, t, k, v[side],
					       has[side]);
		check(seen[0] || seen[1], "a row the model has not");
		check(row->in == (seen[0] && seen[1] ? KMEM_DIFF_IN_BOTH :
				  seen[0] ? KMEM_DIFF_IN_OLD : KMEM_DIFF_IN_NEW),
		      "a row's side");
		for (j = 0; j < NR_MEMBERS; j++) {
			int mi = kmem_diff_table__member(dt, members[j]);
			bool any = false;

			for (side = 0; side < 2; side++)
				any |= model_had(m, side, t, j, true) &&
				       m->nr_rows[side][t];
			if (mi < 0) {
				check(!any, "a member lost");
				continue;
			}
			for (side = 0; side < 2; side++) {
				bool had = model_had(m, side, t, j,
						     dt->present[side]);

				check(row->values[mi].has[side] == had,
				      "a value had or not");
				check(!had || row->values[mi].v[side] ==
				      v[side][j], "a value");
			}
		}
	}
	/* Sorted by a member's delta: never a larger one after a smaller. */
	key.kind = KMEM_DIFF_KEY_DELTA;
	key.index = kmem_diff_table__member(dt, "bytes");
	kmem_diff_table__sort(dt, &key, key.index >= 0);
	for (i = 1; key.index >= 0 && i < dt->nr_rows; i++) {
		const struct kmem_diff_value *x = &dt->rows[i - 1]->values[key.index];
		const struct kmem_diff_value *y = &dt->rows[i]->values[key.index];
		u64 mx, my, xo = x->has[0] ? x->v[0] : 0, xn = x->has[1] ? x->v[1] : 0;
		u64 yo = y->has[0] ? y->v[0] : 0, yn = y->has[1] ? y->v[1] : 0;

		mx = xn > xo ? xn - xo : xo - xn;
		my = yn > yo ? yn - yo : yo - yn;
		check(mx >= my, "rows by the size of the delta");
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	bool scalar_used[2 * ARRAY_SIZE(scalar_paths)] = { false };
	struct input in = { .p = data, .left = size };
	struct kmem_diff *d = kmem_diff__new(&config);
	static struct model m;
	int ops;

	if (!d)
		return 0;
	memset(&m, 0, sizeof(m));
	for (ops = 0; in.left && ops < MAX_OPS; ops++) {
		unsigned int op = take(&in), side = op & 1, v = take(&in);

		if ((op >> 1) % 3 == 0)
			scalar_op(d, &m, &in, scalar_used, side, v);
		else
			row_op(d, &m, &in, op, side, v);
	}
	check(!kmem_diff__pair(d), "pairing failed");
	check(take_number(d, 0, "a", 1) == -EINVAL,
	      "a scalar after pairing");
	check_scalars(d, &m);
	check_table(d, &m, 0);
	check_table(d, &m, 1);
	kmem_diff__delete(d);
	return 0;
}
