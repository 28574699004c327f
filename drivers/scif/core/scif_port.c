// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF port allocator.
 *
 * Each node has 65535 usable ports. A bind to a named port reserves exactly
 * that port; a bind to port 0 picks a free one at or above SCIF_PORT_RSVD, so
 * that automatically chosen ports never collide with the well-known ranges
 * below it. Privilege checks for the administrative range are the caller's
 * business: this file only tracks ownership.
 */
#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/scif.h>

#include "scif_port.h"

/**
 * scif_port_space_init() - prepare an empty port space
 * @ps: the port space
 */
void scif_port_space_init(struct scif_port_space *ps)
{
	spin_lock_init(&ps->lock);
	bitmap_zero(ps->used, SCIF_PORT_MAX + 1);
}
EXPORT_SYMBOL_IF_KUNIT(scif_port_space_init);

/**
 * scif_port_space_destroy() - release every port
 * @ps: the port space
 */
void scif_port_space_destroy(struct scif_port_space *ps)
{
	spin_lock(&ps->lock);
	bitmap_zero(ps->used, SCIF_PORT_MAX + 1);
	spin_unlock(&ps->lock);
}
EXPORT_SYMBOL_IF_KUNIT(scif_port_space_destroy);

/**
 * scif_port_reserve() - claim one specific port
 * @ps: the port space
 * @port: the port wanted, 1..%SCIF_PORT_MAX
 *
 * Return: 0 on success, -EINVAL if @port is out of range, -EADDRINUSE if it
 * is already taken.
 */
int scif_port_reserve(struct scif_port_space *ps, unsigned int port)
{
	bool taken;

	if (port == 0 || port > SCIF_PORT_MAX)
		return -EINVAL;
	spin_lock(&ps->lock);
	taken = __test_and_set_bit(port, ps->used);
	spin_unlock(&ps->lock);
	return taken ? -EADDRINUSE : 0;
}
EXPORT_SYMBOL_IF_KUNIT(scif_port_reserve);

/**
 * scif_port_alloc() - claim the lowest free port at or above %SCIF_PORT_RSVD
 * @ps: the port space
 *
 * Return: the port number, or -ENOSPC when every such port is taken.
 */
int scif_port_alloc(struct scif_port_space *ps)
{
	unsigned long port;

	spin_lock(&ps->lock);
	port = find_next_zero_bit(ps->used, SCIF_PORT_MAX + 1, SCIF_PORT_RSVD);
	if (port <= SCIF_PORT_MAX)
		__set_bit(port, ps->used);
	spin_unlock(&ps->lock);
	return port <= SCIF_PORT_MAX ? (int)port : -ENOSPC;
}
EXPORT_SYMBOL_IF_KUNIT(scif_port_alloc);

/**
 * scif_port_release() - give a port back
 * @ps: the port space
 * @port: a port previously returned by scif_port_reserve() or
 *	  scif_port_alloc()
 */
void scif_port_release(struct scif_port_space *ps, unsigned int port)
{
	if (WARN_ON_ONCE(port == 0 || port > SCIF_PORT_MAX))
		return;
	spin_lock(&ps->lock);
	WARN_ON_ONCE(!__test_and_clear_bit(port, ps->used));
	spin_unlock(&ps->lock);
}
EXPORT_SYMBOL_IF_KUNIT(scif_port_release);
