// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for streams a process maps (core/scif_shm_view.c): two
 * nodes joined by the simulated link, whose connections go through shared
 * memory. A view is added with a bare address_space, as the file of
 * SCIF_STREAM_MAP would add it, and the test plays the process by writing
 * the page of positions. Covers what a view reaches, the kernel's calls
 * taking the process's positions in and storing theirs back, positions
 * that lie, and the sink once the peer is gone.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <uapi/linux/scif_requests.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "core/scif_shm.h"
#include "scif_kunit_util.h"

/**
 * struct view_kt - the nodes and one view of the client's stream
 * @n: the nodes
 * @mapping: stands for the file's pages
 * @v: the view, added by view_init()
 */
struct view_kt {
	struct scif_kt_nodes n;
	struct address_space mapping;
	struct scif_shm_view v;
};

static int view_init(struct kunit *test)
{
	struct view_kt *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;
	scif_kt_nodes_up(test, &t->n, "kunit_view_a", "kunit_view_b", 4096);
	scif_kt_nodes_connect(test, &t->n);
	address_space_init_once(&t->mapping);
	t->v.mapping = &t->mapping;
	KUNIT_ASSERT_EQ(test, scif_shm_view_add(t->n.c, &t->v), 0);
	return 0;
}

static void view_exit(struct kunit *test)
{
	struct view_kt *t = test->priv;

	if (t->v.shm)
		scif_shm_view_del(&t->v);
	scif_kt_nodes_down(&t->n);
}

static struct scif_shm *view_shm(scif_epd_t epd)
{
	return ((struct scif_endpt *)epd)->shm;
}

/* The view's pages: the stream's own, and the peer's ring by address. */
static void view_pages(struct kunit *test)
{
	struct view_kt *t = test->priv;
	struct scif_shm *c = view_shm(t->n.c), *s = view_shm(t->n.s);
	unsigned long pfn;
	bool wc;

	KUNIT_EXPECT_PTR_EQ(test, t->v.shm, c);
	KUNIT_EXPECT_EQ(test, t->v.rx_size, c->size);
	KUNIT_EXPECT_EQ(test, t->v.tx_size, s->size);
	KUNIT_EXPECT_EQ(test, c->user->down, 0U);
	mutex_lock(&c->views_lock);
	pfn = scif_shm_view_pfn(&t->v, SCIF_SHM_RING, 1, &wc);
	KUNIT_EXPECT_EQ(test, pfn, page_to_pfn(c->pages) + 1);
	KUNIT_EXPECT_FALSE(test, wc);
	pfn = scif_shm_view_pfn(&t->v, SCIF_SHM_CTL, 0, &wc);
	KUNIT_EXPECT_EQ(test, pfn, page_to_pfn(c->ctl_page));
	/* The simulated link reaches the peer's pages by their address. */
	pfn = scif_shm_view_pfn(&t->v, SCIF_SHM_PEER_RING, 2, &wc);
	KUNIT_EXPECT_EQ(test, pfn, page_to_pfn(s->pages) + 2);
	pfn = scif_shm_view_pfn(&t->v, SCIF_SHM_PEER_CTL, 0, &wc);
	KUNIT_EXPECT_EQ(test, pfn, page_to_pfn(s->ctl_page));
	mutex_unlock(&c->views_lock);
}

/* What the process read, the kernel's receive skips; and it says so. */
static void view_recv_follows_process(struct kunit *test)
{
	struct view_kt *t = test->priv;
	struct scif_shm *c = view_shm(t->n.c);
	u8 buf[8] = "abcdefg";

	KUNIT_ASSERT_EQ(test, scif_send(t->n.s, buf, 8, SCIF_SEND_BLOCK), 8);
	KUNIT_ASSERT_TRUE(test, scif_epd_poll(t->n.c, NULL, NULL) & EPOLLIN);
	WRITE_ONCE(c->user->read, 3);
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, scif_recv(t->n.c, buf, 8, 0), 5);
	KUNIT_EXPECT_MEMEQ(test, buf, "defg", 5);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->user->read), 8U);
	KUNIT_EXPECT_FALSE(test, scif_epd_poll(t->n.c, NULL, NULL) & EPOLLIN);
}

/* What the process sent counts before what the kernel sends. */
static void view_send_follows_process(struct kunit *test)
{
	struct view_kt *t = test->priv;
	struct scif_shm *c = view_shm(t->n.c);
	u8 buf[8] = {};

	/* The process put 2 bytes into the peer's ring and published them. */
	memcpy(c->peer_ring, "xy", 2);
	WRITE_ONCE(c->user->sent, 2);
	WRITE_ONCE(c->peer_ctl->written, cpu_to_le32(2));
	KUNIT_EXPECT_EQ(test, scif_send(t->n.c, "z", 1, SCIF_SEND_BLOCK), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->user->sent), 3U);
	KUNIT_EXPECT_EQ(test, scif_recv(t->n.s, buf, 3, SCIF_RECV_BLOCK), 3);
	KUNIT_EXPECT_MEMEQ(test, buf, "xyz", 3);
}

/* A read position beyond what was written resets the connection. */
static void view_lying_read(struct kunit *test)
{
	struct view_kt *t = test->priv;
	u8 buf[4];

	WRITE_ONCE(view_shm(t->n.c)->user->read, 100);
	KUNIT_EXPECT_EQ(test, scif_recv(t->n.c, buf, 4, 0), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, READ_ONCE(view_shm(t->n.c)->user->down), 1U);
}

/* More in flight than the peer's ring holds resets the connection too. */
static void view_lying_sent(struct kunit *test)
{
	struct view_kt *t = test->priv;
	struct scif_shm *c = view_shm(t->n.c);

	WRITE_ONCE(c->user->sent, t->v.tx_size + 1);
	KUNIT_EXPECT_EQ(test, scif_send(t->n.c, "a", 1, 0), -ECONNRESET);
	KUNIT_EXPECT_TRUE(test, scif_epd_poll(t->n.c, NULL, NULL) & EPOLLHUP);
}

/* Once the peer closed, the view shows the sink where its memory was. */
static void view_sink_after_peer_close(struct kunit *test)
{
	struct view_kt *t = test->priv;
	struct scif_shm *c = view_shm(t->n.c);
	unsigned long pfn;
	bool wc;

	scif_close(t->n.s);
	t->n.s = NULL;
	KUNIT_ASSERT_TRUE(test, scif_kt_wait_for(READ_ONCE(c->user->down)));
	mutex_lock(&c->views_lock);
	pfn = scif_shm_view_pfn(&t->v, SCIF_SHM_PEER_RING, 0, &wc);
	KUNIT_EXPECT_EQ(test, pfn, page_to_pfn(c->sink));
	pfn = scif_shm_view_pfn(&t->v, SCIF_SHM_PEER_CTL, 0, &wc);
	KUNIT_EXPECT_EQ(test, pfn, page_to_pfn(c->sink));
	/* Our own pages stay. */
	pfn = scif_shm_view_pfn(&t->v, SCIF_SHM_RING, 0, &wc);
	KUNIT_EXPECT_EQ(test, pfn, page_to_pfn(c->pages));
	mutex_unlock(&c->views_lock);
}

/* Only a connected endpoint with a stream through memory has a view. */
static void view_refused(struct kunit *test)
{
	struct view_kt *t = test->priv;
	struct scif_shm_view v = { .mapping = &t->mapping };
	scif_epd_t e = scif_instance_open(t->n.a);

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, scif_shm_view_add(e, &v), -ENOTCONN);
	scif_close(e);
	scif_close(t->n.s);
	t->n.s = NULL;
	KUNIT_ASSERT_TRUE(test, scif_kt_wait_for(scif_send(t->n.c, "a", 1, 0) ==
						 -ECONNRESET));
	KUNIT_EXPECT_EQ(test, scif_shm_view_add(t->n.c, &v), -ENOTCONN);
}

static struct kunit_case scif_shm_view_cases[] = {
	KUNIT_CASE(view_pages),
	KUNIT_CASE(view_recv_follows_process),
	KUNIT_CASE(view_send_follows_process),
	KUNIT_CASE(view_lying_read),
	KUNIT_CASE(view_lying_sent),
	KUNIT_CASE(view_sink_after_peer_close),
	KUNIT_CASE(view_refused),
	{}
};

static struct kunit_suite scif_shm_view_suite = {
	.name = "scif_shm_view",
	.init = view_init,
	.exit = view_exit,
	.test_cases = scif_shm_view_cases,
};

kunit_test_suite(scif_shm_view_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF streams mapped by a process");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
