// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for swdma: what dmatest does not cover -- completion order,
 * DMA_INTERRUPT descriptors, callback results, termination and the
 * prep-time limits. Takes one of swdma's channels (swdma_filter() makes
 * modprobe load swdma first).
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swdma.h>

#define NR_DESC		16
#define PIECE		SZ_128K

/**
 * struct swk_rec - what the callbacks of one test saw
 * @lock: guards @order, @n and @res
 * @order: indices of the descriptors in callback order
 * @n: callbacks seen
 * @res: result per descriptor index; -1 if never called
 * @residue: residue per descriptor index
 * @last: completed by the callback of descriptor @last_idx
 * @last_idx: index whose callback completes @last
 */
struct swk_rec {
	spinlock_t lock; /* see above */
	int order[NR_DESC + 1];
	int n;
	int res[NR_DESC + 1];
	u32 residue[NR_DESC + 1];
	struct completion last;
	int last_idx;
};

struct swk_cb {
	struct swk_rec *rec;
	int idx;
};

/**
 * struct swk_ctx - per-test state
 * @chan: swdma channel
 * @dev: device to map buffers with
 * @src: source buffer, @len bytes
 * @dst: destination buffer, @len bytes
 * @len: buffer size
 * @src_dma: @src mapped to the device
 * @dst_dma: @dst mapped to the device
 * @src_mapped: @src_dma is valid
 * @dst_mapped: @dst_dma is valid
 */
struct swk_ctx {
	struct dma_chan *chan;
	struct device *dev;
	u8 *src;
	u8 *dst;
	size_t len;
	dma_addr_t src_dma;
	dma_addr_t dst_dma;
	bool src_mapped;
	bool dst_mapped;
};

static void swk_note(struct swk_cb *cb, int res, u32 residue)
{
	struct swk_rec *rec = cb->rec;
	unsigned long flags;

	spin_lock_irqsave(&rec->lock, flags);
	if (rec->n <= NR_DESC)
		rec->order[rec->n++] = cb->idx;
	rec->res[cb->idx] = res;
	rec->residue[cb->idx] = residue;
	spin_unlock_irqrestore(&rec->lock, flags);
	if (cb->idx == rec->last_idx)
		complete(&rec->last);
}

static void swk_result(void *arg, const struct dmaengine_result *r)
{
	swk_note(arg, r->result, r->residue);
}

static void swk_legacy(void *arg)
{
	swk_note(arg, DMA_TRANS_NOERROR, 0);
}

static void swk_rec_init(struct swk_rec *rec, int last_idx)
{
	int i;

	spin_lock_init(&rec->lock);
	init_completion(&rec->last);
	rec->n = 0;
	rec->last_idx = last_idx;
	for (i = 0; i <= NR_DESC; i++)
		rec->res[i] = -1;
}

static int swk_init(struct kunit *test)
{
	struct swk_ctx *ctx;
	dma_cap_mask_t mask;
	size_t i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	ctx->chan = dma_request_channel(mask, swdma_filter, NULL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->chan);
	ctx->dev = ctx->chan->device->dev;

	ctx->len = NR_DESC * PIECE;
	ctx->src = kmalloc(ctx->len, GFP_KERNEL);
	ctx->dst = kmalloc(ctx->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->src);
	KUNIT_ASSERT_NOT_NULL(test, ctx->dst);
	for (i = 0; i < ctx->len; i++)
		ctx->src[i] = i * 7 + 3;
	memset(ctx->dst, 0, ctx->len);

	ctx->src_dma = dma_map_single(ctx->dev, ctx->src, ctx->len,
				      DMA_TO_DEVICE);
	KUNIT_ASSERT_FALSE(test, dma_mapping_error(ctx->dev, ctx->src_dma));
	ctx->src_mapped = true;
	ctx->dst_dma = dma_map_single(ctx->dev, ctx->dst, ctx->len,
				      DMA_FROM_DEVICE);
	KUNIT_ASSERT_FALSE(test, dma_mapping_error(ctx->dev, ctx->dst_dma));
	ctx->dst_mapped = true;
	return 0;
}

static void swk_exit(struct kunit *test)
{
	struct swk_ctx *ctx = test->priv;

	if (!ctx)
		return;
	if (ctx->chan) {
		dmaengine_terminate_sync(ctx->chan);
		if (ctx->dst_mapped)
			dma_unmap_single(ctx->dev, ctx->dst_dma, ctx->len,
					 DMA_FROM_DEVICE);
		if (ctx->src_mapped)
			dma_unmap_single(ctx->dev, ctx->src_dma, ctx->len,
					 DMA_TO_DEVICE);
		dma_release_channel(ctx->chan);
	}
	kfree(ctx->src);
	kfree(ctx->dst);
}

/* Prepare a copy of piece @idx of @n equal pieces; NULL on failure. */
static struct dma_async_tx_descriptor *
swk_prep_piece(struct swk_ctx *ctx, int idx, int n, struct swk_cb *cb,
	       bool legacy)
{
	size_t piece = ctx->len / n;
	struct dma_async_tx_descriptor *tx;

	tx = dmaengine_prep_dma_memcpy(ctx->chan, ctx->dst_dma + idx * piece,
				       ctx->src_dma + idx * piece, piece,
				       DMA_CTRL_ACK | DMA_PREP_INTERRUPT);
	if (!tx)
		return NULL;
	if (legacy)
		tx->callback = swk_legacy;
	else
		tx->callback_result = swk_result;
	tx->callback_param = cb;
	return tx;
}

/* An odd-sized, odd-aligned copy lands intact and reports success. */
static void swk_copy_test(struct kunit *test)
{
	struct swk_ctx *ctx = test->priv;
	struct dma_async_tx_descriptor *tx;
	size_t off = 13, len = ctx->len - 41;
	struct swk_rec rec;
	struct swk_cb cb = { .rec = &rec, .idx = 0 };
	dma_cookie_t cookie;

	swk_rec_init(&rec, 0);
	memset(ctx->dst, 0, ctx->len);
	dma_sync_single_for_device(ctx->dev, ctx->dst_dma, ctx->len,
				   DMA_FROM_DEVICE);
	tx = dmaengine_prep_dma_memcpy(ctx->chan, ctx->dst_dma + off + 3,
				       ctx->src_dma + off, len,
				       DMA_CTRL_ACK | DMA_PREP_INTERRUPT);
	KUNIT_ASSERT_NOT_NULL(test, tx);
	tx->callback_result = swk_result;
	tx->callback_param = &cb;
	cookie = dmaengine_submit(tx);
	KUNIT_ASSERT_FALSE(test, dma_submit_error(cookie));
	KUNIT_EXPECT_EQ(test, dma_async_is_tx_complete(ctx->chan, cookie,
						       NULL, NULL),
			DMA_IN_PROGRESS);
	dma_async_issue_pending(ctx->chan);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&rec.last, 30 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, rec.res[0], DMA_TRANS_NOERROR);
	KUNIT_EXPECT_EQ(test, rec.residue[0], 0U);
	KUNIT_EXPECT_EQ(test, dma_async_is_tx_complete(ctx->chan, cookie,
						       NULL, NULL),
			DMA_COMPLETE);
	dma_sync_single_for_cpu(ctx->dev, ctx->dst_dma, ctx->len,
				DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, memcmp(ctx->dst + off + 3, ctx->src + off, len),
			0);
	KUNIT_EXPECT_EQ(test, ctx->dst[off + 2], 0);
}

/* Copies and an interrupt descriptor complete in submission order. */
static void swk_order_test(struct kunit *test)
{
	struct swk_ctx *ctx = test->priv;
	struct dma_async_tx_descriptor *tx;
	struct swk_cb cb[NR_DESC + 1];
	struct swk_rec rec;
	int i;

	swk_rec_init(&rec, NR_DESC);
	for (i = 0; i < NR_DESC; i++) {
		cb[i].rec = &rec;
		cb[i].idx = i;
		tx = swk_prep_piece(ctx, i, NR_DESC, &cb[i], i == 3);
		KUNIT_ASSERT_NOT_NULL(test, tx);
		KUNIT_ASSERT_FALSE(test, dma_submit_error(dmaengine_submit(tx)));
		/* Issue in two batches. */
		if (i == NR_DESC / 2)
			dma_async_issue_pending(ctx->chan);
	}
	cb[NR_DESC].rec = &rec;
	cb[NR_DESC].idx = NR_DESC;
	tx = ctx->chan->device->device_prep_dma_interrupt(ctx->chan,
							  DMA_CTRL_ACK);
	KUNIT_ASSERT_NOT_NULL(test, tx);
	tx->callback_result = swk_result;
	tx->callback_param = &cb[NR_DESC];
	KUNIT_ASSERT_FALSE(test, dma_submit_error(dmaengine_submit(tx)));
	dma_async_issue_pending(ctx->chan);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&rec.last, 60 * HZ),
			0UL);
	dmaengine_synchronize(ctx->chan);

	KUNIT_ASSERT_EQ(test, rec.n, NR_DESC + 1);
	for (i = 0; i <= NR_DESC; i++) {
		KUNIT_EXPECT_EQ(test, rec.order[i], i);
		KUNIT_EXPECT_EQ(test, rec.res[i], DMA_TRANS_NOERROR);
	}
	dma_sync_single_for_cpu(ctx->dev, ctx->dst_dma, ctx->len,
				DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, memcmp(ctx->dst, ctx->src, ctx->len), 0);
}

/*
 * terminate_all: every descriptor retires exactly once and in order; those
 * that did not run report DMA_TRANS_ABORTED (legacy callbacks stay silent),
 * and the channel works again afterwards.
 */
static void swk_terminate_test(struct kunit *test)
{
	struct swk_ctx *ctx = test->priv;
	struct dma_async_tx_descriptor *tx;
	struct swk_cb cb[NR_DESC];
	struct swk_rec rec;
	bool aborted = false;
	int i, legacy = NR_DESC - 1;

	swk_rec_init(&rec, -1);
	for (i = 0; i < NR_DESC; i++) {
		cb[i].rec = &rec;
		cb[i].idx = i;
		tx = swk_prep_piece(ctx, i, NR_DESC, &cb[i], i == legacy);
		KUNIT_ASSERT_NOT_NULL(test, tx);
		KUNIT_ASSERT_FALSE(test, dma_submit_error(dmaengine_submit(tx)));
		if (i == NR_DESC / 2)
			dma_async_issue_pending(ctx->chan);
	}
	/* The second half was submitted but never issued. */
	KUNIT_EXPECT_EQ(test, dmaengine_terminate_async(ctx->chan), 0);
	dmaengine_synchronize(ctx->chan);

	KUNIT_EXPECT_EQ(test, rec.n, NR_DESC - 1);
	for (i = 0; i < rec.n; i++)
		KUNIT_EXPECT_EQ(test, rec.order[i], cb[i].idx);
	for (i = 0; i < NR_DESC; i++) {
		if (i == legacy) {
			KUNIT_EXPECT_EQ(test, rec.res[i], -1);
			continue;
		}
		if (rec.res[i] == DMA_TRANS_ABORTED)
			aborted = true;
		else
			KUNIT_EXPECT_FALSE(test, aborted);
		KUNIT_EXPECT_TRUE(test, rec.res[i] == DMA_TRANS_NOERROR ||
				  rec.res[i] == DMA_TRANS_ABORTED);
		if (i > NR_DESC / 2)
			KUNIT_EXPECT_EQ(test, rec.res[i], DMA_TRANS_ABORTED);
		if (rec.res[i] == DMA_TRANS_NOERROR)
			KUNIT_EXPECT_EQ(test, rec.residue[i], 0U);
		else
			KUNIT_EXPECT_GT(test, rec.residue[i], 0U);
	}

	/* Still usable. */
	swk_copy_test(test);
}

/* Zero-length and over-long copies are refused at prep time. */
static void swk_limits_test(struct kunit *test)
{
	struct swk_ctx *ctx = test->priv;

	KUNIT_EXPECT_NULL(test,
			  dmaengine_prep_dma_memcpy(ctx->chan, ctx->dst_dma,
						    ctx->src_dma, 0, 0));
	KUNIT_EXPECT_NULL(test,
			  dmaengine_prep_dma_memcpy(ctx->chan, ctx->dst_dma,
						    ctx->src_dma,
						    dma_get_max_seg_size(ctx->dev) + 1UL,
						    0));
	KUNIT_EXPECT_NULL(test,
			  dmaengine_prep_dma_memcpy(ctx->chan, ctx->dst_dma,
						    (dma_addr_t)-16, 64, 0));
}

static struct kunit_case swk_cases[] = {
	KUNIT_CASE(swk_copy_test),
	KUNIT_CASE(swk_order_test),
	KUNIT_CASE(swk_terminate_test),
	KUNIT_CASE(swk_limits_test),
	{}
};

static struct kunit_suite swk_suite = {
	.name = "swdma",
	.init = swk_init,
	.exit = swk_exit,
	.test_cases = swk_cases,
};

kunit_test_suite(swk_suite);

MODULE_DESCRIPTION("KUnit tests for the swdma software dmaengine provider");
MODULE_LICENSE("GPL");
