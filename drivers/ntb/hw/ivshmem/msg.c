// SPDX-License-Identifier: GPL-2.0
/*
 * Message registers of the emulated NTB (profile=idt), as ntb_hw_idt
 * gives them: IVN_MAX_MSG inbound and outbound 32-bit registers; one
 * status register with a failure bit per outbound register (bits 0..3)
 * and a full bit per inbound register (bits 16..19); a mask over the
 * status; ntb_msg_event() when unmasked status bits appear in a status
 * that had none. ntb_peer_msg_write() always returns 0: a write into a
 * peer's register that still holds a message is lost and sets the
 * failure bit of that outbound register, which the client checks.
 *
 * In the register region no word has two writers, so the inbound
 * registers of node d are built from one lane per sender s: s writes
 * data, then a new seq, into msg_out[d][m] of its own slot; d consumed
 * the message once its msg_ack[s][m] equals that seq. d presents the
 * lanes of one sender at a time (msg_src), so that ntb_msg_read() of
 * every register names the same peer; the next sender with pending
 * messages is taken, round robin, once the client cleared every inbound
 * status bit. A write fails if the writer's own previous message in that
 * register is not consumed, or if d presents another sender whose message
 * fills the register. A write that races with d's choice of sender is
 * delivered after that sender's messages instead of failing: no message
 * is ever lost without a failure bit. Restarting discards messages in
 * flight to and from the restarting node, like a reset of the NT function.
 */
#include <linux/io.h>

#include "ntb_ivshmem.h"

#define IVN_MSG_IN(m)	BIT(IVN_MSG_IN_SHIFT + (m))

static int ivn_msgs(struct ivn_dev *ivn)
{
	return ivn->prof->msgs;
}

static u32 ivn_msg_all(struct ivn_dev *ivn)
{
	u32 regs = GENMASK(ivn_msgs(ivn) - 1, 0);

	return ivn_msgs(ivn) ? regs | regs << IVN_MSG_IN_SHIFT : 0;
}

/* Inbound register bits with a message of peer @pidx not consumed. */
static u32 ivn_msg_pending(struct ivn_dev *ivn, int pidx)
{
	struct ivn_peer *peer = &ivn->peers[pidx];
	u32 bits = 0, seq;
	int m;

	if (!ioread32(peer->slot + IVN_SL_INCARNATION))
		return 0;
	for (m = 0; m < ivn_msgs(ivn); m++) {
		seq = ioread32(peer->slot + IVN_SL_MSG_OUT(ivn->self, m) +
			       IVN_MO_SEQ);
		if (seq != ioread32(ivn->slot + IVN_SL_MSG_ACK(peer->port, m)))
			bits |= IVN_MSG_IN(m);
	}
	return bits;
}

/*
 * Present the next sender's messages if none is presented, refresh the
 * inbound bits and publish them. Returns true when unmasked status bits
 * appeared in a status that had none: the caller signals ntb_msg_event().
 */
static bool ivn_msg_update(struct ivn_dev *ivn)
{
	u32 before = ivn->msg_sts & ~ivn->msg_mask;
	int i, pidx;

	lockdep_assert_held(&ivn->msg_lock);

	if (ivn->msg_src < 0) {
		for (i = 1; i <= ivn->npeers; i++) {
			pidx = (ivn->msg_rr + i) % ivn->npeers;
			if (ivn_msg_pending(ivn, pidx)) {
				ivn->msg_src = pidx;
				ivn->msg_rr = pidx;
				break;
			}
		}
	}
	if (ivn->msg_src >= 0)
		ivn->msg_sts |= ivn_msg_pending(ivn, ivn->msg_src);
	iowrite32(ivn->msg_src < 0 ? 0 : ivn->peers[ivn->msg_src].port + 1,
		  ivn->slot + IVN_SL_MSG_SRC);
	iowrite32(ivn->msg_sts & GENMASK(31, IVN_MSG_IN_SHIFT),
		  ivn->slot + IVN_SL_MSG_IN);
	return !before && (ivn->msg_sts & ~ivn->msg_mask);
}

/**
 * ivn_msg_init() - start of an incarnation: nothing in flight
 * @ivn: this port; its peers are known, its slot is not yet published
 */
void ivn_msg_init(struct ivn_dev *ivn)
{
	int pidx, m;

	spin_lock_init(&ivn->msg_lock);
	ivn->msg_src = -1;
	ivn->msg_sts = 0;
	ivn->msg_mask = 0;
	ivn->msg_rr = 0;
	iowrite32(0, ivn->slot + IVN_SL_MSG_SRC);
	iowrite32(0, ivn->slot + IVN_SL_MSG_IN);
	for (pidx = 0; pidx < ivn->npeers; pidx++) {
		struct ivn_peer *peer = &ivn->peers[pidx];
		bool up = ioread32(peer->slot + IVN_SL_INCARNATION);

		for (m = 0; m < IVN_MAX_MSG; m++) {
			u32 *seq = &ivn->msg_seq[peer->port][m];

			/* what the peer consumed: nothing of ours pending */
			*seq = up ? ioread32(peer->slot +
					     IVN_SL_MSG_ACK(ivn->self, m)) : 0;
			iowrite32(*seq, ivn->slot +
				  IVN_SL_MSG_OUT(peer->port, m) + IVN_MO_SEQ);
			/* and what the peer sent before is dropped */
			iowrite32(up ? ioread32(peer->slot +
						IVN_SL_MSG_OUT(ivn->self, m) +
						IVN_MO_SEQ) : 0,
				  ivn->slot + IVN_SL_MSG_ACK(peer->port, m));
		}
	}
}

/**
 * ivn_msg_poll() - look for messages (the doorbell poll, hard irq context)
 * @ivn: this port
 */
void ivn_msg_poll(struct ivn_dev *ivn)
{
	unsigned long flags;
	bool event;

	if (!ivn_msgs(ivn))
		return;
	spin_lock_irqsave(&ivn->msg_lock, flags);
	event = ivn_msg_update(ivn);
	spin_unlock_irqrestore(&ivn->msg_lock, flags);
	if (event)
		ntb_msg_event(&ivn->ntb);
}

int ivn_msg_count(struct ntb_dev *ntb)
{
	return ivn_msgs(ntb_to_ivn(ntb));
}

u64 ivn_msg_inbits(struct ntb_dev *ntb)
{
	return ivn_msg_all(ntb_to_ivn(ntb)) & GENMASK(31, IVN_MSG_IN_SHIFT);
}

u64 ivn_msg_outbits(struct ntb_dev *ntb)
{
	return ivn_msg_all(ntb_to_ivn(ntb)) & GENMASK(IVN_MSG_IN_SHIFT - 1, 0);
}

u64 ivn_msg_read_sts(struct ntb_dev *ntb)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;
	u32 sts;

	spin_lock_irqsave(&ivn->msg_lock, flags);
	ivn_msg_update(ivn);
	sts = ivn->msg_sts;
	spin_unlock_irqrestore(&ivn->msg_lock, flags);
	return sts;
}

/* Write-one-to-clear; invalid bits are ignored, as on IDT. */
int ivn_msg_clear_sts(struct ntb_dev *ntb, u64 sts_bits)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	struct ivn_peer *src;
	u32 bits;
	unsigned long flags;
	bool event;
	int m;

	spin_lock_irqsave(&ivn->msg_lock, flags);
	bits = sts_bits & ivn->msg_sts;
	if (ivn->msg_src >= 0) {
		src = &ivn->peers[ivn->msg_src];
		for (m = 0; m < ivn_msgs(ivn); m++) {
			if (!(bits & IVN_MSG_IN(m)))
				continue;
			/* the seq presented: the sender waits for this ack */
			iowrite32(ioread32(src->slot +
					   IVN_SL_MSG_OUT(ivn->self, m) +
					   IVN_MO_SEQ),
				  ivn->slot + IVN_SL_MSG_ACK(src->port, m));
		}
	}
	ivn->msg_sts &= ~bits;
	if (!(ivn->msg_sts & GENMASK(31, IVN_MSG_IN_SHIFT)))
		ivn->msg_src = -1;
	event = ivn_msg_update(ivn);
	spin_unlock_irqrestore(&ivn->msg_lock, flags);
	if (event)
		ntb_msg_event(ntb);
	return 0;
}

int ivn_msg_set_mask(struct ntb_dev *ntb, u64 mask_bits)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;

	if (mask_bits & ~(u64)ivn_msg_all(ivn))
		return -EINVAL;
	spin_lock_irqsave(&ivn->msg_lock, flags);
	ivn->msg_mask |= mask_bits;
	spin_unlock_irqrestore(&ivn->msg_lock, flags);
	return 0;
}

int ivn_msg_clear_mask(struct ntb_dev *ntb, u64 mask_bits)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;
	bool event;

	spin_lock_irqsave(&ivn->msg_lock, flags);
	/* unmasking pending bits of a status that showed none interrupts */
	event = !(ivn->msg_sts & ~ivn->msg_mask);
	ivn->msg_mask &= ~mask_bits;
	event = event && (ivn->msg_sts & ~ivn->msg_mask);
	spin_unlock_irqrestore(&ivn->msg_lock, flags);
	if (event)
		ntb_msg_event(ntb);
	return 0;
}

u32 ivn_msg_read(struct ntb_dev *ntb, int *pidx, int midx)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;
	u32 data = 0;
	int src;

	if (midx < 0 || midx >= ivn_msgs(ivn))
		return ~(u32)0;
	spin_lock_irqsave(&ivn->msg_lock, flags);
	src = ivn->msg_src;
	if (src >= 0)
		data = ioread32(ivn->peers[src].slot +
				IVN_SL_MSG_OUT(ivn->self, midx) + IVN_MO_DATA);
	spin_unlock_irqrestore(&ivn->msg_lock, flags);
	/* as ntb_hw_idt before any message: port index 0 */
	if (pidx)
		*pidx = src < 0 ? 0 : src;
	return data;
}

/* Does node @peer's register @m hold a message it cannot take ours over? */
static bool ivn_msg_full(struct ivn_dev *ivn, struct ivn_peer *peer, int m)
{
	u32 src = ioread32(peer->slot + IVN_SL_MSG_SRC);

	if (ivn->msg_seq[peer->port][m] !=
	    ioread32(peer->slot + IVN_SL_MSG_ACK(ivn->self, m)))
		return true;
	return src && src != ivn->self + 1 &&
	       (ioread32(peer->slot + IVN_SL_MSG_IN) & IVN_MSG_IN(m));
}

int ivn_peer_msg_write(struct ntb_dev *ntb, int pidx, int midx, u32 msg)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	struct ivn_peer *peer;
	void __iomem *lane;
	unsigned long flags;
	bool event = false;

	if (midx < 0 || midx >= ivn_msgs(ivn) || pidx < 0 ||
	    pidx >= ivn->npeers)
		return -EINVAL;
	peer = &ivn->peers[pidx];
	lane = ivn->slot + IVN_SL_MSG_OUT(peer->port, midx);
	spin_lock_irqsave(&ivn->msg_lock, flags);
	if (ivn_msg_full(ivn, peer, midx)) {
		ivn->msg_sts |= BIT(midx);
		event = ivn_msg_update(ivn);
	} else {
		iowrite32(msg, lane + IVN_MO_DATA);
		/* the data is visible before the seq that announces it */
		wmb();
		iowrite32(++ivn->msg_seq[peer->port][midx], lane + IVN_MO_SEQ);
	}
	spin_unlock_irqrestore(&ivn->msg_lock, flags);
	if (event)
		ntb_msg_event(ntb);
	return 0;
}
