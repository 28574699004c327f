// SPDX-License-Identifier: GPL-2.0
/*
 * scif-bench: loopback send/recv benchmark. Two processes on this node:
 *
 *   round trip  message of N bytes there and back, N = 8 B .. 64 KiB
 *   streaming   one-way blocking sends of N bytes, N = 8 B .. 64 KiB
 *
 * Prints a table. Not a test: nothing is asserted.
 *
 *   scif-bench [-t SECONDS_PER_ROW]
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scif.h"

#define MAX_MSG		65536

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

/* The child: echo (mode 0) or sink (mode 1) messages of @size bytes. */
static void serve(scif_epd_t e, int mode, int size)
{
	char *buf = malloc(MAX_MSG);

	for (;;) {
		if (scif_recv(e, buf, size, SCIF_RECV_BLOCK) != size)
			break;
		if (mode == 0 && scif_send(e, buf, size, SCIF_SEND_BLOCK) != size)
			break;
	}
	free(buf);
}

static void row(int mode, int size, double secs)
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
		if (scif_send(a, buf, size, SCIF_SEND_BLOCK) != size)
			die("scif_send");
		if (mode == 0 && scif_recv(a, buf, size, SCIF_RECV_BLOCK) != size)
			die("scif_recv");
		n++;
		t = now() - t0;
	} while (t < secs);
	scif_close(a);
	waitpid(pid, NULL, 0);
	if (mode == 0)
		printf("%-10s %8d %12ld %12.2f %12.1f\n", "roundtrip", size, n,
		       t / n * 1e6, 2.0 * n * size / t / 1048576);
	else
		printf("%-10s %8d %12ld %12.2f %12.1f\n", "stream", size, n,
		       t / n * 1e6, (double)n * size / t / 1048576);
	fflush(stdout);
	free(buf);
}

int main(int argc, char **argv)
{
	double secs = 1.0;
	int size, mode;

	if (argc == 3 && !strcmp(argv[1], "-t"))
		secs = atof(argv[2]);
	printf("%-10s %8s %12s %12s %12s\n", "test", "bytes", "iterations",
	       "us/iter", "MiB/s");
	for (mode = 0; mode < 2; mode++)
		for (size = 8; size <= MAX_MSG; size *= 2)
			row(mode, size, secs);
	return 0;
}
