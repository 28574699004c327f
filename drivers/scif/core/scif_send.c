// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF byte streams, the send side: scif_send() and scif_send_iter(). How a
 * stream moves, by messages or through shared memory, is explained in
 * core/scif_stream.c, which holds what both sides share.
 */
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_shm.h"
#include "scif_trace.h"
#include "scif_wire.h"

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
	scif_stream_user_enter(ep, true);
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
			if (!ret) {
				cond_resched();
				continue;
			}
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
	scif_stream_user_leave(ep, true);
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
