/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layout of the shared register region of the emulated (ivshmem) NTB.
 *
 * Every guest of a cluster maps the same host file through an ivshmem-plain
 * device (BAR2). The host writes the header before any guest boots; each
 * guest then owns one slot. All fields are little-endian 32-bit words, so a
 * plain aligned store is atomic for every reader. No field is ever updated
 * with a read-modify-write by more than one guest: cross-guest atomics are
 * not guaranteed when QEMU runs a single-threaded TCG vCPU.
 *
 * Region:  [header | slot 0 | slot 1 | ... | slot N-1]
 */
#ifndef _NTB_IVSHMEM_REGS_H_
#define _NTB_IVSHMEM_REGS_H_

#include <linux/bits.h>

#define IVN_MAGIC		0x4e54564eU	/* "NVTN" in memory */
#define IVN_VERSION		1U
#define IVN_MAX_NODES		8
/* Peers one node can have: every other node. */
#define IVN_MAX_PEERS		(IVN_MAX_NODES - 1)

/* PCI slots (device numbers on bus 0) chosen by scripts/rig/ntb-mesh.sh */
#define IVN_SLOT_PEER_RAM	0x10	/* + peer index: that peer's RAM */
#define IVN_SLOT_REGS		0x18	/* + own index: the register region */

/*
 * struct ivn_header layout (offsets in bytes), written once by the host:
 *   0x00 magic       IVN_MAGIC
 *   0x04 version     IVN_VERSION
 *   0x08 nodes       number of guests N, 1..IVN_MAX_NODES
 *   0x0c slot_size   bytes per slot, >= IVN_SLOT_MIN_SIZE
 *   0x10 slot_offset offset of slot 0
 *   0x14 winmem      bytes at the top of every guest's RAM that the guest
 *                    kernel leaves alone (memmap=), homes of translated
 *                    windows (winmem.c); 0: none
 *   0x18 ram_size    bytes of every guest's RAM (low 32 bits)
 *   0x1c ram_size_hi (high 32 bits)
 */
#define IVN_HDR_MAGIC		0x00
#define IVN_HDR_VERSION		0x04
#define IVN_HDR_NODES		0x08
#define IVN_HDR_SLOT_SIZE	0x0c
#define IVN_HDR_SLOT_OFFSET	0x10
#define IVN_HDR_WINMEM		0x14
#define IVN_HDR_RAM_LO		0x18
#define IVN_HDR_RAM_HI		0x1c

/*
 * Slot of guest i. "owner" fields are written only by guest i; "shared"
 * fields may be written by any guest (plain stores, last writer wins).
 *
 *   0x000 incarnation  owner: nonzero random id while the driver is bound,
 *                      0 after a clean remove; changes on every probe
 *   0x004 flags        owner: IVN_FLAG_*
 *   0x008 heartbeat    owner: incremented every heartbeat period
 *   0x00c db_seq       owner: incremented after every doorbell ring
 *   0x010 mw_size      owner: bytes per inbound window (low 32 bits), 0 in
 *                      direct mode (one flat window over the whole RAM)
 *   0x014 mw_size_hi   owner: high 32 bits
 *   0x018 mw_count     owner: inbound windows per peer
 *   0x040 db_cnt[64]   owner: per doorbell bit, number of rings so far
 *   0x200 spad[128]    shared: scratchpads (local spad_write, peer writes);
 *                      the default profile uses the first 64
 *   0x400 xlat[8][8]   owner: inbound translation of window w towards peer
 *                      port p, at IVN_SL_XLAT(p, w), 16 bytes each:
 *                        +0x0 gen      odd while the owner rewrites the entry
 *                        +0x4 addr_lo  guest-physical (= RAM file) offset
 *                        +0x8 addr_hi
 *                        +0xc size     bytes, 0 when the window is closed
 *   0x800 msg_out[8][4] owner: outbound message register m towards node d,
 *                      at IVN_SL_MSG_OUT(d, m), 8 bytes each:
 *                        +0x0 seq      incremented once data is written
 *                        +0x4 data
 *   0x900 msg_ack[8][4] owner: seq of the last message of node s in
 *                      inbound register m that this guest consumed
 *   0x980 msg_src      owner: node + 1 whose messages the inbound registers
 *                      present, 0 for none
 *   0x984 msg_in       owner: inbound status bits presented (msg.c)
 */
#define IVN_SL_INCARNATION	0x000
#define IVN_SL_FLAGS		0x004
#define IVN_SL_HEARTBEAT	0x008
#define IVN_SL_DB_SEQ		0x00c
#define IVN_SL_DB_CNT(b)	(0x040 + (b) * 4)
#define IVN_SL_SPAD(s)		(0x200 + (s) * 4)
#define IVN_SL_MW_SIZE		0x010
#define IVN_SL_MW_SIZE_HI	0x014
#define IVN_SL_MW_COUNT		0x018
#define IVN_MAX_MW		8
#define IVN_SL_XLAT(p, w)	(0x400 + ((p) * IVN_MAX_MW + (w)) * 16)
#define IVN_XL_GEN		0x0
#define IVN_XL_ADDR_LO		0x4
#define IVN_XL_ADDR_HI		0x8
#define IVN_XL_SIZE		0xc
#define IVN_MAX_MSG		4
#define IVN_SL_MSG_OUT(d, m)	(0x800 + ((d) * IVN_MAX_MSG + (m)) * 8)
#define IVN_MO_SEQ		0x0
#define IVN_MO_DATA		0x4
#define IVN_SL_MSG_ACK(s, m)	(0x900 + ((s) * IVN_MAX_MSG + (m)) * 4)
#define IVN_SL_MSG_SRC		0x980
#define IVN_SL_MSG_IN		0x984
#define IVN_SLOT_MIN_SIZE	0x1000

#define IVN_FLAG_LINK_ENABLED	BIT(0)

#define IVN_DB_BITS		64
#define IVN_SPAD_COUNT		64
#define IVN_MAX_SPADS		128

#endif /* _NTB_IVSHMEM_REGS_H_ */
