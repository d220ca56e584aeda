// SPDX-License-Identifier: GPL-2.0
/*
 * A kallsyms file as a sorted table of symbols; see read-kallsyms.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "count.h"
#include "read-kallsyms.h"

/* Where a symbol's name, and its module's, sit in the file. */
struct ksym_entry {
	u64	start;
	u32	name_off;	/* also its place in the file, for ties */
	u16	name_len;
	u16	mod_len;	/* "[module]" after the name; 0: vmlinux */
};

struct kmem_kallsyms {
	char			*text;
	size_t			size;
	bool			mapped;
	struct ksym_entry	*syms;
	size_t			nr;
};

/* kallsyms lines name no symbol longer than KSYM_NAME_LEN (512). */
#define KSYM_MAX_LEN	USHRT_MAX

static int read_all(int fd, char **text, size_t *size)
{
	size_t alloc = 1 << 20, len = 0;
	char *buf = malloc(alloc);

	while (buf) {
		ssize_t n;

		if (len == alloc) {
			char *bigger = realloc(buf, alloc *= 2);

			if (!bigger)
				break;
			buf = bigger;
		}
		n = read(fd, buf + len, alloc - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			*text = buf;
			*size = len;
			return 0;
		}
		len += n;
	}
	free(buf);
	return -errno ?: -ENOMEM;
}

/*
 * Map the file in place; /proc/kallsyms cannot be mapped and says its size
 * is 0, so it is read.
 */
static int load_text(struct kmem_kallsyms *ks, const char *path)
{
	struct stat st;
	int fd, err = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && S_ISREG(st.st_mode)) {
		void *p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			ks->text = p;
			ks->size = st.st_size;
			ks->mapped = true;
		}
	}
	if (!ks->mapped)
		err = read_all(fd, &ks->text, &ks->size);
	close(fd);
	return err;
}

/* One more than the value of a hex digit, 0 for any other byte. */
static const unsigned char hex_value_plus_1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

#define BYTES_OF(c)	(0x0101010101010101ULL * (c))
#define HOST_LITTLE_ENDIAN	(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define HIGH_BITS	BYTES_OF(0x80)

/*
 * Eight hex digits at @p, the first the most significant, into @val; false
 * if one is not a hex digit.  Each byte is tested and turned into its
 * value in one 64-bit word: the sixteen digits of a line's address were
 * two thirds of the parse, a table lookup and a shift each.  A byte below
 * 0x80 plus (0x80 - lo) has its high bit set if it is lo or above.
 */
static bool hex8(const char *p, u64 *val)
{
	u64 w, l, digit, letter, v;

	memcpy(&w, p, sizeof(w));
	l = w | BYTES_OF(0x20);		/* A-F as a-f; digits stay */
	digit = (w + BYTES_OF(0x80 - '0')) & ~(w + BYTES_OF(0x7f - '9'));
	letter = (l + BYTES_OF(0x80 - 'a')) & ~(l + BYTES_OF(0x7f - 'f'));
	if ((w & HIGH_BITS) || ((digit | letter) & HIGH_BITS) != HIGH_BITS)
		return false;
	v = (w & BYTES_OF(0x0f)) + ((letter & HIGH_BITS) >> 7) * 9;
	/* Little-endian: the first digit is the lowest byte.  Pack pairs. */
	v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffULL;
	v = ((v << 8) | (v >> 16)) & 0x0000ffff0000ffffULL;
	*val = ((v << 16) | (v >> 32)) & 0xffffffffULL;
	return true;
}

/* The 64-bit address of a line, exactly sixteen digits, parsed at once. */
static bool address16(const char *p, const char *eol, u64 *start)
{
	u64 hi, lo;

	if (!HOST_LITTLE_ENDIAN || eol - p <= 16 ||
	    hex_value_plus_1[(unsigned char)p[16]] || !hex8(p, &hi) ||
	    !hex8(p + 8, &lo))
		return false;
	*start = hi << 32 | lo;
	return true;
}

/*
 * Parse the line at *@pos, "address type name[\t[module]]\n", and move
 * *@pos to the next.  False for a line that is not a symbol.
 */
static __always_inline bool parse_line(const char *text, size_t size,
				       size_t *pos, struct ksym_entry *e,
				       char *type)
{
	const char *p = text + *pos, *end = text + size;
	const char *eol = memchr(p, '\n', end - p);
	const char *name, *tab;
	unsigned int digit;

	if (!eol)
		eol = end;
	*pos = eol - text + (eol < end);
	e->start = 0;
	if (address16(p, eol, &e->start))
		p += 16;
	/* Else a table lookup a digit, as many as there are. */
	for (; p < eol && (digit = hex_value_plus_1[(unsigned char)*p]); p++)
		e->start = e->start << 4 | (digit - 1);
	if (eol - p < 4 || p[0] != ' ' || p[2] != ' ')
		return false;
	*type = p[1];
	name = p + 3;
	/* Only a module's symbol has a tab, and its line ends "[module]". */
	tab = eol[-1] == ']' ? memchr(name, '\t', eol - name) : NULL;
	if (!tab)
		tab = eol;
	if (tab == name || tab - name > KSYM_MAX_LEN ||
	    eol - tab > KSYM_MAX_LEN || (size_t)(name - text) > UINT_MAX)
		return false;
	e->name_off = name - text;
	e->name_len = tab - name;
	e->mod_len = tab < eol ? eol - tab - 1 : 0;
	return true;
}

/* The types perf keeps of kallsyms: text, weak, data and bss. */
static bool wanted_type(char type)
{
	switch (type) {
	case 'T': case 't': case 'W': case 'w':
	case 'D': case 'd': case 'B': case 'b':
		return true;
	default:
		return false;
	}
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct ksym_entry *a = pa, *b = pb;

	return kmem_cmp(a->start, b->start) ?:
	       kmem_cmp(a->name_off, b->name_off);
}

/*
 * The symbols of the file, in its order, but for those an alias right
 * after hides (see keep_last_of_aliases()); *@sorted: they are in address
 * order.
 */
static int collect_symbols(struct kmem_kallsyms *ks, bool *sorted)
{
	size_t pos = 0, alloc = 0;
	struct ksym_entry e;
	char type;

	*sorted = true;
	while (pos < ks->size) {
		if (!parse_line(ks->text, ks->size, &pos, &e, &type) ||
		    !wanted_type(type) || ks->text[e.name_off] == '$')
			continue;
		if (ks->nr && ks->syms[ks->nr - 1].start >= e.start) {
			*sorted &= ks->syms[ks->nr - 1].start == e.start;
			if (*sorted) {
				ks->syms[ks->nr - 1] = e;
				continue;
			}
		}
		if (ks->nr == alloc) {
			struct ksym_entry *more;

			alloc = alloc ? 2 * alloc : 16384;
			more = realloc(ks->syms, alloc * sizeof(*more));
			if (!more)
				return -ENOMEM;
			ks->syms = more;
		}
		ks->syms[ks->nr++] = e;
	}
	return 0;
}

static bool sorted(const struct kmem_kallsyms *ks)
{
	size_t i;

	for (i = 1; i < ks->nr; i++)
		if (ks->syms[i].start < ks->syms[i - 1].start)
			return false;
	return true;
}

/* Of the symbols at one address, perf shows the last in the file. */
static void keep_last_of_aliases(struct kmem_kallsyms *ks)
{
	size_t i, kept = 0;

	for (i = 0; i < ks->nr; i++) {
		if (kept && ks->syms[kept - 1].start == ks->syms[i].start)
			kept--;
		ks->syms[kept++] = ks->syms[i];
	}
	ks->nr = kept;
}

static bool all_zero(const struct kmem_kallsyms *ks)
{
	return ks->nr && !ks->syms[ks->nr - 1].start;
}

struct kmem_kallsyms *kmem_kallsyms__read(const char *path, char *err,
					  size_t err_size)
{
	struct kmem_kallsyms *ks = zalloc(sizeof(*ks));
	bool in_order;
	int ret;

	if (!ks) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	ret = load_text(ks, path);
	if (!ret)
		ret = collect_symbols(ks, &in_order);
	if (ret) {
		snprintf(err, err_size, "cannot read %s: %s", path,
			 strerror(-ret));
		kmem_kallsyms__delete(ks);
		return NULL;
	}
	if (!in_order) {
		qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_entry);
		keep_last_of_aliases(ks);
	}
	if (!ks->nr || all_zero(ks)) {
		snprintf(err, err_size, "%s: %s", path, ks->nr ?
			 "every address is 0 (kptr_restrict)" : "no symbols");
		kmem_kallsyms__delete(ks);
		return NULL;
	}
	return ks;
}

void kmem_kallsyms__relocate(struct kmem_kallsyms *ks, u64 delta)
{
	size_t i, kept = 0;

	for (i = 0; i < ks->nr; i++) {
		struct ksym_entry e = ks->syms[i];

		/* Each boot loads modules where it likes: no delta fits them. */
		if (e.mod_len)
			continue;
		e.start -= delta;
		ks->syms[kept++] = e;
	}
	ks->nr = kept;
	/* A symbol below the delta wrapped around. */
	if (!sorted(ks))
		qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_entry);
}

void kmem_kallsyms__delete(struct kmem_kallsyms *ks)
{
	if (!ks)
		return;
	if (ks->mapped)
		munmap(ks->text, ks->size);
	else
		free(ks->text);
	free(ks->syms);
	free(ks);
}

static const char *module_of(const struct kmem_kallsyms *ks,
			     const struct ksym_entry *e)
{
	return ks->text + e->name_off + e->name_len + 1;
}

static bool same_module(const struct kmem_kallsyms *ks,
			const struct ksym_entry *a, const struct ksym_entry *b)
{
	return a->mod_len == b->mod_len &&
	       !memcmp(module_of(ks, a), module_of(ks, b), a->mod_len);
}

/*
 * A symbol ends where the next begins; the last of the kernel or of a
 * module a page after its start, so that it does not swallow the gap.
 */
static u64 end_of(const struct kmem_kallsyms *ks, size_t i)
{
	const struct ksym_entry *e = &ks->syms[i];

	if (i + 1 < ks->nr && same_module(ks, e, e + 1))
		return e[1].start;
	return roundup(e->start, 4096) + 4096;
}

static void fill_sym(const struct kmem_kallsyms *ks,
		     const struct ksym_entry *e, struct kmem_ksym *sym)
{
	sym->start = e->start;
	sym->name = ks->text + e->name_off;
	sym->len = e->name_len;
}

bool kmem_kallsyms__find(const struct kmem_kallsyms *ks, u64 addr,
			 struct kmem_ksym *sym)
{
	size_t lo = 0, hi = ks->nr;

	/* The first symbol starting after @addr is at hi. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!hi || addr >= end_of(ks, hi - 1))
		return false;
	fill_sym(ks, &ks->syms[hi - 1], sym);
	return true;
}

bool kmem_kallsyms__address(const struct kmem_kallsyms *ks, const char *name,
			    u64 *addr)
{
	size_t pos = 0, len = strlen(name);
	struct ksym_entry e;
	char type;

	/* Aliases were dropped from the table: look in the file. */
	while (pos < ks->size) {
		if (parse_line(ks->text, ks->size, &pos, &e, &type) &&
		    e.name_len == len && !e.mod_len &&
		    !memcmp(ks->text + e.name_off, name, len)) {
			*addr = e.start;
			return true;
		}
	}
	return false;
}

void kmem_kallsyms__for_each(const struct kmem_kallsyms *ks,
			     void (*fn)(const struct kmem_ksym *sym, void *arg),
			     void *arg)
{
	struct kmem_ksym sym;
	size_t i;

	for (i = 0; i < ks->nr; i++) {
		fill_sym(ks, &ks->syms[i], &sym);
		fn(&sym, arg);
	}
}
