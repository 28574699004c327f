// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: scif_node_wait(), where a task waiting for a node takes in the
 * node's messages itself when the link wakes it (links with a poll
 * operation, such as the NTB transport's).
 *
 * The link here is a fake: its "messages" are one flag, which its poll
 * operation turns into the condition the waiter waits for, as the NTB
 * transport's drain turns a ring record into stream data.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/wait.h>
#include "core/scif_core.h"
#include "core/scif_link.h"
#include "scif_kunit_sim.h"

#define WAIT_NODE	7
#define WAIT_CHUNK	1024

/**
 * struct wait_link - a fake link and a task waiting for its node
 * @link: what the core sees
 * @si: the instance the node is in
 * @wq: where the waiter's condition is announced
 * @arrived: a message has "arrived" on the link (the poll delivers it)
 * @delivered: the waiter's condition
 * @spin_us: what the link's busy_poll operation answers
 * @arrive_at: with @spin_us, the poll call that finds the message
 *	       (polling sees it arrive; nobody wakes the waiter)
 * @polls: calls of the poll operation
 * @polls_by_waiter: of those, the ones made by the waiting task
 * @late_polls: calls made after the node was removed
 * @removed: scif_node_remove() has returned
 * @waiter: the waiting task
 * @started: the waiter is about to wait
 * @ret: what scif_node_wait() returned
 * @done: the waiter returned (completed for all waits)
 */
struct wait_link {
	struct scif_link link;
	struct scif_instance *si;
	wait_queue_head_t wq;
	bool arrived;
	bool delivered;
	unsigned int spin_us;
	int arrive_at;
	atomic_t polls;
	atomic_t polls_by_waiter;
	atomic_t late_polls;
	bool removed;
	struct task_struct *waiter;
	struct completion started;
	long ret;
	struct completion done;
};

static int wait_link_send(struct scif_link *link,
			  const struct scif_wire_msg *msg, const void *data,
			  size_t len)
{
	return 0;
}

static int wait_link_poll(struct scif_link *link)
{
	struct wait_link *wl = container_of(link, struct wait_link, link);

	if (atomic_inc_return(&wl->polls) == wl->arrive_at)
		WRITE_ONCE(wl->arrived, true);
	if (current == READ_ONCE(wl->waiter))
		atomic_inc(&wl->polls_by_waiter);
	if (READ_ONCE(wl->removed))
		atomic_inc(&wl->late_polls);
	if (!READ_ONCE(wl->arrived) || READ_ONCE(wl->delivered))
		return 0;
	WRITE_ONCE(wl->delivered, true);
	wake_up(&wl->wq);
	return 1;
}

static unsigned int wait_link_busy_poll(struct scif_link *link)
{
	return container_of(link, struct wait_link, link)->spin_us;
}

static const struct scif_link_ops wait_link_ops = {
	.send = wait_link_send,
	.poll = wait_link_poll,
	.busy_poll = wait_link_busy_poll,
};

static const struct scif_link_ops wait_link_nopoll_ops = {
	.send = wait_link_send,
};

static bool wait_link_ready(const void *arg)
{
	const struct wait_link *wl = arg;

	return READ_ONCE(wl->delivered);
}

static int wait_link_waiter(void *arg)
{
	struct wait_link *wl = arg;

	WRITE_ONCE(wl->waiter, current);
	complete(&wl->started);
	wl->ret = scif_node_wait(wl->si, WAIT_NODE, &wl->wq, wait_link_ready,
				 NULL, wl, TASK_INTERRUPTIBLE, 600 * HZ);
	/* For good: the test may wait for it more than once. */
	complete_all(&wl->done);
	return 0;
}

static int wait_init(struct kunit *test)
{
	struct scif_instance *si = scif_sim_instance_create("kunit-wait", 0);

	if (IS_ERR(si))
		return PTR_ERR(si);
	test->priv = si;
	return 0;
}

static void wait_exit(struct kunit *test)
{
	scif_sim_instance_destroy(test->priv);
}

/* A link with the node added and a waiter started on it. */
static struct wait_link *wait_link_start(struct kunit *test,
					 const struct scif_link_ops *ops)
{
	struct wait_link *wl = kunit_kzalloc(test, sizeof(*wl), GFP_KERNEL);
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, wl);
	wl->si = test->priv;
	wl->link.ops = ops;
	wl->link.max_data = WAIT_CHUNK;
	init_waitqueue_head(&wl->link.rx_wait);
	init_waitqueue_head(&wl->wq);
	init_completion(&wl->started);
	init_completion(&wl->done);
	KUNIT_ASSERT_EQ(test, scif_node_add(wl->si, WAIT_NODE, &wl->link), 0);
	t = kthread_run(wait_link_waiter, wl, "scif-kunit-wait");
	if (IS_ERR(t)) {
		scif_node_remove(wl->si, WAIT_NODE);
		KUNIT_FAIL(test, "no thread");
		return NULL;
	}
	wait_for_completion(&wl->started);
	if (ops->poll) {
		/* Until the waiter sleeps on the link. */
		for (i = 0; i < 500 && !wq_has_sleeper(&wl->link.rx_wait); i++)
			msleep(20);
		KUNIT_EXPECT_TRUE(test, wq_has_sleeper(&wl->link.rx_wait));
	}
	return wl;
}

/* Node removal and the end of the waiter; then the test's memory may go. */
static void wait_link_end(struct wait_link *wl)
{
	scif_node_remove(wl->si, WAIT_NODE);
	WRITE_ONCE(wl->removed, true);
	wait_for_completion(&wl->done);
}

/*
 * The link wakes the waiter, which takes in the message itself; nothing
 * else delivers it here.
 */
static void wait_drains_in_waiter(struct kunit *test)
{
	struct wait_link *wl = wait_link_start(test, &wait_link_ops);

	if (!wl)
		return;
	KUNIT_EXPECT_EQ(test, atomic_read(&wl->polls), 0);
	WRITE_ONCE(wl->arrived, true);
	wake_up(&wl->link.rx_wait);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&wl->done,
							    10 * HZ));
	KUNIT_EXPECT_GT(test, wl->ret, 0L);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(wl->delivered));
	KUNIT_EXPECT_GE(test, atomic_read(&wl->polls_by_waiter), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&wl->polls),
			atomic_read(&wl->polls_by_waiter));
	wait_link_end(wl);
}

/* A link with the node added, for a wait made by the test itself. */
static struct wait_link *wait_link_add(struct kunit *test)
{
	struct wait_link *wl = kunit_kzalloc(test, sizeof(*wl), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wl);
	wl->si = test->priv;
	wl->link.ops = &wait_link_ops;
	wl->link.max_data = WAIT_CHUNK;
	init_waitqueue_head(&wl->link.rx_wait);
	init_waitqueue_head(&wl->wq);
	KUNIT_ASSERT_EQ(test, scif_node_add(wl->si, WAIT_NODE, &wl->link), 0);
	return wl;
}

/*
 * A wait whose condition holds from the start does not sleep, but still
 * takes in once what the link may have left to a waiting task.
 */
static void wait_polls_once_more_on_leaving(struct kunit *test)
{
	struct wait_link *wl = wait_link_add(test);

	WRITE_ONCE(wl->delivered, true);
	KUNIT_EXPECT_EQ(test, scif_node_wait(wl->si, WAIT_NODE, &wl->wq,
					     wait_link_ready, NULL, wl,
					     TASK_INTERRUPTIBLE, HZ), (long)HZ);
	KUNIT_EXPECT_EQ(test, atomic_read(&wl->polls), 1);
	scif_node_remove(wl->si, WAIT_NODE);
}

/*
 * Removing the node lets the waiter go (-EAGAIN: it goes on waiting without
 * the link) instead of waiting for it, and the link is not polled after.
 */
static void wait_lets_go_on_node_removal(struct kunit *test)
{
	struct wait_link *wl = wait_link_start(test, &wait_link_ops);

	if (!wl)
		return;
	scif_node_remove(wl->si, WAIT_NODE);
	WRITE_ONCE(wl->removed, true);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&wl->done,
							    10 * HZ));
	KUNIT_EXPECT_EQ(test, wl->ret, (long)-EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&wl->polls), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&wl->late_polls), 0);
}

/* The timeout is kept, and a wait that times out still polls on leaving. */
static void wait_times_out(struct kunit *test)
{
	struct wait_link *wl = wait_link_add(test);

	KUNIT_EXPECT_EQ(test, scif_node_wait(wl->si, WAIT_NODE, &wl->wq,
					     wait_link_ready, NULL, wl,
					     TASK_KILLABLE, HZ / 10), 0L);
	KUNIT_EXPECT_GE(test, atomic_read(&wl->polls), 1);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(wl->delivered));
	scif_node_remove(wl->si, WAIT_NODE);
}

/*
 * With busy polling, a message the polls find is taken in before the task
 * ever sleeps: nobody wakes it here, and the wait returns with almost all
 * of its timeout left. Without busy polling the same wait times out.
 */
static void wait_busy_polls_first(struct kunit *test)
{
	struct wait_link *wl = wait_link_add(test);
	long left;

	wl->arrive_at = 50;
	wl->spin_us = 10 * USEC_PER_SEC;
	left = scif_node_wait(wl->si, WAIT_NODE, &wl->wq, wait_link_ready,
			      NULL, wl, TASK_INTERRUPTIBLE, 30 * HZ);
	KUNIT_EXPECT_GT(test, left, 29L * HZ);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(wl->delivered));
	KUNIT_EXPECT_GE(test, atomic_read(&wl->polls), 50);

	WRITE_ONCE(wl->delivered, false);
	WRITE_ONCE(wl->arrived, false);
	atomic_set(&wl->polls, 0);
	wl->spin_us = 0;
	KUNIT_EXPECT_EQ(test, scif_node_wait(wl->si, WAIT_NODE, &wl->wq,
					     wait_link_ready, NULL, wl,
					     TASK_INTERRUPTIBLE, HZ / 10), 0L);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(wl->delivered));
	scif_node_remove(wl->si, WAIT_NODE);
}

static atomic_t wait_arms;
static int wait_polls_at_arm;

/* An arm that makes the peer answer: the next poll delivers. */
static void wait_link_arm(const void *arg)
{
	struct wait_link *wl = (struct wait_link *)arg;

	atomic_inc(&wait_arms);
	wait_polls_at_arm = atomic_read(&wl->polls);
	WRITE_ONCE(wl->arrived, true);
}

/*
 * The arm callback runs once, after the busy polling (which found
 * nothing) and before the task sleeps; what it asked for then arrives.
 */
static void wait_arms_after_busy_poll(struct kunit *test)
{
	struct wait_link *wl = wait_link_add(test);

	atomic_set(&wait_arms, 0);
	/*
	 * Long enough for more than one poll even when the route work, woken
	 * by the node's arrival, takes the CPU first (TCG guests are slow).
	 */
	wl->spin_us = 20000;
	KUNIT_EXPECT_GT(test, scif_node_wait(wl->si, WAIT_NODE, &wl->wq,
					     wait_link_ready, wait_link_arm,
					     wl, TASK_INTERRUPTIBLE, 5 * HZ),
			0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&wait_arms), 1);
	KUNIT_EXPECT_GT(test, wait_polls_at_arm, 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(wl->delivered));
	scif_node_remove(wl->si, WAIT_NODE);
}

/*
 * A wait that busy polling ends never arms: an event index it left would
 * have the peer announce its next move to a task that does not sleep.
 */
static void wait_busy_poll_success_does_not_arm(struct kunit *test)
{
	struct wait_link *wl = wait_link_add(test);

	atomic_set(&wait_arms, 0);
	wl->arrive_at = 50;
	wl->spin_us = 10 * USEC_PER_SEC;
	KUNIT_EXPECT_GT(test, scif_node_wait(wl->si, WAIT_NODE, &wl->wq,
					     wait_link_ready, wait_link_arm,
					     wl, TASK_INTERRUPTIBLE, 30 * HZ),
			29L * HZ);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(wl->delivered));
	KUNIT_EXPECT_EQ(test, atomic_read(&wait_arms), 0);
	scif_node_remove(wl->si, WAIT_NODE);
}

/* Without a poll operation, or without the node, the caller waits alone. */
static void wait_needs_poll_and_node(struct kunit *test)
{
	struct wait_link *wl = wait_link_start(test, &wait_link_nopoll_ops);

	if (!wl)
		return;
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&wl->done,
							    10 * HZ));
	KUNIT_EXPECT_EQ(test, wl->ret, (long)-EAGAIN);
	wait_link_end(wl);
	KUNIT_EXPECT_EQ(test, scif_node_wait(test->priv, WAIT_NODE, &wl->wq,
					     wait_link_ready, NULL, wl,
					     TASK_INTERRUPTIBLE, HZ),
			(long)-EAGAIN);
}

static struct kunit_case scif_node_wait_cases[] = {
	KUNIT_CASE(wait_drains_in_waiter),
	KUNIT_CASE(wait_polls_once_more_on_leaving),
	KUNIT_CASE(wait_lets_go_on_node_removal),
	KUNIT_CASE(wait_times_out),
	KUNIT_CASE(wait_busy_polls_first),
	KUNIT_CASE(wait_arms_after_busy_poll),
	KUNIT_CASE(wait_busy_poll_success_does_not_arm),
	KUNIT_CASE(wait_needs_poll_and_node),
	{}
};

static struct kunit_suite scif_node_wait_suite = {
	.name = "scif_node_wait",
	.init = wait_init,
	.exit = wait_exit,
	.test_cases = scif_node_wait_cases,
};

kunit_test_suite(scif_node_wait_suite);

MODULE_DESCRIPTION("KUnit tests for SCIF waits that poll their link");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(SCIF_TRANSPORT);
