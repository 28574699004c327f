// SPDX-License-Identifier: GPL-2.0
/*
 * Collectives over MPI_COMM_WORLD, results checked on every rank:
 *   - MPI_Barrier: the last rank enters half a second late; every other
 *     rank must have waited in the barrier for a good part of that;
 *   - MPI_Bcast from every root, 1 byte to 1 MiB;
 *   - MPI_Allreduce: MPI_SUM of integers and MPI_MAX of doubles, 1 and
 *     100000 elements, against the values computed locally;
 *   - MPI_Alltoall: 1 and 4096 integers per rank pair, every block
 *     names its sender and receiver.
 * Run by main.c, which prints the summary of the checks.
 */
#include <unistd.h>
#include "check.h"

static void late_barrier(int rank, int size)
{
	double t;

	for (int i = 0; i < 3; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == size - 1)
		usleep(500000);
	t = MPI_Wtime();
	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime() - t;
	if (rank != size - 1) {
		if (t < 0.1)
			printf("rank %d: left the barrier after %.3f s\n",
			       rank, t);
		check(t >= 0.1, rank, "MPI_Barrier waits for the last rank");
	}
}

static void bcast(int rank, int size)
{
	static const size_t sizes[] = { 1, 1000, 65536 + 1, MIB };
	unsigned char *buf = xmalloc(MIB);

	for (int root = 0; root < size; root++) {
		for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
			size_t n = sizes[k];

			if (rank == root)
				fill(buf, root, 0, (int)k, n);
			else
				memset(buf, 0x3c, n);
			MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
			check_data(buf, root, 0, (int)k, n, rank, "MPI_Bcast");
		}
	}
	free(buf);
}

/* rank r's double at index i: 0 .. 1000002, mixed across ranks */
static double value(int r, int i)
{
	return (double)(((long)r * 7919 + (long)i * 104729) % 1000003);
}

static void allreduce(int rank, int size)
{
	static const int counts[] = { 1, 100000 };

	for (int k = 0; k < 2; k++) {
		int n = counts[k], bad = 0;
		long *in = xmalloc(sizeof(long) * n);
		long *out = xmalloc(sizeof(long) * n);
		double *din = xmalloc(sizeof(double) * n);
		double *dout = xmalloc(sizeof(double) * n);

		for (int i = 0; i < n; i++) {
			in[i] = (long)(rank + 1) * i - rank;
			din[i] = value(rank, i);
		}
		MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allreduce(din, dout, n, MPI_DOUBLE, MPI_MAX,
			      MPI_COMM_WORLD);
		for (int i = 0; i < n; i++) {
			long sum = 0;
			double max = -1;

			for (int r = 0; r < size; r++) {
				double d = value(r, i);

				sum += (long)(r + 1) * i - r;
				if (d > max)
					max = d;
			}
			if (out[i] != sum || dout[i] != max)
				bad++;
		}
		check(bad == 0, rank, "MPI_Allreduce sum and max");
		free(in);
		free(out);
		free(din);
		free(dout);
	}
}

static void alltoall(int rank, int size)
{
	static const int counts[] = { 1, 4096 };

	for (int k = 0; k < 2; k++) {
		int n = counts[k], bad = 0;
		int *in = xmalloc(sizeof(int) * n * size);
		int *out = xmalloc(sizeof(int) * n * size);

		for (int p = 0; p < size; p++)
			for (int i = 0; i < n; i++)
				in[p * n + i] = (rank << 24) | (p << 16) | i;
		memset(out, 0xff, sizeof(int) * n * size);
		MPI_Alltoall(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
		for (int p = 0; p < size; p++)
			for (int i = 0; i < n; i++)
				if (out[p * n + i] != ((p << 24) | (rank << 16) | i))
					bad++;
		check(bad == 0, rank, "MPI_Alltoall");
		free(in);
		free(out);
	}
}

void coll_tests(int rank, int size)
{
	phase("coll", NULL, rank);
	late_barrier(rank, size);
	phase("coll", "barrier", rank);
	bcast(rank, size);
	phase("coll", "bcast", rank);
	allreduce(rank, size);
	phase("coll", "allreduce", rank);
	alltoall(rank, size);
	phase("coll", "alltoall", rank);
}
