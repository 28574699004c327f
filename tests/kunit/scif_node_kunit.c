// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for SCIF across nodes: two instances joined by the simulated
 * link. Connections and streams between them, node ids, the bus and its
 * clients, and what node loss does to endpoints.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"
#include "core/scif_link.h"
#include "scif_kunit_sim.h"
#include "core/scif_wire.h"
#include "rma/scif_rma.h"

/* A small chunk size, so that streams are cut into many messages. */
#define NODE_SIM_CHUNK	512

/*
 * The context is a &struct scif_kt_nodes of its own: two nodes and their
 * link; the tests open their own endpoints, so its c and s stay NULL.
 */
static int node_init(struct kunit *test)
{
	struct scif_kt_nodes *ctx = kunit_kzalloc(test, sizeof(*ctx),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	scif_kt_nodes_up(test, ctx, "kunit_a", "kunit_b", NODE_SIM_CHUNK);
	return 0;
}

#define NODE_FAKE	7

static void node_exit(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;

	/* The fake node of some tests; nothing if it is not there. */
	if (ctx->a)
		scif_node_remove(ctx->a, NODE_FAKE);
	scif_kt_nodes_down(test->priv);
}

static void node_ids_list_both(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	u16 nodes[4], self;

	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(ctx->b, nodes, 4, &self),
			2);
	KUNIT_EXPECT_EQ(test, self, 1);
	KUNIT_EXPECT_EQ(test, nodes[0], 0);
	KUNIT_EXPECT_EQ(test, nodes[1], 1);
	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(ctx->b, nodes, 1, &self),
			2);
	scif_sim_pair_down(ctx->pair);
	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(ctx->b, nodes, 4, &self),
			1);
	KUNIT_EXPECT_EQ(test, nodes[0], 1);
}

static void connect_and_stream_across(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	int len = 200000, i;
	scif_epd_t c, s;
	u8 *out, *in;

	scif_kt_pair(test, ctx->b, ctx->a, 0, &c, &s);
	KUNIT_EXPECT_EQ(test, s->peer.node, 1);
	KUNIT_EXPECT_EQ(test, c->peer.node, 0);
	out = vmalloc(len);
	in = vzalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, in);
	for (i = 0; i < len; i++)
		out[i] = i ^ (i >> 8);
	/* Fill the peer's ring without blocking, then drain it in pieces. */
	KUNIT_EXPECT_EQ(test, scif_send(s, out, len, 0), SCIF_RX_RING_SIZE);
	KUNIT_EXPECT_EQ(test, scif_recv(c, in, SCIF_RX_RING_SIZE,
					SCIF_RECV_BLOCK), SCIF_RX_RING_SIZE);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, SCIF_RX_RING_SIZE), 0);
	scif_close(c);
	scif_close(s);
	vfree(out);
	vfree(in);
}

/* A blocking stream many times the ring, cut into 512-byte chunks. */
static void blocking_stream_across(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	int len = 300000, i;
	struct scif_kt_xfer x;
	scif_epd_t c, s;
	u8 *in;

	scif_kt_pair(test, ctx->b, ctx->a, 0, &c, &s);
	x.epd = c;
	x.len = len;
	x.buf = vmalloc(len);
	in = vzalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, x.buf);
	KUNIT_ASSERT_NOT_NULL(test, in);
	for (i = 0; i < len; i++)
		x.buf[i] = i * 13 + (i >> 9);
	scif_kt_stream(test, &x, s, in, 60000);
	scif_close(c);
	scif_close(s);
	vfree(x.buf);
	vfree(in);
}

static void connect_refused_across(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct scif_port_id dst = { .node = 0, .port = 4000 };
	scif_epd_t e = scif_instance_open(ctx->b);

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), -ECONNREFUSED);
	scif_close(e);
}

static void node_loss_resets_connections(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct scif_pollepd p;
	scif_epd_t c, s;
	char buf[4];

	scif_kt_pair(test, ctx->b, ctx->a, 0, &c, &s);
	KUNIT_EXPECT_EQ(test, scif_send(c, "ab", 2, SCIF_SEND_BLOCK), 2);
	scif_sim_settle(ctx->pair);
	scif_sim_pair_down(ctx->pair);
	p.epd = s;
	p.events = EPOLLIN;
	KUNIT_EXPECT_EQ(test, scif_poll(&p, 1, 0), 1);
	KUNIT_EXPECT_TRUE(test, p.revents & EPOLLHUP);
	/* What arrived before the loss is still there, then ENODEV. */
	KUNIT_EXPECT_EQ(test, scif_recv(s, buf, 4, SCIF_RECV_BLOCK), 2);
	KUNIT_EXPECT_EQ(test, scif_recv(s, buf, 4, SCIF_RECV_BLOCK), -ENODEV);
	KUNIT_EXPECT_EQ(test, scif_send(s, buf, 1, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, scif_send(c, buf, 1, SCIF_SEND_BLOCK), -ENODEV);
	KUNIT_EXPECT_EQ(test, scif_recv(c, buf, 1, SCIF_RECV_BLOCK), -ENODEV);
	scif_close(c);
	scif_close(s);
}

static void connect_to_lost_node_enodev(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct scif_port_id dst = { .node = 0, .port = 4000 };
	scif_epd_t e = scif_instance_open(ctx->b);

	KUNIT_ASSERT_NOT_NULL(test, e);
	scif_sim_pair_down(ctx->pair);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), -ENODEV);
	scif_close(e);
}

/*
 * Start a connect from a new endpoint @e of node 1 to a new listener @l on
 * node 0 at @dst, and take the link down while it is in flight.
 */
static void node_connect_then_lose(struct kunit *test,
				   struct scif_kt_nodes *ctx, scif_epd_t *l,
				   scif_epd_t *e, struct scif_port_id *dst)
{
	int port;

	*l = scif_instance_open(ctx->a);
	*e = scif_instance_open(ctx->b);
	KUNIT_ASSERT_NOT_NULL(test, *l);
	KUNIT_ASSERT_NOT_NULL(test, *e);
	port = scif_bind(*l, 0);
	KUNIT_ASSERT_GT(test, port, 0);
	dst->node = 0;
	dst->port = port;
	KUNIT_ASSERT_EQ(test, scif_listen(*l, 2), 0);
	KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(*e, dst), -EINPROGRESS);
	scif_sim_settle(ctx->pair);
	scif_sim_pair_down(ctx->pair);
}

static void connect_in_flight_fails_on_node_loss(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct scif_pollepd p = { .events = EPOLLOUT };
	struct scif_port_id dst;
	scif_epd_t l, e;

	node_connect_then_lose(test, ctx, &l, &e, &dst);
	p.epd = e;
	KUNIT_EXPECT_EQ(test, scif_poll(&p, 1, 0), 1);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), -ENODEV);
	scif_close(e);
	scif_close(l);
}

static void accept_from_lost_node_enodev(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct scif_port_id dst, peer;
	scif_epd_t l, e, n;

	node_connect_then_lose(test, ctx, &l, &e, &dst);
	KUNIT_EXPECT_EQ(test, scif_accept(l, &peer, &n, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, scif_accept(l, &peer, &n, 0), -EAGAIN);
	scif_close(e);
	scif_close(l);
}

/**
 * struct node_client - a SCIF client that records what it is told
 * @client: the client
 * @probed: bit N set while node N is known
 * @probes: number of probe calls
 * @removes: number of remove calls
 */
struct node_client {
	struct scif_client client;
	unsigned long probed;
	int probes;
	int removes;
};

/* Probe and remove get no context pointer: the suite's one client. */
static struct node_client node_test_client;

static int node_null_send(struct scif_link *link,
			  const struct scif_wire_msg *msg, const void *data,
			  size_t len)
{
	return -ENODEV;
}

static const struct scif_link_ops node_null_ops = {
	.send = node_null_send,
};

/* A link chooses its endpoints' ring size, within the wire's bounds. */
static void link_ep_ring(struct kunit *test)
{
	static const u32 bad[] = { 3000, SCIF_WIRE_RING_MIN / 2,
				   SCIF_WIRE_RING_MAX * 2 };
	struct scif_kt_nodes *ctx = test->priv;
	struct scif_link link = {
		.ops = &node_null_ops,
		.max_data = NODE_SIM_CHUNK,
	};
	unsigned int i;
	scif_epd_t c, s;

	/* The simulated link leaves it to the core's default. */
	KUNIT_EXPECT_EQ(test, scif_node_ep_ring(ctx->a, 1),
			(u32)SCIF_RX_RING_SIZE);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		link.ep_ring = bad[i];
		KUNIT_EXPECT_EQ(test, scif_node_add(ctx->a, 7, &link), -EINVAL);
	}
	link.ep_ring = 2 * SCIF_RX_RING_SIZE;
	KUNIT_ASSERT_EQ(test, scif_node_add(ctx->a, 7, &link), 0);
	KUNIT_EXPECT_EQ(test, scif_node_ep_ring(ctx->a, 7),
			(u32)(2 * SCIF_RX_RING_SIZE));
	scif_node_remove(ctx->a, 7);
	KUNIT_EXPECT_EQ(test, scif_node_ep_ring(ctx->a, 7), 0U);
	/* Each side of a connection advertises its own ring to the other. */
	scif_kt_pair(test, ctx->b, ctx->a, 0, &c, &s);
	KUNIT_EXPECT_EQ(test, c->rx_size, (u32)SCIF_RX_RING_SIZE);
	KUNIT_EXPECT_EQ(test, s->tx_ring, c->rx_size);
	KUNIT_EXPECT_EQ(test, c->tx_ring, s->rx_size);
	scif_close(c);
	scif_close(s);
}

/**
 * struct node_fake - a peer node played by the test through a link of its
 *		      own: what node 0 sends it (route
 *		      announcements aside) is recorded, or refused
 * @link: the link, added to node 0's instance as node %NODE_FAKE
 * @fail: how many of the next sends fail with -EAGAIN
 * @sent: messages accepted for delivery
 * @last: the last of them
 */
struct node_fake {
	struct scif_link link;
	int fail;
	int sent;
	struct scif_wire_msg last;
};

#define NODE_FAKE_PORT	100
#define NODE_FAKE_EP	0x500000009ULL

static int node_fake_send(struct scif_link *link,
			  const struct scif_wire_msg *msg, const void *data,
			  size_t len)
{
	struct node_fake *f = container_of(link, struct node_fake, link);

	/* Route announcements come from a work item, at any time: not ours. */
	if (msg->type == SCIF_MSG_ROUTE)
		return 0;
	if (f->fail > 0) {
		f->fail--;
		return -EAGAIN;
	}
	f->sent++;
	f->last = *msg;
	return 0;
}

static const struct scif_link_ops node_fake_ops = {
	.send = node_fake_send,
};

/*
 * Bring the fake node up on node 0 and connect an endpoint of node 0 to
 * it, the fake node accepting; returns the endpoint.
 */
static scif_epd_t node_fake_connect(struct kunit *test, struct node_fake *f)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct scif_port_id dst = { NODE_FAKE, NODE_FAKE_PORT };
	struct scif_wire_msg m;
	struct scif_endpt *ep;

	f->link.ops = &node_fake_ops;
	f->link.max_data = NODE_SIM_CHUNK;
	f->link.rma_local = true;
	/* node_exit() removes it. */
	KUNIT_ASSERT_EQ(test, scif_node_add(ctx->a, NODE_FAKE, &f->link), 0);
	ep = scif_instance_open(ctx->a);
	KUNIT_ASSERT_NOT_NULL(test, ep);
	KUNIT_ASSERT_EQ(test, scif_epd_connect_nb(ep, &dst), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, f->last.type, SCIF_MSG_CONNREQ);
	scif_msg_init(&m, SCIF_MSG_ACCEPT, NODE_FAKE_EP, ep->id,
		      NODE_FAKE_PORT, ep->port, SCIF_RX_RING_SIZE);
	m.seq = f->last.seq;
	scif_node_rx(ctx->a, NODE_FAKE, &m, sizeof(m));
	KUNIT_ASSERT_EQ(test, scif_connect(ep, &dst), (int)ep->port);
	return ep;
}

/* Whether the last message to the fake node reset @ep's connection. */
static void node_fake_expect_reset(struct kunit *test, struct node_fake *f,
				   scif_epd_t epd)
{
	struct scif_pollepd p = { .epd = epd, .events = EPOLLIN };
	char ch;

	KUNIT_EXPECT_EQ(test, f->last.type, SCIF_MSG_DISCONNECT);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(f->last.dst_ep), NODE_FAKE_EP);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(f->last.src_ep), epd->id);
	KUNIT_EXPECT_EQ(test, scif_poll(&p, 1, 0), 1);
	KUNIT_EXPECT_TRUE(test, p.revents & EPOLLHUP);
	KUNIT_EXPECT_EQ(test, scif_recv(epd, &ch, 1, 0), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, scif_send(epd, &ch, 1, 0), -ECONNRESET);
}

/*
 * A message the link cannot send resets the connection on both sides:
 * the sender fails with -ECONNRESET and sees EPOLLHUP, and the peer is
 * sent a DISCONNECT instead of being left with a gap in the stream.
 */
static void send_failure_resets_both_sides(struct kunit *test)
{
	struct node_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	char buf[8] = "hostile";
	scif_epd_t e;
	int sent;

	KUNIT_ASSERT_NOT_NULL(test, f);
	e = node_fake_connect(test, f);
	sent = f->sent;
	f->fail = 1;
	KUNIT_EXPECT_EQ(test, scif_send(e, buf, sizeof(buf), 0),
			-ECONNRESET);
	KUNIT_EXPECT_EQ(test, f->sent, sent + 1);
	node_fake_expect_reset(test, f, e);
	/* Closing sends nothing more to a peer that was told. */
	scif_close(e);
	KUNIT_EXPECT_EQ(test, f->sent, sent + 1);
}

/* Restores the peer_timeout_ms module parameter a test changed. */
static void node_restore_peer_timeout(void *old)
{
	WRITE_ONCE(scif_rma_peer_timeout_ms, (unsigned int)(uintptr_t)old);
}

/*
 * A peer that never answers a fence request does not hang the waiter:
 * after peer_timeout_ms the wait fails with -ETIMEDOUT and the connection
 * is reset on both sides.
 */
static void fence_peer_silent_times_out(struct kunit *test)
{
	struct node_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	void *old = (void *)(uintptr_t)scif_rma_peer_timeout_ms;
	unsigned long t0;
	int mark, ret;
	scif_epd_t e;

	KUNIT_ASSERT_NOT_NULL(test, f);
	ret = kunit_add_action_or_reset(test, node_restore_peer_timeout, old);
	KUNIT_ASSERT_EQ(test, ret, 0);
	WRITE_ONCE(scif_rma_peer_timeout_ms, 200);
	e = node_fake_connect(test, f);
	KUNIT_ASSERT_EQ(test, scif_fence_mark(e, SCIF_FENCE_INIT_PEER, &mark),
			0);
	KUNIT_EXPECT_EQ(test, f->last.type, SCIF_MSG_FENCE_REQ);
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, scif_fence_wait(e, mark), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies - t0, msecs_to_jiffies(200));
	KUNIT_EXPECT_LT(test, jiffies - t0, msecs_to_jiffies(10000));
	node_fake_expect_reset(test, f, e);
	scif_close(e);
}

static void node_client_probe(struct scif_peer_dev *spdev)
{
	node_test_client.probes++;
	__set_bit(spdev->dnode, &node_test_client.probed);
}

static void node_client_remove(struct scif_peer_dev *spdev)
{
	node_test_client.removes++;
	__clear_bit(spdev->dnode, &node_test_client.probed);
}

static void client_probe_and_remove(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct node_client *nc = &node_test_client;

	memset(nc, 0, sizeof(*nc));
	nc->client.name = "scif_kunit_client";
	nc->client.probe = node_client_probe;
	nc->client.remove = node_client_remove;
	KUNIT_ASSERT_EQ(test, scif_instance_client_register(ctx->a,
							    &nc->client), 0);
	/* Node 0 (itself, over loopback) and node 1 (over the link). */
	KUNIT_EXPECT_EQ(test, nc->probes, 2);
	KUNIT_EXPECT_EQ(test, nc->probed, 3UL);
	scif_sim_pair_down(ctx->pair);
	KUNIT_EXPECT_EQ(test, nc->removes, 1);
	KUNIT_EXPECT_EQ(test, nc->probed, 1UL);
	/* The node comes back. */
	scif_sim_pair_destroy(ctx->pair);
	ctx->pair = scif_sim_pair_create(ctx->a, ctx->b, NODE_SIM_CHUNK);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->pair));
	KUNIT_EXPECT_EQ(test, nc->probes, 3);
	KUNIT_EXPECT_EQ(test, nc->probed, 3UL);
	scif_client_unregister(&nc->client);
	KUNIT_EXPECT_EQ(test, nc->removes, 3);
	KUNIT_EXPECT_EQ(test, nc->probed, 0UL);
}

/**
 * struct node_stuck - a link whose sends wait until the test lets them go,
 *		       and the threads that use it
 * @stuck: added to node 0's instance as node %NODE_FAKE
 * @si: node 0's instance
 * @sent: the sending thread's scif_node_send() returned
 * @other: another node was added and removed meanwhile
 * @removed: scif_node_remove() of %NODE_FAKE returned
 * @send_ret: what scif_node_send() returned
 */
struct node_stuck {
	struct scif_kt_stuck stuck;
	struct scif_instance *si;
	struct completion sent;
	struct completion other;
	struct completion removed;
	int send_ret;
};

static int node_stuck_sender(void *arg)
{
	struct node_stuck *st = arg;
	struct scif_wire_msg m;

	scif_msg_init(&m, SCIF_MSG_DISCONNECT, 1, 1, 1, 1, 0);
	st->send_ret = scif_node_send(st->si, NODE_FAKE, &m, NULL, 0);
	complete(&st->sent);
	return 0;
}

static int node_stuck_other(void *arg)
{
	struct node_stuck *st = arg;
	struct scif_link link = {
		.ops = &node_null_ops,
		.max_data = NODE_SIM_CHUNK,
	};

	if (!scif_node_add(st->si, NODE_FAKE + 1, &link))
		scif_node_remove(st->si, NODE_FAKE + 1);
	complete(&st->other);
	return 0;
}

static int node_stuck_remover(void *arg)
{
	struct node_stuck *st = arg;

	scif_node_remove(st->si, NODE_FAKE);
	complete(&st->removed);
	return 0;
}

/* Run @fn in a thread, or right here if no thread can be had. */
static void node_stuck_run(int (*fn)(void *), struct node_stuck *st)
{
	if (IS_ERR(kthread_run(fn, st, "scif-kunit")))
		fn(st);
}

/*
 * A send waiting in a full link holds no lock that other nodes need: the
 * links of other nodes come and go meanwhile. Removing the node itself
 * waits until the send has left its link.
 */
static void send_waiting_holds_no_table_lock(struct kunit *test)
{
	struct scif_kt_nodes *ctx = test->priv;
	struct node_stuck *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	bool other_done;

	KUNIT_ASSERT_NOT_NULL(test, st);
	scif_kt_stuck_init(&st->stuck, NODE_SIM_CHUNK);
	st->si = ctx->a;
	init_completion(&st->sent);
	init_completion(&st->other);
	init_completion(&st->removed);
	KUNIT_ASSERT_EQ(test, scif_node_add(ctx->a, NODE_FAKE, &st->stuck.link), 0);
	if (IS_ERR(kthread_run(node_stuck_sender, st, "scif-kunit"))) {
		scif_node_remove(ctx->a, NODE_FAKE);
		KUNIT_FAIL(test, "no thread");
		return;
	}
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&st->stuck.entered,
							    10 * HZ));
	node_stuck_run(node_stuck_other, st);
	other_done = wait_for_completion_timeout(&st->other, 10 * HZ);
	KUNIT_EXPECT_TRUE(test, other_done);
	node_stuck_run(node_stuck_remover, st);
	msleep(100);
	KUNIT_EXPECT_EQ(test, scif_node_ep_ring(ctx->a, NODE_FAKE), 0U);
	KUNIT_EXPECT_FALSE(test, completion_done(&st->removed));
	complete(&st->stuck.release);
	/* Everything ends once the send is let go, the test's memory too. */
	wait_for_completion(&st->sent);
	if (!other_done)
		wait_for_completion(&st->other);
	wait_for_completion(&st->removed);
	KUNIT_EXPECT_EQ(test, st->send_ret, -ENODEV);
}

static struct kunit_case scif_node_cases[] = {
	KUNIT_CASE(node_ids_list_both),
	KUNIT_CASE(connect_and_stream_across),
	KUNIT_CASE(blocking_stream_across),
	KUNIT_CASE(connect_refused_across),
	KUNIT_CASE(node_loss_resets_connections),
	KUNIT_CASE(connect_to_lost_node_enodev),
	KUNIT_CASE(connect_in_flight_fails_on_node_loss),
	KUNIT_CASE(accept_from_lost_node_enodev),
	KUNIT_CASE(client_probe_and_remove),
	KUNIT_CASE(link_ep_ring),
	KUNIT_CASE(send_failure_resets_both_sides),
	KUNIT_CASE(fence_peer_silent_times_out),
	KUNIT_CASE(send_waiting_holds_no_table_lock),
	{}
};

static struct kunit_suite scif_node_suite = {
	.name = "scif_node",
	.init = node_init,
	.exit = node_exit,
	.test_cases = scif_node_cases,
};

kunit_test_suite(scif_node_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF across two nodes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(SCIF_TRANSPORT);
