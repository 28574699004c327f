/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF port numbers: which of the 16-bit ports of one node are in use.
 */
#ifndef SCIF_PORT_H
#define SCIF_PORT_H

#include <linux/bitmap.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* Highest port number; 0 is never a valid port. */
#define SCIF_PORT_MAX	65535

/**
 * struct scif_port_space - the ports of one node
 * @lock: protects @used; taken inside this file only, so callers need no
 *	  further locking to reserve or release a port
 * @used: one bit per port, set while the port is owned (bit 0 unused):
 *	  8 KiB, fixed, so that reserving a port never allocates memory
 *
 * A port is owned by whoever reserved it until it is released. Ports from 1
 * to %SCIF_PORT_RSVD - 1 are only handed out on explicit request; automatic
 * allocation draws from %SCIF_PORT_RSVD upwards.
 */
struct scif_port_space {
	spinlock_t lock;	/* @used */
	DECLARE_BITMAP(used, SCIF_PORT_MAX + 1);
};

void scif_port_space_init(struct scif_port_space *ps);
void scif_port_space_destroy(struct scif_port_space *ps);
int scif_port_reserve(struct scif_port_space *ps, unsigned int port);
int scif_port_alloc(struct scif_port_space *ps);
void scif_port_release(struct scif_port_space *ps, unsigned int port);

#endif /* SCIF_PORT_H */
