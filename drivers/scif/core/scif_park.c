// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF endpoints: parking of accepted endpoints for /dev/scif.
 *
 * An endpoint that scif_accept() returned waits in its instance's table of
 * parked endpoints until the thread group that parked it claims it by its
 * handle. Taking an endpoint out of the table (__scif_unpark()) and closing
 * the unclaimed endpoints of a listener that closes belong to scif_close(),
 * in core/scif_endpt.c.
 */
#include <kunit/visibility.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>

#include "scif_core.h"
#include "scif_endpt.h"
#include "scif_endpt_api.h"
#include "scif_instance.h"

/**
 * scif_epd_park() - hold an accepted endpoint until scif_epd_claim()
 * @epd: the listener @newepd was accepted from
 * @newepd: an endpoint returned by scif_accept() on @epd
 * @handle: set to a handle naming it; the handle is not an address
 *
 * Only the thread group of the caller can claim the endpoint. It is closed
 * if it is still parked when @epd is closed, or when its instance is
 * destroyed. A listener holds at most its backlog (see scif_listen()) of
 * parked endpoints. On failure @newepd is left to the caller.
 *
 * Return: 0, or -EBADF, -EINVAL (@epd does not listen, @newepd is parked
 * already), -EMFILE (@epd has its backlog of endpoints parked already), or
 * -ENOMEM.
 */
int scif_epd_park(scif_epd_t epd, scif_epd_t newepd, u64 *handle)
{
	struct scif_endpt *lep = epd, *ep = newepd;
	struct scif_instance *si;
	struct pid *owner;
	bool listening;
	int ret;

	ret = scif_ep_check(epd) ?: scif_ep_check(newepd);
	if (ret)
		return ret;
	si = ep->si;
	if (lep == ep || lep->si != si)
		return -EINVAL;
	owner = get_pid(task_tgid(current));
	/*
	 * The listener's mutex orders this against its close, which sets
	 * %SCIF_EP_CLOSED under it and sweeps the parked endpoints after it.
	 */
	mutex_lock(&lep->mutex);
	spin_lock(&lep->lock);
	listening = lep->state == SCIF_EP_LISTENING;
	spin_unlock(&lep->lock);
	ret = -EINVAL;
	xa_lock(&si->parked);
	/* @park_owner is only set while parked, and only under this lock. */
	if (listening && !ep->park_owner && lep->nparked >= lep->backlog) {
		ret = -EMFILE;
	} else if (listening && !ep->park_owner) {
		ep->park_owner = owner;
		ep->park_listener = lep;
		lep->nparked++;
		/* May drop the xarray lock to allocate, never @lep->mutex. */
		ret = __xa_insert(&si->parked, SCIF_EP_IDX(ep->id), ep,
				  GFP_KERNEL);
		if (ret) {
			ep->park_owner = NULL;
			ep->park_listener = NULL;
			lep->nparked--;
			if (ret == -EBUSY)
				ret = -EINVAL;
		}
	}
	xa_unlock(&si->parked);
	mutex_unlock(&lep->mutex);
	if (ret) {
		put_pid(owner);
		return ret;
	}
	*handle = ep->id;
	return 0;
}
EXPORT_SYMBOL_GPL(scif_epd_park);

/**
 * scif_instance_claim() - take a parked endpoint back
 * @si: the instance it was parked in
 * @handle: the handle from scif_epd_park()
 *
 * Only the thread group that parked the endpoint may claim it; for any
 * other caller the handle behaves exactly like one that names nothing.
 *
 * Return: the endpoint, now owned by the caller, or ERR_PTR(-EINVAL) if
 * @handle names no endpoint parked by the caller's thread group (it was
 * claimed already, closed with its listener, parked by another process, or
 * never was).
 */
scif_epd_t scif_instance_claim(struct scif_instance *si, u64 handle)
{
	struct scif_endpt *ep;

	xa_lock(&si->parked);
	ep = xa_load(&si->parked, SCIF_EP_IDX(handle));
	if (ep && ep->id == handle && ep->park_owner == task_tgid(current))
		__scif_unpark(si, ep);
	else
		ep = NULL;
	xa_unlock(&si->parked);
	return ep ? ep : ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL_IF_KUNIT(scif_instance_claim);

/**
 * scif_epd_claim() - take an endpoint parked in the default instance
 * @handle: the handle from scif_epd_park()
 *
 * Return: as scif_instance_claim().
 */
scif_epd_t scif_epd_claim(u64 handle)
{
	return scif_instance_claim(scif_default_instance(), handle);
}
EXPORT_SYMBOL_GPL(scif_epd_claim);
