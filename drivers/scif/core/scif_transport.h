/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's own use of the registered transports (core/scif_transport.c);
 * transports themselves include scif_link.h.
 */
#ifndef SCIF_TRANSPORT_H
#define SCIF_TRANSPORT_H

#include <linux/types.h>

struct scif_instance;
struct scif_link;

int scif_transport_node_check(struct scif_instance *si, u16 node,
			      const struct scif_link *link);

#endif /* SCIF_TRANSPORT_H */
