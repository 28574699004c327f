/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loopback transport: every instance's link to its own node.
 */
#ifndef SCIF_LOOPBACK_H
#define SCIF_LOOPBACK_H

struct scif_instance;

int scif_loopback_attach(struct scif_instance *si);
void scif_loopback_detach(struct scif_instance *si);

#endif /* SCIF_LOOPBACK_H */
