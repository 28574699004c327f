/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF links: the transports that carry wire messages between nodes.
 *
 * The core knows a node only through its link. A transport (loopback, the
 * KUnit simulated pair, later NTB) fills in a &struct scif_link and calls
 * scif_node_add() when the peer becomes reachable, scif_node_rx() for every
 * message that arrives and scif_node_remove() when the peer is lost.
 */
#ifndef SCIF_LINK_H
#define SCIF_LINK_H

#include <linux/types.h>

struct scif_instance;
struct scif_link;
struct scif_wire_msg;

/**
 * struct scif_link_ops - what a transport does for the core
 * @send: queue @msg, followed by @len bytes at @data (@len may be 0 and is
 *	  never above &scif_link.max_data), for delivery to the peer. Messages
 *	  sent over one link must arrive in the order they were sent. Called in
 *	  process context without spinlocks held; it may sleep, but only for a
 *	  bounded time (a full ring is waited for with a timeout, never spun
 *	  on). Returns 0, or -ENODEV if the peer is gone, -ENOMEM, or -EAGAIN
 *	  if the message could not be queued in time.
 */
struct scif_link_ops {
	int (*send)(struct scif_link *link, const struct scif_wire_msg *msg,
		    const void *data, size_t len);
};

/**
 * struct scif_link - one transport's connection to one peer node
 * @ops: the transport's operations
 * @max_data: largest data payload of one message (at most
 *	      %SCIF_WIRE_DATA_MAX); bulk data is cut into chunks of this size
 * @priv: the transport's own state
 */
struct scif_link {
	const struct scif_link_ops *ops;
	size_t max_data;
	void *priv;
};

int scif_node_add(struct scif_instance *si, u16 node, struct scif_link *link);
void scif_node_remove(struct scif_instance *si, u16 node);
void scif_node_rx(struct scif_instance *si, u16 node, const void *buf,
		  size_t size);
void scif_node_rx_parts(struct scif_instance *si, u16 node, const void *buf,
			size_t size, const void *data, size_t len);

#endif /* SCIF_LINK_H */
