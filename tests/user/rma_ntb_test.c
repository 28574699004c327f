// SPDX-License-Identifier: GPL-2.0
/*
 * scif-rma-ntb-test: remote memory access between two SCIF nodes (over the
 * emulated NTB), for the end-to-end tests.
 *
 *   scif-rma-ntb-test server PORT
 *   scif-rma-ntb-test client NODE PORT [ITERS [SEED]]
 *	Both sides register contiguous windows of random sizes. The client
 *	runs ITERS random readfrom/writeto/vreadfrom/vwriteto with random
 *	offsets, lengths, alignments and flags, spanning several windows, and
 *	keeps shadow copies of its own and the server's memory; it checks its
 *	side after every fence and asks the server (over send/recv) to check
 *	its side. Then fences across the nodes (marks of both sides, local and
 *	remote signals seen by the other node), the errnos that need a real
 *	peer (ENXIO past its windows, EACCES on its read-only and write-only
 *	windows, ENXIO once it unregistered, ECONNRESET once it closed), and
 *	RLIMIT_MEMLOCK on both nodes (PORT + 1). Both sides print TAP.
 *
 *   scif-rma-ntb-test loss-victim PORT
 *   scif-rma-ntb-test loss-client NODE PORT [SECONDS]
 *	The victim registers windows, writes into the client's windows in a
 *	loop, counting its writes in a word of the client's (a heartbeat), and
 *	prints @@SCIF-READY; the rig then kills its node. The client runs RMAs
 *	and waits on fences against it in three threads: every call must fail
 *	with ECONNRESET or ENODEV within SECONDS of the last heartbeat,
 *	nothing may hang, and VmPin must drop to 0 after close. SECONDS as
 *	+S is the emulated NTB's delay (ntb_ivshmem's hb_timeout_ms and
 *	hb_period_ms) plus S; the default is +8.
 *
 * Clients retry connecting for 60 s while the peer boots.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scif_test.h"

#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define NPAGES		64
/* How long a client keeps trying to connect while the peer boots. */
#define DIAL_SECONDS	60
/* Registered offsets: the random region, signal words, EACCES windows. */
#define C_BASE		0x100000L
#define S_BASE		0x400000L
#define C_SIG		0x1000000L
#define S_SIG		0x1100000L
#define S_RO		0x1200000L
#define S_WO		0x1300000L

enum { OP_CHECK = 1, OP_FILL, OP_PEER_WRITE, OP_PEER_READ, OP_WAIT_VALUE,
	OP_SIGNAL, OP_UNREG, OP_DONE };

struct cmd {
	__u32 op;
	__u32 flags;
	__u64 a, b, c, d;
};

struct reply {
	__s64 ret;
	__u64 err;
};

static long page;
static size_t size;

/* Fill @n bytes (of one or two buffers) from the sequence of @seed. */
static void fill_seq(unsigned char *p, unsigned char *q, size_t n, __u64 seed)
{
	__u64 s = seed | 1;
	size_t i;

	for (i = 0; i < n; i++) {
		p[i] = (unsigned char)(xorshift64(&s) >> 24);
		if (q)
			q[i] = p[i];
	}
}

static __u64 page_hash(const unsigned char *p)
{
	__u64 h = 0xcbf29ce484222325ULL;
	long i;

	for (i = 0; i < page; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static void *map_pages(size_t n)
{
	return map_anon(n * page, PROT_READ | PROT_WRITE);
}

static void xfer(scif_epd_t epd, void *buf, size_t len, int send)
{
	int n = send ? scif_send(epd, buf, len, SCIF_SEND_BLOCK) :
		       scif_recv(epd, buf, len, SCIF_RECV_BLOCK);

	if (n != (int)len)
		bail(send ? "scif_send" : "scif_recv");
}

/* Wait up to 5 s for a signalled 64-bit value (4-byte aligned at least). */
static int wait_value(void *p, __u64 want)
{
	__u64 v;
	int i;

	for (i = 0; i < 5000; i++) {
		__asm__ __volatile__("" : : : "memory");
		memcpy(&v, p, sizeof(v));
		if (v == want)
			return 1;
		usleep(1000);
	}
	return 0;
}

/*
 * Register @n pages at @buf as contiguous windows of 1 to 8 pages at @base.
 * Returns the number of windows.
 */
static int register_windows(scif_epd_t epd, unsigned char *buf, long base,
			    int n)
{
	int done = 0, k, nwin = 0;

	while (done < n) {
		k = 1 + rand() % 8;
		if (k > n - done)
			k = n - done;
		if (scif_register(epd, buf + (size_t)done * page,
				  (size_t)k * page, base + done * page, RW,
				  SCIF_MAP_FIXED) != base + done * page)
			bail("scif_register at %#lx", base + done * page);
		done += k;
		nwin++;
	}
	return nwin;
}

/*
 * Run unprivileged with room for 64 MiB of pins, so that pins are charged
 * (CAP_IPC_LOCK would exempt them) and VmPin tells what stays pinned.
 */
static void drop_privilege(void)
{
	struct rlimit rl = { 64 << 20, 64 << 20 };

	if (geteuid())
		return;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		bail("setrlimit");
	if (setgid(65534) || setuid(65534))
		bail("setuid");
}

/* ---- server ---- */

struct server {
	scif_epd_t epd;
	unsigned char *buf, *sig;
	int bad;
};

static __s64 server_op(struct server *s, struct cmd *c)
{
	__u64 h[NPAGES];
	int i, bad = 0;

	switch (c->op) {
	case OP_CHECK:
		xfer(s->epd, h, sizeof(h), 0);
		for (i = 0; i < NPAGES; i++)
			if (page_hash(s->buf + (size_t)i * page) != h[i]) {
				if (!bad)
					printf("# server: page %d differs (%s)\n",
					       i, c->a ? "after a fence" : "after SYNC");
				bad++;
			}
		tap_ok(!bad, "server: memory as the client expects (check %llu)",
		       (unsigned long long)c->b);
		return bad;
	case OP_FILL:
		if (c->a + c->b > size)
			return -1;
		fill_seq(s->buf + c->a, NULL, c->b, c->c);
		return 0;
	case OP_PEER_WRITE:
		return scif_writeto(s->epd, S_BASE + c->a, c->c, c->b, c->flags);
	case OP_PEER_READ:
		return scif_readfrom(s->epd, S_BASE + c->a, c->c, c->b,
				     c->flags);
	case OP_WAIT_VALUE:
		if (c->a + 8 > (__u64)page)
			return -1;
		return wait_value(s->sig + c->a, c->b);
	case OP_SIGNAL:
		return scif_fence_signal(s->epd, c->a, c->b, c->c, c->d,
					 c->flags);
	case OP_UNREG:
		return scif_unregister(s->epd, c->a, c->b);
	}
	return -1;
}

static int run_server(__u16 port)
{
	struct server s = { 0 };
	unsigned char *ro;
	struct reply r;
	struct cmd c;
	__u64 seed;
	int nwin;

	s.epd = accept_one(port);
	xfer(s.epd, &seed, sizeof(seed), 0);
	srand((unsigned int)seed);
	printf("# server: client connected, seed %llu\n",
	       (unsigned long long)seed);
	s.buf = map_pages(NPAGES);
	fill_seq(s.buf, NULL, size, seed ^ 0x5e5e);
	s.sig = map_pages(1);
	ro = map_pages(2);
	nwin = register_windows(s.epd, s.buf, S_BASE, NPAGES);
	EXPECT_EQ(scif_register(s.epd, s.sig, page, S_SIG, RW, SCIF_MAP_FIXED),
		  S_SIG);
	EXPECT_EQ(scif_register(s.epd, ro, page, S_RO, SCIF_PROT_READ,
				SCIF_MAP_FIXED), S_RO);
	EXPECT_EQ(scif_register(s.epd, ro + page, page, S_WO, SCIF_PROT_WRITE,
				SCIF_MAP_FIXED), S_WO);
	tap_ok(nwin > 1, "server: %d windows over %d pages registered", nwin,
	       NPAGES);
	r.ret = nwin;
	xfer(s.epd, &r, sizeof(r), 1);
	for (;;) {
		xfer(s.epd, &c, sizeof(c), 0);
		if (c.op == OP_DONE)
			break;
		errno = 0;
		r.ret = server_op(&s, &c);
		r.err = errno;
		xfer(s.epd, &r, sizeof(r), 1);
	}
	/* Unregister the region, let the client see it, then close. */
	EXPECT_EQ(scif_unregister(s.epd, S_BASE, size), 0);
	r.ret = 0;
	xfer(s.epd, &r, sizeof(r), 1);
	xfer(s.epd, &c, sizeof(c), 0);
	scif_close(s.epd);
	EXPECT_EQ(vm_pin_settles(0), 0);
	return 0;
}

/* ---- client ---- */

struct client {
	scif_epd_t epd;
	unsigned char *buf, *shadow;	/* our registered region */
	unsigned char *sshadow;		/* the server's region */
	unsigned char *v, *vshadow;	/* unregistered memory */
	unsigned char *sig;
	int checks;
};

static __s64 ask(struct client *cl, __u32 op, __u32 flags, __u64 a, __u64 b,
		 __u64 c, __u64 d)
{
	struct cmd cmd = { op, flags, a, b, c, d };
	struct reply r;

	xfer(cl->epd, &cmd, sizeof(cmd), 1);
	if (op == OP_CHECK) {
		__u64 h[NPAGES];
		int i;

		for (i = 0; i < NPAGES; i++)
			h[i] = page_hash(cl->sshadow + (size_t)i * page);
		xfer(cl->epd, h, sizeof(h), 1);
	}
	xfer(cl->epd, &r, sizeof(r), 0);
	errno = (int)r.err;
	return r.ret;
}

static int server_check(struct client *cl, int fenced)
{
	return ask(cl, OP_CHECK, 0, fenced, ++cl->checks, 0, 0) == 0;
}

static int local_ok(struct client *cl)
{
	return !memcmp(cl->buf, cl->shadow, size) &&
	       !memcmp(cl->v, cl->vshadow, size);
}

static int fence_self(struct client *cl)
{
	int mark;

	if (rand() % 2) {
		if (scif_fence_mark(cl->epd, SCIF_FENCE_INIT_SELF, &mark))
			return -1;
		return scif_fence_wait(cl->epd, mark);
	}
	/* A local signal says the same. */
	*(__u64 *)cl->sig = 0;
	if (scif_fence_signal(cl->epd, C_SIG, 0x600d, 0, 0,
			      SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL))
		return -1;
	return wait_value(cl->sig, 0x600d) ? 0 : -1;
}

struct op {
	int kind;		/* 0 writeto, 1 readfrom, 2 vwriteto, 3 vreadfrom */
	int flags;
	size_t len, lo, ro;	/* lo: in our region or in v */
};

static int overlap(size_t a, size_t alen, size_t b, size_t blen)
{
	return a < b + blen && b < a + alen;
}

/* Does @o write into memory that @p reads or writes (or the reverse)? */
static int conflicts(const struct op *o, const struct op *p)
{
	/* Memory areas: 0 our region, 1 v, 2 the server's region. */
	int osrc = o->kind % 2 ? 2 : o->kind / 2, odst = o->kind % 2 ? o->kind / 2 : 2;
	int psrc = p->kind % 2 ? 2 : p->kind / 2, pdst = p->kind % 2 ? p->kind / 2 : 2;
	size_t osoff = osrc == 2 ? o->ro : o->lo, odoff = odst == 2 ? o->ro : o->lo;
	size_t psoff = psrc == 2 ? p->ro : p->lo, pdoff = pdst == 2 ? p->ro : p->lo;

	return (odst == pdst && overlap(odoff, o->len, pdoff, p->len)) ||
	       (odst == psrc && overlap(odoff, o->len, psoff, p->len)) ||
	       (pdst == osrc && overlap(pdoff, p->len, osoff, o->len));
}

static int issue(struct client *cl, const struct op *o)
{
	switch (o->kind) {
	case 0:
		memcpy(cl->sshadow + o->ro, cl->shadow + o->lo, o->len);
		return scif_writeto(cl->epd, C_BASE + o->lo, o->len,
				    S_BASE + o->ro, o->flags);
	case 1:
		memcpy(cl->shadow + o->lo, cl->sshadow + o->ro, o->len);
		return scif_readfrom(cl->epd, C_BASE + o->lo, o->len,
				     S_BASE + o->ro, o->flags);
	case 2:
		memcpy(cl->sshadow + o->ro, cl->vshadow + o->lo, o->len);
		return scif_vwriteto(cl->epd, cl->v + o->lo, o->len,
				     S_BASE + o->ro, o->flags);
	default:
		memcpy(cl->vshadow + o->lo, cl->sshadow + o->ro, o->len);
		return scif_vreadfrom(cl->epd, cl->v + o->lo, o->len,
				      S_BASE + o->ro, o->flags);
	}
}

static void resync(struct client *cl)
{
	memcpy(cl->shadow, cl->buf, size);
	memcpy(cl->vshadow, cl->v, size);
}

/*
 * Batches of 1 to 3 RMAs that touch no memory another one of the batch
 * writes; a batch with an asynchronous RMA ends with a fence.
 */
static void test_random(struct client *cl, int iters)
{
	static const int flagset[] = { 0, SCIF_RMA_USECPU, SCIF_RMA_SYNC,
		SCIF_RMA_ORDERED, SCIF_RMA_SYNC | SCIF_RMA_ORDERED,
		SCIF_RMA_USECPU | SCIF_RMA_SYNC, SCIF_RMA_USECPU |
		SCIF_RMA_ORDERED, SCIF_RMA_USECPU | SCIF_RMA_SYNC |
		SCIF_RMA_ORDERED };
	static const char * const names[] = { "writeto", "readfrom",
		"vwriteto", "vreadfrom" };
	struct op ops[3];
	int i = 0, n, k, j, async, bad = 0, ret, done[4] = { 0 };
	__u64 seed;

	while (i < iters && bad < 5) {
		n = 1 + rand() % 3;
		async = 0;
		for (k = 0; k < n && i < iters; k++, i++) {
			struct op *o = &ops[k];

			do {
				o->kind = rand() % 4;
				o->flags = flagset[rand() % ARRAY_SIZE(flagset)];
				o->len = random_len(page, 12 * page);
				o->lo = (size_t)rand() % (size - o->len + 1);
				o->ro = (size_t)rand() % (size - o->len + 1);
				for (j = 0; j < k && !conflicts(o, &ops[j]); j++)
					;
			} while (j < k);
			async |= !(o->flags & SCIF_RMA_SYNC);
			ret = issue(cl, o);
			done[o->kind]++;
			if (ret) {
				bad++;
				tap_ok(0, "random %d: %s len %zu lo %zu ro %zu flags %#x: %s",
				       i, names[o->kind], o->len, o->lo, o->ro,
				       o->flags, strerror(errno));
			}
		}
		if (async && fence_self(cl)) {
			bad++;
			tap_ok(0, "random %d: fence: %s", i, strerror(errno));
		}
		if (!local_ok(cl)) {
			bad++;
			tap_ok(0, "random %d: local data differs, last of %d: %s %zu@%zu->%zu %#x",
			       i, k, names[ops[k - 1].kind], ops[k - 1].len,
			       ops[k - 1].lo, ops[k - 1].ro, ops[k - 1].flags);
			resync(cl);
		}
		if (!(rand() % 6) && !server_check(cl, async)) {
			bad++;
			printf("# random %d: batch of %d ended with %s %zu@%zu->%zu %#x\n",
			       i, k, names[ops[k - 1].kind], ops[k - 1].len,
			       ops[k - 1].lo, ops[k - 1].ro, ops[k - 1].flags);
		}
		/* Keep the server's data changing. */
		if (!(rand() % 8)) {
			size_t off = (size_t)rand() % (size - page);

			seed = rand();
			fill_seq(cl->sshadow + off, NULL, page, seed);
			if (ask(cl, OP_FILL, 0, off, page, seed, 0))
				bail("server fill");
		}
	}
	tap_ok(!bad, "random: %d RMAs (%d/%d/%d/%d of each kind) verified on both nodes",
	       i, done[0], done[1], done[2], done[3]);
	tap_ok(server_check(cl, 1), "random: server memory at the end");
}

/* The server writes @len bytes from its @lo into our @lo, asynchronously. */
static __s64 peer_write(struct client *cl, size_t lo, size_t len)
{
	memcpy(cl->shadow + lo, cl->sshadow + lo, len);
	return ask(cl, OP_PEER_WRITE, 0, lo, C_BASE + lo, len, 0);
}

static void test_fences(struct client *cl)
{
	__u64 *sig = (__u64 *)cl->sig;
	struct op o = { 0, 0, 16 * page, 0, 0 };
	int mark;
	__u64 seed;

	/* Our asynchronous write, our mark: complete at the server. */
	o.lo = 3;
	o.ro = 5 * page + 1;
	EXPECT_EQ(issue(cl, &o), 0);
	EXPECT_EQ(scif_fence_mark(cl->epd, SCIF_FENCE_INIT_SELF, &mark), 0);
	EXPECT_EQ(scif_fence_wait(cl->epd, mark), 0);
	tap_ok(server_check(cl, 1), "fence INIT_SELF: the write is at the server");

	/* The server's asynchronous write, our INIT_PEER mark. */
	seed = rand();
	fill_seq(cl->sshadow + 8 * page, NULL, 16 * page, seed);
	EXPECT_EQ(ask(cl, OP_FILL, 0, 8 * page, 16 * page, seed, 0), 0);
	EXPECT_EQ(peer_write(cl, 8 * page, 16 * page), 0);
	EXPECT_EQ(scif_fence_mark(cl->epd, SCIF_FENCE_INIT_PEER, &mark), 0);
	EXPECT_EQ(scif_fence_wait(cl->epd, mark), 0);
	tap_ok(local_ok(cl), "fence INIT_PEER: the server's write is here");

	/* Our vwriteto, then signals on both nodes. */
	o.kind = 2;
	o.lo = 100;
	o.ro = 30 * page + 7;
	*sig = 0;
	EXPECT_EQ(issue(cl, &o), 0);
	EXPECT_EQ(scif_fence_signal(cl->epd, C_SIG, 0x1111, S_SIG + 8, 0x2222,
				    SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL |
				    SCIF_SIGNAL_REMOTE), 0);
	tap_ok(wait_value(sig, 0x1111), "signal INIT_SELF: local value here");
	tap_ok(ask(cl, OP_WAIT_VALUE, 0, 8, 0x2222, 0, 0) == 1,
	       "signal INIT_SELF: remote value seen by the server");
	tap_ok(server_check(cl, 1), "signal INIT_SELF: the write is at the server");

	/* The server's write, our INIT_PEER signals. */
	seed = rand();
	fill_seq(cl->sshadow + 40 * page, NULL, 12 * page, seed);
	EXPECT_EQ(ask(cl, OP_FILL, 0, 40 * page, 12 * page, seed, 0), 0);
	EXPECT_EQ(peer_write(cl, 40 * page, 12 * page), 0);
	*sig = 0;
	EXPECT_EQ(scif_fence_signal(cl->epd, C_SIG, 0x3333, S_SIG + 16, 0x4444,
				    SCIF_FENCE_INIT_PEER | SCIF_SIGNAL_LOCAL |
				    SCIF_SIGNAL_REMOTE), 0);
	tap_ok(wait_value(sig, 0x3333), "signal INIT_PEER: local value here");
	tap_ok(local_ok(cl), "signal INIT_PEER: the server's write is here");
	tap_ok(ask(cl, OP_WAIT_VALUE, 0, 16, 0x4444, 0, 0) == 1,
	       "signal INIT_PEER: remote value seen by the server");

	/* The server signals after its own write: we see its remote value. */
	seed = rand();
	fill_seq(cl->sshadow + 2 * page, NULL, 6 * page, seed);
	EXPECT_EQ(ask(cl, OP_FILL, 0, 2 * page, 6 * page, seed, 0), 0);
	EXPECT_EQ(peer_write(cl, 2 * page + 9, 5 * page), 0);
	memset(cl->sig, 0, 32);
	EXPECT_EQ(ask(cl, OP_SIGNAL, SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL |
		      SCIF_SIGNAL_REMOTE, S_SIG + 24, 0x5555, C_SIG + 20,
		      0x6666), 0);
	tap_ok(wait_value(cl->sig + 20, 0x6666),
	       "server's signal INIT_SELF: its remote value here (4-byte aligned)");
	tap_ok(local_ok(cl), "server's signal INIT_SELF: its write is here");
	tap_ok(ask(cl, OP_WAIT_VALUE, 0, 24, 0x5555, 0, 0) == 1,
	       "server's signal INIT_SELF: its local value");

	/* Our write, the server's INIT_PEER signal: we see its value. */
	o.kind = 0;
	o.lo = 20 * page;
	o.ro = 44 * page + 11;
	o.len = 9 * page;
	memset(cl->sig, 0, 16);
	EXPECT_EQ(issue(cl, &o), 0);
	EXPECT_EQ(ask(cl, OP_SIGNAL, SCIF_FENCE_INIT_PEER | SCIF_SIGNAL_REMOTE,
		      0, 0, C_SIG + 8, 0x7777), 0);
	tap_ok(wait_value(sig + 1, 0x7777),
	       "server's signal INIT_PEER: its remote value here");
	tap_ok(server_check(cl, 1), "server's signal INIT_PEER: our write is there");

	/* The server reads from us asynchronously; our INIT_PEER mark. */
	memcpy(cl->sshadow + 50 * page, cl->shadow + 3 * page + 5, 7 * page);
	EXPECT_EQ(ask(cl, OP_PEER_READ, 0, 50 * page, C_BASE + 3 * page + 5,
		      7 * page, 0), 0);
	EXPECT_EQ(scif_fence_mark(cl->epd, SCIF_FENCE_INIT_PEER, &mark), 0);
	EXPECT_EQ(scif_fence_wait(cl->epd, mark), 0);
	tap_ok(server_check(cl, 1), "fence INIT_PEER: the server's read is done");
}

static void test_errors(struct client *cl)
{
	char *v = (char *)cl->v;

	EXPECT_ERR(scif_writeto(cl->epd, C_BASE, 16, S_RO, 0), EACCES);
	EXPECT_ERR(scif_vwriteto(cl->epd, v, 16, S_RO, SCIF_RMA_SYNC), EACCES);
	EXPECT_ERR(scif_readfrom(cl->epd, C_BASE, 16, S_WO, 0), EACCES);
	EXPECT_ERR(scif_vreadfrom(cl->epd, v, 16, S_WO, SCIF_RMA_USECPU),
		   EACCES);
	/* The read-only page holds zeros. */
	EXPECT_EQ(scif_readfrom(cl->epd, C_BASE, 16, S_RO, SCIF_RMA_SYNC), 0);
	memset(cl->shadow, 0, 16);
	EXPECT_EQ(scif_vwriteto(cl->epd, v, 16, S_WO, SCIF_RMA_SYNC), 0);
	/* Past the end, before the start, across a hole, nowhere. */
	EXPECT_ERR(scif_writeto(cl->epd, C_BASE, 16, S_BASE + size - 8, 0),
		   ENXIO);
	EXPECT_ERR(scif_readfrom(cl->epd, C_BASE, 16, S_BASE - 8, 0), ENXIO);
	EXPECT_ERR(scif_vreadfrom(cl->epd, v, 2 * page, S_RO, 0), ENXIO);
	EXPECT_ERR(scif_vwriteto(cl->epd, v, 16, 0x40000000L, 0), ENXIO);
	EXPECT_ERR(scif_fence_signal(cl->epd, 0, 0, S_BASE + size, 1,
				     SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_REMOTE),
		   ENXIO);
	/* Our range may be right and the server's wrong, and the reverse. */
	EXPECT_ERR(scif_writeto(cl->epd, C_BASE + size - 8, 16, S_BASE, 0),
		   ENXIO);
	/* The server unregisters its read-only window. */
	EXPECT_EQ(ask(cl, OP_UNREG, 0, S_RO, page, 0, 0), 0);
	/* It returned after we dropped the window: it is gone at once. */
	EXPECT_ERR(scif_readfrom(cl->epd, C_BASE, 16, S_RO, 0), ENXIO);
	EXPECT_ERR(scif_writeto(cl->epd, C_BASE, 16, S_RO, 0), ENXIO);
	tap_ok(local_ok(cl), "errors: local memory untouched by failed RMAs");
	tap_ok(server_check(cl, 1), "errors: server memory untouched by failed RMAs");
}

static int run_client(__u16 node, __u16 port, int iters, __u64 seed)
{
	struct client cl = { 0 };
	struct reply r;
	struct cmd done = { OP_DONE, 0, 0, 0, 0, 0 };
	int nwin;

	cl.epd = dial_or_bail(node, port, DIAL_SECONDS);
	xfer(cl.epd, &seed, sizeof(seed), 1);
	srand((unsigned int)seed);
	cl.buf = map_pages(NPAGES);
	cl.v = map_pages(NPAGES);
	cl.sig = map_pages(1);
	cl.shadow = malloc(size);
	cl.vshadow = malloc(size);
	cl.sshadow = malloc(size);
	if (!cl.shadow || !cl.vshadow || !cl.sshadow)
		bail("malloc");
	fill_seq(cl.sshadow, NULL, size, seed ^ 0x5e5e);
	fill_seq(cl.buf, cl.shadow, size, seed ^ 0xc1c1);
	fill_seq(cl.v, cl.vshadow, size, seed ^ 0x7777);
	/* Our own random layout, drawn after the server's. */
	srand((unsigned int)seed ^ 0xabcd);
	nwin = register_windows(cl.epd, cl.buf, C_BASE, NPAGES);
	EXPECT_EQ(scif_register(cl.epd, cl.sig, page, C_SIG, RW,
				SCIF_MAP_FIXED), C_SIG);
	xfer(cl.epd, &r, sizeof(r), 0);
	tap_ok(nwin > 1 && r.ret > 1, "client: %d windows here, %lld at the server",
	       nwin, (long long)r.ret);
	tap_ok(vm_pin_kb() == (NPAGES + 1) * page / 1024,
	       "client: VmPin %ld kB for our windows", vm_pin_kb());
	tap_ok(server_check(&cl, 0), "server memory as expected at the start");

	test_random(&cl, iters);
	test_fences(&cl);
	test_errors(&cl);

	xfer(cl.epd, &done, sizeof(done), 1);
	xfer(cl.epd, &r, sizeof(r), 0);
	/*
	 * The server answered after its unregisters returned, and each of
	 * those waited until we had dropped the window: all are gone now,
	 * although the stream's bytes may overtake the link's messages.
	 */
	EXPECT_ERR(scif_writeto(cl.epd, C_BASE, 16, S_BASE, 0), ENXIO);
	EXPECT_ERR(scif_vreadfrom(cl.epd, cl.v, 16, S_BASE + size - 16, 0),
		   ENXIO);
	xfer(cl.epd, &done, sizeof(done), 1);
	EXPECT_ERR_SOON(scif_writeto(cl.epd, C_BASE, 16, S_SIG, 0),
			ECONNRESET);
	EXPECT_ERR(scif_register(cl.epd, cl.v, page, 0, RW, 0), ECONNRESET);
	EXPECT_ERR(scif_fence_mark(cl.epd, SCIF_FENCE_INIT_PEER, (int *)cl.v),
		   ECONNRESET);
	scif_close(cl.epd);
	EXPECT_EQ(vm_pin_settles(0), 0);
	return 0;
}

/* ---- RLIMIT_MEMLOCK on both nodes ---- */

static void barrier(scif_epd_t epd)
{
	char b = 1;

	xfer(epd, &b, 1, 1);
	xfer(epd, &b, 1, 0);
}

/* Which end of the memlock test connection a node is, and its address. */
struct memlock_peer {
	int server;
	__u16 node;
	__u16 port;
};

/* In a child, unprivileged, with a limit of 16 pages; symmetric. */
static void memlock_child(void *arg)
{
	const struct memlock_peer *peer = arg;
	int server = peer->server;
	struct rlimit rl = { 16 * page, 16 * page };
	const char *who = server ? "server" : "client";
	unsigned char *buf;
	scif_epd_t epd;

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		bail("setrlimit");
	buf = map_pages(32);
	memset(buf, server ? 0x55 : 0xaa, 32 * page);
	epd = server ? accept_one(peer->port) :
		       dial_or_bail(peer->node, peer->port, DIAL_SECONDS);
	tap_ok(vm_pin_kb() == 0, "%s memlock: nothing pinned at the start", who);
	EXPECT_EQ(scif_register(epd, buf, 8 * page, 0, RW, SCIF_MAP_FIXED), 0);
	EXPECT_EQ(vm_pin_kb(), 8 * page / 1024);
	EXPECT_ERR(scif_register(epd, buf + 8 * page, 9 * page, 8 * page, RW,
				 SCIF_MAP_FIXED), ENOMEM);
	EXPECT_EQ(vm_pin_kb(), 8 * page / 1024);
	EXPECT_EQ(scif_register(epd, buf + 8 * page, 8 * page, 8 * page, RW,
				SCIF_MAP_FIXED), 8 * page);
	EXPECT_ERR(scif_register(epd, buf + 16 * page, page, 0, RW, 0),
		   ENOMEM);
	barrier(epd);
	/* The peer's 16 pages cost us nothing; its RMAs pin nothing here. */
	EXPECT_EQ(scif_writeto(epd, 0, 8 * page, 8 * page, SCIF_RMA_SYNC), 0);
	/* Temporary pins of the v calls count against our limit. */
	EXPECT_ERR(scif_vwriteto(epd, buf + 16 * page, page, 0,
				 SCIF_RMA_SYNC), ENOMEM);
	EXPECT_ERR(scif_vreadfrom(epd, buf + 16 * page, 4 * page, 0, 0),
		   ENOMEM);
	EXPECT_EQ(vm_pin_kb(), 16 * page / 1024);
	barrier(epd);
	tap_ok(buf[8 * page] == (server ? 0xaa : 0x55) &&
	       buf[16 * page - 1] == (server ? 0xaa : 0x55),
	       "%s memlock: the peer's write arrived", who);
	EXPECT_EQ(scif_unregister(epd, 0, 8 * page), 0);
	EXPECT_EQ(vm_pin_settles(8 * page / 1024), 8 * page / 1024);
	/* Room again for temporary pins (same bytes as the peer holds). */
	EXPECT_EQ(scif_vwriteto(epd, buf + 16 * page, 4 * page, 8 * page,
				SCIF_RMA_SYNC), 0);
	EXPECT_EQ(vm_pin_kb(), 8 * page / 1024);
	barrier(epd);
	scif_close(epd);
	EXPECT_EQ(vm_pin_settles(0), 0);
}

static int test_memlock(int server, __u16 node, __u16 port)
{
	struct memlock_peer peer = { server, node, port };

	if (vm_pin_kb() < 0) {
		printf("# memlock: no VmPin in /proc/self/status, skipped\n");
		return 0;
	}
	tap_child("memlock", memlock_child, &peer);
	return 0;
}

/* ---- a node lost under RMAs and fences ---- */

struct loss {
	scif_epd_t epd;
	unsigned char *buf;
	unsigned char *v;
	double last_ok[3], failed_at[3], call_start[3];
	int err[3];
	const char *what[3];
	int done[3];
};

static void loss_fail(struct loss *l, int t, const char *what, double start)
{
	l->err[t] = errno;
	l->what[t] = what;
	l->call_start[t] = start;
	l->failed_at[t] = now();
	__atomic_store_n(&l->done[t], 1, __ATOMIC_RELEASE);
}

/* Thread 0: RMAs of every kind until they fail. */
static void *loss_rma(void *arg)
{
	struct loss *l = arg;
	double t0;
	int i, r;

	for (i = 0;; i++) {
		size_t len = 1 + (size_t)rand() % (8 * page);
		size_t off = (size_t)rand() % (16 * page - len);
		int flags = i % 3 ? SCIF_RMA_SYNC : 0;

		t0 = now();
		switch (i % 4) {
		case 0:
			r = scif_writeto(l->epd, C_BASE + off, len,
					 S_BASE + off, flags);
			break;
		case 1:
			r = scif_readfrom(l->epd, C_BASE + off, len,
					  S_BASE + off, flags);
			break;
		case 2:
			r = scif_vwriteto(l->epd, l->v + off, len,
					  S_BASE + off, flags);
			break;
		default:
			r = scif_vreadfrom(l->epd, l->v + off, len,
					   S_BASE + off, flags);
			break;
		}
		if (r) {
			loss_fail(l, 0, "RMA", t0);
			break;
		}
		l->last_ok[0] = now();
	}
	return NULL;
}

/* Threads 1 and 2: fence marks of the peer's RMAs, or of our own. */
static void *loss_fence(void *arg)
{
	struct loss *l = ((struct loss **)arg)[0];
	int t = (int)(long)((void **)arg)[1];
	int flags = t == 1 ? SCIF_FENCE_INIT_PEER : SCIF_FENCE_INIT_SELF;
	int mark;
	double t0;

	for (;;) {
		t0 = now();
		if (scif_fence_mark(l->epd, flags, &mark)) {
			loss_fail(l, t, "fence_mark", t0);
			break;
		}
		t0 = now();
		if (scif_fence_wait(l->epd, mark)) {
			loss_fail(l, t, "fence_wait", t0);
			break;
		}
		l->last_ok[t] = now();
	}
	return NULL;
}

static int run_loss_victim(__u16 port)
{
	unsigned char *buf = map_pages(16);
	scif_epd_t epd = accept_one(port);
	char go;
	int i, mark;

	memset(buf, 0x3c, 16 * page);
	if (register_windows(epd, buf, S_BASE, 16) < 1)
		return 1;
	xfer(epd, &go, 1, 1);
	xfer(epd, &go, 1, 0);
	printf("@@SCIF-READY RMAs with node 1 running\n");
	fflush(stdout);
	/*
	 * Keep writing into the client, so that its INIT_PEER marks wait,
	 * and count the writes in its C_SIG window: its sign of our life.
	 */
	for (i = 1;; i++) {
		if (scif_writeto(epd, S_BASE, 16 * page, C_BASE, 0) ||
		    scif_fence_signal(epd, 0, 0, C_SIG, i, SCIF_FENCE_INIT_SELF |
				      SCIF_SIGNAL_REMOTE))
			break;
		if (!(i % 4) && (scif_fence_mark(epd, SCIF_FENCE_INIT_SELF,
						 &mark) ||
				 scif_fence_wait(epd, mark)))
			break;
	}
	printf("victim: writeto failed: %s\n", strerror(errno));
	return 1;
}

static int run_loss_client(__u16 node, __u16 port, double limit)
{
	static const char * const names[] = { "RMA thread",
		"fence INIT_PEER thread", "fence INIT_SELF thread" };
	struct loss l = { 0 };
	void *args[3][2];
	pthread_t t[3];
	double start, alive;
	__u64 beat = 0, b;
	unsigned char *sig;
	char go = 1;
	int i, mark, ok, left;
	long pin;

	alarm(240);
	l.buf = map_pages(16);
	l.v = map_pages(16);
	sig = map_pages(1);
	memset(l.buf, 1, 16 * page);
	memset(l.v, 2, 16 * page);
	l.epd = dial_or_bail(node, port, DIAL_SECONDS);
	if (register_windows(l.epd, l.buf, C_BASE, 16) < 1 ||
	    scif_register(l.epd, sig, page, C_SIG, RW, SCIF_MAP_FIXED) != C_SIG)
		bail("scif_register");
	xfer(l.epd, &go, 1, 0);
	xfer(l.epd, &go, 1, 1);
	pin = vm_pin_kb();
	tap_ok(pin >= 17 * page / 1024, "loss: VmPin %ld kB with our windows",
	       pin);
	start = now();
	for (i = 0; i < 3; i++) {
		l.last_ok[i] = start;
		args[i][0] = &l;
		args[i][1] = (void *)(long)i;
		if (pthread_create(&t[i], NULL, i ? loss_fence : loss_rma,
				   i ? (void *)args[i] : (void *)&l))
			bail("pthread_create");
	}
	printf("# loss: RMAs and fences running against node %u\n", node);
	fflush(stdout);
	/* Watch the victim's heartbeat until every thread failed. */
	alive = now();
	do {
		usleep(5000);
		memcpy(&b, sig, sizeof(b));
		if (b != beat) {
			beat = b;
			alive = now();
		}
		left = 0;
		for (i = 0; i < 3; i++)
			left += !__atomic_load_n(&l.done[i], __ATOMIC_ACQUIRE);
	} while (left);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("# loss: %llu heartbeats from node %u\n",
	       (unsigned long long)beat, node);
	tap_ok(beat > 0, "loss: the victim was alive and writing to us");
	for (i = 0; i < 3; i++) {
		ok = l.err[i] == ECONNRESET || l.err[i] == ENODEV;
		tap_ok(ok, "loss: %s: %s failed with %s", names[i],
		       l.what[i] ? l.what[i] : "nothing", strerror(l.err[i]));
		tap_ok(l.failed_at[i] - alive <= limit,
		       "loss: %s: failed %.2f s after the peer's last heartbeat (limit %.0f s)",
		       names[i], l.failed_at[i] - alive, limit);
		printf("# loss: %s: last success %.2f s before, the failing call took %.2f s\n",
		       names[i], l.failed_at[i] - l.last_ok[i],
		       l.failed_at[i] - l.call_start[i]);
	}
	errno = 0;
	ok = scif_writeto(l.epd, C_BASE, 16, S_BASE, SCIF_RMA_SYNC);
	tap_ok(ok == -1 && (errno == ECONNRESET || errno == ENODEV),
	       "loss: writeto afterwards: %s", strerror(errno));
	errno = 0;
	ok = scif_fence_mark(l.epd, SCIF_FENCE_INIT_PEER, &mark);
	tap_ok(ok == -1 && (errno == ECONNRESET || errno == ENODEV),
	       "loss: fence_mark(INIT_PEER) afterwards: %s", strerror(errno));
	errno = 0;
	ok = scif_vreadfrom(l.epd, l.v, 16, S_BASE, 0);
	tap_ok(ok == -1 && (errno == ECONNRESET || errno == ENODEV),
	       "loss: vreadfrom afterwards: %s", strerror(errno));
	errno = 0;
	ok = scif_register(l.epd, l.v, page, 0, RW, 0);
	tap_ok(ok == -1 && (errno == ECONNRESET || errno == ENODEV),
	       "loss: register afterwards: %s", strerror(errno));
	ok = scif_unregister(l.epd, C_BASE, 16 * page);
	printf("# loss: unregister after the loss: %d (%s)\n", ok,
	       ok ? strerror(errno) : "ok");
	start = now();
	scif_close(l.epd);
	tap_ok(now() - start < limit, "loss: close took %.2f s",
	       now() - start);
	EXPECT_EQ(vm_pin_settles(0), 0);
	munmap(l.buf, 16 * page);
	munmap(l.v, 16 * page);
	munmap(sig, page);
	return tap_done();
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int a = argc > 2 ? atoi(argv[2]) : 0;
	int b = argc > 3 ? atoi(argv[3]) : 0;
	__u64 seed;
	int iters;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	size = (size_t)NPAGES * page;
	drop_privilege();
	if (!strcmp(cmd, "server") && argc == 3) {
		alarm(600);
		run_server(a);
		test_memlock(1, 0, a + 1);
		return tap_done();
	}
	if (!strcmp(cmd, "client") && argc >= 4) {
		alarm(600);
		iters = argc > 4 ? atoi(argv[4]) : 300;
		seed = argc > 5 ? strtoull(argv[5], NULL, 0) :
		       (__u64)time(NULL);
		printf("# seed %llu, %d iterations\n",
		       (unsigned long long)seed, iters);
		run_client(a, b, iters, seed);
		test_memlock(0, a, b + 1);
		return tap_done();
	}
	if (!strcmp(cmd, "loss-victim") && argc == 3)
		return run_loss_victim(a);
	if (!strcmp(cmd, "loss-client") && argc >= 4) {
		double limit = loss_bound_s(argc > 4 ? argv[4] : "+8");

		if (limit < 0)
			bail("loss-client: no ntb_ivshmem heartbeat parameters");
		return run_loss_client(a, b, limit);
	}
	fprintf(stderr,
		"usage: scif-rma-ntb-test server PORT | client NODE PORT [ITERS [SEED]]\n"
		"       | loss-victim PORT | loss-client NODE PORT [SECONDS]\n");
	return 2;
}
