// SPDX-License-Identifier: GPL-2.0
/*
 * Ping-pong between ranks 0 and 1, data checked: for each size of sizes[],
 * rank 0 sends a message with blocking MPI_Send, rank 1 receives it with
 * MPI_Recv and sends the same buffer back, rank 0 receives it; one round
 * trip per iteration. Other ranks take no part.
 *
 * Each size first runs a few untimed warm-up round trips; rank 0 then
 * picks the number of timed iterations that fills about @budget seconds
 * at the warm-up's pace, within [min_iters, max_iters], and tells rank 1.
 * Every timed round trip is clocked on its own (MPI_Wtime), so rank 0
 * prints, per size, the median and the mean round trip in microseconds
 * and the ping-pong bandwidth in MB/s (10^6 bytes/s), the bytes that
 * crossed in either direction per second: 2 x size / the median round
 * trip, which a stall of the host in a few iterations does not move, and
 * 2 x size x iterations / the sum of the round trips (the mean).
 *
 * The first and the last timed iteration go through buffers of their own
 * on both ranks, cleared before the clock starts and checked after it
 * stops: rank 1 checks what it received, rank 0 checks the echo, so the
 * checks cost nothing in the figures. Run by "mpi-check pingpong"
 * (scripts/bench/bench) and, with a tiny budget, by plain mpi-check.
 */
#include "check.h"

static const size_t pp_sizes[] = {
	8, 64, 512, 4096, 32768, 262144, MIB, 4 * MIB,
};

#define PP_MAX (4 * MIB)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One round trip of @n bytes: rank 0 sends @out and receives into @in. */
static void round_trip(int rank, unsigned char *out, unsigned char *in,
		       size_t n, int tag)
{
	if (rank == 0) {
		MPI_Send(out, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
		MPI_Recv(in, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(in, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(in, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
	}
}

/*
 * The buffers of one rank: out (rank 0's message), in[0] and in[2] for
 * the first and last timed iteration, in[1] for every other one.
 */
struct pp_bufs {
	unsigned char *out;
	unsigned char *in[3];
};

static void one_size(int rank, struct pp_bufs *b, size_t n, int tag,
		     double budget, int min_iters, int max_iters,
		     double *times)
{
	int warm = n <= 65536 ? 10 : 2, iters;
	double t, want, med, sum = 0;
	char what[64];

	if (rank == 0)
		fill(b->out, 0, 1, tag, n);
	/* warm-up, through the middle buffer; the first one is not timed */
	round_trip(rank, b->out, b->in[1], n, tag);
	t = MPI_Wtime();
	for (int k = 0; k < warm; k++)
		round_trip(rank, b->out, b->in[1], n, tag);
	t = (MPI_Wtime() - t) / warm;
	/* clamped as a double: budget / t may not fit an int */
	want = t > 0 ? budget / t : max_iters;
	if (want < min_iters)
		want = min_iters;
	if (want > max_iters)
		want = max_iters;
	iters = (int)want;
	/* rank 0's count; only ranks 0 and 1 are here, so no collective */
	if (rank == 0)
		MPI_Send(&iters, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
	else
		MPI_Recv(&iters, 1, MPI_INT, 0, tag, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);

	memset(b->in[0], 0xa5, n);
	memset(b->in[2], 0x5a, n);
	for (int k = 0; k < iters; k++) {
		unsigned char *in = b->in[k == 0 ? 0 : k == iters - 1 ? 2 : 1];

		t = MPI_Wtime();
		round_trip(rank, b->out, in, n, tag);
		times[k] = MPI_Wtime() - t;
		sum += times[k];
	}

	/* rank 1 received rank 0's pattern; rank 0 got it back */
	snprintf(what, sizeof(what), "ping-pong %zu B, first iteration", n);
	check_data(b->in[0], 0, 1, tag, n, rank, what);
	snprintf(what, sizeof(what), "ping-pong %zu B, last iteration", n);
	check_data(b->in[2], 0, 1, tag, n, rank, what);
	if (rank != 0)
		return;
	qsort(times, (size_t)iters, sizeof(*times), cmp_double);
	med = (times[(iters - 1) / 2] + times[iters / 2]) / 2;
	printf("pingpong %8zu %7d %12.2f %12.2f %10.2f %10.2f\n", n, iters,
	       med * 1e6, sum / iters * 1e6, 2.0 * (double)n / med / 1e6,
	       2.0 * (double)n * iters / sum / 1e6);
	fflush(stdout);
}

void pingpong_tests(int rank, double budget, int min_iters, int max_iters)
{
	struct pp_bufs b;
	double *times;

	if (rank > 1)
		return;
	b.out = xmalloc(PP_MAX);
	for (int k = 0; k < 3; k++)
		b.in[k] = xmalloc(PP_MAX);
	times = xmalloc(sizeof(*times) * (size_t)max_iters);
	if (rank == 0) {
		printf("pingpong: rank 0 <-> rank 1, blocking MPI_Send/MPI_Recv\n");
		printf("pingpong: round trip in us (median, mean)\n");
		printf("pingpong: MB/s = 2 x bytes / round trip (median, mean)\n");
		printf("pingpong %8s %7s %12s %12s %10s %10s\n", "bytes",
		       "iters", "rtt_median", "rtt_mean", "MB/s", "MB/s_mean");
		fflush(stdout);
	}
	for (size_t k = 0; k < ARRAY_SIZE(pp_sizes); k++)
		one_size(rank, &b, pp_sizes[k], 100 + (int)k, budget,
			 min_iters, max_iters, times);
	free(times);
	for (int k = 0; k < 3; k++)
		free(b.in[k]);
	free(b.out);
}
