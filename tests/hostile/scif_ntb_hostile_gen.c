// SPDX-License-Identifier: GPL-2.0
/*
 * scif_ntb_hostile: the messages of the attack. Each is built to look
 * valid for its type (addressed to the endpoints the victim used, with
 * plausible arguments), with fields that like boundary values, and then
 * one time in two mutated: a flipped bit, a wrong type, endpoint,
 * reserved byte or version.
 */

#include <linux/unaligned.h>

#include "scif_ntb_hostile.h"

/* A field value that likes to be wrong. */
u64 hs_boundary(struct hs_dev *hs, unsigned int bits)
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
size_t hs_generate(struct hs_dev *hs, u8 *buf)
{
	struct scif_wire_msg *m = (void *)buf;
	u8 *data = buf + sizeof(*m);
	int k = hs->nids ? hs_rand(hs, min(hs->nids, HS_IDS)) : 0;
	u64 vid = hs->nids ? hs->ids[k] : hs_boundary(hs, 64);
	u16 vport = hs->nids ? hs->ports[k] : hs_target_port;
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
		m->dst_port = cpu_to_le16(hs_target_port);
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
