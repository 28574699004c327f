// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF registration protocol, receive side: what the peer tells us about
 * its windows and ours.
 *
 * The peer names windows by 31-bit ids, never by addresses. Everything it
 * says is checked before it changes any state: the window must fit the
 * registered address space and not overlap one of its other windows, every
 * page address must be page aligned and lie inside the memory the link
 * lets us reach, pages must arrive in order and no more than announced,
 * and the number of windows and pages one peer endpoint may make us keep is
 * bounded. A peer window is refused (REG_ACK with an errno) on the first
 * violation and forgotten; nothing partial survives.
 */
#include <kunit/visibility.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

/**
 * scif_rma_send() - send an RMA message to an endpoint's peer
 * @ep: the endpoint (connected at some point; its peer fields are stable)
 * @type: an RMA &enum scif_msg_type
 * @arg: the message's @arg
 * @seq: the message's @seq
 * @data: payload or NULL
 * @len: payload length, at most the link's chunk size
 *
 * A message that cannot be sent resets the connection on both sides
 * (scif_ep_reset()): the protocol has no way to resend it.
 *
 * Return: 0 or the link's error.
 */
int scif_rma_send(struct scif_endpt *ep, u8 type, u32 arg, u32 seq,
		  const void *data, size_t len)
{
	struct scif_wire_msg msg;
	int ret;

	scif_ep_msg_init(ep, &msg, type, arg);
	msg.seq = cpu_to_le32(seq);
	msg.len = cpu_to_le16(len);
	ret = scif_node_send(scif_ep_instance(ep), scif_ep_peer_node(ep), &msg,
			     data, len);
	if (ret)
		scif_ep_reset(ep, ret);
	return ret;
}

/* Sent once the last user of an unregistered peer window is gone. */
static void scif_rwin_unreg_ack(struct scif_window *win)
{
	struct scif_endpt *ep = win->owner;

	scif_rma_send(ep, SCIF_MSG_UNREG_ACK, win->id, 0, NULL, 0);
	scif_ep_put(ep);
}

static void scif_rma_nack(struct scif_endpt *ep, u32 id, int err)
{
	scif_rma_send(ep, SCIF_MSG_REG_ACK, id, -err, NULL, 0);
}

/* Forget a peer window we hold; rma->lock held. Returns it for a put. */
static struct scif_window *scif_rwin_remove(struct scif_rma_ep *rma,
					    struct scif_window *win)
{
	lockdep_assert_held(&rma->lock);

	xa_erase(&rma->rwins, win->id);
	scif_wtree_erase(&rma->remote, win);
	rma->remote_pages -= win->nr_pages;
	rma->nr_windows--;
	return win;
}

static int scif_rma_reg_addrs(struct scif_endpt *ep, u16 node, u32 id,
			      u32 first, const void *data, size_t len);

static int scif_rma_reg_open(struct scif_endpt *ep, u16 node, u32 id,
			     const struct scif_wire_msg *msg,
			     const void *data, size_t len)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_wire_reg reg;
	struct scif_window *win;
	size_t extra;
	u64 offset, nr;
	int prot, ret;

	if (len < sizeof(reg) || (len - sizeof(reg)) % sizeof(u64) || msg->seq)
		return -EPROTO;
	memcpy(&reg, data, sizeof(reg));
	extra = (len - sizeof(reg)) / sizeof(u64);
	offset = le64_to_cpu(reg.offset);
	nr = le64_to_cpu(reg.nr_pages);
	prot = le32_to_cpu(reg.prot);
	if (reg.rsvd || !prot || prot & ~SCIF_PROT_MASK || !nr ||
	    nr > U32_MAX || extra > nr || offset & ~PAGE_MASK ||
	    offset > SCIF_RAS_LAST ||
	    (nr << PAGE_SHIFT) - 1 > SCIF_RAS_LAST - offset) {
		scif_rma_nack(ep, id, -EINVAL);
		return -EPROTO;
	}
	/* Within the page budget before the allocation it would size. */
	mutex_lock(&rma->lock);
	ret = nr > SCIF_RMA_MAX_REMOTE_PAGES - rma->remote_pages ? -EAGAIN : 0;
	mutex_unlock(&rma->lock);
	if (ret) {
		scif_rma_nack(ep, id, ret);
		return 0;
	}
	win = scif_win_alloc(nr, true);
	if (!win) {
		scif_rma_nack(ep, id, -ENOMEM);
		return 0;
	}
	win->id = id;
	win->prot = prot;
	mutex_lock(&rma->lock);
	ret = 0;
	if (rma->closed || rma->peer_closed)
		ret = -ECONNRESET;
	else if (rma->nr_windows >= SCIF_RMA_MAX_WINDOWS ||
		 nr > SCIF_RMA_MAX_REMOTE_PAGES - rma->remote_pages)
		ret = -EAGAIN;
	if (!ret)
		ret = scif_wtree_insert(&rma->remote, win, offset, true);
	if (!ret) {
		ret = xa_insert(&rma->rwins, id, win, GFP_KERNEL);
		if (ret) {
			scif_wtree_erase(&rma->remote, win);
			ret = ret == -EBUSY ? -EEXIST : ret;
		}
	}
	if (!ret) {
		rma->remote_pages += nr;
		rma->nr_windows++;
	}
	mutex_unlock(&rma->lock);
	if (ret) {
		scif_win_put(win);
		scif_rma_nack(ep, id, ret);
		/* Overlap and reuse of an id are lies, not shortages. */
		return ret == -EADDRINUSE || ret == -EEXIST || ret == -EINVAL ?
		       -EPROTO : 0;
	}
	/* The first page addresses may come along. */
	if (extra)
		return scif_rma_reg_addrs(ep, node, id, 0,
					  (const u8 *)data + sizeof(reg),
					  len - sizeof(reg));
	return 0;
}

/* Whether the peer may name @a as one of its pages. */
static bool scif_rma_addr_ok(struct scif_instance *si, u16 node, u64 a)
{
	struct scif_peer_mem pm;
	bool ok;

	if (a & ~PAGE_MASK)
		return false;
	if (scif_node_peer_mem_lock(si, node, &pm))
		return false;
	if (pm.local)
		ok = pfn_valid(PHYS_PFN(a)) && !PageReserved(pfn_to_page(PHYS_PFN(a)));
	else if (pm.base)
		ok = a < pm.size && pm.size - a >= PAGE_SIZE;
	else
		/* Staged RMA (rma/scif_staged.c) never uses the address. */
		ok = true;
	scif_node_peer_mem_unlock(si);
	return ok;
}

/*
 * Page addresses of peer window @id, the first being its page @first:
 * from REG_PAGES, or following the window in REG_OPEN. The last page
 * completes the window and is answered with REG_ACK.
 */
static int scif_rma_reg_addrs(struct scif_endpt *ep, u16 node, u32 id,
			      u32 first, const void *data, size_t len)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_window *win, *bad = NULL;
	size_t i, count = len / sizeof(u64);
	bool done = false;
	__le64 v;
	u64 a;
	int ret = 0;

	mutex_lock(&rma->lock);
	win = xa_load(&rma->rwins, id);
	if (!win) {
		/*
		 * Refused at REG_OPEN (over the budget, out of memory) or
		 * dropped since: the rest of its pages were already on the
		 * way. A late message, not a lie.
		 */
		ret = -ENOENT;
		goto unlock;
	}
	if (win->nr_recv == win->nr_pages || first != win->nr_recv ||
	    !len || len % sizeof(u64) ||
	    count > win->nr_pages - win->nr_recv) {
		ret = -EPROTO;
		if (win->nr_recv != win->nr_pages)
			bad = scif_rwin_remove(rma, win);
		goto unlock;
	}
	for (i = 0; i < count; i++) {
		memcpy(&v, (const u8 *)data + i * sizeof(v), sizeof(v));
		a = le64_to_cpu(v);
		if (!scif_rma_addr_ok(scif_ep_instance(ep), node, a)) {
			ret = -EPROTO;
			bad = scif_rwin_remove(rma, win);
			goto unlock;
		}
		win->addrs[first + i] = a;
	}
	win->nr_recv += count;
	done = win->nr_recv == win->nr_pages;
unlock:
	mutex_unlock(&rma->lock);
	if (bad) {
		scif_win_put(bad);
		scif_rma_nack(ep, id, -EINVAL);
	}
	if (done)
		scif_rma_send(ep, SCIF_MSG_REG_ACK, id, 0, NULL, 0);
	return ret;
}

static int scif_rma_reg_pages(struct scif_endpt *ep, u16 node, u32 id,
			      const struct scif_wire_msg *msg,
			      const void *data, size_t len)
{
	return scif_rma_reg_addrs(ep, node, id, le32_to_cpu(msg->seq), data,
				  len);
}

static int scif_rma_reg_ack(struct scif_endpt *ep, u32 id, u32 err)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_window *win;
	int ret = 0;

	if (err > MAX_ERRNO)
		return -EPROTO;
	mutex_lock(&rma->lock);
	win = xa_load(&rma->wins, id);
	if (win && win->reg_abandoned && err) {
		/*
		 * scif_register() stopped waiting and sent UNREG, but the
		 * peer had refused the window: it holds none of it and will
		 * not answer the UNREG. Forget the window here.
		 */
		scif_win_get(win);
		mutex_unlock(&rma->lock);
		scif_win_forget(ep, win);
		scif_win_put(win);
		return 0;
	} else if ((win && win->state == SCIF_WIN_UNREGISTERING) ||
		   (!win && scif_rma_ep_usable(ep))) {
		/*
		 * scif_register() stopped waiting, or gave up the window
		 * when the connection was reset: a late answer.
		 */
		ret = -ENOENT;
	} else if (!win || win->state != SCIF_WIN_REGISTERING) {
		ret = -EPROTO;
	} else if (err) {
		win->reg_err = -(int)err;
		win->state = SCIF_WIN_UNREGISTERING;
	} else {
		win->state = SCIF_WIN_ACTIVE;
	}
	mutex_unlock(&rma->lock);
	wake_up_all(scif_ep_wq(ep));
	return ret;
}

static int scif_rma_unreg(struct scif_endpt *ep, u32 id)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_window *win;

	mutex_lock(&rma->lock);
	win = xa_load(&rma->rwins, id);
	if (win)
		scif_rwin_remove(rma, win);
	mutex_unlock(&rma->lock);
	/*
	 * Late rather than wrong: a window we refused at REG_OPEN, which the
	 * peer unregisters because its scif_register() gave up waiting for
	 * our answer, or one a close dropped already.
	 */
	if (!win)
		return -ENOENT;
	/* Nothing new finds it: the peer's scif_unregister() may return. */
	scif_rma_send(ep, SCIF_MSG_UNREG_SEEN, id, 0, NULL, 0);
	/* Answer again once RMAs using it are over: on the final put. */
	scif_ep_get(ep);
	win->owner = ep;
	win->on_free = scif_rwin_unreg_ack;
	scif_win_put(win);
	return 0;
}

static int scif_rma_unreg_ack(struct scif_endpt *ep, u32 id)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_window *win;
	int ret = 0;

	mutex_lock(&rma->lock);
	win = xa_load(&rma->wins, id);
	if (win && win->state == SCIF_WIN_UNREGISTERING) {
		win->peer_dropped = true;
		xa_erase(&rma->wins, id);
		scif_wtree_erase(&rma->local, win);
		rma->nr_windows--;
	} else if (!win && (rma->closed || READ_ONCE(rma->peer_closed))) {
		/*
		 * A close on either side dropped every window at once; the
		 * peer may still answer an UNREG it received before that.
		 */
		ret = -ENOENT;
	} else {
		win = NULL;
		ret = -EPROTO;
	}
	mutex_unlock(&rma->lock);
	if (ret)
		return ret;
	scif_win_put(win);
	wake_up_all(scif_ep_wq(ep));
	return 0;
}

/* The peer no longer finds our window @id; its UNREG_ACK may follow. */
static int scif_rma_unreg_seen(struct scif_endpt *ep, u32 id)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_window *win;
	int ret = 0;

	mutex_lock(&rma->lock);
	win = xa_load(&rma->wins, id);
	if (win && win->state == SCIF_WIN_UNREGISTERING && !win->peer_dropped)
		win->peer_dropped = true;
	else if (!win && (rma->closed || READ_ONCE(rma->peer_closed)))
		ret = -ENOENT;
	else
		ret = -EPROTO;
	mutex_unlock(&rma->lock);
	if (!ret)
		wake_up_all(scif_ep_wq(ep));
	return ret;
}

static void scif_rma_close_work(struct work_struct *work)
{
	struct scif_rma_ep *rma = container_of(work, struct scif_rma_ep,
					       close_work);
	struct scif_endpt *ep = rma->ep;

	scif_rma_peer_drain(ep);
	scif_rma_drop_all(ep, true);
	/* Kernel clients may still use the peer's pages: wait for them. */
	if (scif_get_pages_wait(ep, SCIF_RMA_PEER_TIMEOUT))
		scif_rma_send(ep, SCIF_MSG_RMA_CLOSE_ACK, 0, 0, NULL, 0);
	else
		pr_warn_ratelimited("scif %s: scif_get_pages() ranges still out; the peer keeps its pages\n",
				    scif_ep_instance_name(ep));
	scif_ep_put(ep);
}

static int scif_rma_peer_close(struct scif_endpt *ep)
{
	if (xchg(&scif_ep_rma(ep)->peer_closed, true))
		return -EPROTO;
	wake_up_all(scif_ep_wq(ep));
	scif_ep_get(ep);
	INIT_WORK(&scif_ep_rma(ep)->close_work, scif_rma_close_work);
	scif_rma_queue_work(&scif_ep_rma(ep)->close_work);
	return 0;
}

/**
 * scif_handle_rma() - dispatch an RMA message
 * @si: the receiving instance
 * @node: the node it came from
 * @msg: the message (a private copy), generic checks passed
 * @data: its payload
 * @len: payload length
 *
 * Return: 0, or a negative errno if the message was refused.
 */
int scif_handle_rma(struct scif_instance *si, u16 node,
		    const struct scif_wire_msg *msg, const void *data,
		    size_t len)
{
	u32 arg = le32_to_cpu(msg->arg);
	struct scif_endpt *ep;
	struct scif_ep_view v;
	bool from_peer, closed;
	int ret;

	if (!msg->src_ep || !msg->dst_ep)
		return -EPROTO;
	/* As the dispatcher checked; again for callers that come directly. */
	ret = scif_msg_check_rule(msg, len);
	if (ret)
		return ret;
	ep = scif_ep_lookup(si, le64_to_cpu(msg->dst_ep));
	if (!ep)
		return -ENOENT;
	scif_ep_view(ep, &v);
	closed = v.state == SCIF_EP_CLOSED;
	from_peer = (v.state == SCIF_EP_CONNECTED ||
		     v.state == SCIF_EP_DISCONNECTED) &&
		    v.peer.node == node &&
		    v.peer_ep == le64_to_cpu(msg->src_ep);
	/* Closing, about to vanish from the table: as if already gone. */
	ret = closed ? -ENOENT : -EPROTO;
	if (!from_peer)
		goto out;
	switch (msg->type) {
	case SCIF_MSG_REG_OPEN:
		ret = scif_rma_reg_open(ep, node, arg, msg, data, len);
		break;
	case SCIF_MSG_REG_PAGES:
		ret = scif_rma_reg_pages(ep, node, arg, msg, data, len);
		break;
	case SCIF_MSG_REG_ACK:
		ret = scif_rma_reg_ack(ep, arg, le32_to_cpu(msg->seq));
		break;
	case SCIF_MSG_UNREG:
		ret = scif_rma_unreg(ep, arg);
		break;
	case SCIF_MSG_UNREG_ACK:
		ret = scif_rma_unreg_ack(ep, arg);
		break;
	case SCIF_MSG_UNREG_SEEN:
		ret = scif_rma_unreg_seen(ep, arg);
		break;
	case SCIF_MSG_RMA_CLOSE:
		ret = arg ? -EPROTO : scif_rma_peer_close(ep);
		break;
	case SCIF_MSG_RMA_CLOSE_ACK:
		ret = arg ? -EPROTO : 0;
		if (!ret) {
			WRITE_ONCE(scif_ep_rma(ep)->peer_acked, true);
			wake_up_all(scif_ep_wq(ep));
		}
		break;
	case SCIF_MSG_FENCE_REQ:
		ret = scif_fence_peer_request(ep, arg);
		break;
	case SCIF_MSG_FENCE_DONE:
		ret = scif_fence_peer_done(ep, arg);
		break;
	case SCIF_MSG_RMA_PUT:
	case SCIF_MSG_RMA_GET:
	case SCIF_MSG_RMA_DATA:
	case SCIF_MSG_RMA_DONE:
		ret = scif_staged_rx(ep, msg, data, len);
		break;
	}
out:
	scif_ep_put(ep);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_handle_rma);
