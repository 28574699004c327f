// SPDX-License-Identifier: GPL-2.0
/*
 * swdma: a channel's queues, from prep to retirement, its worker and the
 * dmaengine operations. Descriptors move prepared -> submitted -> issued
 * -> active -> done (until acked) -> spare, each list under the channel's
 * lock; the worker runs the issued ones strictly in submission order.
 */
#include <linux/dmaengine.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/swdma.h>

#include "swdma_dev.h"

/* Keep a retired, unlinked descriptor for reuse, or free it. */
static void swdma_retire_locked(struct swdma_chan *c, struct swdma_desc *d)
{
	lockdep_assert_held(&c->lock);
	if (c->nr_spare >= SWDMA_SPARE_MAX) {
		kfree(d);
		return;
	}
	list_add(&d->node, &c->spare);
	c->nr_spare++;
}

/* Retire completed descriptors the client has acked. */
static void swdma_reclaim_locked(struct swdma_chan *c)
{
	struct swdma_desc *d, *tmp;

	lockdep_assert_held(&c->lock);
	list_for_each_entry_safe(d, tmp, &c->done, node) {
		if (async_tx_test_ack(&d->txd)) {
			list_del(&d->node);
			swdma_retire_locked(c, d);
		}
	}
}

/*
 * Report @d to its client. Legacy callbacks carry no status and, as the
 * dmaengine rules ask, are skipped for transfers that did not complete; the
 * result callback is told what happened. Callbacks run with bottom halves
 * disabled, as they would from a real engine's tasklet, so a client that
 * sleeps in one is caught here too.
 */
static void swdma_callback(struct swdma_desc *d, enum dmaengine_tx_result res,
			   size_t done)
{
	struct dma_async_tx_descriptor *txd = &d->txd;
	struct dmaengine_result r = {
		.result = res,
		.residue = d->len - done,
	};

	local_bh_disable();
	if (txd->callback_result)
		txd->callback_result(txd->callback_param, &r);
	else if (txd->callback && res == DMA_TRANS_NOERROR)
		txd->callback(txd->callback_param);
	local_bh_enable();
}

static void swdma_work(struct work_struct *work)
{
	struct swdma_chan *c = container_of(work, struct swdma_chan, work);
	enum dmaengine_tx_result res;
	struct swdma_desc *d;
	unsigned long flags;
	size_t done;

	for (;;) {
		spin_lock_irqsave(&c->lock, flags);
		d = list_first_entry_or_null(&c->issued, struct swdma_desc,
					     node);
		if (d) {
			list_del_init(&d->node);
			c->active = d;
		}
		spin_unlock_irqrestore(&c->lock, flags);
		if (!d)
			return;

		if (READ_ONCE(d->aborted)) {
			res = DMA_TRANS_ABORTED;
			done = 0;
		} else {
			done = swdma_copy(c, d, &res);
		}

		spin_lock_irqsave(&c->lock, flags);
		c->chan.completed_cookie = d->txd.cookie;
		d->txd.cookie = 0;
		spin_unlock_irqrestore(&c->lock, flags);

		dma_descriptor_unmap(&d->txd);
		swdma_callback(d, res, done);
		dma_run_dependencies(&d->txd);

		spin_lock_irqsave(&c->lock, flags);
		c->active = NULL;
		c->retired_seq = d->seq;
		if (async_tx_test_ack(&d->txd))
			swdma_retire_locked(c, d);
		else
			list_add_tail(&d->node, &c->done);
		spin_unlock_irqrestore(&c->lock, flags);
		wake_up_all(&c->idle_wq);
		cond_resched();
	}
}

/* ---- dmaengine operations ---------------------------------------------- */

static dma_cookie_t swdma_tx_submit(struct dma_async_tx_descriptor *txd)
{
	struct swdma_chan *c = to_swdma_chan(txd->chan);
	struct swdma_desc *d = to_swdma_desc(txd);
	dma_cookie_t cookie;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	/* Cookies are positive and wrap back to DMA_MIN_COOKIE. */
	cookie = c->chan.cookie < INT_MAX ? c->chan.cookie + 1 : DMA_MIN_COOKIE;
	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	c->chan.cookie = cookie;
	txd->cookie = cookie;
	d->seq = ++c->submit_seq;
	list_move_tail(&d->node, &c->submitted);
	spin_unlock_irqrestore(&c->lock, flags);

	return cookie;
}

static struct dma_async_tx_descriptor *
swdma_prep(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src, size_t len,
	   unsigned long flags)
{
	struct swdma_chan *c = to_swdma_chan(chan);
	struct swdma_desc *d;
	unsigned long irqflags;

	spin_lock_irqsave(&c->lock, irqflags);
	swdma_reclaim_locked(c);
	d = list_first_entry_or_null(&c->spare, struct swdma_desc, node);
	if (d) {
		list_del(&d->node);
		c->nr_spare--;
	}
	spin_unlock_irqrestore(&c->lock, irqflags);
	if (d)
		memset(d, 0, sizeof(*d));
	else
		d = kzalloc(sizeof(*d), GFP_NOWAIT | __GFP_NOWARN);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->txd, chan);
	d->txd.flags = flags;
	d->txd.tx_submit = swdma_tx_submit;
	d->txd.cookie = -EBUSY;
	d->dst = dst;
	d->src = src;
	d->len = len;

	spin_lock_irqsave(&c->lock, irqflags);
	list_add_tail(&d->node, &c->prepared);
	spin_unlock_irqrestore(&c->lock, irqflags);

	return &d->txd;
}

static struct dma_async_tx_descriptor *
swdma_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
		  size_t len, unsigned long flags)
{
	struct swdma_dev *sd = to_swdma_dev(chan->device);

	if (!len || len > sd->max_xfer ||
	    src + len - 1 < src || dst + len - 1 < dst)
		return NULL;
	return swdma_prep(chan, dst, src, len, flags);
}

static struct dma_async_tx_descriptor *
swdma_prep_interrupt(struct dma_chan *chan, unsigned long flags)
{
	return swdma_prep(chan, 0, 0, 0, flags);
}

static void swdma_issue_pending(struct dma_chan *chan)
{
	struct swdma_chan *c = to_swdma_chan(chan);
	struct swdma_dev *sd = to_swdma_dev(chan->device);
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!list_empty(&c->submitted)) {
		list_splice_tail_init(&c->submitted, &c->issued);
		queue_work(sd->wq, &c->work);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

static enum dma_status swdma_tx_status(struct dma_chan *chan,
				       dma_cookie_t cookie,
				       struct dma_tx_state *state)
{
	struct swdma_chan *c = to_swdma_chan(chan);
	dma_cookie_t last, used;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	last = chan->completed_cookie;
	used = chan->cookie;
	spin_unlock_irqrestore(&c->lock, flags);

	if (state) {
		state->last = last;
		state->used = used;
		state->residue = 0;
		state->in_flight_bytes = 0;
	}
	return dma_async_is_complete(cookie, last, used);
}

/*
 * Abort everything submitted. Nothing is freed here: the aborted
 * descriptors stay queued behind the active one so that they retire, and
 * their cookies complete, in order; the worker reports them as aborted.
 * Never sleeps, so it may be called from a callback or atomic context.
 */
static int swdma_terminate_all(struct dma_chan *chan)
{
	struct swdma_chan *c = to_swdma_chan(chan);
	struct swdma_dev *sd = to_swdma_dev(chan->device);
	struct swdma_desc *d;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	list_splice_tail_init(&c->submitted, &c->issued);
	list_for_each_entry(d, &c->issued, node)
		d->aborted = true;
	if (c->active)
		WRITE_ONCE(c->active->aborted, true);
	if (!list_empty(&c->issued))
		queue_work(sd->wq, &c->work);
	spin_unlock_irqrestore(&c->lock, flags);

	return 0;
}

static bool swdma_retired(struct swdma_chan *c, u64 seq)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&c->lock, flags);
	ret = c->retired_seq >= seq;
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/*
 * Wait until every issued descriptor (including ones just aborted) has
 * retired and its callback has returned. Descriptors submitted but not
 * issued are not waited for: nothing will run them.
 */
static void swdma_synchronize(struct dma_chan *chan)
{
	struct swdma_chan *c = to_swdma_chan(chan);
	unsigned long flags;
	u64 target;

	might_sleep();
	spin_lock_irqsave(&c->lock, flags);
	if (!list_empty(&c->issued))
		target = list_last_entry(&c->issued, struct swdma_desc,
					 node)->seq;
	else if (c->active)
		target = c->active->seq;
	else
		target = c->retired_seq;
	spin_unlock_irqrestore(&c->lock, flags);

	wait_event(c->idle_wq, swdma_retired(c, target));
}

static int swdma_alloc_chan_resources(struct dma_chan *chan)
{
	struct swdma_chan *c = to_swdma_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	chan->cookie = DMA_MIN_COOKIE;
	chan->completed_cookie = DMA_MIN_COOKIE;
	spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

static void swdma_free_list(struct list_head *head)
{
	struct swdma_desc *d, *tmp;

	list_for_each_entry_safe(d, tmp, head, node) {
		list_del(&d->node);
		dma_descriptor_unmap(&d->txd);
		kfree(d);
	}
}

/*
 * The client is gone. Anything still queued is aborted as by
 * terminate_all; descriptors prepared but never submitted, and completed
 * ones never acked, are freed without callbacks.
 */
static void swdma_free_chan_resources(struct dma_chan *chan)
{
	struct swdma_chan *c = to_swdma_chan(chan);
	unsigned long flags;
	LIST_HEAD(dead);
	int i;

	swdma_terminate_all(chan);
	swdma_synchronize(chan);
	flush_work(&c->work);

	spin_lock_irqsave(&c->lock, flags);
	list_splice_init(&c->prepared, &dead);
	list_splice_init(&c->submitted, &dead);
	list_splice_init(&c->done, &dead);
	list_splice_init(&c->spare, &dead);
	c->nr_spare = 0;
	spin_unlock_irqrestore(&c->lock, flags);
	swdma_free_list(&dead);

	for (i = 0; i < SWDMA_SIDES; i++)
		swdma_win_drop(&c->win[i]);
}

/**
 * swdma_filter - dma_filter_fn that accepts only swdma's channels
 * @chan: candidate channel
 * @param: unused
 *
 * For dma_request_channel() by tests that want this engine and no other.
 * Using it also makes the caller's module depend on swdma.
 *
 * Return: true if @chan belongs to swdma.
 */
bool swdma_filter(struct dma_chan *chan, void *param)
{
	return chan->device->device_prep_dma_memcpy == swdma_prep_memcpy;
}
EXPORT_SYMBOL_GPL(swdma_filter);

/* Fill in the dmaengine operations of @dma. */
void swdma_set_ops(struct dma_device *dma)
{
	dma->device_alloc_chan_resources = swdma_alloc_chan_resources;
	dma->device_free_chan_resources = swdma_free_chan_resources;
	dma->device_prep_dma_memcpy = swdma_prep_memcpy;
	dma->device_prep_dma_interrupt = swdma_prep_interrupt;
	dma->device_issue_pending = swdma_issue_pending;
	dma->device_tx_status = swdma_tx_status;
	dma->device_terminate_all = swdma_terminate_all;
	dma->device_synchronize = swdma_synchronize;
}

/* Set up channel @c of @dma and add it to the device's channels. */
void swdma_chan_init(struct swdma_chan *c, struct dma_device *dma)
{
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->prepared);
	INIT_LIST_HEAD(&c->submitted);
	INIT_LIST_HEAD(&c->issued);
	INIT_LIST_HEAD(&c->done);
	INIT_LIST_HEAD(&c->spare);
	INIT_WORK(&c->work, swdma_work);
	init_waitqueue_head(&c->idle_wq);
	c->chan.device = dma;
	list_add_tail(&c->chan.device_node, &dma->channels);
}
