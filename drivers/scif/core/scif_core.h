/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SCIF core instance: all state of one SCIF node lives here.
 */
#ifndef SCIF_CORE_H
#define SCIF_CORE_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/scif.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "scif_link.h"
#include "scif_port.h"

struct dentry;
struct scif_link;
struct scif_link_queue;
struct scif_client;
struct scif_peer_dev;
struct scif_wire_msg;

/* Node ids fit the 8-bit &scif_peer_dev.dnode. */
#define SCIF_MAX_NODE_ID	255

/**
 * struct scif_node_stats - per-node message counters (atomic, lock-free)
 * @tx_msgs: messages handed to the link
 * @tx_errs: messages the link refused
 * @rx_msgs: messages received and acted upon
 * @rx_drops: messages received and rejected
 */
struct scif_node_stats {
	atomic64_t tx_msgs;
	atomic64_t tx_errs;
	atomic64_t rx_msgs;
	atomic64_t rx_drops;
};

/**
 * struct scif_node - a node reachable from an instance (itself included)
 * @id: the node id
 * @link: the transport reaching it; used under &scif_instance.nodes_rwsem
 * @max_data: copy of the link's chunk size, readable under RCU
 * @ep_ring: receive ring size of endpoints connected to the node (the
 *	     link's choice or the default), readable under RCU
 * @spdev: its device on the instance's bus
 * @stats: message counters
 * @rcu: frees the node after an RCU grace period
 *
 * Nodes are inserted and erased under &scif_instance.nodes_rwsem held for
 * writing. Users of @link hold it for reading; users of @id, @max_data, @ep_ring
 * and @stats may instead hold the RCU read lock.
 */
struct scif_node {
	u16 id;
	struct scif_link *link;
	size_t max_data;
	u32 ep_ring;
	struct scif_peer_dev *spdev;
	struct scif_node_stats stats;
	struct rcu_head rcu;
};

/**
 * struct scif_instance - one SCIF node
 * @name: name of the instance; names its bus, devices and debugfs directory
 * @self: the id of this node
 * @ports: the node's port space (internally locked)
 * @eps: every open endpoint, by slot index. The xarray lock protects
 *	 membership and @ep_gen; a lookup takes a reference on the endpoint
 *	 before dropping the lock.
 * @ep_gen: generation stamped into the next endpoint's id
 * @listeners: listening endpoints, by port (xarray lock, as @eps)
 * @parked: accepted endpoints waiting for scif_epd_claim(), by slot index
 * @nodes_rwsem: held for reading to use @nodes and a node's link (also
 *	 while sending), for writing to add or remove a node
 * @nodes: the node table, by node id
 * @bus: this instance's SCIF bus: one &struct scif_peer_dev per online node.
 *	 Typed as &device.bus is, which is const only on kernels whose driver
 *	 core never writes to a bus_type.
 * @bus_name: name of @bus
 * @loopback: the loopback transport to @self
 * @debugfs: debugfs directory, or NULL/ERR_PTR if none
 *
 * The module creates one instance, the default node behind the exported API
 * and /dev/scif. KUnit suites create further, private instances so that
 * several nodes can run inside one kernel. Nothing in the core keeps mutable
 * state outside an instance.
 */
struct scif_instance {
	char *name;
	u16 self;
	struct scif_port_space ports;
	struct xarray eps;
	u32 ep_gen;
	struct xarray listeners;
	struct xarray parked;
	struct rw_semaphore nodes_rwsem;
	struct xarray nodes;
	char *bus_name;
	struct scif_link_queue *loopback;
	struct dentry *debugfs;

	/* See @bus above. */
	typeof_member(struct device, bus) bus;
};

struct scif_instance *scif_instance_create(const char *name, u16 self);
void scif_instance_destroy(struct scif_instance *si);

/* scif_node.c */
bool scif_node_online(struct scif_instance *si, u16 node);
size_t scif_node_max_data(struct scif_instance *si, u16 node);
u32 scif_node_ep_ring(struct scif_instance *si, u16 node);
int scif_node_send(struct scif_instance *si, u16 node,
		   const struct scif_wire_msg *msg, const void *data,
		   size_t len);
void scif_node_count_drop(struct scif_instance *si, u16 node);
void scif_node_count_rx(struct scif_instance *si, u16 node);
void scif_node_remove_all(struct scif_instance *si);
int scif_instance_node_ids(struct scif_instance *si, u16 *nodes, int len,
			   u16 *self);
void scif_node_stats(struct scif_instance *si, u16 node,
		     struct scif_node_stats *out);

/* scif_bus.c */
int scif_bus_init(struct scif_instance *si);
void scif_bus_exit(struct scif_instance *si);
int scif_peer_dev_add(struct scif_instance *si, struct scif_node *node);
void scif_peer_dev_remove(struct scif_node *node);
int scif_instance_client_register(struct scif_instance *si,
				  struct scif_client *client);

/* scif_link_loopback.c */
int scif_loopback_create(struct scif_instance *si);
void scif_loopback_destroy(struct scif_instance *si);

/* scif_debugfs.c */
void scif_debugfs_init(struct scif_instance *si);
void scif_debugfs_exit(struct scif_instance *si);

#endif /* SCIF_CORE_H */
