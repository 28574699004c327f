// SPDX-License-Identifier: GPL-2.0
/*
 * struct ntb_dev_ops of the emulated NTB.
 *
 * Ports: guest i of the cluster is port i; peers are indexed (pidx) in
 * increasing port order. Memory windows: see "direct" and "translated"
 * below.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include "ntb_ivshmem.h"

static int ivn_port_number(struct ntb_dev *ntb)
{
	return ntb_to_ivn(ntb)->port;
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
	return ivn->peers[pidx].hw_port;
}

static int ivn_peer_port_idx(struct ntb_dev *ntb, int port)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	int pidx;

	for (pidx = 0; pidx < ivn->npeers; pidx++)
		if (ivn->peers[pidx].hw_port == port)
			return pidx;
	return -EINVAL;
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

/*
 * Memory windows come in two configurations, chosen with the module
 * parameters below and identical on every guest of a cluster:
 *
 * direct (mw_size=0, the default): one inbound window per peer, fixed
 *   "flat" at address 0 over this guest's whole RAM; outbound window w is
 *   peer w's whole RAM. Any other translation is refused.
 *
 * translated (mw_size=N): mw_count inbound windows per peer of N bytes
 *   each, like an Intel NTB's BARs. ntb_mw_set_trans() accepts any DMA
 *   address aligned to N (guest-physical: there is no IOMMU) with a size
 *   of whole pages up to N, and publishes it in this guest's slot of the
 *   register region. Outbound window pidx * mw_count + w reaches peer
 *   pidx's window w: ntb_peer_mw_get_addr() reads the translation the
 *   peer published and returns exactly [addr, addr + size) of that peer's
 *   RAM; while the peer has not opened the window, the window's home in
 *   the peer's window memory (winmem.c) if the host reserved some, else
 *   -ENOLINK.
 */
unsigned int ivn_mw_count_param = 2;
module_param_named(mw_count, ivn_mw_count_param, uint, 0444);
MODULE_PARM_DESC(mw_count, "translated mode: inbound windows per peer, 1..8 (default 2)");

unsigned long ivn_mw_size_param;
module_param_named(mw_size, ivn_mw_size_param, ulong, 0444);
MODULE_PARM_DESC(mw_size, "bytes per window and their address alignment, a power of two >= PAGE_SIZE; 0 (default) = direct mode, one flat window over the whole RAM");

/* Module load: refuse impossible window parameters. */
int ivn_mw_params_check(void)
{
	if (!ivn_profile_default() && ivn_mw_size_param) {
		pr_err("%s: refusing: mw_size=%lu with profile=%s, whose windows are fixed\n",
		       KBUILD_MODNAME, ivn_mw_size_param, ivn_profile->name);
		return -EINVAL;
	}
	if (ivn_mw_count_param < 1 || ivn_mw_count_param > IVN_MAX_MW) {
		pr_err("%s: refusing: mw_count=%u, must be 1..%d\n",
		       KBUILD_MODNAME, ivn_mw_count_param, IVN_MAX_MW);
		return -EINVAL;
	}
	if (ivn_mw_size_param &&
	    (!is_power_of_2(ivn_mw_size_param) ||
	     ivn_mw_size_param < PAGE_SIZE || ivn_mw_size_param > SZ_2G)) {
		pr_err("%s: refusing: mw_size=%lu, must be 0 or a power of two from %lu to %lu\n",
		       KBUILD_MODNAME, ivn_mw_size_param, PAGE_SIZE,
		       (unsigned long)SZ_2G);
		return -EINVAL;
	}
	return 0;
}

static bool ivn_direct(struct ivn_dev *ivn)
{
	return !ivn->mw_size;
}

static void __iomem *ivn_xlat_entry(void __iomem *slot, int port, int widx)
{
	return slot + IVN_SL_XLAT(port, widx);
}

/* Publish (addr, size) for inbound window widx of peer pidx. */
static void ivn_xlat_publish(struct ivn_dev *ivn, int pidx, int widx,
			     u64 addr, u64 size)
{
	void __iomem *e = ivn_xlat_entry(ivn->slot, ivn->peers[pidx].port,
					 widx);
	u32 *gen = &ivn->xlat_gen[pidx][widx];

	spin_lock(&ivn->xlat_lock);
	/* odd gen: readers retry until the entry is whole again */
	iowrite32(++*gen, e + IVN_XL_GEN);
	/* odd gen is visible before the fields change */
	wmb();
	iowrite32(lower_32_bits(addr), e + IVN_XL_ADDR_LO);
	iowrite32(upper_32_bits(addr), e + IVN_XL_ADDR_HI);
	iowrite32(size, e + IVN_XL_SIZE);
	/* the new fields are visible before the even gen */
	wmb();
	iowrite32(++*gen, e + IVN_XL_GEN);
	spin_unlock(&ivn->xlat_lock);
}

/* Slot start: publish the window configuration, every window closed. */
void ivn_xlat_init(struct ivn_dev *ivn)
{
	int p, w;

	spin_lock_init(&ivn->xlat_lock);
	iowrite32(lower_32_bits(ivn->mw_size), ivn->slot + IVN_SL_MW_SIZE);
	iowrite32(upper_32_bits(ivn->mw_size), ivn->slot + IVN_SL_MW_SIZE_HI);
	iowrite32(ivn->mw_count, ivn->slot + IVN_SL_MW_COUNT);
	for (p = 0; p < IVN_MAX_NODES; p++)
		for (w = 0; w < IVN_MAX_MW; w++) {
			void __iomem *e = ivn_xlat_entry(ivn->slot, p, w);

			iowrite32(0, e + IVN_XL_GEN);
			iowrite32(0, e + IVN_XL_ADDR_LO);
			iowrite32(0, e + IVN_XL_ADDR_HI);
			iowrite32(0, e + IVN_XL_SIZE);
		}
	memset(ivn->xlat_gen, 0, sizeof(ivn->xlat_gen));
}

/*
 * A translation the hardware of the profile takes: aligned as
 * ntb_mw_get_align() says, inside RAM and the window; switchtec also
 * wants the address aligned to the size (rounded down to a power of two,
 * at least 4 KiB) whatever it reports.
 */
static bool ivn_xlat_ok(struct ivn_dev *ivn, u64 addr, u64 size)
{
	if (!size || !IS_ALIGNED(addr, ivn->addr_align) ||
	    !IS_ALIGNED(size, ivn->size_align) || size > ivn->mw_size ||
	    size > ivn->ram_size || addr > ivn->ram_size - size)
		return false;
	if (ivn->prof->xlat_size_aligned &&
	    (size < SZ_4K || !IS_ALIGNED(addr, rounddown_pow_of_two(size))))
		return false;
	return true;
}

/*
 * Read the translation peer pidx published for its window widx towards
 * us. A peer not running, or running with another window configuration
 * (it may be between two loads of the driver), has opened nothing for us:
 * -ENOLINK. The peer's memory is untrusted: anything that is not a whole,
 * aligned window inside its RAM is reported as -EIO.
 */
static int ivn_xlat_read(struct ivn_dev *ivn, int pidx, int widx,
			 u64 *addr, u64 *size)
{
	struct ivn_peer *peer = &ivn->peers[pidx];
	void __iomem *e = ivn_xlat_entry(peer->slot, ivn->self, widx);
	int tries = 100;
	u32 g1, g2;

	if (!ioread32(peer->slot + IVN_SL_INCARNATION))
		return -ENOLINK;
	if (ioread32(peer->slot + IVN_SL_MW_SIZE) !=
	    lower_32_bits(ivn->mw_size) ||
	    ioread32(peer->slot + IVN_SL_MW_SIZE_HI) !=
	    upper_32_bits(ivn->mw_size) ||
	    ioread32(peer->slot + IVN_SL_MW_COUNT) != ivn->mw_count) {
		dev_dbg(&ivn->ntb.dev, "peer %d has another window configuration\n",
			peer->port);
		return -ENOLINK;
	}
	do {
		g1 = ioread32(e + IVN_XL_GEN);
		/* pairs with the first wmb() of ivn_xlat_publish() */
		rmb();
		*addr = ioread32(e + IVN_XL_ADDR_LO) |
			(u64)ioread32(e + IVN_XL_ADDR_HI) << 32;
		*size = ioread32(e + IVN_XL_SIZE);
		/* pairs with the second wmb() of ivn_xlat_publish() */
		rmb();
		g2 = ioread32(e + IVN_XL_GEN);
	} while ((g1 != g2 || (g1 & 1)) && --tries);
	if (!tries)
		return -EBUSY;
	if (!*size)
		return -ENOLINK;
	if (!ivn_xlat_ok(ivn, *addr, *size))
		return -EIO;
	return 0;
}

static int ivn_mw_count(struct ntb_dev *ntb, int pidx)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	return ivn_pidx_ok(ivn, pidx) ? ivn->mw_count : -EINVAL;
}

static int ivn_mw_get_align(struct ntb_dev *ntb, int pidx, int widx,
			    resource_size_t *addr_align,
			    resource_size_t *size_align,
			    resource_size_t *size_max)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	bool direct = ivn_direct(ivn);

	if (!ivn_pidx_ok(ivn, pidx) || widx < 0 || widx >= ivn->mw_count)
		return -EINVAL;
	/* direct: only base 0 and the whole RAM can be honoured */
	if (addr_align)
		*addr_align = direct ? ivn->ram_size : ivn->addr_align;
	if (size_align)
		*size_align = direct ? ivn->ram_size : ivn->size_align;
	if (size_max)
		*size_max = direct ? ivn->ram_size : ivn->mw_size;
	/* the caller's buffer for this window may now land in its home */
	if (!direct)
		ivn_wm_arm(ivn, pidx, widx);
	return 0;
}

static int ivn_mw_set_trans(struct ntb_dev *ntb, int pidx, int widx,
			    dma_addr_t addr, resource_size_t size)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || widx < 0 || widx >= ivn->mw_count)
		return -EINVAL;
	if (ivn_direct(ivn)) {
		if (addr != 0 || size != ivn->ram_size) {
			dev_dbg(&ntb->dev,
				"refused translation %pad+%pa: window is flat over RAM\n",
				&addr, &size);
			return -EINVAL;
		}
		return 0;
	}
	/* the peer reaches guest-physical addresses: dma_addr_t == phys */
	if (!ivn_xlat_ok(ivn, addr, size)) {
		dev_dbg(&ntb->dev,
			"refused translation %pad+%pa: not an aligned window in RAM\n",
			&addr, &size);
		return -EINVAL;
	}
	ivn_xlat_publish(ivn, pidx, widx, addr, size);
	return 0;
}

/* Direct: the flat window cannot be closed, clearing it is a no-op. */
static int ivn_mw_clear_trans(struct ntb_dev *ntb, int pidx, int widx)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || widx < 0 || widx >= ivn->mw_count)
		return -EINVAL;
	if (!ivn_direct(ivn))
		ivn_xlat_publish(ivn, pidx, widx, 0, 0);
	return 0;
}

static int ivn_peer_mw_count(struct ntb_dev *ntb)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	return ivn->npeers * ivn->mw_count;
}

static int ivn_peer_mw_get_addr(struct ntb_dev *ntb, int widx,
				phys_addr_t *base, resource_size_t *size)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	int pidx, w, ret;
	u64 a, s;

	if (widx < 0 || widx >= ivn_peer_mw_count(ntb))
		return -EINVAL;
	if (ivn_direct(ivn)) {
		a = 0;
		s = ivn->ram_size;
		pidx = widx;
	} else {
		pidx = widx / ivn->mw_count;
		w = widx % ivn->mw_count;
		ret = ivn_xlat_read(ivn, pidx, w, &a, &s);
		/* not opened yet: where the peer's window buffer will be */
		if (ret == -ENOLINK && ivn_wm_peer_home(ivn, pidx, w, &a))
			s = ivn->mw_size;
		else if (ret)
			return ret;
	}
	if (base)
		*base = ivn->peers[pidx].mw_base + a;
	if (size)
		*size = s;
	return 0;
}

/*
 * The translation of a window is set by its owner (inbound, like Intel
 * NTBs), so the outbound side has nothing to program: direct mode accepts
 * only the fixed mapping; translated mode accepts a window of that peer
 * and ignores addr, as an NTB without outbound translation does, but
 * refuses a size larger than the window the peer opened (or than the
 * window's home, while the peer has not opened it).
 */
static int ivn_peer_mw_set_trans(struct ntb_dev *ntb, int pidx, int widx,
				 u64 addr, resource_size_t size)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);
	u64 a, s;
	int ret;

	if (!ivn_pidx_ok(ivn, pidx))
		return -EINVAL;
	if (ivn_direct(ivn))
		return widx == pidx && addr == 0 && size == ivn->ram_size ?
		       0 : -EINVAL;
	if (widx < 0 || widx / ivn->mw_count != pidx)
		return -EINVAL;
	/* no mapping of more than the peer opened */
	ret = ivn_xlat_read(ivn, pidx, widx % ivn->mw_count, &a, &s);
	/* not opened yet: as much as its home, like ntb_peer_mw_get_addr() */
	if (ret == -ENOLINK &&
	    ivn_wm_peer_home(ivn, pidx, widx % ivn->mw_count, &a))
		s = ivn->mw_size;
	else if (ret)
		return ret;
	return size <= s ? 0 : -EINVAL;
}

static int ivn_peer_mw_clear_trans(struct ntb_dev *ntb, int pidx, int widx)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx))
		return -EINVAL;
	return widx >= 0 && widx / ivn->mw_count == pidx ? 0 : -EINVAL;
}

static u64 ivn_db_valid_mask(struct ntb_dev *ntb)
{
	return ntb_to_ivn(ntb)->prof->db_valid;
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

	if (ivn->prof->db_no_mask)
		return 0;
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

	if (ivn->prof->db_no_mask)
		return 0;
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
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (db_bits & ~ivn_db_valid_mask(ntb))
		return -EINVAL;
	/* one interrupt per call: the lowest bit asked for */
	if (ivn->prof->db_one_bit)
		db_bits &= -db_bits;
	return ivn_db_ring(ivn, db_bits);
}

static int ivn_spad_count(struct ntb_dev *ntb)
{
	return ntb_to_ivn(ntb)->prof->spads;
}

static bool ivn_sidx_ok(struct ivn_dev *ivn, int sidx)
{
	return sidx >= 0 && sidx < ivn->prof->spads;
}

static u32 ivn_spad_read(struct ntb_dev *ntb, int sidx)
{
	if (!ivn_sidx_ok(ntb_to_ivn(ntb), sidx))
		return 0;
	return ioread32(ntb_to_ivn(ntb)->slot + IVN_SL_SPAD(sidx));
}

static int ivn_spad_write(struct ntb_dev *ntb, int sidx, u32 val)
{
	if (!ivn_sidx_ok(ntb_to_ivn(ntb), sidx))
		return -EINVAL;
	iowrite32(val, ntb_to_ivn(ntb)->slot + IVN_SL_SPAD(sidx));
	return 0;
}

static int ivn_peer_spad_addr(struct ntb_dev *ntb, int pidx, int sidx,
			      phys_addr_t *spad_addr)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || !ivn_sidx_ok(ivn, sidx))
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

	if (!ivn_pidx_ok(ivn, pidx) || !ivn_sidx_ok(ivn, sidx))
		return 0;
	return ioread32(ivn->peers[pidx].slot + IVN_SL_SPAD(sidx));
}

static int ivn_peer_spad_write(struct ntb_dev *ntb, int pidx, int sidx,
			       u32 val)
{
	struct ivn_dev *ivn = ntb_to_ivn(ntb);

	if (!ivn_pidx_ok(ivn, pidx) || !ivn_sidx_ok(ivn, sidx))
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
	.msg_count		= ivn_msg_count,
	.msg_inbits		= ivn_msg_inbits,
	.msg_outbits		= ivn_msg_outbits,
	.msg_read_sts		= ivn_msg_read_sts,
	.msg_clear_sts		= ivn_msg_clear_sts,
	.msg_set_mask		= ivn_msg_set_mask,
	.msg_clear_mask		= ivn_msg_clear_mask,
	.msg_read		= ivn_msg_read,
	.peer_msg_write		= ivn_peer_msg_write,
	.get_dma_dev		= ivn_get_dma_dev,
};
