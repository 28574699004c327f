// SPDX-License-Identifier: GPL-2.0
/*
 * scif-rma-bench: RMA between two SCIF nodes, measured (a benchmark, not a
 * test; scripts/bench/bench-rma runs it).
 *
 *   scif-rma-bench server PORT
 *   scif-rma-bench client NODE PORT [MAXWIN [BUDGET [TABLES]]]
 *
 * The client prints three tables, or those TABLES names (default "brl":
 * b bandwidth, r registration, l latency):
 * - bandwidth of scif_writeto/scif_readfrom, 4 KiB .. 64 MiB, between
 *   64 MiB registered as 1 MiB windows on each node, with SCIF_RMA_USECPU
 *   and with no flag (the DMA engine if the node has one, else the CPU),
 *   a fence after every 8 RMAs and at the end of each timed run; each
 *   figure is the best of TRIES runs, the four columns taking turns, as
 *   ntb_ivshmem_bench measures the window memcpy it is compared with;
 * - registration cost: scif_register and scif_unregister of 1 .. 16384
 *   pages (one window; mean, and median of the registrations), after the
 *   endpoint's first registration (shown apart: it also sets up the
 *   endpoint's RMA state on both nodes);
 * - latency of an 8-byte SCIF_RMA_SYNC scif_writeto to a random window
 *   while 1, 10, .. MAXWIN (default 100000) one-page windows are registered
 *   on each node (the same page registered over and over), measured
 *   SETTLE_S seconds after the last registration. Growing the
 *   window count stops when it would take longer than BUDGET seconds
 *   (default 1800) in all; the table says so.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PROG_NAME "scif-rma-bench"
#include "scif_util.h"

#define RW		(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define BIG		(64UL << 20)
#define C_BASE		0x10000000L
#define S_BASE		0x10000000L
/* Seconds of rest between growing the window count and measuring. */
#define SETTLE_S	5
/* The one-page windows of the latency table, on both nodes. */
#define W_BASE		0x100000000L
/* How long the client keeps trying to connect while the server boots. */
#define DIAL_SECONDS	60

enum { CMD_GROW = 1, CMD_DONE };

struct cmd {
	__u32 op;
	__u32 pad;
	__u64 n;
};

static long page;

static void xfer(scif_epd_t epd, void *buf, int len, int send)
{
	int n = send ? scif_send(epd, buf, len, SCIF_SEND_BLOCK) :
		       scif_recv(epd, buf, len, SCIF_RECV_BLOCK);

	if (n != len)
		die(send ? "scif_send" : "scif_recv");
}

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 0x5a, len);
	return p;
}

/*
 * Register @buf as contiguous 1 MiB windows at @base: one call pinning
 * 64 MiB can stall a TCG guest long enough for the emulated NTB's
 * heartbeat to time out (see Documentation/scif-rma.rst).
 */
static void register_big(scif_epd_t epd, char *buf, long base)
{
	size_t off;

	for (off = 0; off < BIG; off += 1 << 20)
		if (scif_register(epd, buf + off, 1 << 20, base + off, RW,
				  SCIF_MAP_FIXED) < 0)
			die("scif_register");
}

/*
 * Grow the one-page windows at W_BASE from @have to @want, one at a time:
 * registering from 32 threads at once was three times slower per window
 * (10,000 windows: 400 s against 123 s) on the 2-core rig, whose guests
 * are short of CPU rather than waiting on the link.
 */
static void grow(scif_epd_t epd, void *pg, long have, long want)
{
	long i;

	for (i = have; i < want; i++)
		if (scif_register(epd, pg, page, W_BASE + i * page, RW,
				  SCIF_MAP_FIXED) < 0)
			die("scif_register (one-page window)");
}

static int run_server(__u16 port)
{
	scif_epd_t l = scif_open(), epd;
	struct scif_port_id peer;
	void *buf = map(BIG), *pg = map(page);
	long have = 0;
	double t0;
	struct cmd c;

	if (l == SCIF_OPEN_FAILED || scif_bind(l, port) < 0 ||
	    scif_listen(l, 1) < 0)
		die("listen");
	if (scif_accept(l, &peer, &epd, SCIF_ACCEPT_SYNC) < 0)
		die("scif_accept");
	register_big(epd, buf, S_BASE);
	for (;;) {
		xfer(epd, &c, sizeof(c), 0);
		if (c.op != CMD_GROW)
			break;
		t0 = now();
		grow(epd, pg, have, c.n);
		have = c.n;
		t0 = now() - t0;
		xfer(epd, &t0, sizeof(t0), 1);
	}
	scif_close(epd);
	scif_close(l);
	return 0;
}

static void fence(scif_epd_t epd)
{
	int mark;

	if (scif_fence_mark(epd, SCIF_FENCE_INIT_SELF, &mark) ||
	    scif_fence_wait(epd, mark))
		die("fence");
}

/* Runs per bandwidth figure, and the seconds each lasts at least. */
#define TRIES		3
#define TRY_S		0.2

/* MB/s of RMAs of @len bytes, for about TRY_S seconds. */
static double bandwidth(scif_epd_t epd, int write, size_t len, int flags)
{
	size_t done = 0, off = 0;
	double t0 = now(), t;
	int r, n = 0;

	do {
		r = write ? scif_writeto(epd, C_BASE + off, len, S_BASE + off,
					 flags) :
			    scif_readfrom(epd, C_BASE + off, len, S_BASE + off,
					  flags);
		if (r)
			die(write ? "scif_writeto" : "scif_readfrom");
		done += len;
		off = (off + len) % BIG;
		/* Fence now and then: it ends each timed run anyway. */
		if (!(++n % 8))
			fence(epd);
		t = now() - t0;
	} while (n < 2 || (t < TRY_S && done < 8 * BIG));
	fence(epd);
	return done / 1e6 / (now() - t0);
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

/*
 * The best of TRIES runs per figure, the four columns taking turns: the
 * shared host's other load comes and goes within seconds, and the best run
 * is what the path can do, as for the rig's own limits.
 */
static void table_bandwidth(scif_epd_t epd)
{
	size_t len;
	int t;

	printf("RMA bandwidth, MB/s (64 MiB in 1 MiB windows per node; ");
	printf("a fence every 8 RMAs; best of %d runs)\n", TRIES);
	printf("%10s %12s %12s %12s %12s\n", "bytes", "write CPU",
	       "write flag 0", "read CPU", "read flag 0");
	for (len = 4096; len <= BIG; len *= 4) {
		double wc = 0, wd = 0, rc = 0, rd = 0;

		for (t = 0; t < TRIES; t++) {
			wc = max_d(wc, bandwidth(epd, 1, len, SCIF_RMA_USECPU));
			wd = max_d(wd, bandwidth(epd, 1, len, 0));
			rc = max_d(rc, bandwidth(epd, 0, len, SCIF_RMA_USECPU));
			rd = max_d(rd, bandwidth(epd, 0, len, 0));
		}
		printf("%10zu %12.0f %12.0f %12.0f %12.0f\n", len, wc, wd, rc,
		       rd);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void table_registration(scif_epd_t epd, char *buf)
{
	double treg, tunreg, t0, t[20];
	long pages, n, i;
	off_t o;

	/*
	 * The endpoint's first registration also sets up what both nodes
	 * keep for its RMA; it is shown apart, and the table measures the
	 * steady cost.
	 */
	t0 = now();
	o = scif_register(epd, buf, page, 0, RW, 0);
	if (o < 0)
		die("scif_register");
	treg = now() - t0;
	if (scif_unregister(epd, o, page))
		die("scif_unregister");
	printf("\nfirst registration of the endpoint (1 page): %.1f us\n",
	       treg * 1e6);
	/*
	 * The median beside the mean: on a shared host a few rounds wait
	 * milliseconds for a CPU, and the rig's own round trips are medians.
	 */
	printf("registration cost (one window of N pages, registered and unregistered)\n");
	printf("%8s %8s %14s %14s %16s %12s\n", "pages", "rounds",
	       "register us", "median us", "unregister us", "us per page");
	for (pages = 1; pages <= (long)(BIG / page); pages *= 4) {
		treg = 0;
		tunreg = 0;
		n = pages >= 1024 ? 3 : 20;
		for (i = 0; i < n; i++) {
			t0 = now();
			o = scif_register(epd, buf, pages * page, 0, RW, 0);
			if (o < 0)
				die("scif_register");
			t[i] = now() - t0;
			treg += t[i];
			t0 = now();
			if (scif_unregister(epd, o, pages * page))
				die("scif_unregister");
			tunreg += now() - t0;
		}
		qsort(t, n, sizeof(t[0]), cmp_double);
		printf("%8ld %8ld %14.1f %14.1f %16.1f %12.2f\n", pages, n,
		       treg / n * 1e6,
		       (n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2) * 1e6,
		       tunreg / n * 1e6, (treg + tunreg) / n / pages * 1e6);
		fflush(stdout);
	}
}

/* Mean us of an 8-byte SCIF_RMA_SYNC writeto to random windows of @nwin. */
static double latency(scif_epd_t epd, long nwin, int flags)
{
	double t0 = now(), t;
	int n = 0;

	do {
		if (scif_writeto(epd, C_BASE + 64 * (n % 64), 8,
				 W_BASE + (rand() % nwin) * page + 8,
				 flags | SCIF_RMA_SYNC))
			die("scif_writeto of 8 bytes");
		n++;
		t = now() - t0;
	} while (n < 20 || (t < 1.0 && n < 20000));
	return t / n * 1e6;
}

static void table_latency(scif_epd_t epd, long maxwin, double budget)
{
	struct cmd c = { CMD_GROW, 0, 0 };
	void *pg = map(page);
	double t0, treg, tpeer, per = 0, spent = 0;
	long have = 0, want;
	double t;
	int i;

	/* The floor: a writeto of no bytes returns after the argument checks. */
	t0 = now();
	for (i = 0; i < 1000; i++)
		if (scif_writeto(epd, C_BASE, 0, S_BASE, SCIF_RMA_SYNC))
			die("scif_writeto of 0 bytes");
	t = (now() - t0) / 1000 * 1e6;
	printf("\nlatency of an 8-byte SYNC writeto with N one-page windows on each node\n");
	printf("(the system call alone, a writeto of 0 bytes: %.1f us)\n", t);
	printf("%8s %14s %14s %12s %12s\n", "windows", "register s",
	       "(peer) s", "CPU us", "flag 0 us");
	for (want = 1; want <= maxwin; want *= 10) {
		if (per * (want - have) + spent > budget) {
			printf("%8ld   not measured: ~%.0f s more to register (budget %.0f s)\n",
			       want, per * (want - have), budget);
			break;
		}
		c.n = want;
		xfer(epd, &c, sizeof(c), 1);
		t0 = now();
		grow(epd, pg, have, want);
		treg = now() - t0;
		xfer(epd, &tpeer, sizeof(tpeer), 0);
		spent += now() - t0;
		per = (now() - t0) / (want - have);
		have = want;
		/*
		 * Thousands of registrations leave work behind them (RCU
		 * callbacks freeing tree nodes, work items); let it finish so
		 * that the lookups, not the leftovers, are measured.
		 */
		sleep(SETTLE_S);
		printf("%8ld %14.2f %14.2f %12.1f %12.1f\n", want, treg, tpeer,
		       latency(epd, have, SCIF_RMA_USECPU),
		       latency(epd, have, 0));
		fflush(stdout);
	}
}

static int run_client(__u16 node, __u16 port, long maxwin, double budget,
		      const char *tables)
{
	scif_epd_t epd = dial_or_die(node, port, DIAL_SECONDS);
	char *buf = map(BIG);
	struct cmd c = { CMD_DONE, 0, 0 };

	register_big(epd, buf, C_BASE);
	if (strchr(tables, 'b'))
		table_bandwidth(epd);
	if (strchr(tables, 'r'))
		table_registration(epd, buf);
	if (strchr(tables, 'l'))
		table_latency(epd, maxwin, budget);
	xfer(epd, &c, sizeof(c), 1);
	scif_close(epd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	srand(1);
	if (!strcmp(cmd, "server") && argc == 3)
		return run_server(atoi(argv[2]));
	if (!strcmp(cmd, "client") && argc >= 4)
		return run_client(atoi(argv[2]), atoi(argv[3]),
				  argc > 4 ? atol(argv[4]) : 100000,
				  argc > 5 ? atof(argv[5]) : 1800,
				  argc > 6 ? argv[6] : "brl");
	fprintf(stderr, "usage: scif-rma-bench server PORT\n"
		"       scif-rma-bench client NODE PORT [MAXWIN [BUDGET [TABLES]]]\n");
	return 2;
}
