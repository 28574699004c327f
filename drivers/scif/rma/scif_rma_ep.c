// SPDX-License-Identifier: GPL-2.0
/*
 * The RMA state of an endpoint: its life cycle, and the handlers through
 * which the core tells the RMA layer about endpoints and messages.
 *
 * The core allocates nothing of RMA. Each endpoint gets its
 * &struct scif_rma_ep from scif_rma_ep_init() when it is opened; closing it
 * runs the unregister handshake with the peer (scif_rma_ep_close()); the
 * last reference frees it. Messages of the registration and fence protocol
 * reach scif_handle_rma() (rma/scif_reg_msg.c); node loss ends the staged
 * RMAs towards the node (rma/scif_staged.c) and frees the windows that
 * close had to leave pinned for it.
 */
#include <kunit/visibility.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

unsigned int scif_rma_peer_timeout_ms = SCIF_RMA_PEER_TIMEOUT_DEF_MS;
module_param_named(peer_timeout_ms, scif_rma_peer_timeout_ms, uint, 0644);
MODULE_PARM_DESC(peer_timeout_ms,
		 "Longest wait for the peer's answer to a registration, unregistration, close or fence (100..600000, default 30000)");
EXPORT_SYMBOL_IF_KUNIT(scif_rma_peer_timeout_ms);

/*
 * Closed endpoints whose windows a peer that is still online may write
 * (scif_rma_ep_close()), linked by &scif_rma_ep.kept. Each holds a
 * reference on its endpoint until its peer's node is lost.
 *
 * scif_rma_kept_lock is taken from close, with no lock of the driver
 * held, and from node_lost, under whatever the transport holds around
 * scif_node_remove() (scif_ntb: its peer's lock). Nothing but the RCU
 * read lock is taken under it: windows are freed and endpoints put after
 * it is dropped.
 */
static LIST_HEAD(scif_rma_kept);
static DEFINE_MUTEX(scif_rma_kept_lock);	/* scif_rma_kept, rma->kept */

/*
 * &scif_layer.ep_init: every endpoint gets its RMA state when it is
 * opened, charged to the opener's memory cgroup.
 */
static int scif_rma_ep_init(struct scif_endpt *ep)
{
	struct scif_rma_ep *rma = kzalloc(sizeof(*rma), GFP_KERNEL_ACCOUNT);

	if (!rma)
		return -ENOMEM;
	rma->ep = ep;
	mutex_init(&rma->lock);
	mt_init_flags(&rma->local, MT_FLAGS_ALLOC_RANGE);
	mt_init_flags(&rma->remote, MT_FLAGS_ALLOC_RANGE);
	xa_init_flags(&rma->wins, XA_FLAGS_ALLOC1);
	xa_init(&rma->rwins);
	spin_lock_init(&rma->ilock);
	INIT_LIST_HEAD(&rma->inflight);
	INIT_LIST_HEAD(&rma->peer_marks);
	xa_init(&rma->my_marks);
	xa_init_flags(&rma->staged, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&rma->wq);
	INIT_LIST_HEAD(&rma->kept);
	scif_staged_serve_init(rma);
	scif_ep_set_rma(ep, rma);
	return 0;
}

/**
 * scif_rma_ep_usable() - whether RMA calls may proceed on an endpoint
 * @ep: the endpoint
 *
 * Return: 0, or the errno the spec gives for the endpoint's state:
 * -ENOTCONN (never connected), -ECONNRESET (the peer closed), -ENODEV (its
 * node was lost), -EBADF (closed).
 */
int scif_rma_ep_usable(struct scif_endpt *ep)
{
	struct scif_ep_view v;
	int ret;

	scif_ep_view(ep, &v);
	switch (v.state) {
	case SCIF_EP_CONNECTED:
		ret = 0;
		break;
	case SCIF_EP_DISCONNECTED:
		ret = v.reset_err ? v.reset_err : -ECONNRESET;
		break;
	case SCIF_EP_CLOSED:
		ret = -EBADF;
		break;
	default:
		ret = -ENOTCONN;
		break;
	}
	if (!ret && (READ_ONCE(scif_ep_rma(ep)->peer_closed) ||
		     READ_ONCE(scif_ep_rma(ep)->closed)))
		ret = -ECONNRESET;
	return ret;
}

static bool scif_rma_close_settled(struct scif_endpt *ep)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);

	return !scif_ep_connected(ep) || READ_ONCE(rma->peer_acked) ||
	       READ_ONCE(rma->peer_closed);
}

/* Move the kept endpoints of @si whose peer is on @node to @out. */
static void scif_rma_kept_take(struct scif_instance *si, u16 node,
			       struct list_head *out)
{
	struct scif_rma_ep *rma, *next;

	lockdep_assert_held(&scif_rma_kept_lock);
	list_for_each_entry_safe(rma, next, &scif_rma_kept, kept)
		if (scif_ep_instance(rma->ep) == si &&
		    scif_ep_peer_node(rma->ep) == node)
			list_move_tail(&rma->kept, out);
}

/* Free the windows of the endpoints on @gone, and let go of them. */
static void scif_rma_kept_release(struct list_head *gone)
{
	struct scif_rma_ep *rma, *next;
	struct scif_endpt *ep;

	list_for_each_entry_safe(rma, next, gone, kept) {
		ep = rma->ep;
		list_del_init(&rma->kept);
		scif_rma_drop_all(ep, true);
		/* May free @rma. */
		scif_ep_put(ep);
	}
}

/*
 * Keep the windows of closing @ep pinned until its peer's node is lost.
 * A node removed before we joined the list, whose node_lost handler may
 * have looked at it already, is seen here, and its endpoints go now.
 */
static void scif_rma_keep(struct scif_endpt *ep)
{
	LIST_HEAD(gone);

	scif_ep_get(ep);
	mutex_lock(&scif_rma_kept_lock);
	list_add_tail(&scif_ep_rma(ep)->kept, &scif_rma_kept);
	if (!scif_node_online(scif_ep_instance(ep), scif_ep_peer_node(ep)))
		scif_rma_kept_take(scif_ep_instance(ep), scif_ep_peer_node(ep),
				   &gone);
	mutex_unlock(&scif_rma_kept_lock);
	scif_rma_kept_release(&gone);
}

/*
 * &scif_layer.node_lost: the staged RMAs towards @node end, and windows
 * kept pinned for it are freed, since nothing on @node writes them now.
 */
static void scif_rma_node_lost(struct scif_instance *si, u16 node)
{
	LIST_HEAD(gone);

	scif_staged_node_lost(si, node);
	mutex_lock(&scif_rma_kept_lock);
	scif_rma_kept_take(si, node, &gone);
	mutex_unlock(&scif_rma_kept_lock);
	scif_rma_kept_release(&gone);
}

/*
 * &scif_layer.ep_close: the RMA part of scif_close(), run first, while the
 * endpoint can still be found by the peer's messages.
 *
 * Waits (bounded) for our RMAs in flight, tells a live peer that has our
 * windows to drop them and waits (bounded) for its answer, then releases
 * every window. Pages of a peer that never answers stay pinned, and so do
 * those of a connection this side reset while the peer's node stays
 * online: freeing memory a live peer may still write into would be worse.
 * They are freed when that node is lost (scif_rma_node_lost()).
 */
static void scif_rma_ep_close(struct scif_endpt *ep)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	bool handshake, keep;
	long left = 1;

	mutex_lock(&rma->lock);
	handshake = !xa_empty(&rma->wins) && !scif_rma_ep_usable(ep);
	rma->closed = true;
	mutex_unlock(&rma->lock);
	wake_up_all(scif_ep_wq(ep));
	scif_get_pages_ep_close(ep);

	scif_staged_close(ep);
	scif_rma_drain(ep, SCIF_RMA_PEER_TIMEOUT);
	/* Staged RMAs a live peer never answered: end them now. */
	scif_staged_abort(ep, -ECONNRESET);
	scif_rma_drain(ep, SCIF_RMA_PEER_TIMEOUT);
	scif_pincache_destroy(rma);
	if (handshake &&
	    !scif_rma_send(ep, SCIF_MSG_RMA_CLOSE, 0, 0, NULL, 0))
		left = wait_event_timeout(*scif_ep_wq(ep),
					  scif_rma_close_settled(ep),
					  SCIF_RMA_PEER_TIMEOUT);
	scif_rma_peer_drain(ep);
	/*
	 * We reset the connection ourselves (a lost message, the RMA_CLOSE
	 * above included, or a peer that did not answer) and its node is
	 * still there: the peer may still use our windows and no longer
	 * answers for this connection.
	 */
	mutex_lock(&rma->lock);
	keep = !xa_empty(&rma->wins) && scif_ep_reset_local(ep) &&
	       scif_node_online(scif_ep_instance(ep), scif_ep_peer_node(ep));
	mutex_unlock(&rma->lock);
	if (!left || keep) {
		pr_warn_ratelimited("scif %s: peer never released the windows of a closed endpoint; keeping them pinned until node %u is lost\n",
				    scif_ep_instance_name(ep),
				    scif_ep_peer_node(ep));
		scif_rma_keep(ep);
		return;
	}
	scif_rma_drop_all(ep, true);
}

/* &scif_layer.ep_release: free the RMA state of a dead endpoint. */
static void scif_rma_ep_release(struct scif_endpt *ep)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);

	if (!rma)
		return;
	WARN_ON(!list_empty(&rma->inflight));
	WARN_ON(!list_empty(&rma->kept));
	WARN_ON(!xa_empty(&rma->staged));
	xa_destroy(&rma->staged);
	scif_fence_release(rma);
	xa_destroy(&rma->wins);
	xa_destroy(&rma->rwins);
	scif_wtree_destroy(&rma->local);
	scif_wtree_destroy(&rma->remote);
	mutex_destroy(&rma->lock);
	kfree(rma);
	scif_ep_set_rma(ep, NULL);
}

static const struct scif_rma_watch *scif_rma_watcher;

/**
 * scif_rma_set_watch() - have a layer above told when an endpoint stops
 *			  using the peer's windows
 * @watch: the handlers, or NULL to stop
 *
 * Called at module load and unload (by /dev/scif's mmap), when no
 * endpoint exists.
 */
void scif_rma_set_watch(const struct scif_rma_watch *watch)
{
	WRITE_ONCE(scif_rma_watcher, watch);
}

/**
 * scif_rma_peer_windows_gone() - tell the watcher an endpoint dropped the
 *				  peer's windows
 * @ep: the endpoint; called before the peer is told
 */
void scif_rma_peer_windows_gone(struct scif_endpt *ep)
{
	const struct scif_rma_watch *w = READ_ONCE(scif_rma_watcher);

	if (w && w->peer_windows_gone)
		w->peer_windows_gone(ep);
}

/* The RMA layer as the core sees it. */
const struct scif_layer scif_rma_layer = {
	.name = "rma",
	.ep_init = scif_rma_ep_init,
	.ep_close = scif_rma_ep_close,
	.ep_release = scif_rma_ep_release,
	.node_lost = scif_rma_node_lost,
	.rx = scif_handle_rma,
};
