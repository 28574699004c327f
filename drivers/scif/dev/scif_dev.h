/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/scif, debugfs and mmap of the peer's windows: the top layer, as the
 * module's entry (scif_main.c) sees it.
 */
#ifndef SCIF_DEV_H
#define SCIF_DEV_H

int scif_dev_register(void);
void scif_dev_unregister(void);
int scif_fdev_init(void);
void scif_fdev_exit(void);

#endif /* SCIF_DEV_H */
