// SPDX-License-Identifier: GPL-2.0
/*
 * scif_ntb_hostile: mapped streams. We open streams as a genuine peer
 * would, keep the stream memory the victim offers in its ACCEPTs, lie in
 * that memory (and in our own control block) while it is certainly still
 * the stream's, and forget it once a message of ours may let the victim
 * free it.
 */

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/kthread.h>

#include "scif_ntb_hostile.h"

/* Keep the stream memory an ACCEPT of the victim offered us. */
void hs_learn_offer(struct hs_dev *hs, const struct scif_wire_msg *m,
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
int hs_shm_lie(struct hs_dev *hs, u8 *buf)
{
	struct scif_wire_msg *m = (void *)buf;
	const struct hs_offer *o;
	u32 off, n, i;

	if (!hs_stream_lies || hs->xlat || !hs->noffers || !hs->calm ||
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
void hs_forget_offers(struct hs_dev *hs, const struct scif_wire_msg *m)
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

/*
 * Open a mapped stream with the victim as a genuine peer would: a
 * well-formed CONNREQ for its listener, offering our ring, then a wait of
 * up to half a second for the ACCEPT that offers the victim's own
 * (hs_consume() learns it). Random requests almost never get that far:
 * the link seldom stays up from the request to the victim's accept.
 */
void hs_open_stream(struct hs_dev *hs, u8 *buf)
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
	m->dst_port = cpu_to_le16(hs_target_port);
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
