// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF connection set-up, the receiving side: CONNREQ queues a request on
 * its listener (core/scif_connect.c accepts it), ACCEPT and REJECT answer
 * a connect in flight. Every field is the peer's word and is checked
 * against the state it names before it changes anything.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_shm.h"
#include "scif_endpt_api.h"
#include "scif_wire.h"

/*
 * CONNREQ: queue the request on the listener of dst_port, or refuse it.
 * A replay (same requester, still queued) is found in the instance's hash
 * of requests, not by walking the listener's queue, which may be long.
 */
int scif_handle_connreq(struct scif_instance *si, u16 node,
			const struct scif_wire_msg *msg, const void *data,
			size_t len)
{
	u16 sport = le16_to_cpu(msg->src_port);
	u16 dport = le16_to_cpu(msg->dst_port);
	u64 src = le64_to_cpu(msg->src_ep);
	u32 ring = le32_to_cpu(msg->arg);
	struct scif_conreq *req;
	struct scif_endpt *ep;
	int ret;

	if (!sport || !dport || !src || msg->dst_ep ||
	    ring < SCIF_WIRE_RING_MIN || ring > SCIF_WIRE_RING_MAX ||
	    (len && len != sizeof(req->offer)))
		return -EPROTO;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req) {
		/* Refused, not dropped: the requester need not wait it out. */
		scif_send_reject(si, node, src, le32_to_cpu(msg->seq), dport,
				 sport, -ENOMEM);
		return 0;
	}
	req->key.node = node;
	req->key.ep_id = src;
	req->key.gen = le32_to_cpu(msg->seq);
	req->port = sport;
	req->ring = ring;
	req->shm = len;
	if (len)
		memcpy(&req->offer, data, len);

	xa_lock(&si->listeners);
	ep = xa_load(&si->listeners, dport);
	if (ep)
		kref_get(&ep->ref);
	xa_unlock(&si->listeners);
	if (!ep)
		goto refuse;

	spin_lock(&ep->lock);
	ret = rhashtable_lookup_insert_fast(&si->conreqs, &req->hnode,
					    scif_conreq_params);
	if (ret == -EEXIST) {
		/* The same request (and connect) twice: a replay. */
		spin_unlock(&ep->lock);
		scif_ep_put(ep);
		kfree(req);
		return -EALREADY;
	}
	if (!ret && (ep->state != SCIF_EP_LISTENING ||
		     ep->nreq >= ep->backlog)) {
		rhashtable_remove_fast(&si->conreqs, &req->hnode,
				       scif_conreq_params);
		ret = -ECONNREFUSED;
	}
	if (ret) {
		spin_unlock(&ep->lock);
		scif_ep_put(ep);
		/*
		 * Back to the sender: a full backlog is not a bad message,
		 * and a hash table that could not take the request (no memory
		 * to grow, or a chain too long until a rehash ends) is our
		 * shortage.
		 */
		scif_send_reject(si, node, src, req->key.gen, dport, sport,
				 ret == -ECONNREFUSED ? -ECONNREFUSED : -ENOMEM);
		kfree_rcu(req, rcu);
		return 0;
	}
	list_add_tail(&req->list, &ep->reqs);
	ep->nreq++;
	spin_unlock(&ep->lock);
	wake_up_all(&ep->wq);
	scif_ep_put(ep);
	return 0;
refuse:
	scif_send_reject(si, node, src, req->key.gen, dport, sport,
			 -ECONNREFUSED);
	kfree(req);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(scif_handle_connreq);

/*
 * Whether ACCEPT or REJECT @msg from @node answers @ep's connect in flight:
 * the listener it asked, and the number of this connect. ep->lock is held.
 */
static bool scif_answers_connect(struct scif_endpt *ep, u16 node,
				 const struct scif_wire_msg *msg)
{
	lockdep_assert_held(&ep->lock);

	return ep->state == SCIF_EP_CONNECTING && ep->peer.node == node &&
	       ep->peer.port == le16_to_cpu(msg->src_port) &&
	       ep->port == le16_to_cpu(msg->dst_port) &&
	       ep->conn_gen == le32_to_cpu(msg->seq);
}

/*
 * The shared-memory part of an ACCEPT for @ep: start writing into the
 * memory the acceptor offered, or, if it offered none, know that it will
 * not write ours. Only for the connect in flight; a replay changes nothing.
 * The endpoint's lock is held throughout: a connect that timed out may be
 * followed by a new one, whose scif_ep_alloc_ring() replaces @ep->shm
 * under that lock.
 */
static int scif_connect_shm(struct scif_instance *si, struct scif_endpt *ep,
			    u16 node, const struct scif_wire_msg *msg,
			    const struct scif_wire_shm *offer)
{
	int ret = 0;

	down_read(&si->nodes_rwsem);
	spin_lock(&ep->lock);
	if (!scif_answers_connect(ep, node, msg))
		goto out;
	if (!offer) {
		if (ep->shm)
			scif_shm_set_peer_done(ep->shm);
		goto out;
	}
	/* An offer we did not ask for is a lie. */
	if (!ep->shm || !ep->shm->offered)
		ret = -EPROTO;
	else
		ret = scif_shm_attach(si, ep->shm, offer,
				      le32_to_cpu(msg->arg));
out:
	spin_unlock(&ep->lock);
	up_read(&si->nodes_rwsem);
	return ret;
}

/* ACCEPT: the request of dst_ep was accepted by src_ep. */
int scif_handle_accept(struct scif_instance *si, u16 node,
		       const struct scif_wire_msg *msg, const void *data,
		       size_t len)
{
	u64 src = le64_to_cpu(msg->src_ep);
	u64 dst = le64_to_cpu(msg->dst_ep);
	u16 sport = le16_to_cpu(msg->src_port);
	u16 dport = le16_to_cpu(msg->dst_port);
	u32 ring = le32_to_cpu(msg->arg);
	struct scif_wire_shm offer;
	struct scif_endpt *ep;
	int ret = 0;

	if (!src || !dst || !sport || !dport || ring < SCIF_WIRE_RING_MIN ||
	    ring > SCIF_WIRE_RING_MAX || (len && len != sizeof(offer)))
		return -EPROTO;
	ep = scif_ep_lookup(si, dst);
	if (!ep) {
		/* The requester is gone: reset the endpoint that accepted. */
		scif_send_reset(si, node, src, dst, le32_to_cpu(msg->seq));
		return -ENOENT;
	}
	if (len)
		memcpy(&offer, data, len);
	ret = scif_connect_shm(si, ep, node, msg, len ? &offer : NULL);
	if (ret) {
		scif_send_reset(si, node, src, dst, le32_to_cpu(msg->seq));
		scif_ep_put(ep);
		return ret;
	}
	spin_lock(&ep->lock);
	if (scif_answers_connect(ep, node, msg)) {
		ep->peer_ep = src;
		if (ep->shm)
			scif_shm_set_writer(ep->shm, src);
		ep->tx_ring = ring;
		ep->tx_seq = 0;
		ep->tx_acked = 0;
		ep->reset_err = 0;
		ep->state = SCIF_EP_CONNECTED;
		ep->conn_report = ep->conn_async;
	} else if ((ep->state == SCIF_EP_CONNECTED ||
		    ep->state == SCIF_EP_DISCONNECTED) &&
		   ep->peer.node == node && ep->peer_ep == src) {
		/* A replay of the ACCEPT that connected us: ignore it. */
		ret = -EALREADY;
	} else {
		ret = -EPROTO;
	}
	spin_unlock(&ep->lock);
	if (!ret)
		wake_up_all(&ep->wq);
	else if (ret == -EPROTO)
		scif_send_reset(si, node, src, dst, le32_to_cpu(msg->seq));
	scif_ep_put(ep);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_handle_accept);

/* REJECT: the request of dst_ep was refused. */
int scif_handle_reject(struct scif_instance *si, u16 node,
		       const struct scif_wire_msg *msg)
{
	u64 dst = le64_to_cpu(msg->dst_ep);
	u16 sport = le16_to_cpu(msg->src_port);
	u16 dport = le16_to_cpu(msg->dst_port);
	struct scif_endpt *ep;
	bool shm_here = true;
	u32 err = le32_to_cpu(msg->arg);
	int ret = -EPROTO;

	if (!dst || msg->src_ep || !sport || !dport ||
	    (err != ECONNREFUSED && err != ENOMEM))
		return -EPROTO;
	ep = scif_ep_lookup_live(si, dst);
	if (!ep) {
		/* Nobody accepted: nobody writes the memory it offered. */
		return scif_shm_unquarantine(si, node, dst,
					     le32_to_cpu(msg->seq), 0) ?
		       0 : -ENOENT;
	}
	spin_lock(&ep->lock);
	if (scif_answers_connect(ep, node, msg)) {
		if (ep->shm)
			scif_shm_set_peer_done(ep->shm);
		ep->state = SCIF_EP_BOUND;
		ep->conn_err = -(int)err;
		ep->conn_report = ep->conn_async;
		ret = 0;
	} else if (ep->conn_gen != le32_to_cpu(msg->seq)) {
		/* For a connect we gave up on: late, not a lie. */
		ret = -ENOENT;
		shm_here = ep->shm && ep->shm->node == node;
	}
	spin_unlock(&ep->lock);
	if (!ret)
		wake_up_all(&ep->wq);
	scif_ep_put(ep);
	/*
	 * Memory that connect offered was put aside by the next one (see
	 * scif_handle_release()); nobody writes it now.
	 */
	if (ret == -ENOENT && !shm_here &&
	    scif_shm_unquarantine(si, node, dst, le32_to_cpu(msg->seq), 0))
		ret = 0;
	return ret;
}
