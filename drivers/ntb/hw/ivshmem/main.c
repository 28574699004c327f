// SPDX-License-Identifier: GPL-2.0
/*
 * Emulated NTB over QEMU ivshmem-plain devices: PCI probe and removal.
 *
 * A guest of an N-guest cluster sees, on PCI bus 0:
 *   slot IVN_SLOT_REGS + self       the register region shared by all guests
 *   slot IVN_SLOT_PEER_RAM + j      for every peer j: peer j's RAM file
 * The register-region device carries the NTB port; the peer RAM devices are
 * claimed by it and left without a driver of their own.
 */
#include <linux/bitops.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>

#include "ntb_ivshmem.h"

#define IVN_PCI_DEVICE_IVSHMEM	0x1110

static const struct pci_device_id ivn_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, IVN_PCI_DEVICE_IVSHMEM) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ivn_pci_ids);

static void ivn_put_peers(struct ivn_dev *ivn)
{
	int i;

	for (i = 0; i < ivn->npeers; i++) {
		struct pci_dev *p = ivn->peers[i].pdev;

		if (!p)
			continue;
		if (ivn->peers[i].mw_base) {
			pci_release_region(p, 2);
			pci_disable_device(p);
		}
		pci_dev_put(p);
		ivn->peers[i].pdev = NULL;
	}
}

/* Find, check and claim the RAM device of every peer. */
static int ivn_get_peers(struct ivn_dev *ivn)
{
	struct pci_dev *pdev = ivn->pdev;
	u32 slot_size = ioread32(ivn->regs + IVN_HDR_SLOT_SIZE);
	u32 slot_off = ioread32(ivn->regs + IVN_HDR_SLOT_OFFSET);
	int port, pidx = 0, ret;

	for (port = 0; port < ivn->nodes; port++) {
		struct ivn_peer *peer;
		unsigned int dev = IVN_SLOT_PEER_RAM + port;
		struct pci_dev *p;

		if (port == ivn->self ||
		    (ivn->prof->two_port && port != (ivn->self ^ 1)))
			continue;
		peer = &ivn->peers[pidx++];
		peer->port = port;
		peer->hw_port = ivn_profile_port(ivn->prof, port, ivn->self);
		peer->slot = ivn->regs + slot_off + port * slot_size;
		p = pci_get_slot(pdev->bus, PCI_DEVFN(dev, 0));
		peer->pdev = p;
		if (!p || p->vendor != PCI_VENDOR_ID_REDHAT_QUMRANET ||
		    p->device != IVN_PCI_DEVICE_IVSHMEM) {
			pci_err(pdev, "refusing: no ivshmem device for the RAM of peer %d at slot %#x\n",
				port, dev);
			return -ENODEV;
		}
		if (pci_resource_len(p, 2) != ivn->ram_size) {
			pci_err(pdev, "refusing: RAM of peer %d is %llu bytes, the cluster header says %llu\n",
				port, (u64)pci_resource_len(p, 2),
				ivn->ram_size);
			return -ENODEV;
		}
		ret = pci_enable_device(p);
		if (ret) {
			pci_err(pdev, "refusing: cannot enable RAM device of peer %d: %d\n",
				port, ret);
			return -ENODEV;
		}
		ret = pci_request_region(p, 2, KBUILD_MODNAME);
		if (ret) {
			pci_disable_device(p);
			pci_err(pdev, "refusing: RAM window of peer %d is busy\n",
				port);
			return -ENODEV;
		}
		peer->mw_base = pci_resource_start(p, 2);
	}
	return 0;
}

/* Check the header the host wrote. One log line on refusal. */
static int ivn_check_header(struct ivn_dev *ivn, resource_size_t len)
{
	struct pci_dev *pdev = ivn->pdev;
	u32 magic, version, nodes, slot_size, slot_off;
	u64 ram, own;

	if (len < IVN_SLOT_MIN_SIZE) {
		pci_err(pdev, "refusing: register region of %llu bytes is too small\n",
			(u64)len);
		return -ENODEV;
	}
	magic = ioread32(ivn->regs + IVN_HDR_MAGIC);
	version = ioread32(ivn->regs + IVN_HDR_VERSION);
	nodes = ioread32(ivn->regs + IVN_HDR_NODES);
	slot_size = ioread32(ivn->regs + IVN_HDR_SLOT_SIZE);
	slot_off = ioread32(ivn->regs + IVN_HDR_SLOT_OFFSET);
	ram = ioread32(ivn->regs + IVN_HDR_RAM_LO) |
	      (u64)ioread32(ivn->regs + IVN_HDR_RAM_HI) << 32;
	own = (u64)totalram_pages() << PAGE_SHIFT;

	if (magic != IVN_MAGIC) {
		pci_err(pdev, "refusing: register region magic %#x, expected %#x\n",
			magic, IVN_MAGIC);
		return -ENODEV;
	}
	if (version != IVN_VERSION) {
		pci_err(pdev, "refusing: register region version %u, this driver speaks %u\n",
			version, IVN_VERSION);
		return -ENODEV;
	}
	if (nodes < 1 || nodes > IVN_MAX_NODES || ivn->self >= nodes) {
		pci_err(pdev, "refusing: cluster of %u nodes cannot hold node %d (max %d)\n",
			nodes, ivn->self, IVN_MAX_NODES);
		return -ENODEV;
	}
	if (slot_size < IVN_SLOT_MIN_SIZE || slot_off < IVN_HDR_RAM_HI + 4 ||
	    (u64)slot_off + (u64)nodes * slot_size > len) {
		pci_err(pdev, "refusing: slots (offset %#x, size %#x, %u nodes) do not fit the %llu-byte register region\n",
			slot_off, slot_size, nodes, (u64)len);
		return -ENODEV;
	}
	if (!ram || own > ram) {
		pci_err(pdev, "refusing: this guest has %llu MiB of RAM, the cluster header says %llu MiB\n",
			own >> 20, ram >> 20);
		return -ENODEV;
	}
	if (ivn_mw_size_param > ram) {
		pci_err(pdev, "refusing: mw_size=%lu is larger than the %llu MiB of RAM\n",
			ivn_mw_size_param, ram >> 20);
		return -ENODEV;
	}
	ivn->prof = ivn_profile;
	if (ivn->prof->two_port && (ivn->self ^ 1) >= nodes) {
		pci_err(pdev, "refusing: profile %s is 2-port hardware and node %d has no partner (node %d) in a cluster of %u\n",
			ivn->prof->name, ivn->self, ivn->self ^ 1, nodes);
		return -ENODEV;
	}
	if (!ivn_profile_default() && ivn->prof->mw_size > ram) {
		pci_err(pdev, "refusing: profile %s has %llu MiB windows, more than the %llu MiB of RAM\n",
			ivn->prof->name, ivn->prof->mw_size >> 20, ram >> 20);
		return -ENODEV;
	}
	ivn->nodes = nodes;
	ivn->npeers = ivn->prof->two_port ? 1 : nodes - 1;
	ivn->port = ivn_profile_port(ivn->prof, ivn->self, ivn->self ^ 1);
	ivn->ram_size = ram;
	if (ivn_profile_default()) {
		ivn->mw_size = ivn_mw_size_param;
		ivn->mw_count = ivn->mw_size ? ivn_mw_count_param : 1;
		ivn->addr_align = ivn->mw_size;
		ivn->size_align = PAGE_SIZE;
	} else {
		ivn->mw_size = ivn->prof->mw_size;
		ivn->mw_count = ivn->prof->mw_count;
		ivn->addr_align = ivn->prof->addr_align ?: ivn->mw_size;
		ivn->size_align = ivn->prof->size_align;
	}
	ivn->slot = ivn->regs + slot_off + ivn->self * slot_size;
	return 0;
}

/* Start this incarnation: clear the slot, then publish a new id. */
static void ivn_slot_start(struct ivn_dev *ivn)
{
	u32 old = ioread32(ivn->slot + IVN_SL_INCARNATION), inc;
	int s;

	/* peers discard anything read while the incarnation is 0 */
	iowrite32(0, ivn->slot + IVN_SL_INCARNATION);
	/* incarnation 0 is visible before the counters are cleared */
	wmb();
	/* the slot's areas do not overlap (ivshmem_regs.h) */
	BUILD_BUG_ON(IVN_SL_SPAD(IVN_MAX_SPADS) > IVN_SL_XLAT(0, 0));
	BUILD_BUG_ON(IVN_SL_XLAT(IVN_MAX_NODES, 0) > IVN_SL_MSG_OUT(0, 0));
	BUILD_BUG_ON(IVN_SL_MSG_OUT(IVN_MAX_NODES, 0) > IVN_SL_MSG_ACK(0, 0));
	BUILD_BUG_ON(IVN_SL_MSG_ACK(IVN_MAX_NODES, 0) > IVN_SL_MSG_SRC);
	BUILD_BUG_ON(IVN_SL_MSG_IN + 4 > IVN_SLOT_MIN_SIZE);
	for (s = 0; s < IVN_MAX_SPADS; s++)
		iowrite32(0, ivn->slot + IVN_SL_SPAD(s));
	ivn_db_init(ivn);
	ivn_link_init(ivn);
	ivn_xlat_init(ivn);
	ivn_msg_init(ivn);
	/* cleared slot is visible before the new incarnation */
	wmb();
	do {
		inc = get_random_u32();
	} while (!inc || inc == old);
	iowrite32(inc, ivn->slot + IVN_SL_INCARNATION);
}

static int ivn_probe_port(struct pci_dev *pdev)
{
	struct ivn_dev *ivn;
	resource_size_t len;
	int ret;

	ivn = devm_kzalloc(&pdev->dev, sizeof(*ivn), GFP_KERNEL);
	if (!ivn)
		return -ENOMEM;
	ivn->pdev = pdev;
	ivn->self = PCI_SLOT(pdev->devfn) - IVN_SLOT_REGS;

	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	ret = pci_request_region(pdev, 2, KBUILD_MODNAME);
	if (ret)
		goto err_disable;
	len = pci_resource_len(pdev, 2);
	ivn->regs = pci_iomap(pdev, 2, 0);
	if (!ivn->regs) {
		ret = -ENOMEM;
		goto err_release;
	}
	ret = ivn_check_header(ivn, len);
	if (ret)
		goto err_unmap;
	ret = ivn_get_peers(ivn);
	if (ret)
		goto err_peers;

	ivn_slot_start(ivn);

	ivn->ntb.pdev = pdev;
	ivn->ntb.topo = ivn_profile_topo(ivn->prof, ivn->self, ivn->self ^ 1);
	ivn->ntb.ops = &ivn_ntb_ops;
	pci_set_drvdata(pdev, ivn);
	/* before any client can allocate a window buffer */
	ivn_wm_setup(ivn, ioread32(ivn->regs + IVN_HDR_WINMEM));
	/* events need the NTB core's context lock: start polling after this */
	ret = ntb_register_device(&ivn->ntb);
	if (ret) {
		pci_err(pdev, "cannot register NTB device: %d\n", ret);
		goto err_stop;
	}
	ivn_db_start(ivn);
	ivn_link_start(ivn);
	if (ivn->mw_size)
		pci_info(pdev, "emulated NTB port %d of %d, %d translated windows of %llu KiB per peer, %d doorbells, %d scratchpads\n",
			 ivn->self, ivn->nodes, ivn->mw_count,
			 ivn->mw_size >> 10, (int)hweight64(ivn->prof->db_valid),
			 ivn->prof->spads);
	else
		pci_info(pdev, "emulated NTB port %d of %d, %llu MiB flat windows, %d doorbells, %d scratchpads\n",
			 ivn->self, ivn->nodes, ivn->ram_size >> 20,
			 IVN_DB_BITS, IVN_SPAD_COUNT);
	/* what the NTB API reports, for logs and tests */
	pci_info(pdev, "profile %s: port %d, %d peers, %d scratchpads, %d message registers, doorbells %#llx, %d windows of %llu KiB per peer, alignment %llu/%llu\n",
		 ivn->prof->name, ivn->port, ivn->npeers, ivn->prof->spads,
		 ivn->prof->msgs, ivn->prof->db_valid, ivn->mw_count,
		 (ivn->mw_size ?: ivn->ram_size) >> 10,
		 ivn->mw_size ? ivn->addr_align : ivn->ram_size,
		 ivn->mw_size ? ivn->size_align : ivn->ram_size);
	return 0;

err_stop:
	ivn_wm_teardown(ivn);
	ivn_db_stop(ivn);
	ivn_link_stop(ivn);
	iowrite32(0, ivn->slot + IVN_SL_INCARNATION);
err_peers:
	ivn_put_peers(ivn);
err_unmap:
	pci_iounmap(pdev, ivn->regs);
err_release:
	pci_release_region(pdev, 2);
err_disable:
	pci_disable_device(pdev);
	return ret;
}

static int ivn_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	unsigned int slot = PCI_SLOT(pdev->devfn);

	if (slot >= IVN_SLOT_REGS && slot < IVN_SLOT_REGS + IVN_MAX_NODES)
		return ivn_probe_port(pdev);
	/* peer RAM devices are used through the register-region device */
	if (slot >= IVN_SLOT_PEER_RAM && slot < IVN_SLOT_PEER_RAM + IVN_MAX_NODES)
		return -ENODEV;
	pci_info(pdev, "ivshmem device at slot %#x is not part of an emulated NTB\n",
		 slot);
	return -ENODEV;
}

static void ivn_remove(struct pci_dev *pdev)
{
	struct ivn_dev *ivn = pci_get_drvdata(pdev);

	/* unbinds the clients: no client calls after this */
	ntb_unregister_device(&ivn->ntb);
	ivn_wm_teardown(ivn);
	ivn_db_stop(ivn);
	ivn_link_stop(ivn);
	/* peers see this port go down at their next look */
	iowrite32(0, ivn->slot + IVN_SL_INCARNATION);
	ivn_put_peers(ivn);
	pci_iounmap(pdev, ivn->regs);
	pci_release_region(pdev, 2);
	pci_disable_device(pdev);
}

static struct pci_driver ivn_pci_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= ivn_pci_ids,
	.probe		= ivn_probe,
	.remove		= ivn_remove,
};

static int __init ivn_init(void)
{
	int ret;

	ret = ivn_profile_select();
	if (ret)
		return ret;
	ret = ivn_mw_params_check();
	if (ret)
		return ret;
	ret = pci_register_driver(&ivn_pci_driver);
	if (!ret && !pci_dev_present(ivn_pci_ids))
		pr_info("%s: no ivshmem device, no emulated NTB port\n",
			KBUILD_MODNAME);
	return ret;
}
module_init(ivn_init);

static void __exit ivn_exit(void)
{
	pci_unregister_driver(&ivn_pci_driver);
}
module_exit(ivn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Emulated NTB over QEMU ivshmem-plain devices");
