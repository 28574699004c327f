// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware profiles of the emulated NTB (profile= module parameter).
 *
 * Every value below is what the upstream driver of that hardware reports
 * through the NTB API in the kernel this project is built against; the
 * source of each one is cited in Documentation/ntb-emulation.rst. Window
 * sizes that hardware takes from its BAR setup are chosen here (and
 * documented there).
 */
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "ivshmem_regs.h"
#include "profile.h"

static char *ivn_profile_param = "default";
module_param_named(profile, ivn_profile_param, charp, 0444);
MODULE_PARM_DESC(profile, "hardware the emulated NTB models: default, intel, amd, switchtec, idt or epf (Documentation/ntb-emulation.rst)");

/* Port numbers of the 8 NT ports of an 89HPES32NT8 switch. */
static const u8 ivn_idt_ports[IVN_MAX_NODES] = { 0, 2, 4, 6, 8, 12, 16, 20 };

static const struct ivn_profile ivn_profiles[] = {
	{
		.name = "default",
		.spads = IVN_SPAD_COUNT,
		.db_valid = GENMASK_ULL(IVN_DB_BITS - 1, 0),
	}, {
		/* Xeon Scalable (ntb_hw_gen3), back to back */
		.name = "intel",
		.two_port = true,
		.topo = { NTB_TOPO_B2B_USD, NTB_TOPO_B2B_DSD },
		.spads = 16,
		.db_valid = GENMASK_ULL(30, 0),
		.mw_count = 2,
		.mw_size = SZ_16M,
		.size_align = 1,
	}, {
		/* device 148b: two windows, half the scratchpads each side */
		.name = "amd",
		.two_port = true,
		.topo = { NTB_TOPO_PRI, NTB_TOPO_SEC },
		.spads = 8,
		.db_valid = GENMASK_ULL(14, 0),
		.mw_count = 2,
		.mw_size = SZ_16M,
		.addr_align = SZ_4K,
		.size_align = 1,
	}, {
		/* one partition pair, direct windows only (use_lut_mws=0) */
		.name = "switchtec",
		.two_port = true,
		.topo = { NTB_TOPO_SWITCH, NTB_TOPO_SWITCH },
		.spads = 128,
		.db_valid = GENMASK_ULL(27, 0),
		.mw_count = 2,
		.mw_size = SZ_2M,
		.addr_align = SZ_4K,
		.size_align = SZ_4K,
		.xlat_size_aligned = true,
	}, {
		/* 89HPES32NT8: up to 8 ports, messages, no scratchpads */
		.name = "idt",
		.ports = ivn_idt_ports,
		.msgs = 4,
		.db_valid = GENMASK_ULL(31, 0),
		.mw_count = 2,
		.mw_size = SZ_16M,
		.addr_align = 4,
		.size_align = 1,
	}, {
		/* pci-epf-ntb configured as in pci-ntb-howto.rst */
		.name = "epf",
		.two_port = true,
		.topo = { NTB_TOPO_NONE, NTB_TOPO_NONE },
		.spads = 128,
		.db_valid = GENMASK_ULL(2, 0),
		.mw_count = 2,
		.mw_size = SZ_1M,
		.addr_align = SZ_4K,
		.size_align = 1,
		.db_no_mask = true,
		.db_one_bit = true,
	},
};

/* The profile this module was loaded with; set by ivn_profile_select(). */
const struct ivn_profile *ivn_profile = &ivn_profiles[0];

/**
 * ivn_profile_select() - take the profile named by the module parameter
 *
 * Return: 0, or -EINVAL after one log line for an unknown name.
 */
int ivn_profile_select(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ivn_profiles); i++) {
		const struct ivn_profile *p = &ivn_profiles[i];

		/* the slot has room for this much (ivshmem_regs.h) */
		if (WARN_ON(p->spads > IVN_MAX_SPADS ||
			    p->msgs > IVN_MAX_MSG || p->mw_count > IVN_MAX_MW))
			return -EINVAL;
		if (sysfs_streq(ivn_profile_param, p->name)) {
			ivn_profile = p;
			return 0;
		}
	}
	pr_err("%s: refusing: profile=%s, must be default, intel, amd, switchtec, idt or epf\n",
	       KBUILD_MODNAME, ivn_profile_param);
	return -EINVAL;
}

/**
 * ivn_profile_default() - the default profile (today's generous device)
 *
 * Return: true if the mw_size and mw_count parameters decide the windows.
 */
bool ivn_profile_default(void)
{
	return !ivn_profile->mw_count;
}

/**
 * ivn_profile_topo() - the topology the NTB device reports
 * @prof: the profile
 * @node: the node's index in the cluster
 * @partner: 2-port profiles: the index of the node at the other end
 *
 * Return: for 2-port hardware, what its driver reports on that side; else
 * a switch.
 */
enum ntb_topo ivn_profile_topo(const struct ivn_profile *prof, int node,
			       int partner)
{
	if (!prof->two_port)
		return NTB_TOPO_SWITCH;
	return prof->topo[node > partner];
}

/**
 * ivn_profile_port() - NTB port number of a node under a profile
 * @prof: the profile
 * @node: the node's index in the cluster
 * @partner: 2-port profiles: the index of the node at the other end
 *
 * Return: the port number ntb_port_number() reports on that node: for
 * 2-port hardware the NTB core's default for its topology (0 on both
 * sides of a switch partition pair or an endpoint function), else the
 * profile's port of that node.
 */
int ivn_profile_port(const struct ivn_profile *prof, int node, int partner)
{
	if (!prof->two_port)
		return prof->ports ? prof->ports[node] : node;
	/* as ntb_default_port_number() in drivers/ntb/core.c */
	switch (ivn_profile_topo(prof, node, partner)) {
	case NTB_TOPO_PRI:
	case NTB_TOPO_B2B_USD:
		return NTB_PORT_PRI_USD;
	case NTB_TOPO_SEC:
	case NTB_TOPO_B2B_DSD:
		return NTB_PORT_SEC_DSD;
	default:
		return 0;
	}
}
