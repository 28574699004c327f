// SPDX-License-Identifier: GPL-2.0
/*
 * The SCIF bus of an instance: one device per online node, and the clients
 * that want to hear about them.
 *
 * Every instance registers a bus of its own (the default instance's is
 * called "scif"), so KUnit instances never show their nodes to the clients
 * of the default one. A client is a subsys_interface on that bus: the
 * driver core calls it for every node device present when it registers and
 * for every one added or removed later, with the bus's own locking.
 */
#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_instance.h"

/**
 * struct scif_peer - a node's device and what it needs to find its way back
 * @spdev: the device handed to clients
 */
struct scif_peer {
	struct scif_peer_dev spdev;
};

static void scif_peer_release(struct device *dev)
{
	kfree(container_of(dev, struct scif_peer, spdev.dev));
}

static int scif_client_add_dev(struct device *dev, struct subsys_interface *sif)
{
	struct scif_client *client = container_of(sif, struct scif_client, si);

	if (client->probe)
		client->probe(container_of(dev, struct scif_peer_dev, dev));
	return 0;
}

static void scif_client_remove_dev(struct device *dev,
				   struct subsys_interface *sif)
{
	struct scif_client *client = container_of(sif, struct scif_client, si);

	if (client->remove)
		client->remove(container_of(dev, struct scif_peer_dev, dev));
}

/**
 * scif_bus_init() - register the bus of an instance
 * @si: the instance; @si->name is set
 *
 * Return: 0 or a negative errno.
 */
int scif_bus_init(struct scif_instance *si)
{
	int ret;

	if (!strcmp(si->name, "scif"))
		si->bus_name = kstrdup(si->name, GFP_KERNEL);
	else
		si->bus_name = kasprintf(GFP_KERNEL, "scif-%s", si->name);
	if (!si->bus_name)
		return -ENOMEM;
	{
		const struct bus_type tmpl = { .name = si->bus_name };

		si->bus = kmemdup(&tmpl, sizeof(tmpl), GFP_KERNEL);
	}
	if (!si->bus) {
		ret = -ENOMEM;
		goto free;
	}
	ret = bus_register(si->bus);
	if (!ret)
		return 0;
free:
	kfree(si->bus);
	kfree(si->bus_name);
	si->bus = NULL;
	si->bus_name = NULL;
	return ret;
}

/**
 * scif_bus_exit() - unregister the bus of an instance
 * @si: the instance; no node is left
 */
void scif_bus_exit(struct scif_instance *si)
{
	if (!si->bus)
		return;
	bus_unregister(si->bus);
	kfree(si->bus);
	si->bus = NULL;
	kfree(si->bus_name);
	si->bus_name = NULL;
}

/**
 * scif_peer_dev_add() - register the device of a node that came online
 * @si: the instance
 * @node: the node; @node->spdev is set on success
 *
 * Return: 0 or a negative errno.
 */
int scif_peer_dev_add(struct scif_instance *si, struct scif_node *node)
{
	struct scif_peer *peer;
	int ret;

	peer = kzalloc(sizeof(*peer), GFP_KERNEL);
	if (!peer)
		return -ENOMEM;
	peer->spdev.dnode = node->id;
	peer->spdev.dev.bus = si->bus;
	peer->spdev.dev.release = scif_peer_release;
	device_initialize(&peer->spdev.dev);
	ret = dev_set_name(&peer->spdev.dev, "%s-node%u", si->bus_name,
			   node->id);
	if (!ret)
		ret = device_add(&peer->spdev.dev);
	if (ret) {
		put_device(&peer->spdev.dev);
		return ret;
	}
	node->spdev = &peer->spdev;
	return 0;
}

/**
 * scif_peer_dev_remove() - unregister the device of a node that went away
 * @node: the node
 */
void scif_peer_dev_remove(struct scif_node *node)
{
	if (!node->spdev)
		return;
	device_unregister(&node->spdev->dev);
	node->spdev = NULL;
}

/**
 * scif_instance_client_register() - register a client on an instance's bus
 * @si: the instance
 * @client: the client; @client->si is filled in here
 *
 * Return: as subsys_interface_register().
 */
int scif_instance_client_register(struct scif_instance *si,
				  struct scif_client *client)
{
	client->si.name = client->name;
	client->si.subsys = si->bus;
	client->si.add_dev = scif_client_add_dev;
	client->si.remove_dev = scif_client_remove_dev;
	return subsys_interface_register(&client->si);
}
EXPORT_SYMBOL_IF_KUNIT(scif_instance_client_register);

/**
 * scif_client_register() - ask to be told about the nodes of the network
 * @client: the client, with @name, @probe and @remove set
 *
 * @probe runs for every node already online (the local node included) and
 * for every node that comes online later; @remove runs when a node goes
 * away and for every node at scif_client_unregister().
 *
 * Return: 0 or a negative errno, as subsys_interface_register().
 */
int scif_client_register(struct scif_client *client)
{
	return scif_instance_client_register(scif_default_instance(), client);
}
EXPORT_SYMBOL_GPL(scif_client_register);

/**
 * scif_client_unregister() - stop a client's notifications
 * @client: a client registered with scif_client_register() (or the instance
 *	    variant)
 */
void scif_client_unregister(struct scif_client *client)
{
	subsys_interface_unregister(&client->si);
}
EXPORT_SYMBOL_GPL(scif_client_unregister);
