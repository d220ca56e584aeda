// SPDX-License-Identifier: GPL-2.0
/*
 * Which frames of a page allocation's callchain belong to the allocator.
 *
 * The page allocator's entry points were renamed many times: v4.1 had
 * __alloc_pages_nodemask and alloc_pages_current, v5.13 __alloc_pages,
 * v5.16 added the folio wrappers, v6.7 alloc_pages_mpol, v6.10 the
 * _noprof suffix of memory allocation profiling and v6.15
 * __alloc_frozen_pages.  A frame is an allocator frame when its function
 * name matches one alternative below, with or without _noprof and with any
 * compiler suffix (.isra.0, .constprop.0, .part.0).
 *
 * Callers that merely have "alloc" and "page" in their names, like
 * alloc_page_buffers or alloc_slab_page, are callsites and do not match.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/err.h>
#include <linux/zalloc.h>
#include <perf/event.h>

#include "callchain.h"
#include "debug.h"
#include "dso.h"
#include "event.h"
#include "machine.h"
#include "map.h"
#include "maps.h"
#include "read-callsite.h"
#include "read-kallsyms.h"
#include "symbol.h"
#include "table-live.h"

/*
 * Allocator entry points, each also matched with a _noprof suffix and any
 * compiler suffix, with or without one or two leading underscores.
 */
static const char * const alloc_funcs[] = {
	/* v4.1 .. v5.12 */
	"alloc_pages_nodemask", "alloc_pages_current", "alloc_pages_vma",
	"alloc_page_interleave",
	/* every version */
	"alloc_pages", "alloc_pages_node", "alloc_pages_exact",
	"alloc_pages_exact_nid", "get_free_pages", "get_zeroed_page",
	"alloc_pages_bulk", "alloc_pages_bulk_array",
	"alloc_pages_bulk_array_mempolicy", "alloc_pages_bulk_mempolicy",
	/* v5.15 .. v6.6 */
	"alloc_pages_preferred_many",
	/* v5.16 on: folios */
	"folio_alloc", "folio_alloc_node", "folio_alloc_mpol",
	"vma_alloc_folio", "filemap_alloc_folio",
	/* v6.7 on */
	"alloc_pages_mpol",
	/* v6.15 on */
	"alloc_frozen_pages", "alloc_frozen_pages_nolock", "alloc_pages_nolock",
	/*
	 * The buddy allocator's insides, where kmem:mm_page_alloc_extfrag
	 * fires: every version has some of them, v6.15 renamed the
	 * fallback's (__rmqueue_fallback, steal_suitable_fallback).
	 */
	"get_page_from_freelist", "rmqueue", "rmqueue_pcplist", "rmqueue_bulk",
	"rmqueue_buddy", "rmqueue_smallest", "rmqueue_fallback", "rmqueue_claim",
	"rmqueue_steal", "rmqueue_cma_fallback", "steal_suitable_fallback",
	"try_to_claim_block", "alloc_pages_slowpath", "alloc_pages_direct_compact",
	"alloc_pages_direct_reclaim", "alloc_pages_cpuset_fallback",
	"alloc_pages_may_oom",
	/*
	 * A tracepoint's iterator, __traceiter_mm_page_alloc: it heads the
	 * callchain when a second probe (a BPF program, another perf) is
	 * on the tracepoint, and is never where an allocation comes from.
	 */
	"traceiter_[a-z0-9_]+",
};

/*
 * memcg's charging and reclaim, between an allocation or a fault and a
 * memcg reclaim: v4.1 .. v6.18 (obj_cgroup_charge_account: after v6.12).
 */
static const char * const memcg_funcs[] = {
	"try_to_free_mem_cgroup_pages", "try_charge", "try_charge_memcg",
	"charge_memcg", "mem_cgroup_charge", "mem_cgroup_try_charge",
	"mem_cgroup_swapin_charge_folio", "mem_cgroup_swapin_charge_page",
	"mem_cgroup_charge_hugetlb", "mem_cgroup_hugetlb_try_charge",
	"memcg_kmem_charge_page", "memcg_kmem_charge", "memcg_charge_kernel_stack",
	"obj_cgroup_charge", "obj_cgroup_charge_pages", "obj_cgroup_charge_account",
	"memcg_slab_post_alloc_hook", "memcg_slab_post_charge", "reclaim_high",
	"mem_cgroup_handle_over_high",
	"mem_cgroup_sk_charge", "mem_cgroup_charge_skmem",
};

#define ALLOC_PREFIX	"^_?_?("
#define ALLOC_SUFFIX	")(_noprof)?(\\.(isra|constprop|part|cold|llvm)\\.[0-9]+)*$"

/* "^_?_?(a|b|...)(_noprof)?..." of the functions @funcs. */
static char *funcs_pattern(const char * const *funcs, size_t nr)
{
	size_t i, len = strlen(ALLOC_PREFIX) + strlen(ALLOC_SUFFIX) + 1;
	char *pattern, *p;

	for (i = 0; i < nr; i++)
		len += strlen(funcs[i]) + 1;
	pattern = malloc(len);
	if (!pattern)
		return NULL;
	p = stpcpy(pattern, ALLOC_PREFIX);
	for (i = 0; i < nr; i++) {
		if (i)
			*p++ = '|';
		p = stpcpy(p, funcs[i]);
	}
	stpcpy(p, ALLOC_SUFFIX);
	return pattern;
}

char *callsite_default_alloc_pattern(void)
{
	return funcs_pattern(alloc_funcs, ARRAY_SIZE(alloc_funcs));
}

/* Room for a kernel symbol's name and its NUL. */
#define KSYM_NAME_BUF	(KSYM_NAME_LEN + 1)

static int compile_pattern(regex_t *re, const char *pattern, bool extend,
			   char *err, size_t err_size)
{
	char *builtin = NULL, *full = NULL;
	const char *user = pattern;
	int ret;

	if (!pattern || extend) {
		builtin = callsite_default_alloc_pattern();
		if (!builtin)
			return -ENOMEM;
	}
	if (!pattern) {
		pattern = builtin;
	} else if (extend) {
		if (asprintf(&full, "(%s)|(%s)", builtin, pattern) < 0) {
			free(builtin);
			return -ENOMEM;
		}
		pattern = full;
	}
	ret = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	if (ret) {
		char msg[128];

		regerror(ret, re, msg, sizeof(msg));
		snprintf(err, err_size, "%s '%s': %s",
			 extend ? "--alloc-func-add" : "--alloc-func", user, msg);
	}
	free(builtin);
	free(full);
	return ret ? -EINVAL : 0;
}

struct callsite_resolver *callsite_resolver__new(struct machine *machine,
						 const char *pattern,
						 bool extend, bool raw_ip,
						 char *err, size_t err_size)
{
	struct callsite_resolver *r = zalloc(sizeof(*r));

	if (!r) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	if (compile_pattern(&r->regex, pattern, extend, err, err_size)) {
		free(r);
		return NULL;
	}
	if (kmem_live__init(&r->frames, sizeof(struct callsite_frame))) {
		regfree(&r->regex);
		free(r);
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	r->machine = machine;
	r->raw_ip = raw_ip;
	return r;
}

void callsite_resolver__delete(struct callsite_resolver *r)
{
	if (!r)
		return;
	kmem_live__exit(&r->frames);
	kmem_kallsyms__delete(r->kallsyms);
	free(r->kallsyms_path);
	regfree(&r->regex);
	free(r);
}

bool callsite_resolver__is_alloc_func(struct callsite_resolver *r,
				      const char *name)
{
	return regexec(&r->regex, name, 0, NULL, 0) == 0;
}

/*
 * Where the recorded kernel put its relocation reference (_text), and so
 * its symbols; false if the trace does not say.
 */
static bool recorded_reloc_ref(struct callsite_resolver *r, const char **name,
			       u64 *addr)
{
	struct map *kmap = r->machine ? machine__kernel_map(r->machine) : NULL;
	struct kmap *k = kmap ? map__kmap(kmap) : NULL;

	if (!k || !k->ref_reloc_sym || !k->ref_reloc_sym->name)
		return false;
	*name = k->ref_reloc_sym->name;
	*addr = k->ref_reloc_sym->addr;
	return true;
}

int callsite_resolver__use_kallsyms(struct callsite_resolver *r,
				    const char *path)
{
	char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	free(r->kallsyms_path);
	r->kallsyms_path = copy;
	return 0;
}

/*
 * The kallsyms table, read the first time it is needed: by then the trace's
 * kernel map says where the recorded kernel's _text was, which the header
 * alone does not (before the events, perf takes the running kernel's).
 */
static struct kmem_kallsyms *kallsyms_table(struct callsite_resolver *r)
{
	char err[PATH_MAX + 80];
	struct kmem_kallsyms *ks;
	const char *ref;
	u64 recorded, found;

	if (r->kallsyms || !r->kallsyms_path)
		return r->kallsyms;
	ks = kmem_kallsyms__read(r->kallsyms_path, err, sizeof(err));
	if (ks && recorded_reloc_ref(r, &ref, &recorded)) {
		if (!kmem_kallsyms__address(ks, ref, &found)) {
			snprintf(err, sizeof(err), "%s: no %s",
				 r->kallsyms_path, ref);
			kmem_kallsyms__delete(ks);
			ks = NULL;
		} else if (found != recorded) {
			/* Of another boot: under KASLR, vmlinux moved. */
			pr_debug("perf kmem: %s: %s %#" PRIx64 " in the trace, %#" PRIx64 " in the file: moved\n",
				 r->kallsyms_path, ref, recorded, found);
			kmem_kallsyms__relocate(ks, found - recorded);
		}
	}
	if (ks)
		pr_debug("perf kmem: kernel symbols from %s\n", r->kallsyms_path);
	else
		pr_debug("perf kmem: %s; loading it into perf's maps\n", err);
	/* Tried once either way. */
	zfree(&r->kallsyms_path);
	r->kallsyms = ks;
	return ks;
}

/* The function @ip is in: its start, and its name copied into @name. */
static bool kernel_symbol(struct callsite_resolver *r, u64 ip, u64 *start,
			  char *name, size_t size)
{
	struct kmem_kallsyms *ks = kallsyms_table(r);
	struct map *map = NULL;
	struct symbol *sym;

	if (ks) {
		struct kmem_ksym ksym;

		if (!kmem_kallsyms__find(ks, ip, &ksym))
			return false;
		*start = ksym.start;
		snprintf(name, size, "%.*s", ksym.len, ksym.name);
		return true;
	}
	if (!r->machine)
		return false;
	sym = maps__find_symbol(machine__kernel_maps(r->machine), ip, &map);
	if (sym) {
		*start = map__unmap_ip(map, sym->start);
		snprintf(name, size, "%s", sym->name);
	}
	/* maps__find_symbol() handed us a reference to the map. */
	map__put(map);
	return sym;
}

struct callsite_frame *
callsite_resolver__new_frame(struct callsite_resolver *r, u64 ip)
{
	char name[KSYM_NAME_BUF];
	u64 start, callsite = ip;
	bool is_alloc = false;
	struct callsite_frame *f;

	if (kernel_symbol(r, ip, &start, name, sizeof(name))) {
		r->nr_named++;
		is_alloc = callsite_resolver__is_alloc_func(r, name);
		if (!r->raw_ip)
			callsite = start;
	}
	/* Probed after the lookup: reading kallsyms adds no frame. */
	f = kmem_live__add(&r->frames, kmem_live__probe(&r->frames, ip), &ip);
	if (f) {
		f->callsite = callsite;
		f->is_alloc = is_alloc;
	}
	return f;
}

size_t callsite_resolver__frames(struct callsite_resolver *r,
				 const struct ip_callchain *chain, u64 *ips,
				 size_t max)
{
	bool in_allocator = true;
	size_t n = 0;
	u64 i;

	for (i = 0; chain && i < chain->nr && n < max; i++) {
		u64 ip = chain->ips[i];
		struct callsite_frame *f;

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_USER)
				break;
			continue;
		}
		if (in_allocator) {
			f = callsite_resolver__frame(r, ip);
			if (f && f->is_alloc)
				continue;
			in_allocator = false;
		}
		ips[n++] = ip;
	}
	return n;
}

bool callsite_resolver__named_none(const struct callsite_resolver *r)
{
	return r->frames.nr && !r->nr_named;
}

u64 callsite_resolver__function(struct callsite_resolver *r, u64 ip)
{
	struct callsite_frame *f;

	/* A slab event's call_site, from the file: no key of the table. */
	if (!ip || ip == KMEM_LIVE_EMPTY)
		return ip;
	f = callsite_resolver__frame(r, ip);
	return f ? f->callsite : ip;
}

const char *callsite_resolver__name(struct callsite_resolver *r, u64 callsite,
				    bool offset, char *buf, size_t size)
{
	char name[KSYM_NAME_BUF];
	u64 start;

	if (!callsite)
		snprintf(buf, size, "(unknown)");
	else if (!kernel_symbol(r, callsite, &start, name, sizeof(name)))
		snprintf(buf, size, "%#" PRIx64, callsite);
	else if (offset && callsite != start)
		snprintf(buf, size, "%s+%#" PRIx64, name, callsite - start);
	else
		snprintf(buf, size, "%s", name);
	return buf;
}

struct alloc_func_walk {
	struct callsite_resolver	*r;
	callsite_alloc_func_fn		fn;
	void				*arg;
};

static void list_if_alloc_func(const struct kmem_ksym *sym, void *arg)
{
	struct alloc_func_walk *walk = arg;
	char name[KSYM_NAME_BUF];

	snprintf(name, sizeof(name), "%.*s", sym->len, sym->name);
	if (callsite_resolver__is_alloc_func(walk->r, name))
		walk->fn(name, walk->arg);
}

int callsite_resolver__list_alloc_funcs(struct callsite_resolver *r,
					callsite_alloc_func_fn fn, void *arg)
{
	struct map *kmap = r->machine ? machine__kernel_map(r->machine) : NULL;
	struct alloc_func_walk walk = { .r = r, .fn = fn, .arg = arg };
	struct symbol *sym;
	struct rb_node *n __maybe_unused;

	if (kallsyms_table(r)) {
		kmem_kallsyms__for_each(r->kallsyms, list_if_alloc_func, &walk);
		return 0;
	}
	if (!kmap || map__load(kmap) < 0)
		return -ENOENT;
	map__for_each_symbol(kmap, sym, n)
		if (callsite_resolver__is_alloc_func(r, sym->name))
			fn(sym->name, arg);
	return 0;
}

struct callsite_resolver *callsite_resolver__new_memcg(struct machine *machine,
						       const char *user,
						       bool extend, bool raw_ip,
						       char *err, size_t err_size)
{
	char *memcg = funcs_pattern(memcg_funcs, ARRAY_SIZE(memcg_funcs));
	char *pattern = NULL;
	struct callsite_resolver *r;

	if (memcg && user && asprintf(&pattern, "(%s)|(%s)", user, memcg) < 0)
		pattern = NULL;
	if (!memcg || (user && !pattern)) {
		free(memcg);
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	r = callsite_resolver__new(machine, pattern ?: memcg, !user || extend,
				   raw_ip, err, err_size);
	free(pattern);
	free(memcg);
	return r;
}
