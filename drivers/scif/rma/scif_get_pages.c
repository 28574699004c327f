// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF scif_get_pages() and scif_put_pages(): a kernel client borrows the
 * addresses of pages in one of the peer's windows, to hand them to another
 * device or to touch them with the CPU itself.
 *
 * A range holds a reference on the peer's window (and on the endpoint), so
 * an unregister by the peer is only answered once every range on the window
 * was returned, exactly as for an RMA in flight. Every range handed out is
 * entered in a table keyed by its address: scif_put_pages() finds it there
 * without reading the caller's pointer, so a range returned twice, or one
 * that was never ours, is refused with -EINVAL instead of being freed again.
 * Ranges still out when their endpoint is closed are reclaimed by
 * scif_close() (the spec calls that an error of the caller; the pages must
 * not be used after it). When the peer closes, its pages must stay until
 * every range on them is returned: the peer's RMA_CLOSE is acknowledged
 * only then (scif_get_pages_wait()); a peer that gives up waiting keeps
 * them pinned.
 */
#include <kunit/visibility.h>
#include <linux/hashtable.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

/**
 * struct scif_gp - a range handed out by scif_get_pages()
 * @range: what the caller sees; @range.cookie points back here
 * @hnode: entry in scif_gp_table, under scif_gp_lock
 * @ep: the endpoint, with a reference
 * @win: the peer's window the pages belong to, with a reference
 */
struct scif_gp {
	struct scif_range range;
	struct hlist_node hnode;
	struct scif_endpt *ep;
	struct scif_window *win;
};

/* Ranges handed out and not yet returned, by the address of their range. */
static DEFINE_HASHTABLE(scif_gp_table, 6);
static DEFINE_SPINLOCK(scif_gp_lock);	/* scif_gp_table */

static void scif_gp_free(struct scif_gp *gp)
{
	scif_win_put(gp->win);
	scif_ep_put(gp->ep);
	kvfree(gp->range.phys_addr);
	kvfree(gp->range.va);
	kfree(gp);
}

static struct scif_gp *scif_gp_alloc(unsigned long nr)
{
	struct scif_gp *gp = kzalloc(sizeof(*gp), GFP_KERNEL_ACCOUNT);

	if (!gp)
		return NULL;
	gp->range.phys_addr = kvmalloc_array(nr, sizeof(*gp->range.phys_addr),
					     GFP_KERNEL_ACCOUNT);
	gp->range.va = kvmalloc_array(nr, sizeof(*gp->range.va),
				      GFP_KERNEL_ACCOUNT);
	if (!gp->range.phys_addr || !gp->range.va) {
		kvfree(gp->range.phys_addr);
		kvfree(gp->range.va);
		kfree(gp);
		return NULL;
	}
	gp->range.cookie = gp;
	gp->range.nr_pages = nr;
	return gp;
}

/*
 * Find the complete peer window holding all of [@first, @last] and take a
 * reference on it; the range becomes known to scif_put_pages() under the
 * same lock that scif_close() takes before it reclaims ranges.
 */
static int scif_gp_bind(struct scif_endpt *ep, struct scif_gp *gp, u64 first,
			u64 last)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_window *win;
	int ret = 0;

	mutex_lock(&rma->lock);
	win = scif_wtree_find(&rma->remote, first);
	if (rma->closed)
		ret = -ECONNRESET;
	else if (!win || win->nr_recv != win->nr_pages ||
		 scif_win_end(win) - 1 < last)
		ret = -ENXIO;
	if (!ret) {
		scif_win_get(win);
		gp->win = win;
		scif_ep_get(ep);
		gp->ep = ep;
		spin_lock(&scif_gp_lock);
		hash_add(scif_gp_table, &gp->hnode, (unsigned long)&gp->range);
		spin_unlock(&scif_gp_lock);
	}
	mutex_unlock(&rma->lock);
	return ret;
}

/**
 * scif_get_pages() - borrow the pages of a range of the peer's window
 * @epd: a connected endpoint
 * @offset: page-aligned offset in the peer's registered address space
 * @len: page-aligned length, not 0; [@offset, @offset + @len) must lie in
 *	 one window of the peer
 * @pages: set to the range on success
 *
 * (*@pages)->phys_addr[i] is the physical (bus) address at which this node
 * reaches page i: on an NTB link, the address of the NTB window plus the
 * address the peer advertised; on loopback, the page's own address.
 * (*@pages)->va[i] is a kernel address of the same page: through the
 * link's CPU mapping of the NTB window (write-combining I/O memory: use
 * the io accessors), or the direct map on loopback.
 * The window stays referenced, and an unregister of it by the peer
 * deferred, until the range is given back with scif_put_pages(). If the
 * connection is reset or the node lost meanwhile, the pages may be gone:
 * stop using them and return the range.
 *
 * Return: 0, or -EINVAL (unaligned or negative @offset, unaligned or zero
 * @len, NULL @pages), -ENXIO (the range is not inside one complete window
 * of the peer), -ENOTCONN, -ECONNRESET, -ENODEV, -EBADF, -ENOMEM, or
 * -EOPNOTSUPP (the link cannot reach the peer's pages: one without RMA
 * addressing, such as NTB in translated mode, where RMAs are staged as
 * messages and no page of the peer is reachable to hand out).
 */
int scif_get_pages(scif_epd_t epd, off_t offset, size_t len,
		   struct scif_range **pages)
{
	struct scif_endpt *ep = epd;
	struct scif_peer_mem pm;
	struct scif_gp *gp;
	unsigned long i, first;
	u64 a;
	int ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	if (!pages || offset < 0 || offset & ~PAGE_MASK || !len ||
	    len & ~PAGE_MASK)
		return -EINVAL;
	if (len - 1 > SCIF_RAS_LAST - offset ||
	    (len >> PAGE_SHIFT) > INT_MAX)
		return -ENXIO;
	ret = scif_rma_ep_usable(ep) ?: scif_peer_mem_get(ep, &pm);
	if (ret)
		return ret;
	gp = scif_gp_alloc(len >> PAGE_SHIFT);
	if (!gp)
		return -ENOMEM;
	ret = scif_gp_bind(ep, gp, offset, offset + len - 1);
	if (ret) {
		kvfree(gp->range.phys_addr);
		kvfree(gp->range.va);
		kfree(gp);
		return ret;
	}
	gp->range.prot_flags = gp->win->prot;
	first = (offset - gp->win->offset) >> PAGE_SHIFT;
	for (i = 0; i < gp->range.nr_pages; i++) {
		a = gp->win->addrs[first + i];
		if (pm.local) {
			gp->range.phys_addr[i] = a;
			gp->range.va[i] = (void __force __iomem *)phys_to_virt(a);
		} else {
			gp->range.phys_addr[i] = pm.phys + a;
			gp->range.va[i] = (void __force __iomem *)(pm.base + a);
		}
	}
	*pages = &gp->range;
	return 0;
}
EXPORT_SYMBOL_GPL(scif_get_pages);

/**
 * scif_put_pages() - give back a range from scif_get_pages()
 * @pages: the range, unmodified
 *
 * The range is released in every case but -EINVAL; the other errors only
 * report that the connection broke while the range was held.
 *
 * Return: 0, or -EINVAL (@pages is not a range of ours, or was returned
 * already, or was reclaimed by scif_close()), -ENODEV (the peer's node was
 * lost), -ENOTCONN (the connection was reset).
 */
int scif_put_pages(struct scif_range *pages)
{
	struct scif_gp *gp, *found = NULL;
	struct scif_endpt *ep;
	struct scif_ep_view v;
	int ret = 0;

	if (!pages)
		return -EINVAL;
	spin_lock(&scif_gp_lock);
	hash_for_each_possible(scif_gp_table, gp, hnode,
			       (unsigned long)pages) {
		if (&gp->range == pages) {
			hash_del(&gp->hnode);
			found = gp;
			break;
		}
	}
	spin_unlock(&scif_gp_lock);
	if (!found)
		return -EINVAL;
	ep = found->ep;
	scif_ep_view(ep, &v);
	if (v.state != SCIF_EP_CONNECTED)
		ret = v.reset_err == -ENODEV ? -ENODEV : -ENOTCONN;
	else if (READ_ONCE(scif_ep_rma(ep)->peer_closed))
		ret = -ENOTCONN;
	/* scif_get_pages_wait() may be waiting for this one. */
	wake_up_all(scif_ep_wq(ep));
	scif_gp_free(found);
	return ret;
}
EXPORT_SYMBOL_GPL(scif_put_pages);

/**
 * scif_get_pages_ep_close() - reclaim the ranges a closing endpoint left out
 * @ep: the endpoint; &scif_rma_ep.closed is set, so no range is added
 */
void scif_get_pages_ep_close(struct scif_endpt *ep)
{
	struct scif_gp *gp;
	struct hlist_node *tmp;
	HLIST_HEAD(dead);
	unsigned int bkt;

	spin_lock(&scif_gp_lock);
	hash_for_each_safe(scif_gp_table, bkt, tmp, gp, hnode) {
		if (gp->ep != ep)
			continue;
		hash_del(&gp->hnode);
		hlist_add_head(&gp->hnode, &dead);
	}
	spin_unlock(&scif_gp_lock);
	if (!hlist_empty(&dead))
		pr_warn_ratelimited("scif %s: endpoint closed with scif_get_pages() ranges outstanding; reclaimed\n",
				    scif_ep_instance_name(ep));
	hlist_for_each_entry_safe(gp, tmp, &dead, hnode)
		scif_gp_free(gp);
	wake_up_all(scif_ep_wq(ep));
}

/* Whether @ep still has ranges out, and its peer's node is still there. */
static bool scif_gp_busy(struct scif_endpt *ep)
{
	struct scif_gp *gp;
	unsigned int bkt;
	bool busy = false;

	if (!scif_ep_connected(ep))
		return false;
	spin_lock(&scif_gp_lock);
	hash_for_each(scif_gp_table, bkt, gp, hnode) {
		if (gp->ep == ep) {
			busy = true;
			break;
		}
	}
	spin_unlock(&scif_gp_lock);
	return busy;
}

/**
 * scif_get_pages_wait() - wait for the ranges of an endpoint to come back
 * @ep: an endpoint whose peer closed (nothing new is handed out)
 * @timeout: in jiffies
 *
 * Ends early when the connection goes away (the peer's pages are then
 * gone or no longer ours to protect).
 *
 * Return: true if no range of @ep is out (any more), false on timeout.
 */
bool scif_get_pages_wait(struct scif_endpt *ep, long timeout)
{
	if (!scif_gp_busy(ep))
		return true;
	pr_info_ratelimited("scif %s: peer closed; waiting for scif_get_pages() ranges to be returned\n",
			    scif_ep_instance_name(ep));
	return wait_event_timeout(*scif_ep_wq(ep), !scif_gp_busy(ep),
				  timeout) > 0 ||
	       !scif_gp_busy(ep);
}
