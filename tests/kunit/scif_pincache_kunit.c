// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the pinned-page cache of SCIF_RMA_USECACHE
 * (drivers/scif/rma/scif_pincache.c), driven with user memory of the test's own
 * mm (kunit_vm_mmap): hits for a range and its parts, the protection as part
 * of the key, invalidation when the range is unmapped and mapped again,
 * and what a closed cache does.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/uaccess.h>

#include "rma/scif_rma.h"

#define PC_PAGES	4UL
#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)

/**
 * struct pc_ctx - one endpoint's RMA state, as far as the cache uses it
 * @rma: the state (only @rma.lock, @rma.closed and @rma.pcache are used)
 * @held: windows holding references to pinned-page sets the test got
 * @nr_held: entries of @held
 */
struct pc_ctx {
	struct scif_rma_ep rma;
	struct scif_window *held[16];
	unsigned int nr_held;
};

static int pc_init(struct kunit *test)
{
	struct pc_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	mutex_init(&ctx->rma.lock);
	test->priv = ctx;
	return 0;
}

/* Drop the references the test holds (through windows, which own them). */
static void pc_exit(struct kunit *test)
{
	struct pc_ctx *ctx = test->priv;

	ctx->rma.closed = true;
	scif_pincache_destroy(&ctx->rma);
	while (ctx->nr_held)
		scif_win_put(ctx->held[--ctx->nr_held]);
	mutex_destroy(&ctx->rma.lock);
}

/* A cache lookup whose result stays referenced until the test ends. */
static struct scif_pinned_pages *pc_get(struct kunit *test,
					unsigned long start, unsigned long pages,
					int prot, bool cache,
					unsigned long *pp_start)
{
	struct pc_ctx *ctx = test->priv;
	struct scif_pinned_pages *pp;
	struct scif_window *win;
	unsigned long first;

	KUNIT_ASSERT_LT(test, ctx->nr_held, ARRAY_SIZE(ctx->held));
	KUNIT_ASSERT_EQ(test, scif_pincache_get(&ctx->rma, start,
						pages << PAGE_SHIFT,
						prot, cache, &pp, &first), 0);
	win = scif_win_alloc(pp->nr_pages, false);
	KUNIT_ASSERT_NOT_NULL(test, win);
	win->pp = pp;
	ctx->held[ctx->nr_held++] = win;
	if (pp_start)
		*pp_start = first;
	return pp;
}

static unsigned long pc_map(struct kunit *test, unsigned long addr)
{
	unsigned long a;

	a = kunit_vm_mmap(test, NULL, addr, PC_PAGES * PAGE_SIZE,
			  PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0),
			  0);
	KUNIT_ASSERT_NE_MSG(test, a, 0, "no user memory for the test");
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	return a;
}

/* Whether page @i of @pp holds @val at its start. */
static bool pc_page_has(struct scif_pinned_pages *pp, unsigned long i,
			u32 val)
{
	u32 *p = kmap_local_page(pp->pages[i]);
	bool ok = *p == val;

	kunmap_local(p);
	return ok;
}

static void pc_hit(struct kunit *test)
{
	unsigned long a = pc_map(test, 0), first;
	struct scif_pinned_pages *pp, *pp2;
	u32 val = 0x5c1f0001;

	pp = pc_get(test, a, PC_PAGES, RW, true, &first);
	KUNIT_EXPECT_EQ(test, first, a);
	KUNIT_EXPECT_EQ(test, pp->nr_pages, PC_PAGES);
	/* The pinned pages are the mapped ones. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(a + PAGE_SIZE),
					   &val, sizeof(val)), 0);
	KUNIT_EXPECT_TRUE(test, pc_page_has(pp, 1, val));
	/* The same range, a part of it, and a read of it: the same pins. */
	KUNIT_EXPECT_PTR_EQ(test, pc_get(test, a, PC_PAGES, RW, true, NULL),
			    pp);
	pp2 = pc_get(test, a + PAGE_SIZE, 2, SCIF_PROT_READ, true, &first);
	KUNIT_EXPECT_PTR_EQ(test, pp2, pp);
	KUNIT_EXPECT_EQ(test, first, a);
	/* Without the flag: a pin of its own, of the requested pages only. */
	pp2 = pc_get(test, a + PAGE_SIZE, 2, RW, false, &first);
	KUNIT_EXPECT_PTR_NE(test, pp2, pp);
	KUNIT_EXPECT_EQ(test, first, a + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pp2->nr_pages, 2UL);
	KUNIT_EXPECT_TRUE(test, pc_page_has(pp2, 0, val));
}

static void pc_prot(struct kunit *test)
{
	unsigned long a = pc_map(test, 0);
	struct scif_pinned_pages *ro, *rw, *any;

	ro = pc_get(test, a, PC_PAGES, SCIF_PROT_READ, true, NULL);
	/* A read-only pin does not serve a writer... */
	rw = pc_get(test, a, PC_PAGES, RW, true, NULL);
	KUNIT_EXPECT_PTR_NE(test, rw, ro);
	/* ... and either serves a reader again. */
	any = pc_get(test, a, 1, SCIF_PROT_READ, true, NULL);
	KUNIT_EXPECT_TRUE(test, any == ro || any == rw);
}

static void pc_invalidate(struct kunit *test)
{
	unsigned long a = pc_map(test, 0);
	struct scif_pinned_pages *old, *new;
	u32 val = 0x5c1f0002;

	old = pc_get(test, a, PC_PAGES, RW, true, NULL);
	KUNIT_ASSERT_EQ(test, vm_munmap(a, PC_PAGES * PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, pc_map(test, a), a);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)a, &val,
					   sizeof(val)), 0);
	/* The old pins are still held by the test: no address reuse. */
	new = pc_get(test, a, PC_PAGES, RW, true, NULL);
	KUNIT_EXPECT_PTR_NE(test, new, old);
	KUNIT_EXPECT_TRUE(test, pc_page_has(new, 0, val));
	KUNIT_EXPECT_FALSE(test, pc_page_has(old, 0, val));
	/* And the new entry is cached in turn. */
	KUNIT_EXPECT_PTR_EQ(test, pc_get(test, a, PC_PAGES, RW, true, NULL),
			    new);
}

static void pc_closed(struct kunit *test)
{
	struct pc_ctx *ctx = test->priv;
	unsigned long a = pc_map(test, 0);
	struct scif_pinned_pages *pp;
	u32 val = 0x5c1f0003;

	pp = pc_get(test, a, PC_PAGES, RW, true, NULL);
	ctx->rma.closed = true;
	scif_pincache_destroy(&ctx->rma);
	KUNIT_EXPECT_NULL(test, ctx->rma.pcache);
	/* Pages the caller holds outlive the cache. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)a, &val,
					   sizeof(val)), 0);
	KUNIT_EXPECT_TRUE(test, pc_page_has(pp, 0, val));
	/* A closed endpoint gets one-shot pins, and no new cache. */
	KUNIT_EXPECT_PTR_NE(test, pc_get(test, a, PC_PAGES, RW, true, NULL),
			    pp);
	KUNIT_EXPECT_PTR_NE(test, pc_get(test, a, PC_PAGES, RW, true, NULL),
			    pc_get(test, a, PC_PAGES, RW, true, NULL));
	KUNIT_EXPECT_NULL(test, ctx->rma.pcache);
}

static struct kunit_case scif_pincache_cases[] = {
	KUNIT_CASE(pc_hit),
	KUNIT_CASE(pc_prot),
	KUNIT_CASE(pc_invalidate),
	KUNIT_CASE(pc_closed),
	{}
};

static struct kunit_suite scif_pincache_suite = {
	.name = "scif_pincache",
	.init = pc_init,
	.exit = pc_exit,
	.test_cases = scif_pincache_cases,
};

kunit_test_suite(scif_pincache_suite);

MODULE_DESCRIPTION("KUnit tests for the SCIF pinned-page cache");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
