// SPDX-License-Identifier: GPL-2.0
/*
 * The loopback transport: an instance's link to its own node, so that a
 * node can connect to itself and always appears in its own node list.
 *
 * It registers with each instance like any transport (its creator calls
 * scif_loopback_attach()); it is the one that links the node to itself,
 * so the core tells it, through &scif_transport_ops, whenever the node's
 * id becomes valid or is about to change.
 */
#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "../core/scif_link.h"
#include "../core/scif_wire.h"
#include "scif_loopback.h"
#include "scif_queue.h"

/*
 * Chunk size of the loopback link: a queued packet (message, data and the
 * queue's own header) then fits a 16 KiB allocation.
 */
#define SCIF_LOOPBACK_CHUNK	(SZ_16K - SCIF_WIRE_MSG_SIZE - 64)

#define SCIF_LOOPBACK_NAME	"loopback"

/**
 * struct scif_loopback - the loopback transport of one instance
 * @transport: as registered with the instance
 * @lq: the link to the node's current id, or NULL while the id is not
 *	valid; changed only by the core's calls of &scif_transport_ops, under
 *	&scif_instance.transports_lock
 */
struct scif_loopback {
	struct scif_transport transport;
	struct scif_link_queue *lq;
};

/* &scif_transport_ops.self_up: bring up the node's own id. */
static int scif_loopback_up(struct scif_transport *t)
{
	struct scif_loopback *lb = container_of(t, struct scif_loopback,
						transport);
	u16 self = scif_instance_self(t->si);
	struct scif_link_queue *lq;
	int ret;

	lq = kzalloc(sizeof(*lq), GFP_KERNEL);
	if (!lq)
		return -ENOMEM;
	scif_link_queue_init(lq, t->si, self, SCIF_LOOPBACK_CHUNK);
	lq->inline_rx = true;
	lq->link.transport = t;
	ret = scif_node_add(t->si, self, &lq->link);
	if (ret) {
		kfree(lq);
		return ret;
	}
	lb->lq = lq;
	return 0;
}

/* &scif_transport_ops.self_down: take the node's own id down. */
static void scif_loopback_down(struct scif_transport *t)
{
	struct scif_loopback *lb = container_of(t, struct scif_loopback,
						transport);

	if (!lb->lq)
		return;
	scif_node_remove(t->si, lb->lq->from);
	scif_link_queue_stop(lb->lq);
	kfree(lb->lq);
	lb->lq = NULL;
}

static const struct scif_transport_ops scif_loopback_ops = {
	.self_up = scif_loopback_up,
	.self_down = scif_loopback_down,
};

/**
 * scif_loopback_attach() - give an instance its link to itself
 * @si: the instance, without one yet
 *
 * Return: 0, or -ENOMEM, or an error of scif_transport_register().
 */
int scif_loopback_attach(struct scif_instance *si)
{
	struct scif_loopback *lb;
	int ret;

	lb = kzalloc(sizeof(*lb), GFP_KERNEL);
	if (!lb)
		return -ENOMEM;
	lb->transport.name = SCIF_LOOPBACK_NAME;
	lb->transport.owner = THIS_MODULE;
	lb->transport.ops = &scif_loopback_ops;
	ret = scif_transport_register(si, &lb->transport);
	if (ret)
		kfree(lb);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_loopback_attach);

/**
 * scif_loopback_detach() - take an instance's link to itself away
 * @si: the instance; without a loopback transport, nothing happens
 *
 * The node's connections to itself are reset.
 */
void scif_loopback_detach(struct scif_instance *si)
{
	struct scif_transport *t = scif_transport_find(si, SCIF_LOOPBACK_NAME);

	if (!t)
		return;
	scif_transport_unregister(t);
	kfree(container_of(t, struct scif_loopback, transport));
}
EXPORT_SYMBOL_IF_KUNIT(scif_loopback_detach);
