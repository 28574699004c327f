// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF over NTB: the state of the link to each peer port, and the
 * handshake that brings a peer in as a SCIF node.
 *
 * On NTB link up, each side chooses how its inbound window is to be opened
 * (direct or translated, scif_ntb_window.c), empties the ring it keeps for
 * the peer and gives the peer its handshake words (in the peer's
 * scratchpads, or by message registers: scif_ntb_msg.c): magic and version,
 * capabilities, node id, offset and size of that ring in the window, and a
 * fresh nonce. It then polls for the peer's words. The handshake has two acknowledgments:
 *
 * 1. A new nonce of the peer is acknowledged by writing it back, once
 *    everything of the peer's previous session is gone here.
 * 2. A side opens its window only when the peer acknowledged its nonce: a
 *    peer that still had processes mapping our memory from before our
 *    restart has revoked them by then, so that none writes into pages we
 *    reused. It then acknowledges again, with the low bit of the peer's
 *    (odd) nonce cleared: "my window is open".
 *
 * Once both sides gave the second acknowledgment, the peer joins the SCIF
 * instance as a node.
 *
 * While the peer is up its words are checked every 100 ms: a changed nonce
 * or a cleared magic means the peer left or restarted, and the node is
 * removed before a new handshake starts. So is a ring that cannot be
 * followed any more. NTB link down removes the node at once.
 *
 * All state changes of a peer run under its mutex, in process context
 * (link work and handshake work). The send and receive paths never take
 * it: they look at @state and @dead only, and teardown first marks the
 * peer dead, wakes the senders and waits for the receive work.
 */
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/sizes.h>

#include "../core/scif_core.h"
#include "../core/scif_wire.h"
#include "scif_ntb.h"

#define SCIF_NTB_HS_POLL_MS	10
#define SCIF_NTB_LIVE_POLL_MS	100
#define SCIF_NTB_HS_STALL_MS	10000
/* Smallest and largest ring a peer may announce. */
#define SCIF_NTB_RING_MIN	SZ_64K
#define SCIF_NTB_RING_MAX	SZ_4M

/**
 * struct scif_ntb_hello - the peer's handshake words, as read
 * @magic: magic and version
 * @caps: capability bits
 * @node: node id
 * @addr: offset in the peer's inbound window of the ring it keeps for us
 * @size: size of that region
 * @nonce: the peer's nonce
 * @ack: our nonce as the peer saw it
 */
struct scif_ntb_hello {
	u32 magic;
	u32 caps;
	u32 node;
	u64 addr;
	u32 size;
	u32 nonce;
	u32 ack;
};

static struct device *scif_ntb_dev(struct scif_ntb_peer *p)
{
	return &p->nd->ntb->dev;
}

/* Publish our handshake word @idx (scif_ntb_msg.c: where it goes). */
static void scif_ntb_put(struct scif_ntb_peer *p, int idx, u32 val)
{
	scif_ntb_word_put(p, idx, val);
}

/* The peer's handshake word @idx. */
static u32 scif_ntb_get(struct scif_ntb_peer *p, int idx)
{
	return scif_ntb_word_get(p, idx);
}

static void scif_ntb_publish(struct scif_ntb_peer *p)
{
	struct scif_ntb_dev *nd = p->nd;
	u32 caps = p->flat_in ? SCIF_NTB_CAP_FLAT : 0;

	if (nd->db_self)
		caps |= SCIF_NTB_CAP_DOORBELL;
	/* The nonce goes last: a reader sees it only over complete words. */
	scif_ntb_put(p, SCIF_NTB_SPAD_NONCE, 0);
	scif_ntb_put(p, SCIF_NTB_SPAD_ACK, 0);
	scif_ntb_put(p, SCIF_NTB_SPAD_CAPS, caps);
	scif_ntb_put(p, SCIF_NTB_SPAD_NODE, scif_instance_self(nd->si));
	scif_ntb_put(p, SCIF_NTB_SPAD_ADDR_LO, lower_32_bits(p->ring_off));
	scif_ntb_put(p, SCIF_NTB_SPAD_ADDR_HI, upper_32_bits(p->ring_off));
	scif_ntb_put(p, SCIF_NTB_SPAD_SIZE, nd->region_size);
	scif_ntb_put(p, SCIF_NTB_SPAD_MAGIC, SCIF_NTB_MAGIC | SCIF_NTB_VERSION);
	scif_ntb_put(p, SCIF_NTB_SPAD_NONCE, p->nonce);
}

/* Tell the peer we are gone (harmless if the link is down). */
static void scif_ntb_unpublish(struct scif_ntb_peer *p)
{
	scif_ntb_put(p, SCIF_NTB_SPAD_NONCE, 0);
	scif_ntb_put(p, SCIF_NTB_SPAD_MAGIC, 0);
	scif_ntb_put(p, SCIF_NTB_SPAD_ACK, 0);
}

/* Read the peer's words; false unless they form one consistent set. */
static bool scif_ntb_read_hello(struct scif_ntb_peer *p,
				struct scif_ntb_hello *h)
{
	h->nonce = scif_ntb_get(p, SCIF_NTB_SPAD_NONCE);
	if (!h->nonce)
		return false;
	h->magic = scif_ntb_get(p, SCIF_NTB_SPAD_MAGIC);
	h->caps = scif_ntb_get(p, SCIF_NTB_SPAD_CAPS);
	h->node = scif_ntb_get(p, SCIF_NTB_SPAD_NODE);
	h->addr = scif_ntb_get(p, SCIF_NTB_SPAD_ADDR_LO) |
		  (u64)scif_ntb_get(p, SCIF_NTB_SPAD_ADDR_HI) << 32;
	h->size = scif_ntb_get(p, SCIF_NTB_SPAD_SIZE);
	h->ack = scif_ntb_get(p, SCIF_NTB_SPAD_ACK);
	/* The words above are read before the nonce is read again. */
	rmb();
	return scif_ntb_get(p, SCIF_NTB_SPAD_NONCE) == h->nonce &&
	       (h->magic & ~0xffu) == SCIF_NTB_MAGIC;
}

static void scif_ntb_refuse(struct scif_ntb_peer *p, const char *why,
			    u32 val)
{
	/* Rate-limited: a peer may start over, and be refused, again. */
	dev_err_ratelimited(scif_ntb_dev(p), "refusing peer port %d: %s %u\n",
			    p->port, why, val);
	scif_ntb_unpublish(p);
	scif_ntb_mw_close(p);
	WRITE_ONCE(p->state, SCIF_NTB_REFUSED);
}

/*
 * Refuse what the peer announced in the session @h. The session is
 * remembered, so that a new one (a new nonce) is given another chance.
 */
static void scif_ntb_refuse_hello(struct scif_ntb_peer *p,
				  const struct scif_ntb_hello *h,
				  const char *why, u32 val)
{
	p->peer_nonce = h->nonce;
	scif_ntb_refuse(p, why, val);
}

/* The link to @p's port came up: publish our words. p->lock is held. */
static void scif_ntb_start(struct scif_ntb_peer *p)
{
	lockdep_assert_held(&p->lock);

	if (scif_ntb_mw_setup(p)) {
		/* Our side cannot: no new session of the peer helps. */
		p->peer_nonce = 0;
		WRITE_ONCE(p->state, SCIF_NTB_REFUSED);
		return;
	}
	scif_ntb_ring_reset(p);
	/* Odd and above 1: see scif_ntb_ack_open(). */
	p->nonce = get_random_u32() | 3;
	p->peer_nonce = 0;
	p->hs_start = jiffies;
	p->stall_logged = false;
	WRITE_ONCE(p->broken, false);
	WRITE_ONCE(p->state, SCIF_NTB_HANDSHAKE);
	scif_ntb_publish(p);
	mod_delayed_work(system_wq, &p->hs_work, 0);
}

/* Take the peer out of the instance. p->lock is held. */
static void scif_ntb_down(struct scif_ntb_peer *p)
{
	lockdep_assert_held(&p->lock);

	WRITE_ONCE(p->dead, true);
	wake_up_all(&p->tx_wq);
	cancel_work_sync(&p->rx_work);
	cancel_delayed_work_sync(&p->rx_late);
	/* A task of the core may be draining: it stops at the next record. */
	mutex_lock(&p->rx_mutex);
	mutex_unlock(&p->rx_mutex);
	/* Only drains queue to the backlog, and none runs any more. */
	cancel_delayed_work_sync(&p->backlog_work);
	scif_ntb_backlog_purge(p);
	/*
	 * Close the peer's window into our memory before the core lets go of
	 * any page the peer may still be writing: on a live link (the peer
	 * restarted, or broke the ring) the peer could otherwise write into
	 * freed memory. The next session opens it again once the peer has
	 * acknowledged it (scif_ntb_handshake()).
	 */
	scif_ntb_mw_close(p);
	if (p->state == SCIF_NTB_UP) {
		scif_node_remove(p->nd->si, p->node);
		dev_info(scif_ntb_dev(p), "SCIF node %u (port %d) down\n",
			 p->node, p->port);
	}
	WRITE_ONCE(p->state, SCIF_NTB_DOWN);
	p->peer_nonce = 0;
}

/* Both sides agreed: add the peer as a node. p->lock is held. */
static void scif_ntb_up(struct scif_ntb_peer *p, const struct scif_ntb_hello *h)
{
	struct scif_ntb_dev *nd = p->nd;
	u32 cells;
	int ret;

	lockdep_assert_held(&p->lock);

	p->node = h->node;
	scif_ntb_set_rma(p, p->flat_in && (h->caps & SCIF_NTB_CAP_FLAT));
	p->tx_hdr = p->win + h->addr;
	p->tx_ring = (u8 *)p->mem + h->addr + SCIF_NTB_HDR_SIZE;
	p->tx_cells = (h->size - SCIF_NTB_HDR_SIZE) / SCIF_NTB_CELL;
	p->tx_widx = 0;
	p->want_seq = 0;
	p->db_peer = 0;
	if ((h->caps & SCIF_NTB_CAP_DOORBELL) && p->port < 64 &&
	    (BIT_ULL(p->port) & ntb_db_valid_mask(nd->ntb)))
		p->db_peer = BIT_ULL(p->port);
	/* Both sides compute the same chunk size: a quarter of either ring. */
	cells = min(p->tx_cells, p->rx_cells) / 4 - 1;
	p->link.max_data = min_t(size_t, SCIF_WIRE_DATA_MAX,
				 cells * SCIF_NTB_CELL);
	p->link.ep_ring = scif_ntb_ep_ring_kb * SZ_1K;
	WRITE_ONCE(p->dead, false);
	ret = scif_node_add(nd->si, p->node, &p->link);
	if (ret) {
		WRITE_ONCE(p->dead, true);
		scif_ntb_refuse(p, ret == -EEXIST ?
				"node id already online:" : "cannot add node",
				p->node);
		return;
	}
	WRITE_ONCE(p->state, SCIF_NTB_UP);
	dev_info(scif_ntb_dev(p), "SCIF node %u up through port %d (%s, %s)\n",
		 p->node, p->port, p->db_peer ? "doorbell" : "polled",
		 p->link.peer_mem ? "direct" : "translated, staged RMA");
	scif_ntb_kick(p);
}

/* One step of the handshake. p->lock is held. */
static void scif_ntb_handshake(struct scif_ntb_peer *p)
{
	u16 self = scif_instance_self(p->nd->si);
	struct scif_ntb_hello h;
	int ret;

	lockdep_assert_held(&p->lock);

	if (!scif_ntb_read_hello(p, &h)) {
		if (!p->stall_logged &&
		    time_after(jiffies, p->hs_start +
				msecs_to_jiffies(SCIF_NTB_HS_STALL_MS))) {
			p->stall_logged = true;
			dev_warn(scif_ntb_dev(p), "port %d: no SCIF handshake from the peer yet\n",
				 p->port);
		}
		return;
	}
	if ((h.magic & 0xff) != SCIF_NTB_VERSION) {
		scif_ntb_refuse_hello(p, &h, "speaks protocol version",
				      h.magic & 0xff);
		return;
	}
	if (h.nonce != p->peer_nonce) {
		/*
		 * A new session of the peer: nothing of the old one remains
		 * here (scif_ntb_down() ran before this session started).
		 */
		scif_ntb_ring_reset(p);
		p->peer_nonce = h.nonce;
		scif_ntb_put(p, SCIF_NTB_SPAD_ACK,
			     p->in_open ? scif_ntb_ack_open(h.nonce) : h.nonce);
	}
	/*
	 * The peer acknowledged our nonce, so it dropped all it kept of our
	 * previous session, mappings of our memory in its processes
	 * included: only now may our window reach our memory again. Then
	 * tell the peer it is open.
	 */
	if (!p->in_open && (h.ack == p->nonce ||
			    h.ack == scif_ntb_ack_open(p->nonce))) {
		ret = scif_ntb_mw_open(p);
		if (ret) {
			scif_ntb_refuse_hello(p, &h, "cannot be given our window, error",
					      -ret);
			return;
		}
		scif_ntb_put(p, SCIF_NTB_SPAD_ACK, scif_ntb_ack_open(h.nonce));
	}
	ret = scif_ntb_map_peer(p);
	if (ret) {
		/*
		 * Windows may follow the translation a little late, and a
		 * translation read while the peer rewrites it reads as busy
		 * (a peer vCPU descheduled mid-update): try again at the
		 * next poll, as for a window not open yet, rather than
		 * refuse this session of the peer for good.
		 */
		if (ret == -ENOLINK || ret == -EBUSY)
			return;
		scif_ntb_refuse_hello(p, &h, "has an outbound window we cannot map, error",
				      -ret);
		return;
	}
	if (h.node > SCIF_MAX_NODE_ID || h.node == self) {
		scif_ntb_refuse_hello(p, &h, "claims node id", h.node);
		return;
	}
	if (h.size < SCIF_NTB_HDR_SIZE + SCIF_NTB_RING_MIN ||
	    h.size > SCIF_NTB_HDR_SIZE + SCIF_NTB_RING_MAX ||
	    !is_power_of_2(h.size - SCIF_NTB_HDR_SIZE) ||
	    h.addr % SCIF_NTB_CELL || h.addr >= p->win_size ||
	    p->win_size - h.addr < h.size) {
		scif_ntb_refuse_hello(p, &h,
				      "announces a ring outside the window, size",
				      h.size);
		return;
	}
	/* Both windows are open: the peer joins. */
	if (p->in_open && h.ack == scif_ntb_ack_open(p->nonce))
		scif_ntb_up(p, &h);
}

/* The peer's words still name the session we are in. */
static bool scif_ntb_peer_present(struct scif_ntb_peer *p)
{
	return scif_ntb_get(p, SCIF_NTB_SPAD_MAGIC) ==
	       (SCIF_NTB_MAGIC | SCIF_NTB_VERSION) &&
	       scif_ntb_get(p, SCIF_NTB_SPAD_NONCE) == p->peer_nonce;
}

static bool scif_ntb_link_up(struct scif_ntb_peer *p)
{
	return ntb_link_is_up(p->nd->ntb, NULL, NULL) & BIT_ULL(p->pidx);
}

static void scif_ntb_hs_work(struct work_struct *work)
{
	struct scif_ntb_peer *p = container_of(to_delayed_work(work),
					       struct scif_ntb_peer, hs_work);
	unsigned int next = 0;

	mutex_lock(&p->lock);
	if (READ_ONCE(p->nd->removing))
		goto out;
	if (READ_ONCE(p->broken) || (p->state == SCIF_NTB_UP &&
				     !scif_ntb_peer_present(p))) {
		if (p->state == SCIF_NTB_UP && !READ_ONCE(p->broken))
			dev_info(scif_ntb_dev(p), "port %d: the peer left or restarted\n",
				 p->port);
		scif_ntb_down(p);
		if (scif_ntb_link_up(p))
			scif_ntb_start(p);
		goto out;
	}
	/*
	 * A refused peer is watched for a new session too: in message
	 * registers, its words reach us only while the message work runs,
	 * which the refresh schedules (and our words, "not here" since the
	 * refusal, reach a peer that missed them).
	 */
	if (p->state != SCIF_NTB_DOWN)
		scif_ntb_words_refresh(p);
	if (p->state == SCIF_NTB_HANDSHAKE) {
		scif_ntb_handshake(p);
		next = p->stall_logged ? SCIF_NTB_LIVE_POLL_MS :
					 SCIF_NTB_HS_POLL_MS;
	}
	if (p->state == SCIF_NTB_REFUSED && p->peer_nonce) {
		/* A peer refused for what it announced may start over. */
		if (scif_ntb_get(p, SCIF_NTB_SPAD_NONCE) != p->peer_nonce &&
		    scif_ntb_link_up(p)) {
			scif_ntb_start(p);
			goto out;
		}
		next = SCIF_NTB_LIVE_POLL_MS;
	}
	if (p->state == SCIF_NTB_UP) {
		/* Also recovers from a doorbell that got lost. */
		scif_ntb_kick(p);
		next = SCIF_NTB_LIVE_POLL_MS;
	}
	if (next)
		schedule_delayed_work(&p->hs_work, msecs_to_jiffies(next));
out:
	mutex_unlock(&p->lock);
}

/**
 * scif_ntb_peer_broken() - the peer broke the ring protocol; reset the link
 * @p: the peer
 * @why: what was seen, for the log
 *
 * Any context that is not the peer's handshake work. Senders and the
 * receive work stop at once; the handshake work removes the node and, if
 * the NTB link is still up, starts a new session.
 */
void scif_ntb_peer_broken(struct scif_ntb_peer *p, const char *why)
{
	dev_warn_ratelimited(scif_ntb_dev(p), "port %d: %s; resetting the link\n",
			     p->port, why);
	WRITE_ONCE(p->broken, true);
	WRITE_ONCE(p->dead, true);
	wake_up_all(&p->tx_wq);
	if (!READ_ONCE(p->nd->removing))
		mod_delayed_work(system_wq, &p->hs_work, 0);
}

/**
 * scif_ntb_link_work() - follow the NTB link state of every peer port
 * @work: &scif_ntb_dev.link_work
 */
void scif_ntb_link_work(struct work_struct *work)
{
	struct scif_ntb_dev *nd = container_of(work, struct scif_ntb_dev,
					       link_work);
	u64 mask = ntb_link_is_up(nd->ntb, NULL, NULL);
	struct scif_ntb_peer *p;
	int i;

	for (i = 0; i < nd->npeers; i++) {
		p = &nd->peers[i];
		mutex_lock(&p->lock);
		if (READ_ONCE(nd->removing)) {
			mutex_unlock(&p->lock);
			break;
		}
		if ((mask & BIT_ULL(p->pidx)) && p->state == SCIF_NTB_DOWN) {
			scif_ntb_start(p);
		} else if (!(mask & BIT_ULL(p->pidx)) &&
			   p->state != SCIF_NTB_DOWN) {
			dev_info(scif_ntb_dev(p), "port %d: NTB link down\n",
				 p->port);
			scif_ntb_down(p);
		}
		mutex_unlock(&p->lock);
	}
}

/**
 * scif_ntb_peer_init() - set up the state of one peer port
 * @p: the peer
 * @nd: its device
 * @pidx: its NTB peer index
 */
void scif_ntb_peer_init(struct scif_ntb_peer *p, struct scif_ntb_dev *nd,
			int pidx)
{
	p->nd = nd;
	p->pidx = pidx;
	p->port = ntb_peer_port_number(nd->ntb, pidx);
	p->link.ops = &scif_ntb_link_ops;
	p->link.transport = &nd->transport;
	p->link.priv = p;
	p->link.dma_dev = ntb_get_dma_dev(nd->ntb);
	mutex_init(&p->lock);
	mutex_init(&p->tx_mutex);
	init_waitqueue_head(&p->tx_wq);
	spin_lock_init(&p->backlog_lock);
	INIT_LIST_HEAD(&p->backlog);
	INIT_DELAYED_WORK(&p->backlog_work, scif_ntb_backlog_work);
	INIT_DELAYED_WORK(&p->hs_work, scif_ntb_hs_work);
	mutex_init(&p->rx_mutex);
	INIT_WORK(&p->rx_work, scif_ntb_rx_work);
	INIT_DELAYED_WORK(&p->rx_late, scif_ntb_rx_late);
	init_waitqueue_head(&p->link.rx_wait);
	p->state = SCIF_NTB_DOWN;
	p->dead = true;
}

/**
 * scif_ntb_peer_stop() - take a peer down for good (device removal)
 * @p: the peer; &scif_ntb_dev.removing is set and no link work runs
 */
void scif_ntb_peer_stop(struct scif_ntb_peer *p)
{
	cancel_delayed_work_sync(&p->hs_work);
	mutex_lock(&p->lock);
	if (p->state != SCIF_NTB_DOWN) {
		scif_ntb_unpublish(p);
		scif_ntb_down(p);
	}
	mutex_unlock(&p->lock);
	cancel_delayed_work_sync(&p->hs_work);
	/* Queued by a doorbell that raced with the teardown, if any. */
	cancel_work_sync(&p->rx_work);
	cancel_delayed_work_sync(&p->rx_late);
	/* Nothing outlives the device, whatever raced with the last session. */
	cancel_delayed_work_sync(&p->backlog_work);
	scif_ntb_backlog_purge(p);
	mutex_destroy(&p->lock);
	mutex_destroy(&p->tx_mutex);
}
