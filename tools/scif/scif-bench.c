// SPDX-License-Identifier: GPL-2.0
/*
 * scif-bench: loopback send/recv benchmark. Two processes on this node:
 *
 *   ioctl       the cheapest call into /dev/scif (an unknown command): the
 *               floor under every SCIF call made from user space
 *   roundtrip   message of N bytes there and back, N = 8 B .. 64 KiB
 *   spin        the same, both sides polling with non-blocking scif_recv()
 *               instead of sleeping (busy polling by the reader)
 *   stream      one-way blocking sends of N bytes, N = 8 B .. 64 KiB
 *   spinstream  the same, both sides polling with non-blocking calls
 *
 * Prints a table. Not a test: nothing is asserted.
 *
 *   scif-bench [-t SECONDS_PER_ROW] [-q]
 *
 * -q runs only the rows make bench judges: ioctl, 8 B roundtrip and spin,
 * 64 KiB stream and spinstream.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scif.h"

#define MAX_MSG		65536

/* An ioctl number no SCIF version defines: the driver answers -ENOTTY. */
#define NULL_IOCTL	_IO('s', 0xff)

enum mode { ROUNDTRIP, SPIN, STREAM, SPINSTREAM };

struct connector {
	scif_epd_t epd;
	struct scif_port_id dst;
	int ret;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "scif-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *do_connect(void *arg)
{
	struct connector *c = arg;

	c->ret = scif_connect(c->epd, &c->dst);
	return NULL;
}

static void make_pair(scif_epd_t *a, scif_epd_t *b)
{
	__u16 nodes[1], self;
	struct scif_port_id peer;
	struct connector c;
	scif_epd_t l;
	pthread_t t;
	int port;

	if (scif_get_node_ids(nodes, 1, &self) < 1)
		die("scif_get_node_ids");
	l = scif_open();
	c.epd = scif_open();
	if (l < 0 || c.epd < 0)
		die("scif_open");
	port = scif_bind(l, 0);
	if (port < 0 || scif_listen(l, 1) < 0)
		die("listen");
	c.dst.node = self;
	c.dst.port = port;
	pthread_create(&t, NULL, do_connect, &c);
	if (scif_accept(l, &peer, b, SCIF_ACCEPT_SYNC) < 0)
		die("scif_accept");
	pthread_join(t, NULL);
	if (c.ret < 0)
		die("scif_connect");
	*a = c.epd;
	scif_close(l);
}

/*
 * Send (@out) or receive @size bytes, sleeping in one call or (@spin)
 * polling with non-blocking ones; false on error or end of stream.
 */
static int move(scif_epd_t e, char *buf, int size, int out, int spin)
{
	int done = 0, n;

	if (!spin)
		return (out ? scif_send(e, buf, size, SCIF_SEND_BLOCK) :
			      scif_recv(e, buf, size, SCIF_RECV_BLOCK)) == size;
	while (done < size) {
		n = out ? scif_send(e, buf + done, size - done, 0) :
			  scif_recv(e, buf + done, size - done, 0);
		if (n < 0)
			return 0;
		done += n;
	}
	return 1;
}

static int get(scif_epd_t e, char *buf, int size, int spin)
{
	return move(e, buf, size, 0, spin);
}

static int put(scif_epd_t e, char *buf, int size, int spin)
{
	return move(e, buf, size, 1, spin);
}

static int is_stream(enum mode mode)
{
	return mode == STREAM || mode == SPINSTREAM;
}

static int spins(enum mode mode)
{
	return mode == SPIN || mode == SPINSTREAM;
}

/* The child: echo (round trips) or sink (stream) messages of @size bytes. */
static void serve(scif_epd_t e, enum mode mode, int size)
{
	char *buf = malloc(MAX_MSG);

	for (;;) {
		if (!get(e, buf, size, spins(mode)))
			break;
		if (!is_stream(mode) &&
		    scif_send(e, buf, size, SCIF_SEND_BLOCK) != size)
			break;
	}
	free(buf);
}

/* Time the null ioctl on an open endpoint. */
static void ioctl_row(double secs)
{
	scif_epd_t e = scif_open();
	double t0, t;
	long n = 0;

	if (e < 0)
		die("scif_open");
	t0 = now();
	do {
		if (ioctl(e, NULL_IOCTL, 0) != -1 || errno != ENOTTY)
			die("null ioctl did not fail with ENOTTY");
		n++;
		t = now() - t0;
	} while (t < secs);
	scif_close(e);
	printf("%-10s %8d %12ld %12.2f %12s\n", "ioctl", 0, n, t / n * 1e6, "-");
	fflush(stdout);
}

static void row(enum mode mode, int size, double secs)
{
	scif_epd_t a, b;
	char *buf = calloc(1, MAX_MSG);
	double t0, t;
	long n = 0;
	pid_t pid;

	make_pair(&a, &b);
	pid = fork();
	if (pid == 0) {
		scif_close(a);
		serve(b, mode, size);
		_exit(0);
	}
	scif_close(b);
	t0 = now();
	do {
		if (!put(a, buf, size, mode == SPINSTREAM))
			die("scif_send");
		if (!is_stream(mode) && !get(a, buf, size, mode == SPIN))
			die("scif_recv");
		n++;
		t = now() - t0;
	} while (t < secs);
	scif_close(a);
	waitpid(pid, NULL, 0);
	if (!is_stream(mode))
		printf("%-10s %8d %12ld %12.2f %12.1f\n",
		       mode == SPIN ? "spin" : "roundtrip", size, n,
		       t / n * 1e6, 2.0 * n * size / t / 1048576);
	else
		printf("%-10s %8d %12ld %12.2f %12.1f\n",
		       mode == SPINSTREAM ? "spinstream" : "stream", size, n,
		       t / n * 1e6, (double)n * size / t / 1048576);
	fflush(stdout);
	free(buf);
}

int main(int argc, char **argv)
{
	double secs = 1.0;
	int quick = 0, size, mode, c;

	while ((c = getopt(argc, argv, "t:q")) != -1) {
		switch (c) {
		case 't':
			secs = atof(optarg);
			break;
		case 'q':
			quick = 1;
			break;
		default:
			fprintf(stderr, "usage: scif-bench [-t SECONDS_PER_ROW] [-q]\n");
			return 2;
		}
	}
	if (optind != argc || !(secs > 0)) {
		fprintf(stderr, "usage: scif-bench [-t SECONDS_PER_ROW] [-q]\n");
		return 2;
	}
	printf("%-10s %8s %12s %12s %12s\n", "test", "bytes", "iterations",
	       "us/iter", "MiB/s");
	ioctl_row(secs);
	if (quick) {
		row(ROUNDTRIP, 8, secs);
		row(SPIN, 8, secs);
		row(STREAM, MAX_MSG, secs);
		row(SPINSTREAM, MAX_MSG, secs);
		return 0;
	}
	for (mode = ROUNDTRIP; mode <= SPINSTREAM; mode++)
		for (size = 8; size <= MAX_MSG; size *= 2)
			row(mode, size, secs);
	return 0;
}
