/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SCIF KUnit suites: connected endpoint pairs, two
 * nodes joined by the simulated link, and calls run in a helper thread, so
 * that a test can block on one side while it acts on the other.
 */
#ifndef SCIF_KUNIT_UTIL_H
#define SCIF_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/scif.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "core/scif_link.h"
#include "core/scif_wire.h"
#include "scif_kunit_sim.h"

/**
 * struct scif_kt_stuck - a link whose sends wait until the test lets them
 *			  go, as a full ring does; route announcements pass
 * @link: the link, to add as a node's
 * @entered: a send is waiting inside the link
 * @release: let the waiting send return -ENODEV, as a dead link's does
 */
struct scif_kt_stuck {
	struct scif_link link;
	struct completion entered;
	struct completion release;
};

static inline int scif_kt_stuck_send(struct scif_link *link,
				     const struct scif_wire_msg *msg,
				     const void *data, size_t len)
{
	struct scif_kt_stuck *st = container_of(link, struct scif_kt_stuck,
						link);

	if (msg->type == SCIF_MSG_ROUTE)
		return 0;
	complete(&st->entered);
	wait_for_completion(&st->release);
	return -ENODEV;
}

/* Make @st a stuck link that carries @max_data bytes a message. */
static inline void scif_kt_stuck_init(struct scif_kt_stuck *st,
				      size_t max_data)
{
	static const struct scif_link_ops ops = {
		.send = scif_kt_stuck_send,
	};

	st->link.ops = &ops;
	st->link.max_data = max_data;
	init_waitqueue_head(&st->link.rx_wait);
	init_completion(&st->entered);
	init_completion(&st->release);
}

/**
 * struct scif_kt_call - a function run in a kernel thread
 * @fn: the function; its return value lands in @ret
 * @arg: its argument
 * @ret: the result, valid once @done completed
 * @done: completed when @fn returned
 * @task: the thread; read only under RCU while @done is not completed
 */
struct scif_kt_call {
	int (*fn)(void *arg);
	void *arg;
	int ret;
	struct completion done;
	struct task_struct *task;
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
	c->task = IS_ERR(t) ? NULL : t;
	return PTR_ERR_OR_ZERO(t);
}

/*
 * Wait up to @ms for the thread to sleep: seen asleep on three polls in a
 * row, 20 ms apart. A test that is to wake a blocked call uses this, not a
 * fixed delay, which a loaded host can outlast before the call even began
 * to wait. True if it sleeps, false if it ended or kept running. A thread
 * that has not completed @done has not exited, so its task_struct, freed
 * only after an RCU grace period, can be read under rcu_read_lock().
 */
static inline bool scif_kt_wait_asleep(struct scif_kt_call *c,
				       unsigned int ms)
{
	unsigned int seen = 0, waited;
	bool asleep;

	for (waited = 0; waited <= ms; waited += 20) {
		rcu_read_lock();
		asleep = !completion_done(&c->done) &&
			 (READ_ONCE(c->task->__state) &
			  (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE));
		rcu_read_unlock();
		if (completion_done(&c->done))
			return false;
		seen = asleep ? seen + 1 : 0;
		if (seen == 3)
			return true;
		msleep(20);
	}
	return false;
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

/**
 * struct scif_kt_xfer - arguments of a send or recv run in a thread
 * @epd: the endpoint
 * @buf: the data
 * @len: its length
 */
struct scif_kt_xfer {
	scif_epd_t epd;
	u8 *buf;
	int len;
};

/* A blocking scif_send() of a &struct scif_kt_xfer, for scif_kt_start(). */
static inline int scif_kt_send(void *arg)
{
	struct scif_kt_xfer *x = arg;

	return scif_send(x->epd, x->buf, x->len, SCIF_SEND_BLOCK);
}

/*
 * Send @x in a thread while this one receives as many bytes on @rx into
 * @in, then check that all of it arrived unchanged. A short receive
 * flushes @x->epd so the sender ends too; it is given @ms to finish.
 */
static inline void scif_kt_stream(struct kunit *test, struct scif_kt_xfer *x,
				  scif_epd_t rx, u8 *in, unsigned int ms)
{
	struct scif_kt_call call;
	int got;

	KUNIT_ASSERT_EQ(test, scif_kt_start(&call, scif_kt_send, x), 0);
	got = scif_recv(rx, in, x->len, SCIF_RECV_BLOCK);
	if (got != x->len)
		scif_epd_flush(x->epd);
	KUNIT_ASSERT_TRUE(test, scif_kt_join(&call, ms));
	KUNIT_EXPECT_EQ(test, got, x->len);
	KUNIT_EXPECT_EQ(test, call.ret, x->len);
	KUNIT_EXPECT_EQ(test, memcmp(in, x->buf, x->len), 0);
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
	if (!scif_kt_join(&call, 10000)) {
		KUNIT_FAIL(test, "connect still waiting 10 s after accept returned %d (state %d)",
			   ret, READ_ONCE(conn.epd->state));
		/* Never leave the thread running on our stack. */
		scif_epd_flush(conn.epd);
		wait_for_completion(&call.done);
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_GE(test, call.ret, SCIF_PORT_RSVD);
	KUNIT_EXPECT_EQ(test, peer.port, call.ret);
	*client = conn.epd;
	scif_close(l);
}

/*
 * Wait up to @ms milliseconds for @cond, checked every 20 ms: messages
 * cross the simulated link in a worker. The value is @cond's last.
 */
#define scif_kt_wait_for_ms(cond, ms) ({			\
	bool __ok = false;					\
	int __ms;						\
	for (__ms = 0; __ms <= (ms); __ms += 20) {		\
		__ok = (cond);					\
		if (__ok)					\
			break;					\
		msleep(20);					\
	}							\
	__ok;							\
})

/* Wait up to a second for @cond (scif_kt_wait_for_ms()). */
#define scif_kt_wait_for(cond) scif_kt_wait_for_ms(cond, 1000)

/**
 * struct scif_kt_nodes - node 0 and node 1 joined by the simulated link
 * @a: node 0
 * @b: node 1
 * @pair: the link between them
 * @c: an endpoint on @a connected to @s, once scif_kt_nodes_connect() ran
 * @s: its peer on @b
 *
 * Zeroed, then set up by scif_kt_nodes_up(); torn down, however far the
 * set-up got, by scif_kt_nodes_down(). A test may clear @c or @s after it
 * closed one itself, and may replace @pair.
 */
struct scif_kt_nodes {
	struct scif_instance *a;
	struct scif_instance *b;
	struct scif_sim_pair *pair;
	scif_epd_t c;
	scif_epd_t s;
};

/*
 * Create @n's two instances, named @name_a and @name_b, and join them by a
 * simulated link that carries at most @chunk bytes a message. A failure
 * ends the test; what was created is left in @n for scif_kt_nodes_down().
 */
static inline void scif_kt_nodes_up(struct kunit *test,
				    struct scif_kt_nodes *n,
				    const char *name_a, const char *name_b,
				    size_t chunk)
{
	n->a = scif_sim_instance_create(name_a, 0);
	n->b = scif_sim_instance_create(name_b, 1);
	KUNIT_ASSERT_NOT_NULL(test, n->a);
	KUNIT_ASSERT_NOT_NULL(test, n->b);
	n->pair = scif_sim_pair_create(n->a, n->b, chunk);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n->pair));
}

/* Connect an endpoint of node 0 to one of node 1: @n->c and @n->s. */
static inline void scif_kt_nodes_connect(struct kunit *test,
					 struct scif_kt_nodes *n)
{
	scif_kt_pair(test, n->a, n->b, 1, &n->c, &n->s);
}

/*
 * Undo scif_kt_nodes_up() and scif_kt_nodes_connect(): close the endpoints
 * still set, then remove the link, then destroy both instances, which
 * takes any other endpoint on them along.
 */
static inline void scif_kt_nodes_down(struct scif_kt_nodes *n)
{
	if (n->c)
		scif_close(n->c);
	if (n->s)
		scif_close(n->s);
	if (!IS_ERR_OR_NULL(n->pair))
		scif_sim_pair_destroy(n->pair);
	scif_sim_instance_destroy(n->a);
	scif_sim_instance_destroy(n->b);
}

/* Register @pages pages of kernel memory at @addr on @ep. */
static inline off_t scif_kt_reg(scif_epd_t ep, void *addr, size_t pages,
				off_t off, int prot, int flags)
{
	return scif_register(ep, addr, pages * PAGE_SIZE, off, prot,
			     flags | SCIF_MAP_KERNEL);
}

/* Windows of 1..4 pages back to back over @pages pages of @buf at @off. */
static inline void scif_kt_reg_run(struct kunit *test, scif_epd_t ep, u8 *buf,
				   unsigned int pages, off_t off, int prot)
{
	unsigned int done = 0, n;

	while (done < pages) {
		n = min(1 + done % 4, pages - done);
		KUNIT_ASSERT_EQ(test, scif_kt_reg(ep, buf + done * PAGE_SIZE, n,
						  off + done * PAGE_SIZE, prot,
						  SCIF_MAP_FIXED),
				off + (off_t)done * PAGE_SIZE);
		done += n;
	}
}

/*
 * Without %SCIF_RMA_SYNC an RMA may still be running (on a DMA engine, or
 * waiting for a staged answer) when the call returns: a fence waits for it.
 */
static inline void scif_kt_rma_complete(struct kunit *test, scif_epd_t ep,
					int flags)
{
	int mark;

	if (flags & SCIF_RMA_SYNC)
		return;
	KUNIT_ASSERT_EQ(test, scif_fence_mark(ep, SCIF_FENCE_INIT_SELF, &mark),
			0);
	KUNIT_ASSERT_EQ(test, scif_fence_wait(ep, mark), 0);
}

/**
 * scif_kt_rma_random() - random RMAs between two connected endpoints,
 *	each checked against the memory it must have copied
 * @test: the test
 * @c: one endpoint; @cbuf (@pages pages) is registered as its windows
 * @s: its peer; @sbuf likewise
 * @cbuf: @c's memory
 * @sbuf: @s's memory
 * @pages: pages of each buffer
 * @iters: RMAs to issue
 * @v_cache: let the v* calls use %SCIF_RMA_USECACHE
 *
 * Each RMA is one of scif_writeto() and scif_readfrom() by @c, or
 * scif_vwriteto() and scif_vreadfrom() by @s on a vmalloc() buffer, with
 * random offsets, length and flags.
 */
static inline void scif_kt_rma_random(struct kunit *test, scif_epd_t c,
				      scif_epd_t s, u8 *cbuf, u8 *sbuf,
				      unsigned int pages, int iters,
				      bool v_cache)
{
	const int rw = SCIF_PROT_READ | SCIF_PROT_WRITE;
	size_t size = (size_t)pages * PAGE_SIZE;
	off_t lbase = 0x100000, rbase = 0x7000000;
	u8 *v = vmalloc(size), *dst, *src;
	int i, flags, ret;
	scif_epd_t ep;

	KUNIT_ASSERT_NOT_NULL(test, v);
	scif_kt_reg_run(test, c, cbuf, pages, lbase, rw);
	scif_kt_reg_run(test, s, sbuf, pages, rbase, rw);
	for (i = 0; i < iters; i++) {
		size_t len = 1 + get_random_u32_below(size);
		size_t lo = get_random_u32_below(size - len + 1);
		size_t ro = get_random_u32_below(size - len + 1);
		int op = get_random_u32_below(4);

		flags = get_random_u32_below(16);
		if (op < 2 || !v_cache)
			flags &= ~SCIF_RMA_USECACHE;
		get_random_bytes(cbuf, size);
		get_random_bytes(sbuf, size);
		get_random_bytes(v, size);
		/* Each case: the call, then where the data must now agree. */
		switch (op) {
		case 0:
			ep = c;
			ret = scif_writeto(c, lbase + lo, len, rbase + ro,
					   flags);
			dst = sbuf + ro;
			src = cbuf + lo;
			break;
		case 1:
			ep = c;
			ret = scif_readfrom(c, lbase + lo, len, rbase + ro,
					    flags);
			dst = cbuf + lo;
			src = sbuf + ro;
			break;
		case 2:
			ep = s;
			ret = scif_vwriteto(s, v + lo, len, lbase + ro, flags);
			dst = cbuf + ro;
			src = v + lo;
			break;
		default:
			ep = s;
			ret = scif_vreadfrom(s, v + lo, len, lbase + ro, flags);
			dst = v + lo;
			src = cbuf + ro;
			break;
		}
		if (!ret)
			scif_kt_rma_complete(test, ep, flags);
		if (ret || memcmp(dst, src, len)) {
			vfree(v);
			KUNIT_FAIL_AND_ABORT(test, "RMA %d, flags %#x, %zu bytes: %s (%d)",
					     op, flags, len, ret ? "failed" :
					     "data differ", ret);
		}
	}
	vfree(v);
}

/* How many endpoints @si holds, in any state. */
static inline int scif_kt_nr_eps(struct scif_instance *si)
{
	struct scif_endpt *ep;
	unsigned long idx = 0;
	int n = 0;

	while ((ep = scif_ep_next(si, &idx))) {
		n++;
		scif_ep_put(ep);
	}
	return n;
}

#endif /* SCIF_KUNIT_UTIL_H */
