// SPDX-License-Identifier: GPL-2.0
/*
 * mpi-check: the project's MPI test program.
 *
 *   mpi-check                  the point-to-point part (p2p.c), the
 *                              collective part (coll.c), then a short
 *                              ping-pong (pingpong.c, 2 to 3 iterations
 *                              per size), in one job, so that a test pays
 *                              for starting Open MPI once
 *   mpi-check pingpong [SECONDS [MAX_ITERS]]
 *                              the ping-pong alone, each size timed for
 *                              about SECONDS (default 0.3) in at most
 *                              MAX_ITERS (default 2000) iterations
 *                              (scripts/bench/bench)
 *
 * Rank 0 prints each part's summary ("p2p: N checks, 0 failed", "coll:
 * ...", "pingpong: ..."), how long MPI_Init and each step took; the exit
 * status is non-zero on any failed check.
 * Documentation/libfabric.rst, Documentation/benchmarks.rst,
 * tests/e2e/mpi2.t and mpi4.t.
 */
#include <time.h>

#include "check.h"

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bad_usage(void)
{
	fprintf(stderr, "usage: mpi-check [pingpong [SECONDS [MAX_ITERS]]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double t = seconds(), budget = 0.3;
	int rank, size, bad, pp_only = 0, max_iters = 2000;
	char *end;

	if (argc > 1) {
		if (strcmp(argv[1], "pingpong") || argc > 4)
			return bad_usage();
		pp_only = 1;
		if (argc > 2) {
			budget = strtod(argv[2], &end);
			if (*end || !(budget > 0 && budget < 3600))
				return bad_usage();
		}
		if (argc > 3) {
			max_iters = (int)strtol(argv[3], &end, 10);
			if (*end || max_iters < 2 || max_iters > 1000000)
				return bad_usage();
		}
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		printf("mpi-check: MPI_Init took %.2f s\n", seconds() - t);
	if (size < 2) {
		if (rank == 0)
			printf("mpi-check: needs at least 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	bad = 0;
	if (!pp_only) {
		p2p_tests(rank, size);
		bad += report("p2p", rank);
		coll_tests(rank, size);
		bad += report("coll", rank);
		/* the ping-pong's paths and checks, not its figures */
		budget = 0;
		max_iters = 3;
	}
	phase("pingpong", NULL, rank);
	pingpong_tests(rank, budget, 2, max_iters);
	phase("pingpong", "the ping-pong", rank);
	bad += report("pingpong", rank);
	MPI_Finalize();
	return bad ? 1 : 0;
}
