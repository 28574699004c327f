// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF waits for a node: a task waiting for a peer's answer takes in the
 * messages of that peer's link itself, where the link can be polled, so
 * that a reply reaches it without a hop through the transport's worker.
 * The task holds a reference on the node (scif_node_hold()), which
 * scif_node_remove() waits for after it marked the node gone.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_link.h"

/*
 * Before sleeping in scif_node_wait(): poll the link for as long as it
 * allows, while no signal is pending and the node is online, giving the
 * CPU away whenever another task wants it. Stops as soon as @ready holds.
 */
static void scif_node_busy_poll(struct scif_node *n,
				bool (*ready)(const void *arg),
				const void *arg)
{
	struct scif_link *link = n->link;
	unsigned int us;
	u64 end;

	us = link->ops->busy_poll ? link->ops->busy_poll(link) : 0;
	if (!us)
		return;
	end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;
	while (!ready(arg)) {
		if (READ_ONCE(n->gone) || signal_pending(current) ||
		    ktime_get_ns() >= end)
			return;
		if (link->ops->poll(link) > 0)
			continue;
		if (need_resched())
			cond_resched();
		else
			cpu_relax();
	}
}

/**
 * scif_node_wait() - sleep until a condition holds, taking in the messages
 *	of a node meanwhile
 * @si: the instance
 * @node: the node whose messages the condition waits for
 * @wq: where changes of the condition are announced
 * @ready: the condition; called with @arg, at times in the task state
 *	   @state, so it must not sleep
 * @arm: optional; called with @arg once, when busy polling (if any) ended
 *	 without @ready and before the first sleep, to ask the peer to
 *	 announce a change (see core/scif_shm.c); @ready is checked again
 *	 afterwards
 * @arg: their argument
 * @state: %TASK_INTERRUPTIBLE or %TASK_KILLABLE
 * @timeout: longest wait in jiffies, or %MAX_SCHEDULE_TIMEOUT
 *
 * When the link to @node has &scif_link_ops.poll, this task takes in the
 * node's messages itself whenever the transport wakes it, instead of
 * waiting for the transport's receive work to do so and then wake @wq:
 * one switch less on the way of a reply. If the link allows busy polling
 * (&scif_link_ops.busy_poll), the task first polls for that long, and a
 * reply that comes meanwhile costs no sleep, no wake-up and no
 * announcement by the peer. After it stops waiting it takes in once more
 * what arrived meanwhile, which the transport may have left to it. Call
 * without spinlocks held.
 *
 * Return: as wait_event_interruptible_timeout(): the jiffies left (at least
 * 1) once @ready holds, 0 on timeout, -ERESTARTSYS on a signal; or -EAGAIN
 * when the link has no poll operation or the node is (or went) offline:
 * the caller then waits on @wq as it would without this.
 */
long scif_node_wait(struct scif_instance *si, u16 node, wait_queue_head_t *wq,
		    bool (*ready)(const void *arg),
		    void (*arm)(const void *arg), const void *arg,
		    unsigned int state, long timeout)
{
	wait_queue_entry_t on_wq, on_link;
	struct scif_link *link;
	struct scif_node *n;
	long ret;

	might_sleep();
	n = scif_node_hold(si, node);
	if (!n)
		return -EAGAIN;
	link = n->link;
	if (!link->ops->poll) {
		scif_node_release(n);
		return -EAGAIN;
	}
	scif_node_busy_poll(n, ready, arg);
	/*
	 * Arm only to sleep: an event index left behind by a wait that polling
	 * already ended would have the peer announce its next move for nothing.
	 */
	if (ready(arg)) {
		ret = timeout ? timeout : 1;
		goto out;
	}
	/* A peer that sees us armed announces; one that moved first is seen. */
	if (arm)
		arm(arg);
	init_waitqueue_entry(&on_wq, current);
	/*
	 * The link's wake-up marks its entry (WQ_FLAG_WOKEN): one that comes
	 * while this task still runs, after it joined rx_wait but before it
	 * set its state, changes nothing @ready sees, and would be lost.
	 */
	init_waitqueue_func_entry(&on_link, woken_wake_function);
	on_link.private = current;
	add_wait_queue(wq, &on_wq);
	add_wait_queue(&link->rx_wait, &on_link);
	for (;;) {
		set_current_state(state);
		if (ready(arg)) {
			ret = timeout ? timeout : 1;
			break;
		}
		if (READ_ONCE(n->gone)) {
			ret = -EAGAIN;
			break;
		}
		if (signal_pending_state(state, current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!timeout) {
			ret = 0;
			break;
		}
		if (!(READ_ONCE(on_link.flags) & WQ_FLAG_WOKEN))
			timeout = schedule_timeout(timeout);
		__set_current_state(TASK_RUNNING);
		/*
		 * Unmark before the poll, with a barrier: a wake-up that comes
		 * during the poll is seen at the next turn, and one that races
		 * with the unmarking is for messages this poll already sees.
		 */
		smp_store_mb(on_link.flags, on_link.flags & ~WQ_FLAG_WOKEN);
		if (!READ_ONCE(n->gone))
			link->ops->poll(link);
	}
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(&link->rx_wait, &on_link);
	remove_wait_queue(wq, &on_wq);
out:
	/* A transport that saw us waiting may have left its delivery to us. */
	if (!READ_ONCE(n->gone))
		link->ops->poll(link);
	scif_node_release(n);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_node_wait);

/**
 * scif_ep_wait_peer() - wait on an endpoint for an answer of its peer
 * @ep: the endpoint; its peer node is the one waited for
 * @ready: the condition, as for scif_node_wait()
 * @arg: its argument
 * @state: %TASK_INTERRUPTIBLE or %TASK_KILLABLE
 * @timeout: longest wait in jiffies, or %MAX_SCHEDULE_TIMEOUT
 *
 * scif_node_wait() on @ep's wait queue, or the plain wait on it where the
 * link cannot be polled (or the node left).
 *
 * Return: the jiffies left (at least 1) once @ready holds, 0 on timeout,
 * -ERESTARTSYS on a signal (a fatal one for %TASK_KILLABLE).
 */
long scif_ep_wait_peer(struct scif_endpt *ep, bool (*ready)(const void *arg),
		       const void *arg, unsigned int state, long timeout)
{
	long ret = scif_node_wait(ep->si, ep->peer.node, &ep->wq, ready, NULL,
				  arg, state, timeout);

	if (ret != -EAGAIN)
		return ret;
	if (state == TASK_KILLABLE)
		return wait_event_killable_timeout(ep->wq, ready(arg), timeout);
	return wait_event_interruptible_timeout(ep->wq, ready(arg), timeout);
}

/**
 * scif_ep_wait_peer_armed() - scif_ep_wait_peer() for a condition the peer
 *			       announces only when asked
 * @ep: the endpoint
 * @ready: the condition
 * @arm: asks the peer to announce the next change of @ready by a message;
 *	 called after any busy polling, before the first sleep, so that a
 *	 peer seen moving while we poll is not asked
 * @arg: argument of both
 * @state: %TASK_INTERRUPTIBLE or %TASK_KILLABLE
 *
 * Waits without a timeout.
 *
 * Return: 1 once @ready holds, -ERESTARTSYS on a signal.
 */
long scif_ep_wait_peer_armed(struct scif_endpt *ep,
			     bool (*ready)(const void *arg),
			     void (*arm)(const void *arg), const void *arg,
			     unsigned int state)
{
	long ret = scif_node_wait(ep->si, ep->peer.node, &ep->wq, ready, arm,
				  arg, state, MAX_SCHEDULE_TIMEOUT);

	if (ret != -EAGAIN)
		return ret;
	arm(arg);
	if (state == TASK_KILLABLE)
		return wait_event_killable(ep->wq, ready(arg)) ?: 1;
	return wait_event_interruptible(ep->wq, ready(arg)) ?: 1;
}
