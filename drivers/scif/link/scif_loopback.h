/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loopback transport: every instance's link to its own node.
 */
#ifndef SCIF_LOOPBACK_H
#define SCIF_LOOPBACK_H

struct scif_layer;

extern const struct scif_layer scif_loopback_layer;

#endif /* SCIF_LOOPBACK_H */
