/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF access to the peer's windows without an RMA: scif_get_pages()
 * (scif_get_pages.c) and mmap() of /dev/scif (scif_mmap.c).
 * See Documentation/scif-rma.rst.
 */
#ifndef SCIF_MMAP_H
#define SCIF_MMAP_H

#include <linux/scif.h>
#include <linux/types.h>

struct scif_endpt;
struct scif_instance;
struct vm_area_struct;

/* scif_get_pages.c */
void scif_get_pages_ep_close(struct scif_endpt *ep);
bool scif_get_pages_wait(struct scif_endpt *ep, long timeout);

/* scif_mmap.c */
int scif_mmap(scif_epd_t epd, struct vm_area_struct *vma);
void scif_mmap_ep_dead(struct scif_endpt *ep);
void scif_mmap_node_lost(struct scif_instance *si, u16 node);

#endif /* SCIF_MMAP_H */
