// SPDX-License-Identifier: GPL-2.0
/*
 * Emulated NTB link state: heartbeats in the register region.
 *
 * Every ivn_hb_period_ms each guest increments the heartbeat word of its
 * slot (from an hrtimer, so that beating does not depend on the scheduler)
 * and reads the slots of its peers (from a work item). The link to a peer is up when
 * both sides called ntb_link_enable(), the peer's slot holds a nonzero
 * incarnation and its heartbeat moved within the last ivn_hb_timeout_ms.
 * A killed guest stops beating and is seen down within period + timeout;
 * a restarted guest comes back with a new incarnation, which is reported
 * as a link down followed by a link up so that clients start over.
 */
#include <linux/jiffies.h>
#include <linux/module.h>

#include "ntb_ivshmem.h"

unsigned int ivn_hb_period_ms = 50;
module_param_named(hb_period_ms, ivn_hb_period_ms, uint, 0444);
MODULE_PARM_DESC(hb_period_ms, "Heartbeat period (ms)");

/*
 * Long enough that a live guest whose host kept it waiting (under TCG on
 * a loaded host a guest can miss its timers for well over a second) is
 * not taken for dead; a killed guest is still seen down within two seconds.
 */
static unsigned int ivn_hb_timeout_ms = 1500;
module_param_named(hb_timeout_ms, ivn_hb_timeout_ms, uint, 0444);
MODULE_PARM_DESC(hb_timeout_ms,
		 "A peer whose heartbeat did not move for this long is down (ms)");

/*
 * A real link trains for a while after both ends enabled it, and clients
 * rely on that: ntb_transport enables the link, asks for its state, and on
 * "down" queues a cleanup that cancels the setup an early "up" queued.
 */
static unsigned int ivn_link_train_ms = 100;
module_param_named(link_train_ms, ivn_link_train_ms, uint, 0444);
MODULE_PARM_DESC(link_train_ms,
		 "A link is reported up once it could be up for this long (ms)");

static unsigned long ivn_hb_period(void)
{
	return msecs_to_jiffies(max(ivn_hb_period_ms, 1U));
}

static enum hrtimer_restart ivn_hb_fn(struct hrtimer *timer)
{
	struct ivn_dev *ivn = container_of(timer, struct ivn_dev, hb_timer);

	iowrite32(ioread32(ivn->slot + IVN_SL_HEARTBEAT) + 1,
		  ivn->slot + IVN_SL_HEARTBEAT);
	hrtimer_forward_now(timer, ms_to_ktime(max(ivn_hb_period_ms, 1U)));
	return HRTIMER_RESTART;
}

/* Is the link to this peer up? Only called from the link worker. */
static bool ivn_link_peer_up(struct ivn_dev *ivn, struct ivn_peer *peer,
			     bool enabled, bool was_up)
{
	unsigned long timeout = msecs_to_jiffies(ivn_hb_timeout_ms);
	const char *why = NULL;
	u32 inc, flags, hb;
	bool up;

	inc = ioread32(peer->slot + IVN_SL_INCARNATION);
	flags = ioread32(peer->slot + IVN_SL_FLAGS);
	hb = ioread32(peer->slot + IVN_SL_HEARTBEAT);

	if (hb != peer->hb) {
		peer->hb = hb;
		peer->hb_stamp = jiffies;
	}

	if (!enabled)
		why = "disabled here";
	else if (!inc)
		why = "the peer is not running";
	else if (!(flags & IVN_FLAG_LINK_ENABLED))
		why = "disabled by the peer";
	else if (!time_before(jiffies, peer->hb_stamp + timeout))
		why = "no heartbeat from the peer";
	/* restarted between two looks: report a down first */
	else if (was_up && inc != peer->link_inc)
		why = "the peer restarted";
	if (why) {
		peer->possible_since = 0;
		up = false;
	} else {
		/* 0 means "not possible": a stamp of 0 is taken as 1 */
		if (!peer->possible_since)
			peer->possible_since = jiffies | 1;
		up = was_up ||
		     !time_before(jiffies, peer->possible_since +
				  msecs_to_jiffies(ivn_link_train_ms));
	}
	if (up)
		peer->link_inc = inc;

	/*
	 * Say why a link went down, so that a false link loss on a loaded
	 * host (a stalled heartbeat) can be told apart from a peer that left.
	 */
	if (was_up && !up)
		dev_info_ratelimited(&ivn->pdev->dev, "link to port %d down: %s (heartbeat seen %u ms ago)\n",
				     peer->port, why,
				     jiffies_to_msecs(jiffies - peer->hb_stamp));
	else if (up && !was_up)
		dev_info_ratelimited(&ivn->pdev->dev, "link to port %d up\n",
				     peer->port);
	/* And why a link that is down stays down, each time that changes. */
	else if (!up && why && why != peer->down_why && enabled)
		dev_info_ratelimited(&ivn->pdev->dev, "link to port %d not up: %s\n",
				     peer->port, why);
	peer->down_why = up ? NULL : why;
	return up;
}

static void ivn_link_work_fn(struct work_struct *work)
{
	struct ivn_dev *ivn = container_of(to_delayed_work(work),
					   struct ivn_dev, link_work);
	unsigned long flags;
	u64 old, now = 0;
	bool enabled;
	int i;

	spin_lock_irqsave(&ivn->link_lock, flags);
	enabled = ivn->link_enabled;
	old = ivn->link_up;
	spin_unlock_irqrestore(&ivn->link_lock, flags);

	for (i = 0; i < ivn->npeers; i++)
		if (ivn_link_peer_up(ivn, &ivn->peers[i], enabled,
				     old & BIT_ULL(i)))
			now |= BIT_ULL(i);

	if (now != old) {
		spin_lock_irqsave(&ivn->link_lock, flags);
		ivn->link_up = now;
		spin_unlock_irqrestore(&ivn->link_lock, flags);
		dev_dbg(&ivn->ntb.dev, "link mask %#llx -> %#llx\n", old, now);
		ntb_link_event(&ivn->ntb);
		/* rings held while the link was down here (doorbell.c) */
		if (now & ~old)
			ivn_db_kick(ivn);
	}

	queue_delayed_work(system_highpri_wq, &ivn->link_work,
			   ivn_hb_period());
}

/**
 * ivn_link_mask() - peers whose link is up
 * @ivn: the emulated port
 *
 * Return: bitmask by peer index.
 */
u64 ivn_link_mask(struct ivn_dev *ivn)
{
	unsigned long flags;
	u64 mask;

	spin_lock_irqsave(&ivn->link_lock, flags);
	mask = ivn->link_up;
	spin_unlock_irqrestore(&ivn->link_lock, flags);
	return mask;
}

/**
 * ivn_link_set_enabled() - ntb_link_enable()/ntb_link_disable()
 * @ivn: the emulated port
 * @enabled: new state
 *
 * Publishes the state to the peers and re-evaluates the link at once.
 */
void ivn_link_set_enabled(struct ivn_dev *ivn, bool enabled)
{
	unsigned long flags;

	spin_lock_irqsave(&ivn->link_lock, flags);
	ivn->link_enabled = enabled;
	iowrite32(enabled ? IVN_FLAG_LINK_ENABLED : 0,
		  ivn->slot + IVN_SL_FLAGS);
	spin_unlock_irqrestore(&ivn->link_lock, flags);

	mod_delayed_work(system_highpri_wq, &ivn->link_work, 0);
}

/**
 * ivn_link_init() - set up link state before the port is published
 * @ivn: the emulated port
 */
void ivn_link_init(struct ivn_dev *ivn)
{
	unsigned long stale = jiffies - msecs_to_jiffies(ivn_hb_timeout_ms) - 1;
	int i;

	spin_lock_init(&ivn->link_lock);
	INIT_DELAYED_WORK(&ivn->link_work, ivn_link_work_fn);
	hrtimer_init(&ivn->hb_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ivn->hb_timer.function = ivn_hb_fn;
	iowrite32(0, ivn->slot + IVN_SL_FLAGS);

	/* a peer counts as alive only once its heartbeat is seen moving */
	for (i = 0; i < ivn->npeers; i++) {
		ivn->peers[i].hb = ioread32(ivn->peers[i].slot +
					    IVN_SL_HEARTBEAT);
		ivn->peers[i].hb_stamp = stale;
	}
}

/**
 * ivn_link_start() - start the heartbeat
 * @ivn: the emulated port
 */
void ivn_link_start(struct ivn_dev *ivn)
{
	hrtimer_start(&ivn->hb_timer, 0, HRTIMER_MODE_REL_HARD);
	queue_delayed_work(system_highpri_wq, &ivn->link_work, 0);
}

/**
 * ivn_link_stop() - stop the heartbeat; no link event is delivered afterwards
 * @ivn: the emulated port
 */
void ivn_link_stop(struct ivn_dev *ivn)
{
	hrtimer_cancel(&ivn->hb_timer);
	cancel_delayed_work_sync(&ivn->link_work);
	iowrite32(0, ivn->slot + IVN_SL_FLAGS);
}
