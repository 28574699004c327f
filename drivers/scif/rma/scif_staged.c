// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF staged RMA, the requester's side: scif_readfrom(), scif_writeto() and
 * their v* forms over a link that cannot reach the peer's memory (no
 * &scif_link.peer_mem, as the NTB transport in translated mode). The bytes
 * travel in messages and the node that owns the window does the copy on its
 * side (rma/scif_staged_serve.c):
 *
 *  - a write is cut into RMA_PUT messages, each naming the first byte it
 *    carries in the owner's registered address space; the owner copies
 *    each into its pinned pages and answers the last one with RMA_DONE;
 *  - a read is one RMA_GET; the owner answers with RMA_DATA messages in
 *    order, then RMA_DONE.
 *
 * Every byte is copied twice (into the message, out of it) and one message
 * carries at most the link's chunk (16 KiB on NTB), so this is far slower
 * than the direct path; it exists so that RMA works at all.
 *
 * The requester checks the request against its copy of the peer's windows
 * first, exactly as the direct path does (same errnos), enters it in
 * &scif_rma_ep.inflight (fences see it like any other RMA) and in
 * &scif_rma_ep.staged under a 32-bit tag, and holds a reference on every
 * window until the request ended, so that the peer's windows cannot be
 * unregistered under it (our UNREG_ACK waits for that). A request ends when
 * its RMA_DONE arrives, when a message for it cannot be sent, when the
 * peer lies about it, when its node is lost (-ENODEV), when our endpoint is
 * closed or reset (-ECONNRESET), or when a waiting caller gives up. The
 * answers (RMA_DATA, RMA_DONE) reach scif_staged_rx_data() and
 * scif_staged_rx_done() here through scif_staged_rx(). Answers the
 * requester cannot match are dropped and counted; those for a request that
 * already ended (a late answer) quietly.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
#include "scif_rma.h"

/* What the caller sees of the owner's errno: the same as the direct path. */
static int scif_staged_errno(u32 err)
{
	switch (err) {
	case 0:
		return 0;
	case ENXIO:
	case EACCES:
	case ENOMEM:
		return -(int)err;
	case EAGAIN:
		return -ENOMEM;
	default:
		return -ECONNRESET;
	}
}

/*
 * End @req with @status if it is still waiting under @tag: take it out of
 * the table and drop the answer's pending count. Any context.
 */
static bool scif_staged_end(struct scif_rma_ep *rma, u32 tag,
			    struct scif_rma_req *req, int status)
{
	void *old;

	xa_lock(&rma->staged);
	old = __xa_cmpxchg(&rma->staged, tag, req, NULL, GFP_ATOMIC);
	if (old == req)
		req->status = status;
	xa_unlock(&rma->staged);
	if (old != req)
		return false;
	scif_dma_req_put(req);
	return true;
}

/* Put: our bytes to the peer's windows, in chunks. Returns a send error. */
static int scif_staged_put(struct scif_rma_req *req, u64 tail)
{
	struct scif_endpt *ep = req->ep;
	size_t chunk = scif_staged_chunk(ep), n;
	struct scif_wire_rma *h;
	u64 pos, body = req->len - tail;
	u32 flags;
	int ret = 0;

	if (chunk <= sizeof(*h))
		return -ENODEV;
	chunk -= sizeof(*h);
	h = kvmalloc(sizeof(*h) + min_t(u64, chunk, req->len), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	for (pos = 0; pos < req->len && !ret; pos += n) {
		/* Ended already (refused, node lost): the rest is moot. */
		if (xa_load(&scif_ep_rma(ep)->staged, req->tag) != req)
			break;
		/* %SCIF_RMA_ORDERED: the tail travels alone, last. */
		n = min_t(u64, chunk, (pos < body ? body : req->len) - pos);
		h->offset = cpu_to_le64(req->rsp.start + pos);
		h->len = 0;
		scif_staged_copy(&req->lsp, pos, h + 1, n, false);
		flags = pos + n == req->len ? SCIF_WIRE_RMA_LAST : 0;
		ret = scif_rma_send(ep, SCIF_MSG_RMA_PUT, flags, req->tag, h,
				    sizeof(*h) + n);
		cond_resched();
	}
	kvfree(h);
	return ret;
}

/* Get: ask the owner for the whole range at once. */
static int scif_staged_get(struct scif_rma_req *req, bool ordered)
{
	struct scif_wire_rma h = {
		.offset = cpu_to_le64(req->rsp.start),
		.len = cpu_to_le64(req->len),
	};

	return scif_rma_send(req->ep, SCIF_MSG_RMA_GET,
			     ordered ? SCIF_WIRE_RMA_ORDERED : 0, req->tag,
			     &h, sizeof(h));
}

/**
 * struct scif_staged_wait_arg - a caller waiting for its staged request
 * @req: the request
 */
struct scif_staged_wait_arg {
	struct scif_rma_req *req;
};

static bool scif_staged_settled(const void *arg)
{
	const struct scif_staged_wait_arg *w = arg;

	return completion_done(&w->req->done) ||
	       scif_rma_ep_usable(w->req->ep);
}

/*
 * Wait for @req to end. A peer that answers nothing for the peer timeout
 * (bytes of a get arriving count as an answer) is taken for broken: the
 * connection is reset. A fatal signal ends the request; its late answer is
 * then dropped.
 */
static int scif_staged_wait(struct scif_rma_req *req)
{
	struct scif_staged_wait_arg w = { .req = req };
	struct scif_endpt *ep = req->ep;
	int err, ret;
	u64 got;
	long left;

	do {
		got = READ_ONCE(req->got);
		left = scif_ep_wait_peer(ep, scif_staged_settled, &w,
					 TASK_KILLABLE, SCIF_RMA_PEER_TIMEOUT);
	} while (!left && READ_ONCE(req->got) != got);
	if (!completion_done(&req->done)) {
		if (!left) {
			scif_ep_reset(ep, -ETIMEDOUT);
			err = -ECONNRESET;
		} else if (left < 0) {
			err = -EINTR;
		} else {
			err = scif_rma_ep_usable(ep) ? : -ECONNRESET;
		}
		scif_staged_end(scif_ep_rma(ep), req->tag, req, err);
	}
	wait_for_completion(&req->done);
	err = req->status;
	ret = scif_rma_req_finish(req);
	return err ? : ret;
}

/**
 * scif_staged_rma() - carry out an RMA by messages
 * @req: the request, issued (in &scif_rma_ep.inflight, windows and the
 *	 endpoint referenced), from kzalloc(), initialised for completion
 *	 by scif_dma_req_put() with the issuer's pending count
 * @tail: %SCIF_RMA_ORDERED: length of the last partial cache line of the
 *	  source, which travels last and alone; else 0
 * @wait: return only once the request ended (and was freed); the
 *	  request was initialised with &scif_rma_req.sync set to match
 *
 * Process context, no locks held. Sends may wait for room in the link.
 *
 * Return: 0, or the request's error (-ENXIO, -EACCES, -ENOMEM from the
 * owner; -ECONNRESET, also for a peer that broke the protocol; -ENODEV,
 * -EINTR). Without @wait, only errors of the issue are reported; the
 * request completes later, before any fence that covers it.
 */
int scif_staged_rma(struct scif_rma_req *req, u64 tail, bool wait)
{
	struct scif_endpt *ep = req->ep;
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	u32 tag;
	int ret;

	/* The answer's count, dropped by whoever ends the request. */
	atomic_inc(&req->pending);
	ret = xa_alloc_cyclic(&rma->staged, &tag, req, XA_LIMIT(1, U32_MAX),
			      &rma->staged_next, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		req->status = ret;
		scif_dma_req_put(req);
		goto issued;
	}
	if (ret > 0)
		WRITE_ONCE(rma->staged_wrapped, true);
	req->tag = tag;
	ret = req->to_peer ? scif_staged_put(req, tail) :
			     scif_staged_get(req, tail != 0);
	if (ret) {
		/* A failed send reset the connection already. */
		ret = scif_rma_ep_usable(ep) ? : ret;
		scif_staged_end(rma, tag, req, ret);
	}
issued:
	/* The issuer's count: the request now ends by its answer. */
	scif_dma_req_put(req);
	if (!wait)
		return ret;
	return scif_staged_wait(req);
}

/**
 * scif_staged_abort() - end every staged request of an endpoint
 * @ep: the endpoint
 * @err: what they end with (-ENODEV, -ECONNRESET)
 *
 * For node loss and close: answers that would still come are dropped as
 * late. Any context.
 */
void scif_staged_abort(struct scif_endpt *ep, int err)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_rma_req *req;
	unsigned long tag;

	if (!rma)
		return;
	xa_lock(&rma->staged);
	xa_for_each(&rma->staged, tag, req) {
		__xa_erase(&rma->staged, tag);
		req->status = err;
		/* Completes or queues: the request may be gone after it. */
		scif_dma_req_put(req);
	}
	xa_unlock(&rma->staged);
	wake_up_all(scif_ep_wq(ep));
}

/**
 * scif_staged_close() - end the staged requests of a connection that is down
 * @ep: the endpoint: closing (no new RMA starts), or waited on by a fence
 *
 * A connection that is down already may never see its answers: its
 * requests end now. Those of a live peer are left to answer (close then
 * drains them, bounded, and aborts what is left with scif_staged_abort()).
 */
void scif_staged_close(struct scif_endpt *ep)
{
	struct scif_ep_view v;
	int err = 0;

	scif_ep_view(ep, &v);
	if (v.state != SCIF_EP_CONNECTED)
		err = v.reset_err ? : -ECONNRESET;
	if (err)
		scif_staged_abort(ep, err);
}

/**
 * scif_staged_node_lost() - end the staged requests towards a lost node
 * @si: the instance
 * @node: the node
 */
void scif_staged_node_lost(struct scif_instance *si, u16 node)
{
	struct scif_endpt *ep;
	struct scif_ep_view v;
	unsigned long idx = 0;
	bool match;

	while ((ep = scif_ep_next(si, &idx))) {
		scif_ep_view(ep, &v);
		match = v.peer.node == node;
		if (match)
			scif_staged_abort(ep, -ENODEV);
		scif_ep_put(ep);
	}
}

/**
 * scif_staged_poke() - write 8 bytes into the peer's window by message
 * @ep: the endpoint
 * @roff: offset in the peer's registered address space, checked against
 *	  our copy of its windows already
 * @val: the value
 *
 * The fence signal's remote write: an RMA_PUT that asks for no answer. It
 * follows every message of the RMAs it signals, so the owner writes it
 * after their bytes.
 *
 * Return: 0 or the send's error.
 */
int scif_staged_poke(struct scif_endpt *ep, u64 roff, u64 val)
{
	struct scif_wire_rma h = { .offset = cpu_to_le64(roff) };
	u8 buf[sizeof(h) + sizeof(val)];

	/* The value goes as it lies in our memory, as a direct write does. */
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &val, sizeof(val));
	return scif_rma_send(ep, SCIF_MSG_RMA_PUT, SCIF_WIRE_RMA_LAST, 0, buf,
			     sizeof(buf));
}

/* Is @tag one we gave out (a late answer) rather than one never issued? */
static int scif_staged_unknown(struct scif_rma_ep *rma, u32 tag)
{
	bool issued;

	if (!tag)
		return -EPROTO;
	xa_lock(&rma->staged);
	issued = rma->staged_wrapped || tag < rma->staged_next;
	xa_unlock(&rma->staged);
	return issued ? -ENOENT : -EPROTO;
}

/**
 * scif_staged_rx_data() - RMA_DATA: bytes of one of our gets
 * @ep: the endpoint the message is for
 * @tag: the tag of the get
 * @data: the bytes
 * @len: bytes at @data
 *
 * Process context (the link's receive path), from scif_staged_rx().
 *
 * Return: 0, -ENOENT for a late answer, or -EPROTO for a tag never issued
 * or bytes the request did not ask for (too many, none, or for a put),
 * which end it.
 */
int scif_staged_rx_data(struct scif_endpt *ep, u32 tag, const void *data,
			size_t len)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_rma_req *req;
	bool lie = false;

	xa_lock(&rma->staged);
	req = tag ? xa_load(&rma->staged, tag) : NULL;
	if (req && (req->to_peer || !len || len > req->len - req->got)) {
		/* More than asked for, or for a write: end it, refused. */
		__xa_erase(&rma->staged, tag);
		req->status = -ECONNRESET;
		lie = true;
	} else if (req) {
		scif_staged_copy(&req->lsp, req->got, (void *)data, len, true);
		WRITE_ONCE(req->got, req->got + len);
	}
	xa_unlock(&rma->staged);
	if (!req)
		return scif_staged_unknown(rma, tag);
	if (!lie)
		return 0;
	scif_dma_req_put(req);
	wake_up_all(scif_ep_wq(ep));
	return -EPROTO;
}

/**
 * scif_staged_rx_done() - RMA_DONE: the owner ended one of our requests
 * @ep: the endpoint the message is for
 * @tag: the tag of the request
 * @err: 0 or the owner's positive errno
 *
 * Process context (the link's receive path), from scif_staged_rx().
 *
 * Return: 0, -ENOENT for a late answer, or -EPROTO for a tag never issued,
 * a get answered short or an errno out of range.
 */
int scif_staged_rx_done(struct scif_endpt *ep, u32 tag, u32 err)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_rma_req *req;
	int ret = 0;

	xa_lock(&rma->staged);
	req = tag ? __xa_erase(&rma->staged, tag) : NULL;
	if (req) {
		req->status = scif_staged_errno(err);
		/* A get answered short, or an errno out of range: a lie. */
		if (err > MAX_ERRNO ||
		    (!err && !req->to_peer && req->got != req->len)) {
			req->status = -ECONNRESET;
			ret = -EPROTO;
		}
	}
	xa_unlock(&rma->staged);
	if (!req)
		return scif_staged_unknown(rma, tag);
	scif_dma_req_put(req);
	wake_up_all(scif_ep_wq(ep));
	return ret;
}
