// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF over NTB: the ntb_client that binds every ntb_dev and joins its peer
 * ports to the default SCIF instance (Documentation/scif-ntb.rst).
 *
 * Probe checks what the links need from the hardware (scratchpads or
 * message registers for the handshake, scif_ntb_msg.c; an outbound window
 * to every peer port) and refuses the device with one log line when
 * something is missing.
 * Everything else happens per peer port, on link events
 * (scif_ntb_link.c), and in the rings (scif_ntb_ring.c).
 */
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_ntb.h"
#include "scif_ntb_trace.h"

static int node_id = -1;
module_param(node_id, int, 0444);
MODULE_PARM_DESC(node_id, "SCIF node id of this host, 0..255 (default: the port number of the first NTB)");

static unsigned int ring_kb = 256;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb, "Ring from each peer in KiB, a power of 2 in 64..4096 (default 256)");

static unsigned int poll_us;
module_param(poll_us, uint, 0444);
MODULE_PARM_DESC(poll_us, "Poll the rings every this many microseconds instead of using doorbells (default 0: doorbells)");

unsigned int scif_ntb_send_timeout_ms = 15000;
module_param_named(send_timeout_ms, scif_ntb_send_timeout_ms, uint, 0644);
MODULE_PARM_DESC(send_timeout_ms, "Longest wait for room in a peer's ring before a send fails (default 15000)");

unsigned int scif_ntb_ep_ring_kb = 256;
module_param_named(ep_ring_kb, scif_ntb_ep_ring_kb, uint, 0444);
MODULE_PARM_DESC(ep_ring_kb, "Receive ring of each endpoint connected across the NTB in KiB, a power of 2 in 4..1024 (default 256)");

bool scif_ntb_allow_flat = true;
module_param_named(allow_flat, scif_ntb_allow_flat, bool, 0644);
MODULE_PARM_DESC(allow_flat, "Open our inbound window flat over all of this host's memory when no IOMMU is in between (default Y; N: translated onto the ring alone, RMA staged by messages, or refuse the link)");

bool scif_ntb_rx_local = true;
module_param_named(rx_local, scif_ntb_rx_local, bool, 0644);
MODULE_PARM_DESC(rx_local, "Drain a peer's ring on the CPU that took its doorbell (default Y; N: on any CPU)");

bool scif_ntb_rx_waiter = true;
module_param_named(rx_waiter, scif_ntb_rx_waiter, bool, 0644);
MODULE_PARM_DESC(rx_waiter, "After a doorbell, let a task that waits for the peer drain its ring (default Y; N: always the receive work)");

unsigned int scif_ntb_busy_poll_us;
module_param_named(busy_poll_us, scif_ntb_busy_poll_us, uint, 0644);
MODULE_PARM_DESC(busy_poll_us, "A task about to wait for a peer polls that peer's ring this long first, in microseconds, trading a CPU for latency (default 0: it sleeps until the doorbell)");

/*
 * Each device is a transport of the instance, and claims its node id there:
 * the first device to probe sets it (scif_transport_claim_self()).
 */
static int scif_ntb_register(struct scif_ntb_dev *nd)
{
	int want = node_id >= 0 ? node_id : nd->port;
	int ret;

	if (want > SCIF_MAX_NODE_ID) {
		dev_err(&nd->ntb->dev, "refusing: node id %d out of range 0..%d\n",
			want, SCIF_MAX_NODE_ID);
		return -EINVAL;
	}
	/*
	 * Drivers that leave port numbering to the NTB core with a topology
	 * it has no number for (switchtec, pci-epf-ntb) report port 0 on
	 * both sides: both hosts then take node id 0 and the handshake
	 * refuses the peer. Say so now.
	 */
	if (node_id < 0 && nd->npeers == 1 && nd->peers[0].port == nd->port)
		dev_warn(&nd->ntb->dev, "the peer reports port %d too: set node_id= to a different id on each host\n",
			 nd->port);
	nd->transport.name = dev_name(&nd->ntb->dev);
	nd->transport.owner = THIS_MODULE;
	ret = scif_transport_register(nd->si, &nd->transport);
	if (ret) {
		dev_err(&nd->ntb->dev, "refusing: cannot register as a SCIF transport (%d)\n",
			ret);
		return ret;
	}
	ret = scif_transport_claim_self(&nd->transport, want);
	if (ret < 0) {
		dev_err(&nd->ntb->dev, "refusing: cannot take node id %d (%d)\n",
			want, ret);
		scif_transport_unregister(&nd->transport);
		return ret;
	}
	return 0;
}

static void scif_ntb_link_event(void *ctx)
{
	struct scif_ntb_dev *nd = ctx;

	if (!READ_ONCE(nd->removing))
		queue_work(system_wq, &nd->link_work);
}

/* Hard interrupt context: have each peer's ring drained. */
static void scif_ntb_db_event(void *ctx, int vector)
{
	struct scif_ntb_dev *nd = ctx;
	u64 bits = ntb_db_read(nd->ntb) & nd->db_self;
	int i;

	trace_scif_ntb_db_event(vector, bits);
	if (bits)
		ntb_db_clear(nd->ntb, bits);
	for (i = 0; i < nd->npeers; i++)
		scif_ntb_doorbell_rx(&nd->peers[i]);
}

static const struct ntb_ctx_ops scif_ntb_ctx_ops = {
	.link_event = scif_ntb_link_event,
	.db_event = scif_ntb_db_event,
	.msg_event = scif_ntb_msg_event,
};

static enum hrtimer_restart scif_ntb_poll(struct hrtimer *timer)
{
	struct scif_ntb_dev *nd = container_of(timer, struct scif_ntb_dev,
					       poll_timer);
	int i;

	for (i = 0; i < nd->npeers; i++)
		scif_ntb_kick(&nd->peers[i]);
	hrtimer_forward_now(timer, ns_to_ktime(nd->poll_ns));
	return HRTIMER_RESTART;
}

/*
 * One peer port: an outbound window to it (where its handshake words go is
 * scif_ntb_words_setup()'s choice). Its ring region and the mapping of that window come at link-up
 * (scif_ntb_window.c), when the window's mode is known.
 */
static int scif_ntb_peer_alloc(struct scif_ntb_dev *nd, int pidx)
{
	struct scif_ntb_peer *p = &nd->peers[pidx];
	struct ntb_dev *ntb = nd->ntb;

	scif_ntb_peer_init(p, nd, pidx);
	if (p->port < 0) {
		dev_err(&ntb->dev, "refusing: no port number for peer %d\n",
			pidx);
		return -ENODEV;
	}
	if (!scif_ntb_peer_has_window(p)) {
		dev_err(&ntb->dev, "refusing: no outbound memory window for peer port %d\n",
			p->port);
		return -ENODEV;
	}
	p->rx_cells = (nd->region_size - SCIF_NTB_HDR_SIZE) / SCIF_NTB_CELL;
	return 0;
}

static void scif_ntb_free(struct scif_ntb_dev *nd, int n)
{
	while (n--)
		scif_ntb_windows_free(&nd->peers[n]);
	if (nd->local_wq)
		destroy_workqueue(nd->local_wq);
	if (nd->wq)
		destroy_workqueue(nd->wq);
	kfree(nd);
}

/* Doorbells if the NTB has a bit for our port, else polling. */
static void scif_ntb_db_setup(struct scif_ntb_dev *nd)
{
	struct ntb_dev *ntb = nd->ntb;
	u64 valid = ntb_db_valid_mask(ntb);

	if (!poll_us && nd->port < 64 && (valid & BIT_ULL(nd->port)))
		nd->db_self = BIT_ULL(nd->port);
	if (!nd->db_self) {
		nd->poll_ns = (u64)max(poll_us, 20u) * NSEC_PER_USEC;
		if (!poll_us)
			dev_info(&ntb->dev, "no doorbell bit for port %d: polling every 20 us\n",
				 nd->port);
		return;
	}
	ntb_db_set_mask(ntb, valid);
	ntb_db_clear(ntb, nd->db_self);
	ntb_db_clear_mask(ntb, nd->db_self);
}

static int scif_ntb_probe(struct ntb_client *client, struct ntb_dev *ntb)
{
	int npeers = ntb_peer_port_count(ntb), port = ntb_port_number(ntb);
	struct scif_ntb_dev *nd;
	int i, ret;

	if (npeers < 1 || port < 0) {
		dev_err(&ntb->dev, "refusing: no peer ports\n");
		return -ENODEV;
	}
	if (ring_kb < 64 || ring_kb > 4096 || !is_power_of_2(ring_kb)) {
		dev_err(&ntb->dev, "refusing: ring_kb=%u is not a power of 2 in 64..4096\n",
			ring_kb);
		return -EINVAL;
	}
	if (scif_ntb_ep_ring_kb < 4 || scif_ntb_ep_ring_kb > 1024 ||
	    !is_power_of_2(scif_ntb_ep_ring_kb)) {
		dev_err(&ntb->dev, "refusing: ep_ring_kb=%u is not a power of 2 in 4..1024\n",
			scif_ntb_ep_ring_kb);
		return -EINVAL;
	}
	nd = kzalloc(struct_size(nd, peers, npeers), GFP_KERNEL);
	if (!nd)
		return -ENOMEM;
	nd->ntb = ntb;
	nd->si = scif_default_instance();
	nd->port = port;
	nd->npeers = npeers;
	nd->region_size = SCIF_NTB_HDR_SIZE + ring_kb * SZ_1K;
	INIT_WORK(&nd->link_work, scif_ntb_link_work);
	hrtimer_init(&nd->poll_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	nd->poll_timer.function = scif_ntb_poll;
	nd->wq = alloc_workqueue("scif_ntb_%s", WQ_UNBOUND, 0,
				 dev_name(&ntb->dev));
	nd->local_wq = alloc_workqueue("scif_ntb_local_%s", WQ_CPU_INTENSIVE,
				       0, dev_name(&ntb->dev));
	if (!nd->wq || !nd->local_wq) {
		scif_ntb_free(nd, 0);
		return -ENOMEM;
	}
	for (i = 0; i < npeers; i++) {
		ret = scif_ntb_peer_alloc(nd, i);
		if (ret) {
			scif_ntb_free(nd, i + 1);
			return ret;
		}
	}
	ret = scif_ntb_words_setup(nd);
	if (ret) {
		scif_ntb_free(nd, npeers);
		return ret;
	}
	ret = scif_ntb_register(nd);
	if (ret) {
		scif_ntb_free(nd, npeers);
		return ret;
	}
	scif_ntb_db_setup(nd);
	ret = ntb_set_ctx(ntb, nd, &scif_ntb_ctx_ops);
	if (ret) {
		scif_transport_unregister(&nd->transport);
		scif_ntb_free(nd, npeers);
		return ret;
	}
	if (nd->poll_ns)
		hrtimer_start(&nd->poll_timer, ns_to_ktime(nd->poll_ns),
			      HRTIMER_MODE_REL);
	ntb_link_enable(ntb, NTB_SPEED_AUTO, NTB_WIDTH_AUTO);
	queue_work(system_wq, &nd->link_work);
	dev_info(&ntb->dev, "SCIF node %u on port %d: %d peer ports, %u KiB rings, %s, handshake in %s\n",
		 scif_instance_self(nd->si), port, npeers, ring_kb,
		 nd->db_self ? "doorbells" : "polling",
		 nd->use_msg ? "message registers" : "scratchpads");
	return 0;
}

static void scif_ntb_remove(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct scif_ntb_dev *nd = ntb->ctx;
	int i;

	WRITE_ONCE(nd->removing, true);
	ntb_link_disable(ntb);
	ntb_clear_ctx(ntb);
	hrtimer_cancel(&nd->poll_timer);
	cancel_work_sync(&nd->link_work);
	scif_ntb_words_quiesce(nd);
	for (i = 0; i < nd->npeers; i++) {
		scif_ntb_peer_stop(&nd->peers[i]);
		ntb_mw_clear_trans(ntb, nd->peers[i].pidx, 0);
	}
	scif_ntb_words_stop(nd);
	if (nd->db_self)
		ntb_db_set_mask(ntb, nd->db_self);
	scif_transport_unregister(&nd->transport);
	scif_ntb_free(nd, nd->npeers);
}

static struct ntb_client scif_ntb_client = {
	.ops = {
		.probe = scif_ntb_probe,
		.remove = scif_ntb_remove,
	},
};
module_ntb_client(scif_ntb_client);

MODULE_DESCRIPTION("SCIF transport over PCIe non-transparent bridges");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SCIF_TRANSPORT);
