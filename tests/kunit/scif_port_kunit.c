// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the SCIF port allocator.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/scif.h>

#include "core/scif_port.h"

static int port_init(struct kunit *test)
{
	struct scif_port_space *ps;

	ps = kunit_kzalloc(test, sizeof(*ps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ps);
	scif_port_space_init(ps);
	test->priv = ps;
	return 0;
}

static void port_exit(struct kunit *test)
{
	scif_port_space_destroy(test->priv);
}

/* A named port can be reserved once, and again after it is released. */
static void port_reserve_once(struct kunit *test)
{
	struct scif_port_space *ps = test->priv;

	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, 2000), 0);
	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, 2000), -EADDRINUSE);
	scif_port_release(ps, 2000);
	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, 2000), 0);
	scif_port_release(ps, 2000);
}

/* Port 0 and ports above 65535 are not ports. */
static void port_reserve_range(struct kunit *test)
{
	struct scif_port_space *ps = test->priv;

	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, SCIF_PORT_MAX + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, 1), 0);
	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, SCIF_PORT_MAX), 0);
	scif_port_release(ps, 1);
	scif_port_release(ps, SCIF_PORT_MAX);
}

/* Automatic ports start at SCIF_PORT_RSVD and skip ports already taken. */
static void port_alloc_skips_reserved(struct kunit *test)
{
	struct scif_port_space *ps = test->priv;
	int a, b;

	KUNIT_ASSERT_EQ(test, scif_port_reserve(ps, SCIF_PORT_RSVD), 0);
	KUNIT_ASSERT_EQ(test, scif_port_reserve(ps, 100), 0);
	a = scif_port_alloc(ps);
	b = scif_port_alloc(ps);
	KUNIT_EXPECT_EQ(test, a, SCIF_PORT_RSVD + 1);
	KUNIT_EXPECT_EQ(test, b, SCIF_PORT_RSVD + 2);
	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, a), -EADDRINUSE);
	scif_port_release(ps, a);
	KUNIT_EXPECT_EQ(test, scif_port_alloc(ps), a);
}

/* Once every automatic port is in use, allocation fails cleanly. */
static void port_alloc_exhaustion(struct kunit *test)
{
	struct scif_port_space *ps = test->priv;
	int n = SCIF_PORT_MAX - SCIF_PORT_RSVD + 1;
	int i, port;

	for (i = 0; i < n; i++) {
		port = scif_port_alloc(ps);
		KUNIT_ASSERT_EQ(test, port, SCIF_PORT_RSVD + i);
	}
	KUNIT_EXPECT_EQ(test, scif_port_alloc(ps), -ENOSPC);
	/* Explicit ports below the automatic range are still available. */
	KUNIT_EXPECT_EQ(test, scif_port_reserve(ps, SCIF_PORT_RSVD - 1), 0);
	scif_port_release(ps, SCIF_PORT_MAX);
	KUNIT_EXPECT_EQ(test, scif_port_alloc(ps), SCIF_PORT_MAX);
}

static struct kunit_case scif_port_cases[] = {
	KUNIT_CASE(port_reserve_once),
	KUNIT_CASE(port_reserve_range),
	KUNIT_CASE(port_alloc_skips_reserved),
	KUNIT_CASE(port_alloc_exhaustion),
	{}
};

static struct kunit_suite scif_port_suite = {
	.name = "scif_port",
	.init = port_init,
	.exit = port_exit,
	.test_cases = scif_port_cases,
};

kunit_test_suite(scif_port_suite);

MODULE_DESCRIPTION("KUnit tests for the SCIF port allocator");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
