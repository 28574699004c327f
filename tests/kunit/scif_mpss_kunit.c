// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the MPSS names of the kernel API, written the way an
 * MPSS-era in-kernel client is: only <linux/scif.h> and the public calls on
 * the module's own node, MPSS's spellings throughout (struct scif_portID,
 * portID_t, scif_get_nodeIDs(), the reserved port names), a port number
 * the client defines itself and a prototype it declares itself. That the
 * file builds without a warning is half of the test; the cases check that
 * the names behave as the upstream ones do.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/stddef.h>
#include <linux/string.h>

/* MPSS-era drivers define their listen port themselves, and so may we. */
#define SCIF_COSM_LISTEN_PORT  201

/* ... and may call the node call through a prototype of their own. */
static int (*const mpss_get_nodeIDs)(uint16_t *nodes, int len,
				     uint16_t *self) = scif_get_nodeIDs;

#define MPSS_MAX_NODES	256
#define MPSS_WAIT_MS	5000

/* The layout MPSS code relies on: two u16, node then port. */
static_assert(sizeof(struct scif_portID) == sizeof(struct scif_port_id));
static_assert(offsetof(struct scif_portID, node) == 0);
static_assert(offsetof(struct scif_portID, port) == 2);
static_assert(sizeof(portID_t) == 4);

/**
 * struct mpss_accept - a scif_accept() run in a thread, MPSS style
 * @lep: the listening endpoint
 * @peer: filled in by scif_accept()
 * @newepd: the accepted endpoint
 * @ret: what scif_accept() returned
 * @done: completed once @ret is set
 */
struct mpss_accept {
	scif_epd_t lep;
	struct scif_portID peer;
	scif_epd_t newepd;
	int ret;
	struct completion done;
};

static int mpss_accept_thread(void *data)
{
	struct mpss_accept *a = data;

	a->ret = scif_accept(a->lep, &a->peer, &a->newepd, SCIF_ACCEPT_SYNC);
	complete(&a->done);
	return 0;
}

/* The id of the local node, through MPSS's call. */
static u16 mpss_self(struct kunit *test)
{
	u16 nodes[MPSS_MAX_NODES], self = 0xffff;

	KUNIT_ASSERT_GE(test, scif_get_nodeIDs(nodes, MPSS_MAX_NODES, &self), 1);
	KUNIT_ASSERT_NE(test, self, 0xffff);
	return self;
}

/* A listener bound to @port, which MPSS names. */
static scif_epd_t mpss_listener(struct kunit *test, u16 port)
{
	scif_epd_t lep = scif_open();

	KUNIT_ASSERT_NOT_NULL(test, lep);
	KUNIT_ASSERT_EQ(test, scif_bind(lep, port), port);
	KUNIT_ASSERT_EQ(test, scif_listen(lep, 1), 0);
	return lep;
}

/*
 * Connect @epd to @dst while a thread accepts on @lep; the accept's result
 * is left in @a. Should the accept not return, the listener is closed to
 * wake it (and @a->lep cleared): the caller closes @a->lep, not @lep.
 */
static int mpss_connect(struct kunit *test, scif_epd_t epd,
			struct scif_portID *dst, scif_epd_t lep,
			struct mpss_accept *a)
{
	struct task_struct *t;
	int ret;

	a->lep = lep;
	a->ret = -EINPROGRESS;
	init_completion(&a->done);
	t = kthread_run(mpss_accept_thread, a, "scif_mpss_accept");
	if (IS_ERR(t)) {
		KUNIT_FAIL(test, "no accept thread: %ld", PTR_ERR(t));
		return PTR_ERR(t);
	}
	ret = scif_connect(epd, dst);
	if (!wait_for_completion_timeout(&a->done,
					 msecs_to_jiffies(MPSS_WAIT_MS))) {
		KUNIT_FAIL(test, "scif_accept() did not return");
		scif_close(lep);
		wait_for_completion(&a->done);
		a->lep = NULL;
	}
	return ret;
}

/* scif_get_nodeIDs() reports what scif_get_node_ids() does. */
static void mpss_node_ids(struct kunit *test)
{
	u16 mpss[MPSS_MAX_NODES], upstream[MPSS_MAX_NODES];
	u16 mself = 0xffff, uself = 0xfffe;
	int n, i, seen = 0;

	memset(mpss, 0xff, sizeof(mpss));
	memset(upstream, 0xff, sizeof(upstream));
	n = mpss_get_nodeIDs(mpss, MPSS_MAX_NODES, &mself);
	KUNIT_ASSERT_GE(test, n, 1);
	KUNIT_ASSERT_LE(test, n, MPSS_MAX_NODES);
	KUNIT_EXPECT_EQ(test, scif_get_node_ids(upstream, MPSS_MAX_NODES,
						&uself), n);
	KUNIT_EXPECT_EQ(test, mself, uself);
	KUNIT_EXPECT_EQ(test, memcmp(mpss, upstream, sizeof(mpss)), 0);
	for (i = 0; i < n; i++)
		seen += mpss[i] == mself;
	KUNIT_EXPECT_EQ(test, seen, 1);
	/* No room: nothing written, the total still reported. */
	mpss[0] = 0xabcd;
	KUNIT_EXPECT_EQ(test, scif_get_nodeIDs(mpss, 0, &mself), n);
	KUNIT_EXPECT_EQ(test, mpss[0], 0xabcd);
}

/*
 * A COSM-like service on its reserved port: the client fills in a struct
 * scif_portID, connects, and both sides exchange a message; accept reports
 * the client's address in a struct scif_portID too.
 */
static void mpss_cosm_port_connect(struct kunit *test)
{
	struct scif_portID portID = {
		.node = mpss_self(test),
		.port = SCIF_COSM_LISTEN_PORT,
	};
	scif_epd_t lep = mpss_listener(test, SCIF_COSM_LISTEN_PORT);
	scif_epd_t epd = scif_open();
	static const char hello[] = "heartbeat";
	char buf[sizeof(hello)];
	struct mpss_accept a;
	int port;

	KUNIT_ASSERT_NOT_NULL(test, epd);
	port = mpss_connect(test, epd, &portID, lep, &a);
	if (a.ret) {
		KUNIT_FAIL(test, "scif_accept(): %d", a.ret);
		scif_close(epd);
		scif_close(a.lep);
		return;
	}
	/* Bound to a port picked at or above SCIF_PORT_RSVD. */
	KUNIT_EXPECT_GE(test, port, SCIF_PORT_RSVD);
	KUNIT_EXPECT_EQ(test, a.peer.node, portID.node);
	KUNIT_EXPECT_EQ(test, a.peer.port, port);

	KUNIT_EXPECT_EQ(test, scif_send(epd, (void *)hello, sizeof(hello),
					SCIF_SEND_BLOCK), (int)sizeof(hello));
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, scif_recv(a.newepd, buf, sizeof(buf),
					SCIF_RECV_BLOCK), (int)sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, hello);
	KUNIT_EXPECT_EQ(test, scif_send(a.newepd, buf, sizeof(buf),
					SCIF_SEND_BLOCK), (int)sizeof(buf));
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, scif_recv(epd, buf, sizeof(buf),
					SCIF_RECV_BLOCK), (int)sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, hello);

	KUNIT_EXPECT_EQ(test, scif_close(a.newepd), 0);
	KUNIT_EXPECT_EQ(test, scif_close(epd), 0);
	KUNIT_EXPECT_EQ(test, scif_close(a.lep), 0);
}

/*
 * A client bound to one reserved port connects to another: accept names
 * the client's port, and portID_t works wherever struct scif_port_id does.
 */
static void mpss_reserved_to_reserved(struct kunit *test)
{
	portID_t dst = { .node = mpss_self(test), .port = SCIF_RAS_PORT_0 };
	struct scif_port_id *upstream = &dst;
	scif_epd_t lep = mpss_listener(test, SCIF_RAS_PORT_0);
	scif_epd_t epd = scif_open();
	struct mpss_accept a;

	KUNIT_ASSERT_NOT_NULL(test, epd);
	KUNIT_ASSERT_EQ(test, scif_bind(epd, SCIF_NETDEV_PORT_9),
			SCIF_NETDEV_PORT_9);
	KUNIT_EXPECT_EQ(test, mpss_connect(test, epd, upstream, lep, &a),
			SCIF_NETDEV_PORT_9);
	KUNIT_EXPECT_EQ(test, a.ret, 0);
	if (!a.ret) {
		KUNIT_EXPECT_EQ(test, a.peer.node, dst.node);
		KUNIT_EXPECT_EQ(test, a.peer.port, SCIF_NETDEV_PORT_9);
		scif_close(a.newepd);
	}
	scif_close(epd);
	scif_close(a.lep);
}

/*
 * The reserved names are ports like any other: taken once, refused while
 * taken, connectable only while someone listens, never handed out for
 * port 0.
 */
static void mpss_reserved_ports(struct kunit *test)
{
	static const u16 reserved[] = {
		SCIF_COI_PORT_0, SCIF_OFED_PORT_9, SCIF_PM_PORT_5,
		SCIF_BT_PORT_9, MPSSD_MONRECV, MIC_NOTIFY, MPSSD_RESV9,
		SCIF_COSM_LISTEN_PORT, SCIF_MYO_PORT_0, SCIF_ST_PORT_9,
	};
	struct scif_portID dst = { .node = mpss_self(test) };
	scif_epd_t a = scif_open(), b = scif_open(), c = scif_open();
	int i, port;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < ARRAY_SIZE(reserved); i++) {
		KUNIT_EXPECT_LT(test, reserved[i], SCIF_PORT_RSVD);
		dst.port = reserved[i];
		KUNIT_EXPECT_EQ(test, scif_connect(c, &dst), -ECONNREFUSED);
	}
	KUNIT_EXPECT_EQ(test, scif_bind(a, SCIF_COSM_LISTEN_PORT),
			SCIF_COSM_LISTEN_PORT);
	KUNIT_EXPECT_EQ(test, scif_bind(b, SCIF_COSM_LISTEN_PORT), -EADDRINUSE);
	port = scif_bind(b, 0);
	KUNIT_EXPECT_GE(test, port, SCIF_PORT_RSVD);
	KUNIT_EXPECT_EQ(test, scif_close(a), 0);
	a = scif_open();
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, scif_bind(a, SCIF_COSM_LISTEN_PORT),
			SCIF_COSM_LISTEN_PORT);
	scif_close(a);
	scif_close(b);
	scif_close(c);
}

static struct kunit_case scif_mpss_cases[] = {
	KUNIT_CASE(mpss_node_ids),
	KUNIT_CASE(mpss_cosm_port_connect),
	KUNIT_CASE(mpss_reserved_to_reserved),
	KUNIT_CASE(mpss_reserved_ports),
	{}
};

static struct kunit_suite scif_mpss_suite = {
	.name = "scif_mpss",
	.test_cases = scif_mpss_cases,
};

kunit_test_suite(scif_mpss_suite);

MODULE_DESCRIPTION("KUnit tests for the MPSS names of the SCIF kernel API");
MODULE_LICENSE("GPL");
