// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF page pinning: scif_pin_pages(), scif_unpin_pages() and the pinned
 * page sets behind every local window.
 *
 * User memory is pinned with pin_user_pages_fast(FOLL_LONGTERM), since a
 * window may stay registered for as long as its owner likes, and charged to
 * the owner's mm->pinned_vm against RLIMIT_MEMLOCK unless the caller has
 * CAP_IPC_LOCK (the way RDMA memory registration accounts). The charge is
 * lock-free (an atomic of the mm), so the final release may run anywhere.
 * Kernel memory (SCIF_MAP_KERNEL) is the caller's: it is looked up, not
 * pinned, and must stay allocated until every window over it is gone.
 */
#include <kunit/visibility.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/scif.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

/* Charge @npages to the current mm; 0 or -ENOMEM past RLIMIT_MEMLOCK. */
static int scif_pin_charge(struct scif_pinned_pages *pp, unsigned long npages)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit;
	s64 total;

	if (!mm)
		return -EINVAL;
	if (!capable(CAP_IPC_LOCK)) {
		limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		total = atomic64_add_return(npages, &mm->pinned_vm);
		if (total > limit) {
			atomic64_sub(npages, &mm->pinned_vm);
			return -ENOMEM;
		}
		pp->charged = npages;
	}
	mmgrab(mm);
	pp->mm = mm;
	return 0;
}

static void scif_pp_release(struct kref *ref)
{
	struct scif_pinned_pages *pp = container_of(ref,
						    struct scif_pinned_pages,
						    ref);

	if (pp->user)
		unpin_user_pages_dirty_lock(pp->pages, pp->nr_pages,
					    pp->prot & SCIF_PROT_WRITE);
	if (pp->mm) {
		atomic64_sub(pp->charged, &pp->mm->pinned_vm);
		mmdrop(pp->mm);
	}
	pp->magic = 0;
	kvfree(pp->pages);
	kfree(pp);
}

/**
 * scif_pp_put() - drop a reference to a pinned page set
 * @pp: the set; the last reference unpins and uncharges
 */
void scif_pp_put(struct scif_pinned_pages *pp)
{
	kref_put(&pp->ref, scif_pp_release);
}

static int scif_pin_user(struct scif_pinned_pages *pp, unsigned long addr)
{
	unsigned int gup = FOLL_LONGTERM;
	unsigned long done = 0;
	int n;

	if (pp->prot & SCIF_PROT_WRITE)
		gup |= FOLL_WRITE;
	while (done < pp->nr_pages) {
		n = min_t(unsigned long, pp->nr_pages - done, INT_MAX / 2);
		n = pin_user_pages_fast(addr + (done << PAGE_SHIFT), n, gup,
					pp->pages + done);
		if (n <= 0) {
			unpin_user_pages(pp->pages, done);
			return n ? n : -EFAULT;
		}
		done += n;
		if (fatal_signal_pending(current)) {
			unpin_user_pages(pp->pages, done);
			return -EINTR;
		}
	}
	return 0;
}

static int scif_pin_kernel(struct scif_pinned_pages *pp, unsigned long addr)
{
	unsigned long i;
	void *va;

	for (i = 0; i < pp->nr_pages; i++) {
		va = (void *)(addr + (i << PAGE_SHIFT));
		if (is_vmalloc_addr(va))
			pp->pages[i] = vmalloc_to_page(va);
		else if (virt_addr_valid(va))
			pp->pages[i] = virt_to_page(va);
		else
			pp->pages[i] = NULL;
		if (!pp->pages[i])
			return -EFAULT;
	}
	return 0;
}

/**
 * scif_pp_create() - pin memory for registration
 * @addr: page-aligned start (a user address, or a kernel one with
 *	  %SCIF_MAP_KERNEL)
 * @len: page-aligned length, not 0
 * @prot: %SCIF_PROT_READ and/or %SCIF_PROT_WRITE
 * @map_flags: 0 or %SCIF_MAP_KERNEL
 * @out: set to the new set, with one reference
 *
 * Return: 0, or -EINVAL (bad flags or alignment), -ENOMEM (no memory, more
 * pages than the machine has, or over RLIMIT_MEMLOCK), -EFAULT (the range
 * is not mapped).
 */
int scif_pp_create(void *addr, size_t len, int prot, int map_flags,
		   struct scif_pinned_pages **out)
{
	unsigned long uaddr = (unsigned long)addr, nr_pages;
	struct scif_pinned_pages *pp;
	int ret;

	if (!prot || prot & ~SCIF_PROT_MASK || map_flags & ~SCIF_MAP_KERNEL)
		return -EINVAL;
	if (!len || len & ~PAGE_MASK || uaddr & ~PAGE_MASK ||
	    uaddr + len < uaddr)
		return -EINVAL;
	/*
	 * @len comes from the user: no more pages than the machine has, and
	 * the RLIMIT_MEMLOCK charge before the page array, so that a huge
	 * @len fails at once instead of asking for (and warning about) a
	 * page array of gigabytes.
	 */
	nr_pages = len >> PAGE_SHIFT;
	if (nr_pages > totalram_pages())
		return -ENOMEM;
	pp = kzalloc(sizeof(*pp), GFP_KERNEL_ACCOUNT);
	if (!pp)
		return -ENOMEM;
	kref_init(&pp->ref);
	pp->prot = prot;
	if (!(map_flags & SCIF_MAP_KERNEL)) {
		ret = scif_pin_charge(pp, nr_pages);
		if (ret) {
			kfree(pp);
			return ret;
		}
	}
	pp->pages = kvcalloc(nr_pages, sizeof(*pp->pages),
			     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pp->pages) {
		scif_pp_put(pp);
		return -ENOMEM;
	}
	pp->nr_pages = nr_pages;
	if (map_flags & SCIF_MAP_KERNEL) {
		ret = scif_pin_kernel(pp, uaddr);
	} else {
		ret = scif_pin_user(pp, uaddr);
		pp->user = !ret;
	}
	if (ret) {
		pp->nr_pages = 0;
		scif_pp_put(pp);
		return ret;
	}
	pp->magic = SCIF_PP_MAGIC;
	*out = pp;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(scif_pp_create);

/**
 * scif_pin_pages() - pin memory for later registration
 * @addr: page-aligned start address
 * @len: page-aligned length
 * @prot_flags: %SCIF_PROT_READ and/or %SCIF_PROT_WRITE
 * @map_flags: 0 (@addr is a user address of the current process) or
 *	       %SCIF_MAP_KERNEL (@addr is a kernel address)
 * @pinned_pages: set to a handle for scif_register_pinned_pages()
 *
 * Return: 0, or -EINVAL, -ENOMEM (also past RLIMIT_MEMLOCK), -EFAULT.
 */
int scif_pin_pages(void *addr, size_t len, int prot_flags, int map_flags,
		   scif_pinned_pages_t *pinned_pages)
{
	if (!pinned_pages)
		return -EINVAL;
	return scif_pp_create(addr, len, prot_flags, map_flags, pinned_pages);
}
EXPORT_SYMBOL_GPL(scif_pin_pages);

/**
 * scif_unpin_pages() - give up a pinned page handle
 * @pinned_pages: a handle from scif_pin_pages()
 *
 * The pages stay pinned while windows registered against them exist.
 *
 * Return: 0, or -EINVAL if @pinned_pages is not a live handle.
 */
int scif_unpin_pages(scif_pinned_pages_t pinned_pages)
{
	if (IS_ERR_OR_NULL(pinned_pages) ||
	    pinned_pages->magic != SCIF_PP_MAGIC)
		return -EINVAL;
	pinned_pages->magic = 0;
	scif_pp_put(pinned_pages);
	return 0;
}
EXPORT_SYMBOL_GPL(scif_unpin_pages);
