// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF routes: a distance vector with a hop bound.
 *
 * Each neighbour tells us, per destination, how many links it is away
 * (&struct scif_wire_route). The route to a destination goes through the
 * neighbour that announced the fewest, ties going to the lower neighbour
 * id; a route of %SCIF_ROUTE_HOPS_MAX links or more is no route, so that a
 * loop counts up to the bound and dies. What we announce to a neighbour
 * leaves out (announces as unreachable) the routes that go through it.
 * Identities tell two nodes with one id apart: the first one learnt keeps
 * the id. Announcements are peer input: scif_route_rx() checks a whole
 * message before it uses any of it. See Documentation/scif-routing.rst.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/lockdep.h>
#include <linux/printk.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "scif_route.h"

/**
 * scif_route_init() - set up an empty route table
 * @rt: the table
 * @name: names the instance in messages; must outlive the table
 * @self: the instance's node id
 * @self_ident: the instance's identity, non-zero
 */
void scif_route_init(struct scif_route_table *rt, const char *name, u16 self,
		     u32 self_ident)
{
	unsigned int d;

	mutex_init(&rt->lock);
	rt->name = name;
	rt->self = self;
	rt->self_ident = self_ident;
	for (d = 0; d < SCIF_ROUTE_NODES; d++) {
		rt->nbr[d] = NULL;
		rt->route[d].hops = SCIF_ROUTE_HOPS_MAX;
		rt->route[d].via = 0;
		rt->route[d].ident = 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_init);

/**
 * scif_route_destroy() - free what a route table holds
 * @rt: the table; no other function may run on it any more
 */
void scif_route_destroy(struct scif_route_table *rt)
{
	unsigned int d;

	for (d = 0; d < SCIF_ROUTE_NODES; d++) {
		kfree(rt->nbr[d]);
		rt->nbr[d] = NULL;
	}
	mutex_destroy(&rt->lock);
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_destroy);

/*
 * Derive the route to @d from what the neighbours announced; set @d in
 * @changed if the route appeared, went, or changed its hop count or next
 * hop.
 */
static void scif_route_pick(struct scif_route_table *rt, unsigned int d,
			    unsigned long *changed)
{
	struct scif_route *r = &rt->route[d];
	unsigned int n, best = SCIF_ROUTE_HOPS_MAX;
	u8 via_gen = 0;
	u16 via = 0;
	u32 ident = 0;

	lockdep_assert_held(&rt->lock);
	if (d == rt->self)
		return;
	for (n = 0; n < SCIF_ROUTE_NODES; n++) {
		struct scif_route_nbr *v = rt->nbr[n];

		/* Strictly fewer: ties go to the lower neighbour id. */
		if (v && v->hops[d] + 1U < best) {
			best = v->hops[d] + 1U;
			via = n;
			ident = v->ident[d];
			via_gen = v->gen[d];
		}
	}
	if (best >= SCIF_ROUTE_HOPS_MAX) {
		best = SCIF_ROUTE_HOPS_MAX;
		via = 0;
		ident = 0;
		via_gen = 0;
	} else if (r->hops < SCIF_ROUTE_HOPS_MAX && rt->nbr[r->via] &&
		   rt->nbr[r->via]->hops[d] + 1U == best) {
		/* As short as the best: a move would reset its connections. */
		via = r->via;
		ident = rt->nbr[via]->ident[d];
		via_gen = rt->nbr[via]->gen[d];
	}
	if (r->hops == best && r->via == via && r->ident == ident &&
	    r->via_gen == via_gen)
		return;
	r->hops = best;
	r->via = via;
	r->ident = ident;
	r->via_gen = via_gen;
	r->gen = best < SCIF_ROUTE_HOPS_MAX ? r->gen + 1 : 0;
	if (changed)
		__set_bit(d, changed);
	/* Owed to every neighbour (also to @via: now as withdrawn). */
	for (n = 0; n < SCIF_ROUTE_NODES; n++)
		if (rt->nbr[n])
			__set_bit(d, rt->nbr[n]->dirty);
}

/**
 * scif_route_link_up() - a link to a neighbour came up
 * @rt: the table
 * @nbr: the neighbour's node id
 *
 * The neighbour announces nothing yet: its routes, itself included, come
 * with its first announcement (scif_route_rx()).
 *
 * Return: 0, -EINVAL (@nbr is out of range or our own id), -EEXIST (a link
 * to @nbr is up already) or -ENOMEM.
 */
int scif_route_link_up(struct scif_route_table *rt, u16 nbr)
{
	struct scif_route_nbr *v;
	int ret = 0;

	if (nbr >= SCIF_ROUTE_NODES || nbr == rt->self)
		return -EINVAL;
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	memset(v->hops, SCIF_ROUTE_HOPS_MAX, sizeof(v->hops));
	bitmap_fill(v->dirty, SCIF_ROUTE_NODES);
	mutex_lock(&rt->lock);
	if (rt->nbr[nbr])
		ret = -EEXIST;
	else
		rt->nbr[nbr] = v;
	mutex_unlock(&rt->lock);
	if (ret)
		kfree(v);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_link_up);

/**
 * scif_route_link_down() - a link to a neighbour went down
 * @rt: the table
 * @nbr: the neighbour's node id
 * @changed: a bitmap of %SCIF_ROUTE_NODES bits; the destinations whose
 *	     route changed are set in it (the others are left alone)
 *
 * Everything the neighbour announced is forgotten; the routes through it
 * move to another neighbour that announced their destination, or are gone.
 */
void scif_route_link_down(struct scif_route_table *rt, u16 nbr,
			  unsigned long *changed)
{
	struct scif_route_nbr *v;
	unsigned int d;

	if (nbr >= SCIF_ROUTE_NODES)
		return;
	mutex_lock(&rt->lock);
	v = rt->nbr[nbr];
	rt->nbr[nbr] = NULL;
	if (v) {
		for (d = 0; d < SCIF_ROUTE_NODES; d++)
			scif_route_pick(rt, d, changed);
	}
	mutex_unlock(&rt->lock);
	kfree(v);
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_link_down);

/* The checks of one entry that need nothing but the entry and its sender. */
static int scif_route_check(struct scif_route_table *rt, u16 nbr,
			    const struct scif_wire_route *e)
{
	unsigned int node = le16_to_cpu(e->node);
	bool named = le32_to_cpu(e->ident) != 0;
	bool route = e->hops < SCIF_ROUTE_HOPS_MAX;
	bool sender = node == nbr;
	bool zero = e->hops == 0;

	if (node >= SCIF_ROUTE_NODES || e->hops > SCIF_ROUTE_HOPS_MAX)
		return -EPROTO;
	/* Only a path has a generation. */
	if (e->gen && (zero || !route))
		return -EPROTO;
	/* A route names its destination's identity; a withdrawal none. */
	if (route != named)
		return -EPROTO;
	/* Hop count 0 is the sender itself, and the sender is at 0. */
	if (zero != sender)
		return -EPROTO;
	return 0;
}

/*
 * Whether @ident may hold the id @d: it is the identity already known for
 * @d (ours for our own id), or none is known. Reports a refusal.
 */
static bool scif_route_ident_ok(struct scif_route_table *rt, u16 nbr,
				unsigned int d, u32 ident)
{
	u32 known;

	lockdep_assert_held(&rt->lock);
	known = d == rt->self ? rt->self_ident : rt->route[d].ident;
	if (!known || known == ident)
		return true;
	pr_warn_ratelimited("scif %s: node id %u claimed by two nodes (identity %08x, and %08x announced by node %u): refusing the second\n",
			    rt->name, d, known, ident, nbr);
	return false;
}

/**
 * scif_route_rx() - take in an announcement from a neighbour
 * @rt: the table
 * @nbr: the neighbour, as its link says
 * @e: the entries
 * @n: their number, at most %SCIF_ROUTE_NODES
 * @changed: a bitmap of %SCIF_ROUTE_NODES bits; the destinations whose
 *	     route changed are set in it
 *
 * Each entry replaces what @nbr said before about its destination. The
 * message is refused as a whole, with nothing changed, if any entry breaks
 * a rule (Documentation/scif-routing.rst, "Checks on announcements") or if
 * no link to @nbr is up. An entry that names an id with another identity
 * than the one known for it (our own included) is refused on its own, as
 * if @nbr had withdrawn the destination, and reported.
 *
 * Return: 0; -EEXIST if an entry was refused for its identity (the others
 * were taken); -EPROTO for a message that breaks the rules; -ENOENT if no
 * link to @nbr is up.
 */
int scif_route_rx(struct scif_route_table *rt, u16 nbr,
		  const struct scif_wire_route *e, unsigned int n,
		  unsigned long *changed)
{
	DECLARE_BITMAP(seen, SCIF_ROUTE_NODES);
	struct scif_route_nbr *v;
	unsigned int i;
	int ret = 0;

	if (nbr >= SCIF_ROUTE_NODES || n > SCIF_ROUTE_NODES)
		return -EPROTO;
	bitmap_zero(seen, SCIF_ROUTE_NODES);
	for (i = 0; i < n; i++) {
		unsigned int d = le16_to_cpu(e[i].node);

		if (scif_route_check(rt, nbr, &e[i]))
			return -EPROTO;
		if (__test_and_set_bit(d, seen))
			return -EPROTO;
	}
	mutex_lock(&rt->lock);
	v = rt->nbr[nbr];
	if (!v) {
		mutex_unlock(&rt->lock);
		return -ENOENT;
	}
	if (!v->heard) {
		v->heard = true;
		bitmap_fill(v->dirty, SCIF_ROUTE_NODES);
	}
	for (i = 0; i < n; i++) {
		unsigned int d = le16_to_cpu(e[i].node);
		u32 ident = le32_to_cpu(e[i].ident);
		u8 hops = e[i].hops, gen = e[i].gen;

		if (hops < SCIF_ROUTE_HOPS_MAX &&
		    !scif_route_ident_ok(rt, nbr, d, ident)) {
			ret = -EEXIST;
			hops = SCIF_ROUTE_HOPS_MAX;
			ident = 0;
			gen = 0;
		}
		if (d == rt->self)
			continue;
		v->hops[d] = hops;
		v->ident[d] = ident;
		v->gen[d] = gen;
		scif_route_pick(rt, d, changed);
	}
	mutex_unlock(&rt->lock);
	if (ret == -EEXIST)
		return ret;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_rx);

/**
 * scif_route_lookup() - the route to a destination
 * @rt: the table
 * @dst: the destination, any value
 * @via: set to the neighbour to give messages for @dst to (may be NULL)
 *
 * Return: the number of links to @dst (at least 1), or -EHOSTUNREACH if
 * there is no route (our own id has none).
 */
int scif_route_lookup(struct scif_route_table *rt, u16 dst, u16 *via)
{
	int ret = -EHOSTUNREACH;

	if (dst >= SCIF_ROUTE_NODES)
		return ret;
	mutex_lock(&rt->lock);
	if (rt->route[dst].hops < SCIF_ROUTE_HOPS_MAX) {
		ret = rt->route[dst].hops;
		if (via)
			*via = rt->route[dst].via;
	}
	mutex_unlock(&rt->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_lookup);

/**
 * scif_route_path() - the route to a destination, and which path it takes
 * @rt: the table
 * @dst: the destination, any value
 * @via: set to the neighbour to give messages for @dst to
 * @path: set to a value that changes whenever the path to @dst changes,
 *	  anywhere along it (the next hop, or the generation it announced)
 *
 * Return: as scif_route_lookup().
 */
int scif_route_path(struct scif_route_table *rt, u16 dst, u16 *via,
		    u32 *path)
{
	const struct scif_route *r;
	int ret = -EHOSTUNREACH;

	if (dst >= SCIF_ROUTE_NODES)
		return ret;
	mutex_lock(&rt->lock);
	r = &rt->route[dst];
	if (r->hops < SCIF_ROUTE_HOPS_MAX) {
		ret = r->hops;
		*via = r->via;
		*path = r->via | (u32)r->gen << 16;
	}
	mutex_unlock(&rt->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_path);

/**
 * scif_route_far() - the destinations reached through another node
 * @rt: the table
 * @far: a bitmap of %SCIF_ROUTE_NODES bits, set to the destinations whose
 *	 route has two hops or more
 */
void scif_route_far(struct scif_route_table *rt, unsigned long *far)
{
	unsigned int d;

	bitmap_zero(far, SCIF_ROUTE_NODES);
	mutex_lock(&rt->lock);
	for (d = 0; d < SCIF_ROUTE_NODES; d++)
		if (rt->route[d].hops >= 2 &&
		    rt->route[d].hops < SCIF_ROUTE_HOPS_MAX)
			__set_bit(d, far);
	mutex_unlock(&rt->lock);
}

/**
 * scif_route_src_ok() - whether a neighbour may pass on a message of a node
 * @rt: the table
 * @src: the node the message names as its sender, any value
 * @nbr: the neighbour whose link it came over
 *
 * A neighbour speaks for itself, and forwards for a node only if it lies
 * on a shortest path from here to that node: it announced the node at one
 * hop fewer than our route has. That is our route's next hop, or one as
 * good (where paths of equal length exist, as in a ring, the node at the
 * other end may pick the other). A neighbour that announced no route to
 * @src, or a longer one, would be impersonating it; our own id is never
 * the sender of a message we receive.
 *
 * Return: true if the message may be taken as sent by @src.
 */
bool scif_route_src_ok(struct scif_route_table *rt, u16 src, u16 nbr)
{
	const struct scif_route_nbr *v;
	bool ret = false;

	if (src >= SCIF_ROUTE_NODES || nbr >= SCIF_ROUTE_NODES)
		return false;
	mutex_lock(&rt->lock);
	v = rt->nbr[nbr];
	if (src == rt->self)
		ret = false;
	else if (src == nbr)
		ret = true;
	else if (v && rt->route[src].hops < SCIF_ROUTE_HOPS_MAX)
		ret = v->hops[src] + 1U == rt->route[src].hops;
	mutex_unlock(&rt->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_src_ok);

/**
 * scif_route_fill() - write an announcement for a neighbour
 * @rt: the table
 * @to: the neighbour it is for
 * @which: a bitmap of %SCIF_ROUTE_NODES bits: the destinations to announce
 *	   (our own id among them announces ourselves, at hop count 0)
 * @pos: the first destination to look at; set to where the next call goes
 *	 on (%SCIF_ROUTE_NODES once every destination was written)
 * @e: the entries to fill
 * @max: room at @e
 *
 * A destination without a route, or whose route goes through @to, is
 * announced as withdrawn. Call again while @pos is below
 * %SCIF_ROUTE_NODES, for announcements larger than one message.
 *
 * Return: the number of entries written.
 */
unsigned int scif_route_fill(struct scif_route_table *rt, u16 to,
			     const unsigned long *which, unsigned int *pos,
			     struct scif_wire_route *e, unsigned int max)
{
	unsigned int d, n = 0;

	mutex_lock(&rt->lock);
	for (d = find_next_bit(which, SCIF_ROUTE_NODES, *pos);
	     d < SCIF_ROUTE_NODES && n < max;
	     d = find_next_bit(which, SCIF_ROUTE_NODES, d + 1)) {
		const struct scif_route *r = &rt->route[d];
		u8 hops = SCIF_ROUTE_HOPS_MAX, gen = 0;
		u32 ident = 0;

		if (d == rt->self) {
			hops = 0;
			ident = rt->self_ident;
		} else if (r->hops < SCIF_ROUTE_HOPS_MAX && r->via != to) {
			hops = r->hops;
			ident = r->ident;
			gen = r->gen;
		}
		e[n].node = cpu_to_le16(d);
		e[n].hops = hops;
		e[n].gen = gen;
		e[n].ident = cpu_to_le32(ident);
		n++;
	}
	*pos = d;
	mutex_unlock(&rt->lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_fill);

/**
 * scif_route_set_self() - follow a change of the instance's node id
 * @rt: the table
 * @self: the instance's id now
 *
 * The id of an instance changes only while no link is up: the table takes
 * @self only then.
 *
 * Return: false if a link is up and @self is not the table's id.
 */
bool scif_route_set_self(struct scif_route_table *rt, u16 self)
{
	bool ret = true;
	unsigned int n;

	mutex_lock(&rt->lock);
	for (n = 0; n < SCIF_ROUTE_NODES; n++)
		if (rt->nbr[n])
			ret = false;
	if (ret)
		rt->self = self;
	else
		ret = rt->self == self;
	mutex_unlock(&rt->lock);
	return ret;
}

/**
 * scif_route_nbrs() - the neighbours whose link is up
 * @rt: the table
 * @nbrs: a bitmap of %SCIF_ROUTE_NODES bits, set to them
 */
void scif_route_nbrs(struct scif_route_table *rt, unsigned long *nbrs)
{
	unsigned int n;

	bitmap_zero(nbrs, SCIF_ROUTE_NODES);
	mutex_lock(&rt->lock);
	for (n = 0; n < SCIF_ROUTE_NODES; n++)
		if (rt->nbr[n])
			__set_bit(n, nbrs);
	mutex_unlock(&rt->lock);
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_nbrs);

/**
 * scif_route_take_dirty() - what a neighbour is owed, and forget it
 * @rt: the table
 * @to: the neighbour
 * @which: a bitmap of %SCIF_ROUTE_NODES bits, set to the destinations to
 *	   announce to @to (scif_route_fill()); cleared if there are none
 *
 * Announcing reads the routes as they are when scif_route_fill() runs, so
 * a change after this call is owed again and announced by a later call.
 *
 * Return: true if @which is not empty.
 */
bool scif_route_take_dirty(struct scif_route_table *rt, u16 to,
			   unsigned long *which)
{
	struct scif_route_nbr *v;
	bool ret = false;

	bitmap_zero(which, SCIF_ROUTE_NODES);
	if (to >= SCIF_ROUTE_NODES)
		return false;
	mutex_lock(&rt->lock);
	v = rt->nbr[to];
	if (v) {
		bitmap_copy(which, v->dirty, SCIF_ROUTE_NODES);
		bitmap_zero(v->dirty, SCIF_ROUTE_NODES);
		ret = !bitmap_empty(which, SCIF_ROUTE_NODES);
	}
	mutex_unlock(&rt->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(scif_route_take_dirty);

/**
 * scif_route_show() - print the routes, one destination a line
 * @rt: the table
 * @m: where to
 */
void scif_route_show(struct scif_route_table *rt, struct seq_file *m)
{
	unsigned int d;

	mutex_lock(&rt->lock);
	seq_printf(m, "self %u identity %08x\n", rt->self, rt->self_ident);
	seq_puts(m, "node  hops  via   identity\n");
	for (d = 0; d < SCIF_ROUTE_NODES; d++) {
		const struct scif_route *r = &rt->route[d];

		if (r->hops < SCIF_ROUTE_HOPS_MAX)
			seq_printf(m, "%-5u %-5u %-5u %08x\n", d, r->hops,
				   r->via, r->ident);
	}
	mutex_unlock(&rt->lock);
}
