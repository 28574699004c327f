/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the MPI test parts (p2p.c, coll.c, main.c): a data pattern
 * every rank can compute for any message, and a check counter.
 */
#ifndef SCIF_MPI_CHECK_H
#define SCIF_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024 * 1024)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The byte at offset i of the message of this (src, dst, tag, size). */
static inline unsigned char pattern(int src, int dst, int tag, size_t size,
				    size_t i)
{
	unsigned int x = (unsigned int)(src * 131 + dst * 31 + tag * 7) ^
			 (unsigned int)size ^ (unsigned int)(i * 2654435761u);

	return (unsigned char)(x ^ (x >> 13) ^ (i >> 8));
}

void fill(unsigned char *buf, int src, int dst, int tag, size_t size);
/* Count one check of this rank; print @what if it failed. */
void check(int ok, int rank, const char *what);
/* Compare a received buffer with the pattern; say where it differs. */
void check_data(const unsigned char *buf, int src, int dst, int tag,
		size_t size, int rank, const char *what);
/* malloc() that ends the job when it fails */
void *xmalloc(size_t size);
/*
 * Rank 0 prints how long the part of the test since the last call took,
 * so that a slow run shows where its time went; with @part NULL it only
 * starts the clock.
 */
void phase(const char *name, const char *part, int rank);
/*
 * Every rank's counts since the last report, summed on rank 0, which
 * prints "NAME: N checks, F failed"; then the counts start again.
 * Collective. Returns the number of this rank's failed checks.
 */
int report(const char *name, int rank);

/* The parts of the test program. */
void p2p_tests(int rank, int size);
void coll_tests(int rank, int size);
/*
 * Ping-pong between ranks 0 and 1 over sizes 8 B .. 4 MiB, each size
 * timed for about @budget seconds in [@min_iters, @max_iters] iterations
 * (@min_iters at least 2); rank 0 prints one "pingpong" row per size.
 */
void pingpong_tests(int rank, double budget, int min_iters, int max_iters);

#endif /* SCIF_MPI_CHECK_H */
