// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for staged RMA (rma/scif_staged.c, the requester, and
 * rma/scif_staged_serve.c, the owner): two nodes joined by the simulated
 * link without RMA addressing, so that every RMA travels as
 * RMA_PUT / RMA_GET / RMA_DATA / RMA_DONE messages. Randomized copies of
 * every call and flag with data verification, the errnos of the direct
 * path, fences and the remote fence signal, a lying peer on both sides of
 * the protocol, and node loss while a request waits for its answer.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scif.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "core/scif_wire.h"
#include "scif_kunit_util.h"
#include "scif_kunit_sim.h"
#include "rma/scif_dma.h"
#include "rma/scif_rma.h"

/* Small chunks: a page takes many messages. */
#define ST_CHUNK	512
#define ST_PAGES	16
#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define FIX		SCIF_MAP_FIXED

/**
 * struct st_ctx - two nodes, a connected pair and a buffer on each side
 * @n: the nodes, their staged link, c on node 0 connected to s on node 1
 * @cbuf: @ST_PAGES pages of c's side
 * @sbuf: @ST_PAGES pages of s's side
 */
struct st_ctx {
	struct scif_kt_nodes n;
	u8 *cbuf;
	u8 *sbuf;
};

static int st_init(struct kunit *test)
{
	struct st_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	ctx->n.a = scif_sim_instance_create("kunit_staged_a", 0);
	ctx->n.b = scif_sim_instance_create("kunit_staged_b", 1);
	KUNIT_ASSERT_NOT_NULL(test, ctx->n.a);
	KUNIT_ASSERT_NOT_NULL(test, ctx->n.b);
	ctx->n.pair = scif_sim_pair_create_staged(ctx->n.a, ctx->n.b,
						  ST_CHUNK);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->n.pair));
	scif_kt_nodes_connect(test, &ctx->n);
	ctx->cbuf = vmalloc(ST_PAGES * PAGE_SIZE);
	ctx->sbuf = vmalloc(ST_PAGES * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->cbuf);
	KUNIT_ASSERT_NOT_NULL(test, ctx->sbuf);
	return 0;
}

static void st_exit(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;

	scif_kt_nodes_down(&ctx->n);
	vfree(ctx->cbuf);
	vfree(ctx->sbuf);
}

static void st_random_copies(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	scif_epd_t c = ctx->n.c, s = ctx->n.s;

	scif_kt_rma_random(test, c, s, ctx->cbuf, ctx->sbuf, ST_PAGES, 200,
			   true);
	/* Nothing is left waiting for an answer. */
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->rma->staged));
	KUNIT_EXPECT_TRUE(test, xa_empty(&s->rma->staged));
}

static void st_copy_errors(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	struct scif_range *r = NULL;
	off_t ro;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 4, 0, RW, FIX),
			0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX),
			0);
	ro = scif_kt_reg(ctx->n.s, ctx->sbuf + 2 * PAGE_SIZE, 2, 3 * PAGE_SIZE,
			 SCIF_PROT_READ, FIX);
	KUNIT_ASSERT_EQ(test, ro, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 3 * PAGE_SIZE, 0,
					   SCIF_RMA_SYNC), -ENXIO);
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.c, 0, 5 * PAGE_SIZE, 0, 0),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, PAGE_SIZE, ro, 0),
			-EACCES);
	KUNIT_EXPECT_EQ(test, scif_vwriteto(ctx->n.c, ctx->cbuf, 8, ro,
					    SCIF_RMA_USECPU), -EACCES);
	memset(ctx->sbuf + 2 * PAGE_SIZE, 0x3c, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.c, 0, PAGE_SIZE, ro,
					    SCIF_RMA_SYNC), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ctx->cbuf, ctx->sbuf + 2 * PAGE_SIZE,
				     PAGE_SIZE), 0);
	/* Neither mmap nor get_pages can hand out the peer's pages. */
	KUNIT_EXPECT_EQ(test, scif_get_pages(ctx->n.c, 0, PAGE_SIZE, &r),
			-EOPNOTSUPP);
	KUNIT_EXPECT_NULL(test, r);
	/* Unregistered windows are gone for RMA at once, on both sides. */
	KUNIT_ASSERT_EQ(test, scif_unregister(ctx->n.s, 0, 2 * PAGE_SIZE), 0);
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, PAGE_SIZE, 0, 0),
			-ENXIO);
}

/* Have the pair deliver until @val is at @p, for up to 10 s. */
static void st_wait_landed(struct st_ctx *ctx, u64 *p, u64 val)
{
	int i;

	for (i = 0; i < 500 && READ_ONCE(*p) != val; i++) {
		scif_sim_settle(ctx->n.pair);
		msleep(20);
	}
}

static void st_fences(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	u64 *sv = (u64 *)ctx->sbuf;
	int mark;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 4, 0, RW, FIX),
			0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 4, 0, RW, FIX),
			0);
	memset(ctx->cbuf, 0xa5, 4 * PAGE_SIZE);
	memset(ctx->sbuf, 0, 4 * PAGE_SIZE);
	/* Asynchronous: a self fence waits for its answer. */
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 3 * PAGE_SIZE,
					   PAGE_SIZE, 0), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_mark(ctx->n.c, SCIF_FENCE_INIT_SELF,
					      &mark), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_wait(ctx->n.c, mark), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ctx->sbuf + PAGE_SIZE, ctx->cbuf,
				     3 * PAGE_SIZE), 0);
	/* The signal's remote write lands after the RMA it follows. */
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.c, 0, PAGE_SIZE, PAGE_SIZE,
					    0), 0);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 0, 0, 16, 0x3344,
						SCIF_FENCE_INIT_SELF |
						SCIF_SIGNAL_REMOTE), 0);
	st_wait_landed(ctx, &sv[2], 0x3344);
	KUNIT_EXPECT_EQ(test, sv[2], 0x3344ULL);
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 0, 0, 24, 0x55,
						SCIF_FENCE_INIT_PEER |
						SCIF_SIGNAL_REMOTE), 0);
	st_wait_landed(ctx, &sv[3], 0x55);
	KUNIT_EXPECT_EQ(test, sv[3], 0x55ULL);
	/* The remote write checks the peer's window as the direct one does. */
	KUNIT_EXPECT_EQ(test, scif_fence_signal(ctx->n.c, 0, 0, 4 * PAGE_SIZE,
						1, SCIF_FENCE_INIT_SELF |
						SCIF_SIGNAL_REMOTE), -ENXIO);
}

/* Send @type from s to c, raw, as the server's node would. */
static void st_hostile(struct kunit *test, u8 type, u32 arg, u32 seq,
		       const void *data, size_t len)
{
	struct st_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	u8 buf[SCIF_WIRE_MSG_SIZE + ST_CHUNK];
	struct scif_wire_msg *m = (void *)buf;

	KUNIT_ASSERT_LE(test, len, sizeof(buf) - sizeof(*m));
	scif_msg_init(m, type, s->id, c->id, s->port, c->port, arg);
	m->seq = cpu_to_le32(seq);
	m->len = cpu_to_le16(len);
	if (len)
		memcpy(buf + sizeof(*m), data, len);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, buf,
					      sizeof(*m) + len), 0);
	scif_sim_settle(ctx->n.pair);
}

static u64 st_drops(struct scif_instance *si, u16 node)
{
	struct scif_node_stats st;

	scif_node_stats(si, node, &st);
	return atomic64_read(&st.rx_drops);
}

/* A put of @n bytes of @fill at @off, as a lying peer would send it. */
static void st_put(struct kunit *test, u32 tag, u32 flags, u64 off, u64 hlen,
		   size_t n, u8 fill)
{
	u8 buf[sizeof(struct scif_wire_rma) + 64];
	struct scif_wire_rma *h = (void *)buf;

	KUNIT_ASSERT_LE(test, n, (size_t)64);
	h->offset = cpu_to_le64(off);
	h->len = cpu_to_le64(hlen);
	memset(buf + sizeof(*h), fill, n);
	st_hostile(test, SCIF_MSG_RMA_PUT, flags, tag, buf, sizeof(*h) + n);
}

static void st_get(struct kunit *test, u32 tag, u32 flags, u64 off, u64 len)
{
	struct scif_wire_rma h = {
		.offset = cpu_to_le64(off),
		.len = cpu_to_le64(len),
	};

	st_hostile(test, SCIF_MSG_RMA_GET, flags, tag, &h, sizeof(h));
}

/* The owner's side: a peer asking for what it may not have. */
static void st_hostile_requests(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	u64 d0, d1, b0, b1;
	u8 *copy;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 2, 0, RW, FIX),
			0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf + 2 * PAGE_SIZE,
					  1, 4 * PAGE_SIZE, SCIF_PROT_READ,
					  FIX), 4 * PAGE_SIZE);
	scif_sim_settle(ctx->n.pair);
	memset(ctx->cbuf, 0x11, 3 * PAGE_SIZE);
	copy = kmemdup(ctx->cbuf, 3 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	d0 = st_drops(ctx->n.a, 1);
	b0 = st_drops(ctx->n.b, 0);
	/* Outside every window, across the hole, read-only, off the end. */
	st_put(test, 7, SCIF_WIRE_RMA_LAST, 2 * PAGE_SIZE, 0, 8, 0xee);
	st_put(test, 7, SCIF_WIRE_RMA_LAST, 2 * PAGE_SIZE - 4, 0, 8, 0xee);
	st_put(test, 7, SCIF_WIRE_RMA_LAST, 4 * PAGE_SIZE, 0, 8, 0xee);
	st_put(test, 0, SCIF_WIRE_RMA_LAST, SCIF_RAS_LAST - 3, 0, 8, 0xee);
	/* A head that lies about itself, unknown flags, no bytes. */
	st_put(test, 7, SCIF_WIRE_RMA_LAST, 0, 8, 8, 0xee);
	st_put(test, 7, 0x80, 0, 0, 8, 0xee);
	st_put(test, 7, SCIF_WIRE_RMA_LAST, 0, 0, 0, 0xee);
	/* Gets: too long, empty, wrapping, without a tag, bad flags. */
	st_get(test, 8, 0, PAGE_SIZE, 2 * PAGE_SIZE);
	st_get(test, 8, 0, 0, 0);
	st_get(test, 8, 0, 4 * PAGE_SIZE, U64_MAX);
	st_get(test, 0, 0, 0, 8);
	st_get(test, 8, 0x80, 0, 8);
	d1 = st_drops(ctx->n.a, 1);
	KUNIT_EXPECT_EQ(test, d1 - d0, 12ULL);
	KUNIT_EXPECT_EQ(test, memcmp(ctx->cbuf, copy, 3 * PAGE_SIZE), 0);
	/*
	 * Every refusal with a tag was answered: s got RMA_DONEs for tags it
	 * never issued and dropped them as lies in turn.
	 */
	b1 = st_drops(ctx->n.b, 0);
	KUNIT_EXPECT_EQ(test, b1 - b0, 10ULL);
	/* An honest write of the peer lands, and so does one with tag 0. */
	st_put(test, 0, SCIF_WIRE_RMA_LAST, PAGE_SIZE + 8, 0, 16, 0x77);
	KUNIT_EXPECT_EQ(test, ctx->cbuf[PAGE_SIZE + 8], 0x77);
	KUNIT_EXPECT_EQ(test, ctx->cbuf[PAGE_SIZE + 23], 0x77);
	KUNIT_EXPECT_EQ(test, ctx->cbuf[PAGE_SIZE + 24], 0x11);
	KUNIT_EXPECT_EQ(test, st_drops(ctx->n.a, 1), d1);
	kfree(copy);
	/* And the connection still works. */
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX),
			0);
	KUNIT_EXPECT_EQ(test, scif_readfrom(ctx->n.c, 0, 2 * PAGE_SIZE, 0,
					    SCIF_RMA_SYNC), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ctx->cbuf, ctx->sbuf, 2 * PAGE_SIZE), 0);
}

/*
 * A read of @len bytes into @c's window at 0 that waits for an answer,
 * made by hand: the test plays the owner. Freed by st_fake_free().
 */
static struct scif_rma_req *st_fake_get_on(struct kunit *test,
					   struct scif_endpt *c, u64 len)
{
	struct scif_rma_req *req = kzalloc(sizeof(*req), GFP_KERNEL);
	u32 tag;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, req);
	req->ep = c;
	req->len = len;
	req->sync = true;
	atomic_set(&req->pending, 1);
	init_completion(&req->done);
	INIT_LIST_HEAD(&req->failed);
	mutex_lock(&c->rma->lock);
	ret = scif_span_get(c->rma, false, 0, len, SCIF_PROT_WRITE, &req->lsp);
	mutex_unlock(&c->rma->lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = xa_alloc_cyclic(&c->rma->staged, &tag, req,
			      XA_LIMIT(1, U32_MAX), &c->rma->staged_next,
			      GFP_KERNEL);
	KUNIT_ASSERT_GE(test, ret, 0);
	req->tag = tag;
	return req;
}

/* The same, made by c, the endpoint the test's hostile messages reach. */
static struct scif_rma_req *st_fake_get(struct kunit *test,
					struct st_ctx *ctx, u64 len)
{
	return st_fake_get_on(test, ctx->n.c, len);
}

static void st_fake_free(struct scif_rma_req *req)
{
	scif_span_put(&req->lsp);
	kfree(req);
}

static void st_data(struct kunit *test, u32 tag, size_t n, u8 fill)
{
	u8 buf[ST_CHUNK];

	KUNIT_ASSERT_LE(test, n, sizeof(buf));
	memset(buf, fill, n);
	st_hostile(test, SCIF_MSG_RMA_DATA, 0, tag, buf, n);
}

/* The requester's side: answers that do not fit any request. */
static void st_hostile_answers(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	struct scif_rma_req *req;
	u64 d0;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 1, 0, RW, FIX),
			0);
	memset(ctx->cbuf, 0, PAGE_SIZE);
	d0 = st_drops(ctx->n.a, 1);
	/* Tags never issued, tag 0, an errno out of range. */
	st_data(test, 0x7fff0000, 8, 1);
	st_hostile(test, SCIF_MSG_RMA_DONE, 0, 0x7fff0000, NULL, 0);
	st_hostile(test, SCIF_MSG_RMA_DONE, 0, 0, NULL, 0);
	KUNIT_EXPECT_EQ(test, st_drops(ctx->n.a, 1) - d0, 3ULL);

	/* Bytes in order, then more than asked for: the request fails. */
	req = st_fake_get(test, ctx, 100);
	st_data(test, req->tag, 60, 0x21);
	KUNIT_EXPECT_EQ(test, req->got, 60ULL);
	KUNIT_EXPECT_EQ(test, ctx->cbuf[59], 0x21);
	KUNIT_EXPECT_FALSE(test, completion_done(&req->done));
	st_data(test, req->tag, 41, 0x22);
	KUNIT_EXPECT_TRUE(test, completion_done(&req->done));
	KUNIT_EXPECT_EQ(test, req->status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, ctx->cbuf[60], 0);
	/* Its late DONE and bytes are dropped quietly, not applied. */
	d0 = st_drops(ctx->n.a, 1);
	st_hostile(test, SCIF_MSG_RMA_DONE, 0, req->tag, NULL, 0);
	st_data(test, req->tag, 8, 0x23);
	KUNIT_EXPECT_EQ(test, st_drops(ctx->n.a, 1) - d0, 2ULL);
	KUNIT_EXPECT_EQ(test, ctx->cbuf[60], 0);
	st_fake_free(req);

	/* A read answered "done" while bytes are missing fails. */
	req = st_fake_get(test, ctx, 100);
	st_data(test, req->tag, 50, 0x31);
	st_hostile(test, SCIF_MSG_RMA_DONE, 0, req->tag, NULL, 0);
	KUNIT_EXPECT_TRUE(test, completion_done(&req->done));
	KUNIT_EXPECT_EQ(test, req->status, -ECONNRESET);
	st_fake_free(req);

	/* An errno out of range is a lie as well; a real one is passed on. */
	req = st_fake_get(test, ctx, 100);
	st_hostile(test, SCIF_MSG_RMA_DONE, 0x10000, req->tag, NULL, 0);
	KUNIT_EXPECT_EQ(test, req->status, -ECONNRESET);
	st_fake_free(req);
	req = st_fake_get(test, ctx, 100);
	st_hostile(test, SCIF_MSG_RMA_DONE, EACCES, req->tag, NULL, 0);
	KUNIT_EXPECT_EQ(test, req->status, -EACCES);
	st_fake_free(req);

	/* A complete read ends well. */
	req = st_fake_get(test, ctx, 100);
	st_data(test, req->tag, 100, 0x41);
	st_hostile(test, SCIF_MSG_RMA_DONE, 0, req->tag, NULL, 0);
	KUNIT_EXPECT_EQ(test, req->status, 0);
	KUNIT_EXPECT_EQ(test, ctx->cbuf[99], 0x41);
	st_fake_free(req);
}

/*
 * A read the owner cannot serve for want of memory is answered with
 * ENOMEM; the request was honest, so it is no dropped message.
 */
static void st_get_enomem(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	struct st_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_wire_rma h = { .len = cpu_to_le64(8) };
	struct scif_rma_req *req;
	struct scif_wire_msg m;
	u64 d0;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(c, ctx->cbuf, 1, 0, RW, FIX), 0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(s, ctx->sbuf, 1, 0, RW, FIX), 0);
	scif_sim_settle(ctx->n.pair);
	req = st_fake_get_on(test, s, 8);
	scif_msg_init(&m, SCIF_MSG_RMA_GET, s->id, c->id, s->port, c->port, 0);
	m.seq = cpu_to_le32(req->tag);
	m.len = cpu_to_le16(sizeof(h));
	d0 = st_drops(ctx->n.a, 1);
	/* Delivered by this thread: its first allocation, the server's, fails. */
	current->fail_nth = 1;
	scif_node_rx_parts(ctx->n.a, 1, &m, sizeof(m), &h, sizeof(h));
	KUNIT_EXPECT_EQ(test, current->fail_nth, 0U);
	current->fail_nth = 0;
	scif_sim_settle(ctx->n.pair);
	KUNIT_EXPECT_EQ(test, st_drops(ctx->n.a, 1), d0);
	KUNIT_EXPECT_TRUE(test, completion_done(&req->done));
	KUNIT_EXPECT_EQ(test, req->status, -ENOMEM);
	st_fake_free(req);
	/* The next read is served. */
	memset(ctx->cbuf, 0x5a, 8);
	KUNIT_EXPECT_EQ(test, scif_readfrom(s, 0, 8, 0, SCIF_RMA_SYNC), 0);
	KUNIT_EXPECT_EQ(test, ctx->sbuf[7], 0x5a);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

/**
 * struct st_block - the owner's RMA lock held by a thread of its own
 * @lock: the lock
 * @held: completed once the thread holds it
 * @release: completed by the test to have it let go
 * @call: the thread
 *
 * Held by another task than the test's, so that the test may make RMA
 * calls meanwhile (lockdep would take a second lock of the class in one
 * task for recursion).
 */
struct st_block {
	struct mutex *lock;		/* the owner's RMA lock */
	struct completion held;
	struct completion release;
	struct scif_kt_call call;
};

static int st_block_fn(void *arg)
{
	struct st_block *b = arg;

	mutex_lock(b->lock);
	complete(&b->held);
	wait_for_completion(&b->release);
	mutex_unlock(b->lock);
	return 0;
}

/* Stop the receive path of @ep's node at its next RMA request. */
static void st_block_start(struct kunit *test, struct st_block *b,
			   struct scif_endpt *ep)
{
	b->lock = &ep->rma->lock;
	init_completion(&b->held);
	init_completion(&b->release);
	KUNIT_ASSERT_EQ(test, scif_kt_start(&b->call, st_block_fn, b), 0);
	wait_for_completion(&b->held);
}

static void st_block_end(struct st_block *b)
{
	complete(&b->release);
	wait_for_completion(&b->call.done);
}

/**
 * struct st_read - a synchronous read run in a thread
 * @ep: the endpoint
 * @len: bytes
 */
struct st_read {
	scif_epd_t ep;
	size_t len;
};

static int st_read_fn(void *arg)
{
	struct st_read *r = arg;

	return scif_readfrom(r->ep, 0, r->len, 0, SCIF_RMA_SYNC);
}

static int st_down_fn(void *arg)
{
	scif_sim_pair_down(arg);
	return 0;
}

/* The node goes while a read waits for its answer: -ENODEV, no leak. */
static void st_node_loss(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	struct st_read r = { .ep = ctx->n.c, .len = 2 * PAGE_SIZE };
	struct scif_kt_call rd, down;
	struct st_block b;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 2, 0, RW, FIX),
			0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX),
			0);
	scif_sim_settle(ctx->n.pair);
	/* The owner's receive path stops at the get, holding it unserved. */
	st_block_start(test, &b, ctx->n.s);
	KUNIT_ASSERT_EQ(test, scif_kt_start(&rd, st_read_fn, &r), 0);
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_asleep(&rd, 10000));
	KUNIT_EXPECT_FALSE(test, xa_empty(&ctx->n.c->rma->staged));
	KUNIT_ASSERT_EQ(test, scif_kt_start(&down, st_down_fn, ctx->n.pair),
			0);
	/* Node 1 is lost for node 0 first: the read ends there. */
	if (!scif_kt_join(&rd, 10000)) {
		st_block_end(&b);
		KUNIT_FAIL(test, "read still waiting after node loss");
		wait_for_completion(&rd.done);
		wait_for_completion(&down.done);
		return;
	}
	st_block_end(&b);
	KUNIT_EXPECT_EQ(test, rd.ret, -ENODEV);
	KUNIT_EXPECT_TRUE(test, scif_kt_join(&down, 10000));
	KUNIT_EXPECT_TRUE(test, xa_empty(&ctx->n.c->rma->staged));
	/* Later calls see the node gone. */
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 8, 0, 0), -ENODEV);
}

/* An asynchronous write whose node goes: close still ends cleanly. */
static void st_node_loss_async(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c;
	struct st_block b;
	int mark;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 2, 0, RW, FIX),
			0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX),
			0);
	scif_sim_settle(ctx->n.pair);
	st_block_start(test, &b, ctx->n.s);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 2 * PAGE_SIZE, 0, 0),
			0);
	KUNIT_EXPECT_FALSE(test, xa_empty(&c->rma->staged));
	KUNIT_EXPECT_EQ(test, scif_fence_mark(ctx->n.c, SCIF_FENCE_INIT_SELF,
					      &mark), 0);
	/* Node 1 goes for node 0: the write ends with it. */
	scif_node_remove(ctx->n.a, 1);
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->rma->staged));
	KUNIT_EXPECT_EQ(test, scif_fence_wait(ctx->n.c, mark), -ENODEV);
	st_block_end(&b);
	scif_sim_pair_down(ctx->n.pair);
}

static int st_fence_fn(void *arg)
{
	struct st_ctx *ctx = arg;
	int mark, ret;

	ret = scif_fence_mark(ctx->n.c, SCIF_FENCE_INIT_SELF, &mark);
	return ret ? : scif_fence_wait(ctx->n.c, mark);
}

/*
 * The connection is reset (the peer's DISCONNECT) while a fence waits for
 * an asynchronous write nobody will answer: the fence still ends.
 */
static void st_reset_under_fence(struct kunit *test)
{
	struct st_ctx *ctx = test->priv;
	struct scif_endpt *c = ctx->n.c, *s = ctx->n.s;
	struct scif_wire_msg m;
	struct scif_kt_call fw;
	struct st_block b;

	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.c, ctx->cbuf, 2, 0, RW, FIX),
			0);
	KUNIT_ASSERT_EQ(test, scif_kt_reg(ctx->n.s, ctx->sbuf, 2, 0, RW, FIX),
			0);
	scif_sim_settle(ctx->n.pair);
	st_block_start(test, &b, s);
	KUNIT_EXPECT_EQ(test, scif_writeto(ctx->n.c, 0, 2 * PAGE_SIZE, 0, 0),
			0);
	KUNIT_ASSERT_EQ(test, scif_kt_start(&fw, st_fence_fn, ctx), 0);
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_asleep(&fw, 10000));
	scif_msg_init(&m, SCIF_MSG_DISCONNECT, s->id, c->id, s->port, c->port,
		      0);
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, &m,
					      sizeof(m)), 0);
	if (!scif_kt_join(&fw, 10000)) {
		KUNIT_FAIL(test, "fence still waiting after the reset");
		st_block_end(&b);
		wait_for_completion(&fw.done);
		return;
	}
	/* Ended by the reset, or the fence call came after it. */
	KUNIT_EXPECT_TRUE(test, fw.ret == 0 || fw.ret == -ECONNRESET);
	KUNIT_EXPECT_TRUE(test, xa_empty(&c->rma->staged));
	/* The owner serves the write late; its answer is dropped. */
	st_block_end(&b);
	scif_sim_settle(ctx->n.pair);
}

static struct kunit_case scif_staged_cases[] = {
	KUNIT_CASE(st_random_copies),
	KUNIT_CASE(st_copy_errors),
	KUNIT_CASE(st_fences),
	KUNIT_CASE(st_hostile_requests),
	KUNIT_CASE(st_hostile_answers),
	KUNIT_CASE(st_get_enomem),
	KUNIT_CASE(st_node_loss),
	KUNIT_CASE(st_node_loss_async),
	KUNIT_CASE(st_reset_under_fence),
	{}
};

static struct kunit_suite scif_staged_suite = {
	.name = "scif_rma_staged",
	.init = st_init,
	.exit = st_exit,
	.test_cases = scif_staged_cases,
};

kunit_test_suite(scif_staged_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF staged RMA");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(SCIF_TRANSPORT);
