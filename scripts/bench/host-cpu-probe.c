// SPDX-License-Identifier: GPL-2.0
/*
 * How far apart the host's first two CPUs are, as seen by the memory
 * system: the median time (ns) for a cache line to go from one CPU to the
 * other and back, two threads pinned one to each, taking turns to write
 * it. make bench (scripts/bench/bench) samples it during the run, since a
 * stream between two guests moves every byte from one host CPU's cache to
 * the other's, and on a shared host that distance changes from minute to
 * minute (Documentation/benchmarks.rst, "Where the host puts its CPUs").
 *
 *   host-cpu-probe      prints one number, or nothing on a one-CPU host
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TURNS	2000		/* round trips per batch */
#define BATCHES	9

/* The word that bounces, at the start of a cache line. */
static alignas(64) unsigned long line;
static int cpus[2];

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The other end: answers each odd value with the next even one. */
static void *answer(void *arg)
{
	unsigned long i;

	(void)arg;
	/* unpinned it still answers, so that the prober never hangs */
	(void)pin(cpus[1]);
	for (i = 1; i <= (unsigned long)TURNS * BATCHES; i++) {
		while (__atomic_load_n(&line, __ATOMIC_ACQUIRE) != 2 * i - 1)
			;
		__atomic_store_n(&line, 2 * i, __ATOMIC_RELEASE);
	}
	return NULL;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	double batch[BATCHES], t0;
	unsigned long i = 0;
	cpu_set_t set;
	pthread_t t;
	int c, n = 0, b;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	for (c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (n < 2)
		return 0;
	if (pin(cpus[0]) || pthread_create(&t, NULL, answer, NULL))
		return 1;
	for (b = 0; b < BATCHES; b++) {
		t0 = now_ns();
		for (n = 0; n < TURNS; n++) {
			i++;
			__atomic_store_n(&line, 2 * i - 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&line, __ATOMIC_ACQUIRE) != 2 * i)
				;
		}
		batch[b] = (now_ns() - t0) / TURNS;
	}
	pthread_join(t, NULL);
	qsort(batch, BATCHES, sizeof(batch[0]), cmp);
	printf("%.0f\n", batch[BATCHES / 2]);
	return 0;
}
