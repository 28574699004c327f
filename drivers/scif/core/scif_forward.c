// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF forwarding: nodes that share no link with this one.
 *
 * A destination that the route table (core/scif_route.c) reaches through
 * another node becomes a *routed node*: a &struct scif_node in the node
 * table like a neighbour, with a link of its own (&scif_node.route_link)
 * whose sends go to the route's next hop as they are, so that everything
 * above the node table (connections, streams, staged RMA, the bus) works
 * with it unchanged. That link offers no memory: streams to a routed node
 * go by messages and its RMAs by staged messages, and mmap() and
 * scif_get_pages() of its windows fail with -EOPNOTSUPP. The route work
 * (scif_node_announce_routes(), core/scif_node.c) adds and removes routed
 * nodes as the table changes (scif_routed_sync()); a neighbour of the same
 * id replaces a routed node (scif_node_insert()).
 *
 * A message that arrives for another node is passed on by the dispatcher
 * (core/scif_msg.c) with scif_msg_forward(): to the route's next hop, its
 * header as it came except the ttl, lowered by one. See
 * Documentation/scif-routing.rst.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/wait.h>

#include "scif_core.h"
#include "scif_instance.h"
#include "scif_link.h"
#include "scif_route.h"
#include "scif_wire.h"

/**
 * scif_node_link_send() - give a message as it is to a neighbour's link
 * @si: the instance
 * @via: the neighbour
 * @msg: the message, its ends and ttl already set
 * @data: data that follows it, or NULL
 * @len: number of data bytes
 *
 * Sleeps, for as long as the link may wait for room.
 *
 * Return: 0; -ENODEV if @via is not a neighbour (not online, or a routed
 * node); -EMSGSIZE if its link carries less than @len; or the link's error.
 */
int scif_node_link_send(struct scif_instance *si, u16 via,
			const struct scif_wire_msg *msg, const void *data,
			size_t len)
{
	struct scif_node *n;
	int ret;

	might_sleep();
	n = scif_node_hold(si, via);
	if (!n)
		return -ENODEV;
	if (n->routed)
		ret = -ENODEV;
	else if (len > n->link->max_data)
		ret = -EMSGSIZE;
	else
		ret = n->link->ops->send(n->link, msg, data, len);
	if (ret)
		atomic64_inc(&n->stats.tx_errs);
	else
		atomic64_inc(&n->stats.tx_msgs);
	scif_node_release(n);
	return ret;
}

/* The send of a routed node's link: to the next hop of its route. */
static int scif_routed_send(struct scif_link *link,
			    const struct scif_wire_msg *msg, const void *data,
			    size_t len)
{
	struct scif_node *n = container_of(link, struct scif_node, route_link);
	u32 path;
	u16 via;

	/*
	 * One hop: the node is a neighbour now, and this one on its way out.
	 * Another path: the route moved, and the connections made over the
	 * old one are being reset (scif_routed_sync_one()); none of their
	 * messages takes the new path before that.
	 */
	if (scif_route_path(&n->si->routing->rt, n->id, &via, &path) < 2 ||
	    path != READ_ONCE(n->route_path))
		return -ENODEV;
	return scif_node_link_send(n->si, via, msg, data, len);
}

static const struct scif_link_ops scif_routed_ops = {
	.send = scif_routed_send,
};

/**
 * scif_routed_init() - make a node a routed node
 * @n: the node, not in the table yet, its @id set
 * @via: the neighbour its route goes through now, held by the caller
 * @path: the path of that route (scif_route_path()), which the
 *	  connections to be made to it take
 *
 * Its link carries what the first hop carries (every link of a fabric is
 * expected to carry as much), and its connections the ring size of that
 * link's.
 */
void scif_routed_init(struct scif_node *n, const struct scif_node *via,
		      u32 path)
{
	n->routed = true;
	n->route_path = path;
	n->route_link.ops = &scif_routed_ops;
	n->route_link.max_data = via->max_data;
	n->route_link.ep_ring = via->ep_ring;
	init_waitqueue_head(&n->route_link.rx_wait);
	n->link = &n->route_link;
	n->max_data = via->max_data;
	n->ep_ring = via->ep_ring;
}

/**
 * scif_msg_forward() - pass on a message for another node
 * @si: the instance
 * @node: the neighbour whose link it came over
 * @msg: the message, checked by the dispatcher: its @ttl is not 0, and
 *	 its sender may come over that link
 * @data: the data that followed it
 * @len: number of data bytes
 *
 * The message goes to the next hop towards &scif_wire_msg.dst_node with
 * its ttl lowered by one and nothing else changed; a neighbour not yet in
 * the route table (it announced nothing yet) is reached over its link. A
 * message that would leave with ttl 0 is not sent. Called from the
 * dispatcher, in the receiving transport's context; may wait for room in
 * the next link as any send.
 *
 * Return: 0; -ELOOP (the ttl ran out), -EHOSTUNREACH (no route), or the
 * next link's error. The dispatcher counts and reports a failure.
 */
int scif_msg_forward(struct scif_instance *si, u16 node,
		     const struct scif_wire_msg *msg, const void *data,
		     size_t len)
{
	u16 dst = le16_to_cpu(msg->dst_node);
	struct scif_wire_msg fwd;
	u16 via;
	int ret;

	if (msg->ttl <= 1)
		return -ELOOP;
	if (scif_route_lookup(&si->routing->rt, dst, &via) < 0)
		via = dst;
	fwd = *msg;
	fwd.ttl--;
	ret = scif_node_link_send(si, via, &fwd, data, len);
	return ret == -ENODEV ? -EHOSTUNREACH : ret;
}
