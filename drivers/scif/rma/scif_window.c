// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF window trees and the registered address space allocator.
 *
 * A window tree is a maple tree whose ranges are the byte ranges of the
 * windows in a registered address space. Windows never overlap, so a
 * range maps to at most one window and every lookup is O(log n). Placing a
 * window anywhere (no SCIF_MAP_FIXED) is the tree's own gap search
 * (mtree_alloc_range), also O(log n): every window starts and ends on a
 * page boundary, so every gap does too and the offset found is aligned.
 *
 * The tree's internal lock makes each call atomic; callers additionally
 * hold &scif_rma_ep.lock so that a lookup and the reference taken on its
 * result are one step (see rma/scif_rma.h).
 */
#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

/**
 * scif_win_access() - whether a window's protection allows an access
 * @win: a window, ours or the peer's
 * @prot: the access asked for: %SCIF_PROT_READ, %SCIF_PROT_WRITE or both
 *
 * The one test of a window's rights, for every path that reaches a
 * window's pages: a copy needs %SCIF_PROT_READ of the source windows and
 * %SCIF_PROT_WRITE of the destination ones (scif_span_get()), a staged RMA
 * served for the peer the same of our windows (scif_span_get_served()), a
 * fence signal's write %SCIF_PROT_WRITE (rma/scif_poke.c), and an mmap()
 * of the peer's windows %SCIF_PROT_READ, with %SCIF_PROT_WRITE for a
 * writable mapping (dev/scif_mmap.c). scif_get_pages() asks for no right:
 * it hands the window's rights to its caller in &scif_range.prot_flags.
 *
 * Return: 0 if @win grants every right in @prot, else -EACCES.
 */
int scif_win_access(const struct scif_window *win, int prot)
{
	return (win->prot & prot) == prot ? 0 : -EACCES;
}

/**
 * scif_win_dma_dir() - the DMA direction a local window's pages are mapped
 *			with for the device through which the peer reaches them
 * @prot: the window's %SCIF_PROT_READ / %SCIF_PROT_WRITE
 *
 * The peer reading our pages is the device reading memory (to device); the
 * peer writing them is the device writing memory. Under an IOMMU the
 * mapping then grants exactly what the window allows.
 *
 * Return: the direction.
 */
enum dma_data_direction scif_win_dma_dir(int prot)
{
	switch (prot & SCIF_PROT_MASK) {
	case SCIF_PROT_READ:
		return DMA_TO_DEVICE;
	case SCIF_PROT_WRITE:
		return DMA_FROM_DEVICE;
	default:
		return DMA_BIDIRECTIONAL;
	}
}

static void scif_win_free(struct work_struct *work)
{
	struct scif_window *win = container_of(work, struct scif_window,
					       free_work);
	unsigned long i;

	if (win->on_free)
		win->on_free(win);
	if (win->dma_dev) {
		for (i = 0; i < win->nr_pages; i++)
			dma_unmap_page(win->dma_dev, win->addrs[i], PAGE_SIZE,
				       scif_win_dma_dir(win->prot));
		put_device(win->dma_dev);
	}
	if (win->pp)
		scif_pp_put(win->pp);
	kvfree(win->addrs);
	kfree(win);
}

/**
 * scif_win_alloc() - allocate a window object of @nr_pages pages
 * @nr_pages: its length, at least one page
 * @remote: whether it stands for a peer's window
 *
 * Return: the window with one reference, or NULL.
 */
struct scif_window *scif_win_alloc(unsigned long nr_pages, bool remote)
{
	/* A local window is made by a user's call: charge it. */
	gfp_t gfp = remote ? GFP_KERNEL : GFP_KERNEL_ACCOUNT;
	struct scif_window *win;

	win = kzalloc(sizeof(*win), gfp);
	if (!win)
		return NULL;
	win->addrs = kvcalloc(nr_pages, sizeof(*win->addrs), gfp);
	if (!win->addrs) {
		kfree(win);
		return NULL;
	}
	kref_init(&win->ref);
	win->nr_pages = nr_pages;
	win->remote = remote;
	INIT_WORK(&win->free_work, scif_win_free);
	return win;
}
EXPORT_SYMBOL_IF_KUNIT(scif_win_alloc);

void scif_win_get(struct scif_window *win)
{
	kref_get(&win->ref);
}
EXPORT_SYMBOL_IF_KUNIT(scif_win_get);

static void scif_win_release(struct kref *ref)
{
	struct scif_window *win = container_of(ref, struct scif_window, ref);

	/* Unpinning and unmapping may sleep: never do it in a caller's IRQ. */
	if (in_task())
		scif_win_free(&win->free_work);
	else
		scif_rma_queue_work(&win->free_work);
}

/**
 * scif_win_put() - drop a reference; the last one frees the window
 * @win: the window
 */
void scif_win_put(struct scif_window *win)
{
	kref_put(&win->ref, scif_win_release);
}
EXPORT_SYMBOL_IF_KUNIT(scif_win_put);

/**
 * scif_wtree_insert() - place a window in a registered address space
 * @mt: the tree
 * @win: the window; @win->nr_pages is set, @win->offset is set here. The
 *	 tree takes no reference of its own.
 * @offset: page-aligned offset: exact if @fixed, else a hint (0: anywhere)
 * @fixed: %SCIF_MAP_FIXED semantics
 *
 * Return: 0, or -EADDRINUSE (@fixed and the range is taken), -ENOSPC (no
 * gap large enough), -EINVAL (range beyond the address space), -ENOMEM.
 */
int scif_wtree_insert(struct maple_tree *mt, struct scif_window *win,
		      u64 offset, bool fixed)
{
	u64 size = (u64)win->nr_pages << PAGE_SHIFT;
	unsigned long start;
	int ret;

	if (!win->nr_pages || win->nr_pages > (SCIF_RAS_LAST >> PAGE_SHIFT) ||
	    offset > SCIF_RAS_LAST || offset & ~PAGE_MASK)
		return -EINVAL;
	if (fixed) {
		if (offset > SCIF_RAS_LAST - size + 1)
			return -EINVAL;
		ret = mtree_insert_range(mt, offset, offset + size - 1, win,
					 GFP_KERNEL);
		if (ret == -EEXIST)
			return -EADDRINUSE;
		if (!ret)
			win->offset = offset;
		return ret;
	}
	ret = -EBUSY;
	if (offset && offset <= SCIF_RAS_LAST - size + 1)
		ret = mtree_alloc_range(mt, &start, win, size, offset,
					SCIF_RAS_LAST, GFP_KERNEL);
	if (ret == -EBUSY)
		ret = mtree_alloc_range(mt, &start, win, size, 0,
					SCIF_RAS_LAST, GFP_KERNEL);
	if (ret == -EBUSY)
		return -ENOSPC;
	if (!ret)
		win->offset = start;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_wtree_insert);

/**
 * scif_wtree_erase() - take a window out of its tree
 * @mt: the tree
 * @win: a window inserted into @mt
 *
 * Erasing may need a new tree node, and mtree_erase() gives up silently
 * when it cannot have one, leaving the entry in place: a window freed
 * later would then still be found. The store waits for the memory
 * instead (random allocation failures found this). Sleeps.
 */
void scif_wtree_erase(struct maple_tree *mt, struct scif_window *win)
{
	u64 last = win->offset + ((u64)win->nr_pages << PAGE_SHIFT) - 1;

	WARN_ON(mtree_load(mt, win->offset) != win);
	WARN_ON(mtree_store_range(mt, win->offset, last, NULL,
				  GFP_KERNEL | __GFP_NOFAIL));
}
EXPORT_SYMBOL_IF_KUNIT(scif_wtree_erase);

/**
 * scif_wtree_find() - the window containing an offset
 * @mt: the tree
 * @offset: any value
 *
 * Return: the window (no reference taken), or NULL.
 */
struct scif_window *scif_wtree_find(struct maple_tree *mt, u64 offset)
{
	if (offset > SCIF_RAS_LAST)
		return NULL;
	return mtree_load(mt, offset);
}
EXPORT_SYMBOL_IF_KUNIT(scif_wtree_find);

/**
 * scif_wtree_next() - the first window intersecting [@offset, @last]
 * @mt: the tree
 * @offset: first byte of the range
 * @last: last byte of the range
 *
 * Return: the window with the lowest offset in the range, or NULL.
 */
struct scif_window *scif_wtree_next(struct maple_tree *mt, u64 offset,
				    u64 last)
{
	unsigned long index = offset;

	if (offset > last || offset > SCIF_RAS_LAST)
		return NULL;
	return mt_find(mt, &index, min(last, SCIF_RAS_LAST));
}
EXPORT_SYMBOL_IF_KUNIT(scif_wtree_next);

/* Whether any window intersects [@first, @last]. */
bool scif_wtree_busy(struct maple_tree *mt, u64 first, u64 last)
{
	return scif_wtree_next(mt, first, last);
}
EXPORT_SYMBOL_IF_KUNIT(scif_wtree_busy);

/**
 * scif_wtree_destroy() - free a tree's nodes
 * @mt: the tree; nobody else uses it any more. Trees hold no references
 *	(the id tables of &struct scif_rma_ep do), so none are dropped.
 */
void scif_wtree_destroy(struct maple_tree *mt)
{
	mtree_destroy(mt);
}
EXPORT_SYMBOL_IF_KUNIT(scif_wtree_destroy);
