// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: the operations. Each fz_op() picks one request (or mmap, fork,
 * close...) with mostly sensible arguments drawn from the process's pools,
 * sometimes hostile ones, issues it with the raw system call and records the
 * outcome. Where the outcome alone proves a bug (a write into the read-only
 * grid reported as done), it counts a violation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* An address no user mapping can have, and one inside the kernel. */
#define FZ_KERNEL_ADDR	0xffff888000000000ULL
#define FZ_NONCANON	0x0000800000001000ULL

/*
 * How long the signal thread lets a call block before it interrupts it, in
 * ms. A blocking request that waits for the other side (a SCIF_RECV or
 * SCIF_SEND with SCIF_SEND_BLOCK, a SCIF_ACCEPT_SYNC, a fence wait) is
 * interrupted after FZ_PATIENCE_MS: what the interruption exercises is the
 * same at 20 ms as at 500 ms, and a thread that waits is not fuzzing. Under
 * TCG a connect takes tens of milliseconds, up to a few hundred when the
 * node is busy, so most connects get FZ_CONNECT_PATIENCE_MS and some
 * a few milliseconds (interrupted while the connect is in flight).
 */
#define FZ_PATIENCE_MS		20
#define FZ_CONNECT_PATIENCE_MS	500
/* mmap (MAP_POPULATE) and waiting for a forked child take their time */
#define FZ_SLOW_PATIENCE_MS	1000

/* A call that may block starts: the signal thread may now interrupt it. */
static long call_begin(struct fz_thread *t, long patience)
{
	long now = fz_now_ms();

	__atomic_store_n(&t->call_patience, patience, __ATOMIC_RELAXED);
	__atomic_store_n(&t->call_start, now, __ATOMIC_RELAXED);
	return now;
}

static void call_end(struct fz_thread *t)
{
	__atomic_store_n(&t->call_start, 0, __ATOMIC_RELAXED);
}

static long sys_ioctl_wait(struct fz_thread *t, int fd, unsigned long cmd,
			   unsigned long arg, long patience)
{
	unsigned long took, max;
	long ret, start;
	int err;

	start = call_begin(t, patience);
	ret = ioctl(fd, cmd, arg);
	err = errno;
	call_end(t);
	/* The longest request of the run, and how many took over 5 s. */
	took = (unsigned long)(fz_now_ms() - start);
	if (took > 5000)
		fz_add(&fz_stats->slow_calls, 1);
	max = __atomic_load_n(&fz_stats->slowest_ms, __ATOMIC_RELAXED);
	fz_max(&fz_stats->slowest_ms, took);
	if (took >= max)
		__atomic_store_n(&fz_stats->slowest_op, _IOC_NR(cmd),
				 __ATOMIC_RELAXED);
	errno = err;
	return ret;
}

static long sys_ioctl(struct fz_thread *t, int fd, unsigned long cmd,
		      unsigned long arg)
{
	return sys_ioctl_wait(t, fd, cmd, arg, FZ_PATIENCE_MS);
}

static void record(struct fz_thread *t, long ret)
{
	fz_record(t, ret, ret < 0 ? errno : 0);
}

/* ---- picking arguments ---- */

static int pick_slot(struct fz_thread *t, int want)
{
	struct fz_proc *p = t->p;
	int i, s, fd = -1;

	fz_lock(t);
	for (i = 0; i < FZ_SLOTS; i++) {
		s = (int)fz_below(t, FZ_SLOTS);
		if (p->slots[s].kind == FZ_FREE)
			continue;
		if (want >= 0 && p->slots[s].kind != want && i < FZ_SLOTS / 2)
			continue;
		fd = p->slots[s].fd;
		break;
	}
	fz_unlock(t);
	return fd;
}

/* An endpoint for a request, preferring connected ones for RMA. */
static int pick_fd(struct fz_thread *t, bool connected)
{
	int fd;

	if (fz_chance(t, 1, 50))
		return fz_chance(t, 1, 2) ? -1 : 1000;
	if (connected) {
		fd = pick_slot(t, fz_chance(t, 1, 2) ? FZ_CONNECTED : FZ_ACCEPTED);
		if (fd >= 0)
			return fd;
	}
	return pick_slot(t, -1);
}

static int free_slot(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int i, s;

	for (i = 0; i < FZ_SLOTS; i++) {
		s = (int)fz_below(t, FZ_SLOTS);
		if (p->slots[s].kind == FZ_FREE)
			return s;
	}
	return -1;
}

/* Put @fd into the pool; when it is full, a random endpoint is closed. */
static void add_slot(struct fz_thread *t, int fd, int kind, int port)
{
	struct fz_proc *p = t->p;
	int s, old = -1;

	fz_lock(t);
	s = free_slot(t);
	if (s < 0) {
		s = (int)fz_below(t, FZ_SLOTS);
		old = p->slots[s].fd;
	}
	p->slots[s].fd = fd;
	p->slots[s].kind = kind;
	p->slots[s].port = port;
	fz_unlock(t);
	if (old >= 0)
		close(old);
}

static void set_kind(struct fz_thread *t, int fd, int kind, int port)
{
	struct fz_proc *p = t->p;
	int s;

	fz_lock(t);
	for (s = 0; s < FZ_SLOTS; s++) {
		if (p->slots[s].kind != FZ_FREE && p->slots[s].fd == fd) {
			p->slots[s].kind = kind;
			if (port >= 0)
				p->slots[s].port = port;
		}
	}
	fz_unlock(t);
}

static uint64_t pick_len(struct fz_thread *t)
{
	switch (fz_below(t, 40)) {
	case 0: return 0;
	case 1: return 1 + fz_below(t, FZ_PAGE - 1);
	case 2: return (1 + fz_below(t, 16)) * FZ_PAGE + 1 + fz_below(t, 64);
	case 3: return 1ULL << (32 + fz_below(t, 30));
	case 4: return ~0ULL - fz_below(t, 2) * (FZ_PAGE - 1);
	case 5: return (uint64_t)-(int64_t)FZ_PAGE;
	case 6: return 64 * (1 + fz_below(t, 64));
	default: return (1 + fz_below(t, 16)) * FZ_PAGE;
	}
}

/* A grid offset: @ro picks the read-only grid. Page aligned within a slot. */
static fz_off grid_off(struct fz_thread *t, bool ro)
{
	return (ro ? FZ_RO_BASE : FZ_RW_BASE) +
	       (fz_off)fz_below(t, FZ_GRID_SLOTS) * FZ_GRID_STEP +
	       (fz_chance(t, 1, 5) ? (fz_off)fz_below(t, 16) * FZ_PAGE : 0);
}

static fz_off edge_off(struct fz_thread *t)
{
	switch (fz_below(t, 8)) {
	case 0: return -1;
	case 1: return -(fz_off)FZ_PAGE;
	case 2: return INT64_MAX;
	case 3: return INT64_MAX - (fz_off)FZ_PAGE + 1;
	case 4: return FZ_RW_BASE + 1 + (fz_off)fz_below(t, FZ_PAGE - 1);
	case 5: return (fz_off)fz_rand(t);
	case 6: return 0;
	default: return FZ_RO_END - FZ_PAGE;
	}
}

/* An offset of some window (ours or the peer's), mostly a valid one. */
static fz_off pick_off(struct fz_thread *t, bool allow_ro)
{
	struct fz_proc *p = t->p;
	unsigned int r = (unsigned int)fz_below(t, 100);
	fz_off off;

	if (r < 10)
		return edge_off(t);
	if (r < 25) {
		off = __atomic_load_n(&p->known[fz_below(t, FZ_KNOWN)],
				      __ATOMIC_RELAXED);
		return off + (fz_chance(t, 1, 4) ? (fz_off)fz_below(t, 4) * 64 : 0);
	}
	return grid_off(t, allow_ro && r < 45);
}

static unsigned long rma_flags(struct fz_thread *t)
{
	if (fz_chance(t, 1, 30))
		return (unsigned long)fz_rand(t) & 0xffffffff;
	return fz_below(t, 16);
}

/* A user address to read from: anything; @write: only our scratch. */
static uint64_t pick_addr(struct fz_thread *t, uint64_t len, bool write)
{
	struct fz_proc *p = t->p;
	uint64_t off;

	switch (fz_below(t, 30)) {
	case 0: return 0;
	case 1: return FZ_KERNEL_ADDR;
	case 2: return FZ_NONCANON;
	case 3: /* runs into the guard page */
		return (uint64_t)(uintptr_t)p->guard + FZ_PAGE - 8;
	case 4:
		if (!write)
			return (uint64_t)(uintptr_t)p->canary +
			       fz_below(t, FZ_CANARY_BUFS * FZ_CANARY_PAGES) *
			       FZ_PAGE;
		break;
	case 5:
		if (!write)
			return (uint64_t)(uintptr_t)p->file_shared;
		break;
	}
	if (len > FZ_SCRATCH_PAGES * FZ_PAGE)
		return (uint64_t)(uintptr_t)p->scratch;
	off = fz_below(t, FZ_SCRATCH_PAGES * FZ_PAGE - len + 1);
	if (fz_chance(t, 3, 4))
		off &= ~(FZ_PAGE - 1);
	return (uint64_t)(uintptr_t)p->scratch + off;
}

/* A fresh pointer for the argument struct: sometimes a bad one. */
static void *arg_ptr(struct fz_thread *t, void *good, size_t size)
{
	struct fz_proc *p = t->p;

	/*
	 * Only the real argument says what the kernel was asked: a random
	 * address is often mapped in a 32-bit process, and the kernel then
	 * carries out whatever request that memory happens to hold.
	 * Invariant checks after the call look at t->arg_good.
	 */
	t->arg_good = false;
	switch (fz_below(t, 60)) {
	case 0: return NULL;
	case 1: return (void *)(uintptr_t)FZ_KERNEL_ADDR;
	case 2: /* straddles the guard page */
		memcpy(p->guard + FZ_PAGE - size / 2, good, size / 2);
		return p->guard + FZ_PAGE - size / 2;
	case 3:
		return (void *)(uintptr_t)(fz_rand(t) & 0x7ffffffff000ULL);
	}
	t->arg_good = true;
	return good;
}

/* ---- the operations ---- */

static void op_open(struct fz_thread *t)
{
	int flags = O_RDWR | (fz_chance(t, 1, 8) ? O_NONBLOCK : 0);
	int fd;

	if (fz_chance(t, 1, 20))
		flags = fz_chance(t, 1, 2) ? O_RDONLY : O_WRONLY;
	fd = open("/dev/scif", flags | (fz_chance(t, 1, 4) ? O_CLOEXEC : 0));
	record(t, fd < 0 ? -1 : 0);
	if (fd >= 0)
		add_slot(t, fd, FZ_OPEN, -1);
}

static void op_close(struct fz_thread *t)
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
	record(t, close(fd));
}

static void op_dup(struct fz_thread *t)
{
	int fd = pick_fd(t, false);
	int nfd = dup(fd);

	record(t, nfd < 0 ? -1 : 0);
	if (nfd >= 0)
		add_slot(t, nfd, FZ_DUP, -1);
}

static void op_nonblock(struct fz_thread *t)
{
	int fd = pick_fd(t, false);
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0) {
		record(t, fl);
		return;
	}
	record(t, fcntl(fd, F_SETFL, fl ^ O_NONBLOCK));
}

static void op_bind(struct fz_thread *t)
{
	int fd = pick_fd(t, false);
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
	ret = sys_ioctl(t, fd, SCIF_BIND,
			(unsigned long)arg_ptr(t, &port, sizeof(port)));
	record(t, ret);
	if (!ret)
		set_kind(t, fd, FZ_BOUND, (int)port);
}

static void op_listen(struct fz_thread *t)
{
	int fd = pick_fd(t, false);
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
	ret = sys_ioctl(t, fd, SCIF_LISTEN, (unsigned long)backlog);
	record(t, ret);
	if (!ret)
		set_kind(t, fd, FZ_LISTENING, -1);
}

/* Someone's listener: ours, another process's, or the peer node's. */
static void pick_target(struct fz_thread *t, struct scif_port_id *dst)
{
	struct fz_proc *p = t->p;
	unsigned int r = (unsigned int)fz_below(t, 100);

	dst->node = p->self;
	if (p->peer >= 0 && r < 45)
		dst->node = (uint16_t)p->peer;
	dst->port = (uint16_t)(p->o->port_base +
		    fz_below(t, (uint64_t)p->o->procs) * FZ_PORT_STRIDE +
		    (fz_chance(t, 1, 5) ? fz_below(t, FZ_PORT_STRIDE) : 0));
	if (r >= 92) {
		switch (r) {
		case 92:
			dst->node = 0xffff;
			break;
		case 93:
			dst->node = (uint16_t)(p->self + 7);
			break;
		case 94:
			dst->port = 0;
			break;
		case 95:
			dst->port = (uint16_t)fz_rand(t);
			break;
		case 96:
			dst->port = FZ_BARRIER_PORT;
			break;
		default:
			break;
		}
	}
}

/*
 * A new connection gets windows right away, so that RMAs and mmaps from the
 * other end find something: a piece of scratch at the start of the RW grid
 * and a canary buffer at the start of the RO grid.
 */
int fz_seed_windows(struct fz_thread *t, int fd)
{
	struct fz_proc *p = t->p;
	struct scifioctl_reg req;
	static const int prots[] = {
		SCIF_PROT_READ | SCIF_PROT_WRITE, SCIF_PROT_READ | SCIF_PROT_WRITE,
		SCIF_PROT_READ, SCIF_PROT_WRITE,
	};
	uint64_t pages = 4 + fz_below(t, 12);
	long ret;

	memset(&req, 0, sizeof(req));
	req.addr = (uint64_t)(uintptr_t)p->scratch +
		   fz_below(t, FZ_SCRATCH_PAGES - pages) * FZ_PAGE;
	req.len = pages * FZ_PAGE;
	req.offset = FZ_RW_BASE + (fz_off)fz_below(t, 2) * FZ_GRID_STEP;
	req.prot = prots[fz_below(t, 4)];
	req.flags = SCIF_MAP_FIXED;
	ret = sys_ioctl(t, fd, SCIF_REG, (unsigned long)&req);
	record(t, ret);
	if (ret)
		return -errno;
	fz_add(&fz_stats->registered, 1);
	memset(&req, 0, sizeof(req));
	req.addr = (uint64_t)(uintptr_t)p->canary +
		   fz_below(t, FZ_CANARY_BUFS) * FZ_CANARY_PAGES * FZ_PAGE;
	req.len = FZ_CANARY_PAGES * FZ_PAGE;
	req.offset = FZ_RO_BASE;
	req.prot = SCIF_PROT_READ;
	req.flags = SCIF_MAP_FIXED;
	if (!sys_ioctl(t, fd, SCIF_REG, (unsigned long)&req))
		fz_add(&fz_stats->registered, 1);
	return 0;
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

static void op_connect(struct fz_thread *t)
{
	struct scifioctl_connect req;
	int fd;
	long ret;

	memset(&req, 0, sizeof(req));
	pick_target(t, &req.peer);
	fd = pick_slot(t, fz_chance(t, 1, 2) ? FZ_OPEN : FZ_BOUND);
	if (fd < 0 || fz_chance(t, 1, 3)) {
		fd = open("/dev/scif", O_RDWR);
		if (fd < 0) {
			record(t, -1);
			return;
		}
		/* a full pool makes room: the oldest-looking slot goes */
		add_slot(t, fd, FZ_OPEN, -1);
	}
	ret = sys_ioctl_wait(t, fd, SCIF_CONNECT,
			     (unsigned long)arg_ptr(t, &req, sizeof(req)),
			     connect_patience(t, &req.peer));
	record(t, ret);
	if (!ret) {
		fz_add(&fz_stats->connected, 1);
		set_kind(t, fd, FZ_CONNECTED, req.self.port);
		fz_seed_windows(t, fd);
	} else if (errno == EINTR || errno == EINPROGRESS) {
		/* the connect goes on without us: most likely it completes */
		set_kind(t, fd, FZ_CONNECTED, -1);
	}
}

static void op_accept(struct fz_thread *t)
{
	struct scifioctl_accept req;
	int fd = pick_slot(t, FZ_LISTENING);
	int nfd;
	long ret;

	memset(&req, 0, sizeof(req));
	req.flags = fz_chance(t, 1, 4) ? SCIF_ACCEPT_SYNC : 0;
	if (fz_chance(t, 1, 20))
		req.flags = (int)fz_rand(t);
	ret = sys_ioctl(t, fd, SCIF_ACCEPTREQ,
			(unsigned long)arg_ptr(t, &req, sizeof(req)));
	record(t, ret);
	if (ret)
		return;
	/* Claim it: mostly on a fresh file, sometimes on a used one. */
	if (fz_chance(t, 1, 10)) {
		nfd = pick_fd(t, false);
		sys_ioctl(t, nfd, SCIF_ACCEPTREG, (unsigned long)&req.endpt);
		return;
	}
	nfd = open("/dev/scif", O_RDWR);
	if (nfd < 0)
		return;
	if (fz_chance(t, 1, 20))
		req.endpt ^= 1ULL << fz_below(t, 64);
	if (sys_ioctl(t, nfd, SCIF_ACCEPTREG, (unsigned long)&req.endpt)) {
		close(nfd);
		return;
	}
	fz_add(&fz_stats->accepted, 1);
	fz_seed_windows(t, nfd);
	add_slot(t, nfd, FZ_ACCEPTED, -1);
}

static void op_acceptreg(struct fz_thread *t)
{
	__u64 h = fz_chance(t, 1, 2) ? fz_below(t, 64) : fz_rand(t);
	bool fresh = fz_chance(t, 1, 2);
	int fd = fresh ? open("/dev/scif", O_RDWR) : pick_fd(t, false);
	long ret;

	ret = sys_ioctl(t, fd, SCIF_ACCEPTREG,
			(unsigned long)arg_ptr(t, &h, sizeof(h)));
	record(t, ret);
	if (fresh && fd >= 0) {
		if (ret)
			close(fd);
		else
			add_slot(t, fd, FZ_ACCEPTED, -1);
	}
}

static void op_msg(struct fz_thread *t, bool send)
{
	struct scifioctl_msg req;
	int fd = pick_fd(t, true);
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
	req.msg = pick_addr(t, len > 0x7fffffff ? 0 : len, !send);
	req.flags = fz_chance(t, 1, 5) ? SCIF_SEND_BLOCK : 0;
	if (fz_chance(t, 1, 30))
		req.flags = (int)fz_rand(t);
	ret = sys_ioctl(t, fd, send ? SCIF_SEND : SCIF_RECV,
			(unsigned long)arg_ptr(t, &req, sizeof(req)));
	record(t, ret);
	if (!ret && (req.out_len < 0 || (req.len >= 0 && req.out_len > req.len)))
		fz_violation(t->p, "%s of %d bytes reported %d done",
			     send ? "SCIF_SEND" : "SCIF_RECV", req.len,
			     req.out_len);
}

static void remember(struct fz_thread *t, fz_off off)
{
	__atomic_store_n(&t->p->known[fz_below(t, FZ_KNOWN)], off,
			 __ATOMIC_RELAXED);
}

static void op_reg(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	struct scifioctl_reg req;
	unsigned int src = (unsigned int)fz_below(t, 100);
	bool ro_only = false, ro_file = false;
	uint64_t pages;
	int fd = pick_fd(t, fz_chance(t, 3, 4));
	long ret;

	memset(&req, 0, sizeof(req));
	pages = 1 + fz_below(t, 16);
	req.len = pages * FZ_PAGE;
	req.prot = (int)(1 + fz_below(t, 3));
	if (src < 60) {
		req.addr = pick_addr(t, req.len, true);
		if (fz_chance(t, 1, 10))
			req.len = pick_len(t);
	} else if (src < 78) {
		/* a canary buffer: only ever readable by others */
		uint64_t b = fz_below(t, FZ_CANARY_BUFS);
		uint64_t first = fz_below(t, FZ_CANARY_PAGES);

		req.addr = (uint64_t)(uintptr_t)p->canary +
			   (b * FZ_CANARY_PAGES + first) * FZ_PAGE;
		req.len = (1 + fz_below(t, FZ_CANARY_PAGES - first)) * FZ_PAGE;
		req.prot = SCIF_PROT_READ;
		ro_only = true;
	} else if (src < 92) {
		bool shared = fz_chance(t, 2, 3);

		req.addr = (uint64_t)(uintptr_t)(shared ? p->file_shared :
						 p->file_private);
		req.len = (1 + fz_below(t, FZ_FILE_PAGES)) * FZ_PAGE;
		if (fz_chance(t, 2, 3))
			req.prot = SCIF_PROT_READ;
		ro_file = true;
	} else {
		req.addr = pick_addr(t, req.len, true);
		req.len = pick_len(t);
		if (fz_chance(t, 1, 2))
			req.prot = (int)fz_rand(t) & ~SCIF_PROT_WRITE;
		else
			req.prot = fz_chance(t, 1, 2) ? 0 : SCIF_PROT_WRITE;
	}
	if (fz_chance(t, 1, 20) && !ro_only && !ro_file)
		req.prot |= 1 << fz_below(t, 31);

	switch (fz_below(t, 10)) {
	case 0: case 1: case 2: /* the kernel's choice, from a low hint */
		req.offset = fz_chance(t, 1, 2) ? 0 :
			     FZ_RW_BASE / 2 + (fz_off)fz_below(t, 256) * FZ_PAGE;
		break;
	case 3:
		req.flags = SCIF_MAP_FIXED;
		req.offset = edge_off(t);
		break;
	case 4:
		req.flags = (int)fz_rand(t);
		req.offset = grid_off(t, false);
		break;
	default:
		req.flags = SCIF_MAP_FIXED;
		req.offset = grid_off(t, !(req.prot & SCIF_PROT_WRITE) &&
				      fz_chance(t, 1, 2));
		break;
	}
	/* Keep writable windows out of the read-only grid. */
	if ((req.prot & SCIF_PROT_WRITE) &&
	    (fz_in_ro_grid(req.offset, req.len) ||
	     (!(req.flags & SCIF_MAP_FIXED) && req.offset >= FZ_RO_BASE / 2)))
		req.offset = grid_off(t, false);

	ret = sys_ioctl(t, fd, SCIF_REG,
			(unsigned long)arg_ptr(t, &req, sizeof(req)));
	record(t, ret);
	if (ret || !t->arg_good)
		return;
	fz_add(&fz_stats->registered, 1);
	remember(t, req.out_offset);
	if (ro_file && (req.prot & SCIF_PROT_WRITE))
		fz_violation(p,
			     "SCIF_REG with SCIF_PROT_WRITE over a read-only %s file mapping succeeded (offset %lld len %llu)",
			     req.addr == (uint64_t)(uintptr_t)p->file_shared ?
			     "shared" : "private",
			     (long long)req.out_offset,
			     (unsigned long long)req.len);
	if ((req.prot & SCIF_PROT_WRITE) &&
	    fz_in_ro_grid(req.out_offset, req.len))
		fz_violation(p,
			     "writable window placed at %lld in the read-only grid (asked %lld flags %#x)",
			     (long long)req.out_offset, (long long)req.offset,
			     req.flags);
}

static void op_unreg(struct fz_thread *t)
{
	struct scifioctl_unreg req;
	int fd = pick_fd(t, fz_chance(t, 3, 4));

	req.offset = pick_off(t, true);
	req.len = fz_chance(t, 3, 4) ? (1 + fz_below(t, 16)) * FZ_PAGE :
				       pick_len(t);
	record(t, sys_ioctl(t, fd, SCIF_UNREG,
			    (unsigned long)arg_ptr(t, &req, sizeof(req))));
}

static void op_rma(struct fz_thread *t)
{
	static const unsigned long cmds[] = {
		SCIF_READFROM, SCIF_WRITETO, SCIF_VREADFROM, SCIF_VWRITETO,
	};
	static const char *const names[] = {
		"SCIF_READFROM", "SCIF_WRITETO", "SCIF_VREADFROM",
		"SCIF_VWRITETO",
	};
	struct scifioctl_copy req;
	unsigned int k = (unsigned int)fz_below(t, 4);
	int fd = pick_fd(t, true);
	long ret;

	memset(&req, 0, sizeof(req));
	req.len = fz_chance(t, 4, 5) ? (1 + fz_below(t, 4)) * FZ_PAGE :
				       pick_len(t);
	if (fz_chance(t, 1, 4) && req.len > 64)
		req.len -= 64 * (1 + fz_below(t, 4));
	req.loffset = pick_off(t, true);
	req.roffset = pick_off(t, true);
	/* vreadfrom writes into req.addr: only scratch for that one */
	req.addr = pick_addr(t, req.len, k == 2);
	req.flags = (int)rma_flags(t);
	ret = sys_ioctl(t, fd, cmds[k],
			(unsigned long)arg_ptr(t, &req, sizeof(req)));
	record(t, ret);
	if (ret || !req.len || !t->arg_good)
		return;
	fz_add(&fz_stats->rma_ok, 1);
	/* Which side was written: local for readfrom, the peer for writeto. */
	if (k == 0 && fz_in_ro_grid(req.loffset, req.len))
		fz_violation(t->p,
			     "%s into local read-only grid offset %lld len %llu succeeded",
			     names[k], (long long)req.loffset,
			     (unsigned long long)req.len);
	if ((k == 1 || k == 3) && fz_in_ro_grid(req.roffset, req.len))
		fz_violation(t->p,
			     "%s into the peer's read-only grid offset %lld len %llu succeeded",
			     names[k], (long long)req.roffset,
			     (unsigned long long)req.len);
}

static void op_node_ids(struct fz_thread *t)
{
	struct scifioctl_node_ids req;
	uint16_t nodes[8], self = 0xffff;
	int fd = pick_fd(t, false);
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
	ret = sys_ioctl(t, fd, SCIF_GET_NODEIDS,
			(unsigned long)arg_ptr(t, &req, sizeof(req)));
	record(t, ret);
	if (!ret && req.self == (uint64_t)(uintptr_t)&self &&
	    self != t->p->self)
		fz_violation(t->p, "SCIF_GET_NODEIDS gave self %u, expected %u",
			     self, t->p->self);
}

static void op_fence(struct fz_thread *t)
{
	int fd = pick_fd(t, true);
	long ret;

	switch (fz_below(t, 3)) {
	case 0: {
		struct scifioctl_fence_mark req;
		int mark = -1;

		req.flags = (int)(1 + fz_below(t, 2));
		if (fz_chance(t, 1, 10))
			req.flags = (int)fz_rand(t);
		req.mark = fz_chance(t, 1, 10) ?
			   pick_addr(t, 4, true) : (uint64_t)(uintptr_t)&mark;
		ret = sys_ioctl(t, fd, SCIF_FENCE_MARK,
				(unsigned long)arg_ptr(t, &req, sizeof(req)));
		record(t, ret);
		if (!ret && req.mark == (uint64_t)(uintptr_t)&mark &&
		    fz_chance(t, 1, 2)) {
			/* wait for it right away, sometimes */
			sys_ioctl(t, fd, SCIF_FENCE_WAIT, (unsigned long)mark);
		}
		break;
	}
	case 1: {
		long mark = fz_chance(t, 1, 2) ? (long)fz_below(t, 8) :
			    (long)(int)fz_rand(t);

		record(t, sys_ioctl(t, fd, SCIF_FENCE_WAIT,
				    (unsigned long)mark));
		break;
	}
	default: {
		struct scifioctl_fence_signal req;

		memset(&req, 0, sizeof(req));
		req.loff = pick_off(t, true) + (fz_chance(t, 1, 3) ?
			   (fz_off)fz_below(t, FZ_PAGE / 8) * 8 : 0);
		req.roff = pick_off(t, true) + (fz_chance(t, 1, 3) ?
			   (fz_off)fz_below(t, FZ_PAGE / 8) * 8 : 0);
		req.lval = fz_rand(t);
		req.rval = fz_rand(t);
		req.flags = (int)(1 + fz_below(t, 2)) |
			    (int)(1 + fz_below(t, 3)) << 4;
		if (fz_chance(t, 1, 15))
			req.flags = (int)fz_rand(t);
		ret = sys_ioctl(t, fd, SCIF_FENCE_SIGNAL,
				(unsigned long)arg_ptr(t, &req, sizeof(req)));
		record(t, ret);
		if (ret || !t->arg_good)
			break;
		if ((req.flags & SCIF_SIGNAL_LOCAL) &&
		    fz_in_ro_grid(req.loff, 8))
			fz_violation(t->p,
				     "SCIF_FENCE_SIGNAL accepted local offset %lld in the read-only grid",
				     (long long)req.loff);
		if ((req.flags & SCIF_SIGNAL_REMOTE) &&
		    fz_in_ro_grid(req.roff, 8))
			fz_violation(t->p,
				     "SCIF_FENCE_SIGNAL accepted remote offset %lld in the read-only grid",
				     (long long)req.roff);
		break;
	}
	}
}

static int map_prot(struct fz_thread *t)
{
	switch (fz_below(t, 6)) {
	case 0: return PROT_NONE;
	case 1: case 2: return PROT_READ;
	case 3: return PROT_WRITE;
	default: return PROT_READ | PROT_WRITE;
	}
}

static void op_mmap(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int fd = pick_fd(t, true);
	int prot = map_prot(t);
	int flags = fz_chance(t, 1, 15) ? MAP_PRIVATE : MAP_SHARED;
	size_t len = (1 + fz_below(t, 4)) * FZ_PAGE;
	fz_off off = pick_off(t, true);
	char *a;
	int i;

	if (fz_chance(t, 1, 20))
		len = fz_chance(t, 1, 2) ? 0 : (size_t)pick_len(t);
	if (fz_chance(t, 1, 30))
		flags |= MAP_POPULATE;
	call_begin(t, FZ_SLOW_PATIENCE_MS);
	a = mmap(NULL, len, prot, flags, fd, off);
	call_end(t);
	if (a == MAP_FAILED) {
		record(t, -1);
		return;
	}
	record(t, 0);
	fz_add(&fz_stats->mapped, 1);
	if ((flags & MAP_SHARED) && (prot & PROT_WRITE) &&
	    fz_in_ro_grid(off, len))
		fz_violation(p,
			     "writable shared mmap of the read-only grid offset %lld len %zu succeeded",
			     (long long)off, len);
	fz_lock(t);
	for (i = 0; i < FZ_MAPS; i++) {
		if (!p->maps[i].used) {
			p->maps[i] = (struct fz_map){ a, len, off, prot,
						      (flags & MAP_SHARED) != 0,
						      true };
			a = NULL;
			break;
		}
	}
	fz_unlock(t);
	if (a)
		munmap(a, len);
}

/* Look at a random mapping of the pool; its slot, or -1 if it is empty. */
static int get_map(struct fz_thread *t, struct fz_map *m)
{
	struct fz_proc *p = t->p;
	int i = (int)fz_below(t, FZ_MAPS);
	bool ok;

	fz_lock(t);
	ok = p->maps[i].used;
	if (ok)
		*m = p->maps[i];
	fz_unlock(t);
	return ok ? i : -1;
}

/*
 * Change slot @i if it still holds the mapping at @addr: forget it
 * (@forget) or mark it partly unmapped. False if another thread got there
 * first.
 */
static bool update_map(struct fz_thread *t, int i, char *addr, bool forget)
{
	struct fz_proc *p = t->p;
	bool ok;

	fz_lock(t);
	ok = p->maps[i].used && p->maps[i].addr == addr;
	if (ok && forget)
		p->maps[i].used = false;
	else if (ok)
		p->maps[i].whole = false;
	fz_unlock(t);
	return ok;
}

static void op_munmap(struct fz_thread *t)
{
	struct fz_map m;
	size_t skip;
	int i = get_map(t, &m);

	if (i < 0) {
		record(t, munmap(t->p->scratch, 0));	/* EINVAL */
		return;
	}
	if (m.whole && m.len > FZ_PAGE && fz_chance(t, 1, 4)) {
		/* a hole in the middle; the rest stays mapped */
		skip = (1 + fz_below(t, m.len / FZ_PAGE - 1)) * FZ_PAGE;
		if (update_map(t, i, m.addr, false))
			record(t, munmap(m.addr + skip, FZ_PAGE));
		return;
	}
	/*
	 * Forget the mapping before it goes: any later mmap may reuse its
	 * address, and an mprotect() of that one is not one of this mapping.
	 */
	if (update_map(t, i, m.addr, true))
		record(t, munmap(m.addr, m.len));
}

static void op_mprotect(struct fz_thread *t)
{
	struct fz_map m;
	int prot = map_prot(t);
	long ret;

	if (get_map(t, &m) < 0) {
		record(t, mprotect(t->p->scratch, 1, PROT_READ)); /* EINVAL */
		return;
	}
	ret = mprotect(m.addr, m.len, prot);
	record(t, ret);
	if (!ret && m.whole && (prot & PROT_WRITE) &&
	    fz_in_ro_grid(m.off, m.len))
		fz_violation(t->p,
			     "mprotect(PROT_WRITE) of a shared mapping of the read-only grid (offset %lld) succeeded",
			     (long long)m.off);
}

/* Read and write a mapping; faults are caught and counted. */
static void op_touch(struct fz_thread *t)
{
	struct fz_map m;
	char *c;
	size_t i;
	bool wr = fz_chance(t, 1, 2);

	if (get_map(t, &m) < 0) {
		record(t, 0);
		return;
	}
	i = fz_below(t, m.len);
	c = m.addr + i;
	record(t, 0);
	if (sigsetjmp(t->touch_jb, 1)) {
		__atomic_store_n(&t->in_touch, 0, __ATOMIC_SEQ_CST);
		fz_add(&fz_stats->faults, 1);
		return;
	}
	__atomic_store_n(&t->in_touch, 1, __ATOMIC_SEQ_CST);
	(void)__atomic_load_n(c, __ATOMIC_SEQ_CST);
	/*
	 * Only whole shared mappings: the address range is surely still ours
	 * or a /dev/scif mapping.
	 */
	if (wr && m.whole)
		__atomic_store_n(c, (char)fz_rand(t), __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->in_touch, 0, __ATOMIC_SEQ_CST);
}

static void op_poll(struct fz_thread *t)
{
	struct pollfd fds[6];
	unsigned int n = 1 + (unsigned int)fz_below(t, 6), i;
	long ret;

	for (i = 0; i < n; i++) {
		fds[i].fd = pick_fd(t, fz_chance(t, 1, 2));
		fds[i].events = (short)(fz_chance(t, 1, 8) ? fz_rand(t) :
					POLLIN | (fz_chance(t, 1, 2) ? POLLOUT : 0));
		fds[i].revents = 0;
	}
	call_begin(t, FZ_PATIENCE_MS + 20);
	ret = poll(fds, n, (int)fz_below(t, 20));
	call_end(t);
	record(t, ret < 0 ? -1 : 0);
}

/* Something that is not one of the requests, or not in its proper form. */
static void op_raw(struct fz_thread *t)
{
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE,
	};
	char buf[128];
	int fd = pick_fd(t, fz_chance(t, 1, 2));
	unsigned long cmd;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)fz_rand(t);
	switch (fz_below(t, 5)) {
	case 0: /* read() and write() on the device */
		record(t, (fz_chance(t, 1, 2) ? read(fd, buf, sizeof(buf)) :
			   write(fd, buf, sizeof(buf))) < 0 ? -1 : 0);
		return;
	case 1:
		cmd = _IOC(dirs[fz_below(t, 4)], 's', fz_below(t, 40),
			   fz_below(t, 80));
		break;
	case 2: /* a real request with random bytes for its argument */
		cmd = _IOC(_IOC_READ | _IOC_WRITE, 's', 1 + fz_below(t, 17), 0);
		cmd |= (unsigned long)(fz_below(t, 2) ? 8 : 40) << _IOC_SIZESHIFT;
		break;
	default:
		cmd = (unsigned long)fz_rand(t) & 0xffffffff;
		break;
	}
	if (fz_chance(t, 1, 8) && (_IOC_NR(cmd) == 16 || _IOC_NR(cmd) == 2))
		cmd = (unsigned long)fz_rand(t) & 0xffffffff; /* no waits */
	record(t, sys_ioctl(t, fd, cmd,
			    (unsigned long)arg_ptr(t, buf, 64)));
}

static void op_fork(struct fz_thread *t)
{
	pid_t pid;
	int st;

	fz_add(&fz_stats->forks, 1);
	pid = fork();
	if (pid < 0) {
		record(t, -1);
		return;
	}
	if (pid == 0) {
		t->child = true;
		fz_child_ops(t);
		_exit(0);
	}
	record(t, 0);
	call_begin(t, FZ_SLOW_PATIENCE_MS);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	call_end(t);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fz_violation(t->p, "forked child %d ended with status %#x",
			     pid, st);
}

/*
 * @weight: how often a full thread picks it; @light: how often a light
 * thread does. Light threads leave out what blocks for long or takes the
 * address space's lock for writing (fork, mmap, munmap, mprotect, the
 * pinning of SCIF_REG), what makes connections (connect; open and close,
 * which churn the pool) and so on: the full threads keep all of it.
 */
struct fz_op_entry {
	const char *name;
	void (*fn)(struct fz_thread *t);
	unsigned int weight;
	unsigned int light;
	bool in_child;
};

static void op_send(struct fz_thread *t) { op_msg(t, true); }
static void op_recv(struct fz_thread *t) { op_msg(t, false); }

static const struct fz_op_entry ops[] = {
	{ "open", op_open,		8, 0, true },
	{ "close", op_close,		2, 0, true },
	{ "dup", op_dup,		1, 0, true },
	{ "nonblock", op_nonblock,	1, 2, true },
	{ "bind", op_bind,		5, 3, true },
	{ "listen", op_listen,		3, 2, true },
	{ "connect", op_connect,	5, 0, true },
	{ "accept", op_accept,		5, 1, false },
	{ "acceptreg", op_acceptreg,	1, 1, true },
	{ "send", op_send,		6, 4, true },
	{ "recv", op_recv,		6, 4, true },
	{ "reg", op_reg,		12, 0, true },
	{ "unreg", op_unreg,		6, 3, true },
	{ "rma", op_rma,		14, 3, true },
	{ "node_ids", op_node_ids,	1, 3, true },
	{ "fence", op_fence,		6, 3, true },
	{ "mmap", op_mmap,		6, 0, true },
	{ "munmap", op_munmap,		3, 0, true },
	{ "mprotect", op_mprotect,	2, 0, true },
	{ "touch", op_touch,		5, 4, true },
	{ "poll", op_poll,		3, 2, true },
	{ "raw", op_raw,		3, 5, true },
	{ "fork", op_fork,		1, 0, false },
};

static unsigned int op_weight(const struct fz_thread *t, unsigned int i,
			      bool child)
{
	if (child)
		return ops[i].in_child ? ops[i].weight : 0;
	return t->light ? ops[i].light : ops[i].weight;
}

static long cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

static void run_one(struct fz_thread *t, bool child)
{
	unsigned int total = 0, r, i, w;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += op_weight(t, i, child);
	r = (unsigned int)fz_below(t, total);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		w = op_weight(t, i, child);
		if (r < w && !t->p->o->verbose) {
			fz_cur_op = (int)i;
			ops[i].fn(t);
			return;
		}
		if (r < w) {
			/* -v: where the time goes (four more clock reads) */
			long start = fz_now_us(), cpu = cpu_us();
			unsigned long took;

			fz_cur_op = (int)i;
			ops[i].fn(t);
			took = (unsigned long)(fz_now_us() - start);
			fz_add(&fz_stats->op_runs[i], 1);
			fz_add(&fz_stats->op_us[i], took);
			fz_add(&fz_stats->op_cpu_us[i],
			       (unsigned long)(cpu_us() - cpu));
			fz_max(&fz_stats->op_max_us[i], took);
			return;
		}
		r -= w;
	}
}

const char *fz_op_name(int op)
{
	return op < (int)ARRAY_SIZE(ops) ? ops[op].name : NULL;
}

void fz_op(struct fz_thread *t)
{
	run_one(t, false);
}

static void child_alarm(int sig)
{
	(void)sig;
}

/*
 * In a forked child: a handful of operations on the inherited endpoints,
 * with a repeating timer so that no blocking request lasts.
 */
void fz_child_ops(struct fz_thread *t)
{
	struct sigaction sa;
	struct itimerval it = {
		.it_interval = { 0, 10000 },
		.it_value = { 0, 10000 },
	};
	int n = 1 + (int)fz_below(t, 8);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = child_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	/* Not the parent's next choices: a different stream, same seed. */
	t->rng = fz_mix(t->rng ^ 0x6368696c64ULL);
	/*
	 * Mappings of /dev/scif are not inherited (VM_DONTCOPY): their
	 * addresses are free here, and whatever the child maps there is not
	 * one of them.
	 */
	memset(t->p->maps, 0, sizeof(t->p->maps));
	while (n--)
		run_one(t, true);
}
