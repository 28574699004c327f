// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the SCIF window tree and registered address space
 * allocator: fixed and placed windows up to 100,000 of them, overlap
 * refusal, hints, range lookups, bounds, and pinned page sets.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rma/scif_rma.h"

/*
 * Tens of thousands of windows, enough that a linear search would show.
 * Under TCG with KASAN and lockdep one insert or erase cost about half a
 * millisecond on the hosts of 2026-11 and 2.5 ms on one of 2026-11-29,
 * where 100,000 windows ran past the 300 s KUnit gives a case; 40,000 took
 * 72 s there (the module alone in its guest). The 100,000-window scale
 * itself is measured end to end (Documentation/scif-rma.rst, "Latency
 * with many windows").
 */
#define WTREE_MANY	40000

static struct scif_window *wtree_win(struct kunit *test, unsigned long pages)
{
	struct scif_window *win = scif_win_alloc(pages, false);

	KUNIT_ASSERT_NOT_NULL(test, win);
	return win;
}

static void wtree_fixed_and_overlap(struct kunit *test)
{
	struct maple_tree mt;
	struct scif_window *a, *b;

	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	a = wtree_win(test, 4);
	b = wtree_win(test, 2);
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, a, 0x10000, true), 0);
	KUNIT_EXPECT_EQ(test, a->offset, 0x10000ULL);
	/* Any page in common is refused, at either end. */
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, b, 0x10000 + 3 * PAGE_SIZE,
						true), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, b, 0x10000 - PAGE_SIZE,
						true), -EADDRINUSE);
	/* Unaligned, past the end, wrapping: refused. */
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, b, 0x10001, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, b, SCIF_RAS_LAST & PAGE_MASK,
						true), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, b, (u64)-PAGE_SIZE, true),
			-EINVAL);
	/* Adjacent on both sides is fine. */
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, b, 0x10000 - 2 * PAGE_SIZE,
						true), 0);
	KUNIT_EXPECT_PTR_EQ(test, scif_wtree_find(&mt, 0x10000 - 1), b);
	KUNIT_EXPECT_PTR_EQ(test, scif_wtree_find(&mt, 0x10000), a);
	KUNIT_EXPECT_PTR_EQ(test, scif_wtree_find(&mt, 0x10000 + 4 * PAGE_SIZE - 1), a);
	KUNIT_EXPECT_NULL(test, scif_wtree_find(&mt, 0x10000 + 4 * PAGE_SIZE));
	KUNIT_EXPECT_PTR_EQ(test, scif_wtree_next(&mt, 0, ULLONG_MAX), b);
	KUNIT_EXPECT_NULL(test, scif_wtree_next(&mt, 0, 0x1000));
	KUNIT_EXPECT_TRUE(test, scif_wtree_busy(&mt, 0x10000 + 3 * PAGE_SIZE,
						0x20000000));
	scif_wtree_erase(&mt, a);
	KUNIT_EXPECT_NULL(test, scif_wtree_find(&mt, 0x10000));
	scif_wtree_erase(&mt, b);
	scif_wtree_destroy(&mt);
	scif_win_put(a);
	scif_win_put(b);
}

static void wtree_placement_and_hint(struct kunit *test)
{
	struct maple_tree mt;
	struct scif_window *a, *b, *c;

	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	a = wtree_win(test, 3);
	b = wtree_win(test, 1);
	c = wtree_win(test, 2);
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, a, 0, false), 0);
	KUNIT_EXPECT_EQ(test, a->offset, 0ULL);
	/* A hint inside a taken range moves to the next gap. */
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, b, PAGE_SIZE, false), 0);
	KUNIT_EXPECT_EQ(test, b->offset, 3ULL * PAGE_SIZE);
	/* A free hint is taken as is. */
	KUNIT_EXPECT_EQ(test, scif_wtree_insert(&mt, c, 1ULL << 40, false), 0);
	KUNIT_EXPECT_EQ(test, c->offset, 1ULL << 40);
	scif_wtree_erase(&mt, a);
	scif_wtree_erase(&mt, b);
	scif_wtree_erase(&mt, c);
	scif_wtree_destroy(&mt);
	scif_win_put(a);
	scif_win_put(b);
	scif_win_put(c);
}

static void wtree_kvfree(void *p)
{
	kvfree(p);
}

static void wtree_destroy(void *mt)
{
	scif_wtree_destroy(mt);
}

static void wtree_many(struct kunit *test)
{
	struct scif_window *w;
	struct maple_tree *mt;
	unsigned long i;
	ktime_t t0 = ktime_get();
	s64 t_ins, t_find;
	u64 off;

	/*
	 * The tree only reads a window's length and sets its offset, so the
	 * windows here are plain array entries: allocating and freeing
	 * tens of thousands of real ones would add a minute under KASAN
	 * without testing anything the other cases do not.
	 */
	w = kvcalloc(WTREE_MANY, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, wtree_kvfree, w),
			0);
	/* A failed assertion ends the case anywhere: free the nodes then too. */
	mt = kunit_kzalloc(test, sizeof(*mt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt);
	mt_init_flags(mt, MT_FLAGS_ALLOC_RANGE);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, wtree_destroy, mt),
			0);
	for (i = 0; i < WTREE_MANY; i++) {
		w[i].nr_pages = 1 + i % 3;
		/* Half placed by the allocator, half at fixed offsets. */
		if (i % 2)
			off = (1ULL << 32) + i * 4 * PAGE_SIZE;
		else
			off = 0;
		KUNIT_ASSERT_EQ(test, scif_wtree_insert(mt, &w[i], off, i % 2),
				0);
		cond_resched();
	}
	t_ins = ktime_ms_delta(ktime_get(), t0);
	for (i = 0; i < WTREE_MANY; i++) {
		KUNIT_ASSERT_PTR_EQ(test, scif_wtree_find(mt, w[i].offset), &w[i]);
		KUNIT_ASSERT_PTR_EQ(test,
				    scif_wtree_find(mt, scif_win_end(&w[i]) - 1),
				    &w[i]);
		KUNIT_ASSERT_EQ(test, w[i].offset & ~PAGE_MASK, 0ULL);
	}
	t_find = ktime_ms_delta(ktime_get(), t0) - t_ins;
	/* Placed windows packed the low space without a hole. */
	KUNIT_EXPECT_EQ(test, w[0].offset, 0ULL);
	for (i = 0; i < WTREE_MANY; i += 2)
		scif_wtree_erase(mt, &w[i]);
	for (i = 0; i < WTREE_MANY; i++) {
		KUNIT_ASSERT_PTR_EQ(test, scif_wtree_find(mt, w[i].offset),
				    i % 2 ? &w[i] : NULL);
		cond_resched();
	}
	/*
	 * Where the time goes, for whoever wonders why the case is slow. The
	 * other half is left to wtree_destroy(): erasing it one by one would
	 * add a minute under KASAN, and KUnit ends a case after 300 s.
	 */
	kunit_info(test, "%d windows: insert %lld ms, find %lld ms, all %lld ms",
		   WTREE_MANY, t_ins, t_find, ktime_ms_delta(ktime_get(), t0));
}

static void pin_kernel_and_errors(struct kunit *test)
{
	struct scif_pinned_pages *pp;
	void *buf = vmalloc(4 * PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, scif_pin_pages(buf, 4 * PAGE_SIZE, 0,
					     SCIF_MAP_KERNEL, &pp), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_pin_pages(buf, 4 * PAGE_SIZE, 4,
					     SCIF_MAP_KERNEL, &pp), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_pin_pages(buf, 4 * PAGE_SIZE,
					     SCIF_PROT_READ, 0x40, &pp),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, scif_pin_pages(buf + 1, PAGE_SIZE,
					     SCIF_PROT_READ, SCIF_MAP_KERNEL,
					     &pp), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_pin_pages(buf, PAGE_SIZE + 1,
					     SCIF_PROT_READ, SCIF_MAP_KERNEL,
					     &pp), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_pin_pages(buf, 0, SCIF_PROT_READ,
					     SCIF_MAP_KERNEL, &pp), -EINVAL);
	KUNIT_ASSERT_EQ(test, scif_pin_pages(buf, 4 * PAGE_SIZE,
					     SCIF_PROT_READ | SCIF_PROT_WRITE,
					     SCIF_MAP_KERNEL, &pp), 0);
	KUNIT_EXPECT_EQ(test, pp->nr_pages, 4UL);
	KUNIT_EXPECT_PTR_EQ(test, pp->pages[1], vmalloc_to_page(buf + PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, scif_unpin_pages(pp), 0);
	KUNIT_EXPECT_EQ(test, scif_unpin_pages(NULL), -EINVAL);
	vfree(buf);
}

/*
 * A length of more pages than the machine has fails with -ENOMEM before any
 * page array is allocated (scif-fuzz found an unprivileged SCIF_VWRITETO of
 * a huge length making the kernel try, and warn about, a 1 GiB vmalloc).
 */
static void pin_more_than_ram(struct kunit *test)
{
	struct scif_pinned_pages *pp = NULL;
	void *buf = vmalloc(PAGE_SIZE);
	size_t len = (size_t)(totalram_pages() + 1) << PAGE_SHIFT;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, scif_pin_pages(buf, len, SCIF_PROT_READ,
					     SCIF_MAP_KERNEL, &pp), -ENOMEM);
	KUNIT_EXPECT_NULL(test, pp);
	vfree(buf);
}

static struct kunit_case scif_wtree_cases[] = {
	KUNIT_CASE(wtree_fixed_and_overlap),
	KUNIT_CASE(wtree_placement_and_hint),
	KUNIT_CASE_SLOW(wtree_many),
	KUNIT_CASE(pin_kernel_and_errors),
	KUNIT_CASE(pin_more_than_ram),
	{}
};

static struct kunit_suite scif_wtree_suite = {
	.name = "scif_wtree",
	.test_cases = scif_wtree_cases,
};

kunit_test_suite(scif_wtree_suite);

MODULE_DESCRIPTION("KUnit tests for the SCIF window tree and pinning");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
