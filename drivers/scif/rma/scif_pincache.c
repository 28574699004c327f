// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF pinned-page cache: what SCIF_RMA_USECACHE asks of scif_vreadfrom()
 * and scif_vwriteto().
 *
 * Without the flag a v* call pins the user buffer, copies, and unpins. With
 * it, the pinned range stays in a small per-endpoint cache, so that a later
 * v* call over the same pages (or a part of them) of the same process finds
 * them pinned already. An entry is keyed by the mm, the page range and the
 * protection it was pinned with (a read-write pin serves reads as well).
 *
 * Staleness: every entry watches its range with an mmu_interval_notifier.
 * Whatever changes the mapping (munmap, MADV_DONTNEED, mprotect, a COW
 * break, fork write-protecting the range, the process exiting) calls
 * scif_pce_invalidate(), which takes the entry out of the lookup list at
 * once, without sleeping, so it is never handed out again. The notifier is
 * removed and the cache's reference on the pages dropped later, in process
 * context (the reap work, or the next caller). An RMA that already holds
 * the pages keeps them pinned through its own reference until it ends: the
 * pages stay valid memory, exactly as with an uncached pin racing with a
 * munmap.
 *
 * Bounds: at most pincache_entries entries and pincache_pages pages per
 * endpoint (module parameters; 0 turns the cache off), least recently used
 * evicted first. Pins are charged to RLIMIT_MEMLOCK like every other pin
 * (rma/scif_pin.c); a pin refused because of the limit evicts entries one by
 * one and retries, so the cache's own holdings never make an RMA fail.
 * scif_rma_ep_close() empties the cache; entries hold the mm with mmgrab()
 * only (through the notifier and the pinned pages), never mmget().
 */
#include <kunit/visibility.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

static unsigned int pincache_entries = 64;
module_param(pincache_entries, uint, 0644);
MODULE_PARM_DESC(pincache_entries,
		 "Pinned ranges kept per endpoint for SCIF_RMA_USECACHE (0: no cache)");

static unsigned long pincache_pages = 16384;
module_param(pincache_pages, ulong, 0644);
MODULE_PARM_DESC(pincache_pages,
		 "Pages kept pinned per endpoint for SCIF_RMA_USECACHE (0: no cache)");

/* Pin attempts lost to a concurrent invalidation before giving up caching. */
#define SCIF_PCE_TRIES	3

/**
 * struct scif_pincache - the pinned-page cache of one endpoint
 * @ref: one for &scif_rma_ep.pcache, one per caller inside
 *	 scif_pincache_get()
 * @lock: protects @lru, @dead, @nr, @pages, @closed and every entry's
 *	  @state and @node; taken in the mmu notifier callback, so it is a
 *	  spinlock, and nothing allocates or sleeps under it
 * @lru: live entries, most recently used first
 * @dead: entries out of use whose notifier and pages are still to be
 *	  released (by scif_pincache_reap())
 * @nr: entries on @lru
 * @pages: pages of the entries on @lru
 * @closed: the endpoint closed: nothing enters @lru any more
 * @reap: runs scif_pincache_reap() for entries the notifier retired
 */
struct scif_pincache {
	struct kref ref;
	spinlock_t lock;		/* see above */
	struct list_head lru;
	struct list_head dead;
	unsigned int nr;
	unsigned long pages;
	bool closed;
	struct work_struct reap;
};

/**
 * enum scif_pce_state - life cycle of a cache entry
 * @SCIF_PCE_NEW: being pinned by a caller; on no list
 * @SCIF_PCE_LIVE: on &scif_pincache.lru; may be handed out
 * @SCIF_PCE_DEAD: on &scif_pincache.dead (or being released); never
 *		   handed out again
 */
enum scif_pce_state {
	SCIF_PCE_NEW,
	SCIF_PCE_LIVE,
	SCIF_PCE_DEAD,
};

/**
 * struct scif_pce - one cached range
 * @mni: watches [@start, @start + @nr_pages pages) of the mm (@mni.mm)
 * @pc: the cache it belongs to
 * @node: entry of &scif_pincache.lru or .dead, under &scif_pincache.lock
 * @state: &enum scif_pce_state, under &scif_pincache.lock
 * @start: user address of the first page
 * @nr_pages: length in pages
 * @prot: %SCIF_PROT_READ, with %SCIF_PROT_WRITE if pinned for writing
 * @pp: the cache's reference to the pinned pages
 */
struct scif_pce {
	struct mmu_interval_notifier mni;
	struct scif_pincache *pc;
	struct list_head node;
	enum scif_pce_state state;
	unsigned long start;
	unsigned long nr_pages;
	int prot;
	struct scif_pinned_pages *pp;
};

/* Release an entry nobody can reach any more: no locks held, may sleep. */
static void scif_pce_free(struct scif_pce *e)
{
	mmu_interval_notifier_remove(&e->mni);
	if (e->pp)
		scif_pp_put(e->pp);
	kfree(e);
}

/* Retire a live entry; pc->lock held. The caller reaps later. */
static void scif_pce_retire(struct scif_pincache *pc, struct scif_pce *e)
{
	lockdep_assert_held(&pc->lock);

	list_move(&e->node, &pc->dead);
	e->state = SCIF_PCE_DEAD;
	pc->nr--;
	pc->pages -= e->nr_pages;
}

/*
 * The mapping of (a part of) the range changed. Runs under the mm's
 * notifier machinery, possibly non-blockable: only the spinlock, no sleep.
 */
static bool scif_pce_invalidate(struct mmu_interval_notifier *mni,
				const struct mmu_notifier_range *range,
				unsigned long cur_seq)
{
	struct scif_pce *e = container_of(mni, struct scif_pce, mni);
	struct scif_pincache *pc = e->pc;

	spin_lock(&pc->lock);
	mmu_interval_set_seq(mni, cur_seq);
	if (e->state == SCIF_PCE_LIVE) {
		scif_pce_retire(pc, e);
		schedule_work(&pc->reap);
	}
	spin_unlock(&pc->lock);
	return true;
}

static const struct mmu_interval_notifier_ops scif_pce_ops = {
	.invalidate = scif_pce_invalidate,
};

/* Release every retired entry. Process context, no locks held. */
static void scif_pincache_reap(struct scif_pincache *pc)
{
	struct scif_pce *e;

	for (;;) {
		spin_lock(&pc->lock);
		e = list_first_entry_or_null(&pc->dead, struct scif_pce, node);
		if (e)
			list_del_init(&e->node);
		spin_unlock(&pc->lock);
		if (!e)
			return;
		scif_pce_free(e);
	}
}

static void scif_pincache_reap_work(struct work_struct *work)
{
	scif_pincache_reap(container_of(work, struct scif_pincache, reap));
}

static void scif_pincache_free(struct kref *ref)
{
	struct scif_pincache *pc = container_of(ref, struct scif_pincache,
						ref);

	/* Closed: nothing is live, and nothing can queue @reap any more. */
	cancel_work_sync(&pc->reap);
	scif_pincache_reap(pc);
	kfree(pc);
}

static void scif_pincache_put(struct scif_pincache *pc)
{
	kref_put(&pc->ref, scif_pincache_free);
}

/*
 * The endpoint's cache with a reference, or NULL; with @create, it is
 * created on first use.
 */
static struct scif_pincache *scif_pincache_grab(struct scif_rma_ep *rma,
						bool create)
{
	struct scif_pincache *pc;

	mutex_lock(&rma->lock);
	pc = rma->pcache;
	if (!pc && create && !rma->closed) {
		pc = kzalloc(sizeof(*pc), GFP_KERNEL_ACCOUNT);
		if (pc) {
			kref_init(&pc->ref);
			spin_lock_init(&pc->lock);
			INIT_LIST_HEAD(&pc->lru);
			INIT_LIST_HEAD(&pc->dead);
			INIT_WORK(&pc->reap, scif_pincache_reap_work);
			rma->pcache = pc;
		}
	}
	if (pc)
		kref_get(&pc->ref);
	mutex_unlock(&rma->lock);
	return pc;
}

/* Retire the least recently used entry; false if there is none. */
static bool scif_pincache_evict_one(struct scif_pincache *pc)
{
	struct scif_pce *e;

	spin_lock(&pc->lock);
	e = list_last_entry(&pc->lru, struct scif_pce, node);
	if (list_empty(&pc->lru))
		e = NULL;
	else
		scif_pce_retire(pc, e);
	spin_unlock(&pc->lock);
	return e;
}

/*
 * A live entry of the current mm covering [@start, @start + @len) with at
 * least @prot: its pages with a new reference, and it becomes the most
 * recently used.
 */
static struct scif_pinned_pages *
scif_pincache_lookup(struct scif_pincache *pc, unsigned long start,
		     unsigned long len, int prot, unsigned long *pp_start)
{
	struct scif_pinned_pages *pp = NULL;
	struct scif_pce *e;

	spin_lock(&pc->lock);
	list_for_each_entry(e, &pc->lru, node) {
		if (e->mni.mm != current->mm || start < e->start ||
		    start + len > e->start + (e->nr_pages << PAGE_SHIFT) ||
		    (e->prot & prot) != prot)
			continue;
		list_move(&e->node, &pc->lru);
		pp = e->pp;
		kref_get(&pp->ref);
		*pp_start = e->start;
		break;
	}
	spin_unlock(&pc->lock);
	return pp;
}

/*
 * Pin for the cache: a refusal because of RLIMIT_MEMLOCK evicts cached
 * entries, least recently used first, until the pin fits or the cache is
 * empty.
 */
static int scif_pincache_pin(struct scif_pincache *pc, unsigned long start,
			     unsigned long len, int prot,
			     struct scif_pinned_pages **pp)
{
	int ret;

	for (;;) {
		ret = scif_pp_create((void *)start, len, prot, 0, pp);
		if (ret != -ENOMEM || !scif_pincache_evict_one(pc))
			return ret;
		scif_pincache_reap(pc);
	}
}

/* Make room for @nr_pages more pages and one more entry. */
static void scif_pincache_make_room(struct scif_pincache *pc,
				    unsigned long nr_pages)
{
	bool full;

	for (;;) {
		spin_lock(&pc->lock);
		full = pc->nr && (pc->nr >= READ_ONCE(pincache_entries) ||
				  pc->pages + nr_pages >
				  READ_ONCE(pincache_pages));
		spin_unlock(&pc->lock);
		if (!full || !scif_pincache_evict_one(pc))
			break;
	}
	scif_pincache_reap(pc);
}

/*
 * Pin [@start, @start + @len) for a new entry @e whose notifier is in
 * place. On success the entry is live and @pp holds a reference for the
 * caller; if invalidations kept racing with the pin, or the cache closed,
 * @pp is a one-shot pin instead and the entry is retired.
 */
static int scif_pce_fill(struct scif_pincache *pc, struct scif_pce *e,
			 struct scif_pinned_pages **pp)
{
	unsigned long seq;
	bool raced;
	int tries, ret;

	for (tries = 1; ; tries++) {
		seq = mmu_interval_read_begin(&e->mni);
		ret = scif_pincache_pin(pc, e->start, e->nr_pages << PAGE_SHIFT,
					e->prot, pp);
		if (ret)
			break;
		spin_lock(&pc->lock);
		raced = mmu_interval_read_retry(&e->mni, seq);
		if (!raced && !pc->closed &&
		    pc->nr < READ_ONCE(pincache_entries) &&
		    pc->pages + e->nr_pages <= READ_ONCE(pincache_pages)) {
			e->pp = *pp;
			kref_get(&e->pp->ref);
			e->state = SCIF_PCE_LIVE;
			list_add(&e->node, &pc->lru);
			pc->nr++;
			pc->pages += e->nr_pages;
			spin_unlock(&pc->lock);
			return 0;
		}
		spin_unlock(&pc->lock);
		/*
		 * The mapping changed while we pinned (our own pin may do
		 * that, breaking COW): the pages may be the old ones, pin
		 * again. After a few tries, or with no room, use them once.
		 */
		if (!raced || tries == SCIF_PCE_TRIES ||
		    fatal_signal_pending(current))
			break;
		scif_pp_put(*pp);
	}
	e->state = SCIF_PCE_DEAD;
	scif_pce_free(e);
	return ret;
}

/**
 * scif_pincache_get() - pinned user pages for a v* call
 * @rma: the endpoint's RMA state
 * @start: page-aligned user address of the current process
 * @len: page-aligned length, not 0
 * @prot: %SCIF_PROT_READ, with %SCIF_PROT_WRITE to write into the pages
 * @use_cache: the call has %SCIF_RMA_USECACHE
 * @pp: set to pinned pages covering the range, with a reference for the
 *	caller (scif_pp_put()); they may start before @start
 * @pp_start: set to the user address of the first page of @pp
 *
 * With @use_cache, a cached range is reused; otherwise the range is pinned
 * and, within the cache's bounds, cached. It falls back to a one-shot pin
 * whenever caching is not possible (cache off or closed, range too large,
 * no memory for the entry, racing invalidations). Without @use_cache the
 * pin is one-shot. Either way a pin refused because of RLIMIT_MEMLOCK
 * first evicts what the endpoint's cache holds.
 *
 * Return: 0, or what scif_pp_create() returns.
 */
int scif_pincache_get(struct scif_rma_ep *rma, unsigned long start,
		      unsigned long len, int prot, bool use_cache,
		      struct scif_pinned_pages **pp, unsigned long *pp_start)
{
	unsigned long nr_pages = len >> PAGE_SHIFT;
	struct scif_pincache *pc;
	struct scif_pce *e = NULL;
	int ret;

	*pp_start = start;
	if (!current->mm || nr_pages > READ_ONCE(pincache_pages) ||
	    !READ_ONCE(pincache_entries))
		use_cache = false;
	pc = scif_pincache_grab(rma, use_cache);
	if (!pc)
		return scif_pp_create((void *)start, len, prot, 0, pp);
	if (!use_cache) {
		ret = scif_pincache_pin(pc, start, len, prot, pp);
		scif_pincache_put(pc);
		return ret;
	}
	*pp = scif_pincache_lookup(pc, start, len, prot, pp_start);
	if (*pp) {
		scif_pincache_put(pc);
		return 0;
	}
	scif_pincache_make_room(pc, nr_pages);
	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (e) {
		e->pc = pc;
		e->start = start;
		e->nr_pages = nr_pages;
		e->prot = prot;
		INIT_LIST_HEAD(&e->node);
		if (mmu_interval_notifier_insert(&e->mni, current->mm, start,
						 len, &scif_pce_ops)) {
			kfree(e);
			e = NULL;
		}
	}
	if (e)
		ret = scif_pce_fill(pc, e, pp);
	else
		ret = scif_pincache_pin(pc, start, len, prot, pp);
	scif_pincache_put(pc);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_pincache_get);

/**
 * scif_pincache_destroy() - empty and drop the cache of a closing endpoint
 * @rma: the endpoint's RMA state; @rma->closed is set, so no new cache is
 *	 created
 *
 * Every entry is released now; pages an RMA still uses stay pinned until
 * that RMA drops them.
 */
void scif_pincache_destroy(struct scif_rma_ep *rma)
{
	struct scif_pincache *pc;

	mutex_lock(&rma->lock);
	pc = rma->pcache;
	rma->pcache = NULL;
	mutex_unlock(&rma->lock);
	if (!pc)
		return;
	spin_lock(&pc->lock);
	pc->closed = true;
	while (!list_empty(&pc->lru))
		scif_pce_retire(pc, list_first_entry(&pc->lru,
						     struct scif_pce, node));
	spin_unlock(&pc->lock);
	scif_pincache_reap(pc);
	scif_pincache_put(pc);
}
EXPORT_SYMBOL_IF_KUNIT(scif_pincache_destroy);
