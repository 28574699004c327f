// SPDX-License-Identifier: GPL-2.0
/*
 * scif-poll-test [N]: readiness of many endpoints (default 64 connected
 * pairs) through scif_poll(), poll(), select() and epoll: nothing is
 * readable at first, exactly the endpoints that were sent to become
 * readable, every connected endpoint is writable, a listener with a pending
 * request is readable, and a closed peer shows as a hang-up.
 */
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <fcntl.h>
#include <unistd.h>

#include "scif_test.h"

static int n;
static scif_epd_t *snd, *rcv;

/* Endpoints i with i % 3 == 0 get data. */
static int chosen(int i)
{
	return i % 3 == 0;
}

static void check_scif_poll(void)
{
	struct scif_pollepd *p = calloc((unsigned int)n, sizeof(*p));
	int i, r, right = 1, tries;

	for (i = 0; i < n; i++) {
		p[i].epd = rcv[i];
		p[i].events = POLLIN;
	}
	/* Delivery is asynchronous: wait until every message has arrived. */
	for (tries = 0; tries < 100; tries++) {
		r = scif_poll(p, n, 2000);
		if (r < 0 || r >= (n + 2) / 3)
			break;
		usleep(20000);
	}
	for (i = 0; i < n; i++)
		right &= !!(p[i].revents & POLLIN) == chosen(i);
	tap_ok(r == (n + 2) / 3 && right,
	       "scif_poll: %d of %d readable, the right ones", r, n);
	free(p);
}

static void check_poll(void)
{
	struct pollfd *p = calloc((unsigned int)n, sizeof(*p));
	int i, r, right = 1;

	for (i = 0; i < n; i++) {
		p[i].fd = rcv[i];
		p[i].events = POLLIN | POLLOUT;
	}
	r = poll(p, n, 2000);
	for (i = 0; i < n; i++) {
		right &= !!(p[i].revents & POLLIN) == chosen(i);
		right &= !!(p[i].revents & POLLOUT);
	}
	tap_ok(r == n && right, "poll: all writable, the right ones readable");
	free(p);
}

static void check_select(void)
{
	fd_set rd;
	struct timeval tv = { 2, 0 };
	int i, r, max = 0, right = 1;

	FD_ZERO(&rd);
	for (i = 0; i < n; i++) {
		if (rcv[i] >= FD_SETSIZE)
			continue;
		FD_SET(rcv[i], &rd);
		if (rcv[i] > max)
			max = rcv[i];
	}
	r = select(max + 1, &rd, NULL, NULL, &tv);
	for (i = 0; i < n; i++)
		if (rcv[i] < FD_SETSIZE)
			right &= !!FD_ISSET(rcv[i], &rd) == chosen(i);
	tap_ok(r > 0 && right, "select: %d readable, the right ones", r);
}

static void check_epoll(void)
{
	struct epoll_event ev, *out = calloc((unsigned int)n, sizeof(*out));
	int ep = epoll_create1(0), i, r, right = 1;

	for (i = 0; i < n; i++) {
		ev.events = EPOLLIN;
		ev.data.u32 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, rcv[i], &ev))
			bail("epoll_ctl");
	}
	r = epoll_wait(ep, out, n, 2000);
	for (i = 0; i < r; i++)
		right &= chosen(out[i].data.u32);
	tap_ok(r == (n + 2) / 3 && right, "epoll: %d readable, the right ones",
	       r);

	/* Edge-triggered wake-up from a later send. */
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u32 = 1;
	epoll_ctl(ep, EPOLL_CTL_MOD, rcv[1], &ev);
	epoll_wait(ep, out, n, 0);
	scif_send(snd[1], "z", 1, SCIF_SEND_BLOCK);
	r = epoll_wait(ep, out, n, 2000);
	right = 0;
	for (i = 0; i < r; i++)
		right |= out[i].data.u32 == 1;
	tap_ok(right, "epoll: a later send wakes the waiter");
	close(ep);
	free(out);
}

int main(int argc, char **argv)
{
	struct scif_pollepd lp;
	struct rlimit rl = { 8192, 8192 };
	struct scif_port_id dst;
	__u16 port;
	scif_epd_t l, c;
	char byte = 'd';
	int i, r;

	n = argc > 1 ? atoi(argv[1]) : 64;
	if (n < 1 || n > 4000)
		bail("N must be 1..4000");
	setrlimit(RLIMIT_NOFILE, &rl);
	snd = calloc((unsigned int)n, sizeof(*snd));
	rcv = calloc((unsigned int)n, sizeof(*rcv));
	l = make_listener(n, &port);
	for (i = 0; i < n; i++)
		make_pair_on(l, port, &snd[i], &rcv[i]);

	/* Nothing sent yet: nothing readable. */
	{
		struct scif_pollepd *p = calloc((unsigned int)n, sizeof(*p));

		for (i = 0; i < n; i++) {
			p[i].epd = rcv[i];
			p[i].events = POLLIN;
		}
		EXPECT_EQ(scif_poll(p, n, 100), 0);
		free(p);
	}
	lp.epd = l;
	lp.events = POLLIN;
	EXPECT_EQ(scif_poll(&lp, 1, 0), 0);

	for (i = 0; i < n; i++)
		if (chosen(i))
			scif_send(snd[i], &byte, 1, SCIF_SEND_BLOCK);
	check_scif_poll();
	check_poll();
	check_select();
	check_epoll();

	/* A pending connection request makes the listener readable. */
	c = scif_open();
	fcntl(c, F_SETFL, O_NONBLOCK);
	dst.node = local_node();
	dst.port = port;
	scif_connect(c, &dst);
	EXPECT_EQ(scif_poll(&lp, 1, 2000), 1);
	tap_ok(lp.revents & POLLIN, "a listener with a pending request is readable");
	scif_close(c);

	/* Half of the senders go away: their receivers hang up. */
	for (i = 0; i < n; i += 2)
		scif_close(snd[i]);
	{
		struct pollfd *p = calloc((unsigned int)n, sizeof(*p));
		int right = 1;

		for (i = 0; i < n; i++) {
			p[i].fd = rcv[i];
			p[i].events = 0;
		}
		/* Hang-ups arrive asynchronously too. */
		for (r = 0, i = 0; i < 100 && r >= 0 && r < (n + 1) / 2; i++) {
			r = poll(p, n, 2000);
			if (r < (n + 1) / 2)
				usleep(20000);
		}
		for (i = 0; i < n; i++)
			right &= !!(p[i].revents & POLLHUP) == (i % 2 == 0);
		tap_ok(r == (n + 1) / 2 && right,
		       "poll: POLLHUP on exactly the %d orphaned endpoints (%d)",
		       (n + 1) / 2, r);
		free(p);
	}
	for (i = 0; i < n; i++) {
		if (i % 2)
			scif_close(snd[i]);
		scif_close(rcv[i]);
	}
	scif_close(l);
	return tap_done();
}
