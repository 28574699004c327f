/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF over NTB: the transport that joins SCIF nodes through any Linux
 * ntb_dev (Documentation/scif-ntb.rst).
 *
 * Per peer port, each side allocates one region in its own memory that only
 * the peer writes, through its memory window: a small header of indices and
 * a ring of 64-byte cells that carries wire messages (and stream data
 * following them). Every access across the NTB is a posted write; each side
 * reads only its own memory. The write index of a ring lives in the
 * receiver's memory, the read index in the sender's.
 */
#ifndef SCIF_NTB_H
#define SCIF_NTB_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/math.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/ntb.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../core/scif_link.h"

/*
 * Link-up handshake: SCIF_NTB_SPADS words per sender port, in scratchpads
 * or carried by message registers (scif_ntb_msg.c).
 */
#define SCIF_NTB_MAGIC		0x5c1f4e00u	/* low byte: protocol version */
#define SCIF_NTB_VERSION	2
#define SCIF_NTB_SPADS		8

/**
 * enum scif_ntb_spad - the handshake words one side gives its peer; in
 *	scratchpads, word i is at index i of the peer's (on an NTB with
 *	several peers: own port number times %SCIF_NTB_SPADS, plus i)
 * @SCIF_NTB_SPAD_MAGIC: %SCIF_NTB_MAGIC | %SCIF_NTB_VERSION; 0 when leaving
 * @SCIF_NTB_SPAD_CAPS: capability bits, &enum scif_ntb_caps
 * @SCIF_NTB_SPAD_NODE: the writer's SCIF node id
 * @SCIF_NTB_SPAD_ADDR_LO: offset, inside the writer's inbound window 0, of
 *			   the region it allocated for the reader (low 32
 *			   bits; in direct mode the region's DMA address)
 * @SCIF_NTB_SPAD_ADDR_HI: same, high 32 bits
 * @SCIF_NTB_SPAD_SIZE: size of that region in bytes
 * @SCIF_NTB_SPAD_NONCE: nonzero, new at every link-up of the writer
 * @SCIF_NTB_SPAD_ACK: the reader's nonce as the writer last saw it: as is
 *		       once the writer dropped the reader's previous
 *		       session, scif_ntb_ack_open() of it once the writer's
 *		       window is open too
 */
enum scif_ntb_spad {
	SCIF_NTB_SPAD_MAGIC,
	SCIF_NTB_SPAD_CAPS,
	SCIF_NTB_SPAD_NODE,
	SCIF_NTB_SPAD_ADDR_LO,
	SCIF_NTB_SPAD_ADDR_HI,
	SCIF_NTB_SPAD_SIZE,
	SCIF_NTB_SPAD_NONCE,
	SCIF_NTB_SPAD_ACK,
};

/**
 * scif_ntb_spad_slot() - first scratchpad of the handshake words of a port
 * @npeers: peer ports of the NTB
 * @port: the port number of the side that writes the words
 *
 * On an NTB with one peer each side's words are at index 0 of the other
 * side's scratchpads, whatever the port numbers (two-port NTBs often have
 * only %SCIF_NTB_SPADS scratchpads, or report the same port on both
 * sides). On a multi-port NTB the peers share each port's scratchpads:
 * every writer has its own slot there.
 *
 * Return: the index of word 0 (&enum scif_ntb_spad) in the reader's
 * scratchpads.
 */
static inline int scif_ntb_spad_slot(int npeers, int port)
{
	return npeers == 1 ? 0 : port * SCIF_NTB_SPADS;
}

/*
 * The second acknowledgment of the peer's nonce (always odd, never 1):
 * our window is open for the peer.
 */
static inline u32 scif_ntb_ack_open(u32 nonce)
{
	return nonce & ~1u;
}

/*
 * Handshake over message registers (NTBs without enough scratchpads, such
 * as IDT switches): one word per two messages, the value in register
 * SCIF_NTB_MSG_DATA, then SCIF_NTB_MSG_MAGIC | index in SCIF_NTB_MSG_TAG
 * (scif_ntb_msg.c).
 */
#define SCIF_NTB_MSG_DATA	0
#define SCIF_NTB_MSG_TAG	1
#define SCIF_NTB_MSG_MAGIC	0x5c1f7a00u
#define SCIF_NTB_MSGQ		32

/**
 * struct scif_ntb_words - the handshake words of one peer, when they travel
 *	in message registers (scif_ntb_msg.c); under &scif_ntb_dev.msg_lock
 * @rx: the peer's words as last received (what scratchpads would hold)
 * @tx: our words as last published
 * @q_idx: words queued for sending, oldest first: index ...
 * @q_val: ... and the value it had when queued
 * @q_head: first queued entry
 * @q_len: entries queued
 * @half: the data message of the first entry was delivered, its tag not
 * @resent: jiffies of the last full resend of @tx
 */
struct scif_ntb_words {
	u32 rx[SCIF_NTB_SPADS];
	u32 tx[SCIF_NTB_SPADS];
	u8 q_idx[SCIF_NTB_MSGQ];
	u32 q_val[SCIF_NTB_MSGQ];
	unsigned int q_head;
	unsigned int q_len;
	bool half;
	unsigned long resent;
};

/**
 * enum scif_ntb_caps - capability bits of the handshake
 * @SCIF_NTB_CAP_DOORBELL: the writer listens on doorbell bit (own port);
 *			   without it the reader's ring is polled
 * @SCIF_NTB_CAP_FLAT: the writer's inbound window maps its memory flat at
 *		       address 0 (direct mode); without it the window covers
 *		       the writer's region only (translated mode). RMA needs
 *		       both sides direct
 */
enum scif_ntb_caps {
	SCIF_NTB_CAP_DOORBELL = BIT(0),
	SCIF_NTB_CAP_FLAT = BIT(1),
};

#define SCIF_NTB_CELL		64
/* Bytes before the cells of a region: two cache lines of indices. */
#define SCIF_NTB_HDR_SIZE	128
/* First byte of a cell that only pads a ring to its end. */
#define SCIF_NTB_PAD		0xff

/* Cells of the record of a message with @len bytes of data. */
static inline u32 scif_ntb_cells(size_t len)
{
	return 1 + DIV_ROUND_UP(len, SCIF_NTB_CELL);
}

/**
 * struct scif_ntb_region_hdr - indices at the start of a region; every
 *	field is written by the peer only, and read by the owner
 * @widx: cells the peer has written into this region's ring (free running)
 * @want: bumped by the peer when it waits for room in this ring; the owner
 *	  answers with a doorbell once it has consumed
 * @rsvd0: padding that keeps @ridx off the cache line of @widx and @want
 * @ridx: cells the peer has consumed of the owner's ring in the peer's
 *	  memory (free running); on its own cache line
 * @rsvd1: padding to the end of that cache line
 */
struct scif_ntb_region_hdr {
	__le32 widx;
	__le32 want;
	u8 rsvd0[56];
	__le32 ridx;
	u8 rsvd1[60];
};

/**
 * enum scif_ntb_state - where the link to one peer port is
 * @SCIF_NTB_DOWN: no NTB link
 * @SCIF_NTB_HANDSHAKE: NTB link up, scratchpads being exchanged
 * @SCIF_NTB_UP: the peer is a SCIF node of the instance
 * @SCIF_NTB_REFUSED: the peer or the hardware does not qualify; waits for
 *		      the next link event (or a new peer nonce)
 */
enum scif_ntb_state {
	SCIF_NTB_DOWN,
	SCIF_NTB_HANDSHAKE,
	SCIF_NTB_UP,
	SCIF_NTB_REFUSED,
};

struct scif_ntb_dev;

/**
 * struct scif_ntb_peer - the link to one peer port of an NTB
 * @nd: the device
 * @pidx: NTB peer index
 * @port: the peer's port number
 * @link: what the SCIF core sees
 * @lock: serialises state changes (link events, handshake, teardown);
 *	  process context only, never taken by send or receive
 * @state: an &enum scif_ntb_state; written under @lock, read anywhere
 * @node: the peer's node id (valid while UP)
 * @nonce: ours for this link-up
 * @peer_nonce: the peer's, as acknowledged (in REFUSED: the refused one, or 0
 *		when only a link event may help)
 * @hs_start: jiffies when the handshake began (stall reports)
 * @stall_logged: a stalled handshake was reported (once per link-up)
 * @flat_logged: the exposure of all our memory to this peer was reported
 *		 (once per peer, across link flaps)
 * @broken: the peer broke the ring protocol; set from any context, the
 *	    handshake work resets the link
 * @hs_work: handshake and, once up, liveness check (under @lock)
 * @region: our region for the peer (coherent DMA memory the peer writes),
 *	    allocated at the first link-up (scif_ntb_window.c)
 * @region_dma: its DMA address
 * @region_bytes: its size as allocated (at least
 *		  &scif_ntb_dev.region_size)
 * @flat_in: our inbound window is direct (flat at 0) in this session
 * @in_addr: where our inbound window is to point once opened: 0 (direct)
 *	     or @region_dma (translated); set by scif_ntb_mw_setup()
 * @in_size: how much of it, likewise
 * @in_open: the translation of our inbound window is set: the peer reaches
 *	     our memory. Only once the peer acknowledged this session's
 *	     nonce, that is after it dropped everything of our previous
 *	     session (processes' mappings included)
 * @ring_off: offset of @region inside our inbound window, sent to the peer
 * @rx_cells: cells in our ring
 * @rx_mutex: serialises the drains of our ring (the receive works and
 *	      tasks of the core waiting for the peer, see scif_ntb_rx_try());
 *	      protects @rx_ridx and @want_seen. Drains only try it, never
 *	      wait for it; link teardown takes it, under @lock, to wait for a
 *	      drain in a task to end. A drain only ever tries @tx_mutex (scif_ntb_tx.c),
 *	      and never waits for ring room
 * @rx_again: bit 0 set by a drain that found @rx_mutex taken: its holder
 *	      makes one more pass before it lets go
 * @rx_task: the task draining our ring, while it holds @rx_mutex; its
 *	     sends go to the backlog rather than wait
 * @rx_ridx: cells consumed of our ring
 * @want_seen: last &scif_ntb_region_hdr.want answered
 * @rx_work: drains our ring into the core once, after a doorbell
 * @rx_late: the same, a little later: after a doorbell that woke a task
 *	     waiting on &scif_link.rx_wait, in case that task does not get
 *	     to run soon
 * @win: CPU mapping of the outbound window to the peer's memory, for the
 *	 indices of the message ring (I/O accessors); made at the handshake
 * @mem: the same window mapped as memory, for the ring's records and, when
 *	 the peer's window is direct, for RMA (&scif_link.peer_mem)
 * @win_phys: physical address of the window
 * @win_size: its size
 * @tx_hdr: the peer's region header, inside @win
 * @tx_ring: the peer's ring cells, inside @mem
 * @tx_mutex: serialises senders; protects @tx_widx and @want_seq and the
 *	      removal of @backlog entries. May be held while waiting
 *	      (bounded) for ring space, never spinning; never waited for by
 *	      a drain
 * @tx_cells: cells in the peer's ring
 * @tx_widx: cells written into the peer's ring
 * @want_seq: our last &scif_ntb_region_hdr.want value in the peer's region
 * @tx_wq: senders waiting for room or for the link to die
 * @backlog_lock: protects @backlog, @backlog_cells and @backlog_moved
 * @backlog: messages sent from a drain that are still to be written into
 *	     the peer's ring, oldest first (struct scif_ntb_queued)
 * @backlog_cells: cells of the records in @backlog; read anywhere
 * @backlog_moved: jiffies when the backlog last got shorter, or became
 *		   non-empty
 * @backlog_work: writes the backlog out while it is not empty
 * @dead: set (before the node is removed) when the link goes away, so
 *	  senders stop waiting; cleared under @lock when the link is up again
 * @db_peer: doorbell bit that reaches the peer, or 0 to rely on its polling
 * @spad_out: first scratchpad of the peer's that our words go to
 * @spad_in: first of ours that the peer's words come into
 * @words: the handshake words, when they travel in message registers
 */
struct scif_ntb_peer {
	struct scif_ntb_dev *nd;
	int pidx;
	int port;
	struct scif_link link;

	struct mutex lock;	/* state changes, see above */
	enum scif_ntb_state state;
	u16 node;
	u32 nonce;
	u32 peer_nonce;
	unsigned long hs_start;
	bool stall_logged;
	bool flat_logged;
	bool broken;
	struct delayed_work hs_work;

	void *region;
	dma_addr_t region_dma;
	size_t region_bytes;
	bool flat_in;
	resource_size_t in_addr;
	resource_size_t in_size;
	bool in_open;
	u64 ring_off;
	u32 rx_cells;
	struct mutex rx_mutex;	/* drains, see above */
	unsigned long rx_again;
	struct task_struct *rx_task;
	u32 rx_ridx;
	u32 want_seen;
	struct work_struct rx_work;
	struct delayed_work rx_late;

	void __iomem *win;
	void *mem;
	phys_addr_t win_phys;
	resource_size_t win_size;
	struct scif_ntb_region_hdr __iomem *tx_hdr;
	u8 *tx_ring;
	struct mutex tx_mutex;	/* senders, see above */
	u32 tx_cells;
	u32 tx_widx;
	u32 want_seq;
	wait_queue_head_t tx_wq;
	spinlock_t backlog_lock;	/* the backlog, see above */
	struct list_head backlog;
	u32 backlog_cells;
	unsigned long backlog_moved;
	struct delayed_work backlog_work;
	bool dead;
	u64 db_peer;
	int spad_out;
	int spad_in;
	struct scif_ntb_words words;
};

/**
 * struct scif_ntb_dev - SCIF's use of one ntb_dev
 * @ntb: the device
 * @si: the SCIF instance its peers join
 * @transport: the device as a transport registered with @si (named after
 *	       the device); every peer's &scif_link.transport
 * @port: our port number
 * @db_self: doorbell bit peers ring to reach us, or 0 (polling)
 * @region_size: bytes of each peer region (header and ring)
 * @wq: runs the peers' @rx_work when rx_local is off, @rx_late and
 *	@backlog_work; unbound
 * @local_wq: runs @rx_work when rx_local is set (the default): per CPU,
 *	so that the work runs right after the doorbell on the CPU that took it
 *	(Documentation/benchmarks.rst, "Where the time goes"); CPU intensive,
 *	so that a long drain does not hold up the other work of that CPU
 * @link_work: turns NTB link events into peer state changes
 * @poll_timer: in polling mode, kicks every peer's receive work
 * @poll_ns: its period, 0 if doorbells are used
 * @removing: set at remove; no work is queued any more
 * @use_msg: the handshake words travel in message registers, not
 *	     scratchpads (scif_ntb_msg.c)
 * @msg_lock: serialises the message registers and every peer's @words;
 *	      taken inside &scif_ntb_peer.lock (a handshake publishing a
 *	      word), never the other way: the message work takes no peer lock
 * @msg_work: receives and sends handshake words in message registers
 * @msg_lone: jiffies | 1 since one message register alone is full, else 0;
 *	       under @msg_lock
 * @npeers: entries at @peers
 * @peers: one per peer port
 */
struct scif_ntb_dev {
	struct ntb_dev *ntb;
	struct scif_instance *si;
	struct scif_transport transport;
	int port;
	u64 db_self;
	size_t region_size;
	struct workqueue_struct *wq;
	struct workqueue_struct *local_wq;
	struct work_struct link_work;
	struct hrtimer poll_timer;
	u64 poll_ns;
	bool removing;
	bool use_msg;
	struct mutex msg_lock;	/* message registers and &scif_ntb_words */
	struct delayed_work msg_work;
	unsigned long msg_lone;
	int npeers;
	struct scif_ntb_peer peers[];
};

/* scif_ntb_tx.c */
extern const struct scif_link_ops scif_ntb_link_ops;
void scif_ntb_backlog_flush(struct scif_ntb_peer *p);
void scif_ntb_backlog_work(struct work_struct *work);
void scif_ntb_backlog_purge(struct scif_ntb_peer *p);

/* scif_ntb_ring.c */
void scif_ntb_ring_reset(struct scif_ntb_peer *p);
void scif_ntb_rx_work(struct work_struct *work);
void scif_ntb_rx_late(struct work_struct *work);
int scif_ntb_rx_poll(struct scif_link *link);
void scif_ntb_doorbell_rx(struct scif_ntb_peer *p);
void scif_ntb_kick(struct scif_ntb_peer *p);
void scif_ntb_ring_peer(struct scif_ntb_peer *p);
unsigned int scif_ntb_busy_poll(struct scif_link *link);

/* scif_ntb_link.c */
void scif_ntb_peer_init(struct scif_ntb_peer *p, struct scif_ntb_dev *nd,
			int pidx);
void scif_ntb_link_work(struct work_struct *work);
void scif_ntb_peer_stop(struct scif_ntb_peer *p);
void scif_ntb_peer_broken(struct scif_ntb_peer *p, const char *why);

/* scif_ntb_msg.c */
int scif_ntb_words_setup(struct scif_ntb_dev *nd);
void scif_ntb_words_quiesce(struct scif_ntb_dev *nd);
void scif_ntb_words_stop(struct scif_ntb_dev *nd);
void scif_ntb_msg_event(void *ctx);
void scif_ntb_word_put(struct scif_ntb_peer *p, int idx, u32 val);
u32 scif_ntb_word_get(struct scif_ntb_peer *p, int idx);
void scif_ntb_words_refresh(struct scif_ntb_peer *p);

/* scif_ntb_window.c */
int scif_ntb_mw_setup(struct scif_ntb_peer *p);
int scif_ntb_mw_open(struct scif_ntb_peer *p);
void scif_ntb_mw_close(struct scif_ntb_peer *p);
int scif_ntb_map_peer(struct scif_ntb_peer *p);
void scif_ntb_set_rma(struct scif_ntb_peer *p, bool on);
void scif_ntb_windows_free(struct scif_ntb_peer *p);
bool scif_ntb_peer_has_window(struct scif_ntb_peer *p);

/* scif_ntb_main.c: module parameters */
extern unsigned int scif_ntb_send_timeout_ms;
extern unsigned int scif_ntb_busy_poll_us;
extern bool scif_ntb_rx_local;
extern bool scif_ntb_rx_waiter;
extern bool scif_ntb_allow_flat;
extern unsigned int scif_ntb_ep_ring_kb;

#endif /* SCIF_NTB_H */
