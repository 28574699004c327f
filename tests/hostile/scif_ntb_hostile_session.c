// SPDX-License-Identifier: GPL-2.0
/*
 * scif_ntb_hostile: the handshake with the victim. Our words go into the
 * victim's scratchpads (on an NTB with one peer, both sides' words are at
 * scif_ntb_spad_slot() 0, see drivers/scif/ntb/scif_ntb.h) or, on an NTB
 * without enough of them, into its message registers as scif_ntb_msg.c
 * sends them. Here too: the inbound window and our region, the start of
 * each session, and the junk words that make the victim start over.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/kthread.h>

#include "scif_ntb_hostile.h"

/*
 * A junk value for our scratchpad word @idx. The victim cannot tell a
 * wrong ring address inside our window from the right one, and in direct
 * mode the window is all of our memory: a junk address or size it accepts
 * only sends the victim's records into our own kernel, which tests
 * nothing of the victim and may wreck the attacker (one in 512 random
 * low address words is a cell-aligned address inside 512 MiB of RAM).
 * Those words get values the victim must refuse:
 * an address off a cell boundary or far beyond any window, a size that
 * is no ring.
 */
u32 hs_junk(struct hs_dev *hs, int idx)
{
	u32 v = hs_rand64(hs);

	switch (idx) {
	case SCIF_NTB_SPAD_ADDR_LO:
		return v | 1;
	case SCIF_NTB_SPAD_ADDR_HI:
		return v | BIT(31);
	case SCIF_NTB_SPAD_SIZE:
		/* Odd: the ring behind the header is no power of two. */
		return v | 1;
	}
	return v;
}

/*
 * Without enough scratchpads, the words travel as scif_ntb_msg.c sends
 * them: the value in message register SCIF_NTB_MSG_DATA, then
 * SCIF_NTB_MSG_MAGIC | index in SCIF_NTB_MSG_TAG. A write into a register
 * the victim has not emptied fails (outbound status bit) and is tried
 * again.
 */

/* The status bit of message register @m among the bits of @mask. */
static u64 hs_msg_bit(u64 mask, int m)
{
	while (m--)
		mask &= mask - 1;
	return mask & -mask;
}

/*
 * Keep the victim's words that arrived whole. A lone tag is dropped, and
 * so is a value whose tag has not come within %HS_MSG_RESEND_MS: the
 * register would stay full for good (the victim resends its words).
 */
static void hs_msg_recv(struct hs_dev *hs)
{
	struct ntb_dev *ntb = hs->ntb;
	u64 in = ntb_msg_inbits(ntb);
	u64 data = hs_msg_bit(in, SCIF_NTB_MSG_DATA);
	u64 tag = hs_msg_bit(in, SCIF_NTB_MSG_TAG);
	int n, pidx;
	u32 word, val;
	u64 sts;

	for (n = 0; n < 2 * SCIF_NTB_SPADS; n++) {
		sts = ntb_msg_read_sts(ntb) & (data | tag);
		if (sts == data) {
			if (!hs->msg_lone) {
				hs->msg_lone = jiffies | 1;
			} else if (time_after(jiffies, hs->msg_lone +
					      msecs_to_jiffies(HS_MSG_RESEND_MS))) {
				ntb_msg_clear_sts(ntb, data);
				hs->msg_lone = 0;
			}
			return;
		}
		hs->msg_lone = 0;
		if (sts == tag)
			ntb_msg_clear_sts(ntb, tag);
		if (sts != (data | tag))
			return;
		word = ntb_msg_read(ntb, &pidx, SCIF_NTB_MSG_TAG);
		val = ntb_msg_read(ntb, &pidx, SCIF_NTB_MSG_DATA);
		ntb_msg_clear_sts(ntb, data | tag);
		if ((word & ~0xffu) == SCIF_NTB_MSG_MAGIC &&
		    (word & 0xff) < SCIF_NTB_SPADS)
			hs->rx[word & 0xff] = val;
	}
}

/* Write @msg into the victim's message register @midx; false if it stayed full. */
static bool hs_msg_write(struct hs_dev *hs, int midx, u32 msg)
{
	struct ntb_dev *ntb = hs->ntb;
	u64 out = ntb_msg_outbits(ntb);
	unsigned long end = jiffies + msecs_to_jiffies(HS_MSG_WAIT_MS);

	for (;;) {
		ntb_msg_clear_sts(ntb, out);
		ntb_peer_msg_write(ntb, 0, midx, msg);
		if (!(ntb_msg_read_sts(ntb) & out))
			return true;
		hs_msg_recv(hs);
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 500);
	}
}

/* Our word @idx, into the victim's scratchpads or message registers. */
void hs_put(struct hs_dev *hs, int idx, u32 val)
{
	if (!hs->use_msg) {
		ntb_peer_spad_write(hs->ntb, 0, hs->spad_out + idx, val);
		return;
	}
	hs->tx[idx] = val;
	if (hs_msg_write(hs, SCIF_NTB_MSG_DATA, val))
		hs_msg_write(hs, SCIF_NTB_MSG_TAG, SCIF_NTB_MSG_MAGIC | idx);
}

/* The victim's word @idx, from our scratchpads or as last received. */
u32 hs_get(struct hs_dev *hs, int idx)
{
	if (!hs->use_msg)
		return ntb_spad_read(hs->ntb, hs->spad_in + idx);
	hs_msg_recv(hs);
	return hs->rx[idx];
}

/*
 * While a handshake waits, send all our words again now and then, in
 * scif_ntb's order (the nonce last): a victim that restarted, or whose
 * registers were reset with a word in flight, learns them again.
 */
static void hs_msg_resend(struct hs_dev *hs)
{
	static const u8 order[] = {
		SCIF_NTB_SPAD_MAGIC, SCIF_NTB_SPAD_CAPS, SCIF_NTB_SPAD_NODE,
		SCIF_NTB_SPAD_ADDR_LO, SCIF_NTB_SPAD_ADDR_HI,
		SCIF_NTB_SPAD_SIZE, SCIF_NTB_SPAD_ACK, SCIF_NTB_SPAD_NONCE,
	};
	int i;

	if (!hs->use_msg || time_before(jiffies, hs->resent +
					 msecs_to_jiffies(HS_MSG_RESEND_MS)))
		return;
	for (i = 0; i < ARRAY_SIZE(order); i++)
		hs_put(hs, order[i], hs->tx[order[i]]);
	hs->resent = jiffies;
}

/*
 * Junk of the message form: a tag with a wrong magic or an impossible
 * index after its value, a tag alone, or a value alone (which keeps the
 * victim's register full until it drops it).
 */
void hs_msg_junk(struct hs_dev *hs)
{
	u32 tag = SCIF_NTB_MSG_MAGIC | (SCIF_NTB_SPADS + hs_rand(hs, 248));

	switch (hs_rand(hs, 4)) {
	case 0:
		tag = (u32)hs_rand64(hs) | SCIF_NTB_SPAD_NONCE;
		fallthrough;
	case 1:
		if (hs_msg_write(hs, SCIF_NTB_MSG_DATA, hs_rand64(hs)))
			hs_msg_write(hs, SCIF_NTB_MSG_TAG, tag);
		break;
	case 2:
		hs_msg_write(hs, SCIF_NTB_MSG_TAG,
			     SCIF_NTB_MSG_MAGIC | SCIF_NTB_SPAD_NONCE);
		break;
	default:
		hs_msg_write(hs, SCIF_NTB_MSG_DATA, hs_rand64(hs));
	}
}

static void hs_publish(struct hs_dev *hs)
{
	hs->nonce = (prandom_u32_state(&hs->rnd) | 3);
	hs_put(hs, SCIF_NTB_SPAD_NONCE, 0);
	hs_put(hs, SCIF_NTB_SPAD_ACK, 0);
	hs_put(hs, SCIF_NTB_SPAD_CAPS, hs->xlat ? 0 : SCIF_NTB_CAP_FLAT);
	hs_put(hs, SCIF_NTB_SPAD_NODE, hs_node);
	hs_put(hs, SCIF_NTB_SPAD_ADDR_LO,
	       hs->xlat ? 0 : lower_32_bits(hs->region_dma));
	hs_put(hs, SCIF_NTB_SPAD_ADDR_HI,
	       hs->xlat ? 0 : upper_32_bits(hs->region_dma));
	hs_put(hs, SCIF_NTB_SPAD_SIZE, HS_REGION);
	hs_put(hs, SCIF_NTB_SPAD_MAGIC, SCIF_NTB_MAGIC | SCIF_NTB_VERSION);
	hs_put(hs, SCIF_NTB_SPAD_NONCE, hs->nonce);
}

bool hs_victim_same(struct hs_dev *hs)
{
	return hs_get(hs, SCIF_NTB_SPAD_MAGIC) ==
	       (SCIF_NTB_MAGIC | SCIF_NTB_VERSION) &&
	       hs_get(hs, SCIF_NTB_SPAD_NONCE) == hs->vnonce;
}

/*
 * Our inbound window, in the mode the victim's scif_ntb would choose: flat
 * at address 0 when it covers all our DMA addresses, else translated onto
 * our region alone (allocated right after ntb_mw_get_align(), in the same
 * task, which is where the emulation hands out the window's home).
 */
static int hs_window(struct hs_dev *hs)
{
	struct device *dev = ntb_get_dma_dev(hs->ntb);
	resource_size_t align, size_align, size_max;
	int ret;

	ret = ntb_mw_get_align(hs->ntb, 0, 0, &align, &size_align, &size_max);
	if (ret)
		return ret;
	if (!hs->region) {
		hs->xlat = size_max - 1 < dma_get_required_mask(dev);
		hs->region_bytes = HS_REGION;
		if (hs->xlat)
			hs->region_bytes = round_up(HS_REGION,
						    max_t(resource_size_t,
							  size_align, 1));
		if (hs->region_bytes > size_max)
			return -ENOSPC;
		hs->region = dma_alloc_coherent(dev, hs->region_bytes,
						&hs->region_dma, GFP_KERNEL);
		if (!hs->region)
			return -ENOMEM;
		if (hs->xlat && align && !IS_ALIGNED(hs->region_dma, align))
			return -EFAULT;
	}
	if (!hs->shm) {
		hs->shm = dma_alloc_coherent(dev, HS_SHM_BYTES, &hs->shm_dma,
					     GFP_KERNEL);
		if (!hs->shm)
			return -ENOMEM;
	}
	if (hs->xlat)
		return ntb_mw_set_trans(hs->ntb, 0, 0, hs->region_dma,
					hs->region_bytes);
	return ntb_mw_set_trans(hs->ntb, 0, 0, 0, size_max);
}

/*
 * Start a session: announce ourselves with a new nonce, acknowledge the
 * victim's and wait until it acknowledged ours. Returns 0 once the victim
 * has everything it needs to bring its link up.
 */
int hs_session(struct hs_dev *hs)
{
	unsigned long end = jiffies + msecs_to_jiffies(HS_WAIT_MS);
	u32 size, vn;
	u64 addr;
	int ret;

	/* The window can be set up only while the NTB link is up. */
	while (!(ntb_link_is_up(hs->ntb, NULL, NULL) & BIT_ULL(0))) {
		if (time_after(jiffies, end) || kthread_should_stop())
			return -ETIMEDOUT;
		usleep_range(5000, 10000);
	}
	ret = hs_window(hs);
	if (ret)
		return ret;
	memset(hs->region, 0, SCIF_NTB_HDR_SIZE);
	hs->ridx = 0;
	hs->widx = 0;
	hs_publish(hs);
	while (!kthread_should_stop()) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		hs_msg_resend(hs);
		vn = hs_get(hs, SCIF_NTB_SPAD_NONCE);
		if (!vn || hs_get(hs, SCIF_NTB_SPAD_MAGIC) !=
			   (SCIF_NTB_MAGIC | SCIF_NTB_VERSION)) {
			usleep_range(5000, 10000);
			continue;
		}
		addr = hs_get(hs, SCIF_NTB_SPAD_ADDR_LO) |
		       (u64)hs_get(hs, SCIF_NTB_SPAD_ADDR_HI) << 32;
		size = hs_get(hs, SCIF_NTB_SPAD_SIZE);
		if (size <= SCIF_NTB_HDR_SIZE || addr >= hs->win_size ||
		    hs->win_size - addr < size) {
			usleep_range(5000, 10000);
			continue;
		}
		hs->vnonce = vn;
		/* Our window is open already: both acknowledgments at once. */
		hs_put(hs, SCIF_NTB_SPAD_ACK, scif_ntb_ack_open(vn));
		/* The victim's window is open for us once it says so. */
		if (hs_get(hs, SCIF_NTB_SPAD_ACK) !=
		    scif_ntb_ack_open(hs->nonce)) {
			usleep_range(5000, 10000);
			continue;
		}
		hs->vhdr = hs->win + addr;
		hs->vring = (u8 __iomem *)hs->vhdr + SCIF_NTB_HDR_SIZE;
		hs->vcells = (size - SCIF_NTB_HDR_SIZE) / SCIF_NTB_CELL;
		/* The chunk size the victim computes for this link. */
		hs->max_data = min_t(u32, SCIF_WIRE_DATA_MAX,
				     (min_t(u32, hs->vcells,
					    HS_RING / SCIF_NTB_CELL) / 4 - 1) *
				     SCIF_NTB_CELL);
		/* The victim resets our ring at a new nonce: let it. */
		msleep(50);
		hs->noffers = 0;
		hs->calm = true;
		hs->sessions++;
		return 0;
	}
	return -EINTR;
}
