/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SCIF wire format: what one node sends another over a link.
 *
 * Every message is one fixed-size, little-endian &struct scif_wire_msg,
 * optionally followed by @len bytes of data (see each type). Endpoints
 * are named by 64-bit IDs (slot index and generation), never by kernel
 * addresses; the only addresses sent are those of memory offered to the
 * peer through the link (RMA windows, shared-memory streams). The receiver
 * treats every field as hostile until checked.
 */
#ifndef SCIF_WIRE_H
#define SCIF_WIRE_H

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/sizes.h>
#include <linux/types.h>

#define SCIF_WIRE_VERSION	4

/**
 * enum scif_msg_type - what a message asks of its receiver
 * @SCIF_MSG_CONNREQ: connect @src_ep (port @src_port) to the listener on
 *		      @dst_port; @arg is the size of @src_ep's receive ring.
 *		      The data is empty, or one &struct scif_wire_shm that
 *		      offers a stream through shared memory. @seq numbers
 *		      the connects of @src_ep; the answer echoes it
 * @SCIF_MSG_ACCEPT: the connection request of @dst_ep was accepted by the
 *		     new endpoint @src_ep; @arg is its receive ring size. The
 *		     data is one &struct scif_wire_shm if the stream goes
 *		     through shared memory (the request offered it), else
 *		     empty. @seq as in the request
 * @SCIF_MSG_REJECT: the connection request of @dst_ep was refused; @arg is
 *		     the (positive) errno its connect returns: ECONNREFUSED,
 *		     or ENOMEM when the listener's node had no memory for
 *		     the request; @seq as in the request
 * @SCIF_MSG_DATA: @len bytes of stream data follow; @seq is the stream
 *		   offset of the first byte
 * @SCIF_MSG_CREDIT: the receiver @src_ep has consumed @arg bytes in total
 *		     (modulo 2^32); the space may be refilled
 * @SCIF_MSG_DISCONNECT: @src_ep closed (or never existed); its peer
 *			 @dst_ep is reset. @src_ep no longer writes into
 *			 @dst_ep's memory: that offered for the connect
 *			 numbered @seq (the requester's number, which both
 *			 ends of a connection keep)
 * @SCIF_MSG_REG_OPEN: @src_ep registers its window @arg; the data is one
 *		       &struct scif_wire_reg, followed by the addresses of
 *		       the window's first pages (as in REG_PAGES from page
 *		       0; none, or as many as fit)
 * @SCIF_MSG_REG_PAGES: page addresses of window @arg: @len / 8 __le64
 *			values, the first being page @seq of the window.
 *			Pages arrive in order; the last one completes the
 *			window, and the receiver answers with REG_ACK.
 * @SCIF_MSG_REG_ACK: window @arg of @dst_ep is known to the peer (@seq 0)
 *		      or was refused (@seq the positive errno)
 * @SCIF_MSG_UNREG: @src_ep unregistered its window @arg
 * @SCIF_MSG_UNREG_ACK: window @arg of @dst_ep is no longer used by the peer
 *			(implies UNREG_SEEN)
 * @SCIF_MSG_RMA_CLOSE: @src_ep is closing: it will not touch any window of
 *			@dst_ep again, and asks it to drop its windows
 * @SCIF_MSG_RMA_CLOSE_ACK: the peer dropped every window of @dst_ep
 * @SCIF_MSG_FENCE_REQ: mark the RMAs of @dst_ep in flight; answer with
 *			FENCE_DONE carrying the same @arg once they completed
 * @SCIF_MSG_FENCE_DONE: the RMAs marked for token @arg have completed
 * @SCIF_MSG_RMA_PUT: staged RMA (links without RMA addressing): write into
 *		      a window of @dst_ep. The data is one
 *		      &struct scif_wire_rma (@offset: first byte in the
 *		      receiver's registered address space, @len: 0) followed
 *		      by the bytes. @seq is the sender's request tag, echoed
 *		      in RMA_DONE; tag 0 asks for no answer (a fence signal's
 *		      write). @arg: %SCIF_WIRE_RMA_LAST on the request's last
 *		      chunk, which is answered with RMA_DONE; a chunk that
 *		      fails is answered at once
 * @SCIF_MSG_RMA_GET: staged RMA: send @len bytes from @offset of the
 *		      receiver's registered address space (the data is one
 *		      &struct scif_wire_rma), as RMA_DATA messages then
 *		      RMA_DONE, all carrying tag @seq. @arg may hold
 *		      %SCIF_WIRE_RMA_ORDERED
 * @SCIF_MSG_RMA_DATA: bytes answering the RMA_GET of tag @seq, in order:
 *		       each message continues where the previous one ended
 * @SCIF_MSG_RMA_DONE: the staged request of tag @seq ended; @arg is 0 or a
 *		       positive errno
 * @SCIF_MSG_WAKE: a shared-memory stream moved past the event index @dst_ep
 *		   left in &struct scif_wire_shm_ctl before it slept
 * @SCIF_MSG_RELEASE: @src_ep no longer writes into the memory @dst_ep
 *		      offered for its stream in the connect numbered @seq,
 *		      which may be freed
 * @SCIF_MSG_UNREG_SEEN: the peer took window @arg of @dst_ep out of its
 *			 tables: nothing it starts from now on reaches the
 *			 window. UNREG_ACK follows once what it started
 *			 before (RMAs, mappings, pages it holds) ended.
 * @SCIF_MSG_ROUTE: a route announcement of the neighbour (no endpoint,
 *		    every id and port 0): @len / 8 &struct scif_wire_route
 *		    entries, each replacing what the sender said before about
 *		    its node (Documentation/scif-routing.rst)
 * @SCIF_MSG_NR: number of types, not a type
 */
enum scif_msg_type {
	SCIF_MSG_CONNREQ = 1,
	SCIF_MSG_ACCEPT,
	SCIF_MSG_REJECT,
	SCIF_MSG_DATA,
	SCIF_MSG_CREDIT,
	SCIF_MSG_DISCONNECT,
	SCIF_MSG_REG_OPEN,
	SCIF_MSG_REG_PAGES,
	SCIF_MSG_REG_ACK,
	SCIF_MSG_UNREG,
	SCIF_MSG_UNREG_ACK,
	SCIF_MSG_RMA_CLOSE,
	SCIF_MSG_RMA_CLOSE_ACK,
	SCIF_MSG_FENCE_REQ,
	SCIF_MSG_FENCE_DONE,
	SCIF_MSG_RMA_PUT,
	SCIF_MSG_RMA_GET,
	SCIF_MSG_RMA_DATA,
	SCIF_MSG_RMA_DONE,
	SCIF_MSG_WAKE,
	SCIF_MSG_RELEASE,
	SCIF_MSG_UNREG_SEEN,
	SCIF_MSG_ROUTE,
	SCIF_MSG_NR,
};

/**
 * enum scif_msg_layer - the layer whose handler a message type goes to
 * @SCIF_MSG_LAYER_CORE: the core's handlers (connections, streams)
 * @SCIF_MSG_LAYER_RMA: the layer above the core that registered for the
 *			RMA types (rma/scif_reg_msg.c), through
 *			scif_layers_rx()
 */
enum scif_msg_layer {
	SCIF_MSG_LAYER_CORE,
	SCIF_MSG_LAYER_RMA,
};

/**
 * struct scif_msg_rule - what the dispatcher checks of a message type
 *			  before any handler sees it
 * @known: the type exists (false for 0, the hole before the first type)
 * @seq: @seq of &struct scif_wire_msg may be non-zero: a stream offset
 *	 (DATA), the number of a connect (CONNREQ, ACCEPT, REJECT,
 *	 DISCONNECT, RELEASE), a page index, errno or request tag (RMA
 *	 types); for every other type it must be 0
 * @data: data may follow the message (@len non-zero); how much each type
 *	  takes is its handler's check, within what the link carries
 * @layer: an &enum scif_msg_layer
 *
 * What a handler checks against the endpoint it names (the sender is the
 * connected peer, the endpoint's state) stays with the handler.
 */
struct scif_msg_rule {
	bool known;
	bool seq;
	bool data;
	u8 layer;
};

#define SCIF_MSG_RULE(s, d, l) \
	{ .known = true, .seq = (s), .data = (d), .layer = SCIF_MSG_LAYER_##l }

/**
 * scif_msg_rule() - the rules of one message type
 * @type: the type as received (any value)
 *
 * The table beside &enum scif_msg_type: one row per type, read by the
 * dispatcher (core/scif_msg.c) and by the RMA layer's handler, and walked
 * by the KUnit suite scif_wire_kunit. A new type gets its row here.
 *
 * Return: the type's row, or NULL for a value that is no type.
 */
static inline const struct scif_msg_rule *scif_msg_rule(u8 type)
{
	static const struct scif_msg_rule rules[SCIF_MSG_NR] = {
		/*			    seq    data   layer */
		[SCIF_MSG_CONNREQ]	= SCIF_MSG_RULE(true, true, CORE),
		[SCIF_MSG_ACCEPT]	= SCIF_MSG_RULE(true, true, CORE),
		[SCIF_MSG_REJECT]	= SCIF_MSG_RULE(true, false, CORE),
		[SCIF_MSG_DATA]		= SCIF_MSG_RULE(true, true, CORE),
		[SCIF_MSG_CREDIT]	= SCIF_MSG_RULE(false, false, CORE),
		[SCIF_MSG_DISCONNECT]	= SCIF_MSG_RULE(true, false, CORE),
		[SCIF_MSG_REG_OPEN]	= SCIF_MSG_RULE(false, true, RMA),
		[SCIF_MSG_REG_PAGES]	= SCIF_MSG_RULE(true, true, RMA),
		[SCIF_MSG_REG_ACK]	= SCIF_MSG_RULE(true, false, RMA),
		[SCIF_MSG_UNREG]	= SCIF_MSG_RULE(false, false, RMA),
		[SCIF_MSG_UNREG_ACK]	= SCIF_MSG_RULE(false, false, RMA),
		[SCIF_MSG_RMA_CLOSE]	= SCIF_MSG_RULE(false, false, RMA),
		[SCIF_MSG_RMA_CLOSE_ACK] = SCIF_MSG_RULE(false, false, RMA),
		[SCIF_MSG_FENCE_REQ]	= SCIF_MSG_RULE(false, false, RMA),
		[SCIF_MSG_FENCE_DONE]	= SCIF_MSG_RULE(false, false, RMA),
		[SCIF_MSG_RMA_PUT]	= SCIF_MSG_RULE(true, true, RMA),
		[SCIF_MSG_RMA_GET]	= SCIF_MSG_RULE(true, true, RMA),
		[SCIF_MSG_RMA_DATA]	= SCIF_MSG_RULE(true, true, RMA),
		[SCIF_MSG_RMA_DONE]	= SCIF_MSG_RULE(true, true, RMA),
		[SCIF_MSG_WAKE]		= SCIF_MSG_RULE(false, false, CORE),
		[SCIF_MSG_RELEASE]	= SCIF_MSG_RULE(true, false, CORE),
		[SCIF_MSG_UNREG_SEEN]	= SCIF_MSG_RULE(false, false, RMA),
		[SCIF_MSG_ROUTE]	= SCIF_MSG_RULE(false, true, CORE),
	};

	if (type >= SCIF_MSG_NR || !rules[type].known)
		return NULL;
	return &rules[type];
}

/**
 * struct scif_wire_msg - a SCIF control message as it travels
 * @version: %SCIF_WIRE_VERSION
 * @type: an &enum scif_msg_type
 * @len: number of data bytes following the message (0 for types without data)
 * @seq: stream offset of the data (DATA), number of the connect (CONNREQ,
 *	 ACCEPT, REJECT, DISCONNECT, RELEASE), type-specific for RMA types,
 *	 else 0
 * @src_ep: ID of the sending endpoint (0 if none)
 * @dst_ep: ID of the endpoint addressed (0 for CONNREQ)
 * @src_port: port of the sender
 * @dst_port: port addressed
 * @arg: type-specific argument
 * @src_node: the node that sent the message first; kept by every node that
 *	      forwards it
 * @dst_node: the node the message is for
 * @ttl: links the message may still cross, lowered by each node that
 *	 forwards it. Every sender sets it (to %SCIF_ROUTE_HOPS_MAX) with
 *	 @src_node and @dst_node. 0 means the header names no ends, as from
 *	 a peer that leaves these bytes zero: the message is from the node
 *	 at the other end of the link and for the receiver, and @src_node
 *	 and @dst_node must be 0. A forwarder never passes on a message
 *	 whose ttl would reach 0.
 * @rsvd: must be zero
 *
 * @src_node, @dst_node and @ttl were reserved bytes before routing: the
 * layout and size are unchanged (Documentation/scif-routing.rst).
 */
struct scif_wire_msg {
	u8 version;
	u8 type;
	__le16 len;
	__le32 seq;
	__le64 src_ep;
	__le64 dst_ep;
	__le16 src_port;
	__le16 dst_port;
	__le32 arg;
	__le16 src_node;
	__le16 dst_node;
	u8 ttl;
	u8 rsvd[27];
};

/**
 * scif_msg_check_rule() - whether a message keeps its type's rules
 * @msg: the message, as received
 * @len: bytes of data that followed it
 *
 * Return: 0, or -EPROTO for an unknown type, a non-zero @seq on a type
 * that carries none, or data on a type that takes none (scif_msg_rule()).
 */
static inline int scif_msg_check_rule(const struct scif_wire_msg *msg,
				      size_t len)
{
	const struct scif_msg_rule *rule = scif_msg_rule(msg->type);

	if (!rule || (msg->seq && !rule->seq) || (len && !rule->data))
		return -EPROTO;
	return 0;
}

/*
 * The credit rule of a stream by messages: the receiver reports what it
 * consumed (CREDIT) once it read 1/2^SCIF_CREDIT_SHIFT of its ring since
 * its last report. A sender blocked for room has the peer's whole ring in
 * flight, so the reader's next reads always pass the mark. Streams through
 * shared memory have no such rule: the reader publishes every read at
 * once (see scif_stream_wake_due() in <uapi/linux/scif_stream.h>).
 */
#define SCIF_CREDIT_SHIFT	2

/**
 * scif_credit_due() - whether a receiver reports its reads now
 * @unacked: bytes read since the last CREDIT
 * @ring: size of the receive ring
 *
 * Return: true if a CREDIT is to go out.
 */
static inline bool scif_credit_due(u32 unacked, u32 ring)
{
	return unacked >= ring >> SCIF_CREDIT_SHIFT;
}

/**
 * struct scif_wire_reg - head of the data of a REG_OPEN message
 * @offset: first byte of the window in the sender's registered address space
 * @nr_pages: length of the window in pages
 * @prot: %SCIF_PROT_READ / %SCIF_PROT_WRITE
 * @rsvd: must be zero
 */
struct scif_wire_reg {
	__le64 offset;
	__le64 nr_pages;
	__le32 prot;
	__le32 rsvd;
};

/**
 * struct scif_wire_rma - head of the data of RMA_PUT and RMA_GET
 * @offset: first byte in the receiver's registered address space
 * @len: RMA_GET: number of bytes asked for; RMA_PUT: 0 (the bytes follow)
 */
struct scif_wire_rma {
	__le64 offset;
	__le64 len;
};

/* @arg of RMA_PUT: the request's last chunk, to be answered. */
#define SCIF_WIRE_RMA_LAST	0x1
/* @arg of RMA_GET: send the last partial cache line on its own, last. */
#define SCIF_WIRE_RMA_ORDERED	0x2

/* Page sizes a node may have: 4 KiB to 64 KiB. */
#define SCIF_WIRE_PAGE_SHIFT_MIN	12
#define SCIF_WIRE_PAGE_SHIFT_MAX	16

/**
 * struct scif_wire_shm - memory an endpoint offers for its stream
 * @ring: address, as the peer reaches our memory, of our receive ring
 *	  (physically contiguous, of the size the message's @arg gives)
 * @ctl: address of our &struct scif_wire_shm_ctl
 * @page_shift: log2 of the offering node's page size: the granule at which
 *		its memory is its own, and so the most a process on the other
 *		side may map around @ring and @ctl
 * @rsvd: must be zero
 */
struct scif_wire_shm {
	__le64 ring;
	__le64 ctl;
	u8 page_shift;
	u8 rsvd[7];
};

/**
 * struct scif_wire_shm_ctl - stream indices one endpoint keeps for its peer
 * @written: bytes the peer wrote into our receive ring in total (mod 2^32);
 *	     written after the bytes themselves
 * @consumed: bytes of our stream the peer has read in total: our credit
 * @rx_event: stored by the peer's reader before it sleeps: the write
 *	      position it has seen. We send WAKE when a write of ours carries
 *	      our write position past it
 * @tx_event: the same for the peer's sender, sleeping for room: the read
 *	      position of ours it has seen
 *
 * It lives in the memory of the endpoint that reads it and is written only
 * by the peer, through the link: every read here is local, every write
 * remote. The reader checks each value against what it can be.
 */
struct scif_wire_shm_ctl {
	__le32 written;
	__le32 consumed;
	__le32 rx_event;
	__le32 tx_event;
};

/* Hop count of a route announcement entry that means "unreachable". */
#define SCIF_ROUTE_HOPS_MAX	16

/**
 * struct scif_wire_route - one entry of a route announcement
 * @node: the destination node id, 0..%SCIF_MAX_NODE_ID
 * @hops: links between the announcing node and @node: 0 for the announcing
 *	  node itself, %SCIF_ROUTE_HOPS_MAX for a destination withdrawn
 * @gen: the path's generation: the announcing node changes it whenever
 *	 its path to @node changes (its next hop, its hop count, or the
 *	 generation its next hop announced), so that a change anywhere along
 *	 a path reaches every node whose path goes through it; 0 with hop
 *	 count 0 or %SCIF_ROUTE_HOPS_MAX
 * @ident: the random identity of the node that holds the id @node, as the
 *	   announcing node learnt it (non-zero); 0 in a withdrawal
 *
 * See Documentation/scif-routing.rst.
 */
struct scif_wire_route {
	__le16 node;
	u8 hops;
	u8 gen;
	__le32 ident;
};

#define SCIF_WIRE_MSG_SIZE	64
static_assert(sizeof(struct scif_wire_msg) == SCIF_WIRE_MSG_SIZE);
static_assert(sizeof(struct scif_wire_route) == 8);

/* Largest data payload of one DATA message on any link. */
#define SCIF_WIRE_DATA_MAX	16384

/* Bounds of the receive ring size a peer may announce. */
#define SCIF_WIRE_RING_MIN	4096
#define SCIF_WIRE_RING_MAX	SZ_1M

#endif /* SCIF_WIRE_H */
