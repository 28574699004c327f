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
#include <linux/scif_ioctl.h>

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

/* An endpoint descriptor: a file descriptor of /dev/scif. */
typedef int32_t scif_epd_t;

#define SCIF_OPEN_FAILED	((scif_epd_t)-1)

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

#ifdef __cplusplus
}
#endif

#endif /* LIBSCIF_SCIF_H */
