// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the SCIF route table (core/scif_route.c): fabrics of
 * route tables, one per node, that exchange announcements along their
 * links until nothing changes; then the routes each table holds are
 * checked, before and after links go down. Further cases feed one table
 * malformed and conflicting announcements.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "core/scif_route.h"

#define FAB_MAX		20
/* Rounds of full exchanges a fabric may take to settle. */
#define FAB_ROUNDS	(4 * SCIF_ROUTE_HOPS_MAX)

/**
 * struct fab - a fabric of route tables, node i having id i
 * @n: number of nodes
 * @rt: their tables
 * @link: link[a][b]: a link joins a and b
 */
struct fab {
	unsigned int n;
	struct scif_route_table *rt[FAB_MAX];
	bool link[FAB_MAX][FAB_MAX];
};

static void fab_exit(struct kunit *test)
{
	struct fab *f = test->priv;
	unsigned int i;

	for (i = 0; i < FAB_MAX; i++) {
		if (f->rt[i]) {
			scif_route_destroy(f->rt[i]);
			kfree(f->rt[i]);
		}
	}
}

static int fab_init(struct kunit *test)
{
	struct fab *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	test->priv = f;
	return 0;
}

static void fab_nodes(struct kunit *test, struct fab *f, unsigned int n)
{
	unsigned int i;

	KUNIT_ASSERT_LE(test, n, FAB_MAX);
	f->n = n;
	for (i = 0; i < n; i++) {
		f->rt[i] = kzalloc(sizeof(*f->rt[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->rt[i]);
		scif_route_init(f->rt[i], "kunit_route", i, 0x1000 + i);
	}
}

static void fab_join(struct kunit *test, struct fab *f, u16 a, u16 b)
{
	KUNIT_ASSERT_EQ(test, scif_route_link_up(f->rt[a], b), 0);
	KUNIT_ASSERT_EQ(test, scif_route_link_up(f->rt[b], a), 0);
	f->link[a][b] = true;
	f->link[b][a] = true;
}

static void fab_cut(struct fab *f, u16 a, u16 b)
{
	DECLARE_BITMAP(changed, SCIF_ROUTE_NODES);

	bitmap_zero(changed, SCIF_ROUTE_NODES);
	scif_route_link_down(f->rt[a], b, changed);
	scif_route_link_down(f->rt[b], a, changed);
	f->link[a][b] = false;
	f->link[b][a] = false;
}

/* @from announces its whole table to @to, a few entries per message. */
static bool fab_announce(struct kunit *test, struct fab *f, u16 from, u16 to)
{
	DECLARE_BITMAP(changed, SCIF_ROUTE_NODES);
	DECLARE_BITMAP(all, SCIF_ROUTE_NODES);
	struct scif_wire_route e[7];
	unsigned int pos = 0, n;

	bitmap_zero(changed, SCIF_ROUTE_NODES);
	bitmap_fill(all, SCIF_ROUTE_NODES);
	while (pos < SCIF_ROUTE_NODES) {
		n = scif_route_fill(f->rt[from], to, all, &pos, e,
				    ARRAY_SIZE(e));
		KUNIT_EXPECT_EQ(test, scif_route_rx(f->rt[to], from, e, n,
						    changed), 0);
	}
	return !bitmap_empty(changed, SCIF_ROUTE_NODES);
}

/* Exchange along every link until a round changes nothing. */
static void fab_settle(struct kunit *test, struct fab *f)
{
	unsigned int round, a, b;
	bool moved = true;

	for (round = 0; moved && round < FAB_ROUNDS; round++) {
		moved = false;
		for (a = 0; a < f->n; a++)
			for (b = 0; b < f->n; b++)
				if (f->link[a][b] &&
				    fab_announce(test, f, a, b))
					moved = true;
	}
	KUNIT_EXPECT_FALSE_MSG(test, moved, "fabric did not settle");
}

/*
 * Announce only what each node is owed (scif_route_take_dirty()), as the
 * instances do, until nobody is owed anything.
 */
static void fab_settle_owed(struct kunit *test, struct fab *f)
{
	DECLARE_BITMAP(changed, SCIF_ROUTE_NODES);
	DECLARE_BITMAP(which, SCIF_ROUTE_NODES);
	struct scif_wire_route e[5];
	unsigned int round, a, b, pos, n;
	bool moved = true;

	for (round = 0; moved && round < FAB_ROUNDS; round++) {
		moved = false;
		for (a = 0; a < f->n; a++) {
			for (b = 0; b < f->n; b++) {
				if (!f->link[a][b] ||
				    !scif_route_take_dirty(f->rt[a], b, which))
					continue;
				moved = true;
				for (pos = 0; pos < SCIF_ROUTE_NODES;) {
					n = scif_route_fill(f->rt[a], b, which,
							    &pos, e,
							    ARRAY_SIZE(e));
					if (!n)
						break;
					KUNIT_EXPECT_EQ(test,
							scif_route_rx(f->rt[b],
								      a, e, n,
								      changed),
							0);
				}
			}
		}
	}
	KUNIT_EXPECT_FALSE_MSG(test, moved, "announcements did not end");
}

static int fab_hops(struct fab *f, u16 a, u16 b, u16 *via)
{
	return scif_route_lookup(f->rt[a], b, via);
}

/* A chain 0-1-2: the ends reach each other through 1, at 2 hops. */
static void route_chain3(struct kunit *test)
{
	struct fab *f = test->priv;
	u16 via = 99;

	fab_nodes(test, f, 3);
	fab_join(test, f, 0, 1);
	fab_join(test, f, 1, 2);
	/* Nothing is announced yet: not even the neighbours are routes. */
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 1, NULL), -EHOSTUNREACH);
	fab_settle(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 2, &via), 2);
	KUNIT_EXPECT_EQ(test, via, 1);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 2, 0, &via), 2);
	KUNIT_EXPECT_EQ(test, via, 1);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 1, 0, &via), 1);
	KUNIT_EXPECT_EQ(test, via, 0);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 0, NULL), -EHOSTUNREACH);
	/* The transit node goes: the ends lose each other. */
	fab_cut(f, 0, 1);
	fab_settle(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 2, NULL), -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 2, 0, NULL), -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 2, 1, NULL), 1);
	/* It comes back: rediscovered. */
	fab_join(test, f, 0, 1);
	fab_settle(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 2, 0, NULL), 2);
}

/* A star of 5 round node 0: spokes reach each other through the hub. */
static void route_star5(struct kunit *test)
{
	struct fab *f = test->priv;
	unsigned int a, b;
	u16 via;

	fab_nodes(test, f, 5);
	for (a = 1; a < 5; a++)
		fab_join(test, f, 0, a);
	fab_settle(test, f);
	for (a = 1; a < 5; a++) {
		for (b = 1; b < 5; b++) {
			if (a == b)
				continue;
			via = 99;
			KUNIT_EXPECT_EQ(test, fab_hops(f, a, b, &via), 2);
			KUNIT_EXPECT_EQ(test, via, 0);
		}
	}
}

/*
 * A ring of 4: 0 reaches 2 both ways at 2 hops, through 1 or 3 (whichever
 * it heard first: a route as short as another stays where it is); when
 * that transit node t dies the route moves to the other one, and t is
 * withdrawn everywhere without counting on for ever. When t comes back
 * the route stays where it went, as short: a move resets its connections.
 */
static void route_ring4(struct kunit *test)
{
	struct fab *f = test->priv;
	u16 via = 99, t, other;

	fab_nodes(test, f, 4);
	fab_join(test, f, 0, 1);
	fab_join(test, f, 1, 2);
	fab_join(test, f, 2, 3);
	fab_join(test, f, 3, 0);
	fab_settle(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 2, &via), 2);
	KUNIT_ASSERT_TRUE(test, via == 1 || via == 3);
	t = via;
	other = 4 - t;
	fab_cut(f, 0, t);
	fab_cut(f, t, 2);
	fab_settle(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 2, &via), 2);
	KUNIT_EXPECT_EQ(test, via, other);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, t, NULL), -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 2, t, NULL), -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, fab_hops(f, other, t, NULL), -EHOSTUNREACH);
	fab_join(test, f, 0, t);
	fab_join(test, f, t, 2);
	fab_settle(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 2, &via), 2);
	KUNIT_EXPECT_EQ(test, via, other);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, t, &via), 1);
	KUNIT_EXPECT_EQ(test, via, t);
}

/*
 * 0 - 1 - 2 - 3 and 1 - 4 - 3: node 0 reaches 3 through 1 at 3 hops, and
 * 1 reaches it through 2 or 4. When 1's link to its next hop goes, 1's
 * path moves to the other and 0's route keeps its next hop and hop count,
 * but its path changes: what 0 had sent may have been lost at 1's old
 * next hop.
 */
static void route_path_far_change(struct kunit *test)
{
	struct fab *f = test->priv;
	u32 before, after;
	u16 via, t;

	fab_nodes(test, f, 5);
	fab_join(test, f, 0, 1);
	fab_join(test, f, 1, 2);
	fab_join(test, f, 2, 3);
	fab_join(test, f, 1, 4);
	fab_join(test, f, 4, 3);
	fab_settle(test, f);
	KUNIT_ASSERT_EQ(test, scif_route_path(f->rt[0], 3, &via, &before), 3);
	KUNIT_EXPECT_EQ(test, via, 1);
	KUNIT_ASSERT_EQ(test, fab_hops(f, 1, 3, &t), 2);
	KUNIT_ASSERT_TRUE(test, t == 2 || t == 4);
	fab_cut(f, 1, t);
	fab_settle(test, f);
	KUNIT_ASSERT_EQ(test, scif_route_path(f->rt[0], 3, &via, &after), 3);
	KUNIT_EXPECT_EQ(test, via, 1);
	KUNIT_EXPECT_NE(test, after, before);
	/* Nothing changes: neither does the path. */
	fab_settle(test, f);
	KUNIT_ASSERT_EQ(test, scif_route_path(f->rt[0], 3, &via, &before), 3);
	KUNIT_EXPECT_EQ(test, before, after);
}

/* A chain longer than the hop bound: the far end is no route. */
static void route_hop_bound(struct kunit *test)
{
	struct fab *f = test->priv;
	unsigned int i;

	fab_nodes(test, f, SCIF_ROUTE_HOPS_MAX + 2);
	for (i = 0; i + 1 < f->n; i++)
		fab_join(test, f, i, i + 1);
	fab_settle(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, SCIF_ROUTE_HOPS_MAX - 1, NULL),
			SCIF_ROUTE_HOPS_MAX - 1);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, SCIF_ROUTE_HOPS_MAX, NULL),
			-EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, SCIF_ROUTE_HOPS_MAX + 1, NULL),
			-EHOSTUNREACH);
}

/* What a node announces back to its next hop is withdrawn. */
static void route_poisoned_reverse(struct kunit *test)
{
	struct fab *f = test->priv;
	DECLARE_BITMAP(which, SCIF_ROUTE_NODES);
	struct scif_wire_route e[2];
	unsigned int pos = 0;

	fab_nodes(test, f, 3);
	fab_join(test, f, 0, 1);
	fab_join(test, f, 1, 2);
	fab_settle(test, f);
	bitmap_zero(which, SCIF_ROUTE_NODES);
	__set_bit(1, which);
	__set_bit(2, which);
	/* Node 0's route to 2 goes through 1: told to 1 as withdrawn. */
	KUNIT_ASSERT_EQ(test, scif_route_fill(f->rt[0], 1, which, &pos, e, 2),
			2);
	KUNIT_EXPECT_EQ(test, pos, SCIF_ROUTE_NODES);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(e[1].node), 2);
	KUNIT_EXPECT_EQ(test, e[1].hops, SCIF_ROUTE_HOPS_MAX);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e[1].ident), 0);
	/* Told to another neighbour (none here, any id) as a route. */
	pos = 0;
	KUNIT_ASSERT_EQ(test, scif_route_fill(f->rt[0], 7, which, &pos, e, 2),
			2);
	KUNIT_EXPECT_EQ(test, e[1].hops, 2);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e[1].ident), 0x1002);
}

static void route_entry(struct scif_wire_route *e, u16 node, u8 hops,
			u32 ident)
{
	e->node = cpu_to_le16(node);
	e->hops = hops;
	e->gen = 0;
	e->ident = cpu_to_le32(ident);
}

/* Every malformed announcement is refused whole and changes nothing. */
static void route_bad_input(struct kunit *test)
{
	struct fab *f = test->priv;
	DECLARE_BITMAP(changed, SCIF_ROUTE_NODES);
	struct scif_wire_route e[2];
	struct scif_route_table *rt;
	unsigned int i;
	struct {
		u16 node;
		u8 hops;
		u8 gen;
		u32 ident;
	} bad[] = {
		{ 256, 1, 0, 5 },			/* no such id */
		{ 3, SCIF_ROUTE_HOPS_MAX + 1, 0, 5 },	/* beyond the bound */
		{ 3, SCIF_ROUTE_HOPS_MAX, 1, 0 },	/* no path, a generation */
		{ 1, 0, 1, 0x1001 },			/* the sender, one too */
		{ 3, 1, 0, 0 },				/* route without identity */
		{ 3, SCIF_ROUTE_HOPS_MAX, 0, 5 },	/* withdrawal with one */
		{ 3, 0, 0, 5 },				/* hop 0: not the sender */
		{ 1, 1, 0, 0x1001 },			/* the sender not at 0 */
		{ 1, SCIF_ROUTE_HOPS_MAX, 0, 0 },	/* sender withdraws itself */
	};

	fab_nodes(test, f, 2);
	rt = f->rt[0];
	KUNIT_ASSERT_EQ(test, scif_route_link_up(rt, 1), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* A good first entry, which must not be taken either. */
		route_entry(&e[0], 7, 2, 0x1007);
		route_entry(&e[1], bad[i].node, bad[i].hops, bad[i].ident);
		e[1].gen = bad[i].gen;
		bitmap_zero(changed, SCIF_ROUTE_NODES);
		KUNIT_EXPECT_EQ_MSG(test, scif_route_rx(rt, 1, e, 2, changed),
				    -EPROTO, "bad entry %u", i);
		KUNIT_EXPECT_TRUE(test, bitmap_empty(changed,
						     SCIF_ROUTE_NODES));
		KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 7, NULL),
				-EHOSTUNREACH);
	}
	/* One id twice in a message. */
	route_entry(&e[0], 1, 0, 0x1001);
	route_entry(&e[1], 1, 0, 0x1001);
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 1, e, 2, changed), -EPROTO);
	/* More entries than there are ids. */
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 1, e, SCIF_ROUTE_NODES + 1,
					    changed), -EPROTO);
	/* From a node no link is up to. */
	route_entry(&e[0], 5, 0, 0x1005);
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 5, e, 1, changed), -ENOENT);
	KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 5, NULL), -EHOSTUNREACH);
	/* And the good one alone is taken. */
	route_entry(&e[0], 1, 0, 0x1001);
	bitmap_zero(changed, SCIF_ROUTE_NODES);
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 1, e, 1, changed), 0);
	KUNIT_EXPECT_TRUE(test, test_bit(1, changed));
	KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 1, NULL), 1);
}

/*
 * Two nodes with one id: the first identity learnt keeps it; the second
 * is refused, our own id included; once the first is gone the id is free.
 */
static void route_duplicate_id(struct kunit *test)
{
	struct fab *f = test->priv;
	DECLARE_BITMAP(changed, SCIF_ROUTE_NODES);
	struct scif_wire_route e[2];
	struct scif_route_table *rt;
	u16 via = 99;

	fab_nodes(test, f, 1);
	rt = f->rt[0];
	KUNIT_ASSERT_EQ(test, scif_route_link_up(rt, 1), 0);
	KUNIT_ASSERT_EQ(test, scif_route_link_up(rt, 2), 0);
	bitmap_zero(changed, SCIF_ROUTE_NODES);
	route_entry(&e[0], 1, 0, 0x1001);
	route_entry(&e[1], 9, 1, 0xaaaa);
	KUNIT_ASSERT_EQ(test, scif_route_rx(rt, 1, e, 2, changed), 0);
	/* Node 2 reaches another node 9, and claims to reach a node 0. */
	route_entry(&e[0], 2, 0, 0x1002);
	route_entry(&e[1], 9, 1, 0xbbbb);
	bitmap_zero(changed, SCIF_ROUTE_NODES);
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 2, e, 2, changed), -EEXIST);
	KUNIT_EXPECT_TRUE(test, test_bit(2, changed));
	KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 2, NULL), 1);
	KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 9, &via), 2);
	KUNIT_EXPECT_EQ(test, via, 1);
	route_entry(&e[0], 0, 1, 0xcccc);
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 2, e, 1, changed), -EEXIST);
	route_entry(&e[0], 0, 1, 0x1000);
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 2, e, 1, changed), 0);
	KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 0, NULL), -EHOSTUNREACH);
	/* The first node 9 goes; the second may now have the id. */
	scif_route_link_down(rt, 1, changed);
	KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 9, NULL), -EHOSTUNREACH);
	route_entry(&e[0], 9, 1, 0xbbbb);
	KUNIT_EXPECT_EQ(test, scif_route_rx(rt, 2, e, 1, changed), 0);
	KUNIT_EXPECT_EQ(test, scif_route_lookup(rt, 9, &via), 2);
	KUNIT_EXPECT_EQ(test, via, 2);
}

/*
 * A ring of 5 settled by what is owed only: every node reaches every
 * other, and after a link goes the far side is reached the other way.
 */
static void route_owed_ring5(struct kunit *test)
{
	struct fab *f = test->priv;
	unsigned int a, b;
	u16 via = 99;

	fab_nodes(test, f, 5);
	for (a = 0; a < 5; a++)
		fab_join(test, f, a, (a + 1) % 5);
	fab_settle_owed(test, f);
	for (a = 0; a < 5; a++)
		for (b = 0; b < 5; b++)
			if (a != b)
				KUNIT_EXPECT_EQ(test, fab_hops(f, a, b, NULL),
						min((a - b + 5) % 5,
						    (b - a + 5) % 5));
	fab_cut(f, 0, 1);
	fab_settle_owed(test, f);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 0, 1, &via), 4);
	KUNIT_EXPECT_EQ(test, via, 4);
	KUNIT_EXPECT_EQ(test, fab_hops(f, 1, 0, &via), 4);
	KUNIT_EXPECT_EQ(test, via, 2);
}

/* Links that make no sense are refused. */
static void route_link_rules(struct kunit *test)
{
	struct fab *f = test->priv;

	fab_nodes(test, f, 1);
	KUNIT_EXPECT_EQ(test, scif_route_link_up(f->rt[0], 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_route_link_up(f->rt[0], 256), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_route_link_up(f->rt[0], 4), 0);
	KUNIT_EXPECT_EQ(test, scif_route_link_up(f->rt[0], 4), -EEXIST);
}

static struct kunit_case route_cases[] = {
	KUNIT_CASE(route_chain3),
	KUNIT_CASE(route_star5),
	KUNIT_CASE(route_ring4),
	KUNIT_CASE(route_path_far_change),
	KUNIT_CASE(route_hop_bound),
	KUNIT_CASE(route_poisoned_reverse),
	KUNIT_CASE(route_bad_input),
	KUNIT_CASE(route_duplicate_id),
	KUNIT_CASE(route_owed_ring5),
	KUNIT_CASE(route_link_rules),
	{}
};

static struct kunit_suite route_suite = {
	.name = "scif_route",
	.init = fab_init,
	.exit = fab_exit,
	.test_cases = route_cases,
};

kunit_test_suite(route_suite);

MODULE_DESCRIPTION("KUnit tests for the SCIF route table");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
