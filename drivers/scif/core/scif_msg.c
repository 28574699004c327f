// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF message reception: the one door through which peer input enters.
 *
 * scif_node_rx() checks everything that does not depend on endpoint state
 * (size, version, type, length, reserved bytes, and the rules of its type
 * in the table beside &enum scif_msg_type, scif_msg_rule()) and hands the
 * message to the handler of its type, which checks the rest against the
 * endpoint it names. The header names the message's ends
 * (&scif_wire_msg.src_node, dst_node, ttl): one for another node is
 * forwarded (core/scif_forward.c), and the handlers take the node that
 * wrote it as the sender, once checked that the neighbour it came from may
 * speak for that node. Whatever is refused is counted against the
 * neighbour whose link brought it and
 * reported with a rate-limited line; nothing a peer sends can make the
 * core allocate without bound, dereference a peer-supplied value or change
 * an endpoint that is not in the matching state.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_link.h"
#include "scif_route.h"
#include "scif_trace.h"
#include "scif_wire.h"

/**
 * scif_msg_init() - fill in a message to send
 * @msg: the message
 * @type: an &enum scif_msg_type
 * @src_ep: id of the sending endpoint, or 0
 * @dst_ep: id of the endpoint addressed, or 0
 * @src_port: local port
 * @dst_port: port addressed
 * @arg: type-specific argument
 */
void scif_msg_init(struct scif_wire_msg *msg, u8 type, u64 src_ep,
		   u64 dst_ep, u16 src_port, u16 dst_port, u32 arg)
{
	memset(msg, 0, sizeof(*msg));
	msg->version = SCIF_WIRE_VERSION;
	msg->type = type;
	msg->src_ep = cpu_to_le64(src_ep);
	msg->dst_ep = cpu_to_le64(dst_ep);
	msg->src_port = cpu_to_le16(src_port);
	msg->dst_port = cpu_to_le16(dst_port);
	msg->arg = cpu_to_le32(arg);
}
EXPORT_SYMBOL_IF_KUNIT(scif_msg_init);

/*
 * The ends of a message that came over the link of neighbour @node: set
 * *@src to its sender. A zero ttl names no ends (a peer that leaves those
 * bytes zero): the neighbour sent it, to us. Otherwise the sender must be
 * the neighbour or a node it may speak for (scif_route_src_ok()), and a
 * ROUTE must come from the neighbour itself, for us.
 *
 * Return: 0 for a message to handle here, 1 for one to forward, or
 * -EBADMSG (ends named with a zero ttl), -EPERM (a sender the neighbour
 * may not speak for), -ENOENT (forwarded from a node that is a neighbour
 * here), -EPROTO (a ROUTE from or for another node).
 */
static int scif_msg_ends(struct scif_instance *si, u16 node,
			 const struct scif_wire_msg *msg, u16 *src)
{
	u16 dst = le16_to_cpu(msg->dst_node);
	int kind;

	*src = le16_to_cpu(msg->src_node);
	if (!msg->ttl) {
		if (*src || dst)
			return -EBADMSG;
		*src = node;
		return 0;
	}
	if (*src != node && !scif_route_src_ok(&si->routing->rt, *src, node))
		return -EPERM;
	if (*src != node) {
		/*
		 * Late, not wrong: a neighbour speaks over its own link; a
		 * message of it forwarded by another node took the path of
		 * before the switch, whose connections are being reset.
		 */
		kind = scif_node_routed(si, *src);
		if (!kind)
			return -ENOENT;
		/*
		 * A node that has just become reachable may speak before the
		 * route work made it a node here: make it one now, so that
		 * the answer finds it. Only that: moves and removals are the
		 * route work's, not the receive path's.
		 */
		if (kind < 0)
			scif_routed_add(si, *src);
	}
	if (msg->type == SCIF_MSG_ROUTE &&
	    (*src != node || dst != READ_ONCE(si->self)))
		return -EPROTO;
	return dst != READ_ONCE(si->self);
}

static int scif_msg_dispatch(struct scif_instance *si, u16 node,
			     const struct scif_wire_msg *msg, const void *data,
			     size_t len)
{
	int ret = scif_msg_check_rule(msg, len);
	u16 src;

	if (ret)
		return ret;
	ret = scif_msg_ends(si, node, msg, &src);
	if (ret < 0)
		return ret;
	if (ret)
		return scif_msg_forward(si, node, msg, data, len);
	/* From here on the sender is the node that wrote the message. */
	node = src;
	if (scif_msg_rule(msg->type)->layer == SCIF_MSG_LAYER_RMA)
		return scif_layers_rx(si, node, msg, data, len);
	switch (msg->type) {
	case SCIF_MSG_CONNREQ:
		return scif_handle_connreq(si, node, msg, data, len);
	case SCIF_MSG_ACCEPT:
		return scif_handle_accept(si, node, msg, data, len);
	case SCIF_MSG_REJECT:
		return scif_handle_reject(si, node, msg);
	case SCIF_MSG_DATA:
		return scif_handle_data(si, node, msg, data, len);
	case SCIF_MSG_CREDIT:
		return scif_handle_credit(si, node, msg);
	case SCIF_MSG_DISCONNECT:
		return scif_handle_disconnect(si, node, msg);
	case SCIF_MSG_WAKE:
		return scif_handle_wake(si, node, msg);
	case SCIF_MSG_RELEASE:
		return scif_handle_release(si, node, msg);
	case SCIF_MSG_ROUTE:
		return scif_handle_route(si, node, msg, data, len);
	}
	return -EPROTO;
}

/**
 * scif_node_rx_parts() - process one message whose data lies elsewhere
 * @si: the receiving instance
 * @node: the node the link says it came from
 * @buf: the message as received
 * @size: number of bytes at @buf
 * @data: the data that followed it
 * @len: number of bytes at @data
 *
 * As scif_node_rx(), for transports that hold header and data apart.
 */
void scif_node_rx_parts(struct scif_instance *si, u16 node, const void *buf,
			size_t size, const void *data, size_t len)
{
	struct scif_wire_msg msg;
	int ret;

	if (size != sizeof(msg)) {
		ret = -EMSGSIZE;
		goto drop;
	}
	/* Work on a private copy: the buffer may be peer-writable memory. */
	memcpy(&msg, buf, sizeof(msg));
	if (msg.version != SCIF_WIRE_VERSION) {
		ret = -EPROTONOSUPPORT;
		goto drop;
	}
	/*
	 * Late, not wrong: the link went down here first, or came up here
	 * last (the route work's first announcement may be that early, and
	 * the node may still be a routed node here: the two ends of a link
	 * make the switch at different moments, and what the other end sends
	 * over the link belongs to connections made over it, never to ours
	 * through the route, which the switch resets).
	 */
	if (scif_node_routed(si, node)) {
		ret = -ENOENT;
		goto drop;
	}
	if (le16_to_cpu(msg.len) != len || len > SCIF_WIRE_DATA_MAX ||
	    len > scif_node_max_data(si, node) ||
	    memchr_inv(msg.rsvd, 0, sizeof(msg.rsvd))) {
		ret = -EBADMSG;
		goto drop;
	}
	ret = scif_msg_dispatch(si, node, &msg, data, len);
	trace_scif_msg_rx(node, msg.type, le64_to_cpu(msg.src_ep),
			  le64_to_cpu(msg.dst_ep), len, ret);
	if (ret)
		goto drop;
	scif_node_count_rx(si, node);
	return;
drop:
	scif_node_count_drop(si, node);
	if (ret == -ENOENT) {
		/*
		 * Late, not wrong: for an endpoint that closed, or a window
		 * given up, while the peer was still talking.
		 */
		pr_debug_ratelimited("scif %s: late message (type %u) from node %u\n",
				     si->name, ((const u8 *)buf)[1], node);
		return;
	}
	pr_warn_ratelimited("scif %s: dropped message (type %u, %zu bytes) from node %u: %d\n",
			    si->name, size >= 2 ? ((const u8 *)buf)[1] : 0,
			    size + len, node, ret);
}
EXPORT_SYMBOL_NS_GPL(scif_node_rx_parts, SCIF_TRANSPORT);

/**
 * scif_node_rx() - process one message received from a node
 * @si: the receiving instance
 * @node: the node the link says it came from
 * @buf: the message, followed by its data
 * @size: number of bytes at @buf, as the link received them
 *
 * Called by transports in process context, in the order sent. @buf is only
 * read during the call.
 */
void scif_node_rx(struct scif_instance *si, u16 node, const void *buf,
		  size_t size)
{
	size_t hdr = min(size, sizeof(struct scif_wire_msg));

	scif_node_rx_parts(si, node, buf, hdr, (const u8 *)buf + hdr,
			   size - hdr);
}
EXPORT_SYMBOL_NS_GPL(scif_node_rx, SCIF_TRANSPORT);
