// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: the mapped stream. SCIF_STREAM_MAP with good and bad
 * arguments on any endpoint, mmap() of its file with good and bad
 * offsets, lengths and protections, then stores of garbage into what the
 * process may write (its positions, the peer's indices, the peer's ring)
 * and SCIF_STREAM_WAKE. The kernel must take every value as a lie at
 * worst: a reset connection, never a crash or a write elsewhere. A
 * writable mapping of the read-only part, or a size that is not a power
 * of 2, counts as a violation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-ops.h"

/* Map one part of @m's file as drawn; NULL if it was refused. */
static void *map_part(struct fz_thread *t, const struct scifioctl_stream_map *m,
		      bool ro, size_t *len)
{
	uint64_t off = ro ? m->ro_offset : m->rw_offset;
	int prot = ro ? PROT_READ : PROT_READ | PROT_WRITE;
	int flags = MAP_SHARED;
	void *a;

	*len = ro ? m->ro_len : m->rw_len;
	switch (fz_below(t, 12)) {
	case 0:
		prot |= PROT_WRITE;	/* the read-only part for writing */
		break;
	case 1:
		flags = MAP_PRIVATE;
		break;
	case 2:
		*len -= FZ_PAGE;
		break;
	case 3:
		off += FZ_PAGE * (1 + fz_below(t, 4));
		break;
	case 4:
		prot |= PROT_EXEC;
		break;
	}
	fz_call_begin(t, FZ_SLOW_PATIENCE_MS);
	a = mmap(NULL, *len, prot, flags, m->fd, (off_t)off);
	fz_call_end(t);
	fz_record_ret(t, a == MAP_FAILED ? -1 : 0);
	if (a == MAP_FAILED)
		return NULL;
	if (ro && (prot & PROT_WRITE))
		fz_violation(t->p, "the read-only part of a stream mapped for writing");
	if (flags == MAP_PRIVATE || (prot & PROT_EXEC))
		fz_violation(t->p, "a stream mapped private or executable");
	if (ro && !mprotect(a, *len, PROT_READ | PROT_WRITE))
		fz_violation(t->p, "mprotect() made a stream's read-only part writable");
	return a;
}

/* Garbage where the process may write: positions, peer's indices, ring. */
static void scribble(struct fz_thread *t, unsigned char *rw, size_t len)
{
	uint32_t *w = (uint32_t *)rw;
	unsigned int i, n = 1 + (unsigned int)fz_below(t, 8);
	size_t at;

	for (i = 0; i < n; i++) {
		switch (fz_below(t, 4)) {
		case 0:		/* read, sent, the locks, down */
			w[fz_below(t, 5)] += (uint32_t)fz_rand(t) %
					     (fz_chance(t, 1, 2) ? 64 : 1U << 31);
			break;
		case 1:		/* the peer's written, consumed, events */
			w[FZ_PAGE / 4 + fz_below(t, 4)] = (uint32_t)fz_rand(t);
			break;
		default:	/* anywhere in the page or the peer's ring */
			at = FZ_PAGE + fz_below(t, len - FZ_PAGE);
			rw[at] = (unsigned char)fz_rand(t);
			break;
		}
	}
}

void fz_op_stream_map(struct fz_thread *t)
{
	struct scifioctl_stream_map m;
	int fd = fz_pick_fd(t, fz_chance(t, 7, 8));
	unsigned char *rw = NULL, *ro = NULL;
	size_t rw_len = 0, ro_len = 0;
	long ret;

	memset(&m, 0, sizeof(m));
	if (fz_chance(t, 1, 20))
		m.flags = (uint32_t)fz_rand(t);
	ret = fz_sys_ioctl(t, fd, SCIF_STREAM_MAP,
			   (unsigned long)fz_arg_ptr(t, &m, sizeof(m)));
	fz_record_ret(t, ret);
	if (ret || !t->arg_good || m.fd < 0)
		return;
	if (!m.rx_size || (m.rx_size & (m.rx_size - 1)) ||
	    !m.tx_size || (m.tx_size & (m.tx_size - 1)))
		fz_violation(t->p, "SCIF_STREAM_MAP gave ring sizes %u and %u",
			     m.rx_size, m.tx_size);
	if (fz_chance(t, 3, 4))
		rw = map_part(t, &m, false, &rw_len);
	if (fz_chance(t, 3, 4))
		ro = map_part(t, &m, true, &ro_len);
	close(m.fd);
	/* A refused variant mapped nothing; a shortened one is not touched. */
	if (rw && rw_len == m.rw_len)
		scribble(t, rw, rw_len);
	if (ro && ro_len == m.ro_len)
		(void)__atomic_load_n(&ro[fz_below(t, ro_len)],
				      __ATOMIC_RELAXED);
	if (fz_chance(t, 1, 2)) {
		ret = fz_sys_ioctl(t, fd, SCIF_STREAM_WAKE, 0);
		fz_record_ret(t, ret);
	}
	if (rw)
		munmap(rw, rw_len);
	if (ro)
		munmap(ro, ro_len);
}
