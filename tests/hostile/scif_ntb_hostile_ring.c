// SPDX-License-Identifier: GPL-2.0
/*
 * scif_ntb_hostile: the two rings between us and the victim. We consume
 * what the victim writes into our region (learning its endpoint ids and
 * the stream memory its ACCEPTs offer), write records into its ring with
 * the ring's framing, or break that framing on purpose, and ring its
 * doorbell.
 */

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/kthread.h>

#include "scif_ntb_hostile.h"

/*
 * Consume what the victim sent us, learning its endpoint ids, and tell it
 * how far we read (sometimes an impossible index instead).
 */
void hs_consume(struct hs_dev *hs)
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

void hs_doorbell(struct hs_dev *hs)
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

/* Write one record; false if the victim never made room. */
bool hs_write(struct hs_dev *hs, const u8 *buf, size_t len, u16 hlen)
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

/* Something the ring protocol forbids; the victim must reset the link. */
void hs_break_framing(struct hs_dev *hs)
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
