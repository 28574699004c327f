// SPDX-License-Identifier: GPL-2.0
/*
 * scif-tcp-bench: the send/recv benchmark of scif-ntb-test, over TCP, so
 * that SCIF across the emulated NTB can be compared with TCP across a
 * virtio-net link between the same two guests (scripts/bench/bench-scif-ntb).
 *
 *   scif-tcp-bench serve PORT CONNS   answer CONNS connections, then exit
 *   scif-tcp-bench bench HOST PORT    table: round trip 8 B..64 KiB and
 *                                     streaming throughput, in the format
 *                                     of scif-ntb-test bench
 *
 * A connection carries requests, each a header: ECHO (send back every
 * message of the given size until the client closes) or DISCARD (answer
 * the header with one byte, from which the client times; read the given
 * number of bytes, then answer with 8 bytes). TCP_NODELAY is set on both
 * sides, as a latency-minded user of TCP would.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG_NAME "scif-tcp-bench"
#include "scif_util.h"

#define CHUNK	65536

enum { OP_ECHO = 1, OP_DISCARD = 3 };

struct hdr {
	__u32 op;
	__u32 size;
	__u64 count;
};

/* Move exactly @len bytes; 0 on success, -1 on error or end of stream. */
static int xfer(int fd, void *buf, size_t len, int out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

static int serve_request(int fd, const struct hdr *h_in)
{
	static char buf[CHUNK];
	struct hdr h = *h_in;
	__u64 got = 0, n;
	char ready = 1;

	if (h.op == OP_ECHO) {
		if (h.size > CHUNK)
			return -1;
		while (!xfer(fd, buf, h.size, 0))
			if (xfer(fd, buf, h.size, 1))
				return -1;
		return 0;
	}
	if (h.op != OP_DISCARD || xfer(fd, &ready, 1, 1))
		return -1;
	while (got < h.count) {
		n = h.count - got > CHUNK ? CHUNK : h.count - got;
		if (xfer(fd, buf, n, 0))
			return -1;
		got += n;
	}
	return xfer(fd, &got, 8, 1);
}

/* A connection's requests until the client closes it; 0 if all went well. */
static int serve_one(int fd)
{
	struct hdr h;
	int served;

	for (served = 0; !xfer(fd, &h, sizeof(h), 0); served++)
		if (serve_request(fd, &h))
			return -1;
	return served ? 0 : -1;
}

static int serve(int port, int conns)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int lfd, fd, one = 1, bad = 0, i;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(port);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 8))
		die("bind/listen");
	for (i = 0; i < conns; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		nodelay(fd);
		if (serve_one(fd))
			bad++;
		close(fd);
	}
	close(lfd);
	return bad ? 1 : 0;
}

/* Connect, retrying for 60 s while the server is not listening yet. */
static int dial(const char *host, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	double end = now() + 60;
	int fd;

	sa.sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "scif-tcp-bench: bad address %s\n", host);
		exit(2);
	}
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(fd);
		if (now() > end)
			die("connect");
		usleep(200000);
	}
	nodelay(fd);
	return fd;
}

static double round_trip(int fd, int size, int iters)
{
	static char buf[CHUNK];
	double t0 = now();
	int i;

	for (i = 0; i < iters; i++)
		if (xfer(fd, buf, size, 1) || xfer(fd, buf, size, 0))
			die("round trip");
	return (now() - t0) / iters * 1e6;
}

/* Seconds a DISCARD of @bytes took, from the server's answer on. */
static double stream_bytes(int fd, __u64 bytes, int size)
{
	static char buf[CHUNK];
	struct hdr h = { OP_DISCARD, size, bytes };
	__u64 sent = 0, back;
	double t0;
	char ready;

	if (xfer(fd, &h, sizeof(h), 1) || xfer(fd, &ready, 1, 0))
		die("send");
	t0 = now();
	for (; sent < bytes; sent += size)
		if (xfer(fd, buf, size, 1))
			die("send");
	if (xfer(fd, &back, 8, 0) || back != bytes)
		die("stream end");
	return now() - t0;
}

static int bench(const char *host, int port)
{
	static const int sizes[] = { 8, 64, 512, 4096, 16384, 65536 };
	__u64 bytes;
	unsigned int i;
	double us, t, best;
	int fd, iters, try;

	printf("%-10s %14s %16s\n", "size", "round trip us", "stream MiB/s");
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct hdr h = { OP_ECHO, sizes[i], 0 };

		fd = dial(host, port);
		if (xfer(fd, &h, sizeof(h), 1))
			die("send");
		/* About a second per row, whatever the speed. */
		us = round_trip(fd, sizes[i], 20);
		iters = us > 0 ? 1e6 / us : 1000;
		us = round_trip(fd, sizes[i], iters < 20 ? 20 : iters);
		close(fd);
		fd = dial(host, port);
		/* A short stream, then the fastest of STREAM_TRIES longer. */
		t = stream_bytes(fd, stream_length(sizes[i], 0), sizes[i]);
		bytes = stream_length(sizes[i], t);
		best = 0;
		for (try = 0; try < STREAM_TRIES; try++) {
			t = stream_bytes(fd, bytes, sizes[i]);
			if (!best || t < best)
				best = t;
		}
		close(fd);
		printf("%-10d %14.1f %16.2f\n", sizes[i], us,
		       bytes / 1048576.0 / best);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "bench"))
		return bench(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: scif-tcp-bench serve PORT CONNS | bench HOST PORT\n");
	return 2;
}
