/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_KMEM_RANDOM_H__
#define __PERF_TESTS_KMEM_RANDOM_H__

#include <linux/types.h>

/**
 * kmem_test__rand - the next number of a xorshift64 stream
 * @state: the stream's state, never 0; updated
 *
 * The random streams of the kmem suites: the same numbers on every libc
 * (rand() and rand_r() are not), so that a case that failed once fails
 * again.
 *
 * Return: the new state, which is the number.
 */
static inline u64 kmem_test__rand(u64 *state)
{
	u64 x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif /* __PERF_TESTS_KMEM_RANDOM_H__ */
