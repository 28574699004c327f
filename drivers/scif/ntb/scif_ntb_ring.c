// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF over NTB: the message rings, and the reader's side of ours
 * (scif_ntb_tx.c writes into the peer's).
 *
 * A ring is an array of 64-byte cells in the receiver's memory. A record is
 * one wire message (one cell) followed by its data, rounded up to whole
 * cells; a record never wraps: when it does not fit before the end of the
 * ring, the sender fills the rest with a pad cell and starts again at cell
 * 0. The sender writes cells and then the write index, both through its
 * window (posted writes), and rings the doorbell. The receiver hands each
 * record to the core in place, then writes its read index back into the
 * sender's memory.
 *
 * Our ring is drained by the receive work after a doorbell, or, when a
 * task of the core is waiting for this peer (a reader for data, a sender
 * for credit, see scif_node_wait()), by that task: the doorbell wakes it
 * and it drains the ring itself, one switch less than through the work.
 * The work follows a little later in case that task does not get to run.
 *
 * Everything the receiver reads was written by the peer: the write index,
 * the pad marker and each record's length are checked against the ring
 * before use; a value that cannot be right means the ring cannot be
 * followed any more, and the link is reset. The contents of a record are
 * the core's business (scif_node_rx_parts() checks every field).
 */
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sched.h>

#include "../core/scif_wire.h"
#include "scif_ntb.h"
#include "scif_ntb_trace.h"

/* How long a doorbell is left to a waiting task before the work drains. */
#define SCIF_NTB_RX_LATE_MS	2

static struct scif_ntb_region_hdr *scif_ntb_rx_hdr(struct scif_ntb_peer *p)
{
	return p->region;
}

/**
 * scif_ntb_ring_reset() - empty our ring for a new session with the peer
 * @p: the peer; its handshake lock is held and neither receive work runs
 */
void scif_ntb_ring_reset(struct scif_ntb_peer *p)
{
	lockdep_assert_held(&p->lock);

	memset(p->region, 0, SCIF_NTB_HDR_SIZE);
	p->rx_ridx = 0;
	p->want_seen = 0;
}

/**
 * scif_ntb_ring_peer() - ring the peer's doorbell, if it listens to one
 * @p: the peer
 */
void scif_ntb_ring_peer(struct scif_ntb_peer *p)
{
	if (p->db_peer) {
		trace_scif_ntb_doorbell(p->node);
		ntb_peer_db_set(p->nd->ntb, p->db_peer);
	}
}

/**
 * scif_ntb_kick() - have the peer's ring drained soon
 * @p: the peer; any context
 */
void scif_ntb_kick(struct scif_ntb_peer *p)
{
	if (READ_ONCE(p->state) == SCIF_NTB_UP && !READ_ONCE(p->dead))
		queue_work(READ_ONCE(scif_ntb_rx_local) ? p->nd->local_wq :
			   p->nd->wq, &p->rx_work);
}

/* Answer the peer's request for room, once per request. */
static void scif_ntb_answer_want(struct scif_ntb_peer *p)
{
	u32 want = le32_to_cpu(READ_ONCE(scif_ntb_rx_hdr(p)->want));

	lockdep_assert_held(&p->rx_mutex);
	if (want != p->want_seen) {
		p->want_seen = want;
		/* Our read index writes land before the doorbell. */
		wmb();
		scif_ntb_ring_peer(p);
	}
}

/*
 * Hand the records between rx_ridx and the peer's write index to the core,
 * until at least @budget cells are consumed.
 * Return: the number of cells consumed, or -EPROTO if the ring holds
 * something impossible.
 */
static int scif_ntb_drain(struct scif_ntb_peer *p, u32 budget)
{
	struct scif_ntb_region_hdr *hdr = scif_ntb_rx_hdr(p);
	u8 *ring = (u8 *)p->region + SCIF_NTB_HDR_SIZE;
	u32 widx, avail, off, contig, n;
	const struct scif_wire_msg *wmsg;
	const u8 *cell;
	u32 done = 0;
	u16 len;

	lockdep_assert_held(&p->rx_mutex);
	for (;;) {
		widx = le32_to_cpu(READ_ONCE(hdr->widx));
		avail = widx - p->rx_ridx;
		if (!avail)
			return done;
		if (avail > p->rx_cells)
			return -EPROTO;
		/* Read the cells only after the index that covers them. */
		rmb();
		while (avail) {
			if (done >= budget)
				return done;
			/* Answers we cannot send yet: take no more requests. */
			if (READ_ONCE(p->backlog_cells) > p->tx_cells)
				return done;
			off = p->rx_ridx & (p->rx_cells - 1);
			contig = p->rx_cells - off;
			cell = ring + off * SCIF_NTB_CELL;
			if (READ_ONCE(cell[0]) == SCIF_NTB_PAD) {
				n = contig;
				if (n > avail)
					return -EPROTO;
			} else {
				wmsg = (const struct scif_wire_msg *)cell;
				len = le16_to_cpu(READ_ONCE(wmsg->len));
				n = scif_ntb_cells(len);
				if (len > p->link.max_data || n > avail ||
				    n > contig)
					return -EPROTO;
				scif_node_rx_parts(p->nd->si, p->node, cell,
						   SCIF_NTB_CELL,
						   cell + SCIF_NTB_CELL, len);
			}
			p->rx_ridx += n;
			avail -= n;
			done += n;
			iowrite32(p->rx_ridx, &p->tx_hdr->ridx);
			/*
			 * A sender waiting for room refills the ring while we
			 * go on draining it, rather than after.
			 */
			scif_ntb_answer_want(p);
			if (READ_ONCE(p->dead))
				return done;
			cond_resched();
		}
	}
}

static bool scif_ntb_rx_live(struct scif_ntb_peer *p)
{
	return READ_ONCE(p->state) == SCIF_NTB_UP && !READ_ONCE(p->dead);
}

/*
 * One pass over our ring: wake our senders to that peer and write out our
 * backlog (the peer may have consumed, which it tells with a doorbell),
 * hand records to the core and answer the peer's request for room.
 * Returns the cells consumed, or -EPROTO after reporting a broken ring.
 */
static int scif_ntb_rx_locked(struct scif_ntb_peer *p, u32 budget)
{
	int got;

	lockdep_assert_held(&p->rx_mutex);
	WRITE_ONCE(p->rx_task, current);
	if (wq_has_sleeper(&p->tx_wq))
		wake_up(&p->tx_wq);
	/* The peer may have made room for what we could not send. */
	scif_ntb_backlog_flush(p);
	got = scif_ntb_drain(p, budget);
	if (got < 0)
		scif_ntb_peer_broken(p, "ring index or record out of range");
	else
		scif_ntb_answer_want(p);
	WRITE_ONCE(p->rx_task, NULL);
	return got;
}

/*
 * Drain our ring, unless another task is draining it: then leave it a
 * note, and it makes one more pass before it lets go of rx_mutex. So
 * what arrived before this call is taken in by one of the two, and no
 * drain ever waits for another. A pass stops after @budget cells; the
 * rest is left to the receive work. Returns the cells consumed here, or
 * -EPROTO.
 */
static int scif_ntb_rx_try(struct scif_ntb_peer *p, u32 budget)
{
	int got = 0, n = 0;

	set_bit(0, &p->rx_again);
	/* Note first, then look at the mutex: pairs with the barrier below. */
	smp_mb__after_atomic();
	while (test_bit(0, &p->rx_again) && mutex_trylock(&p->rx_mutex)) {
		clear_bit(0, &p->rx_again);
		/* Records written before the note are seen by this pass. */
		smp_mb__after_atomic();
		n = scif_ntb_rx_live(p) ? scif_ntb_rx_locked(p, budget) : 0;
		mutex_unlock(&p->rx_mutex);
		/* Let go, then look for a note left meanwhile. */
		smp_mb();
		if (n < 0)
			return n;
		got += n;
		if ((u32)n >= budget) {
			scif_ntb_kick(p);
			break;
		}
	}
	if (got)
		trace_scif_ntb_drain(p->node, got);
	return got;
}

/**
 * scif_ntb_rx_poll() - &scif_link_ops.poll: drain our ring in this task
 * @link: &scif_ntb_peer.link
 *
 * At most one ring's worth per call: a task of the core that waits for
 * one message does not keep draining a peer that keeps sending.
 *
 * Return: the cells consumed, 0 if none (or another task is draining),
 * or -EPROTO.
 */
int scif_ntb_rx_poll(struct scif_link *link)
{
	struct scif_ntb_peer *p = link->priv;

	return scif_ntb_rx_try(p, p->rx_cells);
}

/**
 * scif_ntb_busy_poll() - &scif_link_ops.busy_poll: the module parameter
 * @link: &scif_ntb_peer.link
 *
 * Return: busy_poll_us, how long a task about to wait for the peer polls
 * our ring before it sleeps.
 */
unsigned int scif_ntb_busy_poll(struct scif_link *link)
{
	return READ_ONCE(scif_ntb_busy_poll_us);
}

/**
 * scif_ntb_doorbell_rx() - our doorbell rang: have the ring drained
 * @p: the peer; hard interrupt context
 *
 * Senders waiting for room in the peer's ring are woken first: the doorbell
 * may be the peer's answer to their request. A task waiting for the peer
 * on &scif_link.rx_wait is woken to drain our ring;
 * the receive work follows a little later in case that task does not run
 * soon (a busy CPU, a low priority). Without such a task, or with the
 * module parameter rx_waiter off, the receive work drains it now.
 */
void scif_ntb_doorbell_rx(struct scif_ntb_peer *p)
{
	/* It may be the peer making room for a sender waiting for it. */
	if (wq_has_sleeper(&p->tx_wq))
		wake_up(&p->tx_wq);
	if (!READ_ONCE(scif_ntb_rx_waiter) ||
	    !wq_has_sleeper(&p->link.rx_wait)) {
		scif_ntb_kick(p);
		return;
	}
	wake_up(&p->link.rx_wait);
	if (scif_ntb_rx_live(p))
		queue_delayed_work(p->nd->wq, &p->rx_late,
				   msecs_to_jiffies(SCIF_NTB_RX_LATE_MS));
}

/**
 * scif_ntb_rx_work() - drain our ring from one peer after a doorbell
 * @work: &scif_ntb_peer.rx_work
 *
 * Switching rx_local at run time may leave an instance queued on each
 * workqueue: their passes never overlap (scif_ntb_rx_try()).
 */
void scif_ntb_rx_work(struct work_struct *work)
{
	struct scif_ntb_peer *p = container_of(work, struct scif_ntb_peer,
					       rx_work);

	trace_scif_ntb_rx_work(p->node);
	if (scif_ntb_rx_live(p))
		scif_ntb_rx_try(p, U32_MAX);
}

/**
 * scif_ntb_rx_late() - drain our ring after a doorbell left to a task
 * @work: &scif_ntb_peer.rx_late
 */
void scif_ntb_rx_late(struct work_struct *work)
{
	struct scif_ntb_peer *p = container_of(to_delayed_work(work),
					       struct scif_ntb_peer, rx_late);

	if (scif_ntb_rx_live(p))
		scif_ntb_rx_try(p, U32_MAX);
}
