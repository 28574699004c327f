/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the userspace SCIF tests that print TAP: TAP output,
 * connected endpoint pairs on the local (loopback) node, and the pieces of
 * the two-node tests that bail out on failure.
 */
#ifndef SCIF_TEST_H
#define SCIF_TEST_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scif.h"
#include "scif_util.h"

static int tap_count;
static int tap_failed;

static inline void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A call that must fail with -1 and the given errno. */
#define EXPECT_ERR(call, err) \
	do { \
		int r_; \
		errno = 0; \
		r_ = (call); \
		tap_ok(r_ == -1 && errno == (err), "%s fails with %s (got %d, %s)", \
		       #call, #err, r_, strerror(errno)); \
	} while (0)

/* A call that must return @want. */
#define EXPECT_EQ(call, want) \
	do { \
		long r_; \
		errno = 0; \
		r_ = (call); \
		tap_ok(r_ == (long)(want), "%s == %s (got %ld, %s)", #call, \
		       #want, r_, r_ < 0 ? strerror(errno) : "no error"); \
	} while (0)

/*
 * A call that must fail with @err once something asynchronous (the peer
 * closing, a window going away) has taken effect: tried again every 10 ms
 * for up to 5 s.
 */
#define EXPECT_ERR_SOON(call, err) \
	do { \
		int r_, i_, e_ = (err); \
		for (i_ = 0; i_ < 500; i_++) { \
			errno = 0; \
			r_ = (call); \
			if (r_ == -1 && errno == e_) \
				break; \
			usleep(10000); \
		} \
		tap_ok(r_ == -1 && errno == e_, "%s fails with %s (got %d, %s)", \
		       #call, #err, r_, strerror(errno)); \
	} while (0)

static inline void bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(errno));
	exit(2);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

/*
 * Run @fn(@arg) in a forked child that prints its TAP lines to our stdout.
 * Its checks are added to our counts, and one more check tells whether it
 * got to the end ("@name: child finished").
 */
static inline void tap_child(const char *name, void (*fn)(void *), void *arg)
{
	int fds[2], st, res[2] = { 0, 0 };
	pid_t pid;

	if (pipe(fds))
		bail("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		int start = tap_count, fail = tap_failed;

		fn(arg);
		res[0] = tap_count - start;
		res[1] = tap_failed - fail;
		if (write(fds[1], res, sizeof(res)) != sizeof(res))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], res, sizeof(res)) != sizeof(res))
		res[0] = 0;
	close(fds[0]);
	waitpid(pid, &st, 0);
	tap_count += res[0];
	tap_failed += res[1];
	tap_ok(WIFEXITED(st) && !WEXITSTATUS(st) && res[0] > 0,
	       "%s: child finished", name);
}

static inline __u16 local_node(void)
{
	__u16 nodes[16], self;

	if (scif_get_node_ids(nodes, 16, &self) < 1)
		bail("scif_get_node_ids");
	return self;
}

struct connector {
	scif_epd_t epd;
	struct scif_port_id dst;
	int ret;
	int err;
};

static inline void *connect_thread(void *arg)
{
	struct connector *c = arg;

	c->ret = scif_connect(c->epd, &c->dst);
	c->err = errno;
	return NULL;
}

/*
 * A listening endpoint on a free port of the local node, with a backlog of
 * @backlog. The port is stored in @port.
 */
static inline scif_epd_t make_listener(int backlog, __u16 *port)
{
	scif_epd_t l = scif_open();
	int p;

	if (l == SCIF_OPEN_FAILED)
		bail("scif_open");
	p = scif_bind(l, 0);
	if (p < 0)
		bail("scif_bind");
	if (scif_listen(l, backlog) < 0)
		bail("scif_listen");
	*port = (__u16)p;
	return l;
}

/*
 * Connect a new endpoint to listener @l (port @port on this node) and
 * accept it: @a is the connecting side, @b the accepted one.
 */
static inline void make_pair_on(scif_epd_t l, __u16 port,
				scif_epd_t *a, scif_epd_t *b)
{
	struct connector c;
	struct scif_port_id peer;
	pthread_t t;

	c.epd = scif_open();
	if (c.epd == SCIF_OPEN_FAILED)
		bail("scif_open");
	c.dst.node = local_node();
	c.dst.port = port;
	if (pthread_create(&t, NULL, connect_thread, &c))
		bail("pthread_create");
	if (scif_accept(l, &peer, b, SCIF_ACCEPT_SYNC) < 0)
		bail("scif_accept");
	pthread_join(t, NULL);
	if (c.ret < 0) {
		errno = c.err;
		bail("scif_connect");
	}
	*a = c.epd;
}

static inline void make_pair(scif_epd_t *a, scif_epd_t *b)
{
	__u16 port;
	scif_epd_t l = make_listener(4, &port);

	make_pair_on(l, port, a, b);
	scif_close(l);
}

/* @len bytes of private anonymous memory with protection @prot. */
static inline void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		bail("mmap");
	return p;
}

/* dial_retry(), bailing out when it fails. */
static inline scif_epd_t dial_or_bail(__u16 node, __u16 port, int seconds)
{
	const char *what;
	scif_epd_t epd = dial_retry(node, port, seconds, &what);

	if (epd == SCIF_OPEN_FAILED)
		bail("%s to %u:%u", what, node, port);
	return epd;
}

/*
 * Listen on @port of this node, accept one connection and close the
 * listening endpoint again.
 */
static inline scif_epd_t accept_one(__u16 port)
{
	scif_epd_t l = scif_open(), epd;
	struct scif_port_id peer;

	if (l == SCIF_OPEN_FAILED)
		bail("scif_open");
	if (scif_bind(l, port) < 0 || scif_listen(l, 1) < 0)
		bail("scif_bind/listen %u", port);
	if (scif_accept(l, &peer, &epd, SCIF_ACCEPT_SYNC) < 0)
		bail("scif_accept");
	scif_close(l);
	return epd;
}

#endif /* SCIF_TEST_H */
