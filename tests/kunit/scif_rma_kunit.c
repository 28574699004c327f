// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for SCIF registration and RMA across two nodes joined by the
 * simulated link: the spec'd errors of scif_register/scif_unregister, the
 * registration protocol (also against hostile messages), randomized
 * readfrom/writeto/vreadfrom/vwriteto with data verification over spans
 * of several windows, deferred unregistration, fences, and close.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scif.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"
#include "scif_kunit_sim.h"
#include "rma/scif_dma.h"
#include "rma/scif_rma.h"
#include "core/scif_wire.h"

/* A chunk size that cuts page lists of a few windows into many messages. */
#define RMA_SIM_CHUNK	256
#define RMA_PAGES	16

/**
 * struct rma_ctx - two nodes, a connected pair and a buffer on each side
 * @n: the nodes, their link, and endpoint c on node 0 connected to s on 1
 * @cbuf: @RMA_PAGES pages of n.c's side
 * @sbuf: @RMA_PAGES pages of n.s's side
 * @mark: a fence mark for a helper thread
 */
struct rma_ctx {
	struct scif_kt_nodes n;
	u8 *cbuf;
	u8 *sbuf;
	int mark;
};

static int rma_init(struct kunit *test)
{
	struct rma_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	scif_kt_nodes_up(test, &ctx->n, "kunit_rma_a", "kunit_rma_b",
			 RMA_SIM_CHUNK);
	scif_kt_nodes_connect(test, &ctx->n);
	ctx->cbuf = vmalloc(RMA_PAGES * PAGE_SIZE);
	ctx->sbuf = vmalloc(RMA_PAGES * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->cbuf);
	KUNIT_ASSERT_NOT_NULL(test, ctx->sbuf);
	return 0;
}

static void rma_exit(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;

	scif_kt_nodes_down(&ctx->n);
	vfree(ctx->cbuf);
	vfree(ctx->sbuf);
}

#define RW	(SCIF_PROT_READ | SCIF_PROT_WRITE)

/* Let messages and work items run until @cond holds, at most 10 s. */
static bool settle_until(struct rma_ctx *ctx, bool (*cond)(struct rma_ctx *))
{
	int i;

	for (i = 0; i < 500 && !cond(ctx); i++) {
		scif_sim_settle(ctx->n.pair);
		msleep(20);
	}
	return cond(ctx);
}

static bool signal_landed(struct rma_ctx *ctx)
{
	return READ_ONCE(((u64 *)ctx->sbuf)[0]) == 0x55;
}

static bool remote_gone(struct rma_ctx *ctx)
{
	struct scif_endpt *s = ctx->n.s;

	return !scif_wtree_find(&s->rma->remote, 0);
}

#define FIX	SCIF_MAP_FIXED

static void rma_register_errors(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	scif_epd_t lone = scif_instance_open(ctx->n.a);
	u8 *p = ctx->cbuf;

	KUNIT_ASSERT_NOT_NULL(test, lone);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(lone, p, 1, 0, RW, 0), -ENOTCONN);
	scif_close(lone);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(NULL, p, 1, 0, RW, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 1, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 1, 0, 8, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 1, 0, RW, 0x100), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 1, -PAGE_SIZE, RW, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 1, 100, RW, FIX), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p + 1, 1, 0, RW, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_register(ctx->n.c, p, 100, 0, RW,
					    SCIF_MAP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_register(ctx->n.c, p, 0, 0, RW,
					    SCIF_MAP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 4, 0x40000, RW, FIX), 0x40000);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 1, 0x40000 + 3 * PAGE_SIZE, RW,
					  FIX), -EADDRINUSE);
	/* Without FIXED, a taken hint is moved, not refused. */
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 1, 0x40000, RW, 0),
			0x40000 + 4 * PAGE_SIZE);
	/* Unregister: whole windows only, all or nothing. */
	KUNIT_EXPECT_EQ(test, scif_unregister(ctx->n.c, 0x40000, PAGE_SIZE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, scif_unregister(ctx->n.c, -PAGE_SIZE, PAGE_SIZE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, scif_unregister(ctx->n.c, 0, PAGE_SIZE), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_unregister(ctx->n.c, 0x40000,
					      (size_t)-PAGE_SIZE), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_unregister(ctx->n.c, 0x40000, 5 * PAGE_SIZE),
			0);
	/* The offsets come back once the peer confirmed. */
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, p, 5, 0x40000, RW, FIX), 0x40000);
}

/* Windows of 1..4 pages back to back, over @pages pages of @buf at @off. */
static void rma_random_copies(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;

	scif_kt_rma_random(test, ctx->n.c, ctx->n.s, ctx->cbuf, ctx->sbuf,
			   RMA_PAGES, 400, false);
}

static void rma_copy_errors(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	off_t ro;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 4, 0, RW, FIX), 0);
	/* Two peer windows with a hole between them, one read-only. */
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX), 0);
	ro = scif_kt_reg(ctx->n.s, ctx->sbuf + 2 * PAGE_SIZE, 2, 3 * PAGE_SIZE,
			 SCIF_PROT_READ, FIX);
	KUNIT_ASSERT_EQ(test, ro, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, PAGE_SIZE, 0, 0x40),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, -1, 1, 0, 0), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 1, -1, 0), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 3 * PAGE_SIZE, 0, 0),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.c, 0, 5 * PAGE_SIZE, 0, 0),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, PAGE_SIZE, ro, 0),
			-EACCES);
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.c, 0, PAGE_SIZE, ro, 0), 0);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 2, (off_t)SCIF_RAS_LAST,
					   0), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_vwriteto(ctx->n.c, NULL, 8, 0, 0), -EFAULT);
	/* Unregistered windows are gone for RMA at once, on both sides. */
	KUNIT_ASSERT_EQ(test, scif_unregister(ctx->n.s, 0, 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.s, 0, PAGE_SIZE, 0, 0),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, PAGE_SIZE, 0, 0),
			-ENXIO);
}

static void rma_unregister_deferred(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_window *w;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX), 0);
	scif_sim_settle(ctx->n.pair);
	/* The client holds the server's window, like an RMA in flight would. */
	mutex_lock(&c->rma->lock);
	w = scif_wtree_find(&c->rma->remote, 0);
	KUNIT_ASSERT_NOT_NULL(test, w);
	scif_win_get(w);
	mutex_unlock(&c->rma->lock);
	/* The peer's hold does not keep the unregister waiting. */
	KUNIT_ASSERT_EQ(test, scif_unregister(ctx->n.s, 0, 2 * PAGE_SIZE), 0);
	scif_sim_settle(ctx->n.pair);
	/* Not usable, but its offsets are still taken on the server. */
	KUNIT_EXPECT_NULL(test, scif_wtree_find(&c->rma->remote, 0));
	KUNIT_EXPECT_NOT_NULL(test, scif_wtree_find(&s->rma->local, 0));
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX),
			-EADDRINUSE);
	scif_win_put(w);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_NULL(test, scif_wtree_find(&s->rma->local, 0));
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX), 0);
}

static void rma_fences(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	u64 *cv = (u64 *)ctx->cbuf, *sv = (u64 *)ctx->sbuf;
	int mark;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 1, 0, RW, FIX), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX), 0);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 64, 64, 64, 0), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_mark(ctx->n.c, SCIF_FENCE_INIT_SELF,
					      &mark), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_wait(ctx->n.c, mark), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_mark(ctx->n.c, SCIF_FENCE_INIT_PEER,
					      &mark), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_wait(ctx->n.c, mark), 0);
	/* A completed mark stays complete. */
	KUNIT_EXPECT_EQ(test, scif_fence_wait(ctx->n.c, mark), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_mark(ctx->n.c, 3, &mark), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_fence_mark(ctx->n.c, 0, &mark), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 8, 0x1122, 16, 0x3344,
						SCIF_FENCE_INIT_SELF |
						SCIF_SIGNAL_LOCAL |
						SCIF_SIGNAL_REMOTE), 0);
	KUNIT_EXPECT_EQ(test, cv[1], 0x1122ULL);
	KUNIT_EXPECT_EQ(test, sv[2], 0x3344ULL);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 2, 1, 0, 1,
						SCIF_FENCE_INIT_SELF |
						SCIF_SIGNAL_LOCAL), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 0, 1, 0, 1,
						SCIF_FENCE_INIT_SELF), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 0, 1, 0, 1,
						SCIF_FENCE_INIT_SELF |
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_LOCAL), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, PAGE_SIZE, 1, 0, 1,
						SCIF_FENCE_INIT_SELF |
						SCIF_SIGNAL_LOCAL), -ENXIO);
	/* A peer mark always defers the writes; the offsets are still checked. */
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, PAGE_SIZE, 1, 0, 1,
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_LOCAL), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 0, 1, PAGE_SIZE, 1,
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_REMOTE), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, PAGE_SIZE - 4, 1, 0,
						1, SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_LOCAL), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 0, 1, 0, 0x55,
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_REMOTE), 0);
	KUNIT_EXPECT_TRUE(test, settle_until(ctx, signal_landed));
}

/*
 * Make @ep look as if an RMA of its own were in flight and would never
 * complete, so that the fences of its peer on it stay unanswered.
 */
static void hold_rmas(struct scif_endpt *ep, struct scif_rma_req *fake)
{
	spin_lock(&ep->rma->ilock);
	fake->seq = ++ep->rma->seq;
	list_add_tail(&fake->list, &ep->rma->inflight);
	spin_unlock(&ep->rma->ilock);
}

/* Take the fake away and complete a real RMA, which answers the fences. */
static void release_rmas(struct kunit *test, struct scif_endpt *ep,
			 struct scif_rma_req *fake)
{
	spin_lock(&ep->rma->ilock);
	list_del(&fake->list);
	spin_unlock(&ep->rma->ilock);
	KUNIT_EXPECT_EQ(test, scif_writeto(ep, 0, 8, 0, SCIF_RMA_SYNC), 0);
}

static unsigned int nr_my_marks(struct scif_endpt *ep)
{
	unsigned int n;

	xa_lock(&ep->rma->my_marks);
	n = ep->rma->nr_my_marks;
	xa_unlock(&ep->rma->my_marks);
	return n;
}

static bool marks_held(struct rma_ctx *ctx)
{
	struct scif_rma_ep *rma = ctx->n.s->rma;
	unsigned int n;

	spin_lock(&rma->ilock);
	n = rma->nr_peer_marks;
	spin_unlock(&rma->ilock);
	return n == SCIF_FENCE_MAX_MARKS;
}

static bool marks_answered(struct rma_ctx *ctx)
{
	return !nr_my_marks(ctx->n.c);
}

#define RMA_SIGNALS	(PAGE_SIZE / sizeof(u64))

static bool signals_landed(struct rma_ctx *ctx)
{
	u64 *cv = (u64 *)ctx->cbuf;
	unsigned int i;

	for (i = 0; i < RMA_SIGNALS; i++)
		if (READ_ONCE(cv[i]) != i + 1)
			return false;
	return true;
}

/*
 * Fence signals on peer marks are run by the peer's FENCE_DONE: while the
 * peer's RMAs are held up they wait as entries of the mark table, not as
 * threads blocked on the peer, and they write once the answers come.
 * Signals the peer never answers are freed with the endpoint.
 */
static void rma_peer_signals_run_on_done(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_rma_req fake = {};
	u64 *cv = (u64 *)ctx->cbuf;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 1, 0, RW, FIX), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX), 0);
	memset(cv, 0, PAGE_SIZE);
	hold_rmas(s, &fake);
	for (i = 0; i < RMA_SIGNALS; i++)
		KUNIT_ASSERT_EQ(test,
				scif_fence_signal(c, i * sizeof(u64), i + 1, 0,
						  0, SCIF_FENCE_INIT_PEER |
						  SCIF_SIGNAL_LOCAL), 0);
	KUNIT_EXPECT_EQ(test, nr_my_marks(c), (unsigned int)RMA_SIGNALS);
	msleep(100);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, READ_ONCE(cv[0]), 0ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(cv[RMA_SIGNALS - 1]), 0ULL);
	release_rmas(test, s, &fake);
	KUNIT_EXPECT_TRUE(test, settle_until(ctx, marks_answered));
	KUNIT_EXPECT_TRUE(test, settle_until(ctx, signals_landed));
	/* Left unanswered at close: freed with the endpoint (kmemleak). */
	hold_rmas(s, &fake);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(c, 0, 7, 0, 0,
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_LOCAL), 0);
	KUNIT_EXPECT_EQ(test, nr_my_marks(c), 1U);
	spin_lock(&s->rma->ilock);
	list_del(&fake.list);
	spin_unlock(&s->rma->ilock);
}

static int wait_mark(void *arg)
{
	struct rma_ctx *ctx = arg;

	return scif_fence_wait(ctx->n.c, READ_ONCE(ctx->mark));
}

/*
 * INIT_PEER marks never waited for: at most SCIF_FENCE_MAX_MARKS stay
 * unanswered (one more is ENOMEM, for a signal too), the peer holds as
 * many requests, and once answered they cost nothing and complete waits in
 * any order, twice over.
 */
static void rma_fence_marks_bounded(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_rma_req fake = {};
	struct scif_kt_call call;
	unsigned int i, n = SCIF_FENCE_MAX_MARKS;
	int *marks, mark;

	marks = kunit_kcalloc(test, n, sizeof(*marks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, marks);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 1, 0, RW, FIX), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX), 0);
	hold_rmas(s, &fake);
	for (i = 0; i < n; i++)
		if (scif_fence_mark(c, SCIF_FENCE_INIT_PEER, &marks[i]))
			break;
	KUNIT_EXPECT_EQ(test, i, n);
	KUNIT_EXPECT_EQ(test, scif_fence_mark(c, SCIF_FENCE_INIT_PEER, &mark),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(c, 0, 1, 0, 1,
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_LOCAL), -ENOMEM);
	/* Self marks keep nothing and are not limited. */
	KUNIT_EXPECT_EQ(test, scif_fence_mark(c, SCIF_FENCE_INIT_SELF, &mark),
			0);
	KUNIT_EXPECT_EQ(test, nr_my_marks(c), n);
	KUNIT_EXPECT_TRUE(test, settle_until(ctx, marks_held));
	/* A wait blocks while the peer's RMAs are held up. */
	ctx->mark = marks[get_random_u32_below(n)];
	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, wait_mark, ctx), 0);
	KUNIT_EXPECT_FALSE(test, scif_kt_join(&call, 200));
	release_rmas(test, s, &fake);
	KUNIT_EXPECT_TRUE(test, settle_until(ctx, marks_answered));
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 10000));
	KUNIT_EXPECT_EQ(test, call.ret, 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->rma->my_marks));
	KUNIT_EXPECT_EQ(test, s->rma->nr_peer_marks, 0U);
	/* Answered marks complete in any order; a mark is not used up. */
	for (i = n - 1; i > 0; i--)
		swap(marks[i], marks[get_random_u32_below(i + 1)]);
	for (i = 0; i < n; i++)
		if (scif_fence_wait(c, marks[i]))
			break;
	KUNIT_EXPECT_EQ(test, i, n);
	KUNIT_EXPECT_EQ(test, scif_fence_wait(c, marks[0]), 0);
	/* A token never handed out is not a mark. */
	mark = ((c->rma->marks_issued + 7) & SCIF_MARK_MASK) |
	       SCIF_MARK_PEER;
	KUNIT_EXPECT_EQ(test, scif_fence_wait(c, mark), -EINVAL);
	/* Room again. */
	KUNIT_EXPECT_EQ(test, scif_fence_mark(c, SCIF_FENCE_INIT_PEER, &mark),
			0);
	KUNIT_EXPECT_EQ(test, scif_fence_wait(c, mark), 0);
}

/*
 * A peer that breaks the cap on fence requests: the extra request is
 * refused without allocating; the held ones are answered when our RMAs
 * complete, and the answers to tokens the peer never issued are refused
 * there.
 */
static void rma_fence_peer_over_cap(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_node_stats st0, st1;
	struct scif_rma_req fake = {};
	struct scif_wire_msg m;
	unsigned int i, ok = 0;
	int ret;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 1, 0, RW, FIX), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, FIX), 0);
	scif_sim_settle(ctx->n.pair);
	hold_rmas(c, &fake);
	for (i = 0; i <= SCIF_FENCE_MAX_MARKS; i++) {
		scif_msg_init(&m, SCIF_MSG_FENCE_REQ, s->id, c->id, s->port,
			      c->port, 100 + i);
		ret = scif_handle_rma(ctx->n.a, 1, &m, NULL, 0);
		if (!ret)
			ok++;
	}
	KUNIT_EXPECT_EQ(test, ok, SCIF_FENCE_MAX_MARKS);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, c->rma->nr_peer_marks, SCIF_FENCE_MAX_MARKS);
	/* An answer to a mark we never took. */
	scif_msg_init(&m, SCIF_MSG_FENCE_DONE, s->id, c->id, s->port, c->port,
		      12345);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, NULL, 0),
			-EPROTO);
	scif_node_stats(ctx->n.b, 0, &st0);
	release_rmas(test, c, &fake);
	KUNIT_EXPECT_EQ(test, c->rma->nr_peer_marks, 0U);
	scif_sim_settle(ctx->n.pair);
	scif_node_stats(ctx->n.b, 0, &st1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st1.rx_drops) -
			atomic64_read(&st0.rx_drops), SCIF_FENCE_MAX_MARKS);
}

/* Send @type from the server's endpoint to the client's, raw. */
static void hostile(struct kunit *test, u8 type, u32 arg, u32 seq,
		    const void *data, size_t len)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	u8 buf[SCIF_WIRE_MSG_SIZE + 64];
	struct scif_wire_msg *m = (void *)buf;

	KUNIT_ASSERT_LE(test, len, sizeof(buf) - sizeof(*m));
	scif_msg_init(m, type, s->id, c->id, s->port, c->port, arg);
	m->seq = cpu_to_le32(seq);
	m->len = cpu_to_le16(len);
	memcpy(buf + sizeof(*m), data, len);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, buf,
					      sizeof(*m) + len), 0);
	scif_sim_settle(ctx->n.pair);
}

static void rma_hostile_peer(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c;
	struct scif_wire_reg r = {};
	struct scif_node_stats st0, st1;
	__le64 pg[2];

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX), 0);
	scif_sim_settle(ctx->n.pair);
	scif_node_stats(ctx->n.a, 1, &st0);
	/* Overlapping the real window. */
	r.offset = cpu_to_le64(PAGE_SIZE);
	r.nr_pages = cpu_to_le64(1);
	r.prot = cpu_to_le32(RW);
	hostile(test, SCIF_MSG_REG_OPEN, 1000, 0, &r, sizeof(r));
	/* Bad prot, unaligned, wrapping, reserved bits, short. */
	r.offset = cpu_to_le64(1ULL << 30);
	r.prot = cpu_to_le32(4);
	hostile(test, SCIF_MSG_REG_OPEN, 1001, 0, &r, sizeof(r));
	r.prot = cpu_to_le32(RW);
	r.offset = cpu_to_le64((1ULL << 30) + 1);
	hostile(test, SCIF_MSG_REG_OPEN, 1002, 0, &r, sizeof(r));
	r.offset = cpu_to_le64(SCIF_RAS_LAST & PAGE_MASK);
	r.nr_pages = cpu_to_le64(2);
	hostile(test, SCIF_MSG_REG_OPEN, 1003, 0, &r, sizeof(r));
	r.offset = cpu_to_le64(1ULL << 30);
	r.rsvd = cpu_to_le32(1);
	hostile(test, SCIF_MSG_REG_OPEN, 1004, 0, &r, sizeof(r));
	r.rsvd = 0;
	hostile(test, SCIF_MSG_REG_OPEN, 1005, 0, &r, 8);
	/* Pages for windows that do not exist, out of order, out of bounds. */
	pg[0] = cpu_to_le64(page_to_phys(vmalloc_to_page(ctx->sbuf)));
	pg[1] = pg[0];
	hostile(test, SCIF_MSG_REG_PAGES, 4242, 0, pg, sizeof(pg));
	hostile(test, SCIF_MSG_REG_OPEN, 1006, 0, &r, sizeof(r));
	hostile(test, SCIF_MSG_REG_PAGES, 1006, 1, pg, sizeof(pg[0]));
	hostile(test, SCIF_MSG_REG_OPEN, 1007, 0, &r, sizeof(r));
	hostile(test, SCIF_MSG_REG_PAGES, 1007, 0, pg, sizeof(pg[0]) + 3);
	hostile(test, SCIF_MSG_REG_OPEN, 1008, 0, &r, sizeof(r));
	pg[0] = cpu_to_le64(le64_to_cpu(pg[1]) + 8);
	hostile(test, SCIF_MSG_REG_PAGES, 1008, 0, pg, sizeof(pg[0]));
	hostile(test, SCIF_MSG_REG_OPEN, 1009, 0, &r, sizeof(r));
	pg[0] = cpu_to_le64(1ULL << 62);
	hostile(test, SCIF_MSG_REG_PAGES, 1009, 0, pg, sizeof(pg[0]));
	/* Acks and unregisters of windows we never had. */
	hostile(test, SCIF_MSG_REG_ACK, 77, 0, NULL, 0);
	hostile(test, SCIF_MSG_UNREG_ACK, 77, 0, NULL, 0);
	hostile(test, SCIF_MSG_UNREG, 77, 0, NULL, 0);
	hostile(test, SCIF_MSG_UNREG_SEEN, 77, 0, NULL, 0);
	hostile(test, SCIF_MSG_REG_ACK, 77, 0xffffffff, NULL, 0);
	scif_node_stats(ctx->n.a, 1, &st1);
	KUNIT_EXPECT_GE(test, atomic64_read(&st1.rx_drops) -
			atomic64_read(&st0.rx_drops), 15);
	/* Only the real window and nothing of the lies is left. */
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, c->rma->nr_windows, 1U);
	KUNIT_EXPECT_EQ(test, c->rma->remote_pages, 2UL);
	KUNIT_EXPECT_NULL(test, scif_wtree_find(&c->rma->remote, 1ULL << 30));
	mutex_unlock(&c->rma->lock);
	/* And it still works. */
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 2, 0, RW, FIX), 0);
	memset(ctx->sbuf, 0x5a, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.c, 0, 2 * PAGE_SIZE, 0,
					    SCIF_RMA_SYNC), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ctx->cbuf, ctx->sbuf, 2 * PAGE_SIZE), 0);
}

/* Whether the client knows a complete peer window at @off. */
static bool peer_win_complete(struct rma_ctx *ctx, u64 off)
{
	struct scif_endpt *c = ctx->n.c;
	struct scif_window *w;
	bool ok;

	mutex_lock(&c->rma->lock);
	w = scif_wtree_find(&c->rma->remote, off);
	ok = w && w->nr_recv == w->nr_pages;
	mutex_unlock(&c->rma->lock);
	return ok;
}

/* REG_OPEN carrying the first page addresses, and lies about them. */
static void rma_reg_open_carries_pages(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c;
	struct scif_node_stats st0, st1;
	struct {
		struct scif_wire_reg r;
		__le64 pg[2];
	} __packed m = {};
	u64 off = 1ULL << 30;

	scif_node_stats(ctx->n.a, 1, &st0);
	m.r.prot = cpu_to_le32(RW);
	m.pg[0] = cpu_to_le64(page_to_phys(vmalloc_to_page(ctx->sbuf)));
	m.pg[1] = m.pg[0];
	/* More addresses than pages, and a torn address: refused. */
	m.r.offset = cpu_to_le64(off);
	m.r.nr_pages = cpu_to_le64(1);
	hostile(test, SCIF_MSG_REG_OPEN, 3000, 0, &m, sizeof(m));
	KUNIT_EXPECT_FALSE(test, peer_win_complete(ctx, off));
	m.r.nr_pages = cpu_to_le64(2);
	hostile(test, SCIF_MSG_REG_OPEN, 3001, 0, &m, sizeof(m) - 4);
	KUNIT_EXPECT_FALSE(test, peer_win_complete(ctx, off));
	scif_node_stats(ctx->n.a, 1, &st1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st1.rx_drops) -
			atomic64_read(&st0.rx_drops), 2);
	/* Every page in REG_OPEN: complete with no REG_PAGES. */
	hostile(test, SCIF_MSG_REG_OPEN, 3002, 0, &m, sizeof(m));
	KUNIT_EXPECT_TRUE(test, peer_win_complete(ctx, off));
	/* A page too many after that is a lie. */
	scif_node_stats(ctx->n.a, 1, &st0);
	hostile(test, SCIF_MSG_REG_PAGES, 3002, 2, m.pg, sizeof(m.pg[0]));
	scif_node_stats(ctx->n.a, 1, &st1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st1.rx_drops) -
			atomic64_read(&st0.rx_drops), 1);
	/* The first page in REG_OPEN, the second in REG_PAGES. */
	off += 4 * PAGE_SIZE;
	m.r.offset = cpu_to_le64(off);
	hostile(test, SCIF_MSG_REG_OPEN, 3003, 0, &m, sizeof(m) - 8);
	KUNIT_EXPECT_FALSE(test, peer_win_complete(ctx, off));
	hostile(test, SCIF_MSG_REG_PAGES, 3003, 1, m.pg, sizeof(m.pg[0]));
	KUNIT_EXPECT_TRUE(test, peer_win_complete(ctx, off));
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, c->rma->remote_pages, 4UL);
	mutex_unlock(&c->rma->lock);
}

static void rma_close_releases(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *s = ctx->n.s;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 3, 0, RW, 0), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 3, 0, RW, 0), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_NOT_NULL(test, scif_wtree_find(&s->rma->remote, 0));
	KUNIT_EXPECT_EQ(test, scif_close(ctx->n.c), 0);
	ctx->n.c = NULL;
	KUNIT_EXPECT_TRUE(test,
			  settle_until(ctx, remote_gone));
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.s, 0, 8, 0, 0), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 1, 0, RW, 0),
			-ECONNRESET);
}

static bool local_empty(struct rma_ctx *ctx)
{
	struct scif_endpt *c = ctx->n.c;
	bool empty;

	mutex_lock(&c->rma->lock);
	empty = xa_empty(&c->rma->wins);
	mutex_unlock(&c->rma->lock);
	return empty;
}

/*
 * Register one page of the client's buffer at offset 0, let the peer know
 * it, and return its window (which stays in the client's tables).
 */
static struct scif_window *reg_client_page(struct kunit *test,
					   struct rma_ctx *ctx)
{
	struct scif_endpt *c = ctx->n.c;
	struct scif_window *win;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(c, ctx->cbuf, 1, 0, RW, FIX), 0);
	scif_sim_settle(ctx->n.pair);
	mutex_lock(&c->rma->lock);
	win = scif_wtree_find(&c->rma->local, 0);
	mutex_unlock(&c->rma->lock);
	KUNIT_ASSERT_NOT_NULL(test, win);
	return win;
}

/*
 * An UNREG_ACK or UNREG_SEEN for a window we never unregistered is a lie;
 * once a close dropped all windows at once, it is a late answer and
 * dropped quietly.
 */
static void rma_late_unreg_ack(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_wire_msg m, seen;
	struct scif_window *win;
	u32 id;

	win = reg_client_page(test, ctx);
	id = win->id;
	scif_msg_init(&m, SCIF_MSG_UNREG_ACK, s->id, c->id, s->port, c->port,
		      id);
	scif_msg_init(&seen, SCIF_MSG_UNREG_SEEN, s->id, c->id, s->port,
		      c->port, id);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, NULL, 0),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &seen, NULL, 0),
			-EPROTO);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, win->state, SCIF_WIN_ACTIVE);
	KUNIT_EXPECT_FALSE(test, win->peer_dropped);
	mutex_unlock(&c->rma->lock);
	hostile(test, SCIF_MSG_RMA_CLOSE, 0, 0, NULL, 0);
	KUNIT_ASSERT_TRUE(test, settle_until(ctx, local_empty));
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, NULL, 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &seen, NULL, 0),
			-ENOENT);
}

/*
 * A peer that never confirms an unregister is taken for broken once
 * peer_timeout_ms passed: the connection is reset, and the window stays
 * closed on our side.
 */
/* The peer loses track of the client's window at 0, so it will not answer. */
static void peer_forget_window(struct kunit *test, struct rma_ctx *ctx)
{
	struct scif_endpt *s = ctx->n.s;
	struct scif_window *rwin;

	mutex_lock(&s->rma->lock);
	rwin = scif_wtree_find(&s->rma->remote, 0);
	if (rwin) {
		xa_erase(&s->rma->rwins, rwin->id);
		scif_wtree_erase(&s->rma->remote, rwin);
		s->rma->remote_pages -= rwin->nr_pages;
		s->rma->nr_windows--;
	}
	mutex_unlock(&s->rma->lock);
	KUNIT_ASSERT_NOT_NULL(test, rwin);
	scif_win_put(rwin);
}

static void rma_unregister_peer_silent(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c;
	unsigned int saved = scif_rma_peer_timeout_ms;
	struct scif_window *win;

	win = reg_client_page(test, ctx);
	peer_forget_window(test, ctx);

	WRITE_ONCE(scif_rma_peer_timeout_ms, 200);
	KUNIT_EXPECT_EQ(test, scif_unregister(c, 0, PAGE_SIZE), -ECONNRESET);
	WRITE_ONCE(scif_rma_peer_timeout_ms, saved);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->state), SCIF_EP_DISCONNECTED);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, win->state, SCIF_WIN_UNREGISTERING);
	KUNIT_EXPECT_FALSE(test, win->peer_dropped);
	mutex_unlock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, scif_readfrom(c, 0, 8, 0, 0), -ECONNRESET);
}

/*
 * A registration that stopped waiting (and sent UNREG) and is then refused
 * by the peer is forgotten at once: the peer holds none of it and will
 * not answer the UNREG, which it takes for a late message. A refusal of a
 * window that was active is a lie and changes nothing.
 */
static void rma_register_abandoned_refused(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_window *win;
	struct scif_wire_msg m;
	unsigned int nr;
	u32 id;

	win = reg_client_page(test, ctx);
	peer_forget_window(test, ctx);
	mutex_lock(&c->rma->lock);
	nr = c->rma->nr_windows;
	id = win->id;
	win->state = SCIF_WIN_UNREGISTERING;
	mutex_unlock(&c->rma->lock);
	hostile(test, SCIF_MSG_REG_ACK, id, ENOMEM, NULL, 0);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&c->rma->wins, id), win);
	/* Now as scif_register() leaves a window it gave up on. */
	win->reg_abandoned = true;
	mutex_unlock(&c->rma->lock);
	hostile(test, SCIF_MSG_REG_ACK, id, ENOMEM, NULL, 0);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_NULL(test, xa_load(&c->rma->wins, id));
	KUNIT_EXPECT_NULL(test, scif_wtree_find(&c->rma->local, 0));
	KUNIT_EXPECT_EQ(test, c->rma->nr_windows, nr - 1);
	mutex_unlock(&c->rma->lock);
	/* The peer's view of our UNREG for it. */
	scif_msg_init(&m, SCIF_MSG_UNREG, c->id, s->id, c->port, s->port, id);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.b, 0, &m, NULL, 0),
			-ENOENT);
}

/**
 * struct unreg_cut - what ends an unregister's wait for a silent peer
 * @work: runs once the unregister is waiting
 * @ctx: the test's nodes
 * @link: cut the link (node loss); else the peer closes its endpoint
 */
struct unreg_cut {
	struct delayed_work work;
	struct rma_ctx *ctx;
	bool link;
};

static void unreg_cut_fn(struct work_struct *work)
{
	struct unreg_cut *cut = container_of(to_delayed_work(work),
					     struct unreg_cut, work);

	if (cut->link)
		scif_sim_pair_down(cut->ctx->n.pair);
	else
		scif_close(cut->ctx->n.s);
}

/*
 * An unregister waiting for a peer that will not answer ends as soon as
 * the connection does, with the error of what ended it, not at
 * peer_timeout_ms; the window stays closed on our side.
 */
static void unregister_cut(struct kunit *test, bool link, int want)
{
	struct rma_ctx *ctx = test->priv;
	struct unreg_cut cut = { .ctx = ctx, .link = link };
	unsigned int saved = scif_rma_peer_timeout_ms;
	struct scif_endpt *c = ctx->n.c;
	struct scif_window *win;
	unsigned long start;
	int ret;

	win = reg_client_page(test, ctx);
	peer_forget_window(test, ctx);
	WRITE_ONCE(scif_rma_peer_timeout_ms, 60000);
	INIT_DELAYED_WORK_ONSTACK(&cut.work, unreg_cut_fn);
	schedule_delayed_work(&cut.work, msecs_to_jiffies(100));
	start = jiffies;
	ret = scif_unregister(c, 0, PAGE_SIZE);
	flush_delayed_work(&cut.work);
	destroy_delayed_work_on_stack(&cut.work);
	WRITE_ONCE(scif_rma_peer_timeout_ms, saved);
	if (!link)
		ctx->n.s = NULL;
	KUNIT_EXPECT_EQ(test, ret, want);
	KUNIT_EXPECT_LT(test, jiffies - start, msecs_to_jiffies(30000));
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, win->state, SCIF_WIN_UNREGISTERING);
	mutex_unlock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, scif_unregister(c, 0, PAGE_SIZE), want);
}

static void rma_unregister_peer_closes(struct kunit *test)
{
	unregister_cut(test, false, -ECONNRESET);
}

static void rma_unregister_node_lost(struct kunit *test)
{
	unregister_cut(test, true, -ENODEV);
}

/*
 * Answers that come after this side gave up on them are late, not lies:
 * the pages of a window refused at REG_OPEN, and a REG_ACK for a register
 * that stopped waiting, are dropped quietly (-ENOENT). A second REG_ACK
 * for an active window stays a protocol error.
 */
static void rma_late_reg_answers(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_wire_reg r = {};
	struct scif_wire_msg m;
	struct scif_window *win;
	__le64 pg;
	u32 id;

	/* More pages than the budget: refused with a NACK, not an error. */
	r.offset = cpu_to_le64(1ULL << 30);
	r.nr_pages = cpu_to_le64(SCIF_RMA_MAX_REMOTE_PAGES + 1ULL);
	r.prot = cpu_to_le32(RW);
	scif_msg_init(&m, SCIF_MSG_REG_OPEN, s->id, c->id, s->port, c->port,
		      1100);
	m.len = cpu_to_le16(sizeof(r));
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, &r, sizeof(r)),
			0);
	/* Its first pages were already on the way. */
	pg = cpu_to_le64(page_to_phys(vmalloc_to_page(ctx->sbuf)));
	scif_msg_init(&m, SCIF_MSG_REG_PAGES, s->id, c->id, s->port, c->port,
		      1100);
	m.len = cpu_to_le16(sizeof(pg));
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, &pg, sizeof(pg)),
			-ENOENT);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, c->rma->remote_pages, 0UL);
	mutex_unlock(&c->rma->lock);

	win = reg_client_page(test, ctx);
	id = win->id;
	scif_msg_init(&m, SCIF_MSG_REG_ACK, s->id, c->id, s->port, c->port, id);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, NULL, 0),
			-EPROTO);
	/* As scif_register() leaves a window it stopped waiting for. */
	mutex_lock(&c->rma->lock);
	win->state = SCIF_WIN_UNREGISTERING;
	mutex_unlock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, NULL, 0),
			-ENOENT);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, win->state, SCIF_WIN_UNREGISTERING);
	win->state = SCIF_WIN_ACTIVE;
	mutex_unlock(&c->rma->lock);
}

/* Register one page of the client's buffer at 0, for scif_kt_start(). */
static int reg_client_page_fn(void *arg)
{
	struct rma_ctx *ctx = arg;

	return scif_kt_reg(ctx->n.c, ctx->cbuf, 1, 0, RW, FIX);
}

/* Messages node 0 sent to node 1 so far. */
static s64 client_tx(struct rma_ctx *ctx)
{
	struct scif_node_stats st;

	scif_node_stats(ctx->n.a, 1, &st);
	return atomic64_read(&st.tx_msgs);
}

static s64 client_drops(struct rma_ctx *ctx)
{
	struct scif_node_stats st;

	scif_node_stats(ctx->n.a, 1, &st);
	return atomic64_read(&st.rx_drops);
}

/*
 * Hold the peer on its registration lock and register one page of the
 * client's in @call; true once the REG_OPEN went out. The lock stays held
 * (the caller unlocks it) and no assertion may end the test until then.
 */
static bool reg_with_peer_held(struct kunit *test, struct rma_ctx *ctx,
			       struct scif_kt_call *call)
{
	struct scif_endpt *s = ctx->n.s;
	s64 tx = client_tx(ctx);
	bool sent = false;
	int i;

	mutex_lock(&s->rma->lock);
	if (scif_kt_start(call, reg_client_page_fn, ctx)) {
		mutex_unlock(&s->rma->lock);
		KUNIT_FAIL_AND_ABORT(test, "no thread");
	}
	for (i = 0; i < 500 && !sent; i++) {
		msleep(20);
		sent = client_tx(ctx) > tx;
	}
	return sent;
}

/*
 * The peer resets the connection while our REG_OPEN is on its way, then
 * takes the window all the same and acknowledges it. scif_register()
 * ended with ECONNRESET and forgot the window, so the REG_ACK names a
 * window that is gone, on an endpoint that is no longer usable: a late
 * answer, dropped quietly (-ENOENT), not a lie. The peer is held on its
 * registration lock so that the reset (its DISCONNECT, forged) surely
 * comes first.
 */
static void rma_late_reg_ack_after_reset(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_kt_call call;
	struct scif_wire_msg m;
	struct scif_endpt *c2, *s2;
	unsigned long id = 0;
	bool sent, joined;
	int injected;
	s64 drops;

	sent = reg_with_peer_held(test, ctx, &call);
	/* The window is in our tables from before its REG_OPEN went out. */
	if (sent && !xa_find(&c->rma->wins, &id, ULONG_MAX, XA_PRESENT))
		id = 0;
	scif_msg_init(&m, SCIF_MSG_DISCONNECT, s->id, c->id, s->port, c->port,
		      0);
	injected = scif_sim_inject(ctx->n.pair, ctx->n.a, &m, sizeof(m));
	joined = scif_kt_join(&call, 10000);
	drops = client_drops(ctx);
	mutex_unlock(&s->rma->lock);
	if (!joined)
		wait_for_completion(&call.done);

	KUNIT_ASSERT_TRUE(test, sent);
	KUNIT_ASSERT_NE(test, id, 0UL);
	KUNIT_ASSERT_EQ(test, injected, 0);
	KUNIT_EXPECT_TRUE(test, joined);
	KUNIT_EXPECT_EQ(test, call.ret, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->state), SCIF_EP_DISCONNECTED);
	/* The peer's REG_ACK arrives now, and is counted as dropped. */
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, client_drops(ctx), drops + 1);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->rma->wins));
	KUNIT_EXPECT_EQ(test, c->rma->nr_windows, 0U);
	mutex_unlock(&c->rma->lock);
	/* Late, whether the peer took the window or refused it. */
	scif_msg_init(&m, SCIF_MSG_REG_ACK, s->id, c->id, s->port, c->port, id);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, NULL, 0),
			-ENOENT);
	m.seq = cpu_to_le32(ENOMEM);
	KUNIT_EXPECT_EQ(test, scif_handle_rma(ctx->n.a, 1, &m, NULL, 0),
			-ENOENT);
	mutex_lock(&c->rma->lock);
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->rma->wins));
	mutex_unlock(&c->rma->lock);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->state), SCIF_EP_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, c->reset_err, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(c, ctx->cbuf, 1, 0, RW, FIX),
			-ECONNRESET);
	/* Registration on a new connection between the nodes is unaffected. */
	scif_kt_pair(test, ctx->n.a, ctx->n.b, 1, &c2, &s2);
	KUNIT_EXPECT_EQ(test, scif_kt_reg(c2, ctx->cbuf, 1, 0, RW, FIX), 0);
	scif_close(c2);
	scif_close(s2);
}

/* scif_close() of the client, for scif_kt_start(). */
static int close_client_fn(void *arg)
{
	struct rma_ctx *ctx = arg;

	return scif_close(ctx->n.c);
}

/*
 * Our own close ends a registration whose REG_OPEN the peer may already
 * hold: scif_register() fails (ECONNRESET), but the window stays in our
 * tables, pinned, until the peer answered close's RMA_CLOSE; then close
 * releases it with the others. (Forgetting it at once would free pages
 * the peer may still write into.) The peer is held on its registration
 * lock until the register call has returned.
 */
static void rma_close_during_register(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_kt_call reg, cls;
	bool sent, joined, held;
	int started;

	sent = reg_with_peer_held(test, ctx, &reg);
	started = scif_kt_start(&cls, close_client_fn, ctx);
	joined = !started && scif_kt_join(&reg, 10000);
	/* The other endpoint's lock of the same class: one level deeper. */
	mutex_lock_nested(&c->rma->lock, SINGLE_DEPTH_NESTING);
	held = !xa_empty(&c->rma->wins);
	mutex_unlock(&c->rma->lock);
	mutex_unlock(&s->rma->lock);
	if (started) {
		/* No close thread: close here, once the peer is let go. */
		scif_close(c);
	} else {
		KUNIT_EXPECT_TRUE(test, scif_kt_join(&cls, 30000));
		KUNIT_EXPECT_EQ(test, cls.ret, 0);
	}
	if (!joined)
		wait_for_completion(&reg.done);
	ctx->n.c = NULL;

	KUNIT_ASSERT_TRUE(test, sent);
	KUNIT_ASSERT_EQ(test, started, 0);
	KUNIT_EXPECT_TRUE(test, joined);
	KUNIT_EXPECT_EQ(test, reg.ret, -ECONNRESET);
	KUNIT_EXPECT_TRUE(test, held);
	/* The peer took the window, then dropped it for close's RMA_CLOSE. */
	KUNIT_EXPECT_TRUE(test, settle_until(ctx, remote_gone));
}

/* Whether @c's RMA state holds no window any more. */
static bool rma_wins_all_freed(struct scif_endpt *c)
{
	bool freed;

	mutex_lock(&c->rma->lock);
	freed = xa_empty(&c->rma->wins) && !c->rma->nr_windows;
	mutex_unlock(&c->rma->lock);
	return freed;
}

/*
 * A connection this side reset while the peer's node stays online: close
 * keeps the windows pinned, since the peer may still write them, and the
 * loss of the node frees them. (Before, they stayed for good, and
 * kmemleak reported them once the endpoint was freed.)
 */
static void rma_reset_keeps_until_node_loss(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c;
	bool kept, freed;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(c, ctx->cbuf, 2, 0, RW, FIX), 0);
	scif_sim_settle(ctx->n.pair);
	/* Our own reference: the RMA state outlives the close. */
	kref_get(&c->ref);
	scif_ep_reset(c, -EPROTO);
	KUNIT_EXPECT_EQ(test, scif_close(c), 0);
	ctx->n.c = NULL;
	mutex_lock(&c->rma->lock);
	kept = !xa_empty(&c->rma->wins);
	mutex_unlock(&c->rma->lock);
	scif_sim_pair_down(ctx->n.pair);
	freed = rma_wins_all_freed(c);
	scif_ep_put(c);
	KUNIT_EXPECT_TRUE(test, kept);
	KUNIT_EXPECT_TRUE(test, freed);
}

/*
 * A close the peer does not answer in time: its receive path is held on
 * its registration lock, so no RMA_CLOSE_ACK comes within the timeout.
 * Close keeps the windows pinned, as for a reset, and node loss frees
 * them. The close runs in a thread: it takes a lock of the class the test
 * holds.
 */
static void rma_close_unanswered_keeps_until_node_loss(struct kunit *test)
{
	struct rma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	unsigned int saved = scif_rma_peer_timeout_ms;
	struct scif_kt_call cls;
	bool joined, kept, freed;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(c, ctx->cbuf, 2, 0, RW, FIX), 0);
	scif_sim_settle(ctx->n.pair);
	kref_get(&c->ref);
	WRITE_ONCE(scif_rma_peer_timeout_ms, 200);
	mutex_lock(&s->rma->lock);
	if (scif_kt_start(&cls, close_client_fn, ctx)) {
		mutex_unlock(&s->rma->lock);
		WRITE_ONCE(scif_rma_peer_timeout_ms, saved);
		scif_ep_put(c);
		KUNIT_FAIL_AND_ABORT(test, "no thread");
	}
	joined = scif_kt_join(&cls, 30000);
	mutex_lock_nested(&c->rma->lock, SINGLE_DEPTH_NESTING);
	kept = !xa_empty(&c->rma->wins);
	mutex_unlock(&c->rma->lock);
	mutex_unlock(&s->rma->lock);
	if (!joined)
		wait_for_completion(&cls.done);
	WRITE_ONCE(scif_rma_peer_timeout_ms, saved);
	ctx->n.c = NULL;
	/* The late RMA_CLOSE_ACK finds the endpoint closed. */
	scif_sim_settle(ctx->n.pair);
	scif_sim_pair_down(ctx->n.pair);
	freed = rma_wins_all_freed(c);
	scif_ep_put(c);
	KUNIT_EXPECT_TRUE(test, joined);
	KUNIT_EXPECT_EQ(test, cls.ret, 0);
	KUNIT_EXPECT_TRUE(test, kept);
	KUNIT_EXPECT_TRUE(test, freed);
}

static struct kunit_case scif_rma_cases[] = {
	KUNIT_CASE(rma_register_errors),
	KUNIT_CASE(rma_random_copies),
	KUNIT_CASE(rma_copy_errors),
	KUNIT_CASE(rma_unregister_deferred),
	KUNIT_CASE(rma_fences),
	KUNIT_CASE(rma_fence_marks_bounded),
	KUNIT_CASE(rma_peer_signals_run_on_done),
	KUNIT_CASE(rma_fence_peer_over_cap),
	KUNIT_CASE(rma_hostile_peer),
	KUNIT_CASE(rma_reg_open_carries_pages),
	KUNIT_CASE(rma_close_releases),
	KUNIT_CASE(rma_late_unreg_ack),
	KUNIT_CASE(rma_unregister_peer_silent),
	KUNIT_CASE(rma_register_abandoned_refused),
	KUNIT_CASE(rma_unregister_peer_closes),
	KUNIT_CASE(rma_unregister_node_lost),
	KUNIT_CASE(rma_late_reg_answers),
	KUNIT_CASE(rma_late_reg_ack_after_reset),
	KUNIT_CASE(rma_close_during_register),
	KUNIT_CASE(rma_reset_keeps_until_node_loss),
	KUNIT_CASE(rma_close_unanswered_keeps_until_node_loss),
	{}
};

static struct kunit_suite scif_rma_suite = {
	.name = "scif_rma",
	.init = rma_init,
	.exit = rma_exit,
	.test_cases = scif_rma_cases,
};

kunit_test_suite(scif_rma_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF registration and RMA");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
