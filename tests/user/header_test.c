// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time checks of <scif.h>, built both as C and as C++ (the same
 * file): the MPSS names are the same types and values as the upstream ones,
 * the structures have the layout of <linux/scif_ioctl.h>, and the header is
 * usable from C++ (extern "C" linkage, no C-only constructs). Linking the
 * program against libscif proves the MPSS symbol exists. Run, it only
 * prints what it checked: everything it tests is decided by the compiler.
 */
#include <scif.h>

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
#define CHECK(cond, what) static_assert(cond, what)
#else
#define CHECK(cond, what) _Static_assert(cond, what)
#endif

/* Layout: two uint16_t, node then port, under every name. */
CHECK(sizeof(struct scif_portID) == 4, "scif_portID is 4 bytes");
CHECK(sizeof(portID_t) == sizeof(struct scif_port_id), "portID_t size");
CHECK(offsetof(struct scif_portID, node) == 0, "node first");
CHECK(offsetof(struct scif_portID, port) == 2, "port second");
CHECK(sizeof(struct portID) == 4, "deprecated struct portID");

/* scif_pollepd: MPSS's layout, short events and revents. */
CHECK(sizeof(((struct scif_pollepd *)0)->events) == sizeof(short), "events is a short");
CHECK(sizeof(((struct scif_pollepd *)0)->revents) == sizeof(short), "revents is a short");
CHECK(offsetof(struct scif_pollepd, events) == sizeof(scif_epd_t), "events follows epd");
CHECK(sizeof(struct scif_pollepd) == 8, "scif_pollepd is 8 bytes");

/* Flag values of the specification and of MPSS. */
CHECK(SCIF_ACCEPT_SYNC == 1 && SCIF_SEND_BLOCK == 1 && SCIF_RECV_BLOCK == 1, "blocking flags");
CHECK(ACCEPT_SYNC == SCIF_ACCEPT_SYNC, "deprecated ACCEPT_SYNC");
CHECK(SEND_BLOCK == SCIF_SEND_BLOCK, "deprecated SEND_BLOCK");
CHECK(RECV_BLOCK == SCIF_RECV_BLOCK, "deprecated RECV_BLOCK");
CHECK(SCIF_PROT_READ == 1 && SCIF_PROT_WRITE == 2, "prot flags");
CHECK(SCIF_MAP_FIXED == 0x10 && SCIF_MAP_KERNEL == 0x20, "map flags");
CHECK(SCIF_FENCE_INIT_SELF == 1 && SCIF_FENCE_INIT_PEER == 2, "fence init flags");
CHECK(SCIF_FENCE_RAS_SELF == 4 && SCIF_FENCE_RAS_PEER == 8, "fence RAS flags");
CHECK(SCIF_SIGNAL_LOCAL == 0x10 && SCIF_SIGNAL_REMOTE == 0x20, "signal flags");
CHECK(SCIF_RMA_USECPU == 1 && SCIF_RMA_USECACHE == 2, "RMA flags, CPU and cache");
CHECK(SCIF_RMA_SYNC == 4 && SCIF_RMA_ORDERED == 8, "RMA flags, sync and ordered");
CHECK(SCIF_POLLIN == POLLIN && SCIF_POLLOUT == POLLOUT, "poll in and out");
CHECK(SCIF_POLLERR == POLLERR && SCIF_POLLHUP == POLLHUP, "poll error and hang-up");
CHECK(SCIF_POLLNVAL == POLLNVAL, "poll invalid");

/* Reserved ports: first and last of every block. */
CHECK(SCIF_COI_PORT_0 == 40 && SCIF_COI_PORT_9 == 49, "COI ports");
CHECK(SCIF_OFED_PORT_0 == 60 && SCIF_OFED_PORT_9 == 69, "OFED ports");
CHECK(SCIF_NETDEV_PORT_0 == 80 && SCIF_NETDEV_PORT_9 == 89, "netdev ports");
CHECK(SCIF_RAS_PORT_0 == 100 && SCIF_RAS_PORT_9 == 109, "RAS ports");
CHECK(SCIF_PM_PORT_0 == 120 && SCIF_PM_PORT_9 == 129, "PM ports");
CHECK(SCIF_BT_PORT_0 == 130 && SCIF_BT_PORT_9 == 139, "BT ports");
CHECK(MPSSD_MONRECV == 160 && MIC_NOTIFY == 161 && MPSSD_CRED == 162, "mpssd ports");
CHECK(MPSSD_MONSEND == 163 && MPSSD_MICCTRL == 164, "mpssd ports, 163 and 164");
CHECK(MPSSD_RESV5 == 165 && MPSSD_RESV9 == 169, "mpssd reserved ports");
CHECK(SCIF_ADMIN_PORT_END == 1024 && SCIF_PORT_RSVD == 1088, "port ranges");
CHECK(SCIF_MYO_PORT_0 == 1025 && SCIF_MYO_PORT_9 == 1034, "MYO ports");
CHECK(SCIF_ST_PORT_0 == 1044 && SCIF_ST_PORT_9 == 1053, "ST ports");

/*
 * The calls take either name: assigning the functions to pointers of the
 * MPSS prototypes fails to compile (an error in C++, and with -Werror in C)
 * if a type differs.
 */
int (*connect_fn)(scif_epd_t, struct scif_portID *) =
	scif_connect;
int (*accept_fn)(scif_epd_t, struct scif_portID *, scif_epd_t *, int) =
	scif_accept;
int (*nodeids_fn)(uint16_t *, int, uint16_t *) =
	scif_get_nodeIDs;
int (*upstream_nodeids_fn)(uint16_t *, int, uint16_t *) =
	scif_get_node_ids;

int main(void)
{
	portID_t a;
	struct scif_port_id *b = &a;

	a.node = 1;
	a.port = SCIF_PORT_RSVD;
	/*
	 * The pointers are visible outside this file, so the references stay
	 * and the linker must find every symbol.
	 */
	if (!connect_fn || !accept_fn || !nodeids_fn || !upstream_nodeids_fn ||
	    b->port != SCIF_PORT_RSVD)
		return 1;
#ifdef __cplusplus
	printf("ok 1 - scif.h as C++: MPSS names, values and layouts\n");
#else
	printf("ok 1 - scif.h as C: MPSS names, values and layouts\n");
#endif
	return 0;
}
