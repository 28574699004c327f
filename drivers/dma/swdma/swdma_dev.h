/* SPDX-License-Identifier: GPL-2.0 */
/*
 * swdma's device, channels and descriptors, shared by the files of the
 * module: swdma_main.c (the device; the overview is there), swdma_chan.c
 * (a channel's queues, its worker and the dmaengine operations) and
 * swdma_copy.c (how the CPU reaches the addresses of one transfer).
 */
#ifndef SWDMA_DEV_H
#define SWDMA_DEV_H

#include <linux/dmaengine.h>
#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

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

static inline struct swdma_chan *to_swdma_chan(struct dma_chan *chan)
{
	return container_of(chan, struct swdma_chan, chan);
}

static inline struct swdma_desc *to_swdma_desc(struct dma_async_tx_descriptor *txd)
{
	return container_of(txd, struct swdma_desc, txd);
}

static inline struct swdma_dev *to_swdma_dev(struct dma_device *dma)
{
	return container_of(dma, struct swdma_dev, dma);
}

/* swdma_copy.c */
size_t swdma_copy(struct swdma_chan *c, struct swdma_desc *d,
		  enum dmaengine_tx_result *res);
void swdma_win_drop(struct swdma_win *w);

/* swdma_chan.c */
void swdma_chan_init(struct swdma_chan *c, struct dma_device *dma);
void swdma_set_ops(struct dma_device *dma);

#endif /* SWDMA_DEV_H */
