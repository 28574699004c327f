// SPDX-License-Identifier: GPL-2.0
/*
 * Window memory: fixed homes for translated windows.
 *
 * On hardware, a peer's outbound window is a BAR at a fixed physical
 * address, and the owner points it at its memory by programming the
 * window's translation. Clients such as ntb_transport and ntb_perf rely on
 * that: they map the peer's window once, at probe, long before the peer
 * chose where its window points. The emulation cannot move what a fixed
 * guest-physical range of a BAR shows, so in translated mode a window can
 * be given a fixed place instead, its home.
 *
 * When the host reserves window memory (the header's winmem field, and
 * memmap= on every guest's command line so that the guest kernel leaves
 * it alone), the top winmem bytes of each guest's RAM hold one home of
 * mw_size bytes per inbound window: window w towards peer pidx lives at
 * block pidx * mw_count + w. A peer asking for a window that its owner
 * has not opened gets the home (ntb_peer_mw_get_addr() in ops.c).
 *
 * The owner's clients allocate a window's buffer with the DMA API on the
 * NTB's device, right after asking ntb_mw_get_align() for that window.
 * So the driver puts its own dma_map_ops on that device:
 * ntb_mw_get_align() arms the calling task with the window, and that
 * task's next coherent allocation that fits in a window, within a second,
 * is served from the window's home. Every other allocation comes from the
 * page allocator and every mapping is the identity, as on a machine
 * without an IOMMU (which the emulation is).
 */
#include <linux/dma-map-ops.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>

#include "ntb_ivshmem.h"

/* How long ntb_mw_get_align() keeps its caller armed. */
#define IVN_WM_ARM_JIFFIES	HZ

/* Index of the home of window widx towards peer pidx, -1 if none. */
static int ivn_wm_index(struct ivn_dev *ivn, int pidx, int widx)
{
	int idx = pidx * ivn->mw_count + widx;

	if (!ivn->wm_size || (u64)(idx + 1) * ivn->mw_size > ivn->wm_size)
		return -1;
	return idx;
}

/**
 * ivn_wm_peer_home() - where a peer keeps its window towards us
 * @ivn:	this port.
 * @pidx:	the peer.
 * @widx:	the peer's inbound window, 0..mw_count-1.
 * @addr:	set to the guest-physical address of the home in the peer.
 *
 * Every guest of a cluster has the same RAM size, window memory and window
 * parameters, so the peer's layout is known without asking it.
 *
 * Return: true if that window has a home.
 */
bool ivn_wm_peer_home(struct ivn_dev *ivn, int pidx, int widx, u64 *addr)
{
	int port = ivn->peers[pidx].port;
	/* our index among the peer's peers (2-port: its only one) */
	int our_pidx = ivn->prof->two_port ? 0 :
		       ivn->self < port ? ivn->self : ivn->self - 1;
	int idx = ivn_wm_index(ivn, our_pidx, widx);

	if (idx < 0)
		return false;
	*addr = ivn->ram_size - ivn->wm_size + (u64)idx * ivn->mw_size;
	return true;
}

/**
 * ivn_wm_arm() - serve the caller's next window-sized allocation from a home
 * @ivn:	this port.
 * @pidx:	peer of the window.
 * @widx:	inbound window.
 *
 * Called by ntb_mw_get_align(); does nothing where the window has no home.
 */
void ivn_wm_arm(struct ivn_dev *ivn, int pidx, int widx)
{
	int idx = ivn_wm_index(ivn, pidx, widx);

	if (idx < 0)
		return;
	spin_lock(&ivn->wm_lock);
	ivn->wm_armed = idx;
	ivn->wm_armed_task = current;
	ivn->wm_armed_at = jiffies;
	spin_unlock(&ivn->wm_lock);
}

/* Take the home the calling task was armed with, if it fits; or -1. */
static int ivn_wm_take(struct ivn_dev *ivn, size_t size)
{
	int idx = -1;

	spin_lock(&ivn->wm_lock);
	if (ivn->wm_armed >= 0 && ivn->wm_armed_task == current &&
	    time_before(jiffies, ivn->wm_armed_at + IVN_WM_ARM_JIFFIES) &&
	    size <= ivn->mw_size && !test_bit(ivn->wm_armed, ivn->wm_busy)) {
		idx = ivn->wm_armed;
		__set_bit(idx, ivn->wm_busy);
	}
	if (ivn->wm_armed_task == current) {
		ivn->wm_armed = -1;
		ivn->wm_armed_task = NULL;
	}
	spin_unlock(&ivn->wm_lock);
	return idx;
}

static void *ivn_wm_alloc(struct device *dev, size_t size,
			  dma_addr_t *handle, gfp_t gfp, unsigned long attrs)
{
	struct ivn_dev *ivn = dev_get_drvdata(dev);
	unsigned int order = get_order(size);
	struct page *page;
	int idx;

	idx = ivn_wm_take(ivn, size);
	if (idx >= 0) {
		void *va = ivn->wm_virt + (size_t)idx * ivn->mw_size;

		memset(va, 0, size);
		*handle = ivn->wm_base + (u64)idx * ivn->mw_size;
		dev_dbg(&ivn->ntb.dev, "window home %d handed out (%zu bytes)\n",
			idx, size);
		return va;
	}
	/* what dma-direct does without CMA: one high-order block */
	if (order > MAX_PAGE_ORDER)
		return NULL;
	page = alloc_pages(gfp | __GFP_ZERO, order);
	if (!page)
		return NULL;
	*handle = page_to_phys(page);
	return page_address(page);
}

static bool ivn_wm_owns(struct ivn_dev *ivn, dma_addr_t handle)
{
	return handle >= ivn->wm_base && handle - ivn->wm_base < ivn->wm_size;
}

static void ivn_wm_free(struct device *dev, size_t size, void *va,
			dma_addr_t handle, unsigned long attrs)
{
	struct ivn_dev *ivn = dev_get_drvdata(dev);

	if (ivn_wm_owns(ivn, handle)) {
		spin_lock(&ivn->wm_lock);
		__clear_bit((handle - ivn->wm_base) / ivn->mw_size,
			    ivn->wm_busy);
		spin_unlock(&ivn->wm_lock);
		return;
	}
	__free_pages(virt_to_page(va), get_order(size));
}

static dma_addr_t ivn_wm_map_page(struct device *dev, struct page *page,
				  unsigned long offset, size_t size,
				  enum dma_data_direction dir,
				  unsigned long attrs)
{
	return page_to_phys(page) + offset;
}

static int ivn_wm_map_sg(struct device *dev, struct scatterlist *sgl,
			 int nents, enum dma_data_direction dir,
			 unsigned long attrs)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i) {
		sg->dma_address = sg_phys(sg);
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

static dma_addr_t ivn_wm_map_resource(struct device *dev, phys_addr_t phys,
				      size_t size,
				      enum dma_data_direction dir,
				      unsigned long attrs)
{
	return phys;
}

static const struct dma_map_ops ivn_wm_dma_ops = {
	.alloc		= ivn_wm_alloc,
	.free		= ivn_wm_free,
	.map_page	= ivn_wm_map_page,
	.map_sg		= ivn_wm_map_sg,
	.map_resource	= ivn_wm_map_resource,
};

/**
 * ivn_wm_setup() - take the window memory the host reserved
 * @ivn:	this port, header checked, drvdata set.
 * @size:	the header's winmem: bytes at the top of every guest's RAM.
 *
 * Only in translated mode. Memory that this guest's kernel uses as RAM
 * (booted without the matching memmap=) is never handed out: windows then
 * have no home, with one warning.
 */
void ivn_wm_setup(struct ivn_dev *ivn, u64 size)
{
	struct pci_dev *pdev = ivn->pdev;
	u64 base = ivn->ram_size - size;

	spin_lock_init(&ivn->wm_lock);
	ivn->wm_armed = -1;
	if (!ivn->mw_size || !size)
		return;
	if (!IS_ENABLED(CONFIG_ARCH_HAS_DMA_OPS)) {
		pci_warn(pdev, "kernel without per-device DMA operations: windows have no home\n");
		return;
	}
	if (size > ivn->ram_size / 2 || !IS_ALIGNED(size, ivn->mw_size)) {
		pci_warn(pdev, "window memory of %llu KiB is not whole %llu KiB windows in half the RAM: windows have no home\n",
			 size >> 10, ivn->mw_size >> 10);
		return;
	}
	if (region_intersects(base, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pci_warn(pdev, "window memory at %#llx is RAM of this guest (no memmap= reservation): windows have no home\n",
			 base);
		return;
	}
	ivn->wm_virt = memremap(base, size, MEMREMAP_WB);
	if (!ivn->wm_virt) {
		pci_warn(pdev, "cannot map window memory at %#llx: windows have no home\n",
			 base);
		return;
	}
	ivn->wm_base = base;
	ivn->wm_size = size;
	set_dma_ops(&pdev->dev, &ivn_wm_dma_ops);
	pci_info(pdev, "window memory: %llu MiB at %#llx, homes for %llu windows\n",
		 size >> 20, base, div64_u64(size, ivn->mw_size));
}

/**
 * ivn_wm_teardown() - give the device its DMA operations back
 * @ivn:	this port, its clients unbound.
 *
 * A home still handed out means a client did not free its buffer: the
 * mapping is then left in place rather than pulled from under it.
 */
void ivn_wm_teardown(struct ivn_dev *ivn)
{
	int busy;

	if (!ivn->wm_size)
		return;
	set_dma_ops(&ivn->pdev->dev, NULL);
	busy = bitmap_weight(ivn->wm_busy, IVN_WM_MAX_HOMES);
	if (busy) {
		pci_err(ivn->pdev, "%d window buffers were never freed: window memory stays mapped\n",
			busy);
		return;
	}
	memunmap(ivn->wm_virt);
	ivn->wm_virt = NULL;
	ivn->wm_size = 0;
}
