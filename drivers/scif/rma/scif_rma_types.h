/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF RMA data: registered address spaces, windows, pinned pages and the
 * RMA state of an endpoint, with the rules that protect them. Types and
 * trivial accessors only; the functions are declared in scif_rma.h.
 *
 * Every endpoint owns a registered address space: byte offsets 0 to
 * %SCIF_RAS_LAST, in which its windows sit, each a run of whole pages.
 * Local windows (ours, backed by pinned pages) and remote windows (the
 * peer's, known by the page addresses it advertised) live in two maple trees
 * of the endpoint, keyed by offset range, so that any lookup is O(log n)
 * and a free range for a new window is found in O(log n) as well.
 *
 * Locking (all per endpoint, in &struct scif_rma_ep):
 *  - @lock (mutex) protects both trees, both id tables, every window's
 *    @state and the counters. Held briefly: never across a copy, a send or
 *    a wait.
 *  - windows are reference counted (&kref). A tree holds one reference;
 *    an RMA holds one on every window it touches for as long as it runs;
 *    a window found under @lock is pinned with scif_win_get() before the
 *    lock is dropped. The final put frees in process context only.
 *  - @ilock (spinlock, may be taken from DMA completion callbacks) protects
 *    the list of RMAs in flight and the fence sequence numbers.
 *  - @staged (an xarray, its own spinlock) holds the staged requests that
 *    wait for the peer, by tag; a request leaves it exactly once (answer,
 *    failure or abort), under that lock, and whoever takes it out drops the
 *    request's pending count for the answer. Received bytes are copied into
 *    a request under that lock, so it cannot end meanwhile.
 * See Documentation/scif-rma.rst.
 */
#ifndef SCIF_RMA_TYPES_H
#define SCIF_RMA_TYPES_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/dma-direction.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/scif.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct device;
struct mm_struct;
struct page;
struct scif_endpt;
struct scif_instance;
struct scif_peer_mem;
struct scif_pincache;
struct scif_wire_msg;

/* Last valid byte of a registered address space (offsets are off_t). */
#define SCIF_RAS_LAST		((u64)S64_MAX)
/* Pages one endpoint may hold in remote windows advertised by its peer. */
#define SCIF_RMA_MAX_REMOTE_PAGES	BIT(26)
/* Windows one endpoint may hold, local and remote alike. */
#define SCIF_RMA_MAX_WINDOWS	BIT(20)
/*
 * SCIF_FENCE_INIT_PEER marks one endpoint may have unanswered, and fence
 * requests of the peer one endpoint holds for its RMAs in flight: the same
 * number, so that a peer within its own cap never overflows ours.
 */
#define SCIF_FENCE_MAX_MARKS	4096
/* Fence marks are 30-bit numbers; this bit tells INIT_PEER marks apart. */
#define SCIF_MARK_PEER		BIT(30)
#define SCIF_MARK_MASK		(SCIF_MARK_PEER - 1)
/*
 * How long register, unregister, close and a wait for a peer fence mark
 * wait for the peer: the module parameter peer_timeout_ms, clamped to
 * %SCIF_RMA_PEER_TIMEOUT_MIN_MS..%SCIF_RMA_PEER_TIMEOUT_MAX_MS.
 */
#define SCIF_RMA_PEER_TIMEOUT_DEF_MS	30000
#define SCIF_RMA_PEER_TIMEOUT_MIN_MS	100
#define SCIF_RMA_PEER_TIMEOUT_MAX_MS	600000
extern unsigned int scif_rma_peer_timeout_ms;

static inline unsigned long scif_rma_peer_timeout(void)
{
	return msecs_to_jiffies(clamp_t(unsigned int,
					READ_ONCE(scif_rma_peer_timeout_ms),
					SCIF_RMA_PEER_TIMEOUT_MIN_MS,
					SCIF_RMA_PEER_TIMEOUT_MAX_MS));
}

#define SCIF_RMA_PEER_TIMEOUT	scif_rma_peer_timeout()

#define SCIF_PROT_MASK		(SCIF_PROT_READ | SCIF_PROT_WRITE)

/**
 * struct scif_pinned_pages - pages held for registration
 * @ref: one for the handle (dropped by scif_unpin_pages()) and one per
 *	 window registered against it
 * @magic: %SCIF_PP_MAGIC while the handle is valid
 * @nr_pages: number of entries in @pages
 * @pages: the pages
 * @prot: %SCIF_PROT_READ / %SCIF_PROT_WRITE
 * @user: the pages were pinned with pin_user_pages (unpinned on release)
 * @mm: the mm charged for the pin (with a mmgrab()), or NULL
 * @charged: pages charged to @mm->pinned_vm
 */
struct scif_pinned_pages {
	struct kref ref;
	u32 magic;
	unsigned long nr_pages;
	struct page **pages;
	int prot;
	bool user;
	struct mm_struct *mm;
	unsigned long charged;
};

#define SCIF_PP_MAGIC		0x5c1f9a9e

/**
 * enum scif_win_state - life cycle of a local window
 * @SCIF_WIN_REGISTERING: being advertised to the peer; not yet usable
 * @SCIF_WIN_ACTIVE: usable by both sides
 * @SCIF_WIN_UNREGISTERING: unregistered; the offsets stay taken until the
 *			    peer confirms it dropped the window
 */
enum scif_win_state {
	SCIF_WIN_REGISTERING,
	SCIF_WIN_ACTIVE,
	SCIF_WIN_UNREGISTERING,
};

/**
 * struct scif_window - a window of an endpoint's registered address space
 * @ref: references (the tree's, plus one per user)
 * @id: name of the window on the wire (local windows: our id; remote
 *	windows: the peer's id for it)
 * @offset: first byte in the registered address space
 * @nr_pages: length in pages
 * @prot: %SCIF_PROT_READ / %SCIF_PROT_WRITE
 * @remote: this is a peer's window
 * @state: local windows: &enum scif_win_state (under &scif_rma_ep.lock)
 * @reg_err: local windows: the peer's answer to the registration
 * @reg_abandoned: local windows: scif_register() stopped waiting for that
 *		   answer and sent UNREG (under &scif_rma_ep.lock)
 * @peer_dropped: local windows: the peer said (UNREG_SEEN or UNREG_ACK)
 *		  that nothing it starts reaches the window any more (under
 *		  &scif_rma_ep.lock; read without it by waiters)
 * @pp: local windows: the pinned pages behind the window
 * @dma_dev: local windows: device @addrs were mapped against, or NULL
 * @addrs: the address of every page as the peer sees it (local windows) or
 *	   as the peer advertised it (remote windows)
 * @nr_recv: remote windows: entries of @addrs received so far
 * @on_free: called (in process context) before the window is freed
 * @owner: for @on_free
 * @free_work: final release, always in process context
 */
struct scif_window {
	struct kref ref;
	u32 id;
	u64 offset;
	unsigned long nr_pages;
	int prot;
	bool remote;
	enum scif_win_state state;
	int reg_err;
	bool reg_abandoned;
	bool peer_dropped;
	struct scif_pinned_pages *pp;
	struct device *dma_dev;
	u64 *addrs;
	unsigned long nr_recv;
	void (*on_free)(struct scif_window *win);
	void *owner;
	struct work_struct free_work;
};

static inline u64 scif_win_end(const struct scif_window *win)
{
	return win->offset + ((u64)win->nr_pages << PAGE_SHIFT);
}

/**
 * struct scif_rma_ep - the RMA state of one endpoint
 * @ep: the endpoint it belongs to (&scif_endpt.rma points back)
 * @lock: see the top of this file
 * @local: our windows by offset range (maple tree, external lock @lock)
 * @remote: the peer's complete windows by offset range
 * @wins: our windows by id
 * @rwins: the peer's windows by its ids, complete or still arriving
 * @nr_windows: entries of @wins plus @rwins
 * @remote_pages: pages of all entries of @rwins
 * @closed: scif_close() began; nothing new starts
 * @peer_closed: the peer said it is done with our windows
 * @peer_acked: the peer confirmed it dropped our windows (close)
 * @ilock: protects @inflight, @seq, @nr_reqs, @peer_marks, @nr_peer_marks
 * @inflight: RMAs issued and not yet reaped, in issue order
 * @seq: sequence number of the last RMA issued
 * @nr_reqs: RMAs issued whose completion has not yet run to its end (they
 *	     leave @inflight first, then answer fences); close waits for 0
 * @peer_marks: fence requests of the peer waiting for our RMAs, oldest
 *		first (their sequence numbers never decrease along the list)
 * @nr_peer_marks: entries of @peer_marks, at most %SCIF_FENCE_MAX_MARKS
 * @my_marks: our INIT_PEER marks the peer has not answered, by token (value
 *	      entries, nothing allocated per mark but the tree's nodes); the
 *	      answer erases the entry. Its own lock protects it and
 *	      @nr_my_marks
 * @nr_my_marks: entries of @my_marks, at most %SCIF_FENCE_MAX_MARKS
 * @marks_issued: INIT_PEER marks taken so far; a mark's token is its number
 *		  modulo 2^30
 * @wq: woken when an RMA completes, a window changes state, or the peer
 *	answers
 * @close_work: carries out the peer's RMA_CLOSE
 * @pcache: pinned-page cache of the v* calls (rma/scif_pincache.c), created on
 *	    first use and detached by scif_pincache_destroy(), under @lock
 * @staged: staged RMAs (rma/scif_staged.c) waiting for the peer's answer,
 *	    by tag; see the top of this file
 * @staged_next: next tag to try, under @staged's lock; tags below it were
 *		 handed out (until @staged_wrapped)
 * @staged_wrapped: the tags wrapped at least once: an unknown tag may be a
 *		    late answer to a request long gone
 * @nr_serving: RMA_GET requests of the peer being served
 *		(rma/scif_staged_serve.c; atomic)
 * @serve_lock: protects @serve_q and @serve_busy
 * @serve_q: the peer's RMA_GET requests not yet served to their end,
 *	     oldest first
 * @serve_busy: @serve_work is queued or running, holding a reference to
 *		the endpoint
 * @serve_work: serves the head of @serve_q one slice at a time, on the
 *		serving queue (scif_rma_queue_serve()), so that each endpoint
 *		takes one worker at most and the endpoints take turns
 * @kept: entry in the list of closed endpoints whose windows stay pinned
 *	  until their peer's node is lost (rma/scif_rma_ep.c); empty
 *	  otherwise. Under that list's mutex
 */
struct scif_rma_ep {
	struct scif_endpt *ep;
	struct mutex lock;		/* trees, tables, window states */
	struct maple_tree local;
	struct maple_tree remote;
	struct xarray wins;
	struct xarray rwins;
	unsigned int nr_windows;
	unsigned long remote_pages;
	bool closed;
	bool peer_closed;
	bool peer_acked;
	spinlock_t ilock;		/* @inflight, @seq, @nr_reqs, marks */
	struct list_head inflight;
	u64 seq;
	unsigned int nr_reqs;
	struct list_head peer_marks;
	unsigned int nr_peer_marks;
	struct xarray my_marks;
	unsigned int nr_my_marks;
	u64 marks_issued;
	wait_queue_head_t wq;
	struct work_struct close_work;
	struct scif_pincache *pcache;
	struct xarray staged;
	u32 staged_next;
	bool staged_wrapped;
	atomic_t nr_serving;
	spinlock_t serve_lock;		/* @serve_q, @serve_busy */
	struct list_head serve_q;
	bool serve_busy;
	struct work_struct serve_work;
	struct list_head kept;
};

/**
 * struct scif_signal - a fence signal waiting for its mark
 * @work: runs the writes (and, for a mark on our RMAs, the wait before). A
 *	  signal on a peer mark has it set up before the mark is taken, so
 *	  that FENCE_DONE (rma/scif_fence.c) only queues it
 * @ep: the endpoint; referenced while @work is queued or running. A
 *	signal on a peer mark waits in &scif_rma_ep.my_marks as the entry of
 *	its token, holding no reference: FENCE_DONE queues it, and if the
 *	answer never comes it is freed with the endpoint.
 * @mark: the mark
 * @flags: %SCIF_SIGNAL_LOCAL / %SCIF_SIGNAL_REMOTE
 * @loff: local offset
 * @lval: local value
 * @roff: remote offset
 * @rval: remote value
 */
struct scif_signal {
	struct work_struct work;
	struct scif_endpt *ep;
	int mark;
	int flags;
	u64 loff, lval, roff, rval;
};

#endif /* SCIF_RMA_TYPES_H */
