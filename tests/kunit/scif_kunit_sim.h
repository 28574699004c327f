/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A simulated link joining two instances inside one kernel, and instances
 * with their loopback transport, for KUnit (scif_kunit_sim.ko).
 */
#ifndef SCIF_KUNIT_SIM_H
#define SCIF_KUNIT_SIM_H

#include <linux/types.h>

struct scif_instance;
struct scif_sim_pair;

struct scif_instance *scif_sim_instance_create(const char *name, u16 self);
void scif_sim_instance_destroy(struct scif_instance *si);
struct scif_sim_pair *scif_sim_pair_create(struct scif_instance *a,
					   struct scif_instance *b,
					   size_t max_data);
struct scif_sim_pair *scif_sim_pair_create_staged(struct scif_instance *a,
						  struct scif_instance *b,
						  size_t max_data);
void scif_sim_pair_down(struct scif_sim_pair *pair);
void scif_sim_pair_destroy(struct scif_sim_pair *pair);
int scif_sim_inject(struct scif_sim_pair *pair, struct scif_instance *to,
		    const void *buf, size_t size);
void scif_sim_settle(struct scif_sim_pair *pair);
void scif_sim_hold(struct scif_sim_pair *pair, struct scif_instance *from,
		   u8 type);
void scif_sim_release(struct scif_sim_pair *pair, struct scif_instance *from);
unsigned int scif_sim_held(struct scif_sim_pair *pair,
			   struct scif_instance *from);
unsigned long scif_sim_sent(struct scif_sim_pair *pair,
			    struct scif_instance *from, u8 type);

#endif /* SCIF_KUNIT_SIM_H */
