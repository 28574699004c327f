// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF staged RMA, the owner's side: the node that owns a window serves the
 * peer's RMA_PUT (copies the bytes into its pinned pages) and RMA_GET (sends
 * them back in RMA_DATA messages), and answers each request with RMA_DONE.
 * The requester's side is in rma/scif_staged.c.
 *
 * Every message of the protocol arrives at scif_staged_rx() here, which
 * hands the answers to our own requests (RMA_DATA, RMA_DONE) to the
 * requester's side. scif_staged_chunk() and scif_staged_copy() serve both
 * sides.
 *
 * The owner trusts nothing: offsets and lengths are checked against its
 * own windows (%SCIF_PROT_WRITE for a put, %SCIF_PROT_READ for a get), a
 * request it cannot serve is answered with an errno and counted as a
 * refused message.
 *
 * A get is served from a work item, never from the receive path: sending
 * many messages from there could wait for room in a ring the peer only
 * drains while its own receive path is free. Each endpoint has one such
 * item, on a queue of its own (scif_rma_queue_serve()): it serves the
 * endpoint's gets in order, %SCIF_STAGED_SLICE bytes at a time, and queues
 * itself again behind the other endpoints' items. An endpoint thus takes
 * one worker at most, the endpoints take turns, and the RMA layer's
 * housekeeping (fence signals, window frees, closes) never waits for any.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
#include "scif_rma.h"

/*
 * RMA_GET requests of the peer one endpoint serves at once: the peer's own
 * cap on requests in flight, so that a peer within it is never refused.
 */
#define SCIF_STAGED_MAX_SERVE	256

/* Bytes of one get served before the other endpoints get their turn. */
#define SCIF_STAGED_SLICE	SZ_256K

/**
 * struct scif_staged_get - an RMA_GET of the peer being served
 * @link: entry in &scif_rma_ep.serve_q
 * @ep: the endpoint, referenced
 * @sp: our windows holding the bytes, referenced
 * @len: bytes asked for
 * @pos: bytes sent so far
 * @tag: the peer's tag
 * @ordered: %SCIF_WIRE_RMA_ORDERED was asked
 */
struct scif_staged_get {
	struct list_head link;
	struct scif_endpt *ep;
	struct scif_span sp;
	u64 len;
	u64 pos;
	u32 tag;
	bool ordered;
};

/**
 * scif_staged_chunk() - bytes of payload one message to the peer carries
 * @ep: the endpoint; its link to the peer sets the size
 *
 * Return: the bytes, at most %SCIF_WIRE_DATA_MAX; 0 if the peer's node is
 * not online.
 */
size_t scif_staged_chunk(struct scif_endpt *ep)
{
	size_t max = scif_node_max_data(scif_ep_instance(ep),
					scif_ep_peer_node(ep));

	return min_t(size_t, max, SCIF_WIRE_DATA_MAX);
}

/**
 * scif_staged_copy() - copy between a buffer and a span of pinned pages
 * @sp: the span
 * @from: first byte of the span to copy, counted from its start
 * @buf: the buffer
 * @n: bytes to copy; the span holds them from @from on
 * @to_span: copy @buf into the span, rather than out of it
 */
void scif_staged_copy(struct scif_span *sp, u64 from, void *buf, size_t n,
		      bool to_span)
{
	struct scif_cursor c;
	unsigned long idx;
	size_t room, k;
	u8 *p, *b = buf;

	scif_cursor_init(&c, sp);
	scif_cursor_seek(&c, from);
	while (n) {
		idx = scif_cursor_page(&c, &room);
		k = min(room, n);
		p = kmap_local_page(c.sp->wins[c.i]->pp->pages[idx]);
		if (to_span)
			memcpy(p + PAGE_SIZE - room, b, k);
		else
			memcpy(b, p + PAGE_SIZE - room, k);
		kunmap_local(p);
		b += k;
		n -= k;
		scif_cursor_advance(&c, k);
	}
}

/* Check the head of a PUT or GET; @n: bytes it names. */
static int scif_staged_head(const void *data, size_t len, bool get,
			    u64 *off, u64 *n)
{
	struct scif_wire_rma h;

	if (len < sizeof(h) || (get ? len != sizeof(h) : len == sizeof(h)))
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	*off = le64_to_cpu(h.offset);
	*n = get ? le64_to_cpu(h.len) : len - sizeof(h);
	if ((!get && h.len) || !*n || *off > SCIF_RAS_LAST ||
	    *n - 1 > SCIF_RAS_LAST - *off)
		return -EINVAL;
	return 0;
}

/*
 * The verdict on a request of the peer we could not serve (@err); whether
 * the peer was @answered with it. A shortage of memory here, answered, is
 * no fault of the peer's and no dropped message: 0. Unanswered, the
 * peer's bytes were lost: -ENOMEM. Anything else: the peer did not check
 * against its copy of our windows, which an honest one always does.
 */
static int scif_staged_refused(struct scif_endpt *ep, int err, bool answered)
{
	if (err == -ENOMEM && answered)
		return 0;
	pr_warn_ratelimited("scif %s: refused a staged RMA of the peer: %d\n",
			    scif_ep_instance_name(ep), err);
	return err == -ENOMEM ? -ENOMEM : -EPROTO;
}

/* RMA_PUT: the peer writes into our window. */
static int scif_staged_rx_put(struct scif_endpt *ep, u32 tag, u32 flags,
			      const void *data, size_t len)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_span sp;
	u64 off, n;
	int ret;

	ret = flags & ~SCIF_WIRE_RMA_LAST ? -EINVAL :
	      scif_staged_head(data, len, false, &off, &n);
	if (!ret) {
		mutex_lock(&rma->lock);
		ret = scif_span_get_served(rma, off, n, SCIF_PROT_WRITE, &sp);
		mutex_unlock(&rma->lock);
	}
	if (!ret) {
		/* Earlier chunks are visible before this one (ORDERED). */
		wmb();
		scif_staged_copy(&sp, 0, (void *)((const u8 *)data +
						  sizeof(struct scif_wire_rma)),
				 n, true);
		scif_span_put(&sp);
	}
	if (tag && (ret || flags & SCIF_WIRE_RMA_LAST))
		scif_rma_send(ep, SCIF_MSG_RMA_DONE, -ret, tag, NULL, 0);
	return ret ? scif_staged_refused(ep, ret, tag != 0) : 0;
}

/* Whether the connection still stands, so that serving it makes sense. */
static bool scif_staged_connected(struct scif_endpt *ep)
{
	bool up;

	up = scif_ep_connected(ep);
	return up;
}

/* The get ended (@ret: 0 or why not): answer it and let go of it. */
static void scif_staged_get_end(struct scif_staged_get *g, int ret)
{
	struct scif_endpt *ep = g->ep;

	scif_span_put(&g->sp);
	/* Room for the peer's next request before it can send one. */
	atomic_dec(&scif_ep_rma(ep)->nr_serving);
	if (!ret || ret == -ENOMEM)
		scif_rma_send(ep, SCIF_MSG_RMA_DONE, -ret, g->tag, NULL, 0);
	scif_ep_put(ep);
	kfree(g);
}

/* Send the next slice of @g; true once it ended (and was freed). */
static bool scif_staged_get_slice(struct scif_staged_get *g)
{
	struct scif_endpt *ep = g->ep;
	size_t chunk = scif_staged_chunk(ep);
	u64 n, body, tail = 0, end;
	void *buf = NULL;
	int ret = 0;

	if (g->ordered)
		tail = scif_ordered_tail(g->sp.start, g->len);
	body = g->len - tail;
	end = min(g->len, g->pos + SCIF_STAGED_SLICE);
	if (!chunk)
		ret = -ENODEV;
	else
		buf = kvmalloc(min_t(u64, chunk, g->len), GFP_KERNEL);
	if (chunk && !buf)
		ret = -ENOMEM;
	while (!ret && g->pos < end) {
		n = min_t(u64, chunk, (g->pos < body ? body : g->len) - g->pos);
		if (!scif_staged_connected(ep)) {
			ret = -ECONNRESET;
			break;
		}
		if (g->pos == body)
			rmb(); /* the tail is read after the rest */
		scif_staged_copy(&g->sp, g->pos, buf, n, false);
		/* An error resets the connection: no answer then. */
		ret = scif_rma_send(ep, SCIF_MSG_RMA_DATA, 0, g->tag, buf, n);
		if (!ret)
			g->pos += n;
		cond_resched();
	}
	kvfree(buf);
	if (!ret && g->pos < g->len)
		return false;
	scif_staged_get_end(g, ret);
	return true;
}

/*
 * &scif_rma_ep.serve_work: one slice of the oldest get, then the turn
 * passes to the other endpoints.
 */
static void scif_staged_serve_work(struct work_struct *work)
{
	struct scif_rma_ep *rma = container_of(work, struct scif_rma_ep,
					       serve_work);
	struct scif_endpt *ep = rma->ep;
	struct scif_staged_get *g;
	bool more;

	spin_lock(&rma->serve_lock);
	g = list_first_entry_or_null(&rma->serve_q, struct scif_staged_get,
				     link);
	if (g)
		list_del(&g->link);
	spin_unlock(&rma->serve_lock);
	if (g && !scif_staged_get_slice(g)) {
		/* Still the oldest: gets are served in order. */
		spin_lock(&rma->serve_lock);
		list_add(&g->link, &rma->serve_q);
		spin_unlock(&rma->serve_lock);
	}
	spin_lock(&rma->serve_lock);
	more = !list_empty(&rma->serve_q);
	rma->serve_busy = more;
	spin_unlock(&rma->serve_lock);
	if (more)
		scif_rma_queue_serve(&rma->serve_work);
	else
		scif_ep_put(ep);
}

/**
 * scif_staged_serve_init() - prepare an endpoint to serve the peer's gets
 * @rma: the endpoint's RMA state, being created
 */
void scif_staged_serve_init(struct scif_rma_ep *rma)
{
	spin_lock_init(&rma->serve_lock);
	INIT_LIST_HEAD(&rma->serve_q);
	INIT_WORK(&rma->serve_work, scif_staged_serve_work);
}

/* RMA_GET: the peer reads from our window; served by a work item. */
static int scif_staged_rx_get(struct scif_endpt *ep, u32 tag, u32 flags,
			      const void *data, size_t len)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_staged_get *g;
	bool start;
	u64 off, n;
	int ret;

	if (!tag)
		return -EPROTO;
	ret = flags & ~SCIF_WIRE_RMA_ORDERED ? -EINVAL :
	      scif_staged_head(data, len, true, &off, &n);
	if (ret)
		goto refuse;
	if (atomic_inc_return(&rma->nr_serving) > SCIF_STAGED_MAX_SERVE) {
		ret = -EAGAIN;
		goto busy;
	}
	/* Process context, on behalf of the peer: nobody here to charge. */
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g) {
		ret = -ENOMEM;
		goto busy;
	}
	mutex_lock(&rma->lock);
	ret = scif_span_get_served(rma, off, n, SCIF_PROT_READ, &g->sp);
	mutex_unlock(&rma->lock);
	if (ret) {
		kfree(g);
		goto busy;
	}
	g->len = n;
	g->tag = tag;
	g->ordered = flags & SCIF_WIRE_RMA_ORDERED;
	g->ep = ep;
	scif_ep_get(ep);
	spin_lock(&rma->serve_lock);
	list_add_tail(&g->link, &rma->serve_q);
	start = !rma->serve_busy;
	rma->serve_busy = true;
	spin_unlock(&rma->serve_lock);
	if (start) {
		/* The item's own reference, dropped when it goes idle. */
		scif_ep_get(ep);
		scif_rma_queue_serve(&rma->serve_work);
	}
	return 0;
busy:
	atomic_dec(&rma->nr_serving);
refuse:
	scif_rma_send(ep, SCIF_MSG_RMA_DONE, -ret, tag, NULL, 0);
	if (ret == -EAGAIN) {
		pr_warn_ratelimited("scif %s: peer exceeds %u staged reads on one endpoint\n",
				    scif_ep_instance_name(ep),
				    SCIF_STAGED_MAX_SERVE);
		return -EBUSY;
	}
	return scif_staged_refused(ep, ret, true);
}

/**
 * scif_staged_rx() - a message of the staged RMA protocol arrived
 * @ep: the endpoint it is for, connected to its sender
 * @msg: the message (generic and endpoint checks passed)
 * @data: its payload
 * @len: bytes at @data
 *
 * Process context (the link's receive path). Never sends more than one
 * message.
 *
 * Return: 0, -ENOENT for a late answer, or another negative errno for a
 * message refused.
 */
int scif_staged_rx(struct scif_endpt *ep, const struct scif_wire_msg *msg,
		   const void *data, size_t len)
{
	u32 tag = le32_to_cpu(msg->seq), arg = le32_to_cpu(msg->arg);

	switch (msg->type) {
	case SCIF_MSG_RMA_PUT:
		return scif_staged_rx_put(ep, tag, arg, data, len);
	case SCIF_MSG_RMA_GET:
		return scif_staged_rx_get(ep, tag, arg, data, len);
	case SCIF_MSG_RMA_DATA:
		return arg ? -EPROTO : scif_staged_rx_data(ep, tag, data, len);
	case SCIF_MSG_RMA_DONE:
		return len ? -EPROTO : scif_staged_rx_done(ep, tag, arg);
	}
	return -EPROTO;
}
