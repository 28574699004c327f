/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF streams through shared memory: see core/scif_shm.c (the memory),
 * core/scif_shm_quarantine.c and core/scif_shm_ring.c (bytes and indices).
 * Private to core/: /dev/scif maps a stream through the view interface of
 * scif_core.h (&struct scif_shm_view).
 */
#ifndef SCIF_SHM_H
#define SCIF_SHM_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "scif_core.h"

/*
 * Most bytes a sender copies into the peer's ring at a time: the copy
 * holds &scif_shm.lock, which node loss and disconnect wait for.
 */
#define SCIF_SHM_PIECE	SZ_32K

/*
 * Most closed endpoints whose memory one node may still write: a peer
 * that never releases memory gets no more of it, and its new connections
 * go by messages (at most this many rings, 1 MiB each at the most).
 */
#define SCIF_SHM_QUARANTINE_MAX	64

struct device;
struct iov_iter;
struct page;
struct scif_endpt;
struct scif_instance;
struct seq_file;
struct scif_wire_shm;
struct scif_wire_shm_ctl;
struct scif_stream_shared;
struct scif_endpt;
struct address_space;

/**
 * struct scif_shm - the shared-memory side of one endpoint's stream
 * @qlink: entry in its node's quarantine, once retired (&scif_node.shm_q)
 * @ref: one reference for the endpoint, one while in the quarantine
 * @retired: scif_shm_retire() ran and queued it; under the node's
 *	     &scif_node.shm_q_lock
 * @ep_id: id of the endpoint, by which the peer releases it
 * @gen: number of the connect whose CONNREQ or ACCEPT offered the memory
 *	 (the requester's &scif_endpt.conn_gen): every answer that lets go
 *	 of it names this number too, so that an answer about one offer of
 *	 an endpoint never frees another (an endpoint keeps its id across
 *	 connects). Set by scif_shm_offer()
 * @writer: the peer endpoint that may write the memory, once known (the
 *	    acceptor, or the requester for an acceptor's memory); 0 while
 *	    only the offer is out. Written once with WRITE_ONCE() before the
 *	    connection is used, read under the node's &scif_node.shm_q_lock
 * @node: the peer's node
 * @dev: the device our pages are DMA-mapped for (a reference), or NULL
 *	 where the peer reaches them by physical address
 * @pages: our receive ring, physically contiguous, of order @order
 * @order: see @pages
 * @ring: @pages in the direct map
 * @size: bytes of @ring, a power of 2
 * @ring_addr: @ring as the peer reaches it
 * @ctl_page: the page of @ctl
 * @ctl: our control block, written by the peer only
 * @ctl_addr: @ctl as the peer reaches it
 * @offered: the peer was told @ring_addr and @ctl_addr: it may write them
 *	     until it says it stopped
 * @active: the connection's bytes travel through shared memory (the peer
 *	    offered its memory too); set at connect, before the endpoint is
 *	    connected, and kept until the endpoint is freed
 * @lock: serialises writes into the peer's memory against @remote_ok
 *	  turning false; protects the fields below. Taken inside
 *	  &scif_endpt.lock where both are held.
 * @peer_done: the peer said it no longer writes our memory (or never
 *	       will): @pages may be freed with the endpoint
 * @remote_ok: we may write into the peer's memory. Cleared, under @lock,
 *	       before we tell the peer we stopped and when its node is lost,
 *	       so that nobody writes once the mapping may be gone
 * @peer_ring: the peer's receive ring in our mapping of its memory
 * @peer_ctl: the peer's control block, likewise
 * @nt_copy: @peer_ring lies across the link, not in this kernel's own
 *	     memory: bytes go into it with non-temporal stores, since our
 *	     caches cannot help the reader there
 * @peer_ring_phys: CPU physical address of @peer_ring, for processes that
 *		    map it; 0 where the link does not tell it or the peer's
 *		    control block does not have a page to itself
 * @peer_ctl_phys: likewise of the page of @peer_ctl
 * @views_lock: protects @views, @user and @sink; held by a fault of a view
 *		from its look at @remote_ok to its insert, and by
 *		scif_shm_stop() around its zap, so that no view reaches the
 *		peer's memory once @remote_ok is false. Order: taken inside
 *		mmap_lock (faults) and inside &scif_endpt.send_mutex and
 *		.recv_mutex (scif_shm_view_add(), a close); &scif_endpt.lock,
 *		@lock and the mapping's i_mmap_rwsem (the zap) nest inside it
 * @views: the &struct scif_shm_view of every file mapping the stream
 * @user: the positions a process keeps (core/scif_shm_view.c), or NULL
 *	  while no process mapped the stream; set under &scif_endpt.lock too
 * @sink: the page a view's pieces of the peer's memory show once we may
 *	  no longer write there, so that a process writing late loses its
 *	  bytes instead of its life
 * @rx_kernel: a scif_recv() owns the read position, which is then not
 *	       taken from @user; under &scif_endpt.lock
 * @tx_kernel: likewise a scif_send() and the write position
 * @woke_sent: our write position at a process's last SCIF_STREAM_WAKE
 *	       (scif_shm_user_wake_due()); under &scif_endpt.lock
 * @woke_read: likewise our read position
 */
struct scif_shm {
	struct list_head qlink;
	struct kref ref;
	bool retired;
	u64 ep_id;
	u32 gen;
	u64 writer;
	u16 node;
	struct device *dev;
	struct page *pages;
	unsigned int order;
	u8 *ring;
	u32 size;
	dma_addr_t ring_addr;
	struct page *ctl_page;
	struct scif_wire_shm_ctl *ctl;
	dma_addr_t ctl_addr;
	bool offered;
	bool active;
	spinlock_t lock;		/* writes into the peer; below */
	bool peer_done;
	bool remote_ok;
	u8 *peer_ring;
	struct scif_wire_shm_ctl *peer_ctl;
	bool nt_copy;
	phys_addr_t peer_ring_phys;
	phys_addr_t peer_ctl_phys;
	struct mutex views_lock;	/* @views, @user, @sink; faults */
	struct list_head views;
	struct scif_stream_shared *user;
	struct page *sink;
	bool rx_kernel;
	bool tx_kernel;
	u32 woke_sent;
	u32 woke_read;
};

struct scif_shm *scif_shm_alloc(struct scif_instance *si, u16 node,
				u64 ep_id, u32 size);
void scif_shm_reuse(struct scif_shm *shm);
bool scif_shm_reusable(struct scif_shm *shm);
void scif_shm_offer(struct scif_shm *shm, struct scif_wire_shm *w, u32 gen);
void scif_shm_set_writer(struct scif_shm *shm, u64 writer);
int scif_shm_attach(struct scif_instance *si, struct scif_shm *shm,
		    const struct scif_wire_shm *w, u32 peer_size);
void scif_shm_stop(struct scif_shm *shm);
void scif_shm_set_peer_done(struct scif_shm *shm);
void scif_shm_get(struct scif_shm *shm);
void scif_shm_unref(struct scif_shm *shm);
void scif_shm_free(struct kref *ref);

/* core/scif_shm_quarantine.c */
void scif_shm_retire(struct scif_instance *si, struct scif_shm *shm);
void scif_shm_put(struct scif_instance *si, struct scif_shm *shm);
bool scif_shm_unquarantine(struct scif_instance *si, u16 node, u64 ep_id,
			   u32 gen, u64 writer);
void scif_shm_node_lost(struct list_head *quarantine);
unsigned int scif_shm_quarantined(struct scif_instance *si, u16 node);

/* core/scif_shm_ring.c */
int scif_shm_write(struct scif_shm *shm, u32 seq, u32 peer_size,
		   struct iov_iter *from, u32 len);
void scif_shm_publish_read(struct scif_shm *shm, u32 read);
void scif_shm_arm(struct scif_shm *shm, bool rx, u32 seen);
bool scif_shm_wake_due(struct scif_shm *shm, bool rx, u32 from, u32 to);
bool scif_shm_user_wake_due(struct scif_shm *shm, u32 sent, u32 read);
void scif_shm_show(struct seq_file *m, struct scif_shm *shm, u32 read,
		   u32 sent);
u32 scif_shm_written(struct scif_shm *shm);
u32 scif_shm_consumed(struct scif_shm *shm);

/* core/scif_shm_view.c */
void scif_stream_user_enter(struct scif_endpt *ep, bool tx);
void scif_stream_user_leave(struct scif_endpt *ep, bool tx);

#endif /* SCIF_SHM_H */
