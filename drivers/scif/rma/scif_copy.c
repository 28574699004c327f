// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF remote memory access: scif_readfrom(), scif_writeto(),
 * scif_vreadfrom() and scif_vwriteto().
 *
 * An RMA resolves both of its ranges to runs of windows first (each run
 * must be contiguous in its registered address space, every window usable
 * and allowing the access), holding a reference on every window so that
 * an unregister in the meantime only defers their release. Then it copies
 * either by a DMA engine (scif_dma.c), unless the caller asked for
 * %SCIF_RMA_USECPU or no channel is available, or by the CPU, one run of
 * pages contiguous on both sides at a time: our pages through the direct
 * map, the peer's through the link, either the CPU mapping of the NTB
 * window or, on loopback and the simulated pair, the direct map as well.
 *
 * Every RMA is a &struct scif_rma_req entered in &scif_rma_ep.inflight with
 * a sequence number until it completed; fences compare sequence numbers
 * against the oldest RMA still there (scif_fence.c). The CPU path completes
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

#include "scif_core.h"
#include "scif_dma.h"
#include "scif_endpt.h"
#include "scif_kunit_export.h"
#include "scif_link.h"
#include "scif_rma.h"

#define SCIF_RMA_FLAGS	(SCIF_RMA_USECPU | SCIF_RMA_USECACHE | \
			 SCIF_RMA_SYNC | SCIF_RMA_ORDERED)
/*
 * Requests one endpoint may have issued and not completed; a caller beyond
 * waits, so that asynchronous RMAs cannot pile up memory without bound.
 */
#define SCIF_RMA_MAX_INFLIGHT	256

static void scif_span_put(struct scif_span *sp)
{
	unsigned int i;

	for (i = 0; i < sp->nr; i++)
		scif_win_put(sp->wins[i]);
	if (sp->wins != sp->few)
		kvfree(sp->wins);
	sp->wins = NULL;
	sp->nr = 0;
}

static bool scif_win_usable(struct scif_window *win)
{
	return win->remote ? win->nr_recv == win->nr_pages :
			     win->state == SCIF_WIN_ACTIVE;
}

/*
 * Resolve [@first, @first + @len) of @mt to windows allowing @prot.
 * Called with rma->lock held. -ENXIO for a hole, a window not (or no
 * longer) usable, or an offset past the space; -EACCES for a window that
 * forbids the access.
 */
static int scif_span_get(struct maple_tree *mt, u64 first, u64 len, int prot,
			 struct scif_span *sp)
{
	u64 last = first + len - 1, pos;
	struct scif_window *win;
	unsigned int n = 0;

	sp->start = first;
	sp->nr = 0;
	sp->wins = NULL;
	for (pos = first; pos <= last; pos = scif_win_end(win)) {
		win = scif_wtree_find(mt, pos);
		if (!win || !scif_win_usable(win))
			return -ENXIO;
		if ((win->prot & prot) != prot)
			return -EACCES;
		n++;
		if (scif_win_end(win) - 1 >= last)
			break;
	}
	sp->wins = n <= ARRAY_SIZE(sp->few) ? sp->few :
		   kvmalloc_array(n, sizeof(*sp->wins), GFP_KERNEL);
	if (!sp->wins)
		return -ENOMEM;
	for (pos = first; sp->nr < n; pos = scif_win_end(win)) {
		win = scif_wtree_find(mt, pos);
		scif_win_get(win);
		sp->wins[sp->nr++] = win;
	}
	return 0;
}

/*
 * Pin @len bytes of memory at @addr for a v* call, as a one-window span.
 * User memory goes through the endpoint's pinned-page cache: with
 * SCIF_RMA_USECACHE in @flags it may come from (and stay in) the cache, and
 * the window may start before @addr.
 */
static int scif_span_vaddr(struct scif_endpt *ep, unsigned long addr,
			   u64 len, int prot, int flags, struct scif_span *sp)
{
	unsigned long base = addr & PAGE_MASK;
	u64 size = PAGE_ALIGN(addr + len) - base;
	struct scif_pinned_pages *pp;
	struct scif_window *win;
	int map = 0, ret;

	if (addr + len < addr)
		return -EINVAL;
	if (!current->mm || addr >= TASK_SIZE)
		map = SCIF_MAP_KERNEL;
	if (!map)
		ret = scif_pincache_get(&ep->rma, base, size, prot,
					flags & SCIF_RMA_USECACHE, &pp, &base);
	else
		ret = scif_pp_create((void *)base, size, prot, map, &pp);
	if (ret)
		return ret;
	win = scif_win_alloc(pp->nr_pages, false);
	if (!win) {
		scif_pp_put(pp);
		return -ENOMEM;
	}
	win->pp = pp;
	win->prot = prot;
	sp->wins = sp->few;
	sp->wins[0] = win;
	sp->nr = 1;
	sp->start = addr - base;
	return 0;
}

/**
 * struct scif_cursor - a position inside a span
 * @sp: the span
 * @i: index of the current window
 * @pos: current offset (in the windows' space)
 */
struct scif_cursor {
	struct scif_span *sp;
	unsigned int i;
	u64 pos;
};

static void scif_cursor_init(struct scif_cursor *c, struct scif_span *sp)
{
	c->sp = sp;
	c->i = 0;
	c->pos = sp->start;
}

/* Page index in the current window, and bytes left in that page. */
static unsigned long scif_cursor_page(struct scif_cursor *c, size_t *room)
{
	struct scif_window *win = c->sp->wins[c->i];
	u64 rel = c->pos - win->offset;

	*room = PAGE_SIZE - (rel & ~PAGE_MASK);
	return rel >> PAGE_SHIFT;
}

static void scif_cursor_advance(struct scif_cursor *c, size_t n)
{
	c->pos += n;
	if (c->pos >= scif_win_end(c->sp->wins[c->i]) && c->i + 1 < c->sp->nr)
		c->i++;
}

/**
 * scif_peer_mem_lock() - how the link to an endpoint's peer reaches its memory
 * @ep: a connected endpoint
 * @pm: filled in from the link
 *
 * On success the instance's nodes_rwsem stays held for reading, so that the
 * node, and with it the mapping in @pm, stays until scif_peer_mem_unlock().
 *
 * Return: 0, -ENODEV (the node is gone), or -EOPNOTSUPP (a link without
 * RMA).
 */
int scif_peer_mem_lock(struct scif_endpt *ep, struct scif_peer_mem *pm)
{
	struct scif_instance *si = ep->si;
	struct scif_link *link;
	struct scif_node *n;
	int ret = -ENODEV;

	down_read(&si->nodes_rwsem);
	n = xa_load(&si->nodes, ep->peer.node);
	link = n ? n->link : NULL;
	if (link && (link->rma_local || link->peer_mem)) {
		*pm = (struct scif_peer_mem){
			.local = link->rma_local,
			.base = link->peer_mem,
			.phys = link->peer_mem_phys,
			.size = link->peer_mem_size,
			.dma = link->peer_mem_dma,
		};
		return 0;
	}
	if (link)
		ret = -EOPNOTSUPP;
	up_read(&si->nodes_rwsem);
	return ret;
}

/**
 * scif_peer_mem_unlock() - end the use of a scif_peer_mem_lock() snapshot
 * @ep: the endpoint given to scif_peer_mem_lock()
 */
void scif_peer_mem_unlock(struct scif_endpt *ep)
{
	up_read(&ep->si->nodes_rwsem);
}

/**
 * scif_peer_mem_get() - a copy of what scif_peer_mem_lock() reports, for
 *			 users that hand out the peer's pages themselves
 * @ep: a connected endpoint
 * @pm: filled in from the link
 *
 * get_pages and mmap give out physical addresses, so a link that maps the
 * peer's memory without saying where it is physically is refused.
 *
 * The link's RMA fields are constant while the node is online; once it is
 * lost, users of the copy are stopped by scif_mmap_node_lost() (mmap) or
 * must stop by themselves (scif_get_pages()).
 *
 * Return: as scif_peer_mem_lock(); also -EOPNOTSUPP for a link without
 * &scif_link.peer_mem_phys.
 */
int scif_peer_mem_get(struct scif_endpt *ep, struct scif_peer_mem *pm)
{
	int ret = scif_peer_mem_lock(ep, pm);

	if (ret)
		return ret;
	scif_peer_mem_unlock(ep);
	return pm->local || pm->phys ? 0 : -EOPNOTSUPP;
}

/*
 * Copy @n bytes between our page @lpg (at @loff) and the peer's page at
 * address @raddr (at @roff); @to_peer gives the direction.
 */
static void scif_copy_piece(struct scif_peer_mem *pm, struct page *lpg,
			    size_t loff, u64 raddr, size_t roff, size_t n,
			    bool to_peer)
{
	u8 *l = kmap_local_page(lpg);
	u8 *r;

	if (pm->local) {
		r = kmap_local_page(pfn_to_page(PHYS_PFN(raddr)));
		if (to_peer)
			memcpy(r + roff, l + loff, n);
		else
			memcpy(l + loff, r + roff, n);
		kunmap_local(r);
	} else if (to_peer) {
		memcpy(pm->base + raddr + roff, l + loff, n);
	} else {
		memcpy(l + loff, pm->base + raddr + roff, n);
	}
	kunmap_local(l);
}

/* Move a cursor to byte @off of its span. */
static void scif_cursor_seek(struct scif_cursor *c, u64 off)
{
	c->pos = c->sp->start + off;
	c->i = 0;
	while (c->pos >= scif_win_end(c->sp->wins[c->i]) &&
	       c->i + 1 < c->sp->nr)
		c->i++;
}

/**
 * struct scif_walk - pieces of a copy, each within one page on both sides
 * @lc: our side
 * @rc: the peer's side
 * @left: bytes not yet walked
 */
struct scif_walk {
	struct scif_cursor lc;
	struct scif_cursor rc;
	u64 left;
};

static void scif_walk_init(struct scif_walk *w, struct scif_span *lsp,
			   struct scif_span *rsp, u64 from, u64 n)
{
	scif_cursor_init(&w->lc, lsp);
	scif_cursor_init(&w->rc, rsp);
	scif_cursor_seek(&w->lc, from);
	scif_cursor_seek(&w->rc, from);
	w->left = n;
}

/*
 * The next piece: our page @lpg at @loff, the peer's page at address
 * @raddr at @roff, @n bytes. False when done.
 */
static bool scif_walk_next(struct scif_walk *w, struct page **lpg,
			   size_t *loff, u64 *raddr, size_t *roff, size_t *n)
{
	struct scif_window *lw, *rw;
	size_t lroom, rroom;
	unsigned long li, ri;

	if (!w->left)
		return false;
	lw = w->lc.sp->wins[w->lc.i];
	rw = w->rc.sp->wins[w->rc.i];
	li = scif_cursor_page(&w->lc, &lroom);
	ri = scif_cursor_page(&w->rc, &rroom);
	*n = min3((u64)lroom, (u64)rroom, w->left);
	*lpg = lw->pp->pages[li];
	*loff = PAGE_SIZE - lroom;
	*raddr = rw->addrs[ri];
	*roff = PAGE_SIZE - rroom;
	scif_cursor_advance(&w->lc, *n);
	scif_cursor_advance(&w->rc, *n);
	w->left -= *n;
	return true;
}

/*
 * Copy @n bytes from byte @from of the spans with the CPU, one run of
 * pages contiguous on both sides at a time: a page-sized memcpy() costs
 * less than the walk, mapping and call around it under emulation.
 */
static void scif_copy_cpu(struct scif_peer_mem *pm, struct scif_span *lsp,
			  struct scif_span *rsp, u64 from, u64 n, bool to_peer)
{
	struct scif_dma_run run = {};
	size_t loff, roff, len;
	struct scif_walk w;
	struct page *lpg;
	u64 lphys, raddr;

	scif_walk_init(&w, lsp, rsp, from, n);
	while (scif_walk_next(&w, &lpg, &loff, &raddr, &roff, &len)) {
		lphys = page_to_phys(lpg) + loff;
		raddr += roff;
		if (run.len && run.lphys + run.len == lphys &&
		    run.raddr + run.len == raddr) {
			run.len += len;
			continue;
		}
		if (run.len)
			scif_cpu_run(pm, &run, to_peer);
		run = (struct scif_dma_run){ lphys, raddr, len };
	}
	if (run.len)
		scif_cpu_run(pm, &run, to_peer);
	if (to_peer)
		wmb(); /* the peer's memory is current before we report done */
}

/* Between two cond_resched() in a long run without highmem. */
#define SCIF_CPU_CHUNK	SZ_256K

/**
 * scif_cpu_run() - copy a run with the CPU
 * @pm: how the peer is reached (nodes_rwsem held)
 * @run: the run, physically contiguous on both sides
 * @to_peer: direction
 *
 * Without highmem our pages are contiguous in the linear map as well, so
 * the run is copied in large pieces; with it, one page at a time.
 */
void scif_cpu_run(struct scif_peer_mem *pm, const struct scif_dma_run *run,
		  bool to_peer)
{
	u64 done, l, r;
	size_t n;
	u8 *lv, *rv;

	for (done = 0; done < run->len; done += n) {
		l = run->lphys + done;
		r = run->raddr + done;
		if (IS_ENABLED(CONFIG_HIGHMEM)) {
			n = min3((u64)(PAGE_SIZE - offset_in_page(l)),
				 (u64)(PAGE_SIZE - offset_in_page(r)),
				 run->len - done);
			scif_copy_piece(pm, pfn_to_page(PHYS_PFN(l)),
					offset_in_page(l), r & PAGE_MASK,
					offset_in_page(r), n, to_peer);
			continue;
		}
		n = min_t(u64, run->len - done, SCIF_CPU_CHUNK);
		lv = phys_to_virt(l);
		rv = pm->local ? phys_to_virt(r) : pm->base + r;
		if (to_peer)
			memcpy(rv, lv, n);
		else
			memcpy(lv, rv, n);
		cond_resched();
	}
}

/* Hand @n bytes from the start of the request's spans to the DMA path. */
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

/* Length of the last (partial) cache line of the source range. */
static u64 scif_ordered_tail(u64 src, u64 len)
{
	u64 line = ALIGN_DOWN(src + len - 1, L1_CACHE_BYTES);

	return src + len - max(line, src);
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
	struct scif_rma_ep *rma = &ep->rma;

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
	const char *name = req->ep->si->name;

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
	if (!wait_event_timeout(ep->rma.wq, scif_rma_idle(&ep->rma), timeout))
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

static int scif_rma(struct scif_endpt *ep, s64 loff, void *addr, u64 len,
		    s64 roff, int flags, bool to_peer)
{
	bool by_cpu = flags & SCIF_RMA_USECPU, dma = false, sync;
	struct scif_rma_req cpu_req = {}, *req = &cpu_req;
	struct scif_rma_ep *rma = &ep->rma;
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
	/*
	 * A CPU copy ends before we return, so its request lives on our
	 * stack: an allocation costs more than a small copy.
	 */
	if (!by_cpu) {
		req = kzalloc(sizeof(*req), GFP_KERNEL);
		if (!req)
			return -ENOMEM;
	}
	scif_rma_req_init(req, ep, len, flags, to_peer, !by_cpu);
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
		ret = scif_span_get(&rma->local, loff, len,
				    to_peer ? SCIF_PROT_READ : SCIF_PROT_WRITE,
				    &req->lsp);
	if (!ret)
		ret = scif_span_get(&rma->remote, roff, len,
				    to_peer ? SCIF_PROT_WRITE : SCIF_PROT_READ,
				    &req->rsp);
	if (!ret)
		scif_rma_issue(rma, req);
	mutex_unlock(&rma->lock);
	if (ret)
		goto put;
	kref_get(&ep->ref);

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

/*
 * Write @val at @off of a span's single window (the fence signal): 8 bytes,
 * within one page since @off is 4-byte aligned only if it does not cross.
 */
static int scif_poke_span(struct scif_endpt *ep, struct scif_span *sp,
			  u64 val, bool remote)
{
	struct scif_peer_mem pm = { .local = true };
	struct scif_cursor c;
	unsigned long idx;
	size_t room;
	u8 *p;
	int ret;

	scif_cursor_init(&c, sp);
	idx = scif_cursor_page(&c, &room);
	if (!remote) {
		p = kmap_local_page(sp->wins[0]->pp->pages[idx]);
		memcpy(p + PAGE_SIZE - room, &val, sizeof(val));
		kunmap_local(p);
		return 0;
	}
	ret = scif_peer_mem_lock(ep, &pm);
	if (ret)
		return ret;
	if (pm.local) {
		p = kmap_local_page(pfn_to_page(PHYS_PFN(sp->wins[0]->addrs[idx])));
		memcpy(p + PAGE_SIZE - room, &val, sizeof(val));
		kunmap_local(p);
	} else {
		memcpy(pm.base + sp->wins[0]->addrs[idx] + PAGE_SIZE - room,
		       &val, sizeof(val));
	}
	scif_peer_mem_unlock(ep);
	return 0;
}

/*
 * Take the window under the 8 bytes at @off for a poke. A poke writes, so
 * the window must allow writing whichever side it belongs to: a read-only
 * local window may be backed by pages its owner may only read (a file's
 * page cache), and those were pinned without write intent.
 */
static int scif_poke_find(struct scif_endpt *ep, u64 off, bool remote,
			  struct scif_span *sp)
{
	struct scif_rma_ep *rma = &ep->rma;
	int ret;

	/* The 8 bytes must not straddle a page (so neither two windows). */
	if ((off & ~PAGE_MASK) > PAGE_SIZE - sizeof(u64))
		return -ENXIO;
	mutex_lock(&rma->lock);
	ret = scif_span_get(remote ? &rma->remote : &rma->local, off,
			    sizeof(u64), SCIF_PROT_WRITE, sp);
	mutex_unlock(&rma->lock);
	return ret;
}

/**
 * scif_rma_poke_check() - would a poke at @off find a window now?
 * @ep: the endpoint
 * @off: the offset, in the peer's registered space if @remote, else ours
 * @remote: which space
 *
 * A fence signal checks its offsets when it is asked, even though it writes
 * only once the marked RMAs are done (and skips a window gone by then).
 *
 * Return: 0, -ENXIO, -EACCES.
 */
int scif_rma_poke_check(struct scif_endpt *ep, u64 off, bool remote)
{
	struct scif_span sp;
	int ret = scif_poke_find(ep, off, remote, &sp);

	if (!ret)
		scif_span_put(&sp);
	return ret;
}

static int scif_poke(struct scif_endpt *ep, u64 off, u64 val, bool remote)
{
	struct scif_span sp;
	int ret = scif_poke_find(ep, off, remote, &sp);

	if (ret)
		return ret;
	ret = scif_poke_span(ep, &sp, val, remote);
	scif_span_put(&sp);
	return ret;
}

/**
 * scif_rma_poke() - write 8 bytes into the peer's registered memory
 * @ep: the endpoint
 * @roff: offset in the peer's registered address space
 * @val: the value
 *
 * Return: 0, -ENXIO, -EACCES, -ENODEV, -ENOMEM.
 */
int scif_rma_poke(struct scif_endpt *ep, u64 roff, u64 val)
{
	return scif_poke(ep, roff, val, true);
}

/**
 * scif_rma_local_poke() - write 8 bytes into our registered memory
 * @ep: the endpoint
 * @loff: offset in our registered address space
 * @val: the value
 *
 * Return: 0, -ENXIO, -EACCES (a window without %SCIF_PROT_WRITE), -ENOMEM.
 */
int scif_rma_local_poke(struct scif_endpt *ep, u64 loff, u64 val)
{
	return scif_poke(ep, loff, val, false);
}
