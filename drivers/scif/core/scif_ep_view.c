// SPDX-License-Identifier: GPL-2.0
/*
 * What the layers above the core may know of its structures: the fields of
 * an endpoint, an instance and a node that RMA (rma/) and /dev/scif (dev/)
 * use, read and written here so that &struct scif_endpt, &struct
 * scif_instance and &struct scif_node stay private to core/.
 *
 * Fields that do not change while the caller holds a reference (the
 * instance, the id, the wait queue, the RMA state) come by one accessor
 * each; those that change with the connection come together, under the
 * endpoint's lock, in a &struct scif_ep_view.
 */
#include <linux/kref.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_instance.h"
#include "scif_shm.h"

/**
 * scif_ep_instance() - the instance an endpoint belongs to
 * @ep: the endpoint
 *
 * Return: the instance; it outlives the endpoint.
 */
struct scif_instance *scif_ep_instance(struct scif_endpt *ep)
{
	return ep->si;
}

/**
 * scif_ep_id() - an endpoint's id, as messages name it
 * @ep: the endpoint
 *
 * Return: the id (slot index and generation); constant.
 */
u64 scif_ep_id(struct scif_endpt *ep)
{
	return ep->id;
}

/**
 * scif_ep_peer_node() - the node of an endpoint's peer
 * @ep: the endpoint
 *
 * Read without the endpoint's lock, as a connected endpoint's peer does not
 * change until the endpoint is freed; use scif_ep_view() to see it together
 * with the state.
 *
 * Return: the node id.
 */
u16 scif_ep_peer_node(struct scif_endpt *ep)
{
	return ep->peer.node;
}

/**
 * scif_ep_reset_local() - whether this side reset the connection
 * @ep: the endpoint
 *
 * True once scif_ep_reset() ran here while the peer's node stayed online:
 * the peer was told, but may not have let go of our windows yet. Read
 * without the endpoint's lock; it never turns false again.
 *
 * Return: the flag.
 */
bool scif_ep_reset_local(struct scif_endpt *ep)
{
	return READ_ONCE(ep->reset_local);
}

/**
 * scif_ep_wq() - the wait queue of an endpoint
 * @ep: the endpoint
 *
 * Woken on every change of the endpoint's state, data or credit, on a
 * flush, and by the RMA layer when the peer answers.
 *
 * Return: the queue; valid while a reference on @ep is held.
 */
wait_queue_head_t *scif_ep_wq(struct scif_endpt *ep)
{
	return &ep->wq;
}

/**
 * scif_ep_rma() - the RMA layer's state of an endpoint
 * @ep: the endpoint
 *
 * Return: what the RMA layer set with scif_ep_set_rma(), or NULL; the core
 * never looks inside.
 */
struct scif_rma_ep *scif_ep_rma(struct scif_endpt *ep)
{
	return ep->rma;
}

/**
 * scif_ep_set_rma() - attach the RMA layer's state to an endpoint
 * @ep: the endpoint
 * @rma: the state, or NULL
 *
 * Called by the RMA layer's &scif_layer.ep_init and .ep_release handlers
 * only, before any other user of the endpoint can see it and after the last
 * one let go.
 */
void scif_ep_set_rma(struct scif_endpt *ep, struct scif_rma_ep *rma)
{
	ep->rma = rma;
}

/**
 * scif_ep_get() - take another reference on an endpoint
 * @ep: the endpoint, on which the caller holds a reference already
 *
 * Dropped with scif_ep_put().
 */
void scif_ep_get(struct scif_endpt *ep)
{
	kref_get(&ep->ref);
}

/**
 * scif_ep_view() - a consistent snapshot of an endpoint's connection
 * @ep: the endpoint
 * @v: filled in under the endpoint's lock
 */
void scif_ep_view(struct scif_endpt *ep, struct scif_ep_view *v)
{
	spin_lock(&ep->lock);
	*v = (struct scif_ep_view){
		.id = ep->id,
		.state = ep->state,
		.port = ep->port,
		.port_owned = ep->port_owned,
		.peer = ep->peer,
		.peer_ep = ep->peer_ep,
		.reset_err = ep->reset_err,
		.reset_local = ep->reset_local,
		.rx_queued = ep->rx_seq - ep->rx_read,
		.tx_queued = ep->tx_seq - ep->tx_acked,
	};
	spin_unlock(&ep->lock);
}

/**
 * scif_ep_connected() - whether an endpoint is connected right now
 * @ep: the endpoint
 *
 * Return: true in %SCIF_EP_CONNECTED.
 */
bool scif_ep_connected(struct scif_endpt *ep)
{
	bool up;

	spin_lock(&ep->lock);
	up = ep->state == SCIF_EP_CONNECTED;
	spin_unlock(&ep->lock);
	return up;
}

/**
 * scif_ep_msg_init() - address a message from an endpoint to its peer
 * @ep: a connected endpoint
 * @msg: the message
 * @type: its type
 * @arg: its argument
 */
void scif_ep_msg_init(struct scif_endpt *ep, struct scif_wire_msg *msg,
		      u8 type, u32 arg)
{
	scif_msg_init(msg, type, ep->id, ep->peer_ep, ep->port, ep->peer.port,
		      arg);
}

/**
 * scif_ep_show() - print an endpoint's line of the debugfs endpoint table
 * @m: the debugfs file
 * @ep: the endpoint
 *
 * Id, state, port, peer, bytes queued each way and, for a stream through
 * shared memory, the indices the peer published; all under the endpoint's
 * lock. The caller ends the line.
 */
void scif_ep_show(struct seq_file *m, struct scif_endpt *ep)
{
	spin_lock(&ep->lock);
	seq_printf(m, "%#-18llx %-13s %-5u %3u:%-7u %-5u %u",
		   ep->id, scif_ep_state_name(ep->state), ep->port,
		   ep->peer.node, ep->peer.port,
		   ep->rx_seq - ep->rx_read, ep->tx_seq - ep->tx_acked);
	if (ep->shm && ep->shm->active)
		scif_shm_show(m, ep->shm, ep->rx_read, ep->tx_seq);
	spin_unlock(&ep->lock);
}

/**
 * scif_instance_name() - an instance's name, for messages
 * @si: the instance
 *
 * Return: the name; constant.
 */
const char *scif_instance_name(struct scif_instance *si)
{
	return si->name;
}

/**
 * scif_ep_instance_name() - the name of an endpoint's instance, for messages
 * @ep: the endpoint
 *
 * Return: the name; constant.
 */
const char *scif_ep_instance_name(struct scif_endpt *ep)
{
	return ep->si->name;
}

/**
 * scif_instance_bus_name() - the name of an instance's bus
 * @si: the instance
 *
 * Also names its devices and its debugfs directory.
 *
 * Return: the name; constant while the instance is registered.
 */
const char *scif_instance_bus_name(struct scif_instance *si)
{
	return si->bus_name;
}

/**
 * scif_instance_debugfs() - an instance's debugfs directory
 * @si: the instance
 *
 * Return: what scif_instance_set_debugfs() set, or NULL.
 */
struct dentry *scif_instance_debugfs(struct scif_instance *si)
{
	return si->debugfs;
}

/**
 * scif_instance_set_debugfs() - remember an instance's debugfs directory
 * @si: the instance
 * @d: the directory, or NULL
 *
 * Called by /dev/scif's &scif_layer.instance_add and .instance_remove
 * handlers only, which the core serialises.
 */
void scif_instance_set_debugfs(struct scif_instance *si, struct dentry *d)
{
	si->debugfs = d;
}

/**
 * scif_node_peer_mem_lock() - how the link to a node reaches its memory
 * @si: the instance
 * @node: the node id
 * @pm: filled in from the link: its addressing and its DMA device
 *
 * On success the instance's nodes_rwsem stays held for reading
 * (&scif_peer_mem.held), so that the node, and with it the mapping in @pm,
 * stays until scif_node_peer_mem_unlock(). A link that neither shares our
 * memory nor maps the peer's leaves &scif_peer_mem.local false and
 * &scif_peer_mem.base NULL.
 *
 * Return: 0, or -ENODEV (the node is not online).
 */
int scif_node_peer_mem_lock(struct scif_instance *si, u16 node,
			    struct scif_peer_mem *pm)
{
	struct scif_link *link;
	struct scif_node *n;

	down_read(&si->nodes_rwsem);
	n = xa_load(&si->nodes, node);
	if (!n) {
		up_read(&si->nodes_rwsem);
		return -ENODEV;
	}
	link = n->link;
	*pm = (struct scif_peer_mem){
		.held = &si->nodes_rwsem,
		.local = link->rma_local,
		.base = link->peer_mem,
		.phys = link->peer_mem_phys,
		.size = link->peer_mem_size,
		.dma = link->peer_mem_dma,
		.dma_dev = link->dma_dev,
	};
	return 0;
}

/**
 * scif_node_peer_mem_unlock() - end the use of a scif_node_peer_mem_lock()
 *				 snapshot
 * @si: the instance given to scif_node_peer_mem_lock()
 */
void scif_node_peer_mem_unlock(struct scif_instance *si)
{
	up_read(&si->nodes_rwsem);
}
