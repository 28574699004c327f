// SPDX-License-Identifier: GPL-2.0
/*
 * Every mapping an unprivileged process can obtain from the driver holds
 * only bytes somebody wrote: zeros, or what the process or its peer put
 * there. On the loopback node, as uid 65534 (dropped from root if need
 * be; /dev/scif is 0666).
 *
 * First 64 MiB of anonymous memory are filled with a marker byte and
 * freed, so that the pages the kernel hands out next likely held it (8 MiB
 * more before each connection). Then, for each of 24 connections:
 *
 *  - both ends map their stream (SCIF_STREAM_MAP) before a byte moved:
 *    both parts (the page of positions, the peer's control block and ring;
 *    our control block and ring) must be zero throughout;
 *  - one end sends a pattern, the other receives it: the rings hold the
 *    pattern and zeros, the control blocks and the pages of positions
 *    exactly the positions, nothing else;
 *  - the acceptor registers a window over fresh memory, writes a pattern
 *    into its first page, and the connector maps it with scif_mmap(): the
 *    pattern, then zeros;
 *  - the acceptor closes: in both processes the peer's pieces show the
 *    sink page (zeros), their own pieces what was written before.
 *
 * A byte that differs from what was written is counted (and marker bytes
 * among them); any such byte fails the test. Prints TAP.
 */
#include <endian.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "scif_test.h"

#define CONNS		24
#define MARKER		0x41
#define DIRTY_FIRST	(64UL << 20)
#define DIRTY_EACH	(8UL << 20)
#define WIN_PAGES	16

/* One endpoint's mapped stream, as stream_map_test.c maps it. */
struct smap {
	struct scifioctl_stream_map m;
	unsigned char *rw;	/* positions, peer's control block, peer's ring */
	unsigned char *ro;	/* our control block, our ring */
};

/* Bytes compared, and those that nobody wrote (marker bytes among them). */
struct tally {
	unsigned long scanned;
	unsigned long stale;
	unsigned long marker;
};

static long page;
static struct tally total;

static void smap_open(scif_epd_t e, struct smap *s)
{
	memset(s, 0, sizeof(*s));
	if (ioctl(e, SCIF_STREAM_MAP, &s->m) < 0)
		bail("SCIF_STREAM_MAP: %s", strerror(errno));
	s->rw = mmap(NULL, s->m.rw_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     s->m.fd, s->m.rw_offset);
	s->ro = mmap(NULL, s->m.ro_len, PROT_READ, MAP_SHARED, s->m.fd,
		     s->m.ro_offset);
	if (s->rw == MAP_FAILED || s->ro == MAP_FAILED)
		bail("mmap of the stream");
	close(s->m.fd);
}

static void smap_close(struct smap *s)
{
	munmap(s->rw, s->m.rw_len);
	munmap(s->ro, s->m.ro_len);
}

/*
 * Compare @len bytes at @p with @want (@want_len bytes, then zeros). The
 * first few differences are printed as TAP comments.
 */
static void scan(struct tally *t, const char *what, const unsigned char *p,
		 size_t len, const void *want, size_t want_len)
{
	const unsigned char *w = want;
	unsigned long shown = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char exp = i < want_len ? w[i] : 0;

		if (p[i] == exp)
			continue;
		t->stale++;
		if (p[i] == MARKER)
			t->marker++;
		if (shown++ < 4)
			printf("# %s: byte %zu is %#x, written %#x\n", what, i,
			       p[i], exp);
	}
	t->scanned += len;
}

/* A page of &struct scif_stream_shared with these positions. */
static void scan_shared(struct tally *t, const char *what,
			const unsigned char *p, __u32 read, __u32 sent,
			__u32 down)
{
	struct scif_stream_shared sh = {
		.read = read, .sent = sent, .down = down,
	};

	scan(t, what, p, page, &sh, sizeof(sh));
}

/* A page of &struct scif_stream_ctl with these indices, no event index. */
static void scan_ctl(struct tally *t, const char *what, const unsigned char *p,
		     __u32 written, __u32 consumed)
{
	struct scif_stream_ctl c = {
		.written = htole32(written), .consumed = htole32(consumed),
	};

	scan(t, what, p, page, &c, sizeof(c));
}

/*
 * What both ends must see: @sent bytes of @pat went from @a to @b and
 * were received; @down for each end whether it was told the connection
 * ended (its view of the peer's memory is then the sink, all zeros).
 */
static void scan_pair(struct tally *t, const struct smap *a,
		      const struct smap *b, const unsigned char *pat,
		      __u32 sent, int a_down, int b_down)
{
	/* a: its positions, b's block and ring (or the sink); its own. */
	scan_shared(t, "a: positions", a->rw, 0, sent, a_down);
	if (a_down) {
		scan(t, "a: sink for b's block", a->rw + page, page, NULL, 0);
		scan(t, "a: sink for b's ring", a->rw + 2 * page,
		     a->m.tx_size, NULL, 0);
	} else {
		scan_ctl(t, "a: b's block", a->rw + page, sent, 0);
		scan(t, "a: b's ring", a->rw + 2 * page, a->m.tx_size, pat,
		     sent);
	}
	scan_ctl(t, "a: own block", a->ro, 0, sent);
	scan(t, "a: own ring", a->ro + page, a->m.rx_size, NULL, 0);

	scan_shared(t, "b: positions", b->rw, sent, 0, b_down);
	if (b_down) {
		scan(t, "b: sink for a's block", b->rw + page, page, NULL, 0);
		scan(t, "b: sink for a's ring", b->rw + 2 * page,
		     b->m.tx_size, NULL, 0);
	} else {
		scan_ctl(t, "b: a's block", b->rw + page, 0, sent);
		scan(t, "b: a's ring", b->rw + 2 * page, b->m.tx_size, NULL,
		     0);
	}
	scan_ctl(t, "b: own block", b->ro, sent, 0);
	scan(t, "b: own ring", b->ro + page, b->m.rx_size, pat, sent);
}

/* Fault in @len bytes of the marker and give them back to the kernel. */
static void dirty(size_t len)
{
	unsigned char *p = map_anon(len, PROT_READ | PROT_WRITE);

	memset(p, MARKER, len);
	munmap(p, len);
}

static void report(const char *what, int conn, const struct tally *t)
{
	total.scanned += t->scanned;
	total.stale += t->stale;
	total.marker += t->marker;
	tap_ok(!t->stale, "connection %d, %s: %lu bytes, %lu unwritten (%lu marker)",
	       conn, what, t->scanned, t->stale, t->marker);
}

/* scif_mmap() of a window @b registered over fresh memory. */
static void scan_window(int conn, scif_epd_t a, scif_epd_t b,
			const unsigned char *pat)
{
	size_t len = WIN_PAGES * page;
	unsigned char *mem = map_anon(len, PROT_READ | PROT_WRITE), *m;
	struct tally t = { 0 };
	off_t off;

	memcpy(mem, pat, page);
	off = scif_register(b, mem, len, 0, SCIF_PROT_READ | SCIF_PROT_WRITE,
			    0);
	if (off < 0)
		bail("scif_register");
	m = scif_mmap(NULL, len, SCIF_PROT_READ, 0, a, off);
	if (m == SCIF_MMAP_FAILED)
		bail("scif_mmap");
	scan(&t, "peer's window", m, len, pat, page);
	report("the peer's window through scif_mmap()", conn, &t);
	if (scif_munmap(m, len) || scif_unregister(b, off, len))
		bail("scif_munmap/scif_unregister");
	munmap(mem, len);
}

/* Wait up to 5 s for the kernel to mark a mapped stream down. */
static int wait_down(const struct smap *s)
{
	const struct scif_stream_shared *sh = (const void *)s->rw;
	int i;

	for (i = 0; i < 500 && !__atomic_load_n(&sh->down, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	return __atomic_load_n(&sh->down, __ATOMIC_ACQUIRE);
}

static void one_connection(int conn, scif_epd_t l, __u16 port)
{
	unsigned char *pat, *got;
	struct tally t = { 0 };
	struct smap sa, sb;
	scif_epd_t a, b;
	size_t i, pat_len;
	__u32 sent;

	dirty(DIRTY_EACH);
	make_pair_on(l, port, &a, &b);
	smap_open(a, &sa);
	smap_open(b, &sb);
	if (sa.m.tx_size != sb.m.rx_size || sa.m.rx_size != sb.m.tx_size)
		bail("ring sizes %u/%u and %u/%u do not match", sa.m.rx_size,
		     sa.m.tx_size, sb.m.rx_size, sb.m.tx_size);

	scan_pair(&t, &sa, &sb, NULL, 0, 0, 0);
	report("mapped before any byte", conn, &t);

	/* Never 0 nor the marker, a different length each time. */
	sent = 1000 + conn * 521;
	if (sent > sa.m.tx_size)
		sent = sa.m.tx_size;
	pat_len = (size_t)page > sent ? (size_t)page : sent;
	pat = malloc(pat_len);
	got = malloc(sent);
	if (!pat || !got)
		bail("malloc");
	for (i = 0; i < pat_len; i++)
		pat[i] = 0x80 | ((i + conn) & 0x3f);
	if (scif_send(a, pat, sent, SCIF_SEND_BLOCK) != (int)sent ||
	    scif_recv(b, got, sent, SCIF_RECV_BLOCK) != (int)sent)
		bail("scif_send/scif_recv of %u bytes", sent);
	if (memcmp(pat, got, sent))
		bail("the bytes received differ from those sent");
	memset(&t, 0, sizeof(t));
	scan_pair(&t, &sa, &sb, pat, sent, 0, 0);
	report("after one send", conn, &t);

	scan_window(conn, a, b, pat);

	scif_close(b);
	if (!wait_down(&sa) || !wait_down(&sb))
		bail("the stream was not marked down after the close");
	memset(&t, 0, sizeof(t));
	scan_pair(&t, &sa, &sb, pat, sent, 1, 1);
	report("after the peer closed", conn, &t);

	smap_close(&sa);
	smap_close(&sb);
	scif_close(a);
	free(pat);
	free(got);
}

int main(void)
{
	scif_epd_t l;
	__u16 port;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
		bail("setuid");
	tap_ok(geteuid() != 0,
	       "runs unprivileged (uid %u)", (unsigned int)geteuid());
	dirty(DIRTY_FIRST);
	l = make_listener(CONNS, &port);
	for (i = 0; i < CONNS; i++)
		one_connection(i, l, port);
	scif_close(l);
	tap_ok(!total.stale, "in all: %lu bytes, %lu unwritten (%lu marker)",
	       total.scanned, total.stale, total.marker);
	return tap_done();
}
