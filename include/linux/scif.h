/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF (Symmetric Communication Interface): the in-kernel API.
 *
 * Nodes joined by a PCIe non-transparent bridge talk through endpoints
 * addressed by (node, port) pairs, in the manner of sockets, and may access
 * each other's registered memory directly.
 */
#ifndef __SCIF_H__
#define __SCIF_H__

/*
 * Port ranges. Ports below SCIF_ADMIN_PORT_END may only be bound by a
 * privileged caller. Ports below SCIF_PORT_RSVD are never chosen when a
 * caller binds to port 0 and lets SCIF pick.
 */
#define SCIF_ADMIN_PORT_END	1024
#define SCIF_PORT_RSVD		1088

#endif /* __SCIF_H__ */
