// SPDX-License-Identifier: GPL-2.0
/*
 * swdma: running one transfer. A DMA address is a CPU physical address
 * (see swdma_main.c); RAM is reached through the kernel's mapping, other
 * memory (a PCI BAR such as an NTB window) through memremap(), whose
 * result each channel side keeps for the next piece.
 */
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "swdma_dev.h"

void swdma_win_drop(struct swdma_win *w)
{
	if (w->len)
		memunmap(w->va);
	w->len = 0;
	w->va = NULL;
}

/**
 * struct swdma_pf - search for the prefetchable resource holding an address
 * @pa: the address
 * @start: first byte of that resource inside the searched block
 * @end: last byte of it inside the block
 * @found: whether there is one
 */
struct swdma_pf {
	phys_addr_t pa;
	resource_size_t start;
	resource_size_t end;
	bool found;
};

/* walk_iomem_res_desc() callback: @r is clipped to the searched block. */
static int swdma_pf_match(struct resource *r, void *arg)
{
	struct swdma_pf *pf = arg;

	if (r->start > pf->pa || r->end < pf->pa)
		return 0;
	pf->start = r->start;
	pf->end = r->end;
	pf->found = true;
	return 1;
}

/*
 * The part of @pa's aligned %SWDMA_BLOCK that lies in the same
 * prefetchable memory resource as @pa, if that part is whole pages. Only
 * such memory may be mapped beyond what a descriptor touches: speculative
 * reads and merged writes are harmless there, not in device registers.
 */
static bool swdma_pf_block(phys_addr_t pa, phys_addr_t *base, size_t *len)
{
	phys_addr_t first = ALIGN_DOWN(pa, SWDMA_BLOCK);
	struct swdma_pf pf = { .pa = pa };

	walk_iomem_res_desc(IORES_DESC_NONE,
			    IORESOURCE_MEM | IORESOURCE_PREFETCH, first,
			    first + SWDMA_BLOCK - 1, &pf, swdma_pf_match);
	if (!pf.found || !PAGE_ALIGNED(pf.start) || !PAGE_ALIGNED(pf.end + 1))
		return false;
	*base = pf.start;
	*len = pf.end - pf.start + 1;
	return true;
}

/*
 * Kernel address for @pa in non-RAM memory, valid for *@n bytes (*@n is
 * reduced to what the mapping covers). @want is what is left of the transfer
 * on this side and sizes a new mapping outside prefetchable memory. NULL if
 * it cannot be mapped.
 */
static void *swdma_io_va(struct swdma_win *w, phys_addr_t pa, size_t want,
			 size_t *n)
{
	if (!w->len || pa < w->phys || pa - w->phys >= w->len) {
		phys_addr_t base = pa & PAGE_MASK;
		size_t len = PAGE_ALIGN(offset_in_page(pa) +
					min_t(size_t, want, SWDMA_WIN_MAX));
		unsigned long flags = MEMREMAP_WB | MEMREMAP_WC;

		swdma_win_drop(w);
		if (swdma_pf_block(pa, &base, &len))
			flags = MEMREMAP_WC;
		w->va = memremap(base, len, flags);
		if (!w->va)
			return NULL;
		w->phys = base;
		w->len = len;
	}
	*n = min_t(size_t, *n, w->len - (pa - w->phys));
	return w->va + (pa - w->phys);
}

/*
 * Kernel address for @pa in RAM, valid for *@n bytes. Without highmem all
 * RAM is in the linear map; with it, map one page at a time.
 */
static void *swdma_ram_va(phys_addr_t pa, size_t *n)
{
	if (IS_ENABLED(CONFIG_HIGHMEM)) {
		*n = min_t(size_t, *n, PAGE_SIZE - offset_in_page(pa));
		return kmap_local_pfn(PHYS_PFN(pa)) + offset_in_page(pa);
	}
	return phys_to_virt(pa);
}

static void swdma_ram_unmap(void *va)
{
	if (IS_ENABLED(CONFIG_HIGHMEM))
		kunmap_local(va);
}

/* Whether [pa, pa + len) is RAM (1), not RAM at all (0), or a mix (< 0). */
static int swdma_is_ram(phys_addr_t pa, size_t len)
{
	if (pa + len - 1 < pa)
		return -EFAULT;
	switch (region_intersects(pa, len, IORESOURCE_SYSTEM_RAM,
				  IORES_DESC_NONE)) {
	case REGION_INTERSECTS:
		return 1;
	case REGION_DISJOINT:
		return 0;
	default:
		return -EFAULT;
	}
}

/*
 * Copy @d chunk by chunk. Returns the number of bytes copied and sets
 * @res; stops early on abort or on an address that cannot be reached.
 */
size_t swdma_copy(struct swdma_chan *c, struct swdma_desc *d,
		  enum dmaengine_tx_result *res)
{
	phys_addr_t src = d->src, dst = d->dst;
	int src_ram, dst_ram;
	size_t done = 0;

	*res = DMA_TRANS_NOERROR;
	if (!d->len)
		return 0;

	src_ram = swdma_is_ram(src, d->len);
	dst_ram = swdma_is_ram(dst, d->len);
	if (src_ram < 0) {
		*res = DMA_TRANS_READ_FAILED;
		return 0;
	}
	if (dst_ram < 0) {
		*res = DMA_TRANS_WRITE_FAILED;
		return 0;
	}

	while (done < d->len) {
		size_t left = d->len - done;
		size_t n = min_t(size_t, left, SWDMA_CHUNK);
		void *s, *t;

		if (READ_ONCE(d->aborted)) {
			*res = DMA_TRANS_ABORTED;
			break;
		}

		/* The mapping calls may only shrink n. */
		if (src_ram)
			s = swdma_ram_va(src + done, &n);
		else
			s = swdma_io_va(&c->win[SWDMA_SRC], src + done, left, &n);
		if (!s) {
			*res = DMA_TRANS_READ_FAILED;
			break;
		}
		if (dst_ram)
			t = swdma_ram_va(dst + done, &n);
		else
			t = swdma_io_va(&c->win[SWDMA_DST], dst + done, left, &n);
		if (!t) {
			if (src_ram)
				swdma_ram_unmap(s);
			*res = DMA_TRANS_WRITE_FAILED;
			break;
		}

		memcpy(t, s, n);

		if (dst_ram)
			swdma_ram_unmap(t);
		if (src_ram)
			swdma_ram_unmap(s);
		done += n;
		cond_resched();
	}
	return done;
}

