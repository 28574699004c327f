/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the SCIF core offers /dev/scif (dev/) and the KUnit suites beyond
 * the public API of <linux/scif.h>.
 *
 * The public functions of <linux/scif.h> create endpoints in, and report the
 * nodes of, the module's default instance; the scif_instance_*() variants
 * below do the same for any instance. Once an endpoint exists, every call
 * on it acts on the instance it belongs to.
 */
#ifndef SCIF_ENDPT_API_H
#define SCIF_ENDPT_API_H

#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/scif.h>
#include <linux/types.h>

struct scif_instance;

__poll_t scif_epd_poll(scif_epd_t epd, struct file *file, poll_table *wait);
void scif_epd_flush(scif_epd_t epd);
int scif_epd_connect_nb(scif_epd_t epd, struct scif_port_id *dst);
int scif_epd_park(scif_epd_t epd, scif_epd_t newepd, u64 *handle);
scif_epd_t scif_epd_claim(u64 handle);

scif_epd_t scif_instance_open(struct scif_instance *si);
scif_epd_t scif_instance_claim(struct scif_instance *si, u64 handle);

#endif /* SCIF_ENDPT_API_H */
