// SPDX-License-Identifier: GPL-2.0
/*
 * Two nodes flood each other, both ways at once, with requests that the
 * peer answers from the path that drains its ring: SCIF_FENCE_INIT_PEER
 * marks (each a FENCE_REQ, answered by a FENCE_DONE), while streams run in
 * both directions and keep the rings full. Regression test for two receive
 * paths that each waited for room in the other's full ring: neither ring
 * was drained any more and, after the send timeout, both nodes declared
 * the other lost.
 *
 *   scif-ntb-storm PEER_NODE PORT THREADS SECONDS
 *
 * Run on both nodes with each other's node id. Each node listens on PORT
 * and accepts THREADS connections, whose data it reads and throws away;
 * THREADS threads of its own connect to the peer and, for SECONDS, take
 * bursts of peer marks, send 16 KiB and wait for the last mark of each
 * burst. Prints one TAP line per thread and a summary.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scif_test.h"
#include "scif_util.h"

#define MAX_THREADS	32
#define BURST		64
#define CHUNK		16384

static __u16 peer_node;
static __u16 port;
static double end_time;

struct worker {
	pthread_t t;
	scif_epd_t listener;
	int idx;
	long rounds;
	long marks;
	long busy;
	long bytes;
	const char *failed;
	int err;
};

/* Accept one connection and read until the peer closes it. */
static void *sink(void *arg)
{
	struct worker *w = arg;
	static char buf[CHUNK];
	struct scif_port_id from;
	scif_epd_t epd;
	int n;

	if (scif_accept(w->listener, &from, &epd, SCIF_ACCEPT_SYNC) < 0) {
		w->failed = "scif_accept";
		w->err = errno;
		return NULL;
	}
	for (;;) {
		n = scif_recv(epd, buf, sizeof(buf), SCIF_RECV_BLOCK);
		if (n <= 0)
			break;
		w->bytes += n;
	}
	if (n < 0 && errno != ECONNRESET) {
		w->failed = "scif_recv";
		w->err = errno;
	}
	scif_close(epd);
	return NULL;
}

/* Connect to the peer and flood it until the time is up. */
static void *flood(void *arg)
{
	struct worker *w = arg;
	static char buf[CHUNK];
	const char *what;
	scif_epd_t epd;
	int i, mark = 0;

	epd = dial_retry(peer_node, port, 60, &what);
	if (epd == SCIF_OPEN_FAILED) {
		w->failed = what;
		w->err = errno;
		return NULL;
	}
	while (now() < end_time) {
		for (i = 0; i < BURST; i++) {
			if (scif_fence_mark(epd, SCIF_FENCE_INIT_PEER,
					    &mark) == 0) {
				w->marks++;
				continue;
			}
			if (errno != ENOMEM) {
				w->failed = "scif_fence_mark";
				goto out;
			}
			/* The cap on unanswered marks: wait below. */
			w->busy++;
			break;
		}
		if (scif_send(epd, buf, sizeof(buf), SCIF_SEND_BLOCK) !=
		    sizeof(buf)) {
			w->failed = "scif_send";
			goto out;
		}
		w->bytes += sizeof(buf);
		if (scif_fence_wait(epd, mark) < 0) {
			w->failed = "scif_fence_wait";
			goto out;
		}
		w->rounds++;
	}
out:
	if (w->failed)
		w->err = errno;
	scif_close(epd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker sinks[MAX_THREADS], floods[MAX_THREADS];
	long marks = 0, rounds = 0, busy = 0;
	int threads, seconds, i;
	scif_epd_t l;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 5)
		bail("usage: scif-ntb-storm PEER_NODE PORT THREADS SECONDS");
	peer_node = atoi(argv[1]);
	port = atoi(argv[2]);
	threads = atoi(argv[3]);
	seconds = atoi(argv[4]);
	if (threads < 1 || threads > MAX_THREADS || seconds < 1)
		bail("bad THREADS or SECONDS");
	l = scif_open();
	if (l == SCIF_OPEN_FAILED || scif_bind(l, port) != port ||
	    scif_listen(l, threads) < 0)
		bail("listen on port %u", port);
	memset(sinks, 0, sizeof(sinks));
	memset(floods, 0, sizeof(floods));
	end_time = now() + seconds;
	for (i = 0; i < threads; i++) {
		sinks[i].idx = i;
		sinks[i].listener = l;
		floods[i].idx = i;
		if (pthread_create(&sinks[i].t, NULL, sink, &sinks[i]) ||
		    pthread_create(&floods[i].t, NULL, flood, &floods[i]))
			bail("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(floods[i].t, NULL);
		tap_ok(!floods[i].failed,
		       "flood %d: %ld rounds, %ld marks, %ld at the cap%s%s %s",
		       i, floods[i].rounds, floods[i].marks, floods[i].busy,
		       floods[i].failed ? ": " : "",
		       floods[i].failed ? floods[i].failed : "",
		       floods[i].failed ? strerror(floods[i].err) : "");
		marks += floods[i].marks;
		rounds += floods[i].rounds;
		busy += floods[i].busy;
	}
	for (i = 0; i < threads; i++) {
		pthread_join(sinks[i].t, NULL);
		tap_ok(!sinks[i].failed, "sink %d: %ld bytes%s%s", i,
		       sinks[i].bytes, sinks[i].failed ? ": " : "",
		       sinks[i].failed ? sinks[i].failed : "");
	}
	printf("# storm to node %u: %ld rounds, %ld peer marks, %ld at the cap\n",
	       peer_node, rounds, marks, busy);
	scif_close(l);
	return tap_done();
}
