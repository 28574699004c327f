// SPDX-License-Identifier: GPL-2.0
/*
 * swdma - a dmaengine provider whose "hardware" is the CPU.
 *
 * QEMU's x86 machines emulate no memcpy DMA engine, yet the SCIF RMA path
 * and upstream dmaengine clients (dmatest, ntb_transport, ntb_perf) need
 * one to run against. This module registers a DMA_MEMCPY/DMA_INTERRUPT
 * device with a configurable number of channels. Each channel executes its
 * issued descriptors strictly in submission order from a work item, copying
 * with the CPU between the physical addresses the DMA addresses stand for.
 *
 * DMA addresses are produced by dma_map_*() on our platform device, which
 * has no IOMMU and no offset, so a dma_addr_t is a CPU physical address.
 * RAM is reached through the kernel mapping; anything else (a PCI BAR such
 * as the NTB window onto a peer's memory) through memremap(). Mapping is
 * the expensive part of a small copy, so each channel side keeps its last
 * mapping; inside a prefetchable memory resource (a BAR whose reads have
 * no side effects) that mapping covers up to %SWDMA_BLOCK of the resource
 * write-combined, elsewhere only what the descriptor touches.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>

#include "swdma_dev.h"

#define SWDMA_NAME		"swdma"
#define SWDMA_MAX_CHANNELS	32

static unsigned int channels = 4;
module_param(channels, uint, 0444);
MODULE_PARM_DESC(channels, "Number of DMA channels (1-32, default 4)");

static unsigned int max_xfer = SZ_1G;
module_param(max_xfer, uint, 0444);
MODULE_PARM_DESC(max_xfer,
		 "Largest memcpy descriptor in bytes (>= PAGE_SIZE, default 1 GiB)");

static struct platform_device *swdma_pdev;

/* Last reference to the dma_device is gone: nothing can reach us now. */
static void swdma_release(struct dma_device *dma)
{
	struct swdma_dev *sd = to_swdma_dev(dma);

	destroy_workqueue(sd->wq);
	kfree(sd);
}

/* ---- device setup ------------------------------------------------------ */

static int __init swdma_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct dma_device *dma;
	struct swdma_dev *sd;
	unsigned int i;
	int ret;

	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	dma_set_max_seg_size(dev, max_xfer);

	sd = kzalloc(struct_size(sd, chans, channels), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->nr_chans = channels;
	sd->max_xfer = max_xfer;
	sd->wq = alloc_workqueue(SWDMA_NAME, WQ_UNBOUND, 0);
	if (!sd->wq) {
		kfree(sd);
		return -ENOMEM;
	}

	dma = &sd->dma;
	dma->dev = dev;
	dma_cap_set(DMA_MEMCPY, dma->cap_mask);
	dma_cap_set(DMA_INTERRUPT, dma->cap_mask);
	dma_cap_set(DMA_PRIVATE, dma->cap_mask);
	dma->copy_align = DMAENGINE_ALIGN_1_BYTE;
	dma->directions = BIT(DMA_MEM_TO_MEM);
	dma->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	swdma_set_ops(dma);
	dma->device_release = swdma_release;
	INIT_LIST_HEAD(&dma->channels);

	for (i = 0; i < sd->nr_chans; i++)
		swdma_chan_init(&sd->chans[i], dma);

	ret = dma_async_device_register(dma);
	if (ret) {
		swdma_release(dma);
		return ret;
	}
	platform_set_drvdata(pdev, sd);
	dev_info(dev, "%u channels, max transfer %u bytes\n", channels,
		 max_xfer);
	return 0;
}

static struct platform_driver swdma_driver = {
	.driver = {
		.name = SWDMA_NAME,
	},
};

static int __init swdma_init(void)
{
	if (channels < 1 || channels > SWDMA_MAX_CHANNELS) {
		pr_err("channels=%u out of range 1-%u\n",
		       channels, SWDMA_MAX_CHANNELS);
		return -EINVAL;
	}
	if (max_xfer < PAGE_SIZE) {
		pr_err("max_xfer=%u below PAGE_SIZE\n", max_xfer);
		return -EINVAL;
	}

	swdma_pdev = platform_create_bundle(&swdma_driver, swdma_probe, NULL,
					    0, NULL, 0);
	return PTR_ERR_OR_ZERO(swdma_pdev);
}
module_init(swdma_init);

static void __exit swdma_exit(void)
{
	struct swdma_dev *sd = platform_get_drvdata(swdma_pdev);

	/*
	 * Channel users hold a reference on this module, so no client is
	 * left: this drops the last reference to the device and frees sd.
	 */
	dma_async_device_unregister(&sd->dma);
	platform_device_unregister(swdma_pdev);
	platform_driver_unregister(&swdma_driver);
}
module_exit(swdma_exit);

MODULE_DESCRIPTION("Software memcpy dmaengine provider for test rigs");
MODULE_LICENSE("GPL");
