// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF byte streams, the receive side: scif_recv() and scif_recv_iter(). How
 * a stream moves, by messages or through shared memory, is explained in
 * core/scif_stream.c, which holds what both sides share.
 */
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/uio.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_shm.h"
#include "scif_trace.h"
#include "scif_wire.h"

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
	*credit = !shm && scif_credit_due(unacked, ep->rx_size);
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
	scif_stream_user_enter(ep, false);
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
			cond_resched();
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
	scif_stream_user_leave(ep, false);
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
