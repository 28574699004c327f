// SPDX-License-Identifier: GPL-2.0
/*
 * swdma - a dmaengine provider whose "hardware" is the CPU.
 *
 * QEMU's x86 machines emulate no memcpy DMA engine, yet the SCIF RMA path
 * and upstream dmaengine clients (dmatest, ntb_transport, ntb_perf) need
 * one to run against. This module registers a DMA_MEMCPY/DMA_INTERRUPT
 * device with a configurable number of channels. Each channel executes its
 * issued descriptors strictly in submission order from a work item, copying
 * with the CPU between the physical addresses the DMA addresses stand for.
 *
 * DMA addresses are produced by dma_map_*() on our platform device, which
 * has no IOMMU and no offset, so a dma_addr_t is a CPU physical address.
 * RAM is reached through the kernel mapping; anything else (a PCI BAR such
 * as the NTB window onto a peer's memory) through memremap(). Mapping is
 * the expensive part of a small copy, so each channel side keeps its last
 * mapping; inside a prefetchable memory resource (a BAR whose reads have
 * no side effects) that mapping covers up to %SWDMA_BLOCK of the resource
 * write-combined, elsewhere only what the descriptor touches.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/swdma.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define SWDMA_NAME		"swdma"
#define SWDMA_MAX_CHANNELS	32
/* Bytes copied between two looks at the abort flag and cond_resched(). */
#define SWDMA_CHUNK		SZ_64K
/* Largest memremap() of non-RAM made for one piece of a transfer. */
#define SWDMA_WIN_MAX		SZ_4M
/*
 * Aligned block of a prefetchable resource mapped at once: large enough
 * for an NTB window onto a whole guest, small for 32-bit address space.
 */
#define SWDMA_BLOCK		(IS_ENABLED(CONFIG_64BIT) ? SZ_1G : SZ_4M)
/* Retired descriptors a channel keeps for reuse instead of freeing them. */
#define SWDMA_SPARE_MAX		256

static unsigned int channels = 4;
module_param(channels, uint, 0444);
MODULE_PARM_DESC(channels, "Number of DMA channels (1-32, default 4)");

static unsigned int max_xfer = SZ_1G;
module_param(max_xfer, uint, 0444);
MODULE_PARM_DESC(max_xfer,
		 "Largest memcpy descriptor in bytes (>= PAGE_SIZE, default 1 GiB)");

/* Which side of a copy an address belongs to; indexes swdma_chan.win. */
enum swdma_side {
	SWDMA_SRC,
	SWDMA_DST,
	SWDMA_SIDES,
};

/**
 * struct swdma_win - cached mapping of a non-RAM physical range
 * @phys: first physical address mapped (page aligned)
 * @len: bytes mapped; 0 when the slot is empty
 * @va: memremap() address of @phys
 *
 * Locking: used only by the channel's worker, and by
 * swdma_free_chan_resources() once the worker has been flushed.
 */
struct swdma_win {
	phys_addr_t phys;
	size_t len;
	void *va;
};

/**
 * struct swdma_desc - a prepared transfer
 * @txd: the descriptor given to the client; @txd.cookie is written under
 *	the channel lock
 * @node: entry in exactly one list of the channel (or none while active)
 * @dst: destination DMA (= physical) address
 * @src: source DMA (= physical) address
 * @len: bytes to copy; 0 for a DMA_INTERRUPT descriptor
 * @seq: position in the channel's submission order, set by tx_submit;
 *	a 64-bit count that does not wrap, unlike cookies
 * @aborted: set under the channel lock by terminate_all; the worker reads
 *	it without the lock between chunks and stops copying
 */
struct swdma_desc {
	struct dma_async_tx_descriptor txd;
	struct list_head node;
	dma_addr_t dst;
	dma_addr_t src;
	size_t len;
	u64 seq;
	bool aborted;
};

/**
 * struct swdma_chan - one channel and its queues
 * @chan: the dmaengine channel; its cookie fields are written under @lock
 * @lock: protects everything below except @work, @idle_wq and @win; taken
 *	with interrupts disabled because clients call in from any context
 * @prepared: descriptors prepared but not yet submitted
 * @submitted: descriptors submitted, waiting for issue_pending
 * @issued: descriptors the worker will run, in submission order
 * @done: completed descriptors the client has not acked yet (kept so that
 *	async_tx may still chain on them); freed once acked
 * @active: descriptor the worker is copying or calling back, or NULL
 * @submit_seq: @seq of the last submitted descriptor
 * @retired_seq: @seq of the last descriptor whose callback has returned
 * @work: the worker; a work item never runs concurrently with itself
 * @idle_wq: woken each time a descriptor is retired
 * @win: non-RAM mappings cached by the worker, one per side
 * @spare: retired descriptors kept for the next prep (an allocation per
 *	   descriptor would cost more than copying a page)
 * @nr_spare: entries of @spare, at most %SWDMA_SPARE_MAX
 */
struct swdma_chan {
	struct dma_chan chan;
	spinlock_t lock; /* guards lists, cookies and seqs, see above */
	struct list_head prepared;
	struct list_head submitted;
	struct list_head issued;
	struct list_head done;
	struct swdma_desc *active;
	u64 submit_seq;
	u64 retired_seq;
	struct work_struct work;
	wait_queue_head_t idle_wq;
	struct swdma_win win[SWDMA_SIDES];
	struct list_head spare;
	unsigned int nr_spare;
};

/**
 * struct swdma_dev - the device
 * @dma: the dmaengine device; this structure is freed by its release hook
 * @wq: workqueue running the channels' workers
 * @max_xfer: largest memcpy descriptor accepted
 * @nr_chans: number of entries in @chans
 * @chans: the channels
 *
 * Locking: read-only after probe.
 */
struct swdma_dev {
	struct dma_device dma;
	struct workqueue_struct *wq;
	size_t max_xfer;
	unsigned int nr_chans;
	struct swdma_chan chans[];
};

static struct platform_device *swdma_pdev;

static struct swdma_chan *to_swdma_chan(struct dma_chan *chan)
{
	return container_of(chan, struct swdma_chan, chan);
}

static struct swdma_desc *to_swdma_desc(struct dma_async_tx_descriptor *txd)
{
	return container_of(txd, struct swdma_desc, txd);
}

static struct swdma_dev *to_swdma_dev(struct dma_device *dma)
{
	return container_of(dma, struct swdma_dev, dma);
}

/* ---- address translation ---------------------------------------------- */

static void swdma_win_drop(struct swdma_win *w)
{
	if (w->len)
		memunmap(w->va);
	w->len = 0;
	w->va = NULL;
}

/**
 * struct swdma_pf - search for the prefetchable resource holding an address
 * @pa: the address
 * @start: first byte of that resource inside the searched block
 * @end: last byte of it inside the block
 * @found: whether there is one
 */
struct swdma_pf {
	phys_addr_t pa;
	resource_size_t start;
	resource_size_t end;
	bool found;
};

/* walk_iomem_res_desc() callback: @r is clipped to the searched block. */
static int swdma_pf_match(struct resource *r, void *arg)
{
	struct swdma_pf *pf = arg;

	if (r->start > pf->pa || r->end < pf->pa)
		return 0;
	pf->start = r->start;
	pf->end = r->end;
	pf->found = true;
	return 1;
}

/*
 * The part of @pa's aligned %SWDMA_BLOCK that lies in the same
 * prefetchable memory resource as @pa, if that part is whole pages. Only
 * such memory may be mapped beyond what a descriptor touches: speculative
 * reads and merged writes are harmless there, not in device registers.
 */
static bool swdma_pf_block(phys_addr_t pa, phys_addr_t *base, size_t *len)
{
	phys_addr_t first = ALIGN_DOWN(pa, SWDMA_BLOCK);
	struct swdma_pf pf = { .pa = pa };

	walk_iomem_res_desc(IORES_DESC_NONE,
			    IORESOURCE_MEM | IORESOURCE_PREFETCH, first,
			    first + SWDMA_BLOCK - 1, &pf, swdma_pf_match);
	if (!pf.found || !PAGE_ALIGNED(pf.start) || !PAGE_ALIGNED(pf.end + 1))
		return false;
	*base = pf.start;
	*len = pf.end - pf.start + 1;
	return true;
}

/*
 * Kernel address for @pa in non-RAM memory, valid for *@n bytes (*@n is
 * reduced to what the mapping covers). @want is what is left of the transfer
 * on this side and sizes a new mapping outside prefetchable memory. NULL if
 * it cannot be mapped.
 */
static void *swdma_io_va(struct swdma_win *w, phys_addr_t pa, size_t want,
			 size_t *n)
{
	if (!w->len || pa < w->phys || pa - w->phys >= w->len) {
		phys_addr_t base = pa & PAGE_MASK;
		size_t len = PAGE_ALIGN(offset_in_page(pa) +
					min_t(size_t, want, SWDMA_WIN_MAX));
		unsigned long flags = MEMREMAP_WB | MEMREMAP_WC;

		swdma_win_drop(w);
		if (swdma_pf_block(pa, &base, &len))
			flags = MEMREMAP_WC;
		w->va = memremap(base, len, flags);
		if (!w->va)
			return NULL;
		w->phys = base;
		w->len = len;
	}
	*n = min_t(size_t, *n, w->len - (pa - w->phys));
	return w->va + (pa - w->phys);
}

/*
 * Kernel address for @pa in RAM, valid for *@n bytes. Without highmem all
 * RAM is in the linear map; with it, map one page at a time.
 */
static void *swdma_ram_va(phys_addr_t pa, size_t *n)
{
	if (IS_ENABLED(CONFIG_HIGHMEM)) {
		*n = min_t(size_t, *n, PAGE_SIZE - offset_in_page(pa));
		return kmap_local_pfn(PHYS_PFN(pa)) + offset_in_page(pa);
	}
	return phys_to_virt(pa);
}

static void swdma_ram_unmap(void *va)
{
	if (IS_ENABLED(CONFIG_HIGHMEM))
		kunmap_local(va);
}

/* Whether [pa, pa + len) is RAM (1), not RAM at all (0), or a mix (< 0). */
static int swdma_is_ram(phys_addr_t pa, size_t len)
{
	if (pa + len - 1 < pa)
		return -EFAULT;
	switch (region_intersects(pa, len, IORESOURCE_SYSTEM_RAM,
				  IORES_DESC_NONE)) {
	case REGION_INTERSECTS:
		return 1;
	case REGION_DISJOINT:
		return 0;
	default:
		return -EFAULT;
	}
}

/* ---- the worker -------------------------------------------------------- */

/*
 * Copy @d chunk by chunk. Returns the number of bytes copied and sets
 * @res; stops early on abort or on an address that cannot be reached.
 */
static size_t swdma_copy(struct swdma_chan *c, struct swdma_desc *d,
			 enum dmaengine_tx_result *res)
{
	phys_addr_t src = d->src, dst = d->dst;
	int src_ram, dst_ram;
	size_t done = 0;

	*res = DMA_TRANS_NOERROR;
	if (!d->len)
		return 0;

	src_ram = swdma_is_ram(src, d->len);
	dst_ram = swdma_is_ram(dst, d->len);
	if (src_ram < 0) {
		*res = DMA_TRANS_READ_FAILED;
		return 0;
	}
	if (dst_ram < 0) {
		*res = DMA_TRANS_WRITE_FAILED;
		return 0;
	}

	while (done < d->len) {
		size_t left = d->len - done;
		size_t n = min_t(size_t, left, SWDMA_CHUNK);
		void *s, *t;

		if (READ_ONCE(d->aborted)) {
			*res = DMA_TRANS_ABORTED;
			break;
		}

		/* The mapping calls may only shrink n. */
		if (src_ram)
			s = swdma_ram_va(src + done, &n);
		else
			s = swdma_io_va(&c->win[SWDMA_SRC], src + done, left, &n);
		if (!s) {
			*res = DMA_TRANS_READ_FAILED;
			break;
		}
		if (dst_ram)
			t = swdma_ram_va(dst + done, &n);
		else
			t = swdma_io_va(&c->win[SWDMA_DST], dst + done, left, &n);
		if (!t) {
			if (src_ram)
				swdma_ram_unmap(s);
			*res = DMA_TRANS_WRITE_FAILED;
			break;
		}

		memcpy(t, s, n);

		if (dst_ram)
			swdma_ram_unmap(t);
		if (src_ram)
			swdma_ram_unmap(s);
		done += n;
		cond_resched();
	}
	return done;
}

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

/* Last reference to the dma_device is gone: nothing can reach us now. */
static void swdma_release(struct dma_device *dma)
{
	struct swdma_dev *sd = to_swdma_dev(dma);

	destroy_workqueue(sd->wq);
	kfree(sd);
}

/* ---- device setup ------------------------------------------------------ */

static int __init swdma_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct dma_device *dma;
	struct swdma_dev *sd;
	unsigned int i;
	int ret;

	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	dma_set_max_seg_size(dev, max_xfer);

	sd = kzalloc(struct_size(sd, chans, channels), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->nr_chans = channels;
	sd->max_xfer = max_xfer;
	sd->wq = alloc_workqueue(SWDMA_NAME, WQ_UNBOUND, 0);
	if (!sd->wq) {
		kfree(sd);
		return -ENOMEM;
	}

	dma = &sd->dma;
	dma->dev = dev;
	dma_cap_set(DMA_MEMCPY, dma->cap_mask);
	dma_cap_set(DMA_INTERRUPT, dma->cap_mask);
	dma_cap_set(DMA_PRIVATE, dma->cap_mask);
	dma->copy_align = DMAENGINE_ALIGN_1_BYTE;
	dma->directions = BIT(DMA_MEM_TO_MEM);
	dma->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	dma->device_alloc_chan_resources = swdma_alloc_chan_resources;
	dma->device_free_chan_resources = swdma_free_chan_resources;
	dma->device_prep_dma_memcpy = swdma_prep_memcpy;
	dma->device_prep_dma_interrupt = swdma_prep_interrupt;
	dma->device_issue_pending = swdma_issue_pending;
	dma->device_tx_status = swdma_tx_status;
	dma->device_terminate_all = swdma_terminate_all;
	dma->device_synchronize = swdma_synchronize;
	dma->device_release = swdma_release;
	INIT_LIST_HEAD(&dma->channels);

	for (i = 0; i < sd->nr_chans; i++) {
		struct swdma_chan *c = &sd->chans[i];

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

	ret = dma_async_device_register(dma);
	if (ret) {
		swdma_release(dma);
		return ret;
	}
	platform_set_drvdata(pdev, sd);
	dev_info(dev, "%u channels, max transfer %u bytes\n", channels,
		 max_xfer);
	return 0;
}

static struct platform_driver swdma_driver = {
	.driver = {
		.name = SWDMA_NAME,
	},
};

static int __init swdma_init(void)
{
	if (channels < 1 || channels > SWDMA_MAX_CHANNELS) {
		pr_err("channels=%u out of range 1-%u\n",
		       channels, SWDMA_MAX_CHANNELS);
		return -EINVAL;
	}
	if (max_xfer < PAGE_SIZE) {
		pr_err("max_xfer=%u below PAGE_SIZE\n", max_xfer);
		return -EINVAL;
	}

	swdma_pdev = platform_create_bundle(&swdma_driver, swdma_probe, NULL,
					    0, NULL, 0);
	return PTR_ERR_OR_ZERO(swdma_pdev);
}
module_init(swdma_init);

static void __exit swdma_exit(void)
{
	struct swdma_dev *sd = platform_get_drvdata(swdma_pdev);

	/*
	 * Channel users hold a reference on this module, so no client is
	 * left: this drops the last reference to the device and frees sd.
	 */
	dma_async_device_unregister(&sd->dma);
	platform_device_unregister(swdma_pdev);
	platform_driver_unregister(&swdma_driver);
}
module_exit(swdma_exit);

MODULE_DESCRIPTION("Software memcpy dmaengine provider for test rigs");
MODULE_LICENSE("GPL");
