// SPDX-License-Identifier: GPL-2.0
/*
 * How an endpoint reaches its peer's memory: a snapshot of the link's RMA
 * addressing (local physical addresses on loopback and the KUnit pair, a
 * CPU mapping of the NTB window otherwise), taken under the instance's
 * nodes_rwsem so that the mapping cannot go away while it is used.
 */
#include <linux/rwsem.h>
#include <linux/xarray.h>

#include "../core/scif_core.h"
#include "scif_rma.h"

/**
 * scif_peer_mem_lock() - how the link to an endpoint's peer reaches its memory
 * @ep: a connected endpoint
 * @pm: filled in from the link
 *
 * On success the instance's nodes_rwsem stays held for reading, so that the
 * node, and with it the mapping in @pm, stays until scif_peer_mem_unlock().
 *
 * Return: 0, -ENODEV (the node is gone), or -EOPNOTSUPP (a link without
 * RMA).
 */
int scif_peer_mem_lock(struct scif_endpt *ep, struct scif_peer_mem *pm)
{
	struct scif_instance *si = scif_ep_instance(ep);
	int ret;

	ret = scif_node_peer_mem_lock(si, scif_ep_peer_node(ep), pm);
	if (ret)
		return ret;
	if (pm->local || pm->base)
		return 0;
	scif_node_peer_mem_unlock(si);
	return -EOPNOTSUPP;
}

/**
 * scif_peer_mem_unlock() - end the use of a scif_peer_mem_lock() snapshot
 * @ep: the endpoint given to scif_peer_mem_lock()
 */
void scif_peer_mem_unlock(struct scif_endpt *ep)
{
	scif_node_peer_mem_unlock(scif_ep_instance(ep));
}

/**
 * scif_peer_mem_get() - a copy of what scif_peer_mem_lock() reports, for
 *			 users that hand out the peer's pages themselves
 * @ep: a connected endpoint
 * @pm: filled in from the link
 *
 * get_pages and mmap give out physical addresses, so a link that maps the
 * peer's memory without saying where it is physically is refused.
 *
 * The link's RMA fields are constant while the node is online; once it is
 * lost, users of the copy are stopped by scif_mmap_node_lost() (mmap) or
 * must stop by themselves (scif_get_pages()).
 *
 * Return: as scif_peer_mem_lock(); also -EOPNOTSUPP for a link without
 * &scif_link.peer_mem_phys.
 */
int scif_peer_mem_get(struct scif_endpt *ep, struct scif_peer_mem *pm)
{
	int ret = scif_peer_mem_lock(ep, pm);

	if (ret)
		return ret;
	scif_peer_mem_unlock(ep);
	pm->held = NULL;
	return pm->local || pm->phys ? 0 : -EOPNOTSUPP;
}

/**
 * scif_staged_link() - whether RMAs of an endpoint go by messages
 * @ep: a connected endpoint
 *
 * A link that neither shares our memory (loopback, the KUnit pair) nor maps
 * the peer's (&scif_link.peer_mem) carries RMAs as staged messages
 * (rma/scif_staged.c); scif_peer_mem_lock() refuses it with -EOPNOTSUPP,
 * and so do mmap() and scif_get_pages(), which need the peer's pages.
 *
 * Return: true for such a link, false otherwise or if the node is gone.
 */
bool scif_staged_link(struct scif_endpt *ep)
{
	struct scif_instance *si = scif_ep_instance(ep);
	struct scif_peer_mem pm;
	bool staged;

	if (scif_node_peer_mem_lock(si, scif_ep_peer_node(ep), &pm))
		return false;
	staged = !pm.local && !pm.base;
	scif_node_peer_mem_unlock(si);
	return staged;
}
