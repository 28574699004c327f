// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: the operations on registered memory. The windows every new
 * connection gets, SCIF_REG and SCIF_UNREG, the four RMA copies, the fence
 * requests, and mmap(), munmap(), mprotect() of /dev/scif with loads and
 * stores into the mappings. Where the outcome alone proves a bug (a write
 * into the read-only grid reported as done), it counts a violation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <string.h>
#include <sys/mman.h>

#include "fuzz-ops.h"

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
	ret = fz_sys_ioctl(t, fd, SCIF_REG, (unsigned long)&req);
	fz_record_ret(t, ret);
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
	if (!fz_sys_ioctl(t, fd, SCIF_REG, (unsigned long)&req))
		fz_add(&fz_stats->registered, 1);
	return 0;
}

static void remember(struct fz_thread *t, fz_off off)
{
	__atomic_store_n(&t->p->known[fz_below(t, FZ_KNOWN)], off,
			 __ATOMIC_RELAXED);
}

void fz_op_reg(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	struct scifioctl_reg req;
	unsigned int src = (unsigned int)fz_below(t, 100);
	bool ro_only = false, ro_file = false;
	uint64_t pages;
	int fd = fz_pick_fd(t, fz_chance(t, 3, 4));
	long ret;

	memset(&req, 0, sizeof(req));
	pages = 1 + fz_below(t, 16);
	req.len = pages * FZ_PAGE;
	req.prot = (int)(1 + fz_below(t, 3));
	if (src < 60) {
		req.addr = fz_pick_addr(t, req.len, true);
		if (fz_chance(t, 1, 10))
			req.len = fz_pick_len(t);
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
		req.addr = fz_pick_addr(t, req.len, true);
		req.len = fz_pick_len(t);
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
		req.offset = fz_edge_off(t);
		break;
	case 4:
		req.flags = (int)fz_rand(t);
		req.offset = fz_grid_off(t, false);
		break;
	default:
		req.flags = SCIF_MAP_FIXED;
		req.offset = fz_grid_off(t, !(req.prot & SCIF_PROT_WRITE) &&
					 fz_chance(t, 1, 2));
		break;
	}
	/* Keep writable windows out of the read-only grid. */
	if ((req.prot & SCIF_PROT_WRITE) &&
	    (fz_in_ro_grid(req.offset, req.len) ||
	     (!(req.flags & SCIF_MAP_FIXED) && req.offset >= FZ_RO_BASE / 2)))
		req.offset = fz_grid_off(t, false);

	ret = fz_sys_ioctl(t, fd, SCIF_REG,
			   (unsigned long)fz_arg_ptr(t, &req, sizeof(req)));
	fz_record_ret(t, ret);
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

void fz_op_unreg(struct fz_thread *t)
{
	struct scifioctl_unreg req;
	int fd = fz_pick_fd(t, fz_chance(t, 3, 4));

	req.offset = fz_pick_off(t, true);
	req.len = fz_chance(t, 3, 4) ? (1 + fz_below(t, 16)) * FZ_PAGE :
				       fz_pick_len(t);
	fz_record_ret(t, fz_sys_ioctl(t, fd, SCIF_UNREG,
				      (unsigned long)fz_arg_ptr(t, &req,
								sizeof(req))));
}

void fz_op_rma(struct fz_thread *t)
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
	int fd = fz_pick_fd(t, true);
	long ret;

	memset(&req, 0, sizeof(req));
	req.len = fz_chance(t, 4, 5) ? (1 + fz_below(t, 4)) * FZ_PAGE :
				       fz_pick_len(t);
	if (fz_chance(t, 1, 4) && req.len > 64)
		req.len -= 64 * (1 + fz_below(t, 4));
	req.loffset = fz_pick_off(t, true);
	req.roffset = fz_pick_off(t, true);
	/* vreadfrom writes into req.addr: only scratch for that one */
	req.addr = fz_pick_addr(t, req.len, k == 2);
	req.flags = (int)fz_rma_flags(t);
	ret = fz_sys_ioctl(t, fd, cmds[k],
			   (unsigned long)fz_arg_ptr(t, &req, sizeof(req)));
	fz_record_ret(t, ret);
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

void fz_op_fence(struct fz_thread *t)
{
	int fd = fz_pick_fd(t, true);
	long ret;

	switch (fz_below(t, 3)) {
	case 0: {
		struct scifioctl_fence_mark req;
		int mark = -1;

		req.flags = (int)(1 + fz_below(t, 2));
		if (fz_chance(t, 1, 10))
			req.flags = (int)fz_rand(t);
		req.mark = fz_chance(t, 1, 10) ?
			   fz_pick_addr(t, 4, true) : (uint64_t)(uintptr_t)&mark;
		ret = fz_sys_ioctl(t, fd, SCIF_FENCE_MARK,
				   (unsigned long)fz_arg_ptr(t, &req,
							     sizeof(req)));
		fz_record_ret(t, ret);
		if (!ret && req.mark == (uint64_t)(uintptr_t)&mark &&
		    fz_chance(t, 1, 2)) {
			/* wait for it right away, sometimes */
			fz_sys_ioctl(t, fd, SCIF_FENCE_WAIT, (unsigned long)mark);
		}
		break;
	}
	case 1: {
		long mark = fz_chance(t, 1, 2) ? (long)fz_below(t, 8) :
			    (long)(int)fz_rand(t);

		fz_record_ret(t, fz_sys_ioctl(t, fd, SCIF_FENCE_WAIT,
					      (unsigned long)mark));
		break;
	}
	default: {
		struct scifioctl_fence_signal req;

		memset(&req, 0, sizeof(req));
		req.loff = fz_pick_off(t, true) + (fz_chance(t, 1, 3) ?
			   (fz_off)fz_below(t, FZ_PAGE / 8) * 8 : 0);
		req.roff = fz_pick_off(t, true) + (fz_chance(t, 1, 3) ?
			   (fz_off)fz_below(t, FZ_PAGE / 8) * 8 : 0);
		req.lval = fz_rand(t);
		req.rval = fz_rand(t);
		req.flags = (int)(1 + fz_below(t, 2)) |
			    (int)(1 + fz_below(t, 3)) << 4;
		if (fz_chance(t, 1, 15))
			req.flags = (int)fz_rand(t);
		ret = fz_sys_ioctl(t, fd, SCIF_FENCE_SIGNAL,
				   (unsigned long)fz_arg_ptr(t, &req,
							     sizeof(req)));
		fz_record_ret(t, ret);
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

void fz_op_mmap(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int fd = fz_pick_fd(t, true);
	int prot = map_prot(t);
	int flags = fz_chance(t, 1, 15) ? MAP_PRIVATE : MAP_SHARED;
	size_t len = (1 + fz_below(t, 4)) * FZ_PAGE;
	fz_off off = fz_pick_off(t, true);
	char *a;
	int i;

	if (fz_chance(t, 1, 20))
		len = fz_chance(t, 1, 2) ? 0 : (size_t)fz_pick_len(t);
	if (fz_chance(t, 1, 30))
		flags |= MAP_POPULATE;
	fz_call_begin(t, FZ_SLOW_PATIENCE_MS);
	a = mmap(NULL, len, prot, flags, fd, off);
	fz_call_end(t);
	if (a == MAP_FAILED) {
		fz_record_ret(t, -1);
		return;
	}
	fz_record_ret(t, 0);
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

void fz_op_munmap(struct fz_thread *t)
{
	struct fz_map m;
	size_t skip;
	int i = get_map(t, &m);

	if (i < 0) {
		fz_record_ret(t, munmap(t->p->scratch, 0));	/* EINVAL */
		return;
	}
	if (m.whole && m.len > FZ_PAGE && fz_chance(t, 1, 4)) {
		/* a hole in the middle; the rest stays mapped */
		skip = (1 + fz_below(t, m.len / FZ_PAGE - 1)) * FZ_PAGE;
		if (update_map(t, i, m.addr, false))
			fz_record_ret(t, munmap(m.addr + skip, FZ_PAGE));
		return;
	}
	/*
	 * Forget the mapping before it goes: any later mmap may reuse its
	 * address, and an mprotect() of that one is not one of this mapping.
	 */
	if (update_map(t, i, m.addr, true))
		fz_record_ret(t, munmap(m.addr, m.len));
}

void fz_op_mprotect(struct fz_thread *t)
{
	struct fz_map m;
	int prot = map_prot(t);
	long ret;

	if (get_map(t, &m) < 0) {
		fz_record_ret(t, mprotect(t->p->scratch, 1, PROT_READ)); /* EINVAL */
		return;
	}
	ret = mprotect(m.addr, m.len, prot);
	fz_record_ret(t, ret);
	if (!ret && m.whole && (prot & PROT_WRITE) &&
	    fz_in_ro_grid(m.off, m.len))
		fz_violation(t->p,
			     "mprotect(PROT_WRITE) of a shared mapping of the read-only grid (offset %lld) succeeded",
			     (long long)m.off);
}

/* Read and write a mapping; faults are caught and counted. */
void fz_op_touch(struct fz_thread *t)
{
	struct fz_map m;
	char *c;
	size_t i;
	bool wr = fz_chance(t, 1, 2);

	if (get_map(t, &m) < 0) {
		fz_record_ret(t, 0);
		return;
	}
	i = fz_below(t, m.len);
	c = m.addr + i;
	fz_record_ret(t, 0);
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
