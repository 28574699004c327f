// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF connection set-up: connect and accept (their messages are handled
 * in core/scif_connect_msg.c).
 *
 * The requester, in CONNECTING, sends CONNREQ naming itself by id and the
 * listener by port. The listener's node queues the request (or answers
 * REJECT when nobody listens or the backlog is full). scif_accept() creates
 * the new endpoint, already connected, and answers ACCEPT naming it; the
 * requester becomes connected when that arrives. An ACCEPT that finds no
 * requester waiting is answered with DISCONNECT, so the accepted endpoint
 * does not wait for a peer that gave up.
 */
#include <linux/errno.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_shm.h"
#include "scif_endpt_api.h"
#include "scif_wire.h"

const struct rhashtable_params scif_conreq_params = {
	.key_len = sizeof(struct scif_conreq_key),
	.key_offset = offsetof(struct scif_conreq, key),
	.head_offset = offsetof(struct scif_conreq, hnode),
	.automatic_shrinking = true,
};

/* Take @req off its listener @ep; ep->lock is held. */
static void scif_conreq_unlink(struct scif_endpt *ep, struct scif_conreq *req)
{
	lockdep_assert_held(&ep->lock);

	list_del(&req->list);
	rhashtable_remove_fast(&ep->si->conreqs, &req->hnode,
			       scif_conreq_params);
	ep->nreq--;
}

/*
 * Refuse the request @gen of @dst_ep (on @node, port @dst_port); its
 * connect returns @err, -ECONNREFUSED or -ENOMEM.
 */
int scif_send_reject(struct scif_instance *si, u16 node, u64 dst_ep,
		     u32 gen, u16 src_port, u16 dst_port, int err)
{
	struct scif_wire_msg msg;

	scif_msg_init(&msg, SCIF_MSG_REJECT, 0, dst_ep, src_port, dst_port,
		      -err);
	msg.seq = cpu_to_le32(gen);
	return scif_node_send(si, node, &msg, NULL, 0);
}

/*
 * Reset @dst_ep on @node: our @src_ep (0 if none) will not talk to it.
 * @gen names the connect, and with it the memory @src_ep offered for it.
 */
int scif_send_reset(struct scif_instance *si, u16 node, u64 dst_ep,
		    u64 src_ep, u32 gen)
{
	struct scif_wire_msg msg;

	scif_msg_init(&msg, SCIF_MSG_DISCONNECT, src_ep, dst_ep, 0, 0, 0);
	msg.seq = cpu_to_le32(gen);
	return scif_node_send(si, node, &msg, NULL, 0);
}

/* Called with ep->mutex held; reports and consumes a finished connect. */
static int scif_connect_result(struct scif_endpt *ep)
{
	int ret;

	lockdep_assert_held(&ep->mutex);

	spin_lock(&ep->lock);
	ep->conn_report = false;
	ep->conn_async = false;
	if (ep->state == SCIF_EP_CONNECTED ||
	    ep->state == SCIF_EP_DISCONNECTED)
		ret = ep->port;
	else
		ret = ep->conn_err;
	spin_unlock(&ep->lock);
	return ret;
}

/* A connect finished, or a flush asks waiters to leave. */
static bool scif_connect_settled(struct scif_endpt *ep, unsigned int seq)
{
	return READ_ONCE(ep->state) != SCIF_EP_CONNECTING ||
	       READ_ONCE(ep->flush_seq) != seq;
}

/* Wait, with ep->mutex held, for the connect in flight to finish. */
static int scif_connect_wait(struct scif_endpt *ep)
{
	unsigned int seq = READ_ONCE(ep->flush_seq);
	long left;

	lockdep_assert_held(&ep->mutex);

	left = wait_event_interruptible_timeout(ep->wq,
						scif_connect_settled(ep, seq),
						SCIF_CONNECT_TIMEOUT);
	spin_lock(&ep->lock);
	if (ep->state != SCIF_EP_CONNECTING) {
		spin_unlock(&ep->lock);
		return scif_connect_result(ep);
	}
	if (left == 0) {
		/* The node never answered: give up; a late ACCEPT is reset. */
		ep->state = SCIF_EP_BOUND;
		ep->conn_async = false;
		ep->conn_report = false;
		spin_unlock(&ep->lock);
		return -ENODEV;
	}
	/* Signal or flush: the connect carries on as an asynchronous one. */
	ep->conn_async = true;
	spin_unlock(&ep->lock);
	return -EINTR;
}

static int __scif_connect(scif_epd_t epd, struct scif_port_id *dst,
			  bool nonblock)
{
	struct scif_endpt *ep = epd;
	struct scif_wire_shm offer;
	struct scif_instance *si;
	struct scif_wire_msg msg;
	u32 chunk, ring, gen;
	int ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	if (!dst || !dst->port)
		return -EINVAL;
	si = ep->si;
	mutex_lock(&ep->mutex);
	switch (ep->state) {
	case SCIF_EP_LISTENING:
		ret = -EOPNOTSUPP;
		goto out;
	case SCIF_EP_CONNECTED:
	case SCIF_EP_DISCONNECTED:
		ret = ep->conn_report ? scif_connect_result(ep) : -EISCONN;
		goto out;
	case SCIF_EP_CONNECTING:
		ret = nonblock ? -EALREADY : scif_connect_wait(ep);
		goto out;
	case SCIF_EP_CLOSED:
		ret = -EBADF;
		goto out;
	case SCIF_EP_BOUND:
		if (ep->conn_report) {
			ret = scif_connect_result(ep);
			goto out;
		}
		break;
	case SCIF_EP_UNBOUND:
		ret = scif_port_alloc(&si->ports);
		if (ret < 0)
			goto out;
		spin_lock(&ep->lock);
		ep->port = ret;
		ep->port_owned = true;
		ep->state = SCIF_EP_BOUND;
		spin_unlock(&ep->lock);
		break;
	}
	ring = scif_node_ep_ring(si, dst->node);
	if (!ring) {
		ret = -ENODEV;
		goto out;
	}
	ret = scif_ep_alloc_ring(ep, dst->node, ring);
	if (ret)
		goto out;
	chunk = min_t(size_t, scif_node_max_data(si, dst->node),
		      SCIF_WIRE_DATA_MAX);

	spin_lock(&ep->lock);
	ep->peer = *dst;
	ep->peer_ep = 0;
	ep->conn_err = 0;
	ep->conn_async = nonblock;
	ep->conn_report = false;
	ep->rx_seq = 0;
	ep->rx_read = 0;
	ep->rx_acked = 0;
	ep->max_chunk = chunk;
	gen = ++ep->conn_gen;
	ep->state = SCIF_EP_CONNECTING;
	spin_unlock(&ep->lock);

	scif_msg_init(&msg, SCIF_MSG_CONNREQ, ep->id, 0, ep->port, dst->port,
		      ep->rx_size);
	msg.seq = cpu_to_le32(gen);
	if (ep->shm) {
		scif_shm_offer(ep->shm, &offer, gen);
		msg.len = cpu_to_le16(sizeof(offer));
	}
	ret = scif_node_send(si, dst->node, &msg, &offer,
			     ep->shm ? sizeof(offer) : 0);
	if (ret) {
		spin_lock(&ep->lock);
		if (ep->state == SCIF_EP_CONNECTING)
			ep->state = SCIF_EP_BOUND;
		ep->conn_async = false;
		spin_unlock(&ep->lock);
		/* Links do not fail for want of memory: the node is gone. */
		ret = -ENODEV;
		goto out;
	}
	ret = nonblock ? -EINPROGRESS : scif_connect_wait(ep);
out:
	mutex_unlock(&ep->mutex);
	return ret;
}

/**
 * scif_connect() - connect an endpoint to a listening port
 * @epd: the endpoint; bound to a free port first if it is not bound
 * @dst: node and port of the listener
 *
 * Blocks until the listener's node accepts or refuses the request. If an
 * asynchronous connect (scif_epd_connect_nb()) was started on @epd, this
 * waits for it and reports its result.
 *
 * Return: the local port of the connected endpoint, or -EBADF (@epd
 * invalid), -EINVAL (@dst NULL or port 0), -EISCONN (connected),
 * -EOPNOTSUPP (listening), -ECONNREFUSED (nobody listening, or the backlog
 * is full, or the listener closed), -ENODEV (no such node, or it did not
 * answer), -ENOSPC (no port to bind to), -ENOMEM (also: the listener's
 * node had no memory for the request), -EINTR (signal or
 * scif_epd_flush(); the request stays in flight).
 */
int scif_connect(scif_epd_t epd, struct scif_port_id *dst)
{
	return __scif_connect(epd, dst, false);
}
EXPORT_SYMBOL_GPL(scif_connect);

/**
 * scif_epd_connect_nb() - start a connect without waiting for it
 * @epd: the endpoint
 * @dst: node and port of the listener
 *
 * For /dev/scif files opened with O_NONBLOCK. The first call sends the
 * request and returns -EINPROGRESS; completion shows as EPOLLOUT (with
 * EPOLLERR if it failed) in scif_epd_poll() and scif_poll(). The next
 * connect call on @epd, of either kind, then reports the result as
 * scif_connect() would; while the request is still in flight this one
 * returns -EALREADY.
 *
 * Return: -EINPROGRESS, or a result or error as for scif_connect(), or
 * -EALREADY.
 */
int scif_epd_connect_nb(scif_epd_t epd, struct scif_port_id *dst)
{
	return __scif_connect(epd, dst, true);
}
EXPORT_SYMBOL_GPL(scif_epd_connect_nb);

/* A request is queued, the listener closed, or a flush came. */
static bool scif_accept_ready(struct scif_endpt *ep, unsigned int seq)
{
	return READ_ONCE(ep->nreq) ||
	       READ_ONCE(ep->state) != SCIF_EP_LISTENING ||
	       READ_ONCE(ep->flush_seq) != seq;
}

/* Take the first queued request of a listener, waiting if asked to. */
static int scif_accept_dequeue(struct scif_endpt *ep, int flags,
			       struct scif_conreq **reqp)
{
	unsigned int seq = READ_ONCE(ep->flush_seq);
	struct scif_conreq *req;

	for (;;) {
		spin_lock(&ep->lock);
		if (ep->state != SCIF_EP_LISTENING) {
			spin_unlock(&ep->lock);
			return -EINVAL;
		}
		req = list_first_entry_or_null(&ep->reqs, struct scif_conreq,
					       list);
		if (req) {
			scif_conreq_unlink(ep, req);
			spin_unlock(&ep->lock);
			*reqp = req;
			return 0;
		}
		spin_unlock(&ep->lock);
		if (!(flags & SCIF_ACCEPT_SYNC))
			return -EAGAIN;
		if (wait_event_interruptible(ep->wq,
					     scif_accept_ready(ep, seq)))
			return -EINTR;
		if (READ_ONCE(ep->flush_seq) != seq)
			return -EINTR;
	}
}

/**
 * scif_accept() - accept a queued connection request
 * @epd: a listening endpoint
 * @peer: set to the node and port of the requesting endpoint
 * @newepd: set to the new endpoint, connected to the requester and sharing
 *	    @epd's port
 * @flags: %SCIF_ACCEPT_SYNC to wait for a request, else 0
 *
 * Return: 0, or -EBADF (@epd invalid), -EINVAL (not listening, bad
 * @flags, @peer or @newepd NULL), -EAGAIN (no request and not waiting),
 * -EINTR (signal or scif_epd_flush()), -ENODEV (the requester's node is
 * gone), -ENOMEM (the requester is refused with ENOMEM too).
 */
int scif_accept(scif_epd_t epd, struct scif_port_id *peer, scif_epd_t *newepd,
		int flags)
{
	struct scif_endpt *ep = epd, *nep;
	struct scif_wire_shm offer;
	struct scif_instance *si;
	struct scif_conreq *req;
	struct scif_wire_msg msg;
	bool shm = false;
	u32 chunk, ring;
	int ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	if ((flags & ~SCIF_ACCEPT_SYNC) || !peer || !newepd)
		return -EINVAL;
	si = ep->si;
	if (READ_ONCE(ep->state) == SCIF_EP_CLOSED)
		return -EBADF;
	ret = scif_accept_dequeue(ep, flags, &req);
	if (ret)
		return ret;

	ring = scif_node_ep_ring(si, req->key.node);
	if (!ring) {
		ret = -ENODEV;
		goto out;
	}
	nep = scif_instance_open(si);
	if (!nep) {
		ret = -ENOMEM;
		goto refuse;
	}
	/* Nobody else knows @nep yet; the lock is for the ring's rule. */
	mutex_lock(&nep->mutex);
	ret = scif_ep_alloc_ring(nep, req->key.node, ring);
	/*
	 * Both offered: the stream goes through shared memory. An offer we
	 * cannot use leaves it to messages, as if none had been made.
	 */
	if (!ret && nep->shm && req->shm) {
		down_read(&si->nodes_rwsem);
		shm = !scif_shm_attach(si, nep->shm, &req->offer, req->ring);
		up_read(&si->nodes_rwsem);
	}
	mutex_unlock(&nep->mutex);
	if (ret) {
		scif_close(nep);
		goto refuse;
	}
	chunk = min_t(size_t, scif_node_max_data(si, req->key.node),
		      SCIF_WIRE_DATA_MAX);
	spin_lock(&nep->lock);
	nep->port = ep->port;
	nep->peer.node = req->key.node;
	nep->peer.port = req->port;
	nep->peer_ep = req->key.ep_id;
	nep->conn_gen = req->key.gen;
	nep->tx_ring = req->ring;
	nep->max_chunk = chunk;
	nep->state = SCIF_EP_CONNECTED;
	spin_unlock(&nep->lock);

	scif_msg_init(&msg, SCIF_MSG_ACCEPT, nep->id, req->key.ep_id, ep->port,
		      req->port, nep->rx_size);
	msg.seq = cpu_to_le32(req->key.gen);
	if (shm) {
		scif_shm_offer(nep->shm, &offer, req->key.gen);
		scif_shm_set_writer(nep->shm, req->key.ep_id);
		msg.len = cpu_to_le16(sizeof(offer));
	}
	ret = scif_node_send(si, req->key.node, &msg, &offer,
			     shm ? sizeof(offer) : 0);
	if (ret) {
		/* Not left waiting: a REJECT ends the requester's connect. */
		scif_close(nep);
		ret = -ENODEV;
		goto refuse;
	}
	peer->node = req->key.node;
	peer->port = req->port;
	*newepd = nep;
	goto out;
refuse:
	/* Our lack of memory is the requester's ENOMEM too. */
	scif_send_reject(si, req->key.node, req->key.ep_id, req->key.gen,
			 ep->port, req->port,
			 ret == -ENOMEM ? -ENOMEM : -ECONNREFUSED);
out:
	kfree_rcu(req, rcu);
	return ret;
}
EXPORT_SYMBOL_GPL(scif_accept);

/**
 * scif_listener_shutdown() - refuse every request queued on a closed listener
 * @ep: the listener, already in %SCIF_EP_CLOSED; its mutex is held
 */
void scif_listener_shutdown(struct scif_endpt *ep)
{
	struct scif_instance *si = ep->si;
	struct scif_conreq *req, *tmp;
	LIST_HEAD(reqs);

	lockdep_assert_held(&ep->mutex);

	xa_erase(&si->listeners, ep->port);
	spin_lock(&ep->lock);
	list_for_each_entry_safe(req, tmp, &ep->reqs, list) {
		scif_conreq_unlink(ep, req);
		list_add_tail(&req->list, &reqs);
	}
	spin_unlock(&ep->lock);
	list_for_each_entry_safe(req, tmp, &reqs, list) {
		scif_send_reject(si, req->key.node, req->key.ep_id,
				 req->key.gen, ep->port, req->port,
				 -ECONNREFUSED);
		kfree_rcu(req, rcu);
	}
}

/**
 * scif_connect_node_lost() - fail a connect in flight to a lost node
 * @ep: any endpoint
 * @node: the node that went away
 */
void scif_connect_node_lost(struct scif_endpt *ep, u16 node)
{
	spin_lock(&ep->lock);
	if (ep->state == SCIF_EP_CONNECTING && ep->peer.node == node) {
		ep->state = SCIF_EP_BOUND;
		ep->conn_err = -ENODEV;
		ep->conn_report = ep->conn_async;
	}
	spin_unlock(&ep->lock);
	wake_up_all(&ep->wq);
}
