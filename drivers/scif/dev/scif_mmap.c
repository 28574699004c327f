// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF mmap() of the peer's windows through /dev/scif.
 *
 * The file offset of the mapping is the offset in the peer's registered
 * address space; the whole range must lie in contiguous, complete windows
 * of the peer, each allowing the access asked for. A mapping is a
 * &struct scif_mmap shared by every VMA split from the original one
 * (vm_ops open/close count them). It holds the endpoint and every window
 * of the range, so an unregister by the peer waits until the last VMA is
 * unmapped, like an RMA in flight.
 *
 * Pages are inserted at fault time (VM_PFNMAP): a page of an NTB link is
 * the NTB window's physical address plus the address the peer advertised,
 * mapped write-combining; on loopback the page itself. A mapping dies when
 * its endpoint can no longer use the peer's windows: the peer or we close
 * (scif_rma_drop_all() of the peer's windows, before the close is
 * acknowledged) or the peer's node is lost (scif_node_remove()). Dying
 * marks it dead under its lock, then zaps every PTE in its file range
 * with unmap_mapping_pages(), then drops its windows. A fault takes the
 * same lock around its check and its insert, so it either inserts before
 * the zap (and is zapped) or sees the mapping dead and raises SIGBUS: no
 * access ever reaches memory the peer has released. The zap works on the
 * /dev/scif inode's mapping, shared by all open files, so it may also
 * clear PTEs of other mappings at the same offsets; those simply fault
 * again.
 */
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "../rma/scif_rma.h"
#include "scif_fdev.h"

/**
 * struct scif_mmap - one mmap() of the peer's windows
 * @ref: one per VMA sharing it
 * @list: entry in scif_mmaps, under scif_mmaps_lock
 * @ep: the endpoint, with a reference
 * @mapping: the file mapping the VMAs belong to
 * @pgoff: first page, in the peer's registered address space
 * @nr_pages: pages mapped
 * @pm: how the peer's pages are reached
 * @lock: protects @dead, @wins and @nr_wins; held by a fault from its
 *	  check to its insert
 * @dead: the peer's pages may be gone; every fault gets SIGBUS
 * @nr_wins: entries of @wins
 * @wins: the windows of the range in offset order, each with a reference;
 *	  NULL once dead
 */
struct scif_mmap {
	struct kref ref;
	struct list_head list;
	struct scif_endpt *ep;
	struct address_space *mapping;
	pgoff_t pgoff;
	unsigned long nr_pages;
	struct scif_peer_mem pm;
	struct mutex lock;	/* @dead, @wins; a fault's check and insert */
	bool dead;
	unsigned int nr_wins;
	struct scif_window **wins;
};

/* Live mappings, for scif_mmap_ep_dead() and scif_mmap_node_lost(). */
static LIST_HEAD(scif_mmaps);
static DEFINE_MUTEX(scif_mmaps_lock);	/* scif_mmaps */

static void scif_mmap_put_wins(struct scif_window **wins, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		scif_win_put(wins[i]);
	kvfree(wins);
}

static void scif_mmap_release(struct kref *ref)
{
	struct scif_mmap *m = container_of(ref, struct scif_mmap, ref);

	mutex_lock(&scif_mmaps_lock);
	list_del(&m->list);
	mutex_unlock(&scif_mmaps_lock);
	scif_mmap_put_wins(m->wins, m->nr_wins);
	scif_ep_put(m->ep);
	mutex_destroy(&m->lock);
	kfree(m);
}

/* Stop a mapping for good; scif_mmaps_lock is held. */
static void scif_mmap_kill(struct scif_mmap *m)
{
	struct scif_window **wins;
	unsigned int nr;
	bool was_dead;

	lockdep_assert_held(&scif_mmaps_lock);

	mutex_lock(&m->lock);
	was_dead = m->dead;
	m->dead = true;
	wins = m->wins;
	nr = m->nr_wins;
	m->wins = NULL;
	m->nr_wins = 0;
	mutex_unlock(&m->lock);
	if (was_dead)
		return;
	/* No fault can insert a page now: clear what is there... */
	unmap_mapping_pages(m->mapping, m->pgoff, m->nr_pages, true);
	/* ...and only then let the peer release the pages. */
	scif_mmap_put_wins(wins, nr);
}

/**
 * scif_mmap_ep_dead() - stop the mappings of an endpoint
 * @ep: an endpoint whose peer windows are being dropped
 *
 * Called once the endpoint no longer uses the peer's windows, before the
 * peer is told so; later accesses of the mappings get SIGBUS.
 */
void scif_mmap_ep_dead(struct scif_endpt *ep)
{
	struct scif_mmap *m;

	mutex_lock(&scif_mmaps_lock);
	list_for_each_entry(m, &scif_mmaps, list)
		if (m->ep == ep)
			scif_mmap_kill(m);
	mutex_unlock(&scif_mmaps_lock);
}

/**
 * scif_mmap_node_lost() - stop the mappings of a lost node's windows
 * @si: the instance
 * @node: the node; its endpoints are already reset
 *
 * Called before the transport tears down its mapping of the node's memory.
 */
void scif_mmap_node_lost(struct scif_instance *si, u16 node)
{
	struct scif_mmap *m;

	mutex_lock(&scif_mmaps_lock);
	list_for_each_entry(m, &scif_mmaps, list)
		if (scif_ep_instance(m->ep) == si &&
		    scif_ep_peer_node(m->ep) == node)
			scif_mmap_kill(m);
	mutex_unlock(&scif_mmaps_lock);
}

static void scif_mmap_vm_open(struct vm_area_struct *vma)
{
	struct scif_mmap *m = vma->vm_private_data;

	kref_get(&m->ref);
}

static void scif_mmap_vm_close(struct vm_area_struct *vma)
{
	struct scif_mmap *m = vma->vm_private_data;

	kref_put(&m->ref, scif_mmap_release);
}

/* The window of @m holding byte @roff of the peer's space; m->lock held. */
static struct scif_window *scif_mmap_win(struct scif_mmap *m, u64 roff)
{
	unsigned int lo = 0, hi = m->nr_wins, mid;
	struct scif_window *win;

	lockdep_assert_held(&m->lock);

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		win = m->wins[mid];
		if (roff < win->offset)
			hi = mid;
		else if (roff >= scif_win_end(win))
			lo = mid + 1;
		else
			return win;
	}
	return NULL;
}

static vm_fault_t scif_mmap_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct scif_mmap *m = vma->vm_private_data;
	u64 roff = (u64)vmf->pgoff << PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct scif_window *win;
	unsigned long pfn;
	u64 a;

	mutex_lock(&m->lock);
	if (m->dead || scif_rma_ep_usable(m->ep))
		goto out;
	win = scif_mmap_win(m, roff);
	if (!win)
		goto out;
	a = win->addrs[(roff - win->offset) >> PAGE_SHIFT];
	pfn = m->pm.local ? PHYS_PFN(a) : PHYS_PFN(m->pm.phys + a);
	ret = vmf_insert_pfn_prot(vma, vmf->address, pfn, vma->vm_page_prot);
out:
	mutex_unlock(&m->lock);
	return ret;
}

static const struct vm_operations_struct scif_mmap_vm_ops = {
	.open = scif_mmap_vm_open,
	.close = scif_mmap_vm_close,
	.fault = scif_mmap_fault,
};

/*
 * Take the windows covering the mapping, with references; rma->lock held.
 * Sets *@allowed to the rights every one of them grants.
 */
static int scif_mmap_resolve(struct scif_rma_ep *rma, struct scif_mmap *m,
			     int prot, int *allowed)
{
	u64 first = (u64)m->pgoff << PAGE_SHIFT;
	u64 last = first + ((u64)m->nr_pages << PAGE_SHIFT) - 1, pos;
	struct scif_window *win;
	unsigned int n = 0;
	int ret;

	lockdep_assert_held(&rma->lock);

	*allowed = SCIF_PROT_MASK;
	for (pos = first; pos <= last; pos = scif_win_end(win)) {
		win = scif_wtree_find(&rma->remote, pos);
		if (!win || win->nr_recv != win->nr_pages)
			return -ENXIO;
		ret = scif_win_access(win, prot);
		if (ret)
			return ret;
		*allowed &= win->prot;
		n++;
		if (scif_win_end(win) - 1 >= last)
			break;
	}
	m->wins = kvmalloc_array(n, sizeof(*m->wins), GFP_KERNEL);
	if (!m->wins)
		return -ENOMEM;
	for (pos = first; m->nr_wins < n; pos = scif_win_end(win)) {
		win = scif_wtree_find(&rma->remote, pos);
		scif_win_get(win);
		m->wins[m->nr_wins++] = win;
	}
	return 0;
}

/**
 * scif_mmap() - map a range of the peer's registered address space
 * @epd: a connected endpoint
 * @vma: the new VMA; its file offset is the offset in the peer's space
 *
 * The mapping must be shared and must not be executable. Reading, and
 * writing if %PROT_WRITE is asked for, must be allowed by every window in
 * the range, so a write-only window cannot be mapped; if one of them
 * forbids writes, %VM_MAYWRITE is cleared and mprotect() cannot add
 * %PROT_WRITE later either. The mapping is not inherited by fork(), cannot
 * grow, and is left out of core dumps.
 *
 * Return: 0, or -EINVAL (a private mapping), -EACCES (an access a window
 * forbids, or %PROT_EXEC), -ENXIO (the range is not covered by contiguous
 * complete windows of the peer), -ENOTCONN, -ECONNRESET, -ENODEV, -EBADF,
 * -ENOMEM, -EOPNOTSUPP (the link cannot reach the peer's pages: one
 * without RMA addressing, such as NTB in translated mode, where RMAs are
 * staged as messages and there is nothing to map).
 */
int scif_mmap(scif_epd_t epd, struct vm_area_struct *vma)
{
	struct scif_endpt *ep = epd;
	unsigned long nr = vma_pages(vma);
	struct scif_rma_ep *rma;
	struct scif_mmap *m;
	int prot, allowed, ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EACCES;
	if (vma->vm_pgoff > (SCIF_RAS_LAST >> PAGE_SHIFT) ||
	    nr - 1 > (SCIF_RAS_LAST >> PAGE_SHIFT) - vma->vm_pgoff)
		return -ENXIO;
	/*
	 * Every mapping can be read: a page table entry that allows writing
	 * allows reading as well (x86), so even a PROT_WRITE-only mapping
	 * needs a window the peer lets us read.
	 */
	prot = SCIF_PROT_READ;
	if (vma->vm_flags & VM_WRITE)
		prot |= SCIF_PROT_WRITE;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	ret = scif_peer_mem_get(ep, &m->pm);
	if (ret) {
		kfree(m);
		return ret;
	}
	kref_init(&m->ref);
	mutex_init(&m->lock);
	scif_ep_get(ep);
	m->ep = ep;
	m->mapping = vma->vm_file->f_mapping;
	m->pgoff = vma->vm_pgoff;
	m->nr_pages = nr;
	/*
	 * On the list first, then the state check: a node loss either finds
	 * the mapping or is seen by the check.
	 */
	mutex_lock(&scif_mmaps_lock);
	list_add(&m->list, &scif_mmaps);
	mutex_unlock(&scif_mmaps_lock);

	rma = scif_ep_rma(ep);
	mutex_lock(&rma->lock);
	mutex_lock(&m->lock);
	ret = scif_rma_ep_usable(ep);
	if (!ret && m->dead)
		ret = -ENODEV;
	if (!ret)
		ret = scif_mmap_resolve(rma, m, prot, &allowed);
	mutex_unlock(&m->lock);
	mutex_unlock(&rma->lock);
	if (ret) {
		kref_put(&m->ref, scif_mmap_release);
		return ret;
	}

	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP |
		     VM_DONTCOPY);
	vm_flags_clear(vma, VM_MAYEXEC |
		       (allowed & SCIF_PROT_WRITE ? 0 : VM_MAYWRITE));
	if (!m->pm.local)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	vma->vm_private_data = m;
	vma->vm_ops = &scif_mmap_vm_ops;
	return 0;
}
