// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for SCIF forwarding (core/scif_forward.c and the
 * dispatcher's checks of a message's ends, core/scif_msg.c).
 *
 * The instance under test is node 1 of a chain 0 - 1 - 2 - 3: nodes 0 and
 * 2 are fake neighbours whose links record what node 1 sends them, and
 * whose messages the test writes, header included. Node 2 announces
 * itself and node 3 behind it, so node 1 reaches node 3 through node 2.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "core/scif_core.h"
#include "core/scif_instance.h"
#include "core/scif_link.h"
#include "core/scif_wire.h"
#include "scif_kunit_sim.h"
#include "scif_kunit_util.h"

#define FWD_SELF	1
#define FWD_LEFT	0
#define FWD_RIGHT	2
#define FWD_FAR		3
#define FWD_CHUNK	1024
#define FWD_PORT	77

/**
 * struct fwd_nbr - a fake neighbour: what node 1 sends it, ROUTEs aside
 * @link: its link, as node 1 sees it
 * @lock: protects the fields below (the route work sends concurrently)
 * @sent: messages recorded
 * @last: the last of them
 * @data: the first bytes of its data
 * @len: its data length
 */
struct fwd_nbr {
	struct scif_link link;
	spinlock_t lock;	/* @sent, @last, @data, @len */
	int sent;
	struct scif_wire_msg last;
	u8 data[16];
	size_t len;
};

/**
 * struct fwd_ctx - node 1 and its two fake neighbours
 * @si: node 1
 * @nbr: per node id 0..2, the fake neighbour (index 1 unused)
 */
struct fwd_ctx {
	struct scif_instance *si;
	struct fwd_nbr nbr[3];
};

static int fwd_send(struct scif_link *link, const struct scif_wire_msg *msg,
		    const void *data, size_t len)
{
	struct fwd_nbr *f = container_of(link, struct fwd_nbr, link);

	if (msg->type == SCIF_MSG_ROUTE)
		return 0;
	spin_lock(&f->lock);
	f->sent++;
	f->last = *msg;
	f->len = len;
	memcpy(f->data, data, min(len, sizeof(f->data)));
	spin_unlock(&f->lock);
	return 0;
}

static const struct scif_link_ops fwd_ops = {
	.send = fwd_send,
};

static int fwd_sent(struct fwd_nbr *f, struct scif_wire_msg *last)
{
	int sent;

	spin_lock(&f->lock);
	sent = f->sent;
	if (last)
		*last = f->last;
	spin_unlock(&f->lock);
	return sent;
}

/* A message from neighbour @from, naming its ends (ttl 0: naming none). */
static void fwd_inject(struct fwd_ctx *ctx, u16 from, u8 type, u16 src,
		       u16 dst, u8 ttl, const void *data, size_t len)
{
	struct scif_wire_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.version = SCIF_WIRE_VERSION;
	msg.type = type;
	msg.len = cpu_to_le16(len);
	msg.src_node = cpu_to_le16(src);
	msg.dst_node = cpu_to_le16(dst);
	msg.ttl = ttl;
	if (type == SCIF_MSG_CONNREQ) {
		msg.src_ep = cpu_to_le64(0x100000001ULL);
		msg.src_port = cpu_to_le16(FWD_PORT);
		msg.dst_port = cpu_to_le16(FWD_PORT);
		msg.arg = cpu_to_le32(SCIF_WIRE_RING_MIN);
	}
	scif_node_rx_parts(ctx->si, from, &msg, sizeof(msg), data, len);
}

/* Neighbour @from announces @node at @hops (16: withdrawn). */
static void fwd_announce(struct fwd_ctx *ctx, u16 from, u16 node, u8 hops)
{
	struct scif_wire_route e = {
		.node = cpu_to_le16(node),
		.hops = hops,
		.ident = cpu_to_le32(hops < SCIF_ROUTE_HOPS_MAX ?
				     0xf000 + node : 0),
	};

	fwd_inject(ctx, from, SCIF_MSG_ROUTE, 0, 0, 0, &e, sizeof(e));
}

static u64 fwd_drops(struct fwd_ctx *ctx, u16 node)
{
	struct scif_node_stats st;

	scif_node_stats(ctx->si, node, &st);
	return atomic64_read(&st.rx_drops);
}

/* Whether @node is online within 2 s (the route work adds it). */
static bool fwd_online_within(struct fwd_ctx *ctx, u16 node, bool online)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (scif_node_online(ctx->si, node) == online)
			return true;
		msleep(20);
	}
	return false;
}

static int fwd_init(struct kunit *test)
{
	struct fwd_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u16 id;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	ctx->si = scif_sim_instance_create("kunit_fwd", FWD_SELF);
	KUNIT_ASSERT_NOT_NULL(test, ctx->si);
	for (id = FWD_LEFT; id <= FWD_RIGHT; id += 2) {
		struct fwd_nbr *f = &ctx->nbr[id];

		spin_lock_init(&f->lock);
		f->link.ops = &fwd_ops;
		f->link.max_data = FWD_CHUNK;
		init_waitqueue_head(&f->link.rx_wait);
		KUNIT_ASSERT_EQ(test, scif_node_add(ctx->si, id, &f->link), 0);
		fwd_announce(ctx, id, id, 0);
	}
	fwd_announce(ctx, FWD_RIGHT, FWD_FAR, 1);
	KUNIT_ASSERT_TRUE(test, fwd_online_within(ctx, FWD_FAR, true));
	return 0;
}

static void fwd_exit(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;

	if (!ctx->si)
		return;
	scif_node_remove(ctx->si, FWD_LEFT);
	scif_node_remove(ctx->si, FWD_RIGHT);
	scif_sim_instance_destroy(ctx->si);
}

/* Node 3 is listed, as a node like the neighbours, and goes with its route. */
static void fwd_routed_node_listed(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	u16 nodes[8], self;

	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(ctx->si, nodes, 8, &self),
			4);
	KUNIT_EXPECT_EQ(test, self, FWD_SELF);
	KUNIT_EXPECT_EQ(test, nodes[3], FWD_FAR);
	fwd_announce(ctx, FWD_RIGHT, FWD_FAR, SCIF_ROUTE_HOPS_MAX);
	KUNIT_EXPECT_TRUE(test, fwd_online_within(ctx, FWD_FAR, false));
	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(ctx->si, NULL, 0, NULL), 3);
}

/* A message for node 3 goes on to node 2, ttl lowered, the rest as it was. */
static void fwd_forward_lowers_ttl(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	struct scif_wire_msg last;
	static const u8 bytes[5] = { 1, 2, 3, 4, 5 };
	u64 drops = fwd_drops(ctx, FWD_LEFT);

	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_DATA, FWD_LEFT, FWD_FAR, 7, bytes,
		   sizeof(bytes));
	KUNIT_ASSERT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], &last), 1);
	KUNIT_EXPECT_EQ(test, last.ttl, 6);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last.src_node), FWD_LEFT);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last.dst_node), FWD_FAR);
	KUNIT_EXPECT_EQ(test, last.type, SCIF_MSG_DATA);
	KUNIT_EXPECT_EQ(test, ctx->nbr[FWD_RIGHT].len, sizeof(bytes));
	KUNIT_EXPECT_EQ(test, memcmp(ctx->nbr[FWD_RIGHT].data, bytes,
				     sizeof(bytes)), 0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_LEFT), drops);
	/* Nothing went back, nor anywhere else. */
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_LEFT], NULL), 0);
}

/* A ttl that would reach 0, or no route: dropped and counted. */
static void fwd_drop_ttl_and_unreachable(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	u64 drops = fwd_drops(ctx, FWD_LEFT);

	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CREDIT, FWD_LEFT, FWD_FAR, 1, NULL,
		   0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_LEFT), drops + 1);
	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CREDIT, FWD_LEFT, 9, 5, NULL, 0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_LEFT), drops + 2);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], NULL), 0);
}

/*
 * Node 0 may speak for no one but itself: not for node 3 (whose route
 * goes through node 2), not for node 1 itself; neither for node 1 nor
 * for a message it wants forwarded.
 */
static void fwd_impersonation_refused(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	u64 drops = fwd_drops(ctx, FWD_LEFT);

	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CONNREQ, FWD_FAR, FWD_SELF, 5, NULL,
		   0);
	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CONNREQ, FWD_SELF, FWD_SELF, 5,
		   NULL, 0);
	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CREDIT, FWD_FAR, FWD_RIGHT, 5, NULL,
		   0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_LEFT), drops + 3);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_LEFT], NULL), 0);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], NULL), 0);
	/* A ROUTE comes from the neighbour itself, for us, or not at all. */
	drops = fwd_drops(ctx, FWD_RIGHT);
	fwd_inject(ctx, FWD_RIGHT, SCIF_MSG_ROUTE, FWD_FAR, FWD_SELF, 5, NULL,
		   0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_RIGHT), drops + 1);
}

/*
 * Node 2 speaks for node 3: a connect from node 3 is handled as node 3's,
 * and the refusal (no listener) goes to node 3, through node 2, naming
 * its ends.
 */
static void fwd_sender_is_src_node(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	struct scif_wire_msg last;
	u64 drops = fwd_drops(ctx, FWD_RIGHT);

	fwd_inject(ctx, FWD_RIGHT, SCIF_MSG_CONNREQ, FWD_FAR, FWD_SELF, 3,
		   NULL, 0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_RIGHT), drops);
	KUNIT_ASSERT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], &last), 1);
	KUNIT_EXPECT_EQ(test, last.type, SCIF_MSG_REJECT);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last.src_node), FWD_SELF);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last.dst_node), FWD_FAR);
	KUNIT_EXPECT_EQ(test, last.ttl, SCIF_ROUTE_HOPS_MAX);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(last.arg), (u32)ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_LEFT], NULL), 0);
}

/*
 * A header that names no ends (ttl 0, as from a peer that leaves those
 * bytes zero) is the neighbour's, for us; ends named with ttl 0 are not.
 */
static void fwd_zero_header_is_adjacent(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	struct scif_wire_msg last;
	u64 drops = fwd_drops(ctx, FWD_LEFT);

	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CONNREQ, 0, 0, 0, NULL, 0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_LEFT), drops);
	KUNIT_ASSERT_EQ(test, fwd_sent(&ctx->nbr[FWD_LEFT], &last), 1);
	KUNIT_EXPECT_EQ(test, last.type, SCIF_MSG_REJECT);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last.dst_node), FWD_LEFT);
	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CREDIT, 0, FWD_FAR, 0, NULL, 0);
	KUNIT_EXPECT_EQ(test, fwd_drops(ctx, FWD_LEFT), drops + 1);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], NULL), 0);
}

/* A neighbour of a routed node's id takes its place. */
static void fwd_neighbour_replaces_routed(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	struct fwd_nbr *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct scif_wire_msg last;

	KUNIT_ASSERT_NOT_NULL(test, f);
	spin_lock_init(&f->lock);
	f->link.ops = &fwd_ops;
	f->link.max_data = FWD_CHUNK;
	init_waitqueue_head(&f->link.rx_wait);
	KUNIT_ASSERT_EQ(test, scif_node_add(ctx->si, FWD_FAR, &f->link), 0);
	/* Answers to node 3 go over its own link now, not through node 2. */
	fwd_inject(ctx, FWD_FAR, SCIF_MSG_CONNREQ, 0, 0, 0, NULL, 0);
	KUNIT_ASSERT_EQ(test, fwd_sent(f, &last), 1);
	KUNIT_EXPECT_EQ(test, last.type, SCIF_MSG_REJECT);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], NULL), 0);
	scif_node_remove(ctx->si, FWD_FAR);
	/* Back through node 2 once the link is gone. */
	KUNIT_EXPECT_TRUE(test, fwd_online_within(ctx, FWD_FAR, true));
	fwd_inject(ctx, FWD_RIGHT, SCIF_MSG_CONNREQ, FWD_FAR, FWD_SELF, 3,
		   NULL, 0);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], NULL), 1);
	KUNIT_EXPECT_EQ(test, fwd_sent(f, NULL), 1);
}

/*
 * The route work and a receive path may both find node 3 missing and both
 * add it: the second add finds the id taken and must leave the node in
 * place whole (it once tore it down while it stayed in the table, and the
 * next removal underflowed its sender count and waited forever). An id a
 * neighbour holds is no routed node's either.
 */
static void fwd_routed_add_twice(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	struct scif_wire_msg last;

	scif_routed_add(ctx->si, FWD_FAR);
	scif_routed_add(ctx->si, FWD_LEFT);
	KUNIT_EXPECT_EQ(test, scif_node_routed(ctx->si, FWD_FAR), 1);
	KUNIT_EXPECT_EQ(test, scif_node_routed(ctx->si, FWD_LEFT), 0);
	/* Both still carry: an answer to node 3 and one to node 0. */
	fwd_inject(ctx, FWD_RIGHT, SCIF_MSG_CONNREQ, FWD_FAR, FWD_SELF, 3,
		   NULL, 0);
	KUNIT_ASSERT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], &last), 1);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last.dst_node), FWD_FAR);
	fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CONNREQ, 0, 0, 0, NULL, 0);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_LEFT], NULL), 1);
	/* Withdrawn, node 3 goes once, and nothing waits on it. */
	fwd_announce(ctx, FWD_RIGHT, FWD_FAR, SCIF_ROUTE_HOPS_MAX);
	KUNIT_EXPECT_TRUE(test, fwd_online_within(ctx, FWD_FAR, false));
}

/*
 * Node 0 offers node 3 as short as node 2 does: the route stays through
 * node 2. Node 2 withdraws it: the route moves to node 0, node 3 stays a
 * node (not lost), and what is sent to it goes through node 0.
 */
static void fwd_route_moves(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	struct scif_wire_msg last;
	int i;

	fwd_announce(ctx, FWD_LEFT, FWD_FAR, 1);
	fwd_inject(ctx, FWD_RIGHT, SCIF_MSG_CONNREQ, FWD_FAR, FWD_SELF, 3,
		   NULL, 0);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], NULL), 1);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_LEFT], NULL), 0);
	fwd_announce(ctx, FWD_RIGHT, FWD_FAR, SCIF_ROUTE_HOPS_MAX);
	/* The route work moves the node; until then sends are refused. */
	for (i = 0; i < 100 && !fwd_sent(&ctx->nbr[FWD_LEFT], NULL); i++) {
		fwd_inject(ctx, FWD_LEFT, SCIF_MSG_CONNREQ, FWD_FAR, FWD_SELF,
			   3, NULL, 0);
		msleep(20);
	}
	KUNIT_ASSERT_GE(test, fwd_sent(&ctx->nbr[FWD_LEFT], &last), 1);
	KUNIT_EXPECT_EQ(test, last.type, SCIF_MSG_REJECT);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(last.dst_node), FWD_FAR);
	KUNIT_EXPECT_EQ(test, fwd_sent(&ctx->nbr[FWD_RIGHT], NULL), 1);
	KUNIT_EXPECT_EQ(test, scif_node_routed(ctx->si, FWD_FAR), 1);
}

/**
 * struct fwd_stuck - node 3 as a neighbour whose link holds a send until
 *		      the test lets it go, and the threads that use it
 * @stuck: node 3's link
 * @si: node 1
 * @sent: the sending thread is done
 * @removed: scif_node_remove() of node 3 returned
 */
struct fwd_stuck {
	struct scif_kt_stuck stuck;
	struct scif_instance *si;
	struct completion sent;
	struct completion removed;
};

static int fwd_stuck_sender(void *arg)
{
	struct fwd_stuck *st = arg;
	struct scif_wire_msg m;

	scif_msg_init(&m, SCIF_MSG_DISCONNECT, 1, 1, 1, 1, 0);
	scif_node_send(st->si, FWD_FAR, &m, NULL, 0);
	complete(&st->sent);
	return 0;
}

static int fwd_stuck_remover(void *arg)
{
	struct fwd_stuck *st = arg;

	scif_node_remove(st->si, FWD_FAR);
	complete(&st->removed);
	return 0;
}

/*
 * Node 3 is a neighbour, and node 2 still offers a route to it. Its link
 * goes, but its teardown waits for a send: the id stays busy until the
 * teardown ended (the old node's device may still be on the bus), so no
 * routed node 3 is added before that, and the route work adds it once it
 * ended. One was added at once, and its device failed on a duplicate name.
 */
static void fwd_routed_waits_for_teardown(struct kunit *test)
{
	struct fwd_ctx *ctx = test->priv;
	struct fwd_stuck *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	bool online;

	KUNIT_ASSERT_NOT_NULL(test, st);
	scif_kt_stuck_init(&st->stuck, FWD_CHUNK);
	st->si = ctx->si;
	init_completion(&st->sent);
	init_completion(&st->removed);
	KUNIT_ASSERT_EQ(test, scif_node_add(ctx->si, FWD_FAR, &st->stuck.link), 0);
	KUNIT_ASSERT_EQ(test, scif_node_routed(ctx->si, FWD_FAR), 0);
	if (IS_ERR(kthread_run(fwd_stuck_sender, st, "scif-kunit"))) {
		scif_node_remove(ctx->si, FWD_FAR);
		KUNIT_FAIL(test, "no thread");
		return;
	}
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&st->stuck.entered,
							    10 * HZ));
	if (IS_ERR(kthread_run(fwd_stuck_remover, st, "scif-kunit"))) {
		complete(&st->stuck.release);
		wait_for_completion(&st->sent);
		scif_node_remove(ctx->si, FWD_FAR);
		KUNIT_FAIL(test, "no thread");
		return;
	}
	/* Out of the table, its teardown held by the send. */
	KUNIT_EXPECT_TRUE(test, fwd_online_within(ctx, FWD_FAR, false));
	/* The route work's add, made here: refused while the id is busy. */
	scif_routed_add(ctx->si, FWD_FAR);
	online = scif_node_online(ctx->si, FWD_FAR);
	KUNIT_EXPECT_FALSE(test, online);
	KUNIT_EXPECT_FALSE(test, completion_done(&st->removed));
	complete(&st->stuck.release);
	wait_for_completion(&st->sent);
	wait_for_completion(&st->removed);
	/* Through node 2 again, now that the id is free. */
	KUNIT_EXPECT_TRUE(test, fwd_online_within(ctx, FWD_FAR, true));
	KUNIT_EXPECT_EQ(test, scif_node_routed(ctx->si, FWD_FAR), 1);
}

static struct kunit_case scif_forward_cases[] = {
	KUNIT_CASE(fwd_routed_node_listed),
	KUNIT_CASE(fwd_forward_lowers_ttl),
	KUNIT_CASE(fwd_drop_ttl_and_unreachable),
	KUNIT_CASE(fwd_impersonation_refused),
	KUNIT_CASE(fwd_sender_is_src_node),
	KUNIT_CASE(fwd_zero_header_is_adjacent),
	KUNIT_CASE(fwd_neighbour_replaces_routed),
	KUNIT_CASE(fwd_routed_add_twice),
	KUNIT_CASE(fwd_route_moves),
	KUNIT_CASE(fwd_routed_waits_for_teardown),
	{}
};

static struct kunit_suite scif_forward_suite = {
	.name = "scif_forward",
	.init = fwd_init,
	.exit = fwd_exit,
	.test_cases = scif_forward_cases,
};

kunit_test_suite(scif_forward_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF forwarding between nodes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(SCIF_TRANSPORT);
