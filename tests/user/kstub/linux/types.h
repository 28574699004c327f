/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What <linux/scif.h> takes from the kernel's <linux/types.h>, for
 * compiling it on the host (kernel_header_test.c): the uapi types of the
 * installed header, the kernel's short fixed-width names, and the
 * address-space annotation, which only sparse gives a meaning.
 */
#ifndef SCIF_KSTUB_LINUX_TYPES_H
#define SCIF_KSTUB_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
#define dma_addr_t u64
#define __iomem

#endif /* SCIF_KSTUB_LINUX_TYPES_H */
