// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF fence signals: scif_fence_signal() marks the RMAs in flight of one
 * side (with the marks of scif_fence.c) and writes 8 bytes into a window of
 * ours, of the peer's, or both (scif_poke.c), once they completed.
 *
 * A signal on a mark of our RMAs writes at once if they completed, else it
 * is a work item that waits for them. One on a peer mark waits, its work
 * set up, as the entry of the mark's token in &scif_rma_ep.my_marks until
 * FENCE_DONE queues it: no thread waits for the peer. A queued signal holds
 * a reference on the endpoint. See "Fences" in Documentation/scif-rma.rst.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

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

/* A signal on a mark of our RMAs: they always complete, wait for them. */
static void scif_signal_work(struct work_struct *work)
{
	struct scif_signal *s = container_of(work, struct scif_signal, work);

	if (scif_fence_wait_ep(s->ep, s->mark)) {
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
		INIT_WORK(&s->work, scif_signal_done_work);
		ret = scif_fence_mark_peer(ep, &s->mark, s);
		if (ret)
			kfree(s);
		return ret;
	}
	ret = scif_fence_mark_ep(ep, init, &s->mark);
	if (ret) {
		kfree(s);
		return ret;
	}
	if (init == SCIF_FENCE_INIT_SELF &&
	    scif_fence_self_done(scif_ep_rma(ep), s->mark)) {
		/* Nothing to wait for: write now and report failures. */
		if (sig & SCIF_SIGNAL_LOCAL)
			ret = scif_rma_local_poke(ep, loff, lval);
		if (!ret && sig & SCIF_SIGNAL_REMOTE)
			ret = scif_rma_poke(ep, roff, rval);
		kfree(s);
		return ret;
	}
	scif_ep_get(ep);
	INIT_WORK(&s->work, scif_signal_work);
	scif_rma_queue_work(&s->work);
	return 0;
}
EXPORT_SYMBOL_GPL(scif_fence_signal);
