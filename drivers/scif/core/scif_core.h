/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SCIF core, as the layers above it see it: instances (all state of one
 * SCIF node lives in one), nodes, endpoints, and the table of handlers
 * through which the core tells those layers about its events.
 *
 * RMA (rma/) and /dev/scif (dev/) include this header and nothing else of
 * core/; transports include scif_link.h.
 */
#ifndef SCIF_CORE_H
#define SCIF_CORE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/rwsem.h>
#include <linux/scif.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "scif_endpt.h"
#include "scif_endpt_api.h"
#include "scif_link.h"
#include "scif_port.h"
#include "scif_wire.h"

struct dentry;
struct scif_link;
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
};

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
 * @bus: this instance's SCIF bus: one &struct scif_peer_dev per online node.
 *	 Typed as &device.bus is, which is const only on kernels whose driver
 *	 core never writes to a bus_type.
 * @bus_name: name of @bus
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
	char *bus_name;
	struct dentry *debugfs;

	/* See @bus above. */
	typeof_member(struct device, bus) bus;
};

/**
 * struct scif_layer - handlers of a layer above the core
 * @name: for messages
 * @instance_add: an instance was created; undone by @instance_remove
 * @instance_remove: an instance is being destroyed, endpoints still open
 * @ep_init: an endpoint is being created; set up the layer's part of it
 * @ep_close: its owner called scif_close(); runs first, while the peer
 *	      can still be reached and can still find the endpoint
 * @ep_release: the last reference is gone; free the layer's part (also
 *		when @ep_init failed or never ran for this layer)
 * @node_lost: a node was removed; its endpoints are reset already, and
 *	       the link still reaches its memory until the handler returns
 * @rx: a message of a type from %SCIF_MSG_REG_OPEN on arrived; at most
 *	one layer handles them. Returns 0, or a negative errno to have the
 *	message counted as dropped.
 *
 * Every handler may be NULL. Handlers run in process context and may
 * sleep; the order is registration order for set-up events and the
 * reverse for tear-down (see core/scif_layer.c).
 */
struct scif_layer {
	const char *name;
	int (*instance_add)(struct scif_instance *si);
	void (*instance_remove)(struct scif_instance *si);
	int (*ep_init)(struct scif_endpt *ep);
	void (*ep_close)(struct scif_endpt *ep);
	void (*ep_release)(struct scif_endpt *ep);
	void (*node_lost)(struct scif_instance *si, u16 node);
	int (*rx)(struct scif_instance *si, u16 node,
		  const struct scif_wire_msg *msg, const void *data,
		  size_t len);
};

/* core/scif_layer.c */
int scif_layer_register(const struct scif_layer *layer);
void scif_layer_unregister(const struct scif_layer *layer);
int scif_layers_instance_add(struct scif_instance *si);
void scif_layers_instance_remove(struct scif_instance *si);
int scif_layers_ep_init(struct scif_endpt *ep);
void scif_layers_ep_close(struct scif_endpt *ep);
void scif_layers_ep_release(struct scif_endpt *ep);
void scif_layers_node_lost(struct scif_instance *si, u16 node);
int scif_layers_rx(struct scif_instance *si, u16 node,
		   const struct scif_wire_msg *msg, const void *data,
		   size_t len);

/* core/scif_connect.c */
extern const struct rhashtable_params scif_conreq_params;

/* core/scif_instance.c */
struct scif_instance *scif_instance_create(const char *name, u16 self);
void scif_instance_destroy(struct scif_instance *si);
void scif_set_default_instance(struct scif_instance *si);

/* core/scif_node.c */
bool scif_node_online(struct scif_instance *si, u16 node);
size_t scif_node_max_data(struct scif_instance *si, u16 node);
u32 scif_node_ep_ring(struct scif_instance *si, u16 node);
int scif_node_send(struct scif_instance *si, u16 node,
		   const struct scif_wire_msg *msg, const void *data,
		   size_t len);
long scif_node_wait(struct scif_instance *si, u16 node, wait_queue_head_t *wq,
		    bool (*ready)(const void *arg),
		    void (*arm)(const void *arg), const void *arg,
		    unsigned int state, long timeout);
long scif_ep_wait_peer(struct scif_endpt *ep, bool (*ready)(const void *arg),
		       const void *arg, unsigned int state, long timeout);
long scif_ep_wait_peer_armed(struct scif_endpt *ep,
			     bool (*ready)(const void *arg),
			     void (*arm)(const void *arg), const void *arg,
			     unsigned int state);
void scif_node_count_drop(struct scif_instance *si, u16 node);
void scif_node_count_rx(struct scif_instance *si, u16 node);
void scif_node_remove_all(struct scif_instance *si);
int scif_instance_node_ids(struct scif_instance *si, u16 *nodes, int len,
			   u16 *self);
void scif_node_stats(struct scif_instance *si, u16 node,
		     struct scif_node_stats *out);

/* core/scif_bus.c */
int scif_bus_init(struct scif_instance *si);
void scif_bus_exit(struct scif_instance *si);
int scif_peer_dev_add(struct scif_instance *si, struct scif_node *node);
void scif_peer_dev_remove(struct scif_node *node);
int scif_instance_client_register(struct scif_instance *si,
				  struct scif_client *client);

#endif /* SCIF_CORE_H */
