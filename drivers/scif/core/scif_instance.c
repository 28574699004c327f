// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF module entry: instances, the default instance and /dev/scif.
 */
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_dma.h"
#include "scif_endpt.h"
#include "scif_fdev.h"
#include "scif_kunit_export.h"
#include "scif_link_queue.h"

/**
 * scif_instance_create() - create a SCIF node with its loopback link
 * @name: unique name; names the bus ("scif" for the default instance,
 *	  "scif-<name>" otherwise), its devices and the debugfs directory
 * @self: the node id, 0..%SCIF_MAX_NODE_ID
 *
 * Return: the new instance, already online to itself, or NULL.
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
	scif_port_space_init(&si->ports);
	xa_init_flags(&si->eps, XA_FLAGS_ALLOC1);
	xa_init(&si->listeners);
	xa_init(&si->parked);
	init_rwsem(&si->nodes_rwsem);
	xa_init(&si->nodes);
	if (scif_bus_init(si))
		goto ports;
	if (scif_loopback_create(si))
		goto bus;
	scif_debugfs_init(si);
	return si;
bus:
	scif_bus_exit(si);
ports:
	scif_port_space_destroy(&si->ports);
	kfree(si->name);
free:
	kfree(si);
	return NULL;
}
EXPORT_SYMBOL_FOR_SCIF_KUNIT(scif_instance_create);

/**
 * scif_instance_destroy() - close everything of an instance and free it
 * @si: the instance, or NULL; links other than loopback are gone already
 *
 * Endpoints still open (parked ones included) are closed.
 */
void scif_instance_destroy(struct scif_instance *si)
{
	struct scif_endpt *ep;
	unsigned long idx = 0;

	if (!si)
		return;
	scif_debugfs_exit(si);
	scif_loopback_destroy(si);
	WARN_ON(!xa_empty(&si->nodes));
	while ((ep = scif_ep_next(si, &idx))) {
		scif_close(ep);
		scif_ep_put(ep);
	}
	scif_bus_exit(si);
	xa_destroy(&si->eps);
	xa_destroy(&si->listeners);
	xa_destroy(&si->parked);
	xa_destroy(&si->nodes);
	scif_port_space_destroy(&si->ports);
	kfree(si->name);
	kfree(si);
}
EXPORT_SYMBOL_FOR_SCIF_KUNIT(scif_instance_destroy);

/*
 * The default node. Written once at module load before /dev/scif exists and
 * cleared at unload after it is gone, so readers need no lock.
 */
static struct scif_instance *scif_default;

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

/* Whether any node other than the instance itself is online. */
static bool scif_instance_has_peers(struct scif_instance *si)
{
	struct scif_node *n;
	unsigned long id;
	bool ret = false;

	down_read(&si->nodes_rwsem);
	xa_for_each(&si->nodes, id, n)
		ret |= id != si->self;
	up_read(&si->nodes_rwsem);
	return ret;
}

/**
 * scif_instance_set_self() - give an instance's node another id
 * @si: the instance
 * @self: the new id, 0..%SCIF_MAX_NODE_ID
 *
 * Transports call this while the instance has no remote node yet, when the
 * node id is only known from the hardware (the NTB transport derives it
 * from its port number). Connections of the node to itself are reset.
 * Callers serialise calls for one instance.
 *
 * Return: 0, or -EINVAL (bad id), -EBUSY (a remote node is online), or
 * -ENOMEM (the node has no loopback link any more).
 */
int scif_instance_set_self(struct scif_instance *si, u16 self)
{
	if (self > SCIF_MAX_NODE_ID)
		return -EINVAL;
	if (self == si->self)
		return 0;
	if (scif_instance_has_peers(si))
		return -EBUSY;
	scif_loopback_destroy(si);
	WRITE_ONCE(si->self, self);
	return scif_loopback_create(si);
}
EXPORT_SYMBOL_NS_GPL(scif_instance_set_self, SCIF_TRANSPORT);

static int __init scif_init(void)
{
	int ret;

	ret = scif_dma_init();
	if (ret)
		return ret;
	scif_default = scif_instance_create("scif", 0);
	if (!scif_default) {
		scif_dma_exit();
		return -ENOMEM;
	}
	ret = scif_fdev_init();
	if (ret) {
		scif_instance_destroy(scif_default);
		scif_default = NULL;
		scif_dma_exit();
	}
	return ret;
}

static void __exit scif_exit(void)
{
	scif_fdev_exit();
	scif_instance_destroy(scif_default);
	scif_default = NULL;
	scif_dma_exit();
}

module_init(scif_init);
module_exit(scif_exit);

MODULE_DESCRIPTION("SCIF endpoints and RMA over PCIe non-transparent bridges");
MODULE_LICENSE("GPL");
