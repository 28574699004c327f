// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF over NTB: sending, the writer's side of a peer's ring.
 *
 * A sender takes tx_mutex, waits (at most send_timeout_ms) for room in the
 * peer's ring, writes the record's cells, then the write index, and rings
 * the peer's doorbell.
 *
 * One sender must never wait: the drain of our own ring. A message handler
 * it calls may answer the peer (FENCE_DONE, REG_ACK, ...); if it waited for
 * room in the peer's ring while the peer's drain waited for room in ours,
 * or for a tx_mutex held by a sender waiting for such room, neither ring
 * would be drained again until the send timeout declared the peer lost.
 * So a message sent from a drain that cannot be written at once is copied
 * to the peer's backlog; every later message goes behind it. The backlog
 * is written out whenever room appears: by the next sender, by the next
 * drain (we ask the peer for a doorbell once it consumed), and by a work
 * item that retries every few milliseconds and declares the peer lost when
 * the backlog has not moved for send_timeout_ms, as a waiting sender
 * would. A drain stops taking records while the backlog holds more than a
 * ring's worth of cells: a peer that floods us with requests and never
 * reads the answers only fills its own ring.
 */
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "../core/scif_wire.h"
#include "scif_ntb.h"
#include "scif_ntb_trace.h"

/* How often a waiting sender or the backlog looks for room again. */
#define SCIF_NTB_TX_RETRY_MS	10

/**
 * struct scif_ntb_queued - a message waiting in a peer's backlog
 * @list: entry in &scif_ntb_peer.backlog
 * @cells: cells of its record
 * @len: bytes at @data
 * @msg: the message
 * @data: its data
 */
struct scif_ntb_queued {
	struct list_head list;
	u32 cells;
	size_t len;
	struct scif_wire_msg msg;
	u8 data[];
};

/*
 * Cells free in the peer's ring, from the read index the peer keeps in our
 * memory; -EPROTO if that index is impossible. tx_mutex is held.
 */
static int scif_ntb_tx_room(struct scif_ntb_peer *p, u32 *room)
{
	struct scif_ntb_region_hdr *hdr = p->region;
	u32 used = p->tx_widx - le32_to_cpu(READ_ONCE(hdr->ridx));

	lockdep_assert_held(&p->tx_mutex);

	if (used > p->tx_cells)
		return -EPROTO;
	*room = p->tx_cells - used;
	return 0;
}

/*
 * Cells a record of @cells takes from the write position: one that does
 * not fit before the end of the ring also pads the rest of it.
 */
static u32 scif_ntb_tx_need(struct scif_ntb_peer *p, u32 cells)
{
	u32 contig = p->tx_cells - (p->tx_widx & (p->tx_cells - 1));

	return cells <= contig ? cells : contig + cells;
}

/* Whether a record of @cells can be written now; -EPROTO: bad index. */
static int scif_ntb_tx_fits(struct scif_ntb_peer *p, u32 cells)
{
	u32 room;
	int ret = scif_ntb_tx_room(p, &room);

	return ret ? ret : room >= scif_ntb_tx_need(p, cells);
}

/* Write one record that fits; the write index is published later. */
static void scif_ntb_tx_put(struct scif_ntb_peer *p,
			    const struct scif_wire_msg *msg, const void *data,
			    size_t len)
{
	u32 cells = scif_ntb_cells(len);
	u32 off = p->tx_widx & (p->tx_cells - 1);

	lockdep_assert_held(&p->tx_mutex);

	if (cells > p->tx_cells - off) {
		WRITE_ONCE(p->tx_ring[off * SCIF_NTB_CELL], SCIF_NTB_PAD);
		p->tx_widx += p->tx_cells - off;
		off = 0;
	}
	memcpy(p->tx_ring + off * SCIF_NTB_CELL, msg, sizeof(*msg));
	if (len)
		memcpy(p->tx_ring + (off + 1) * SCIF_NTB_CELL, data, len);
	p->tx_widx += cells;
	trace_scif_ntb_ring_tx(p->node, cells, p->tx_widx);
}

/* Publish the records written so far and ring the peer's doorbell. */
static void scif_ntb_tx_commit(struct scif_ntb_peer *p)
{
	lockdep_assert_held(&p->tx_mutex);

	/* The cells are visible before the index that covers them. */
	wmb();
	iowrite32(p->tx_widx, &p->tx_hdr->widx);
	/* And the index before the doorbell (WC writes may linger). */
	wmb();
	scif_ntb_ring_peer(p);
}

/* Ask the peer for a doorbell once it has consumed from its ring. */
static void scif_ntb_tx_want(struct scif_ntb_peer *p)
{
	lockdep_assert_held(&p->tx_mutex);

	iowrite32(++p->want_seq, &p->tx_hdr->want);
	/* The request reaches the peer before its doorbell. */
	wmb();
	scif_ntb_ring_peer(p);
}

static struct scif_ntb_queued *scif_ntb_backlog_head(struct scif_ntb_peer *p)
{
	struct scif_ntb_queued *q;

	spin_lock(&p->backlog_lock);
	q = list_first_entry_or_null(&p->backlog, struct scif_ntb_queued,
				     list);
	spin_unlock(&p->backlog_lock);
	return q;
}

/*
 * Write out as much of the backlog as fits, oldest first. Only tx_mutex
 * holders remove entries, so the head stays valid while it is written.
 * Sets *@wrote when a record was written. Return: 0 when the backlog is
 * empty, -EAGAIN when it is not, -EPROTO for an impossible read index.
 */
static int scif_ntb_backlog_put(struct scif_ntb_peer *p, bool *wrote)
{
	struct scif_ntb_queued *q;
	bool resume;
	int fits;

	lockdep_assert_held(&p->tx_mutex);

	while ((q = scif_ntb_backlog_head(p))) {
		fits = scif_ntb_tx_fits(p, q->cells);
		if (fits <= 0)
			return fits ? fits : -EAGAIN;
		scif_ntb_tx_put(p, &q->msg, q->data, q->len);
		*wrote = true;
		spin_lock(&p->backlog_lock);
		list_del(&q->list);
		resume = p->backlog_cells > p->tx_cells &&
			 p->backlog_cells - q->cells <= p->tx_cells;
		WRITE_ONCE(p->backlog_cells, p->backlog_cells - q->cells);
		p->backlog_moved = jiffies;
		spin_unlock(&p->backlog_lock);
		kfree(q);
		/* A drain that stopped for the backlog may go on. */
		if (resume)
			scif_ntb_kick(p);
	}
	return 0;
}

/* Queue a message behind the backlog; any context that may sleep. */
static int scif_ntb_backlog_add(struct scif_ntb_peer *p,
				const struct scif_wire_msg *msg,
				const void *data, size_t len)
{
	struct scif_ntb_queued *q;

	/*
	 * On behalf of the peer: nobody to charge. Queued because the ring
	 * is full, the message must still not be lost for want of memory
	 * (see scif_link_queue_send()); it is at most a chunk.
	 */
	q = kmalloc(struct_size(q, data, len), GFP_KERNEL | __GFP_NOFAIL);
	q->cells = scif_ntb_cells(len);
	q->len = len;
	q->msg = *msg;
	memcpy(q->data, data, len);
	spin_lock(&p->backlog_lock);
	if (list_empty(&p->backlog))
		p->backlog_moved = jiffies;
	list_add_tail(&q->list, &p->backlog);
	WRITE_ONCE(p->backlog_cells, p->backlog_cells + q->cells);
	spin_unlock(&p->backlog_lock);
	if (!READ_ONCE(p->dead))
		queue_delayed_work(p->nd->wq, &p->backlog_work,
				   msecs_to_jiffies(SCIF_NTB_TX_RETRY_MS));
	return 0;
}

/* Whether the calling task is draining one of the device's rings. */
static bool scif_ntb_in_drain(struct scif_ntb_dev *nd)
{
	int i;

	for (i = 0; i < nd->npeers; i++)
		if (READ_ONCE(nd->peers[i].rx_task) == current)
			return true;
	return false;
}

/*
 * Send from a drain: never wait. Written at once when tx_mutex is free,
 * nothing is queued and there is room; queued otherwise (a sender holding
 * tx_mutex writes the backlog out before its own message).
 */
static int scif_ntb_send_nowait(struct scif_ntb_peer *p,
				const struct scif_wire_msg *msg,
				const void *data, size_t len)
{
	bool wrote = false;
	int ret;

	/*
	 * A session that ended has purged its backlog
	 * (scif_ntb_backlog_purge()): nothing may join it any more.
	 */
	if (READ_ONCE(p->dead))
		return -ENODEV;
	if (!mutex_trylock(&p->tx_mutex))
		return scif_ntb_backlog_add(p, msg, data, len);
	ret = -ENODEV;
	if (READ_ONCE(p->dead))
		goto out;
	ret = scif_ntb_backlog_put(p, &wrote);
	if (!ret)
		ret = scif_ntb_tx_fits(p, scif_ntb_cells(len));
	if (ret == -EPROTO) {
		scif_ntb_peer_broken(p, "read index out of range");
		ret = -ENODEV;
	} else if (ret > 0) {
		scif_ntb_tx_put(p, msg, data, len);
		wrote = true;
		ret = 0;
	} else {
		ret = scif_ntb_backlog_add(p, msg, data, len);
		if (!ret)
			scif_ntb_tx_want(p);
	}
out:
	if (wrote)
		scif_ntb_tx_commit(p);
	mutex_unlock(&p->tx_mutex);
	return ret;
}

static bool scif_ntb_tx_ready(struct scif_ntb_peer *p, u32 cells)
{
	return READ_ONCE(p->dead) || scif_ntb_tx_fits(p, cells);
}

static int scif_ntb_send(struct scif_link *link,
			 const struct scif_wire_msg *msg, const void *data,
			 size_t len)
{
	struct scif_ntb_peer *p = link->priv;
	u32 cells = scif_ntb_cells(len), room = 0;
	struct scif_ntb_queued *q;
	unsigned long deadline;
	bool wrote = false;
	int ret;

	if (scif_ntb_in_drain(p->nd)) {
		ret = scif_ntb_send_nowait(p, msg, data, len);
		goto sent;
	}
	deadline = jiffies + msecs_to_jiffies(scif_ntb_send_timeout_ms);
	mutex_lock(&p->tx_mutex);
	for (;;) {
		ret = -ENODEV;
		if (READ_ONCE(p->dead))
			break;
		ret = scif_ntb_backlog_put(p, &wrote);
		if (!ret)
			ret = scif_ntb_tx_fits(p, cells);
		if (ret == -EPROTO) {
			scif_ntb_peer_broken(p, "read index out of range");
			ret = -ENODEV;
			break;
		}
		if (ret > 0) {
			scif_ntb_tx_put(p, msg, data, len);
			wrote = true;
			ret = 0;
			break;
		}
		if (time_after(jiffies, deadline)) {
			/*
			 * The peer stopped draining its ring: declare it
			 * lost rather than fail this message alone and
			 * leave its connection half-closed.
			 */
			scif_ntb_peer_broken(p, "peer stopped draining its ring");
			ret = -ENODEV;
			break;
		}
		if (wrote) {
			scif_ntb_tx_commit(p);
			wrote = false;
		}
		q = scif_ntb_backlog_head(p);
		scif_ntb_tx_room(p, &room);
		trace_scif_ntb_tx_wait(p->node, q ? q->cells : cells, room);
		scif_ntb_tx_want(p);
		wait_event_timeout(p->tx_wq,
				   scif_ntb_tx_ready(p, q ? q->cells : cells),
				   msecs_to_jiffies(SCIF_NTB_TX_RETRY_MS));
	}
	if (wrote)
		scif_ntb_tx_commit(p);
	mutex_unlock(&p->tx_mutex);
	/* A drain may have queued behind us after our last look. */
	scif_ntb_backlog_flush(p);
sent:
	return ret;
}

const struct scif_link_ops scif_ntb_link_ops = {
	.send = scif_ntb_send,
	.poll = scif_ntb_rx_poll,
	.busy_poll = scif_ntb_busy_poll,
};

/**
 * scif_ntb_backlog_flush() - write out what the backlog can, without waiting
 * @p: the peer; any context that may sleep, drains included
 *
 * Does nothing when another sender holds tx_mutex: that sender writes the
 * backlog out before its own message.
 */
void scif_ntb_backlog_flush(struct scif_ntb_peer *p)
{
	bool wrote = false;

	if (list_empty_careful(&p->backlog) || !mutex_trylock(&p->tx_mutex))
		return;
	if (!READ_ONCE(p->dead) &&
	    scif_ntb_backlog_put(p, &wrote) == -EPROTO)
		scif_ntb_peer_broken(p, "read index out of range");
	if (wrote)
		scif_ntb_tx_commit(p);
	mutex_unlock(&p->tx_mutex);
}

/**
 * scif_ntb_backlog_work() - retry the backlog while it holds messages
 * @work: &scif_ntb_peer.backlog_work
 *
 * Declares the peer lost when the backlog has not moved for
 * send_timeout_ms.
 */
void scif_ntb_backlog_work(struct work_struct *work)
{
	struct scif_ntb_peer *p = container_of(to_delayed_work(work),
					       struct scif_ntb_peer,
					       backlog_work);
	bool wrote = false;
	int ret;

	mutex_lock(&p->tx_mutex);
	if (READ_ONCE(p->dead))
		goto out;
	ret = scif_ntb_backlog_put(p, &wrote);
	if (ret == -EPROTO) {
		scif_ntb_peer_broken(p, "read index out of range");
	} else if (ret &&
		   time_after(jiffies, p->backlog_moved +
			      msecs_to_jiffies(scif_ntb_send_timeout_ms))) {
		scif_ntb_peer_broken(p, "peer stopped draining its ring");
	} else if (ret) {
		scif_ntb_tx_want(p);
		queue_delayed_work(p->nd->wq, &p->backlog_work,
				   msecs_to_jiffies(SCIF_NTB_TX_RETRY_MS));
	}
out:
	if (wrote)
		scif_ntb_tx_commit(p);
	mutex_unlock(&p->tx_mutex);
}

/**
 * scif_ntb_backlog_purge() - drop the backlog of a session that ended
 * @p: the peer; marked dead, and @p->backlog_work no longer runs
 */
void scif_ntb_backlog_purge(struct scif_ntb_peer *p)
{
	struct scif_ntb_queued *q, *n;
	LIST_HEAD(gone);

	mutex_lock(&p->tx_mutex);
	spin_lock(&p->backlog_lock);
	list_splice_init(&p->backlog, &gone);
	WRITE_ONCE(p->backlog_cells, 0);
	spin_unlock(&p->backlog_lock);
	mutex_unlock(&p->tx_mutex);
	list_for_each_entry_safe(q, n, &gone, list)
		kfree(q);
}
