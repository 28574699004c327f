// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF module entry: assembles the layers.
 *
 * The core knows the layers above it only by the handlers they register
 * (struct scif_layer); this file registers them, lowest first, before the
 * default instance exists, gives that instance its loopback transport
 * (struct scif_transport), and creates /dev/scif once it does. Unload runs
 * the same steps backwards. See Documentation/architecture.rst.
 */
#include <linux/module.h>

#include "core/scif_core.h"
#include "dev/scif_dev.h"
#include "link/scif_loopback.h"
#include "rma/scif_dma.h"
#include "rma/scif_rma.h"

static struct scif_instance *scif_default;

static void scif_layers_unregister(void)
{
	scif_dev_unregister();
	scif_layer_unregister(&scif_rma_layer);
}

static int scif_layers_register(void)
{
	int ret;

	ret = scif_layer_register(&scif_rma_layer);
	if (!ret)
		ret = scif_dev_register();
	if (ret)
		scif_layers_unregister();
	return ret;
}

static int __init scif_init(void)
{
	int ret;

	ret = scif_dma_init();
	if (ret)
		return ret;
	ret = scif_layers_register();
	if (ret)
		goto dma;
	ret = -ENOMEM;
	scif_default = scif_instance_create("scif", 0);
	if (!scif_default)
		goto layers;
	ret = scif_loopback_attach(scif_default);
	if (ret)
		goto instance;
	scif_set_default_instance(scif_default);
	ret = scif_fdev_init();
	if (ret)
		goto loopback;
	return 0;
loopback:
	scif_set_default_instance(NULL);
	scif_loopback_detach(scif_default);
instance:
	scif_instance_destroy(scif_default);
layers:
	scif_layers_unregister();
dma:
	scif_dma_exit();
	return ret;
}

static void __exit scif_exit(void)
{
	scif_fdev_exit();
	scif_set_default_instance(NULL);
	scif_loopback_detach(scif_default);
	scif_instance_destroy(scif_default);
	scif_layers_unregister();
	scif_dma_exit();
}

module_init(scif_init);
module_exit(scif_exit);

MODULE_DESCRIPTION("SCIF endpoints and RMA over PCIe non-transparent bridges");
MODULE_LICENSE("GPL");
