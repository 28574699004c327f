// SPDX-License-Identifier: GPL-2.0
/*
 * Moving a shared-memory stream's bytes and indices.
 *
 * The sender copies into the peer's ring and publishes its write index in
 * the peer's control block; the reader publishes its read index likewise.
 * A side about to sleep stores an event index first (scif_shm_arm()), and
 * the other side, after each move, asks scif_shm_wake_due() whether that
 * sleeper now waits for a WAKE. The indices the peer published in our
 * control block are read here too, unchecked, for the stream code to check.
 * The memory itself and its life are in core/scif_shm.c.
 */
#include <kunit/visibility.h>
#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <uapi/linux/scif_requests.h>

#include "scif_shm.h"
#include "scif_wire.h"

/*
 * Copy into the peer's ring. Across the link with non-temporal stores:
 * the bytes are for another machine, so caching them here only evicts
 * what we use (and on the test rig the uncached copy streamed 16 KiB
 * sends a fifth faster). The wmb() before the index orders them as it
 * orders the write-combined ones.
 *
 * The uncached copy moves user memory in blocks: when the source faults
 * it may stop short of the last readable byte, even at no progress with
 * a readable first page, and scif_send_iter(), which faults the buffer
 * in and retries, would go round for ever. The cached copy goes on from
 * where it stopped and stops exactly at the fault.
 */
static size_t scif_shm_copy(struct scif_shm *shm, void *to, size_t len,
			    struct iov_iter *from)
{
	size_t n = 0;

	lockdep_assert_held(&shm->lock);
	if (shm->nt_copy)
		n = copy_from_iter_nocache(to, len, from);
	if (n < len)
		n += copy_from_iter(to + n, len - n, from);
	return n;
}

/**
 * scif_shm_write() - copy stream bytes into the peer's ring
 * @shm: the sender's state (&scif_endpt.send_mutex held)
 * @seq: stream offset of the first byte
 * @peer_size: size of the peer's ring (&scif_endpt.tx_ring)
 * @from: the bytes, kernel or user memory; advanced past those copied
 * @len: how many; the caller checked that the peer has room for them
 *
 * The copy runs under @shm->lock with page faults disabled, so a part of
 * user memory that is not present ends it early: the caller faults it in
 * and comes back. The bytes land before the new write index does, and
 * the index covers only what was copied.
 *
 * Return: bytes copied (fewer than @len on a fault), or -ECONNRESET once
 * we may no longer write.
 */
int scif_shm_write(struct scif_shm *shm, u32 seq, u32 peer_size,
		   struct iov_iter *from, u32 len)
{
	u32 off = seq & (peer_size - 1);
	u32 first = min(len, peer_size - off);
	size_t n;

	spin_lock(&shm->lock);
	if (!shm->remote_ok) {
		spin_unlock(&shm->lock);
		return -ECONNRESET;
	}
	pagefault_disable();
	n = scif_shm_copy(shm, shm->peer_ring + off, first, from);
	if (n == first && len > first)
		n += scif_shm_copy(shm, shm->peer_ring, len - first, from);
	pagefault_enable();
	if (n) {
		wmb();	/* the bytes before the index (a window may combine writes) */
		WRITE_ONCE(shm->peer_ctl->written, cpu_to_le32(seq + n));
	}
	spin_unlock(&shm->lock);
	return n;
}

/**
 * scif_shm_publish_read() - tell the peer's sender how far we read
 * @shm: the reader's state (&scif_endpt.recv_mutex held)
 * @read: bytes consumed in total
 */
void scif_shm_publish_read(struct scif_shm *shm, u32 read)
{
	spin_lock(&shm->lock);
	if (shm->remote_ok)
		WRITE_ONCE(shm->peer_ctl->consumed, cpu_to_le32(read));
	spin_unlock(&shm->lock);
}

/**
 * scif_shm_arm() - ask the peer for a WAKE before sleeping
 * @shm: the state
 * @rx: true for a reader waiting for bytes, false for a sender waiting for
 *	room
 * @seen: the peer's index as the caller last saw it (its write position
 *	  for a reader, its read position for a sender)
 *
 * The caller checks its condition again afterwards, then sleeps.
 */
void scif_shm_arm(struct scif_shm *shm, bool rx, u32 seen)
{
	__le32 *event;

	spin_lock(&shm->lock);
	if (shm->remote_ok) {
		event = rx ? &shm->peer_ctl->rx_event :
			     &shm->peer_ctl->tx_event;
		WRITE_ONCE(*event, cpu_to_le32(seen));
		/* A read through the link completes after the write. */
		(void)READ_ONCE(*event);
	}
	spin_unlock(&shm->lock);
	mb();	/* the event index before our next look at the peer's */
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_arm);

/**
 * scif_shm_wake_due() - whether the peer sleeps until the move just made
 * @shm: the state
 * @rx: true after a sender wrote bytes (does the peer's reader wait?),
 *	false after a reader consumed some (does the peer's sender?)
 * @from: our index before the move
 * @to: our index after it
 *
 * Return: true if the move carried our index past the peer's event index,
 * which the peer then waits to hear of: a WAKE must go out.
 */
bool scif_shm_wake_due(struct scif_shm *shm, bool rx, u32 from, u32 to)
{
	u32 event;

	mb();	/* our index before the peer's event index */
	event = le32_to_cpu(rx ? READ_ONCE(shm->ctl->rx_event) :
				 READ_ONCE(shm->ctl->tx_event));
	/* The event index lies in [from, to): the sleeper saw no more. */
	return scif_stream_wake_due(event, from, to);
}

/**
 * scif_shm_user_wake_due() - whether a process's request for a WAKE is due
 * @shm: the state
 * @sent: our write position, as the process published it
 * @read: our read position, likewise
 *
 * The caller holds &scif_endpt.lock, which protects the positions seen at
 * the previous request. A request is due when either position moved past
 * the peer's event index since then (scif_shm_wake_due()).
 *
 * Return: true if a WAKE must go out.
 */
bool scif_shm_user_wake_due(struct scif_shm *shm, u32 sent, u32 read)
{
	bool due;

	due = scif_shm_wake_due(shm, true, shm->woke_sent, sent) ||
	      scif_shm_wake_due(shm, false, shm->woke_read, read);
	shm->woke_sent = sent;
	shm->woke_read = read;
	return due;
}

/**
 * scif_shm_show() - print a shared-memory stream's published indices
 * @m: the debugfs file
 * @shm: the state
 * @read: our read position
 * @sent: our write position
 *
 * Prints what the peer published in our control block against our own
 * positions: its write position against our read one, its read position
 * against our write one, and its event indices.
 */
void scif_shm_show(struct seq_file *m, struct scif_shm *shm, u32 read,
		   u32 sent)
{
	struct scif_wire_shm_ctl *c = shm->ctl;

	seq_printf(m, "  shm written %u/%u consumed %u/%u events rx %u tx %u",
		   le32_to_cpu(READ_ONCE(c->written)), read,
		   le32_to_cpu(READ_ONCE(c->consumed)), sent,
		   le32_to_cpu(READ_ONCE(c->rx_event)),
		   le32_to_cpu(READ_ONCE(c->tx_event)));
}

/**
 * scif_shm_written() - the peer's write index into our ring, unchecked
 * @shm: the state
 *
 * Return: the value; the caller checks it, then reads the bytes it covers.
 */
u32 scif_shm_written(struct scif_shm *shm)
{
	u32 w = le32_to_cpu(READ_ONCE(shm->ctl->written));

	smp_rmb();	/* the index before the bytes it covers */
	return w;
}

/**
 * scif_shm_consumed() - how far the peer read our stream, unchecked
 * @shm: the state
 *
 * Return: the value, for the caller to check.
 */
u32 scif_shm_consumed(struct scif_shm *shm)
{
	return le32_to_cpu(READ_ONCE(shm->ctl->consumed));
}
