/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_REPORT_DIFF_H
#define __PERF_KMEM_REPORT_DIFF_H

/*
 * The numbers of two documents of one layout, paired: perf kmem diff's
 * engine.  Each document comes in as its scalars, each with its path
 * ("page.summary.failures.count"), in document order, as a JSON visitor
 * (json.h) hands them over; the old document first, then the new.
 *
 * Scalars pair by their path.  Tables, arrays of rows that the config
 * names, pair by row identity instead: the values of the members that
 * name a row (a callsite's name, an order, a migration type's name), not
 * its index, so that the rows of two traces of other boots or kernels
 * meet where their names do.  Every other number of a row is one of its
 * members, paired by name.  Rows of the same identity in one document
 * (two static functions of one name) add up to one.
 *
 * No global state, no printing: the caller prints what it gets back.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define KMEM_DIFF_OLD		0
#define KMEM_DIFF_NEW		1
/* Members that name a row, and alternatives of each. */
#define KMEM_DIFF_MAX_IDENTITY	4
#define KMEM_DIFF_MAX_ALT	2

/*
 * A table: the rows of the array at @rows ("page.callers.rows"), named by
 * @identity.  Each identity entry is a member path, or alternatives
 * "name|address": the first one with a value that is not null.  A member
 * path also takes what lies under it, an array of names joined by '|'.
 * @ignore lists members that are neither names nor numbers to pair
 * (addresses, numeric codes of a name); only numbers become members.
 */
struct kmem_diff_table_spec {
	const char		*name;		/* how the caller asks for it */
	const char		*rows;
	/*
	 * A scalar every document with the table has (its row count): a
	 * document without it has no table, and its side of every row is
	 * unknown rather than 0.
	 */
	const char		*present;
	const char * const	*identity;	/* NULL-terminated */
	const char * const	*ignore;	/* NULL-terminated, or NULL */
};

struct kmem_diff_config {
	const struct kmem_diff_table_spec	*tables;
	size_t					nr_tables;
	/* Scalars left out, in tables too: by path, or a prefix of whole components. */
	const char * const			*ignore;	/* NULL-terminated */
};

/* A number of both documents; @has false where a document lacks it. */
struct kmem_diff_value {
	bool	has[2];
	u64	v[2];
};

/* A scalar.  Strings, booleans and nulls are context, not measures. */
struct kmem_diff_scalar {
	const char		*path;
	bool			is_number;	/* on one side at least */
	struct kmem_diff_value	num;
	/* Not numbers: the text ("true", "0x1f"), NULL for null. */
	bool			has_str[2];
	const char		*str[2];
};

enum kmem_diff_in {
	KMEM_DIFF_IN_BOTH,
	KMEM_DIFF_IN_OLD,	/* gone */
	KMEM_DIFF_IN_NEW,	/* new */
	KMEM_DIFF_NR_IN,
};

struct kmem_diff_row {
	enum kmem_diff_in	in;
	/* The identity, slot by slot; "" where a row has none. */
	const char		*ident[KMEM_DIFF_MAX_IDENTITY];
	bool			ident_is_number[KMEM_DIFF_MAX_IDENTITY];
	u64			ident_number[KMEM_DIFF_MAX_IDENTITY];
	/*
	 * A value per member of the table.  A row a document lacks counts 0
	 * there, if the document has the table.  A member no row of a
	 * document has (a column that trace does not have), or a table a
	 * document lacks, is not had.
	 */
	struct kmem_diff_value	*values;
};

struct kmem_diff_table {
	const struct kmem_diff_table_spec	*spec;
	bool					present[2];
	size_t					nr_identity;
	size_t					nr_members;
	const char				**members;
	size_t					nr_rows;
	struct kmem_diff_row			**rows;
	size_t					nr_in[KMEM_DIFF_NR_IN];
};

enum kmem_diff_key_kind {
	KMEM_DIFF_KEY_DELTA,	/* |new - old| of a member, largest first */
	KMEM_DIFF_KEY_IDENTITY,	/* an identity slot, smallest first */
};

struct kmem_diff_key {
	enum kmem_diff_key_kind	kind;
	int			index;	/* of the member or the slot */
};

struct kmem_diff;

/* NULL: no memory, or a config with more identity than the limits. */
struct kmem_diff *kmem_diff__new(const struct kmem_diff_config *config);
void kmem_diff__delete(struct kmem_diff *d);

struct kmem_json_value;

/*
 * Take scalar @v at @path of document @side: a number, or a text as the
 * document has it ("-5", "0.5", "true", "0x1f"; null none).  Return: 0;
 * -ENOMEM; -EINVAL after kmem_diff__pair(), for a row out of order, or a
 * side out of range.
 */
int kmem_diff__take(struct kmem_diff *d, int side, const char *path,
		    const struct kmem_json_value *v);

/*
 * Pair what both documents gave: after it the scalars and tables can be
 * had, and no more can be added.  Tables come sorted by identity.
 * Return: 0 or -ENOMEM.
 */
int kmem_diff__pair(struct kmem_diff *d);

/* The scalars of both documents, in document order; after pairing. */
const struct kmem_diff_scalar *kmem_diff__scalars(const struct kmem_diff *d,
						  size_t *nr);
/* The scalar at @path, or NULL. */
const struct kmem_diff_scalar *kmem_diff__scalar(const struct kmem_diff *d,
						 const char *path);

/* The table the config calls @name, or NULL; after pairing. */
struct kmem_diff_table *kmem_diff__table(struct kmem_diff *d,
					 const char *name);

/* The index of member @name in @t's values, or -1. */
int kmem_diff_table__member(const struct kmem_diff_table *t,
			    const char *name);

/* Sort @t's rows by @keys, then by identity. */
void kmem_diff_table__sort(struct kmem_diff_table *t,
			   const struct kmem_diff_key *keys, int nr_keys);

/*
 * What of @path lies under @prefix: "" for @prefix itself, "b.c" for
 * "a.b.c" under "a"; NULL for a path not under it.
 */
const char *kmem_diff__under(const char *path, const char *prefix);

/* new - old, both had. */
static inline s64 kmem_diff_value__delta(const struct kmem_diff_value *v)
{
	return (s64)(v->v[KMEM_DIFF_NEW] - v->v[KMEM_DIFF_OLD]);
}

static inline bool kmem_diff_value__both(const struct kmem_diff_value *v)
{
	return v->has[KMEM_DIFF_OLD] && v->has[KMEM_DIFF_NEW];
}

/*
 * The delta in percent of the old value: false when a side is not had,
 * or when the old value is 0 and the new one is not (no percentage of
 * nothing: perf kmem diff calls that "new").  0 to 0 is 0%.
 */
bool kmem_diff_value__percent(const struct kmem_diff_value *v, double *pct);

#endif /* __PERF_KMEM_REPORT_DIFF_H */
