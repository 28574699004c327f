// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF remote memory access: scif_readfrom(), scif_writeto(),
 * scif_vreadfrom() and scif_vwriteto().
 *
 * An RMA resolves both of its ranges to runs of windows first (each run
 * must be contiguous in its registered address space, every window usable
 * and allowing the access), holding a reference on every window so that
 * an unregister in the meantime only defers their release. Then it copies
 * either by a DMA engine (rma/scif_dma.c), unless the caller asked for
 * %SCIF_RMA_USECPU or no channel is available, or by the CPU, one run of
 * pages contiguous on both sides at a time: our pages through the direct
 * map, the peer's through the link, either the CPU mapping of the NTB
 * window or, on loopback and the simulated pair, the direct map as well.
 *
 * A link that reaches neither way (no &scif_link.peer_mem: the NTB
 * transport in translated mode) carries the same requests as messages
 * instead, the owner of the remote window copying on its side
 * (rma/scif_staged.c).
 *
 * Every RMA is a &struct scif_rma_req entered in &scif_rma_ep.inflight with
 * a sequence number until it completed; fences compare sequence numbers
 * against the oldest RMA still there (rma/scif_fence.c). The CPU path completes
 * before the call returns; the DMA path returns once the descriptors are
 * submitted and completes from a work item, unless %SCIF_RMA_SYNC asks the
 * caller to wait.
 */
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
#include "scif_rma.h"
#include "scif_rma_trace.h"

#define SCIF_RMA_FLAGS	(SCIF_RMA_USECPU | SCIF_RMA_USECACHE | \
			 SCIF_RMA_SYNC | SCIF_RMA_ORDERED)
/*
 * Requests one endpoint may have issued and not completed; a caller beyond
 * waits, so that asynchronous RMAs cannot pile up memory without bound.
 */
#define SCIF_RMA_MAX_INFLIGHT	256

static void scif_dma_issue_spans(struct scif_dma_issue *di,
				 struct scif_rma_req *req, u64 n)
{
	size_t loff, roff, len;
	struct scif_walk w;
	struct page *lpg;
	u64 raddr;

	scif_walk_init(&w, &req->lsp, &req->rsp, 0, n);
	while (scif_walk_next(&w, &lpg, &loff, &raddr, &roff, &len))
		scif_dma_piece(di, page_to_phys(lpg) + loff, raddr + roff,
			       len);
}

static void scif_rma_issue(struct scif_rma_ep *rma, struct scif_rma_req *req)
{
	spin_lock(&rma->ilock);
	req->seq = ++rma->seq;
	list_add_tail(&req->list, &rma->inflight);
	rma->nr_reqs++;
	spin_unlock(&rma->ilock);
}

/* The request left @inflight: tell fences, then let close go on. */
static void scif_rma_retire(struct scif_endpt *ep, struct scif_rma_req *req)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);

	spin_lock(&rma->ilock);
	list_del(&req->list);
	spin_unlock(&rma->ilock);
	wake_up_all(&rma->wq);
	scif_fence_check_peer_marks(ep);
	spin_lock(&rma->ilock);
	rma->nr_reqs--;
	spin_unlock(&rma->ilock);
	wake_up_all(&rma->wq);
}

/*
 * Complete a request whose copies are all done, short of freeing it: redo
 * failed descriptors and copy the %SCIF_RMA_ORDERED tail by CPU, release
 * the windows, take the request out of the in-flight list and answer the
 * fences it held up. Returns 0, or -ENODEV if bytes could not be copied
 * because the peer's node is gone.
 */
static int scif_rma_req_end(struct scif_rma_req *req)
{
	struct scif_endpt *ep = req->ep;
	struct scif_peer_mem pm;
	int ret = 0;

	if (!list_empty(&req->failed) || req->tail) {
		ret = scif_peer_mem_lock(ep, &pm);
		scif_dma_redo(req, ret ? NULL : &pm);
		if (!ret && req->tail) {
			wmb(); /* the body is visible before the last line */
			scif_copy_cpu(&pm, &req->lsp, &req->rsp,
				      req->len - req->tail, req->tail,
				      req->to_peer);
		}
		if (!ret)
			scif_peer_mem_unlock(ep);
	}
	scif_dma_req_release(req);
	scif_span_put(&req->rsp);
	scif_span_put(&req->lsp);
	scif_rma_retire(ep, req);
	scif_ep_put(ep);
	return ret;
}

/**
 * scif_rma_req_finish() - complete a request whose copies are all done
 * @req: the request, from kzalloc() in scif_rma(); freed
 *
 * Redoes failed descriptors and copies the %SCIF_RMA_ORDERED tail by CPU,
 * releases the windows, takes the request out of the in-flight list and
 * answers the fences it held up. Process context.
 *
 * Return: 0, or -ENODEV if failed or held back bytes could not be copied
 * because the peer's node is gone.
 */
int scif_rma_req_finish(struct scif_rma_req *req)
{
	int ret = scif_rma_req_end(req);

	kfree(req);
	return ret;
}

/* Completion of an asynchronous request on the DMA path. */
static void scif_rma_req_work(struct work_struct *work)
{
	struct scif_rma_req *req = container_of(work, struct scif_rma_req,
						work);
	const char *name = scif_ep_instance_name(req->ep);

	if (scif_rma_req_finish(req))
		pr_warn_ratelimited("scif %s: node lost before a failed DMA transfer could be redone\n",
				    name);
}

/**
 * scif_rma_oldest() - sequence number of the oldest RMA still in flight
 * @rma: the endpoint's RMA state; @rma->ilock is held
 *
 * Return: that number, or one past the last issued if none is in flight.
 */
u64 scif_rma_oldest(struct scif_rma_ep *rma)
{
	struct scif_rma_req *req;

	lockdep_assert_held(&rma->ilock);

	req = list_first_entry_or_null(&rma->inflight, struct scif_rma_req,
				       list);
	return req ? req->seq : rma->seq + 1;
}

static bool scif_rma_idle(struct scif_rma_ep *rma)
{
	bool idle;

	spin_lock(&rma->ilock);
	idle = list_empty(&rma->inflight) && !rma->nr_reqs;
	spin_unlock(&rma->ilock);
	return idle;
}

/**
 * scif_rma_drain() - wait for every RMA of an endpoint to finish
 * @ep: the endpoint; no new RMA starts (it is closing)
 * @timeout: upper bound in jiffies
 *
 * Return: 0, or -ETIMEDOUT.
 */
int scif_rma_drain(struct scif_endpt *ep, long timeout)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);

	if (!wait_event_timeout(rma->wq, scif_rma_idle(rma), timeout))
		return -ETIMEDOUT;
	return 0;
}

/* The checks every RMA call starts with. */
static int scif_rma_check(scif_epd_t epd, s64 loff, u64 len, s64 roff,
			  int flags)
{
	int ret = scif_ep_check(epd);

	if (ret)
		return ret;
	if (flags & ~SCIF_RMA_FLAGS)
		return -EINVAL;
	if (loff < 0 || roff < 0)
		return -ENXIO;
	if (len && (len - 1 > SCIF_RAS_LAST - (u64)loff ||
		    len - 1 > SCIF_RAS_LAST - (u64)roff))
		return -ENXIO;
	return scif_rma_ep_usable(epd);
}

static bool scif_rma_room(struct scif_rma_ep *rma)
{
	bool room;

	spin_lock(&rma->ilock);
	room = rma->nr_reqs < SCIF_RMA_MAX_INFLIGHT;
	spin_unlock(&rma->ilock);
	return room;
}

/* Fill in a zeroed request; @async: one the DMA path may complete later. */
static void scif_rma_req_init(struct scif_rma_req *req, struct scif_endpt *ep,
			      u64 len, int flags, bool to_peer, bool async)
{
	req->ep = ep;
	req->len = len;
	req->to_peer = to_peer;
	req->sync = flags & SCIF_RMA_SYNC;
	INIT_LIST_HEAD(&req->failed);
	if (!async)
		return;
	atomic_set(&req->pending, 1);
	init_completion(&req->done);
	spin_lock_init(&req->lock);
	INIT_WORK(&req->work, scif_rma_req_work);
}

static int __scif_rma(struct scif_endpt *ep, s64 loff, void *addr, u64 len,
		      s64 roff, int flags, bool to_peer)
{
	bool by_cpu = flags & SCIF_RMA_USECPU, dma = false, sync, staged;
	struct scif_rma_req cpu_req = {}, *req = &cpu_req;
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_dma_issue di;
	struct scif_peer_mem pm;
	u64 tail = 0;
	int ret;

	ret = scif_rma_check(ep, addr ? 0 : loff, len, roff, flags);
	if (ret || !len)
		return ret;
	/* Requests in flight always complete: only a fatal signal ends this. */
	if (wait_event_killable(rma->wq, scif_rma_room(rma)))
		return -EINTR;
	/* A link without RMA addressing: messages (rma/scif_staged.c). */
	staged = scif_staged_link(ep);
	/*
	 * A CPU copy ends before we return, so its request lives on our
	 * stack: an allocation costs more than a small copy. A staged one
	 * ends by the peer's answer, which may come after we gave up.
	 */
	if (!by_cpu || staged) {
		req = kzalloc(sizeof(*req), GFP_KERNEL_ACCOUNT);
		if (!req)
			return -ENOMEM;
	}
	scif_rma_req_init(req, ep, len, flags, to_peer, !by_cpu || staged);
	/* Staged, the CPU path still ends before the call returns. */
	if (staged && by_cpu)
		req->sync = true;
	if (addr) {
		ret = scif_span_vaddr(ep, (unsigned long)addr, len,
				      to_peer ? SCIF_PROT_READ :
				      SCIF_PROT_READ | SCIF_PROT_WRITE,
				      flags, &req->lsp);
		if (ret)
			goto free;
	}
	mutex_lock(&rma->lock);
	ret = scif_rma_ep_usable(ep);
	if (!ret && !addr)
		ret = scif_span_get(rma, false, loff, len,
				    to_peer ? SCIF_PROT_READ : SCIF_PROT_WRITE,
				    &req->lsp);
	if (!ret)
		ret = scif_span_get(rma, true, roff, len,
				    to_peer ? SCIF_PROT_WRITE : SCIF_PROT_READ,
				    &req->rsp);
	if (!ret)
		scif_rma_issue(rma, req);
	mutex_unlock(&rma->lock);
	if (ret)
		goto put;
	scif_ep_get(ep);

	if (staged) {
		if (flags & SCIF_RMA_ORDERED)
			tail = scif_ordered_tail(to_peer ? req->lsp.start :
						 req->rsp.start, len);
		return scif_staged_rma(req, tail, req->sync);
	}
	ret = scif_peer_mem_lock(ep, &pm);
	if (!ret) {
		if (flags & SCIF_RMA_ORDERED)
			tail = scif_ordered_tail(to_peer ? req->lsp.start :
						 req->rsp.start, len);
		if (!by_cpu && !scif_dma_begin(&di, req, &pm)) {
			/* The tail waits for the rest: scif_rma_req_finish(). */
			req->tail = tail;
			scif_dma_issue_spans(&di, req, len - tail);
			scif_dma_end(&di);
			dma = true;
		} else {
			scif_copy_cpu(&pm, &req->lsp, &req->rsp, 0, len - tail,
				      to_peer);
			if (tail) {
				/* SCIF_RMA_ORDERED: all else is visible first. */
				wmb(); /* orders the body before the last line */
				scif_copy_cpu(&pm, &req->lsp, &req->rsp,
					      len - tail, tail, to_peer);
			}
		}
		scif_peer_mem_unlock(ep);
	}
	if (!dma) {
		scif_rma_req_end(req);
		if (req != &cpu_req)
			kfree(req);
		return ret;
	}
	/* From here on, an asynchronous @req may be gone at any moment. */
	sync = req->sync;
	scif_dma_req_put(req);
	if (!sync)
		return 0;
	wait_for_completion(&req->done);
	return scif_rma_req_finish(req);
put:
	scif_span_put(&req->rsp);
	scif_span_put(&req->lsp);
free:
	if (req != &cpu_req)
		kfree(req);
	return ret;
}

/* A traced copy: its start and end are the scif_rma_copy_* events. */
static int scif_rma(struct scif_endpt *ep, s64 loff, void *addr, u64 len,
		    s64 roff, int flags, bool to_peer)
{
	u64 id = scif_ep_check(ep) ? 0 : scif_ep_id(ep);
	int ret;

	trace_scif_rma_copy_start(id, len, to_peer, flags, 0);
	ret = __scif_rma(ep, loff, addr, len, roff, flags, to_peer);
	trace_scif_rma_copy_done(id, len, to_peer, flags, ret);
	return ret;
}

/**
 * scif_readfrom() - copy from the peer's registered memory into ours
 * @epd: a connected endpoint
 * @loffset: destination offset in our registered address space
 * @len: number of bytes
 * @roffset: source offset in the peer's registered address space
 * @rma_flags: %SCIF_RMA_USECPU, %SCIF_RMA_SYNC, %SCIF_RMA_ORDERED
 *
 * Either range may span several windows if they are contiguous.
 *
 * Return: 0, or -EINVAL (bad flags), -ENXIO (a range not fully registered,
 * or negative), -EACCES (a window forbids the access), -ENOTCONN,
 * -ECONNRESET, -ENODEV, -EBADF, -ENOMEM.
 */
int scif_readfrom(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		  int rma_flags)
{
	return scif_rma(epd, loffset, NULL, len, roffset, rma_flags, false);
}
EXPORT_SYMBOL_GPL(scif_readfrom);

/**
 * scif_writeto() - copy from our registered memory into the peer's
 * @epd: a connected endpoint
 * @loffset: source offset in our registered address space
 * @len: number of bytes
 * @roffset: destination offset in the peer's registered address space
 * @rma_flags: as scif_readfrom()
 *
 * Return: as scif_readfrom().
 */
int scif_writeto(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		 int rma_flags)
{
	return scif_rma(epd, loffset, NULL, len, roffset, rma_flags, true);
}
EXPORT_SYMBOL_GPL(scif_writeto);

/**
 * scif_vreadfrom() - copy from the peer's registered memory to an address
 * @epd: a connected endpoint
 * @addr: destination (user address of the current process, or kernel)
 * @len: number of bytes
 * @roffset: source offset in the peer's registered address space
 * @rma_flags: as scif_readfrom(), plus %SCIF_RMA_USECACHE
 *
 * Return: as scif_readfrom(), or -EFAULT for an unmapped @addr.
 */
int scif_vreadfrom(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		   int rma_flags)
{
	if (!addr)
		return -EFAULT;
	return scif_rma(epd, 0, addr, len, roffset, rma_flags, false);
}
EXPORT_SYMBOL_GPL(scif_vreadfrom);

/**
 * scif_vwriteto() - copy from an address to the peer's registered memory
 * @epd: a connected endpoint
 * @addr: source (user address of the current process, or kernel)
 * @len: number of bytes
 * @roffset: destination offset in the peer's registered address space
 * @rma_flags: as scif_vreadfrom()
 *
 * Return: as scif_vreadfrom().
 */
int scif_vwriteto(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		  int rma_flags)
{
	if (!addr)
		return -EFAULT;
	return scif_rma(epd, 0, addr, len, roffset, rma_flags, true);
}
EXPORT_SYMBOL_GPL(scif_vwriteto);
