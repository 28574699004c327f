// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF module entry: creates the default instance and the /dev/scif device.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_kunit_export.h"

/**
 * scif_instance_create() - allocate and initialise an empty SCIF node
 *
 * Return: the new instance, or NULL when memory is short.
 */
struct scif_instance *scif_instance_create(void)
{
	struct scif_instance *si;

	si = kzalloc(sizeof(*si), GFP_KERNEL);
	if (!si)
		return NULL;
	scif_port_space_init(&si->ports);
	return si;
}
SCIF_EXPORT_FOR_KUNIT(scif_instance_create);

/**
 * scif_instance_destroy() - free an instance created by scif_instance_create()
 * @si: the instance, or NULL
 */
void scif_instance_destroy(struct scif_instance *si)
{
	if (!si)
		return;
	scif_port_space_destroy(&si->ports);
	kfree(si);
}
SCIF_EXPORT_FOR_KUNIT(scif_instance_destroy);

/*
 * The default node. Written once at module load before /dev/scif exists and
 * cleared at unload after it is gone, so readers need no lock.
 */
static struct scif_instance *scif_default;

static int scif_fdev_open(struct inode *inode, struct file *file)
{
	file->private_data = scif_default;
	return nonseekable_open(inode, file);
}

static const struct file_operations scif_fops = {
	.owner = THIS_MODULE,
	.open = scif_fdev_open,
};

static struct miscdevice scif_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "scif",
	.fops = &scif_fops,
	.mode = 0666,
};

static int __init scif_init(void)
{
	int ret;

	scif_default = scif_instance_create();
	if (!scif_default)
		return -ENOMEM;
	ret = misc_register(&scif_misc);
	if (ret) {
		scif_instance_destroy(scif_default);
		scif_default = NULL;
	}
	return ret;
}

static void __exit scif_exit(void)
{
	misc_deregister(&scif_misc);
	scif_instance_destroy(scif_default);
	scif_default = NULL;
}

module_init(scif_init);
module_exit(scif_exit);

MODULE_DESCRIPTION("SCIF endpoints and RMA over PCIe non-transparent bridges");
MODULE_LICENSE("GPL");
