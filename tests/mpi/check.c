// SPDX-License-Identifier: GPL-2.0
/*
 * The check counter, data pattern helpers and phase clock of the MPI test
 * program (check.h).
 */
#include "check.h"

static int checks, failed;
static double phase_start;

void fill(unsigned char *buf, int src, int dst, int tag, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern(src, dst, tag, size, i);
}

void check(int ok, int rank, const char *what)
{
	checks++;
	if (!ok) {
		failed++;
		printf("rank %d: not ok - %s\n", rank, what);
		fflush(stdout);
	}
}

void check_data(const unsigned char *buf, int src, int dst, int tag,
		size_t size, int rank, const char *what)
{
	size_t i;

	for (i = 0; i < size; i++)
		if (buf[i] != pattern(src, dst, tag, size, i))
			break;
	if (i < size)
		printf("rank %d: %s: %zu bytes from %d, tag %d: byte %zu differs\n",
		       rank, what, size, src, tag, i);
	check(i == size, rank, what);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		perror("malloc");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

void phase(const char *name, const char *part, int rank)
{
	double now = MPI_Wtime();

	if (rank == 0 && part) {
		printf("%s: %s took %.2f s\n", name, part, now - phase_start);
		fflush(stdout);
	}
	phase_start = now;
}

int report(const char *name, int rank)
{
	int mine[2] = { checks, failed }, all[2];

	MPI_Reduce(mine, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("%s: %d checks, %d failed\n", name, all[0], all[1]);
		fflush(stdout);
	}
	checks = 0;
	failed = 0;
	return mine[1];
}
