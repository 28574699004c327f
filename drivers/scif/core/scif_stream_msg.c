// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF byte streams, the messages: DATA, CREDIT, DISCONNECT, WAKE and
 * RELEASE as they arrive from the peer, and the DISCONNECT a closing or
 * reset endpoint sends. The send and receive calls are in core/scif_send.c and
 * core/scif_recv.c.
 *
 * Each handler finds the endpoint named by @dst_ep and acts only if the
 * message comes from that endpoint's peer (its node, its endpoint id) and
 * fits the stream's state; anything else is refused (-EPROTO) and
 * dropped by the caller.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_shm.h"
#include "scif_trace.h"
#include "scif_wire.h"

/**
 * scif_data_shutdown() - tell the peer of a closing endpoint
 * @ep: the endpoint, already %SCIF_EP_CLOSED; was connected
 */
void scif_data_shutdown(struct scif_endpt *ep)
{
	struct scif_wire_msg msg;

	/* Senders were woken by the state change and leave promptly. */
	mutex_lock(&ep->send_mutex);
	/* DISCONNECT also tells the peer we no longer write its memory. */
	if (ep->shm)
		scif_shm_stop(ep->shm);
	scif_msg_init(&msg, SCIF_MSG_DISCONNECT, ep->id, ep->peer_ep, ep->port,
		      ep->peer.port, 0);
	msg.seq = cpu_to_le32(ep->conn_gen);
	scif_node_send(ep->si, ep->peer.node, &msg, NULL, 0);
	mutex_unlock(&ep->send_mutex);
}

/**
 * scif_data_node_lost() - reset a connection whose peer node is lost
 * @ep: any endpoint
 * @node: the node that went away
 */
void scif_data_node_lost(struct scif_endpt *ep, u16 node)
{
	struct scif_shm *shm = NULL;

	spin_lock(&ep->lock);
	if (ep->state == SCIF_EP_CONNECTED && ep->peer.node == node) {
		ep->state = SCIF_EP_DISCONNECTED;
		ep->reset_err = -ENODEV;
	}
	if (ep->shm && ep->shm->node == node) {
		shm = ep->shm;
		scif_shm_get(shm);
	}
	spin_unlock(&ep->lock);
	wake_up_all(&ep->wq);
	/* Before the transport unmaps the peer's memory. */
	if (shm) {
		scif_shm_stop(shm);
		scif_shm_unref(shm);
	}
}

/**
 * scif_ep_reset() - reset a connection its protocol cannot carry on
 * @ep: the endpoint
 * @err: why: the link's error for a message that could not be sent, or
 *	 -ETIMEDOUT for a peer that did not answer in time
 *
 * Neither the stream nor the RMA protocol survives a lost message or a
 * peer that stopped answering, so the connection is reset on both sides,
 * never left half-closed: the endpoint
 * turns disconnected (scif_send() and scif_recv() fail with -ECONNRESET,
 * or -ENODEV when the link reported the node gone; poll reports
 * EPOLLHUP), everyone waiting on it is woken, and the peer is sent a
 * DISCONNECT. A transport fails a send for good only when it declares the
 * peer node lost (the NTB link after send_timeout_ms), and node loss
 * resets the peer's side of every connection; otherwise the DISCONNECT
 * gets through. The RMA layer keeps the endpoint's registered pages pinned
 * at close while the node stays online (see @reset_local). Sleeps; call
 * without spinlocks held.
 */
void scif_ep_reset(struct scif_endpt *ep, int err)
{
	struct scif_wire_msg msg;
	bool reset;

	spin_lock(&ep->lock);
	reset = ep->state == SCIF_EP_CONNECTED;
	if (reset) {
		ep->state = SCIF_EP_DISCONNECTED;
		ep->reset_err = err == -ENODEV ? -ENODEV : -ECONNRESET;
		ep->reset_local = true;
	}
	spin_unlock(&ep->lock);
	wake_up_all(&ep->wq);
	if (!reset)
		return;
	if (ep->shm)
		scif_shm_stop(ep->shm);
	pr_warn_ratelimited("scif %s: connection to node %u reset (%d)\n",
			    ep->si->name, ep->peer.node, err);
	scif_msg_init(&msg, SCIF_MSG_DISCONNECT, ep->id, ep->peer_ep, ep->port,
		      ep->peer.port, 0);
	msg.seq = cpu_to_le32(ep->conn_gen);
	scif_node_send(ep->si, ep->peer.node, &msg, NULL, 0);
}
EXPORT_SYMBOL_IF_KUNIT(scif_ep_reset);

/**
 * scif_data_path_lost() - reset a connection whose path to its peer moved
 * @ep: any endpoint
 * @node: the routed node whose route now goes through another neighbour
 *
 * Messages sent the old way may be lost in it, so a connection to @node
 * cannot go on: it is reset with -ECONNRESET on both sides
 * (scif_ep_reset(); the DISCONNECT takes the new way, and tells a peer
 * whose own route did not move).
 */
void scif_data_path_lost(struct scif_endpt *ep, u16 node)
{
	bool ours;

	spin_lock(&ep->lock);
	ours = ep->state == SCIF_EP_CONNECTED && ep->peer.node == node;
	spin_unlock(&ep->lock);
	if (ours)
		scif_ep_reset(ep, -ECONNRESET);
}

/* Find the endpoint a stream message is for, with a reference. */
static struct scif_endpt *scif_stream_ep(struct scif_instance *si,
					 const struct scif_wire_msg *msg,
					 int *err)
{
	struct scif_endpt *ep;

	*err = -EPROTO;
	if (!msg->src_ep || !msg->dst_ep)
		return NULL;
	ep = scif_ep_lookup(si, le64_to_cpu(msg->dst_ep));
	if (!ep)
		*err = -ENOENT;
	return ep;
}

/* Whether @msg comes from @ep's peer; ep->lock is held. */
static bool scif_stream_from_peer(struct scif_endpt *ep, u16 node,
				  const struct scif_wire_msg *msg)
{
	lockdep_assert_held(&ep->lock);

	return ep->state == SCIF_EP_CONNECTED && ep->peer.node == node &&
	       ep->peer_ep == le64_to_cpu(msg->src_ep);
}

/* Whether @ep's bytes go through shared memory; ep->lock is held. */
static bool scif_stream_shm(struct scif_endpt *ep)
{
	lockdep_assert_held(&ep->lock);

	return ep->shm && ep->shm->active;
}

/* DATA: append the payload to the ring if it is the next, fitting chunk. */
int scif_handle_data(struct scif_instance *si, u16 node,
		     const struct scif_wire_msg *msg, const void *data,
		     size_t len)
{
	struct scif_endpt *ep;
	u32 off, first;
	int ret;

	if (!len || msg->arg)
		return -EPROTO;
	ep = scif_stream_ep(si, msg, &ret);
	if (!ep)
		return ret;
	ret = -EPROTO;
	spin_lock(&ep->lock);
	if (scif_stream_from_peer(ep, node, msg) && !scif_stream_shm(ep) &&
	    le32_to_cpu(msg->seq) == ep->rx_seq &&
	    len <= ep->rx_size - (ep->rx_seq - ep->rx_read)) {
		off = ep->rx_seq & (ep->rx_size - 1);
		first = min_t(u32, len, ep->rx_size - off);
		memcpy(ep->rx_ring + off, data, first);
		memcpy(ep->rx_ring, (const u8 *)data + first, len - first);
		ep->rx_seq += len;
		trace_scif_stream_rx(ep->id, le32_to_cpu(msg->seq), len,
				     ep->rx_seq - ep->rx_read);
		ret = 0;
	}
	spin_unlock(&ep->lock);
	if (!ret)
		wake_up_all(&ep->wq);
	scif_ep_put(ep);
	return ret;
}

/* CREDIT: the peer consumed bytes up to arg; accept only real progress. */
int scif_handle_credit(struct scif_instance *si, u16 node,
		       const struct scif_wire_msg *msg)
{
	u32 acked = le32_to_cpu(msg->arg);
	struct scif_endpt *ep;
	int ret;

	if (msg->seq)
		return -EPROTO;
	ep = scif_stream_ep(si, msg, &ret);
	if (!ep)
		return ret;
	ret = -EPROTO;
	spin_lock(&ep->lock);
	if (scif_stream_from_peer(ep, node, msg) && !scif_stream_shm(ep) &&
	    acked - ep->tx_acked != 0 &&
	    acked - ep->tx_acked <= ep->tx_seq - ep->tx_acked) {
		ep->tx_acked = acked;
		ret = 0;
	}
	spin_unlock(&ep->lock);
	if (!ret)
		wake_up_all(&ep->wq);
	scif_ep_put(ep);
	return ret;
}

/*
 * DISCONNECT: the peer closed; keep the queued data for scif_recv(). The
 * peer no longer writes our memory; we stop writing its memory and say so.
 */
int scif_handle_disconnect(struct scif_instance *si, u16 node,
			   const struct scif_wire_msg *msg)
{
	u64 src = le64_to_cpu(msg->src_ep), dst = le64_to_cpu(msg->dst_ep);
	u32 gen = le32_to_cpu(msg->seq);
	struct scif_wire_msg rel;
	struct scif_endpt *ep;
	bool release = false;
	int ret;

	if (msg->arg || !src || !dst)
		return -EPROTO;
	ep = scif_ep_lookup_live(si, dst);
	if (!ep) {
		/* Closed: its memory may wait for this very word. */
		return scif_shm_unquarantine(si, node, dst, gen, src) ?
		       0 : -ENOENT;
	}
	ret = -EPROTO;
	spin_lock(&ep->lock);
	if (scif_stream_from_peer(ep, node, msg)) {
		ep->state = SCIF_EP_DISCONNECTED;
		ep->reset_err = -ECONNRESET;
		if (ep->shm) {
			scif_shm_set_peer_done(ep->shm);
			release = ep->shm->active;
		}
		ret = 0;
	}
	spin_unlock(&ep->lock);
	if (!ret)
		wake_up_all(&ep->wq);
	/* Connected: @ep->shm stays as it is for the endpoint's life. */
	if (!ret && ep->shm)
		scif_shm_stop(ep->shm);
	if (release) {
		scif_msg_init(&rel, SCIF_MSG_RELEASE, ep->id, ep->peer_ep,
			      ep->port, ep->peer.port, 0);
		rel.seq = cpu_to_le32(ep->conn_gen);
		scif_node_send(si, node, &rel, NULL, 0);
	}
	scif_ep_put(ep);
	/*
	 * From the acceptor of a connect we gave up on: it no longer writes
	 * the memory that connect offered, which waits in quarantine.
	 */
	if (ret && scif_shm_unquarantine(si, node, dst, gen, src))
		ret = 0;
	return ret;
}

/* WAKE: the peer moved a shared-memory stream we armed for. */
int scif_handle_wake(struct scif_instance *si, u16 node,
		     const struct scif_wire_msg *msg)
{
	struct scif_endpt *ep;
	int ret;

	if (msg->arg)
		return -EPROTO;
	ep = scif_stream_ep(si, msg, &ret);
	if (!ep)
		return ret;
	spin_lock(&ep->lock);
	/* Late after a disconnect is not wrong: the state change woke all. */
	ret = ep->peer.node == node && ep->peer_ep == le64_to_cpu(msg->src_ep) &&
	      scif_stream_shm(ep) ? 0 : -EPROTO;
	spin_unlock(&ep->lock);
	if (!ret)
		wake_up_all(&ep->wq);
	scif_ep_put(ep);
	return ret;
}

/* RELEASE: the peer no longer writes the memory dst_ep offered it. */
int scif_handle_release(struct scif_instance *si, u16 node,
			const struct scif_wire_msg *msg)
{
	u64 src = le64_to_cpu(msg->src_ep), dst = le64_to_cpu(msg->dst_ep);
	u32 gen = le32_to_cpu(msg->seq);
	struct scif_endpt *ep;
	int ret = -EPROTO;

	if (msg->arg || !dst)
		return -EPROTO;
	ep = scif_ep_lookup_live(si, dst);
	if (!ep)
		return scif_shm_unquarantine(si, node, dst, gen, src) ?
		       0 : -ENOENT;
	spin_lock(&ep->lock);
	/* Only the offer the release names, and only from its writer. */
	if (ep->shm && ep->shm->node == node && ep->shm->gen == gen &&
	    (!READ_ONCE(ep->shm->writer) ||
	     READ_ONCE(ep->shm->writer) == src)) {
		scif_shm_set_peer_done(ep->shm);
		ret = 0;
	}
	spin_unlock(&ep->lock);
	scif_ep_put(ep);
	/*
	 * An endpoint that connected again while its earlier offer was still
	 * out has put that memory aside (scif_ep_alloc_ring()): it waits in
	 * quarantine, and the endpoint may still point to it while it does.
	 */
	if (scif_shm_unquarantine(si, node, dst, gen, src))
		ret = 0;
	return ret;
}
