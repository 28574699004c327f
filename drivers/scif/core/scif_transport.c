// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF transports: what carries an instance's links, registered with the
 * instance; and the instance's node id, which the transports claim here.
 *
 * A transport registers with every instance it serves and unregisters,
 * once its nodes are removed, before its module goes. The node id is the
 * instance's, not a transport's: the first transport to claim it while no
 * other holds a claim chooses it, later ones find the node keeping it, and
 * the id is free again once every claimant unregistered. A node id is
 * online through one link at a time, and never through a link of another
 * transport than the one that links the node to itself when it is the
 * instance's own id: scif_node_add() asks scif_transport_node_check().
 *
 * Locking: &scif_instance.transports_lock serialises registration, claims
 * and changes of the id; it is taken before &scif_instance.nodes_rwsem,
 * under which the id is written too, so that a node added under that
 * semaphore sees the id it is checked against (see core/scif_core.h).
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/string.h>

#include "scif_core.h"
#include "scif_instance.h"
#include "scif_link.h"
#include "scif_transport.h"

/* Whether @t is the transport that links its node to itself. */
static bool scif_transport_is_self(const struct scif_transport *t)
{
	return t && t->ops && t->ops->self_up;
}

static const char *scif_transport_name(const struct scif_transport *t)
{
	return t ? t->name : "a bare link";
}

/* The module of @t's code, for messages. */
static const char *scif_transport_module(const struct scif_transport *t)
{
	return t->owner ? module_name(t->owner) : "?";
}

/* The registered transport called @name, or NULL. */
static struct scif_transport *scif_transport_lookup(struct scif_instance *si,
						    const char *name)
{
	struct scif_transport *t;

	lockdep_assert_held(&si->transports_lock);
	list_for_each_entry(t, &si->transports, entry)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* The transport that links the node to itself, or NULL. */
static struct scif_transport *scif_transport_self(struct scif_instance *si)
{
	struct scif_transport *t;

	lockdep_assert_held(&si->transports_lock);
	list_for_each_entry(t, &si->transports, entry)
		if (scif_transport_is_self(t))
			return t;
	return NULL;
}

/* The first transport holding a claim on the node id, or NULL. */
static struct scif_transport *scif_transport_claimant(struct scif_instance *si)
{
	struct scif_transport *t;

	lockdep_assert_held(&si->transports_lock);
	list_for_each_entry(t, &si->transports, entry)
		if (t->claims)
			return t;
	return NULL;
}

/* Whether a node is online through a link of @t. */
static bool scif_transport_has_nodes(struct scif_instance *si,
				     const struct scif_transport *t)
{
	struct scif_node *n;
	unsigned long id;
	bool ret = false;

	down_read(&si->nodes_rwsem);
	xa_for_each(&si->nodes, id, n)
		ret |= n->link->transport == t;
	up_read(&si->nodes_rwsem);
	return ret;
}

/* Whether any node other than the instance itself is online. */
static bool scif_instance_has_peers(struct scif_instance *si)
{
	struct scif_node *n;
	unsigned long id;
	bool ret = false;

	down_read(&si->nodes_rwsem);
	xa_for_each(&si->nodes, id, n)
		ret |= id != si->self;
	up_read(&si->nodes_rwsem);
	return ret;
}

/**
 * scif_transport_register() - register a transport with an instance
 * @si: the instance
 * @t: the transport, with @t->name, @t->owner and @t->ops filled in
 *
 * A transport that links the node to itself (&scif_transport_ops.self_up)
 * is told at once that the node id is valid.
 *
 * Return: 0, or -EINVAL (no name), -EEXIST (the name is registered
 * already), -EBUSY (a second transport linking the node to itself), or the
 * error of &scif_transport_ops.self_up.
 */
int scif_transport_register(struct scif_instance *si,
			    struct scif_transport *t)
{
	int ret = 0;

	if (!t->name || !*t->name)
		return -EINVAL;
	mutex_lock(&si->transports_lock);
	if (scif_transport_lookup(si, t->name)) {
		pr_err("scif %s: refusing transport %s of %s: the name is taken\n",
		       si->name, t->name, scif_transport_module(t));
		ret = -EEXIST;
	} else if (scif_transport_is_self(t) && scif_transport_self(si)) {
		pr_err("scif %s: refusing transport %s of %s: %s links the node to itself already\n",
		       si->name, t->name, scif_transport_module(t),
		       scif_transport_self(si)->name);
		ret = -EBUSY;
	}
	if (!ret) {
		t->si = si;
		t->claims = false;
		list_add_tail(&t->entry, &si->transports);
		if (scif_transport_is_self(t))
			ret = t->ops->self_up(t);
		if (ret)
			list_del(&t->entry);
	}
	mutex_unlock(&si->transports_lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(scif_transport_register, SCIF_TRANSPORT);

/**
 * scif_transport_unregister() - take a transport off its instance
 * @t: a registered transport; every node it added is removed already
 *	(&scif_transport_ops.self_down removes the node's own)
 *
 * Its claim on the node id ends: once no transport holds one, the next
 * claim may give the node another id.
 */
void scif_transport_unregister(struct scif_transport *t)
{
	struct scif_instance *si = t->si;

	mutex_lock(&si->transports_lock);
	if (scif_transport_is_self(t) && t->ops->self_down)
		t->ops->self_down(t);
	WARN(scif_transport_has_nodes(si, t),
	     "scif %s: transport %s unregisters with nodes online\n",
	     si->name, t->name);
	list_del(&t->entry);
	t->claims = false;
	mutex_unlock(&si->transports_lock);
}
EXPORT_SYMBOL_NS_GPL(scif_transport_unregister, SCIF_TRANSPORT);

/**
 * scif_transport_find() - a registered transport by name
 * @si: the instance
 * @name: the name it registered with
 *
 * Return: the transport, or NULL. It stays registered only as long as its
 * owner keeps it so: the caller is that owner, or synchronises with it.
 */
struct scif_transport *scif_transport_find(struct scif_instance *si,
					   const char *name)
{
	struct scif_transport *t;

	mutex_lock(&si->transports_lock);
	t = scif_transport_lookup(si, name);
	mutex_unlock(&si->transports_lock);
	return t;
}
EXPORT_SYMBOL_NS_GPL(scif_transport_find, SCIF_TRANSPORT);

/*
 * Give the node the id @self. Only while no remote node is online: the
 * node's own is taken down and up again around the change, which resets
 * its connections to itself.
 */
static int scif_instance_set_self(struct scif_instance *si, u16 self)
{
	struct scif_transport *st = scif_transport_self(si);
	bool busy;
	int ret;

	lockdep_assert_held(&si->transports_lock);
	if (self > SCIF_MAX_NODE_ID)
		return -EINVAL;
	if (self == si->self)
		return 0;
	if (scif_instance_has_peers(si))
		return -EBUSY;
	if (st && st->ops->self_down)
		st->ops->self_down(st);
	/* A peer that came meanwhile keeps the old id. */
	down_write(&si->nodes_rwsem);
	busy = !xa_empty(&si->nodes);
	if (!busy)
		WRITE_ONCE(si->self, self);
	up_write(&si->nodes_rwsem);
	ret = st ? st->ops->self_up(st) : 0;
	return busy ? -EBUSY : ret;
}

/**
 * scif_transport_claim_self() - claim the node id of the instance
 * @t: a registered transport
 * @want: the id it would give the node (the NTB transport: its node_id
 *	  parameter, or its port number)
 *
 * While no other registered transport holds a claim, the node takes @want
 * (its connections to itself are reset if the id changes). Otherwise the
 * node keeps the id claimed first, and says so in one line when @want
 * differs. Either way @t holds a claim until it unregisters.
 *
 * Return: the node's id (@want, or the one it keeps), or -EINVAL (@want
 * above %SCIF_MAX_NODE_ID), -EBUSY (the id would change while a remote
 * node is online), or the error of the transport linking the node to
 * itself; @t then holds no claim.
 */
int scif_transport_claim_self(struct scif_transport *t, unsigned int want)
{
	struct scif_instance *si = t->si;
	struct scif_transport *first;
	int ret;

	if (want > SCIF_MAX_NODE_ID)
		return -EINVAL;
	mutex_lock(&si->transports_lock);
	first = scif_transport_claimant(si);
	if (!first) {
		ret = scif_instance_set_self(si, want);
		if (!ret)
			ret = want;
	} else {
		ret = si->self;
		if (want != si->self)
			pr_info("scif %s: %s of %s asks for node id %u; the node keeps id %u, claimed by %s\n",
				si->name, t->name, scif_transport_module(t),
				want, si->self, first->name);
	}
	if (ret >= 0)
		t->claims = true;
	mutex_unlock(&si->transports_lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(scif_transport_claim_self, SCIF_TRANSPORT);

/**
 * scif_transport_node_check() - whether a link may bring a node id online
 * @si: the instance
 * @node: the id, at most %SCIF_MAX_NODE_ID
 * @link: the link that would reach it
 *
 * Called by scif_node_add() with &scif_instance.nodes_rwsem held for
 * writing, under which the node table and the instance's id change. A
 * refusal is said in one line that names both sides.
 *
 * Return: 0, or -EEXIST: @node is online already, or it is the instance's
 * own id and @link is not of the transport that links the node to itself.
 */
int scif_transport_node_check(struct scif_instance *si, u16 node,
			      const struct scif_link *link)
{
	struct scif_node *n;

	lockdep_assert_held_write(&si->nodes_rwsem);
	n = xa_load(&si->nodes, node);
	if (n) {
		pr_warn("scif %s: refusing node %u through %s: it is online through %s\n",
			si->name, node, scif_transport_name(link->transport),
			scif_transport_name(n->link->transport));
		return -EEXIST;
	}
	if (node == si->self && !scif_transport_is_self(link->transport)) {
		pr_warn("scif %s: refusing node %u through %s: that is this node's own id\n",
			si->name, node, scif_transport_name(link->transport));
		return -EEXIST;
	}
	return 0;
}
