// SPDX-License-Identifier: GPL-2.0
/*
 * scif_ntb_hostile: a hostile SCIF peer on the emulated NTB, for testing
 * only. Loaded on one guest instead of scif_ntb, it speaks scif_ntb's
 * scratchpad handshake (drivers/scif/ntb/scif_ntb.h; on an NTB with one
 * peer, which is the only kind it binds, both sides' words are at
 * scif_ntb_spad_slot() 0; on an NTB without them, in message registers as
 * scif_ntb_msg.c sends them) well enough for the victim on the other side
 * of the NTB to bring the link up, then writes random and mutated wire
 * messages into the victim's ring, framing it cannot follow, impossible
 * indices, random scratchpad values, doorbell storms and link flaps.
 * Each time the victim resets the link, the handshake is done again and
 * the attack goes on, until @msgs messages were written. The victim must
 * stay up, reset the link on impossible ring state, rate-limit its
 * complaints and leak nothing.
 *
 * The end is reported as one line in the kernel log:
 * "scif_ntb_hostile: done: N messages, ...".
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/ntb.h>
#include <linux/prandom.h>
#include <linux/sizes.h>
#include <linux/unaligned.h>

#include "../../drivers/scif/core/scif_wire.h"
#include "../../drivers/scif/ntb/scif_ntb.h"

static unsigned long msgs = 20000;
module_param(msgs, ulong, 0444);
MODULE_PARM_DESC(msgs, "messages to write into the victim's ring");

static unsigned int seed = 1;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "seed of the generator");

static unsigned int node = 1;
module_param(node, uint, 0444);
MODULE_PARM_DESC(node, "SCIF node id claimed in the handshake");

static ushort target_port = 3001;
module_param(target_port, ushort, 0444);
MODULE_PARM_DESC(target_port, "SCIF port of a listener on the victim");

/*
 * Off by default: a flat window reaches all of the victim's memory, so a
 * lie is written only where the victim's stream memory is certainly still
 * its stream memory (see hs_shm_lie()); the rule holds against the
 * victim's own code, not against every timing of a link reset it decides
 * alone.
 */
static bool stream_lies;
module_param(stream_lies, bool, 0444);
MODULE_PARM_DESC(stream_lies, "also lie in the memory of mapped streams the victim offers");

/* Our ring: the smallest the victim accepts. */
#define HS_RING		SZ_64K
#define HS_REGION	(SCIF_NTB_HDR_SIZE + HS_RING)
/* Endpoint ids and ports learnt from the victim's own messages. */
#define HS_IDS		16
/* Our receive ring of a mapped stream, offered with half the CONNREQs. */
#define HS_SHM_RING	SZ_64K
#define HS_SHM_BYTES	(HS_SHM_RING + PAGE_SIZE)
/* How long to wait for the victim at any one step. */
#define HS_WAIT_MS	20000
/* How long a word in message registers may wait for the victim's room. */
#define HS_MSG_WAIT_MS	1000
/* Resend all our words this often while a handshake waits (messages). */
#define HS_MSG_RESEND_MS	100

/**
 * struct hs_offer - stream memory the victim offered us in an ACCEPT
 * @ring: bus address of its receive ring, which we may write
 * @ctl: bus address of its control block (&struct scif_wire_shm_ctl)
 * @size: size of the ring
 * @vep: the victim's endpoint
 * @ep: ours, as the victim knows it
 * @vport: the victim's port
 * @port: ours
 */
struct hs_offer {
	u64 ring;
	u64 ctl;
	u32 size;
	u64 vep;
	u64 ep;
	u16 vport;
	u16 port;
};

/**
 * struct hs_dev - the hostile peer
 * @ntb: the NTB
 * @port: our port
 * @vport: the victim's port
 * @spad_out: first of the victim's scratchpads our words go to
 * @spad_in: first of ours the victim's words come into
 * @use_msg: the words travel in message registers (no scratchpads)
 * @tx: with @use_msg, our words as last sent
 * @rx: with @use_msg, the victim's words as last received
 * @resent: with @use_msg, jiffies of the last resend of @tx
 * @msg_lone: jiffies | 1 since a value message waits alone for its tag
 * @region: our region, which the victim writes (its ring to us); allocated
 *	    at the first link-up, in the window's mode
 * @region_dma: its bus address
 * @region_bytes: its size (the window's size alignment in translated mode)
 * @xlat: our inbound window is translated onto @region alone (the victim
 *	  then finds the region at offset 0 of its window to us), not flat at
 *	  address 0 (where the region is at @region_dma)
 * @win: outbound window onto the victim's memory
 * @win_size: its size
 * @vhdr: the victim's region for us, inside @win
 * @vring: its cells
 * @vcells: number of cells in @vring
 * @max_data: the chunk size the victim computed for the link
 * @widx: cells we wrote into @vring
 * @ridx: cells we consumed of our own ring
 * @nonce: ours for this session
 * @vnonce: the victim's, as last acknowledged
 * @rnd: the generator
 * @ids: endpoint ids the victim used in messages to us
 * @ports: the ports that went with them
 * @nids: entries at @ids
 * @shm: our memory offered for mapped streams: a receive ring of
 *	 %HS_SHM_RING bytes, then a control block
 * @shm_dma: its bus address
 * @offers: mapped-stream memory the victim offered in its ACCEPTs
 * @noffers: entries at @offers; emptied at each new session
 * @offers_seen: offers learned in all sessions
 * @opens: well-formed connection requests offering @shm (hs_open_stream())
 * @calm: in this session, nothing of ours gave the victim a reason to reset
 *	  the link (no impossible index)
 * @thread: the attacker
 * @sent: messages written so far
 * @sessions: handshakes completed
 * @garbage_idx: impossible indices written
 * @spad_junk: random scratchpad values written
 * @storms: doorbell storms
 * @flaps: link flaps
 * @shm_lies: writes of lying indices or garbage into the victim's stream
 *	      memory, or of lying indices into our own control block
 * @buf: the message being written
 * @done: the attack ended (success or not)
 */
struct hs_dev {
	struct ntb_dev *ntb;
	int port;
	int vport;
	int spad_out;
	int spad_in;
	bool use_msg;
	u32 tx[SCIF_NTB_SPADS];
	u32 rx[SCIF_NTB_SPADS];
	unsigned long resent;
	unsigned long msg_lone;
	void *region;
	dma_addr_t region_dma;
	size_t region_bytes;
	bool xlat;
	void __iomem *win;
	resource_size_t win_size;
	struct scif_ntb_region_hdr __iomem *vhdr;
	u8 __iomem *vring;
	u32 vcells;
	u32 max_data;
	u32 widx;
	u32 ridx;
	u32 nonce;
	u32 vnonce;
	struct rnd_state rnd;
	u64 ids[HS_IDS];
	u16 ports[HS_IDS];
	int nids;
	void *shm;
	dma_addr_t shm_dma;
	struct hs_offer offers[HS_IDS];
	int noffers;
	unsigned int offers_seen;
	unsigned int opens;
	bool calm;
	struct task_struct *thread;
	u64 sent;
	unsigned int sessions;
	unsigned int garbage_idx;
	unsigned int spad_junk;
	unsigned int storms;
	unsigned int flaps;
	unsigned int shm_lies;
	u8 buf[SCIF_WIRE_MSG_SIZE + SCIF_WIRE_DATA_MAX];
	bool done;
};

/* The one NTB this module attacks through. */
static struct hs_dev *hs_the;

static u32 hs_rand(struct hs_dev *hs, u32 n)
{
	return n ? prandom_u32_state(&hs->rnd) % n : 0;
}

static u64 hs_rand64(struct hs_dev *hs)
{
	return (u64)prandom_u32_state(&hs->rnd) << 32 |
	       prandom_u32_state(&hs->rnd);
}

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
static u32 hs_junk(struct hs_dev *hs, int idx)
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
static void hs_put(struct hs_dev *hs, int idx, u32 val)
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
static u32 hs_get(struct hs_dev *hs, int idx)
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
static void hs_msg_junk(struct hs_dev *hs)
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
	hs_put(hs, SCIF_NTB_SPAD_NODE, node);
	hs_put(hs, SCIF_NTB_SPAD_ADDR_LO,
	       hs->xlat ? 0 : lower_32_bits(hs->region_dma));
	hs_put(hs, SCIF_NTB_SPAD_ADDR_HI,
	       hs->xlat ? 0 : upper_32_bits(hs->region_dma));
	hs_put(hs, SCIF_NTB_SPAD_SIZE, HS_REGION);
	hs_put(hs, SCIF_NTB_SPAD_MAGIC, SCIF_NTB_MAGIC | SCIF_NTB_VERSION);
	hs_put(hs, SCIF_NTB_SPAD_NONCE, hs->nonce);
}

static bool hs_victim_same(struct hs_dev *hs)
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
static int hs_session(struct hs_dev *hs)
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

/* Keep the stream memory an ACCEPT of the victim offered us. */
static void hs_learn_offer(struct hs_dev *hs, const struct scif_wire_msg *m,
			   const struct scif_wire_shm *w)
{
	struct hs_offer *o = &hs->offers[hs->noffers % HS_IDS];

	o->ring = le64_to_cpu(READ_ONCE(w->ring));
	o->ctl = le64_to_cpu(READ_ONCE(w->ctl));
	o->size = le32_to_cpu(READ_ONCE(m->arg));
	o->vep = le64_to_cpu(READ_ONCE(m->src_ep));
	o->ep = le64_to_cpu(READ_ONCE(m->dst_ep));
	o->vport = le16_to_cpu(READ_ONCE(m->src_port));
	o->port = le16_to_cpu(READ_ONCE(m->dst_port));
	hs->noffers++;
	hs->offers_seen++;
}

/*
 * Consume what the victim sent us, learning its endpoint ids, and tell it
 * how far we read (sometimes an impossible index instead).
 */
static void hs_consume(struct hs_dev *hs)
{
	struct scif_ntb_region_hdr *hdr = hs->region;
	const u8 *ring = (const u8 *)hs->region + SCIF_NTB_HDR_SIZE;
	u32 cells = HS_RING / SCIF_NTB_CELL;
	u32 widx = le32_to_cpu(READ_ONCE(hdr->widx));
	const struct scif_wire_msg *m;
	u32 off, n;

	rmb(); /* the cells after the index covering them */
	while (widx - hs->ridx && widx - hs->ridx <= cells) {
		off = hs->ridx & (cells - 1);
		m = (const void *)(ring + off * SCIF_NTB_CELL);
		if (m->version == SCIF_NTB_PAD) {
			n = cells - off;
		} else {
			n = 1 + DIV_ROUND_UP(le16_to_cpu(READ_ONCE(m->len)),
					     SCIF_NTB_CELL);
			if (m->src_ep) {
				hs->ids[hs->nids % HS_IDS] =
					le64_to_cpu(m->src_ep);
				hs->ports[hs->nids % HS_IDS] =
					le16_to_cpu(m->src_port);
				hs->nids++;
			}
			if (m->type == SCIF_MSG_ACCEPT && n > 1 &&
			    off + n <= cells &&
			    le16_to_cpu(READ_ONCE(m->len)) ==
			    sizeof(struct scif_wire_shm))
				hs_learn_offer(hs, m, (const void *)(m + 1));
		}
		hs->ridx += min(n, widx - hs->ridx);
	}
	if (hs_rand(hs, 1000) < 3) {
		iowrite32(hs->ridx + hs->vcells + 1 + hs_rand(hs, 1 << 20),
			  &hs->vhdr->ridx);
		hs->garbage_idx++;
		hs->calm = false;
	} else {
		iowrite32(hs->ridx, &hs->vhdr->ridx);
	}
}

static void hs_doorbell(struct hs_dev *hs)
{
	u64 bit = BIT_ULL(hs->vport);

	if (hs->vport < 64 && (ntb_db_valid_mask(hs->ntb) & bit))
		ntb_peer_db_set(hs->ntb, bit);
}

/* Room in the victim's ring, as far as its read index tells. */
static u32 hs_room(struct hs_dev *hs)
{
	struct scif_ntb_region_hdr *hdr = hs->region;
	u32 used = hs->widx - le32_to_cpu(READ_ONCE(hdr->ridx));

	return used > hs->vcells ? 0 : hs->vcells - used;
}

/* A field value that likes to be wrong. */
static u64 hs_boundary(struct hs_dev *hs, unsigned int bits)
{
	u64 max = bits == 64 ? U64_MAX : (1ULL << bits) - 1;

	switch (hs_rand(hs, 6)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return max;
	case 3:
		return 1ULL << (bits - 1);
	case 4:
		return hs_rand(hs, 64);
	}
	return hs_rand64(hs) & max;
}

/* A message for the victim into @buf; returns its data length. */
static size_t hs_generate(struct hs_dev *hs, u8 *buf)
{
	struct scif_wire_msg *m = (void *)buf;
	u8 *data = buf + sizeof(*m);
	int k = hs->nids ? hs_rand(hs, min(hs->nids, HS_IDS)) : 0;
	u64 vid = hs->nids ? hs->ids[k] : hs_boundary(hs, 64);
	u16 vport = hs->nids ? hs->ports[k] : target_port;
	u8 type = 1 + hs_rand(hs, SCIF_MSG_NR);
	size_t len = 0, i;
	struct scif_wire_reg reg;

	memset(m, 0, sizeof(*m));
	m->version = SCIF_WIRE_VERSION;
	m->type = type;
	m->src_ep = cpu_to_le64(0x100000000ULL | hs_rand(hs, 8));
	m->dst_ep = cpu_to_le64(vid);
	m->src_port = cpu_to_le16(4000 + hs_rand(hs, 8));
	m->dst_port = cpu_to_le16(vport);
	switch (type) {
	case SCIF_MSG_CONNREQ:
		m->dst_ep = 0;
		m->dst_port = cpu_to_le16(target_port);
		m->arg = cpu_to_le32(SCIF_WIRE_RING_MIN << hs_rand(hs, 9));
		m->seq = cpu_to_le32(hs_rand(hs, 3));	/* connect number */
		if (hs->shm && hs_rand(hs, 2)) {
			/* Ask for a mapped stream, into our memory. */
			struct scif_wire_shm offer = {
				.ring = cpu_to_le64(hs->shm_dma),
				.ctl = cpu_to_le64(hs->shm_dma + HS_SHM_RING),
				.page_shift = PAGE_SHIFT,
			};

			m->arg = cpu_to_le32(HS_SHM_RING);
			memcpy(data, &offer, sizeof(offer));
			len = sizeof(offer);
		}
		break;
	case SCIF_MSG_ACCEPT:
		m->arg = cpu_to_le32(SCIF_WIRE_RING_MIN);
		m->seq = cpu_to_le32(hs_rand(hs, 3));
		break;
	case SCIF_MSG_REJECT:
		m->arg = cpu_to_le32(ECONNREFUSED);
		m->seq = cpu_to_le32(hs_rand(hs, 3));
		break;
	case SCIF_MSG_DATA:
		len = 1 + hs_rand(hs, hs->max_data);
		for (i = 0; i < len; i++)
			data[i] = i;
		m->seq = cpu_to_le32(hs_rand(hs, 2) ? hs_rand(hs, 4096) :
				     hs_boundary(hs, 32));
		break;
	case SCIF_MSG_CREDIT:
		m->arg = cpu_to_le32(hs_rand(hs, 2) ? hs_rand(hs, 4096) :
				     hs_boundary(hs, 32));
		break;
	case SCIF_MSG_REG_OPEN:
		m->arg = cpu_to_le32(hs_rand(hs, 8));
		reg.offset = cpu_to_le64(hs_rand(hs, 2) ?
					 (u64)hs_rand(hs, 16) << PAGE_SHIFT :
					 hs_boundary(hs, 64));
		reg.nr_pages = cpu_to_le64(hs_rand(hs, 2) ? 1 + hs_rand(hs, 4) :
					   hs_boundary(hs, 64));
		reg.prot = cpu_to_le32(1 + hs_rand(hs, 3));
		reg.rsvd = 0;
		memcpy(data, &reg, sizeof(reg));
		len = sizeof(reg);
		break;
	case SCIF_MSG_REG_PAGES:
		m->arg = cpu_to_le32(hs_rand(hs, 8));
		m->seq = cpu_to_le32(hs_rand(hs, 4));
		len = 8 * (1 + hs_rand(hs, 8));
		for (i = 0; i < len; i += 8)
			put_unaligned_le64(hs_rand(hs, 2) ?
					   (u64)hs_rand(hs, 1 << 16) << PAGE_SHIFT :
					   hs_boundary(hs, 64), data + i);
		break;
	default:
		m->arg = cpu_to_le32(hs_rand(hs, 2) ? hs_rand(hs, 8) :
				     hs_boundary(hs, 32));
	}
	m->len = cpu_to_le16(len);
	/* Mutations of the valid-looking message. */
	switch (hs_rand(hs, 10)) {
	case 0:
		buf[hs_rand(hs, sizeof(*m) + len)] ^= 1 << hs_rand(hs, 8);
		break;
	case 1:
		m->type = hs_boundary(hs, 8);
		break;
	case 2:
		m->dst_ep = cpu_to_le64(hs_boundary(hs, 64));
		break;
	case 3:
		m->rsvd[hs_rand(hs, sizeof(m->rsvd))] = 1;
		break;
	case 4:
		m->version = hs_boundary(hs, 8);
		break;
	}
	return len;
}

/*
 * Lie in the memory of a mapped stream the victim offered: an impossible
 * or merely wrong index in its control block, or garbage in its ring, then
 * a WAKE to make its reader look. Only through a flat window, where the
 * offered bus addresses are offsets into ours, and only where the memory
 * is still the stream's: offered in this session (a link reset frees it),
 * in a calm session (an impossible index of ours makes the victim reset
 * the link, which we learn only later), never after a message of ours may
 * have let the victim free it (hs_forget_offers()); a connection the
 * victim reset keeps its memory in quarantine until then. Returns the
 * WAKE's data length (0) into @buf, or -1 when there is nothing to lie in.
 */
static int hs_shm_lie(struct hs_dev *hs, u8 *buf)
{
	struct scif_wire_msg *m = (void *)buf;
	const struct hs_offer *o;
	u32 off, n, i;

	if (!stream_lies || hs->xlat || !hs->noffers || !hs->calm ||
	    !hs_victim_same(hs))
		return -1;
	o = &hs->offers[hs_rand(hs, min(hs->noffers, HS_IDS))];
	if (!o->size || o->ring >= hs->win_size ||
	    hs->win_size - o->ring < o->size ||
	    o->ctl >= hs->win_size ||
	    hs->win_size - o->ctl < sizeof(struct scif_wire_shm_ctl))
		return -1;
	switch (hs_rand(hs, 5)) {
	case 4:
		/*
		 * Our own control block, which the victim reads before it
		 * writes into our ring: where we claim to have read to.
		 */
		WRITE_ONCE(((u32 *)(hs->shm + HS_SHM_RING))[hs_rand(hs, 4)],
			   hs_rand(hs, 2) ? hs_rand(hs, 2 * HS_SHM_RING) :
			   (u32)hs_boundary(hs, 32));
		break;
	case 0:
	case 1:
		/* written, consumed, rx_event or tx_event */
		iowrite32(hs_rand(hs, 2) ? hs_rand(hs, 2 * o->size) :
			  (u32)hs_boundary(hs, 32),
			  hs->win + o->ctl + 4 * hs_rand(hs, 4));
		break;
	default:
		/* Bytes the reader did not expect, where it may read next. */
		off = hs_rand(hs, o->size);
		n = min_t(u32, 1 + hs_rand(hs, 256), o->size - off);
		for (i = 0; i < n; i++)
			iowrite8(hs_rand(hs, 256), hs->win + o->ring + off + i);
		break;
	}
	hs->shm_lies++;
	memset(m, 0, sizeof(*m));
	m->version = SCIF_WIRE_VERSION;
	m->type = SCIF_MSG_WAKE;
	m->src_ep = cpu_to_le64(o->ep);
	m->dst_ep = cpu_to_le64(o->vep);
	m->src_port = cpu_to_le16(o->port);
	m->dst_port = cpu_to_le16(o->vport);
	return 0;
}

/*
 * A RELEASE, DISCONNECT or REJECT may tell the victim that nobody writes
 * the stream memory of the endpoint it names, which the victim may then
 * free: forget that memory.
 */
static void hs_forget_offers(struct hs_dev *hs, const struct scif_wire_msg *m)
{
	u64 vep = le64_to_cpu(m->dst_ep);
	int i;

	if (m->type != SCIF_MSG_RELEASE && m->type != SCIF_MSG_DISCONNECT &&
	    m->type != SCIF_MSG_REJECT)
		return;
	for (i = 0; i < min(hs->noffers, HS_IDS); i++)
		if (hs->offers[i].vep == vep)
			hs->offers[i].size = 0;
}

/* Write one record; false if the victim never made room. */
static bool hs_write(struct hs_dev *hs, const u8 *buf, size_t len, u16 hlen)
{
	u32 cells = 1 + DIV_ROUND_UP(len, SCIF_NTB_CELL), off, contig, need;
	unsigned long end = jiffies + msecs_to_jiffies(2000);

	off = hs->widx & (hs->vcells - 1);
	contig = hs->vcells - off;
	need = cells <= contig ? cells : contig + cells;
	while (hs_room(hs) < need) {
		hs_consume(hs);
		iowrite32(hs_rand(hs, U32_MAX), &hs->vhdr->want);
		hs_doorbell(hs);
		if (time_after(jiffies, end) || kthread_should_stop())
			return false;
		usleep_range(100, 200);
	}
	if (cells > contig) {
		iowrite8(SCIF_NTB_PAD, hs->vring + off * SCIF_NTB_CELL);
		hs->widx += contig;
		off = 0;
	}
	memcpy_toio(hs->vring + off * SCIF_NTB_CELL, buf, sizeof(struct scif_wire_msg));
	/* The header's own len field may lie; the framing follows @len. */
	iowrite16(hlen, hs->vring + off * SCIF_NTB_CELL + 2);
	if (len)
		memcpy_toio(hs->vring + (off + 1) * SCIF_NTB_CELL,
			    buf + sizeof(struct scif_wire_msg), len);
	hs->widx += cells;
	wmb(); /* cells before the index */
	iowrite32(hs->widx, &hs->vhdr->widx);
	wmb(); /* index before the doorbell */
	hs_doorbell(hs);
	return true;
}

/*
 * Open a mapped stream with the victim as a genuine peer would: a
 * well-formed CONNREQ for its listener, offering our ring, then a wait of
 * up to half a second for the ACCEPT that offers the victim's own
 * (hs_consume() learns it). Random requests almost never get that far:
 * the link seldom stays up from the request to the victim's accept.
 */
static void hs_open_stream(struct hs_dev *hs, u8 *buf)
{
	struct scif_wire_msg *m = (void *)buf;
	struct scif_wire_shm offer = {
		.ring = cpu_to_le64(hs->shm_dma),
		.ctl = cpu_to_le64(hs->shm_dma + HS_SHM_RING),
		.page_shift = PAGE_SHIFT,
	};
	unsigned long end = jiffies + msecs_to_jiffies(500);
	int before = hs->noffers;

	memset(m, 0, sizeof(*m));
	m->version = SCIF_WIRE_VERSION;
	m->type = SCIF_MSG_CONNREQ;
	m->src_ep = cpu_to_le64(0x100000000ULL | hs_rand(hs, 8));
	m->src_port = cpu_to_le16(4000 + hs_rand(hs, 8));
	m->dst_port = cpu_to_le16(target_port);
	m->arg = cpu_to_le32(HS_SHM_RING);
	/* A connect number of its own, so that no earlier attempt matches. */
	m->seq = cpu_to_le32(++hs->opens);
	m->len = cpu_to_le16(sizeof(offer));
	memcpy(buf + sizeof(*m), &offer, sizeof(offer));
	if (!hs_write(hs, buf, sizeof(offer), sizeof(offer)))
		return;
	while (hs->noffers == before && time_before(jiffies, end) &&
	       !kthread_should_stop()) {
		usleep_range(1000, 2000);
		hs_consume(hs);
	}
}

/* Something the ring protocol forbids; the victim must reset the link. */
static void hs_break_framing(struct hs_dev *hs)
{
	u32 off = hs->widx & (hs->vcells - 1);

	switch (hs_rand(hs, 3)) {
	case 0:
		/* A write index far beyond the ring. */
		iowrite32(hs->widx + hs->vcells + 1 + hs_rand(hs, 1 << 20),
			  &hs->vhdr->widx);
		break;
	case 1:
		/* A length the link never carries. */
		iowrite8(SCIF_WIRE_VERSION, hs->vring + off * SCIF_NTB_CELL);
		iowrite16(hs->max_data + 1 + hs_rand(hs, 1024),
			  hs->vring + off * SCIF_NTB_CELL + 2);
		iowrite32(hs->widx + hs->vcells, &hs->vhdr->widx);
		break;
	default:
		/* A pad cell that claims more than was written. */
		iowrite8(SCIF_NTB_PAD, hs->vring + off * SCIF_NTB_CELL);
		iowrite32(hs->widx + 1, &hs->vhdr->widx);
	}
	hs->garbage_idx++;
	hs_doorbell(hs);
}

static int hs_attack(void *arg)
{
	struct hs_dev *hs = arg;
	u8 *buf = hs->buf;
	bool need_session = true;
	size_t len;
	u16 hlen;
	u32 r;
	int i;

	while (hs->sent < msgs && !kthread_should_stop()) {
		if (need_session) {
			if (hs_session(hs)) {
				/* What the victim shows of its state. */
				pr_err("scif_ntb_hostile: the victim never completed the handshake (link %s; victim nonce %#x magic %#x ack %#x; our nonce %#x)\n",
				       ntb_link_is_up(hs->ntb, NULL, NULL) &
				       BIT_ULL(0) ? "up" : "down",
				       hs_get(hs, SCIF_NTB_SPAD_NONCE),
				       hs_get(hs, SCIF_NTB_SPAD_MAGIC),
				       hs_get(hs, SCIF_NTB_SPAD_ACK), hs->nonce);
				break;
			}
			need_session = false;
			/* A quarter of the sessions carry a mapped stream. */
			if (stream_lies && !hs->xlat && hs->shm &&
			    !hs_rand(hs, 4))
				hs_open_stream(hs, buf);
		}
		r = hs_rand(hs, 1000);
		if (r < 3) {
			hs_break_framing(hs);
			need_session = true;
			msleep(20);
			continue;
		}
		if (r < 6) {
			/* A random value in one of our words, or a bad message. */
			i = hs_rand(hs, SCIF_NTB_SPADS);
			if (hs->use_msg && hs_rand(hs, 2))
				hs_msg_junk(hs);
			else
				hs_put(hs, i, hs_junk(hs, i));
			hs->spad_junk++;
			need_session = true;
			msleep(20);
			continue;
		}
		if (r < 9) {
			for (i = 0; i < 1000; i++)
				hs_doorbell(hs);
			hs->storms++;
			continue;
		}
		if (r < 10 && hs_rand(hs, 4) == 0) {
			ntb_link_disable(hs->ntb);
			msleep(50);
			ntb_link_enable(hs->ntb, NTB_SPEED_AUTO,
					NTB_WIDTH_AUTO);
			hs->flaps++;
			need_session = true;
			continue;
		}
		if (r < 30 && hs_shm_lie(hs, buf) == 0)
			len = 0;
		else
			len = hs_generate(hs, buf);
		hs_forget_offers(hs, (struct scif_wire_msg *)buf);
		hlen = le16_to_cpu(((struct scif_wire_msg *)buf)->len);
		if (!hs_write(hs, buf, len, hlen) || !hs_victim_same(hs)) {
			/* The victim reset the link: start again. */
			need_session = true;
			continue;
		}
		hs->sent++;
		if (!(hs->sent % 64))
			hs_consume(hs);
		if (!(hs->sent % 100000))
			pr_info("scif_ntb_hostile: %llu messages\n", hs->sent);
		cond_resched();
	}
	pr_info("scif_ntb_hostile: done: %llu messages, %u sessions, %u impossible indices, %u scratchpad junk, %u doorbell storms, %u link flaps, %u streams opened, %u stream offers, %u stream lies\n",
		hs->sent, hs->sessions, hs->garbage_idx, hs->spad_junk,
		hs->storms, hs->flaps, hs->opens, hs->offers_seen,
		hs->shm_lies);
	/* Leave: the victim takes the link down. */
	hs_put(hs, SCIF_NTB_SPAD_NONCE, 0);
	hs_put(hs, SCIF_NTB_SPAD_MAGIC, 0);
	WRITE_ONCE(hs->done, true);
	while (!kthread_should_stop())
		msleep(100);
	return 0;
}

static int hs_probe(struct ntb_client *client, struct ntb_dev *ntb)
{
	phys_addr_t phys;
	struct hs_dev *hs;
	int ret;

	if (ntb_peer_port_count(ntb) != 1 || hs_the)
		return -ENODEV;
	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return -ENOMEM;
	hs->ntb = ntb;
	hs->port = ntb_port_number(ntb);
	hs->vport = ntb_peer_port_number(ntb, 0);
	prandom_seed_state(&hs->rnd, seed);
	hs->spad_out = scif_ntb_spad_slot(1, hs->port);
	hs->spad_in = scif_ntb_spad_slot(1, hs->vport);
	ret = -ENODEV;
	if (hs->port < 0 || hs->vport < 0)
		goto free;
	if (max(hs->spad_out, hs->spad_in) + SCIF_NTB_SPADS >
	    ntb_spad_count(ntb)) {
		hs->use_msg = true;
		if (ntb_msg_count(ntb) <= SCIF_NTB_MSG_TAG) {
			dev_err(&ntb->dev, "refusing: the hostile peer needs %d scratchpads or %d message registers, the NTB has %d and %d\n",
				max(hs->spad_out, hs->spad_in) + SCIF_NTB_SPADS,
				SCIF_NTB_MSG_TAG + 1, ntb_spad_count(ntb),
				ntb_msg_count(ntb));
			goto free;
		}
	}
	if (ntb_peer_mw_get_addr(ntb, 0, &phys, &hs->win_size) ||
	    !hs->win_size)
		goto free;
	ret = -ENOMEM;
	hs->win = ioremap_wc(phys, hs->win_size);
	if (!hs->win)
		goto free;
	ntb_link_enable(ntb, NTB_SPEED_AUTO, NTB_WIDTH_AUTO);
	hs_the = hs;
	hs->thread = kthread_run(hs_attack, hs, "scif_ntb_hostile");
	if (IS_ERR(hs->thread)) {
		ret = PTR_ERR(hs->thread);
		goto clear;
	}
	dev_info(&ntb->dev, "hostile SCIF peer on port %d against port %d: %lu messages, seed %u, handshake in %s\n",
		 hs->port, hs->vport, msgs, seed,
		 hs->use_msg ? "message registers" : "scratchpads");
	return 0;
clear:
	hs_the = NULL;
	ntb_link_disable(ntb);
	iounmap(hs->win);
free:
	kfree(hs);
	return ret;
}

static void hs_remove(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct hs_dev *hs = hs_the;

	if (!hs || hs->ntb != ntb)
		return;
	kthread_stop(hs->thread);
	hs_put(hs, SCIF_NTB_SPAD_NONCE, 0);
	hs_put(hs, SCIF_NTB_SPAD_MAGIC, 0);
	hs_the = NULL;
	ntb_link_disable(ntb);
	/* The victim may still write into our region until its link is down. */
	msleep(500);
	ntb_mw_clear_trans(ntb, 0, 0);
	if (hs->region)
		dma_free_coherent(ntb_get_dma_dev(ntb), hs->region_bytes,
				  hs->region, hs->region_dma);
	if (hs->shm)
		dma_free_coherent(ntb_get_dma_dev(ntb), HS_SHM_BYTES, hs->shm,
				  hs->shm_dma);
	iounmap(hs->win);
	kfree(hs);
}

static struct ntb_client hs_client = {
	.ops = {
		.probe = hs_probe,
		.remove = hs_remove,
	},
};
module_ntb_client(hs_client);

MODULE_DESCRIPTION("Hostile SCIF peer on an NTB, for testing only");
MODULE_LICENSE("GPL");
