// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the walks over two spans that RMA copies use: the run
 * walk (scif_walk_next_run(), the CPU copy's) must cut a copy into exactly
 * the runs the page walk (scif_walk_next()) yields once merged, for any
 * start, length and page offset on either side, across window boundaries
 * and holes in physical contiguity.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>

#include "rma/scif_dma.h"
#include "rma/scif_rma.h"

/* Pages of each side: two windows each, cut at different pages. */
#define SP_PAGES	12
#define SP_LSPLIT	5
#define SP_RSPLIT	7
/* An order-4 block: 16 pages contiguous, some used out of order. */
#define SP_ORDER	4
#define SP_MAX_RUNS	(2 * SP_PAGES + 2)

/**
 * struct sp_ctx - a local and a remote span over hand-built windows
 * @block: the pages the local windows use, in an order with holes
 * @lwin: local windows (pages of @block)
 * @rwin: remote windows (made-up peer addresses, never touched)
 * @lpp: the local windows' pinned pages
 * @lsp: span over @lwin
 * @rsp: span over @rwin
 */
struct sp_ctx {
	struct page *block;
	struct scif_window lwin[2];
	struct scif_window rwin[2];
	struct scif_pinned_pages lpp[2];
	struct scif_span lsp;
	struct scif_span rsp;
};

/* Merged runs of one walk. */
struct sp_runs {
	unsigned int nr;
	struct scif_dma_run run[SP_MAX_RUNS];
};

static void sp_add(struct kunit *test, struct sp_runs *r, u64 lphys,
		   u64 raddr, u64 len)
{
	struct scif_dma_run *last = r->nr ? &r->run[r->nr - 1] : NULL;

	KUNIT_ASSERT_GT(test, len, 0ULL);
	if (last && last->lphys + last->len == lphys &&
	    last->raddr + last->len == raddr) {
		last->len += len;
		return;
	}
	KUNIT_ASSERT_LT(test, r->nr, SP_MAX_RUNS);
	r->run[r->nr++] = (struct scif_dma_run){ lphys, raddr, len };
}

/*
 * Page i of our side: mostly block page i, with holes (pages 3 and 8
 * swapped with others) so that runs break in the middle of windows.
 */
static struct page *sp_local_page(struct sp_ctx *ctx, unsigned int i)
{
	static const u8 order[SP_PAGES] = {
		0, 1, 2, 13, 4, 5, 6, 7, 14, 9, 10, 11
	};

	return ctx->block + order[i];
}

/* The peer's page i: contiguous except for a jump after page 9. */
static u64 sp_remote_addr(unsigned int i)
{
	return 0x40000000ULL + (u64)i * PAGE_SIZE + (i >= 10 ? SZ_1M : 0);
}

static void sp_window(struct scif_window *win, u64 offset,
		      unsigned long nr_pages)
{
	win->offset = offset;
	win->nr_pages = nr_pages;
	win->nr_recv = nr_pages;
}

static int sp_init(struct kunit *test)
{
	struct sp_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct page **pages;
	u64 *addrs;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->block = alloc_pages(GFP_KERNEL, SP_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, ctx->block);
	pages = kunit_kcalloc(test, SP_PAGES, sizeof(*pages), GFP_KERNEL);
	addrs = kunit_kcalloc(test, SP_PAGES, sizeof(*addrs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	KUNIT_ASSERT_NOT_NULL(test, addrs);
	for (i = 0; i < SP_PAGES; i++) {
		pages[i] = sp_local_page(ctx, i);
		addrs[i] = sp_remote_addr(i);
	}
	sp_window(&ctx->lwin[0], 0, SP_LSPLIT);
	sp_window(&ctx->lwin[1], SP_LSPLIT * PAGE_SIZE, SP_PAGES - SP_LSPLIT);
	ctx->lpp[0].pages = pages;
	ctx->lpp[1].pages = pages + SP_LSPLIT;
	ctx->lwin[0].pp = &ctx->lpp[0];
	ctx->lwin[1].pp = &ctx->lpp[1];
	sp_window(&ctx->rwin[0], 0, SP_RSPLIT);
	sp_window(&ctx->rwin[1], SP_RSPLIT * PAGE_SIZE, SP_PAGES - SP_RSPLIT);
	ctx->rwin[0].remote = true;
	ctx->rwin[1].remote = true;
	ctx->rwin[0].addrs = addrs;
	ctx->rwin[1].addrs = addrs + SP_RSPLIT;
	ctx->lsp.wins = ctx->lsp.few;
	ctx->lsp.few[0] = &ctx->lwin[0];
	ctx->lsp.few[1] = &ctx->lwin[1];
	ctx->lsp.nr = 2;
	ctx->rsp.wins = ctx->rsp.few;
	ctx->rsp.few[0] = &ctx->rwin[0];
	ctx->rsp.few[1] = &ctx->rwin[1];
	ctx->rsp.nr = 2;
	test->priv = ctx;
	return 0;
}

static void sp_exit(struct kunit *test)
{
	struct sp_ctx *ctx = test->priv;

	__free_pages(ctx->block, SP_ORDER);
}

/* Walk [@from, @from + @n) both ways; the merged runs must be equal. */
static void sp_compare(struct kunit *test, u64 lstart, u64 rstart, u64 from,
		       u64 n, struct sp_runs *got)
{
	struct sp_ctx *ctx = test->priv;
	struct sp_runs *want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	struct scif_dma_run run;
	size_t loff, roff, len;
	struct scif_walk w;
	struct page *lpg;
	unsigned int i;
	u64 raddr, sum = 0;

	KUNIT_ASSERT_NOT_NULL(test, want);
	memset(got, 0, sizeof(*got));
	ctx->lsp.start = lstart;
	ctx->rsp.start = rstart;
	scif_walk_init(&w, &ctx->lsp, &ctx->rsp, from, n);
	while (scif_walk_next(&w, &lpg, &loff, &raddr, &roff, &len))
		sp_add(test, want, page_to_phys(lpg) + loff, raddr + roff, len);
	scif_walk_init(&w, &ctx->lsp, &ctx->rsp, from, n);
	while (scif_walk_next_run(&w, &run)) {
		sum += run.len;
		sp_add(test, got, run.lphys, run.raddr, run.len);
	}
	KUNIT_EXPECT_EQ(test, sum, n);
	KUNIT_ASSERT_EQ_MSG(test, got->nr, want->nr,
			    "lstart %llu rstart %llu from %llu n %llu",
			    lstart, rstart, from, n);
	for (i = 0; i < want->nr; i++) {
		KUNIT_EXPECT_EQ(test, got->run[i].lphys, want->run[i].lphys);
		KUNIT_EXPECT_EQ(test, got->run[i].raddr, want->run[i].raddr);
		KUNIT_EXPECT_EQ(test, got->run[i].len, want->run[i].len);
	}
}

/* The whole of both spans, page aligned: the runs the layout implies. */
static void span_runs_whole(struct kunit *test)
{
	struct sp_ctx *ctx = test->priv;
	struct sp_runs *got = kunit_kzalloc(test, sizeof(*got), GFP_KERNEL);
	u64 base;

	KUNIT_ASSERT_NOT_NULL(test, got);
	sp_compare(test, 0, 0, 0, SP_PAGES * PAGE_SIZE, got);
	/*
	 * Local pages 3 and 8 are out of place, the peer jumps after page 9:
	 * runs 0-2, 3, 4-7, 8, 9, 10-11.
	 */
	base = page_to_phys(ctx->block);
	KUNIT_ASSERT_EQ(test, got->nr, 6U);
	KUNIT_EXPECT_EQ(test, got->run[0].lphys, base);
	KUNIT_EXPECT_EQ(test, got->run[0].len, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, got->run[1].lphys, base + 13 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, got->run[2].len, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, got->run[2].raddr, sp_remote_addr(4));
	KUNIT_EXPECT_EQ(test, got->run[4].len, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, got->run[5].raddr, sp_remote_addr(10));
	KUNIT_EXPECT_EQ(test, got->run[5].len, 2 * PAGE_SIZE);
}

/*
 * Random starts (equal or different page offsets on the two sides), from
 * and lengths, including single bytes and ends in the middle of a page.
 */
static void span_runs_random(struct kunit *test)
{
	struct sp_runs *got = kunit_kzalloc(test, sizeof(*got), GFP_KERNEL);
	u64 lstart, rstart, from, n, room;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < 2000; i++) {
		lstart = get_random_u32_below(2 * PAGE_SIZE);
		rstart = i % 2 ? lstart : get_random_u32_below(2 * PAGE_SIZE);
		room = SP_PAGES * PAGE_SIZE - max(lstart, rstart);
		from = get_random_u32_below(room);
		n = 1 + get_random_u32_below(room - from);
		sp_compare(test, lstart, rstart, from, n, got);
	}
}

static struct kunit_case scif_span_cases[] = {
	KUNIT_CASE(span_runs_whole),
	KUNIT_CASE(span_runs_random),
	{}
};

static struct kunit_suite scif_span_suite = {
	.name = "scif_span",
	.init = sp_init,
	.exit = sp_exit,
	.test_cases = scif_span_cases,
};

kunit_test_suite(scif_span_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the SCIF RMA span walks");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
