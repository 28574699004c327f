/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libscif: the user-mode SCIF endpoint API.
 *
 * An endpoint is an open file of /dev/scif; its descriptor is an ordinary
 * file descriptor, so it can be handed to poll(), select(), epoll, fcntl()
 * and close(). Every call returns -1 and sets errno on failure, except
 * scif_open(), which returns SCIF_OPEN_FAILED.
 *
 * Link with -lscif (pkg-config --cflags --libs scif).
 *
 * Two sets of names are offered for the same things: the upstream kernel's
 * (struct scif_port_id, scif_get_node_ids) and, for programs written
 * against Intel's MPSS user library, that library's (struct scif_portID,
 * portID_t, scif_get_nodeIDs, SCIF_POLL*, the reserved ports). Both refer
 * to the same types and values, so either style builds unchanged. Define
 * SCIF_NO_DEPRECATED before including this header to leave out MPSS's
 * deprecated short names (ACCEPT_SYNC, SEND_BLOCK, RECV_BLOCK, portID).
 */
#ifndef LIBSCIF_SCIF_H
#define LIBSCIF_SCIF_H

#include <stdint.h>
#include <sys/types.h>
/*
 * MPSS's header pulled these in; programs written for it may use errno,
 * close(), select() or POLLIN without including them themselves.
 */
#include <errno.h>
#include <poll.h>
#include <sys/select.h>
#include <unistd.h>
#include <linux/scif_ioctl.h>

/* Failure value of scif_mmap(). */
#ifndef SCIF_MMAP_FAILED
#define SCIF_MMAP_FAILED	((void *)-1)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of scif_accept(), scif_send() and scif_recv(): wait, do not fail. */
#define SCIF_ACCEPT_SYNC	1
#define SCIF_SEND_BLOCK		1
#define SCIF_RECV_BLOCK		1

#ifndef SCIF_NO_DEPRECATED
/* MPSS's older spellings of the three flags above. */
#define ACCEPT_SYNC		SCIF_ACCEPT_SYNC
#define SEND_BLOCK		SCIF_SEND_BLOCK
#define RECV_BLOCK		SCIF_RECV_BLOCK
#endif

/* Ports below this need privilege (CAP_SYS_ADMIN) to bind. */
#define SCIF_ADMIN_PORT_END	1024
/* scif_bind() to port 0 picks a free port at or above this one. */
#define SCIF_PORT_RSVD		1088

/*
 * Well-known ports, with the numbers MPSS gave them, ten per service. Those
 * below SCIF_ADMIN_PORT_END can only be bound with privilege. Nothing in
 * this project listens on them; they are here so that programs naming them
 * build and agree with each other on the port.
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
/* Above SCIF_ADMIN_PORT_END: any user may bind these. */
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

/* Rights of a registered window (scif_register()). */
#define SCIF_PROT_READ		0x1
#define SCIF_PROT_WRITE		0x2
/* scif_register(): place the window exactly at the offset given. */
#define SCIF_MAP_FIXED		0x10
/*
 * Kernel callers only (the address is a kernel address). Defined so that
 * code naming it builds; the driver refuses it from user space (EINVAL).
 */
#define SCIF_MAP_KERNEL		0x20

/* Flags of scif_fence_mark() and scif_fence_signal(). */
#define SCIF_FENCE_INIT_SELF	0x1
#define SCIF_FENCE_INIT_PEER	0x2
/*
 * MPSS defined these for its error-recovery (RAS) service and never
 * documented them for applications. They are not implemented: a fence call
 * given either fails with EINVAL.
 */
#define SCIF_FENCE_RAS_SELF	0x4
#define SCIF_FENCE_RAS_PEER	0x8
#define SCIF_SIGNAL_LOCAL	0x10
#define SCIF_SIGNAL_REMOTE	0x20

/* Flags of the RMA calls (scif_readfrom() and friends). */
#define SCIF_RMA_USECPU		0x1
#define SCIF_RMA_USECACHE	0x2
#define SCIF_RMA_SYNC		0x4
#define SCIF_RMA_ORDERED	0x8

/* An endpoint descriptor: a file descriptor of /dev/scif. */
typedef int32_t scif_epd_t;

/*
 * MPSS's name of a port address. It is not a look-alike but the very same
 * type as struct scif_port_id of <linux/scif_ioctl.h> (two uint16_t: node,
 * then port), so pointers to either pass to scif_connect() and
 * scif_accept() without a cast, in C and in C++.
 */
#define scif_portID		scif_port_id
typedef struct scif_port_id portID_t;
#ifndef SCIF_NO_DEPRECATED
#define portID			scif_port_id
#endif

/* The scif_poll() events, MPSS's names: the values of <poll.h>. */
#define SCIF_POLLIN		POLLIN
#define SCIF_POLLOUT		POLLOUT
#define SCIF_POLLERR		POLLERR
#define SCIF_POLLHUP		POLLHUP
#define SCIF_POLLNVAL		POLLNVAL

#define SCIF_OPEN_FAILED	((scif_epd_t)-1)
#define SCIF_REGISTER_FAILED	((off_t)-1)

/**
 * struct scif_pollepd - one endpoint watched by scif_poll()
 * @epd: the endpoint
 * @events: POLLIN and/or POLLOUT (SCIF_POLLIN, SCIF_POLLOUT), the
 *	    conditions of interest
 * @revents: set by scif_poll(): the conditions found, which may include
 *	     POLLERR, POLLHUP and POLLNVAL even if not asked for
 */
struct scif_pollepd {
	scif_epd_t epd;
	short events;
	short revents;
};

/* Create an unbound endpoint. */
scif_epd_t scif_open(void);
/* Tear an endpoint down; a connected peer sees ECONNRESET after its data. */
int scif_close(scif_epd_t epd);
/* Bind to port @pn, or to a free port when @pn is 0; returns the port. */
int scif_bind(scif_epd_t epd, uint16_t pn);
/* Accept connection requests, at most @backlog of them pending. */
int scif_listen(scif_epd_t epd, int backlog);
/*
 * Connect to @dst; returns the local port. With O_NONBLOCK set on the
 * descriptor it fails with EINPROGRESS at once; POLLOUT reports completion
 * and a second scif_connect() returns the outcome.
 */
int scif_connect(scif_epd_t epd, struct scif_port_id *dst);
/*
 * Take the next connection request of listening endpoint @epd. The new
 * endpoint is returned in @newepd and the requester's address in @peer.
 * Without SCIF_ACCEPT_SYNC in @flags, fails with EAGAIN if none is pending.
 */
int scif_accept(scif_epd_t epd, struct scif_port_id *peer,
		scif_epd_t *newepd, int flags);
/*
 * Send or receive up to @len bytes of the byte stream; returns the count.
 * With SCIF_SEND_BLOCK / SCIF_RECV_BLOCK the call waits for all @len bytes,
 * otherwise it moves what it can without waiting (possibly nothing).
 */
int scif_send(scif_epd_t epd, void *msg, int len, int flags);
int scif_recv(scif_epd_t epd, void *msg, int len, int flags);
/*
 * Wait up to @timeout milliseconds (forever if negative) for an event on
 * any of @nepds endpoints; returns how many have a non-zero revents.
 */
int scif_poll(struct scif_pollepd *epds, unsigned int nepds, long timeout);
/*
 * Store up to @len online node ids in @nodes and the local node id in
 * @self; returns the number of nodes online, which may exceed @len.
 */
int scif_get_node_ids(uint16_t *nodes, int len, uint16_t *self);
/* The same call under MPSS's name (a real symbol, for dlsym() users too). */
int scif_get_nodeIDs(uint16_t *nodes, int len, uint16_t *self);
/* The file descriptor behind @epd, for poll(), select() and epoll. */
int scif_get_fd(scif_epd_t epd);

/*
 * Remote memory access. See Documentation/libscif.rst for the details.
 *
 * Open a window of @len bytes (page multiples) of memory at @addr in the
 * registered address space of @epd, at @offset exactly with SCIF_MAP_FIXED,
 * else where the kernel chooses. Returns the window's offset, or
 * SCIF_REGISTER_FAILED with errno set.
 */
off_t scif_register(scif_epd_t epd, void *addr, size_t len, off_t offset,
		    int prot_flags, int map_flags);
/* Close the windows lying wholly inside [@offset, @offset + @len). */
int scif_unregister(scif_epd_t epd, off_t offset, size_t len);
/* Copy @len bytes between our registered space and the peer's. */
int scif_readfrom(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		  int rma_flags);
int scif_writeto(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		 int rma_flags);
/* Copy @len bytes between memory at @addr and the peer's registered space. */
int scif_vreadfrom(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		   int rma_flags);
int scif_vwriteto(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		  int rma_flags);
/* Mark the RMAs in flight of one side; wait for a mark. */
int scif_fence_mark(scif_epd_t epd, int flags, int *mark);
int scif_fence_wait(scif_epd_t epd, int mark);
/* Write @lval / @rval at registered offsets once the marked RMAs are done. */
int scif_fence_signal(scif_epd_t epd, off_t loff, uint64_t lval, off_t roff,
		      uint64_t rval, int flags);
/*
 * Map @len bytes of the peer's registered address space, from @offset (page
 * aligned), into ours: at @addr exactly with SCIF_MAP_FIXED (page aligned),
 * else near the hint @addr. @prot_flags: SCIF_PROT_READ / SCIF_PROT_WRITE,
 * each allowed by every window in the range. Returns the address, or
 * SCIF_MMAP_FAILED with errno set. Accesses after the connection is reset,
 * the peer closes or its node is lost raise SIGBUS.
 */
void *scif_mmap(void *addr, size_t len, int prot_flags, int map_flags,
		scif_epd_t epd, off_t offset);
/* Unmap what scif_mmap() mapped; the peer's windows are released. */
int scif_munmap(void *addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LIBSCIF_SCIF_H */
