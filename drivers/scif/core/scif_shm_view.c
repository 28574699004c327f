// SPDX-License-Identifier: GPL-2.0
/*
 * A stream through shared memory as a process maps it (SCIF_STREAM_MAP,
 * dev/scif_stream_map.c): the process copies bytes into the peer's ring
 * and out of ours itself, and publishes the indices as the kernel would,
 * so that a send or a receive needs no system call.
 *
 * What the process keeps: its read and write positions, in a page of
 * &struct scif_stream_shared that it maps. The kernel takes them from
 * there whenever it looks at the stream (scif_stream_sync()), checking
 * them like the peer's indices, and stores its own back when scif_send()
 * or scif_recv() moved bytes for the process. While such a call runs it
 * owns its direction (&scif_shm.rx_kernel, &scif_shm.tx_kernel); the
 * process is expected not to copy in that direction meanwhile, and a
 * process that does only garbles its own stream.
 *
 * What the process may write: our page of positions, the peer's control
 * block (alone on its page) and the peer's ring, which is what the kernel
 * writes on its behalf anyway, and which the peer checks as it checks
 * everything from us. It reads our ring and our control block and never
 * writes them: the peer's indices there are the peer's word.
 *
 * When we must stop writing the peer's memory (scif_shm_stop()), every
 * view is zapped under &scif_shm.views_lock after @remote_ok turned
 * false; faults take the same lock, and from then on the pieces of the
 * peer's memory show a sink page: late bytes are lost, as they would be
 * on the wire, and @down tells the process to ask the kernel what
 * happened.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <uapi/linux/scif_requests.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_shm.h"

/* The pages of positions and the sink, once; views_lock and both mutexes. */
static int scif_shm_views_prepare(struct scif_endpt *ep, struct scif_shm *shm)
{
	struct scif_stream_shared *user;

	lockdep_assert_held(&shm->views_lock);
	if (shm->user)
		return 0;
	user = (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	shm->sink = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!user || !shm->sink) {
		free_page((unsigned long)user);
		if (shm->sink)
			__free_page(shm->sink);
		shm->sink = NULL;
		return -ENOMEM;
	}
	/* No send or receive runs: the positions are settled. */
	spin_lock(&ep->lock);
	user->read = ep->rx_read;
	user->sent = ep->tx_seq;
	user->down = ep->state != SCIF_EP_CONNECTED;
	shm->user = user;
	spin_unlock(&ep->lock);
	return 0;
}

/**
 * scif_shm_view_add() - let a process map an endpoint's stream
 * @ep: the endpoint
 * @v: the view; @v->mapping set. Filled in on success, with a reference
 *     to the stream that scif_shm_view_del() drops
 *
 * Waits for the sends and receives in progress, so that the positions the
 * process starts from are settled.
 *
 * Return: 0, -ENOTCONN (not connected), -EOPNOTSUPP (the stream goes by
 * messages, or the link does not tell where the peer's memory is),
 * -ENOMEM, -EINTR.
 */
int scif_shm_view_add(struct scif_endpt *ep, struct scif_shm_view *v)
{
	struct scif_shm *shm;
	int ret;

	if (mutex_lock_interruptible(&ep->send_mutex))
		return -EINTR;
	if (mutex_lock_interruptible(&ep->recv_mutex)) {
		mutex_unlock(&ep->send_mutex);
		return -EINTR;
	}
	spin_lock(&ep->lock);
	ret = scif_stream_state_err(ep);
	if (ret == -ECONNRESET || ret == -ENODEV || ret == -EBADF)
		ret = -ENOTCONN;
	shm = ep->shm;
	if (!ret && (!shm || !shm->active || !shm->peer_ring_phys))
		ret = -EOPNOTSUPP;
	if (!ret) {
		scif_shm_get(shm);
		v->shm = shm;
		v->rx_size = ep->rx_size;
		v->tx_size = ep->tx_ring;
		v->tx_remote = shm->nt_copy;
	}
	spin_unlock(&ep->lock);
	if (!ret) {
		mutex_lock(&shm->views_lock);
		ret = scif_shm_views_prepare(ep, shm);
		if (!ret)
			list_add(&v->link, &shm->views);
		mutex_unlock(&shm->views_lock);
		if (ret)
			scif_shm_unref(shm);
	}
	mutex_unlock(&ep->recv_mutex);
	mutex_unlock(&ep->send_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_view_add);

/**
 * scif_shm_view_del() - a view's file is released
 * @v: the view, no longer mapped anywhere
 */
void scif_shm_view_del(struct scif_shm_view *v)
{
	struct scif_shm *shm = v->shm;

	mutex_lock(&shm->views_lock);
	list_del(&v->link);
	mutex_unlock(&shm->views_lock);
	scif_shm_unref(shm);
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_view_del);

/**
 * scif_shm_view_lock() - hold a view's stream still for a fault
 * @v: the view
 *
 * Takes &scif_shm.views_lock of its stream: held from scif_shm_view_pfn()
 * to the insert of the page, so that no view reaches the peer's memory
 * once we may no longer write there. Taken inside mmap_lock.
 */
void scif_shm_view_lock(struct scif_shm_view *v)
{
	mutex_lock(&v->shm->views_lock);
}

/**
 * scif_shm_view_unlock() - end what scif_shm_view_lock() began
 * @v: the view
 */
void scif_shm_view_unlock(struct scif_shm_view *v)
{
	mutex_unlock(&v->shm->views_lock);
}

/**
 * scif_shm_view_pfn() - the page frame behind a page of a view
 * @v: the view; the caller holds scif_shm_view_lock()
 * @part: which piece
 * @idx: page in that piece, checked by the caller against its size
 * @wc: set if the page lies across the link (to be mapped
 *	write-combining)
 *
 * Return: the page frame number.
 */
unsigned long scif_shm_view_pfn(struct scif_shm_view *v,
				enum scif_shm_part part, unsigned long idx,
				bool *wc)
{
	struct scif_shm *shm = v->shm;
	bool remote;

	lockdep_assert_held(&shm->views_lock);
	*wc = false;
	switch (part) {
	case SCIF_SHM_USER:
		return page_to_pfn(virt_to_page(shm->user));
	case SCIF_SHM_CTL:
		return page_to_pfn(shm->ctl_page);
	case SCIF_SHM_RING:
		return page_to_pfn(shm->pages) + idx;
	default:
		break;
	}
	spin_lock(&shm->lock);
	remote = shm->remote_ok;
	spin_unlock(&shm->lock);
	if (!remote)
		return page_to_pfn(shm->sink);
	*wc = shm->nt_copy;
	if (part == SCIF_SHM_PEER_CTL)
		return PHYS_PFN(shm->peer_ctl_phys);
	return PHYS_PFN(shm->peer_ring_phys) + idx;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_view_pfn);

/**
 * scif_stream_user_enter() - a send or receive takes over its direction
 * @ep: the endpoint; &scif_endpt.send_mutex (@tx) or &scif_endpt.recv_mutex
 *	held
 * @tx: true for a send
 *
 * Takes the process's positions in (where it mapped the stream) before the
 * call owns its own; a position that cannot be right resets the
 * connection, which the call then reports.
 */
void scif_stream_user_enter(struct scif_endpt *ep, bool tx)
{
	struct scif_shm *shm;
	int ret = 0;

	spin_lock(&ep->lock);
	shm = ep->shm;
	if (shm && shm->user) {
		ret = scif_stream_sync(ep);
		if (tx)
			shm->tx_kernel = true;
		else
			shm->rx_kernel = true;
	}
	spin_unlock(&ep->lock);
	if (ret) {
		pr_warn_ratelimited("scif %s: impossible stream index from node %u or the mapping process\n",
				    ep->si->name, ep->peer.node);
		scif_ep_reset(ep, ret);
	}
}

/**
 * scif_stream_user_leave() - a send or receive gives its direction back
 * @ep: the endpoint, as for scif_stream_user_enter()
 * @tx: likewise
 */
void scif_stream_user_leave(struct scif_endpt *ep, bool tx)
{
	struct scif_shm *shm;

	spin_lock(&ep->lock);
	shm = ep->shm;
	if (shm && shm->user) {
		if (tx) {
			WRITE_ONCE(shm->user->sent, ep->tx_seq);
			shm->tx_kernel = false;
		} else {
			WRITE_ONCE(shm->user->read, ep->rx_read);
			shm->rx_kernel = false;
		}
	}
	spin_unlock(&ep->lock);
}

/**
 * scif_stream_user_wake() - SCIF_STREAM_WAKE: the process woke the peer
 * @ep: the endpoint
 *
 * A process that moved an index past the event index the peer left in our
 * control block asks for the WAKE the kernel would have sent. The kernel
 * sends it only if the process's positions, as published, moved past that
 * event index since the last such request: the peer is then woken once
 * per move and per sleep, however often a process asks.
 *
 * Return: 0 (also when no WAKE was due), -EOPNOTSUPP (the stream goes by
 * messages), or the error of the stream's state (-ENOTCONN, -ECONNRESET,
 * -ENODEV), also after an impossible position reset the connection.
 */
int scif_stream_user_wake(struct scif_endpt *ep)
{
	struct scif_shm *shm;
	bool due = false;
	int ret, sync = 0;

	spin_lock(&ep->lock);
	ret = scif_stream_state_err(ep);
	shm = ep->shm;
	if (!ret && (!shm || !shm->active))
		ret = -EOPNOTSUPP;
	if (!ret) {
		sync = scif_stream_sync(ep);
		if (!sync)
			due = scif_shm_user_wake_due(shm, ep->tx_seq,
						     ep->rx_read);
	}
	spin_unlock(&ep->lock);
	if (sync)
		return scif_stream_check_sync(ep);
	if (due)
		scif_stream_wake(ep);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_stream_user_wake);
