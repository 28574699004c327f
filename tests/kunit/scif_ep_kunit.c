// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for SCIF endpoints on one node (over its loopback link):
 * every error the API specifies for open, bind, listen, connect, accept,
 * close, and the asynchronous connect, park/claim and flush of /dev/scif.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/scif.h>

#include "core/scif_core.h"
#include "core/scif_instance.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"

static int ep_init(struct kunit *test)
{
	struct scif_instance *si = scif_sim_instance_create("kunit_ep", 0);

	KUNIT_ASSERT_NOT_NULL(test, si);
	test->priv = si;
	return 0;
}

static void ep_exit(struct kunit *test)
{
	scif_sim_instance_destroy(test->priv);
}

static scif_epd_t ep_open(struct kunit *test)
{
	scif_epd_t epd = scif_instance_open(test->priv);

	KUNIT_ASSERT_NOT_NULL(test, epd);
	return epd;
}

/* A listener on a fresh port; the port is returned in @port. */
static scif_epd_t ep_listener(struct kunit *test, int backlog, u16 *port)
{
	scif_epd_t l = ep_open(test);
	int ret = scif_bind(l, 0);

	KUNIT_ASSERT_GE(test, ret, SCIF_PORT_RSVD);
	*port = ret;
	KUNIT_ASSERT_EQ(test, scif_listen(l, backlog), 0);
	return l;
}

/* Wait for @events on @epd for at most a second. */
static __poll_t ep_wait(scif_epd_t epd, __poll_t events)
{
	struct scif_pollepd p = { .epd = epd, .events = events };

	if (scif_poll(&p, 1, 1000) != 1)
		return 0;
	return p.revents;
}

static void open_and_close(struct kunit *test)
{
	scif_epd_t epd = ep_open(test);

	KUNIT_EXPECT_EQ(test, scif_close(epd), 0);
}

static void bad_descriptors(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0, .port = 2000 };
	struct scif_port_id peer;
	scif_epd_t n;
	char c;

	KUNIT_EXPECT_EQ(test, scif_bind(NULL, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_bind(SCIF_OPEN_FAILED, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_listen(NULL, 1), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_connect(NULL, &dst), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_accept(NULL, &peer, &n, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_send(NULL, &c, 1, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_recv(NULL, &c, 1, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_close(NULL), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_close(SCIF_OPEN_FAILED), -EBADF);
}

static void bind_port_zero_picks_free_port(struct kunit *test)
{
	scif_epd_t a = ep_open(test), b = ep_open(test);
	int pa = scif_bind(a, 0), pb = scif_bind(b, 0);

	KUNIT_EXPECT_GE(test, pa, SCIF_PORT_RSVD);
	KUNIT_EXPECT_GE(test, pb, SCIF_PORT_RSVD);
	KUNIT_EXPECT_NE(test, pa, pb);
	scif_close(a);
	scif_close(b);
}

static void bind_twice_einval(struct kunit *test)
{
	scif_epd_t a = ep_open(test);

	KUNIT_EXPECT_EQ(test, scif_bind(a, 3000), 3000);
	KUNIT_EXPECT_EQ(test, scif_bind(a, 3001), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_bind(a, 0), -EINVAL);
	scif_close(a);
}

static void bind_taken_eaddrinuse(struct kunit *test)
{
	scif_epd_t a = ep_open(test), b = ep_open(test);

	KUNIT_EXPECT_EQ(test, scif_bind(a, 3000), 3000);
	KUNIT_EXPECT_EQ(test, scif_bind(b, 3000), -EADDRINUSE);
	scif_close(a);
	/* Closing gives the port back. */
	KUNIT_EXPECT_EQ(test, scif_bind(b, 3000), 3000);
	scif_close(b);
}

static void bind_admin_port_eacces(struct kunit *test)
{
	scif_epd_t a = ep_open(test), b = ep_open(test);
	const struct cred *old;
	struct cred *cred;

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_SYS_ADMIN);
	old = override_creds(cred);
	KUNIT_EXPECT_EQ(test, scif_bind(a, SCIF_ADMIN_PORT_END - 1), -EACCES);
	KUNIT_EXPECT_EQ(test, scif_bind(a, SCIF_ADMIN_PORT_END),
			SCIF_ADMIN_PORT_END);
	revert_creds(old);
	put_cred(cred);
	/* With the capability the admin range is open. */
	KUNIT_EXPECT_EQ(test, scif_bind(b, SCIF_ADMIN_PORT_END - 1),
			SCIF_ADMIN_PORT_END - 1);
	scif_close(a);
	scif_close(b);
}

/* Take every automatic port; returns how many were taken. */
static int ep_exhaust_ports(struct scif_instance *si)
{
	int n = 0;

	while (scif_port_alloc(&si->ports) >= 0)
		n++;
	return n;
}

static void ep_release_ports(struct scif_instance *si, int n)
{
	while (n--)
		scif_port_release(&si->ports, SCIF_PORT_RSVD + n);
}

static void bind_no_port_enospc(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0, .port = 2000 };
	struct scif_instance *si = test->priv;
	scif_epd_t a = ep_open(test);
	int n;

	n = ep_exhaust_ports(si);
	KUNIT_EXPECT_EQ(test, n, 65535 - SCIF_PORT_RSVD + 1);
	KUNIT_EXPECT_EQ(test, scif_bind(a, 0), -ENOSPC);
	/* connect() binds an unbound endpoint first, and fails the same way. */
	KUNIT_EXPECT_EQ(test, scif_connect(a, &dst), -ENOSPC);
	ep_release_ports(si, n);
	scif_close(a);
}

static void bind_connected_eisconn(struct kunit *test)
{
	scif_epd_t c, s;

	scif_kt_pair(test, test->priv, test->priv, 0, &c, &s);
	KUNIT_EXPECT_EQ(test, scif_bind(c, 0), -EISCONN);
	KUNIT_EXPECT_EQ(test, scif_bind(s, 0), -EISCONN);
	scif_close(c);
	scif_close(s);
}

static void listen_errors(struct kunit *test)
{
	scif_epd_t a = ep_open(test), c, s;

	/* Not bound. */
	KUNIT_EXPECT_EQ(test, scif_listen(a, 1), -EINVAL);
	KUNIT_EXPECT_GE(test, scif_bind(a, 0), SCIF_PORT_RSVD);
	KUNIT_EXPECT_EQ(test, scif_listen(a, 1), 0);
	/* Already listening. */
	KUNIT_EXPECT_EQ(test, scif_listen(a, 1), -EISCONN);
	scif_close(a);
	/* Connected. */
	scif_kt_pair(test, test->priv, test->priv, 0, &c, &s);
	KUNIT_EXPECT_EQ(test, scif_listen(c, 1), -EISCONN);
	scif_close(c);
	scif_close(s);
}

static void connect_bad_destination(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0, .port = 0 };
	scif_epd_t a = ep_open(test);

	KUNIT_EXPECT_EQ(test, scif_connect(a, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_connect(a, &dst), -EINVAL);
	dst.port = 2000;
	dst.node = 7;
	KUNIT_EXPECT_EQ(test, scif_connect(a, &dst), -ENODEV);
	scif_close(a);
}

static void connect_nobody_listening(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0, .port = 2000 };
	scif_epd_t a = ep_open(test), b = ep_open(test);

	KUNIT_EXPECT_EQ(test, scif_connect(a, &dst), -ECONNREFUSED);
	/* A bound, not listening, port refuses as well. */
	KUNIT_EXPECT_EQ(test, scif_bind(b, 2000), 2000);
	KUNIT_EXPECT_EQ(test, scif_connect(a, &dst), -ECONNREFUSED);
	scif_close(a);
	scif_close(b);
}

static void connect_listener_eopnotsupp(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 };
	scif_epd_t l = ep_listener(test, 1, &dst.port);

	KUNIT_EXPECT_EQ(test, scif_connect(l, &dst), -EOPNOTSUPP);
	scif_close(l);
}

static void connect_connected_eisconn(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 };
	scif_epd_t l = ep_listener(test, 1, &dst.port), c, s;

	scif_kt_pair(test, test->priv, test->priv, 0, &c, &s);
	KUNIT_EXPECT_EQ(test, scif_connect(c, &dst), -EISCONN);
	KUNIT_EXPECT_EQ(test, scif_connect(s, &dst), -EISCONN);
	scif_close(c);
	scif_close(s);
	scif_close(l);
}

static void connect_nonblocking(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 }, peer;
	scif_epd_t l = ep_listener(test, 1, &dst.port), e = ep_open(test), n;
	int port;

	KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(e, &dst), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(e, &dst), -EALREADY);
	KUNIT_EXPECT_TRUE(test, ep_wait(l, EPOLLIN) & EPOLLIN);
	KUNIT_ASSERT_EQ(test, scif_accept(l, &peer, &n, 0), 0);
	KUNIT_EXPECT_TRUE(test, ep_wait(e, EPOLLOUT) & EPOLLOUT);
	/* The next connect reports the result, once. */
	port = scif_epd_connect_nb(e, &dst);
	KUNIT_EXPECT_EQ(test, port, peer.port);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), -EISCONN);
	scif_close(n);
	scif_close(e);
	scif_close(l);
}

static void connect_nonblocking_refused(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0, .port = 2000 };
	scif_epd_t e = ep_open(test);
	__poll_t ev;

	KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(e, &dst), -EINPROGRESS);
	ev = ep_wait(e, EPOLLOUT);
	KUNIT_EXPECT_TRUE(test, ev & EPOLLOUT);
	KUNIT_EXPECT_TRUE(test, ev & EPOLLERR);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), -ECONNREFUSED);
	scif_close(e);
}

static void backlog_full_refuses(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 };
	scif_epd_t l = ep_listener(test, 1, &dst.port);
	scif_epd_t a = ep_open(test), b = ep_open(test);

	KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(a, &dst), -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, ep_wait(l, EPOLLIN) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, scif_connect(b, &dst), -ECONNREFUSED);
	/* The queued request is still there. */
	KUNIT_EXPECT_TRUE(test, ep_wait(l, EPOLLIN) & EPOLLIN);
	scif_close(a);
	scif_close(b);
	scif_close(l);
}

/* Restores the max_backlog module parameter a test changed. */
static void ep_restore_max_backlog(void *old)
{
	WRITE_ONCE(scif_max_backlog, (unsigned int)(uintptr_t)old);
}

/*
 * The max_backlog module parameter bounds every listen() backlog: requests
 * beyond it are refused, whatever the listener asked for.
 */
static void backlog_clamped_to_max_backlog(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 };
	scif_epd_t l, e[3];
	struct scif_endpt *ep;
	void *old = (void *)(uintptr_t)scif_max_backlog;
	int i, ret;

	ret = kunit_add_action_or_reset(test, ep_restore_max_backlog, old);
	KUNIT_ASSERT_EQ(test, ret, 0);
	WRITE_ONCE(scif_max_backlog, 2);
	l = ep_listener(test, 1000, &dst.port);
	ep = l;
	KUNIT_EXPECT_EQ(test, ep->backlog, 2);
	for (i = 0; i < 3; i++) {
		e[i] = ep_open(test);
		KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(e[i], &dst),
				-EINPROGRESS);
	}
	KUNIT_EXPECT_TRUE(test, ep_wait(e[2], EPOLLOUT) & EPOLLERR);
	KUNIT_EXPECT_EQ(test, scif_connect(e[2], &dst), -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, ep->nreq, 2);
	/* Out of range values are clamped: 0 acts as 1. */
	WRITE_ONCE(scif_max_backlog, 0);
	scif_close(l);
	l = ep_listener(test, 1000, &dst.port);
	ep = l;
	KUNIT_EXPECT_EQ(test, ep->backlog, 1);
	WRITE_ONCE(scif_max_backlog, SCIF_MAX_BACKLOG + 1);
	scif_close(l);
	l = ep_listener(test, INT_MAX, &dst.port);
	ep = l;
	KUNIT_EXPECT_EQ(test, ep->backlog, SCIF_MAX_BACKLOG);
	for (i = 0; i < 3; i++)
		scif_close(e[i]);
	scif_close(l);
}

static void closed_listener_refuses_pending(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 };
	scif_epd_t l = ep_listener(test, 4, &dst.port), e = ep_open(test);

	KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(e, &dst), -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, ep_wait(l, EPOLLIN) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, scif_close(l), 0);
	KUNIT_EXPECT_TRUE(test, ep_wait(e, EPOLLOUT) & EPOLLERR);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), -ECONNREFUSED);
	scif_close(e);
}

static void accept_errors(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 }, peer;
	scif_epd_t l = ep_listener(test, 1, &dst.port), a = ep_open(test), n;

	KUNIT_EXPECT_EQ(test, scif_accept(a, &peer, &n, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_accept(l, &peer, &n, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_accept(l, NULL, &n, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_accept(l, &peer, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_accept(l, &peer, &n, 0), -EAGAIN);
	scif_close(a);
	scif_close(l);
}

static int ep_kt_accept(void *arg)
{
	struct scif_port_id peer;
	scif_epd_t n;
	int ret;

	ret = scif_accept(arg, &peer, &n, SCIF_ACCEPT_SYNC);
	if (!ret)
		scif_close(n);
	return ret;
}

static void accept_flush_eintr(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 };
	scif_epd_t l = ep_listener(test, 1, &dst.port), n;
	struct scif_kt_call call;

	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, ep_kt_accept, l), 0);
	/* Once it sleeps in accept, kick it. */
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_asleep(&call, 5000));
	scif_epd_flush(l);
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 5000));
	KUNIT_EXPECT_EQ(test, call.ret, -EINTR);
	/* The listener still works. */
	KUNIT_EXPECT_EQ(test, scif_accept(l, &dst, &n, 0), -EAGAIN);
	scif_close(l);
}

static void accept_reports_peer(struct kunit *test)
{
	struct scif_port_id dst = { .node = 0 }, peer;
	scif_epd_t l = ep_listener(test, 1, &dst.port), e = ep_open(test), n;
	int port = scif_bind(e, 5000);

	KUNIT_EXPECT_EQ(test, port, 5000);
	KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(e, &dst), -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, ep_wait(l, EPOLLIN) & EPOLLIN);
	KUNIT_ASSERT_EQ(test, scif_accept(l, &peer, &n, SCIF_ACCEPT_SYNC), 0);
	KUNIT_EXPECT_EQ(test, peer.node, 0);
	KUNIT_EXPECT_EQ(test, peer.port, 5000);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), 5000);
	scif_close(n);
	scif_close(e);
	scif_close(l);
}

/*
 * Connect a new endpoint to the listener @l on @port and accept; returns the
 * accepted endpoint, the connecting one in @client.
 */
static scif_epd_t ep_accepted(struct kunit *test, scif_epd_t l, u16 port,
			      scif_epd_t *client)
{
	struct scif_port_id dst = { .node = 0, .port = port }, peer;
	scif_epd_t e = ep_open(test), n;

	KUNIT_ASSERT_EQ(test, scif_epd_connect_nb(e, &dst), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, scif_accept(l, &peer, &n, SCIF_ACCEPT_SYNC), 0);
	KUNIT_ASSERT_TRUE(test, ep_wait(e, EPOLLOUT) & EPOLLOUT);
	KUNIT_ASSERT_GE(test, scif_connect(e, &dst), SCIF_PORT_RSVD);
	*client = e;
	return n;
}

/* References to the calling thread group's struct pid. */
static unsigned int ep_tgid_refs(void)
{
	return refcount_read(&task_tgid(current)->count);
}

static void park_and_claim(struct kunit *test)
{
	struct scif_instance *si = test->priv;
	unsigned int refs = ep_tgid_refs();
	scif_epd_t l, a, b, c, c2;
	u16 port;
	u64 h;

	l = ep_listener(test, 4, &port);
	a = ep_accepted(test, l, port, &c);
	/* Only a listener's accepted endpoints can be parked. */
	KUNIT_EXPECT_EQ(test, scif_epd_park(c, a, &h), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_epd_park(a, a, &h), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_epd_park(NULL, a, &h), -EBADF);
	KUNIT_EXPECT_EQ(test, ep_tgid_refs(), refs);

	KUNIT_ASSERT_EQ(test, scif_epd_park(l, a, &h), 0);
	/* The handle is an id, not the address. */
	KUNIT_EXPECT_NE(test, h, (u64)(uintptr_t)a);
	/* Parked twice: refused, and the first parking stays intact. */
	KUNIT_EXPECT_EQ(test, scif_epd_park(l, a, &h), -EINVAL);
	KUNIT_EXPECT_TRUE(test, IS_ERR(scif_instance_claim(si, h + 1)));
	b = scif_instance_claim(si, h);
	KUNIT_EXPECT_PTR_EQ(test, b, a);
	KUNIT_EXPECT_TRUE(test, IS_ERR(scif_instance_claim(si, h)));
	/* The claim dropped the parking's reference to our thread group. */
	KUNIT_EXPECT_EQ(test, ep_tgid_refs(), refs);

	/* An endpoint left parked is closed with the instance. */
	a = ep_accepted(test, l, port, &c2);
	KUNIT_ASSERT_EQ(test, scif_epd_park(l, a, &h), 0);
	KUNIT_EXPECT_EQ(test, ep_tgid_refs(), refs + 1);
	scif_close(b);
	scif_close(c);
}

struct ep_claim_arg {
	struct scif_instance *si;
	u64 handle;
	scif_epd_t epd;
};

static int ep_kt_claim(void *arg)
{
	struct ep_claim_arg *a = arg;

	a->epd = scif_instance_claim(a->si, a->handle);
	return PTR_ERR_OR_ZERO(a->epd);
}

/* A kernel thread is a thread group of its own: it cannot claim. */
static void claim_from_other_thread_group_fails(struct kunit *test)
{
	struct scif_instance *si = test->priv;
	struct ep_claim_arg arg = { .si = si };
	unsigned int refs = ep_tgid_refs();
	struct scif_kt_call call;
	scif_epd_t l, a, c;
	u16 port;

	l = ep_listener(test, 4, &port);
	a = ep_accepted(test, l, port, &c);
	KUNIT_ASSERT_EQ(test, scif_epd_park(l, a, &arg.handle), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, ep_kt_claim, &arg), 0);
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 10000));
	/* Exactly what a handle naming nothing gets. */
	KUNIT_EXPECT_EQ(test, call.ret, -EINVAL);
	KUNIT_EXPECT_TRUE(test, IS_ERR(arg.epd));
	/* The failed attempt took nothing away from the owner. */
	KUNIT_EXPECT_PTR_EQ(test, scif_instance_claim(si, arg.handle), a);
	KUNIT_EXPECT_EQ(test, ep_tgid_refs(), refs);
	scif_close(a);
	scif_close(c);
	scif_close(l);
}

/*
 * A listener parks at most its backlog of accepted endpoints: one more is
 * refused with -EMFILE until one is claimed.
 */
static void park_bounded_by_backlog(struct kunit *test)
{
	struct scif_instance *si = test->priv;
	scif_epd_t l, a, b, c, ca, cb, cc;
	struct scif_endpt *lep;
	u64 ha, hb, hc;
	u16 port;

	l = ep_listener(test, 2, &port);
	lep = l;
	a = ep_accepted(test, l, port, &ca);
	b = ep_accepted(test, l, port, &cb);
	c = ep_accepted(test, l, port, &cc);
	KUNIT_ASSERT_EQ(test, scif_epd_park(l, a, &ha), 0);
	KUNIT_ASSERT_EQ(test, scif_epd_park(l, b, &hb), 0);
	KUNIT_EXPECT_EQ(test, lep->nparked, 2);
	KUNIT_EXPECT_EQ(test, scif_epd_park(l, c, &hc), -EMFILE);
	KUNIT_EXPECT_PTR_EQ(test, scif_instance_claim(si, ha), a);
	KUNIT_EXPECT_EQ(test, lep->nparked, 1);
	KUNIT_EXPECT_EQ(test, scif_epd_park(l, c, &hc), 0);
	KUNIT_EXPECT_EQ(test, lep->nparked, 2);
	scif_close(a);
	/* Closing the listener closes b and c and takes them off its count. */
	scif_close(l);
	KUNIT_EXPECT_TRUE(test, IS_ERR(scif_instance_claim(si, hb)));
	KUNIT_EXPECT_TRUE(test, IS_ERR(scif_instance_claim(si, hc)));
	scif_close(ca);
	scif_close(cb);
	scif_close(cc);
}

/*
 * Closing a listener closes the endpoints accepted from it that are still
 * parked, and only those; their handles are dead.
 */
static void listener_close_closes_parked(struct kunit *test)
{
	struct scif_instance *si = test->priv;
	unsigned int refs = ep_tgid_refs();
	scif_epd_t l, l2, a, b, o, ca, cb, co;
	struct scif_endpt *ep;
	u16 port, port2;
	u64 ha, hb, ho;
	char ch;

	l = ep_listener(test, 4, &port);
	l2 = ep_listener(test, 4, &port2);
	a = ep_accepted(test, l, port, &ca);
	b = ep_accepted(test, l, port, &cb);
	o = ep_accepted(test, l2, port2, &co);
	KUNIT_ASSERT_EQ(test, scif_epd_park(l, a, &ha), 0);
	KUNIT_ASSERT_EQ(test, scif_epd_park(l, b, &hb), 0);
	KUNIT_ASSERT_EQ(test, scif_epd_park(l2, o, &ho), 0);
	KUNIT_EXPECT_EQ(test, ep_tgid_refs(), refs + 3);

	KUNIT_EXPECT_EQ(test, scif_close(l), 0);
	KUNIT_EXPECT_TRUE(test, IS_ERR(scif_instance_claim(si, ha)));
	KUNIT_EXPECT_TRUE(test, IS_ERR(scif_instance_claim(si, hb)));
	/* Closed, not merely forgotten: the ids no longer resolve... */
	KUNIT_EXPECT_NULL(test, scif_ep_lookup(si, ha));
	KUNIT_EXPECT_NULL(test, scif_ep_lookup(si, hb));
	/* ...their peers were reset... */
	KUNIT_EXPECT_TRUE(test, ep_wait(ca, EPOLLIN) & EPOLLHUP);
	KUNIT_EXPECT_TRUE(test, ep_wait(cb, EPOLLIN) & EPOLLHUP);
	KUNIT_EXPECT_EQ(test, scif_recv(ca, &ch, 1, 0), -ECONNRESET);
	/* ...and the references to the parking thread group are gone. */
	KUNIT_EXPECT_EQ(test, ep_tgid_refs(), refs + 1);

	/* Another listener's parked endpoint is untouched. */
	ep = scif_instance_claim(si, ho);
	KUNIT_EXPECT_PTR_EQ(test, ep, o);
	KUNIT_EXPECT_EQ(test, ep_tgid_refs(), refs);
	if (!IS_ERR(ep))
		scif_close(ep);
	scif_close(l2);
	scif_close(ca);
	scif_close(cb);
	scif_close(co);
}

static void stale_id_does_not_resolve(struct kunit *test)
{
	struct scif_instance *si = test->priv;
	struct scif_endpt *ep;
	scif_epd_t a = ep_open(test);
	u64 id = a->id;

	ep = scif_ep_lookup(si, id);
	KUNIT_EXPECT_PTR_EQ(test, ep, a);
	if (ep)
		scif_ep_put(ep);
	scif_close(a);
	KUNIT_EXPECT_NULL(test, scif_ep_lookup(si, id));
	/* The slot is reused with a new generation. */
	a = ep_open(test);
	KUNIT_EXPECT_NE(test, a->id, id);
	KUNIT_EXPECT_NULL(test, scif_ep_lookup(si, id));
	scif_close(a);
}

static void node_ids_include_self(struct kunit *test)
{
	u16 nodes[4] = { 99, 99, 99, 99 }, self = 99;

	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(test->priv, nodes, 4,
						     &self), 1);
	KUNIT_EXPECT_EQ(test, nodes[0], 0);
	KUNIT_EXPECT_EQ(test, nodes[1], 99);
	KUNIT_EXPECT_EQ(test, self, 0);
	/* Too little room: the total is still reported. */
	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(test->priv, nodes, 0,
						     &self), 1);
}

static struct kunit_case scif_ep_cases[] = {
	KUNIT_CASE(open_and_close),
	KUNIT_CASE(bad_descriptors),
	KUNIT_CASE(bind_port_zero_picks_free_port),
	KUNIT_CASE(bind_twice_einval),
	KUNIT_CASE(bind_taken_eaddrinuse),
	KUNIT_CASE(bind_admin_port_eacces),
	KUNIT_CASE(bind_no_port_enospc),
	KUNIT_CASE(bind_connected_eisconn),
	KUNIT_CASE(listen_errors),
	KUNIT_CASE(connect_bad_destination),
	KUNIT_CASE(connect_nobody_listening),
	KUNIT_CASE(connect_listener_eopnotsupp),
	KUNIT_CASE(connect_connected_eisconn),
	KUNIT_CASE(connect_nonblocking),
	KUNIT_CASE(connect_nonblocking_refused),
	KUNIT_CASE(backlog_full_refuses),
	KUNIT_CASE(backlog_clamped_to_max_backlog),
	KUNIT_CASE(closed_listener_refuses_pending),
	KUNIT_CASE(accept_errors),
	KUNIT_CASE(accept_flush_eintr),
	KUNIT_CASE(accept_reports_peer),
	KUNIT_CASE(park_and_claim),
	KUNIT_CASE(claim_from_other_thread_group_fails),
	KUNIT_CASE(park_bounded_by_backlog),
	KUNIT_CASE(listener_close_closes_parked),
	KUNIT_CASE(stale_id_does_not_resolve),
	KUNIT_CASE(node_ids_include_self),
	{}
};

static struct kunit_suite scif_ep_suite = {
	.name = "scif_ep",
	.init = ep_init,
	.exit = ep_exit,
	.test_cases = scif_ep_cases,
};

kunit_test_suite(scif_ep_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF endpoints on one node");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
