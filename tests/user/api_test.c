// SPDX-License-Identifier: GPL-2.0
/*
 * scif-user-api-test: every libscif call and every error the user-mode API
 * specifies, produced in the situation that calls for it, plus the raw
 * /dev/scif requests with bad arguments (unmapped pointers, bad flags,
 * negative lengths, out-of-range ports, stale accept handles). Runs as root
 * on the loopback node; drops privileges in a child where needed. Built
 * both for x86_64 and i386 (the latter exercises compat_ioctl).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scif_test.h"

/* An address that is never mapped: the page below a fresh PROT_NONE one. */
static void *bad_ptr;

static __u16 self;

/*
 * SCIF_SEND or SCIF_RECV without libscif. An unmapped buffer is checked
 * this way: where libscif copies through the mapped stream, it faults in
 * the process (SIGSEGV) as memcpy() does, instead of failing with EFAULT.
 */
static scif_epd_t open_ep(void)
{
	scif_epd_t e = scif_open();

	if (e == SCIF_OPEN_FAILED)
		bail("scif_open");
	return e;
}

static void test_open_close(void)
{
	scif_epd_t e = scif_open();
	int pipefd[2];

	tap_ok(e >= 0, "scif_open returns a descriptor (%d)", e);
	EXPECT_EQ(scif_get_fd(e), e);
	EXPECT_EQ(scif_close(e), 0);
	EXPECT_ERR(scif_close(e), EBADF);
	EXPECT_ERR(scif_bind(e, 0), EBADF);
	EXPECT_ERR(scif_listen(-1, 1), EBADF);

	if (pipe(pipefd))
		bail("pipe");
	EXPECT_ERR(scif_bind(pipefd[0], 0), ENOTTY);
	EXPECT_ERR(scif_listen(pipefd[0], 1), ENOTTY);
	close(pipefd[0]);
	close(pipefd[1]);
}

static void test_bind(void)
{
	scif_epd_t a = open_ep(), b = open_ep();
	__u64 big = 65536;
	int p;

	p = scif_bind(a, 0);
	tap_ok(p >= SCIF_PORT_RSVD && p <= 65535,
	       "scif_bind(0) picks a port >= SCIF_PORT_RSVD (%d)", p);
	EXPECT_ERR(scif_bind(a, 0), EINVAL);
	EXPECT_ERR(scif_bind(a, 2000), EINVAL);
	EXPECT_ERR(scif_bind(b, (__u16)p), EADDRINUSE);
	EXPECT_ERR(ioctl(b, SCIF_BIND, &big), EINVAL);
	big = ~0ull;
	EXPECT_ERR(ioctl(b, SCIF_BIND, &big), EINVAL);
	EXPECT_ERR(ioctl(b, SCIF_BIND, NULL), EFAULT);
	EXPECT_ERR(ioctl(b, SCIF_BIND, bad_ptr), EFAULT);
	scif_close(a);
	/* The port is free again once its endpoint is gone. */
	EXPECT_EQ(scif_bind(b, (__u16)p), p);
	scif_close(b);

	/* Root may take an administrative port. */
	a = open_ep();
	EXPECT_EQ(scif_bind(a, 200), 200);
	scif_close(a);
}

static void test_privileged_port(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		bail("fork");
	if (pid == 0) {
		scif_epd_t e;
		int r, err;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		e = scif_open();
		if (e == SCIF_OPEN_FAILED)
			_exit(4);
		r = scif_bind(e, 100);
		err = errno;
		if (r != -1 || err != EACCES)
			_exit(5);
		r = scif_bind(e, SCIF_ADMIN_PORT_END - 1);
		if (r != -1 || errno != EACCES)
			_exit(6);
		/* Unprivileged users may still bind ordinary ports. */
		if (scif_bind(e, SCIF_ADMIN_PORT_END) != SCIF_ADMIN_PORT_END)
			_exit(7);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "an unprivileged user gets EACCES for ports < %d (child status %d)",
	       SCIF_ADMIN_PORT_END, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void test_listen(void)
{
	scif_epd_t e = open_ep();
	struct scif_port_id dst = { .node = self, .port = 3000 };

	EXPECT_ERR(scif_listen(e, 4), EINVAL);
	if (scif_bind(e, 0) < 0)
		bail("scif_bind");
	EXPECT_EQ(scif_listen(e, 4), 0);
	EXPECT_ERR(scif_listen(e, 4), EISCONN);
	EXPECT_ERR(scif_connect(e, &dst), EOPNOTSUPP);
	scif_close(e);
}

static void test_connect_errors(void)
{
	scif_epd_t e = open_ep();
	struct scif_port_id dst;
	struct scifioctl_connect req;
	__u16 port;
	scif_epd_t l = make_listener(1, &port);

	/* Nobody listens on a freshly freed port. */
	scif_close(l);
	dst.node = self;
	dst.port = port;
	EXPECT_ERR(scif_connect(e, &dst), ECONNREFUSED);

	dst.port = 0;
	EXPECT_ERR(scif_connect(e, &dst), EINVAL);

	dst.node = 250;
	dst.port = 4000;
	EXPECT_ERR(scif_connect(e, &dst), ENODEV);

	EXPECT_ERR(ioctl(e, SCIF_CONNECT, NULL), EFAULT);
	EXPECT_ERR(ioctl(e, SCIF_CONNECT, bad_ptr), EFAULT);

	/* A listener that is bound but not listening refuses too. */
	l = open_ep();
	port = scif_bind(l, 0);
	memset(&req, 0, sizeof(req));
	req.peer.node = self;
	req.peer.port = port;
	EXPECT_ERR(ioctl(e, SCIF_CONNECT, &req), ECONNREFUSED);
	scif_close(l);
	scif_close(e);
}

static void test_accept_errors(void)
{
	scif_epd_t e = open_ep(), n;
	struct scif_port_id peer;
	struct scifioctl_accept req;
	__u16 port;
	scif_epd_t l = make_listener(2, &port);

	EXPECT_ERR(scif_accept(e, &peer, &n, 0), EINVAL);
	if (scif_bind(e, 0) < 0)
		bail("scif_bind");
	EXPECT_ERR(scif_accept(e, &peer, &n, SCIF_ACCEPT_SYNC), EINVAL);
	EXPECT_ERR(scif_accept(l, &peer, &n, 0), EAGAIN);
	EXPECT_ERR(scif_accept(l, &peer, &n, 2), EINVAL);
	EXPECT_ERR(scif_accept(l, &peer, &n, -1), EINVAL);
	EXPECT_ERR(scif_accept(l, NULL, &n, 0), EINVAL);
	EXPECT_ERR(scif_accept(l, &peer, NULL, 0), EINVAL);
	EXPECT_ERR(ioctl(l, SCIF_ACCEPTREQ, NULL), EFAULT);
	EXPECT_ERR(ioctl(l, SCIF_ACCEPTREQ, bad_ptr), EFAULT);
	memset(&req, 0, sizeof(req));
	EXPECT_ERR(ioctl(l, SCIF_ACCEPTREQ, &req), EAGAIN);
	scif_close(l);
	scif_close(e);
}

/*
 * A process out of descriptors: scif_accept() fails with EMFILE and leaves
 * the request pending, so that once a descriptor is free the request is
 * accepted and the connection works.
 */
static void test_accept_no_fd(void)
{
	struct scif_pollepd p = { .events = SCIF_POLLIN };
	struct scif_port_id peer;
	struct rlimit old, low;
	struct connector c;
	scif_epd_t n = -1;
	int lowest, r;
	pthread_t t;
	__u16 port;
	char b = 0;

	p.epd = make_listener(1, &port);
	c.epd = open_ep();
	c.dst.node = self;
	c.dst.port = port;
	if (pthread_create(&t, NULL, connect_thread, &c))
		bail("pthread_create");
	r = scif_poll(&p, 1, 10000);
	tap_ok(r == 1 && (p.revents & SCIF_POLLIN),
	       "the listener sees the request (%d, revents %#x)", r,
	       p.revents);

	/* Every descriptor below the lowest free one is taken: allow no more. */
	lowest = dup(0);
	if (lowest < 0 || getrlimit(RLIMIT_NOFILE, &old))
		bail("dup or getrlimit");
	close(lowest);
	low = old;
	low.rlim_cur = lowest;
	if (setrlimit(RLIMIT_NOFILE, &low))
		bail("setrlimit");
	errno = 0;
	r = scif_accept(p.epd, &peer, &n, SCIF_ACCEPT_SYNC);
	tap_ok(r == -1 && errno == EMFILE,
	       "scif_accept without a free descriptor fails with EMFILE (got %d, %s)",
	       r, strerror(errno));
	if (setrlimit(RLIMIT_NOFILE, &old))
		bail("setrlimit");

	EXPECT_EQ(scif_accept(p.epd, &peer, &n, 0), 0);
	pthread_join(t, NULL);
	tap_ok(c.ret > 0, "the connect completes (%d, %s)", c.ret,
	       strerror(c.err));
	if (n >= 0 && c.ret > 0) {
		EXPECT_EQ(scif_send(n, "a", 1, SCIF_SEND_BLOCK), 1);
		EXPECT_EQ(scif_recv(c.epd, &b, 1, SCIF_RECV_BLOCK), 1);
		tap_ok(b == 'a', "the byte arrives");
		scif_close(n);
	}
	scif_close(c.epd);
	scif_close(p.epd);
}

/*
 * Accept handles are opaque, single use, never kernel addresses, claimable
 * only by the accepting process, and only while their listener is open.
 */
static void test_accept_handles(void)
{
	struct scifioctl_accept req;
	struct connector c;
	pthread_t t;
	__u16 port;
	scif_epd_t l = make_listener(2, &port);
	scif_epd_t f = open_ep(), g = open_ep(), h = open_ep(), k = open_ep();
	__u64 bogus = 0xffffffff81000000ull;
	char byte = 'x';
	int status;
	pid_t pid;

	c.epd = open_ep();
	c.dst.node = self;
	c.dst.port = port;
	if (pthread_create(&t, NULL, connect_thread, &c))
		bail("pthread_create");
	memset(&req, 0, sizeof(req));
	req.flags = SCIF_ACCEPT_SYNC;
	EXPECT_EQ(ioctl(l, SCIF_ACCEPTREQ, &req), 0);
	pthread_join(t, NULL);
	tap_ok(c.ret > 0, "connect completes once accepted (%d)", c.ret);
	tap_ok(req.peer.node == self && req.peer.port == c.ret,
	       "ACCEPTREQ reports the peer %u:%u", req.peer.node,
	       req.peer.port);
	tap_ok(req.endpt < 0xffff800000000000ull,
	       "the accept handle is not a kernel address (%#llx)",
	       (unsigned long long)req.endpt);

	EXPECT_ERR(ioctl(f, SCIF_ACCEPTREG, &bogus), EINVAL);
	EXPECT_ERR(ioctl(f, SCIF_ACCEPTREG, NULL), EFAULT);
	EXPECT_ERR(ioctl(f, SCIF_ACCEPTREG, bad_ptr), EFAULT);
	/* A file whose endpoint is already in use cannot take a handle. */
	if (scif_bind(h, 0) < 0)
		bail("scif_bind");
	EXPECT_ERR(ioctl(h, SCIF_ACCEPTREG, &req.endpt), EBUSY);
	EXPECT_EQ(ioctl(f, SCIF_ACCEPTREG, &req.endpt), 0);
	EXPECT_ERR(ioctl(g, SCIF_ACCEPTREG, &req.endpt), EINVAL);
	EXPECT_ERR(ioctl(f, SCIF_ACCEPTREG, &req.endpt), EBUSY);

	EXPECT_EQ(scif_send(c.epd, &byte, 1, SCIF_SEND_BLOCK), 1);
	byte = 0;
	EXPECT_EQ(scif_recv(f, &byte, 1, SCIF_RECV_BLOCK), 1);
	tap_ok(byte == 'x', "the claimed endpoint is connected to the peer");

	scif_close(c.epd);

	/* Only the process that accepted can claim: not even its child. */
	c.epd = open_ep();
	if (pthread_create(&t, NULL, connect_thread, &c))
		bail("pthread_create");
	EXPECT_EQ(ioctl(l, SCIF_ACCEPTREQ, &req), 0);
	pthread_join(t, NULL);
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (pid == 0) {
		int fd = open("/dev/scif", O_RDWR);

		if (fd < 0)
			_exit(3);
		if (ioctl(fd, SCIF_ACCEPTREG, &req.endpt) != -1)
			_exit(4);
		_exit(errno == EINVAL ? 0 : 5);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "a forked child cannot claim its parent's handle (status %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT_EQ(ioctl(g, SCIF_ACCEPTREG, &req.endpt), 0);
	EXPECT_EQ(scif_send(g, &byte, 1, SCIF_SEND_BLOCK), 1);
	EXPECT_EQ(scif_recv(c.epd, &byte, 1, SCIF_RECV_BLOCK), 1);
	scif_close(c.epd);

	/* Handles not yet claimed die with their listener. */
	c.epd = open_ep();
	if (pthread_create(&t, NULL, connect_thread, &c))
		bail("pthread_create");
	EXPECT_EQ(ioctl(l, SCIF_ACCEPTREQ, &req), 0);
	pthread_join(t, NULL);
	scif_close(l);
	EXPECT_ERR(ioctl(k, SCIF_ACCEPTREG, &req.endpt), EINVAL);
	EXPECT_ERR(scif_recv(c.epd, &byte, 1, SCIF_RECV_BLOCK), ECONNRESET);
	scif_close(c.epd);
	scif_close(f);
	scif_close(g);
	scif_close(h);
	scif_close(k);
}

static void test_connected(void)
{
	scif_epd_t a, b, e = open_ep();
	struct scif_port_id dst = { .node = self, .port = 3001 };
	struct scif_port_id peer;
	struct scifioctl_msg msg;
	char buf[64] = "hello, scif";
	char in[64];

	/* Not connected yet. */
	EXPECT_ERR(scif_send(e, buf, 4, 0), ENOTCONN);
	EXPECT_ERR(scif_recv(e, in, 4, 0), ENOTCONN);
	scif_bind(e, 0);
	EXPECT_ERR(scif_send(e, buf, 4, SCIF_SEND_BLOCK), ENOTCONN);
	EXPECT_ERR(scif_recv(e, in, 4, SCIF_RECV_BLOCK), ENOTCONN);
	scif_close(e);

	make_pair(&a, &b);
	EXPECT_ERR(scif_connect(a, &dst), EISCONN);
	EXPECT_ERR(scif_listen(a, 1), EISCONN);
	EXPECT_ERR(scif_accept(a, &peer, &e, 0), EINVAL);

	EXPECT_EQ(scif_send(a, buf, 0, 0), 0);
	EXPECT_EQ(scif_send(a, buf, 0, SCIF_SEND_BLOCK), 0);
	EXPECT_EQ(scif_recv(b, in, 0, SCIF_RECV_BLOCK), 0);
	EXPECT_ERR(scif_send(a, buf, -1, 0), EINVAL);
	EXPECT_ERR(scif_recv(b, in, -5, SCIF_RECV_BLOCK), EINVAL);
	EXPECT_ERR(scif_send(a, buf, 4, 2), EINVAL);
	EXPECT_ERR(scif_recv(b, in, 4, 0x100), EINVAL);
	EXPECT_ERR(scif_send(a, NULL, 4, SCIF_SEND_BLOCK), EFAULT);
	EXPECT_ERR(raw_msg(a, SCIF_SEND, bad_ptr, 4, 0), EFAULT);
	EXPECT_ERR(ioctl(a, SCIF_SEND, NULL), EFAULT);
	EXPECT_ERR(ioctl(b, SCIF_RECV, bad_ptr), EFAULT);

	/* Nothing queued: a non-blocking receive gets nothing. */
	EXPECT_EQ(scif_recv(b, in, 4, 0), 0);

	EXPECT_EQ(scif_send(a, buf, 11, SCIF_SEND_BLOCK), 11);
	memset(in, 0, sizeof(in));
	EXPECT_EQ(scif_recv(b, in, 5, SCIF_RECV_BLOCK), 5);
	EXPECT_EQ(scif_recv(b, in + 5, 60, 0), 6);
	tap_ok(!strcmp(in, "hello, scif"), "bytes arrive in order (%s)", in);

	/* Receiving into an unmapped buffer fails with EFAULT. */
	EXPECT_EQ(scif_send(b, buf, 4, SCIF_SEND_BLOCK), 4);
	EXPECT_ERR(raw_msg(a, SCIF_RECV, bad_ptr, 4, SCIF_RECV_BLOCK), EFAULT);

	/* out_len reports the count through the raw request too. */
	memset(&msg, 0, sizeof(msg));
	msg.msg = (uintptr_t)buf;
	msg.len = 3;
	msg.flags = SCIF_SEND_BLOCK;
	msg.out_len = -7;
	EXPECT_EQ(ioctl(a, SCIF_SEND, &msg), 0);
	tap_ok(msg.out_len == 3, "SCIF_SEND sets out_len (%d)", msg.out_len);
	scif_recv(b, in, 3, SCIF_RECV_BLOCK);

	/* The peer closes: queued data stays readable, then ECONNRESET. */
	EXPECT_EQ(scif_send(a, buf, 7, SCIF_SEND_BLOCK), 7);
	scif_close(a);
	memset(in, 0, sizeof(in));
	EXPECT_EQ(scif_recv(b, in, 7, SCIF_RECV_BLOCK), 7);
	tap_ok(!memcmp(in, buf, 7), "data queued before the close arrives");
	EXPECT_ERR(scif_recv(b, in, 1, SCIF_RECV_BLOCK), ECONNRESET);
	EXPECT_ERR(scif_recv(b, in, 1, 0), ECONNRESET);
	EXPECT_ERR(scif_send(b, buf, 1, SCIF_SEND_BLOCK), ECONNRESET);
	scif_close(b);
}

static void test_nonblocking_connect(void)
{
	scif_epd_t e = open_ep(), n;
	struct scif_port_id dst, peer;
	struct pollfd pfd;
	__u16 port;
	scif_epd_t l = make_listener(2, &port);
	int r;

	dst.node = self;
	dst.port = port;
	fcntl(e, F_SETFL, fcntl(e, F_GETFL) | O_NONBLOCK);
	EXPECT_ERR(scif_connect(e, &dst), EINPROGRESS);
	pfd.fd = l;
	pfd.events = POLLIN;
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	tap_ok(pfd.revents & POLLIN, "a pending request makes the listener readable");
	EXPECT_EQ(scif_accept(l, &peer, &n, SCIF_ACCEPT_SYNC), 0);
	pfd.fd = e;
	pfd.events = POLLOUT;
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	tap_ok(pfd.revents & POLLOUT, "POLLOUT reports the completed connect (%#x)",
	       pfd.revents);
	r = scif_connect(e, &dst);
	tap_ok(r == peer.port, "a second scif_connect returns the local port (%d, %s)",
	       r, r < 0 ? strerror(errno) : "ok");
	EXPECT_ERR(scif_connect(e, &dst), EISCONN);
	scif_close(n);
	scif_close(e);

	/* A closed listener rejects its pending requests. */
	e = open_ep();
	fcntl(e, F_SETFL, O_NONBLOCK);
	EXPECT_ERR(scif_connect(e, &dst), EINPROGRESS);
	pfd.fd = l;
	pfd.events = POLLIN;
	poll(&pfd, 1, 5000);
	scif_close(l);
	pfd.fd = e;
	pfd.events = POLLOUT;
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	EXPECT_ERR(scif_connect(e, &dst), ECONNREFUSED);
	scif_close(e);
}

static void test_backlog(void)
{
	scif_epd_t e[3];
	struct scif_port_id dst;
	struct pollfd pfd;
	__u16 port;
	scif_epd_t l = make_listener(1, &port);
	int i;

	dst.node = self;
	dst.port = port;
	for (i = 0; i < 2; i++) {
		e[i] = open_ep();
		fcntl(e[i], F_SETFL, O_NONBLOCK);
		EXPECT_ERR(scif_connect(e[i], &dst), EINPROGRESS);
	}
	/* The second request finds the backlog of one full. */
	pfd.fd = e[1];
	pfd.events = POLLOUT;
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	EXPECT_ERR(scif_connect(e[1], &dst), ECONNREFUSED);
	for (i = 0; i < 2; i++)
		scif_close(e[i]);
	scif_close(l);
}

static void test_node_ids(void)
{
	struct scifioctl_node_ids req;
	__u16 nodes[8], s = 0xffff;
	int n, i, found = 0;

	n = scif_get_node_ids(nodes, 8, &s);
	tap_ok(n >= 1, "scif_get_node_ids counts at least this node (%d)", n);
	for (i = 0; i < n && i < 8; i++)
		found |= nodes[i] == s;
	tap_ok(found, "the node list includes self (%u)", s);
	EXPECT_EQ(scif_get_node_ids(nodes, 0, &s), n);
	EXPECT_EQ(scif_get_node_ids(NULL, 0, &s), n);
	EXPECT_ERR(scif_get_node_ids(nodes, -1, &s), EINVAL);
	EXPECT_ERR(scif_get_node_ids(bad_ptr, 4, &s), EFAULT);
	EXPECT_ERR(scif_get_node_ids(nodes, 4, bad_ptr), EFAULT);
	EXPECT_ERR(scif_get_node_ids(nodes, 4, NULL), EFAULT);

	i = open_ep();
	memset(&req, 0, sizeof(req));
	req.nodes = (uintptr_t)nodes;
	req.self = (uintptr_t)&s;
	req.len = 8;
	EXPECT_EQ(ioctl(i, SCIF_GET_NODEIDS, &req), 0);
	tap_ok(req.len == n, "SCIF_GET_NODEIDS writes back the count (%d)",
	       req.len);
	EXPECT_ERR(ioctl(i, SCIF_GET_NODEIDS, NULL), EFAULT);
	scif_close(i);
}

/*
 * Every request from 1 to SCIF_IOCTL_NR_MAX is known, on every ABI (this
 * program is also built with -m32): on a fresh endpoint with a zeroed
 * argument each one fails or does nothing, but never with ENOTTY, which is
 * what a handler placed only in the native switch of dev/scif_fdev.c
 * answers a 32-bit caller. None of them waits: connect to port 0, accept
 * on an endpoint that does not listen and fence wait on an unconnected one
 * are refused at once. Unknown requests fail with ENOTTY.
 */
static void test_requests_known(void)
{
	static const unsigned long reqs[SCIF_IOCTL_NR_MAX + 1] = {
		[_IOC_NR(SCIF_BIND)] = SCIF_BIND,
		[_IOC_NR(SCIF_LISTEN)] = SCIF_LISTEN,
		[_IOC_NR(SCIF_CONNECT)] = SCIF_CONNECT,
		[_IOC_NR(SCIF_ACCEPTREQ)] = SCIF_ACCEPTREQ,
		[_IOC_NR(SCIF_ACCEPTREG)] = SCIF_ACCEPTREG,
		[_IOC_NR(SCIF_SEND)] = SCIF_SEND,
		[_IOC_NR(SCIF_RECV)] = SCIF_RECV,
		[_IOC_NR(SCIF_REG)] = SCIF_REG,
		[_IOC_NR(SCIF_UNREG)] = SCIF_UNREG,
		[_IOC_NR(SCIF_READFROM)] = SCIF_READFROM,
		[_IOC_NR(SCIF_WRITETO)] = SCIF_WRITETO,
		[_IOC_NR(SCIF_VREADFROM)] = SCIF_VREADFROM,
		[_IOC_NR(SCIF_VWRITETO)] = SCIF_VWRITETO,
		[_IOC_NR(SCIF_GET_NODEIDS)] = SCIF_GET_NODEIDS,
		[_IOC_NR(SCIF_FENCE_MARK)] = SCIF_FENCE_MARK,
		[_IOC_NR(SCIF_FENCE_WAIT)] = SCIF_FENCE_WAIT,
		[_IOC_NR(SCIF_FENCE_SIGNAL)] = SCIF_FENCE_SIGNAL,
		[_IOC_NR(SCIF_STREAM_MAP)] = SCIF_STREAM_MAP,
		[_IOC_NR(SCIF_STREAM_WAKE)] = SCIF_STREAM_WAKE,
	};
	char zero[64] = { 0 };
	scif_epd_t e;
	unsigned int nr;
	int ret;

	for (nr = 1; nr <= SCIF_IOCTL_NR_MAX; nr++) {
		tap_ok(_IOC_NR(reqs[nr]) == nr,
		       "request %u is in the test's table", nr);
		e = open_ep();
		errno = 0;
		memset(zero, 0, sizeof(zero));
		ret = ioctl(e, reqs[nr], zero);
		tap_ok(ret >= 0 || errno != ENOTTY,
		       "request %u (%#lx) is known (%s)", nr, reqs[nr],
		       ret >= 0 ? "done" : strerror(errno));
		scif_close(e);
	}
	e = open_ep();
	EXPECT_ERR(ioctl(e, _IO('s', SCIF_IOCTL_NR_MAX + 1), 0), ENOTTY);
	EXPECT_ERR(ioctl(e, _IO('s', 99), 0), ENOTTY);
	EXPECT_ERR(ioctl(e, _IOWR('x', 1, int), zero), ENOTTY);
	scif_close(e);
}

static void *close_later(void *arg)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	close(*(int *)arg);
	return NULL;
}

/* Closing a descriptor wakes a thread blocked on it. */
static void test_flush(void)
{
	scif_epd_t a, b;
	pthread_t t;
	time_t start;
	char c;
	int r;

	make_pair(&a, &b);
	if (pthread_create(&t, NULL, close_later, &b))
		bail("pthread_create");
	start = time(NULL);
	r = scif_recv(b, &c, 1, SCIF_RECV_BLOCK);
	pthread_join(t, NULL);
	tap_ok(r == -1 && time(NULL) - start < 10,
	       "close() wakes a blocked scif_recv (%d, %s)", r, strerror(errno));
	scif_close(a);
}

static void test_poll_basic(void)
{
	scif_epd_t a, b;
	struct scif_pollepd p[2];
	char c = 'p';

	make_pair(&a, &b);
	p[0].epd = a;
	p[0].events = POLLIN;
	p[1].epd = b;
	p[1].events = POLLIN;
	EXPECT_EQ(scif_poll(p, 2, 0), 0);
	scif_send(a, &c, 1, SCIF_SEND_BLOCK);
	EXPECT_EQ(scif_poll(p, 2, 1000), 1);
	tap_ok(!p[0].revents && p[1].revents == POLLIN,
	       "scif_poll reports POLLIN on the receiver only");
	p[0].events = POLLOUT;
	EXPECT_EQ(scif_poll(p, 1, 1000), 1);
	tap_ok(p[0].revents == POLLOUT, "a connected endpoint is writable");
	scif_close(a);
	p[1].events = POLLIN;
	EXPECT_EQ(scif_poll(&p[1], 1, 1000), 1);
	tap_ok(p[1].revents & POLLIN, "queued data still readable after close");
	scif_recv(b, &c, 1, 0);
	EXPECT_EQ(scif_poll(&p[1], 1, 1000), 1);
	tap_ok(p[1].revents & POLLHUP, "POLLHUP once the peer is gone (%#x)",
	       p[1].revents);
	p[0].epd = 1000000;
	p[0].events = POLLIN;
	EXPECT_EQ(scif_poll(p, 1, 0), 1);
	tap_ok(p[0].revents == POLLNVAL, "POLLNVAL for an invalid endpoint");
	scif_close(b);
}

/* Set the scif module's stream_shm parameter; false if it cannot be. */
static int set_stream_shm(const char *v)
{
	FILE *f = fopen("/sys/module/scif/parameters/stream_shm", "w");
	int ok;

	if (!f)
		return 0;
	ok = fputs(v, f) >= 0;
	return fclose(f) == 0 && ok;
}

/*
 * User memory goes straight between the buffer and the rings: pages not
 * yet present are faulted in on the way, and a hole in the buffer ends
 * the call there with the bytes before it moved and the rest untouched.
 */
static void test_stream_faults(const char *mode)
{
	long pg = sysconf(_SC_PAGESIZE);
	scif_epd_t a, b;
	char *m, *r;
	long i, bad = 0;

	printf("# user buffers that fault, %s\n", mode);
	m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r = malloc(2 * pg);
	if (m == MAP_FAILED || !r)
		bail("mmap");
	make_pair(&a, &b);
	/* Never touched: every page faults in during the send. */
	EXPECT_EQ(scif_send(a, m, 2 * pg, SCIF_SEND_BLOCK), 2 * pg);
	memset(r, 1, 2 * pg);
	EXPECT_EQ(scif_recv(b, r, 2 * pg, SCIF_RECV_BLOCK), 2 * pg);
	for (i = 0; i < 2 * pg; i++)
		bad += r[i] != 0;
	tap_ok(!bad, "untouched pages arrive as zeros (%ld bad)", bad);

	/*
	 * A hole after the second page: the send stops at it. The driver's
	 * answer to a hole is tested through the raw requests (raw_msg()).
	 */
	memset(m, 0x5a, 2 * pg);
	m[pg] = 0x33;
	if (munmap(m + 2 * pg, pg))
		bail("munmap");
	EXPECT_EQ(raw_msg(a, SCIF_SEND, m + pg, 2 * pg, SCIF_SEND_BLOCK), pg);
	EXPECT_ERR(raw_msg(a, SCIF_SEND, m + 2 * pg, pg, SCIF_SEND_BLOCK),
		   EFAULT);
	/* A receive across the hole takes half and leaves half queued. */
	EXPECT_EQ(raw_msg(b, SCIF_RECV, m + 2 * pg - pg / 2, pg,
			  SCIF_RECV_BLOCK), pg / 2);
	EXPECT_ERR(raw_msg(b, SCIF_RECV, m + 2 * pg, pg, SCIF_RECV_BLOCK),
		   EFAULT);
	memset(r, 0, pg);
	EXPECT_EQ(scif_recv(b, r, pg, 0), pg / 2);
	tap_ok(m[2 * pg - pg / 2] == 0x33 && r[0] == 0x5a &&
	       r[pg / 2 - 1] == 0x5a,
	       "the bytes around the hole are the ones sent");
	EXPECT_EQ(scif_recv(b, r, pg, 0), 0);
	scif_close(a);
	scif_close(b);
	munmap(m, 2 * pg);
	free(r);
}

int main(void)
{
	char *map;

	signal(SIGPIPE, SIG_IGN);
	map = mmap(NULL, 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (map == MAP_FAILED)
		bail("mmap");
	bad_ptr = map + 4096;
	self = local_node();
	printf("# SCIF user-mode API, %zu-bit, node %u\n",
	       sizeof(long) * 8, self);

	test_open_close();
	test_bind();
	test_privileged_port();
	test_listen();
	test_connect_errors();
	test_accept_errors();
	test_accept_no_fd();
	test_accept_handles();
	test_connected();
	test_nonblocking_connect();
	test_backlog();
	test_node_ids();
	test_requests_known();
	test_flush();
	test_poll_basic();
	test_stream_faults("through shared memory");
	/* And again with the bytes in DATA messages (root only). */
	if (set_stream_shm("N")) {
		test_stream_faults("in DATA messages");
		tap_ok(set_stream_shm("Y"), "stream_shm restored");
	} else {
		printf("# stream_shm not writable: DATA messages not tried\n");
	}
	return tap_done();
}
