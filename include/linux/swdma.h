/* SPDX-License-Identifier: GPL-2.0 */
/*
 * swdma, the software memcpy dmaengine provider of the test rig
 * (Documentation/swdma.rst).
 */
#ifndef _LINUX_SWDMA_H
#define _LINUX_SWDMA_H

#include <linux/dmaengine.h>

bool swdma_filter(struct dma_chan *chan, void *param);

#endif /* _LINUX_SWDMA_H */
