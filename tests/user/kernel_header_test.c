// SPDX-License-Identifier: GPL-2.0
/*
 * Compile test of the kernel API header <linux/scif.h>, as C and as C++
 * (this one file), on the host with the few kernel definitions it needs
 * from tests/user/kstub/. Nothing is linked or run: the compiler decides
 * everything, with every warning an error.
 *
 * It checks that code written for Intel's MPSS (struct scif_portID,
 * portID_t, scif_get_nodeIDs(), the reserved ports, a port number and a
 * prototype the client repeats itself) and code written for the upstream
 * names both build against the header, that the two port address types
 * share their layout and pass to the same calls without a cast, and, in
 * C++, that a class with a member type of its own called scif_port_id
 * still gets MPSS's structure when it says "struct scif_portID".
 */
#include <linux/scif.h>

#ifdef __cplusplus
#define CHECK(cond, what) static_assert(cond, what)
#else
#define CHECK(cond, what) _Static_assert(cond, what)
#endif

/* What an MPSS-era client repeats from MPSS's headers. */
#define SCIF_COSM_LISTEN_PORT  201
#define SCIF_ADMIN_PORT_END	1024
#define SCIF_PORT_RSVD		1088
/* Its own prototype of the node call: uint16_t, not u16. */
int (*const mpss_get_nodeIDs)(uint16_t *nodes, int len, uint16_t *self) =
	scif_get_nodeIDs;

/* One layout under every name: two u16, node then port. */
CHECK(sizeof(struct scif_portID) == sizeof(struct scif_port_id), "size");
CHECK(sizeof(portID_t) == 4, "portID_t size");
CHECK(offsetof(struct scif_portID, node) == 0, "node first");
CHECK(offsetof(struct scif_portID, port) == 2, "port second");

/* MPSS's ports: first and last of every block, and where they lie. */
CHECK(SCIF_COI_PORT_0 == 40 && SCIF_COI_PORT_9 == 49, "COI ports");
CHECK(SCIF_OFED_PORT_0 == 60 && SCIF_OFED_PORT_9 == 69, "OFED ports");
CHECK(SCIF_NETDEV_PORT_0 == 80 && SCIF_NETDEV_PORT_9 == 89, "netdev ports");
CHECK(SCIF_RAS_PORT_0 == 100 && SCIF_RAS_PORT_9 == 109, "RAS ports");
CHECK(SCIF_PM_PORT_0 == 120 && SCIF_PM_PORT_9 == 129, "PM ports");
CHECK(SCIF_BT_PORT_0 == 130 && SCIF_BT_PORT_9 == 139, "BT ports");
CHECK(MPSSD_MONRECV == 160 && MIC_NOTIFY == 161, "mpssd ports");
CHECK(MPSSD_MONSEND == 163 && MPSSD_RESV9 == 169, "more mpssd ports");
CHECK(SCIF_COSM_LISTEN_PORT < SCIF_ADMIN_PORT_END, "COSM port is privileged");
CHECK(SCIF_MYO_PORT_0 == 1025 && SCIF_MYO_PORT_9 == 1034, "MYO ports");
CHECK(SCIF_ST_PORT_0 == 1044 && SCIF_ST_PORT_9 == 1053, "ST ports");
CHECK(SCIF_ST_PORT_9 < SCIF_PORT_RSVD, "no reserved port is picked for 0");

/* A client written for MPSS. */
int mpss_client(scif_epd_t epd)
{
	struct scif_portID portID;
	struct scif_portID peer;
	portID_t *alias = &peer;
	scif_epd_t newepd;
	u16 nodes[8], self;
	int ret;

	portID.node = 0;
	portID.port = SCIF_COSM_LISTEN_PORT;
	ret = scif_connect(epd, &portID);
	if (ret < 0)
		return ret;
	ret = scif_accept(epd, alias, &newepd, SCIF_ACCEPT_SYNC);
	if (ret < 0)
		return ret;
	return mpss_get_nodeIDs(nodes, 8, &self) + peer.port;
}

/* A client written for the upstream names, unchanged. */
int upstream_client(scif_epd_t epd)
{
	struct scif_port_id dst = { 0, SCIF_PORT_RSVD };
	struct scif_port_id peer;
	scif_epd_t newepd;
	u16 nodes[8], self;
	int ret;

	ret = scif_connect(epd, &dst);
	if (ret < 0)
		return ret;
	ret = scif_accept(epd, &peer, &newepd, 0);
	if (ret < 0)
		return ret;
	return scif_get_node_ids(nodes, 8, &self) + peer.node;
}

#ifndef __cplusplus
/* MPSS C code initialises the structure by member name. */
int mpss_designated(scif_epd_t epd)
{
	struct scif_portID dst = { .node = 1, .port = SCIF_COSM_LISTEN_PORT };

	return scif_connect(epd, &dst);
}
#elif __cplusplus >= 201703L
/* C++17 code by position. */
int cxx_positional(scif_epd_t epd)
{
	struct scif_portID dst = { 1, SCIF_COSM_LISTEN_PORT };

	return scif_connect(epd, &dst);
}
#endif

#ifdef __cplusplus
/*
 * A class declaring a type of its own named scif_port_id: a macro that
 * renamed scif_portID would make remote below that type, which has no
 * node or port and no conversion to ::scif_port_id *.
 */
struct cosm_link {
	struct scif_port_id {
		int unrelated;
	};
	scif_port_id local;
	struct scif_portID remote;
};

int cxx_client(scif_epd_t epd)
{
	cosm_link l;

	l.local.unrelated = 0;
	l.remote.node = 1;
	l.remote.port = SCIF_COSM_LISTEN_PORT;
	return scif_connect(epd, &l.remote) + l.local.unrelated;
}
#endif
