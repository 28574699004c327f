/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hardware profiles of the emulated NTB: what the NTB API reports and how
 * it behaves, modelled on the upstream driver of one kind of hardware
 * (Documentation/ntb-emulation.rst, "Hardware profiles").
 */
#ifndef _NTB_IVSHMEM_PROFILE_H_
#define _NTB_IVSHMEM_PROFILE_H_

#include <linux/ntb.h>
#include <linux/types.h>

/**
 * struct ivn_profile - the resources one kind of NTB hardware gives
 * @name:	value of the profile= module parameter.
 * @two_port:	2-port hardware: exactly one peer, the partner node
 *		(node index XOR 1).
 * @topo:	2-port: the topology the lower node's device reports, then
 *		the higher node's. Such drivers leave port numbering to the
 *		NTB core, which derives it from the topology
 *		(ntb_default_port_number()).
 * @ports:	multi-port: port number of node i; NULL: i.
 * @spads:	scratchpads (0: none).
 * @msgs:	message registers (0: none).
 * @db_valid:	ntb_db_valid_mask().
 * @mw_count:	inbound windows per peer; 0: the mw_size/mw_count module
 *		parameters decide (the default profile).
 * @mw_size:	size_max of every window, bytes.
 * @addr_align:	translation address alignment (0: @mw_size).
 * @size_align:	translation size alignment.
 * @xlat_size_aligned: ntb_mw_set_trans() also wants the address aligned to
 *		the size rounded down to a power of two, at least 4 KiB
 *		(switchtec), beyond what ntb_mw_get_align() reports.
 * @db_no_mask:	ntb_db_set_mask() and ntb_db_clear_mask() succeed and do
 *		nothing (pci-epf-ntb): every doorbell interrupts.
 * @db_one_bit:	ntb_peer_db_set() rings only the lowest bit it is given
 *		(pci-epf-ntb: one interrupt per call).
 */
struct ivn_profile {
	const char *name;
	bool two_port;
	enum ntb_topo topo[2];
	const u8 *ports;
	int spads;
	int msgs;
	u64 db_valid;
	int mw_count;
	u64 mw_size;
	u64 addr_align;
	u64 size_align;
	bool xlat_size_aligned;
	bool db_no_mask;
	bool db_one_bit;
};

extern const struct ivn_profile *ivn_profile;

int ivn_profile_select(void);
bool ivn_profile_default(void);
enum ntb_topo ivn_profile_topo(const struct ivn_profile *prof, int node,
			       int partner);
int ivn_profile_port(const struct ivn_profile *prof, int node, int partner);

#endif /* _NTB_IVSHMEM_PROFILE_H_ */
