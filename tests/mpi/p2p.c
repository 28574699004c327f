// SPDX-License-Identifier: GPL-2.0
/*
 * Point-to-point MPI over every pair of ranks, data checked:
 *   - blocking send/receive between rank pairs (r, r ^ 1), both ways,
 *     messages from 0 bytes to 16 MiB;
 *   - non-blocking: every rank sends to and receives from every other at
 *     once (MPI_Isend/MPI_Irecv/MPI_Waitall), sizes up to 1 MiB;
 *   - MPI_ANY_SOURCE: rank 0 takes one message from each other rank in
 *     arrival order and checks the status names the true sender;
 *   - tags: rank 1 sends three tagged messages, rank 0 receives them in
 *     another order (unexpected-message matching), then one by
 *     MPI_ANY_TAG after MPI_Probe and MPI_Get_count.
 * Run by main.c, which prints the summary of the checks.
 */
#include "check.h"

#define NB_MAX MIB

static const size_t sizes[] = {
	0, 1, 7, 64, 1000, 4096, 65536 + 3, MIB, MIB * 3 + 5, 16 * MIB,
};

/* the sizes[] of the blocking part, the ones up to NB_MAX of the other */
#define NSIZES ARRAY_SIZE(sizes)

static void pairs(int rank, int size)
{
	int peer = rank ^ 1;
	unsigned char *buf = xmalloc(16 * MIB);
	MPI_Status st;
	int count;

	if (peer >= size)
		return;
	for (size_t k = 0; k < NSIZES; k++) {
		size_t n = sizes[k];
		int tag = (int)k;

		/* the even rank sends first, then they swap */
		for (int turn = 0; turn < 2; turn++) {
			int sender = (turn == 0) == !(rank & 1);

			if (sender) {
				fill(buf, rank, peer, tag, n);
				MPI_Send(buf, (int)n, MPI_BYTE, peer, tag,
					 MPI_COMM_WORLD);
			} else {
				memset(buf, 0xa5, n);
				MPI_Recv(buf, (int)n, MPI_BYTE, peer, tag,
					 MPI_COMM_WORLD, &st);
				MPI_Get_count(&st, MPI_BYTE, &count);
				check(count == (int)n, rank,
				      "blocking receive length");
				check_data(buf, peer, rank, tag, n, rank,
					   "blocking receive");
			}
		}
	}
	free(buf);
}

static void nonblocking(int rank, int size)
{
	unsigned char **sbuf = xmalloc(sizeof(*sbuf) * size);
	unsigned char **rbuf = xmalloc(sizeof(*rbuf) * size);
	MPI_Request *req = xmalloc(sizeof(*req) * 2 * size);
	MPI_Status *st = xmalloc(sizeof(*st) * 2 * size);

	for (size_t k = 0; k < NSIZES && sizes[k] <= NB_MAX; k++) {
		size_t n = sizes[k];
		int tag = 100 + (int)k, nreq = 0;

		for (int p = 0; p < size; p++) {
			if (p == rank)
				continue;
			rbuf[p] = xmalloc(n);
			memset(rbuf[p], 0x5a, n);
			MPI_Irecv(rbuf[p], (int)n, MPI_BYTE, p, tag,
				  MPI_COMM_WORLD, &req[nreq++]);
		}
		for (int p = 0; p < size; p++) {
			if (p == rank)
				continue;
			sbuf[p] = xmalloc(n);
			fill(sbuf[p], rank, p, tag, n);
			MPI_Isend(sbuf[p], (int)n, MPI_BYTE, p, tag,
				  MPI_COMM_WORLD, &req[nreq++]);
		}
		MPI_Waitall(nreq, req, st);
		for (int p = 0; p < size; p++) {
			if (p == rank)
				continue;
			check_data(rbuf[p], p, rank, tag, n, rank,
				   "non-blocking receive");
			free(rbuf[p]);
			free(sbuf[p]);
		}
	}
	free(sbuf);
	free(rbuf);
	free(req);
	free(st);
}

static void any_source(int rank, int size)
{
	const size_t n = 3000;
	unsigned char *buf = xmalloc(n);
	int *seen = calloc(size, sizeof(int));
	MPI_Status st;

	if (rank != 0) {
		fill(buf, rank, 0, 200, n);
		MPI_Send(buf, (int)n, MPI_BYTE, 0, 200, MPI_COMM_WORLD);
	} else {
		for (int i = 1; i < size; i++) {
			MPI_Recv(buf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 200,
				 MPI_COMM_WORLD, &st);
			check(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size &&
			      !seen[st.MPI_SOURCE], rank,
			      "MPI_ANY_SOURCE: a new sender");
			if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < size)
				seen[st.MPI_SOURCE] = 1;
			check_data(buf, st.MPI_SOURCE, 0, 200, n, rank,
				   "MPI_ANY_SOURCE receive");
		}
	}
	free(seen);
	free(buf);
}

static void tags(int rank)
{
	static const int sent[] = { 305, 303, 309, 311 };
	static const int taken[] = { 309, 305, 303 };
	const size_t n = 777, last = (64 << 10) - 1;
	unsigned char *buf[4];
	MPI_Request req[4];
	MPI_Status st;
	int count;

	for (int i = 0; i < 4; i++)
		buf[i] = xmalloc(last);
	if (rank == 1) {
		/* all four are on their way before rank 0 posts a receive */
		for (int i = 0; i < 4; i++) {
			size_t len = sent[i] == 311 ? last : n;

			fill(buf[i], 1, 0, sent[i], len);
			MPI_Isend(buf[i], (int)len, MPI_BYTE, 0, sent[i],
				  MPI_COMM_WORLD, &req[i]);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
	} else if (rank == 0) {
		MPI_Barrier(MPI_COMM_WORLD);
		for (int i = 0; i < 3; i++) {
			MPI_Recv(buf[0], (int)n, MPI_BYTE, 1, taken[i],
				 MPI_COMM_WORLD, &st);
			check(st.MPI_TAG == taken[i], rank, "tag matched");
			check_data(buf[0], 1, 0, taken[i], n, rank,
				   "tagged receive out of order");
		}
		MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &count);
		check(st.MPI_TAG == 311 && count == (int)last, rank,
		      "MPI_Probe: tag and length");
		MPI_Recv(buf[0], (int)last, MPI_BYTE, 1, MPI_ANY_TAG,
			 MPI_COMM_WORLD, &st);
		check(st.MPI_TAG == 311, rank, "MPI_ANY_TAG receive");
		check_data(buf[0], 1, 0, 311, last, rank,
			   "MPI_ANY_TAG receive");
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
	}
	for (int i = 0; i < 4; i++)
		free(buf[i]);
}

void p2p_tests(int rank, int size)
{
	phase("p2p", NULL, rank);
	pairs(rank, size);
	phase("p2p", "blocking", rank);
	nonblocking(rank, size);
	phase("p2p", "nonblocking", rank);
	any_source(rank, size);
	phase("p2p", "any-source", rank);
	tags(rank);
	phase("p2p", "tags", rank);
}
