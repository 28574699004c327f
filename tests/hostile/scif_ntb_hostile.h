/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scif_ntb_hostile: what the files of the hostile SCIF peer share: the
 * state of the peer (struct hs_dev), its sizes and timeouts, the module
 * parameters the attacks read, the generator and the functions one file
 * calls in another.
 */
#ifndef SCIF_NTB_HOSTILE_H
#define SCIF_NTB_HOSTILE_H

#include <linux/ntb.h>
#include <linux/prandom.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include "../../drivers/scif/core/scif_wire.h"
#include "../../drivers/scif/ntb/scif_ntb.h"

/* Our ring: the smallest the victim accepts. */
#define HS_RING		SZ_64K
#define HS_REGION	(SCIF_NTB_HDR_SIZE + HS_RING)
/* Endpoint ids and ports learnt from the victim's own messages. */
#define HS_IDS		16
/* Our receive ring of a mapped stream, offered with half the CONNREQs. */
#define HS_SHM_RING	SZ_64K
#define HS_SHM_BYTES	(HS_SHM_RING + PAGE_SIZE)
/* How long to wait for the victim at any one step. */
#define HS_WAIT_MS	20000
/* How long a word in message registers may wait for the victim's room. */
#define HS_MSG_WAIT_MS	1000
/* Resend all our words this often while a handshake waits (messages). */
#define HS_MSG_RESEND_MS	100

/**
 * struct hs_offer - stream memory the victim offered us in an ACCEPT
 * @ring: bus address of its receive ring, which we may write
 * @ctl: bus address of its control block (&struct scif_wire_shm_ctl)
 * @size: size of the ring
 * @vep: the victim's endpoint
 * @ep: ours, as the victim knows it
 * @vport: the victim's port
 * @port: ours
 */
struct hs_offer {
	u64 ring;
	u64 ctl;
	u32 size;
	u64 vep;
	u64 ep;
	u16 vport;
	u16 port;
};

/**
 * struct hs_dev - the hostile peer
 * @ntb: the NTB
 * @port: our port
 * @vport: the victim's port
 * @spad_out: first of the victim's scratchpads our words go to
 * @spad_in: first of ours the victim's words come into
 * @use_msg: the words travel in message registers (no scratchpads)
 * @tx: with @use_msg, our words as last sent
 * @rx: with @use_msg, the victim's words as last received
 * @resent: with @use_msg, jiffies of the last resend of @tx
 * @msg_lone: jiffies | 1 since a value message waits alone for its tag
 * @region: our region, which the victim writes (its ring to us); allocated
 *	    at the first link-up, in the window's mode
 * @region_dma: its bus address
 * @region_bytes: its size (the window's size alignment in translated mode)
 * @xlat: our inbound window is translated onto @region alone (the victim
 *	  then finds the region at offset 0 of its window to us), not flat at
 *	  address 0 (where the region is at @region_dma)
 * @win: outbound window onto the victim's memory
 * @win_size: its size
 * @vhdr: the victim's region for us, inside @win
 * @vring: its cells
 * @vcells: number of cells in @vring
 * @max_data: the chunk size the victim computed for the link
 * @widx: cells we wrote into @vring
 * @ridx: cells we consumed of our own ring
 * @nonce: ours for this session
 * @vnonce: the victim's, as last acknowledged
 * @rnd: the generator
 * @ids: endpoint ids the victim used in messages to us
 * @ports: the ports that went with them
 * @nids: entries at @ids
 * @shm: our memory offered for mapped streams: a receive ring of
 *	 %HS_SHM_RING bytes, then a control block
 * @shm_dma: its bus address
 * @offers: mapped-stream memory the victim offered in its ACCEPTs
 * @noffers: entries at @offers; emptied at each new session
 * @offers_seen: offers learned in all sessions
 * @opens: well-formed connection requests offering @shm (hs_open_stream())
 * @calm: in this session, nothing of ours gave the victim a reason to reset
 *	  the link (no impossible index)
 * @thread: the attacker
 * @sent: messages written so far
 * @sessions: handshakes completed
 * @garbage_idx: impossible indices written
 * @spad_junk: random scratchpad values written
 * @storms: doorbell storms
 * @flaps: link flaps
 * @shm_lies: writes of lying indices or garbage into the victim's stream
 *	      memory, or of lying indices into our own control block
 * @buf: the message being written
 * @done: the attack ended (success or not)
 */
struct hs_dev {
	struct ntb_dev *ntb;
	int port;
	int vport;
	int spad_out;
	int spad_in;
	bool use_msg;
	u32 tx[SCIF_NTB_SPADS];
	u32 rx[SCIF_NTB_SPADS];
	unsigned long resent;
	unsigned long msg_lone;
	void *region;
	dma_addr_t region_dma;
	size_t region_bytes;
	bool xlat;
	void __iomem *win;
	resource_size_t win_size;
	struct scif_ntb_region_hdr __iomem *vhdr;
	u8 __iomem *vring;
	u32 vcells;
	u32 max_data;
	u32 widx;
	u32 ridx;
	u32 nonce;
	u32 vnonce;
	struct rnd_state rnd;
	u64 ids[HS_IDS];
	u16 ports[HS_IDS];
	int nids;
	void *shm;
	dma_addr_t shm_dma;
	struct hs_offer offers[HS_IDS];
	int noffers;
	unsigned int offers_seen;
	unsigned int opens;
	bool calm;
	struct task_struct *thread;
	u64 sent;
	unsigned int sessions;
	unsigned int garbage_idx;
	unsigned int spad_junk;
	unsigned int storms;
	unsigned int flaps;
	unsigned int shm_lies;
	u8 buf[SCIF_WIRE_MSG_SIZE + SCIF_WIRE_DATA_MAX];
	bool done;
};

/* Module parameters (scif_ntb_hostile_main.c). */
extern unsigned int hs_node;
extern ushort hs_target_port;
extern bool hs_stream_lies;

/*
 * The generator. Every attack draws from it in a fixed order, so that a
 * seed replays the same attack: keep the order of the calls.
 */
static inline u32 hs_rand(struct hs_dev *hs, u32 n)
{
	return n ? prandom_u32_state(&hs->rnd) % n : 0;
}

static inline u64 hs_rand64(struct hs_dev *hs)
{
	return (u64)prandom_u32_state(&hs->rnd) << 32 |
	       prandom_u32_state(&hs->rnd);
}

/* The handshake (scif_ntb_hostile_session.c). */
void hs_put(struct hs_dev *hs, int idx, u32 val);
u32 hs_get(struct hs_dev *hs, int idx);
u32 hs_junk(struct hs_dev *hs, int idx);
void hs_msg_junk(struct hs_dev *hs);
bool hs_victim_same(struct hs_dev *hs);
int hs_session(struct hs_dev *hs);

/* The rings (scif_ntb_hostile_ring.c). */
void hs_consume(struct hs_dev *hs);
void hs_doorbell(struct hs_dev *hs);
bool hs_write(struct hs_dev *hs, const u8 *buf, size_t len, u16 hlen);
void hs_break_framing(struct hs_dev *hs);

/* Messages (scif_ntb_hostile_gen.c). */
u64 hs_boundary(struct hs_dev *hs, unsigned int bits);
size_t hs_generate(struct hs_dev *hs, u8 *buf);

/* Mapped streams (scif_ntb_hostile_stream.c). */
void hs_learn_offer(struct hs_dev *hs, const struct scif_wire_msg *m,
		    const struct scif_wire_shm *w);
int hs_shm_lie(struct hs_dev *hs, u8 *buf);
void hs_forget_offers(struct hs_dev *hs, const struct scif_wire_msg *m);
void hs_open_stream(struct hs_dev *hs, u8 *buf);

#endif /* SCIF_NTB_HOSTILE_H */
