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
 * peer marks apart. Everything is protected by &scif_rma_ep.ilock.
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

#define SCIF_MARK_PEER		BIT(30)
#define SCIF_MARK_MASK		(SCIF_MARK_PEER - 1)
/* Fence requests one peer may have us hold at a time. */
#define SCIF_MAX_PEER_MARKS	4096

/**
 * struct scif_mark - a fence mark waiting for completion
 * @list: entry in &scif_rma_ep.peer_marks or &scif_rma_ep.my_marks
 * @token: the peer's token (peer_marks) or ours (my_marks)
 * @seq: peer_marks: the last of our RMAs the mark covers
 * @done: my_marks: the peer reported completion
 */
struct scif_mark {
	struct list_head list;
	u32 token;
	u64 seq;
	bool done;
};

/**
 * scif_fence_check_peer_marks() - answer the peer's fences that completed
 * @ep: the endpoint; called after any of its RMAs completed
 */
void scif_fence_check_peer_marks(struct scif_endpt *ep)
{
	struct scif_rma_ep *rma = ep->rma;
	struct scif_mark *m, *tmp;
	LIST_HEAD(done);
	u64 oldest;

	spin_lock(&rma->ilock);
	oldest = scif_rma_oldest(rma);
	list_for_each_entry_safe(m, tmp, &rma->peer_marks, list)
		if (m->seq < oldest)
			list_move_tail(&m->list, &done);
	spin_unlock(&rma->ilock);
	list_for_each_entry_safe(m, tmp, &done, list) {
		scif_rma_send(ep, SCIF_MSG_FENCE_DONE, m->token, 0, NULL, 0);
		kfree(m);
	}
}

/* FENCE_REQ: the peer wants to know when our current RMAs are done. */
void scif_fence_peer_request(struct scif_endpt *ep, u32 token)
{
	struct scif_rma_ep *rma = ep->rma;
	struct scif_mark *m, *pos;
	unsigned int n = 0;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return;
	m->token = token;
	spin_lock(&rma->ilock);
	list_for_each_entry(pos, &rma->peer_marks, list)
		n++;
	m->seq = rma->seq;
	if (n < SCIF_MAX_PEER_MARKS) {
		list_add_tail(&m->list, &rma->peer_marks);
		m = NULL;
	}
	spin_unlock(&rma->ilock);
	kfree(m);
	scif_fence_check_peer_marks(ep);
}

/* FENCE_DONE: the peer's RMAs covered by our mark @token completed. */
void scif_fence_peer_done(struct scif_endpt *ep, u32 token)
{
	struct scif_rma_ep *rma = ep->rma;
	struct scif_mark *m;

	spin_lock(&rma->ilock);
	list_for_each_entry(m, &rma->my_marks, list)
		if (m->token == token)
			m->done = true;
	spin_unlock(&rma->ilock);
	wake_up_all(&ep->wq);
}

static int scif_mark(struct scif_endpt *ep, int flags, int *mark)
{
	struct scif_rma_ep *rma = ep->rma;
	struct scif_mark *m;
	int ret;

	if (flags == SCIF_FENCE_INIT_SELF) {
		spin_lock(&rma->ilock);
		*mark = rma->seq & SCIF_MARK_MASK;
		spin_unlock(&rma->ilock);
		return 0;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	spin_lock(&rma->ilock);
	m->token = ++rma->next_token & SCIF_MARK_MASK;
	list_add_tail(&m->list, &rma->my_marks);
	spin_unlock(&rma->ilock);
	ret = scif_rma_send(ep, SCIF_MSG_FENCE_REQ, m->token, 0, NULL, 0);
	if (ret) {
		spin_lock(&rma->ilock);
		list_del(&m->list);
		spin_unlock(&rma->ilock);
		kfree(m);
		return ret;
	}
	*mark = m->token | SCIF_MARK_PEER;
	return 0;
}

/**
 * scif_fence_mark() - mark the RMAs in flight of one side
 * @epd: a connected endpoint
 * @flags: exactly one of %SCIF_FENCE_INIT_SELF, %SCIF_FENCE_INIT_PEER
 * @mark: set to the mark, for scif_fence_wait()
 *
 * Return: 0, or -EINVAL, -ENOTCONN, -ECONNRESET, -ENODEV, -EBADF, -ENOMEM.
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

static struct scif_mark *scif_my_mark(struct scif_rma_ep *rma, u32 token)
{
	struct scif_mark *m;

	list_for_each_entry(m, &rma->my_marks, list)
		if (m->token == token)
			return m;
	return NULL;
}

static bool scif_peer_done(struct scif_endpt *ep, u32 token)
{
	struct scif_mark *m;
	bool done;

	spin_lock(&ep->rma->ilock);
	m = scif_my_mark(ep->rma, token);
	done = !m || m->done;
	spin_unlock(&ep->rma->ilock);
	return done || scif_rma_ep_usable(ep);
}

static int scif_wait(struct scif_endpt *ep, int mark)
{
	struct scif_rma_ep *rma = ep->rma;
	u32 token = mark & SCIF_MARK_MASK;
	struct scif_mark *m;
	int ret;

	if (!(mark & SCIF_MARK_PEER))
		/* Our RMAs run to completion on their own: no timeout needed. */
		return wait_event_interruptible(rma->wq,
						scif_self_done(rma, token));
	spin_lock(&rma->ilock);
	m = scif_my_mark(rma, token);
	spin_unlock(&rma->ilock);
	if (!m)
		return -EINVAL;
	ret = wait_event_interruptible(ep->wq, scif_peer_done(ep, token));
	if (ret)
		return ret;
	spin_lock(&rma->ilock);
	m = scif_my_mark(rma, token);
	if (m && m->done)
		list_del(&m->list);
	else
		m = NULL;
	spin_unlock(&rma->ilock);
	if (!m)
		return scif_rma_ep_usable(ep) ? : -EINVAL;
	kfree(m);
	return 0;
}

/**
 * scif_fence_wait() - wait until the RMAs of a mark completed
 * @epd: the endpoint the mark was taken on
 * @mark: a value from scif_fence_mark()
 *
 * Return: 0, or -EINVAL (not a mark), -EINTR, -ENOTCONN, -ECONNRESET,
 * -ENODEV, -EBADF.
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

/**
 * struct scif_signal - a fence signal waiting for its mark
 * @work: runs the wait and the writes
 * @ep: the endpoint, referenced
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

static void scif_signal_work(struct work_struct *work)
{
	struct scif_signal *s = container_of(work, struct scif_signal, work);
	int ret;

	ret = scif_wait(s->ep, s->mark);
	if (!ret && s->flags & SCIF_SIGNAL_LOCAL)
		scif_rma_local_poke(s->ep, s->loff, s->lval);
	if (!ret && s->flags & SCIF_SIGNAL_REMOTE)
		scif_rma_poke(s->ep, s->roff, s->rval);
	scif_ep_put(s->ep);
	kfree(s);
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
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->flags = sig;
	s->loff = loff;
	s->lval = lval;
	s->roff = roff;
	s->rval = rval;
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
	s->ep = ep;
	INIT_WORK(&s->work, scif_signal_work);
	queue_work(system_unbound_wq, &s->work);
	return 0;
}
EXPORT_SYMBOL_GPL(scif_fence_signal);

/**
 * scif_fence_release() - free the marks of a dead endpoint
 * @rma: its RMA state
 */
void scif_fence_release(struct scif_rma_ep *rma)
{
	struct scif_mark *m, *tmp;

	list_for_each_entry_safe(m, tmp, &rma->peer_marks, list)
		kfree(m);
	list_for_each_entry_safe(m, tmp, &rma->my_marks, list)
		kfree(m);
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
