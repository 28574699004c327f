// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: small helpers every file of the fuzzer uses. The per-thread
 * random numbers, the monotonic clocks, the shared counters and the
 * recording of a call's outcome, the report of a violated invariant, the
 * lock of the process's pool and the test for the read-only grid.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

struct fz_stats *fz_stats;

uint64_t fz_mix(uint64_t x)
{
	/* splitmix64 */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t fz_rand(struct fz_thread *t)
{
	uint64_t x = t->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint64_t fz_below(struct fz_thread *t, uint64_t n)
{
	return n ? fz_rand(t) % n : 0;
}

bool fz_chance(struct fz_thread *t, unsigned int num, unsigned int den)
{
	return fz_below(t, den) < num;
}

long fz_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L + 1;
}

long fz_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

/* Raise *@ctr to @v if it is lower, atomically. */
void fz_max(unsigned long *ctr, unsigned long v)
{
	unsigned long old = __atomic_load_n(ctr, __ATOMIC_RELAXED);

	while (v > old &&
	       !__atomic_compare_exchange_n(ctr, &old, v, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

__thread int fz_cur_op;

void fz_record(struct fz_thread *t, long ret, int err)
{
	int e = ret < 0 ? (err > 0 && err < FZ_NERR ? err : 0) : 0;

	(void)t;
	fz_add(&fz_stats->calls, 1);
	fz_add(&fz_stats->op_err[fz_cur_op][e], 1);
	if (ret < 0)
		fz_add(&fz_stats->err[err > 0 && err < FZ_NERR ? err : 0], 1);
	else if (ret > 0)
		fz_add(&fz_stats->positive, 1);
	else
		fz_add(&fz_stats->ok, 1);
}

void fz_violation(struct fz_proc *p, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "scif-fuzz VIOLATION (worker %d): ",
		     p ? p->idx : -1);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	/* write(2): also safe in a forked child of a threaded process */
	if (write(2, buf, strlen(buf)) < 0)
		return;
	fz_add(&fz_stats->violations, 1);
}

void fz_lock(struct fz_thread *t)
{
	if (!t->child)
		pthread_mutex_lock(&t->p->lock);
}

void fz_unlock(struct fz_thread *t)
{
	if (!t->child)
		pthread_mutex_unlock(&t->p->lock);
}

bool fz_in_ro_grid(fz_off off, uint64_t len)
{
	uint64_t end;

	if (off < 0 || !len)
		return false;
	if (__builtin_add_overflow((uint64_t)off, len, &end))
		end = ~0ULL;
	return (uint64_t)off < (uint64_t)FZ_RO_END && end > (uint64_t)FZ_RO_BASE;
}
