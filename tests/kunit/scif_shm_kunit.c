// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for streams through shared memory (core/scif_shm.c): two
 * nodes joined by the simulated link, which reaches the peer's memory, so
 * that connections offer their rings to each other. Covers the data path,
 * the wake-ups of sleeping readers and senders, peers that publish
 * impossible indices, and the quarantine of memory a closed endpoint
 * offered until its peer lets go of it.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_shm.h"
#include "core/scif_wire.h"
#include "scif_kunit_util.h"
#include "scif_shm_kunit_util.h"

static void shm_both_sides_active(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, shm_of(n->c));
	KUNIT_ASSERT_NOT_NULL(test, shm_of(n->s));
	KUNIT_EXPECT_TRUE(test, shm_of(n->c)->active);
	KUNIT_EXPECT_TRUE(test, shm_of(n->s)->active);
}

/* Four rings' worth, larger than one piece, both ways, checked. */
static void shm_stream_both_ways(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	int len = 4 * SCIF_RX_RING_SIZE + 3;
	struct scif_kt_xfer x = { .len = len };
	u8 *in = vzalloc(len);
	int i;

	x.buf = vmalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, x.buf);
	for (i = 0; i < len; i++)
		x.buf[i] = i * 7 + (i >> 11);
	x.epd = n->c;
	scif_kt_stream(test, &x, n->s, in, 10000);
	memset(in, 0, len);
	x.epd = n->s;
	scif_kt_stream(test, &x, n->c, in, 10000);
	vfree(in);
	vfree(x.buf);
}

static int shm_recv_one(void *arg)
{
	u8 b = 0;
	int ret = scif_recv(arg, &b, 1, SCIF_RECV_BLOCK);

	return ret == 1 ? b : ret;
}

/* A reader asleep on an empty ring is woken by the first byte. */
static void shm_sleeping_reader_woken(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_kt_call call;
	u8 b = 0x5a;

	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, shm_recv_one, n->s), 0);
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_asleep(&call, 5000));
	KUNIT_EXPECT_EQ(test, scif_send(n->c, &b, 1, SCIF_SEND_BLOCK), 1);
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 2000));
	KUNIT_EXPECT_EQ(test, call.ret, 0x5a);
}

/* A sender asleep on a full ring is woken when the reader makes room. */
static void shm_sleeping_sender_woken(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	int len = SCIF_RX_RING_SIZE + 100, got = 0, ret;
	struct scif_kt_xfer x = { .epd = n->c, .len = len };
	struct scif_kt_call call;
	u8 *in = vzalloc(len);

	x.buf = vzalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, x.buf);
	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, scif_kt_send, &x), 0);
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_asleep(&call, 5000));
	while (got < len) {
		ret = scif_recv(n->s, in + got, len - got, SCIF_RECV_BLOCK);
		if (ret <= 0)
			break;
		got += ret;
	}
	KUNIT_EXPECT_EQ(test, got, len);
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 2000));
	KUNIT_EXPECT_EQ(test, call.ret, len);
	vfree(in);
	vfree(x.buf);
}

/* A write index beyond the ring: the reader resets the connection. */
static void shm_lying_write_index(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	u8 buf[8];

	WRITE_ONCE(shm_of(n->s)->ctl->written,
		   cpu_to_le32(SCIF_RX_RING_SIZE + 1));
	KUNIT_EXPECT_EQ(test, scif_recv(n->s, buf, sizeof(buf), 0),
			-ECONNRESET);
	KUNIT_EXPECT_TRUE(test, scif_epd_poll(n->s, NULL, NULL) & EPOLLHUP);
	/* The peer hears of it, and stops too. */
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_for(scif_send(n->c, buf, 1, 0) ==
					     -ECONNRESET));
}

/* A write index that goes back is as impossible. */
static void shm_write_index_back(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	u8 buf[8] = {};

	KUNIT_ASSERT_EQ(test, scif_send(n->c, buf, 8, SCIF_SEND_BLOCK), 8);
	KUNIT_ASSERT_EQ(test, scif_recv(n->s, buf, 4, SCIF_RECV_BLOCK), 4);
	WRITE_ONCE(shm_of(n->s)->ctl->written, cpu_to_le32(2));
	KUNIT_EXPECT_EQ(test, scif_recv(n->s, buf, 4, 0), -ECONNRESET);
}

/* Credit for bytes never sent: the sender resets the connection. */
static void shm_lying_credit(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	u8 buf[8] = {};

	WRITE_ONCE(shm_of(n->c)->ctl->consumed, cpu_to_le32(100));
	KUNIT_EXPECT_EQ(test, scif_send(n->c, buf, 8, SCIF_SEND_BLOCK),
			-ECONNRESET);
	KUNIT_EXPECT_TRUE(test, scif_epd_poll(n->c, NULL, NULL) & EPOLLHUP);
}

static s64 shm_drops(struct scif_instance *si, u16 node)
{
	struct scif_node_stats st;

	scif_node_stats(si, node, &st);
	return atomic64_read(&st.rx_drops);
}

/*
 * On a shared-memory stream, DATA and CREDIT messages are lies, and so
 * are WAKE and RELEASE from anyone but the peer; all are dropped and the
 * stream goes on.
 */
static void shm_stray_messages_dropped(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_endpt *c = n->c, *s = n->s;
	u8 buf[sizeof(struct scif_wire_msg) + 8] = {};
	struct scif_wire_msg *m = (void *)buf;
	s64 before = shm_drops(n->a, 1);
	u8 in[4];

	scif_msg_init(m, SCIF_MSG_DATA, s->id, c->id, s->port, c->port, 0);
	m->len = cpu_to_le16(8);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(n->pair, n->a, buf, sizeof(buf)),
			0);
	scif_msg_init(m, SCIF_MSG_CREDIT, s->id, c->id, s->port, c->port, 0);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(n->pair, n->a, m, sizeof(*m)),
			0);
	scif_msg_init(m, SCIF_MSG_WAKE, s->id + 1, c->id, s->port, c->port, 0);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(n->pair, n->a, m, sizeof(*m)),
			0);
	scif_msg_init(m, SCIF_MSG_RELEASE, s->id, 0, s->port, c->port, 0);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(n->pair, n->a, m, sizeof(*m)),
			0);
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_EQ(test, shm_drops(n->a, 1), before + 4);
	KUNIT_EXPECT_EQ(test, c->rx_seq, 0U);
	KUNIT_EXPECT_EQ(test, scif_send(n->c, "abcd", 4, SCIF_SEND_BLOCK), 4);
	KUNIT_EXPECT_EQ(test, scif_recv(n->s, in, 4, SCIF_RECV_BLOCK), 4);
	KUNIT_EXPECT_EQ(test, memcmp(in, "abcd", 4), 0);
}

/*
 * The memory a closed endpoint offered waits until its peer says it no
 * longer writes it: at once if the peer closed first, else after the
 * peer took in our DISCONNECT and sent RELEASE.
 */
static void shm_close_quarantine(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	u8 buf[4] = { 1, 2, 3, 4 };

	KUNIT_ASSERT_EQ(test, scif_send(n->c, buf, 4, SCIF_SEND_BLOCK), 4);
	scif_close(n->c);
	n->c = NULL;
	/* The peer answers our DISCONNECT with RELEASE: nothing waits. */
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_for(!scif_shm_quarantined(n->a, 1)));
	/* Bytes sent before the close are still there to read. */
	KUNIT_EXPECT_EQ(test, scif_recv(n->s, buf, 4, SCIF_RECV_BLOCK), 4);
	KUNIT_EXPECT_EQ(test, buf[3], 4);
	KUNIT_EXPECT_EQ(test, scif_recv(n->s, buf, 4, 0), -ECONNRESET);
	scif_close(n->s);
	n->s = NULL;
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->b, 0), 0U);
}

/*
 * A connect left pending: the memory it offered waits after the close,
 * until the listener refuses the request (REJECT) or, @lose, until the
 * node is lost.
 */
static void shm_pending_offer(struct kunit *test, bool lose)
{
	struct scif_kt_nodes *n = test->priv;
	scif_epd_t l, c = shm_pending_connect(test, &l);

	scif_close(c);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 1U);
	if (lose) {
		scif_sim_pair_destroy(n->pair);
		n->pair = NULL;
	} else {
		scif_close(l);
		l = NULL;
		KUNIT_EXPECT_TRUE(test,
				  scif_kt_wait_for(!scif_shm_quarantined(n->a, 1)));
	}
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
	if (l)
		scif_close(l);
}

static void shm_pending_offer_rejected(struct kunit *test)
{
	shm_pending_offer(test, false);
}

static void shm_pending_offer_node_lost(struct kunit *test)
{
	shm_pending_offer(test, true);
}

/*
 * Forged ACCEPTs for a connect that offered its memory: offers outside
 * what the link reaches are refused and the connect goes on waiting; an
 * ACCEPT with no offer connects it by messages, and its memory, which
 * the acceptor said it will not write, goes with the endpoint.
 */
static void shm_accept_forged(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	scif_epd_t l, c = shm_pending_connect(test, &l);
	struct scif_endpt *ep = c;
	struct scif_wire_shm o = {};
	struct scif_wire_msg m;

	scif_msg_init(&m, SCIF_MSG_ACCEPT, 0x7ab00001, ep->id, ep->peer.port,
		      ep->port, SZ_64K);
	m.seq = cpu_to_le32(ep->conn_gen);
	o.ring = cpu_to_le64(PAGE_SIZE + 8);	/* not page aligned */
	KUNIT_EXPECT_EQ(test, scif_handle_accept(n->a, 1, &m, &o, sizeof(o)),
			-EPROTO);
	o.ring = cpu_to_le64(U64_MAX & PAGE_MASK);	/* no such memory */
	KUNIT_EXPECT_EQ(test, scif_handle_accept(n->a, 1, &m, &o, sizeof(o)),
			-EPROTO);
	o.ring = 0;
	o.ctl = cpu_to_le64(3);			/* misaligned control block */
	KUNIT_EXPECT_EQ(test, scif_handle_accept(n->a, 1, &m, &o, sizeof(o)),
			-EPROTO);
	/* A torn offer. */
	KUNIT_EXPECT_EQ(test, scif_handle_accept(n->a, 1, &m, &o, 8), -EPROTO);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->state), SCIF_EP_CONNECTING);
	KUNIT_EXPECT_FALSE(test, shm_of(c)->active);
	/* No offer: connected, by messages. */
	KUNIT_EXPECT_EQ(test, scif_handle_accept(n->a, 1, &m, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->state), SCIF_EP_CONNECTED);
	KUNIT_EXPECT_FALSE(test, shm_of(c)->active);
	scif_close(c);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
	scif_close(l);
}

/*
 * Memory offered to a node and never released fills its quarantine; at
 * SCIF_SHM_QUARANTINE_MAX the node is offered no more, and one release
 * makes room again. Node loss (the suite's exit) frees the rest.
 */
static void shm_quarantine_full(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_wire_shm w;
	struct scif_shm *shm;
	unsigned int i;

	for (i = 0; i < SCIF_SHM_QUARANTINE_MAX; i++) {
		shm = scif_shm_alloc(n->a, 1, 0x7ab00000 + i, SZ_4K);
		KUNIT_ASSERT_NOT_NULL(test, shm);
		scif_shm_offer(shm, &w, 1);
		scif_shm_put(n->a, shm);
	}
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1),
			SCIF_SHM_QUARANTINE_MAX);
	KUNIT_EXPECT_NULL(test, scif_shm_alloc(n->a, 1, 0x7ab10000, SZ_4K));
	/* Another node's quarantine is its own. */
	shm = scif_shm_alloc(n->b, 0, 0x7ab10001, SZ_4K);
	KUNIT_EXPECT_NOT_NULL(test, shm);
	scif_shm_put(n->b, shm);
	/* Another connect of the endpoint, or another writer, is not it. */
	KUNIT_EXPECT_FALSE(test,
			   scif_shm_unquarantine(n->a, 1, 0x7ab00000, 2, 0));
	KUNIT_EXPECT_TRUE(test,
			  scif_shm_unquarantine(n->a, 1, 0x7ab00000, 1, 0));
	KUNIT_EXPECT_FALSE(test,
			   scif_shm_unquarantine(n->a, 1, 0x7ab00000, 1, 0));
	shm = scif_shm_alloc(n->a, 1, 0x7ab10002, SZ_4K);
	KUNIT_EXPECT_NOT_NULL(test, shm);
	scif_shm_put(n->a, shm);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1),
			SCIF_SHM_QUARANTINE_MAX - 1);
}

/*
 * The peer's RELEASE may come back while the closed endpoint still lives
 * (a call in progress holds it): the memory waits in quarantine from the
 * close on, so the answer finds it, and the last reference frees it.
 */
static void shm_release_while_ep_lives(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_endpt *c = n->c, *s = n->s;

	kref_get(&c->ref);
	scif_close(n->c);
	n->c = NULL;
	KUNIT_EXPECT_TRUE(test,
			  scif_kt_wait_for(READ_ONCE(s->state) ==
				       SCIF_EP_DISCONNECTED));
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
	scif_ep_put(c);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
}

/* @len patterned bytes from @a to @b, then back, each checked. */
static void shm_stream_check(struct kunit *test, scif_epd_t a, scif_epd_t b,
			     int len)
{
	struct scif_kt_xfer x = { .len = len };
	u8 *in = vzalloc(len);
	int i;

	x.buf = vmalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, x.buf);
	for (i = 0; i < len; i++)
		x.buf[i] = i * 13 + (i >> 9);
	x.epd = a;
	scif_kt_stream(test, &x, b, in, 10000);
	memset(in, 0, len);
	x.epd = b;
	scif_kt_stream(test, &x, a, in, 10000);
	vfree(in);
	vfree(x.buf);
}

/* How the request of a connect that gave up is answered in the end. */
enum shm_late {
	SHM_LATE_ACCEPT,
	SHM_LATE_ACCEPT_CLOSED,
	SHM_LATE_REJECT,
	SHM_LATE_NODE_LOST,
};

/*
 * A connect gave up with its offer still out, and the endpoint connects
 * again, to another listener of the same node. The new connect must not
 * offer the same memory: it goes by messages, and the earlier memory waits
 * in quarantine. Its request carries the next connect number, so the
 * listener's node queues it beside the first rather than take it for a
 * replay. Then the earlier request is answered late:
 *
 * - accepted: the acceptor writes into the earlier memory, and its ACCEPT,
 *   which does not answer the connect in flight, is reset. The acceptor
 *   stops and answers RELEASE, which must free the earlier memory although
 *   its endpoint lives on;
 * - accepted, and the acceptor closes before it hears of the reset: its
 *   DISCONNECT must free the earlier memory in the same way;
 * - refused (its listener closes): the REJECT must free the earlier memory
 *   and leave the connect in flight alone;
 * - the node is lost: the memory goes with it.
 *
 * Unless the node was lost, the second listener then accepts, and the
 * connection carries data both ways.
 */
static void shm_reconnect_offer_out(struct kunit *test, enum shm_late late)
{
	struct scif_kt_nodes *n = test->priv;
	scif_epd_t l1, l2, s1 = NULL, s2 = NULL, c;
	struct scif_port_id dst, peer;
	struct scif_endpt *ep, *sp;
	struct scif_shm *old;
	int port2, ret;

	c = shm_pending_connect(test, &l1);
	ep = c;
	old = shm_of(c);
	KUNIT_ASSERT_NOT_NULL(test, old);
	/* Held by the test, to see where the other references went. */
	kref_get(&old->ref);
	l2 = shm_listener(test, n->b, &port2);
	shm_connect_gave_up(c);

	dst.node = 1;
	dst.port = port2;
	KUNIT_ASSERT_EQ(test, scif_epd_connect_nb(c, &dst), -EINPROGRESS);
	KUNIT_EXPECT_NULL(test, shm_of(c));
	KUNIT_EXPECT_TRUE(test, old->retired);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 1U);
	scif_sim_settle(n->pair);
	/* Both requests are queued, each on its listener. */
	KUNIT_EXPECT_EQ(test, ((struct scif_endpt *)l1)->nreq, 1);
	KUNIT_EXPECT_EQ(test, ((struct scif_endpt *)l2)->nreq, 1);

	switch (late) {
	case SHM_LATE_NODE_LOST:
		scif_sim_pair_destroy(n->pair);
		n->pair = NULL;
		KUNIT_EXPECT_EQ(test, READ_ONCE(ep->state), SCIF_EP_BOUND);
		break;
	case SHM_LATE_ACCEPT:
		KUNIT_ASSERT_EQ(test,
				scif_accept(l1, &peer, &s1, SCIF_ACCEPT_SYNC),
				0);
		sp = s1;
		KUNIT_EXPECT_TRUE(test, sp->shm && sp->shm->active);
		/* Into the earlier memory, if the reset has not come yet. */
		ret = scif_send(s1, "late", 4, 0);
		KUNIT_EXPECT_TRUE(test, ret == 4 || ret == -ECONNRESET);
		scif_sim_settle(n->pair);
		KUNIT_EXPECT_EQ(test, READ_ONCE(sp->state),
				SCIF_EP_DISCONNECTED);
		break;
	case SHM_LATE_ACCEPT_CLOSED:
		KUNIT_ASSERT_EQ(test,
				scif_accept(l1, &peer, &s1, SCIF_ACCEPT_SYNC),
				0);
		scif_close(s1);
		s1 = NULL;
		scif_sim_settle(n->pair);
		KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->b, 0), 0U);
		break;
	case SHM_LATE_REJECT:
		scif_close(l1);
		l1 = NULL;
		scif_sim_settle(n->pair);
		break;
	}
	if (late != SHM_LATE_NODE_LOST) {
		KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
		/* The late answer took no part in the connect in flight. */
		KUNIT_EXPECT_EQ(test, READ_ONCE(ep->state), SCIF_EP_CONNECTING);
		KUNIT_EXPECT_EQ(test, ep->peer_ep, 0ULL);
		KUNIT_EXPECT_NULL(test, shm_of(c));

		KUNIT_ASSERT_EQ(test,
				scif_accept(l2, &peer, &s2, SCIF_ACCEPT_SYNC),
				0);
		KUNIT_EXPECT_TRUE(test, scif_kt_wait_for(READ_ONCE(ep->state) ==
						     SCIF_EP_CONNECTED));
		KUNIT_EXPECT_EQ(test, scif_epd_connect_nb(c, &dst),
				(int)ep->port);
		sp = s2;
		KUNIT_EXPECT_EQ(test, ep->peer_ep, sp->id);
		KUNIT_EXPECT_NULL(test, shm_of(c));
		KUNIT_EXPECT_FALSE(test, sp->shm && sp->shm->active);
		shm_stream_check(test, c, s2, 2 * SCIF_RX_RING_SIZE + 5);
	}
	/* Nothing but the test holds the earlier memory any more. */
	KUNIT_EXPECT_EQ(test, kref_read(&old->ref), 1U);
	KUNIT_EXPECT_TRUE(test, list_empty(&old->qlink));
	scif_shm_put(n->a, old);

	scif_close(c);
	if (s1)
		scif_close(s1);
	if (s2)
		scif_close(s2);
	if (l1)
		scif_close(l1);
	scif_close(l2);
	if (late != SHM_LATE_NODE_LOST) {
		scif_sim_settle(n->pair);
		KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
		KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->b, 0), 0U);
	}
}

static void shm_reconnect_late_accept(struct kunit *test)
{
	shm_reconnect_offer_out(test, SHM_LATE_ACCEPT);
}

static void shm_reconnect_acceptor_closed(struct kunit *test)
{
	shm_reconnect_offer_out(test, SHM_LATE_ACCEPT_CLOSED);
}

static void shm_reconnect_late_reject(struct kunit *test)
{
	shm_reconnect_offer_out(test, SHM_LATE_REJECT);
}

static void shm_reconnect_node_lost(struct kunit *test)
{
	shm_reconnect_offer_out(test, SHM_LATE_NODE_LOST);
}

/*
 * A peer that sends RELEASE for a connected endpoint whose memory it still
 * writes: the stream goes on unharmed both ways, and on close the memory,
 * which the peer said it let go of, is freed with the endpoint rather than
 * kept in quarantine.
 */
static void shm_release_live_ep(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_endpt *c = n->c, *s = n->s;
	s64 drops = shm_drops(n->a, 1);
	struct scif_shm *shm = c->shm;
	struct scif_wire_msg m;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, shm);
	KUNIT_ASSERT_TRUE(test, shm->active);
	scif_msg_init(&m, SCIF_MSG_RELEASE, s->id, c->id, s->port, c->port, 0);
	m.seq = cpu_to_le32(c->conn_gen);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(n->pair, n->a, &m, sizeof(m)),
			0);
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_EQ(test, shm_drops(n->a, 1), drops);
	KUNIT_EXPECT_TRUE(test, shm->peer_done);
	/* Still the same stream, through shared memory, on both sides. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->state), SCIF_EP_CONNECTED);
	KUNIT_EXPECT_PTR_EQ(test, c->shm, shm);
	KUNIT_EXPECT_TRUE(test, shm->active);
	KUNIT_EXPECT_TRUE(test, shm->remote_ok);
	KUNIT_EXPECT_TRUE(test, s->shm->active);
	shm_stream_check(test, n->c, n->s, 3 * SCIF_RX_RING_SIZE + 7);

	/* Held by the test, to see that the close frees it at once. */
	kref_get(&shm->ref);
	scif_close(n->c);
	n->c = NULL;
	/*
	 * The endpoint lets go with its last reference, which the handling
	 * of a message still under way may hold a moment after the close.
	 */
	for (i = 0; i < 500 && kref_read(&shm->ref) != 1; i++)
		msleep(20);
	KUNIT_EXPECT_FALSE(test, shm->retired);
	KUNIT_EXPECT_EQ(test, kref_read(&shm->ref), 1U);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
	scif_shm_put(n->a, shm);
	/* The peer hears of the close and stops in turn. */
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->state), SCIF_EP_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
}

/*
 * A connect that puts its earlier memory aside quarantines it before the
 * endpoint lets go of it. A RELEASE that comes in between finds the memory
 * both in the endpoint and in quarantine, and must take it out of the
 * quarantine. Here a connected endpoint's memory is put in quarantine by
 * hand to stand for that moment; the stream itself is not used again.
 */
static void shm_release_during_put_aside(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_endpt *c = n->c, *s = n->s;
	struct scif_shm *shm = c->shm;
	struct scif_wire_msg m;

	KUNIT_ASSERT_NOT_NULL(test, shm);
	scif_shm_retire(n->a, shm);
	KUNIT_ASSERT_EQ(test, scif_shm_quarantined(n->a, 1), 1U);
	scif_msg_init(&m, SCIF_MSG_RELEASE, s->id, c->id, s->port, c->port, 0);
	m.seq = cpu_to_le32(c->conn_gen);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(n->pair, n->a, &m, sizeof(m)),
			0);
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_TRUE(test, shm->peer_done);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&shm->qlink));
	/* Only the endpoint holds it now; the close frees it. */
	KUNIT_EXPECT_EQ(test, kref_read(&shm->ref), 1U);
}

static struct kunit_case scif_shm_cases[] = {
	KUNIT_CASE(shm_both_sides_active),
	KUNIT_CASE(shm_stream_both_ways),
	KUNIT_CASE(shm_sleeping_reader_woken),
	KUNIT_CASE(shm_sleeping_sender_woken),
	KUNIT_CASE(shm_lying_write_index),
	KUNIT_CASE(shm_write_index_back),
	KUNIT_CASE(shm_lying_credit),
	KUNIT_CASE(shm_stray_messages_dropped),
	KUNIT_CASE(shm_close_quarantine),
	KUNIT_CASE(shm_pending_offer_rejected),
	KUNIT_CASE(shm_pending_offer_node_lost),
	KUNIT_CASE(shm_accept_forged),
	KUNIT_CASE(shm_quarantine_full),
	KUNIT_CASE(shm_release_while_ep_lives),
	KUNIT_CASE(shm_reconnect_late_accept),
	KUNIT_CASE(shm_reconnect_acceptor_closed),
	KUNIT_CASE(shm_reconnect_late_reject),
	KUNIT_CASE(shm_reconnect_node_lost),
	KUNIT_CASE(shm_release_during_put_aside),
	KUNIT_CASE(shm_release_live_ep),
	{}
};

static struct kunit_suite scif_shm_suite = {
	.name = "scif_shm",
	.init = shm_init,
	.exit = shm_exit,
	.test_cases = scif_shm_cases,
};

kunit_test_suite(scif_shm_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF streams through shared memory");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
