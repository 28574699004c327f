/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An in-memory, asynchronous message queue that behaves like one direction
 * of a real link. The loopback transport is built on it, and so is the
 * simulated link of the KUnit suites (tests/kunit/scif_kunit_sim.c).
 */
#ifndef SCIF_QUEUE_H
#define SCIF_QUEUE_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../core/scif_link.h"

/*
 * Messages a queue holds before a sender waits for its receiver, as it
 * would wait for room in a hardware ring. Answers sent while a queue
 * delivers never wait (they are bounded by what was delivered, and their
 * receiver may be the very worker that drains this queue); nor does a
 * sender wait longer than %SCIF_LINK_QUEUE_WAIT, so that a sender holding
 * a lock the receiver needs slows down instead of deadlocking.
 */
#define SCIF_LINK_QUEUE_MAX	1024
#define SCIF_LINK_QUEUE_WAIT	(HZ / 2)

/**
 * struct scif_link_queue - one direction of an in-memory link
 * @link: the link the sending instance uses; its send queues a copy
 * @dst: the instance that receives
 * @from: the node id under which @dst sees the sender
 * @lock: protects @pkts, @pending and @dead
 * @pkts: messages not yet delivered, oldest first
 * @pending: messages queued or being delivered by @work
 * @dead: set when the queue is stopped; sends then fail with -ENODEV
 * @inline_rx: deliver DATA, CREDIT and WAKE in the sender's context when
 *	       nothing is pending, as a shared-memory ring would make them visible
 *	       at once (loopback only: those handlers never send, so no
 *	       delivery nests inside another)
 * @work: delivers @pkts to @dst, one at a time and in order, in process
 *	  context (a work item never runs concurrently with itself)
 * @room: senders waiting for @pending to fall below %SCIF_LINK_QUEUE_MAX
 */
struct scif_link_queue {
	struct scif_link link;
	struct scif_instance *dst;
	u16 from;
	spinlock_t lock;	/* @pkts, @dead */
	struct list_head pkts;
	unsigned int pending;
	bool dead;
	bool inline_rx;
	struct work_struct work;
	wait_queue_head_t room;
};

void scif_link_queue_init(struct scif_link_queue *lq,
			  struct scif_instance *dst, u16 from,
			  size_t max_data);
void scif_link_queue_stop(struct scif_link_queue *lq);
#if IS_ENABLED(CONFIG_KUNIT)
/* For the KUnit suites' simulated link only. */
int scif_link_queue_push(struct scif_link_queue *lq, const void *buf,
			 size_t size);
void scif_link_queue_flush(struct scif_link_queue *lq);
bool scif_link_queue_idle(struct scif_link_queue *lq);
#endif

#endif /* SCIF_QUEUE_H */
