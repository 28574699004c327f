// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for what a stream through shared memory must never expose or
 * free early (core/scif_shm.c, core/scif_shm_view.c): rings handed out
 * with stale bytes in them, memory one connect offered freed on the word
 * about another, a peer's pages mapped around its control block when its
 * page size differs from ours, and WAKEs a process can make the kernel
 * send without bound.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/string.h>

#include "core/scif_core.h"
#include "core/scif_instance.h"
#include "core/scif_endpt.h"
#include "core/scif_shm.h"
#include "core/scif_wire.h"
#include "scif_kunit_util.h"
#include "scif_shm_kunit_util.h"

#define TRUST_RING	SZ_64K
#define TRUST_DIRTY	8

/*
 * Rings are zeroed before the peer or a process can read them: pages of
 * the ring's order are dirtied and freed first, so that the allocator is
 * likely to hand the same ones back.
 */
static void trust_ring_zeroed(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	unsigned int order = get_order(TRUST_RING);
	struct page *dirty[TRUST_DIRTY];
	struct scif_shm *shm;
	int i;

	for (i = 0; i < TRUST_DIRTY; i++) {
		dirty[i] = alloc_pages(GFP_KERNEL, order);
		KUNIT_ASSERT_NOT_NULL(test, dirty[i]);
		memset(page_address(dirty[i]), 0x41, TRUST_RING);
	}
	for (i = 0; i < TRUST_DIRTY; i++)
		__free_pages(dirty[i], order);
	for (i = 0; i < TRUST_DIRTY; i++) {
		shm = scif_shm_alloc(n->a, 1, 0x7ac00000 + i, TRUST_RING);
		KUNIT_ASSERT_NOT_NULL(test, shm);
		KUNIT_EXPECT_NULL(test, memchr_inv(shm->ring, 0, TRUST_RING));
		KUNIT_EXPECT_NULL(test, memchr_inv(shm->ctl, 0, PAGE_SIZE));
		scif_shm_put(n->a, shm);
	}
}

/* Memory a new connect offers again holds nothing of the last peer's. */
static void trust_reused_ring_cleared(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_wire_shm w;
	struct scif_shm *shm;

	shm = scif_shm_alloc(n->a, 1, 0x7ac10000, TRUST_RING);
	KUNIT_ASSERT_NOT_NULL(test, shm);
	scif_shm_offer(shm, &w, 1);
	memset(shm->ring, 0x41, TRUST_RING);
	scif_shm_set_peer_done(shm);
	KUNIT_ASSERT_TRUE(test, scif_shm_reusable(shm));
	scif_shm_reuse(shm);
	KUNIT_EXPECT_NULL(test, memchr_inv(shm->ring, 0, TRUST_RING));
	scif_shm_put(n->a, shm);
}

/*
 * An endpoint keeps its id across connects. Its first connect offered
 * memory to a listener that has not answered; it gave up, connected to a
 * second listener of the same node (by messages, since the first memory
 * is still out), and closed. The second listener's refusal names the
 * second connect: it must leave the first memory in quarantine, because
 * the first listener may still accept and write into it. When it does,
 * the closed endpoint's node resets the acceptor, whose RELEASE frees the
 * memory.
 */
static void trust_stale_answer_keeps_offer(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	scif_epd_t l1, l2, s1, c;
	struct scif_port_id dst = { .node = 1 }, peer;
	struct scif_endpt *sp;
	struct scif_shm *old;
	int port2, ret;

	c = shm_pending_connect(test, &l1);
	old = shm_of(c);
	KUNIT_ASSERT_NOT_NULL(test, old);
	kref_get(&old->ref);
	l2 = shm_listener(test, n->b, &port2);
	shm_connect_gave_up(c);
	dst.port = port2;
	KUNIT_ASSERT_EQ(test, scif_epd_connect_nb(c, &dst), -EINPROGRESS);
	scif_sim_settle(n->pair);
	scif_close(c);
	scif_close(l2);
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 1U);
	KUNIT_EXPECT_FALSE(test, old->peer_done);
	KUNIT_EXPECT_FALSE(test, list_empty(&old->qlink));

	KUNIT_ASSERT_EQ(test, scif_accept(l1, &peer, &s1, SCIF_ACCEPT_SYNC), 0);
	sp = s1;
	KUNIT_EXPECT_TRUE(test, sp->shm && sp->shm->active);
	ret = scif_send(s1, "late", 4, 0);
	KUNIT_EXPECT_TRUE(test, ret == 4 || ret == -ECONNRESET);
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sp->state), SCIF_EP_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, scif_shm_quarantined(n->a, 1), 0U);
	KUNIT_EXPECT_EQ(test, kref_read(&old->ref), 1U);
	scif_shm_put(n->a, old);
	scif_close(s1);
	scif_close(l1);
}

/* Attach @shm of node a to @w as node b offered it; the verdict. */
static int trust_attach(struct kunit *test, struct scif_shm *shm,
			const struct scif_wire_shm *w)
{
	struct scif_kt_nodes *n = test->priv;
	int ret;

	down_read(&n->a->nodes_rwsem);
	ret = scif_shm_attach(n->a, shm, w, TRUST_RING);
	up_read(&n->a->nodes_rwsem);
	return ret;
}

/*
 * The offer carries the offering node's page size. A process may map the
 * peer's memory only in pieces that lie inside the peer's own pages; an
 * offer whose page size no node has, or that is misaligned for the page
 * size it claims, is refused.
 */
static void trust_peer_page_size(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_shm *peer, *shm;
	struct scif_wire_shm w, bad;

	/* Order 4: physically aligned to 64 KiB. */
	peer = scif_shm_alloc(n->b, 0, 0x7ad00000, TRUST_RING);
	shm = scif_shm_alloc(n->a, 1, 0x7ad00001, SZ_4K);
	KUNIT_ASSERT_NOT_NULL(test, peer);
	KUNIT_ASSERT_NOT_NULL(test, shm);
	scif_shm_offer(peer, &w, 1);
	KUNIT_EXPECT_EQ(test, w.page_shift, PAGE_SHIFT);

	KUNIT_EXPECT_EQ(test, trust_attach(test, shm, &w), 0);
	KUNIT_EXPECT_NE(test, shm->peer_ctl_phys, 0);

	/* 64 KiB pages, control block not alone on one: never mapped. */
	bad = w;
	bad.page_shift = 16;
	bad.ctl = cpu_to_le64(le64_to_cpu(w.ring) + SZ_4K);
	KUNIT_EXPECT_EQ(test, trust_attach(test, shm, &bad), 0);
	KUNIT_EXPECT_EQ(test, shm->peer_ctl_phys, 0);
	KUNIT_EXPECT_EQ(test, shm->peer_ring_phys, 0);

	/* A ring misaligned for the page size claimed. */
	bad = w;
	bad.page_shift = 16;
	bad.ring = cpu_to_le64(le64_to_cpu(w.ring) + SZ_4K);
	KUNIT_EXPECT_EQ(test, trust_attach(test, shm, &bad), -EPROTO);
	/* Page sizes no node has, and reserved bytes set. */
	bad = w;
	bad.page_shift = SCIF_WIRE_PAGE_SHIFT_MIN - 1;
	KUNIT_EXPECT_EQ(test, trust_attach(test, shm, &bad), -EPROTO);
	bad.page_shift = SCIF_WIRE_PAGE_SHIFT_MAX + 1;
	KUNIT_EXPECT_EQ(test, trust_attach(test, shm, &bad), -EPROTO);
	bad = w;
	bad.rsvd[6] = 1;
	KUNIT_EXPECT_EQ(test, trust_attach(test, shm, &bad), -EPROTO);

	scif_shm_put(n->a, shm);
	/* Offered and never released: quarantined until this release. */
	scif_shm_put(n->b, peer);
	KUNIT_EXPECT_TRUE(test,
			  scif_shm_unquarantine(n->b, 0, 0x7ad00000, 1, 0));
}

/* The WAKEs @n->a has sent to @n->b (other traffic, heartbeats, not counted). */
static unsigned long trust_wakes(struct scif_kt_nodes *n)
{
	return scif_sim_sent(n->pair, n->a, SCIF_MSG_WAKE);
}

/*
 * SCIF_STREAM_WAKE sends a WAKE only for a move past an event index the
 * peer left: asking a thousand times without a move sends nothing, and a
 * thousand times after one move at most one.
 */
static void trust_user_wake_bounded(struct kunit *test)
{
	struct scif_kt_nodes *n = test->priv;
	struct scif_endpt *c = n->c;
	unsigned long before;
	u8 in[4];
	int i;

	KUNIT_ASSERT_TRUE(test, shm_of(n->c) && shm_of(n->c)->active);
	scif_sim_settle(n->pair);
	before = trust_wakes(n);
	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, scif_stream_user_wake(c), 0);
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_EQ(test, trust_wakes(n), before);

	/* The reader sleeps having seen nothing; then four bytes arrive. */
	scif_shm_arm(shm_of(n->s), true, 0);
	KUNIT_ASSERT_EQ(test, scif_send(n->c, "abcd", 4, SCIF_SEND_BLOCK), 4);
	scif_sim_settle(n->pair);
	before = trust_wakes(n);
	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, scif_stream_user_wake(c), 0);
	scif_sim_settle(n->pair);
	KUNIT_EXPECT_LE(test, trust_wakes(n) - before, 1);
	KUNIT_EXPECT_EQ(test, scif_recv(n->s, in, 4, SCIF_RECV_BLOCK), 4);
	KUNIT_EXPECT_EQ(test, memcmp(in, "abcd", 4), 0);
}

static struct kunit_case scif_shm_trust_cases[] = {
	KUNIT_CASE(trust_ring_zeroed),
	KUNIT_CASE(trust_reused_ring_cleared),
	KUNIT_CASE(trust_stale_answer_keeps_offer),
	KUNIT_CASE(trust_peer_page_size),
	KUNIT_CASE(trust_user_wake_bounded),
	{}
};

static struct kunit_suite scif_shm_trust_suite = {
	.name = "scif_shm_trust",
	.init = shm_init,
	.exit = shm_exit,
	.test_cases = scif_shm_trust_cases,
};

kunit_test_suite(scif_shm_trust_suite);

MODULE_DESCRIPTION("KUnit tests for what SCIF shared-memory streams expose");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
