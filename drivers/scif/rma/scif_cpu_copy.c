// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF RMA copies by the CPU: a request's spans cut into runs that are
 * physically contiguous on both sides, each copied with memcpy() through
 * the direct map (ours, and the peer's on loopback) or the CPU mapping of
 * the NTB window. The DMA path falls back to scif_cpu_run() for a run its
 * engine failed or refused.
 */
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sizes.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
#include "scif_rma.h"

/*
 * Copy @n bytes between our page @lpg (at @loff) and the peer's page at
 * address @raddr (at @roff); @to_peer gives the direction.
 */
static void scif_copy_piece(struct scif_peer_mem *pm, struct page *lpg,
			    size_t loff, u64 raddr, size_t roff, size_t n,
			    bool to_peer)
{
	u8 *l = kmap_local_page(lpg);
	u8 *r;

	if (pm->local) {
		r = kmap_local_page(pfn_to_page(PHYS_PFN(raddr)));
		if (to_peer)
			memcpy(r + roff, l + loff, n);
		else
			memcpy(l + loff, r + roff, n);
		kunmap_local(r);
	} else if (to_peer) {
		memcpy(pm->base + raddr + roff, l + loff, n);
	} else {
		memcpy(l + loff, pm->base + raddr + roff, n);
	}
	kunmap_local(l);
}

/*
 * Copy @n bytes from byte @from of the spans with the CPU, one run
 * contiguous on both sides at a time (runs that meet at a window boundary
 * joined): a page-sized memcpy() costs less than the walk, mapping and
 * call around it under emulation.
 */
void scif_copy_cpu(struct scif_peer_mem *pm, struct scif_span *lsp,
		   struct scif_span *rsp, u64 from, u64 n, bool to_peer)
{
	struct scif_dma_run run = {}, next;
	struct scif_walk w;

	scif_walk_init(&w, lsp, rsp, from, n);
	while (scif_walk_next_run(&w, &next)) {
		if (run.len && run.lphys + run.len == next.lphys &&
		    run.raddr + run.len == next.raddr) {
			run.len += next.len;
			continue;
		}
		if (run.len)
			scif_cpu_run(pm, &run, to_peer);
		run = next;
	}
	if (run.len)
		scif_cpu_run(pm, &run, to_peer);
	if (to_peer)
		wmb(); /* the peer's memory is current before we report done */
}

/* Between two cond_resched() in a long run without highmem. */
#define SCIF_CPU_CHUNK	SZ_256K

/**
 * scif_cpu_run() - copy a run with the CPU
 * @pm: how the peer is reached (&scif_peer_mem.held held)
 * @run: the run, physically contiguous on both sides
 * @to_peer: direction
 *
 * Without highmem our pages are contiguous in the linear map as well, so
 * the run is copied in large pieces; with it, one page at a time.
 */
void scif_cpu_run(struct scif_peer_mem *pm, const struct scif_dma_run *run,
		  bool to_peer)
{
	u64 done, l, r;
	size_t n;
	u8 *lv, *rv;

	lockdep_assert_held_read(pm->held);

	for (done = 0; done < run->len; done += n) {
		l = run->lphys + done;
		r = run->raddr + done;
		if (IS_ENABLED(CONFIG_HIGHMEM)) {
			n = min3((u64)(PAGE_SIZE - offset_in_page(l)),
				 (u64)(PAGE_SIZE - offset_in_page(r)),
				 run->len - done);
			scif_copy_piece(pm, pfn_to_page(PHYS_PFN(l)),
					offset_in_page(l), r & PAGE_MASK,
					offset_in_page(r), n, to_peer);
			continue;
		}
		n = min_t(u64, run->len - done, SCIF_CPU_CHUNK);
		lv = phys_to_virt(l);
		rv = pm->local ? phys_to_virt(r) : pm->base + r;
		if (to_peer)
			memcpy(rv, lv, n);
		else
			memcpy(lv, rv, n);
		cond_resched();
	}
}
