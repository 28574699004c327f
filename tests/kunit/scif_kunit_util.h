/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SCIF KUnit suites: connected endpoint pairs and
 * calls run in a helper thread, so that a test can block on one side while
 * it acts on the other.
 */
#ifndef SCIF_KUNIT_UTIL_H
#define SCIF_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/scif.h>

#include "scif_epd.h"

/**
 * struct scif_kt_call - a function run in a kernel thread
 * @fn: the function; its return value lands in @ret
 * @arg: its argument
 * @ret: the result, valid once @done completed
 * @done: completed when @fn returned
 */
struct scif_kt_call {
	int (*fn)(void *arg);
	void *arg;
	int ret;
	struct completion done;
};

static int scif_kt_thread(void *data)
{
	struct scif_kt_call *c = data;

	c->ret = c->fn(c->arg);
	complete(&c->done);
	return 0;
}

/* Start @fn(@arg) in a thread; wait for it with scif_kt_join(). */
static inline int scif_kt_start(struct scif_kt_call *c, int (*fn)(void *),
				void *arg)
{
	struct task_struct *t;

	c->fn = fn;
	c->arg = arg;
	c->ret = 0;
	init_completion(&c->done);
	t = kthread_run(scif_kt_thread, c, "scif-kunit");
	return PTR_ERR_OR_ZERO(t);
}

/* Wait up to @ms for the thread; false if it is still running. */
static inline bool scif_kt_join(struct scif_kt_call *c, unsigned int ms)
{
	return wait_for_completion_timeout(&c->done, msecs_to_jiffies(ms));
}

/**
 * struct scif_kt_conn - arguments of a connect run in a thread
 * @epd: the connecting endpoint
 * @dst: the listener
 */
struct scif_kt_conn {
	scif_epd_t epd;
	struct scif_port_id dst;
};

static inline int scif_kt_connect(void *arg)
{
	struct scif_kt_conn *c = arg;

	return scif_connect(c->epd, &c->dst);
}

/*
 * Connect a new endpoint of @csi to a new listener of @lsi, accept, and
 * return both connected endpoints; the listener is closed again.
 */
static inline void scif_kt_pair(struct kunit *test, struct scif_instance *csi,
				struct scif_instance *lsi, u16 lnode,
				scif_epd_t *client, scif_epd_t *server)
{
	struct scif_kt_conn conn;
	struct scif_kt_call call;
	struct scif_port_id peer;
	scif_epd_t l;
	int port, ret;

	l = scif_instance_open(lsi);
	KUNIT_ASSERT_NOT_NULL(test, l);
	port = scif_bind(l, 0);
	KUNIT_ASSERT_GE(test, port, SCIF_PORT_RSVD);
	KUNIT_ASSERT_EQ(test, scif_listen(l, 4), 0);
	conn.epd = scif_instance_open(csi);
	KUNIT_ASSERT_NOT_NULL(test, conn.epd);
	conn.dst.node = lnode;
	conn.dst.port = port;
	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, scif_kt_connect, &conn), 0);
	ret = scif_accept(l, &peer, server, SCIF_ACCEPT_SYNC);
	if (ret)
		scif_epd_flush(conn.epd);
	/* Never leave the thread running on our stack. */
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, 10000));
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_GE(test, call.ret, SCIF_PORT_RSVD);
	KUNIT_EXPECT_EQ(test, peer.port, call.ret);
	*client = conn.epd;
	scif_close(l);
}

#endif /* SCIF_KUNIT_UTIL_H */
