/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF: the names of Intel's MPSS kernel API, for in-kernel clients written
 * against MPSS. Included by <linux/scif.h>; do not include it directly.
 *
 * Everything here names something <linux/scif.h> already has under its
 * upstream name: the port address (struct scif_portID is struct
 * scif_port_id), the node list (scif_get_nodeIDs() is scif_get_node_ids())
 * and MPSS's reserved ports. A client may mix both sets of names freely.
 *
 * The port numbers are plain decimal constants spelled as MPSS spelled
 * them, so that a client which defines one of them itself (as MPSS-era
 * drivers do with SCIF_COSM_LISTEN_PORT) redefines it identically, which C
 * allows without a diagnostic.
 */
#ifndef __SCIF_MPSS_H__
#define __SCIF_MPSS_H__

#include <linux/scif_ioctl.h>
#include <linux/types.h>

#ifndef __cplusplus
/*
 * In C a struct tag cannot be aliased by a typedef, and MPSS code writes
 * "struct scif_portID". The macro makes that spelling name the upstream
 * structure itself, so &portID passes to scif_connect() and scif_accept()
 * without a cast and both names are one type. C has no class scopes, so
 * the renamed tag always finds the structure of <linux/scif_ioctl.h>.
 */
#define scif_portID scif_port_id
#else
/*
 * In C++ the macro would be wrong: inside a class that declares a member
 * type of its own named scif_port_id, "struct scif_portID" would turn into
 * that member. MPSS's name is instead a structure of its own derived from
 * the upstream one: the same two members (node, port) at the same offsets,
 * and a pointer to it converts implicitly to struct scif_port_id *, which
 * is all scif_connect() and scif_accept() need. Being a class with a base,
 * it takes no designated initialisers; from C++17 on { node, port }
 * initialises it.
 */
struct scif_portID : ::scif_port_id {
};
#endif

/* MPSS's short name of the port address type. */
typedef
	struct scif_portID portID_t;

int scif_get_nodeIDs(u16 *nodes, int len, u16 *self);

/*
 * MPSS's reserved ports. All but the last two blocks lie below
 * SCIF_ADMIN_PORT_END and can only be bound with CAP_SYS_ADMIN; none is
 * ever picked when a caller binds port 0. SCIF itself listens on none of
 * them: they are names for clients to agree on.
 */
#define SCIF_COI_PORT_0		40	/* offload runtime (COI): 40..49 */
#define SCIF_COI_PORT_1		41
#define SCIF_COI_PORT_2		42
#define SCIF_COI_PORT_3		43
#define SCIF_COI_PORT_4		44
#define SCIF_COI_PORT_5		45
#define SCIF_COI_PORT_6		46
#define SCIF_COI_PORT_7		47
#define SCIF_COI_PORT_8		48
#define SCIF_COI_PORT_9		49
#define SCIF_OFED_PORT_0	60	/* OFED (RDMA verbs proxy): 60..69 */
#define SCIF_OFED_PORT_1	61
#define SCIF_OFED_PORT_2	62
#define SCIF_OFED_PORT_3	63
#define SCIF_OFED_PORT_4	64
#define SCIF_OFED_PORT_5	65
#define SCIF_OFED_PORT_6	66
#define SCIF_OFED_PORT_7	67
#define SCIF_OFED_PORT_8	68
#define SCIF_OFED_PORT_9	69
#define SCIF_NETDEV_PORT_0	80	/* virtual network device: 80..89 */
#define SCIF_NETDEV_PORT_1	81
#define SCIF_NETDEV_PORT_2	82
#define SCIF_NETDEV_PORT_3	83
#define SCIF_NETDEV_PORT_4	84
#define SCIF_NETDEV_PORT_5	85
#define SCIF_NETDEV_PORT_6	86
#define SCIF_NETDEV_PORT_7	87
#define SCIF_NETDEV_PORT_8	88
#define SCIF_NETDEV_PORT_9	89
#define SCIF_RAS_PORT_0		100	/* reliability and error reports: 100..109 */
#define SCIF_RAS_PORT_1		101
#define SCIF_RAS_PORT_2		102
#define SCIF_RAS_PORT_3		103
#define SCIF_RAS_PORT_4		104
#define SCIF_RAS_PORT_5		105
#define SCIF_RAS_PORT_6		106
#define SCIF_RAS_PORT_7		107
#define SCIF_RAS_PORT_8		108
#define SCIF_RAS_PORT_9		109
#define SCIF_PM_PORT_0		120	/* power management: 120..129 */
#define SCIF_PM_PORT_1		121
#define SCIF_PM_PORT_2		122
#define SCIF_PM_PORT_3		123
#define SCIF_PM_PORT_4		124
#define SCIF_PM_PORT_5		125
#define SCIF_PM_PORT_6		126
#define SCIF_PM_PORT_7		127
#define SCIF_PM_PORT_8		128
#define SCIF_PM_PORT_9		129
#define SCIF_BT_PORT_0		130	/* board tools: 130..139 */
#define SCIF_BT_PORT_1		131
#define SCIF_BT_PORT_2		132
#define SCIF_BT_PORT_3		133
#define SCIF_BT_PORT_4		134
#define SCIF_BT_PORT_5		135
#define SCIF_BT_PORT_6		136
#define SCIF_BT_PORT_7		137
#define SCIF_BT_PORT_8		138
#define SCIF_BT_PORT_9		139
/* The boot and configuration daemon (mpssd) and its helpers: 160..169. */
#define MPSSD_MONRECV		160
#define MIC_NOTIFY		161
#define MPSSD_CRED		162
#define MPSSD_MONSEND		163
#define MPSSD_MICCTRL		164
#define MPSSD_RESV5		165
#define MPSSD_RESV6		166
#define MPSSD_RESV7		167
#define MPSSD_RESV8		168
#define MPSSD_RESV9		169
/* Coprocessor state management (COSM): shutdown, heartbeat, time sync. */
#define SCIF_COSM_LISTEN_PORT	201
/* Above SCIF_ADMIN_PORT_END: any caller may bind these. */
#define SCIF_MYO_PORT_0		1025	/* shared virtual memory (MYO): 1025..1034 */
#define SCIF_MYO_PORT_1		1026
#define SCIF_MYO_PORT_2		1027
#define SCIF_MYO_PORT_3		1028
#define SCIF_MYO_PORT_4		1029
#define SCIF_MYO_PORT_5		1030
#define SCIF_MYO_PORT_6		1031
#define SCIF_MYO_PORT_7		1032
#define SCIF_MYO_PORT_8		1033
#define SCIF_MYO_PORT_9		1034
#define SCIF_ST_PORT_0		1044	/* software tools: 1044..1053 */
#define SCIF_ST_PORT_1		1045
#define SCIF_ST_PORT_2		1046
#define SCIF_ST_PORT_3		1047
#define SCIF_ST_PORT_4		1048
#define SCIF_ST_PORT_5		1049
#define SCIF_ST_PORT_6		1050
#define SCIF_ST_PORT_7		1051
#define SCIF_ST_PORT_8		1052
#define SCIF_ST_PORT_9		1053

#endif /* __SCIF_MPSS_H__ */
