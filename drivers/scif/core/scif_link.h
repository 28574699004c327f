/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF links: the transports that carry wire messages between nodes.
 *
 * The core knows a node only through its link. A transport (loopback, NTB,
 * the KUnit simulated pair) registers a &struct scif_transport with the
 * instance it serves (scif_transport_register()) and claims the instance's
 * node id there (scif_transport_claim_self()); then, per peer, it fills in
 * a &struct scif_link naming itself in &scif_link.transport and calls
 * scif_node_add() when the peer becomes reachable, scif_node_rx() for every
 * message that arrives and scif_node_remove() when the peer is lost. The
 * core refuses a node id that is online already, or that is the
 * instance's own, with a line naming both transports.
 *
 * Transports built as modules of their own (scif_ntb.ko) reach these calls
 * through the SCIF_TRANSPORT symbol namespace of scif.ko.
 */
#ifndef SCIF_LINK_H
#define SCIF_LINK_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/wait.h>

struct device;
struct module;
struct rw_semaphore;
struct scif_instance;
struct scif_link;
struct scif_transport;
struct scif_wire_msg;

/**
 * struct scif_transport_ops - what the core asks of a transport as a whole
 * @self_up: optional, and only for the one transport of an instance that
 *	     links the node to itself (loopback): the instance's node id is
 *	     valid, at registration and after every change of the id; add
 *	     the node's own id with scif_node_add(). Returns 0 or an error.
 * @self_down: with @self_up: the id is about to change, or the transport
 *	       to unregister; remove the node's own id.
 *
 * Both are called with &scif_instance.transports_lock held, so they must
 * not call scif_transport_register(), scif_transport_unregister() or
 * scif_transport_claim_self().
 */
struct scif_transport_ops {
	int (*self_up)(struct scif_transport *t);
	void (*self_down)(struct scif_transport *t);
};

/**
 * struct scif_transport - a transport, as registered with one instance
 * @name: unique within the instance (the NTB transport uses its device's
 *	  name); names the transport in the core's messages
 * @owner: the module of the transport's code, named in messages; the core
 *	   does not pin it: a transport unregisters before its module goes
 * @ops: may be NULL for a transport with no operation of its own
 * @si: set by scif_transport_register(): the instance served
 * @entry: in &scif_instance.transports (core-owned)
 * @claims: the transport holds a claim on the node id, from
 *	    scif_transport_claim_self() to scif_transport_unregister()
 *	    (core-owned)
 *
 * Filled in by the transport (@name, @owner, @ops) and registered with
 * scif_transport_register(); it must stay valid until
 * scif_transport_unregister() returned. The core-owned members are
 * written under &scif_instance.transports_lock.
 */
struct scif_transport {
	const char *name;
	struct module *owner;
	const struct scif_transport_ops *ops;
	struct scif_instance *si;
	struct list_head entry;
	bool claims;
};

/**
 * struct scif_link_ops - what a transport does for the core
 * @send: queue @msg, followed by @len bytes at @data (@len may be 0 and is
 *	  never above &scif_link.max_data), for delivery to the peer. Messages
 *	  sent over one link must arrive in the order they were sent. Called in
 *	  process context without spinlocks held; it may sleep, but only for a
 *	  bounded time (a full ring is waited for with a timeout, never spun
 *	  on). Never fails for want of memory: the protocol cannot resend
 *	  a message, so a transport that must allocate waits for it.
 *	  Returns 0, or -ENODEV if the peer is gone (a transport that
 *	  gives up waiting for room declares the peer lost and returns
 *	  this), or -EAGAIN if the message could not be queued in time.
 *	  The core resets the endpoint a failed message was for.
 * @poll: optional. Hand to the core, in the calling task, what has arrived
 *	  from the peer so far, as the transport's own receive path would;
 *	  return at once if another task is doing so already (that task
 *	  then takes in what arrived meanwhile too). Called in process
 *	  context by a task that waits for the peer, without spinlocks and
 *	  without core locks other than one endpoint's send or receive mutex;
 *	  never after scif_node_remove() returned. A transport with @poll
 *	  wakes &scif_link.rx_wait when messages arrive and a task waits
 *	  there, and may leave the delivery to that task: the reply a task
 *	  waits for then reaches it without a hop through a worker thread.
 *	  Returns the amount handed over (0: nothing), or a negative error.
 * @busy_poll: optional, with @poll. How long, in microseconds, a task
 *	       about to wait for the peer keeps calling @poll before it
 *	       sleeps (0: it sleeps at once). Spinning saves the wake-up
 *	       when the answer comes soon, at the price of a CPU.
 */
struct scif_link_ops {
	int (*send)(struct scif_link *link, const struct scif_wire_msg *msg,
		    const void *data, size_t len);
	int (*poll)(struct scif_link *link);
	unsigned int (*busy_poll)(struct scif_link *link);
};

/**
 * struct scif_link - one transport's connection to one peer node
 * @ops: the transport's operations
 * @transport: the registered transport the link belongs to; NULL only for
 *	       the bare links of KUnit cases, which never reach the node's
 *	       own id
 * @max_data: largest data payload of one message (at most
 *	      %SCIF_WIRE_DATA_MAX); bulk data is cut into chunks of this size
 * @ep_ring: receive ring of every endpoint connected over this link, in
 *	     bytes: a power of 2 from %SCIF_WIRE_RING_MIN to
 *	     %SCIF_WIRE_RING_MAX, or 0 for %SCIF_RX_RING_SIZE. A sender keeps
 *	     at most this much in flight per connection, so a link with a long
 *	     round trip wants a large one.
 * @priv: the transport's own state
 * @rma_local: RMA addressing of loopback and the KUnit simulated pair: the
 *	       peer is this very kernel, so the addresses it advertises for its
 *	       registered pages are local physical addresses (reached through
 *	       the direct map) and ours are sent to it the same way. The fields
 *	       below are then unused.
 * @peer_mem: CPU mapping of the window onto the peer's memory, made with
 *	      memremap() (the window is memory without side effects, so RMA
 *	      copies through it are plain memcpy()): the peer page it
 *	      advertises at address A is at @peer_mem + A. NULL (and
 *	      @rma_local false) means the link offers no RMA.
 * @peer_mem_dma: bus address of that same window for local DMA engines
 * @peer_mem_phys: CPU physical address of that same window (what
 *		   scif_get_pages() reports and mmap() of /dev/scif maps)
 * @peer_mem_size: size of the window; the peer's addresses must lie below
 * @dma_dev: the device through which the peer reaches our memory; our pages
 *	     are DMA-mapped against it and the peer is sent those addresses
 * @rx_wait: with &scif_link_ops.poll: tasks of the core waiting for the
 *	     peer, which take in its messages themselves when woken here.
 *	     Initialised by the transport; woken from any context.
 *
 * The RMA fields are filled in by the transport before scif_node_add() and
 * stay constant while the node is online (see Documentation/scif-rma.rst).
 */
struct scif_link {
	const struct scif_link_ops *ops;
	struct scif_transport *transport;
	size_t max_data;
	u32 ep_ring;
	void *priv;
	bool rma_local;
	void *peer_mem;
	dma_addr_t peer_mem_dma;
	phys_addr_t peer_mem_phys;
	resource_size_t peer_mem_size;
	struct device *dma_dev;
	wait_queue_head_t rx_wait;
};

/**
 * struct scif_peer_mem - snapshot of how a link reaches the peer's memory
 * @local: loopback or the KUnit simulated pair: the peer's addresses are
 *	   local physical addresses
 * @base: otherwise, &scif_link.peer_mem
 * @phys: &scif_link.peer_mem_phys
 * @size: &scif_link.peer_mem_size
 * @dma: &scif_link.peer_mem_dma (0: none)
 * @dma_dev: &scif_link.dma_dev (NULL: none)
 * @held: the lock that keeps @base mapped, held for reading from
 *	  scif_peer_mem_lock() to scif_peer_mem_unlock(); NULL in a copy
 *	  from scif_peer_mem_get()
 *
 * Taken by scif_peer_mem_lock() (valid until scif_peer_mem_unlock()) or
 * scif_peer_mem_get() (a copy; its users must stop when the node is lost).
 */
struct scif_peer_mem {
	struct rw_semaphore *held;
	bool local;
	void *base;
	phys_addr_t phys;
	resource_size_t size;
	dma_addr_t dma;
	struct device *dma_dev;
};

struct scif_instance *scif_default_instance(void);
u16 scif_instance_self(struct scif_instance *si);

/* core/scif_transport.c */
int scif_transport_register(struct scif_instance *si,
			    struct scif_transport *t);
void scif_transport_unregister(struct scif_transport *t);
struct scif_transport *scif_transport_find(struct scif_instance *si,
					   const char *name);
int scif_transport_claim_self(struct scif_transport *t, unsigned int want);

/* core/scif_node.c */
int scif_node_add(struct scif_instance *si, u16 node, struct scif_link *link);
void scif_node_remove(struct scif_instance *si, u16 node);
void scif_node_rx(struct scif_instance *si, u16 node, const void *buf,
		  size_t size);
void scif_node_rx_parts(struct scif_instance *si, u16 node, const void *buf,
			size_t size, const void *data, size_t len);

#endif /* SCIF_LINK_H */
