/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to core/: the structures of an instance and of its nodes. Other
 * layers hold pointers to them (declared in scif_core.h) and reach them
 * only through the core's functions.
 */
#ifndef SCIF_INSTANCE_H
#define SCIF_INSTANCE_H

#include <linux/completion.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "scif_core.h"
#include "scif_link.h"
#include "scif_port.h"

/**
 * struct scif_node - a node reachable from an instance (itself included)
 * @id: the node id
 * @link: the transport reaching it; used under &scif_instance.nodes_rwsem,
 *	  or, to send, with a reference in @senders
 * @max_data: copy of the link's chunk size, readable under RCU
 * @ep_ring: receive ring size of endpoints connected to the node (the
 *	     link's choice or the default), readable under RCU
 * @spdev: its device on the instance's bus
 * @stats: message counters
 * @senders: one reference for the node table, plus one per scif_node_send()
 *	     inside @link and one per task in scif_node_wait(); taken under
 *	     RCU, never from zero
 * @gone: set by scif_node_remove() before it waits for @senders, so that
 *	  tasks in scif_node_wait() let go of the node
 * @idle: completed when @senders drops to zero, after the node left the table
 * @shm_q_lock: protects @shm_q and @shm_q_len
 * @shm_q: memory of closed endpoints that the node may still write
 *	   (&struct scif_shm), freed when it says it stopped or when the node
 *	   is removed
 * @shm_q_len: entries in @shm_q; at %SCIF_SHM_QUARANTINE_MAX new
 *	       connections to the node go by messages
 * @rcu: frees the node after an RCU grace period
 * @si: the instance (for the sends of a routed node)
 * @routed: the node is no neighbour but reached through a route: @link is
 *	    @route_link, added and removed by the route work
 *	    (core/scif_forward.c), never by a transport. Constant.
 * @route_link: a routed node's link: its sends go to the route's next hop
 *		as they are; it offers no memory (no shared-memory streams,
 *		staged RMA only) and cannot be polled
 * @route_path: a routed node's path, the one its connections were made
 *		over (scif_route_path()); written under @nodes_rwsem held for
 *		writing when the path changes (scif_routed_sync_one()), read
 *		with READ_ONCE()
 *
 * Nodes are inserted and erased under &scif_instance.nodes_rwsem held for
 * writing. Users of @link hold it for reading, except senders: a send may
 * wait seconds for room in a full link, and must not hold up, with the
 * semaphore, the nodes of every other link. They hold @senders instead,
 * which scif_node_remove() waits for (the transport has marked the link
 * dead first, so that they return). Users of @id, @max_data, @ep_ring and
 * @stats may hold the RCU read lock.
 */
struct scif_node {
	u16 id;
	struct scif_link *link;
	size_t max_data;
	u32 ep_ring;
	struct scif_peer_dev *spdev;
	struct scif_node_stats stats;
	refcount_t senders;
	bool gone;
	struct completion idle;
	spinlock_t shm_q_lock;		/* shm_q, shm_q_len */
	struct list_head shm_q;
	unsigned int shm_q_len;
	struct rcu_head rcu;
	struct scif_instance *si;
	bool routed;
	struct scif_link route_link;
	u32 route_path;
};

struct scif_routing;

/**
 * struct scif_instance - one SCIF node
 * @name: name of the instance; names its bus, devices and debugfs directory
 * @self: the id of this node; written under @transports_lock and
 *	  @nodes_rwsem held for writing (core/scif_transport.c), read with
 *	  READ_ONCE() (scif_instance_self()) or under either lock
 * @transports_lock: serialises the registered transports and the node id:
 *	 protects @transports, each one's &scif_transport.claims, and the
 *	 writes of @self. Taken before @nodes_rwsem.
 * @transports: the registered &struct scif_transport, in registration order
 * @ports: the node's port space (internally locked)
 * @eps: every open endpoint, by slot index. The xarray lock protects
 *	 membership and @ep_gen; a lookup takes a reference on the endpoint
 *	 before dropping the lock.
 * @ep_gen: generation stamped into the next endpoint's id
 * @listeners: listening endpoints, by port (xarray lock, as @eps)
 * @parked: accepted endpoints waiting for scif_epd_claim(), by slot index
 * @conreqs: connection requests queued on the listeners, by requester
 *	     (&struct scif_conreq_key); internally locked
 * @nodes_rwsem: held for reading to use @nodes and a node's link (senders
 *	 use &scif_node.senders instead), for writing to add or remove a node
 * @nodes: the node table, by node id
 * @nodes_leaving: ids of nodes out of @nodes whose teardown has not ended
 *	 (their device may still be on the bus): no node takes such an id
 *	 until it has (scif_node_insert()). Under @nodes_rwsem held for
 *	 writing; waited on with wait_var_event().
 * @nodes_retry: ids of @nodes_leaving for which a routed node was refused;
 *	 the route work adds it once the id is free. Under @nodes_rwsem held
 *	 for writing.
 * @bus: this instance's SCIF bus: one &struct scif_peer_dev per online node.
 *	 Typed as &device.bus is, which is const only on kernels whose driver
 *	 core never writes to a bus_type.
 * @bus_name: name of @bus
 * @debugfs: debugfs directory, or NULL/ERR_PTR if none
 * @routing: the routes to nodes beyond the neighbours, and their announcer
 *	     (core/scif_route_msg.c; internally locked)
 *
 * The module creates one instance, the default node behind the exported API
 * and /dev/scif. KUnit suites create further, private instances so that
 * several nodes can run inside one kernel. Nothing in the core keeps mutable
 * state outside an instance.
 */
struct scif_instance {
	char *name;
	u16 self;
	struct mutex transports_lock;	/* @transports, @self: see above */
	struct list_head transports;
	struct scif_port_space ports;
	struct xarray eps;
	u32 ep_gen;
	struct xarray listeners;
	struct xarray parked;
	struct rhashtable conreqs;
	struct rw_semaphore nodes_rwsem;
	struct xarray nodes;
	DECLARE_BITMAP(nodes_leaving, SCIF_MAX_NODE_ID + 1);
	DECLARE_BITMAP(nodes_retry, SCIF_MAX_NODE_ID + 1);
	char *bus_name;
	struct dentry *debugfs;
	struct scif_routing *routing;

	/* See @bus above. */
	typeof_member(struct device, bus) bus;
};

/* core/scif_node_table.c */
struct scif_node *scif_node_hold(struct scif_instance *si, u16 node);
void scif_node_release(struct scif_node *n);
int scif_node_routed(struct scif_instance *si, u16 node);

/* core/scif_node.c */
int scif_node_insert(struct scif_instance *si, struct scif_node *n);
void scif_routed_add(struct scif_instance *si, u16 node);
void scif_node_remove_kind(struct scif_instance *si, u16 node, bool routed);
void scif_routed_sync(struct scif_instance *si);
void scif_routed_flush(struct scif_instance *si);

/* core/scif_forward.c */
int scif_node_link_send(struct scif_instance *si, u16 via,
			const struct scif_wire_msg *msg, const void *data,
			size_t len);
void scif_routed_init(struct scif_node *n, const struct scif_node *via,
		      u32 path);
int scif_msg_forward(struct scif_instance *si, u16 node,
		     const struct scif_wire_msg *msg, const void *data,
		     size_t len);

/* core/scif_connect.c */
extern const struct rhashtable_params scif_conreq_params;

#endif /* SCIF_INSTANCE_H */
