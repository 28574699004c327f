// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF streams through shared memory.
 *
 * On a link that reaches the peer's memory (loopback, the KUnit pair, the
 * NTB in direct mode) a connection's bytes need not travel in DATA
 * messages through the link's own ring. Each endpoint offers the peer its
 * receive ring and a small control block (&struct scif_wire_shm_ctl) in
 * CONNREQ or ACCEPT. A sender then copies straight into the peer's ring
 * and stores how far it wrote into the peer's control block; a reader
 * stores how far it read into the sender's. Every index is thus read from
 * local memory and written across the link, which on PCIe costs a posted
 * write and no round trip.
 *
 * A message is needed only to wake a side that sleeps. Before it sleeps,
 * a reader (or a sender out of room) stores in the other side's control
 * block the index it has seen (an event index, as virtio rings have),
 * reads it back (so that the write has landed) and checks once more; the
 * other side, after each move, sends WAKE when that move carried its index
 * past the stored one. A move the sleeper had seen already never counts as
 * its wake-up. Both sides store, then issue a full barrier, then load what
 * the other stored, so one of them always sees the other.
 *
 * Memory the peer may write is never freed while it still may: an
 * endpoint's ring and control block go with the endpoint only once the
 * peer said it stopped writing them (DISCONNECT, RELEASE, REJECT, or an
 * ACCEPT without shared memory). Until then a closed endpoint's memory
 * waits in its node's quarantine, which node loss empties.
 *
 * This file holds the memory and its life: allocation, the offer, the
 * attach to the peer's offer, stopping and the references. The quarantine
 * and scif_shm_put() are in core/scif_shm_quarantine.c, the moves of bytes and indices in
 * core/scif_shm_ring.c, a process's view in core/scif_shm_view.c.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/scif_requests.h>

#include "scif_core.h"
#include "scif_instance.h"
#include "scif_link.h"
#include "scif_shm.h"
#include "scif_wire.h"

static bool scif_stream_shm = true;
module_param_named(stream_shm, scif_stream_shm, bool, 0644);
MODULE_PARM_DESC(stream_shm, "Carry the bytes of new connections through shared memory where the link reaches the peer's memory (default Y; N: in DATA messages)");

/**
 * scif_shm_free() - free the memory once its last reference is dropped
 * @ref: &scif_shm.ref
 *
 * The kref release of scif_shm_put(), scif_shm_unref() and the quarantine
 * (core/scif_shm_quarantine.c).
 */
void scif_shm_free(struct kref *ref)
{
	struct scif_shm *shm = container_of(ref, struct scif_shm, ref);

	if (shm->dev) {
		dma_unmap_page(shm->dev, shm->ring_addr, shm->size,
			       DMA_BIDIRECTIONAL);
		dma_unmap_page(shm->dev, shm->ctl_addr, PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
		put_device(shm->dev);
	}
	__free_pages(shm->pages, shm->order);
	__free_page(shm->ctl_page);
	/* No view is left: each holds a reference. */
	if (shm->user)
		free_page((unsigned long)shm->user);
	if (shm->sink)
		__free_page(shm->sink);
	mutex_destroy(&shm->views_lock);
	kfree(shm);
}

/* Map @pg (@len bytes) for the peer; the address it reaches it at. */
static int scif_shm_map(struct scif_shm *shm, struct page *pg, size_t len,
			dma_addr_t *addr)
{
	if (!shm->dev) {
		*addr = page_to_phys(pg);
		return 0;
	}
	*addr = dma_map_page(shm->dev, pg, 0, len, DMA_BIDIRECTIONAL);
	return dma_mapping_error(shm->dev, *addr);
}

/**
 * scif_shm_alloc() - memory for a stream through shared memory, if usable
 * @si: the instance
 * @node: the peer's node
 * @ep_id: the endpoint's id
 * @size: receive ring size, a power of 2
 *
 * Return: the new state, or NULL where the stream goes by messages: the
 * link does not reach the peer's memory, stream_shm is off, the node's
 * quarantine is full, or memory is short (contiguous pages may be).
 */
struct scif_shm *scif_shm_alloc(struct scif_instance *si, u16 node,
				u64 ep_id, u32 size)
{
	struct scif_shm *shm;
	struct scif_node *n;
	bool usable = false;

	if (!READ_ONCE(scif_stream_shm))
		return NULL;
	shm = kzalloc(sizeof(*shm), GFP_KERNEL_ACCOUNT);
	if (!shm)
		return NULL;
	down_read(&si->nodes_rwsem);
	n = xa_load(&si->nodes, node);
	if (n && (n->link->rma_local || n->link->peer_mem)) {
		spin_lock(&n->shm_q_lock);
		usable = n->shm_q_len < SCIF_SHM_QUARANTINE_MAX;
		spin_unlock(&n->shm_q_lock);
		if (usable && !n->link->rma_local && n->link->dma_dev)
			shm->dev = get_device(n->link->dma_dev);
	}
	up_read(&si->nodes_rwsem);
	if (!usable)
		goto free;
	INIT_LIST_HEAD(&shm->qlink);
	INIT_LIST_HEAD(&shm->views);
	kref_init(&shm->ref);
	spin_lock_init(&shm->lock);
	mutex_init(&shm->views_lock);
	shm->ep_id = ep_id;
	shm->node = node;
	shm->size = size;
	shm->order = get_order(size);
	/*
	 * Zeroed: the peer and, through SCIF_STREAM_MAP, processes on both
	 * sides read the ring before anything was written into it.
	 */
	shm->pages = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_ZERO,
				 shm->order);
	shm->ctl_page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!shm->pages || !shm->ctl_page)
		goto free_pages;
	shm->ring = page_address(shm->pages);
	shm->ctl = page_address(shm->ctl_page);
	if (scif_shm_map(shm, shm->pages, size, &shm->ring_addr))
		goto free_pages;
	if (scif_shm_map(shm, shm->ctl_page, PAGE_SIZE, &shm->ctl_addr)) {
		if (shm->dev)
			dma_unmap_page(shm->dev, shm->ring_addr, size,
				       DMA_BIDIRECTIONAL);
		goto free_pages;
	}
	return shm;
free_pages:
	if (shm->pages)
		__free_pages(shm->pages, shm->order);
	if (shm->ctl_page)
		__free_page(shm->ctl_page);
free:
	if (shm->dev)
		put_device(shm->dev);
	kfree(shm);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_alloc);

/**
 * scif_shm_reusable() - whether a new connect may offer the same memory
 * @shm: state of an endpoint that is not connected
 *
 * Return: true unless the peer of an earlier attempt may still write it.
 */
bool scif_shm_reusable(struct scif_shm *shm)
{
	bool ret;

	spin_lock(&shm->lock);
	ret = !shm->offered || shm->peer_done;
	spin_unlock(&shm->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_reusable);

/**
 * scif_shm_reuse() - make reusable memory fresh for a new connect
 * @shm: state for which scif_shm_reusable() said true
 *
 * The ring is cleared too: the next peer must not read what the previous
 * one may have written.
 */
void scif_shm_reuse(struct scif_shm *shm)
{
	if (shm->offered)
		memset(shm->ring, 0, shm->size);
	spin_lock(&shm->lock);
	memset(shm->ctl, 0, sizeof(*shm->ctl));
	shm->writer = 0;
	shm->woke_sent = 0;
	shm->woke_read = 0;
	shm->offered = false;
	shm->active = false;
	shm->peer_done = false;
	shm->remote_ok = false;
	spin_unlock(&shm->lock);
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_reuse);

/**
 * scif_shm_offer() - describe our memory to the peer
 * @shm: the state
 * @w: filled in, to be sent in CONNREQ or ACCEPT
 * @gen: the number of the connect the message belongs to
 *
 * From here on the peer may write it until it says it stopped, in an
 * answer that names @gen.
 */
void scif_shm_offer(struct scif_shm *shm, struct scif_wire_shm *w, u32 gen)
{
	spin_lock(&shm->lock);
	shm->offered = true;
	shm->gen = gen;
	spin_unlock(&shm->lock);
	memset(w, 0, sizeof(*w));
	w->ring = cpu_to_le64(shm->ring_addr);
	w->ctl = cpu_to_le64(shm->ctl_addr);
	w->page_shift = PAGE_SHIFT;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_offer);

/**
 * scif_shm_set_writer() - name the peer endpoint that writes our memory
 * @shm: the state, offered
 * @writer: the peer's endpoint id
 *
 * Answers that let go of the memory are then taken from @writer alone.
 */
void scif_shm_set_writer(struct scif_shm *shm, u64 writer)
{
	WRITE_ONCE(shm->writer, writer);
}

/* Our pointer to @len bytes the peer offered at @a, or NULL if it lies. */
static void *scif_shm_peer_ptr(struct scif_link *link, u64 a, size_t len)
{
	u64 last;

	if (check_add_overflow(a, (u64)len - 1, &last))
		return NULL;
	if (link->rma_local) {
		/* This very kernel: its own pages, in the direct map. */
		if (!pfn_valid(PHYS_PFN(a)) || !pfn_valid(PHYS_PFN(last)) ||
		    PageReserved(pfn_to_page(PHYS_PFN(a))))
			return NULL;
		return phys_to_virt(a);
	}
	if (!link->peer_mem || last >= link->peer_mem_size)
		return NULL;
	return link->peer_mem + a;
}

/**
 * scif_shm_attach() - start writing into the memory the peer offered
 * @si: the instance; the caller holds @si->nodes_rwsem for reading, so
 *	that the node cannot go (and its mapping with it) before @remote_ok
 *	is set, which scif_node_remove() then clears before unmapping
 * @shm: our state, offered to the peer
 * @w: the peer's offer
 * @peer_size: the peer's ring size, checked by the caller to lie within
 *	       %SCIF_WIRE_RING_MIN..%SCIF_WIRE_RING_MAX
 *
 * Does not sleep, so that a caller may hold the endpoint's lock (which
 * keeps @shm from being replaced under it).
 *
 * The peer's page size may differ from ours. Its memory is aligned to its
 * own pages; a process here may map it only where those pages are at
 * least as large as ours, else one of our pages would also cover memory
 * the peer never offered.
 *
 * Return: 0, -EPROTO (addresses outside what the link reaches, misaligned,
 * or a page size no node has), -ENODEV (the node is gone).
 */
int scif_shm_attach(struct scif_instance *si, struct scif_shm *shm,
		    const struct scif_wire_shm *w, u32 peer_size)
{
	u64 ring = le64_to_cpu(w->ring), ctl = le64_to_cpu(w->ctl);
	struct scif_wire_shm_ctl *pctl;
	u64 peer_page, mappable;
	struct scif_node *n;
	u8 *pring;

	lockdep_assert_held_read(&si->nodes_rwsem);

	if (w->page_shift < SCIF_WIRE_PAGE_SHIFT_MIN ||
	    w->page_shift > SCIF_WIRE_PAGE_SHIFT_MAX ||
	    memchr_inv(w->rsvd, 0, sizeof(w->rsvd)))
		return -EPROTO;
	peer_page = 1ULL << w->page_shift;
	if (!is_power_of_2(peer_size) || (ring & (peer_page - 1)) || (ctl & (sizeof(*pctl) - 1)))
		return -EPROTO;
	/* Pages of ours lie wholly inside pages of the peer's. */
	mappable = w->page_shift >= PAGE_SHIFT && !(ring & ~PAGE_MASK) &&
		   !(ctl & (peer_page - 1));
	n = xa_load(&si->nodes, shm->node);
	if (!n)
		return -ENODEV;
	pring = scif_shm_peer_ptr(n->link, ring, peer_size);
	pctl = scif_shm_peer_ptr(n->link, ctl, sizeof(*pctl));
	if (!pring || !pctl)
		return -EPROTO;
	spin_lock(&shm->lock);
	shm->peer_ring = pring;
	shm->peer_ctl = pctl;
	shm->nt_copy = !n->link->rma_local;
	shm->peer_ring_phys = 0;
	shm->peer_ctl_phys = 0;
	/* A process may map them only where the block is alone on its page. */
	if (mappable && (n->link->rma_local || n->link->peer_mem_phys)) {
		shm->peer_ring_phys = ring;
		shm->peer_ctl_phys = ctl;
		if (!n->link->rma_local) {
			shm->peer_ring_phys += n->link->peer_mem_phys;
			shm->peer_ctl_phys += n->link->peer_mem_phys;
		}
	}
	shm->remote_ok = true;
	shm->active = true;
	spin_unlock(&shm->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_attach);

/*
 * Take the peer's memory out of every process's view of the stream
 * (core/scif_shm_view.c): @remote_ok is false already, so the faults that
 * follow the zap map the sink. @down is set only after the zap: a process
 * that sees it no longer reaches the peer's memory.
 */
static void scif_shm_views_stop(struct scif_shm *shm)
{
	struct scif_shm_view *v;

	mutex_lock(&shm->views_lock);
	list_for_each_entry(v, &shm->views, link)
		unmap_mapping_range(v->mapping, 0, 0, 1);
	if (shm->user)
		WRITE_ONCE(shm->user->down, 1);
	mutex_unlock(&shm->views_lock);
}

/**
 * scif_shm_stop() - never write into the peer's memory again
 * @shm: the state
 *
 * Waits for a write in progress, and takes the peer's memory out of the
 * processes that map the stream. Called before telling the peer
 * (DISCONNECT, RELEASE) and when its node is lost. Sleeps.
 */
void scif_shm_stop(struct scif_shm *shm)
{
	might_sleep();
	spin_lock(&shm->lock);
	shm->remote_ok = false;
	spin_unlock(&shm->lock);
	scif_shm_views_stop(shm);
}

/**
 * scif_shm_set_peer_done() - the peer no longer writes our memory
 * @shm: the state
 */
void scif_shm_set_peer_done(struct scif_shm *shm)
{
	spin_lock(&shm->lock);
	shm->peer_done = true;
	spin_unlock(&shm->lock);
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_set_peer_done);

/**
 * scif_shm_get() - take a reference for a user other than the endpoint
 * @shm: the state
 */
void scif_shm_get(struct scif_shm *shm)
{
	kref_get(&shm->ref);
}

/**
 * scif_shm_unref() - drop a reference of scif_shm_get()
 * @shm: the state
 */
void scif_shm_unref(struct scif_shm *shm)
{
	kref_put(&shm->ref, scif_shm_free);
}
