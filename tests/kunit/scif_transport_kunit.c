// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the registered transports (core/scif_transport.c): names,
 * the claims on the node id, the node ids a link may bring online, and the
 * lock under which the core calls the transport that links the node to
 * itself.
 */
#include <kunit/test.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "core/scif_core.h"
#include "core/scif_instance.h"
#include "core/scif_link.h"
#include "scif_kunit_sim.h"

/* The instance of each case starts as node 0, with its loopback. */
#define TR_START	0

/**
 * struct tr_ctx - one case's instance and the transports it plays
 * @si: the instance
 * @t: transports registered by the case (named "t0".."t2")
 * @link: per transport, a link that leads nowhere, for scif_node_add()
 */
struct tr_ctx {
	struct scif_instance *si;
	struct scif_transport t[3];
	struct scif_link link[3];
};

static int tr_null_send(struct scif_link *link,
			const struct scif_wire_msg *msg, const void *data,
			size_t len)
{
	return -ENODEV;
}

static const struct scif_link_ops tr_null_ops = {
	.send = tr_null_send,
};

static const char *const tr_names[] = { "t0", "t1", "t2" };

static int tr_init(struct kunit *test)
{
	struct tr_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int i;

	if (!ctx)
		return -ENOMEM;
	ctx->si = scif_sim_instance_create("kunit_transport", TR_START);
	if (!ctx->si)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(ctx->t); i++) {
		ctx->t[i].name = tr_names[i];
		ctx->t[i].owner = THIS_MODULE;
		ctx->link[i].ops = &tr_null_ops;
		ctx->link[i].max_data = 256;
		ctx->link[i].transport = &ctx->t[i];
	}
	test->priv = ctx;
	return 0;
}

static void tr_exit(struct kunit *test)
{
	struct tr_ctx *ctx = test->priv;
	int i;

	/* What a case left behind: its nodes, then its transports. */
	for (i = 0; i <= SCIF_MAX_NODE_ID; i++)
		if (i != scif_instance_self(ctx->si))
			scif_node_remove(ctx->si, i);
	for (i = 0; i < ARRAY_SIZE(ctx->t); i++)
		if (scif_transport_find(ctx->si, tr_names[i]) == &ctx->t[i])
			scif_transport_unregister(&ctx->t[i]);
	scif_sim_instance_destroy(ctx->si);
}

static void tr_register(struct kunit *test, struct tr_ctx *ctx, int i)
{
	KUNIT_ASSERT_EQ(test, scif_transport_register(ctx->si, &ctx->t[i]), 0);
}

/* A name is registered once per instance; unregistering frees it. */
static void transport_names_unique(struct kunit *test)
{
	struct tr_ctx *ctx = test->priv;
	struct scif_transport again = { .name = "t0" }, unnamed = {};

	tr_register(test, ctx, 0);
	KUNIT_EXPECT_PTR_EQ(test, scif_transport_find(ctx->si, "t0"),
			    &ctx->t[0]);
	KUNIT_EXPECT_EQ(test, scif_transport_register(ctx->si, &again),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, scif_transport_register(ctx->si, &unnamed),
			-EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, scif_transport_find(ctx->si, "loopback"));
	scif_transport_unregister(&ctx->t[0]);
	KUNIT_EXPECT_NULL(test, scif_transport_find(ctx->si, "t0"));
	KUNIT_ASSERT_EQ(test, scif_transport_register(ctx->si, &again), 0);
	KUNIT_EXPECT_PTR_EQ(test, scif_transport_find(ctx->si, "t0"), &again);
	scif_transport_unregister(&again);
}

/*
 * The first claim sets the id (the loopback follows it); later claims keep
 * it while any claimant is registered; once none is, the next claim sets
 * the id again.
 */
static void transport_claims_set_then_keep(struct kunit *test)
{
	struct tr_ctx *ctx = test->priv;
	u16 self;

	tr_register(test, ctx, 0);
	tr_register(test, ctx, 1);
	tr_register(test, ctx, 2);
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[0], 5), 5);
	KUNIT_EXPECT_EQ(test, scif_instance_self(ctx->si), 5);
	KUNIT_EXPECT_TRUE(test, scif_node_online(ctx->si, 5));
	KUNIT_EXPECT_FALSE(test, scif_node_online(ctx->si, TR_START));
	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(ctx->si, NULL, 0, &self),
			1);
	KUNIT_EXPECT_EQ(test, self, 5);

	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[1], 7), 5);
	KUNIT_EXPECT_EQ(test, scif_instance_self(ctx->si), 5);
	/* t1 still claims after t0 left: t2 finds the id kept. */
	scif_transport_unregister(&ctx->t[0]);
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[2], 9), 5);
	scif_transport_unregister(&ctx->t[1]);
	scif_transport_unregister(&ctx->t[2]);
	/* No claim left: the id stays until the next claim changes it. */
	KUNIT_EXPECT_EQ(test, scif_instance_self(ctx->si), 5);
	tr_register(test, ctx, 0);
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[0], 9), 9);
	KUNIT_EXPECT_EQ(test, scif_instance_self(ctx->si), 9);
	KUNIT_EXPECT_TRUE(test, scif_node_online(ctx->si, 9));
	KUNIT_EXPECT_FALSE(test, scif_node_online(ctx->si, 5));
}

/* A refused claim changes nothing and holds no claim. */
static void transport_claims_refused(struct kunit *test)
{
	struct tr_ctx *ctx = test->priv;

	tr_register(test, ctx, 0);
	tr_register(test, ctx, 1);
	KUNIT_EXPECT_EQ(test,
			scif_transport_claim_self(&ctx->t[0],
						  SCIF_MAX_NODE_ID + 1),
			-EINVAL);
	/* A remote node is online: the id cannot change under it. */
	KUNIT_ASSERT_EQ(test, scif_node_add(ctx->si, 3, &ctx->link[1]), 0);
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[0], 4),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, scif_instance_self(ctx->si), TR_START);
	KUNIT_EXPECT_TRUE(test, scif_node_online(ctx->si, TR_START));
	/* Claiming its current id needs no change, so it is granted. */
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[1], TR_START),
			TR_START);
	scif_node_remove(ctx->si, 3);
	scif_transport_unregister(&ctx->t[1]);
	/* Neither refusal left a claim behind: t0 may set the id. */
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[0], 4), 4);
	KUNIT_EXPECT_EQ(test, scif_instance_self(ctx->si), 4);
}

/*
 * A node id is online through one link at a time, and the node's own id
 * only through the loopback; removing a node frees its id.
 */
static void transport_duplicate_node_refused(struct kunit *test)
{
	struct tr_ctx *ctx = test->priv;
	struct scif_link bare = { .ops = &tr_null_ops, .max_data = 256 };

	tr_register(test, ctx, 0);
	tr_register(test, ctx, 1);
	KUNIT_ASSERT_EQ(test, scif_node_add(ctx->si, 3, &ctx->link[0]), 0);
	KUNIT_EXPECT_EQ(test, scif_node_add(ctx->si, 3, &ctx->link[1]),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, scif_node_add(ctx->si, 3, &bare), -EEXIST);
	KUNIT_EXPECT_EQ(test, scif_node_add(ctx->si, TR_START, &ctx->link[1]),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, scif_node_add(ctx->si, TR_START, &bare),
			-EEXIST);
	scif_node_remove(ctx->si, 3);
	KUNIT_EXPECT_FALSE(test, scif_node_online(ctx->si, 3));
	KUNIT_EXPECT_EQ(test, scif_node_add(ctx->si, 3, &ctx->link[1]), 0);
	/* Once the id moved, the old one is free for a peer. */
	scif_node_remove(ctx->si, 3);
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[0], 2), 2);
	KUNIT_EXPECT_EQ(test, scif_node_add(ctx->si, TR_START, &ctx->link[1]),
			0);
	KUNIT_EXPECT_EQ(test, scif_node_add(ctx->si, 2, &ctx->link[1]),
			-EEXIST);
}

/**
 * struct tr_self - a transport that links its node to itself, recording
 *		    how the core calls it
 * @t: as registered
 * @link: its link to the node
 * @node: the id it brought up, while up
 * @ups: calls of self_up
 * @downs: calls of self_down
 * @unlocked: calls made without &scif_instance.transports_lock held
 */
struct tr_self {
	struct scif_transport t;
	struct scif_link link;
	int node;
	int ups;
	int downs;
	int unlocked;
};

/* Held by this task where lockdep can tell, else held at all. */
static bool tr_locked(struct scif_instance *si)
{
#ifdef CONFIG_LOCKDEP
	return lockdep_is_held(&si->transports_lock);
#else
	return mutex_is_locked(&si->transports_lock);
#endif
}

static int tr_self_up(struct scif_transport *t)
{
	struct tr_self *ts = container_of(t, struct tr_self, t);
	int ret;

	ts->ups++;
	ts->unlocked += !tr_locked(t->si);
	ret = scif_node_add(t->si, scif_instance_self(t->si), &ts->link);
	if (!ret)
		ts->node = scif_instance_self(t->si);
	return ret;
}

static void tr_self_down(struct scif_transport *t)
{
	struct tr_self *ts = container_of(t, struct tr_self, t);

	ts->downs++;
	ts->unlocked += !tr_locked(t->si);
	if (ts->node >= 0)
		scif_node_remove(t->si, ts->node);
	ts->node = -1;
}

static const struct scif_transport_ops tr_self_ops = {
	.self_up = tr_self_up,
	.self_down = tr_self_down,
};

/*
 * One transport per instance links the node to itself; the core calls it,
 * under its lock, at registration, around each change of the id and at
 * unregistration.
 */
static void transport_self_link_rules(struct kunit *test)
{
	struct tr_ctx *ctx = test->priv;
	struct tr_self *ts = kunit_kzalloc(test, sizeof(*ts), GFP_KERNEL);
	struct scif_instance *si;

	KUNIT_ASSERT_NOT_NULL(test, ts);
	ts->t.name = "self";
	ts->t.owner = THIS_MODULE;
	ts->t.ops = &tr_self_ops;
	ts->link.ops = &tr_null_ops;
	ts->link.max_data = 256;
	ts->link.transport = &ts->t;
	ts->node = -1;
	/* The case's instance has its loopback already. */
	KUNIT_EXPECT_EQ(test, scif_transport_register(ctx->si, &ts->t),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, ts->ups, 0);

	si = scif_instance_create("kunit_transport_self", 1);
	KUNIT_ASSERT_NOT_NULL(test, si);
	KUNIT_EXPECT_FALSE(test, scif_node_online(si, 1));
	KUNIT_EXPECT_EQ(test, scif_transport_register(si, &ts->t), 0);
	KUNIT_EXPECT_EQ(test, ts->ups, 1);
	KUNIT_EXPECT_TRUE(test, scif_node_online(si, 1));
	KUNIT_EXPECT_EQ(test, scif_transport_register(si, &ctx->t[0]), 0);
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[0], 6), 6);
	KUNIT_EXPECT_EQ(test, ts->downs, 1);
	KUNIT_EXPECT_EQ(test, ts->ups, 2);
	KUNIT_EXPECT_EQ(test, ts->node, 6);
	KUNIT_EXPECT_TRUE(test, scif_node_online(si, 6));
	KUNIT_EXPECT_FALSE(test, scif_node_online(si, 1));
	/* Claiming the id it has already changes nothing. */
	KUNIT_EXPECT_EQ(test, scif_transport_claim_self(&ctx->t[0], 6), 6);
	KUNIT_EXPECT_EQ(test, ts->ups, 2);
	scif_transport_unregister(&ctx->t[0]);
	scif_transport_unregister(&ts->t);
	KUNIT_EXPECT_EQ(test, ts->downs, 2);
	KUNIT_EXPECT_FALSE(test, scif_node_online(si, 6));
	KUNIT_EXPECT_EQ(test, ts->unlocked, 0);
	/* Outside the core's calls the lock is free. */
	KUNIT_EXPECT_FALSE(test, mutex_is_locked(&si->transports_lock));
	scif_instance_destroy(si);
}

static struct kunit_case scif_transport_cases[] = {
	KUNIT_CASE(transport_names_unique),
	KUNIT_CASE(transport_claims_set_then_keep),
	KUNIT_CASE(transport_claims_refused),
	KUNIT_CASE(transport_duplicate_node_refused),
	KUNIT_CASE(transport_self_link_rules),
	{}
};

static struct kunit_suite scif_transport_suite = {
	.name = "scif_transport",
	.init = tr_init,
	.exit = tr_exit,
	.test_cases = scif_transport_cases,
};

kunit_test_suite(scif_transport_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF's registered transports and node ids");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(SCIF_TRANSPORT);
