/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF RMA requests and their DMA path.
 *
 * An RMA is a heap-allocated &struct scif_rma_req from the moment it enters
 * &scif_rma_ep.inflight until it leaves it. The CPU path finishes it before
 * the call returns; the DMA path (rma/scif_dma.c) cuts it into runs of
 * physically contiguous memory, hands them to dmaengine channels of a
 * module-wide pool and finishes it when the last descriptor completed: in
 * the caller for %SCIF_RMA_SYNC, otherwise in a work item.
 * See Documentation/scif-rma.rst.
 */
#ifndef SCIF_DMA_H
#define SCIF_DMA_H

#include <linux/align.h>
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "../core/scif_core.h"

struct scif_rma_ep;
struct page;
struct scif_endpt;
struct scif_window;
struct scif_dma_block;

/* Windows a span holds without an allocation: most RMAs touch one or two. */
#define SCIF_SPAN_INLINE	2

/**
 * struct scif_span - a byte range resolved to contiguous windows
 * @wins: the windows, in offset order, each with a reference; points to
 *	  @few when they fit there (so a span is never copied by value)
 * @nr: number of @wins
 * @start: first byte of the range (an offset in the windows' space)
 * @few: storage for up to %SCIF_SPAN_INLINE windows
 */
struct scif_span {
	struct scif_window **wins;
	unsigned int nr;
	u64 start;
	struct scif_window *few[SCIF_SPAN_INLINE];
};

/**
 * struct scif_rma_req - an RMA from issue to completion
 * @list: entry in &scif_rma_ep.inflight (under &scif_rma_ep.ilock)
 * @seq: its sequence number
 * @ep: the endpoint, with a reference held by the request
 * @lsp: our side: windows (or the pinned pages of a v* call), referenced
 * @rsp: the peer's windows, referenced
 * @len: bytes to copy
 * @tail: %SCIF_RMA_ORDERED on the DMA path: this many last bytes of the
 *	  range are copied by the CPU once every descriptor completed
 * @to_peer: direction
 * @sync: the caller waits for completion (%SCIF_RMA_SYNC)
 * @pending: one per descriptor not yet completed, plus one held by the
 *	     issuer until every descriptor is submitted
 * @done: completed when @pending drops to zero for a @sync request
 * @lock: protects @failed (taken in DMA callbacks)
 * @failed: descriptors that did not complete, to be redone by the CPU
 * @blocks: storage of its descriptors (rma/scif_dma.c), newest first; written
 *	    only by the issuer, freed when the request ends
 * @work: finishes a request without @sync
 * @tag: staged requests (rma/scif_staged.c): the name of the request on the
 *	 wire, its index in &scif_rma_ep.staged
 * @got: staged reads: bytes received so far (under &scif_rma_ep.staged's
 *	 lock)
 * @status: staged requests: how the request ended, 0 or a negative errno;
 *	    written once, by whoever takes it out of &scif_rma_ep.staged
 */
struct scif_rma_req {
	struct list_head list;
	u64 seq;
	struct scif_endpt *ep;
	struct scif_span lsp;
	struct scif_span rsp;
	u64 len;
	u64 tail;
	bool to_peer;
	bool sync;
	atomic_t pending;
	struct completion done;
	spinlock_t lock;		/* @failed */
	struct list_head failed;
	struct scif_dma_block *blocks;
	struct work_struct work;
	u32 tag;
	u64 got;
	int status;
};

/**
 * struct scif_dma_run - physically contiguous memory on both sides
 * @lphys: our side, a physical address
 * @raddr: the peer's side, a peer address (local physical address if
 *	   &scif_peer_mem.local)
 * @len: bytes
 */
struct scif_dma_run {
	u64 lphys;
	u64 raddr;
	u64 len;
};

/**
 * struct scif_dma_issue - state of one request's issue on the DMA path
 * @req: the request
 * @pm: how the peer is reached (nodes_rwsem held for reading)
 * @run: the run being built
 * @used: bit i set: a descriptor went to channel slot i
 * @first: slot of the next run (round robin)
 */
struct scif_dma_issue {
	struct scif_rma_req *req;
	struct scif_peer_mem *pm;
	struct scif_dma_run run;
	unsigned long used;
	unsigned int first;
};

/**
 * struct scif_cursor - a position inside a span
 * @sp: the span
 * @i: index of the current window
 * @pos: current offset (in the windows' space)
 */
struct scif_cursor {
	struct scif_span *sp;
	unsigned int i;
	u64 pos;
};

/**
 * struct scif_walk - pieces of a copy, each within one page on both sides
 * @lc: our side
 * @rc: the peer's side
 * @left: bytes not yet walked
 */
struct scif_walk {
	struct scif_cursor lc;
	struct scif_cursor rc;
	u64 left;
};

/* rma/scif_span.c */
void scif_span_put(struct scif_span *sp);
int scif_span_get(struct scif_rma_ep *rma, bool remote, u64 first, u64 len,
		  int prot, struct scif_span *sp);
int scif_span_vaddr(struct scif_endpt *ep, unsigned long addr,
		    u64 len, int prot, int flags, struct scif_span *sp);
void scif_cursor_init(struct scif_cursor *c, struct scif_span *sp);
unsigned long scif_cursor_page(struct scif_cursor *c, size_t *room);
void scif_cursor_advance(struct scif_cursor *c, size_t n);
void scif_cursor_seek(struct scif_cursor *c, u64 off);
int scif_span_get_served(struct scif_rma_ep *rma, u64 first, u64 len,
			 int prot, struct scif_span *sp);
void scif_walk_init(struct scif_walk *w, struct scif_span *lsp,
		    struct scif_span *rsp, u64 from, u64 n);
bool scif_walk_next(struct scif_walk *w, struct page **lpg,
		    size_t *loff, u64 *raddr, size_t *roff, size_t *n);
bool scif_walk_next_run(struct scif_walk *w, struct scif_dma_run *run);

/* rma/scif_cpu_copy.c */
void scif_copy_cpu(struct scif_peer_mem *pm, struct scif_span *lsp,
		   struct scif_span *rsp, u64 from, u64 n, bool to_peer);
void scif_cpu_run(struct scif_peer_mem *pm, const struct scif_dma_run *run,
		  bool to_peer);

/* Length of the last (partial) cache line of the source range. */
static inline u64 scif_ordered_tail(u64 src, u64 len)
{
	u64 line = ALIGN_DOWN(src + len - 1, L1_CACHE_BYTES);

	return src + len - max(line, src);
}

/* rma/scif_dma.c */
int scif_dma_init(void);
void scif_dma_exit(void);
int scif_dma_begin(struct scif_dma_issue *di, struct scif_rma_req *req,
		   struct scif_peer_mem *pm);
void scif_dma_piece(struct scif_dma_issue *di, u64 lphys, u64 raddr,
		    u64 len);
void scif_dma_end(struct scif_dma_issue *di);
void scif_dma_req_put(struct scif_rma_req *req);
void scif_dma_redo(struct scif_rma_req *req, struct scif_peer_mem *pm);
void scif_dma_req_release(struct scif_rma_req *req);

/**
 * struct scif_dma_stats - what the DMA path did since load (for tests)
 * @dma_bytes: bytes copied by completed descriptors
 * @cpu_bytes: bytes of the DMA path copied by the CPU instead (heads and
 *	       tails the engine cannot align, unmappable or refused runs)
 * @failed: descriptors that failed and were redone by the CPU
 * @channels: channels held now
 */
struct scif_dma_stats {
	u64 dma_bytes;
	u64 cpu_bytes;
	u64 failed;
	unsigned int channels;
};

void scif_dma_get_stats(struct scif_dma_stats *st);
void scif_dma_configure(int channels, unsigned int align);

#endif /* SCIF_DMA_H */
