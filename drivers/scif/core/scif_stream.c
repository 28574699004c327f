// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF byte streams: what the send side (core/scif_send.c) and the receive
 * side (core/scif_recv.c) share: the errors of a stream's state, resets,
 * the indices of a stream through shared memory, and waiting for the peer.
 * What the peer sends about a stream is handled in core/scif_stream_msg.c.
 *
 * Each connected endpoint owns a receive ring, sized by the link to its peer.
 * A sender never has more bytes in flight than its peer's ring holds: it
 * counts what it sent (tx_seq) against what the peer reported consumed
 * (tx_acked, from CREDIT). Data travels in DATA messages of at most the
 * link's chunk size, each stamped with its stream offset so that a replayed
 * or reordered chunk is recognised and dropped. The receiver reports
 * consumption once a quarter of its ring has been read since the last
 * report. That is enough to keep a blocked sender from waiting forever: a
 * sender only waits with the whole ring in flight, and a reader then finds
 * at least that much to read. Small messages thus cost no extra message
 * each.
 *
 * Where both sides offered shared memory at connect (core/scif_shm.c), the
 * same counters move without messages: the sender copies into the peer's
 * ring and publishes tx_seq there, the reader publishes rx_read in the
 * sender's memory, and each side takes the other's index from its own
 * memory (scif_stream_sync()). Only a side that sleeps is sent a WAKE.
 */
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <uapi/linux/scif_requests.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_shm.h"
#include "scif_trace.h"
#include "scif_wire.h"

/**
 * scif_stream_state_err() - the error a stream's state makes a call report
 * @ep: the endpoint; its lock is held
 *
 * Return: 0 while connected; once disconnected, the error of the reset
 * (-ECONNRESET unless @ep->reset_err says otherwise); -EBADF once closed;
 * -ENOTCONN in any other state.
 */
int scif_stream_state_err(struct scif_endpt *ep)
{
	switch (ep->state) {
	case SCIF_EP_CONNECTED:
		return 0;
	case SCIF_EP_DISCONNECTED:
		return ep->reset_err ? ep->reset_err : -ECONNRESET;
	case SCIF_EP_CLOSED:
		return -EBADF;
	default:
		return -ENOTCONN;
	}
}

/**
 * scif_stream_sync() - take in the indices the peer published in our memory
 * @ep: the endpoint; its lock is held
 *
 * For a stream through shared memory, moves @ep->rx_seq to what the peer
 * wrote and @ep->tx_acked to what it read, after checking that neither
 * goes back nor beyond what is possible. Where a process maps the stream,
 * its read and write positions are taken in as well and checked the same
 * way (core/scif_shm_view.c). Nothing to do for a stream by messages,
 * whose handlers move them.
 *
 * Return: 0, or -EPROTO if the peer (or the process) published a value it
 * cannot have.
 */
int scif_stream_sync(struct scif_endpt *ep)
{
	struct scif_shm *shm = ep->shm;
	u32 w, c, read, sent;

	lockdep_assert_held(&ep->lock);

	if (!shm || !shm->active || ep->state == SCIF_EP_CLOSED)
		return 0;
	read = ep->rx_read;
	sent = ep->tx_seq;
	/* A process's positions, but for a direction a call of ours moves. */
	if (shm->user && !shm->rx_kernel)
		read = READ_ONCE(shm->user->read);
	if (shm->user && !shm->tx_kernel)
		sent = READ_ONCE(shm->user->sent);
	w = scif_shm_written(shm);
	/* Written: not back, and at most a ring ahead of what was read. */
	if (w - ep->rx_read < ep->rx_seq - ep->rx_read ||
	    read - ep->rx_read > w - ep->rx_read || w - read > ep->rx_size)
		return -EPROTO;
	c = scif_shm_consumed(shm);
	/* Consumed: not back, not beyond what was sent, a ring behind it. */
	if (sent - ep->tx_acked < ep->tx_seq - ep->tx_acked ||
	    c - ep->tx_acked > sent - ep->tx_acked || sent - c > ep->tx_ring)
		return -EPROTO;
	ep->rx_seq = w;
	ep->rx_read = read;
	ep->tx_acked = c;
	ep->tx_seq = sent;
	return 0;
}

/**
 * scif_send_ready() - whether a waiting sender has something to act on
 * @ep: the endpoint
 * @fseq: @ep->flush_seq when the send began
 *
 * Room to send, a state change, a flush, or a lie to act on. The condition
 * a sender passes to scif_stream_wait(); takes @ep->lock.
 *
 * Return: true if the sender is to go on.
 */
bool scif_send_ready(struct scif_endpt *ep, unsigned int fseq)
{
	bool ready;

	spin_lock(&ep->lock);
	ready = scif_stream_sync(ep) ||
		ep->tx_seq - ep->tx_acked < ep->tx_ring ||
		ep->state != SCIF_EP_CONNECTED || ep->flush_seq != fseq;
	spin_unlock(&ep->lock);
	return ready;
}

/**
 * scif_recv_ready() - whether a waiting receiver has something to act on
 * @ep: the endpoint
 * @fseq: @ep->flush_seq when the receive began
 *
 * Data to receive, a state change, a flush, or a lie to act on. The
 * condition a receiver passes to scif_stream_wait(); takes @ep->lock.
 *
 * Return: true if the receiver is to go on.
 */
bool scif_recv_ready(struct scif_endpt *ep, unsigned int fseq)
{
	bool ready;

	spin_lock(&ep->lock);
	ready = scif_stream_sync(ep) || ep->rx_seq != ep->rx_read ||
		ep->state != SCIF_EP_CONNECTED || ep->flush_seq != fseq;
	spin_unlock(&ep->lock);
	return ready;
}

/**
 * scif_stream_wake() - send the peer a WAKE
 * @ep: the endpoint, with a stream through shared memory
 *
 * Wake the peer's task that armed our control block; see scif_shm_arm().
 * A WAKE that cannot be sent resets the connection (scif_ep_reset()).
 */
void scif_stream_wake(struct scif_endpt *ep)
{
	struct scif_wire_msg msg;
	int ret;

	scif_msg_init(&msg, SCIF_MSG_WAKE, ep->id, ep->peer_ep, ep->port,
		      ep->peer.port, 0);
	ret = scif_node_send(ep->si, ep->peer.node, &msg, NULL, 0);
	if (ret)
		scif_ep_reset(ep, ret);
}

/**
 * scif_stream_check_sync() - reset a stream whose peer published a lie
 * @ep: the endpoint; its lock is not held
 *
 * Act on a lie scif_stream_sync() found: reset the connection.
 *
 * Return: the error the caller reports, as for any reset connection
 * (scif_stream_state_err()).
 */
int scif_stream_check_sync(struct scif_endpt *ep)
{
	int ret;

	spin_lock(&ep->lock);
	ret = scif_stream_sync(ep);
	spin_unlock(&ep->lock);
	if (ret) {
		pr_warn_ratelimited("scif %s: impossible stream index from node %u or the mapping process\n",
				    ep->si->name, ep->peer.node);
		scif_ep_reset(ep, ret);
	}
	spin_lock(&ep->lock);
	ret = scif_stream_state_err(ep);
	spin_unlock(&ep->lock);
	return ret;
}

/* What scif_stream_wait() waits for, in the form scif_node_wait() takes. */
struct scif_stream_cond {
	struct scif_endpt *ep;
	bool (*ready)(struct scif_endpt *ep, unsigned int fseq);
	unsigned int fseq;
};

static bool scif_stream_cond_ready(const void *arg)
{
	const struct scif_stream_cond *c = arg;

	return c->ready(c->ep, c->fseq);
}

/*
 * A shared-memory stream: have the peer send WAKE once it moves past what
 * we have seen of it.
 */
static void scif_stream_cond_arm(const void *arg)
{
	const struct scif_stream_cond *c = arg;
	struct scif_endpt *ep = c->ep;
	bool rx = c->ready == scif_recv_ready;
	u32 seen;

	spin_lock(&ep->lock);
	seen = rx ? ep->rx_seq : ep->tx_acked;
	spin_unlock(&ep->lock);
	scif_shm_arm(ep->shm, rx, seen);
}

/**
 * scif_stream_wait() - wait until a send or receive can go on
 * @ep: the endpoint
 * @ready: scif_send_ready() or scif_recv_ready()
 * @fseq: @ep->flush_seq when the call began
 *
 * Sleep until @ready says the loop of scif_send() or scif_recv() can go on,
 * taking in the peer's messages meanwhile where its link allows (a reader
 * drains the data it waits for, a sender the credit). A signal, or a flush
 * that came meanwhile, ends the call: -EINTR.
 *
 * Return: 0, or -EINTR.
 */
int scif_stream_wait(struct scif_endpt *ep,
		     bool (*ready)(struct scif_endpt *ep, unsigned int fseq),
		     unsigned int fseq)
{
	struct scif_stream_cond c = { .ep = ep, .ready = ready, .fseq = fseq };
	long ret;

	trace_scif_stream_sleep(ep->id, ready == scif_send_ready);
	if (ep->shm && ep->shm->active)
		ret = scif_ep_wait_peer_armed(ep, scif_stream_cond_ready,
					      scif_stream_cond_arm, &c,
					      TASK_INTERRUPTIBLE);
	else
		ret = scif_ep_wait_peer(ep, scif_stream_cond_ready, &c,
					TASK_INTERRUPTIBLE,
					MAX_SCHEDULE_TIMEOUT);
	if (ret < 0 || READ_ONCE(ep->flush_seq) != fseq)
		return -EINTR;
	return 0;
}

/**
 * scif_stream_check() - check the arguments of a send or receive
 * @epd: the endpoint
 * @len: bytes asked for
 * @flags: the caller's flags
 *
 * Return: 0, or -EBADF (@epd invalid), -EINVAL (@len negative or a flag
 * other than %SCIF_SEND_BLOCK, which is %SCIF_RECV_BLOCK too).
 */
int scif_stream_check(scif_epd_t epd, int len, int flags)
{
	int ret = scif_ep_check(epd);

	if (ret)
		return ret;
	if (len < 0 || (flags & ~SCIF_SEND_BLOCK))
		return -EINVAL;
	return 0;
}
