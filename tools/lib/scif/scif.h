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
 */
#ifndef LIBSCIF_SCIF_H
#define LIBSCIF_SCIF_H

#include <stdint.h>
#include <sys/types.h>
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

/* Ports below this need privilege (CAP_NET_BIND_SERVICE) to bind. */
#define SCIF_ADMIN_PORT_END	1024
/* scif_bind() to port 0 picks a free port at or above this one. */
#define SCIF_PORT_RSVD		1088

/* Rights of a registered window (scif_register()). */
#define SCIF_PROT_READ		0x1
#define SCIF_PROT_WRITE		0x2
/* scif_register(): place the window exactly at the offset given. */
#define SCIF_MAP_FIXED		0x10

/* Flags of scif_fence_mark() and scif_fence_signal(). */
#define SCIF_FENCE_INIT_SELF	0x1
#define SCIF_FENCE_INIT_PEER	0x2
#define SCIF_SIGNAL_LOCAL	0x10
#define SCIF_SIGNAL_REMOTE	0x20

/* Flags of the RMA calls (scif_readfrom() and friends). */
#define SCIF_RMA_USECPU		0x1
#define SCIF_RMA_USECACHE	0x2
#define SCIF_RMA_SYNC		0x4
#define SCIF_RMA_ORDERED	0x8

/* An endpoint descriptor: a file descriptor of /dev/scif. */
typedef int32_t scif_epd_t;

#define SCIF_OPEN_FAILED	((scif_epd_t)-1)
#define SCIF_REGISTER_FAILED	((off_t)-1)

/**
 * struct scif_pollepd - one endpoint watched by scif_poll()
 * @epd: the endpoint
 * @events: POLLIN and/or POLLOUT, the conditions of interest
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
