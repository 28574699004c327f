// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: the operations on endpoints. Opening, closing and duplicating
 * /dev/scif files, SCIF_BIND, SCIF_LISTEN, SCIF_CONNECT, SCIF_ACCEPTREQ and
 * SCIF_ACCEPTREG, messages (SCIF_SEND, SCIF_RECV), SCIF_GET_NODEIDS and
 * poll(). Each one draws its arguments, makes one counted call and keeps
 * the pool of endpoints up to date.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-ops.h"

void fz_op_open(struct fz_thread *t)
{
	int flags = O_RDWR | (fz_chance(t, 1, 8) ? O_NONBLOCK : 0);
	int fd;

	if (fz_chance(t, 1, 20))
		flags = fz_chance(t, 1, 2) ? O_RDONLY : O_WRONLY;
	fd = open("/dev/scif", flags | (fz_chance(t, 1, 4) ? O_CLOEXEC : 0));
	fz_record_ret(t, fd < 0 ? -1 : 0);
	if (fd >= 0)
		fz_add_slot(t, fd, FZ_OPEN, -1);
}

void fz_op_close(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int s, fd = -1;

	fz_lock(t);
	s = (int)fz_below(t, FZ_SLOTS);
	if (p->slots[s].kind != FZ_FREE) {
		fd = p->slots[s].fd;
		p->slots[s].kind = FZ_FREE;
		p->slots[s].fd = -1;
	}
	fz_unlock(t);
	if (fd < 0)
		fd = 1000;	/* EBADF */
	fz_record_ret(t, close(fd));
}

void fz_op_dup(struct fz_thread *t)
{
	int fd = fz_pick_fd(t, false);
	int nfd = dup(fd);

	fz_record_ret(t, nfd < 0 ? -1 : 0);
	if (nfd >= 0)
		fz_add_slot(t, nfd, FZ_DUP, -1);
}

void fz_op_nonblock(struct fz_thread *t)
{
	int fd = fz_pick_fd(t, false);
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0) {
		fz_record_ret(t, fl);
		return;
	}
	fz_record_ret(t, fcntl(fd, F_SETFL, fl ^ O_NONBLOCK));
}

void fz_op_bind(struct fz_thread *t)
{
	int fd = fz_pick_fd(t, false);
	__u64 port;
	long ret;

	switch (fz_below(t, 10)) {
	case 0:
		port = 1 + fz_below(t, 1100);	/* reserved ones */
		break;
	case 1:
		port = 65536 + fz_below(t, 10);
		break;
	case 2:
		port = fz_rand(t);
		break;
	case 3: case 4:
		port = (__u64)t->p->o->port_base + t->p->idx * FZ_PORT_STRIDE + 1 +
		       fz_below(t, FZ_PORT_STRIDE - 1);
		break;
	default:
		port = 0;
		break;
	}
	ret = fz_sys_ioctl(t, fd, SCIF_BIND,
			   (unsigned long)fz_arg_ptr(t, &port, sizeof(port)));
	fz_record_ret(t, ret);
	if (!ret)
		fz_set_kind(t, fd, FZ_BOUND, (int)port);
}

void fz_op_listen(struct fz_thread *t)
{
	int fd = fz_pick_fd(t, false);
	long backlog;
	long ret;

	switch (fz_below(t, 8)) {
	case 0:
		backlog = 0;
		break;
	case 1:
		backlog = -1;
		break;
	case 2:
		backlog = 0x7fffffff;
		break;
	case 3:
		backlog = (long)fz_rand(t);
		break;
	default:
		backlog = 1 + (long)fz_below(t, 16);
		break;
	}
	ret = fz_sys_ioctl(t, fd, SCIF_LISTEN, (unsigned long)backlog);
	fz_record_ret(t, ret);
	if (!ret)
		fz_set_kind(t, fd, FZ_LISTENING, -1);
}

/*
 * A connect to a worker's well-known port is accepted at once by its
 * acceptor thread: give it time to complete, mostly. Any other listener
 * accepts only when a fuzzing thread happens to: interrupt it soon.
 */
static long connect_patience(struct fz_thread *t, const struct scif_port_id *dst)
{
	const struct fz_opts *o = t->p->o;
	int rel = dst->port - o->port_base;

	if (rel < 0 || rel % FZ_PORT_STRIDE ||
	    rel / FZ_PORT_STRIDE >= o->procs || fz_chance(t, 1, 4))
		return 1 + (long)fz_below(t, FZ_PATIENCE_MS);
	return FZ_CONNECT_PATIENCE_MS;
}

void fz_op_connect(struct fz_thread *t)
{
	struct scifioctl_connect req;
	int fd;
	long ret;

	memset(&req, 0, sizeof(req));
	fz_pick_target(t, &req.peer);
	fd = fz_pick_slot(t, fz_chance(t, 1, 2) ? FZ_OPEN : FZ_BOUND);
	if (fd < 0 || fz_chance(t, 1, 3)) {
		fd = open("/dev/scif", O_RDWR);
		if (fd < 0) {
			fz_record_ret(t, -1);
			return;
		}
		/* a full pool makes room: the oldest-looking slot goes */
		fz_add_slot(t, fd, FZ_OPEN, -1);
	}
	ret = fz_sys_ioctl_wait(t, fd, SCIF_CONNECT,
				(unsigned long)fz_arg_ptr(t, &req, sizeof(req)),
				connect_patience(t, &req.peer));
	fz_record_ret(t, ret);
	if (!ret) {
		fz_add(&fz_stats->connected, 1);
		fz_set_kind(t, fd, FZ_CONNECTED, req.self.port);
		fz_seed_windows(t, fd);
	} else if (errno == EINTR || errno == EINPROGRESS) {
		/* the connect goes on without us: most likely it completes */
		fz_set_kind(t, fd, FZ_CONNECTED, -1);
	}
}

void fz_op_accept(struct fz_thread *t)
{
	struct scifioctl_accept req;
	int fd = fz_pick_slot(t, FZ_LISTENING);
	int nfd;
	long ret;

	memset(&req, 0, sizeof(req));
	req.flags = fz_chance(t, 1, 4) ? SCIF_ACCEPT_SYNC : 0;
	if (fz_chance(t, 1, 20))
		req.flags = (int)fz_rand(t);
	ret = fz_sys_ioctl(t, fd, SCIF_ACCEPTREQ,
			   (unsigned long)fz_arg_ptr(t, &req, sizeof(req)));
	fz_record_ret(t, ret);
	if (ret)
		return;
	/* Claim it: mostly on a fresh file, sometimes on a used one. */
	if (fz_chance(t, 1, 10)) {
		nfd = fz_pick_fd(t, false);
		fz_sys_ioctl(t, nfd, SCIF_ACCEPTREG, (unsigned long)&req.endpt);
		return;
	}
	nfd = open("/dev/scif", O_RDWR);
	if (nfd < 0)
		return;
	if (fz_chance(t, 1, 20))
		req.endpt ^= 1ULL << fz_below(t, 64);
	if (fz_sys_ioctl(t, nfd, SCIF_ACCEPTREG, (unsigned long)&req.endpt)) {
		close(nfd);
		return;
	}
	fz_add(&fz_stats->accepted, 1);
	fz_seed_windows(t, nfd);
	fz_add_slot(t, nfd, FZ_ACCEPTED, -1);
}

void fz_op_acceptreg(struct fz_thread *t)
{
	__u64 h = fz_chance(t, 1, 2) ? fz_below(t, 64) : fz_rand(t);
	bool fresh = fz_chance(t, 1, 2);
	int fd = fresh ? open("/dev/scif", O_RDWR) : fz_pick_fd(t, false);
	long ret;

	ret = fz_sys_ioctl(t, fd, SCIF_ACCEPTREG,
			   (unsigned long)fz_arg_ptr(t, &h, sizeof(h)));
	fz_record_ret(t, ret);
	if (fresh && fd >= 0) {
		if (ret)
			close(fd);
		else
			fz_add_slot(t, fd, FZ_ACCEPTED, -1);
	}
}

static void op_msg(struct fz_thread *t, bool send)
{
	struct scifioctl_msg req;
	int fd = fz_pick_fd(t, true);
	uint64_t len;
	long ret;

	memset(&req, 0, sizeof(req));
	switch (fz_below(t, 12)) {
	case 0:
		len = 0;
		break;
	case 1:
		len = 65536 + fz_below(t, 70000);
		break;
	case 2:
		len = (uint64_t)-(int64_t)(1 + fz_below(t, 100));
		break;
	default:
		len = 1 + fz_below(t, 512);
		break;
	}
	req.len = (__s32)len;
	req.msg = fz_pick_addr(t, len > 0x7fffffff ? 0 : len, !send);
	req.flags = fz_chance(t, 1, 5) ? SCIF_SEND_BLOCK : 0;
	if (fz_chance(t, 1, 30))
		req.flags = (int)fz_rand(t);
	ret = fz_sys_ioctl(t, fd, send ? SCIF_SEND : SCIF_RECV,
			   (unsigned long)fz_arg_ptr(t, &req, sizeof(req)));
	fz_record_ret(t, ret);
	if (!ret && (req.out_len < 0 || (req.len >= 0 && req.out_len > req.len)))
		fz_violation(t->p, "%s of %d bytes reported %d done",
			     send ? "SCIF_SEND" : "SCIF_RECV", req.len,
			     req.out_len);
}

void fz_op_send(struct fz_thread *t) { op_msg(t, true); }
void fz_op_recv(struct fz_thread *t) { op_msg(t, false); }

void fz_op_node_ids(struct fz_thread *t)
{
	struct scifioctl_node_ids req;
	uint16_t nodes[8], self = 0xffff;
	int fd = fz_pick_fd(t, false);
	long ret;

	memset(&req, 0, sizeof(req));
	req.nodes = (uint64_t)(uintptr_t)nodes;
	req.self = (uint64_t)(uintptr_t)&self;
	req.len = (int)fz_below(t, 9);
	switch (fz_below(t, 10)) {
	case 0:
		req.len = -1 - (int)fz_below(t, 3);
		break;
	case 1:
		req.nodes = 0;
		break;
	case 2:
		req.self = FZ_KERNEL_ADDR;
		break;
	case 3:
		req.nodes = (uint64_t)(uintptr_t)t->p->guard + FZ_PAGE - 2;
		break;
	case 4:
		req.len = 0x7fffffff;
		req.nodes = 0;
		break;
	}
	ret = fz_sys_ioctl(t, fd, SCIF_GET_NODEIDS,
			   (unsigned long)fz_arg_ptr(t, &req, sizeof(req)));
	fz_record_ret(t, ret);
	if (!ret && req.self == (uint64_t)(uintptr_t)&self &&
	    self != t->p->self)
		fz_violation(t->p, "SCIF_GET_NODEIDS gave self %u, expected %u",
			     self, t->p->self);
}

void fz_op_poll(struct fz_thread *t)
{
	struct pollfd fds[6];
	unsigned int n = 1 + (unsigned int)fz_below(t, 6), i;
	long ret;

	for (i = 0; i < n; i++) {
		fds[i].fd = fz_pick_fd(t, fz_chance(t, 1, 2));
		fds[i].events = (short)(fz_chance(t, 1, 8) ? fz_rand(t) :
					POLLIN | (fz_chance(t, 1, 2) ? POLLOUT : 0));
		fds[i].revents = 0;
	}
	fz_call_begin(t, FZ_PATIENCE_MS + 20);
	ret = poll(fds, n, (int)fz_below(t, 20));
	fz_call_end(t);
	fz_record_ret(t, ret < 0 ? -1 : 0);
}
