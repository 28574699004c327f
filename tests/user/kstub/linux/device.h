/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two driver-core structures <linux/scif.h> embeds, for compiling it
 * on the host (kernel_header_test.c). Only their presence matters there.
 */
#ifndef SCIF_KSTUB_LINUX_DEVICE_H
#define SCIF_KSTUB_LINUX_DEVICE_H

struct device {
	void *driver_data;
};

struct subsys_interface {
	const char *name;
};

#endif /* SCIF_KSTUB_LINUX_DEVICE_H */
