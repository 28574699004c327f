// SPDX-License-Identifier: GPL-2.0
/*
 * scif_rig_leak: a module that loses one allocation when it loads, so that
 * tests/e2e/rig-selftest.t can check that the rig's kmemleak scans
 * (scripts/rig/guest-leak-scan) find a leak and fail the run. Test only:
 * never installed.
 */
#include <linux/module.h>
#include <linux/slab.h>

static int __init scif_rig_leak_init(void)
{
	/* the pointer is dropped: nothing references the object */
	void *lost = kmalloc(1024, GFP_KERNEL);

	if (!lost)
		return -ENOMEM;
	pr_info("scif_rig_leak: lost 1024 bytes on purpose\n");
	return 0;
}
module_init(scif_rig_leak_init);

static void __exit scif_rig_leak_exit(void)
{
}
module_exit(scif_rig_leak_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SCIF test rig: a deliberate memory leak for kmemleak");
