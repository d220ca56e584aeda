/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_REPORT_COLUMNS_H
#define __PERF_KMEM_REPORT_COLUMNS_H

/*
 * The columns of perf kmem's tables, one row each: the sort key that
 * names it, its header, width and alignment, how to compare two rows by
 * it and how to print its cell.  -s parsing, its error message, the help
 * text and the order of the columns all come from these tables.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "table-rows.h"

/* What a cell needs beyond its row: the trace, the options, the names. */
/* How page rows are told apart by task, if they are (-s pid, -s comm). */
enum kmem_task_key {
	KMEM_TASK_NONE,
	KMEM_TASK_PID,		/* the process id */
	KMEM_TASK_COMM,		/* the command name, as the task had it then */
};

struct kmem_cell_ctx {
	u64		page_size;
	bool		pre_v4_4;	/* migration types of kernels < v4.4 */
	bool		pfn_is_page;	/* kernels < v4.1 traced struct page * */
	bool		live;		/* --live: hits are pages still live */
	bool		xnode;		/* the trace has nodes to free across */
	bool		callchains;	/* page callsites are known */
	bool		frag_classes;	/* fallbacks are classed */
	bool		fragmenting;	/* ...and some fragmented */
	enum kmem_task_key task_key;	/* what kmem_page_row::task holds */
	/* The command name of a task key under KMEM_TASK_COMM. */
	const char	*(*comm_name)(void *arg, u32 task);
	/* The recording kernel's names of a gfp value. */
	const char	*(*gfp_name)(void *arg, u64 gfp);
	/* A symbol and offset, "func+0x1a"; NULL if none covers @addr. */
	const char	*(*symbol)(void *arg, u64 addr, char *buf, size_t size);
	/* A callsite as printed: a function, func+0xoff or an address. */
	const char	*(*callsite_name)(void *arg, u64 callsite, char *buf,
					  size_t size);
	void		*arg;
};

struct kmem_column {
	const char	*key;		/* its -s name; NULL: not a sort key */
	const char	*alias;		/* another -s name, or NULL */
	const char	*header;
	int		width;		/* the least; 0: the header's */
	bool		left;		/* cells flush left */
	bool		header_left;
	unsigned int	tables;		/* a bit per table that shows it */
	kmem_rows_cmp_fn cmp;
	void		(*cell)(const struct kmem_cell_ctx *ctx, const void *row,
				char *buf, size_t size);
	/* Optional: a header that depends on the trace. */
	const char	*(*header_of)(const struct kmem_cell_ctx *ctx);
	/* Optional: whether the trace has the column at all. */
	bool		(*shown)(const struct kmem_cell_ctx *ctx);
};

/* Bits of kmem_column::tables, by enum kmem_page_table and kmem_slab_table. */
#define KMEM_TABLE_BIT(t)	(1U << (t))

extern const struct kmem_column kmem_page_columns[];
extern const size_t kmem_page_nr_columns;
extern const struct kmem_column kmem_slab_columns[];
extern const size_t kmem_slab_nr_columns;
/* The fallback and failure tables of the fragmentation analysis: table 0. */
extern const struct kmem_column kmem_frag_columns[];
extern const size_t kmem_frag_nr_columns;
extern const struct kmem_column kmem_frag_fail_columns[];
extern const size_t kmem_frag_fail_nr_columns;

/* The most sort keys -s takes. */
#define KMEM_MAX_SORT_KEYS	8

/* A -s argument split at its commas, once for all its readers. */
struct kmem_sort_keys {
	const char	*name[KMEM_MAX_SORT_KEYS];	/* into the argument */
	size_t		len[KMEM_MAX_SORT_KEYS];
	int		nr;
	bool		too_many;	/* it had more than KMEM_MAX_SORT_KEYS */
};

/**
 * kmem_sort_keys__split - split a -s argument into its keys
 * @keys: filled in; its names point into @str, which must outlive it
 * @str: "key[,key...]", or NULL: no keys
 */
void kmem_sort_keys__split(struct kmem_sort_keys *keys, const char *str);

/**
 * kmem_columns__parse - the comparators of the keys of a -s argument
 * @cols: the columns
 * @nr_cols: how many
 * @given: the argument, split
 * @keys: the comparators of the keys, in order
 * @max_keys: the room in @keys
 * @bad: the unknown key, on -EINVAL
 * @bad_size: the size of @bad
 *
 * Return: the number of keys, -EINVAL for an unknown key, -E2BIG for
 * more than @max_keys.
 */
int kmem_columns__parse(const struct kmem_column *cols, size_t nr_cols,
			const struct kmem_sort_keys *given,
			kmem_rows_cmp_fn *keys, int max_keys,
			char *bad, size_t bad_size);

/**
 * kmem_columns__task_key - which task key a -s argument has
 * @given: the argument, split
 * @key: where the key goes: KMEM_TASK_NONE when it has neither pid nor comm
 *
 * A page row is of one task, told by its pid or by its command name: not
 * by both.
 *
 * Return: 0, or -EINVAL when @str has both pid and comm.
 */
int kmem_columns__task_key(const struct kmem_sort_keys *given,
			   enum kmem_task_key *key);

/* "key, key, ..." of the columns that are sort keys, into @buf. */
const char *kmem_columns__keys(const struct kmem_column *cols, size_t nr_cols,
			       char *buf, size_t size);

/* The header of @col for the trace of @ctx. */
const char *kmem_column__header(const struct kmem_column *col,
				const struct kmem_cell_ctx *ctx);

/* Does @col appear in table @table of the trace of @ctx? */
bool kmem_column__shown(const struct kmem_column *col,
			const struct kmem_cell_ctx *ctx, int table);

/* "12,345,678": thousands separators whatever the locale. */
const char *kmem_commas(u64 v, char *buf, size_t size);

#endif /* __PERF_KMEM_REPORT_COLUMNS_H */
