// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF node table: looking nodes up, holding them, sending to them, and
 * their counters. Nothing here calls up into the rest of the core.
 *
 * A node's link is used under nodes_rwsem held for reading, so a link is
 * never torn down under a user. A send is the exception: it may wait for
 * room in a full link for up to the transport's timeout, and a reader
 * waiting that long would stall every writer, and behind the writer every
 * other reader, for all nodes. A sender holds a reference on the node
 * instead (scif_node_hold()), which removal (core/scif_node.c) waits for,
 * and so does a task that takes in the node's messages while it waits for
 * them (scif_node_wait()). Lookups that only read a node's counters or
 * chunk size use RCU, so that a receive path running inside a send (the
 * loopback link delivers data inline) takes no lock twice.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/rcupdate.h>

#include "scif_core.h"
#include "scif_instance.h"
#include "scif_link.h"
#include "scif_trace.h"
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
 * scif_node_routed() - tell how a node is reached
 * @si: the instance
 * @node: the node id, any value
 *
 * Return: 1 for a routed node, 0 for a neighbour, -ENOENT for a node that
 * is not in the table.
 */
int scif_node_routed(struct scif_instance *si, u16 node)
{
	struct scif_node *n;
	int ret;

	rcu_read_lock();
	n = scif_node_get(si, node);
	ret = n ? n->routed : -ENOENT;
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_node_routed);

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

/**
 * scif_node_hold() - a reference on a node that keeps its link usable
 * @si: the instance
 * @node: the node id, any value
 *
 * Return: the node, or NULL if it is not online (or being removed); give
 * it back with scif_node_release().
 */
struct scif_node *scif_node_hold(struct scif_instance *si, u16 node)
{
	struct scif_node *n;

	rcu_read_lock();
	n = scif_node_get(si, node);
	if (n && !refcount_inc_not_zero(&n->senders))
		n = NULL;
	rcu_read_unlock();
	return n;
}

/**
 * scif_node_release() - give back a reference of scif_node_hold()
 * @n: the node
 */
void scif_node_release(struct scif_node *n)
{
	if (refcount_dec_and_test(&n->senders))
		complete(&n->idle);
}

/**
 * scif_node_send() - send a message (and data) to a node
 * @si: the instance
 * @node: the destination node
 * @msg: the message; its @len field must say @len
 * @data: data to append, or NULL
 * @len: number of data bytes, at most the link's chunk size
 *
 * What is sent is a copy of @msg that names its ends: this node as
 * &scif_wire_msg.src_node, @node as &scif_wire_msg.dst_node, and the hop
 * bound as &scif_wire_msg.ttl. A node that is no neighbour is reached
 * through its route (core/scif_forward.c). Sleeps; call without spinlocks
 * held.
 *
 * Return: 0, or -ENODEV if @node is not online, or the link's error.
 */
int scif_node_send(struct scif_instance *si, u16 node,
		   const struct scif_wire_msg *msg, const void *data,
		   size_t len)
{
	struct scif_wire_msg m;
	struct scif_node *n;
	int ret = -ENODEV;

	might_sleep();
	n = scif_node_hold(si, node);
	if (n) {
		m = *msg;
		m.src_node = cpu_to_le16(READ_ONCE(si->self));
		m.dst_node = cpu_to_le16(node);
		m.ttl = SCIF_ROUTE_HOPS_MAX;
		if (WARN_ON_ONCE(len > n->link->max_data ||
				 le16_to_cpu(msg->len) != len))
			ret = -EINVAL;
		else
			ret = n->link->ops->send(n->link, &m, data, len);
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
