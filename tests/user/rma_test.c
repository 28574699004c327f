// SPDX-License-Identifier: GPL-2.0
/*
 * Remote memory access from user mode, on the loopback node: one process
 * holds both ends of a connection, so the "peer" windows of one endpoint are
 * the local windows of the other, backed by this process's own buffers.
 *
 * Usage: scif-rma-test [iterations [seed]]
 *
 * - every errno the specification lists for the RMA calls, and EFAULT for
 *   every argument pointer of the raw requests;
 * - randomized readfrom/writeto/vreadfrom/vwriteto in both directions with
 *   random offsets, lengths and alignments, ranges spanning several
 *   windows, random SCIF_RMA_* flags (with swdma loaded, those without
 *   SCIF_RMA_USECPU go through a DMA engine; RMAs without SCIF_RMA_SYNC are
 *   fenced before the check), checked against a shadow copy;
 * - fences: marks of both sides, and signals of local and remote values;
 * - RLIMIT_MEMLOCK as an unprivileged user: registering past the limit fails
 *   with ENOMEM and leaves nothing pinned (VmPin in /proc/self/status);
 * - a read-only window over a root-owned read-only file, as an unprivileged
 *   user: no fence signal, readfrom or peer writeto writes into it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scif_test.h"

#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define NPAGES		48
/* Fixed places of the random test's windows in each registered space. */
#define BASE_A		0x100000
#define BASE_B		0x400000
/* An address no user process owns: the start of the kernel's direct map. */
#define KERNEL_ADDR	0xffff888000000000ULL

static long page;

static void *map_pages(size_t n, int prot)
{
	return map_anon(n * page, prot);
}

/* Wait up to 5 s for a signalled 64-bit value. */
static int wait_value(__u64 *p, __u64 want)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == want)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void test_errors(void)
{
	scif_epd_t a, b, u;
	struct scifioctl_reg reg;
	struct scifioctl_copy cp;
	struct scifioctl_fence_mark fm;
	char *buf = map_pages(8, PROT_READ | PROT_WRITE);
	char *ro = map_pages(1, PROT_READ);
	/* Reserved but inaccessible, so that nothing else lands there. */
	char *gone = map_pages(2, PROT_NONE);
	struct scifioctl_reg *roreg;
	int mark, dn;
	off_t o;
	unsigned long reqs[] = { SCIF_REG, SCIF_UNREG, SCIF_READFROM,
		SCIF_WRITETO, SCIF_VREADFROM, SCIF_VWRITETO, SCIF_FENCE_MARK,
		SCIF_FENCE_SIGNAL };
	unsigned int i;

	make_pair(&a, &b);
	u = scif_open();
	if (u == SCIF_OPEN_FAILED)
		bail("scif_open");

	/* scif_register */
	EXPECT_ERR(scif_register(a, buf + 1, page, 0, RW, 0), EINVAL);
	EXPECT_ERR(scif_register(a, buf, page + 1, 0, RW, 0), EINVAL);
	EXPECT_ERR(scif_register(a, buf, 0, 0, RW, 0), EINVAL);
	EXPECT_ERR(scif_register(a, buf, page, 0, 0, 0), EINVAL);
	EXPECT_ERR(scif_register(a, buf, page, 0, 4, 0), EINVAL);
	EXPECT_ERR(scif_register(a, buf, page, 0, RW, 1), EINVAL);
	/* SCIF_MAP_KERNEL is for kernel callers. */
	EXPECT_ERR(scif_register(a, buf, page, 0, RW, 0x20), EINVAL);
	EXPECT_ERR(scif_register(a, buf, page, 1, RW, SCIF_MAP_FIXED), EINVAL);
	EXPECT_ERR(scif_register(a, buf, page, -page, RW, SCIF_MAP_FIXED),
		   EINVAL);
	EXPECT_ERR(scif_register(a, gone, page, 0, RW, 0), EFAULT);
	EXPECT_ERR(scif_register(u, buf, page, 0, RW, 0), ENOTCONN);
	EXPECT_ERR(scif_register(-1, buf, page, 0, RW, 0), EBADF);
	dn = open("/dev/null", O_RDWR);
	EXPECT_ERR(scif_register(dn, buf, page, 0, RW, 0), ENOTTY);
	close(dn);
	memset(&reg, 0, sizeof(reg));
	reg.addr = KERNEL_ADDR;
	reg.len = page;
	reg.prot = RW;
	EXPECT_ERR(ioctl(a, SCIF_REG, &reg), EFAULT);
	reg.addr = 0x100000000ULL - page;
	reg.len = 2 * page;
	EXPECT_ERR(ioctl(a, SCIF_REG, &reg), EFAULT);
	EXPECT_EQ(scif_register(a, buf, 4 * page, 0, RW, SCIF_MAP_FIXED), 0);
	EXPECT_ERR(scif_register(a, buf, page, 3 * page, RW, SCIF_MAP_FIXED),
		   EADDRINUSE);
	o = scif_register(a, buf, page, 0, RW, 0);
	tap_ok(o >= 4 * page && !(o % page), "placed window at %ld",
	       (long)o);
	/* out_offset unwritable: the window is taken down again. */
	roreg = (struct scifioctl_reg *)map_pages(1, PROT_READ | PROT_WRITE);
	memset(roreg, 0, sizeof(*roreg));
	roreg->addr = (uintptr_t)buf;
	roreg->len = page;
	roreg->offset = 64 * page;
	roreg->prot = RW;
	roreg->flags = SCIF_MAP_FIXED;
	mprotect(roreg, page, PROT_READ);
	EXPECT_ERR(ioctl(a, SCIF_REG, roreg), EFAULT);
	EXPECT_ERR(scif_unregister(a, 64 * page, page), ENXIO);

	/* scif_unregister */
	/*
	 * A range holding one whole window and part of the next: refused,
	 * and neither window is touched (this once sent the first window's
	 * id from a NULL array).
	 */
	EXPECT_EQ(scif_register(a, buf + 4 * page, page, 80 * page, RW,
				SCIF_MAP_FIXED), 80 * page);
	EXPECT_EQ(scif_register(a, buf + 5 * page, 2 * page, 81 * page, RW,
				SCIF_MAP_FIXED), 81 * page);
	EXPECT_ERR(scif_unregister(a, 80 * page, 2 * page), EINVAL);
	EXPECT_EQ(scif_unregister(a, 80 * page, page), 0);
	EXPECT_EQ(scif_unregister(a, 81 * page, 2 * page), 0);
	EXPECT_ERR(scif_unregister(a, 0, page), EINVAL);
	EXPECT_ERR(scif_unregister(a, -page, page), EINVAL);
	EXPECT_ERR(scif_unregister(a, 1000 * page, page), ENXIO);
	EXPECT_ERR(scif_unregister(u, 0, page), ENOTCONN);
	EXPECT_EQ(scif_unregister(a, o, page), 0);

	/* b: one read-only and one write-only window for EACCES. */
	EXPECT_EQ(scif_register(b, buf + 4 * page, page, 0, SCIF_PROT_READ,
				SCIF_MAP_FIXED), 0);
	EXPECT_EQ(scif_register(b, buf + 5 * page, page, page,
				SCIF_PROT_WRITE, SCIF_MAP_FIXED), page);
	EXPECT_EQ(scif_register(a, buf + 6 * page, page, 16 * page,
				SCIF_PROT_READ, SCIF_MAP_FIXED), 16 * page);

	/* scif_readfrom / scif_writeto */
	EXPECT_EQ(scif_writeto(a, 0, 16, page, 0), 0);
	EXPECT_EQ(scif_readfrom(a, 0, 16, 0, 0), 0);
	EXPECT_ERR(scif_writeto(a, 0, 16, page, 0x100), EINVAL);
	EXPECT_ERR(scif_readfrom(a, 0, 16, 0, -1), EINVAL);
	EXPECT_ERR(scif_writeto(a, 0, 16, 0, 0), EACCES);
	EXPECT_ERR(scif_readfrom(a, 0, 16, page, 0), EACCES);
	/* Local read-only window as the destination of a read. */
	EXPECT_ERR(scif_readfrom(a, 16 * page, 16, 0, 0), EACCES);
	EXPECT_ERR(scif_writeto(a, 8 * page, 16, page, 0), ENXIO);
	EXPECT_ERR(scif_writeto(a, 0, 16, 8 * page, 0), ENXIO);
	EXPECT_ERR(scif_writeto(a, -page, 16, page, 0), ENXIO);
	EXPECT_ERR(scif_writeto(a, 0, 16, -page, 0), ENXIO);
	/* Past the end of the last window / across a hole. */
	EXPECT_ERR(scif_writeto(a, 4 * page - 8, 16, page, 0), ENXIO);
	EXPECT_ERR(scif_writeto(u, 0, 16, 0, 0), ENOTCONN);

	/* scif_vreadfrom / scif_vwriteto */
	EXPECT_EQ(scif_vwriteto(a, buf + 3, 100, page, 0), 0);
	EXPECT_EQ(scif_vreadfrom(a, buf + 3, 100, 0, 0), 0);
	EXPECT_ERR(scif_vreadfrom(a, buf, 16, 0, 0x100), EINVAL);
	EXPECT_ERR(scif_vwriteto(a, buf, 16, 0, 0), EACCES);
	EXPECT_ERR(scif_vreadfrom(a, buf, 16, page, 0), EACCES);
	EXPECT_ERR(scif_vreadfrom(a, buf, 16, 8 * page, 0), ENXIO);
	EXPECT_ERR(scif_vwriteto(a, buf, 16, -8, 0), ENXIO);
	EXPECT_ERR(scif_vreadfrom(a, NULL, 16, 0, 0), EFAULT);
	EXPECT_ERR(scif_vreadfrom(a, gone, 16, 0, 0), EFAULT);
	EXPECT_ERR(scif_vwriteto(a, gone, 16, page, 0), EFAULT);
	/* Read into memory the caller may not write. */
	EXPECT_ERR(scif_vreadfrom(a, ro, 16, 0, 0), EFAULT);
	memset(&cp, 0, sizeof(cp));
	cp.addr = KERNEL_ADDR;
	cp.len = 16;
	EXPECT_ERR(ioctl(a, SCIF_VREADFROM, &cp), EFAULT);
	cp.roffset = page;
	EXPECT_ERR(ioctl(a, SCIF_VWRITETO, &cp), EFAULT);
	EXPECT_ERR(scif_vwriteto(u, buf, 16, 0, 0), ENOTCONN);

	/* fences */
	EXPECT_ERR(scif_fence_mark(a, 0, &mark), EINVAL);
	EXPECT_ERR(scif_fence_mark(a, SCIF_FENCE_INIT_SELF |
				   SCIF_FENCE_INIT_PEER, &mark), EINVAL);
	EXPECT_ERR(scif_fence_mark(a, SCIF_FENCE_INIT_SELF, (int *)gone),
		   EFAULT);
	EXPECT_ERR(scif_fence_mark(a, SCIF_FENCE_INIT_PEER, (int *)ro),
		   EFAULT);
	memset(&fm, 0, sizeof(fm));
	fm.flags = SCIF_FENCE_INIT_SELF;
	fm.mark = KERNEL_ADDR;
	EXPECT_ERR(ioctl(a, SCIF_FENCE_MARK, &fm), EFAULT);
	EXPECT_ERR(scif_fence_mark(u, SCIF_FENCE_INIT_SELF, &mark), ENOTCONN);
	EXPECT_ERR(scif_fence_wait(a, -1), EINVAL);
	EXPECT_ERR(scif_fence_wait(u, 0), ENOTCONN);
	EXPECT_ERR(scif_fence_signal(a, 0, 1, 0, 1, SCIF_SIGNAL_LOCAL),
		   EINVAL);
	EXPECT_ERR(scif_fence_signal(a, 0, 1, 0, 1, SCIF_FENCE_INIT_SELF),
		   EINVAL);
	EXPECT_ERR(scif_fence_signal(a, 0, 1, 0, 1, SCIF_FENCE_INIT_SELF |
				     SCIF_SIGNAL_LOCAL | 0x100), EINVAL);
	EXPECT_ERR(scif_fence_signal(a, 2, 1, 0, 1, SCIF_FENCE_INIT_SELF |
				     SCIF_SIGNAL_LOCAL), EINVAL);
	EXPECT_ERR(scif_fence_signal(a, 0, 1, 6, 1, SCIF_FENCE_INIT_SELF |
				     SCIF_SIGNAL_REMOTE), EINVAL);
	EXPECT_ERR(scif_fence_signal(a, 8 * page, 1, 0, 1,
				     SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL),
		   ENXIO);
	EXPECT_ERR(scif_fence_signal(a, 0, 1, 8 * page, 1,
				     SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE),
		   ENXIO);
	EXPECT_ERR(scif_fence_signal(a, -8, 1, 0, 1, SCIF_FENCE_INIT_SELF |
				     SCIF_SIGNAL_LOCAL), ENXIO);
	EXPECT_ERR(scif_fence_signal(u, 0, 1, 0, 1, SCIF_FENCE_INIT_SELF |
				     SCIF_SIGNAL_LOCAL), ENOTCONN);

	/* Every request with an unreadable argument. */
	for (i = 0; i < ARRAY_SIZE(reqs); i++) {
		errno = 0;
		tap_ok(ioctl(a, reqs[i], gone) == -1 && errno == EFAULT,
		       "request 0x%lx with an unmapped argument: EFAULT",
		       reqs[i]);
	}

	/* After the peer closed. */
	scif_close(b);
	EXPECT_ERR_SOON(scif_writeto(a, 0, 16, page, 0), ECONNRESET);
	EXPECT_ERR(scif_vreadfrom(a, buf, 16, 0, 0), ECONNRESET);
	EXPECT_ERR(scif_register(a, buf, page, 0, RW, 0), ECONNRESET);
	EXPECT_ERR(scif_fence_mark(a, SCIF_FENCE_INIT_PEER, &mark),
		   ECONNRESET);
	scif_close(a);
	scif_close(u);
	munmap(buf, 8 * page);
	munmap(ro, page);
	munmap(roreg, page);
	munmap(gone, 2 * page);
}

struct side {
	scif_epd_t epd;
	unsigned char *buf, *shadow;
	long base;
};

static void fill_random(unsigned char *p, unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i] = (unsigned char)rand();
		s[i] = p[i];
	}
}

/* Register @s->buf as contiguous windows of 1 to 8 pages at @s->base. */
static int register_windows(struct side *s)
{
	int done = 0, n, nwin = 0;

	while (done < NPAGES) {
		n = 1 + rand() % 8;
		if (n > NPAGES - done)
			n = NPAGES - done;
		if (scif_register(s->epd, s->buf + (size_t)done * page,
				  (size_t)n * page, s->base + done * page, RW,
				  SCIF_MAP_FIXED) != s->base + done * page)
			return -1;
		done += n;
		nwin++;
	}
	return nwin;
}

static void test_random(int iters)
{
	static const int flagset[] = { 0, SCIF_RMA_USECPU, SCIF_RMA_SYNC,
		SCIF_RMA_ORDERED, SCIF_RMA_SYNC | SCIF_RMA_ORDERED,
		SCIF_RMA_USECPU | SCIF_RMA_ORDERED, SCIF_RMA_USECACHE,
		SCIF_RMA_USECPU | SCIF_RMA_SYNC | SCIF_RMA_ORDERED };
	size_t size = (size_t)NPAGES * page, len, lo, ro;
	struct side sd[2];
	unsigned char *v, *vs;
	int i, op, flags, ret, bad = 0, w0, w1, mark;
	struct side *me, *peer;
	const char *what;

	make_pair(&sd[0].epd, &sd[1].epd);
	sd[0].base = BASE_A;
	sd[1].base = BASE_B;
	for (i = 0; i < 2; i++) {
		sd[i].buf = map_pages(NPAGES, PROT_READ | PROT_WRITE);
		sd[i].shadow = malloc(size);
		if (!sd[i].shadow)
			bail("malloc");
		fill_random(sd[i].buf, sd[i].shadow, size);
	}
	v = map_pages(NPAGES, PROT_READ | PROT_WRITE);
	vs = malloc(size);
	if (!vs)
		bail("malloc");
	fill_random(v, vs, size);
	w0 = register_windows(&sd[0]);
	w1 = register_windows(&sd[1]);
	tap_ok(w0 > 1 && w1 > 1, "random: %d and %d windows registered", w0,
	       w1);
	if (w0 < 0 || w1 < 0)
		return;

	for (i = 0; i < iters && bad < 5; i++) {
		me = &sd[rand() % 2];
		peer = me == &sd[0] ? &sd[1] : &sd[0];
		op = rand() % 4;
		flags = flagset[rand() % ARRAY_SIZE(flagset)];
		len = random_len(page, 6 * page);
		lo = (size_t)rand() % (size - len + 1);
		ro = (size_t)rand() % (size - len + 1);
		switch (op) {
		case 0:
			what = "writeto";
			ret = scif_writeto(me->epd, me->base + lo, len,
					   peer->base + ro, flags);
			memcpy(peer->shadow + ro, me->shadow + lo, len);
			break;
		case 1:
			what = "readfrom";
			ret = scif_readfrom(me->epd, me->base + lo, len,
					    peer->base + ro, flags);
			memcpy(me->shadow + lo, peer->shadow + ro, len);
			break;
		case 2:
			what = "vwriteto";
			ret = scif_vwriteto(me->epd, v + lo, len,
					    peer->base + ro, flags);
			memcpy(peer->shadow + ro, vs + lo, len);
			break;
		default:
			what = "vreadfrom";
			ret = scif_vreadfrom(me->epd, v + lo, len,
					     peer->base + ro, flags);
			memcpy(vs + lo, peer->shadow + ro, len);
			break;
		}
		/* Without SYNC, a DMA engine may still be at it: fence. */
		if (!ret && !(flags & SCIF_RMA_SYNC) &&
		    (scif_fence_mark(me->epd, SCIF_FENCE_INIT_SELF, &mark) ||
		     scif_fence_wait(me->epd, mark)))
			ret = -1;
		if (ret || memcmp(sd[0].buf, sd[0].shadow, size) ||
		    memcmp(sd[1].buf, sd[1].shadow, size) ||
		    memcmp(v, vs, size)) {
			bad++;
			tap_ok(0, "random %d: %s len %zu lo %zu ro %zu flags %#x: ret %d (%s)",
			       i, what, len, lo, ro, flags, ret,
			       ret ? strerror(errno) : "data differs");
			/* Resynchronise so that one failure is reported once. */
			memcpy(sd[0].shadow, sd[0].buf, size);
			memcpy(sd[1].shadow, sd[1].buf, size);
			memcpy(vs, v, size);
		}
		/* Keep the data changing. */
		if (!(i % 8)) {
			lo = (size_t)rand() % (size - 256);
			fill_random(sd[i % 2].buf + lo, sd[i % 2].shadow + lo,
				    256);
		}
	}
	tap_ok(!bad, "random: %d RMAs verified against the shadow copies", i);

	/* Fences around the random traffic. */
	EXPECT_EQ(scif_fence_mark(sd[0].epd, SCIF_FENCE_INIT_SELF, &mark), 0);
	EXPECT_EQ(scif_fence_wait(sd[0].epd, mark), 0);
	EXPECT_EQ(scif_fence_mark(sd[0].epd, SCIF_FENCE_INIT_PEER, &mark), 0);
	EXPECT_EQ(scif_fence_wait(sd[0].epd, mark), 0);
	EXPECT_EQ(scif_fence_mark(sd[1].epd, SCIF_FENCE_INIT_PEER, &mark), 0);
	EXPECT_EQ(scif_fence_wait(sd[1].epd, mark), 0);

	{
		__u64 *l0 = (__u64 *)(sd[0].buf + 3 * page + 8);
		__u64 *r0 = (__u64 *)(sd[1].buf + 7 * page + 4);
		__u64 lv = 0x1122334455667788ULL, rv = 0x99aabbccddeeff00ULL;

		*l0 = 0;
		*r0 = 0;
		EXPECT_EQ(scif_writeto(sd[0].epd, BASE_A, 4 * page, BASE_B,
				       0), 0);
		EXPECT_EQ(scif_fence_signal(sd[0].epd, BASE_A + 3 * page + 8,
					    lv, BASE_B + 7 * page + 4, rv,
					    SCIF_FENCE_INIT_SELF |
					    SCIF_SIGNAL_LOCAL |
					    SCIF_SIGNAL_REMOTE), 0);
		tap_ok(wait_value(l0, lv), "signal: local value written (INIT_SELF)");
		tap_ok(wait_value(r0, rv), "signal: remote value written (INIT_SELF)");
		EXPECT_EQ(scif_fence_signal(sd[0].epd, BASE_A + 3 * page + 8,
					    lv + 1, 0, 0, SCIF_FENCE_INIT_PEER |
					    SCIF_SIGNAL_LOCAL), 0);
		tap_ok(wait_value(l0, lv + 1), "signal: local value written (INIT_PEER)");
		EXPECT_EQ(scif_fence_signal(sd[1].epd, 0, 0,
					    BASE_A + 3 * page + 8, lv + 2,
					    SCIF_FENCE_INIT_PEER |
					    SCIF_SIGNAL_REMOTE), 0);
		tap_ok(wait_value(l0, lv + 2), "signal: remote value written (INIT_PEER)");
		EXPECT_EQ(scif_fence_signal(sd[1].epd, BASE_B + 7 * page + 4,
					    rv + 1, 0, 0, SCIF_FENCE_INIT_SELF |
					    SCIF_SIGNAL_LOCAL), 0);
		tap_ok(wait_value(r0, rv + 1), "signal: 4-byte aligned local offset");
	}

	EXPECT_EQ(scif_unregister(sd[0].epd, BASE_A, size), 0);
	EXPECT_ERR(scif_writeto(sd[1].epd, BASE_B, 16, BASE_A, 0), ENXIO);
	EXPECT_EQ(scif_unregister(sd[1].epd, BASE_B, size), 0);
	scif_close(sd[0].epd);
	scif_close(sd[1].epd);
	for (i = 0; i < 2; i++) {
		munmap(sd[i].buf, size);
		free(sd[i].shadow);
	}
	munmap(v, size);
	free(vs);
}

/* In a child: drop privilege, lower RLIMIT_MEMLOCK to 16 pages. */
static void memlock_child(void *arg)
{
	struct rlimit rl = { 16 * page, 16 * page };
	char *buf;
	scif_epd_t a, b;
	off_t o1, o2;
	long base;

	(void)arg;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		bail("setrlimit");
	if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
		bail("setuid");
	buf = map_pages(64, PROT_READ | PROT_WRITE);
	memset(buf, 1, 64 * page);
	make_pair(&a, &b);
	base = vm_pin_kb();
	tap_ok(base == 0, "memlock: nothing pinned at the start (VmPin %ld kB)",
	       base);
	o1 = scif_register(a, buf, 8 * page, 0, RW, 0);
	tap_ok(o1 >= 0, "memlock: 8 of 16 pages registered");
	EXPECT_EQ(vm_pin_kb(), 8 * page / 1024);
	EXPECT_ERR(scif_register(a, buf + 8 * page, 9 * page, 0, RW, 0),
		   ENOMEM);
	EXPECT_ERR(scif_register(b, buf, 32 * page, 0, RW, 0), ENOMEM);
	EXPECT_EQ(vm_pin_kb(), 8 * page / 1024);
	/* Temporary pins of the v* calls count too. */
	EXPECT_ERR(scif_vwriteto(a, buf + 8 * page, 9 * page, o1, 0), ENOMEM);
	EXPECT_EQ(vm_pin_kb(), 8 * page / 1024);
	o2 = scif_register(b, buf + 8 * page, 8 * page, 0, RW, 0);
	tap_ok(o2 >= 0, "memlock: exactly up to the limit");
	EXPECT_ERR(scif_register(a, buf + 16 * page, page, 0, RW, 0), ENOMEM);
	EXPECT_EQ(scif_unregister(a, o1, 8 * page), 0);
	EXPECT_EQ(scif_unregister(b, o2, 8 * page), 0);
	EXPECT_EQ(vm_pin_settles(0), 0);
	o1 = scif_register(a, buf, 16 * page, 0, RW, 0);
	tap_ok(o1 >= 0, "memlock: the whole limit is usable again");
	scif_close(a);
	scif_close(b);
	EXPECT_EQ(vm_pin_settles(0), 0);
}

#define RO_FILE		"/tmp/scif-rma-ro"
#define RO_MAGIC	0x5a

/*
 * In a child, as an unprivileged user: a root-owned 0444 file mapped
 * read-only and shared, registered read-only. No SCIF path may write into
 * its page cache: local and remote fence signals (immediate and deferred),
 * a readfrom into it, a writeto from the peer, CPU and DMA alike.
 */
static void ro_file_child(void *arg)
{
	int flags[] = { SCIF_RMA_USECPU | SCIF_RMA_SYNC, SCIF_RMA_SYNC };
	scif_epd_t a, b;
	unsigned int i;
	char *file, *buf;
	off_t ro, rw;
	int fd, mark;

	(void)arg;
	if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
		bail("setuid");
	fd = open(RO_FILE, O_RDONLY);
	if (fd < 0)
		bail("open " RO_FILE);
	file = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED)
		bail("mmap " RO_FILE);
	buf = map_pages(1, PROT_READ | PROT_WRITE);
	memset(buf, 0x11, page);
	make_pair(&a, &b);
	EXPECT_ERR(scif_register(a, file, page, 0, RW, 0), EFAULT);
	ro = scif_register(a, file, page, 0, SCIF_PROT_READ, 0);
	tap_ok(ro >= 0, "ro file: registered read-only at %ld", (long)ro);
	rw = scif_register(b, buf, page, 0, RW, 0);
	tap_ok(rw >= 0, "ro file: peer buffer registered at %ld", (long)rw);

	EXPECT_ERR(scif_fence_signal(a, ro, 0x4141414141414141ULL, 0, 0,
				     SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL),
		   EACCES);
	EXPECT_ERR(scif_fence_signal(a, ro + 8, 0x4242424242424242ULL, 0, 0,
				     SCIF_FENCE_INIT_PEER | SCIF_SIGNAL_LOCAL),
		   EACCES);
	EXPECT_ERR(scif_fence_signal(b, 0, 0, ro, 0x4343434343434343ULL,
				     SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE),
		   EACCES);
	EXPECT_ERR(scif_fence_signal(b, 0, 0, ro + 16, 0x4444444444444444ULL,
				     SCIF_FENCE_INIT_PEER | SCIF_SIGNAL_REMOTE),
		   EACCES);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		EXPECT_ERR(scif_readfrom(a, ro, page, rw, flags[i]), EACCES);
		EXPECT_ERR(scif_writeto(b, rw, page, ro, flags[i]), EACCES);
		EXPECT_ERR(scif_vwriteto(b, buf, page, ro, flags[i]), EACCES);
		/* Reading out of the file is what the window is for. */
		EXPECT_EQ(scif_readfrom(b, rw, page, ro, flags[i]), 0);
		EXPECT_EQ(scif_writeto(a, ro, page, rw, flags[i]), 0);
	}
	tap_ok(buf[0] == RO_MAGIC && buf[page - 1] == RO_MAGIC,
	       "ro file: its bytes reached the peer through the window");
	/* Let any deferred signal run before the parent looks. */
	EXPECT_EQ(scif_fence_mark(a, SCIF_FENCE_INIT_PEER, &mark), 0);
	EXPECT_EQ(scif_fence_wait(a, mark), 0);
	scif_close(a);
	scif_close(b);
	munmap(file, page);
	close(fd);
}

static void test_ro_file(void)
{
	char *want = malloc(page), *got = malloc(page);
	int fd;

	if (geteuid() != 0) {
		printf("# ro file: needs root to create a root-owned file, skipped\n");
		free(want);
		free(got);
		return;
	}
	memset(want, RO_MAGIC, page);
	unlink(RO_FILE);
	fd = open(RO_FILE, O_CREAT | O_EXCL | O_WRONLY, 0444);
	if (fd < 0 || write(fd, want, page) != page || close(fd))
		bail("create " RO_FILE);
	tap_child("ro file", ro_file_child, NULL);
	fd = open(RO_FILE, O_RDONLY);
	if (fd < 0 || read(fd, got, page) != page)
		bail("read " RO_FILE);
	close(fd);
	tap_ok(!memcmp(want, got, page),
	       "ro file: a read-only file's page cache was not written");
	unlink(RO_FILE);
	free(want);
	free(got);
}

static void test_memlock(void)
{
	if (vm_pin_kb() < 0) {
		printf("# memlock: no VmPin in /proc/self/status, skipped\n");
		return;
	}
	tap_child("memlock", memlock_child, NULL);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 400;
	unsigned int seed = argc > 2 ? strtoul(argv[2], NULL, 0) :
			    (unsigned int)time(NULL);

	page = sysconf(_SC_PAGESIZE);
	printf("# seed %u, %d iterations, %zu-bit\n", seed, iters,
	       sizeof(void *) * 8);
	srand(seed);
	test_ro_file();
	test_memlock();
	test_errors();
	test_random(iters);
	return tap_done();
}
