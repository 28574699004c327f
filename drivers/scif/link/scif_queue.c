// SPDX-License-Identifier: GPL-2.0
/*
 * In-memory link queues: a message sent is copied into a packet and
 * delivered later by a work item, in order, as with a real transport. A
 * queue may allow stream data, credits and wake-ups to be delivered in the
 * sender's context while nothing else is pending (see &scif_link_queue.inline_rx).
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../core/scif_wire.h"
#include "scif_queue.h"

/**
 * struct scif_pkt - a message in flight
 * @list: entry in &scif_link_queue.pkts
 * @size: bytes at @buf
 * @buf: the message and its data, as a transport would receive them
 */
struct scif_pkt {
	struct list_head list;
	size_t size;
	u8 buf[];
};

static void scif_link_queue_work(struct work_struct *work)
{
	struct scif_link_queue *lq = container_of(work, struct scif_link_queue,
						  work);
	struct scif_pkt *pkt;

	for (;;) {
		spin_lock(&lq->lock);
		pkt = list_first_entry_or_null(&lq->pkts, struct scif_pkt,
					       list);
		if (pkt)
			list_del(&pkt->list);
		spin_unlock(&lq->lock);
		if (!pkt)
			return;
		scif_node_rx(lq->dst, lq->from, pkt->buf, pkt->size);
		kfree(pkt);
		spin_lock(&lq->lock);
		lq->pending--;
		spin_unlock(&lq->lock);
		wake_up(&lq->room);
		cond_resched();
	}
}

/* Queue @pkt for delivery, or free it if the link is dead. */
static int scif_link_queue_add(struct scif_link_queue *lq,
			       struct scif_pkt *pkt)
{
	spin_lock(&lq->lock);
	if (lq->dead) {
		spin_unlock(&lq->lock);
		kfree(pkt);
		return -ENODEV;
	}
	list_add_tail(&pkt->list, &lq->pkts);
	lq->pending++;
	queue_work(system_wq, &lq->work);
	spin_unlock(&lq->lock);
	return 0;
}

/* Whether the caller runs inside the delivery of some link queue. */
static bool scif_link_queue_delivering(void)
{
	struct work_struct *w = current_work();

	return w && w->func == scif_link_queue_work;
}

static bool scif_link_queue_has_room(struct scif_link_queue *lq)
{
	bool room;

	spin_lock(&lq->lock);
	room = lq->dead || lq->pending < SCIF_LINK_QUEUE_MAX;
	spin_unlock(&lq->lock);
	return room;
}

static int scif_link_queue_send(struct scif_link *link,
				const struct scif_wire_msg *msg,
				const void *data, size_t len)
{
	struct scif_link_queue *lq = container_of(link, struct scif_link_queue,
						  link);
	struct scif_pkt *pkt;
	bool direct = false;

	if (lq->inline_rx && (msg->type == SCIF_MSG_DATA ||
			      msg->type == SCIF_MSG_CREDIT ||
			      msg->type == SCIF_MSG_WAKE)) {
		/* Nothing sent earlier may still be on its way. */
		spin_lock(&lq->lock);
		direct = !lq->dead && !lq->pending;
		spin_unlock(&lq->lock);
	}
	if (direct) {
		scif_node_rx_parts(lq->dst, lq->from, msg, sizeof(*msg), data,
				   len);
		return 0;
	}
	/* Backpressure: a full queue makes the sender wait (see the header). */
	if (!scif_link_queue_delivering())
		wait_event_timeout(lq->room, scif_link_queue_has_room(lq),
				   SCIF_LINK_QUEUE_WAIT);
	/*
	 * A link does not lose a message for want of memory, as a hardware
	 * ring does not: the protocol above cannot resend one, and would
	 * reset the connection and keep its windows pinned for good. The
	 * packet is at most a message and a chunk (16 KiB): wait for it,
	 * charged to the sender.
	 */
	pkt = kmalloc(struct_size(pkt, buf, sizeof(*msg) + len),
		      GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
	pkt->size = sizeof(*msg) + len;
	memcpy(pkt->buf, msg, sizeof(*msg));
	if (len)
		memcpy(pkt->buf + sizeof(*msg), data, len);
	return scif_link_queue_add(lq, pkt);
}

static const struct scif_link_ops scif_link_queue_ops = {
	.send = scif_link_queue_send,
};

/**
 * scif_link_queue_init() - prepare an empty, running queue
 * @lq: the queue
 * @dst: instance that receives what is sent over @lq->link
 * @from: node id of the sender as @dst knows it
 * @max_data: chunk size of the link
 */
void scif_link_queue_init(struct scif_link_queue *lq,
			  struct scif_instance *dst, u16 from,
			  size_t max_data)
{
	lq->link.ops = &scif_link_queue_ops;
	lq->link.max_data = max_data;
	lq->link.priv = lq;
	/* Both ends live in this kernel: peer addresses are physical. */
	lq->link.rma_local = true;
	lq->dst = dst;
	lq->from = from;
	spin_lock_init(&lq->lock);
	INIT_LIST_HEAD(&lq->pkts);
	lq->pending = 0;
	lq->dead = false;
	lq->inline_rx = false;
	INIT_WORK(&lq->work, scif_link_queue_work);
	init_waitqueue_head(&lq->room);
}
EXPORT_SYMBOL_IF_KUNIT(scif_link_queue_init);

/**
 * scif_link_queue_stop() - stop a queue and drop what it still holds
 * @lq: the queue
 *
 * Later sends fail with -ENODEV. On return no delivery is running.
 */
void scif_link_queue_stop(struct scif_link_queue *lq)
{
	struct scif_pkt *pkt, *tmp;
	LIST_HEAD(pkts);

	spin_lock(&lq->lock);
	lq->dead = true;
	list_splice_init(&lq->pkts, &pkts);
	spin_unlock(&lq->lock);
	wake_up_all(&lq->room);
	cancel_work_sync(&lq->work);
	/* A delivery that was running may have queued more; drop that too. */
	spin_lock(&lq->lock);
	list_splice_init(&lq->pkts, &pkts);
	spin_unlock(&lq->lock);
	list_for_each_entry_safe(pkt, tmp, &pkts, list)
		kfree(pkt);
}
EXPORT_SYMBOL_IF_KUNIT(scif_link_queue_stop);

/*
 * What only the simulated link of the KUnit suites (scif_kunit_sim.ko)
 * uses: raw bytes as if the peer sent them, and waiting for delivery. A
 * scif.ko built for a kernel without KUnit has none of it.
 */
#if IS_ENABLED(CONFIG_KUNIT)
/**
 * scif_link_queue_push() - queue raw bytes for delivery
 * @lq: the queue
 * @buf: what the receiver will see
 * @size: number of bytes, any value up to a message plus the largest chunk
 *
 * Return: 0, or -ENODEV if the queue is stopped, -EMSGSIZE, -ENOMEM.
 */
int scif_link_queue_push(struct scif_link_queue *lq, const void *buf,
			 size_t size)
{
	struct scif_pkt *pkt;

	if (size > SCIF_WIRE_MSG_SIZE + SCIF_WIRE_DATA_MAX)
		return -EMSGSIZE;
	pkt = kmalloc(struct_size(pkt, buf, size), GFP_KERNEL);
	if (!pkt)
		return -ENOMEM;
	pkt->size = size;
	memcpy(pkt->buf, buf, size);
	return scif_link_queue_add(lq, pkt);
}
EXPORT_SYMBOL_IF_KUNIT(scif_link_queue_push);

/**
 * scif_link_queue_flush() - wait until everything queued so far is delivered
 * @lq: the queue
 */
void scif_link_queue_flush(struct scif_link_queue *lq)
{
	flush_work(&lq->work);
}
EXPORT_SYMBOL_IF_KUNIT(scif_link_queue_flush);

/**
 * scif_link_queue_idle() - tell whether nothing is queued or being delivered
 * @lq: the queue
 *
 * Return: true if idle at the time of the call.
 */
bool scif_link_queue_idle(struct scif_link_queue *lq)
{
	bool empty;

	spin_lock(&lq->lock);
	empty = list_empty(&lq->pkts);
	spin_unlock(&lq->lock);
	return empty && !work_busy(&lq->work);
}
EXPORT_SYMBOL_IF_KUNIT(scif_link_queue_idle);
#endif /* CONFIG_KUNIT */
