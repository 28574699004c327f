// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF instances: one SCIF node each, and the default one behind the
 * public API.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_instance.h"
#include "scif_route.h"

/**
 * scif_routes_init() - give an instance its route table
 * @si: the instance, being created
 *
 * Draws the instance's identity (Documentation/scif-routing.rst).
 *
 * Return: 0 or -ENOMEM.
 */
static int scif_routes_init(struct scif_instance *si)
{
	struct scif_routing *r = kzalloc(sizeof(*r), GFP_KERNEL);
	u32 ident;

	if (!r)
		return -ENOMEM;
	do {
		ident = get_random_u32();
	} while (!ident);
	scif_route_init(&r->rt, si->name, si->self, ident);
	r->si = si;
	INIT_WORK(&r->work, scif_node_announce_routes);
	si->routing = r;
	return 0;
}

/**
 * scif_routes_exit() - free an instance's route table
 * @si: the instance, with no node online any more
 */
static void scif_routes_exit(struct scif_instance *si)
{
	struct scif_routing *r = si->routing;

	if (!r)
		return;
	cancel_work_sync(&r->work);
	scif_route_destroy(&r->rt);
	kfree(r);
	si->routing = NULL;
}

/**
 * scif_instance_create() - create a SCIF node
 * @name: unique name; names the bus ("scif" for the default instance,
 *	  "scif-<name>" otherwise), its devices and the debugfs directory
 * @self: the node id, 0..%SCIF_MAX_NODE_ID
 *
 * The registered layers are told (&scif_layer.instance_add): /dev/scif's
 * layer adds the debugfs directory. The instance has no transport yet, not
 * even to itself: its creator registers them (the module's entry and the
 * KUnit suites attach the loopback transport, link/scif_loopback.c).
 *
 * Return: the new instance, or NULL.
 */
struct scif_instance *scif_instance_create(const char *name, u16 self)
{
	struct scif_instance *si;

	if (self > SCIF_MAX_NODE_ID)
		return NULL;
	si = kzalloc(sizeof(*si), GFP_KERNEL);
	if (!si)
		return NULL;
	si->name = kstrdup(name, GFP_KERNEL);
	if (!si->name)
		goto free;
	si->self = self;
	mutex_init(&si->transports_lock);
	INIT_LIST_HEAD(&si->transports);
	if (rhashtable_init(&si->conreqs, &scif_conreq_params))
		goto name;
	scif_port_space_init(&si->ports);
	xa_init_flags(&si->eps, XA_FLAGS_ALLOC1);
	xa_init(&si->listeners);
	xa_init(&si->parked);
	init_rwsem(&si->nodes_rwsem);
	xa_init(&si->nodes);
	if (scif_routes_init(si))
		goto ports;
	if (scif_bus_init(si))
		goto routes;
	if (scif_layers_instance_add(si))
		goto bus;
	return si;
bus:
	scif_bus_exit(si);
routes:
	scif_routes_exit(si);
ports:
	rhashtable_destroy(&si->conreqs);
	scif_port_space_destroy(&si->ports);
name:
	mutex_destroy(&si->transports_lock);
	kfree(si->name);
free:
	kfree(si);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(scif_instance_create);

/**
 * scif_instance_destroy() - close everything of an instance and free it
 * @si: the instance, or NULL; every transport (loopback included) has
 *	unregistered already, so no node is online
 *
 * Endpoints still open (parked ones included) are closed.
 */
void scif_instance_destroy(struct scif_instance *si)
{
	struct scif_endpt *ep;
	unsigned long idx = 0;

	if (!si)
		return;
	WARN_ON(!list_empty(&si->transports));
	/* No neighbour is left, so no route: the routed nodes go too. */
	scif_routed_flush(si);
	scif_layers_instance_remove(si);
	WARN_ON(!xa_empty(&si->nodes));
	while ((ep = scif_ep_next(si, &idx))) {
		scif_close(ep);
		scif_ep_put(ep);
	}
	scif_bus_exit(si);
	scif_routes_exit(si);
	xa_destroy(&si->eps);
	xa_destroy(&si->listeners);
	xa_destroy(&si->parked);
	/* Closing the listeners emptied it. */
	WARN_ON(atomic_read(&si->conreqs.nelems));
	rhashtable_destroy(&si->conreqs);
	xa_destroy(&si->nodes);
	scif_port_space_destroy(&si->ports);
	mutex_destroy(&si->transports_lock);
	kfree(si->name);
	kfree(si);
}
EXPORT_SYMBOL_IF_KUNIT(scif_instance_destroy);

/*
 * The default node. Written once at module load before /dev/scif exists and
 * cleared at unload after it is gone, so readers need no lock.
 */
static struct scif_instance *scif_default;

/**
 * scif_set_default_instance() - name the instance behind the public API
 * @si: the instance, or NULL once it is gone
 *
 * Called by the module's entry only, around the life of the default
 * instance.
 */
void scif_set_default_instance(struct scif_instance *si)
{
	scif_default = si;
}

/**
 * scif_default_instance() - the instance behind the public API
 *
 * Return: the module's default instance.
 */
struct scif_instance *scif_default_instance(void)
{
	return scif_default;
}
EXPORT_SYMBOL_NS_GPL(scif_default_instance, SCIF_TRANSPORT);

/**
 * scif_instance_self() - the node id of an instance
 * @si: the instance
 *
 * Return: the id under which the instance's node is known to its peers.
 */
u16 scif_instance_self(struct scif_instance *si)
{
	return READ_ONCE(si->self);
}
EXPORT_SYMBOL_NS_GPL(scif_instance_self, SCIF_TRANSPORT);
