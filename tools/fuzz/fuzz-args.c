// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: what every operation uses. Issuing a call so that the signal
 * thread knows how long it may block, and recording its outcome; the
 * process's pool of endpoints (pick one, add one, change its state); and the
 * pickers of arguments: lengths, offsets in the registered address space,
 * user addresses, flags, listeners to connect to and the pointer to the
 * argument structure, mostly valid and sometimes hostile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fuzz-ops.h"

/* A call that may block starts: the signal thread may now interrupt it. */
long fz_call_begin(struct fz_thread *t, long patience)
{
	long now = fz_now_ms();

	__atomic_store_n(&t->call_patience, patience, __ATOMIC_RELAXED);
	__atomic_store_n(&t->call_start, now, __ATOMIC_RELAXED);
	return now;
}

void fz_call_end(struct fz_thread *t)
{
	__atomic_store_n(&t->call_start, 0, __ATOMIC_RELAXED);
}

long fz_sys_ioctl_wait(struct fz_thread *t, int fd, unsigned long cmd,
		       unsigned long arg, long patience)
{
	unsigned long took, max;
	long ret, start;
	int err;

	start = fz_call_begin(t, patience);
	ret = ioctl(fd, cmd, arg);
	err = errno;
	fz_call_end(t);
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

long fz_sys_ioctl(struct fz_thread *t, int fd, unsigned long cmd,
		  unsigned long arg)
{
	return fz_sys_ioctl_wait(t, fd, cmd, arg, FZ_PATIENCE_MS);
}

void fz_record_ret(struct fz_thread *t, long ret)
{
	fz_record(t, ret, ret < 0 ? errno : 0);
}

/* ---- picking arguments ---- */

int fz_pick_slot(struct fz_thread *t, int want)
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
int fz_pick_fd(struct fz_thread *t, bool connected)
{
	int fd;

	if (fz_chance(t, 1, 50))
		return fz_chance(t, 1, 2) ? -1 : 1000;
	if (connected) {
		fd = fz_pick_slot(t, fz_chance(t, 1, 2) ? FZ_CONNECTED : FZ_ACCEPTED);
		if (fd >= 0)
			return fd;
	}
	return fz_pick_slot(t, -1);
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
void fz_add_slot(struct fz_thread *t, int fd, int kind, int port)
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

void fz_set_kind(struct fz_thread *t, int fd, int kind, int port)
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

uint64_t fz_pick_len(struct fz_thread *t)
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
fz_off fz_grid_off(struct fz_thread *t, bool ro)
{
	return (ro ? FZ_RO_BASE : FZ_RW_BASE) +
	       (fz_off)fz_below(t, FZ_GRID_SLOTS) * FZ_GRID_STEP +
	       (fz_chance(t, 1, 5) ? (fz_off)fz_below(t, 16) * FZ_PAGE : 0);
}

fz_off fz_edge_off(struct fz_thread *t)
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
fz_off fz_pick_off(struct fz_thread *t, bool allow_ro)
{
	struct fz_proc *p = t->p;
	unsigned int r = (unsigned int)fz_below(t, 100);
	fz_off off;

	if (r < 10)
		return fz_edge_off(t);
	if (r < 25) {
		off = __atomic_load_n(&p->known[fz_below(t, FZ_KNOWN)],
				      __ATOMIC_RELAXED);
		return off + (fz_chance(t, 1, 4) ? (fz_off)fz_below(t, 4) * 64 : 0);
	}
	return fz_grid_off(t, allow_ro && r < 45);
}

unsigned long fz_rma_flags(struct fz_thread *t)
{
	if (fz_chance(t, 1, 30))
		return (unsigned long)fz_rand(t) & 0xffffffff;
	return fz_below(t, 16);
}

/* A user address to read from: anything; @write: only our scratch. */
uint64_t fz_pick_addr(struct fz_thread *t, uint64_t len, bool write)
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
void *fz_arg_ptr(struct fz_thread *t, void *good, size_t size)
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

/* Someone's listener: ours, another process's, or the peer node's. */
void fz_pick_target(struct fz_thread *t, struct scif_port_id *dst)
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
