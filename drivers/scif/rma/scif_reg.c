// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF registration: scif_register(), scif_register_pinned_pages(),
 * scif_unregister(), and the RMA side of closing an endpoint.
 *
 * A new window enters our tree as REGISTERING, is advertised to the peer
 * (REG_OPEN with its first page addresses, then the rest in REG_PAGES
 * chunks no larger than the link carries), and becomes ACTIVE when the
 * peer acknowledges it. An
 * unregistered window turns UNREGISTERING at once (no new RMA finds it) but
 * keeps its offsets and its pages until the peer confirms with UNREG_ACK
 * that it dropped the window and no RMA of its own still uses it.
 *
 * Closing: an endpoint with local windows tells the peer (RMA_CLOSE) after
 * its own RMAs drained, and waits a bounded time for RMA_CLOSE_ACK before
 * unpinning; a peer that is gone (disconnected, node lost) needs no answer.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

/* Fill in the addresses under which the peer reaches our pages. */
static int scif_win_map(struct scif_endpt *ep, struct scif_window *win)
{
	struct scif_instance *si = scif_ep_instance(ep);
	struct device *dev = NULL;
	struct scif_peer_mem pm;
	bool staged = false;
	unsigned long i;
	dma_addr_t a;
	int ret;

	ret = scif_node_peer_mem_lock(si, scif_ep_peer_node(ep), &pm);
	if (ret)
		return ret;
	if (!pm.local && !pm.base)
		staged = true;
	else if (!pm.local && pm.dma_dev)
		dev = get_device(pm.dma_dev);
	scif_node_peer_mem_unlock(si);
	for (i = 0; i < win->nr_pages; i++) {
		struct page *pg = win->pp->pages[i];

		if (staged) {
			/* Staged RMA names bytes by offset: no address. */
			win->addrs[i] = 0;
			continue;
		}
		if (!dev) {
			win->addrs[i] = page_to_phys(pg);
			continue;
		}
		a = dma_map_page(dev, pg, 0, PAGE_SIZE,
				 scif_win_dma_dir(win->prot));
		if (dma_mapping_error(dev, a)) {
			while (i--)
				dma_unmap_page(dev, win->addrs[i], PAGE_SIZE,
					       scif_win_dma_dir(win->prot));
			put_device(dev);
			return -ENOMEM;
		}
		win->addrs[i] = a;
	}
	win->dma_dev = dev;
	return 0;
}

/*
 * Advertise @win to the peer: REG_OPEN carries the window and as many of
 * its page addresses as fit in one message; REG_PAGES carry the rest, in
 * chunks. A window of up to a few hundred pages thus costs one message.
 */
static int scif_win_advertise(struct scif_endpt *ep, struct scif_window *win)
{
	size_t max = min_t(size_t, scif_node_max_data(scif_ep_instance(ep),
							scif_ep_peer_node(ep)),
			   SCIF_WIRE_DATA_MAX);
	struct scif_wire_reg *reg;
	unsigned long i, n, k;
	__le64 *addrs;
	u8 *buf;
	int ret;

	if (max < sizeof(*reg) + sizeof(*addrs))
		return -ENODEV;
	buf = kmalloc(max, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	reg = (struct scif_wire_reg *)buf;
	reg->offset = cpu_to_le64(win->offset);
	reg->nr_pages = cpu_to_le64(win->nr_pages);
	reg->prot = cpu_to_le32(win->prot);
	reg->rsvd = 0;
	addrs = (__le64 *)(reg + 1);
	n = min_t(unsigned long, win->nr_pages,
		  (max - sizeof(*reg)) / sizeof(*addrs));
	for (k = 0; k < n; k++)
		addrs[k] = cpu_to_le64(win->addrs[k]);
	ret = scif_rma_send(ep, SCIF_MSG_REG_OPEN, win->id, 0, buf,
			    sizeof(*reg) + n * sizeof(*addrs));
	addrs = (__le64 *)buf;
	for (i = n; i < win->nr_pages && !ret; i += n) {
		n = min_t(unsigned long, max / sizeof(*addrs),
			  win->nr_pages - i);
		for (k = 0; k < n; k++)
			addrs[k] = cpu_to_le64(win->addrs[i + k]);
		ret = scif_rma_send(ep, SCIF_MSG_REG_PAGES, win->id, i, buf,
				    n * sizeof(*addrs));
	}
	kfree(buf);
	return ret;
}

static bool scif_reg_settled(struct scif_endpt *ep, struct scif_window *win)
{
	return READ_ONCE(win->state) != SCIF_WIN_REGISTERING ||
	       scif_rma_ep_usable(ep);
}

/**
 * struct scif_reg_wait - what a registration waits for
 * @ep: the endpoint
 * @win: the window being registered
 */
struct scif_reg_wait {
	struct scif_endpt *ep;
	struct scif_window *win;
};

static bool scif_reg_wait_settled(const void *arg)
{
	const struct scif_reg_wait *w = arg;

	return scif_reg_settled(w->ep, w->win);
}

/* Take @win out of our tables if it is there; true if it was. */
static bool __scif_win_forget(struct scif_rma_ep *rma, struct scif_window *win)
{
	lockdep_assert_held(&rma->lock);
	if (xa_load(&rma->wins, win->id) != win)
		return false;
	xa_erase(&rma->wins, win->id);
	scif_wtree_erase(&rma->local, win);
	rma->nr_windows--;
	return true;
}

/**
 * scif_win_forget() - take a local window out of our tables
 * @ep: its endpoint
 * @win: the window; the caller holds a reference
 *
 * Does nothing if the window is no longer there; otherwise drops the
 * tables' reference. Takes &scif_rma_ep.lock.
 */
void scif_win_forget(struct scif_endpt *ep, struct scif_window *win)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	bool found;

	mutex_lock(&rma->lock);
	found = __scif_win_forget(rma, win);
	mutex_unlock(&rma->lock);
	if (found)
		scif_win_put(win);
}

/*
 * Forget a window whose registration failed, unless the peer may hold it
 * (it did not refuse it) and this side ended the connection: our close
 * began, or we reset the connection (&scif_endpt.reset_local). The window
 * then stays one of those scif_rma_ep_close() releases once the peer let
 * go of them (RMA_CLOSE), or keeps pinned while a peer that may still use
 * them stays online. Decided under the lock that close sets
 * &scif_rma_ep.closed under, so that close either finds the window or
 * began after we let go of it.
 */
static void scif_reg_forget(struct scif_endpt *ep, struct scif_window *win)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	bool found = false;

	mutex_lock(&rma->lock);
	if (win->reg_err || (!rma->closed && !scif_ep_reset_local(ep)))
		found = __scif_win_forget(rma, win);
	mutex_unlock(&rma->lock);
	if (found)
		scif_win_put(win);
}

static off_t scif_register_pp(struct scif_endpt *ep,
			      struct scif_pinned_pages *pp, off_t offset,
			      int map_flags)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_window *win;
	struct scif_reg_wait w = { .ep = ep };
	long left;
	int ret;

	win = scif_win_alloc(pp->nr_pages, false);
	if (!win)
		return -ENOMEM;
	kref_get(&pp->ref);
	win->pp = pp;
	win->prot = pp->prot;
	win->state = SCIF_WIN_REGISTERING;
	ret = scif_win_map(ep, win);
	if (ret)
		goto put;

	mutex_lock(&rma->lock);
	ret = scif_rma_ep_usable(ep);
	if (!ret && rma->nr_windows >= SCIF_RMA_MAX_WINDOWS)
		ret = -EAGAIN;
	if (!ret)
		ret = scif_wtree_insert(&rma->local, win, offset,
					map_flags & SCIF_MAP_FIXED);
	if (ret == -ENOSPC)
		ret = -EAGAIN;
	if (!ret) {
		ret = xa_alloc(&rma->wins, &win->id, win, xa_limit_31b,
			       GFP_KERNEL);
		if (ret)
			scif_wtree_erase(&rma->local, win);
		else
			rma->nr_windows++;
	}
	mutex_unlock(&rma->lock);
	if (ret)
		goto put;
	/* The tables own the allocation reference; we keep our own. */
	scif_win_get(win);

	ret = scif_win_advertise(ep, win);
	if (!ret) {
		/* No lock held: a killed caller need not wait for the peer. */
		w.win = win;
		left = scif_ep_wait_peer(ep, scif_reg_wait_settled, &w,
					 TASK_KILLABLE, SCIF_RMA_PEER_TIMEOUT);
		mutex_lock(&rma->lock);
		if (win->state == SCIF_WIN_ACTIVE)
			ret = 0;
		else if (win->state == SCIF_WIN_REGISTERING && left <= 0)
			ret = left ? -EINTR : -EAGAIN;
		else if (win->state == SCIF_WIN_REGISTERING)
			ret = scif_rma_ep_usable(ep);
		else
			ret = win->reg_err ? win->reg_err : -EAGAIN;
		mutex_unlock(&rma->lock);
	}
	if (ret) {
		if ((ret == -EAGAIN || ret == -EINTR) && !win->reg_err &&
		    !scif_rma_ep_usable(ep)) {
			/* The peer may hold part of it: unregister properly. */
			mutex_lock(&rma->lock);
			win->state = SCIF_WIN_UNREGISTERING;
			win->reg_abandoned = true;
			mutex_unlock(&rma->lock);
			scif_rma_send(ep, SCIF_MSG_UNREG, win->id, 0, NULL, 0);
		} else {
			scif_reg_forget(ep, win);
		}
		goto put;
	}
	ret = 0;
	offset = win->offset;
	scif_win_put(win);
	return offset;
put:
	scif_win_put(win);
	return ret;
}

static int scif_reg_check(scif_epd_t epd, off_t offset, int map_flags)
{
	int ret = scif_ep_check(epd);

	if (ret)
		return ret;
	if (map_flags & ~(SCIF_MAP_FIXED | SCIF_MAP_KERNEL) || offset < 0 ||
	    (map_flags & SCIF_MAP_FIXED && offset & ~PAGE_MASK))
		return -EINVAL;
	return scif_rma_ep_usable(epd);
}

/**
 * scif_register_pinned_pages() - open a window over pinned pages
 * @epd: a connected endpoint
 * @pinned_pages: a live handle from scif_pin_pages()
 * @offset: where to place the window (see scif_register())
 * @map_flags: 0 or %SCIF_MAP_FIXED
 *
 * Return: the offset of the window, or a negative errno as scif_register().
 */
off_t scif_register_pinned_pages(scif_epd_t epd,
				 scif_pinned_pages_t pinned_pages,
				 off_t offset, int map_flags)
{
	int ret;

	if (map_flags & SCIF_MAP_KERNEL)
		return -EINVAL;
	ret = scif_reg_check(epd, offset, map_flags);
	if (ret)
		return ret;
	if (IS_ERR_OR_NULL(pinned_pages) ||
	    pinned_pages->magic != SCIF_PP_MAGIC)
		return -EINVAL;
	return scif_register_pp(epd, pinned_pages, offset, map_flags);
}
EXPORT_SYMBOL_GPL(scif_register_pinned_pages);

/**
 * scif_register() - open a window over memory of the caller
 * @epd: a connected endpoint
 * @addr: page-aligned address (user address of the current process, or a
 *	  kernel address with %SCIF_MAP_KERNEL)
 * @len: page-aligned length, not 0
 * @offset: with %SCIF_MAP_FIXED, the page-aligned offset of the window;
 *	    without, a hint (0: anywhere)
 * @prot_flags: %SCIF_PROT_READ and/or %SCIF_PROT_WRITE
 * @map_flags: %SCIF_MAP_FIXED, %SCIF_MAP_KERNEL
 *
 * Return: the offset of the window, or -EINVAL, -EADDRINUSE, -EAGAIN (no
 * room, or the peer did not answer within peer_timeout_ms), -ENOMEM (also
 * past RLIMIT_MEMLOCK), -EFAULT, -ENOTCONN, -ECONNRESET, -ENODEV, -EBADF,
 * -EINTR (a fatal signal came while waiting for the peer).
 */
off_t scif_register(scif_epd_t epd, void *addr, size_t len, off_t offset,
		    int prot_flags, int map_flags)
{
	struct scif_pinned_pages *pp;
	off_t ret;

	ret = scif_reg_check(epd, offset, map_flags);
	if (ret)
		return ret;
	ret = scif_pp_create(addr, len, prot_flags,
			     map_flags & SCIF_MAP_KERNEL, &pp);
	if (ret)
		return ret;
	ret = scif_register_pp(epd, pp, offset, map_flags);
	scif_pp_put(pp);
	return ret;
}
EXPORT_SYMBOL_GPL(scif_register);

/**
 * struct scif_unreg_wait - what an unregister waits for
 * @ep: the endpoint
 * @wins: the windows it unregistered, one reference each
 * @n: entries of @wins
 */
struct scif_unreg_wait {
	struct scif_endpt *ep;
	struct scif_window **wins;
	unsigned int n;
};

static bool scif_unreg_settled(const void *arg)
{
	const struct scif_unreg_wait *w = arg;
	unsigned int i;

	if (scif_rma_ep_usable(w->ep))
		return true;
	for (i = 0; i < w->n; i++)
		if (!READ_ONCE(w->wins[i]->peer_dropped))
			return false;
	return true;
}

/*
 * Tell the peer about every window of @w and wait until it no longer finds
 * any of them. A peer that does not answer in time is taken for broken.
 */
static int scif_unreg_tell_peer(struct scif_unreg_wait *w)
{
	struct scif_endpt *ep = w->ep;
	unsigned int i;
	long left;

	for (i = 0; i < w->n; i++)
		if (scif_rma_send(ep, SCIF_MSG_UNREG, w->wins[i]->id, 0, NULL, 0))
			break;
	left = scif_ep_wait_peer(ep, scif_unreg_settled, w, TASK_KILLABLE,
				 SCIF_RMA_PEER_TIMEOUT);
	if (left < 0)
		return -EINTR;
	if (!left) {
		scif_ep_reset(ep, -ETIMEDOUT);
		return -ECONNRESET;
	}
	for (i = 0; i < w->n; i++)
		if (!READ_ONCE(w->wins[i]->peer_dropped))
			return scif_rma_ep_usable(ep);
	return 0;
}

/**
 * scif_unregister() - close every window inside a range
 * @epd: the endpoint
 * @offset: first byte of the range
 * @len: length of the range
 *
 * Windows are closed only if the range covers each of them whole; if it
 * cuts one, nothing is closed. On return the peer no longer finds them:
 * its RMAs, mappings and fences started from now on fail. Pages are
 * released once neither side uses them any more (RMAs in flight, mappings
 * and pages from scif_get_pages() of the peer keep them).
 *
 * Return: 0, or -EINVAL (negative or unaligned offset, length 0 or
 * unaligned, a window only partly covered), -ENXIO (no window in the
 * range, or the range leaves the address space), -ENOTCONN, -ECONNRESET
 * (also: the peer did not confirm within peer_timeout_ms, and the
 * connection is reset), -ENODEV, -EBADF, -EINTR (a fatal signal came while
 * waiting for the peer). With the last four, the windows are closed on
 * our side all the same.
 */
int scif_unregister(scif_epd_t epd, off_t offset, size_t len)
{
	struct scif_endpt *ep = epd;
	struct scif_unreg_wait w = { .ep = ep };
	struct scif_rma_ep *rma;
	struct scif_window *win;
	u64 first = offset, last, pos;
	unsigned int i;
	int ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	if (offset < 0 || offset & ~PAGE_MASK || !len || len & ~PAGE_MASK)
		return -EINVAL;
	if (len - 1 > SCIF_RAS_LAST - first)
		return -ENXIO;
	last = first + len - 1;
	ret = scif_rma_ep_usable(ep);
	if (ret)
		return ret;
	rma = scif_ep_rma(ep);
	mutex_lock(&rma->lock);
	/* First pass: refuse partial windows, count whole ones. */
	for (pos = first; (win = scif_wtree_next(&rma->local, pos, last));
	     pos = scif_win_end(win)) {
		if (win->offset < first || scif_win_end(win) - 1 > last) {
			ret = -EINVAL;
			goto unlock;
		}
		if (win->state == SCIF_WIN_ACTIVE)
			w.n++;
		if (scif_win_end(win) - 1 >= last)
			break;
	}
	if (!w.n) {
		ret = -ENXIO;
		goto unlock;
	}
	w.wins = kvmalloc_array(w.n, sizeof(*w.wins), GFP_KERNEL);
	if (!w.wins) {
		ret = -ENOMEM;
		goto unlock;
	}
	w.n = 0;
	for (pos = first; (win = scif_wtree_next(&rma->local, pos, last));
	     pos = scif_win_end(win)) {
		if (win->state == SCIF_WIN_ACTIVE) {
			win->state = SCIF_WIN_UNREGISTERING;
			scif_win_get(win);
			w.wins[w.n++] = win;
		}
		if (scif_win_end(win) - 1 >= last)
			break;
	}
unlock:
	mutex_unlock(&rma->lock);
	if (ret)
		return ret;
	ret = scif_unreg_tell_peer(&w);
	for (i = 0; i < w.n; i++)
		scif_win_put(w.wins[i]);
	kvfree(w.wins);
	return ret;
}
EXPORT_SYMBOL_GPL(scif_unregister);

/* Drop every window of both tables; the peer no longer uses ours. */
void scif_rma_drop_all(struct scif_endpt *ep, bool local)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct xarray *xa = local ? &rma->wins : &rma->rwins;
	struct scif_window *win;
	unsigned long id;

	mutex_lock(&rma->lock);
	xa_for_each(xa, id, win) {
		xa_erase(xa, id);
		if (local || win->nr_recv == win->nr_pages)
			scif_wtree_erase(local ? &rma->local : &rma->remote,
					 win);
		if (!local)
			rma->remote_pages -= win->nr_pages;
		rma->nr_windows--;
		/* Puts may free: none of them takes @rma->lock. */
		scif_win_put(win);
	}
	mutex_unlock(&rma->lock);
	/* Mappings of the peer's windows die before the peer is answered. */
	if (!local)
		scif_rma_peer_windows_gone(ep);
}

/* RMA_CLOSE from the peer, or our close: finish with the peer's windows. */
void scif_rma_peer_drain(struct scif_endpt *ep)
{
	if (scif_rma_drain(ep, SCIF_RMA_PEER_TIMEOUT)) {
		/* Staged RMAs the peer never answered end here. */
		scif_staged_abort(ep, -ECONNRESET);
		scif_rma_drain(ep, SCIF_RMA_PEER_TIMEOUT);
	}
	scif_rma_drop_all(ep, false);
}
