// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the DMA path of SCIF RMA across two nodes joined by the
 * simulated link, with swdma.ko as the dmaengine provider: data at odd
 * alignments and lengths over spans of windows, asynchronous RMAs completed
 * by fences and signals, SCIF_RMA_SYNC, SCIF_RMA_ORDERED, heads and tails
 * the engine cannot align, the CPU fallback without channels, channels
 * dropped under running transfers, and close or node loss with transfers in
 * flight.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kmod.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scif.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "rma/scif_dma.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"
#include "scif_kunit_sim.h"
#include "rma/scif_rma.h"

#define DMA_PAGES	32
#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define LBASE		0x100000
#define RBASE		0x7000000

/**
 * struct dma_ctx - two nodes, a connected pair and a buffer on each side
 * @n: the nodes, their link, and endpoint c on node 0 connected to s on 1
 * @cbuf: @DMA_PAGES pages of n.c's side, registered at %LBASE
 * @sbuf: @DMA_PAGES pages of n.s's side, registered at %RBASE
 * @v: @DMA_PAGES pages for the v* calls
 */
struct dma_ctx {
	struct scif_kt_nodes n;
	u8 *cbuf;
	u8 *sbuf;
	u8 *v;
};

#define SIZE	(DMA_PAGES * PAGE_SIZE)

/* Windows of 1..4 pages back to back over @buf, at @off. */
static void reg_run(struct kunit *test, scif_epd_t ep, u8 *buf, off_t off)
{
	unsigned int done = 0, n;

	while (done < DMA_PAGES) {
		n = min(1 + done % 4, DMA_PAGES - done);
		KUNIT_ASSERT_EQ(test, scif_register(ep, buf + done * PAGE_SIZE,
						    n * PAGE_SIZE,
						    off + done * PAGE_SIZE, RW,
						    SCIF_MAP_FIXED |
						    SCIF_MAP_KERNEL),
				off + (off_t)done * PAGE_SIZE);
		done += n;
	}
}

static int dma_suite_init(struct kunit_suite *suite)
{
	/* The provider; scif.ko asks for channels on the next RMA. */
	request_module("swdma");
	scif_dma_configure(2, 1);
	return 0;
}

static void dma_suite_exit(struct kunit_suite *suite)
{
	/* Back to the defaults, and the channels back to swdma. */
	scif_dma_configure(-1, 1);
}

static int dma_init(struct kunit *test)
{
	struct dma_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	scif_dma_configure(2, 1);
	scif_kt_nodes_up(test, &ctx->n, "kunit_dma_a", "kunit_dma_b", 1024);
	scif_kt_nodes_connect(test, &ctx->n);
	ctx->cbuf = vmalloc(SIZE);
	ctx->sbuf = vmalloc(SIZE);
	ctx->v = vmalloc(SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->cbuf);
	KUNIT_ASSERT_NOT_NULL(test, ctx->sbuf);
	KUNIT_ASSERT_NOT_NULL(test, ctx->v);
	reg_run(test, ctx->n.c, ctx->cbuf, LBASE);
	reg_run(test, ctx->n.s, ctx->sbuf, RBASE);
	return 0;
}

static void dma_exit(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;

	scif_kt_nodes_down(&ctx->n);
	vfree(ctx->cbuf);
	vfree(ctx->sbuf);
	vfree(ctx->v);
}

static void fence_self(struct kunit *test, scif_epd_t ep)
{
	int mark;

	KUNIT_ASSERT_EQ(test, scif_fence_mark(ep, SCIF_FENCE_INIT_SELF, &mark),
			0);
	KUNIT_ASSERT_EQ(test, scif_fence_wait(ep, mark), 0);
}

/*
 * One RMA of kind @op (0 writeto, 1 readfrom, 2 vwriteto, 3 vreadfrom)
 * from the client: @len bytes at @lo of its side (its buffer, or @v) and
 * @ro of the server's. Returns the call's result; the caller fences.
 */
static int one_rma(struct dma_ctx *ctx, int op, size_t lo, size_t ro,
		   size_t len, int flags)
{
	switch (op) {
	case 0:
		return scif_writeto(ctx->n.c, LBASE + lo, len, RBASE + ro,
				    flags);
	case 1:
		return scif_readfrom(ctx->n.c, LBASE + lo, len, RBASE + ro,
				     flags);
	case 2:
		return scif_vwriteto(ctx->n.c, ctx->v + lo, len, RBASE + ro,
				     flags);
	default:
		return scif_vreadfrom(ctx->n.c, ctx->v + lo, len, RBASE + ro,
				      flags);
	}
}

/* The bytes @op copied are equal on both sides. */
static bool rma_landed(struct dma_ctx *ctx, int op, size_t lo, size_t ro,
		       size_t len)
{
	u8 *l = op < 2 ? ctx->cbuf : ctx->v;

	return !memcmp(l + lo, ctx->sbuf + ro, len);
}

static void fill(struct dma_ctx *ctx)
{
	get_random_bytes(ctx->cbuf, SIZE);
	get_random_bytes(ctx->sbuf, SIZE);
	get_random_bytes(ctx->v, SIZE);
}

/* A length that is odd, small, page-ish or large, at random. */
static size_t rand_len(void)
{
	switch (get_random_u32_below(4)) {
	case 0:
		return 1 + get_random_u32_below(64);
	case 1:
		return PAGE_SIZE - 3 + get_random_u32_below(7);
	default:
		return 1 + get_random_u32_below(SIZE);
	}
}

/* Channels are there, and RMAs without USECPU go through them. */
static void dma_channels_used(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	struct scif_dma_stats st0, st1;

	scif_dma_get_stats(&st0);
	fill(ctx);
	KUNIT_ASSERT_EQ(test, scif_writeto(ctx->n.c, LBASE, SIZE, RBASE,
					   SCIF_RMA_SYNC), 0);
	KUNIT_EXPECT_TRUE(test, rma_landed(ctx, 0, 0, 0, SIZE));
	scif_dma_get_stats(&st1);
	KUNIT_ASSERT_GT_MSG(test, st1.channels, 0U,
			    "no dmaengine channel (is swdma.ko there?)");
	KUNIT_EXPECT_EQ(test, st1.dma_bytes - st0.dma_bytes, (u64)SIZE);
	/* USECPU stays off the engines. */
	KUNIT_ASSERT_EQ(test, scif_readfrom(ctx->n.c, LBASE, SIZE, RBASE,
					    SCIF_RMA_USECPU), 0);
	scif_dma_get_stats(&st0);
	KUNIT_EXPECT_EQ(test, st0.dma_bytes, st1.dma_bytes);
}

/* SYNC RMAs of every kind at odd alignments and lengths, across windows. */
static void dma_sync_odd(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	size_t len, lo, ro;
	int i, op, flags;

	for (i = 0; i < 300; i++) {
		len = rand_len();
		lo = get_random_u32_below(SIZE - len + 1);
		ro = get_random_u32_below(SIZE - len + 1);
		op = get_random_u32_below(4);
		flags = SCIF_RMA_SYNC |
			(get_random_u32_below(2) ? SCIF_RMA_ORDERED : 0);
		if (!(i % 16))
			fill(ctx);
		KUNIT_ASSERT_EQ(test, one_rma(ctx, op, lo, ro, len, flags), 0);
		KUNIT_ASSERT_TRUE_MSG(test, rma_landed(ctx, op, lo, ro, len),
				      "op %d lo %zu ro %zu len %zu flags %#x",
				      op, lo, ro, len, flags);
	}
}

/*
 * Asynchronous RMAs to disjoint pieces, then one fence for all of them;
 * and a signal that must land only after the data.
 */
static void dma_async_fence(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	size_t piece = SIZE / 8, lo[8], len[8];
	u64 *flag = (u64 *)ctx->cbuf;
	int round, k;

	for (round = 0; round < 20; round++) {
		fill(ctx);
		/* Piece 0 stays untouched for the signal below. */
		for (k = 1; k < 8; k++) {
			lo[k] = k * piece + get_random_u32_below(64);
			len[k] = piece - 64 - get_random_u32_below(64);
			KUNIT_ASSERT_EQ(test, one_rma(ctx, (round + k) % 4,
						      lo[k], lo[k], len[k], 0),
					0);
		}
		fence_self(test, ctx->n.c);
		for (k = 1; k < 8; k++)
			KUNIT_ASSERT_TRUE_MSG(test,
					      rma_landed(ctx, (round + k) % 4,
							 lo[k], lo[k], len[k]),
					      "round %d piece %d", round, k);
	}

	/* A signal after async writes: the data is there when it lands. */
	fill(ctx);
	*flag = 0;
	KUNIT_ASSERT_EQ(test, scif_writeto(ctx->n.c, LBASE + PAGE_SIZE,
					   SIZE - PAGE_SIZE, RBASE + PAGE_SIZE,
					   0), 0);
	KUNIT_ASSERT_EQ(test, scif_fence_signal(ctx->n.c, LBASE, 0x77, 0, 0,
						SCIF_FENCE_INIT_SELF |
						SCIF_SIGNAL_LOCAL), 0);
	for (k = 0; k < 500 && READ_ONCE(*flag) != 0x77; k++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, READ_ONCE(*flag), 0x77ULL);
	KUNIT_EXPECT_TRUE(test, rma_landed(ctx, 0, PAGE_SIZE, PAGE_SIZE,
					   SIZE - PAGE_SIZE));
	/* A peer fence covers our async RMAs too. */
	fill(ctx);
	KUNIT_ASSERT_EQ(test, scif_readfrom(ctx->n.c, LBASE, SIZE, RBASE, 0),
			0);
	KUNIT_ASSERT_EQ(test, scif_fence_mark(ctx->n.s, SCIF_FENCE_INIT_PEER,
					      &k), 0);
	KUNIT_ASSERT_EQ(test, scif_fence_wait(ctx->n.s, k), 0);
	KUNIT_EXPECT_TRUE(test, rma_landed(ctx, 1, 0, 0, SIZE));
}

/*
 * SCIF_RMA_ORDERED, asynchronous: once the last byte of the destination
 * changed, every other byte has. Pages of the vmalloc buffers are rarely
 * contiguous, so the copy is many descriptors over two channels that could
 * otherwise finish in any order.
 */
static void dma_ordered(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	unsigned long end;
	size_t lo, len;
	u8 *last;
	int round;

	for (round = 0; round < 20; round++) {
		len = SIZE - 1 - get_random_u32_below(PAGE_SIZE);
		lo = get_random_u32_below(SIZE - len + 1);
		fill(ctx);
		memset(ctx->sbuf, 0, SIZE);
		ctx->cbuf[lo + len - 1] |= 1;
		last = ctx->sbuf + lo + len - 1;
		KUNIT_ASSERT_EQ(test, scif_writeto(ctx->n.c, LBASE + lo, len,
						   RBASE + lo,
						   SCIF_RMA_ORDERED), 0);
		end = jiffies + 10 * HZ;
		while (!READ_ONCE(*last) && time_before(jiffies, end))
			usleep_range(5, 10);
		KUNIT_ASSERT_NE(test, READ_ONCE(*last), 0);
		smp_rmb(); /* read the rest after the last byte */
		KUNIT_ASSERT_TRUE_MSG(test, rma_landed(ctx, 0, lo, lo, len),
				      "round %d lo %zu len %zu", round, lo,
				      len);
		fence_self(test, ctx->n.c);
	}
}

/*
 * An engine that needs 64-byte alignment: heads and tails go to the CPU,
 * the body to the engine; mismatched alignments go to the CPU whole.
 */
static void dma_align(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	struct scif_dma_stats st0, st1;
	size_t lo, ro, len;
	int i, op;

	scif_dma_configure(2, 64);
	scif_dma_get_stats(&st0);
	for (i = 0; i < 100; i++) {
		len = 200 + get_random_u32_below(3 * PAGE_SIZE);
		lo = get_random_u32_below(SIZE - len + 1);
		/* Same misalignment on both sides half of the time. */
		if (i % 2)
			ro = (get_random_u32_below(SIZE - len + 1) & ~63UL) +
			     (lo & 63);
		else
			ro = get_random_u32_below(SIZE - len + 1);
		if (ro + len > SIZE)
			ro -= 64;
		op = get_random_u32_below(4);
		fill(ctx);
		KUNIT_ASSERT_EQ(test, one_rma(ctx, op, lo, ro, len,
					      i % 3 ? SCIF_RMA_SYNC : 0), 0);
		fence_self(test, ctx->n.c);
		KUNIT_ASSERT_TRUE_MSG(test, rma_landed(ctx, op, lo, ro, len),
				      "op %d lo %zu ro %zu len %zu", op, lo,
				      ro, len);
	}
	scif_dma_get_stats(&st1);
	KUNIT_EXPECT_GT(test, st1.dma_bytes, st0.dma_bytes);
	KUNIT_EXPECT_GT(test, st1.cpu_bytes, st0.cpu_bytes);
}

/* No channel: the CPU does it all; channels come back when allowed. */
static void dma_fallback(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	struct scif_dma_stats st0, st1;

	scif_dma_configure(0, 1);
	scif_dma_get_stats(&st0);
	KUNIT_EXPECT_EQ(test, st0.channels, 0U);
	fill(ctx);
	KUNIT_ASSERT_EQ(test, scif_writeto(ctx->n.c, LBASE + 5, SIZE - 9,
					   RBASE + 3, 0), 0);
	/* The CPU path is synchronous: no fence needed. */
	KUNIT_EXPECT_TRUE(test, rma_landed(ctx, 0, 5, 3, SIZE - 9));
	KUNIT_ASSERT_EQ(test, scif_vreadfrom(ctx->n.c, ctx->v + 1, SIZE - 1,
					     RBASE, SCIF_RMA_ORDERED), 0);
	KUNIT_EXPECT_TRUE(test, rma_landed(ctx, 3, 1, 0, SIZE - 1));
	scif_dma_get_stats(&st1);
	KUNIT_EXPECT_EQ(test, st1.dma_bytes, st0.dma_bytes);
	KUNIT_EXPECT_EQ(test, st1.channels, 0U);

	scif_dma_configure(2, 1);
	fill(ctx);
	KUNIT_ASSERT_EQ(test, scif_readfrom(ctx->n.c, LBASE, SIZE, RBASE,
					    SCIF_RMA_SYNC), 0);
	KUNIT_EXPECT_TRUE(test, rma_landed(ctx, 1, 0, 0, SIZE));
	scif_dma_get_stats(&st0);
	KUNIT_EXPECT_GT(test, st0.channels, 0U);
	KUNIT_EXPECT_GT(test, st0.dma_bytes, st1.dma_bytes);
}

/*
 * Channels released under running transfers: their descriptors are
 * aborted and the CPU redoes them, so the data still arrives.
 */
static void dma_aborted_redone(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	struct scif_dma_stats st0, st1;
	int round, k;

	scif_dma_get_stats(&st0);
	for (round = 0; round < 10; round++) {
		fill(ctx);
		for (k = 0; k < 4; k++)
			KUNIT_ASSERT_EQ(test, one_rma(ctx, k, k * SIZE / 4,
						      k * SIZE / 4, SIZE / 4,
						      0), 0);
		scif_dma_configure(2, 1);
		fence_self(test, ctx->n.c);
		for (k = 0; k < 4; k++)
			KUNIT_ASSERT_TRUE_MSG(test,
					      rma_landed(ctx, k, k * SIZE / 4,
							 k * SIZE / 4,
							 SIZE / 4),
					      "round %d quarter %d", round, k);
	}
	scif_dma_get_stats(&st1);
	kunit_info(test, "%llu descriptors aborted and redone by the CPU\n",
		   st1.failed - st0.failed);
}

/*
 * Far more asynchronous RMAs than an endpoint may have in flight: callers
 * wait for room, and the last write to each page wins.
 */
static void dma_many_async(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c;
	unsigned int most = 0, n;
	int i;

	fill(ctx);
	for (i = 0; i < 2000; i++) {
		KUNIT_ASSERT_EQ(test, one_rma(ctx, 0, (i % DMA_PAGES) * PAGE_SIZE,
					      (i % DMA_PAGES) * PAGE_SIZE,
					      PAGE_SIZE, 0), 0);
		spin_lock(&c->rma->ilock);
		n = c->rma->nr_reqs;
		spin_unlock(&c->rma->ilock);
		most = max(most, n);
	}
	fence_self(test, ctx->n.c);
	KUNIT_EXPECT_TRUE(test, rma_landed(ctx, 0, 0, 0, SIZE));
	/* The cap is 256, give or take the callers racing for the last slot. */
	KUNIT_EXPECT_LE(test, most, 257U);
	kunit_info(test, "at most %u RMAs in flight\n", most);
}

/* Close, or lose the node, with transfers in flight: nothing hangs. */
static void dma_close_inflight(struct kunit *test)
{
	struct dma_ctx *ctx = test->priv;
	int k;

	for (k = 0; k < 16; k++)
		KUNIT_ASSERT_EQ(test, one_rma(ctx, k % 4, 0, 0, SIZE, 0), 0);
	KUNIT_EXPECT_EQ(test, scif_close(ctx->n.c), 0);
	ctx->n.c = NULL;
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.s, RBASE, SIZE, LBASE, 0),
			-ECONNRESET);
	scif_close(ctx->n.s);
	ctx->n.s = NULL;

	/* A new pair, then the link goes away under async transfers. */
	scif_kt_nodes_connect(test, &ctx->n);
	reg_run(test, ctx->n.c, ctx->cbuf, LBASE);
	reg_run(test, ctx->n.s, ctx->sbuf, RBASE);
	scif_sim_settle(ctx->n.pair);
	for (k = 0; k < 16; k++)
		KUNIT_ASSERT_EQ(test, one_rma(ctx, k % 4, 0, 0, SIZE, 0), 0);
	scif_sim_pair_down(ctx->n.pair);
	KUNIT_EXPECT_LT(test, one_rma(ctx, 0, 0, 0, SIZE, 0), 0);
	/* Closing drains what is left (dma_exit closes). */
}

static struct kunit_case scif_dma_cases[] = {
	KUNIT_CASE(dma_channels_used),
	KUNIT_CASE(dma_sync_odd),
	KUNIT_CASE(dma_async_fence),
	KUNIT_CASE(dma_ordered),
	KUNIT_CASE(dma_align),
	KUNIT_CASE(dma_fallback),
	KUNIT_CASE(dma_aborted_redone),
	KUNIT_CASE(dma_many_async),
	KUNIT_CASE(dma_close_inflight),
	{}
};

static struct kunit_suite scif_dma_suite = {
	.name = "scif_dma",
	.suite_init = dma_suite_init,
	.suite_exit = dma_suite_exit,
	.init = dma_init,
	.exit = dma_exit,
	.test_cases = scif_dma_cases,
};

kunit_test_suite(scif_dma_suite);

MODULE_DESCRIPTION("KUnit tests for the DMA path of SCIF RMA");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
