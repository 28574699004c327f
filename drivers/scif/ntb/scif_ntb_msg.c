// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF over NTB: where the handshake words of scif_ntb_link.c live.
 *
 * With enough scratchpads, each side writes its words into the peer's
 * scratchpads: at index 0 on an NTB with one peer, else at its own port
 * number times SCIF_NTB_SPADS (the peers of a multi-port NTB share the
 * scratchpads of each port).
 *
 * Without them, but with two message registers (IDT switches), the words
 * travel as messages: a word is the value in register SCIF_NTB_MSG_DATA,
 * then SCIF_NTB_MSG_MAGIC | index in register SCIF_NTB_MSG_TAG. The
 * receiver keeps the last value of every word of every peer, which then
 * serves as the peer's scratchpads would. Words are sent in the order
 * they were written, so the receiver sees the same sequence of states as
 * a reader of scratchpads. A message into a register the receiver has not
 * emptied yet fails (the outbound status bit), and is tried again a tick
 * later. Every SCIF_NTB_WORDS_RESEND_MS while a handshake runs or the
 * link is up, all our words are queued again (the nonce last): a peer
 * that restarted, or whose registers were reset with messages in flight,
 * so learns them again. A restart shows as a new nonce, as with
 * scratchpads.
 */
#include <linux/jiffies.h>
#include <linux/bitops.h>

#include "scif_ntb.h"

#define SCIF_NTB_WORDS_RESEND_MS	100
/* Rounds of receive and send per run of the message work. */
#define SCIF_NTB_MSG_ROUNDS		64

/* Our words in sending order: the nonce last. */
static const u8 scif_ntb_word_order[SCIF_NTB_SPADS] = {
	SCIF_NTB_SPAD_MAGIC, SCIF_NTB_SPAD_CAPS, SCIF_NTB_SPAD_NODE,
	SCIF_NTB_SPAD_ADDR_LO, SCIF_NTB_SPAD_ADDR_HI, SCIF_NTB_SPAD_SIZE,
	SCIF_NTB_SPAD_ACK, SCIF_NTB_SPAD_NONCE,
};

static void scif_ntb_q_push(struct scif_ntb_words *w, int idx, u32 val)
{
	unsigned int at = (w->q_head + w->q_len) % SCIF_NTB_MSGQ;

	w->q_idx[at] = idx;
	w->q_val[at] = val;
	w->q_len++;
}

/* Queue every word again; the queue is emptied first if it cannot hold them. */
static void scif_ntb_q_all(struct scif_ntb_words *w)
{
	int i;

	if (w->q_len + SCIF_NTB_SPADS > SCIF_NTB_MSGQ) {
		w->q_len = 0;
		w->half = false;
	}
	for (i = 0; i < SCIF_NTB_SPADS; i++)
		scif_ntb_q_push(w, scif_ntb_word_order[i],
				w->tx[scif_ntb_word_order[i]]);
	w->resent = jiffies;
}

/**
 * scif_ntb_word_put() - publish our handshake word @idx to the peer
 * @p: the peer
 * @idx: an &enum scif_ntb_spad
 * @val: its value
 */
void scif_ntb_word_put(struct scif_ntb_peer *p, int idx, u32 val)
{
	struct scif_ntb_dev *nd = p->nd;
	struct scif_ntb_words *w = &p->words;

	if (!nd->use_msg) {
		ntb_peer_spad_write(nd->ntb, p->pidx, p->spad_out + idx, val);
		return;
	}
	mutex_lock(&nd->msg_lock);
	w->tx[idx] = val;
	if (w->q_len == SCIF_NTB_MSGQ)
		scif_ntb_q_all(w);
	else
		scif_ntb_q_push(w, idx, val);
	mutex_unlock(&nd->msg_lock);
	if (!READ_ONCE(nd->removing))
		mod_delayed_work(system_wq, &nd->msg_work, 0);
}

/**
 * scif_ntb_word_get() - the peer's handshake word @idx
 * @p: the peer
 * @idx: an &enum scif_ntb_spad
 *
 * Return: its value, as read from our scratchpads or last received.
 */
u32 scif_ntb_word_get(struct scif_ntb_peer *p, int idx)
{
	struct scif_ntb_dev *nd = p->nd;
	u32 val;

	if (!nd->use_msg)
		return ntb_spad_read(nd->ntb, p->spad_in + idx);
	mutex_lock(&nd->msg_lock);
	val = p->words.rx[idx];
	mutex_unlock(&nd->msg_lock);
	return val;
}

/**
 * scif_ntb_words_refresh() - resend all our words now and then
 * @p: the peer; called from its handshake work while the link is up
 */
void scif_ntb_words_refresh(struct scif_ntb_peer *p)
{
	struct scif_ntb_dev *nd = p->nd;
	bool queued = false;

	if (!nd->use_msg)
		return;
	mutex_lock(&nd->msg_lock);
	if (!p->words.q_len &&
	    time_after(jiffies, p->words.resent +
		       msecs_to_jiffies(SCIF_NTB_WORDS_RESEND_MS))) {
		scif_ntb_q_all(&p->words);
		queued = true;
	}
	mutex_unlock(&nd->msg_lock);
	if (queued && !READ_ONCE(nd->removing))
		mod_delayed_work(system_wq, &nd->msg_work, 0);
}

/* The status bit of message register @m among the bits of @mask. */
static u64 scif_ntb_msg_bit(u64 mask, int m)
{
	while (m--)
		mask &= mask - 1;
	return mask & -mask;
}

/*
 * Drop a lone message: a tag without its value (never sent so: the value
 * goes first, both are taken together), or a value whose tag has not come
 * within SCIF_NTB_WORDS_RESEND_MS (its sender restarted in between). Both
 * would keep the register full for good. The words are resent anyway.
 */
static bool scif_ntb_msg_lone(struct scif_ntb_dev *nd, u64 sts, u64 data,
			      u64 tag)
{
	lockdep_assert_held(&nd->msg_lock);

	if (sts & tag) {
		nd->msg_lone = 0;
		ntb_msg_clear_sts(nd->ntb, tag);
		return true;
	}
	if (!nd->msg_lone) {
		nd->msg_lone = jiffies | 1;
		return false;
	}
	if (time_before(jiffies, nd->msg_lone +
			msecs_to_jiffies(SCIF_NTB_WORDS_RESEND_MS)))
		return false;
	nd->msg_lone = 0;
	ntb_msg_clear_sts(nd->ntb, data);
	return true;
}

/*
 * Take one received word, if a whole one is there. nd->msg_lock held.
 * Returns true if a message was taken or dropped.
 */
static bool scif_ntb_msg_recv(struct scif_ntb_dev *nd)
{
	struct ntb_dev *ntb = nd->ntb;
	u64 in = ntb_msg_inbits(ntb);
	u64 data = scif_ntb_msg_bit(in, SCIF_NTB_MSG_DATA);
	u64 tag = scif_ntb_msg_bit(in, SCIF_NTB_MSG_TAG);
	u64 sts = ntb_msg_read_sts(ntb) & (data | tag);
	int pidx = -1, dpidx = -1;
	u32 word, val;

	lockdep_assert_held(&nd->msg_lock);

	if (!sts) {
		nd->msg_lone = 0;
		return false;
	}
	if (sts != (data | tag))
		return scif_ntb_msg_lone(nd, sts, data, tag);
	nd->msg_lone = 0;
	word = ntb_msg_read(ntb, &pidx, SCIF_NTB_MSG_TAG);
	val = ntb_msg_read(ntb, &dpidx, SCIF_NTB_MSG_DATA);
	ntb_msg_clear_sts(ntb, data | tag);
	if ((word & ~0xffu) != SCIF_NTB_MSG_MAGIC ||
	    (word & 0xff) >= SCIF_NTB_SPADS || pidx != dpidx ||
	    pidx < 0 || pidx >= nd->npeers) {
		dev_warn_ratelimited(&ntb->dev, "dropped a message %#x from peer index %d\n",
				     word, pidx);
		return true;
	}
	nd->peers[pidx].words.rx[word & 0xff] = val;
	return true;
}

/* Send the first queued word of @p; false if the peer is not ready. */
static bool scif_ntb_msg_send(struct scif_ntb_peer *p)
{
	struct ntb_dev *ntb = p->nd->ntb;
	struct scif_ntb_words *w = &p->words;
	u64 out = ntb_msg_outbits(ntb);
	u8 idx = w->q_idx[w->q_head];

	lockdep_assert_held(&p->nd->msg_lock);

	ntb_msg_clear_sts(ntb, out);
	if (!w->half) {
		ntb_peer_msg_write(ntb, p->pidx, SCIF_NTB_MSG_DATA,
				   w->q_val[w->q_head]);
		if (ntb_msg_read_sts(ntb) & out)
			return false;
		w->half = true;
	}
	ntb_peer_msg_write(ntb, p->pidx, SCIF_NTB_MSG_TAG,
			   SCIF_NTB_MSG_MAGIC | idx);
	if (ntb_msg_read_sts(ntb) & out)
		return false;
	w->half = false;
	w->q_head = (w->q_head + 1) % SCIF_NTB_MSGQ;
	w->q_len--;
	return true;
}

/*
 * Receive and send what can be; true if words wait to be sent or to be
 * received whole.
 */
static bool scif_ntb_msg_pump(struct scif_ntb_dev *nd, u64 *changed)
{
	bool progress = true, left = false;
	int i, round;

	mutex_lock(&nd->msg_lock);
	for (round = 0; progress && round < SCIF_NTB_MSG_ROUNDS; round++) {
		progress = false;
		while (scif_ntb_msg_recv(nd))
			progress = true;
		if (progress)
			*changed = ~0ull;
		left = false;
		for (i = 0; i < nd->npeers; i++) {
			struct scif_ntb_peer *p = &nd->peers[i];

			if (!p->words.q_len)
				continue;
			if (scif_ntb_msg_send(p))
				progress = true;
			left |= p->words.q_len > 0;
		}
	}
	/*
	 * Half a word received: its other message raises no event (the
	 * status was not empty), so look again.
	 */
	left |= (ntb_msg_read_sts(nd->ntb) & ntb_msg_inbits(nd->ntb)) != 0;
	mutex_unlock(&nd->msg_lock);
	return left;
}

static void scif_ntb_msg_work(struct work_struct *work)
{
	struct scif_ntb_dev *nd = container_of(to_delayed_work(work),
					       struct scif_ntb_dev, msg_work);
	u64 changed = 0;
	bool left;
	int i;

	left = scif_ntb_msg_pump(nd, &changed);
	if (READ_ONCE(nd->removing))
		return;
	/* New words: let the handshakes look at them now. */
	for (i = 0; changed && i < nd->npeers; i++)
		if (READ_ONCE(nd->peers[i].state) == SCIF_NTB_HANDSHAKE)
			mod_delayed_work(system_wq, &nd->peers[i].hs_work, 0);
	if (left)
		mod_delayed_work(system_wq, &nd->msg_work, 1);
}

/**
 * scif_ntb_msg_event() - &ntb_ctx_ops.msg_event: messages arrived
 * @ctx: the &struct scif_ntb_dev
 */
void scif_ntb_msg_event(void *ctx)
{
	struct scif_ntb_dev *nd = ctx;

	if (nd->use_msg && !READ_ONCE(nd->removing))
		mod_delayed_work(system_wq, &nd->msg_work, 0);
}

/**
 * scif_ntb_words_setup() - choose scratchpads or message registers
 * @nd: the device; its peers are initialised
 *
 * Return: 0, or -ENODEV after one "refusing:" line naming what is missing.
 */
int scif_ntb_words_setup(struct scif_ntb_dev *nd)
{
	struct ntb_dev *ntb = nd->ntb;
	int i, top = nd->port, need;

	mutex_init(&nd->msg_lock);
	INIT_DELAYED_WORK(&nd->msg_work, scif_ntb_msg_work);
	for (i = 0; i < nd->npeers; i++)
		top = max(top, nd->peers[i].port);
	need = scif_ntb_spad_slot(nd->npeers, top) + SCIF_NTB_SPADS;
	if (ntb_spad_count(ntb) >= need) {
		for (i = 0; i < nd->npeers; i++) {
			struct scif_ntb_peer *p = &nd->peers[i];

			p->spad_out = scif_ntb_spad_slot(nd->npeers, nd->port);
			p->spad_in = scif_ntb_spad_slot(nd->npeers, p->port);
		}
		return 0;
	}
	if (ntb_msg_count(ntb) > SCIF_NTB_MSG_TAG) {
		nd->use_msg = true;
		/* polled by the message work; events only speed it up */
		ntb_msg_clear_mask(ntb, ntb_msg_inbits(ntb));
		return 0;
	}
	dev_err(&ntb->dev, "refusing: the handshake needs %d scratchpads or %d message registers, the NTB has %d scratchpads and %d message registers\n",
		need, SCIF_NTB_MSG_TAG + 1, ntb_spad_count(ntb),
		ntb_msg_count(ntb));
	return -ENODEV;
}

/**
 * scif_ntb_words_quiesce() - device removal: the message work stops
 * @nd: the device; &scif_ntb_dev.removing is set
 *
 * Called before the peers stop, so that the message work cannot queue
 * their handshake work again once they cancelled it.
 */
void scif_ntb_words_quiesce(struct scif_ntb_dev *nd)
{
	if (nd->use_msg)
		cancel_delayed_work_sync(&nd->msg_work);
}

/**
 * scif_ntb_words_stop() - device removal: last words out, then stop
 * @nd: the device; scif_ntb_words_quiesce() ran, every peer is stopped
 *
 * The words that say we left are sent if the peers take them within a
 * few ticks; a peer that does not notices our NTB link going down.
 */
void scif_ntb_words_stop(struct scif_ntb_dev *nd)
{
	u64 changed = 0;
	int tries = 20;

	if (!nd->use_msg)
		return;
	while (scif_ntb_msg_pump(nd, &changed) && --tries)
		schedule_timeout_uninterruptible(1);
	mutex_destroy(&nd->msg_lock);
}
