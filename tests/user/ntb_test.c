// SPDX-License-Identifier: GPL-2.0
/*
 * scif-ntb-test: send/recv between SCIF nodes, for the end-to-end tests,
 * `make demo` and the benchmark.
 *
 *   scif-ntb-test nodes N [SECONDS]    wait until exactly nodes 0..N-1 are
 *                                      online (N = 1: only this node),
 *                                      print the list
 *   scif-ntb-test serve PORT [CONNS]   serve connections (one thread each)
 *                                      until CONNS were served (0: forever)
 *   scif-ntb-test echo NODE PORT CONNS open CONNS connections at once, then
 *                                      exchange a 64-byte message on each
 *   scif-ntb-test stream NODE PORT MIB [poll]
 *                                      send MIB MiB of a seeded sequence;
 *                                      the server checks every byte and
 *                                      the checksum; progress every 25%
 *   scif-ntb-test ping NODE PORT [SIZE ITERS]
 *                                      round trips of SIZE bytes (default
 *                                      8 B, 1000), average latency
 *   scif-ntb-test bench NODE PORT [poll]
 *                                      table: round trip 8 B..64 KiB and
 *                                      streaming throughput; with "poll",
 *                                      both sides spin on non-blocking
 *                                      scif_send()/scif_recv() instead of
 *                                      sleeping in them
 *   scif-ntb-test fault NODE PORT      send from a buffer that runs into an
 *                                      unreadable page: the bytes before
 *                                      it go (and come back), the call
 *                                      returns their count, then EFAULT
 *   scif-ntb-test expect-loss PORT [S] accept one stream and expect it to
 *                                      fail with ECONNRESET or ENODEV
 *                                      (its sender's node dies), within
 *                                      S seconds of the last data; +S:
 *                                      ntb_ivshmem's heartbeat timeout
 *                                      and period, plus S seconds
 *
 * Clients retry connecting while the node is not up or nobody listens yet
 * (for 60 seconds), since guests boot at different times. A connection
 * carries requests, one after the other until the client closes it: each
 * a header naming what the server does. The server answers a DISCARD
 * header with one byte, from which the benchmark times its stream.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PROG_NAME "scif-ntb-test"
#include "scif_util.h"

enum { OP_ECHO = 1, OP_CHECK, OP_DISCARD };
/* Or'ed into hdr.op: the server polls too. */
#define OP_POLL	0x100

struct hdr {
	__u32 op;
	__u32 size;		/* ECHO: message size; CHECK: seed */
	__u64 count;		/* ECHO: messages (0: until close); else bytes */
};

#define CHUNK	65536
/* How long a client keeps trying to connect while the peer boots. */
#define DIAL_SECONDS	60

/*
 * Move exactly @len bytes: in one blocking call, or (@poll) by calling
 * the non-blocking one until all went, never sleeping in the driver.
 */
static int xfer_how(scif_epd_t epd, void *buf, int len, int send, int poll)
{
	char *p = buf;
	int n;

	if (!poll) {
		n = send ? scif_send(epd, buf, len, SCIF_SEND_BLOCK) :
			   scif_recv(epd, buf, len, SCIF_RECV_BLOCK);
		return n == len ? 0 : -1;
	}
	while (len > 0) {
		n = send ? scif_send(epd, p, len, 0) : scif_recv(epd, p, len, 0);
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int xfer(scif_epd_t epd, void *buf, int len, int send)
{
	return xfer_how(epd, buf, len, send, 0);
}

static scif_epd_t listener(__u16 port, int backlog)
{
	scif_epd_t epd = scif_open();

	if (epd == SCIF_OPEN_FAILED)
		die("scif_open");
	if (scif_bind(epd, port) < 0)
		die("scif_bind");
	if (scif_listen(epd, backlog) < 0)
		die("scif_listen");
	return epd;
}

/* Serve the request @h; returns 0 if it went as the client asked. */
static int serve_request(scif_epd_t epd, char *buf, struct hdr h)
{
	__u64 seed, sum = 0, got = 0, want, i;
	int n, poll;
	char ready = 1;

	poll = !!(h.op & OP_POLL);
	h.op &= ~OP_POLL;
	if (h.op == OP_ECHO) {
		if (h.size > CHUNK)
			return -1;
		for (i = 0; !h.count || i < h.count; i++) {
			if (xfer_how(epd, buf, h.size, 0, poll))
				return h.count ? -1 : 0;
			if (xfer_how(epd, buf, h.size, 1, poll))
				return -1;
		}
		return 0;
	}
	/* The sender of a DISCARD times from here on. */
	if (h.op == OP_DISCARD && xfer_how(epd, &ready, 1, 1, poll))
		return -1;
	seed = h.size | 1;
	while (got < h.count) {
		n = h.count - got > CHUNK ? (__u64)CHUNK : h.count - got;
		if (xfer_how(epd, buf, n, 0, poll))
			return -1;
		if (h.op == OP_CHECK) {
			for (i = 0; i < (__u64)n / 8; i++) {
				__u64 v = xorshift64(&seed);

				if (memcmp(buf + 8 * i, &v, 8)) {
					fprintf(stderr, "mismatch at byte %llu\n",
						(unsigned long long)(got + 8 * i));
					return -1;
				}
				sum += v;
			}
		}
		got += n;
	}
	want = sum;
	if (xfer_how(epd, &sum, 8, 0, poll))
		return -1;
	if (h.op == OP_CHECK && sum != want) {
		fprintf(stderr, "checksum mismatch\n");
		return -1;
	}
	return xfer_how(epd, &want, 8, 1, poll);
}

/*
 * Serve one connection: its requests, one after the other, until the
 * client closes it. Returns 0 if all went as the client asked.
 */
static int serve_one(scif_epd_t epd, char *buf)
{
	struct hdr h;
	int served;

	for (served = 0; !xfer(epd, &h, sizeof(h), 0); served++)
		if (serve_request(epd, buf, h))
			return -1;
	return served ? 0 : -1;
}

static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *serve_thread(void *arg)
{
	scif_epd_t epd = (scif_epd_t)(long)arg;
	char *buf = malloc(CHUNK);

	if (!buf || serve_one(epd, buf)) {
		pthread_mutex_lock(&lock);
		failures++;
		pthread_mutex_unlock(&lock);
		perror("scif-ntb-test: connection");
	}
	free(buf);
	scif_close(epd);
	return NULL;
}

static int serve(__u16 port, int conns)
{
	scif_epd_t l = listener(port, 128), epd;
	struct scif_port_id peer;
	pthread_t *t = calloc(conns ? conns : 1, sizeof(*t));
	int i;

	printf("serving port %u\n", port);
	fflush(stdout);
	for (i = 0; !conns || i < conns; i++) {
		if (scif_accept(l, &peer, &epd, SCIF_ACCEPT_SYNC) < 0) {
			/*
			 * Serving forever (a target for a hostile peer): a
			 * request whose node went away, or that we had no
			 * memory for, fails alone; the listener goes on.
			 */
			if (!conns && errno != EBADF && errno != EINVAL)
				continue;
			die("scif_accept");
		}
		if (pthread_create(&t[conns ? i : 0], NULL, serve_thread,
				   (void *)(long)epd))
			die("pthread_create");
		if (!conns)
			pthread_detach(t[0]);
	}
	for (i = 0; i < conns; i++)
		pthread_join(t[i], NULL);
	scif_close(l);
	printf("served %d connections, %d failed\n", conns, failures);
	return failures ? 1 : 0;
}

static int run_echo(__u16 node, __u16 port, int conns)
{
	scif_epd_t *e = calloc(conns, sizeof(*e));
	struct hdr h = { OP_ECHO, 64, 1 };
	char msg[64], back[64];
	int i;

	for (i = 0; i < conns; i++)
		e[i] = dial_or_die(node, port, DIAL_SECONDS);
	printf("%d connections to node %u open\n", conns, node);
	for (i = 0; i < conns; i++) {
		memset(msg, i, sizeof(msg));
		if (xfer(e[i], &h, sizeof(h), 1) || xfer(e[i], msg, 64, 1))
			die("send");
	}
	for (i = 0; i < conns; i++) {
		memset(msg, i, sizeof(msg));
		if (xfer(e[i], back, 64, 0))
			die("recv");
		if (memcmp(msg, back, 64)) {
			fprintf(stderr, "connection %d: wrong echo\n", i);
			return 1;
		}
		scif_close(e[i]);
	}
	printf("%d echoes from node %u ok\n", conns, node);
	return 0;
}

/*
 * A 64-byte send that starts 5 bytes before an unreadable page: the 5
 * bytes go and the call returns 5; a send from the page itself fails with
 * EFAULT; the echo brings the 5 bytes back. Right after the 16-byte
 * header the bytes land 8-byte aligned in the peer's ring, where a copy
 * by 8- and 4-byte moves stops 1 byte short of the page and, from there,
 * makes no progress at all: a send that then retried for ever is killed
 * by the alarm, and the test fails.
 */
static int run_fault(__u16 node, __u16 port)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct hdr h = { OP_ECHO, 5, 1 };
	char *m, back[5];
	scif_epd_t epd;
	int n;

	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_NONE))
		die("mmap");
	memcpy(m + pg - 5, "fault", 5);
	alarm(120);
	epd = dial_or_die(node, port, DIAL_SECONDS);
	if (xfer(epd, &h, sizeof(h), 1))
		die("send");
	/* The driver's copy is tested: libscif's own would just fault. */
	n = raw_msg(epd, SCIF_SEND, m + pg - 5, 64, SCIF_SEND_BLOCK);
	if (n != 5) {
		fprintf(stderr, "send into an unreadable page: %d (%s), want 5\n",
			n, n < 0 ? strerror(errno) : "bytes");
		return 1;
	}
	n = raw_msg(epd, SCIF_SEND, m + pg, 8, SCIF_SEND_BLOCK);
	if (n != -1 || errno != EFAULT) {
		fprintf(stderr, "send from an unreadable page: %d (%s), want EFAULT\n",
			n, n < 0 ? strerror(errno) : "bytes");
		return 1;
	}
	if (xfer(epd, back, 5, 0) || memcmp(back, "fault", 5)) {
		fprintf(stderr, "echo of the 5 bytes before the page: wrong\n");
		return 1;
	}
	scif_close(epd);
	printf("send into an unreadable page: 5 of 64 bytes went, then EFAULT\n");
	return 0;
}

/*
 * Send @bytes of the sequence (CHECK) or of zeros (DISCARD) and wait for
 * the server's sum; the seconds it took. A DISCARD is timed from the
 * server's answer to the header, so that a server still starting up does
 * not count.
 */
static double send_stream(scif_epd_t epd, int op, __u64 bytes, int chunk,
			  int progress, int poll)
{
	static __u64 buf[CHUNK / 8];
	__u64 seed = 0x5c1f | 1, sum = 0, sent = 0, back;
	struct hdr h = { op | (poll ? OP_POLL : 0), seed, bytes };
	double t0 = now();
	int n, i, step = 0;
	char ready;

	if (xfer(epd, &h, sizeof(h), 1))
		die("send");
	if (op == OP_DISCARD) {
		if (xfer_how(epd, &ready, 1, 0, poll))
			die("recv");
		t0 = now();
	}
	while (sent < bytes) {
		n = bytes - sent > (__u64)chunk ? (__u64)chunk : bytes - sent;
		if (op == OP_CHECK)
			for (i = 0; i < n / 8; i++) {
				buf[i] = xorshift64(&seed);
				sum += buf[i];
			}
		if (xfer_how(epd, buf, n, 1, poll))
			die("send");
		sent += n;
		if (progress && sent * 4 / bytes > (__u64)step) {
			step = sent * 4 / bytes;
			printf("  %3d%%  %llu MiB  %.1f MiB/s\n", step * 25,
			       (unsigned long long)(sent >> 20),
			       sent / 1048576.0 / (now() - t0));
			fflush(stdout);
		}
	}
	if (xfer_how(epd, &sum, 8, 1, poll) || xfer_how(epd, &back, 8, 0, poll))
		die("stream end");
	if (op == OP_CHECK && back != sum) {
		fprintf(stderr, "checksum differs\n");
		exit(1);
	}
	return now() - t0;
}

static int run_stream(__u16 node, __u16 port, int mib, int poll)
{
	scif_epd_t epd = dial_or_die(node, port, DIAL_SECONDS);
	double t;

	printf("@@SCIF-READY streaming %d MiB to node %u\n", mib, node);
	fflush(stdout);
	t = send_stream(epd, OP_CHECK, (__u64)mib << 20, CHUNK, 1, poll);
	printf("stream of %d MiB to node %u checked: %.1f s, %.2f MiB/s\n",
	       mib, node, t, mib / t);
	scif_close(epd);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Average round trip of @size bytes over @iters exchanges, in us; the
 * median one in *@median if not NULL (each exchange then timed alone, as
 * the rig's own polled word is).
 */
static double round_trip_med(scif_epd_t epd, int size, int iters, int poll,
			     double *median)
{
	static char buf[CHUNK];
	double t0, t, *each = NULL;
	int i;

	if (median) {
		each = malloc(iters * sizeof(*each));
		if (!each)
			die("malloc");
	}
	t0 = now();
	t = t0;
	for (i = 0; i < iters; i++) {
		if (xfer_how(epd, buf, size, 1, poll) ||
		    xfer_how(epd, buf, size, 0, poll))
			die("round trip");
		if (each) {
			each[i] = now() - t;
			t += each[i];
		}
	}
	t = (now() - t0) / iters * 1e6;
	if (each) {
		qsort(each, iters, sizeof(*each), cmp_double);
		*median = each[iters / 2] * 1e6;
		free(each);
	}
	return t;
}

static double round_trip(scif_epd_t epd, int size, int iters, int poll)
{
	return round_trip_med(epd, size, iters, poll, NULL);
}

static int run_ping(__u16 node, __u16 port, int size, int iters)
{
	struct hdr h = { OP_ECHO, size, 0 };
	scif_epd_t epd = dial_or_die(node, port, DIAL_SECONDS);

	if (xfer(epd, &h, sizeof(h), 1))
		die("send");
	round_trip(epd, size, iters / 10 + 1, 0);
	printf("ping-pong with node %u: %d round trips of %d B, %.1f us each\n",
	       node, iters, size, round_trip(epd, size, iters, 0));
	scif_close(epd);
	return 0;
}

static int bench(__u16 node, __u16 port, int poll)
{
	static const int sizes[] = { 8, 64, 512, 4096, 16384, 65536 };
	unsigned int i;
	scif_epd_t epd;
	double t, best, us, med;
	int iters, try;
	__u64 bytes;

	printf("%-10s %14s %16s %10s\n", "size", "round trip us", "stream MiB/s",
	       "median us");
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct hdr h = { OP_ECHO | (poll ? OP_POLL : 0), sizes[i], 0 };

		epd = dial_or_die(node, port, DIAL_SECONDS);
		if (xfer(epd, &h, sizeof(h), 1))
			die("send");
		/* About a second per row, whatever the speed. */
		us = round_trip(epd, sizes[i], 20, poll);
		iters = us > 0 ? 1e6 / us : 1000;
		us = round_trip_med(epd, sizes[i], iters < 20 ? 20 : iters,
				    poll, &med);
		scif_close(epd);
		epd = dial_or_die(node, port, DIAL_SECONDS);
		/* A short stream, then the fastest of STREAM_TRIES longer. */
		t = send_stream(epd, OP_DISCARD, stream_length(sizes[i], 0),
				sizes[i], 0, poll);
		bytes = stream_length(sizes[i], t);
		best = 0;
		for (try = 0; try < STREAM_TRIES; try++) {
			t = send_stream(epd, OP_DISCARD, bytes, sizes[i], 0,
					poll);
			if (!best || t < best)
				best = t;
		}
		printf("%-10d %14.1f %16.2f %10.2f\n", sizes[i], us,
		       bytes / 1048576.0 / best, med);
		fflush(stdout);
		scif_close(epd);
	}
	return 0;
}

static int expect_loss(__u16 port, double limit)
{
	scif_epd_t l = listener(port, 1), epd;
	static char buf[CHUNK];
	struct scif_port_id peer;
	double last = 0;
	__u64 got = 0;
	struct hdr h;
	int n;

	alarm(300);
	if (scif_accept(l, &peer, &epd, SCIF_ACCEPT_SYNC) < 0)
		die("scif_accept");
	if (xfer(epd, &h, sizeof(h), 0))
		die("recv header");
	printf("@@SCIF-READY receiving from node %u\n", peer.node);
	fflush(stdout);
	for (;;) {
		n = scif_recv(epd, buf, sizeof(buf), 0);
		if (n > 0) {
			got += n;
			last = now();
			continue;
		}
		if (n == 0) {
			/* Nothing queued: wait in a blocking receive. */
			n = scif_recv(epd, buf, 1, SCIF_RECV_BLOCK);
			if (n == 1) {
				got++;
				last = now();
				continue;
			}
		}
		break;
	}
	if (errno != ECONNRESET && errno != ENODEV)
		die("scif_recv ended otherwise");
	printf("stream from node %u lost after %llu MiB: %s, %.2f s after the last data\n",
	       peer.node, (unsigned long long)(got >> 20), strerror(errno),
	       now() - last);
	if (limit > 0 && now() - last > limit) {
		fprintf(stderr, "loss noticed later than %.1f s\n", limit);
		return 1;
	}
	if (scif_send(epd, buf, 1, 0) >= 0 ||
	    (errno != ECONNRESET && errno != ENODEV))
		die("send after loss did not fail as expected");
	scif_close(epd);
	scif_close(l);
	return 0;
}

static int wait_nodes(int want, int seconds)
{
	double end = now() + seconds;
	__u16 ids[256], self;
	int n, i, ok;

	for (;;) {
		n = scif_get_node_ids(ids, 256, &self);
		if (n < 0)
			die("scif_get_node_ids");
		ok = n == want;
		for (i = 0; ok && i < n; i++)
			ok = want == 1 ? ids[i] == self : ids[i] == i;
		if (ok || now() > end)
			break;
		usleep(100000);
	}
	printf("self %u, %d nodes online:", self, n);
	for (i = 0; i < n && i < 256; i++)
		printf(" %u", ids[i]);
	printf("%s\n", ok ? "" : " (expected 0..N-1)");
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int a = argc > 2 ? atoi(argv[2]) : 0;
	int b = argc > 3 ? atoi(argv[3]) : 0;
	int c = argc > 4 ? atoi(argv[4]) : 0;
	int poll;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "nodes") && argc >= 3)
		return wait_nodes(a, argc > 3 ? b : 30);
	if (!strcmp(cmd, "serve") && argc >= 3)
		return serve(a, b);
	if (!strcmp(cmd, "echo") && argc == 5)
		return run_echo(a, b, c);
	if (!strcmp(cmd, "fault") && argc == 4)
		return run_fault(a, b);
	poll = !strcmp(argv[argc - 1], "poll");
	if (!strcmp(cmd, "stream") && argc == 5 + poll)
		return run_stream(a, b, c, poll);
	if (!strcmp(cmd, "ping") && argc >= 4)
		return run_ping(a, b, c ? c : 8, argc > 5 ? atoi(argv[5]) : 1000);
	if (!strcmp(cmd, "bench") && argc == 4 + poll)
		return bench(a, b, poll);
	if (!strcmp(cmd, "expect-loss") && argc >= 3) {
		double limit = argc > 3 ? loss_bound_s(argv[3]) : 0;

		if (limit < 0) {
			fprintf(stderr, "expect-loss: no ntb_ivshmem heartbeat parameters for %s\n",
				argv[3]);
			return 1;
		}
		return expect_loss(a, limit);
	}
	fprintf(stderr,
		"usage: scif-ntb-test nodes|serve|echo|fault|stream|ping|bench|expect-loss ...\n");
	return 2;
}
