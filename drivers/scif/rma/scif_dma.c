// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF RMA through dmaengine: the channel pool, and the issue and the
 * completion of an RMA's descriptors.
 *
 * The pool is module-wide and shared by every instance (a machine has one
 * set of engines, whatever the number of SCIF nodes a KUnit suite runs in
 * it): up to @dma_channels private DMA_MEMCPY channels, requested when an
 * RMA first wants one, because the provider (swdma.ko in the test guests)
 * may load after scif.ko. While the pool is short of channels it asks again
 * at most once a second. A channel on which a descriptor failed is dropped
 * before the next RMA is issued; the pool is emptied at module unload.
 *
 * An RMA's pieces (at most a page on each side) are merged into runs that
 * are physically contiguous on both sides, of at most %SCIF_DMA_RUN_MAX
 * bytes, and the runs go to the channels in turn. Bytes the engine cannot
 * copy for alignment (its copy_align) are copied by the CPU at once, as is a
 * run that cannot be mapped or prepared. Descriptors that fail are redone by
 * the CPU when the request finishes.
 *
 * Descriptors are carved from blocks that belong to their request and go
 * with it, not allocated one by one: under the test kernel an allocation
 * cost more than copying the page a descriptor carries.
 *
 * Locking: @scif_dma_rwsem is held for reading while an RMA prepares and
 * submits descriptors, for writing to change the pool. Callbacks take no
 * pool lock; they mark their channel bad with WRITE_ONCE().
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
#include "scif_rma.h"

#define SCIF_DMA_MAX_CHANS	4
/* Largest run given to one descriptor, so that big RMAs use every channel. */
#define SCIF_DMA_RUN_MAX	SZ_256K

static unsigned int dma_channels = 2;
module_param(dma_channels, uint, 0444);
MODULE_PARM_DESC(dma_channels,
		 "dmaengine memcpy channels for RMA (0-4, default 2; 0: CPU only)");

/**
 * struct scif_dma_slot - a channel of the pool
 * @chan: the channel, or NULL
 * @bad: a descriptor failed on it; dropped before the next issue
 */
struct scif_dma_slot {
	struct dma_chan *chan;
	bool bad;
};

/**
 * struct scif_dma_desc - one descriptor of a request
 * @list: entry in &scif_rma_req.failed
 * @req: the request
 * @slot: the channel it went to
 * @dev: the device the memory was mapped against
 * @ldma: our side, mapped
 * @rdma: the peer's side
 * @rmapped: @rdma was mapped (the peer's pages are local RAM)
 * @run: what it copies
 */
struct scif_dma_desc {
	struct list_head list;
	struct scif_rma_req *req;
	struct scif_dma_slot *slot;
	struct device *dev;
	dma_addr_t ldma;
	dma_addr_t rdma;
	bool rmapped;
	struct scif_dma_run run;
};

/* Descriptors per block: as many as fit a 4 KiB allocation with its header. */
#define SCIF_DMA_BLOCK_DESCS \
	((SZ_4K - 2 * sizeof(void *)) / sizeof(struct scif_dma_desc))

/**
 * struct scif_dma_block - storage for descriptors of one request
 * @next: the block filled before this one
 * @used: descriptors handed out from @desc
 * @desc: the descriptors
 */
struct scif_dma_block {
	struct scif_dma_block *next;
	unsigned int used;
	struct scif_dma_desc desc[SCIF_DMA_BLOCK_DESCS];
};

static_assert(sizeof(struct scif_dma_block) <= SZ_4K);

static DECLARE_RWSEM(scif_dma_rwsem);
/* Under @scif_dma_rwsem: the pool, its size limit and forced alignment. */
static struct scif_dma_slot scif_dma_slots[SCIF_DMA_MAX_CHANS];
static unsigned int scif_dma_nr;
static unsigned int scif_dma_limit;
static unsigned int scif_dma_align = 1;
/* Read without the lock as hints; written under it (or by callbacks). */
static unsigned long scif_dma_next_try;
static bool scif_dma_bad;
static atomic_t scif_dma_rr = ATOMIC_INIT(0);
static struct workqueue_struct *scif_dma_wq;

/*
 * The other work items of the RMA layer (fence signals, frees of windows
 * released in atomic context, closes asked by the peer). A fence signal
 * may wait for DMA completions, so these never share scif_dma_wq.
 * scif_dma_exit() destroys both queues, which waits for every item, so
 * none runs after the module is gone.
 */
static struct workqueue_struct *scif_rma_wq;
/*
 * Serving the peer's staged reads: long items, one per endpoint at most,
 * kept apart from @scif_rma_wq so that no amount of them delays anyone's
 * fence signals, window frees or closes.
 */
static struct workqueue_struct *scif_serve_wq;

/**
 * scif_rma_queue_work() - queue work on the RMA layer's own work queue
 * @work: the work; its code lives in scif.ko
 */
void scif_rma_queue_work(struct work_struct *work)
{
	queue_work(scif_rma_wq, work);
}

/**
 * scif_rma_queue_serve() - queue the serving of an endpoint's staged reads
 * @work: &scif_rma_ep.serve_work
 */
void scif_rma_queue_serve(struct work_struct *work)
{
	queue_work(scif_serve_wq, work);
}

static atomic64_t scif_dma_dma_bytes = ATOMIC64_INIT(0);
static atomic64_t scif_dma_cpu_bytes = ATOMIC64_INIT(0);
static atomic64_t scif_dma_failed = ATOMIC64_INIT(0);

/* Drop one channel; its descriptors are aborted and their callbacks run. */
static void scif_dma_release(struct scif_dma_slot *slot)
{
	dmaengine_terminate_sync(slot->chan);
	dma_release_channel(slot->chan);
	slot->chan = NULL;
	WRITE_ONCE(slot->bad, false);
	scif_dma_nr--;
}

/* Drop bad and surplus channels, then ask for more if it is time. */
static void scif_dma_refill(void)
{
	struct scif_dma_slot *slot;
	struct dma_chan *chan;
	dma_cap_mask_t mask;
	unsigned int i;

	lockdep_assert_held_write(&scif_dma_rwsem);
	WRITE_ONCE(scif_dma_bad, false);
	for (i = 0; i < SCIF_DMA_MAX_CHANS; i++) {
		slot = &scif_dma_slots[i];
		if (!slot->chan)
			continue;
		if (READ_ONCE(slot->bad))
			pr_warn_ratelimited("scif: dropping DMA channel %s after a failed transfer\n",
					    dma_chan_name(slot->chan));
		else if (i < scif_dma_limit)
			continue;
		scif_dma_release(slot);
	}
	if (scif_dma_nr >= scif_dma_limit ||
	    time_before(jiffies, scif_dma_next_try))
		return;
	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	for (i = 0; i < scif_dma_limit; i++) {
		if (scif_dma_slots[i].chan)
			continue;
		chan = dma_request_chan_by_mask(&mask);
		if (IS_ERR(chan)) {
			/* None (left): try again in a second at the earliest. */
			WRITE_ONCE(scif_dma_next_try, jiffies + HZ);
			break;
		}
		scif_dma_slots[i].chan = chan;
		scif_dma_nr++;
	}
}

/**
 * scif_dma_begin() - start issuing a request on the DMA path
 * @di: the issue state, filled in
 * @req: the request
 * @pm: how the peer is reached; nodes_rwsem stays held until scif_dma_end()
 *
 * Return: 0 with the pool locked for reading (call scif_dma_end()), or
 * -ENODEV if there is no channel or no DMA address for the peer's memory.
 */
int scif_dma_begin(struct scif_dma_issue *di, struct scif_rma_req *req,
		   struct scif_peer_mem *pm)
{
	lockdep_assert_held_read(pm->held);

	if (!pm->local && !pm->dma)
		return -ENODEV;
	if (READ_ONCE(scif_dma_bad) ||
	    (READ_ONCE(scif_dma_nr) < READ_ONCE(scif_dma_limit) &&
	     time_after_eq(jiffies, READ_ONCE(scif_dma_next_try)))) {
		down_write(&scif_dma_rwsem);
		scif_dma_refill();
		up_write(&scif_dma_rwsem);
	}
	down_read(&scif_dma_rwsem);
	if (!scif_dma_nr) {
		up_read(&scif_dma_rwsem);
		return -ENODEV;
	}
	di->req = req;
	di->pm = pm;
	di->run.len = 0;
	di->used = 0;
	di->first = atomic_inc_return(&scif_dma_rr);
	return 0;
}

static void scif_dma_cpu(struct scif_dma_issue *di,
			 const struct scif_dma_run *run)
{
	scif_cpu_run(di->pm, run, di->req->to_peer);
	atomic64_add(run->len, &scif_dma_cpu_bytes);
}

/* The bus address of a peer address for local engines. */
static u64 scif_dma_raddr(struct scif_peer_mem *pm, u64 raddr)
{
	return pm->local ? raddr : pm->dma + raddr;
}

static void scif_dma_unmap(struct scif_dma_desc *desc, bool to_peer)
{
	dma_unmap_page(desc->dev, desc->ldma, desc->run.len,
		       to_peer ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	if (desc->rmapped)
		dma_unmap_page(desc->dev, desc->rdma, desc->run.len,
			       to_peer ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
}

/* Descriptor callback: any context, possibly hard interrupt. */
static void scif_dma_done(void *arg, const struct dmaengine_result *res)
{
	struct scif_dma_desc *desc = arg;
	struct scif_rma_req *req = desc->req;
	unsigned long flags;

	scif_dma_unmap(desc, req->to_peer);
	if (res && res->result == DMA_TRANS_NOERROR) {
		atomic64_add(desc->run.len, &scif_dma_dma_bytes);
	} else {
		WRITE_ONCE(desc->slot->bad, true);
		WRITE_ONCE(scif_dma_bad, true);
		atomic64_inc(&scif_dma_failed);
		spin_lock_irqsave(&req->lock, flags);
		list_add_tail(&desc->list, &req->failed);
		spin_unlock_irqrestore(&req->lock, flags);
	}
	scif_dma_req_put(req);
}

/* A zeroed descriptor for @req, from its newest block or a new one. */
static struct scif_dma_desc *scif_dma_desc_get(struct scif_rma_req *req)
{
	struct scif_dma_block *b = req->blocks;
	struct scif_dma_desc *desc;

	if (!b || b->used == SCIF_DMA_BLOCK_DESCS) {
		b = kmalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
		if (!b)
			return NULL;
		b->next = req->blocks;
		b->used = 0;
		req->blocks = b;
	}
	desc = &b->desc[b->used++];
	memset(desc, 0, sizeof(*desc));
	return desc;
}

/* Map and submit @run on @slot's channel; false if the CPU must copy it. */
static bool scif_dma_submit(struct scif_dma_issue *di,
			    struct scif_dma_slot *slot,
			    const struct scif_dma_run *run)
{
	struct scif_rma_req *req = di->req;
	struct device *dev = slot->chan->device->dev;
	enum dma_data_direction ldir = req->to_peer ? DMA_TO_DEVICE :
						      DMA_FROM_DEVICE;
	struct dma_async_tx_descriptor *tx;
	struct scif_dma_desc *desc;
	dma_addr_t src, dst;
	dma_cookie_t cookie;

	desc = scif_dma_desc_get(req);
	if (!desc)
		return false;
	desc->req = req;
	desc->slot = slot;
	desc->dev = dev;
	desc->run = *run;
	desc->ldma = dma_map_page(dev, pfn_to_page(PHYS_PFN(run->lphys)),
				  offset_in_page(run->lphys), run->len, ldir);
	if (dma_mapping_error(dev, desc->ldma))
		goto free;
	if (di->pm->local) {
		desc->rdma = dma_map_page(dev,
					  pfn_to_page(PHYS_PFN(run->raddr)),
					  offset_in_page(run->raddr), run->len,
					  req->to_peer ? DMA_FROM_DEVICE :
							 DMA_TO_DEVICE);
		if (dma_mapping_error(dev, desc->rdma)) {
			dma_unmap_page(dev, desc->ldma, run->len, ldir);
			goto free;
		}
		desc->rmapped = true;
	} else {
		desc->rdma = di->pm->dma + run->raddr;
	}
	src = req->to_peer ? desc->ldma : desc->rdma;
	dst = req->to_peer ? desc->rdma : desc->ldma;
	tx = dmaengine_prep_dma_memcpy(slot->chan, dst, src, run->len,
				       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (!tx)
		goto unmap;
	tx->callback_result = scif_dma_done;
	tx->callback_param = desc;
	atomic_inc(&req->pending);
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie)) {
		atomic_dec(&req->pending);
		WRITE_ONCE(slot->bad, true);
		WRITE_ONCE(scif_dma_bad, true);
		goto unmap;
	}
	__set_bit(slot - scif_dma_slots, &di->used);
	return true;
unmap:
	scif_dma_unmap(desc, req->to_peer);
free:
	/* Still the newest descriptor, never seen by the engine. */
	req->blocks->used--;
	return false;
}

static struct scif_dma_slot *scif_dma_next_slot(struct scif_dma_issue *di)
{
	struct scif_dma_slot *slot;

	do {
		slot = &scif_dma_slots[di->first++ % SCIF_DMA_MAX_CHANS];
	} while (!slot->chan);
	return slot;
}

/* Issue the run being built: aligned body by DMA, head and tail by CPU. */
static void scif_dma_flush(struct scif_dma_issue *di)
{
	struct scif_dma_run run = di->run, part;
	struct scif_dma_slot *slot = scif_dma_next_slot(di);
	struct device *dev = slot->chan->device->dev;
	u64 align = max(1ULL << slot->chan->device->copy_align,
			(u64)scif_dma_align);
	u64 mask = align - 1, l, r, head, body, seg, done;

	di->run.len = 0;
	l = run.lphys;
	r = scif_dma_raddr(di->pm, run.raddr);
	if ((l ^ r) & mask) {
		/* Source and destination can never both be aligned. */
		scif_dma_cpu(di, &run);
		return;
	}
	head = min(run.len, (-l) & mask);
	body = (run.len - head) & ~mask;
	seg = max_t(u64, dma_get_max_seg_size(dev) & ~mask, align);
	if (head) {
		part = (struct scif_dma_run){ run.lphys, run.raddr, head };
		scif_dma_cpu(di, &part);
	}
	for (done = 0; done < body; done += part.len) {
		part.lphys = run.lphys + head + done;
		part.raddr = run.raddr + head + done;
		part.len = min(body - done, seg);
		if (!scif_dma_submit(di, slot, &part))
			scif_dma_cpu(di, &part);
	}
	if (head + body < run.len) {
		part.lphys = run.lphys + head + body;
		part.raddr = run.raddr + head + body;
		part.len = run.len - head - body;
		scif_dma_cpu(di, &part);
	}
}

/**
 * scif_dma_piece() - add a piece of the request
 * @di: the issue state
 * @lphys: our side, physical address
 * @raddr: the peer's side, peer address
 * @len: bytes; the piece is contiguous on both sides
 *
 * Pieces contiguous with the run being built extend it; otherwise the run
 * is issued and the piece starts the next one.
 */
void scif_dma_piece(struct scif_dma_issue *di, u64 lphys, u64 raddr,
		    u64 len)
{
	struct scif_dma_run *run = &di->run;

	if (run->len && run->lphys + run->len == lphys &&
	    run->raddr + run->len == raddr &&
	    run->len + len <= SCIF_DMA_RUN_MAX) {
		run->len += len;
		return;
	}
	if (run->len)
		scif_dma_flush(di);
	run->lphys = lphys;
	run->raddr = raddr;
	run->len = len;
}

/**
 * scif_dma_end() - issue what is left and start the channels
 * @di: the issue state from a successful scif_dma_begin()
 */
void scif_dma_end(struct scif_dma_issue *di)
{
	unsigned int i;

	if (di->run.len)
		scif_dma_flush(di);
	for_each_set_bit(i, &di->used, SCIF_DMA_MAX_CHANS)
		dma_async_issue_pending(scif_dma_slots[i].chan);
	up_read(&scif_dma_rwsem);
}

/**
 * scif_dma_req_put() - drop a pending count of a request
 * @req: the request
 *
 * The last one wakes the caller waiting on a %SCIF_RMA_SYNC request, or
 * queues the work item that finishes any other. Any context.
 */
void scif_dma_req_put(struct scif_rma_req *req)
{
	if (!atomic_dec_and_test(&req->pending))
		return;
	if (req->sync)
		complete(&req->done);
	else
		queue_work(scif_dma_wq, &req->work);
}

/**
 * scif_dma_redo() - copy the failed descriptors of a request by CPU
 * @req: the request, with no descriptor pending
 * @pm: how the peer is reached (nodes_rwsem held), or NULL if it is not
 *	any more: the failed pieces are then only freed
 */
void scif_dma_redo(struct scif_rma_req *req, struct scif_peer_mem *pm)
{
	struct scif_dma_desc *desc, *tmp;

	if (pm)
		lockdep_assert_held_read(pm->held);
	list_for_each_entry_safe(desc, tmp, &req->failed, list) {
		if (pm) {
			scif_cpu_run(pm, &desc->run, req->to_peer);
			atomic64_add(desc->run.len, &scif_dma_cpu_bytes);
		}
		list_del(&desc->list);
	}
}

/**
 * scif_dma_req_release() - free the descriptors of a request
 * @req: the request, with no descriptor pending and none left to redo
 */
void scif_dma_req_release(struct scif_rma_req *req)
{
	struct scif_dma_block *b;

	while ((b = req->blocks)) {
		req->blocks = b->next;
		kfree(b);
	}
}

/**
 * scif_dma_get_stats() - counters of the DMA path, for tests
 * @st: filled in
 */
void scif_dma_get_stats(struct scif_dma_stats *st)
{
	st->dma_bytes = atomic64_read(&scif_dma_dma_bytes);
	st->cpu_bytes = atomic64_read(&scif_dma_cpu_bytes);
	st->failed = atomic64_read(&scif_dma_failed);
	st->channels = READ_ONCE(scif_dma_nr);
}
EXPORT_SYMBOL_IF_KUNIT(scif_dma_get_stats);

/**
 * scif_dma_configure() - resize the pool and force an alignment, for tests
 * @channels: channels to use from now on (at most 4; 0: CPU only; negative:
 *	      the dma_channels module parameter)
 * @align: smallest alignment the DMA path assumes of the engines (a power
 *	   of two; 1 for none beyond their own copy_align)
 *
 * Every channel is released (descriptors in flight are aborted and redone
 * by the CPU); the next RMA requests channels again.
 */
void scif_dma_configure(int channels, unsigned int align)
{
	unsigned int i;

	down_write(&scif_dma_rwsem);
	scif_dma_limit = min(channels < 0 ? dma_channels : channels,
			     SCIF_DMA_MAX_CHANS);
	scif_dma_align = is_power_of_2(align) ? align : 1;
	for (i = 0; i < SCIF_DMA_MAX_CHANS; i++)
		if (scif_dma_slots[i].chan)
			scif_dma_release(&scif_dma_slots[i]);
	WRITE_ONCE(scif_dma_next_try, jiffies);
	up_write(&scif_dma_rwsem);
}
EXPORT_SYMBOL_IF_KUNIT(scif_dma_configure);

/**
 * scif_dma_init() - set up the DMA path at module load
 *
 * Return: 0 or -ENOMEM.
 */
int scif_dma_init(void)
{
	scif_dma_limit = min(dma_channels, SCIF_DMA_MAX_CHANS);
	scif_dma_next_try = jiffies;
	scif_dma_wq = alloc_workqueue("scif_dma", WQ_UNBOUND, 0);
	if (!scif_dma_wq)
		return -ENOMEM;
	scif_rma_wq = alloc_workqueue("scif_rma", WQ_UNBOUND, WQ_MAX_ACTIVE);
	scif_serve_wq = alloc_workqueue("scif_rma_serve", WQ_UNBOUND, 0);
	if (!scif_rma_wq || !scif_serve_wq) {
		if (scif_rma_wq)
			destroy_workqueue(scif_rma_wq);
		if (scif_serve_wq)
			destroy_workqueue(scif_serve_wq);
		destroy_workqueue(scif_dma_wq);
		return -ENOMEM;
	}
	return 0;
}

/**
 * scif_dma_exit() - release the pool at module unload
 *
 * Every endpoint is closed, so no request is being issued; every work item
 * queued with scif_rma_queue_work() (finished requests, fence signals,
 * window frees, peer closes) is waited for.
 */
void scif_dma_exit(void)
{
	destroy_workqueue(scif_serve_wq);
	/* Fence signals may still wait for DMA completions: them first. */
	destroy_workqueue(scif_rma_wq);
	scif_dma_configure(0, 1);
	destroy_workqueue(scif_dma_wq);
}
