/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The face of the SCIF core towards the layers above it: RMA (rma/),
 * /dev/scif (dev/) and the module entry (scif_main.c) include this header
 * and no other of core/ (transports include scif_link.h, which this one
 * includes too, and scif_wire.h for the messages).
 *
 * The core's structures (&struct scif_instance, &struct scif_node,
 * &struct scif_endpt, &struct scif_shm, ...) are defined in headers private
 * to core/; here they are only declared. Other layers hold pointers to them
 * and reach what they may know through functions: the accessors of
 * core/scif_ep_view.c (an endpoint's instance, id, wait queue, RMA state,
 * and a consistent snapshot of its connection, &struct scif_ep_view), the
 * node and instance functions below, and the stream mapping interface
 * (&struct scif_shm_view, a structure the caller owns). scripts/checks/
 * layer-check fails on an include of a private header, and on a use of a
 * member of a core structure, outside core/.
 */
#ifndef SCIF_CORE_H
#define SCIF_CORE_H

#include <linux/atomic.h>
#include <linux/scif.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "scif_endpt_api.h"
#include "scif_link.h"
#include "scif_wire.h"

struct address_space;
struct dentry;
struct iov_iter;
struct seq_file;
struct scif_client;
struct scif_endpt;
struct scif_instance;
struct scif_link;
struct scif_link_queue;
struct scif_node;
struct scif_peer_dev;
struct scif_rma_ep;
struct scif_shm;
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
 * enum scif_ep_state - life cycle of an endpoint
 * @SCIF_EP_UNBOUND: just opened
 * @SCIF_EP_BOUND: has a port; also where a failed connect returns to
 * @SCIF_EP_LISTENING: takes connection requests
 * @SCIF_EP_CONNECTING: a connection request is in flight
 * @SCIF_EP_CONNECTED: connected to a peer endpoint
 * @SCIF_EP_DISCONNECTED: the peer closed or its node was lost; queued data
 *			  can still be received
 * @SCIF_EP_CLOSED: scif_close() ran; only references keep it alive
 */
enum scif_ep_state {
	SCIF_EP_UNBOUND,
	SCIF_EP_BOUND,
	SCIF_EP_LISTENING,
	SCIF_EP_CONNECTING,
	SCIF_EP_CONNECTED,
	SCIF_EP_DISCONNECTED,
	SCIF_EP_CLOSED,
};

/**
 * struct scif_ep_view - a consistent snapshot of an endpoint's connection
 * @id: the endpoint's id
 * @state: see &enum scif_ep_state
 * @port: its local port
 * @port_owned: it reserved @port (accepted endpoints share their
 *		listener's port without owning it)
 * @peer: node and port of the peer (or of the listener being connected to)
 * @peer_ep: id of the peer endpoint on @peer.node
 * @reset_err: error reported once the queued data of a disconnected
 *	       endpoint is drained (-ECONNRESET, or -ENODEV after node loss)
 * @reset_local: this side reset the connection while the peer's node stayed
 *		 online
 * @rx_queued: bytes received and not yet consumed
 * @tx_queued: bytes sent and not yet reported consumed by the peer
 *
 * Filled by scif_ep_view() under the endpoint's lock, so that the fields
 * agree with each other; they may change as soon as it returns.
 */
struct scif_ep_view {
	u64 id;
	enum scif_ep_state state;
	u16 port;
	bool port_owned;
	struct scif_port_id peer;
	u64 peer_ep;
	int reset_err;
	bool reset_local;
	u32 rx_queued;
	u32 tx_queued;
};

/**
 * struct scif_shm_view - one file through which a process maps a stream
 * @link: entry in &scif_shm.views
 * @mapping: the file's pages, all zapped when we must stop writing the
 *	     peer's memory; set by the caller of scif_shm_view_add()
 * @shm: the stream, with a reference, set by scif_shm_view_add()
 * @rx_size: bytes of our receive ring, likewise
 * @tx_size: bytes of the peer's, likewise
 * @tx_remote: the peer's ring lies across the link, likewise
 */
struct scif_shm_view {
	struct list_head link;
	struct address_space *mapping;
	struct scif_shm *shm;
	u32 rx_size;
	u32 tx_size;
	bool tx_remote;
};

/**
 * enum scif_shm_part - the pieces of a stream a process can map
 * @SCIF_SHM_USER: the page of &struct scif_stream_shared
 * @SCIF_SHM_PEER_CTL: the page of the peer's control block
 * @SCIF_SHM_PEER_RING: the peer's receive ring
 * @SCIF_SHM_CTL: the page of our control block
 * @SCIF_SHM_RING: our receive ring
 */
enum scif_shm_part {
	SCIF_SHM_USER,
	SCIF_SHM_PEER_CTL,
	SCIF_SHM_PEER_RING,
	SCIF_SHM_CTL,
	SCIF_SHM_RING,
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
/* core/scif_route_msg.c */
void scif_instance_routes_show(struct scif_instance *si, struct seq_file *m);

/* core/scif_ep_view.c: what other layers may know of an endpoint */
struct scif_instance *scif_ep_instance(struct scif_endpt *ep);
u64 scif_ep_id(struct scif_endpt *ep);
u16 scif_ep_peer_node(struct scif_endpt *ep);
bool scif_ep_reset_local(struct scif_endpt *ep);
wait_queue_head_t *scif_ep_wq(struct scif_endpt *ep);
struct scif_rma_ep *scif_ep_rma(struct scif_endpt *ep);
void scif_ep_set_rma(struct scif_endpt *ep, struct scif_rma_ep *rma);
void scif_ep_get(struct scif_endpt *ep);
void scif_ep_view(struct scif_endpt *ep, struct scif_ep_view *v);
bool scif_ep_connected(struct scif_endpt *ep);
void scif_ep_msg_init(struct scif_endpt *ep, struct scif_wire_msg *msg,
		      u8 type, u32 arg);
void scif_ep_show(struct seq_file *m, struct scif_endpt *ep);
const char *scif_ep_instance_name(struct scif_endpt *ep);
const char *scif_instance_name(struct scif_instance *si);
const char *scif_instance_bus_name(struct scif_instance *si);
struct dentry *scif_instance_debugfs(struct scif_instance *si);
void scif_instance_set_debugfs(struct scif_instance *si, struct dentry *d);
int scif_node_peer_mem_lock(struct scif_instance *si, u16 node,
			    struct scif_peer_mem *pm);
void scif_node_peer_mem_unlock(struct scif_instance *si);

/* core/scif_endpt.c */
int scif_ep_check(scif_epd_t epd);
struct scif_endpt *scif_ep_lookup(struct scif_instance *si, u64 id);
void scif_ep_put(struct scif_endpt *ep);
struct scif_endpt *scif_ep_next(struct scif_instance *si, unsigned long *idx);
const char *scif_ep_state_name(enum scif_ep_state state);

/* core/scif_stream.c, core/scif_send.c and core/scif_recv.c */
void scif_ep_reset(struct scif_endpt *ep, int err);
int scif_send_iter(scif_epd_t epd, struct iov_iter *from, int flags);
int scif_recv_iter(scif_epd_t epd, struct iov_iter *to, int flags);

/* core/scif_msg.c */
void scif_msg_init(struct scif_wire_msg *msg, u8 type, u64 src_ep,
		   u64 dst_ep, u16 src_port, u16 dst_port, u32 arg);

/* core/scif_shm_view.c: mapping a stream into a process */
int scif_shm_view_add(struct scif_endpt *ep, struct scif_shm_view *v);
void scif_shm_view_del(struct scif_shm_view *v);
void scif_shm_view_lock(struct scif_shm_view *v);
void scif_shm_view_unlock(struct scif_shm_view *v);
unsigned long scif_shm_view_pfn(struct scif_shm_view *v,
				enum scif_shm_part part, unsigned long idx,
				bool *wc);
int scif_stream_user_wake(struct scif_endpt *ep);

/* core/scif_bus.c */
int scif_bus_init(struct scif_instance *si);
void scif_bus_exit(struct scif_instance *si);
int scif_peer_dev_add(struct scif_instance *si, struct scif_node *node);
void scif_peer_dev_remove(struct scif_node *node);
int scif_instance_client_register(struct scif_instance *si,
				  struct scif_client *client);

#endif /* SCIF_CORE_H */
