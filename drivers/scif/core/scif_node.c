// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF nodes: adding and removing the nodes an instance can reach, the
 * list of them, and the route work that keeps the nodes beyond the
 * neighbours in line with the route table.
 *
 * A transport adds a node when its peer becomes reachable and removes it
 * when the peer is lost; the route work adds and removes the routed nodes
 * (core/scif_forward.c). Removal fails every connection and connect in
 * flight towards the node and takes its device off the bus; it waits for
 * the node's senders (core/scif_node_table.c).
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_link.h"
#include "scif_route.h"
#include "scif_shm.h"
#include "scif_transport.h"
#include "scif_wire.h"

/*
 * The node of id @node left the table and is torn down: the id is free
 * again. A routed node refused meanwhile is the route work's to add now.
 */
static void scif_node_left(struct scif_instance *si, u16 node)
{
	bool retry;

	down_write(&si->nodes_rwsem);
	__clear_bit(node, si->nodes_leaving);
	retry = __test_and_clear_bit(node, si->nodes_retry);
	up_write(&si->nodes_rwsem);
	wake_up_var(&si->nodes_leaving);
	if (retry)
		scif_routes_resync(si);
}

/* Take @n out of the table. nodes_rwsem is held for writing. */
static void scif_node_erase(struct scif_instance *si, struct scif_node *n)
{
	lockdep_assert_held_write(&si->nodes_rwsem);
	xa_erase(&si->nodes, n->id);
	__set_bit(n->id, si->nodes_leaving);
}

/*
 * After @n left the table (scif_node_erase()): stop its users, reset what
 * used it, take it off the bus and free it.
 */
static void scif_node_teardown(struct scif_instance *si, struct scif_node *n)
{
	struct scif_endpt *ep;
	unsigned long idx = 0;
	u16 node = n->id;

	if (!n->routed)
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
	scif_node_left(si, node);
}

/**
 * scif_node_insert() - put a node in the table and on the bus
 * @si: the instance
 * @n: the node, allocated with its @id, @link, @max_data, @ep_ring and
 *     @routed set; freed here if it is refused
 *
 * A neighbour takes the place of a routed node of its id, whose
 * connections are reset first (they went by messages through another
 * node, and older messages of theirs may still be on the way there: none
 * of them may go over the link, nor meet one that does). A routed node
 * takes only a free id, silently. An id whose former node is still being
 * torn down is not free: its device may still be on the bus. A neighbour
 * waits for that teardown to end; a routed node is refused, and added by
 * the route work once the id is free (scif_node_left()).
 *
 * Return: 0 or -EEXIST.
 */
int scif_node_insert(struct scif_instance *si, struct scif_node *n)
{
	struct scif_node *old, *replaced;
	bool leaving;
	int ret;

	n->si = si;
	refcount_set(&n->senders, 1);
	init_completion(&n->idle);
	spin_lock_init(&n->shm_q_lock);
	INIT_LIST_HEAD(&n->shm_q);
	/* Again while the route work puts a routed node back meanwhile. */
	do {
		ret = 0;
		replaced = NULL;
		leaving = false;
		down_write(&si->nodes_rwsem);
		old = xa_load(&si->nodes, n->id);
		if (test_bit(n->id, si->nodes_leaving)) {
			if (n->routed) {
				__set_bit(n->id, si->nodes_retry);
				ret = -EEXIST;
			} else {
				leaving = true;
			}
		} else if (old && old->routed && !n->routed &&
			   n->id != si->self) {
			scif_node_erase(si, old);
			replaced = old;
		} else if (old && n->routed) {
			/* Left in the table, whole: not ours to tear down. */
			ret = -EEXIST;
		} else {
			ret = scif_transport_node_check(si, n->id, n->link);
			if (!ret)
				ret = xa_insert(&si->nodes, n->id, n,
						GFP_KERNEL);
		}
		up_write(&si->nodes_rwsem);
		if (replaced)
			scif_node_teardown(si, replaced);
		if (leaving)
			wait_var_event(&si->nodes_leaving,
				       !test_bit(n->id, si->nodes_leaving));
	} while (replaced || leaving);
	if (ret) {
		kfree(n);
		return ret == -EBUSY ? -EEXIST : ret;
	}
	/* A failed device leaves the node usable, only invisible to clients. */
	if (scif_peer_dev_add(si, n))
		pr_warn("scif %s: no device for node %u\n", si->name, n->id);
	if (!n->routed)
		scif_routes_node_up(si, n->id);
	return 0;
}

/**
 * scif_node_add() - make a node reachable (a transport's link came up)
 * @si: the instance
 * @node: id of the node, 0..%SCIF_MAX_NODE_ID
 * @link: the link to it; must stay valid until scif_node_remove()
 *
 * Registers the node's device on the instance's bus, so SCIF clients are
 * probed for it. The id must be free: not online through another link, and
 * not the instance's own unless @link is of the transport that links the
 * node to itself (scif_transport_node_check() says which it is). A node
 * reached through a route until now becomes a neighbour
 * (scif_node_insert()).
 *
 * Return: 0, or -EINVAL (bad id or link), -EEXIST (the id is taken),
 * -ENOMEM.
 */
int scif_node_add(struct scif_instance *si, u16 node, struct scif_link *link)
{
	struct scif_node *n;

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
	return scif_node_insert(si, n);
}
EXPORT_SYMBOL_NS_GPL(scif_node_add, SCIF_TRANSPORT);

/**
 * scif_node_remove_kind() - take a node out, if it is of the kind named
 * @si: the instance
 * @node: the node id
 * @routed: remove it only if it is a routed node (true) or a neighbour
 */
void scif_node_remove_kind(struct scif_instance *si, u16 node, bool routed)
{
	struct scif_node *n;

	down_write(&si->nodes_rwsem);
	n = xa_load(&si->nodes, node);
	if (n && n->routed == routed)
		scif_node_erase(si, n);
	else
		n = NULL;
	up_write(&si->nodes_rwsem);
	if (n)
		scif_node_teardown(si, n);
}

/**
 * scif_node_remove() - make a node unreachable (its link went down)
 * @si: the instance
 * @node: the node id
 *
 * Connections to the node are reset with -ENODEV and connects in flight
 * fail with -ENODEV. On return the core no longer uses the node's link.
 * A send waiting in the link holds this up: the transport makes its link
 * fail sends before it calls this. A routed node of that id is left alone.
 */
void scif_node_remove(struct scif_instance *si, u16 node)
{
	scif_node_remove_kind(si, node, false);
}
EXPORT_SYMBOL_NS_GPL(scif_node_remove, SCIF_TRANSPORT);

/**
 * scif_routed_add() - bring a node online as a routed node
 * @si: the instance
 * @node: the node id
 *
 * Does nothing unless the route table reaches @node through another node,
 * or if @node is in the table already: the route work and a receive path
 * may both find @node missing and both add it; the second one leaves the
 * first one's node alone.
 */
void scif_routed_add(struct scif_instance *si, u16 node)
{
	struct scif_node *v, *n;
	u32 path;
	u16 via;

	if (scif_route_path(&si->routing->rt, node, &via, &path) < 2)
		return;
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return;
	v = scif_node_hold(si, via);
	if (!v || v->routed) {
		if (v)
			scif_node_release(v);
		kfree(n);
		return;
	}
	n->id = node;
	scif_routed_init(n, v, path);
	scif_node_release(v);
	/* A neighbour or routed node that came meanwhile keeps the id. */
	scif_node_insert(si, n);
}
EXPORT_SYMBOL_IF_KUNIT(scif_routed_add);

/*
 * The path to routed node @d changed, to @path. What went the old way may
 * be lost in it, so the connections to @d are reset on both sides and
 * connects and staged RMAs in flight to it fail; the node itself stays, on
 * the bus, for the connections made from now on.
 */
static void scif_routed_move(struct scif_instance *si, u16 d, u32 path)
{
	struct scif_endpt *ep;
	unsigned long idx = 0;
	struct scif_node *n;
	bool moved = false;

	down_write(&si->nodes_rwsem);
	n = xa_load(&si->nodes, d);
	if (n && n->routed && n->route_path != path) {
		WRITE_ONCE(n->route_path, path);
		moved = true;
	}
	up_write(&si->nodes_rwsem);
	if (!moved)
		return;
	while ((ep = scif_ep_next(si, &idx))) {
		scif_connect_node_lost(ep, d);
		scif_data_path_lost(ep, d);
		scif_ep_put(ep);
	}
	scif_layers_node_lost(si, d);
}

/**
 * scif_routed_sync_one() - bring one routed node in line with its route
 * @si: the instance
 * @d: the node id
 *
 * A destination with a route of two hops or more and no node becomes a
 * routed node; a routed node whose destination has no route any more is
 * removed (its connections end with -ENODEV, the bus's clients are told);
 * one whose path changed stays, and its connections end with -ECONNRESET
 * (scif_routed_move()). Neighbours are their
 * transports' to add and remove.
 */
static void scif_routed_sync_one(struct scif_instance *si, u16 d)
{
	struct scif_node *n;
	bool none, routed;
	u32 path = 0, was = 0;
	int hops;
	u16 via;

	if (d >= SCIF_ROUTE_NODES || d == READ_ONCE(si->self))
		return;
	hops = scif_route_path(&si->routing->rt, d, &via, &path);
	rcu_read_lock();
	n = xa_load(&si->nodes, d);
	none = !n;
	routed = n && n->routed;
	if (routed)
		was = READ_ONCE(n->route_path);
	rcu_read_unlock();
	if (hops >= 2 && none)
		scif_routed_add(si, d);
	else if (hops >= 2 && routed && path != was)
		scif_routed_move(si, d, path);
	else if (hops < 0 && routed)
		scif_node_remove_kind(si, d, true);
}

/**
 * scif_routed_sync() - bring the routed nodes in line with the route table
 * @si: the instance
 *
 * scif_routed_sync_one() for every destination reached through another
 * node, and for every routed node. Called by the route work, which runs
 * after every change of the table; one look at the table, so that a node's
 * arrival costs little.
 */
void scif_routed_sync(struct scif_instance *si)
{
	struct scif_routing *r = si->routing;
	struct scif_node *n;
	unsigned long d;

	/* r->which is the work's own, free until it announces. */
	scif_route_far(&r->rt, r->which);
	rcu_read_lock();
	xa_for_each(&si->nodes, d, n)
		if (n->routed)
			__set_bit(d, r->which);
	rcu_read_unlock();
	for_each_set_bit(d, r->which, SCIF_ROUTE_NODES)
		scif_routed_sync_one(si, d);
}

/**
 * scif_routed_flush() - remove every routed node, for good
 * @si: the instance, whose transports have all unregistered: no route is
 *	left, so the route work adds none again
 */
void scif_routed_flush(struct scif_instance *si)
{
	unsigned int d;

	flush_work(&si->routing->work);
	for (d = 0; d < SCIF_ROUTE_NODES; d++)
		scif_node_remove_kind(si, d, true);
}

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
 * The work item of the instance's routes: one at a time per instance, so
 * that a neighbour hears last what the table holds last. It first brings
 * the routed nodes in line with the table (scif_routed_sync()).
 */
void scif_node_announce_routes(struct work_struct *work)
{
	struct scif_routing *r = container_of(work, struct scif_routing, work);
	unsigned int to;

	scif_routed_sync(r->si);
	scif_route_nbrs(&r->rt, r->nbrs);
	for_each_set_bit(to, r->nbrs, SCIF_ROUTE_NODES)
		scif_node_announce(r, to);
}

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
