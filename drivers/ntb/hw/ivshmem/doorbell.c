// SPDX-License-Identifier: GPL-2.0
/*
 * Emulated NTB doorbells, delivered by polling the register region.
 *
 * Ringing bit b towards the peers increments this guest's db_cnt[b] word
 * and then its db_seq word; only this guest writes them. A peer polls the
 * db_seq words of all guests and, when one moved, compares every db_cnt[b]
 * with the count it already consumed: a difference sets b in its inbound
 * doorbell register. Rings are therefore broadcast to every peer, as with
 * the global doorbells of a multi-port switch; a client addresses one peer
 * by the bits that peer leaves unmasked (ntb_pingpong uses BIT(port)).
 *
 * Interrupts are edge-like: ntb_db_event() is called when a bit becomes
 * pending and unmasked, and again when a client unmasks a pending bit.
 * The poll runs from an hrtimer (hard interrupt context, like an MSI
 * handler); its interval shrinks to ivn_poll_min_us on activity and grows
 * back to ivn_poll_max_us when idle.
 */
#include <linux/ktime.h>
#include <linux/module.h>

#include "ntb_ivshmem.h"

static unsigned int ivn_poll_min_us = 20;
module_param_named(poll_min_us, ivn_poll_min_us, uint, 0644);
MODULE_PARM_DESC(poll_min_us, "Doorbell poll interval while busy (us)");

static unsigned int ivn_poll_max_us = 1000;
module_param_named(poll_max_us, ivn_poll_max_us, uint, 0644);
MODULE_PARM_DESC(poll_max_us, "Doorbell poll interval when idle (us)");

static unsigned int ivn_poll_hold_us = 20000;
module_param_named(poll_hold_us, ivn_poll_hold_us, uint, 0644);
MODULE_PARM_DESC(poll_hold_us,
		 "Keep polling fast this long after the last activity (us)");

static u64 ivn_poll_min_ns(void)
{
	return (u64)max(READ_ONCE(ivn_poll_min_us), 1U) * NSEC_PER_USEC;
}

static u64 ivn_poll_max_ns(void)
{
	return max((u64)READ_ONCE(ivn_poll_max_us) * NSEC_PER_USEC,
		   ivn_poll_min_ns());
}

/* Forget a peer's counters: it restarted, its counts begin again at 0. */
static void ivn_db_reset_peer(struct ivn_peer *peer, u32 inc)
{
	peer->inc = inc;
	peer->db_seq = 0;
	memset(peer->db_seen, 0, sizeof(peer->db_seen));
}

/*
 * Collect new rings from every peer into db_pending. Caller holds db_lock.
 *
 * A restarting peer writes incarnation 0, then clears its counters, then
 * writes its new incarnation; reading the incarnation before and after the
 * counters (like a seqcount) discards a scan that raced with that.
 *
 * Rings of a peer whose link is not up here (@link_up, by pidx) stay in its
 * counters until it is: each side sees the link come up at its own next
 * look at the heartbeats, and a client that rings as soon as it sees the
 * link must not have its ring delivered to a peer client that still
 * believes the link down (ntb_perf drops a command so). The link work
 * kicks the poll when a link comes up.
 */
static bool ivn_db_scan(struct ivn_dev *ivn, u64 link_up)
{
	bool busy = false;
	int i, b;

	for (i = 0; i < ivn->npeers; i++) {
		struct ivn_peer *peer = &ivn->peers[i];
		u32 inc, seq, cnt[IVN_DB_BITS];
		u64 bits = 0;

		inc = ioread32(peer->slot + IVN_SL_INCARNATION);
		if (inc != peer->inc)
			ivn_db_reset_peer(peer, inc);
		if (!inc || !(link_up & BIT_ULL(i)))
			continue;
		/* pairs with the wmb() in ivn_slot_start() */
		rmb();
		seq = ioread32(peer->slot + IVN_SL_DB_SEQ);
		if (seq == peer->db_seq)
			continue;
		/* counters were written before the sequence number */
		rmb();
		for (b = 0; b < IVN_DB_BITS; b++) {
			cnt[b] = ioread32(peer->slot + IVN_SL_DB_CNT(b));
			if (cnt[b] != peer->db_seen[b])
				bits |= BIT_ULL(b);
		}
		/* re-read the incarnation after the counters */
		rmb();
		if (ioread32(peer->slot + IVN_SL_INCARNATION) != inc)
			continue;	/* restarting: next scan resets */
		peer->db_seq = seq;
		memcpy(peer->db_seen, cnt, sizeof(cnt));
		ivn->db_pending |= bits;
		busy = true;
	}
	return busy;
}

/* Announce bits that became pending and unmasked; any context. */
static void ivn_db_deliver(struct ivn_dev *ivn)
{
	unsigned long flags;
	u64 fresh;

	spin_lock_irqsave(&ivn->db_lock, flags);
	fresh = ivn->db_pending & ~ivn->db_mask & ~ivn->db_fired;
	ivn->db_fired |= fresh;
	spin_unlock_irqrestore(&ivn->db_lock, flags);

	if (fresh)
		ntb_db_event(&ivn->ntb, 0);
}

static enum hrtimer_restart ivn_poll_fn(struct hrtimer *timer)
{
	struct ivn_dev *ivn = container_of(timer, struct ivn_dev, poll_timer);
	unsigned long flags;
	u64 link_up;
	ktime_t now;
	bool busy;

	link_up = ivn_link_mask(ivn);
	spin_lock_irqsave(&ivn->db_lock, flags);
	busy = ivn_db_scan(ivn, link_up);
	spin_unlock_irqrestore(&ivn->db_lock, flags);

	ivn_db_deliver(ivn);
	ivn_msg_poll(ivn);

	now = ktime_get();
	spin_lock_irqsave(&ivn->poll_lock, flags);
	if (busy)
		ivn->last_busy = now;
	if (ktime_us_delta(now, ivn->last_busy) < READ_ONCE(ivn_poll_hold_us))
		ivn->poll_ns = ivn_poll_min_ns();
	else
		ivn->poll_ns = min(ivn->poll_ns * 2, ivn_poll_max_ns());
	hrtimer_forward(timer, now, ns_to_ktime(ivn->poll_ns));
	spin_unlock_irqrestore(&ivn->poll_lock, flags);

	return HRTIMER_RESTART;
}

/* irq_work: re-announce pending bits and poll fast from now on. */
static void ivn_kick_fn(struct irq_work *work)
{
	struct ivn_dev *ivn = container_of(work, struct ivn_dev, kick);
	unsigned long flags;

	ivn_db_deliver(ivn);

	spin_lock_irqsave(&ivn->poll_lock, flags);
	if (!ivn->stopping) {
		ivn->last_busy = ktime_get();
		ivn->poll_ns = ivn_poll_min_ns();
		/* a running callback picks the new interval up itself */
		if (hrtimer_try_to_cancel(&ivn->poll_timer) >= 0)
			hrtimer_start(&ivn->poll_timer,
				      ns_to_ktime(ivn->poll_ns),
				      HRTIMER_MODE_REL);
	}
	spin_unlock_irqrestore(&ivn->poll_lock, flags);
}

/**
 * ivn_db_kick() - re-evaluate doorbell interrupts and speed polling up
 * @ivn: the emulated port
 *
 * Safe from any context, including the poll timer and ntb_db_event().
 */
void ivn_db_kick(struct ivn_dev *ivn)
{
	irq_work_queue(&ivn->kick);
}

/**
 * ivn_db_ring() - ring doorbell bits in every peer
 * @ivn: the emulated port
 * @bits: doorbell bits, within the valid mask
 *
 * Return: 0, or -EINVAL for bits outside the valid mask.
 */
int ivn_db_ring(struct ivn_dev *ivn, u64 bits)
{
	unsigned long flags;
	int b;

	if (!bits)
		return 0;

	/* data written into peer windows lands before the doorbell */
	wmb();
	spin_lock_irqsave(&ivn->db_lock, flags);
	while (bits) {
		b = __ffs64(bits);
		bits &= bits - 1;
		iowrite32(++ivn->db_out[b], ivn->slot + IVN_SL_DB_CNT(b));
	}
	/* counters before the sequence number; pairs with ivn_db_scan() */
	wmb();
	iowrite32(++ivn->db_out_seq, ivn->slot + IVN_SL_DB_SEQ);
	spin_unlock_irqrestore(&ivn->db_lock, flags);

	/* an answer is likely: poll fast */
	ivn_db_kick(ivn);
	return 0;
}

/**
 * ivn_db_init() - set up doorbell state before the port is published
 * @ivn: the emulated port
 *
 * Clears this guest's outbound counters and takes a snapshot of every
 * peer's, so that rings from before this probe are not delivered.
 */
void ivn_db_init(struct ivn_dev *ivn)
{
	int i, b;

	spin_lock_init(&ivn->db_lock);
	spin_lock_init(&ivn->poll_lock);
	init_irq_work(&ivn->kick, ivn_kick_fn);
	hrtimer_init(&ivn->poll_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ivn->poll_timer.function = ivn_poll_fn;
	ivn->poll_ns = ivn_poll_min_ns();
	ivn->last_busy = ktime_get();

	for (b = 0; b < IVN_DB_BITS; b++)
		iowrite32(0, ivn->slot + IVN_SL_DB_CNT(b));
	iowrite32(0, ivn->slot + IVN_SL_DB_SEQ);

	for (i = 0; i < ivn->npeers; i++) {
		struct ivn_peer *peer = &ivn->peers[i];

		peer->inc = ioread32(peer->slot + IVN_SL_INCARNATION);
		peer->db_seq = ioread32(peer->slot + IVN_SL_DB_SEQ);
		/* counters written before the sequence number */
		rmb();
		for (b = 0; b < IVN_DB_BITS; b++)
			peer->db_seen[b] =
				ioread32(peer->slot + IVN_SL_DB_CNT(b));
	}
}

/**
 * ivn_db_start() - start polling; clients may have kicked it already
 * @ivn: the emulated port
 */
void ivn_db_start(struct ivn_dev *ivn)
{
	ivn_db_kick(ivn);
}

/**
 * ivn_db_stop() - stop polling; no doorbell event is delivered afterwards
 * @ivn: the emulated port
 */
void ivn_db_stop(struct ivn_dev *ivn)
{
	unsigned long flags;

	spin_lock_irqsave(&ivn->poll_lock, flags);
	ivn->stopping = true;
	spin_unlock_irqrestore(&ivn->poll_lock, flags);
	irq_work_sync(&ivn->kick);
	hrtimer_cancel(&ivn->poll_timer);
}
