/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF endpoints: the private structure behind scif_epd_t, and what the
 * core's files share about it. Private to core/: other layers see
 * &struct scif_endpt as declared in scif_core.h, and reach it through
 * core/scif_ep_view.c.
 */
#ifndef SCIF_ENDPT_H
#define SCIF_ENDPT_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rhashtable-types.h>
#include <linux/scif.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "scif_core.h"
#include "scif_wire.h"

struct iov_iter;
struct pid;
struct scif_instance;
struct scif_rma_ep;

/* Receive ring of every connected endpoint (a power of two). */
#define SCIF_RX_RING_SIZE	(32 * 1024)
/*
 * Hard upper bound of a listen() backlog; the module parameter max_backlog
 * (scif_max_backlog, default %SCIF_DEF_BACKLOG) sets the bound in force.
 */
#define SCIF_MAX_BACKLOG	65536
#define SCIF_DEF_BACKLOG	4096
extern unsigned int scif_max_backlog;
/* How long a blocking connect waits for the listener's node to answer. */
#define SCIF_CONNECT_TIMEOUT	(30 * HZ)
/* Slot of an endpoint in &scif_instance.eps and .parked: its id's low half. */
#define SCIF_EP_IDX(id)		((u32)(id))

/**
 * struct scif_conreq_key - what names a connection request
 * @ep_id: id of the requesting endpoint on @node
 * @node: node of the requesting endpoint (from the link, not the message)
 * @gen: the requester's number for this connect (&scif_endpt.conn_gen)
 *
 * A requester has at most one connect in flight, but requests of earlier
 * connects it gave up on may still be queued; the number tells them
 * apart, so that a new connect is not taken for a replay of an old one.
 */
struct scif_conreq_key {
	u64 ep_id;
	u32 node;
	u32 gen;
};

/**
 * struct scif_conreq - a connection request queued on a listener
 * @list: entry in &scif_endpt.reqs (FIFO order for scif_accept())
 * @hnode: entry in &scif_instance.conreqs, to find a replay without
 *	   walking @list
 * @key: requester's node and endpoint id
 * @port: port of the requesting endpoint
 * @ring: size of the requester's receive ring
 * @shm: the requester offered shared memory for the stream: @offer
 * @offer: what it offered
 * @rcu: frees the request after a grace period (rhashtable rule)
 *
 * Both memberships change together under the listener's &scif_endpt.lock.
 */
struct scif_conreq {
	struct list_head list;
	struct rhash_head hnode;
	struct scif_conreq_key key;
	u16 port;
	u32 ring;
	bool shm;
	struct scif_wire_shm offer;
	struct rcu_head rcu;
};

/**
 * struct scif_endpt - a SCIF endpoint
 * @si: the instance it belongs to
 * @ref: references: the owner's (dropped by scif_close()) plus one per
 *	 lookup in progress
 * @id: slot index (low 32 bits) and generation (high 32 bits)
 * @park_owner: while the endpoint is parked (scif_epd_park()), a reference
 *		to the thread group that parked it; only that group may claim
 *		it. Set before the endpoint enters &scif_instance.parked and
 *		released by whoever takes it out again.
 * @park_listener: while parked, the listener it was accepted from (no
 *		   reference: the listener's close takes every endpoint it
 *		   parked out before the listener can be freed); closing that
 *		   listener closes the endpoint
 * @nparked: of a listener, how many endpoints accepted from it are parked
 *	     (at most its @backlog); under &scif_instance.parked's lock
 * @mutex: serialises the control calls (bind, listen, connect, accept,
 *	   close) of the owner; never taken by message handlers
 * @send_mutex: serialises senders, so that the stream stays in order
 * @recv_mutex: serialises receivers, and with them the ring's read side
 * @lock: protects every field below; never held while sleeping or sending
 * @state: see &enum scif_ep_state
 * @port: local port; @port_owned if this endpoint reserved it (accepted
 *	  endpoints share their listener's port without owning it)
 * @port_owned: see @port
 * @peer: node and port of the peer (or of the listener being connected to)
 * @peer_ep: id of the peer endpoint on @peer.node
 * @conn_err: result of the last connect attempt that failed
 * @conn_gen: number of the connect in flight (or the last one): sent in
 *	      CONNREQ, and an answer that does not echo it is for an earlier
 *	      connect
 * @conn_async: the connect in flight was started without blocking
 * @conn_report: an asynchronous connect completed; the next connect call
 *		 (or poll, as EPOLLOUT) reports it
 * @backlog: maximum number of queued requests of a listener, and of its
 *	     accepted endpoints waiting in scif_epd_park()
 * @nreq: number of requests in @reqs
 * @reqs: queued &struct scif_conreq of a listener
 * @rx_ring: receive ring of @rx_size bytes, allocated on connect (the
 *	     ring of @shm, if any)
 * @shm: the memory offered to the peer for a stream through shared memory
 *	 (core/scif_shm.c), or NULL; set on connect or accept under @mutex
 *	 before the peer may write it. The stream goes through it while
 *	 &scif_shm.active; otherwise by DATA and CREDIT messages.
 * @rx_size: size of @rx_ring, a power of 2 (the peer node's link decides)
 * @rx_seq: bytes received in total (write position)
 * @rx_read: bytes consumed in total (read position)
 * @rx_acked: value of @rx_read last reported to the peer with CREDIT
 * @tx_ring: size of the peer's receive ring
 * @tx_seq: bytes sent in total
 * @tx_acked: bytes the peer reported consumed
 * @max_chunk: largest data chunk of one message towards the peer
 * @reset_err: error reported once the queued data of a disconnected endpoint
 *	       is drained (-ECONNRESET, or -ENODEV after node loss)
 * @reset_local: this side reset the connection (scif_ep_reset()) while the
 *		 peer's node stayed online: the peer was told, but may not have
 *		 let go of our windows yet
 * @flush_seq: bumped by scif_epd_flush() to kick out blocked callers
 * @wq: woken on every state, data, credit, request or flush change, and
 *	by the RMA protocol when the peer answers
 * @rma: the RMA layer's state of the endpoint (registered windows, RMAs in
 *	 flight, fences), set up by its &scif_layer.ep_init handler; the
 *	 core never looks inside
 */
struct scif_endpt {
	struct scif_instance *si;
	struct kref ref;
	u64 id;
	struct pid *park_owner;
	struct scif_endpt *park_listener;
	int nparked;
	struct mutex mutex;		/* control calls */
	struct mutex send_mutex;	/* senders */
	struct mutex recv_mutex;	/* receivers */
	spinlock_t lock;		/* the fields below */
	enum scif_ep_state state;
	u16 port;
	bool port_owned;
	struct scif_port_id peer;
	u64 peer_ep;
	int conn_err;
	u32 conn_gen;
	bool conn_async;
	bool conn_report;
	int backlog;
	int nreq;
	struct list_head reqs;
	u8 *rx_ring;
	struct scif_shm *shm;
	u32 rx_size;
	u32 rx_seq;
	u32 rx_read;
	u32 rx_acked;
	u32 tx_ring;
	u32 tx_seq;
	u32 tx_acked;
	u32 max_chunk;
	int reset_err;
	bool reset_local;
	unsigned int flush_seq;
	wait_queue_head_t wq;
	struct scif_rma_ep *rma;
};

/* core/scif_endpt.c */
struct scif_endpt *scif_ep_lookup_live(struct scif_instance *si, u64 id);
int scif_ep_alloc_ring(struct scif_endpt *ep, u16 node, u32 size);
void __scif_unpark(struct scif_instance *si, struct scif_endpt *ep);

/* core/scif_connect.c */
void scif_listener_shutdown(struct scif_endpt *ep);
void scif_connect_node_lost(struct scif_endpt *ep, u16 node);
int scif_send_reject(struct scif_instance *si, u16 node, u64 dst_ep,
		     u32 gen, u16 src_port, u16 dst_port, int err);
int scif_send_reset(struct scif_instance *si, u16 node, u64 dst_ep,
		    u64 src_ep, u32 gen);

/* core/scif_stream.c */
int scif_stream_sync(struct scif_endpt *ep);
int scif_stream_state_err(struct scif_endpt *ep);
bool scif_send_ready(struct scif_endpt *ep, unsigned int fseq);
bool scif_recv_ready(struct scif_endpt *ep, unsigned int fseq);
void scif_stream_wake(struct scif_endpt *ep);
int scif_stream_check_sync(struct scif_endpt *ep);
int scif_stream_wait(struct scif_endpt *ep,
		     bool (*ready)(struct scif_endpt *ep, unsigned int fseq),
		     unsigned int fseq);
int scif_stream_check(scif_epd_t epd, int len, int flags);

/* core/scif_connect_msg.c and core/scif_stream_msg.c: message handlers */
struct scif_wire_msg;
int scif_handle_connreq(struct scif_instance *si, u16 node,
			const struct scif_wire_msg *msg, const void *data,
			size_t len);
int scif_handle_accept(struct scif_instance *si, u16 node,
		       const struct scif_wire_msg *msg, const void *data,
		       size_t len);
int scif_handle_reject(struct scif_instance *si, u16 node,
		       const struct scif_wire_msg *msg);
int scif_handle_data(struct scif_instance *si, u16 node,
		     const struct scif_wire_msg *msg, const void *data,
		     size_t len);
int scif_handle_credit(struct scif_instance *si, u16 node,
		       const struct scif_wire_msg *msg);
int scif_handle_disconnect(struct scif_instance *si, u16 node,
			   const struct scif_wire_msg *msg);
int scif_handle_wake(struct scif_instance *si, u16 node,
		     const struct scif_wire_msg *msg);
int scif_handle_release(struct scif_instance *si, u16 node,
			const struct scif_wire_msg *msg);
/* core/scif_stream_msg.c: the stream's side of close and node loss */
void scif_data_shutdown(struct scif_endpt *ep);
void scif_data_node_lost(struct scif_endpt *ep, u16 node);
void scif_data_path_lost(struct scif_endpt *ep, u16 node);

#endif /* SCIF_ENDPT_H */
