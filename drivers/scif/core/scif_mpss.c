// SPDX-License-Identifier: GPL-2.0
/*
 * The functions of Intel's MPSS kernel API whose names differ from the
 * upstream ones. Clients built for MPSS call them, or declare them
 * themselves, so each is a real exported symbol rather than a macro.
 */
#include <linux/export.h>
#include <linux/scif.h>

/**
 * scif_get_nodeIDs() - list the nodes of the SCIF network (MPSS's name)
 * @nodes: filled with up to @len node ids
 * @len: room at @nodes
 * @self: set to the id of the local node
 *
 * The same call as scif_get_node_ids().
 *
 * Return: the number of online nodes, the local one included; compare it
 * with @len to see whether @nodes was large enough.
 */
int scif_get_nodeIDs(u16 *nodes, int len, u16 *self)
{
	return scif_get_node_ids(nodes, len, self);
}
EXPORT_SYMBOL_GPL(scif_get_nodeIDs);
