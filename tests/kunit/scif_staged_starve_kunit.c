// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the fairness of staged RMA serving
 * (rma/scif_staged_serve.c): however many RMA_GETs of the peer an owner
 * is serving, the RMA layer's housekeeping of every other endpoint (fence
 * signals, the peer's half of a close) still runs.
 *
 * Two nodes joined by the simulated link without RMA addressing. Node 0
 * keeps more whole-window reads in flight towards node 1 than the shared
 * RMA work queue runs at once, and the link holds node 1's RMA_DATA, so
 * that every server blocks in its first send, as it would behind a ring the
 * requester does not drain. Meanwhile another connection's housekeeping
 * must complete: the test asserts that it did while not one of the reads
 * was served yet. Where each get took a worker of the shared queue, the
 * housekeeping waited behind the held gets and the case fails.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "core/scif_wire.h"
#include "scif_kunit_util.h"
#include "scif_kunit_sim.h"
#include "rma/scif_rma.h"

/* Endpoints whose reads node 1 serves. */
#define SV_EPS		3
/*
 * Reads each keeps in flight: 576 in all, more than the 512 work items the
 * RMA layer's shared queue runs at once, and within the 256 one endpoint
 * may have outstanding.
 */
#define SV_READS	192
#define SV_CHUNK	512
/* Only so that a failing case ends; the order is what the case checks. */
#define SV_WAIT_MS	20000
#define SV_SIGNAL	0x5157a4e5ULL
#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)

/**
 * struct sv_ctx - the two nodes and the connections of the case
 * @n: the nodes and their staged link; @n.c (node 0) and @n.s (node 1) is
 *     the connection whose housekeeping must not wait
 * @rd: endpoints of node 0 that read
 * @own: their peers on node 1, owning the windows read
 * @rbuf: @SV_EPS pages, page i the window @rd[i] reads into
 * @obuf: @SV_EPS pages, page i the window of @own[i] that is read
 * @hbuf: one page, @n.c's window, where its fence signal writes
 */
struct sv_ctx {
	struct scif_kt_nodes n;
	scif_epd_t rd[SV_EPS];
	scif_epd_t own[SV_EPS];
	u8 *rbuf;
	u8 *obuf;
	u8 *hbuf;
};

/* Poll @cond every 20 ms for up to %SV_WAIT_MS; its last value. */
#define sv_wait_for(cond) scif_kt_wait_for_ms(cond, SV_WAIT_MS)

static int sv_init(struct kunit *test)
{
	struct sv_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	ctx->n.a = scif_sim_instance_create("kunit_starve_a", 0);
	ctx->n.b = scif_sim_instance_create("kunit_starve_b", 1);
	KUNIT_ASSERT_NOT_NULL(test, ctx->n.a);
	KUNIT_ASSERT_NOT_NULL(test, ctx->n.b);
	ctx->n.pair = scif_sim_pair_create_staged(ctx->n.a, ctx->n.b,
						  SV_CHUNK);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->n.pair));
	scif_kt_nodes_connect(test, &ctx->n);
	for (i = 0; i < SV_EPS; i++)
		scif_kt_pair(test, ctx->n.a, ctx->n.b, 1, &ctx->rd[i],
			     &ctx->own[i]);
	ctx->rbuf = vzalloc(SV_EPS * PAGE_SIZE);
	ctx->obuf = vzalloc(SV_EPS * PAGE_SIZE);
	ctx->hbuf = vzalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->rbuf);
	KUNIT_ASSERT_NOT_NULL(test, ctx->obuf);
	KUNIT_ASSERT_NOT_NULL(test, ctx->hbuf);
	return 0;
}

static void sv_exit(struct kunit *test)
{
	struct sv_ctx *ctx = test->priv;
	int i;

	/* The link first: nothing may stay held while endpoints close. */
	if (!IS_ERR_OR_NULL(ctx->n.pair))
		scif_sim_pair_down(ctx->n.pair);
	for (i = 0; i < SV_EPS; i++) {
		if (ctx->rd[i])
			scif_close(ctx->rd[i]);
		if (ctx->own[i])
			scif_close(ctx->own[i]);
	}
	scif_kt_nodes_down(&ctx->n);
	vfree(ctx->rbuf);
	vfree(ctx->obuf);
	vfree(ctx->hbuf);
}

/* Reads node 1 took in and has not finished serving. */
static int sv_backlog(struct sv_ctx *ctx)
{
	int i, n = 0;

	for (i = 0; i < SV_EPS; i++)
		n += atomic_read(&ctx->own[i]->rma->nr_serving);
	return n;
}

static int sv_close_fn(void *arg)
{
	return scif_close(arg);
}

static void sv_housekeeping_not_behind_reads(struct kunit *test)
{
	struct sv_ctx *ctx = test->priv;
	struct scif_sim_pair *pair = ctx->n.pair;
	struct scif_endpt *s = ctx->n.s;
	u64 *sig = (u64 *)ctx->hbuf;
	struct scif_kt_call cl;
	bool signalled, closed;
	int i, j, mark;

	for (i = 0; i < SV_EPS; i++) {
		KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->rd[i],
						  ctx->rbuf + i * PAGE_SIZE, 1,
						  0, RW, SCIF_MAP_FIXED), 0);
		memset(ctx->obuf + i * PAGE_SIZE, 0x40 + i, PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->own[i],
						  ctx->obuf + i * PAGE_SIZE, 1,
						  0, RW, SCIF_MAP_FIXED), 0);
	}
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->hbuf, 1, 0, RW,
					  SCIF_MAP_FIXED), 0);
	scif_sim_settle(pair);

	/* Node 1 serves, but none of the bytes it serves leaves it. */
	scif_sim_hold(pair, ctx->n.b, SCIF_MSG_RMA_DATA);
	for (i = 0; i < SV_EPS; i++)
		for (j = 0; j < SV_READS; j++)
			KUNIT_ASSERT_EQ(test, scif_readfrom(ctx->rd[i], 0,
							    PAGE_SIZE, 0, 0),
					0);
	/* Every get was taken in and queued for serving before what follows. */
	scif_sim_settle(pair);
	KUNIT_ASSERT_EQ(test, sv_backlog(ctx), SV_EPS * SV_READS);
	/* The servers are at work: each endpoint's waits in its first send. */
	KUNIT_ASSERT_TRUE(test, sv_wait_for(scif_sim_held(pair, ctx->n.b) >=
					    SV_EPS));

	/*
	 * A fence signal on a mark of the peer: FENCE_DONE queues its write
	 * on the RMA layer's queue.
	 */
	KUNIT_ASSERT_EQ(test, scif_fence_signal(ctx->n.c, 0, SV_SIGNAL, 0, 0,
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_LOCAL), 0);
	signalled = sv_wait_for(READ_ONCE(*sig) == SV_SIGNAL);
	KUNIT_EXPECT_TRUE_MSG(test, signalled,
			      "the fence signal did not run while %d reads were held",
			      sv_backlog(ctx));
	/*
	 * A close: the peer drops our windows from its queue, then lets the
	 * close go on.
	 */
	KUNIT_ASSERT_EQ(test, scif_kt_start(&cl, sv_close_fn, ctx->n.c), 0);
	ctx->n.c = NULL;
	closed = scif_kt_join(&cl, SV_WAIT_MS);
	KUNIT_EXPECT_TRUE_MSG(test, xa_empty(&s->rma->rwins),
			      "the peer's half of a close did not run while %d reads were held",
			      sv_backlog(ctx));
	KUNIT_EXPECT_TRUE(test, closed);
	/* Both happened before any of the reads was served. */
	KUNIT_EXPECT_EQ(test, sv_backlog(ctx), SV_EPS * SV_READS);
	KUNIT_EXPECT_GE(test, scif_sim_held(pair, ctx->n.b), SV_EPS);

	/* Let the bytes go: every read completes, with the owner's bytes. */
	scif_sim_release(pair, ctx->n.b);
	if (!closed)
		wait_for_completion(&cl.done);
	KUNIT_EXPECT_EQ(test, cl.ret, 0);
	for (i = 0; i < SV_EPS; i++) {
		KUNIT_ASSERT_EQ(test, scif_fence_mark(ctx->rd[i],
						      SCIF_FENCE_INIT_SELF,
						      &mark), 0);
		KUNIT_EXPECT_EQ(test, scif_fence_wait(ctx->rd[i], mark), 0);
		KUNIT_EXPECT_EQ(test, memcmp(ctx->rbuf + i * PAGE_SIZE,
					     ctx->obuf + i * PAGE_SIZE,
					     PAGE_SIZE), 0);
	}
	KUNIT_EXPECT_TRUE(test, sv_wait_for(sv_backlog(ctx) == 0));
}

static struct kunit_case scif_staged_starve_cases[] = {
	KUNIT_CASE(sv_housekeeping_not_behind_reads),
	{}
};

static struct kunit_suite scif_staged_starve_suite = {
	.name = "scif_rma_staged_starve",
	.init = sv_init,
	.exit = sv_exit,
	.test_cases = scif_staged_starve_cases,
};

kunit_test_suite(scif_staged_starve_suite);

MODULE_DESCRIPTION("KUnit tests for the fairness of SCIF staged RMA serving");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(SCIF_TRANSPORT);
