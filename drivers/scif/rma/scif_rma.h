/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF RMA: the functions of the RMA layer (registration, copies, fences,
 * get_pages), for the layers above it (dev/) and for its own files.
 * Its data structures and their locking are in scif_rma_types.h.
 * See Documentation/scif-rma.rst.
 */
#ifndef SCIF_RMA_H
#define SCIF_RMA_H

#include <linux/types.h>

#include "scif_rma_types.h"

struct scif_endpt;
struct scif_instance;
struct scif_layer;
struct scif_peer_mem;
struct scif_rma_req;
struct scif_span;
struct scif_wire_msg;

/**
 * struct scif_rma_watch - what a layer above RMA wants to be told
 * @peer_windows_gone: an endpoint stopped using the peer's windows (the
 *		       peer closed, or our close); called before the peer
 *		       is told, so that mappings of those windows die first
 */
struct scif_rma_watch {
	void (*peer_windows_gone)(struct scif_endpt *ep);
};

/* rma/scif_rma_ep.c: an endpoint's RMA state, and the layer's handlers */
extern const struct scif_layer scif_rma_layer;
int scif_rma_ep_usable(struct scif_endpt *ep);
void scif_rma_set_watch(const struct scif_rma_watch *watch);
void scif_rma_peer_windows_gone(struct scif_endpt *ep);

/* rma/scif_dma.c: the module's work queue */
struct work_struct;
void scif_rma_queue_work(struct work_struct *work);
void scif_rma_queue_serve(struct work_struct *work);
void scif_staged_serve_init(struct scif_rma_ep *rma);

/* rma/scif_pin.c */
int scif_pp_create(void *addr, size_t len, int prot, int map_flags,
		   struct scif_pinned_pages **out);
void scif_pp_put(struct scif_pinned_pages *pp);

/* rma/scif_pincache.c: SCIF_RMA_USECACHE */
int scif_pincache_get(struct scif_rma_ep *rma, unsigned long start,
		      unsigned long len, int prot, bool use_cache,
		      struct scif_pinned_pages **pp, unsigned long *pp_start);
void scif_pincache_destroy(struct scif_rma_ep *rma);

/* rma/scif_window.c: trees, offsets, window objects */
struct scif_window *scif_win_alloc(unsigned long nr_pages, bool remote);
void scif_win_get(struct scif_window *win);
void scif_win_put(struct scif_window *win);
int scif_win_access(const struct scif_window *win, int prot);
enum dma_data_direction scif_win_dma_dir(int prot);
int scif_wtree_insert(struct maple_tree *mt, struct scif_window *win,
		      u64 offset, bool fixed);
void scif_wtree_erase(struct maple_tree *mt, struct scif_window *win);
struct scif_window *scif_wtree_find(struct maple_tree *mt, u64 offset);
struct scif_window *scif_wtree_next(struct maple_tree *mt, u64 offset,
				    u64 last);
bool scif_wtree_busy(struct maple_tree *mt, u64 first, u64 last);
void scif_wtree_destroy(struct maple_tree *mt);

/* rma/scif_reg.c: register and unregister */
void scif_rma_peer_drain(struct scif_endpt *ep);
void scif_rma_drop_all(struct scif_endpt *ep, bool local);
void scif_win_forget(struct scif_endpt *ep, struct scif_window *win);

/* rma/scif_reg_msg.c: the registration protocol's receive side */
int scif_handle_rma(struct scif_instance *si, u16 node,
		    const struct scif_wire_msg *msg, const void *data,
		    size_t len);
int scif_rma_send(struct scif_endpt *ep, u8 type, u32 arg, u32 seq,
		  const void *data, size_t len);

/* rma/scif_peer_mem.c */
int scif_peer_mem_lock(struct scif_endpt *ep, struct scif_peer_mem *pm);
void scif_peer_mem_unlock(struct scif_endpt *ep);
int scif_peer_mem_get(struct scif_endpt *ep, struct scif_peer_mem *pm);
bool scif_staged_link(struct scif_endpt *ep);

/* rma/scif_staged.c: RMA by messages, for links without RMA addressing */
int scif_staged_rma(struct scif_rma_req *req, u64 tail, bool wait);
void scif_staged_abort(struct scif_endpt *ep, int err);
void scif_staged_close(struct scif_endpt *ep);
void scif_staged_node_lost(struct scif_instance *si, u16 node);
int scif_staged_poke(struct scif_endpt *ep, u64 roff, u64 val);
int scif_staged_rx_data(struct scif_endpt *ep, u32 tag, const void *data,
			size_t len);
int scif_staged_rx_done(struct scif_endpt *ep, u32 tag, u32 err);

/* rma/scif_staged_serve.c: the owner's side of staged RMA */
int scif_staged_rx(struct scif_endpt *ep, const struct scif_wire_msg *msg,
		   const void *data, size_t len);
size_t scif_staged_chunk(struct scif_endpt *ep);
void scif_staged_copy(struct scif_span *sp, u64 from, void *buf, size_t n,
		      bool to_span);

/* rma/scif_copy.c */
int scif_rma_req_finish(struct scif_rma_req *req);
int scif_rma_drain(struct scif_endpt *ep, long timeout);
u64 scif_rma_oldest(struct scif_rma_ep *rma);

/* rma/scif_fence.c: fence marks and waits, the peer's fence messages */
int scif_fence_peer_request(struct scif_endpt *ep, u32 token);
int scif_fence_peer_done(struct scif_endpt *ep, u32 token);
void scif_fence_check_peer_marks(struct scif_endpt *ep);
void scif_fence_release(struct scif_rma_ep *rma);
int scif_fence_mark_peer(struct scif_endpt *ep, int *mark,
			 struct scif_signal *signal);
int scif_fence_mark_ep(struct scif_endpt *ep, int flags, int *mark);
bool scif_fence_self_done(struct scif_rma_ep *rma, u32 mark);
int scif_fence_wait_ep(struct scif_endpt *ep, int mark);

/* rma/scif_poke.c: 8-byte writes into registered memory (fence signals) */
int scif_rma_poke(struct scif_endpt *ep, u64 roff, u64 val);
int scif_rma_local_poke(struct scif_endpt *ep, u64 loff, u64 val);
int scif_rma_poke_check(struct scif_endpt *ep, u64 off, bool remote);

/* rma/scif_get_pages.c */
void scif_get_pages_ep_close(struct scif_endpt *ep);
bool scif_get_pages_wait(struct scif_endpt *ep, long timeout);

#endif /* SCIF_RMA_H */
