/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/scif: the userspace face of the default SCIF instance.
 */
#ifndef SCIF_FDEV_H
#define SCIF_FDEV_H

int scif_fdev_init(void);
void scif_fdev_exit(void);

#endif /* SCIF_FDEV_H */
