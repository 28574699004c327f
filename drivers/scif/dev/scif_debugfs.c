// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs view of an instance (root only, read only): its endpoints with
 * their states and ports, and its nodes with their message counters. The
 * default instance appears as /sys/kernel/debug/scif/.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_fdev.h"

static int scif_debugfs_endpoints_show(struct seq_file *m, void *v)
{
	struct scif_instance *si = m->private;
	struct scif_endpt *ep;
	unsigned long idx = 0;

	seq_puts(m, "id                 state         port  peer        rxq   txq\n");
	while ((ep = scif_ep_next(si, &idx))) {
		scif_ep_show(m, ep);
		seq_putc(m, '\n');
		scif_ep_put(ep);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scif_debugfs_endpoints);

static int scif_debugfs_ports_show(struct seq_file *m, void *v)
{
	struct scif_instance *si = m->private;
	struct scif_endpt *ep;
	struct scif_ep_view ev;
	unsigned long idx = 0;

	seq_puts(m, "port  owner              state\n");
	while ((ep = scif_ep_next(si, &idx))) {
		scif_ep_view(ep, &ev);
		if (ev.port_owned)
			seq_printf(m, "%-5u %#-18llx %s\n", ev.port, ev.id,
				   scif_ep_state_name(ev.state));
		scif_ep_put(ep);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scif_debugfs_ports);

static int scif_debugfs_nodes_show(struct seq_file *m, void *v)
{
	struct scif_instance *si = m->private;
	struct scif_node_stats st;
	int i, total;
	u16 *ids;
	u16 self;

	ids = kmalloc_array(SCIF_MAX_NODE_ID + 1, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	total = scif_instance_node_ids(si, ids, SCIF_MAX_NODE_ID + 1, &self);
	seq_printf(m, "self %u\n", self);
	seq_puts(m, "node  tx_msgs     tx_errs     rx_msgs     rx_drops\n");
	for (i = 0; i < total && i <= SCIF_MAX_NODE_ID; i++) {
		/* A node lost meanwhile shows zero counters. */
		scif_node_stats(si, ids[i], &st);
		seq_printf(m, "%-5u %-11lld %-11lld %-11lld %lld\n", ids[i],
			   atomic64_read(&st.tx_msgs),
			   atomic64_read(&st.tx_errs),
			   atomic64_read(&st.rx_msgs),
			   atomic64_read(&st.rx_drops));
	}
	kfree(ids);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scif_debugfs_nodes);

static int scif_debugfs_routes_show(struct seq_file *m, void *v)
{
	scif_instance_routes_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scif_debugfs_routes);

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
	struct dentry *d = debugfs_create_dir(scif_instance_bus_name(si), NULL);

	scif_instance_set_debugfs(si, d);
	debugfs_create_file("endpoints", 0400, d, si,
			    &scif_debugfs_endpoints_fops);
	debugfs_create_file("ports", 0400, d, si, &scif_debugfs_ports_fops);
	debugfs_create_file("nodes", 0400, d, si, &scif_debugfs_nodes_fops);
	debugfs_create_file("routes", 0400, d, si, &scif_debugfs_routes_fops);
	return 0;
}

/**
 * scif_debugfs_remove() - remove an instance from debugfs
 * @si: the instance
 */
void scif_debugfs_remove(struct scif_instance *si)
{
	debugfs_remove_recursive(scif_instance_debugfs(si));
	scif_instance_set_debugfs(si, NULL);
}
