/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SCIF core instance: all state of one SCIF node lives here.
 */
#ifndef SCIF_CORE_H
#define SCIF_CORE_H

#include "scif_port.h"

/**
 * struct scif_instance - one SCIF node
 * @ports: the node's port space (internally locked)
 *
 * The module creates one instance, the default node behind the exported API
 * and /dev/scif. KUnit suites create further, private instances so that
 * several nodes can run inside one kernel. Nothing in the core keeps mutable
 * state outside an instance.
 */
struct scif_instance {
	struct scif_port_space ports;
};

struct scif_instance *scif_instance_create(void);
void scif_instance_destroy(struct scif_instance *si);

#endif /* SCIF_CORE_H */
