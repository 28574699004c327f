/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Emulated NTB over QEMU ivshmem-plain devices: driver-private state.
 */
#ifndef _NTB_IVSHMEM_H_
#define _NTB_IVSHMEM_H_

#include <linux/hrtimer.h>
#include <linux/bitmap.h>
#include <linux/irq_work.h>
#include <linux/ntb.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ivshmem_regs.h"
#include "profile.h"

/**
 * struct ivn_peer - what this guest knows about one peer guest
 * @pdev:	ivshmem-plain device whose BAR2 is the peer's RAM (the
 *		outbound memory window); a reference is held.
 * @port:	the peer's index in the cluster (its slot number).
 * @hw_port:	its NTB port number under the profile.
 * @slot:	the peer's slot in the register region.
 * @mw_base:	physical address of the outbound window (BAR2).
 * @inc:	peer incarnation the doorbell counters below belong to.
 * @db_seq:	last doorbell sequence number seen from the peer.
 * @db_seen:	per doorbell bit, ring count already turned into a pending bit.
 * @hb:		last heartbeat value read from the peer.
 * @hb_stamp:	jiffies when @hb last changed.
 * @link_inc:	incarnation the link was last reported up with.
 * @possible_since: jiffies (| 1) since the link could be up, 0 while it
 *		cannot; it is reported up link_train_ms later.
 * @down_why:	why the link is down, as last logged; NULL while it is up.
 *
 * @inc, @db_seq and @db_seen are protected by ivn_dev.db_lock; @hb,
 * @hb_stamp, @link_inc, @possible_since and @down_why are only touched by
 * the link worker.
 */
struct ivn_peer {
	struct pci_dev *pdev;
	int port;
	int hw_port;
	void __iomem *slot;
	resource_size_t mw_base;
	u32 inc;
	u32 db_seq;
	u32 db_seen[IVN_DB_BITS];
	u32 hb;
	unsigned long hb_stamp;
	u32 link_inc;
	unsigned long possible_since;
	const char *down_why;
};

/* Inbound windows that can have a home in window memory. */
#define IVN_WM_MAX_HOMES	(IVN_MAX_PEERS * IVN_MAX_MW)

/**
 * struct ivn_dev - one emulated NTB port (one per guest)
 * @ntb:	the device registered with the NTB core.
 * @pdev:	ivshmem-plain device of the register region.
 * @regs:	mapping of the whole register region.
 * @slot:	this guest's slot in @regs.
 * @nodes:	number of guests in the cluster.
 * @self:	this guest's index (its slot number).
 * @prof:	the hardware profile (profile.c).
 * @port:	this guest's NTB port number under @prof.
 * @addr_align: translated mode: translation address alignment.
 * @size_align: translated mode: translation size alignment.
 * @ram_size:	RAM size of every guest.
 * @mw_size:	bytes per translated window, its address alignment; 0 in
 *		direct mode (one flat window per peer over the whole RAM).
 * @mw_count:	inbound windows per peer (1 in direct mode).
 * @xlat_lock:	serialises rewrites of this guest's xlat[] entries.
 * @xlat_gen:	shadow of the gen word of every xlat[] entry, by pidx.
 * @npeers:	nodes - 1; peers are indexed by pidx, ordered by port.
 * @peers:	per-peer state.
 *
 * @wm_size:	bytes of window memory at the top of RAM; 0 when windows
 *		have no home (direct mode, none reserved, or unusable).
 * @wm_base:	its guest-physical address.
 * @wm_virt:	its kernel mapping.
 * @wm_lock:	protects @wm_busy and the @wm_armed fields.
 * @wm_busy:	homes handed out by the DMA allocator, by home index.
 * @wm_armed:	home index the next allocation of @wm_armed_task gets; -1
 *		for none.
 * @wm_armed_task: the task that asked ntb_mw_get_align() (compared only).
 * @wm_armed_at: jiffies of that call.
 *
 * @db_lock:	protects @db_pending, @db_mask, @db_fired, peer doorbell
 *		state and the outbound counters @db_out/@db_out_seq.
 * @db_pending:	inbound doorbell bits set and not yet cleared.
 * @db_mask:	inbound doorbell bits masked by the client.
 * @db_fired:	pending unmasked bits already announced with ntb_db_event().
 * @db_out:	shadow of this guest's db_cnt[] words.
 * @db_out_seq:	shadow of this guest's db_seq word.
 *
 * @poll_timer:	doorbell poll, runs in hard interrupt context.
 * @poll_lock:	serialises restarting @poll_timer from @kick.
 * @poll_ns:	current poll interval (adaptive), ns.
 * @last_busy:	ktime of the last doorbell activity.
 * @kick:	irq_work: re-announce pending bits and speed polling up.
 * @stopping:	set (under @poll_lock) once teardown started.
 *
 * @hb_timer:	beats (increments this guest's heartbeat word) every
 *		ivn_hb_period_ms, in hard interrupt context: a guest whose
 *		CPUs are busy in long kernel loops still beats, so that it is
 *		not taken for dead while it can still write into its peers.
 * @link_work:	link state from the peers' heartbeats, every
 *		ivn_hb_period_ms.
 * @link_lock:	protects @link_enabled and @link_up.
 * @link_enabled: ntb_link_enable() was called and not undone.
 * @link_up:	bitmask by pidx of peers whose link is up.
 *
 * @msg_lock:	protects the @msg_* fields below and this guest's msg_*
 *		words in its slot.
 * @msg_src:	node whose messages the inbound registers present, -1.
 * @msg_sts:	status: outbound failure bits 0..3, inbound bits 16..19.
 * @msg_mask:	status bits masked by the client.
 * @msg_seq:	shadow of this guest's msg_out seq words, by node.
 * @msg_rr:	node after which the next source is looked for.
 */
struct ivn_dev {
	struct ntb_dev ntb;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *slot;
	int nodes;
	int self;
	const struct ivn_profile *prof;
	int port;
	u64 addr_align;
	u64 size_align;
	u64 ram_size;
	u64 mw_size;
	int mw_count;
	spinlock_t xlat_lock;		/* see @xlat_lock above */
	u32 xlat_gen[IVN_MAX_PEERS][IVN_MAX_MW];
	int npeers;
	struct ivn_peer peers[IVN_MAX_NODES - 1];

	u64 wm_size;
	phys_addr_t wm_base;
	void *wm_virt;
	spinlock_t wm_lock;		/* see @wm_lock above */
	DECLARE_BITMAP(wm_busy, IVN_WM_MAX_HOMES);
	int wm_armed;
	struct task_struct *wm_armed_task;
	unsigned long wm_armed_at;

	spinlock_t db_lock;		/* see @db_lock above */
	u64 db_pending;
	u64 db_mask;
	u64 db_fired;
	u32 db_out[IVN_DB_BITS];
	u32 db_out_seq;

	struct hrtimer poll_timer;
	spinlock_t poll_lock;		/* see @poll_lock above */
	u64 poll_ns;
	ktime_t last_busy;
	struct irq_work kick;
	bool stopping;

	struct hrtimer hb_timer;
	struct delayed_work link_work;
	spinlock_t link_lock;		/* see @link_lock above */
	bool link_enabled;
	u64 link_up;

	spinlock_t msg_lock;		/* see @msg_lock above */
	int msg_src;
	u32 msg_sts;
	u32 msg_mask;
	u32 msg_seq[IVN_MAX_NODES][IVN_MAX_MSG];
	int msg_rr;
};

static inline struct ivn_dev *ntb_to_ivn(struct ntb_dev *ntb)
{
	return container_of(ntb, struct ivn_dev, ntb);
}

extern const struct ntb_dev_ops ivn_ntb_ops;
extern unsigned int ivn_hb_period_ms;

/* ops.c: memory windows */
void ivn_xlat_init(struct ivn_dev *ivn);
int ivn_mw_params_check(void);
extern unsigned int ivn_mw_count_param;
extern unsigned long ivn_mw_size_param;

/* winmem.c: homes of translated windows */
void ivn_wm_setup(struct ivn_dev *ivn, u64 size);
void ivn_wm_teardown(struct ivn_dev *ivn);
void ivn_wm_arm(struct ivn_dev *ivn, int pidx, int widx);
bool ivn_wm_peer_home(struct ivn_dev *ivn, int pidx, int widx, u64 *addr);

/* doorbell.c: doorbells, polling */
void ivn_db_init(struct ivn_dev *ivn);
void ivn_db_start(struct ivn_dev *ivn);
void ivn_db_stop(struct ivn_dev *ivn);
void ivn_db_kick(struct ivn_dev *ivn);
int ivn_db_ring(struct ivn_dev *ivn, u64 bits);

/* msg.c: message registers */
#define IVN_MSG_IN_SHIFT	16
void ivn_msg_init(struct ivn_dev *ivn);
void ivn_msg_poll(struct ivn_dev *ivn);
int ivn_msg_count(struct ntb_dev *ntb);
u64 ivn_msg_inbits(struct ntb_dev *ntb);
u64 ivn_msg_outbits(struct ntb_dev *ntb);
u64 ivn_msg_read_sts(struct ntb_dev *ntb);
int ivn_msg_clear_sts(struct ntb_dev *ntb, u64 sts_bits);
int ivn_msg_set_mask(struct ntb_dev *ntb, u64 mask_bits);
int ivn_msg_clear_mask(struct ntb_dev *ntb, u64 mask_bits);
u32 ivn_msg_read(struct ntb_dev *ntb, int *pidx, int midx);
int ivn_peer_msg_write(struct ntb_dev *ntb, int pidx, int midx, u32 msg);

/* link.c: heartbeat and link state */
void ivn_link_init(struct ivn_dev *ivn);
void ivn_link_start(struct ivn_dev *ivn);
void ivn_link_stop(struct ivn_dev *ivn);
void ivn_link_set_enabled(struct ivn_dev *ivn, bool enabled);
u64 ivn_link_mask(struct ivn_dev *ivn);

#endif /* _NTB_IVSHMEM_H_ */
