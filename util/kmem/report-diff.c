// SPDX-License-Identifier: GPL-2.0
/*
 * The numbers of two documents, paired; see report-diff.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "json.h"
#include "report-diff.h"

/* A scalar of one document, as it came. */
struct leaf {
	char	*path;
	bool	is_number;
	u64	v;
	char	*str;		/* text, NULL for null */
	size_t	pair;		/* 1 + the leaf of the other side it pairs with; 0 */
};

/* One identity alternative of a row: its parts, joined by '|'. */
struct alt {
	char	*text;		/* NULL: not seen, or null */
	size_t	nr_parts;
	bool	is_number;	/* one part, a number */
	u64	number;
};

/*
 * A row of one document until the pairing; then those of one identity
 * add up into the first of them, a row of both.
 */
struct row {
	struct kmem_diff_row	out;
	int			side;
	size_t			order;		/* in the table, as taken */
	size_t			nr_values;
	bool			seen[2];
	struct alt		alt[KMEM_DIFF_MAX_IDENTITY][KMEM_DIFF_MAX_ALT];
	char			*key;		/* the identity, joined */
};

#define ROW(r)	container_of(r, struct row, out)

struct table {
	struct kmem_diff_table	out;		/* rows: of both documents */
	size_t			rows_len, alloc_rows, alloc_members;
	struct row		*last[2];	/* each document's last row */
	size_t			nr[2];		/* and its number of rows */
};

struct kmem_diff {
	const struct kmem_diff_config	*config;
	struct table			*tables;
	struct leaf			*leaves[2];
	size_t				nr_leaves[2], alloc_leaves[2];
	struct kmem_diff_scalar		*scalars;
	size_t				nr_scalars;
	bool				paired;
};

static void *grow(void *array, size_t *alloc, size_t nr, size_t size)
{
	size_t n = *alloc ? *alloc * 2 : 16;
	void *p;

	if (nr < *alloc)
		return array;
	p = realloc(array, n * size);
	if (p)
		*alloc = n;
	return p;
}

/* Is @path @prefix (@len bytes of it), or under it? */
static const char *under(const char *path, const char *prefix, size_t len)
{
	if (strncmp(path, prefix, len))
		return NULL;
	if (!path[len])
		return path + len;
	return path[len] == '.' ? path + len + 1 : NULL;
}

const char *kmem_diff__under(const char *path, const char *prefix)
{
	return under(path, prefix, strlen(prefix));
}

/*
 * The alternatives of identity @spec ("name|address"): the one @member is
 * or is under, or -1; for a NULL @member, -1 - how many there are.
 */
static int alt_of(const char *spec, const char *member)
{
	int a;

	for (a = 0; *spec; a++) {
		size_t len = strcspn(spec, "|");

		if (member && under(member, spec, len))
			return a;
		spec += len + (spec[len] == '|');
	}
	return -1 - (member ? 0 : a);
}

/* --- setting up ------------------------------------------------------- */

static bool setup_table(struct table *t, const struct kmem_diff_table_spec *spec)
{
	const char * const *ident = spec->identity;
	size_t i;

	t->out.spec = spec;
	t->rows_len = strlen(spec->rows);
	for (i = 0; ident && ident[i]; i++) {
		int n = -1 - alt_of(ident[i], NULL);

		if (i == KMEM_DIFF_MAX_IDENTITY || !n || n > KMEM_DIFF_MAX_ALT)
			return false;
	}
	t->out.nr_identity = i;
	return true;
}

struct kmem_diff *kmem_diff__new(const struct kmem_diff_config *config)
{
	struct kmem_diff *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d)
		return NULL;
	d->config = config;
	d->tables = calloc(config->nr_tables ?: 1, sizeof(*d->tables));
	if (!d->tables)
		goto fail;
	for (i = 0; i < config->nr_tables; i++)
		if (!setup_table(&d->tables[i], &config->tables[i]))
			goto fail;
	return d;
fail:
	kmem_diff__delete(d);
	return NULL;
}

static void delete_row(struct row *row)
{
	size_t s, a;

	for (s = 0; s < KMEM_DIFF_MAX_IDENTITY; s++)
		for (a = 0; a < KMEM_DIFF_MAX_ALT; a++)
			free(row->alt[s][a].text);
	free(row->out.values);
	free(row->key);
	free(row);
}

static void delete_table(struct table *t)
{
	size_t i;

	for (i = 0; i < t->out.nr_members; i++)
		free((char *)t->out.members[i]);
	free(t->out.members);
	for (i = 0; i < t->out.nr_rows; i++)
		delete_row(ROW(t->out.rows[i]));
	free(t->out.rows);
}

void kmem_diff__delete(struct kmem_diff *d)
{
	size_t i, s;

	if (!d)
		return;
	for (i = 0; d->tables && i < d->config->nr_tables; i++)
		delete_table(&d->tables[i]);
	free(d->tables);
	for (s = 0; s < 2; s++) {
		for (i = 0; i < d->nr_leaves[s]; i++) {
			free(d->leaves[s][i].path);
			free(d->leaves[s][i].str);
		}
		free(d->leaves[s]);
	}
	free(d->scalars);
	free(d);
}

/* --- taking a document ------------------------------------------------ */

static bool ignored(const char * const *list, const char *path)
{
	size_t i;

	for (i = 0; list && list[i]; i++)
		if (kmem_diff__under(path, list[i]))
			return true;
	return false;
}

static int add_leaf(struct kmem_diff *d, int side, const char *path,
		    const struct kmem_json_value *val)
{
	struct leaf *l;

	l = grow(d->leaves[side], &d->alloc_leaves[side], d->nr_leaves[side],
		 sizeof(*l));
	if (!l)
		return -ENOMEM;
	d->leaves[side] = l;
	l += d->nr_leaves[side];
	*l = (struct leaf){
		.path = strdup(path),
		.is_number = val->kind == KMEM_JSON_U64,
		.v = val->u,
	};
	if (val->str)
		l->str = strndup(val->str, val->len);
	if (!l->path || (val->str && !l->str)) {
		free(l->path);
		free(l->str);
		return -ENOMEM;
	}
	d->nr_leaves[side]++;
	return 0;
}

/*
 * The row @index of document @side, added if it is the next one: rows
 * come in order.  Return: 0, -EINVAL for a row out of order, -ENOMEM.
 */
static int side_row(struct table *t, int side, size_t index,
		    struct row **row)
{
	struct kmem_diff_row **rows;

	if (index + 1 == t->nr[side]) {
		*row = t->last[side];
		return 0;
	}
	if (index != t->nr[side])
		return -EINVAL;
	rows = grow(t->out.rows, &t->alloc_rows, t->out.nr_rows, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->out.rows = rows;
	*row = calloc(1, sizeof(**row));
	if (!*row)
		return -ENOMEM;
	(*row)->side = side;
	(*row)->seen[side] = true;
	(*row)->order = t->out.nr_rows;
	rows[t->out.nr_rows++] = &(*row)->out;
	t->last[side] = *row;
	t->nr[side]++;
	return 0;
}

static int member_index(struct table *t, const char *name)
{
	const char **members;
	int i = kmem_diff_table__member(&t->out, name);

	if (i >= 0)
		return i;
	members = grow(t->out.members, &t->alloc_members, t->out.nr_members,
		       sizeof(*members));
	if (!members)
		return -ENOMEM;
	t->out.members = members;
	members[t->out.nr_members] = strdup(name);
	if (!members[t->out.nr_members])
		return -ENOMEM;
	return t->out.nr_members++;
}

/* Room in @row for @n members, the new ones 0 and not had. */
static int resize(struct row *row, size_t n)
{
	struct kmem_diff_value *v;

	if (n <= row->nr_values && row->out.values)
		return 0;
	v = realloc(row->out.values, (n ?: 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(v + row->nr_values, 0, ((n ?: 1) - row->nr_values) * sizeof(*v));
	row->out.values = v;
	row->nr_values = n;
	return 0;
}

/* A member of a row of one document: its side of the value, had. */
static int set_member(struct table *t, struct row *row, const char *name,
		      u64 v)
{
	int i = member_index(t, name), err;

	if (i < 0)
		return i;
	err = resize(row, t->out.nr_members);
	if (err)
		return err;
	row->out.values[i].v[row->side] += v;
	row->out.values[i].has[row->side] = true;
	return 0;
}

/* One more part of an identity alternative: a text, or a number. */
static int add_alt(struct alt *alt, const struct kmem_json_value *val)
{
	char num[24], *text;
	const char *part = val->str;
	size_t len = val->len, old = alt->text ? strlen(alt->text) : 0;

	if (val->kind == KMEM_JSON_U64) {
		len = snprintf(num, sizeof(num), "%" PRIu64, val->u);
		part = num;
		alt->number = val->u;
	}
	alt->is_number = !alt->nr_parts && val->kind == KMEM_JSON_U64;
	if (!part)		/* null: no value */
		return 0;
	text = realloc(alt->text, old + len + 2);
	if (!text)
		return -ENOMEM;
	if (old)
		text[old++] = '|';
	memcpy(text + old, part, len);
	text[old + len] = '\0';
	alt->text = text;
	alt->nr_parts++;
	return 0;
}

/* A scalar inside a row of @t: a name, a member, or neither. */
static int add_to_row(struct table *t, int side, const char *rest,
		      const struct kmem_json_value *val)
{
	struct row *row;
	const char *member;
	char *end;
	size_t index, s;
	int a, err;

	index = strtoul(rest, &end, 10);
	if (end == rest || (*end && *end != '.'))
		return -EINVAL;
	member = *end ? end + 1 : end;
	err = side_row(t, side, index, &row);
	if (err)
		return err;
	for (s = 0; s < t->out.nr_identity; s++) {
		a = alt_of(t->out.spec->identity[s], member);
		if (a >= 0)
			return add_alt(&row->alt[s][a], val);
	}
	if (ignored(t->out.spec->ignore, member) || val->kind != KMEM_JSON_U64)
		return 0;
	return set_member(t, row, member, val->u);
}

static int add(struct kmem_diff *d, int side, const char *path,
	       const struct kmem_json_value *val)
{
	size_t i;

	if (d->paired || (side != KMEM_DIFF_OLD && side != KMEM_DIFF_NEW))
		return -EINVAL;
	if (ignored(d->config->ignore, path))
		return 0;
	for (i = 0; i < d->config->nr_tables; i++) {
		struct table *t = &d->tables[i];
		const char *rest;

		if (!strcmp(path, t->out.spec->present))
			t->out.present[side] = true;
		rest = under(path, t->out.spec->rows, t->rows_len);
		if (rest && *rest)
			return add_to_row(t, side, rest, val);
		if (rest)
			return 0;
	}
	return add_leaf(d, side, path, val);
}

/* A scalar the diff takes as a text, as the document has it. */
static size_t as_text(const struct kmem_json_value *v, char *buf, size_t size)
{
	if (v->kind == KMEM_JSON_S64)
		return snprintf(buf, size, "%" PRId64, v->s);
	if (v->kind == KMEM_JSON_DOUBLE)
		return snprintf(buf, size, "%g", v->d);
	if (v->kind == KMEM_JSON_BOOL)
		return snprintf(buf, size, "%s", v->b ? "true" : "false");
	return snprintf(buf, size, "0x%" PRIx64, v->u);
}

int kmem_diff__take(struct kmem_diff *d, int side, const char *path,
		    const struct kmem_json_value *v)
{
	/* What the diff takes: a u64, a text (@str), or null. */
	struct kmem_json_value val = { .kind = KMEM_JSON_NULL };
	char buf[32];

	if (v->kind == KMEM_JSON_U64 || (v->kind == KMEM_JSON_S64 && v->s >= 0))
		val = (struct kmem_json_value){
			.kind = KMEM_JSON_U64,
			.u = v->kind == KMEM_JSON_U64 ? v->u : (u64)v->s,
		};
	else if (v->kind == KMEM_JSON_STRING)
		val = *v;
	else if (v->kind != KMEM_JSON_NULL)
		val = (struct kmem_json_value){
			.kind = KMEM_JSON_STRING, .str = buf,
			.len = as_text(v, buf, sizeof(buf)),
		};
	return add(d, side, path, &val);
}

/* --- pairing scalars -------------------------------------------------- */

static int cmp_leaf_path(const void *a, const void *b)
{
	const struct leaf *x = *(const struct leaf * const *)a;
	const struct leaf *y = *(const struct leaf * const *)b;
	int c = strcmp(x->path, y->path);

	/* One array: a path twice pairs in document order. */
	return c ?: (x > y) - (x < y);
}

static void take_leaf(struct kmem_diff_scalar *s, int side,
		      const struct leaf *l)
{
	s->path = l->path;
	if (l->is_number) {
		s->is_number = true;
		s->num.has[side] = true;
		s->num.v[side] = l->v;
	} else {
		s->has_str[side] = true;
		s->str[side] = l->str;
	}
}

/* Sorted by path: each path once, both sides' leaves of it together. */
static struct leaf **sorted_leaves(struct kmem_diff *d, int side)
{
	struct leaf **p = calloc(d->nr_leaves[side] ?: 1, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < d->nr_leaves[side]; i++)
		p[i] = &d->leaves[side][i];
	qsort(p, d->nr_leaves[side], sizeof(*p), cmp_leaf_path);
	return p;
}

/* New scalars from @j on, up to one of both, after @n others; the new @n. */
static size_t take_new_only(struct kmem_diff *d, size_t j, size_t n)
{
	for (; j < d->nr_leaves[1] && !d->leaves[1][j].pair; j++)
		take_leaf(&d->scalars[n++], 1, &d->leaves[1][j]);
	return n;
}

/*
 * Old scalars keep their order; one only the new document has comes
 * right after the scalar of both that comes before it there, in new
 * order.  Leaves pair by path, a path twice in document order.
 */
static int pair_scalars(struct kmem_diff *d)
{
	size_t nr_old = d->nr_leaves[0], nr_new = d->nr_leaves[1];
	struct leaf **o = sorted_leaves(d, 0), **w = sorted_leaves(d, 1);
	size_t i, j, n;
	int err = -ENOMEM;

	d->scalars = calloc(nr_old + nr_new + 1, sizeof(*d->scalars));
	if (!o || !w || !d->scalars)
		goto out;
	for (i = 0, j = 0; i < nr_old && j < nr_new;) {
		int c = strcmp(o[i]->path, w[j]->path);

		if (!c) {
			o[i]->pair = w[j] - d->leaves[1] + 1;
			w[j]->pair = o[i] - d->leaves[0] + 1;
		}
		i += c <= 0;
		j += c >= 0;
	}
	n = take_new_only(d, 0, 0);
	for (i = 0; i < nr_old; i++) {
		const struct leaf *l = &d->leaves[0][i];

		take_leaf(&d->scalars[n], 0, l);
		if (l->pair)
			take_leaf(&d->scalars[n], 1, &d->leaves[1][l->pair - 1]);
		n = l->pair ? take_new_only(d, l->pair, n + 1) : n + 1;
	}
	d->nr_scalars = n;
	err = 0;
out:
	free(o);
	free(w);
	return err;
}

/* --- pairing rows ----------------------------------------------------- */

/*
 * A row's identity: the first alternative of each slot that has a value,
 * "" where none has; and joined by a byte no name has, its key.
 */
static int row_key(struct table *t, struct row *row)
{
	size_t s, a, len = 1;

	for (s = 0; s < t->out.nr_identity; s++) {
		const struct alt *alt = NULL;

		for (a = 0; a < KMEM_DIFF_MAX_ALT && !alt; a++)
			if (row->alt[s][a].text)
				alt = &row->alt[s][a];
		row->out.ident[s] = alt ? alt->text : "";
		row->out.ident_is_number[s] = alt && alt->is_number;
		row->out.ident_number[s] = alt ? alt->number : 0;
		len += strlen(row->out.ident[s]) + 1;
	}
	row->key = calloc(1, len);
	if (!row->key)
		return -ENOMEM;
	for (s = 0; s < t->out.nr_identity; s++) {
		strcat(row->key, row->out.ident[s]);
		strcat(row->key, "\x1f");
	}
	return 0;
}

/* By key; of one key the old document's first, in document order. */
static int cmp_row(const void *a, const void *b)
{
	const struct row *x = ROW(*(struct kmem_diff_row * const *)a);
	const struct row *y = ROW(*(struct kmem_diff_row * const *)b);
	int c = strcmp(x->key, y->key);

	if (c || x->side != y->side)
		return c ?: x->side - y->side;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The keys, and which members each side's rows have. */
static int key_rows(struct table *t, bool *had)
{
	size_t n = t->out.nr_members, i, m;
	int side;

	for (side = 0; side < 2; side++)
		for (m = 0; m < n; m++)
			had[side * n + m] = t->out.present[side] && !t->nr[side];
	for (i = 0; i < t->out.nr_rows; i++) {
		struct row *row = ROW(t->out.rows[i]);

		if (resize(row, n) || row_key(t, row))
			return -ENOMEM;
		for (m = 0; m < n; m++)
			had[row->side * n + m] |= row->out.values[m].has[row->side];
	}
	return 0;
}

/* Rows of one identity in a document add up, into the first. */
static void merge_rows(struct table *t)
{
	size_t i, m, kept = 0;

	for (i = 0; i < t->out.nr_rows; i++) {
		struct row *row = ROW(t->out.rows[i]);
		struct row *to = kept ? ROW(t->out.rows[kept - 1]) : NULL;

		if (!to || strcmp(to->key, row->key)) {
			t->out.rows[kept++] = &row->out;
			continue;
		}
		for (m = 0; m < t->out.nr_members; m++)
			to->out.values[m].v[row->side] += row->out.values[m].v[row->side];
		to->seen[row->side] = true;
		delete_row(row);
	}
	t->out.nr_rows = kept;
}

/*
 * Which members each side's rows have: a column a trace does not have
 * (the Freed remote count of a trace of one node) is not had, in any row
 * of it, rather than 0.  A side with the table and no rows has them all.
 * A side without the row has it at 0, where that side has the member.
 */
static int pair_table(struct table *t)
{
	size_t n = t->out.nr_members, i, m;
	bool *had = calloc(2 * n + 1, sizeof(*had));
	int side, err = -ENOMEM;

	/* Rows of a side are its table, whatever else it lacks. */
	t->out.present[0] |= t->nr[0] > 0;
	t->out.present[1] |= t->nr[1] > 0;
	/* Rows to sort, if none: qsort() takes no NULL. */
	if (!t->out.rows)
		t->out.rows = calloc(1, sizeof(*t->out.rows));
	if (!had || !t->out.rows || key_rows(t, had))
		goto out;
	qsort(t->out.rows, t->out.nr_rows, sizeof(*t->out.rows), cmp_row);
	merge_rows(t);
	/* Merged by their keys' text; shown in their identity's order. */
	kmem_diff_table__sort(&t->out, NULL, 0);
	for (i = 0; i < t->out.nr_rows; i++) {
		struct row *row = ROW(t->out.rows[i]);

		row->out.in = row->seen[0] && row->seen[1] ? KMEM_DIFF_IN_BOTH :
			      row->seen[0] ? KMEM_DIFF_IN_OLD : KMEM_DIFF_IN_NEW;
		t->out.nr_in[row->out.in]++;
		for (side = 0; side < 2; side++)
			for (m = 0; m < n; m++)
				row->out.values[m].has[side] = had[side * n + m];
	}
	err = 0;
out:
	free(had);
	return err;
}

int kmem_diff__pair(struct kmem_diff *d)
{
	size_t i;
	int err;

	if (d->paired)
		return 0;
	d->paired = true;
	err = pair_scalars(d);
	for (i = 0; !err && i < d->config->nr_tables; i++)
		err = pair_table(&d->tables[i]);
	return err;
}

/* --- results ---------------------------------------------------------- */

const struct kmem_diff_scalar *kmem_diff__scalars(const struct kmem_diff *d,
						  size_t *nr)
{
	*nr = d->nr_scalars;
	return d->scalars;
}

const struct kmem_diff_scalar *kmem_diff__scalar(const struct kmem_diff *d,
						 const char *path)
{
	size_t i;

	for (i = 0; i < d->nr_scalars; i++)
		if (!strcmp(d->scalars[i].path, path))
			return &d->scalars[i];
	return NULL;
}

struct kmem_diff_table *kmem_diff__table(struct kmem_diff *d, const char *name)
{
	size_t i;

	for (i = 0; d->paired && i < d->config->nr_tables; i++)
		if (!strcmp(d->tables[i].out.spec->name, name))
			return &d->tables[i].out;
	return NULL;
}

int kmem_diff_table__member(const struct kmem_diff_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_members; i++)
		if (!strcmp(t->members[i], name))
			return i;
	return -1;
}

bool kmem_diff_value__percent(const struct kmem_diff_value *v, double *pct)
{
	u64 o = v->v[KMEM_DIFF_OLD], n = v->v[KMEM_DIFF_NEW];

	if (!kmem_diff_value__both(v) || (!o && n))
		return false;
	if (!o)
		*pct = 0;
	else if (n >= o)
		*pct = 100.0 * (double)(n - o) / (double)o;
	else
		*pct = -100.0 * (double)(o - n) / (double)o;
	return true;
}

/* |new - old|, a side not had counting 0. */
static u64 magnitude(const struct kmem_diff_value *v)
{
	u64 o = v->has[0] ? v->v[0] : 0, n = v->has[1] ? v->v[1] : 0;

	return n > o ? n - o : o - n;
}

static int cmp_ident(const struct kmem_diff_row *x,
		     const struct kmem_diff_row *y, int s)
{
	if (x->ident_is_number[s] && y->ident_is_number[s] &&
	    x->ident_number[s] != y->ident_number[s])
		return x->ident_number[s] < y->ident_number[s] ? -1 : 1;
	return strcmp(x->ident[s], y->ident[s]);
}

struct sort_ctx {
	const struct kmem_diff_key	*keys;
	int				nr_keys;
	const struct kmem_diff_table	*t;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct kmem_diff_row *x = *(const struct kmem_diff_row * const *)a;
	const struct kmem_diff_row *y = *(const struct kmem_diff_row * const *)b;
	const struct sort_ctx *ctx = arg;
	size_t s, i;
	int k, c;

	/* Keys out of range sort nothing. */
	for (k = 0; k < ctx->nr_keys; k++) {
		i = ctx->keys[k].index < 0 ? SIZE_MAX : (size_t)ctx->keys[k].index;
		if (ctx->keys[k].kind == KMEM_DIFF_KEY_DELTA) {
			u64 mx, my;

			if (i >= ctx->t->nr_members)
				continue;
			mx = magnitude(&x->values[i]);
			my = magnitude(&y->values[i]);
			if (mx != my)
				return mx > my ? -1 : 1;
		} else if (i < ctx->t->nr_identity) {
			c = cmp_ident(x, y, i);
			if (c)
				return c;
		}
	}
	for (s = 0; s < ctx->t->nr_identity; s++) {
		c = cmp_ident(x, y, s);
		if (c)
			return c;
	}
	return 0;
}

void kmem_diff_table__sort(struct kmem_diff_table *t,
			   const struct kmem_diff_key *keys, int nr_keys)
{
	struct sort_ctx ctx = { .keys = keys, .nr_keys = nr_keys, .t = t };

	qsort_r(t->rows, t->nr_rows, sizeof(*t->rows), cmp_rows, &ctx);
}
