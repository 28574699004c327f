// SPDX-License-Identifier: GPL-2.0
/*
 * The loopback transport: an instance's link to its own node, so that a
 * node can connect to itself and always appears in its own node list.
 */
#include <linux/sizes.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "../core/scif_wire.h"
#include "scif_loopback.h"
#include "scif_queue.h"

/*
 * Chunk size of the loopback link: a queued packet (message, data and the
 * queue's own header) then fits a 16 KiB allocation.
 */
#define SCIF_LOOPBACK_CHUNK	(SZ_16K - SCIF_WIRE_MSG_SIZE - 64)

/* &scif_layer.self_up: bring up an instance's own node. */
static int scif_loopback_create(struct scif_instance *si)
{
	struct scif_link_queue *lq;
	int ret;

	lq = kzalloc(sizeof(*lq), GFP_KERNEL);
	if (!lq)
		return -ENOMEM;
	scif_link_queue_init(lq, si, scif_instance_self(si),
			     SCIF_LOOPBACK_CHUNK);
	lq->inline_rx = true;
	ret = scif_node_add(si, scif_instance_self(si), &lq->link);
	if (ret) {
		kfree(lq);
		return ret;
	}
	scif_instance_set_loopback(si, lq);
	return 0;
}

/* &scif_layer.self_down: take an instance's own node down. */
static void scif_loopback_destroy(struct scif_instance *si)
{
	struct scif_link_queue *lq = scif_instance_loopback(si);

	if (!lq)
		return;
	scif_node_remove(si, scif_instance_self(si));
	scif_link_queue_stop(lq);
	kfree(lq);
	scif_instance_set_loopback(si, NULL);
}

/* The loopback transport follows the node id of every instance. */
const struct scif_layer scif_loopback_layer = {
	.name = "loopback",
	.self_up = scif_loopback_create,
	.self_down = scif_loopback_destroy,
};
