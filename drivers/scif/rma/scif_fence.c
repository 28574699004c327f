// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF fences: scif_fence_mark(), scif_fence_wait(), scif_fence_signal().
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
 * Nothing here walks a list of marks, and nothing grows without bound:
 *  - our unanswered peer marks sit in an xarray keyed by token, as value
 *    entries; FENCE_DONE erases its token, so an answered mark costs no
 *    memory whether or not anyone waits for it, and a wait looks its token
 *    up in O(log n). Tokens are the running count of marks taken, so a
 *    token that was issued and is no longer in the xarray was answered.
 *    At most %SCIF_FENCE_MAX_MARKS marks may be unanswered: one more fails
 *    with -ENOMEM, the error the specification gives scif_fence_mark() for
 *    a lack of kernel resources (a caller that waits for its marks, or a
 *    peer whose RMAs complete, frees room).
 *  - the peer's requests that must wait for RMAs of ours are a FIFO with a
 *    counter: their sequence numbers never decrease, so an RMA completion
 *    answers from the head and stops at the first one still covered. A
 *    request that can be answered at once is never stored. A peer with
 *    %SCIF_FENCE_MAX_MARKS requests held already breaks its own cap (ours
 *    is the same): its request is dropped, counted as a refused message and
 *    logged (rate limited). Answering it early instead would tell the peer
 *    that RMAs completed that may still be running.
 * Before this, both were lists walked on every request and answer: with
 * 24,000 marks never waited for, each FENCE_DONE walked all of them in the
 * work item that delivers every message of the node, the answers fell
 * behind, and the data of other endpoints queued behind them (an unrelated
 * send/recv round trip up to 35x slower); and the marks were never freed.
 * See "Fences" in Documentation/scif-rma.rst.
 *
 * @ilock protects the peer's requests; the xarray's own lock our marks.
 *
 * A signal's write ("poke") is 8 bytes into a window of ours or the peer's
 * that allows writing, done when the marked RMAs completed.
 */
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
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
	struct scif_rma_ep *rma = ep->rma;
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
	struct scif_rma_ep *rma = ep->rma;
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
			    ep->si->name, SCIF_FENCE_MAX_MARKS);
	return -EBUSY;
}

/**
 * struct scif_signal - a fence signal waiting for its mark
 * @work: runs the writes (and, for a mark on our RMAs, the wait before)
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

static void scif_signal_write(struct scif_signal *s)
{
	if (s->flags & SCIF_SIGNAL_LOCAL)
		scif_rma_local_poke(s->ep, s->loff, s->lval);
	if (s->flags & SCIF_SIGNAL_REMOTE)
		scif_rma_poke(s->ep, s->roff, s->rval);
	scif_ep_put(s->ep);
	kfree(s);
}

/* A signal on a peer mark whose FENCE_DONE came: write, nothing to wait. */
static void scif_signal_done_work(struct work_struct *work)
{
	scif_signal_write(container_of(work, struct scif_signal, work));
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
	struct scif_rma_ep *rma = ep->rma;
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

		kref_get(&ep->ref);
		INIT_WORK(&s->work, scif_signal_done_work);
		scif_rma_queue_work(&s->work);
	}
	wake_up_all(&ep->wq);
	return 0;
}

/*
 * Take an INIT_PEER mark: a token in @my_marks, announced in FENCE_REQ. The
 * token's entry is @signal, or a value entry for a mark someone may wait
 * for. On success a signal belongs to the mark (FENCE_DONE may run it
 * before this returns).
 */
static int scif_mark_peer(struct scif_endpt *ep, int *mark,
			  struct scif_signal *signal)
{
	void *entry = signal ? (void *)signal : xa_mk_value(0);
	bool taken;
	struct scif_rma_ep *rma = ep->rma;
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

static int scif_mark(struct scif_endpt *ep, int flags, int *mark)
{
	struct scif_rma_ep *rma = ep->rma;

	if (flags == SCIF_FENCE_INIT_PEER)
		return scif_mark_peer(ep, mark, NULL);
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
	return scif_mark(epd, flags, mark);
}
EXPORT_SYMBOL_GPL(scif_fence_mark);

static bool scif_self_done(struct scif_rma_ep *rma, u32 mark)
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
	return !xa_load(&ep->rma->my_marks, token) || scif_rma_ep_usable(ep);
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
	struct scif_rma_ep *rma = ep->rma;
	long ret;

	for (;;) {
		ret = wait_event_interruptible_timeout(rma->wq,
						       scif_self_done(rma, token),
						       HZ);
		if (ret)
			return ret < 0 ? ret : 0;
		scif_staged_close(ep);
	}
}

static int scif_wait(struct scif_endpt *ep, int mark)
{
	struct scif_rma_ep *rma = ep->rma;
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
	return scif_wait(epd, mark);
}
EXPORT_SYMBOL_GPL(scif_fence_wait);

/* A signal on a mark of our RMAs: they always complete, wait for them. */
static void scif_signal_work(struct work_struct *work)
{
	struct scif_signal *s = container_of(work, struct scif_signal, work);

	if (scif_wait(s->ep, s->mark)) {
		scif_ep_put(s->ep);
		kfree(s);
		return;
	}
	scif_signal_write(s);
}

/**
 * scif_fence_signal() - write values once the marked RMAs completed
 * @epd: a connected endpoint
 * @loff: our registered offset for @lval (with %SCIF_SIGNAL_LOCAL)
 * @lval: the value written there
 * @roff: the peer's registered offset for @rval (%SCIF_SIGNAL_REMOTE)
 * @rval: the value written there
 * @flags: one of %SCIF_FENCE_INIT_SELF / %SCIF_FENCE_INIT_PEER, and one or
 *	   both of %SCIF_SIGNAL_LOCAL / %SCIF_SIGNAL_REMOTE
 *
 * Returns once the RMAs are marked; the writes happen when they complete.
 *
 * Return: 0, or -EINVAL (flags, offset not 4-byte aligned), -ENXIO (an
 * offset outside a registered window), -EACCES (the window at an offset,
 * ours or the peer's, does not allow writing), -ENOTCONN, -ECONNRESET,
 * -ENODEV, -EBADF, -ENOMEM.
 */
int scif_fence_signal(scif_epd_t epd, off_t loff, u64 lval, off_t roff,
		      u64 rval, int flags)
{
	int init = flags & (SCIF_FENCE_INIT_SELF | SCIF_FENCE_INIT_PEER);
	int sig = flags & (SCIF_SIGNAL_LOCAL | SCIF_SIGNAL_REMOTE);
	struct scif_endpt *ep = epd;
	struct scif_signal *s;
	int ret = scif_ep_check(epd);

	if (ret)
		return ret;
	if ((init != SCIF_FENCE_INIT_SELF && init != SCIF_FENCE_INIT_PEER) ||
	    !sig || flags & ~(init | sig))
		return -EINVAL;
	if ((sig & SCIF_SIGNAL_LOCAL && loff & 3) ||
	    (sig & SCIF_SIGNAL_REMOTE && roff & 3))
		return -EINVAL;
	if ((sig & SCIF_SIGNAL_LOCAL && loff < 0) ||
	    (sig & SCIF_SIGNAL_REMOTE && roff < 0))
		return -ENXIO;
	ret = scif_rma_ep_usable(ep);
	if (!ret && sig & SCIF_SIGNAL_LOCAL)
		ret = scif_rma_poke_check(ep, loff, false);
	if (!ret && sig & SCIF_SIGNAL_REMOTE)
		ret = scif_rma_poke_check(ep, roff, true);
	if (ret)
		return ret;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	s->flags = sig;
	s->loff = loff;
	s->lval = lval;
	s->roff = roff;
	s->rval = rval;
	s->ep = ep;
	if (init == SCIF_FENCE_INIT_PEER) {
		/* Run by FENCE_DONE: no thread waits for the peer. */
		ret = scif_mark_peer(ep, &s->mark, s);
		if (ret)
			kfree(s);
		return ret;
	}
	ret = scif_mark(ep, init, &s->mark);
	if (ret) {
		kfree(s);
		return ret;
	}
	if (init == SCIF_FENCE_INIT_SELF && scif_self_done(ep->rma, s->mark)) {
		/* Nothing to wait for: write now and report failures. */
		if (sig & SCIF_SIGNAL_LOCAL)
			ret = scif_rma_local_poke(ep, loff, lval);
		if (!ret && sig & SCIF_SIGNAL_REMOTE)
			ret = scif_rma_poke(ep, roff, rval);
		kfree(s);
		return ret;
	}
	kref_get(&ep->ref);
	INIT_WORK(&s->work, scif_signal_work);
	scif_rma_queue_work(&s->work);
	return 0;
}
EXPORT_SYMBOL_GPL(scif_fence_signal);

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

/*
 * Write @val at @off of a span's single window (the fence signal): 8 bytes,
 * within one page since @off is 4-byte aligned only if it does not cross.
 */
static int scif_poke_span(struct scif_endpt *ep, struct scif_span *sp,
			  u64 val, bool remote)
{
	struct scif_peer_mem pm = { .local = true };
	struct scif_cursor c;
	unsigned long idx;
	size_t room;
	u8 *p;
	int ret;

	scif_cursor_init(&c, sp);
	idx = scif_cursor_page(&c, &room);
	if (!remote) {
		p = kmap_local_page(sp->wins[0]->pp->pages[idx]);
		memcpy(p + PAGE_SIZE - room, &val, sizeof(val));
		kunmap_local(p);
		return 0;
	}
	ret = scif_peer_mem_lock(ep, &pm);
	if (ret == -EOPNOTSUPP)
		/* A link without RMA addressing: the owner writes. */
		return scif_staged_poke(ep, sp->start, val);
	if (ret)
		return ret;
	if (pm.local) {
		p = kmap_local_page(pfn_to_page(PHYS_PFN(sp->wins[0]->addrs[idx])));
		memcpy(p + PAGE_SIZE - room, &val, sizeof(val));
		kunmap_local(p);
	} else {
		memcpy(pm.base + sp->wins[0]->addrs[idx] + PAGE_SIZE - room,
		       &val, sizeof(val));
	}
	scif_peer_mem_unlock(ep);
	return 0;
}

/*
 * Take the window under the 8 bytes at @off for a poke. A poke writes, so
 * the window must allow writing whichever side it belongs to: a read-only
 * local window may be backed by pages its owner may only read (a file's
 * page cache), and those were pinned without write intent.
 */
static int scif_poke_find(struct scif_endpt *ep, u64 off, bool remote,
			  struct scif_span *sp)
{
	struct scif_rma_ep *rma = ep->rma;
	int ret;

	/* The 8 bytes must not straddle a page (so neither two windows). */
	if ((off & ~PAGE_MASK) > PAGE_SIZE - sizeof(u64))
		return -ENXIO;
	mutex_lock(&rma->lock);
	ret = scif_span_get(rma, remote, off,
			    sizeof(u64), SCIF_PROT_WRITE, sp);
	mutex_unlock(&rma->lock);
	return ret;
}

/**
 * scif_rma_poke_check() - would a poke at @off find a window now?
 * @ep: the endpoint
 * @off: the offset, in the peer's registered space if @remote, else ours
 * @remote: which space
 *
 * A fence signal checks its offsets when it is asked, even though it writes
 * only once the marked RMAs are done (and skips a window gone by then).
 *
 * Return: 0, -ENXIO, -EACCES.
 */
int scif_rma_poke_check(struct scif_endpt *ep, u64 off, bool remote)
{
	struct scif_span sp;
	int ret = scif_poke_find(ep, off, remote, &sp);

	if (!ret)
		scif_span_put(&sp);
	return ret;
}

static int scif_poke(struct scif_endpt *ep, u64 off, u64 val, bool remote)
{
	struct scif_span sp;
	int ret = scif_poke_find(ep, off, remote, &sp);

	if (ret)
		return ret;
	ret = scif_poke_span(ep, &sp, val, remote);
	scif_span_put(&sp);
	return ret;
}

/**
 * scif_rma_poke() - write 8 bytes into the peer's registered memory
 * @ep: the endpoint
 * @roff: offset in the peer's registered address space
 * @val: the value
 *
 * Return: 0, -ENXIO, -EACCES, -ENODEV, -ENOMEM.
 */
int scif_rma_poke(struct scif_endpt *ep, u64 roff, u64 val)
{
	return scif_poke(ep, roff, val, true);
}

/**
 * scif_rma_local_poke() - write 8 bytes into our registered memory
 * @ep: the endpoint
 * @loff: offset in our registered address space
 * @val: the value
 *
 * Return: 0, -ENXIO, -EACCES (a window without %SCIF_PROT_WRITE), -ENOMEM.
 */
int scif_rma_local_poke(struct scif_endpt *ep, u64 loff, u64 val)
{
	return scif_poke(ep, loff, val, false);
}
