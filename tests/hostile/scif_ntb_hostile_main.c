// SPDX-License-Identifier: GPL-2.0
/*
 * scif_ntb_hostile: a hostile SCIF peer on the emulated NTB, for testing
 * only. Loaded on one guest instead of scif_ntb, it speaks scif_ntb's
 * handshake well enough for the victim on the other side of the NTB to
 * bring the link up, then writes random and mutated wire messages into
 * the victim's ring, framing it cannot follow, impossible indices, random
 * scratchpad values, doorbell storms and link flaps. Each time the victim
 * resets the link, the handshake is done again and the attack goes on,
 * until @msgs messages were written. The victim must stay up, reset the
 * link on impossible ring state, rate-limit its complaints and leak
 * nothing.
 *
 * This file holds the module parameters, the NTB client (probe, remove)
 * and the attack loop, which picks one attack at a time; the attacks live
 * in scif_ntb_hostile_{session,ring,gen,stream}.c. The end is reported as
 * one line in the kernel log:
 * "scif_ntb_hostile: done: N messages, ...".
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/module.h>

#include "scif_ntb_hostile.h"

static unsigned long msgs = 20000;
module_param(msgs, ulong, 0444);
MODULE_PARM_DESC(msgs, "messages to write into the victim's ring");

static unsigned int seed = 1;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "seed of the generator");

unsigned int hs_node = 1;
module_param_named(node, hs_node, uint, 0444);
MODULE_PARM_DESC(node, "SCIF node id claimed in the handshake");

ushort hs_target_port = 3001;
module_param_named(target_port, hs_target_port, ushort, 0444);
MODULE_PARM_DESC(target_port, "SCIF port of a listener on the victim");

/*
 * Off by default: a flat window reaches all of the victim's memory, so a
 * lie is written only where the victim's stream memory is certainly still
 * its stream memory (see hs_shm_lie()); the rule holds against the
 * victim's own code, not against every timing of a link reset it decides
 * alone.
 */
bool hs_stream_lies;
module_param_named(stream_lies, hs_stream_lies, bool, 0444);
MODULE_PARM_DESC(stream_lies, "also lie in the memory of mapped streams the victim offers");

/* The one NTB this module attacks through. */
static struct hs_dev *hs_the;

static int hs_attack(void *arg)
{
	struct hs_dev *hs = arg;
	u8 *buf = hs->buf;
	bool need_session = true;
	size_t len;
	u16 hlen;
	u32 r;
	int i;

	while (hs->sent < msgs && !kthread_should_stop()) {
		if (need_session) {
			if (hs_session(hs)) {
				/* What the victim shows of its state. */
				pr_err("scif_ntb_hostile: the victim never completed the handshake (link %s; victim nonce %#x magic %#x ack %#x; our nonce %#x)\n",
				       ntb_link_is_up(hs->ntb, NULL, NULL) &
				       BIT_ULL(0) ? "up" : "down",
				       hs_get(hs, SCIF_NTB_SPAD_NONCE),
				       hs_get(hs, SCIF_NTB_SPAD_MAGIC),
				       hs_get(hs, SCIF_NTB_SPAD_ACK), hs->nonce);
				break;
			}
			need_session = false;
			/* A quarter of the sessions carry a mapped stream. */
			if (hs_stream_lies && !hs->xlat && hs->shm &&
			    !hs_rand(hs, 4))
				hs_open_stream(hs, buf);
		}
		r = hs_rand(hs, 1000);
		if (r < 3) {
			hs_break_framing(hs);
			need_session = true;
			msleep(20);
			continue;
		}
		if (r < 6) {
			/* A random value in one of our words, or a bad message. */
			i = hs_rand(hs, SCIF_NTB_SPADS);
			if (hs->use_msg && hs_rand(hs, 2))
				hs_msg_junk(hs);
			else
				hs_put(hs, i, hs_junk(hs, i));
			hs->spad_junk++;
			need_session = true;
			msleep(20);
			continue;
		}
		if (r < 9) {
			for (i = 0; i < 1000; i++)
				hs_doorbell(hs);
			hs->storms++;
			continue;
		}
		if (r < 10 && hs_rand(hs, 4) == 0) {
			ntb_link_disable(hs->ntb);
			msleep(50);
			ntb_link_enable(hs->ntb, NTB_SPEED_AUTO,
					NTB_WIDTH_AUTO);
			hs->flaps++;
			need_session = true;
			continue;
		}
		if (r < 30 && hs_shm_lie(hs, buf) == 0)
			len = 0;
		else
			len = hs_generate(hs, buf);
		hs_forget_offers(hs, (struct scif_wire_msg *)buf);
		hlen = le16_to_cpu(((struct scif_wire_msg *)buf)->len);
		if (!hs_write(hs, buf, len, hlen) || !hs_victim_same(hs)) {
			/* The victim reset the link: start again. */
			need_session = true;
			continue;
		}
		hs->sent++;
		if (!(hs->sent % 64))
			hs_consume(hs);
		if (!(hs->sent % 100000))
			pr_info("scif_ntb_hostile: %llu messages\n", hs->sent);
		cond_resched();
	}
	pr_info("scif_ntb_hostile: done: %llu messages, %u sessions, %u impossible indices, %u scratchpad junk, %u doorbell storms, %u link flaps, %u streams opened, %u stream offers, %u stream lies\n",
		hs->sent, hs->sessions, hs->garbage_idx, hs->spad_junk,
		hs->storms, hs->flaps, hs->opens, hs->offers_seen,
		hs->shm_lies);
	/* Leave: the victim takes the link down. */
	hs_put(hs, SCIF_NTB_SPAD_NONCE, 0);
	hs_put(hs, SCIF_NTB_SPAD_MAGIC, 0);
	WRITE_ONCE(hs->done, true);
	while (!kthread_should_stop())
		msleep(100);
	return 0;
}

static int hs_probe(struct ntb_client *client, struct ntb_dev *ntb)
{
	phys_addr_t phys;
	struct hs_dev *hs;
	int ret;

	if (ntb_peer_port_count(ntb) != 1 || hs_the)
		return -ENODEV;
	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return -ENOMEM;
	hs->ntb = ntb;
	hs->port = ntb_port_number(ntb);
	hs->vport = ntb_peer_port_number(ntb, 0);
	prandom_seed_state(&hs->rnd, seed);
	hs->spad_out = scif_ntb_spad_slot(1, hs->port);
	hs->spad_in = scif_ntb_spad_slot(1, hs->vport);
	ret = -ENODEV;
	if (hs->port < 0 || hs->vport < 0)
		goto free;
	if (max(hs->spad_out, hs->spad_in) + SCIF_NTB_SPADS >
	    ntb_spad_count(ntb)) {
		hs->use_msg = true;
		if (ntb_msg_count(ntb) <= SCIF_NTB_MSG_TAG) {
			dev_err(&ntb->dev, "refusing: the hostile peer needs %d scratchpads or %d message registers, the NTB has %d and %d\n",
				max(hs->spad_out, hs->spad_in) + SCIF_NTB_SPADS,
				SCIF_NTB_MSG_TAG + 1, ntb_spad_count(ntb),
				ntb_msg_count(ntb));
			goto free;
		}
	}
	if (ntb_peer_mw_get_addr(ntb, 0, &phys, &hs->win_size) ||
	    !hs->win_size)
		goto free;
	ret = -ENOMEM;
	hs->win = ioremap_wc(phys, hs->win_size);
	if (!hs->win)
		goto free;
	ntb_link_enable(ntb, NTB_SPEED_AUTO, NTB_WIDTH_AUTO);
	hs_the = hs;
	hs->thread = kthread_run(hs_attack, hs, "scif_ntb_hostile");
	if (IS_ERR(hs->thread)) {
		ret = PTR_ERR(hs->thread);
		goto clear;
	}
	dev_info(&ntb->dev, "hostile SCIF peer on port %d against port %d: %lu messages, seed %u, handshake in %s\n",
		 hs->port, hs->vport, msgs, seed,
		 hs->use_msg ? "message registers" : "scratchpads");
	return 0;
clear:
	hs_the = NULL;
	ntb_link_disable(ntb);
	iounmap(hs->win);
free:
	kfree(hs);
	return ret;
}

static void hs_remove(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct hs_dev *hs = hs_the;

	if (!hs || hs->ntb != ntb)
		return;
	kthread_stop(hs->thread);
	hs_put(hs, SCIF_NTB_SPAD_NONCE, 0);
	hs_put(hs, SCIF_NTB_SPAD_MAGIC, 0);
	hs_the = NULL;
	ntb_link_disable(ntb);
	/* The victim may still write into our region until its link is down. */
	msleep(500);
	ntb_mw_clear_trans(ntb, 0, 0);
	if (hs->region)
		dma_free_coherent(ntb_get_dma_dev(ntb), hs->region_bytes,
				  hs->region, hs->region_dma);
	if (hs->shm)
		dma_free_coherent(ntb_get_dma_dev(ntb), HS_SHM_BYTES, hs->shm,
				  hs->shm_dma);
	iounmap(hs->win);
	kfree(hs);
}

static struct ntb_client hs_client = {
	.ops = {
		.probe = hs_probe,
		.remove = hs_remove,
	},
};
module_ntb_client(hs_client);

MODULE_DESCRIPTION("Hostile SCIF peer on an NTB, for testing only");
MODULE_LICENSE("GPL");
