// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF nodes: the table of nodes an instance can reach, and their links.
 *
 * A transport adds a node when its peer becomes reachable and removes it
 * when the peer is lost. Removal fails every connection and connect in
 * flight towards the node and takes its device off the bus. A node's link
 * is used under nodes_rwsem held for reading, so a link is never torn down
 * under a user. A send is the exception: it may wait for room in a full
 * link for up to the transport's timeout, and a reader waiting that long
 * would stall every writer, and behind the writer every other reader, for
 * all nodes. A sender holds a reference on the node instead, which
 * removal waits for, and so does a task that takes in the node's messages
 * while it waits for them (scif_node_wait()). Lookups that only read a node's counters or chunk
 * size use RCU, so that a receive path running inside a send (the loopback
 * link delivers data inline) takes no lock twice.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_link.h"
#include "scif_route.h"
#include "scif_shm.h"
#include "scif_trace.h"
#include "scif_transport.h"
#include "scif_wire.h"

/* The node with id @node, or NULL; nodes_rwsem or the RCU read lock is held. */
static struct scif_node *scif_node_get(struct scif_instance *si, u16 node)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() &&
			 !lockdep_is_held(&si->nodes_rwsem),
			 "scif node table used without nodes_rwsem or RCU");
	return xa_load(&si->nodes, node);
}

/**
 * scif_node_online() - tell whether a node is in the table
 * @si: the instance
 * @node: the node id, any value
 *
 * Return: true if @node can be sent to.
 */
bool scif_node_online(struct scif_instance *si, u16 node)
{
	bool ret;

	rcu_read_lock();
	ret = scif_node_get(si, node);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_node_online);

/**
 * scif_node_max_data() - largest data chunk the link to a node carries
 * @si: the instance
 * @node: the node id
 *
 * Return: the chunk size, or 0 if @node is not online.
 */
size_t scif_node_max_data(struct scif_instance *si, u16 node)
{
	struct scif_node *n;
	size_t ret = 0;

	rcu_read_lock();
	n = scif_node_get(si, node);
	if (n)
		ret = n->max_data;
	rcu_read_unlock();
	return ret;
}

/**
 * scif_node_ep_ring() - receive ring size for endpoints connected to a node
 * @si: the instance
 * @node: the node id
 *
 * Return: the size in bytes, or 0 if @node is not online.
 */
u32 scif_node_ep_ring(struct scif_instance *si, u16 node)
{
	struct scif_node *n;
	u32 ret = 0;

	rcu_read_lock();
	n = scif_node_get(si, node);
	if (n)
		ret = n->ep_ring;
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_node_ep_ring);

/* A reference on a node in the table that keeps its link usable, or NULL. */
static struct scif_node *scif_node_hold(struct scif_instance *si, u16 node)
{
	struct scif_node *n;

	rcu_read_lock();
	n = scif_node_get(si, node);
	if (n && !refcount_inc_not_zero(&n->senders))
		n = NULL;
	rcu_read_unlock();
	return n;
}

static void scif_node_release(struct scif_node *n)
{
	if (refcount_dec_and_test(&n->senders))
		complete(&n->idle);
}

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

/**
 * scif_node_send() - send a message (and data) to a node
 * @si: the instance
 * @node: the destination node
 * @msg: the message; its @len field is set here
 * @data: data to append, or NULL
 * @len: number of data bytes, at most the link's chunk size
 *
 * Sleeps; call without spinlocks held.
 *
 * Return: 0, or -ENODEV if @node is not online, or the link's error.
 */
int scif_node_send(struct scif_instance *si, u16 node,
		   const struct scif_wire_msg *msg, const void *data,
		   size_t len)
{
	struct scif_node *n;
	int ret = -ENODEV;

	might_sleep();
	n = scif_node_hold(si, node);
	if (n) {
		if (WARN_ON_ONCE(len > n->link->max_data ||
				 le16_to_cpu(msg->len) != len))
			ret = -EINVAL;
		else
			ret = n->link->ops->send(n->link, msg, data, len);
		if (ret)
			atomic64_inc(&n->stats.tx_errs);
		else
			atomic64_inc(&n->stats.tx_msgs);
		scif_node_release(n);
	}
	trace_scif_msg_tx(node, msg->type, le64_to_cpu(msg->src_ep),
			  le64_to_cpu(msg->dst_ep), len, ret);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_node_send);

/* Announce to @to what it is owed, in messages of what its link carries. */
static void scif_node_announce(struct scif_routing *r, u16 to)
{
	struct scif_wire_msg msg;
	unsigned int pos, n, max;

	max = min_t(size_t, scif_node_max_data(r->si, to) / sizeof(r->buf[0]),
		    ARRAY_SIZE(r->buf));
	if (!max)
		return;
	while (scif_route_take_dirty(&r->rt, to, r->which)) {
		for (pos = 0; pos < SCIF_ROUTE_NODES;) {
			n = scif_route_fill(&r->rt, to, r->which, &pos, r->buf,
					    max);
			if (!n)
				break;
			scif_msg_init(&msg, SCIF_MSG_ROUTE, 0, 0, 0, 0, 0);
			msg.len = cpu_to_le16(n * sizeof(r->buf[0]));
			/* A lost link withdraws everything anyway. */
			if (scif_node_send(r->si, to, &msg, r->buf,
					   n * sizeof(r->buf[0])))
				return;
		}
	}
}

/**
 * scif_node_announce_routes() - send the neighbours the routes they are owed
 * @work: &scif_routing.work of an instance
 *
 * The work item of core/scif_route_msg.c: one at a time per instance, so
 * that a neighbour hears last what the table holds last.
 */
void scif_node_announce_routes(struct work_struct *work)
{
	struct scif_routing *r = container_of(work, struct scif_routing, work);
	unsigned int to;

	scif_route_nbrs(&r->rt, r->nbrs);
	for_each_set_bit(to, r->nbrs, SCIF_ROUTE_NODES)
		scif_node_announce(r, to);
}

/**
 * scif_node_count_drop() - count a message from a node that was rejected
 * @si: the instance
 * @node: the sender
 */
void scif_node_count_drop(struct scif_instance *si, u16 node)
{
	struct scif_node *n;

	rcu_read_lock();
	n = scif_node_get(si, node);
	if (n)
		atomic64_inc(&n->stats.rx_drops);
	rcu_read_unlock();
}

/**
 * scif_node_count_rx() - count a message from a node that was accepted
 * @si: the instance
 * @node: the sender
 */
void scif_node_count_rx(struct scif_instance *si, u16 node)
{
	struct scif_node *n;

	rcu_read_lock();
	n = scif_node_get(si, node);
	if (n)
		atomic64_inc(&n->stats.rx_msgs);
	rcu_read_unlock();
}

/**
 * scif_node_stats() - read a node's counters
 * @si: the instance
 * @node: the node id
 * @out: set to the counters (all zero if @node is not online)
 */
void scif_node_stats(struct scif_instance *si, u16 node,
		     struct scif_node_stats *out)
{
	struct scif_node *n;

	memset(out, 0, sizeof(*out));
	rcu_read_lock();
	n = scif_node_get(si, node);
	if (n) {
		atomic64_set(&out->tx_msgs, atomic64_read(&n->stats.tx_msgs));
		atomic64_set(&out->tx_errs, atomic64_read(&n->stats.tx_errs));
		atomic64_set(&out->rx_msgs, atomic64_read(&n->stats.rx_msgs));
		atomic64_set(&out->rx_drops,
			     atomic64_read(&n->stats.rx_drops));
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(scif_node_stats);

/**
 * scif_node_add() - make a node reachable (a transport's link came up)
 * @si: the instance
 * @node: id of the node, 0..%SCIF_MAX_NODE_ID
 * @link: the link to it; must stay valid until scif_node_remove()
 *
 * Registers the node's device on the instance's bus, so SCIF clients are
 * probed for it. The id must be free: not online through another link, and
 * not the instance's own unless @link is of the transport that links the
 * node to itself (scif_transport_node_check() says which it is).
 *
 * Return: 0, or -EINVAL (bad id or link), -EEXIST (the id is taken),
 * -ENOMEM.
 */
int scif_node_add(struct scif_instance *si, u16 node, struct scif_link *link)
{
	struct scif_node *n;
	int ret;

	if (node > SCIF_MAX_NODE_ID || !link || !link->ops ||
	    !link->ops->send || !link->max_data ||
	    link->max_data > SCIF_WIRE_DATA_MAX ||
	    (link->ep_ring && (!is_power_of_2(link->ep_ring) ||
			       link->ep_ring < SCIF_WIRE_RING_MIN ||
			       link->ep_ring > SCIF_WIRE_RING_MAX)))
		return -EINVAL;
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->id = node;
	n->link = link;
	n->max_data = link->max_data;
	n->ep_ring = link->ep_ring ? link->ep_ring : SCIF_RX_RING_SIZE;
	refcount_set(&n->senders, 1);
	init_completion(&n->idle);
	spin_lock_init(&n->shm_q_lock);
	INIT_LIST_HEAD(&n->shm_q);
	down_write(&si->nodes_rwsem);
	ret = scif_transport_node_check(si, node, link);
	if (!ret)
		ret = xa_insert(&si->nodes, node, n, GFP_KERNEL);
	up_write(&si->nodes_rwsem);
	if (ret) {
		kfree(n);
		return ret == -EBUSY ? -EEXIST : ret;
	}
	/* A failed device leaves the node usable, only invisible to clients. */
	if (scif_peer_dev_add(si, n))
		pr_warn("scif %s: no device for node %u\n", si->name, node);
	scif_routes_node_up(si, node);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(scif_node_add, SCIF_TRANSPORT);

/**
 * scif_node_remove() - make a node unreachable (its link went down)
 * @si: the instance
 * @node: the node id
 *
 * Connections to the node are reset with -ENODEV and connects in flight
 * fail with -ENODEV. On return the core no longer uses the node's link.
 * A send waiting in the link holds this up: the transport makes its link
 * fail sends before it calls this.
 */
void scif_node_remove(struct scif_instance *si, u16 node)
{
	struct scif_endpt *ep;
	struct scif_node *n;
	unsigned long idx = 0;

	down_write(&si->nodes_rwsem);
	n = xa_erase(&si->nodes, node);
	up_write(&si->nodes_rwsem);
	if (!n)
		return;
	scif_routes_node_down(si, node);
	/* Tasks in scif_node_wait() let go; senders return (link dead). */
	WRITE_ONCE(n->gone, true);
	if (n->link->ops->poll)
		wake_up_all(&n->link->rx_wait);
	if (!refcount_dec_and_test(&n->senders))
		wait_for_completion(&n->idle);
	while ((ep = scif_ep_next(si, &idx))) {
		scif_connect_node_lost(ep, node);
		scif_data_node_lost(ep, node);
		scif_ep_put(ep);
	}
	scif_layers_node_lost(si, node);
	/* Out of the table: nothing joins the quarantine any more. */
	scif_shm_node_lost(&n->shm_q);
	scif_peer_dev_remove(n);
	/* Counters and chunk size are read under RCU only. */
	kfree_rcu(n, rcu);
}
EXPORT_SYMBOL_NS_GPL(scif_node_remove, SCIF_TRANSPORT);

/**
 * scif_instance_node_ids() - list the online nodes of an instance
 * @si: the instance
 * @nodes: filled with up to @len node ids, in increasing order
 * @len: room at @nodes
 * @self: set to the id of the instance's own node (may be NULL)
 *
 * Return: the number of online nodes, which may exceed @len.
 */
int scif_instance_node_ids(struct scif_instance *si, u16 *nodes, int len,
			   u16 *self)
{
	struct scif_node *n;
	unsigned long id;
	int total = 0;

	down_read(&si->nodes_rwsem);
	xa_for_each(&si->nodes, id, n) {
		if (nodes && total < len)
			nodes[total] = id;
		total++;
	}
	up_read(&si->nodes_rwsem);
	if (self)
		*self = si->self;
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(scif_instance_node_ids);

/**
 * scif_get_node_ids() - list the nodes of the SCIF network
 * @nodes: filled with up to @len node ids
 * @len: room at @nodes
 * @self: set to the id of the local node
 *
 * Return: the number of online nodes, the local one included; compare it
 * with @len to see whether @nodes was large enough.
 */
int scif_get_node_ids(u16 *nodes, int len, u16 *self)
{
	return scif_instance_node_ids(scif_default_instance(), nodes, len,
				      self);
}
EXPORT_SYMBOL_GPL(scif_get_node_ids);
