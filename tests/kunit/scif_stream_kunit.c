// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for SCIF byte streams and readiness on one node: send, recv,
 * scif_poll() and what the peer's close leaves behind.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scif.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"

/**
 * struct stream_ctx - a connected pair on a private instance
 * @si: the instance
 * @c: the connecting side
 * @s: the accepting side
 */
struct stream_ctx {
	struct scif_instance *si;
	scif_epd_t c;
	scif_epd_t s;
};

static int stream_init(struct kunit *test)
{
	struct stream_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->si = scif_sim_instance_create("kunit_stream", 0);
	KUNIT_ASSERT_NOT_NULL(test, ctx->si);
	test->priv = ctx;
	scif_kt_pair(test, ctx->si, ctx->si, 0, &ctx->c, &ctx->s);
	return 0;
}

static void stream_exit(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;

	/* Endpoints the test did not close go with the instance. */
	scif_sim_instance_destroy(ctx->si);
}

static void send_recv_small(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	char out[] = "hello, scif", in[sizeof(out)] = {};

	KUNIT_EXPECT_EQ(test, scif_send(ctx->c, out, sizeof(out),
					SCIF_SEND_BLOCK), (int)sizeof(out));
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->s, in, sizeof(in),
					SCIF_RECV_BLOCK), (int)sizeof(in));
	KUNIT_EXPECT_STREQ(test, in, out);
}

static void zero_length(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test, scif_send(ctx->c, NULL, 0, SCIF_SEND_BLOCK), 0);
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->s, NULL, 0, SCIF_RECV_BLOCK), 0);
}

static void bad_flags_and_length(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	char buf[4];

	KUNIT_EXPECT_EQ(test, scif_send(ctx->c, buf, 4, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_send(ctx->c, buf, -1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->s, buf, 4, 0x100), -EINVAL);
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->s, buf, -4, 0), -EINVAL);
}

static void not_connected(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	scif_epd_t a = scif_instance_open(ctx->si);
	char buf[4] = {};

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, scif_send(a, buf, 4, 0), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, scif_recv(a, buf, 4, 0), -ENOTCONN);
	KUNIT_EXPECT_GE(test, scif_bind(a, 0), SCIF_PORT_RSVD);
	KUNIT_EXPECT_EQ(test, scif_send(a, buf, 4, SCIF_SEND_BLOCK), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, scif_listen(a, 1), 0);
	KUNIT_EXPECT_EQ(test, scif_recv(a, buf, 4, SCIF_RECV_BLOCK), -ENOTCONN);
	scif_close(a);
}

static void nonblocking_recv_empty(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	char buf[8];

	KUNIT_EXPECT_EQ(test, scif_recv(ctx->s, buf, sizeof(buf), 0), 0);
}

/* Without blocking, a send takes what fits in the peer's ring, then 0. */
static void nonblocking_send_fills_ring(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	int len = 3 * SCIF_RX_RING_SIZE, sent, got;
	u8 *buf = vzalloc(len);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	sent = scif_send(ctx->c, buf, len, 0);
	KUNIT_EXPECT_EQ(test, sent, SCIF_RX_RING_SIZE);
	KUNIT_EXPECT_EQ(test, scif_send(ctx->c, buf, len, 0), 0);
	/* Nothing to send right now shows in poll as well. */
	KUNIT_EXPECT_FALSE(test, scif_epd_poll(ctx->c, NULL, NULL) & EPOLLOUT);
	got = scif_recv(ctx->s, buf, len, 0);
	for (int i = 0; i < 100 && got < sent; i++) {
		msleep(20);
		got += scif_recv(ctx->s, buf, len, 0);
	}
	KUNIT_EXPECT_EQ(test, got, sent);
	vfree(buf);
}

/* A blocking send larger than the ring goes through as one stream. */
static void blocking_stream(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	int len = 1 << 20, i;
	struct scif_kt_xfer x;
	u8 *in;

	x.epd = ctx->c;
	x.len = len;
	x.buf = vmalloc(len);
	in = vzalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, x.buf);
	KUNIT_ASSERT_NOT_NULL(test, in);
	for (i = 0; i < len; i++)
		x.buf[i] = i * 7 + (i >> 10);
	scif_kt_stream(test, &x, ctx->s, in, 30000);
	vfree(x.buf);
	vfree(in);
}

static void peer_close_keeps_queued_data(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	char buf[16] = {};

	KUNIT_EXPECT_EQ(test, scif_send(ctx->c, "abcdefgh", 8, SCIF_SEND_BLOCK),
			8);
	KUNIT_EXPECT_EQ(test, scif_close(ctx->c), 0);
	ctx->c = NULL;
	/* EPOLLHUP once the reset arrived; the data is still readable. */
	{
		/* No events asked for: only the hang-up ends the wait. */
		struct scif_pollepd p = { .epd = ctx->s, .events = 0 };

		KUNIT_EXPECT_EQ(test, scif_poll(&p, 1, 1000), 1);
		KUNIT_EXPECT_TRUE(test, p.revents & EPOLLHUP);
		p.events = EPOLLIN;
		KUNIT_EXPECT_EQ(test, scif_poll(&p, 1, 0), 1);
		KUNIT_EXPECT_TRUE(test, p.revents & EPOLLIN);
	}
	/* A blocking recv returns what was queued, short. */
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->s, buf, 16, SCIF_RECV_BLOCK), 8);
	KUNIT_EXPECT_STREQ(test, buf, "abcdefgh");
	KUNIT_EXPECT_EQ(test, scif_recv(ctx->s, buf, 16, SCIF_RECV_BLOCK),
			-ECONNRESET);
	KUNIT_EXPECT_EQ(test, scif_send(ctx->s, buf, 1, 0), -ECONNRESET);
}

static int stream_kt_recv(void *arg)
{
	struct scif_kt_xfer *x = arg;

	return scif_recv(x->epd, x->buf, x->len, SCIF_RECV_BLOCK);
}

/* A blocked receiver is released by the peer's close and by a flush. */
static void blocked_recv_released(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	struct scif_kt_call call;
	struct scif_kt_xfer x;
	u8 buf[8];

	x.epd = ctx->s;
	x.buf = buf;
	x.len = sizeof(buf);
	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, stream_kt_recv, &x), 0);
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_asleep(&call, 5000));
	scif_epd_flush(ctx->s);
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 5000));
	KUNIT_EXPECT_EQ(test, call.ret, -EINTR);

	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, stream_kt_recv, &x), 0);
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_asleep(&call, 5000));
	scif_close(ctx->c);
	ctx->c = NULL;
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 5000));
	KUNIT_EXPECT_EQ(test, call.ret, -ECONNRESET);
}

static void poll_events(struct kunit *test)
{
	struct stream_ctx *ctx = test->priv;
	struct scif_pollepd p[3] = {
		{ .epd = ctx->c, .events = EPOLLIN | EPOLLOUT },
		{ .epd = ctx->s, .events = EPOLLIN },
		{ .epd = NULL, .events = EPOLLIN },
	};
	char c = 'x';

	/* Writable client, idle server, invalid third entry. */
	KUNIT_EXPECT_EQ(test, scif_poll(p, 3, 0), 2);
	KUNIT_EXPECT_TRUE(test, p[0].revents == EPOLLOUT);
	KUNIT_EXPECT_TRUE(test, !p[1].revents);
	KUNIT_EXPECT_TRUE(test, p[2].revents == EPOLLNVAL);
	/* Only the idle server: times out. */
	KUNIT_EXPECT_EQ(test, scif_poll(&p[1], 1, 20), 0);
	KUNIT_EXPECT_EQ(test, scif_send(ctx->c, &c, 1, 0), 1);
	KUNIT_EXPECT_EQ(test, scif_poll(&p[1], 1, 1000), 1);
	KUNIT_EXPECT_TRUE(test, p[1].revents & EPOLLIN);
	/* Too many entries. */
	KUNIT_EXPECT_EQ(test, scif_poll(p, UINT_MAX, 0), -EINVAL);
}

static struct kunit_case scif_stream_cases[] = {
	KUNIT_CASE(send_recv_small),
	KUNIT_CASE(zero_length),
	KUNIT_CASE(bad_flags_and_length),
	KUNIT_CASE(not_connected),
	KUNIT_CASE(nonblocking_recv_empty),
	KUNIT_CASE(nonblocking_send_fills_ring),
	KUNIT_CASE(blocking_stream),
	KUNIT_CASE(peer_close_keeps_queued_data),
	KUNIT_CASE(blocked_recv_released),
	KUNIT_CASE(poll_events),
	{}
};

static struct kunit_suite scif_stream_suite = {
	.name = "scif_stream",
	.init = stream_init,
	.exit = stream_exit,
	.test_cases = scif_stream_cases,
};

kunit_test_suite(scif_stream_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF send, recv and poll");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
