// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: the SCIF nodes of a run. Which node this is and which others
 * are up, and the barrier where the fuzzers of two nodes wait for each
 * other before the first call and after the last.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fuzz-run.h"

int fz_node_ids(uint16_t *nodes, int len, uint16_t *self)
{
	struct scifioctl_node_ids req;
	int fd = open("/dev/scif", O_RDWR), ret;

	if (fd < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.nodes = (uint64_t)(uintptr_t)nodes;
	req.self = (uint64_t)(uintptr_t)self;
	req.len = len;
	ret = ioctl(fd, SCIF_GET_NODEIDS, &req);
	close(fd);
	return ret ? -1 : req.len;
}

/* Meet the peer node once: the lower id listens, the higher connects. */
int fz_barrier(uint16_t self, int peer, int secs)
{
	struct scifioctl_connect c;
	struct scifioctl_accept a;
	struct scifioctl_msg m;
	__u64 port = FZ_BARRIER_PORT;
	long deadline = fz_now_ms() + secs * 1000L;
	char byte = 'b';
	int fd, lfd = -1, nfd;

	if (self < peer) {
		lfd = open("/dev/scif", O_RDWR);
		if (lfd < 0 || ioctl(lfd, SCIF_BIND, &port) ||
		    ioctl(lfd, SCIF_LISTEN, 1))
			return -1;
		memset(&a, 0, sizeof(a));
		a.flags = SCIF_ACCEPT_SYNC;
		alarm(secs);
		fd = ioctl(lfd, SCIF_ACCEPTREQ, &a);
		alarm(0);
		if (fd)
			goto fail;
		fd = open("/dev/scif", O_RDWR);
		if (fd < 0 || ioctl(fd, SCIF_ACCEPTREG, &a.endpt))
			goto fail;
	} else {
		for (;;) {
			fd = open("/dev/scif", O_RDWR);
			if (fd < 0)
				return -1;
			memset(&c, 0, sizeof(c));
			c.peer.node = (uint16_t)peer;
			c.peer.port = FZ_BARRIER_PORT;
			alarm(10);
			nfd = ioctl(fd, SCIF_CONNECT, &c);
			alarm(0);
			if (!nfd)
				break;
			close(fd);
			if (fz_now_ms() > deadline)
				return -1;
			usleep(200000);
		}
	}
	memset(&m, 0, sizeof(m));
	m.msg = (uint64_t)(uintptr_t)&byte;
	m.len = 1;
	m.flags = SCIF_SEND_BLOCK;
	alarm(secs);
	nfd = ioctl(fd, SCIF_SEND, &m);
	if (!nfd)
		nfd = ioctl(fd, SCIF_RECV, &m);
	alarm(0);
	close(fd);
	if (lfd >= 0)
		close(lfd);
	return nfd;
fail:
	close(lfd);
	return -1;
}
