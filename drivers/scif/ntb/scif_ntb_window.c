// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF over NTB: the memory windows between this port and one peer port.
 *
 * Inbound, at every link-up, the mode of our window 0 is chosen:
 *
 * - direct: the window translates at address 0 and covers every DMA
 *   address of this host. The ring region may be anywhere, and the peer
 *   reaches our registered pages by the DMA addresses we advertise (RMA,
 *   mmap and scif_get_pages() of remote windows).
 * - translated: the window is smaller (the common case on real NTBs,
 *   whose BARs are sized by firmware). It is translated onto the ring
 *   region alone, which must then sit at the window's alignment, and
 *   nothing else of ours is reachable by the peer.
 *
 * Direct mode needs the window to cover all of RAM (or an IOMMU that
 * confines it), and allow_flat=Y when there is no IOMMU; otherwise the
 * translated mode is used. RMA reaches the peer's memory only when both
 * sides are direct; otherwise the core stages it through messages
 * (Documentation/scif-ntb.rst, "Window modes").
 *
 * Outbound, the window to the peer is mapped once the peer has announced
 * its ring: on some NTBs (the emulation among them) where the window lands
 * follows the peer's translation.
 */
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/log2.h>
#include <linux/sizes.h>

#include "scif_ntb.h"

/*
 * Largest buffer translated mode allocates for one ring region when the
 * window's size alignment rounds the region up: beyond, the window is not
 * meant for small buffers (the emulation's direct mode asks all of RAM).
 */
#define SCIF_NTB_XLAT_MAX	SZ_64M

static struct device *scif_ntb_win_dev(struct scif_ntb_peer *p)
{
	return &p->nd->ntb->dev;
}

/*
 * Whether an IOMMU stands between the peer and our memory: then a flat
 * window reaches only what we DMA-mapped for the peer (our rings and
 * registered windows), not all of RAM.
 */
static bool scif_ntb_iommu_guards(struct device *dev)
{
	struct iommu_domain *dom = dev ? iommu_get_domain_for_dev(dev) : NULL;

	return dom && dom->type != IOMMU_DOMAIN_IDENTITY;
}

/*
 * A direct window without an IOMMU lets the peer read and write all of our
 * memory, kernel included. Say so once per peer.
 */
static void scif_ntb_flat_warn(struct scif_ntb_peer *p)
{
	if (scif_ntb_iommu_guards(p->link.dma_dev) || p->flat_logged)
		return;
	p->flat_logged = true;
	dev_warn(scif_ntb_win_dev(p), "port %d: direct window with no IOMMU: the peer can read and write all of this host's memory (allow_flat=N uses translated mode instead)\n",
		 p->port);
}

static void scif_ntb_region_free(struct scif_ntb_peer *p)
{
	if (!p->region)
		return;
	dma_free_coherent(p->link.dma_dev, p->region_bytes, p->region,
			  p->region_dma);
	p->region = NULL;
	p->region_bytes = 0;
}

static int scif_ntb_region_alloc(struct scif_ntb_peer *p, size_t bytes)
{
	p->region = dma_alloc_coherent(p->link.dma_dev, bytes, &p->region_dma,
				       GFP_KERNEL | __GFP_NOWARN);
	if (!p->region)
		return -ENOMEM;
	p->region_bytes = bytes;
	return 0;
}

/* Direct mode: the whole window flat at 0, if it covers all we may use. */
static int scif_ntb_direct_setup(struct scif_ntb_peer *p,
				 resource_size_t size_max)
{
	struct device *dev = p->link.dma_dev;
	int ret;

	if (!dev || size_max - 1 < dma_get_required_mask(dev))
		return -ERANGE;
	if (!scif_ntb_iommu_guards(dev) && !READ_ONCE(scif_ntb_allow_flat))
		return -EPERM;
	if (!p->region) {
		ret = scif_ntb_region_alloc(p, p->nd->region_size);
		if (ret)
			return ret;
	}
	if (p->region_dma + p->nd->region_size > size_max)
		return -ERANGE;
	p->in_addr = 0;
	p->in_size = size_max;
	p->flat_in = true;
	p->ring_off = p->region_dma;
	scif_ntb_flat_warn(p);
	return 0;
}

/*
 * Translated mode: the ring region at the window's alignment, and the
 * window onto it alone. Called right after ntb_mw_get_align(), in the same
 * task: an NTB driver may place the next window-sized buffer by that.
 */
static int scif_ntb_xlat_setup(struct scif_ntb_peer *p,
			       resource_size_t addr_align,
			       resource_size_t size_align,
			       resource_size_t size_max)
{
	size_t bytes = round_up(p->nd->region_size, max_t(resource_size_t,
							  size_align, 1));
	int ret;

	if (!is_power_of_2(addr_align))
		return -EINVAL;
	if (bytes > size_max || bytes > SCIF_NTB_XLAT_MAX)
		return -ENOSPC;
	if (p->region && (p->region_bytes < bytes ||
			  !IS_ALIGNED(p->region_dma, addr_align)))
		scif_ntb_region_free(p);
	if (!p->region) {
		ret = scif_ntb_region_alloc(p, bytes);
		if (ret)
			return ret;
	}
	if (!IS_ALIGNED(p->region_dma, addr_align)) {
		scif_ntb_region_free(p);
		return -EFAULT;
	}
	p->in_addr = p->region_dma;
	p->in_size = bytes;
	p->flat_in = false;
	p->ring_off = 0;
	return 0;
}

/**
 * scif_ntb_mw_setup() - choose how our inbound window from the peer is to be
 *	opened, in the mode the window allows, onto a ring region suited to it
 * @p: the peer; its handshake lock is held
 *
 * Sets &scif_ntb_peer.flat_in, .ring_off, .in_addr and .in_size. The window
 * stays closed: scif_ntb_mw_open() opens it.
 *
 * Return: 0, or a negative error after one log line (the link is refused).
 */
int scif_ntb_mw_setup(struct scif_ntb_peer *p)
{
	struct ntb_dev *ntb = p->nd->ntb;
	resource_size_t addr_align, size_align, size_max;
	int direct, ret;

	lockdep_assert_held(&p->lock);

	if (ntb_mw_count(ntb, p->pidx) < 1) {
		dev_err(scif_ntb_win_dev(p), "refusing port %d: no inbound memory window\n",
			p->port);
		return -ENODEV;
	}
	ret = ntb_mw_get_align(ntb, p->pidx, 0, &addr_align, &size_align,
			       &size_max);
	if (ret || !size_max) {
		dev_err(scif_ntb_win_dev(p), "refusing port %d: inbound window unusable (%d)\n",
			p->port, ret);
		return ret ?: -ENODEV;
	}
	/* No address constraint: any address will do. */
	if (!addr_align)
		addr_align = 1;
	direct = scif_ntb_direct_setup(p, size_max);
	if (!direct)
		return 0;
	ret = scif_ntb_xlat_setup(p, addr_align, size_align, size_max);
	if (!ret)
		return 0;
	if (direct == -EPERM)
		dev_err(scif_ntb_win_dev(p), "refusing port %d: translated mode unavailable (%d) and direct mode not allowed without an IOMMU (allow_flat=N)\n",
			p->port, ret);
	else
		dev_err(scif_ntb_win_dev(p), "refusing port %d: inbound window fits neither direct (%d) nor translated mode (%d)\n",
			p->port, direct, ret);
	return ret;
}

/**
 * scif_ntb_mw_open() - let the peer reach our memory through the window
 *	scif_ntb_mw_setup() chose
 * @p: the peer; its handshake lock is held
 *
 * Return: 0, or a negative error after one log line (the link is refused).
 */
int scif_ntb_mw_open(struct scif_ntb_peer *p)
{
	int ret;

	lockdep_assert_held(&p->lock);

	if (p->in_open)
		return 0;
	ret = ntb_mw_set_trans(p->nd->ntb, p->pidx, 0, p->in_addr, p->in_size);
	if (ret) {
		dev_err(scif_ntb_win_dev(p), "refusing port %d: cannot open the inbound window (%d)\n",
			p->port, ret);
		return ret;
	}
	p->in_open = true;
	return 0;
}

/**
 * scif_ntb_mw_close() - the peer no longer reaches our memory
 * @p: the peer; its handshake lock is held
 */
void scif_ntb_mw_close(struct scif_ntb_peer *p)
{
	lockdep_assert_held(&p->lock);

	if (!p->in_open)
		return;
	ntb_mw_clear_trans(p->nd->ntb, p->pidx, 0);
	p->in_open = false;
}

/* The peer's window 0 among our outbound windows, or -1. */
static int scif_ntb_out_widx(struct scif_ntb_peer *p)
{
	int per = ntb_peer_mw_count(p->nd->ntb) / p->nd->npeers;

	return per > 0 ? p->pidx * per : -1;
}

static void scif_ntb_unmap_peer(struct scif_ntb_peer *p)
{
	if (p->mem)
		memunmap(p->mem);
	if (p->win)
		iounmap(p->win);
	p->mem = NULL;
	p->win = NULL;
	p->win_phys = 0;
	p->win_size = 0;
}

/**
 * scif_ntb_map_peer() - map the outbound window onto the peer's window 0
 * @p: the peer; its handshake lock is held and no sender, drain or backlog
 *     work uses the mapping (the node is not online)
 *
 * Keeps the mapping of the previous session if the window did not move.
 *
 * Return: 0, -ENOLINK while the peer has not opened its window, or another
 * negative error.
 */
int scif_ntb_map_peer(struct scif_ntb_peer *p)
{
	int widx = scif_ntb_out_widx(p);
	resource_size_t size;
	phys_addr_t phys;
	int ret;

	lockdep_assert_held(&p->lock);

	if (widx < 0)
		return -ENODEV;
	ret = ntb_peer_mw_get_addr(p->nd->ntb, widx, &phys, &size);
	if (ret)
		return ret;
	if (!size)
		return -ENOLINK;
	if (p->win && (phys != p->win_phys || size != p->win_size))
		scif_ntb_unmap_peer(p);
	if (p->win)
		return 0;
	p->win = ioremap_wc(phys, size);
	if (!p->win)
		return -ENOMEM;
	p->win_phys = phys;
	p->win_size = size;
	/*
	 * The same window again, as memory (also write-combining): records
	 * and RMA copies through it are memcpy(), which moves pages at about
	 * twice the speed of memcpy_toio()'s string moves (measured under
	 * TCG). The window holds no registers, so nothing is lost.
	 */
	p->mem = memremap(phys, size, MEMREMAP_WC);
	if (!p->mem) {
		scif_ntb_unmap_peer(p);
		return -ENOMEM;
	}
	return 0;
}

/**
 * scif_ntb_set_rma() - tell the core whether, and how, the link reaches the
 *	peer's memory
 * @p: the peer, about to be added as a node (its handshake lock is held)
 * @on: both sides are direct and @p->mem maps the peer's window
 */
void scif_ntb_set_rma(struct scif_ntb_peer *p, bool on)
{
	lockdep_assert_held(&p->lock);

	p->link.peer_mem = on ? p->mem : NULL;
	p->link.peer_mem_dma = on ? p->win_phys : 0;
	p->link.peer_mem_phys = on ? p->win_phys : 0;
	p->link.peer_mem_size = on ? p->win_size : 0;
}

/**
 * scif_ntb_windows_free() - release the ring region and the outbound mapping
 * @p: the peer, down for good
 */
void scif_ntb_windows_free(struct scif_ntb_peer *p)
{
	scif_ntb_region_free(p);
	scif_ntb_unmap_peer(p);
}

/**
 * scif_ntb_peer_has_window() - whether the NTB gives @p an outbound window
 * @p: the peer
 *
 * Return: true if ntb_peer_mw_count() leaves a window for @p's port.
 */
bool scif_ntb_peer_has_window(struct scif_ntb_peer *p)
{
	return scif_ntb_out_widx(p) >= 0;
}
