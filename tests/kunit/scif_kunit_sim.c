// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated link pair: two instances in one kernel see each other as
 * remote nodes. Each direction is an asynchronous queue, so messages are
 * delivered later and in another context, as a real link would. KUnit uses
 * it to test everything that crosses nodes, to inject hostile messages and
 * to take a node away under live connections, and it can hold one type of
 * message a node sends, so that a test sees what waits behind its senders.
 *
 * Test-only: it is a module of its own, built with the KUnit suites (which
 * depend on it), never part of scif.ko. It also gives the suites'
 * instances their loopback transport, as the module's entry gives the
 * default instance its own.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/wait.h>

#include "core/scif_core.h"
#include "core/scif_instance.h"
#include "link/scif_loopback.h"
#include "link/scif_queue.h"
#include "scif_kunit_sim.h"

/**
 * struct scif_sim_dir - one direction of the pair
 * @q: the queue carrying it; its link is the sender's link to the receiver
 * @lock: protects @hold, @nr_held and @sent
 * @hold: a message type held (sent only once released), or 0: none
 * @nr_held: senders waiting in scif_sim_send() for their release
 * @release: where those senders wait
 * @sent: messages passed on to the queue, by type (any type a peer could
 *	  name, known or not)
 */
struct scif_sim_dir {
	struct scif_link_queue q;
	spinlock_t lock;		/* @hold, @nr_held, @sent */
	u8 hold;
	unsigned int nr_held;
	wait_queue_head_t release;
	unsigned long sent[U8_MAX + 1];
};

/**
 * struct scif_sim_pair - two instances joined by a simulated link
 * @a: one instance
 * @b: the other
 * @to_b: carries what @a sends to @b
 * @to_a: carries what @b sends to @a
 * @on_a: the pair as a transport registered with @a (owns @to_b's link),
 *	  named "sim-" and @b's name
 * @on_b: the same with @b (owns @to_a's link)
 * @name_a: @on_a's name
 * @name_b: @on_b's name
 * @up: both nodes are in each other's tables
 */
struct scif_sim_pair {
	struct scif_instance *a;
	struct scif_instance *b;
	struct scif_sim_dir to_b;
	struct scif_sim_dir to_a;
	struct scif_transport on_a;
	struct scif_transport on_b;
	char name_a[32];
	char name_b[32];
	bool up;
};

/* The queue's own operations, which scif_sim_send() passes messages on to. */
static const struct scif_link_ops *scif_sim_queue_ops;

static bool scif_sim_released(struct scif_sim_dir *d, u8 type)
{
	bool go;

	spin_lock(&d->lock);
	go = d->hold != type;
	spin_unlock(&d->lock);
	return go;
}

/* &scif_link_ops.send of the pair: a held type waits for its release. */
static int scif_sim_send(struct scif_link *link,
			 const struct scif_wire_msg *msg, const void *data,
			 size_t len)
{
	struct scif_sim_dir *d = container_of(link, struct scif_sim_dir,
					      q.link);
	bool held;

	spin_lock(&d->lock);
	held = d->hold && d->hold == msg->type;
	if (held)
		d->nr_held++;
	spin_unlock(&d->lock);
	if (held) {
		wait_event(d->release, scif_sim_released(d, msg->type));
		spin_lock(&d->lock);
		d->nr_held--;
		spin_unlock(&d->lock);
	}
	spin_lock(&d->lock);
	d->sent[msg->type]++;
	spin_unlock(&d->lock);
	return scif_sim_queue_ops->send(link, msg, data, len);
}

static const struct scif_link_ops scif_sim_ops = {
	.send = scif_sim_send,
};

static void scif_sim_dir_init(struct scif_sim_dir *d,
			      struct scif_instance *dst, u16 from,
			      size_t max_data)
{
	scif_link_queue_init(&d->q, dst, from, max_data);
	scif_sim_queue_ops = d->q.link.ops;
	d->q.link.ops = &scif_sim_ops;
	spin_lock_init(&d->lock);
	d->hold = 0;
	d->nr_held = 0;
	init_waitqueue_head(&d->release);
}

/* The direction @from sends over, or NULL if @from is not of @pair. */
static struct scif_sim_dir *scif_sim_dir_from(struct scif_sim_pair *pair,
					      struct scif_instance *from)
{
	if (from == pair->a)
		return &pair->to_b;
	if (from == pair->b)
		return &pair->to_a;
	return NULL;
}

/* Register @t with @si as the pair's transport towards @peer. */
static int scif_sim_register(struct scif_instance *si, struct scif_transport *t,
			     char *name, size_t size, struct scif_instance *peer)
{
	snprintf(name, size, "sim-%s", peer->name);
	t->name = name;
	t->owner = THIS_MODULE;
	return scif_transport_register(si, t);
}

static struct scif_sim_pair *__scif_sim_pair_create(struct scif_instance *a,
						    struct scif_instance *b,
						    size_t max_data,
						    bool staged)
{
	struct scif_sim_pair *pair;
	int ret;

	if (a == b || a->self == b->self)
		return ERR_PTR(-EINVAL);
	pair = kzalloc(sizeof(*pair), GFP_KERNEL);
	if (!pair)
		return ERR_PTR(-ENOMEM);
	pair->a = a;
	pair->b = b;
	scif_sim_dir_init(&pair->to_b, b, a->self, max_data);
	scif_sim_dir_init(&pair->to_a, a, b->self, max_data);
	if (staged) {
		/* As a link that cannot reach the peer's memory. */
		pair->to_b.q.link.rma_local = false;
		pair->to_a.q.link.rma_local = false;
	}
	ret = scif_sim_register(a, &pair->on_a, pair->name_a,
				sizeof(pair->name_a), b);
	if (ret)
		goto free;
	ret = scif_sim_register(b, &pair->on_b, pair->name_b,
				sizeof(pair->name_b), a);
	if (ret)
		goto on_a;
	pair->to_b.q.link.transport = &pair->on_a;
	pair->to_a.q.link.transport = &pair->on_b;
	ret = scif_node_add(a, b->self, &pair->to_b.q.link);
	if (ret)
		goto on_b;
	ret = scif_node_add(b, a->self, &pair->to_a.q.link);
	if (ret) {
		scif_node_remove(a, b->self);
		goto on_b;
	}
	pair->up = true;
	return pair;
on_b:
	scif_transport_unregister(&pair->on_b);
on_a:
	scif_transport_unregister(&pair->on_a);
free:
	kfree(pair);
	return ERR_PTR(ret);
}

/**
 * scif_sim_instance_create() - an instance with its link to itself
 * @name: unique name of the instance
 * @self: its node id
 *
 * What the module's entry does for the default instance:
 * scif_instance_create(), then the loopback transport.
 *
 * Return: the instance, or NULL.
 */
struct scif_instance *scif_sim_instance_create(const char *name, u16 self)
{
	struct scif_instance *si = scif_instance_create(name, self);

	if (si && scif_loopback_attach(si)) {
		scif_instance_destroy(si);
		si = NULL;
	}
	return si;
}
EXPORT_SYMBOL_GPL(scif_sim_instance_create);

/**
 * scif_sim_instance_destroy() - undo scif_sim_instance_create()
 * @si: the instance, or NULL; pairs joining it are destroyed already
 */
void scif_sim_instance_destroy(struct scif_instance *si)
{
	if (!si)
		return;
	scif_loopback_detach(si);
	scif_instance_destroy(si);
}
EXPORT_SYMBOL_GPL(scif_sim_instance_destroy);

/**
 * scif_sim_pair_create() - join two instances
 * @a: an instance
 * @b: another instance, with a different node id
 * @max_data: chunk size of the link (small values exercise chunking)
 *
 * RMA reaches the peer's memory directly (&scif_link.rma_local).
 *
 * Return: the pair, or an ERR_PTR().
 */
struct scif_sim_pair *scif_sim_pair_create(struct scif_instance *a,
					   struct scif_instance *b,
					   size_t max_data)
{
	return __scif_sim_pair_create(a, b, max_data, false);
}
EXPORT_SYMBOL_GPL(scif_sim_pair_create);

/**
 * scif_sim_pair_create_staged() - join two instances by a link without
 *				   RMA addressing
 * @a: an instance
 * @b: another instance, with a different node id
 * @max_data: chunk size of the link
 *
 * As scif_sim_pair_create(), but the link neither shares nor maps the
 * peer's memory, as the NTB transport in translated mode: RMAs go by
 * messages (rma/scif_staged.c), mmap and scif_get_pages() are refused.
 *
 * Return: the pair, or an ERR_PTR().
 */
struct scif_sim_pair *scif_sim_pair_create_staged(struct scif_instance *a,
						  struct scif_instance *b,
						  size_t max_data)
{
	return __scif_sim_pair_create(a, b, max_data, true);
}
EXPORT_SYMBOL_GPL(scif_sim_pair_create_staged);

/**
 * scif_sim_pair_down() - cut the link, as if each node lost the other
 * @pair: the pair
 */
void scif_sim_pair_down(struct scif_sim_pair *pair)
{
	if (!pair->up)
		return;
	pair->up = false;
	/* Nobody may wait for a link that is gone. */
	scif_sim_release(pair, pair->a);
	scif_sim_release(pair, pair->b);
	scif_node_remove(pair->a, pair->b->self);
	scif_node_remove(pair->b, pair->a->self);
	scif_link_queue_stop(&pair->to_b.q);
	scif_link_queue_stop(&pair->to_a.q);
}
EXPORT_SYMBOL_GPL(scif_sim_pair_down);

/**
 * scif_sim_pair_destroy() - cut the link, unregister the pair's
 *			     transports and free the pair
 * @pair: the pair, or NULL
 */
void scif_sim_pair_destroy(struct scif_sim_pair *pair)
{
	if (IS_ERR_OR_NULL(pair))
		return;
	scif_sim_pair_down(pair);
	scif_transport_unregister(&pair->on_b);
	scif_transport_unregister(&pair->on_a);
	kfree(pair);
}
EXPORT_SYMBOL_GPL(scif_sim_pair_destroy);

/**
 * scif_sim_inject() - deliver raw bytes as if the other node sent them
 * @pair: the pair
 * @to: the instance that receives (one of the pair)
 * @buf: the bytes
 * @size: how many
 *
 * Return: 0, or -EINVAL, or an error of the queue.
 */
int scif_sim_inject(struct scif_sim_pair *pair, struct scif_instance *to,
		    const void *buf, size_t size)
{
	if (to == pair->b)
		return scif_link_queue_push(&pair->to_b.q, buf, size);
	if (to == pair->a)
		return scif_link_queue_push(&pair->to_a.q, buf, size);
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(scif_sim_inject);

/**
 * scif_sim_settle() - wait until no message is in flight either way
 * @pair: the pair
 */
void scif_sim_settle(struct scif_sim_pair *pair)
{
	/* Each delivery may answer the other way; go on until both rest. */
	do {
		scif_link_queue_flush(&pair->to_b.q);
		scif_link_queue_flush(&pair->to_a.q);
	} while (!scif_link_queue_idle(&pair->to_b.q) ||
		 !scif_link_queue_idle(&pair->to_a.q));
}
EXPORT_SYMBOL_GPL(scif_sim_settle);

/**
 * scif_sim_hold() - hold the messages of one type a node sends
 * @pair: the pair
 * @from: the sending instance (one of the pair)
 * @type: the message type, not 0
 *
 * From now on each sender of a @type message to the other node waits, in
 * its own context and for as long as it takes, until scif_sim_release():
 * as a sender waits whose peer does not drain its ring. Other messages
 * pass. Hold only messages that no delivery of the pair sends: a delivery
 * held would stop everything behind it.
 */
void scif_sim_hold(struct scif_sim_pair *pair, struct scif_instance *from,
		   u8 type)
{
	struct scif_sim_dir *d = scif_sim_dir_from(pair, from);

	if (WARN_ON(!d || !type))
		return;
	spin_lock(&d->lock);
	d->hold = type;
	spin_unlock(&d->lock);
}
EXPORT_SYMBOL_GPL(scif_sim_hold);

/**
 * scif_sim_release() - let go what scif_sim_hold() held; the senders
 *			waiting go on, in no particular order
 * @pair: the pair
 * @from: the sending instance
 */
void scif_sim_release(struct scif_sim_pair *pair, struct scif_instance *from)
{
	struct scif_sim_dir *d = scif_sim_dir_from(pair, from);

	if (WARN_ON(!d))
		return;
	spin_lock(&d->lock);
	d->hold = 0;
	spin_unlock(&d->lock);
	wake_up_all(&d->release);
}
EXPORT_SYMBOL_GPL(scif_sim_release);

/**
 * scif_sim_held() - how many senders of a node wait for scif_sim_release()
 * @pair: the pair
 * @from: the sending instance
 *
 * Return: the number at the time of the call.
 */
unsigned int scif_sim_held(struct scif_sim_pair *pair,
			   struct scif_instance *from)
{
	struct scif_sim_dir *d = scif_sim_dir_from(pair, from);
	unsigned int n;

	if (WARN_ON(!d))
		return 0;
	spin_lock(&d->lock);
	n = d->nr_held;
	spin_unlock(&d->lock);
	return n;
}
EXPORT_SYMBOL_GPL(scif_sim_held);

/**
 * scif_sim_sent() - how many messages of one type a node has sent over
 *		     the pair
 * @pair: the pair
 * @from: the sending instance
 * @type: the message type
 *
 * Counts what went on to the queue since the pair was created, whatever
 * else the same node sends meanwhile (heartbeats, credits).
 *
 * Return: the number at the time of the call.
 */
unsigned long scif_sim_sent(struct scif_sim_pair *pair,
			    struct scif_instance *from, u8 type)
{
	struct scif_sim_dir *d = scif_sim_dir_from(pair, from);
	unsigned long n;

	if (WARN_ON(!d))
		return 0;
	spin_lock(&d->lock);
	n = d->sent[type];
	spin_unlock(&d->lock);
	return n;
}
EXPORT_SYMBOL_GPL(scif_sim_sent);

MODULE_DESCRIPTION("Simulated SCIF link pair for the KUnit suites");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(SCIF_TRANSPORT);
