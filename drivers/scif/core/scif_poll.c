// SPDX-License-Identifier: GPL-2.0
/*
 * Readiness of SCIF endpoints: poll() on /dev/scif files and scif_poll()
 * for kernel callers.
 *
 * Every change of an endpoint that can alter its readiness wakes its wait
 * queue. scif_poll() hooks one wait entry per endpoint into those queues
 * with a poll_table of its own, since kernel callers have no file to pass
 * to the VFS poll machinery.
 */
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_endpt_api.h"
#include "scif_shm.h"

/*
 * A shared-memory stream with nothing to read or no room to send: ask the
 * peer for a WAKE when that changes, then look again (a move made before
 * the peer saw us armed is seen now). ep->lock is held.
 */
static int scif_poll_arm(struct scif_endpt *ep)
{
	lockdep_assert_held(&ep->lock);

	if (ep->rx_seq == ep->rx_read)
		scif_shm_arm(ep->shm, true, ep->rx_seq);
	if (ep->tx_seq - ep->tx_acked >= ep->tx_ring)
		scif_shm_arm(ep->shm, false, ep->tx_acked);
	return scif_stream_sync(ep);
}

/* Current readiness of @ep; ep->lock is held. */
static __poll_t scif_ep_events(struct scif_endpt *ep)
{
	__poll_t mask = 0;

	lockdep_assert_held(&ep->lock);

	switch (ep->state) {
	case SCIF_EP_LISTENING:
		if (ep->nreq)
			mask |= EPOLLIN | EPOLLRDNORM;
		break;
	case SCIF_EP_CONNECTED:
		/* A lie: scif_recv() finds it and resets the connection. */
		if (scif_stream_sync(ep))
			return EPOLLIN | EPOLLRDNORM | EPOLLERR;
		if (ep->shm && ep->shm->active && scif_poll_arm(ep))
			return EPOLLIN | EPOLLRDNORM | EPOLLERR;
		if (ep->rx_seq != ep->rx_read)
			mask |= EPOLLIN | EPOLLRDNORM;
		if (ep->tx_seq - ep->tx_acked < ep->tx_ring)
			mask |= EPOLLOUT | EPOLLWRNORM;
		break;
	case SCIF_EP_DISCONNECTED:
		if (scif_stream_sync(ep))
			return EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP;
		if (ep->rx_seq != ep->rx_read)
			mask |= EPOLLIN | EPOLLRDNORM;
		mask |= EPOLLHUP;
		break;
	case SCIF_EP_BOUND:
		/* A failed asynchronous connect, not yet reported. */
		if (ep->conn_report)
			mask |= EPOLLOUT | EPOLLERR;
		break;
	case SCIF_EP_CLOSED:
		mask |= EPOLLNVAL;
		break;
	default:
		break;
	}
	return mask;
}

/**
 * scif_epd_poll() - poll an endpoint on behalf of a file
 * @epd: the endpoint
 * @file: the file polled (passed on to poll_wait())
 * @wait: the poll table, or NULL
 *
 * EPOLLIN: data to receive, or a connection request to accept. EPOLLOUT:
 * room to send, or an asynchronous connect finished. EPOLLHUP: the peer
 * closed or its node was lost. EPOLLERR: an asynchronous connect failed.
 * EPOLLNVAL: not a usable endpoint.
 *
 * Return: the events currently true.
 */
__poll_t scif_epd_poll(scif_epd_t epd, struct file *file, poll_table *wait)
{
	struct scif_endpt *ep = epd;
	__poll_t mask;

	if (scif_ep_check(epd))
		return EPOLLNVAL;
	poll_wait(file, &ep->wq, wait);
	spin_lock(&ep->lock);
	mask = scif_ep_events(ep);
	spin_unlock(&ep->lock);
	return mask;
}
EXPORT_SYMBOL_GPL(scif_epd_poll);

/**
 * struct scif_poller - the state of one scif_poll() call
 * @pt: the poll table handed to scif_epd_poll()
 * @task: the polling task
 * @triggered: set by a wake-up, cleared before each pass
 * @entries: one wait entry per endpoint
 * @heads: the queue each entry was added to (NULL if none)
 * @nr: number of entries in use
 * @max: number of entries allocated
 */
struct scif_poller {
	poll_table pt;
	struct task_struct *task;
	bool triggered;
	wait_queue_entry_t *entries;
	wait_queue_head_t **heads;
	unsigned int nr;
	unsigned int max;
};

static int scif_poll_wake(wait_queue_entry_t *wait, unsigned int mode,
			  int sync, void *key)
{
	struct scif_poller *p = wait->private;

	/* Pairs with the barrier of set_current_state() in scif_poll(). */
	smp_store_release(&p->triggered, true);
	return wake_up_process(p->task);
}

static void scif_poll_queue(struct file *file, wait_queue_head_t *head,
			    poll_table *pt)
{
	struct scif_poller *p = container_of(pt, struct scif_poller, pt);
	wait_queue_entry_t *e;

	if (WARN_ON_ONCE(p->nr >= p->max))
		return;
	e = &p->entries[p->nr];
	init_waitqueue_func_entry(e, scif_poll_wake);
	e->private = p;
	p->heads[p->nr++] = head;
	add_wait_queue(head, e);
}

/**
 * scif_poll() - wait for events on several endpoints
 * @epds: the endpoints, with the events wanted; @revents is set
 * @nepds: number of entries in @epds
 * @timeout: longest wait in milliseconds; 0 does not wait, negative waits
 *	     without limit
 *
 * Return: the number of entries with a non-zero @revents (0 on timeout), or
 * -EINVAL (@nepds above the caller's RLIMIT_NOFILE), -ENOMEM, -EINTR (a
 * signal arrived before any event).
 */
int scif_poll(struct scif_pollepd *epds, unsigned int nepds, long timeout)
{
	long left = timeout < 0 ? MAX_SCHEDULE_TIMEOUT :
		    msecs_to_jiffies(timeout);
	__poll_t always = EPOLLERR | EPOLLHUP | EPOLLNVAL;
	struct scif_poller p = {};
	unsigned int i;
	int count;

	if (nepds > rlimit(RLIMIT_NOFILE))
		return -EINVAL;
	if (nepds) {
		p.entries = kcalloc(nepds, sizeof(*p.entries), GFP_KERNEL);
		p.heads = kcalloc(nepds, sizeof(*p.heads), GFP_KERNEL);
		if (!p.entries || !p.heads) {
			count = -ENOMEM;
			goto out;
		}
	}
	p.max = nepds;
	p.task = current;
	init_poll_funcptr(&p.pt, scif_poll_queue);

	for (;;) {
		count = 0;
		WRITE_ONCE(p.triggered, false);
		for (i = 0; i < nepds; i++) {
			p.pt._key = epds[i].events | always;
			epds[i].revents = scif_epd_poll(epds[i].epd, NULL,
							&p.pt) &
					  (epds[i].events | always);
			if (epds[i].revents)
				count++;
		}
		/* Queue ourselves only on the first pass. */
		p.pt._qproc = NULL;
		if (count || !left)
			break;
		if (signal_pending(current)) {
			count = -EINTR;
			break;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		/* Pairs with the release in scif_poll_wake(). */
		if (!smp_load_acquire(&p.triggered))
			left = schedule_timeout(left);
		__set_current_state(TASK_RUNNING);
	}
	for (i = 0; i < p.nr; i++)
		remove_wait_queue(p.heads[i], &p.entries[i]);
out:
	kfree(p.entries);
	kfree(p.heads);
	return count;
}
EXPORT_SYMBOL_GPL(scif_poll);
