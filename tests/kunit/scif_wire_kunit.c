// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the SCIF wire protocol under attack: node 1 of a
 * simulated pair sends node 0 truncated, malformed, replayed and
 * out-of-state messages. Each must be dropped and counted, leave every
 * endpoint as it was, and leave the real connection working. The link
 * does not reach the peer's memory, so that the stream goes by DATA and
 * CREDIT messages (scif_shm_kunit.c covers the shared-memory stream).
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/rhashtable.h>
#include <linux/scif.h>
#include <linux/string.h>

#include "core/scif_core.h"
#include "core/scif_instance.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"
#include "scif_kunit_sim.h"
#include "core/scif_wire.h"

#define WIRE_CHUNK	256

/**
 * struct wire_ctx - the victim (node 0), the attacker (node 1), and a
 *		     connection between them
 * @n: the nodes and their link; n.a, node 0, receives the hostile
 *     messages (n.c and n.s stay unused)
 * @sa: endpoint on n.a, connected to @sb
 * @sb: endpoint on n.b
 * @l: a listener on n.a
 * @lport: its port
 */
struct wire_ctx {
	struct scif_kt_nodes n;
	scif_epd_t sa;
	scif_epd_t sb;
	scif_epd_t l;
	u16 lport;
};

static int wire_init(struct kunit *test)
{
	struct wire_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int port;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	scif_kt_nodes_up(test, &ctx->n, "kunit_wa", "kunit_wb", WIRE_CHUNK);
	scif_sim_pair_destroy(ctx->n.pair);
	ctx->n.pair = scif_sim_pair_create_staged(ctx->n.a, ctx->n.b,
						  WIRE_CHUNK);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->n.pair));
	scif_kt_pair(test, ctx->n.b, ctx->n.a, 0, &ctx->sb, &ctx->sa);
	ctx->l = scif_instance_open(ctx->n.a);
	KUNIT_ASSERT_NOT_NULL(test, ctx->l);
	port = scif_bind(ctx->l, 0);
	KUNIT_ASSERT_GT(test, port, 0);
	ctx->lport = port;
	KUNIT_ASSERT_EQ(test, scif_listen(ctx->l, 1), 0);
	return 0;
}

static void wire_exit(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;

	/* sa, sb and l are closed with the instances. */
	scif_kt_nodes_down(&ctx->n);
}

static s64 wire_drops(struct wire_ctx *ctx)
{
	struct scif_node_stats st;

	scif_node_stats(ctx->n.a, 1, &st);
	return atomic64_read(&st.rx_drops);
}

/* A message as @sb would send it to @sa. */
static void wire_msg(struct wire_ctx *ctx, struct scif_wire_msg *m, u8 type)
{
	scif_msg_init(m, type, ctx->sb->id, ctx->sa->id, ctx->sb->port,
		      ctx->sa->port, 0);
}

/* Deliver raw bytes to node 0; expect exactly one more drop. */
static void wire_expect_drop(struct kunit *test, const void *buf, size_t size)
{
	struct wire_ctx *ctx = test->priv;
	s64 before = wire_drops(ctx);
	int eps = scif_kt_nr_eps(ctx->n.a);

	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, buf, size),
			0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, wire_drops(ctx), before + 1);
	KUNIT_EXPECT_EQ(test, scif_kt_nr_eps(ctx->n.a), eps);
}

/* The connection between sa and sb still carries data both ways. */
static void wire_expect_healthy(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	char buf[8] = {};

	KUNIT_EXPECT_EQ(test, ctx->sa->state, SCIF_EP_CONNECTED);
	KUNIT_EXPECT_EQ(test, ctx->sb->state, SCIF_EP_CONNECTED);
	KUNIT_EXPECT_EQ(test, scif_send(ctx->sb, "ping", 5, SCIF_SEND_BLOCK), 5);
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->sa, buf, 5, SCIF_RECV_BLOCK), 5);
	KUNIT_EXPECT_STREQ(test, buf, "ping");
	KUNIT_EXPECT_EQ(test, scif_send(ctx->sa, "pong", 5, SCIF_SEND_BLOCK), 5);
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->sb, buf, 5, SCIF_RECV_BLOCK), 5);
	KUNIT_EXPECT_STREQ(test, buf, "pong");
}

static void truncated(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;

	wire_msg(ctx, &m, SCIF_MSG_DISCONNECT);
	wire_expect_drop(test, &m, 0);
	wire_expect_drop(test, &m, 1);
	wire_expect_drop(test, &m, sizeof(m) - 1);
	wire_expect_healthy(test);
}

static void malformed_header(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	u8 buf[sizeof(struct scif_wire_msg) + WIRE_CHUNK + 8] = {};
	struct scif_wire_msg *m = (void *)buf;

	wire_msg(ctx, m, SCIF_MSG_DISCONNECT);
	m->version = SCIF_WIRE_VERSION + 1;
	wire_expect_drop(test, m, sizeof(*m));
	wire_msg(ctx, m, 0);
	wire_expect_drop(test, m, sizeof(*m));
	wire_msg(ctx, m, SCIF_MSG_NR);
	wire_expect_drop(test, m, sizeof(*m));
	wire_msg(ctx, m, 0xff);
	wire_expect_drop(test, m, sizeof(*m));
	/* Reserved bytes must be zero. */
	wire_msg(ctx, m, SCIF_MSG_DISCONNECT);
	m->rsvd[26] = 1;
	wire_expect_drop(test, m, sizeof(*m));
	/* Length field and received size disagree, both ways. */
	wire_msg(ctx, m, SCIF_MSG_DATA);
	m->len = cpu_to_le16(16);
	wire_expect_drop(test, m, sizeof(*m));
	wire_expect_drop(test, m, sizeof(*m) + 32);
	/* More data than the link's chunk size. */
	m->len = cpu_to_le16(WIRE_CHUNK + 8);
	wire_expect_drop(test, m, sizeof(*m) + WIRE_CHUNK + 8);
	/* Data on a message type that carries none. */
	wire_msg(ctx, m, SCIF_MSG_CREDIT);
	m->len = cpu_to_le16(4);
	wire_expect_drop(test, m, sizeof(*m) + 4);
	wire_expect_healthy(test);
}

static void bad_endpoint_ids(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;

	/* Slot right, generation wrong. */
	wire_msg(ctx, &m, SCIF_MSG_DISCONNECT);
	m.dst_ep = cpu_to_le64(ctx->sa->id + (1ULL << 32));
	wire_expect_drop(test, &m, sizeof(m));
	/* No such slot, and zero. */
	m.dst_ep = cpu_to_le64(0xdeadbeefULL);
	wire_expect_drop(test, &m, sizeof(m));
	m.dst_ep = 0;
	wire_expect_drop(test, &m, sizeof(m));
	/* From an endpoint that is not sa's peer. */
	wire_msg(ctx, &m, SCIF_MSG_DISCONNECT);
	m.src_ep = cpu_to_le64(ctx->sb->id + 1);
	wire_expect_drop(test, &m, sizeof(m));
	wire_expect_healthy(test);
}

static void data_out_of_sequence(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	u8 buf[sizeof(struct scif_wire_msg) + 16] = {};
	struct scif_wire_msg *m = (void *)buf;
	char in[8];

	/* Real data first, so that a replay of its offset can be tried. */
	KUNIT_ASSERT_EQ(test, scif_send(ctx->sb, "1234", 4, SCIF_SEND_BLOCK), 4);
	scif_sim_settle(ctx->n.pair);
	wire_msg(ctx, m, SCIF_MSG_DATA);
	m->len = cpu_to_le16(16);
	m->seq = cpu_to_le32(0);		/* a replay */
	wire_expect_drop(test, m, sizeof(buf));
	m->seq = cpu_to_le32(100);		/* a gap */
	wire_expect_drop(test, m, sizeof(buf));
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->sa, in, 8, 0), 4);
	wire_expect_healthy(test);
}

static void data_beyond_credit(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	u8 buf[sizeof(struct scif_wire_msg) + WIRE_CHUNK] = {};
	struct scif_wire_msg *m = (void *)buf;
	u8 *fill;
	u32 seq;
	int sent;

	/* Fill sa's ring with honest data. */
	fill = kunit_kzalloc(test, SCIF_RX_RING_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fill);
	sent = scif_send(ctx->sb, fill, SCIF_RX_RING_SIZE, 0);
	KUNIT_ASSERT_EQ(test, sent, SCIF_RX_RING_SIZE);
	scif_sim_settle(ctx->n.pair);
	seq = ctx->sb->tx_seq;
	/* One more chunk at the right offset overflows the ring. */
	wire_msg(ctx, m, SCIF_MSG_DATA);
	m->len = cpu_to_le16(WIRE_CHUNK);
	m->seq = cpu_to_le32(seq);
	wire_expect_drop(test, m, sizeof(buf));
	KUNIT_EXPECT_EQ(test, ctx->sa->rx_seq - ctx->sa->rx_read,
			(u32)SCIF_RX_RING_SIZE);
	while (scif_recv(ctx->sa, buf, WIRE_CHUNK, 0) > 0)
		;
	wire_expect_healthy(test);
}

static void credit_forged_and_replayed(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	const int q = SCIF_RX_RING_SIZE >> SCIF_CREDIT_SHIFT;
	struct scif_wire_msg m;
	char *buf;

	buf = kunit_kzalloc(test, q, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* sa has sent nothing: any credit claims more than is in flight. */
	wire_msg(ctx, &m, SCIF_MSG_CREDIT);
	m.arg = cpu_to_le32(1);
	wire_expect_drop(test, &m, sizeof(m));
	/*
	 * After a real exchange (a quarter of the ring read, which the
	 * receiver reports) the same credit again is a replay.
	 */
	KUNIT_ASSERT_EQ(test, scif_send(ctx->sa, buf, q, SCIF_SEND_BLOCK), q);
	KUNIT_ASSERT_EQ(test, scif_recv(ctx->sb, buf, q, SCIF_RECV_BLOCK), q);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, ctx->sa->tx_acked, (u32)q);
	m.arg = cpu_to_le32(q);
	wire_expect_drop(test, &m, sizeof(m));
	m.arg = cpu_to_le32(0x80000000);
	wire_expect_drop(test, &m, sizeof(m));
	wire_expect_healthy(test);
}

static void accept_replayed_and_stray(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;
	scif_epd_t e;

	/* The ACCEPT that connected sa's peer, sent again towards... sa. */
	scif_msg_init(&m, SCIF_MSG_ACCEPT, ctx->sb->id, ctx->sa->id,
		      ctx->sa->peer.port, ctx->sa->port, SCIF_RX_RING_SIZE);
	wire_expect_drop(test, &m, sizeof(m));
	/* An ACCEPT for an endpoint that never connected anywhere. */
	e = scif_instance_open(ctx->n.a);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_GT(test, scif_bind(e, 0), 0);
	scif_msg_init(&m, SCIF_MSG_ACCEPT, ctx->sb->id, e->id, 4000, e->port,
		      SCIF_RX_RING_SIZE);
	wire_expect_drop(test, &m, sizeof(m));
	KUNIT_EXPECT_EQ(test, e->state, SCIF_EP_BOUND);
	/* A ring size out of bounds. */
	scif_msg_init(&m, SCIF_MSG_ACCEPT, ctx->sb->id, e->id, 4000, e->port,
		      SCIF_WIRE_RING_MAX + 1);
	wire_expect_drop(test, &m, sizeof(m));
	scif_close(e);
	wire_expect_healthy(test);
}

static void reject_out_of_state(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;

	/* sa is connected, not connecting. */
	scif_msg_init(&m, SCIF_MSG_REJECT, 0, ctx->sa->id, ctx->sa->peer.port,
		      ctx->sa->port, ECONNREFUSED);
	wire_expect_drop(test, &m, sizeof(m));
	/* Only ECONNREFUSED and ENOMEM are reasons. */
	m.arg = cpu_to_le32(EPERM);
	wire_expect_drop(test, &m, sizeof(m));
	wire_expect_healthy(test);
}

/*
 * A REJECT gives the connect it answers its reason: ENOMEM, from a node
 * that had no memory for the request, as well as ECONNREFUSED.
 */
static void reject_enomem(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_port_id dst = { .node = 1 };
	struct scif_wire_msg m;
	scif_epd_t l, e;
	int port;

	l = scif_instance_open(ctx->n.b);
	KUNIT_ASSERT_NOT_NULL(test, l);
	port = scif_bind(l, 0);
	KUNIT_ASSERT_GE(test, port, SCIF_PORT_RSVD);
	KUNIT_ASSERT_EQ(test, scif_listen(l, 1), 0);
	dst.port = port;
	e = scif_instance_open(ctx->n.a);
	KUNIT_ASSERT_NOT_NULL(test, e);
	/* Queued on @l, never accepted: only the forged answer comes. */
	KUNIT_ASSERT_EQ(test, scif_epd_connect_nb(e, &dst), -EINPROGRESS);
	scif_sim_settle(ctx->n.pair);
	KUNIT_ASSERT_EQ(test, l->nreq, 1);
	scif_msg_init(&m, SCIF_MSG_REJECT, 0, e->id, port, e->port, ENOMEM);
	m.seq = cpu_to_le32(e->conn_gen);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, &m,
					      sizeof(m)), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), -ENOMEM);
	scif_close(e);
	scif_close(l);
	wire_expect_healthy(test);
}

static void connreq_malformed_and_replayed(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;

	/* Port 0 on either side, a dst_ep, absurd ring sizes. */
	scif_msg_init(&m, SCIF_MSG_CONNREQ, 0x100000001ULL, 0, 4000, 0,
		      SCIF_RX_RING_SIZE);
	wire_expect_drop(test, &m, sizeof(m));
	scif_msg_init(&m, SCIF_MSG_CONNREQ, 0x100000001ULL, 0, 0, ctx->lport,
		      SCIF_RX_RING_SIZE);
	wire_expect_drop(test, &m, sizeof(m));
	scif_msg_init(&m, SCIF_MSG_CONNREQ, 0x100000001ULL, 5, 4000,
		      ctx->lport, SCIF_RX_RING_SIZE);
	wire_expect_drop(test, &m, sizeof(m));
	scif_msg_init(&m, SCIF_MSG_CONNREQ, 0x100000001ULL, 0, 4000,
		      ctx->lport, 1);
	wire_expect_drop(test, &m, sizeof(m));
	/* A good request is queued once; the same one again is a replay. */
	scif_msg_init(&m, SCIF_MSG_CONNREQ, 0x100000001ULL, 0, 4000,
		      ctx->lport, SCIF_RX_RING_SIZE);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, &m,
					      sizeof(m)), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 1);
	wire_expect_drop(test, &m, sizeof(m));
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 1);
	/* The same endpoint's next connect is a new request, replayed too. */
	spin_lock(&ctx->l->lock);
	ctx->l->backlog = 2;
	spin_unlock(&ctx->l->lock);
	m.seq = cpu_to_le32(1);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, &m,
					      sizeof(m)), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 2);
	wire_expect_drop(test, &m, sizeof(m));
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 2);
	wire_expect_healthy(test);
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * An endpoint of node 1 as scif_connect() leaves it once its CONNREQ to
 * the listener is on the way (generation 7), and that CONNREQ in @m.
 */
static scif_epd_t wire_connecting(struct kunit *test, struct scif_wire_msg *m)
{
	struct wire_ctx *ctx = test->priv;
	scif_epd_t e;
	int port;

	e = scif_instance_open(ctx->n.b);
	KUNIT_ASSERT_NOT_NULL(test, e);
	port = scif_bind(e, 0);
	KUNIT_ASSERT_GE(test, port, SCIF_PORT_RSVD);
	spin_lock(&e->lock);
	e->state = SCIF_EP_CONNECTING;
	e->peer.node = 0;
	e->peer.port = ctx->lport;
	e->conn_gen = 7;
	spin_unlock(&e->lock);
	scif_msg_init(m, SCIF_MSG_CONNREQ, e->id, 0, port, ctx->lport,
		      SCIF_RX_RING_SIZE);
	m->seq = cpu_to_le32(7);
	return e;
}

/*
 * How many fault-injection points an allocation the size of a connection
 * request passes on this thread: its own, and those of the debug hooks
 * that follow a success (kmemleak allocates a record of each object).
 */
static unsigned int wire_alloc_points(void)
{
	struct scif_conreq *p;
	unsigned int left;

	current->fail_nth = 1000;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	left = current->fail_nth;
	current->fail_nth = 0;
	kfree(p);
	return 1000 - left;
}
#endif

/*
 * A CONNREQ whose queue entry cannot be allocated is refused with ENOMEM,
 * not dropped: the requester's connect ends at once with that error.
 */
static void connreq_enomem_refused(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;
	s64 drops = wire_drops(ctx);
	scif_epd_t e = wire_connecting(test, &m);
	int ret;

	/* The first allocation of this thread, the request's entry, fails. */
	current->fail_nth = 1;
	ret = scif_handle_connreq(ctx->n.a, 1, &m, NULL, 0);
	KUNIT_EXPECT_EQ(test, current->fail_nth, 0U);
	current->fail_nth = 0;
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e->state), SCIF_EP_BOUND);
	KUNIT_EXPECT_EQ(test, e->conn_err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, wire_drops(ctx), drops);
	scif_close(e);
	wire_expect_healthy(test);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

/*
 * An accept that cannot create the new endpoint refuses the request with
 * ENOMEM, and returns ENOMEM itself; the listener goes on.
 */
static void accept_enomem_refused(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	struct wire_ctx *ctx = test->priv;
	struct scif_port_id peer;
	struct scif_wire_msg m;
	s64 drops = wire_drops(ctx);
	scif_epd_t e = wire_connecting(test, &m), nep = NULL;
	int ret;

	KUNIT_ASSERT_EQ(test, scif_handle_connreq(ctx->n.a, 1, &m, NULL, 0),
			0);
	KUNIT_ASSERT_EQ(test, ctx->l->nreq, 1);
	/* The accept's first allocation, the new endpoint, fails. */
	current->fail_nth = 1;
	ret = scif_accept(ctx->l, &peer, &nep, 0);
	KUNIT_EXPECT_EQ(test, current->fail_nth, 0U);
	current->fail_nth = 0;
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_NULL(test, nep);
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e->state), SCIF_EP_BOUND);
	KUNIT_EXPECT_EQ(test, e->conn_err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, wire_drops(ctx), drops);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->l->state), SCIF_EP_LISTENING);
	scif_close(e);
	wire_expect_healthy(test);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

/*
 * A CONNREQ that the instance's hash of requests cannot take is refused
 * with ENOMEM as well. This reaches the refusal in scif_handle_connreq()
 * after rhashtable_lookup_insert_fast() failed with -ENOMEM (not the one
 * for its own allocation): the table is filled beyond its size while the
 * test holds the table's mutex, so that the deferred worker cannot grow
 * it, and the next insert, which must then allocate a larger table itself
 * (GFP_ATOMIC), is failed. That allocation is the first after the
 * request's own and those of its debug records (wire_alloc_points()).
 * Once the worker is let go, the same requester's next connect is queued.
 *
 * A debug allocation of its own (KASAN's stack depot taking a new pool) may
 * come first and take the injected failure; the table then grows and the
 * request is queued. That attempt proves nothing: it is undone (the
 * request accepted, both ends closed) and made again, at most
 * %WIRE_HASH_TRIES times.
 */
#define WIRE_HASH_TRIES	3

static void connreq_hash_enomem_refused(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	struct wire_ctx *ctx = test->priv;
	struct scif_port_id dst = { .node = 0, .port = ctx->lport }, peer;
	struct rhashtable *ht = &ctx->n.a->conreqs;
	unsigned int points = wire_alloc_points();
	int port, ret, nr = 0, size, full, after, try;
	struct scif_wire_msg m, fill;
	s64 drops = wire_drops(ctx);
	unsigned int left;
	scif_epd_t e, l, nep;
	bool grown;

	/* A second listener, whose queued requests fill the table. */
	l = scif_instance_open(ctx->n.a);
	KUNIT_ASSERT_NOT_NULL(test, l);
	port = scif_bind(l, 0);
	KUNIT_ASSERT_GE(test, port, SCIF_PORT_RSVD);
	KUNIT_ASSERT_EQ(test, scif_listen(l, 1024), 0);

	for (try = 1; ; try++) {
		e = wire_connecting(test, &m);
		/* Nothing may fail while the mutex is held: check after. */
		mutex_lock(&ht->mutex);
		size = rht_dereference(ht->tbl, ht)->size;
		for (ret = 0; !ret && atomic_read(&ht->nelems) <= size; nr++) {
			scif_msg_init(&fill, SCIF_MSG_CONNREQ,
				      0x400000000ULL + nr, 0, 4000, port,
				      SCIF_RX_RING_SIZE);
			ret = scif_handle_connreq(ctx->n.a, 1, &fill, NULL, 0);
		}
		full = atomic_read(&ht->nelems);
		current->fail_nth = points + 1;
		ret = scif_handle_connreq(ctx->n.a, 1, &m, NULL, 0);
		left = current->fail_nth;
		current->fail_nth = 0;
		after = atomic_read(&ht->nelems);
		grown = !!rcu_access_pointer(rht_dereference(ht->tbl,
							     ht)->future_tbl);
		mutex_unlock(&ht->mutex);

		KUNIT_ASSERT_EQ(test, full, size + 1);
		KUNIT_ASSERT_EQ(test, l->nreq, nr);
		/* Queued past a failure taken elsewhere: undo, try again. */
		if (try == WIRE_HASH_TRIES || ret || !grown ||
		    after != full + 1 || ctx->l->nreq != 1)
			break;
		scif_sim_settle(ctx->n.pair);
		KUNIT_ASSERT_EQ(test, scif_accept(ctx->l, &peer, &nep, 0), 0);
		scif_sim_settle(ctx->n.pair);
		scif_close(nep);
		scif_close(e);
		scif_sim_settle(ctx->n.pair);
		kunit_info(test, "try %d: the injected failure was taken elsewhere\n",
			   try);
	}
	KUNIT_EXPECT_EQ(test, left, 0U);
	KUNIT_EXPECT_FALSE(test, grown);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, after, full);
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e->state), SCIF_EP_BOUND);
	KUNIT_EXPECT_EQ(test, e->conn_err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, wire_drops(ctx), drops);

	/* The table takes the next request, with the others still queued. */
	KUNIT_ASSERT_EQ(test, scif_epd_connect_nb(e, &dst), -EINPROGRESS);
	scif_sim_settle(ctx->n.pair);
	KUNIT_ASSERT_EQ(test, ctx->l->nreq, 1);
	KUNIT_ASSERT_EQ(test, scif_accept(ctx->l, &peer, &nep, 0), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, scif_connect(e, &dst), (int)e->port);
	KUNIT_EXPECT_EQ(test, READ_ONCE(e->state), SCIF_EP_CONNECTED);
	KUNIT_EXPECT_EQ(test, peer.port, e->port);
	scif_close(nep);
	scif_close(e);
	scif_close(l);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, atomic_read(&ht->nelems), 0);
	wire_expect_healthy(test);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

/*
 * A peer flooding a listener with requests gets them refused beyond the
 * backlog; the refusals are answers, not drops, and nothing is queued
 * twice.
 */
static void connreq_flood_bounded(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;
	s64 drops = wire_drops(ctx);
	u64 id;

	for (id = 1; id <= 64; id++) {
		scif_msg_init(&m, SCIF_MSG_CONNREQ, 0x300000000ULL | id, 0,
			      4000, ctx->lport, SCIF_RX_RING_SIZE);
		KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a,
						      &m, sizeof(m)), 0);
	}
	scif_sim_settle(ctx->n.pair);
	/* The listener of this suite has a backlog of 1. */
	KUNIT_EXPECT_EQ(test, ctx->l->nreq, 1);
	KUNIT_EXPECT_EQ(test, wire_drops(ctx), drops);
	KUNIT_EXPECT_EQ(test,
			atomic_read(&ctx->n.a->conreqs.nelems), 1);
	wire_expect_healthy(test);
}

static void disconnect_replayed(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	struct scif_wire_msg m;

	wire_msg(ctx, &m, SCIF_MSG_DISCONNECT);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, &m,
					      sizeof(m)), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, ctx->sa->state, SCIF_EP_DISCONNECTED);
	/* Once is a reset; twice is out of state. */
	wire_expect_drop(test, &m, sizeof(m));
	KUNIT_EXPECT_EQ(test, scif_send(ctx->sa, "x", 1, 0), -ECONNRESET);
}

/* Deliver @m with @len bytes of data to node 0; expect it dropped. */
static void wire_expect_drop_data(struct kunit *test,
				  const struct scif_wire_msg *m, size_t len)
{
	u8 buf[sizeof(*m) + 8] = {};

	memcpy(buf, m, sizeof(*m));
	((struct scif_wire_msg *)buf)->len = cpu_to_le16(len);
	wire_expect_drop(test, buf, sizeof(*m) + len);
}

/*
 * The dispatcher enforces every row of the table beside the message enum
 * (scif_msg_rule()): a non-zero seq on each type that carries none, and
 * data on each type that takes none, are dropped. CREDIT and DISCONNECT
 * are built so that only the broken rule makes them wrong: the same
 * message without the fault is then taken.
 */
static void msg_rules_enforced(struct kunit *test)
{
	struct wire_ctx *ctx = test->priv;
	const struct scif_msg_rule *rule;
	struct scif_wire_msg m;
	char buf[8] = {};
	unsigned int type, seq = 0, data = 0;

	for (type = 0; type <= U8_MAX; type++) {
		rule = scif_msg_rule(type);
		wire_msg(ctx, &m, type);
		if (!rule) {
			KUNIT_EXPECT_TRUE(test, !type || type >= SCIF_MSG_NR);
			wire_expect_drop(test, &m, sizeof(m));
			continue;
		}
		KUNIT_EXPECT_LT(test, type, (unsigned int)SCIF_MSG_NR);
		if (!rule->seq) {
			m.seq = cpu_to_le32(1);
			wire_expect_drop(test, &m, sizeof(m));
			m.seq = 0;
			seq++;
		}
		if (!rule->data) {
			wire_expect_drop_data(test, &m, sizeof(buf));
			data++;
		}
	}
	/* Some of each kind, or the walk proves nothing. */
	KUNIT_EXPECT_GT(test, seq, 0U);
	KUNIT_EXPECT_GT(test, data, 0U);

	/* Bytes read but fewer than the credit rule reports: none sent. */
	KUNIT_ASSERT_EQ(test, scif_send(ctx->sa, buf, sizeof(buf),
					SCIF_SEND_BLOCK), (int)sizeof(buf));
	KUNIT_ASSERT_EQ(test, scif_recv(ctx->sb, buf, sizeof(buf),
					SCIF_RECV_BLOCK), (int)sizeof(buf));
	scif_sim_settle(ctx->n.pair);
	KUNIT_ASSERT_EQ(test, ctx->sa->tx_acked, 0U);
	wire_msg(ctx, &m, SCIF_MSG_CREDIT);
	m.arg = cpu_to_le32(sizeof(buf));
	m.seq = cpu_to_le32(1);
	wire_expect_drop(test, &m, sizeof(m));
	KUNIT_EXPECT_EQ(test, ctx->sa->tx_acked, 0U);
	m.seq = 0;
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, &m,
					      sizeof(m)), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, ctx->sa->tx_acked, (u32)sizeof(buf));

	wire_expect_healthy(test);
	wire_msg(ctx, &m, SCIF_MSG_DISCONNECT);
	wire_expect_drop_data(test, &m, sizeof(buf));
	KUNIT_EXPECT_EQ(test, ctx->sa->state, SCIF_EP_CONNECTED);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, &m,
					      sizeof(m)), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, ctx->sa->state, SCIF_EP_DISCONNECTED);
}

static struct kunit_case scif_wire_cases[] = {
	KUNIT_CASE(truncated),
	KUNIT_CASE(malformed_header),
	KUNIT_CASE(bad_endpoint_ids),
	KUNIT_CASE(data_out_of_sequence),
	KUNIT_CASE(data_beyond_credit),
	KUNIT_CASE(credit_forged_and_replayed),
	KUNIT_CASE(accept_replayed_and_stray),
	KUNIT_CASE(reject_out_of_state),
	KUNIT_CASE(reject_enomem),
	KUNIT_CASE(connreq_enomem_refused),
	KUNIT_CASE(accept_enomem_refused),
	KUNIT_CASE(connreq_hash_enomem_refused),
	KUNIT_CASE(connreq_malformed_and_replayed),
	KUNIT_CASE(connreq_flood_bounded),
	KUNIT_CASE(disconnect_replayed),
	KUNIT_CASE(msg_rules_enforced),
	{}
};

static struct kunit_suite scif_wire_suite = {
	.name = "scif_wire",
	.init = wire_init,
	.exit = wire_exit,
	.test_cases = scif_wire_cases,
};

kunit_test_suite(scif_wire_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF wire protocol robustness");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
