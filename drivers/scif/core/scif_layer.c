// SPDX-License-Identifier: GPL-2.0
/*
 * The layers above the core, as the core sees them: tables of handlers.
 *
 * The core never names a function of RMA, /dev/scif or a transport. What
 * it must tell the layers above it (an instance came or went, an endpoint
 * was opened, closed or freed, a node was lost, a message of theirs
 * arrived) it tells every registered &struct scif_layer, the way af_vsock
 * calls its transports through their ops. Transports register with an
 * instance instead (core/scif_transport.c).
 *
 * Layers register at module load before the first instance exists and
 * unregister at unload after the last one is gone, so the table is stable
 * whenever an event can happen and readers take no lock.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mutex.h>

#include "scif_core.h"

/* Layers in registration order: lower layers (RMA) first. */
static const struct scif_layer *scif_layers[4];
static unsigned int scif_nr_layers;
static DEFINE_MUTEX(scif_layers_lock);	/* registration only */

/**
 * scif_layer_register() - have the core tell a layer about its events
 * @layer: the handlers; any may be NULL. At most one registered layer may
 *	   set @layer->rx.
 *
 * Called at module load, before any instance exists.
 *
 * Return: 0, or -ENOSPC (table full), -EBUSY (a second @rx handler).
 */
int scif_layer_register(const struct scif_layer *layer)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&scif_layers_lock);
	for (i = 0; i < scif_nr_layers; i++)
		if (layer->rx && scif_layers[i]->rx)
			ret = -EBUSY;
	if (!ret && scif_nr_layers == ARRAY_SIZE(scif_layers))
		ret = -ENOSPC;
	if (!ret)
		scif_layers[scif_nr_layers++] = layer;
	mutex_unlock(&scif_layers_lock);
	return ret;
}

/**
 * scif_layer_unregister() - stop telling a layer about events
 * @layer: a registered layer; no instance exists any more
 */
void scif_layer_unregister(const struct scif_layer *layer)
{
	unsigned int i;

	mutex_lock(&scif_layers_lock);
	for (i = 0; i < scif_nr_layers; i++) {
		if (scif_layers[i] != layer)
			continue;
		memmove(&scif_layers[i], &scif_layers[i + 1],
			(scif_nr_layers - i - 1) * sizeof(scif_layers[0]));
		scif_nr_layers--;
		break;
	}
	mutex_unlock(&scif_layers_lock);
}

/**
 * scif_layers_instance_add() - tell the layers about a new instance
 * @si: the instance, with its node table and bus ready
 *
 * Return: 0, or the first error; the layers told before it are told the
 * instance is gone again.
 */
int scif_layers_instance_add(struct scif_instance *si)
{
	const struct scif_layer *l;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < scif_nr_layers && !ret; i++) {
		l = scif_layers[i];
		if (l->instance_add)
			ret = l->instance_add(si);
	}
	if (!ret)
		return 0;
	/* scif_layers[i - 1] failed: undo those below it. */
	for (i--; i-- > 0;) {
		l = scif_layers[i];
		if (l->instance_add && l->instance_remove)
			l->instance_remove(si);
	}
	return ret;
}

/**
 * scif_layers_instance_remove() - tell the layers an instance is going
 * @si: the instance; its endpoints are still open
 */
void scif_layers_instance_remove(struct scif_instance *si)
{
	unsigned int i = scif_nr_layers;

	while (i-- > 0)
		if (scif_layers[i]->instance_remove)
			scif_layers[i]->instance_remove(si);
}

/**
 * scif_layers_ep_init() - let the layers set up their part of an endpoint
 * @ep: the new endpoint, not yet visible to anyone
 *
 * Return: 0, or the first error. The endpoint is then freed through
 * scif_layers_ep_release(), which every layer must accept for an endpoint
 * it did not set up.
 */
int scif_layers_ep_init(struct scif_endpt *ep)
{
	unsigned int i;
	int ret;

	for (i = 0; i < scif_nr_layers; i++) {
		if (!scif_layers[i]->ep_init)
			continue;
		ret = scif_layers[i]->ep_init(ep);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * scif_layers_ep_close() - the owner closes an endpoint
 * @ep: the endpoint, still connected and findable by the peer's messages
 */
void scif_layers_ep_close(struct scif_endpt *ep)
{
	unsigned int i = scif_nr_layers;

	while (i-- > 0)
		if (scif_layers[i]->ep_close)
			scif_layers[i]->ep_close(ep);
}

/**
 * scif_layers_ep_release() - the last reference to an endpoint is gone
 * @ep: the endpoint, about to be freed
 */
void scif_layers_ep_release(struct scif_endpt *ep)
{
	unsigned int i = scif_nr_layers;

	while (i-- > 0)
		if (scif_layers[i]->ep_release)
			scif_layers[i]->ep_release(ep);
}

/**
 * scif_layers_node_lost() - a node was removed
 * @si: the instance
 * @node: the node; its endpoints are reset already, and its link still
 *	  reaches the node's memory until this returns
 */
void scif_layers_node_lost(struct scif_instance *si, u16 node)
{
	unsigned int i = scif_nr_layers;

	while (i-- > 0)
		if (scif_layers[i]->node_lost)
			scif_layers[i]->node_lost(si, node);
}

/**
 * scif_layers_rx() - hand a message of the upper layers' range to its layer
 * @si: the instance
 * @node: the node it came from
 * @msg: the message, checked as far as the core can
 * @data: its payload
 * @len: bytes at @data
 *
 * Return: the handler's verdict, or -EPROTO when no layer takes it.
 */
int scif_layers_rx(struct scif_instance *si, u16 node,
		   const struct scif_wire_msg *msg, const void *data,
		   size_t len)
{
	unsigned int i;

	for (i = 0; i < scif_nr_layers; i++)
		if (scif_layers[i]->rx)
			return scif_layers[i]->rx(si, node, msg, data, len);
	return -EPROTO;
}
