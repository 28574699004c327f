// SPDX-License-Identifier: GPL-2.0
/*
 * mpi-check: the project's MPI test program. One job runs the
 * point-to-point part (p2p.c), then the collective part (coll.c), so that
 * a test pays for starting Open MPI once. Rank 0 prints each part's
 * summary ("p2p: N checks, 0 failed", "coll: ..."), how long MPI_Init and
 * each step took; the exit status is non-zero on any failed check.
 * Documentation/libfabric.rst, tests/e2e/mpi2.t and mpi4.t.
 */
#include <time.h>

#include "check.h"

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t = seconds();
	int rank, size, bad;

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
	p2p_tests(rank, size);
	bad = report("p2p", rank);
	coll_tests(rank, size);
	bad += report("coll", rank);
	MPI_Finalize();
	return bad ? 1 : 0;
}
