/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the MPI test programs: a data pattern every rank can compute
 * for any message, and a check counter that ends the job on failure.
 */
#ifndef SCIF_MPI_CHECK_H
#define SCIF_MPI_CHECK_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failed;

/* The byte at offset i of the message of this (src, dst, tag, size). */
static inline unsigned char pattern(int src, int dst, int tag, size_t size,
				    size_t i)
{
	uint32_t x = (uint32_t)(src * 131 + dst * 31 + tag * 7) ^
		     (uint32_t)size ^ (uint32_t)(i * 2654435761u);

	return (unsigned char)(x ^ (x >> 13) ^ (i >> 8));
}

static inline void fill(unsigned char *buf, int src, int dst, int tag,
			size_t size)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern(src, dst, tag, size, i);
}

static inline void check(int ok, int rank, const char *what)
{
	checks++;
	if (!ok) {
		failed++;
		printf("rank %d: not ok - %s\n", rank, what);
		fflush(stdout);
	}
}

/* Compare a received buffer with the pattern; say where it differs. */
static inline void check_data(const unsigned char *buf, int src, int dst,
			      int tag, size_t size, int rank, const char *what)
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

static inline void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		perror("malloc");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

/* Every rank's counts summed on rank 0, which prints them; the exit status. */
static inline int report(const char *name, int rank)
{
	int mine[2] = { checks, failed }, all[2];

	MPI_Reduce(mine, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("%s: %d checks, %d failed\n", name, all[0], all[1]);
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

#endif /* SCIF_MPI_CHECK_H */
