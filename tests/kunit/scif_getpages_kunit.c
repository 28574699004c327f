// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for scif_get_pages() and scif_put_pages() across two nodes
 * joined by the simulated link: every spec'd errno, the addresses handed
 * out, the peer's unregister deferred while a range is held, ranges
 * reclaimed by scif_close(), the peer's close held until a range is put,
 * and put after a node loss.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "core/scif_instance.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"
#include "scif_kunit_sim.h"
#include "rma/scif_rma.h"

#define GP_PAGES	8
#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define FIX		SCIF_MAP_FIXED

/**
 * struct gp_ctx - two nodes, a connected pair and the server's buffer
 * @n: the nodes and their link; n.c on node 0 calls scif_get_pages(), its
 *     peer n.s on node 1 owns the windows
 * @sbuf: @GP_PAGES pages of n.s
 */
struct gp_ctx {
	struct scif_kt_nodes n;
	u8 *sbuf;
};

static int gp_init(struct kunit *test)
{
	struct gp_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	scif_kt_nodes_up(test, &ctx->n, "kunit_gp_a", "kunit_gp_b", 256);
	scif_kt_nodes_connect(test, &ctx->n);
	ctx->sbuf = vmalloc(GP_PAGES * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->sbuf);
	return 0;
}

static void gp_exit(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;

	scif_kt_nodes_down(&ctx->n);
	vfree(ctx->sbuf);
}

/* The server's windows: [0, 4) read-write, [4, 6) read-only. */
static void gp_windows(struct kunit *test, struct gp_ctx *ctx)
{
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 4, 0, RW, FIX), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf + 4 * PAGE_SIZE, 2,
					  4 * PAGE_SIZE, SCIF_PROT_READ, FIX),
			4 * PAGE_SIZE);
	scif_sim_settle(ctx->n.pair);
}

static void gp_errors(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;
	scif_epd_t lone = scif_instance_open(ctx->n.a);
	struct scif_range *r = NULL, fake = {};

	gp_windows(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, lone);
	KUNIT_EXPECT_EQ(test, scif_get_pages(lone, 0, PAGE_SIZE, &r),
			-ENOTCONN);
	scif_close(lone);
	KUNIT_EXPECT_EQ(test, scif_get_pages(NULL, 0, PAGE_SIZE, &r), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 100, PAGE_SIZE, &r),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, -PAGE_SIZE, PAGE_SIZE,
					     &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, 100, &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, 0, &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, NULL),
			-EINVAL);
	/* Nothing there; past a window's end, even into the next window. */
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 16 * PAGE_SIZE,
					     PAGE_SIZE, &r), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 3 * PAGE_SIZE,
					     2 * PAGE_SIZE, &r), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 5 * PAGE_SIZE,
					     2 * PAGE_SIZE, &r), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, S64_MAX & PAGE_MASK,
					     2 * PAGE_SIZE, &r), -ENXIO);
	KUNIT_EXPECT_NULL(test, r);
	/* Only ranges of ours, and each once. */
	KUNIT_EXPECT_EQ(test, scif_put_pages(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_put_pages(&fake), -EINVAL);
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r), 0);
	fake = *r;
	KUNIT_EXPECT_EQ(test, scif_put_pages(&fake), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), 0);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), -EINVAL);
}

/* Set the link to the peer's node as a transport would, nodes_rwsem held. */
static void gp_set_link(struct gp_ctx *ctx, bool local, void *mem)
{
	struct scif_instance *si = ctx->n.a;
	struct scif_endpt *c = ctx->n.c;
	struct scif_node *nd;

	down_write(&si->nodes_rwsem);
	nd = xa_load(&si->nodes, c->peer.node);
	if (nd) {
		nd->link->rma_local = local;
		nd->link->peer_mem = mem;
	}
	up_write(&si->nodes_rwsem);
}

/* A link that cannot hand out the peer's pages is refused. */
static void gp_link_without_rma(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;
	struct scif_range *r = NULL;
	u8 mem;

	gp_windows(test, ctx);
	/* No RMA on the link at all. */
	gp_set_link(ctx, false, NULL);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r),
			-EOPNOTSUPP);
	/* A CPU mapping of the peer, but no physical address to give out. */
	gp_set_link(ctx, false, &mem);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r),
			-EOPNOTSUPP);
	KUNIT_EXPECT_NULL(test, r);
	gp_set_link(ctx, true, NULL);
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r), 0);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), 0);
}

static void gp_addresses(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;
	struct scif_range *r;
	int i;

	gp_windows(test, ctx);
	memset(ctx->sbuf, 0, GP_PAGES * PAGE_SIZE);
	for (i = 0; i < 6; i++)
		ctx->sbuf[i * PAGE_SIZE + 7] = 0x10 + i;
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, PAGE_SIZE, 3 * PAGE_SIZE,
					     &r), 0);
	KUNIT_EXPECT_EQ(test, r->nr_pages, 3);
	KUNIT_EXPECT_EQ(test, r->prot_flags, RW);
	for (i = 0; i < 3; i++) {
		u8 *p = ctx->sbuf + (i + 1) * PAGE_SIZE;

		KUNIT_EXPECT_EQ(test, (u64)r->phys_addr[i],
				(u64)page_to_phys(vmalloc_to_page(p)));
		KUNIT_EXPECT_EQ(test, readb(r->va[i] + 7), 0x11 + i);
		writeb(0x80 + i, r->va[i] + 9);
		KUNIT_EXPECT_EQ(test, p[9], 0x80 + i);
	}
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), 0);
	/* The read-only window reports its rights. */
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 4 * PAGE_SIZE,
					     2 * PAGE_SIZE, &r), 0);
	KUNIT_EXPECT_EQ(test, r->prot_flags, SCIF_PROT_READ);
	KUNIT_EXPECT_EQ(test, readb(r->va[1] + 7), 0x15);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), 0);
}

static bool gp_settle_until(struct gp_ctx *ctx, struct maple_tree *mt,
			    bool want)
{
	int i;

	for (i = 0; i < 500; i++) {
		scif_sim_settle(ctx->n.pair);
		if (!!scif_wtree_find(mt, 0) == want)
			return true;
		msleep(20);
	}
	return false;
}

static void gp_unregister_deferred(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_range *r;

	gp_windows(test, ctx);
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 0, 2 * PAGE_SIZE, &r),
			0);
	KUNIT_ASSERT_EQ(test, scif_unregister(ctx->n.s, 0, 4 * PAGE_SIZE), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_NULL(test, scif_wtree_find(&c->rma->remote, 0));
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r),
			-ENXIO);
	/* The server keeps the offsets and the pages while the range is out. */
	msleep(100);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_NOT_NULL(test, scif_wtree_find(&s->rma->local, 0));
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), 0);
	KUNIT_EXPECT_TRUE(test, gp_settle_until(ctx, &s->rma->local, false));
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX), 0);
}

static void gp_close_reclaims(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;
	struct scif_endpt *s = ctx->n.s;
	struct scif_range *r1, *r2;

	gp_windows(test, ctx);
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r1), 0);
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 4 * PAGE_SIZE, PAGE_SIZE,
					     &r2), 0);
	KUNIT_ASSERT_EQ(test, scif_unregister(ctx->n.s, 0, 4 * PAGE_SIZE), 0);
	scif_sim_settle(ctx->n.pair);
	/* Closing with ranges out reclaims them; the peer gets its answer. */
	KUNIT_EXPECT_EQ(test, scif_close(ctx->n.c), 0);
	ctx->n.c = NULL;
	KUNIT_EXPECT_EQ(test, scif_put_pages(r1), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r2), -EINVAL);
	KUNIT_EXPECT_TRUE(test, gp_settle_until(ctx, &s->rma->local, false));
}

static int gp_close(void *epd)
{
	return scif_close(epd);
}

/*
 * The peer closes while a range is out: its close waits for the range
 * (its windows and pages stay), and finishes once the range is returned.
 */
static void gp_put_after_reset(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;
	struct scif_endpt *s = ctx->n.s;
	struct scif_kt_call call;
	struct scif_range *r, *r2 = NULL;
	bool early;

	gp_windows(test, ctx);
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, gp_close, ctx->n.s), 0);
	ctx->n.s = NULL;
	early = scif_kt_join(&call, 500);
	KUNIT_EXPECT_FALSE(test, early);
	/* Still closing, so @s is alive: its windows wait for our answer. */
	if (!early)
		KUNIT_EXPECT_FALSE(test, xa_empty(&s->rma->wins));
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r2),
			-ECONNRESET);
	KUNIT_EXPECT_NULL(test, r2);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), -ENOTCONN);
	KUNIT_EXPECT_TRUE(test, scif_kt_join(&call, 10000));
	KUNIT_EXPECT_EQ(test, call.ret, 0);
}

static void gp_put_after_node_loss(struct kunit *test)
{
	struct gp_ctx *ctx = test->priv;
	struct scif_range *r;

	gp_windows(test, ctx);
	KUNIT_ASSERT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r), 0);
	scif_sim_pair_down(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, scif_put_pages(r), -ENODEV);
}

static struct kunit_case scif_gp_cases[] = {
	KUNIT_CASE(gp_errors),
	KUNIT_CASE(gp_link_without_rma),
	KUNIT_CASE(gp_addresses),
	KUNIT_CASE(gp_unregister_deferred),
	KUNIT_CASE(gp_close_reclaims),
	KUNIT_CASE(gp_put_after_reset),
	KUNIT_CASE(gp_put_after_node_loss),
	{}
};

static struct kunit_suite scif_gp_suite = {
	.name = "scif_get_pages",
	.init = gp_init,
	.exit = gp_exit,
	.test_cases = scif_gp_cases,
};

kunit_test_suite(scif_gp_suite);

MODULE_DESCRIPTION("KUnit tests for scif_get_pages and scif_put_pages");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
