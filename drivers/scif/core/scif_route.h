/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF routes: which neighbour leads to each node of the fabric, learnt
 * from what the neighbours announce (a distance vector with a hop bound,
 * see Documentation/scif-routing.rst). Private to core/.
 */
#ifndef SCIF_ROUTE_H
#define SCIF_ROUTE_H

#include <linux/bitmap.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct seq_file;

#include "scif_core.h"
#include "scif_wire.h"

/* Number of node ids, and so of destinations and neighbours. */
#define SCIF_ROUTE_NODES	(SCIF_MAX_NODE_ID + 1)

/**
 * struct scif_route_nbr - what one neighbour announced, and what it is owed
 * @hops: per destination, the hop count the neighbour announced last
 *	  (%SCIF_ROUTE_HOPS_MAX: none, or withdrawn)
 * @ident: per destination, the identity that came with it (0 with none)
 * @gen: per destination, the path generation that came with it
 * @dirty: the destinations whose route changed since they were last
 *	   announced to this neighbour (all of them when the link came up)
 * @heard: the neighbour announced something already; its first
 *	   announcement is answered with our whole table, in case ours
 *	   reached it before it knew the link
 */
struct scif_route_nbr {
	u8 hops[SCIF_ROUTE_NODES];
	u32 ident[SCIF_ROUTE_NODES];
	u8 gen[SCIF_ROUTE_NODES];
	DECLARE_BITMAP(dirty, SCIF_ROUTE_NODES);
	bool heard;
};

/**
 * struct scif_route - the route to one destination
 * @hops: links from here to the destination (1 for a neighbour);
 *	  %SCIF_ROUTE_HOPS_MAX if there is no route
 * @via: the neighbour that messages to the destination are given to
 *	 (meaningful only with a route)
 * @ident: the destination's identity (0 without a route)
 * @gen: the generation of our path, announced with it: changes with each
 *	 change of @hops, @via, @ident or @via_gen
 * @via_gen: the generation @via announced for the destination
 */
struct scif_route {
	u8 hops;
	u16 via;
	u32 ident;
	u8 gen;
	u8 via_gen;
};

/**
 * struct scif_route_table - the routes of one instance
 * @lock: protects @nbr, every &struct scif_route_nbr it points to, and
 *	  @route; taken in core/scif_route.c only, by each of its functions
 *	  (a mutex: callers are in process context, and the table is changed
 *	  by whole announcements of up to %SCIF_ROUTE_NODES entries)
 * @name: names the instance in messages
 * @self: the instance's own node id, never a destination
 * @self_ident: the instance's own random identity (non-zero)
 * @nbr: per node id, what that neighbour announced, or NULL while no link
 *	 to it is up
 * @route: per destination, the best route, derived from @nbr
 *
 * About 5 KiB, allocated with the instance: announcements change it but
 * never allocate. A neighbour's vector is allocated when its link comes up.
 */
struct scif_route_table {
	struct mutex lock;	/* @nbr, @route */
	const char *name;
	u16 self;
	u32 self_ident;
	struct scif_route_nbr *nbr[SCIF_ROUTE_NODES];
	struct scif_route route[SCIF_ROUTE_NODES];
};

void scif_route_init(struct scif_route_table *rt, const char *name, u16 self,
		     u32 self_ident);
void scif_route_destroy(struct scif_route_table *rt);
int scif_route_link_up(struct scif_route_table *rt, u16 nbr);
void scif_route_link_down(struct scif_route_table *rt, u16 nbr,
			  unsigned long *changed);
int scif_route_rx(struct scif_route_table *rt, u16 nbr,
		  const struct scif_wire_route *e, unsigned int n,
		  unsigned long *changed);
int scif_route_lookup(struct scif_route_table *rt, u16 dst, u16 *via);
int scif_route_path(struct scif_route_table *rt, u16 dst, u16 *via,
		    u32 *path);
bool scif_route_src_ok(struct scif_route_table *rt, u16 src, u16 nbr);
void scif_route_far(struct scif_route_table *rt, unsigned long *far);
bool scif_route_set_self(struct scif_route_table *rt, u16 self);
void scif_route_nbrs(struct scif_route_table *rt, unsigned long *nbrs);
bool scif_route_take_dirty(struct scif_route_table *rt, u16 to,
			   unsigned long *which);
void scif_route_show(struct scif_route_table *rt, struct seq_file *m);
unsigned int scif_route_fill(struct scif_route_table *rt, u16 to,
			     const unsigned long *which, unsigned int *pos,
			     struct scif_wire_route *e, unsigned int max);

/**
 * struct scif_routing - an instance's routes and their announcer
 * @rt: the route table (internally locked)
 * @si: the instance
 * @work: sends what the neighbours are owed; runs one at a time, so @buf
 *	  and @which are its own
 * @which: the destinations owed to the neighbour being served; before
 *	   that, the destinations scif_routed_sync() looks at
 * @nbrs: the neighbours, as the work last saw them
 * @buf: the entries of one message
 */
struct scif_routing {
	struct scif_route_table rt;
	struct scif_instance *si;
	struct work_struct work;
	DECLARE_BITMAP(which, SCIF_ROUTE_NODES);
	DECLARE_BITMAP(nbrs, SCIF_ROUTE_NODES);
	struct scif_wire_route buf[SCIF_ROUTE_NODES];
};

/* core/scif_route_msg.c: the table of an instance, on the wire */
void scif_routes_node_up(struct scif_instance *si, u16 node);
void scif_routes_node_down(struct scif_instance *si, u16 node);
void scif_routes_resync(struct scif_instance *si);
int scif_handle_route(struct scif_instance *si, u16 node,
		      const struct scif_wire_msg *msg, const void *data,
		      size_t len);

/* core/scif_route_msg.c: the route work (announcer) */
void scif_node_announce_routes(struct work_struct *work);

#endif /* SCIF_ROUTE_H */
