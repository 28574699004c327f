// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF byte streams: scif_send() and scif_recv(). What the peer sends about
 * a stream is handled in core/scif_stream_msg.c.
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
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_shm.h"
#include "scif_trace.h"
#include "scif_wire.h"

static int scif_stream_state_err(struct scif_endpt *ep)
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
	scif_node_send(ep->si, ep->peer.node, &msg, NULL, 0);
}
EXPORT_SYMBOL_IF_KUNIT(scif_ep_reset);

/**
 * scif_stream_sync() - take in the indices the peer published in our memory
 * @ep: the endpoint; its lock is held
 *
 * For a stream through shared memory, moves @ep->rx_seq to what the peer
 * wrote and @ep->tx_acked to what it read, after checking that neither
 * goes back nor beyond what is possible. Nothing to do for a stream by
 * messages, whose handlers move them.
 *
 * Return: 0, or -EPROTO if the peer published a value it cannot have.
 */
int scif_stream_sync(struct scif_endpt *ep)
{
	struct scif_shm *shm = ep->shm;
	u32 w, c;

	lockdep_assert_held(&ep->lock);

	if (!shm || !shm->active || ep->state == SCIF_EP_CLOSED)
		return 0;
	w = scif_shm_written(shm);
	if (w - ep->rx_read > ep->rx_size ||
	    w - ep->rx_read < ep->rx_seq - ep->rx_read)
		return -EPROTO;
	ep->rx_seq = w;
	c = scif_shm_consumed(shm);
	if (c - ep->tx_acked > ep->tx_seq - ep->tx_acked)
		return -EPROTO;
	ep->tx_acked = c;
	return 0;
}

/* Room to send, a state change, a flush, or a lie to act on. */
static bool scif_send_ready(struct scif_endpt *ep, unsigned int fseq)
{
	bool ready;

	spin_lock(&ep->lock);
	ready = scif_stream_sync(ep) ||
		ep->tx_seq - ep->tx_acked < ep->tx_ring ||
		ep->state != SCIF_EP_CONNECTED || ep->flush_seq != fseq;
	spin_unlock(&ep->lock);
	return ready;
}

/* Data to receive, a state change, a flush, or a lie to act on. */
static bool scif_recv_ready(struct scif_endpt *ep, unsigned int fseq)
{
	bool ready;

	spin_lock(&ep->lock);
	ready = scif_stream_sync(ep) || ep->rx_seq != ep->rx_read ||
		ep->state != SCIF_EP_CONNECTED || ep->flush_seq != fseq;
	spin_unlock(&ep->lock);
	return ready;
}

/* Wake the peer's task that armed our control block; see scif_shm_arm(). */
static void scif_stream_wake(struct scif_endpt *ep)
{
	struct scif_wire_msg msg;
	int ret;

	scif_msg_init(&msg, SCIF_MSG_WAKE, ep->id, ep->peer_ep, ep->port,
		      ep->peer.port, 0);
	ret = scif_node_send(ep->si, ep->peer.node, &msg, NULL, 0);
	if (ret)
		scif_ep_reset(ep, ret);
}

/*
 * Act on a lie scif_stream_sync() found: reset the connection. Returns
 * the error the caller reports, as for any reset connection.
 */
static int scif_stream_check_sync(struct scif_endpt *ep)
{
	int ret;

	spin_lock(&ep->lock);
	ret = scif_stream_sync(ep);
	spin_unlock(&ep->lock);
	if (ret) {
		pr_warn_ratelimited("scif %s: node %u published an impossible stream index\n",
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

/*
 * Sleep until @ready says the loop of scif_send() or scif_recv() can go on,
 * taking in the peer's messages meanwhile where its link allows (a reader
 * drains the data it waits for, a sender the credit). A signal, or a flush
 * that came meanwhile, ends the call: -EINTR.
 */
static int scif_stream_wait(struct scif_endpt *ep,
			    bool (*ready)(struct scif_endpt *ep,
					  unsigned int fseq),
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

static int scif_stream_check(scif_epd_t epd, int len, int flags)
{
	int ret = scif_ep_check(epd);

	if (ret)
		return ret;
	if (len < 0 || (flags & ~SCIF_SEND_BLOCK))
		return -EINVAL;
	return 0;
}

/*
 * Give back the part of a claimed chunk that was not sent: the stream
 * ends at @seq again. Only the sender (send_mutex) moves tx_seq, and the
 * peer was never told of bytes past @seq.
 */
static void scif_send_unclaim(struct scif_endpt *ep, u32 seq)
{
	lockdep_assert_held(&ep->send_mutex);

	spin_lock(&ep->lock);
	ep->tx_seq = seq;
	spin_unlock(&ep->lock);
}

/* Whether DATA messages can take their bytes from @from in place. */
static bool scif_send_in_place(const struct iov_iter *from)
{
	return iov_iter_is_kvec(from) && from->nr_segs == 1;
}

/*
 * The next @len bytes of @from for a DATA message: in place where @from is
 * one kernel buffer, else copied into @bounce. Returns how many are ready
 * at *@data (fewer on a fault in user memory).
 */
static size_t scif_send_data(struct iov_iter *from, u8 *bounce, u32 len,
			     const void **data)
{
	if (scif_send_in_place(from)) {
		*data = (const u8 *)from->kvec->iov_base + from->iov_offset;
		iov_iter_advance(from, len);
		return len;
	}
	*data = bounce;
	return copy_from_iter(bounce, len, from);
}

static int __scif_send(scif_epd_t epd, struct iov_iter *from, int flags)
{
	struct scif_endpt *ep = epd;
	int len = min_t(size_t, iov_iter_count(from), INT_MAX);
	struct scif_wire_msg wmsg;
	u8 *bounce = NULL;
	unsigned int fseq;
	u32 chunk, seq, n;
	const void *data;
	int done = 0, ret;
	bool shm;

	ret = scif_stream_check(epd, len, flags);
	if (ret)
		return ret;
	spin_lock(&ep->lock);
	ret = scif_stream_state_err(ep);
	fseq = ep->flush_seq;
	spin_unlock(&ep->lock);
	if (ret || !len)
		return ret;
	if (mutex_lock_interruptible(&ep->send_mutex))
		return -EINTR;
	/* Connected: @ep->shm stays as it is for the endpoint's life. */
	shm = ep->shm && ep->shm->active;
	while (done < len) {
		spin_lock(&ep->lock);
		ret = scif_stream_state_err(ep) ?: scif_stream_sync(ep);
		chunk = ep->tx_ring - (ep->tx_seq - ep->tx_acked);
		chunk = min3(chunk, (u32)(len - done),
			     shm ? SCIF_SHM_PIECE : ep->max_chunk);
		seq = ep->tx_seq;
		/* Counted first: the peer may read it as soon as it lands. */
		if (!ret && chunk)
			ep->tx_seq += chunk;
		spin_unlock(&ep->lock);
		if (ret == -EPROTO) {
			ret = scif_stream_check_sync(ep);
			if (!ret)
				continue;
		}
		if (ret)
			break;
		if (!chunk) {
			if (!(flags & SCIF_SEND_BLOCK))
				break;
			ret = scif_stream_wait(ep, scif_send_ready, fseq);
			if (ret)
				break;
			continue;
		}
		if (shm) {
			ret = scif_shm_write(ep->shm, seq, ep->tx_ring, from,
					     chunk);
			if (ret < 0) {
				scif_send_unclaim(ep, seq);
				break;
			}
			n = ret;
			ret = 0;
			if (n && scif_shm_wake_due(ep->shm, true, seq, seq + n))
				scif_stream_wake(ep);
		} else {
			if (!bounce && !scif_send_in_place(from)) {
				bounce = kmalloc(ep->max_chunk, GFP_KERNEL);
				if (!bounce) {
					scif_send_unclaim(ep, seq);
					ret = -ENOMEM;
					break;
				}
			}
			n = scif_send_data(from, bounce, chunk, &data);
			if (n) {
				scif_msg_init(&wmsg, SCIF_MSG_DATA, ep->id,
					      ep->peer_ep, ep->port,
					      ep->peer.port, 0);
				wmsg.len = cpu_to_le16(n);
				wmsg.seq = cpu_to_le32(seq);
				ret = scif_node_send(ep->si, ep->peer.node,
						     &wmsg, data, n);
			}
			if (ret) {
				/* A gap in the stream: reset both sides. */
				scif_ep_reset(ep, ret);
				spin_lock(&ep->lock);
				ret = scif_stream_state_err(ep);
				spin_unlock(&ep->lock);
				break;
			}
		}
		done += n;
		if (n == chunk)
			continue;
		/* The user's buffer faulted: bring it in, or give up. */
		scif_send_unclaim(ep, seq + n);
		if (fault_in_iov_iter_readable(from, chunk - n) == chunk - n) {
			ret = -EFAULT;
			break;
		}
	}
	mutex_unlock(&ep->send_mutex);
	kfree(bounce);
	return done ? done : ret;
}

/**
 * scif_send() - send bytes to the peer of a connected endpoint
 * @epd: the endpoint
 * @msg: the bytes (may be NULL if @len is 0)
 * @len: number of bytes
 * @flags: %SCIF_SEND_BLOCK to wait until all @len bytes are sent; without
 *	   it only what the peer has room for now is sent, possibly nothing
 *
 * Return: the number of bytes sent, or -EBADF (@epd invalid), -EINVAL (bad
 * @flags or @len negative), -ENOTCONN (not connected), -ECONNRESET (the
 * peer closed, or a message of the connection could not be sent: see
 * scif_ep_reset()), -ENODEV (the peer's node is lost), -EINTR
 * (signal or scif_epd_flush() before any byte was sent).
 */
int scif_send(scif_epd_t epd, void *msg, int len, int flags)
{
	struct kvec kv = { .iov_base = msg, .iov_len = len };
	struct iov_iter from;

	if (len < 0)
		return scif_stream_check(epd, len, flags);
	iov_iter_kvec(&from, ITER_SOURCE, &kv, 1, len);
	return scif_send_iter(epd, &from, flags);
}
EXPORT_SYMBOL_GPL(scif_send);

/**
 * scif_send_iter() - scif_send() from an iterator
 * @epd: the endpoint
 * @from: the bytes, in kernel or user memory; advanced past those sent
 * @flags: as for scif_send()
 *
 * User memory is copied straight into the peer's ring or the message, with
 * no copy in between.
 *
 * Return: as scif_send(), and -EFAULT if user memory faulted before any
 * byte was sent.
 */
int scif_send_iter(scif_epd_t epd, struct iov_iter *from, int flags)
{
	u64 id = scif_ep_check(epd) ? 0 : ((struct scif_endpt *)epd)->id;
	int ret;

	trace_scif_send_enter(id, min_t(size_t, iov_iter_count(from), INT_MAX),
			      flags);
	ret = __scif_send(epd, from, flags);
	trace_scif_send_exit(id, ret, flags);
	return ret;
}

/*
 * Copy up to @len queued bytes out of the ring into @to; recv_mutex is
 * held. Returns how many, -EPROTO for a peer that lied about its index, or
 * -EFAULT if @to faulted before any byte was copied (the bytes stay
 * queued).
 */
static int scif_ring_read(struct scif_endpt *ep, struct iov_iter *to,
			  u32 len, bool *credit)
{
	u32 avail, off, first, n, unacked, read;
	bool shm = ep->shm && ep->shm->active;
	int ret;

	lockdep_assert_held(&ep->recv_mutex);

	spin_lock(&ep->lock);
	ret = scif_stream_sync(ep);
	avail = ep->rx_seq - ep->rx_read;
	off = ep->rx_read & (ep->rx_size - 1);
	spin_unlock(&ep->lock);
	if (ret)
		return ret;
	n = min(avail, len);
	if (!n)
		return 0;
	/* Only this reader moves rx_read, and writers stay out of [read, seq). */
	first = min_t(u32, n, ep->rx_size - off);
	len = copy_to_iter(ep->rx_ring + off, first, to);
	if (len == first && n > first)
		len += copy_to_iter(ep->rx_ring, n - first, to);
	if (!len)
		return -EFAULT;
	n = len;
	spin_lock(&ep->lock);
	ep->rx_read += n;
	read = ep->rx_read;
	unacked = ep->rx_read - ep->rx_acked;
	*credit = !shm && unacked >= ep->rx_size / 4;
	spin_unlock(&ep->lock);
	if (shm) {
		/* The room is the sender's at once; wake it if it sleeps. */
		scif_shm_publish_read(ep->shm, read);
		if (scif_shm_wake_due(ep->shm, false, read - n, read))
			scif_stream_wake(ep);
	}
	return n;
}

static void scif_send_credit(struct scif_endpt *ep)
{
	struct scif_wire_msg msg;
	bool send;
	u32 read;
	int ret;

	spin_lock(&ep->lock);
	send = ep->state == SCIF_EP_CONNECTED && ep->rx_acked != ep->rx_read;
	read = ep->rx_read;
	if (send)
		ep->rx_acked = read;
	spin_unlock(&ep->lock);
	if (!send)
		return;
	scif_msg_init(&msg, SCIF_MSG_CREDIT, ep->id, ep->peer_ep, ep->port,
		      ep->peer.port, read);
	/* A lost credit would leave the peer's sender waiting for ever. */
	ret = scif_node_send(ep->si, ep->peer.node, &msg, NULL, 0);
	if (ret)
		scif_ep_reset(ep, ret);
}

static int __scif_recv(scif_epd_t epd, struct iov_iter *to, int flags)
{
	struct scif_endpt *ep = epd;
	int len = min_t(size_t, iov_iter_count(to), INT_MAX);
	unsigned int fseq;
	int done = 0, ret;
	bool credit;
	int n;

	ret = scif_stream_check(epd, len, flags);
	if (ret)
		return ret;
	spin_lock(&ep->lock);
	ret = scif_stream_state_err(ep);
	if (ret == -ECONNRESET || ret == -ENODEV)
		ret = 0;	/* queued bytes may still be waiting */
	fseq = ep->flush_seq;
	spin_unlock(&ep->lock);
	if (ret || !len)
		return ret;
	if (mutex_lock_interruptible(&ep->recv_mutex))
		return -EINTR;
	while (done < len) {
		credit = false;
		n = scif_ring_read(ep, to, len - done, &credit);
		if (n == -EFAULT) {
			ret = n;
			break;
		}
		if (n < 0) {
			ret = scif_stream_check_sync(ep);
			if (ret)
				break;
			continue;
		}
		if (credit)
			scif_send_credit(ep);
		done += n;
		if (n)
			continue;
		spin_lock(&ep->lock);
		ret = ep->rx_seq != ep->rx_read ? 0 : scif_stream_state_err(ep);
		spin_unlock(&ep->lock);
		if (ret || !(flags & SCIF_RECV_BLOCK))
			break;
		ret = scif_stream_wait(ep, scif_recv_ready, fseq);
		if (ret)
			break;
	}
	mutex_unlock(&ep->recv_mutex);
	return done ? done : ret;
}

/**
 * scif_recv() - receive bytes from the peer of a connected endpoint
 * @epd: the endpoint
 * @msg: where to put them (may be NULL if @len is 0)
 * @len: room at @msg
 * @flags: %SCIF_RECV_BLOCK to wait until @len bytes arrived; without it
 *	   only the bytes already queued are returned, possibly none
 *
 * After the peer closed, queued bytes can still be received; then the call
 * fails with -ECONNRESET.
 *
 * Return: the number of bytes received, or -EBADF (@epd invalid), -EINVAL
 * (bad @flags or @len negative), -ENOTCONN (not connected), -ECONNRESET
 * (the peer closed and nothing is queued), -ENODEV (the peer's node is lost
 * and nothing is queued), -EINTR (signal or scif_epd_flush() before any
 * byte arrived).
 */
int scif_recv(scif_epd_t epd, void *msg, int len, int flags)
{
	struct kvec kv = { .iov_base = msg, .iov_len = len };
	struct iov_iter to;

	if (len < 0)
		return scif_stream_check(epd, len, flags);
	iov_iter_kvec(&to, ITER_DEST, &kv, 1, len);
	return scif_recv_iter(epd, &to, flags);
}
EXPORT_SYMBOL_GPL(scif_recv);

/**
 * scif_recv_iter() - scif_recv() into an iterator
 * @epd: the endpoint
 * @to: where the bytes go, kernel or user memory; advanced past them
 * @flags: as for scif_recv()
 *
 * Bytes are copied straight from the ring. Bytes that user memory could
 * not take stay queued.
 *
 * Return: as scif_recv(), and -EFAULT if user memory faulted before any
 * byte was received.
 */
int scif_recv_iter(scif_epd_t epd, struct iov_iter *to, int flags)
{
	u64 id = scif_ep_check(epd) ? 0 : ((struct scif_endpt *)epd)->id;
	int ret;

	trace_scif_recv_enter(id, min_t(size_t, iov_iter_count(to), INT_MAX),
			      flags);
	ret = __scif_recv(epd, to, flags);
	trace_scif_recv_exit(id, ret, flags);
	return ret;
}
