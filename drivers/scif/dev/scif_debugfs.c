// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs view of an instance (root only, read only): its endpoints with
 * their states and ports, and its nodes with their message counters. The
 * default instance appears as /sys/kernel/debug/scif/.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "../core/scif_core.h"
#include "../core/scif_shm.h"
#include "scif_fdev.h"

static int scif_debugfs_endpoints_show(struct seq_file *m, void *v)
{
	struct scif_instance *si = m->private;
	struct scif_endpt *ep;
	unsigned long idx = 0;

	seq_puts(m, "id                 state         port  peer        rxq   txq\n");
	while ((ep = scif_ep_next(si, &idx))) {
		spin_lock(&ep->lock);
		seq_printf(m, "%#-18llx %-13s %-5u %3u:%-7u %-5u %u",
			   ep->id, scif_ep_state_name(ep->state), ep->port,
			   ep->peer.node, ep->peer.port,
			   ep->rx_seq - ep->rx_read, ep->tx_seq - ep->tx_acked);
		if (ep->shm && ep->shm->active)
			scif_shm_show(m, ep->shm, ep->rx_read, ep->tx_seq);
		seq_putc(m, '\n');
		spin_unlock(&ep->lock);
		scif_ep_put(ep);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scif_debugfs_endpoints);

static int scif_debugfs_ports_show(struct seq_file *m, void *v)
{
	struct scif_instance *si = m->private;
	struct scif_endpt *ep;
	unsigned long idx = 0;

	seq_puts(m, "port  owner              state\n");
	while ((ep = scif_ep_next(si, &idx))) {
		spin_lock(&ep->lock);
		if (ep->port_owned)
			seq_printf(m, "%-5u %#-18llx %s\n", ep->port, ep->id,
				   scif_ep_state_name(ep->state));
		spin_unlock(&ep->lock);
		scif_ep_put(ep);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scif_debugfs_ports);

static int scif_debugfs_nodes_show(struct seq_file *m, void *v)
{
	struct scif_instance *si = m->private;
	struct scif_node *n;
	unsigned long id;

	seq_printf(m, "self %u\n", si->self);
	seq_puts(m, "node  tx_msgs     tx_errs     rx_msgs     rx_drops\n");
	down_read(&si->nodes_rwsem);
	xa_for_each(&si->nodes, id, n)
		seq_printf(m, "%-5lu %-11lld %-11lld %-11lld %lld\n", id,
			   atomic64_read(&n->stats.tx_msgs),
			   atomic64_read(&n->stats.tx_errs),
			   atomic64_read(&n->stats.rx_msgs),
			   atomic64_read(&n->stats.rx_drops));
	up_read(&si->nodes_rwsem);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scif_debugfs_nodes);

/**
 * scif_debugfs_add() - publish an instance in debugfs
 * @si: the instance
 *
 * Failure only costs the introspection, so it is not reported.
 *
 * Return: 0.
 */
int scif_debugfs_add(struct scif_instance *si)
{
	si->debugfs = debugfs_create_dir(si->bus_name, NULL);
	debugfs_create_file("endpoints", 0400, si->debugfs, si,
			    &scif_debugfs_endpoints_fops);
	debugfs_create_file("ports", 0400, si->debugfs, si,
			    &scif_debugfs_ports_fops);
	debugfs_create_file("nodes", 0400, si->debugfs, si,
			    &scif_debugfs_nodes_fops);
	return 0;
}

/**
 * scif_debugfs_remove() - remove an instance from debugfs
 * @si: the instance
 */
void scif_debugfs_remove(struct scif_instance *si)
{
	debugfs_remove_recursive(si->debugfs);
	si->debugfs = NULL;
}
