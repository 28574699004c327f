// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF endpoints: creation, naming, binding, listening and teardown. The
 * parking of accepted endpoints for /dev/scif is in core/scif_park.c.
 *
 * Every endpoint sits in its instance's endpoint table under a slot index.
 * Its 64-bit id combines that index with a generation drawn from a counter
 * of the instance, so an id that outlives its endpoint never resolves to a
 * later endpoint in the same slot. Peers only ever see ids.
 */
#include <kunit/visibility.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_endpt_api.h"
#include "scif_instance.h"
#include "scif_shm.h"

unsigned int scif_max_backlog = SCIF_DEF_BACKLOG;
module_param_named(max_backlog, scif_max_backlog, uint, 0644);
MODULE_PARM_DESC(max_backlog,
		 "Largest listen() backlog, also the bound of a listener's parked accepted endpoints (1..65536, default 4096)");
EXPORT_SYMBOL_IF_KUNIT(scif_max_backlog);

static const char * const scif_ep_state_names[] = {
	[SCIF_EP_UNBOUND] = "unbound",
	[SCIF_EP_BOUND] = "bound",
	[SCIF_EP_LISTENING] = "listening",
	[SCIF_EP_CONNECTING] = "connecting",
	[SCIF_EP_CONNECTED] = "connected",
	[SCIF_EP_DISCONNECTED] = "disconnected",
	[SCIF_EP_CLOSED] = "closed",
};

const char *scif_ep_state_name(enum scif_ep_state state)
{
	if (state >= ARRAY_SIZE(scif_ep_state_names))
		return "?";
	return scif_ep_state_names[state];
}

/*
 * A kernel caller hands us a pointer we cannot verify beyond the obvious:
 * NULL and the user-mode failure value are refused.
 */
int scif_ep_check(scif_epd_t epd)
{
	if (IS_ERR_OR_NULL(epd) || epd == SCIF_OPEN_FAILED)
		return -EBADF;
	return 0;
}

static void scif_ep_release(struct kref *ref)
{
	struct scif_endpt *ep = container_of(ref, struct scif_endpt, ref);

	WARN_ON_ONCE(ep->park_owner);
	scif_layers_ep_release(ep);
	if (ep->shm)
		scif_shm_put(ep->si, ep->shm);
	else
		kvfree(ep->rx_ring);
	mutex_destroy(&ep->mutex);
	mutex_destroy(&ep->send_mutex);
	mutex_destroy(&ep->recv_mutex);
	kfree(ep);
}

/**
 * scif_ep_put() - drop a reference taken by scif_ep_lookup()
 * @ep: the endpoint
 */
void scif_ep_put(struct scif_endpt *ep)
{
	kref_put(&ep->ref, scif_ep_release);
}
EXPORT_SYMBOL_IF_KUNIT(scif_ep_put);

/**
 * scif_ep_lookup() - find an open endpoint by id
 * @si: the instance
 * @id: id as found in a message; anything is accepted
 *
 * Return: the endpoint with a reference the caller drops with
 * scif_ep_put(), or NULL if no open endpoint has this exact id.
 */
struct scif_endpt *scif_ep_lookup(struct scif_instance *si, u64 id)
{
	struct scif_endpt *ep;

	xa_lock(&si->eps);
	ep = xa_load(&si->eps, SCIF_EP_IDX(id));
	if (ep && ep->id == id)
		kref_get(&ep->ref);
	else
		ep = NULL;
	xa_unlock(&si->eps);
	return ep;
}
EXPORT_SYMBOL_IF_KUNIT(scif_ep_lookup);

/**
 * scif_ep_lookup_live() - find an endpoint that is not closing
 * @si: the instance
 * @id: its id
 *
 * For the messages that release a closed endpoint's memory (DISCONNECT,
 * RELEASE, REJECT): an endpoint that is closing has retired its memory
 * already (scif_shm_retire()) and counts as gone.
 *
 * Return: the endpoint with a reference, or NULL.
 */
struct scif_endpt *scif_ep_lookup_live(struct scif_instance *si, u64 id)
{
	struct scif_endpt *ep = scif_ep_lookup(si, id);
	bool closed;

	if (!ep)
		return NULL;
	spin_lock(&ep->lock);
	closed = ep->state == SCIF_EP_CLOSED;
	spin_unlock(&ep->lock);
	if (!closed)
		return ep;
	scif_ep_put(ep);
	return NULL;
}

/**
 * scif_ep_next() - walk the open endpoints of an instance
 * @si: the instance
 * @idx: slot to start at; on return, the slot after the one returned
 *
 * Return: the next open endpoint with a reference, or NULL at the end.
 */
struct scif_endpt *scif_ep_next(struct scif_instance *si, unsigned long *idx)
{
	struct scif_endpt *ep;

	xa_lock(&si->eps);
	ep = xa_find(&si->eps, idx, ULONG_MAX, XA_PRESENT);
	if (ep) {
		kref_get(&ep->ref);
		(*idx)++;
	}
	xa_unlock(&si->eps);
	return ep;
}
EXPORT_SYMBOL_IF_KUNIT(scif_ep_next);

/**
 * scif_ep_alloc_ring() - give an endpoint its receive ring for a connect
 * @ep: the endpoint; its @mutex is held and it is not connected
 * @node: the node it connects to
 * @size: bytes, a power of 2 (from scif_node_ep_ring()); a ring that
 *	  exists already is kept with its size
 *
 * Where the link reaches the peer's memory the ring is one the peer can
 * write (@ep->shm). Such a ring offered by an earlier attempt, which that
 * attempt's peer may still write, is put aside, and the stream of this
 * attempt goes by messages.
 *
 * Return: 0 or -ENOMEM.
 */
int scif_ep_alloc_ring(struct scif_endpt *ep, u16 node, u32 size)
{
	struct scif_shm *shm = ep->shm;
	bool fresh = true;
	u8 *ring;

	lockdep_assert_held(&ep->mutex);

	if (shm) {
		if (shm->node == node && scif_shm_reusable(shm)) {
			scif_shm_reuse(shm);
			return 0;
		}
		fresh = scif_shm_reusable(shm);
		size = ep->rx_size;
		/* Quarantined first: a RELEASE always finds it somewhere. */
		scif_shm_stop(shm);
		scif_shm_retire(ep->si, shm);
		spin_lock(&ep->lock);
		ep->shm = NULL;
		ep->rx_ring = NULL;
		spin_unlock(&ep->lock);
		scif_shm_put(ep->si, shm);
	} else if (ep->rx_ring) {
		return 0;
	}
	shm = fresh ? scif_shm_alloc(ep->si, node, ep->id, size) : NULL;
	if (shm) {
		spin_lock(&ep->lock);
		ep->shm = shm;
		ep->rx_ring = shm->ring;
		ep->rx_size = size;
		spin_unlock(&ep->lock);
		return 0;
	}
	/*
	 * Connect and accept allocate it for their caller: charge it. A node
	 * short of memory refuses the connection (ENOMEM) rather than have the
	 * OOM killer end some process for the sake of one more ring.
	 */
	ring = kvmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	if (!ring)
		return -ENOMEM;
	spin_lock(&ep->lock);
	ep->rx_ring = ring;
	ep->rx_size = size;
	spin_unlock(&ep->lock);
	return 0;
}

/**
 * scif_instance_open() - create an endpoint in a given instance
 * @si: the instance
 *
 * Return: the new, unbound endpoint, or NULL if memory is short.
 */
scif_epd_t scif_instance_open(struct scif_instance *si)
{
	struct scif_endpt *ep;
	u32 idx;
	int ret;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL_ACCOUNT);
	if (!ep)
		return NULL;
	ep->si = si;
	kref_init(&ep->ref);
	mutex_init(&ep->mutex);
	mutex_init(&ep->send_mutex);
	mutex_init(&ep->recv_mutex);
	spin_lock_init(&ep->lock);
	INIT_LIST_HEAD(&ep->reqs);
	init_waitqueue_head(&ep->wq);
	ep->state = SCIF_EP_UNBOUND;
	if (scif_layers_ep_init(ep)) {
		scif_ep_put(ep);
		return NULL;
	}

	xa_lock(&si->eps);
	ret = __xa_alloc(&si->eps, &idx, ep, XA_LIMIT(1, INT_MAX), GFP_KERNEL);
	if (!ret) {
		/* Generation 0 is never used, so no id is ever 0. */
		if (++si->ep_gen == 0)
			si->ep_gen = 1;
		ep->id = (u64)si->ep_gen << 32 | idx;
	}
	xa_unlock(&si->eps);
	if (ret) {
		scif_ep_put(ep);
		return NULL;
	}
	return ep;
}
EXPORT_SYMBOL_IF_KUNIT(scif_instance_open);

/**
 * scif_open() - create an endpoint on the local node
 *
 * Return: a new endpoint, not yet bound to a port, or NULL when memory is
 * short.
 */
scif_epd_t scif_open(void)
{
	return scif_instance_open(scif_default_instance());
}
EXPORT_SYMBOL_GPL(scif_open);

/**
 * scif_bind() - give an endpoint a local port
 * @epd: the endpoint
 * @pn: the port wanted, or 0 to have a free one at or above
 *	%SCIF_PORT_RSVD chosen
 *
 * Ports below %SCIF_ADMIN_PORT_END need CAP_SYS_ADMIN.
 *
 * Return: the port bound, or -EBADF (@epd invalid), -EINVAL (already
 * bound), -EISCONN (connected), -EACCES (port reserved for privileged
 * callers), -EADDRINUSE (port taken), -ENOSPC (no free port).
 */
int scif_bind(scif_epd_t epd, u16 pn)
{
	struct scif_endpt *ep = epd;
	int ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	mutex_lock(&ep->mutex);
	switch (ep->state) {
	case SCIF_EP_UNBOUND:
		break;
	case SCIF_EP_CONNECTED:
	case SCIF_EP_DISCONNECTED:
		ret = -EISCONN;
		goto out;
	case SCIF_EP_CLOSED:
		ret = -EBADF;
		goto out;
	default:
		ret = -EINVAL;
		goto out;
	}
	if (pn && pn < SCIF_ADMIN_PORT_END && !capable(CAP_SYS_ADMIN)) {
		ret = -EACCES;
		goto out;
	}
	if (pn) {
		ret = scif_port_reserve(&ep->si->ports, pn);
		if (!ret)
			ret = pn;
	} else {
		ret = scif_port_alloc(&ep->si->ports);
	}
	if (ret < 0)
		goto out;
	spin_lock(&ep->lock);
	ep->port = ret;
	ep->port_owned = true;
	ep->state = SCIF_EP_BOUND;
	spin_unlock(&ep->lock);
out:
	mutex_unlock(&ep->mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(scif_bind);

/**
 * scif_listen() - take connection requests on an endpoint's port
 * @epd: a bound endpoint
 * @backlog: how many requests may wait for scif_accept(); further requests
 *	     are refused. Clamped to 1..max_backlog (module parameter,
 *	     default %SCIF_DEF_BACKLOG, itself clamped to
 *	     1..%SCIF_MAX_BACKLOG). The same number bounds the accepted
 *	     endpoints of the listener waiting in scif_epd_park().
 *
 * Return: 0, or -EBADF (@epd invalid), -EINVAL (not bound), -EISCONN
 * (connected, connecting or already listening), -ENOMEM.
 */
int scif_listen(scif_epd_t epd, int backlog)
{
	struct scif_endpt *ep = epd;
	struct scif_instance *si;
	int ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	si = ep->si;
	mutex_lock(&ep->mutex);
	switch (ep->state) {
	case SCIF_EP_BOUND:
		break;
	case SCIF_EP_UNBOUND:
		ret = -EINVAL;
		goto out;
	case SCIF_EP_CLOSED:
		ret = -EBADF;
		goto out;
	default:
		ret = -EISCONN;
		goto out;
	}
	ret = xa_insert(&si->listeners, ep->port, ep, GFP_KERNEL);
	if (ret == -EBUSY)
		ret = -EADDRINUSE;
	if (ret)
		goto out;
	spin_lock(&ep->lock);
	ep->backlog = clamp_t(int, backlog, 1,
			      clamp_t(unsigned int, READ_ONCE(scif_max_backlog),
				      1, SCIF_MAX_BACKLOG));
	ep->state = SCIF_EP_LISTENING;
	spin_unlock(&ep->lock);
out:
	mutex_unlock(&ep->mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(scif_listen);

/**
 * __scif_unpark() - take a parked endpoint out of its table
 * @si: the instance
 * @ep: an endpoint in @si's &scif_instance.parked
 *
 * Take the parked @ep out of &scif_instance.parked, whose lock is held; the
 * caller now owns it.
 */
void __scif_unpark(struct scif_instance *si, struct scif_endpt *ep)
{
	lockdep_assert_held(&si->parked.xa_lock);

	__xa_erase(&si->parked, SCIF_EP_IDX(ep->id));
	put_pid(ep->park_owner);
	ep->park_owner = NULL;
	ep->park_listener->nparked--;
	ep->park_listener = NULL;
}

/*
 * Close every endpoint still parked that was accepted from the listener
 * @listener, which is closed already: scif_epd_park() checks the listener's
 * state under its mutex, so no endpoint of it can be parked any more. Called
 * without any lock held; each endpoint is taken out of the table under the
 * xarray lock, then closed without it.
 */
static void scif_unpark_listener(struct scif_instance *si,
				 struct scif_endpt *listener)
{
	struct scif_endpt *ep;
	unsigned long idx = 0;

	for (;;) {
		xa_lock(&si->parked);
		xa_for_each_start(&si->parked, idx, ep, idx) {
			if (ep->park_listener == listener) {
				__scif_unpark(si, ep);
				break;
			}
		}
		xa_unlock(&si->parked);
		if (!ep)
			return;
		scif_close(ep);
	}
}

/**
 * scif_close() - tear an endpoint down and free it
 * @epd: the endpoint; it must not be used again
 *
 * A listener refuses its queued requests; a connected endpoint resets its
 * peer. Blocked callers of the endpoint are woken and fail. Never waits
 * for the peer.
 *
 * Return: 0, or -EBADF if @epd is not an endpoint.
 */
int scif_close(scif_epd_t epd)
{
	struct scif_endpt *ep = epd;
	struct scif_instance *si;
	enum scif_ep_state old;
	int ret;

	ret = scif_ep_check(epd);
	if (ret)
		return ret;
	si = ep->si;
	/* While the peer can still answer: windows need its consent. */
	scif_layers_ep_close(ep);
	mutex_lock(&ep->mutex);
	spin_lock(&ep->lock);
	old = ep->state;
	ep->state = SCIF_EP_CLOSED;
	ep->flush_seq++;
	spin_unlock(&ep->lock);
	wake_up_all(&ep->wq);
	if (old == SCIF_EP_CLOSED) {
		mutex_unlock(&ep->mutex);
		return -EBADF;
	}

	/*
	 * Memory the peer may still write waits in quarantine from now on:
	 * the answer that releases it may come before the last reference
	 * to the endpoint goes (messages treat a closed endpoint as gone).
	 */
	scif_shm_retire(si, ep->shm);
	/* From here on no message can find the endpoint. */
	xa_erase(&si->eps, SCIF_EP_IDX(ep->id));
	/* Closed while parked (instance teardown): nobody can claim it now. */
	xa_lock(&si->parked);
	if (xa_load(&si->parked, SCIF_EP_IDX(ep->id)) == ep)
		__scif_unpark(si, ep);
	xa_unlock(&si->parked);
	if (old == SCIF_EP_LISTENING)
		scif_listener_shutdown(ep);
	else if (old == SCIF_EP_CONNECTED)
		scif_data_shutdown(ep);
	if (ep->port_owned)
		scif_port_release(&si->ports, ep->port);
	ep->port_owned = false;
	mutex_unlock(&ep->mutex);
	/* Accepted endpoints nobody claimed go with their listener. */
	if (old == SCIF_EP_LISTENING)
		scif_unpark_listener(si, ep);
	scif_ep_put(ep);
	return 0;
}
EXPORT_SYMBOL_GPL(scif_close);

/**
 * scif_epd_flush() - kick every thread blocked on an endpoint
 * @epd: the endpoint
 *
 * For the /dev/scif layer, when a descriptor of the endpoint's file is
 * closed. Threads blocked in scif_connect(), scif_accept(), scif_send() or
 * scif_recv() on @epd return promptly: with the byte count if they moved
 * any data, else with -EINTR (a connect in flight continues as if started
 * without blocking). The endpoint itself stays usable.
 */
void scif_epd_flush(scif_epd_t epd)
{
	struct scif_endpt *ep = epd;

	if (scif_ep_check(epd))
		return;
	spin_lock(&ep->lock);
	ep->flush_seq++;
	spin_unlock(&ep->lock);
	wake_up_all(&ep->wq);
}
EXPORT_SYMBOL_GPL(scif_epd_flush);
