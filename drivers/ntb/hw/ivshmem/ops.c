// SPDX-License-Identifier: GPL-2.0
/*
 * struct ntb_dev_ops of the emulated NTB.
 *
 * Ports: guest i of the cluster is port i; peers are indexed (pidx) in
 * increasing port order. Memory windows: one inbound window per peer (the
 * peer reaches all of this guest's RAM) and one outbound window per peer
 * (outbound window w reaches all of peer w's RAM). The translation is fixed
 * "flat" at address 0 over the whole RAM: any other one is refused.
 */
#include <linux/mm.h>

#include "ntb_ivshmem.h"

static int ivn_port_number(struct ntb_dev *ntb)
{
	return ntb_to_ivn(ntb)->self;
}

static int ivn_peer_port_count(struct ntb_dev *ntb)
{
	return ntb_to_ivn(ntb)->npeers;
}

static int ivn_peer_port_number(struct ntb_dev *ntb, int pidx)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (pidx < 0 || pidx >= ivn->npeers)
		return -EINVAL;
	return ivn->peers[pidx].port;
}

static int ivn_peer_port_idx(struct ntb_dev *ntb, int port)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (port < 0 || port >= ivn->nodes || port == ivn->self)
		return -EINVAL;
	return port < ivn->self ? port : port - 1;
}

static u64 ivn_link_is_up(struct ntb_dev *ntb, enum ntb_speed *speed,
			  enum ntb_width *width)
{
	u64 mask = ivn_link_mask(ntb_to_ivn(ntb));

	/* there is no physical link to report a speed or width for */
	if (speed)
		*speed = mask ? NTB_SPEED_AUTO : NTB_SPEED_NONE;
	if (width)
		*width = mask ? NTB_WIDTH_AUTO : NTB_WIDTH_NONE;
	return mask;
}

static int ivn_link_enable(struct ntb_dev *ntb, enum ntb_speed max_speed,
			   enum ntb_width max_width)
{
	ivn_link_set_enabled(ntb_to_ivn(ntb), true);
	return 0;
}

static int ivn_link_disable(struct ntb_dev *ntb)
{
	ivn_link_set_enabled(ntb_to_ivn(ntb), false);
	return 0;
}

static bool ivn_pidx_ok(struct ivn_dev *ivn, int pidx)
{
	return pidx >= 0 && pidx < ivn->npeers;
}

static int ivn_mw_count(struct ntb_dev *ntb, int pidx)
{
	return ivn_pidx_ok(ntb_to_ivn(ntb), pidx) ? 1 : -EINVAL;
}

static int ivn_mw_get_align(struct ntb_dev *ntb, int pidx, int widx,
			    resource_size_t *addr_align,
			    resource_size_t *size_align,
			    resource_size_t *size_max)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || widx != 0)
		return -EINVAL;
	/* only base 0 and the whole RAM can be honoured */
	if (addr_align)
		*addr_align = ivn->ram_size;
	if (size_align)
		*size_align = ivn->ram_size;
	if (size_max)
		*size_max = ivn->ram_size;
	return 0;
}

static int ivn_mw_set_trans(struct ntb_dev *ntb, int pidx, int widx,
			    dma_addr_t addr, resource_size_t size)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || widx != 0)
		return -EINVAL;
	if (addr != 0 || size != ivn->ram_size) {
		dev_dbg(&ntb->dev,
			"refused translation %pad+%pa: window is flat over RAM\n",
			&addr, &size);
		return -EINVAL;
	}
	return 0;
}

/* The flat window cannot be closed; clearing it is accepted as a no-op. */
static int ivn_mw_clear_trans(struct ntb_dev *ntb, int pidx, int widx)
{
	return ivn_pidx_ok(ntb_to_ivn(ntb), pidx) && widx == 0 ? 0 : -EINVAL;
}

static int ivn_peer_mw_count(struct ntb_dev *ntb)
{
	return ntb_to_ivn(ntb)->npeers;
}

static int ivn_peer_mw_get_addr(struct ntb_dev *ntb, int widx,
				phys_addr_t *base, resource_size_t *size)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, widx))
		return -EINVAL;
	if (base)
		*base = ivn->peers[widx].mw_base;
	if (size)
		*size = ivn->ram_size;
	return 0;
}

/* Outbound window w is wired to peer w, flat: only that can be "set". */
static int ivn_peer_mw_set_trans(struct ntb_dev *ntb, int pidx, int widx,
				 u64 addr, resource_size_t size)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || widx != pidx || addr != 0 ||
	    size != ivn->ram_size)
		return -EINVAL;
	return 0;
}

static int ivn_peer_mw_clear_trans(struct ntb_dev *ntb, int pidx, int widx)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	return ivn_pidx_ok(ivn, pidx) && widx == pidx ? 0 : -EINVAL;
}

static u64 ivn_db_valid_mask(struct ntb_dev *ntb)
{
	return GENMASK_ULL(IVN_DB_BITS - 1, 0);
}

static u64 ivn_db_read(struct ntb_dev *ntb)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;
	u64 db;

	spin_lock_irqsave(&ivn->db_lock, flags);
	db = ivn->db_pending;
	spin_unlock_irqrestore(&ivn->db_lock, flags);
	return db;
}

/* Local set: raise bits in this port's own inbound register. */
static int ivn_db_set(struct ntb_dev *ntb, u64 db_bits)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;

	if (db_bits & ~ivn_db_valid_mask(ntb))
		return -EINVAL;
	spin_lock_irqsave(&ivn->db_lock, flags);
	ivn->db_pending |= db_bits;
	spin_unlock_irqrestore(&ivn->db_lock, flags);
	ivn_db_kick(ivn);
	return 0;
}

static int ivn_db_clear(struct ntb_dev *ntb, u64 db_bits)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;

	if (db_bits & ~ivn_db_valid_mask(ntb))
		return -EINVAL;
	spin_lock_irqsave(&ivn->db_lock, flags);
	ivn->db_pending &= ~db_bits;
	ivn->db_fired &= ~db_bits;
	spin_unlock_irqrestore(&ivn->db_lock, flags);
	return 0;
}

static u64 ivn_db_read_mask(struct ntb_dev *ntb)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;
	u64 mask;

	spin_lock_irqsave(&ivn->db_lock, flags);
	mask = ivn->db_mask;
	spin_unlock_irqrestore(&ivn->db_lock, flags);
	return mask;
}

static int ivn_db_set_mask(struct ntb_dev *ntb, u64 db_bits)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;

	if (db_bits & ~ivn_db_valid_mask(ntb))
		return -EINVAL;
	spin_lock_irqsave(&ivn->db_lock, flags);
	ivn->db_mask |= db_bits;
	/* unmasking a still pending bit interrupts again */
	ivn->db_fired &= ~db_bits;
	spin_unlock_irqrestore(&ivn->db_lock, flags);
	return 0;
}

static int ivn_db_clear_mask(struct ntb_dev *ntb, u64 db_bits)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	unsigned long flags;
	bool reassert;

	if (db_bits & ~ivn_db_valid_mask(ntb))
		return -EINVAL;
	spin_lock_irqsave(&ivn->db_lock, flags);
	ivn->db_mask &= ~db_bits;
	reassert = ivn->db_pending & db_bits & ~ivn->db_fired;
	spin_unlock_irqrestore(&ivn->db_lock, flags);
	if (reassert)
		ivn_db_kick(ivn);
	return 0;
}

static int ivn_peer_db_set(struct ntb_dev *ntb, u64 db_bits)
{
	if (db_bits & ~ivn_db_valid_mask(ntb))
		return -EINVAL;
	return ivn_db_ring(ntb_to_ivn(ntb), db_bits);
}

static int ivn_spad_count(struct ntb_dev *ntb)
{
	return IVN_SPAD_COUNT;
}

static bool ivn_sidx_ok(int sidx)
{
	return sidx >= 0 && sidx < IVN_SPAD_COUNT;
}

static u32 ivn_spad_read(struct ntb_dev *ntb, int sidx)
{
	if (!ivn_sidx_ok(sidx))
		return 0;
	return ioread32(ntb_to_ivn(ntb)->slot + IVN_SL_SPAD(sidx));
}

static int ivn_spad_write(struct ntb_dev *ntb, int sidx, u32 val)
{
	if (!ivn_sidx_ok(sidx))
		return -EINVAL;
	iowrite32(val, ntb_to_ivn(ntb)->slot + IVN_SL_SPAD(sidx));
	return 0;
}

static int ivn_peer_spad_addr(struct ntb_dev *ntb, int pidx, int sidx,
			      phys_addr_t *spad_addr)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || !ivn_sidx_ok(sidx))
		return -EINVAL;
	if (spad_addr)
		*spad_addr = pci_resource_start(ivn->pdev, 2) +
			     (ivn->peers[pidx].slot - ivn->regs) +
			     IVN_SL_SPAD(sidx);
	return 0;
}

static u32 ivn_peer_spad_read(struct ntb_dev *ntb, int pidx, int sidx)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || !ivn_sidx_ok(sidx))
		return 0;
	return ioread32(ivn->peers[pidx].slot + IVN_SL_SPAD(sidx));
}

static int ivn_peer_spad_write(struct ntb_dev *ntb, int pidx, int sidx,
			       u32 val)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || !ivn_sidx_ok(sidx))
		return -EINVAL;
	iowrite32(val, ivn->peers[pidx].slot + IVN_SL_SPAD(sidx));
	return 0;
}

static struct device *ivn_get_dma_dev(struct ntb_dev *ntb)
{
	return &ntb->pdev->dev;
}

const struct ntb_dev_ops ivn_ntb_ops = {
	.port_number		= ivn_port_number,
	.peer_port_count	= ivn_peer_port_count,
	.peer_port_number	= ivn_peer_port_number,
	.peer_port_idx		= ivn_peer_port_idx,
	.link_is_up		= ivn_link_is_up,
	.link_enable		= ivn_link_enable,
	.link_disable		= ivn_link_disable,
	.mw_count		= ivn_mw_count,
	.mw_get_align		= ivn_mw_get_align,
	.mw_set_trans		= ivn_mw_set_trans,
	.mw_clear_trans		= ivn_mw_clear_trans,
	.peer_mw_count		= ivn_peer_mw_count,
	.peer_mw_get_addr	= ivn_peer_mw_get_addr,
	.peer_mw_set_trans	= ivn_peer_mw_set_trans,
	.peer_mw_clear_trans	= ivn_peer_mw_clear_trans,
	.db_valid_mask		= ivn_db_valid_mask,
	.db_read		= ivn_db_read,
	.db_set			= ivn_db_set,
	.db_clear		= ivn_db_clear,
	.db_read_mask		= ivn_db_read_mask,
	.db_set_mask		= ivn_db_set_mask,
	.db_clear_mask		= ivn_db_clear_mask,
	.peer_db_set		= ivn_peer_db_set,
	.spad_count		= ivn_spad_count,
	.spad_read		= ivn_spad_read,
	.spad_write		= ivn_spad_write,
	.peer_spad_addr		= ivn_peer_spad_addr,
	.peer_spad_read		= ivn_peer_spad_read,
	.peer_spad_write	= ivn_peer_spad_write,
	.get_dma_dev		= ivn_get_dma_dev,
};
