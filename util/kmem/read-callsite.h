/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_READ_CALLSITE_H
#define __PERF_KMEM_READ_CALLSITE_H

/*
 * The callsite of a page allocation is the first frame of its callchain
 * that is not a page allocator function.  Allocator functions are the
 * kernel symbols that match a regular expression.
 */

#include <linux/types.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "event.h"
#include "table-live.h"

struct machine;
struct kmem_kallsyms;

/*
 * What one distinct address of a callchain turned out to be: a slot of
 * the keyed table of frames.  The addresses are kernel text, never all
 * ones (the mark of an empty slot).
 */
struct callsite_frame {
	u64	ip;		/* the key */
	u64	callsite;	/* the key of the row this frame makes */
	bool	is_alloc;
};

/* The most frames of a walk the resolver remembers. */
#define CALLSITE_LAST_FRAMES	8

/*
 * Here and not in read-callsite.c for the walk of the frames below, inline
 * in the decoder: it runs for every allocation.
 */
struct callsite_resolver {
	struct kmem_live frames;	/* struct callsite_frame */
	/*
	 * The last walk that found a callsite: the chain's entries up to
	 * it, and the callsite.  A callsite depends on those entries only,
	 * and allocations come in runs from one path: most walks are one
	 * comparison of a few words.  0 entries: none yet.
	 */
	u64		last_ips[CALLSITE_LAST_FRAMES];
	u64		last_nr;
	u64		last_callsite;
	struct machine	*machine;
	/*
	 * When set, symbols come from here and not from the machine's maps:
	 * read at the first lookup, from kallsyms_path.
	 */
	struct kmem_kallsyms *kallsyms;
	char		*kallsyms_path;
	regex_t		regex;
	bool		raw_ip;
	size_t		nr_named;	/* of the frames, those with a symbol */
};

/*
 * The built-in pattern, matching the allocator functions of every kernel
 * from v4.1 on.  The caller frees it.
 */
char *callsite_default_alloc_pattern(void);

typedef void (*callsite_alloc_func_fn)(const char *name, void *arg);

/*
 * @pattern replaces the default when @extend is false, and is added as an
 * alternative to it when @extend is true.  NULL @pattern: the default.
 * @raw_ip keeps the return address of the callsite frame instead of the
 * start of its function, so that each call is a row of its own.
 */
struct callsite_resolver *callsite_resolver__new(struct machine *machine,
						 const char *pattern,
						 bool extend, bool raw_ip,
						 char *err, size_t err_size);
void callsite_resolver__delete(struct callsite_resolver *r);

/*
 * A resolver for memcg reclaims: their callsite is past memcg's charging
 * and reclaim functions as well as the allocator's, which are @user's
 * pattern (added to the default with @extend, else replacing it) or, with
 * a NULL @user, the default.
 */
struct callsite_resolver *callsite_resolver__new_memcg(struct machine *machine,
						       const char *user,
						       bool extend, bool raw_ip,
						       char *err, size_t err_size);

/*
 * Take kernel symbols from the kallsyms file @path, read into a table of
 * our own at the first lookup, instead of loading them into the machine's
 * maps (see read-kallsyms.h for why).  Of another boot of the kernel
 * (its _text elsewhere than the trace's kernel map has it), its vmlinux
 * symbols are moved by the difference and its module symbols dropped.  If
 * it cannot be read, the maps stay the source (perf -v says why).
 */
int callsite_resolver__use_kallsyms(struct callsite_resolver *r,
				    const char *path);

/* Does @name match the allocator pattern? */
bool callsite_resolver__is_alloc_func(struct callsite_resolver *r,
				      const char *name);

/* Resolve @ip, the first time it is seen; NULL: no memory. */
struct callsite_frame *
callsite_resolver__new_frame(struct callsite_resolver *r, u64 ip);

/*
 * The frame of @ip, not all ones, until the next new one; NULL: no
 * memory.  Every frame of every callchain comes here, mostly one of a
 * few thousand: the probe is written out, the slots an array of frames.
 */
static inline struct callsite_frame *
callsite_resolver__frame(struct callsite_resolver *r, u64 ip)
{
	const struct kmem_live *t = &r->frames;
	struct callsite_frame *f, *frames = (struct callsite_frame *)t->slots;
	size_t i = kmem_live__home(t, ip);

	for (;; i = (i + 1) & t->mask) {
		f = &frames[i];
		if (f->ip == ip)
			return f;
		if (f->ip == KMEM_LIVE_EMPTY)
			return callsite_resolver__new_frame(r, ip);
	}
}

/* Does @chain begin with the entries of the last walk? */
static inline bool callsite_resolver__same_walk(const struct callsite_resolver *r,
						const struct ip_callchain *chain)
{
	u64 i, nr = r->last_nr;

	if (!nr || chain->nr < nr)
		return false;
	for (i = 0; i < nr; i++)
		if (chain->ips[i] != r->last_ips[i])
			return false;
	return true;
}

/* Remember the walk that found @callsite at @chain's entry @i. */
static inline u64 callsite_resolver__note_walk(struct callsite_resolver *r,
					       const struct ip_callchain *chain,
					       u64 i, u64 callsite)
{
	u64 k;

	if (i < CALLSITE_LAST_FRAMES) {
		/* A few words: a loop, where memcpy() would be a call. */
		for (k = 0; k <= i; k++)
			r->last_ips[k] = chain->ips[k];
		r->last_nr = i + 1;
		r->last_callsite = callsite;
	}
	return callsite;
}

/* The callsite of a sample's callchain; 0 when it has no kernel frame. */
static inline u64 callsite_resolver__callsite(struct callsite_resolver *r,
					      const struct ip_callchain *chain)
{
	u64 i;

	if (!chain)
		return 0;
	if (callsite_resolver__same_walk(r, chain))
		return r->last_callsite;
	for (i = 0; i < chain->nr; i++) {
		u64 ip = chain->ips[i];
		struct callsite_frame *f;

		if (ip >= PERF_CONTEXT_MAX) {
			/* Callsites are kernel code: stop at user frames. */
			if (ip == PERF_CONTEXT_USER)
				break;
			continue;
		}
		f = callsite_resolver__frame(r, ip);
		if (!f)
			return 0;
		if (!f->is_alloc)
			return callsite_resolver__note_walk(r, chain, i,
							    f->callsite);
	}
	return 0;
}

/*
 * As callsite_resolver__callsite(), into @callsite, where @chain begins
 * with the entries of the last walk: false where it needs a walk, which
 * may meet a frame not seen before and make a call.  Allocations come in
 * runs from one path: most need none.
 */
static inline bool callsite_resolver__known_callsite(struct callsite_resolver *r,
						     const struct ip_callchain *chain,
						     u64 *callsite)
{
	*callsite = r->last_callsite;
	return callsite_resolver__same_walk(r, chain);
}

/**
 * callsite_resolver__frames - the kernel frames of a callchain from its
 *	callsite on
 * @r: the resolver
 * @chain: a sample's callchain, leaf first
 * @ips: where the frames go, leaf (the callsite's) first
 * @max: the room in @ips
 *
 * The frames callsite_resolver__callsite() skips, the allocator's, are
 * left out, and so is everything from the first user frame on.
 *
 * Return: the number of frames, at most @max; 0 when the chain has none.
 */
size_t callsite_resolver__frames(struct callsite_resolver *r,
				 const struct ip_callchain *chain, u64 *ips,
				 size_t max);

/*
 * The callsite of a single return address, as slab events record it: the
 * start of its function, or @ip itself with raw_ip or without a symbol.
 */
u64 callsite_resolver__function(struct callsite_resolver *r, u64 ip);

/*
 * Were there kernel addresses and no symbols for any?  Then every
 * callchain's callsite is its leaf, in the allocator.
 */
bool callsite_resolver__named_none(const struct callsite_resolver *r);

/* Print "func", "func+0x1a" (@offset) or the raw address into @buf. */
const char *callsite_resolver__name(struct callsite_resolver *r, u64 callsite,
				    bool offset, char *buf, size_t size);

/* Call @fn for every kernel symbol taken for an allocator function. */
int callsite_resolver__list_alloc_funcs(struct callsite_resolver *r,
					callsite_alloc_func_fn fn, void *arg);

#endif /* __PERF_KMEM_READ_CALLSITE_H */
