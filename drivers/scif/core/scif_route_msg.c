// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF routes on the wire: the route table of an instance
 * (core/scif_route.c), fed by the ROUTE messages of its neighbours and by
 * their links coming and going, and announced to them in turn.
 *
 * One work item per instance (scif_node_announce_routes(), in
 * core/scif_node.c with the node changes it makes; set up with the
 * instance, by scif_routes_init()) sends every announcement, so that what a
 * neighbour hears about a destination last is what the table held last:
 * a change marks the destination as owed to every neighbour, and the work
 * sends what is owed as the table is when it runs. Receiving never sends,
 * so a neighbour that floods us cannot make us block on its full link.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "scif_core.h"
#include "scif_instance.h"
#include "scif_route.h"

/**
 * scif_routes_node_up() - a link to a neighbour came up
 * @si: the instance
 * @node: the neighbour (the node's own id, the loopback link, is none)
 *
 * The neighbour is told our whole table.
 */
void scif_routes_node_up(struct scif_instance *si, u16 node)
{
	struct scif_routing *r = si->routing;
	int ret;

	if (node == READ_ONCE(si->self))
		return;
	/* The id changes only while no link is up, so it is current here. */
	scif_route_set_self(&r->rt, READ_ONCE(si->self));
	ret = scif_route_link_up(&r->rt, node);
	if (ret)
		pr_warn("scif %s: no routes through node %u: %d\n", si->name,
			node, ret);
	else
		schedule_work(&r->work);
}

/**
 * scif_routes_node_down() - a link to a neighbour went down
 * @si: the instance
 * @node: the neighbour
 *
 * What it announced is forgotten, the changes told to the others, and the
 * routed nodes brought in line (scif_routed_sync()).
 */
void scif_routes_node_down(struct scif_instance *si, u16 node)
{
	DECLARE_BITMAP(changed, SCIF_ROUTE_NODES);
	struct scif_routing *r = si->routing;

	bitmap_zero(changed, SCIF_ROUTE_NODES);
	scif_route_link_down(&r->rt, node, changed);
	/*
	 * Even without a change: the id may have a route through another
	 * neighbour still, on which it comes back as a routed node.
	 */
	schedule_work(&r->work);
}

/**
 * scif_routes_resync() - have the route work run again
 * @si: the instance
 *
 * For a change the route table does not see: an id that was busy, on
 * which a routed node could not be added, became free.
 */
void scif_routes_resync(struct scif_instance *si)
{
	schedule_work(&si->routing->work);
}

/**
 * scif_handle_route() - a ROUTE message from a neighbour
 * @si: the instance
 * @node: the neighbour
 * @msg: the message, checked by the dispatcher
 * @data: its entries
 * @len: their size in bytes
 *
 * Return: 0 (a duplicate node id was reported and left out, if any),
 * -EPROTO for a message that breaks the rules (nothing of it is used),
 * -ENOENT if the link to @node is not known here (yet, or any more),
 * -ENOMEM.
 */
int scif_handle_route(struct scif_instance *si, u16 node,
		      const struct scif_wire_msg *msg, const void *data,
		      size_t len)
{
	DECLARE_BITMAP(changed, SCIF_ROUTE_NODES);
	struct scif_routing *r = si->routing;
	struct scif_wire_route *e;
	int ret;

	if (msg->src_ep || msg->dst_ep || msg->src_port || msg->dst_port ||
	    msg->arg || !len || len % sizeof(struct scif_wire_route) ||
	    len / sizeof(struct scif_wire_route) > SCIF_ROUTE_NODES)
		return -EPROTO;
	/* Checked, then used: from a private copy, not the peer's memory. */
	e = kmemdup(data, len, GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	bitmap_zero(changed, SCIF_ROUTE_NODES);
	ret = scif_route_rx(&r->rt, node, e, len / sizeof(*e), changed);
	kfree(e);
	if (ret && ret != -EEXIST)
		return ret;
	/* Also the answer to a first announcement, owed without a change. */
	schedule_work(&r->work);
	return 0;
}

/**
 * scif_instance_routes_show() - print an instance's routes
 * @si: the instance
 * @m: where to
 */
void scif_instance_routes_show(struct scif_instance *si, struct seq_file *m)
{
	scif_route_show(&si->routing->rt, m);
}
