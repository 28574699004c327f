// SPDX-License-Identifier: GPL-2.0
/*
 * scif_mmap() on the loopback node: one process holds both ends of a
 * connection, so the peer windows it maps are its own buffers, registered
 * by the other end.
 *
 * Usage: scif-mmap-test
 *	   scif-mmap-test server PORT | client NODE PORT
 *	   scif-mmap-test victim PORT | survivor NODE PORT
 *	   scif-mmap-test unmappable-server PORT | unmappable-client NODE PORT
 *
 * - reads and writes through a mapping in both directions, checked against
 *   the registered buffers and against scif_readfrom()/scif_writeto();
 * - a mapping over two contiguous windows, SCIF_MAP_FIXED;
 * - EINVAL, EACCES (also mprotect() on a read-only window), ENXIO and
 *   ENOTCONN cases;
 * - an unregister by the peer is deferred while the window is mapped;
 * - SIGBUS, never the old memory, once the peer closed.
 *
 * Between two nodes (over the emulated NTB), server and client map each
 * other's window and check reads and writes both ways, also against
 * scif_readfrom()/scif_writeto(). The victim registers a window, lets the
 * survivor map it and prints @@SCIF-READY for the rig to kill its node; the
 * survivor keeps reading the mapping and must get SIGBUS (and only ever the
 * victim's data before), then ENODEV for a new mapping.
 *
 * Over a link whose NTB window reaches only the peer's ring (translated
 * mode), the unmappable pair registers windows as usual but each side's
 * scif_mmap() of the other's window must fail with EOPNOTSUPP, and the
 * connection must still work afterwards.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "scif_test.h"

#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define NPAGES		4
#define WIN_B		0x100000	/* b's read-write windows */
#define WIN_RO		0x200000	/* b's read-only window */
#define WIN_WO		0x280000	/* b's write-only window */
#define WIN_A		0x300000	/* a's window */
#define LOC_A		0x500000	/* a's local scratch window */

static long page;
static sigjmp_buf jmp;

#define EXPECT_MMAP_ERR(call, err) \
	do { \
		void *p_; \
		errno = 0; \
		p_ = (call); \
		tap_ok(p_ == SCIF_MMAP_FAILED && errno == (err), \
		       "%s fails with %s (got %s)", #call, #err, \
		       strerror(errno)); \
		if (p_ != SCIF_MMAP_FAILED) \
			munmap(p_, page); \
	} while (0)

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jmp, 1);
}

static unsigned char *anon(size_t n)
{
	return map_anon(n * page, PROT_READ | PROT_WRITE);
}

static void fill(unsigned char *p, size_t n, unsigned char seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7 + i / 4096);
}

/* Read one byte of @p; 1 if that raised SIGBUS, else 0 (*@out set). */
static int probe(unsigned char *p, unsigned char *out)
{
	if (sigsetjmp(jmp, 1))
		return 1;
	*out = __atomic_load_n(p, __ATOMIC_RELAXED);
	return 0;
}

static void reg_or_bail(scif_epd_t ep, void *buf, size_t n, off_t off,
			int prot)
{
	if (scif_register(ep, buf, n * page, off, prot, SCIF_MAP_FIXED) != off)
		bail("scif_register at %#lx", (long)off);
}

/* Data through a mapping of @peer's window, both ways, and against RMAs. */
static void test_data(scif_epd_t me, scif_epd_t peer, const char *dir)
{
	unsigned char *pbuf = anon(NPAGES), *lbuf = anon(NPAGES);
	unsigned char *m, *want = malloc(NPAGES * page);
	size_t len = NPAGES * page;

	if (!want)
		bail("malloc");
	fill(pbuf, len, 1);
	reg_or_bail(peer, pbuf, NPAGES, WIN_A, RW);
	reg_or_bail(me, lbuf, NPAGES, LOC_A, RW);
	m = scif_mmap(NULL, len, RW, 0, me, WIN_A);
	tap_ok(m != SCIF_MMAP_FAILED, "%s: scif_mmap of the peer's window", dir);
	if (m == SCIF_MMAP_FAILED)
		bail("scif_mmap");
	tap_ok(!memcmp(m, pbuf, len), "%s: mapping reads the peer's data", dir);

	fill(want, len, 0x40);
	memcpy(m, want, len);
	tap_ok(!memcmp(pbuf, want, len), "%s: writes land in the peer's pages",
	       dir);
	memset(lbuf, 0, len);
	EXPECT_EQ(scif_readfrom(me, LOC_A, len, WIN_A, SCIF_RMA_SYNC), 0);
	tap_ok(!memcmp(lbuf, want, len), "%s: scif_readfrom sees the writes",
	       dir);

	fill(lbuf, len, 0x77);
	EXPECT_EQ(scif_writeto(me, LOC_A, len, WIN_A, SCIF_RMA_SYNC), 0);
	tap_ok(!memcmp(m, lbuf, len), "%s: mapping sees scif_writeto data",
	       dir);
	/* A partial mapping at an offset inside the window. */
	EXPECT_EQ(scif_munmap(m, len), 0);
	m = scif_mmap(NULL, page, SCIF_PROT_READ, 0, me, WIN_A + 2 * page);
	tap_ok(m != SCIF_MMAP_FAILED && !memcmp(m, lbuf + 2 * page, page),
	       "%s: one page in the middle of the window", dir);
	if (m != SCIF_MMAP_FAILED)
		scif_munmap(m, page);
	EXPECT_EQ(scif_unregister(peer, WIN_A, len), 0);
	EXPECT_EQ(scif_unregister(me, LOC_A, len), 0);
	free(want);
}

static void test_errors(scif_epd_t a, unsigned char *bbuf)
{
	scif_epd_t lone = scif_open();
	unsigned char *m, *hole;
	size_t len = NPAGES * page;

	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, lone, WIN_B), ENOTCONN);
	scif_close(lone);

	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, a, WIN_B + 1), EINVAL);
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, a, -page), EINVAL);
	EXPECT_MMAP_ERR(scif_mmap(NULL, 0, RW, 0, a, WIN_B), EINVAL);
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, 4, 0, a, WIN_B), EINVAL);
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0x4, a, WIN_B), EINVAL);
	EXPECT_MMAP_ERR(scif_mmap((void *)(uintptr_t)(page + 1), page, RW,
				  SCIF_MAP_FIXED, a, WIN_B), EINVAL);
	m = mmap(NULL, page, PROT_READ, MAP_PRIVATE, scif_get_fd(a), WIN_B);
	tap_ok(m == MAP_FAILED && errno == EINVAL,
	       "private mapping fails with EINVAL");
	/* ENXIO: nothing there, past the end, over a hole. */
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, a, 0x900000), ENXIO);
	EXPECT_MMAP_ERR(scif_mmap(NULL, 2 * len + page, RW, 0, a, WIN_B),
			ENXIO);
	EXPECT_MMAP_ERR(scif_mmap(NULL, 3 * len, RW, 0, a, WIN_B), ENXIO);
	/* EACCES: writing a read-only window. */
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, a, WIN_RO), EACCES);
	EXPECT_MMAP_ERR(scif_mmap(NULL, 2 * len, RW, 0, a, WIN_RO - len),
			EACCES);
	m = scif_mmap(NULL, page, SCIF_PROT_READ, 0, a, WIN_RO);
	tap_ok(m != SCIF_MMAP_FAILED, "read-only window maps for reading");
	if (m != SCIF_MMAP_FAILED) {
		tap_ok(m[5] == bbuf[2 * len + 5], "read-only mapping reads");
		errno = 0;
		tap_ok(mprotect(m, page, PROT_READ | PROT_WRITE) == -1 &&
		       errno == EACCES, "mprotect(PROT_WRITE) fails with EACCES");
		scif_munmap(m, page);
	}
	/*
	 * A page table entry that allows writing allows reading as well, so a
	 * write-only window cannot be mapped at all.
	 */
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, SCIF_PROT_WRITE, 0, a, WIN_WO),
			EACCES);
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, a, WIN_WO), EACCES);

	/* Two contiguous windows in one mapping, at a fixed address. */
	hole = mmap(NULL, 2 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (hole == MAP_FAILED)
		bail("mmap");
	m = scif_mmap(hole, 2 * len, RW, SCIF_MAP_FIXED, a, WIN_B);
	tap_ok(m == hole, "SCIF_MAP_FIXED maps at the address given");
	if (m == hole) {
		tap_ok(!memcmp(m, bbuf, 2 * len),
		       "mapping spans two contiguous windows");
		m[len + 3] = 0xa5;
		tap_ok(bbuf[len + 3] == 0xa5, "write into the second window");
	}
	EXPECT_EQ(scif_munmap(hole, 2 * len), 0);
}

/* The peer's unregister waits for the munmap. */
static void test_deferred(scif_epd_t a, scif_epd_t b)
{
	unsigned char *buf = anon(1), *m;
	int i, ret = -1;

	reg_or_bail(b, buf, 1, WIN_A, RW);
	m = scif_mmap(NULL, page, RW, 0, a, WIN_A);
	if (m == SCIF_MMAP_FAILED)
		bail("scif_mmap");
	EXPECT_EQ(scif_unregister(b, WIN_A, page), 0);
	usleep(100000);
	errno = 0;
	tap_ok(scif_register(b, buf, page, WIN_A, RW, SCIF_MAP_FIXED) == -1 &&
	       errno == EADDRINUSE,
	       "unregistered window still holds its offsets while mapped");
	m[9] = 0x3c;
	tap_ok(buf[9] == 0x3c, "the mapping still reaches the pages");
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, a, WIN_A), ENXIO);
	EXPECT_EQ(scif_munmap(m, page), 0);
	for (i = 0; i < 500 && ret < 0; i++) {
		ret = scif_register(b, buf, page, WIN_A, RW, SCIF_MAP_FIXED);
		if (ret < 0)
			usleep(10000);
	}
	tap_ok(ret == WIN_A, "offsets free again after munmap");
	if (ret == WIN_A)
		scif_unregister(b, WIN_A, page);
}

/*
 * The peer closes: SIGBUS. Our own close(fd) leaves the endpoint alive
 * while the mapping holds the file, like any mapped file, so the mapping
 * keeps working until munmap.
 */
static void test_close(int peer_closes)
{
	const char *who = peer_closes ? "peer" : "own fd";
	unsigned char *buf = anon(NPAGES), *m, v = 0;
	scif_epd_t a, b;
	size_t len = NPAGES * page;

	make_pair(&a, &b);
	fill(buf, len, 9);
	reg_or_bail(b, buf, NPAGES, WIN_A, RW);
	m = scif_mmap(NULL, len, RW, 0, a, WIN_A);
	if (m == SCIF_MMAP_FAILED)
		bail("scif_mmap");
	tap_ok(!probe(m + page, &v) && v == buf[page],
	       "%s close: mapping readable before", who);
	scif_close(peer_closes ? b : a);
	if (peer_closes) {
		tap_ok(probe(m + page, &v),
		       "peer close: a mapped page gets SIGBUS");
		tap_ok(probe(m + 3 * page, &v),
		       "peer close: a page never touched gets SIGBUS");
		EXPECT_MMAP_ERR(scif_mmap(NULL, page, RW, 0, a, WIN_A),
				ECONNRESET);
	} else {
		tap_ok(!probe(m + 3 * page, &v) && v == buf[3 * page],
		       "own fd closed: the mapping still works");
	}
	EXPECT_EQ(scif_munmap(m, len), 0);
	scif_close(peer_closes ? a : b);
}

/* ---- two nodes ---- */

#define SEED_SERVER	0x21
#define SEED_CLIENT	0x42
#define SEED_VICTIM	0x63
/* How long a client keeps trying to connect while the peer boots. */
#define DIAL_SECONDS	60

static void say(scif_epd_t ep, char c)
{
	/* Writes through a write-combining mapping first, then the message. */
	__sync_synchronize();
	if (scif_send(ep, &c, 1, SCIF_SEND_BLOCK) != 1)
		bail("scif_send");
}

static void hear(scif_epd_t ep, char want)
{
	char c = 0;

	if (scif_recv(ep, &c, 1, SCIF_RECV_BLOCK) != 1 || c != want)
		bail("scif_recv: wanted '%c', got '%c'", want, c);
}

/*
 * Both nodes: own window filled with @mine, map the peer's (filled with
 * @theirs); check, write a pattern through the mapping, have the peer check
 * it, and cross-check with RMAs.
 */
static int pair_run(scif_epd_t ep, int server)
{
	unsigned char mine = server ? SEED_SERVER : SEED_CLIENT;
	unsigned char theirs = server ? SEED_CLIENT : SEED_SERVER;
	unsigned char *buf = anon(NPAGES), *loc = anon(NPAGES), *m;
	unsigned char *want = malloc(NPAGES * page);
	size_t len = NPAGES * page;
	const char *me = server ? "server" : "client";

	if (!want)
		bail("malloc");
	fill(buf, len, mine);
	reg_or_bail(ep, buf, NPAGES, WIN_A, RW);
	reg_or_bail(ep, loc, NPAGES, LOC_A, RW);
	say(ep, 'r');
	hear(ep, 'r');
	m = scif_mmap(NULL, len, RW, 0, ep, WIN_A);
	if (m == SCIF_MMAP_FAILED)
		bail("scif_mmap");
	fill(want, len, theirs);
	tap_ok(!memcmp(m, want, len), "%s: mapping reads the peer's window",
	       me);
	/* Each side writes the other's window; the owner checks. */
	fill(want, len, theirs + 0x10);
	memcpy(m, want, len);
	say(ep, 'w');
	hear(ep, 'w');
	fill(want, len, mine + 0x10);
	tap_ok(!memcmp(buf, want, len),
	       "%s: the peer's writes through its mapping landed", me);
	say(ep, 'c');
	hear(ep, 'c');
	/* Our writes, as an RMA reads them back. */
	fill(want, len, theirs + 0x10);
	memset(loc, 0, len);
	EXPECT_EQ(scif_readfrom(ep, LOC_A, len, WIN_A, SCIF_RMA_SYNC), 0);
	tap_ok(!memcmp(loc, want, len), "%s: scif_readfrom sees our writes",
	       me);
	say(ep, 'x');
	hear(ep, 'x');
	/* One side RMAs into the other's window, the mapping reads it. */
	if (!server) {
		fill(loc, len, 0x99);
		EXPECT_EQ(scif_writeto(ep, LOC_A, len, WIN_A, SCIF_RMA_SYNC),
			  0);
		tap_ok(!memcmp(m, loc, len),
		       "client: mapping sees scif_writeto data");
	}
	EXPECT_MMAP_ERR(scif_mmap(NULL, len + page, RW, 0, ep, WIN_A), ENXIO);
	EXPECT_EQ(scif_munmap(m, len), 0);
	say(ep, 'd');
	hear(ep, 'd');
	scif_close(ep);
	free(want);
	return tap_done();
}

static int loss_victim(__u16 port)
{
	unsigned char *buf = anon(NPAGES);
	scif_epd_t ep = accept_one(port);

	fill(buf, NPAGES * page, SEED_VICTIM);
	reg_or_bail(ep, buf, NPAGES, WIN_A, RW);
	say(ep, 'r');
	hear(ep, 'm');
	printf("@@SCIF-READY mapped by the survivor\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

static int loss_survivor(__u16 node, __u16 port)
{
	scif_epd_t ep = dial_or_bail(node, port, DIAL_SECONDS);
	size_t len = NPAGES * page, i;
	unsigned char *m, *want = malloc(NPAGES * page), v;
	long reads = 0, bad = 0;
	double end;
	int bus = 0;

	if (!want)
		bail("malloc");
	fill(want, len, SEED_VICTIM);
	hear(ep, 'r');
	m = scif_mmap(NULL, len, SCIF_PROT_READ, 0, ep, WIN_A);
	if (m == SCIF_MMAP_FAILED)
		bail("scif_mmap");
	tap_ok(!memcmp(m, want, len), "survivor: mapping reads the victim");
	say(ep, 'm');
	/* Read every page over and over until the node loss stops us. */
	end = now() + 120;
	while (!bus && now() < end) {
		for (i = 0; i < len && !bus; i += 512) {
			bus = probe(m + i, &v);
			if (!bus) {
				reads++;
				bad += v != want[i];
			}
		}
		usleep(1000);
	}
	printf("# %ld reads before the loss, %ld wrong\n", reads, bad);
	tap_ok(bus, "survivor: SIGBUS after the victim's node was lost");
	tap_ok(!bad, "survivor: only the victim's data was ever read");
	for (i = 0; i < len; i += page)
		bus &= probe(m + i, &v);
	tap_ok(bus, "survivor: every page gets SIGBUS afterwards");
	EXPECT_EQ(scif_munmap(m, len), 0);
	EXPECT_MMAP_ERR(scif_mmap(NULL, len, SCIF_PROT_READ, 0, ep, WIN_A),
			ENODEV);
	scif_close(ep);
	free(want);
	return tap_done();
}

static int loopback(void)

{
	struct sigaction sa;
	unsigned char *bbuf;
	scif_epd_t a, b;
	size_t len;

	page = sysconf(_SC_PAGESIZE);
	len = NPAGES * page;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);

	make_pair(&a, &b);
	test_data(a, b, "a maps b");
	test_data(b, a, "b maps a");

	/* b: two contiguous RW windows, then one read-only window. */
	bbuf = anon(3 * NPAGES);
	fill(bbuf, 3 * len, 3);
	reg_or_bail(b, bbuf, NPAGES, WIN_B, RW);
	reg_or_bail(b, bbuf + len, NPAGES, WIN_B + len, RW);
	reg_or_bail(b, bbuf + 2 * len, NPAGES, WIN_RO, SCIF_PROT_READ);
	reg_or_bail(b, bbuf, NPAGES, WIN_RO - len, RW);
	reg_or_bail(b, bbuf + len, 1, WIN_WO, SCIF_PROT_WRITE);
	test_errors(a, bbuf);
	test_deferred(a, b);
	scif_close(a);
	scif_close(b);

	test_close(1);
	test_close(0);
	return tap_done();
}

/* Both nodes, translated link: registered windows cannot be mapped. */
static int pair_unmappable(scif_epd_t ep, int server)
{
	unsigned char *buf = anon(NPAGES);
	size_t len = NPAGES * page;

	fill(buf, len, server ? SEED_SERVER : SEED_CLIENT);
	reg_or_bail(ep, buf, NPAGES, WIN_A, RW);
	say(ep, 'r');
	hear(ep, 'r');
	EXPECT_MMAP_ERR(scif_mmap(NULL, len, RW, 0, ep, WIN_A), EOPNOTSUPP);
	EXPECT_MMAP_ERR(scif_mmap(NULL, page, SCIF_PROT_READ, 0, ep, WIN_A),
			EOPNOTSUPP);
	EXPECT_EQ(scif_unregister(ep, WIN_A, len), 0);
	say(ep, 'd');
	hear(ep, 'd');
	scif_close(ep);
	return tap_done();
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	page = sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "server"))
		return pair_run(accept_one(atoi(argv[2])), 1);
	if (argc == 4 && !strcmp(argv[1], "client"))
		return pair_run(dial_or_bail(atoi(argv[2]), atoi(argv[3]),
					     DIAL_SECONDS), 0);
	if (argc == 3 && !strcmp(argv[1], "unmappable-server"))
		return pair_unmappable(accept_one(atoi(argv[2])), 1);
	if (argc == 4 && !strcmp(argv[1], "unmappable-client"))
		return pair_unmappable(dial_or_bail(atoi(argv[2]),
						    atoi(argv[3]),
						    DIAL_SECONDS), 0);
	if (argc == 3 && !strcmp(argv[1], "victim"))
		return loss_victim(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "survivor"))
		return loss_survivor(atoi(argv[2]), atoi(argv[3]));
	if (argc != 1) {
		fprintf(stderr, "usage: see the top of mmap_test.c\n");
		return 2;
	}
	return loopback();
}
