// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF fence marks and waits: scif_fence_mark(), scif_fence_wait(), and the
 * peer's fence messages (FENCE_REQ, FENCE_DONE). Fence signals take their
 * marks here; they are in scif_fence_signal.c.
 *
 * Completion is tracked in software (DMA engines differ in what fences
 * they honour): every RMA of an endpoint carries a sequence number, and a
 * mark on our own RMAs (SCIF_FENCE_INIT_SELF) is the number of the last
 * one issued; it is complete once the oldest RMA still in flight is newer.
 * A mark on the peer's RMAs (SCIF_FENCE_INIT_PEER) is a token sent in a
 * FENCE_REQ; the peer marks its own RMAs the same way and answers with
 * FENCE_DONE once they completed. Marks are 30-bit values; bit 30 tells
 * peer marks apart.
 *
 * Nothing here walks a list of marks, and nothing grows without bound (why:
 * "Fences" in Documentation/scif-rma.rst):
 *  - our unanswered peer marks are entries of an xarray keyed by token:
 *    value entries, or a fence signal (&struct scif_signal, its work set
 *    up; FENCE_DONE queues it). FENCE_DONE erases its token. Tokens are the
 *    running count of marks taken, so a token that was issued and is no
 *    longer in the xarray was answered. At most %SCIF_FENCE_MAX_MARKS may
 *    be unanswered; one more fails with -ENOMEM.
 *  - the peer's requests that must wait for RMAs of ours are a FIFO with a
 *    counter: their sequence numbers never decrease, so an RMA completion
 *    answers from the head and stops at the first one still covered. One
 *    that can be answered at once is never stored; one beyond
 *    %SCIF_FENCE_MAX_MARKS is dropped and logged (rate limited).
 *
 * @ilock protects the peer's requests; the xarray's own lock our marks.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

/**
 * struct scif_peer_mark - a fence request of the peer waiting for our RMAs
 * @list: entry in &scif_rma_ep.peer_marks
 * @token: the peer's token, for the answer
 * @seq: the last of our RMAs the request covers
 */
struct scif_peer_mark {
	struct list_head list;
	u32 token;
	u64 seq;
};

/**
 * scif_fence_check_peer_marks() - answer the peer's fences that completed
 * @ep: the endpoint; called after any of its RMAs completed
 *
 * O(1) when nothing can be answered, else O(answered).
 */
void scif_fence_check_peer_marks(struct scif_endpt *ep)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_peer_mark *m, *tmp;
	LIST_HEAD(done);
	u64 oldest;

	spin_lock(&rma->ilock);
	oldest = scif_rma_oldest(rma);
	list_for_each_entry_safe(m, tmp, &rma->peer_marks, list) {
		if (m->seq >= oldest)
			break;
		list_move_tail(&m->list, &done);
		rma->nr_peer_marks--;
	}
	spin_unlock(&rma->ilock);
	list_for_each_entry_safe(m, tmp, &done, list) {
		scif_rma_send(ep, SCIF_MSG_FENCE_DONE, m->token, 0, NULL, 0);
		kfree(m);
	}
}

/**
 * scif_fence_peer_request() - FENCE_REQ: the peer wants to know when our
 *			       current RMAs are done
 * @ep: the endpoint
 * @token: the peer's token, sent back in FENCE_DONE
 *
 * Return: 0, or -EBUSY (the peer has %SCIF_FENCE_MAX_MARKS requests held
 * already); the request is then dropped.
 */
int scif_fence_peer_request(struct scif_endpt *ep, u32 token)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct scif_peer_mark *m;
	bool now, full;
	u64 seq;

	spin_lock(&rma->ilock);
	seq = rma->seq;
	now = seq < scif_rma_oldest(rma) && list_empty(&rma->peer_marks);
	full = rma->nr_peer_marks >= SCIF_FENCE_MAX_MARKS;
	spin_unlock(&rma->ilock);
	if (now) {
		/* Nothing in flight to wait for: answer without keeping it. */
		scif_rma_send(ep, SCIF_MSG_FENCE_DONE, token, 0, NULL, 0);
		return 0;
	}
	if (full)
		goto drop;
	/*
	 * Process context, on behalf of the peer: nobody here to charge.
	 * Dropping the request would leave the peer's fence wait to time
	 * out and reset the connection; the entry is small and their number
	 * bounded (%SCIF_FENCE_MAX_MARKS), so wait for the memory.
	 */
	m = kzalloc(sizeof(*m), GFP_KERNEL | __GFP_NOFAIL);
	m->token = token;
	m->seq = seq;
	spin_lock(&rma->ilock);
	full = rma->nr_peer_marks >= SCIF_FENCE_MAX_MARKS;
	if (!full) {
		list_add_tail(&m->list, &rma->peer_marks);
		rma->nr_peer_marks++;
	}
	spin_unlock(&rma->ilock);
	if (full) {
		kfree(m);
		goto drop;
	}
	/* The RMAs may have completed meanwhile. */
	scif_fence_check_peer_marks(ep);
	return 0;
drop:
	pr_warn_ratelimited("scif %s: peer exceeds %u fence requests on one endpoint; dropping one\n",
			    scif_ep_instance_name(ep), SCIF_FENCE_MAX_MARKS);
	return -EBUSY;
}

/**
 * scif_fence_peer_done() - FENCE_DONE: the peer's RMAs covered by our mark
 *			    @token completed
 * @ep: the endpoint
 * @token: the mark's token
 *
 * Return: 0, or -EPROTO for a token we are not waiting for.
 */
int scif_fence_peer_done(struct scif_endpt *ep, u32 token)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	void *old;

	xa_lock(&rma->my_marks);
	old = __xa_erase(&rma->my_marks, token);
	if (old)
		rma->nr_my_marks--;
	xa_unlock(&rma->my_marks);
	if (!old)
		return -EPROTO;
	if (!xa_is_value(old)) {
		/* A fence signal's mark: its writes are due now. */
		struct scif_signal *s = old;

		scif_ep_get(ep);
		scif_rma_queue_work(&s->work);
	}
	wake_up_all(scif_ep_wq(ep));
	return 0;
}

/**
 * scif_fence_mark_peer() - take an INIT_PEER mark
 * @ep: the endpoint
 * @mark: set to the mark
 * @signal: the entry of the mark's token, or NULL for a value entry (a mark
 *	    someone may wait for)
 *
 * The mark is a token in &scif_rma_ep.my_marks, announced in FENCE_REQ. On
 * success a signal belongs to the mark (FENCE_DONE may run it before this
 * returns).
 *
 * Return: 0, -ENOMEM, or the error of sending FENCE_REQ.
 */
int scif_fence_mark_peer(struct scif_endpt *ep, int *mark,
			 struct scif_signal *signal)
{
	void *entry = signal ? (void *)signal : xa_mk_value(0);
	bool taken;
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	struct xarray *xa = &rma->my_marks;
	u32 token;
	int ret;

	xa_lock(xa);
	if (rma->nr_my_marks >= SCIF_FENCE_MAX_MARKS) {
		xa_unlock(xa);
		return -ENOMEM;
	}
	rma->nr_my_marks++;
	/*
	 * A token still unanswered 2^30 marks later is skipped; there are
	 * at most SCIF_FENCE_MAX_MARKS of them.
	 */
	do {
		token = ++rma->marks_issued & SCIF_MARK_MASK;
		ret = __xa_insert(xa, token, entry, GFP_KERNEL_ACCOUNT);
	} while (ret == -EBUSY);
	if (ret)
		rma->nr_my_marks--;
	xa_unlock(xa);
	if (ret)
		return ret;
	*mark = token | SCIF_MARK_PEER;
	ret = scif_rma_send(ep, SCIF_MSG_FENCE_REQ, token, 0, NULL, 0);
	if (ret) {
		xa_lock(xa);
		taken = !__xa_erase(xa, token);
		if (!taken)
			rma->nr_my_marks--;
		xa_unlock(xa);
		/* A FENCE_DONE (a hostile one) took the signal already. */
		if (signal && taken)
			return 0;
		return ret;
	}
	return 0;
}

/**
 * scif_fence_mark_ep() - scif_fence_mark() of a usable endpoint and valid @flags
 * @ep: the endpoint
 * @flags: %SCIF_FENCE_INIT_SELF or %SCIF_FENCE_INIT_PEER
 * @mark: set to the mark
 *
 * Return: 0, or the error of scif_fence_mark_peer().
 */
int scif_fence_mark_ep(struct scif_endpt *ep, int flags, int *mark)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);

	if (flags == SCIF_FENCE_INIT_PEER)
		return scif_fence_mark_peer(ep, mark, NULL);
	spin_lock(&rma->ilock);
	*mark = rma->seq & SCIF_MARK_MASK;
	spin_unlock(&rma->ilock);
	return 0;
}

/**
 * scif_fence_mark() - mark the RMAs in flight of one side
 * @epd: a connected endpoint
 * @flags: exactly one of %SCIF_FENCE_INIT_SELF, %SCIF_FENCE_INIT_PEER
 * @mark: set to the mark, for scif_fence_wait()
 *
 * Return: 0, or -EINVAL, -ENOTCONN, -ECONNRESET, -ENODEV, -EBADF, -ENOMEM
 * (also: %SCIF_FENCE_MAX_MARKS peer marks of @epd are unanswered).
 */
int scif_fence_mark(scif_epd_t epd, int flags, int *mark)
{
	int ret = scif_ep_check(epd);

	if (ret)
		return ret;
	if ((flags != SCIF_FENCE_INIT_SELF && flags != SCIF_FENCE_INIT_PEER) ||
	    !mark)
		return -EINVAL;
	ret = scif_rma_ep_usable(epd);
	if (ret)
		return ret;
	return scif_fence_mark_ep(epd, flags, mark);
}
EXPORT_SYMBOL_GPL(scif_fence_mark);

/**
 * scif_fence_self_done() - did the RMAs of an INIT_SELF @mark complete?
 * @rma: the endpoint's RMA state
 * @mark: the mark
 *
 * Return: true once the oldest of our RMAs still in flight is newer.
 */
bool scif_fence_self_done(struct scif_rma_ep *rma, u32 mark)
{
	bool done;
	u64 full;

	spin_lock(&rma->ilock);
	full = rma->seq - ((rma->seq - mark) & SCIF_MARK_MASK);
	done = scif_rma_oldest(rma) > full;
	spin_unlock(&rma->ilock);
	return done;
}

/*
 * Was @token issued? The running count of marks decides, as for self marks:
 * a token ahead of it was never handed out (until the count wrapped once).
 */
static bool scif_peer_token_issued(struct scif_rma_ep *rma, u32 token)
{
	u64 issued, full;

	xa_lock(&rma->my_marks);
	issued = rma->marks_issued;
	xa_unlock(&rma->my_marks);
	full = issued - ((issued - token) & SCIF_MARK_MASK);
	return full && full <= issued;
}

static bool scif_peer_done(struct scif_endpt *ep, u32 token)
{
	return !xa_load(&scif_ep_rma(ep)->my_marks, token) ||
	       scif_rma_ep_usable(ep);
}

/**
 * struct scif_peer_wait_arg - a mark of the peer's RMAs being waited for
 * @ep: the endpoint
 * @token: the mark's token
 */
struct scif_peer_wait_arg {
	struct scif_endpt *ep;
	u32 token;
};

static bool scif_peer_wait_done(const void *arg)
{
	const struct scif_peer_wait_arg *m = arg;

	return scif_peer_done(m->ep, m->token);
}

/*
 * Our RMAs run to completion on their own, but for staged ones, which wait
 * for the peer's answer: those of a connection that went down meanwhile
 * (without node loss, which ends them at once) are ended here, checked once
 * a second, so that the wait cannot outlast the connection.
 */
static int scif_wait_self(struct scif_endpt *ep, u32 token)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	long ret;

	for (;;) {
		ret = wait_event_interruptible_timeout(rma->wq,
						       scif_fence_self_done(rma, token),
						       HZ);
		if (ret)
			return ret < 0 ? ret : 0;
		scif_staged_close(ep);
	}
}

/**
 * scif_fence_wait_ep() - scif_fence_wait() of a usable endpoint
 * @ep: the endpoint
 * @mark: a mark taken on @ep, not negative
 *
 * Return: as scif_fence_wait().
 */
int scif_fence_wait_ep(struct scif_endpt *ep, int mark)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	u32 token = mark & SCIF_MARK_MASK;
	struct scif_peer_wait_arg m = { .ep = ep, .token = token };
	long ret;

	if (!(mark & SCIF_MARK_PEER))
		return scif_wait_self(ep, token);
	if (!scif_peer_token_issued(rma, token))
		return -EINVAL;
	/*
	 * The peer answers, or its loss resets the endpoint. A peer that
	 * does neither in time is taken for broken: the connection is reset.
	 */
	ret = scif_ep_wait_peer(ep, scif_peer_wait_done, &m,
				TASK_INTERRUPTIBLE, SCIF_RMA_PEER_TIMEOUT);
	if (ret < 0)
		return ret;
	if (!ret) {
		scif_ep_reset(ep, -ETIMEDOUT);
		return -ETIMEDOUT;
	}
	if (xa_load(&rma->my_marks, token))
		return scif_rma_ep_usable(ep) ? : -EINVAL;
	return 0;
}

/**
 * scif_fence_wait() - wait until the RMAs of a mark completed
 * @epd: the endpoint the mark was taken on
 * @mark: a value from scif_fence_mark()
 *
 * A mark stays valid after it completed: waiting again returns 0 at once.
 *
 * Return: 0, or -EINVAL (not a mark), -EINTR, -ENOTCONN, -ECONNRESET,
 * -ENODEV, -EBADF, -ETIMEDOUT (the peer did not answer within
 * peer_timeout_ms; the connection is reset).
 */
int scif_fence_wait(scif_epd_t epd, int mark)
{
	int ret = scif_ep_check(epd);

	if (ret)
		return ret;
	if (mark < 0)
		return -EINVAL;
	ret = scif_rma_ep_usable(epd);
	if (ret)
		return ret;
	return scif_fence_wait_ep(epd, mark);
}
EXPORT_SYMBOL_GPL(scif_fence_wait);

/**
 * scif_fence_release() - free the marks of a dead endpoint
 * @rma: its RMA state
 */
void scif_fence_release(struct scif_rma_ep *rma)
{
	struct scif_peer_mark *m, *tmp;
	unsigned long token;
	void *entry;

	list_for_each_entry_safe(m, tmp, &rma->peer_marks, list)
		kfree(m);
	rma->nr_peer_marks = 0;
	/* Signals whose FENCE_DONE never came: dropped unwritten. */
	xa_for_each(&rma->my_marks, token, entry)
		if (!xa_is_value(entry))
			kfree(entry);
	xa_destroy(&rma->my_marks);
	rma->nr_my_marks = 0;
}
