/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_UTF8_H
#define __PERF_KMEM_UTF8_H

/*
 * UTF-8 well-formedness for the writers of perf kmem's outputs (JSON,
 * SVG): names from a trace may hold any bytes, and a document must not.
 */

#include <stddef.h>

/*
 * The length of the well-formed UTF-8 sequence at @s, @len bytes at most
 * (Table 3-7 of the Unicode standard: no overlong forms, no surrogates,
 * nothing above U+10FFFF), or, negated, the length of its maximal
 * subpart: the longest start of a well-formed sequence there, at least
 * one byte.  The Unicode standard recommends one U+FFFD per maximal
 * subpart.  @s[0] must be 0x80 or above.
 */
static inline int kmem_utf8_sequence(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int need, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* no overlong forms */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		if (s[0] == 0xf0)
			lo = 0x90;	/* no overlong forms */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* nothing above U+10FFFF */
	} else {
		return -1;		/* 80..c1, f5..ff never start one */
	}
	for (i = 1; i < need; i++) {
		if ((size_t)i >= len || s[i] < lo || s[i] > hi)
			return -i;
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

/* U+FFFD REPLACEMENT CHARACTER in UTF-8: stands for bytes that are not. */
#define KMEM_UTF8_REPLACEMENT	"\xef\xbf\xbd"

#endif /* __PERF_KMEM_UTF8_H */
