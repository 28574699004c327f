// SPDX-License-Identifier: LGPL-2.1
/*
 * libscif: the user-mode SCIF API as thin wrappers around the /dev/scif
 * requests of <linux/scif_ioctl.h>. Each endpoint is one open file of the
 * device, so the descriptor doubles as the endpoint handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scif.h"
#include "stream_map.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define SCIF_DEVICE	"/dev/scif"

/*
 * Descriptors of the device are opened without O_CLOEXEC, like sockets, so
 * that endpoints survive fork() and exec() unless the caller says otherwise.
 *
 * A connected endpoint's stream is moved through memory mapped from the
 * driver where it allows (stream_map.c); the library remembers that per
 * descriptor, from the first scif_send() or scif_recv() to scif_close().
 * A descriptor number that comes back from open() may have been closed
 * with close(): what was remembered of it is dropped first.
 */

/* Pointers cross the ioctl boundary as __u64 on every ABI. */
static __u64 user_addr(const void *p)
{
	return (__u64)(uintptr_t)p;
}

scif_epd_t scif_open(void)
{
	int fd = open(SCIF_DEVICE, O_RDWR);

	if (fd < 0)
		return SCIF_OPEN_FAILED;
	libscif_stream_forget(fd);
	return fd;
}

int scif_close(scif_epd_t epd)
{
	libscif_stream_forget(epd);
	return close(epd);
}

int scif_bind(scif_epd_t epd, uint16_t pn)
{
	__u64 port = pn;

	if (ioctl(epd, SCIF_BIND, &port) < 0)
		return -1;
	return (int)port;
}

int scif_listen(scif_epd_t epd, int backlog)
{
	return ioctl(epd, SCIF_LISTEN, backlog) < 0 ? -1 : 0;
}

int scif_connect(scif_epd_t epd, struct scif_port_id *dst)
{
	struct scifioctl_connect req;

	if (!dst) {
		errno = EINVAL;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.peer = *dst;
	if (ioctl(epd, SCIF_CONNECT, &req) < 0)
		return -1;
	return req.self.port;
}

/*
 * The kernel parks the accepted endpoint and returns a handle to it; the
 * handle is claimed into a new file of the device, which then becomes the
 * new endpoint. If the claim fails the handle is simply abandoned: the
 * kernel tears down parked endpoints nobody claims.
 */
int scif_accept(scif_epd_t epd, struct scif_port_id *peer,
		scif_epd_t *newepd, int flags)
{
	struct scifioctl_accept req;
	int fd, saved;

	if (!peer || !newepd) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * The new endpoint's file comes first: a process out of descriptors
	 * or memory then leaves the request queued, as accept(2) does,
	 * instead of taking a connection it has no file to hold.
	 */
	fd = open(SCIF_DEVICE, O_RDWR);
	if (fd < 0)
		return -1;
	libscif_stream_forget(fd);
	memset(&req, 0, sizeof(req));
	req.flags = flags;
	if (ioctl(epd, SCIF_ACCEPTREQ, &req) < 0 ||
	    ioctl(fd, SCIF_ACCEPTREG, &req.endpt) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	*peer = req.peer;
	*newepd = fd;
	return 0;
}

int libscif_msg(int epd, unsigned long request, void *msg, int len, int flags)
{
	struct scifioctl_msg req;

	memset(&req, 0, sizeof(req));
	req.msg = user_addr(msg);
	req.len = len;
	req.flags = flags;
	if (ioctl(epd, request, &req) < 0)
		return -1;
	return req.out_len;
}

/*
 * Through the mapping when there is one and the call is well formed; the
 * driver reports every error (a bad length, flags or NULL buffer) itself.
 */
static int scif_msg(scif_epd_t epd, bool send, void *msg, int len, int flags)
{
	struct scif_stream *s = NULL;

	/* SCIF_SEND_BLOCK and SCIF_RECV_BLOCK are the same bit. */
	if (len > 0 && msg && !(flags & ~SCIF_SEND_BLOCK))
		s = libscif_stream_get(epd);
	if (s && send)
		return libscif_stream_send(s, epd, msg, len, flags);
	if (s)
		return libscif_stream_recv(s, epd, msg, len, flags);
	return libscif_msg(epd, send ? SCIF_SEND : SCIF_RECV, msg, len, flags);
}

int scif_send(scif_epd_t epd, void *msg, int len, int flags)
{
	return scif_msg(epd, true, msg, len, flags);
}

int scif_recv(scif_epd_t epd, void *msg, int len, int flags)
{
	return scif_msg(epd, false, msg, len, flags);
}

int scif_poll(struct scif_pollepd *epds, unsigned int nepds, long timeout)
{
	struct pollfd stack[16], *fds = stack;
	unsigned int i;
	int ret, saved;

	if (nepds && !epds) {
		errno = EFAULT;
		return -1;
	}
	if (nepds > ARRAY_SIZE(stack)) {
		fds = calloc(nepds, sizeof(*fds));
		if (!fds) {
			errno = ENOMEM;
			return -1;
		}
	}
	for (i = 0; i < nepds; i++) {
		fds[i].fd = epds[i].epd;
		fds[i].events = epds[i].events;
		fds[i].revents = 0;
	}
	if (timeout > INT_MAX)
		timeout = INT_MAX;
	else if (timeout < 0)
		timeout = -1;
	ret = poll(fds, nepds, (int)timeout);
	saved = errno;
	if (ret >= 0) {
		for (i = 0; i < nepds; i++)
			epds[i].revents = fds[i].revents;
	}
	if (fds != stack)
		free(fds);
	errno = saved;
	return ret;
}

int scif_get_node_ids(uint16_t *nodes, int len, uint16_t *self)
{
	struct scifioctl_node_ids req;
	int fd, ret, saved;

	/* The request needs some endpoint; a short-lived one will do. */
	fd = open(SCIF_DEVICE, O_RDWR);
	if (fd < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.nodes = user_addr(nodes);
	req.self = user_addr(self);
	req.len = len;
	ret = ioctl(fd, SCIF_GET_NODEIDS, &req);
	saved = errno;
	close(fd);
	errno = saved;
	return ret < 0 ? -1 : req.len;
}

int scif_get_nodeIDs(uint16_t *nodes, int len, uint16_t *self)
{
	return scif_get_node_ids(nodes, len, self);
}

int scif_get_fd(scif_epd_t epd)
{
	return epd;
}

off_t scif_register(scif_epd_t epd, void *addr, size_t len, off_t offset,
		    int prot_flags, int map_flags)
{
	struct scifioctl_reg req;

	memset(&req, 0, sizeof(req));
	req.addr = user_addr(addr);
	req.len = len;
	req.offset = offset;
	req.prot = prot_flags;
	req.flags = map_flags;
	if (ioctl(epd, SCIF_REG, &req) < 0)
		return SCIF_REGISTER_FAILED;
	return (off_t)req.out_offset;
}

int scif_unregister(scif_epd_t epd, off_t offset, size_t len)
{
	struct scifioctl_unreg req;

	memset(&req, 0, sizeof(req));
	req.offset = offset;
	req.len = len;
	return ioctl(epd, SCIF_UNREG, &req) < 0 ? -1 : 0;
}

static int scif_copy(scif_epd_t epd, unsigned long request, off_t loffset,
		     void *addr, size_t len, off_t roffset, int rma_flags)
{
	struct scifioctl_copy req;

	memset(&req, 0, sizeof(req));
	req.loffset = loffset;
	req.len = len;
	req.roffset = roffset;
	req.addr = user_addr(addr);
	req.flags = rma_flags;
	return ioctl(epd, request, &req) < 0 ? -1 : 0;
}

int scif_readfrom(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		  int rma_flags)
{
	return scif_copy(epd, SCIF_READFROM, loffset, NULL, len, roffset,
			 rma_flags);
}

int scif_writeto(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		 int rma_flags)
{
	return scif_copy(epd, SCIF_WRITETO, loffset, NULL, len, roffset,
			 rma_flags);
}

int scif_vreadfrom(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		   int rma_flags)
{
	return scif_copy(epd, SCIF_VREADFROM, 0, addr, len, roffset,
			 rma_flags);
}

int scif_vwriteto(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		  int rma_flags)
{
	return scif_copy(epd, SCIF_VWRITETO, 0, addr, len, roffset,
			 rma_flags);
}

int scif_fence_mark(scif_epd_t epd, int flags, int *mark)
{
	struct scifioctl_fence_mark req;

	memset(&req, 0, sizeof(req));
	req.flags = flags;
	req.mark = user_addr(mark);
	return ioctl(epd, SCIF_FENCE_MARK, &req) < 0 ? -1 : 0;
}

int scif_fence_wait(scif_epd_t epd, int mark)
{
	/* The mark travels by value. */
	return ioctl(epd, SCIF_FENCE_WAIT, mark) < 0 ? -1 : 0;
}

int scif_fence_signal(scif_epd_t epd, off_t loff, uint64_t lval, off_t roff,
		      uint64_t rval, int flags)
{
	struct scifioctl_fence_signal req;

	memset(&req, 0, sizeof(req));
	req.loff = loff;
	req.lval = lval;
	req.roff = roff;
	req.rval = rval;
	req.flags = flags;
	return ioctl(epd, SCIF_FENCE_SIGNAL, &req) < 0 ? -1 : 0;
}

void *scif_mmap(void *addr, size_t len, int prot_flags, int map_flags,
		scif_epd_t epd, off_t offset)
{
	long page = sysconf(_SC_PAGESIZE);
	int prot = 0, flags = MAP_SHARED;
	void *p;

	if (!len || offset < 0 || offset % page ||
	    prot_flags & ~(SCIF_PROT_READ | SCIF_PROT_WRITE) ||
	    map_flags & ~SCIF_MAP_FIXED ||
	    (map_flags & SCIF_MAP_FIXED && (uintptr_t)addr % page)) {
		errno = EINVAL;
		return SCIF_MMAP_FAILED;
	}
	if (prot_flags & SCIF_PROT_READ)
		prot |= PROT_READ;
	if (prot_flags & SCIF_PROT_WRITE)
		prot |= PROT_WRITE;
	if (map_flags & SCIF_MAP_FIXED)
		flags |= MAP_FIXED;
	p = mmap(addr, len, prot, flags, epd, offset);
	return p == MAP_FAILED ? SCIF_MMAP_FAILED : p;
}

int scif_munmap(void *addr, size_t len)
{
	return munmap(addr, len);
}
