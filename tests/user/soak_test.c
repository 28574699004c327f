// SPDX-License-Identifier: GPL-2.0
/*
 * The soak load of one node (Documentation/security.rst, "Soak").
 *
 *   scif-soak PORT SECONDS|@EPOCH
 *
 * Listens on PORT and, for SECONDS, keeps one connection at a time open
 * to every other node up (a client thread per peer), each connection
 * living a few rounds and then replaced by a new one. A round, from the
 * client's side:
 *
 *  - stream: frames of random length, each an 8-byte header (sequence
 *    number, length) and a payload whose bytes derive from (connection,
 *    stream offset); the peer checks each frame and echoes it, the client
 *    checks the echo. Even rounds go through libscif's mapped stream
 *    (scif_send/scif_recv), odd rounds through the plain requests.
 *  - register/unregister churn: a fresh local window every round;
 *  - RMA: scif_writeto of a pattern into the peer's window, by CPU or by
 *    DMA (alternating), scif_readfrom back into another part of ours,
 *    every byte compared;
 *  - fences: a mark and its wait, then a fence signal writing a value at
 *    a local and at a remote offset, both awaited;
 *  - mmap: the peer's window mapped and compared with what was written
 *    (and the remote signal value read there).
 *
 * A connection ends either intact (every byte sent came back exactly, in
 * order) or with one of the documented errors of a connection that was
 * reset or whose node went away: ECONNRESET, ENODEV, ENOTCONN, EPIPE,
 * ENOMEM (allocation failures under fault injection; the connection is
 * then closed on purpose), ETIMEDOUT, or SIGBUS on an access to the mapping
 * after a reset. Anything else is a failure; a byte that differs from its
 * pattern, a frame out of order and a signal that never arrives are
 * corruptions. SIGTERM ends the run early. The last line of output is the
 * summary (@@SOAK ...), and the exit status is 0 only with no failure and
 * no corruption.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PROG_NAME "scif-soak"
#include "scif_util.h"

#define MAX_NODES	16
#define ROUNDS		8	/* rounds per connection */
#define FRAMES		16	/* stream frames per round */
#define FRAME_MAX	24576
#define WIN		65536	/* the server's window; its last page: signals */
#define DATA		32768	/* RMA bytes per round */
#define SIG_OFF		(WIN - 4096)
#define BYE		0xffffffffu
#define GRACE_S		90	/* after the end, for the last connections */

/* Run-wide counters, under @lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long bytes, ops;
static unsigned long intact, served, resets, failures, corruptions, dial_errs;
static unsigned long causes[4096];
static double recovery_max;
static int active_servers;
static __u16 self;
/* set from a signal handler and by other threads: lock-free atomics */
static atomic_int stop;
static atomic_int accept_done;
static double end_time;
static long page;

static __thread sigjmp_buf *bus_jmp;

struct frame {
	__u32 seq;
	__u32 len;
};

struct conn {
	scif_epd_t epd;
	__u64 id;		/* (client node, peer node, serial) */
	__u64 tx, rx;		/* stream offsets */
	__u32 seq_tx, seq_rx;
	int mapped;		/* this round through libscif's mapping */
	int err;		/* errno that ended it; -1: corruption */
	const char *what;
};

/* The payload byte at stream offset @off of connection @id. */
static unsigned char pat(__u64 id, __u64 off)
{
	__u64 x = id * 0x9e3779b97f4a7c15ull ^ (off >> 3) * 0xbf58476d1ce4e5b9ull;

	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return x >> ((off & 7) * 8);
}

static void fill(unsigned char *b, size_t n, __u64 id, __u64 off)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = pat(id, off + i);
}

static int check(const unsigned char *b, size_t n, __u64 id, __u64 off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != pat(id, off + i))
			return 0;
	return 1;
}

/* Errors that may end a connection under the soak's faults. */
static int documented(int err)
{
	return err == ECONNRESET || err == ENODEV || err == ENOTCONN ||
	       err == EPIPE || err == ENOMEM || err == ETIMEDOUT ||
	       err == ENXIO;
}

/* Record that @c failed in @what with errno (or corruption, @err -1). */
static int fail(struct conn *c, const char *what, int err)
{
	c->what = what;
	c->err = err;
	return -1;
}

/*
 * A blocking call moves all @len bytes, or fewer when the connection ends
 * meanwhile: the bytes that made it count, and the next call says why it
 * ended (or moves the bytes still queued). A blocking call that moves
 * nothing and reports nothing breaks the API: counted as corruption.
 */
static int xfer(struct conn *c, int send, void *buf, int len)
{
	char *p = buf;
	int n;

	while (len > 0) {
		if (c->mapped)
			n = send ? scif_send(c->epd, p, len, SCIF_SEND_BLOCK) :
				   scif_recv(c->epd, p, len, SCIF_RECV_BLOCK);
		else
			n = raw_msg(c->epd, send ? SCIF_SEND : SCIF_RECV, p,
				    len, send ? SCIF_SEND_BLOCK :
				    SCIF_RECV_BLOCK);
		if (n <= 0 || n > len)
			return fail(c, send ? "send" : "recv",
				    n < 0 ? errno : -1);
		p += n;
		len -= n;
	}
	return 0;
}

/* Send one frame of @len pattern bytes (or the BYE frame, @len BYE). */
static int send_frame(struct conn *c, unsigned char *buf, __u32 len)
{
	struct frame f = { .seq = c->seq_tx++, .len = len };

	if (xfer(c, 1, &f, sizeof(f)))
		return -1;
	if (len == BYE || !len)
		return 0;
	fill(buf, len, c->id, c->tx);
	if (xfer(c, 1, buf, len))
		return -1;
	c->tx += len;
	return 0;
}

/* Receive one frame and check it; *@len gets its length. */
static int recv_frame(struct conn *c, unsigned char *buf, __u32 *len)
{
	struct frame f;

	if (xfer(c, 0, &f, sizeof(f)))
		return -1;
	if (f.seq != c->seq_rx++ || (f.len > FRAME_MAX && f.len != BYE))
		return fail(c, "frame header", -1);
	*len = f.len;
	if (f.len == BYE || !f.len)
		return 0;
	if (xfer(c, 0, buf, f.len))
		return -1;
	if (!check(buf, f.len, c->id, c->rx))
		return fail(c, "stream bytes", -1);
	c->rx += f.len;
	return 0;
}

static void account(struct conn *c, const char *side)
{
	pthread_mutex_lock(&lock);
	bytes += c->tx + c->rx;
	if (!c->what) {
		intact++;
	} else if (c->err > 0 && documented(c->err)) {
		resets++;
		causes[c->err]++;
	} else if (c->err == -2) {
		resets++;	/* SIGBUS on the mapping after a reset */
		causes[0]++;
	} else {
		if (c->err == -1)
			corruptions++;
		else
			failures++;
		printf("%s: %s connection %#llx: %s: %s\n", PROG_NAME, side,
		       (unsigned long long)c->id, c->what,
		       c->err == -1 ? "corruption" : strerror(c->err));
	}
	pthread_mutex_unlock(&lock);
}

static void count_ops(unsigned long n)
{
	pthread_mutex_lock(&lock);
	ops += n;
	pthread_mutex_unlock(&lock);
}

/* The server's side: a window for the peer, then echo until BYE. */
static void *serve(void *arg)
{
	struct conn c = { .epd = (scif_epd_t)(long)arg };
	unsigned char *buf = malloc(FRAME_MAX), *win = NULL;
	__u32 len;
	int rounds = 0;

	if (!buf || posix_memalign((void **)&win, page, WIN))
		die("malloc");
	memset(win, 0, WIN);
	if (xfer(&c, 0, &c.id, sizeof(c.id)))
		goto out;
	if (scif_register(c.epd, win, WIN, 0, SCIF_PROT_READ |
			  SCIF_PROT_WRITE, SCIF_MAP_FIXED) != 0) {
		fail(&c, "scif_register", errno);
		goto out;
	}
	if (xfer(&c, 1, &c.id, sizeof(c.id)))
		goto out;
	for (;;) {
		/* each round's first frame says which path the round takes */
		c.mapped = rounds & 1 ? 0 : 1;
		if (recv_frame(&c, buf, &len))
			break;
		if (len == BYE) {
			send_frame(&c, buf, BYE);
			break;
		}
		if (!len) {
			rounds++;
			send_frame(&c, buf, 0);
			continue;
		}
		c.tx = c.rx - len;
		if (send_frame(&c, buf, len))
			break;
		c.tx = c.rx;
		count_ops(2);
	}
out:
	account(&c, "server");
	scif_close(c.epd);
	free(win);
	free(buf);
	pthread_mutex_lock(&lock);
	active_servers--;
	served++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *acceptor(void *arg)
{
	scif_epd_t l = (scif_epd_t)(long)arg, epd;
	struct scif_port_id from;
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	while (!accept_done) {
		if (scif_accept(l, &from, &epd, 0) < 0) {
			/* a failed allocation fails that one request only */
			if (errno != EAGAIN && !documented(errno))
				die("scif_accept");
			usleep(20000);
			continue;
		}
		pthread_mutex_lock(&lock);
		active_servers++;
		pthread_mutex_unlock(&lock);
		if (pthread_create(&t, &attr, serve, (void *)(long)epd))
			die("pthread_create");
	}
	return NULL;
}

static void on_bus(int sig)
{
	(void)sig;
	if (bus_jmp)
		siglongjmp(*bus_jmp, 1);
	abort();
}

/*
 * Wait up to 10 s for the value at @p (a signal's target, written by the
 * kernel or the peer) to be @want.
 */
static int wait_value(const __u64 *p, __u64 want)
{
	double end = now() + 10;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != want) {
		if (now() > end)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* The peer's window through scif_mmap: the data and the signal value. */
static int check_mmap(struct conn *c, __u64 key, __u64 sigval)
{
	sigjmp_buf jb;
	unsigned char *m;
	int ok;

	m = scif_mmap(NULL, WIN, SCIF_PROT_READ, 0, c->epd, 0);
	if (m == SCIF_MMAP_FAILED)
		return fail(c, "scif_mmap", errno);
	if (sigsetjmp(jb, 1)) {
		bus_jmp = NULL;
		scif_munmap(m, WIN);
		return fail(c, "mapping (SIGBUS)", -2);
	}
	bus_jmp = &jb;
	/* the remote signal may land after the local one */
	ok = check(m, DATA, key, 0) &&
	     !wait_value((const __u64 *)(m + SIG_OFF), sigval);
	bus_jmp = NULL;
	scif_munmap(m, WIN);
	return ok ? 0 : fail(c, "bytes in the mapping", -1);
}

/* RMA, fences and mmap of one round against the peer's window. */
static int rma_round(struct conn *c, unsigned char *loc, int round)
{
	__u64 key = c->id ^ ((__u64)round << 40) ^ 0x5aull << 56;
	__u64 sigval = key | 1, lsig = key | 2;
	int flags = round & 1 ? SCIF_RMA_USECPU : 0, mark;
	off_t lo;

	memset(loc, 0, 2 * DATA + 4096);
	fill(loc, DATA, key, 0);
	lo = scif_register(c->epd, loc, 2 * DATA + 4096, 0,
			   SCIF_PROT_READ | SCIF_PROT_WRITE, 0);
	if (lo == SCIF_REGISTER_FAILED)
		return fail(c, "scif_register", errno);
	if (scif_writeto(c->epd, lo, DATA, 0, flags))
		return fail(c, "scif_writeto", errno);
	/* RMAs are not ordered among themselves: the fence orders them */
	if (scif_fence_mark(c->epd, SCIF_FENCE_INIT_SELF, &mark))
		return fail(c, "scif_fence_mark", errno);
	if (scif_fence_wait(c->epd, mark))
		return fail(c, "scif_fence_wait", errno);
	if (scif_readfrom(c->epd, lo + DATA, DATA, 0, flags | SCIF_RMA_SYNC))
		return fail(c, "scif_readfrom", errno);
	if (!check(loc + DATA, DATA, key, 0))
		return fail(c, "bytes read back", -1);
	if (scif_fence_signal(c->epd, lo + 2 * DATA, lsig, SIG_OFF, sigval,
			      SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL |
			      SCIF_SIGNAL_REMOTE))
		return fail(c, "scif_fence_signal", errno);
	if (wait_value((const __u64 *)(loc + 2 * DATA), lsig))
		return fail(c, "local fence signal", -1);
	if (check_mmap(c, key, sigval))
		return -1;
	if (scif_unregister(c->epd, lo, 2 * DATA + 4096))
		return fail(c, "scif_unregister", errno);
	count_ops(8);
	return 0;
}

/* One connection from the client's side: ROUNDS rounds, then BYE. */
static int session(struct conn *c, unsigned char *buf, unsigned char *loc,
		   __u64 *rng)
{
	__u64 echo;
	__u32 len;
	int r, i;

	if (xfer(c, 1, &c->id, sizeof(c->id)) ||
	    xfer(c, 0, &echo, sizeof(echo)))
		return -1;
	if (echo != c->id)
		return fail(c, "hello", -1);
	for (r = 0; r < ROUNDS && !stop && now() < end_time; r++) {
		c->mapped = r & 1 ? 0 : 1;
		for (i = 0; i < FRAMES; i++) {
			__u64 at = c->tx;

			len = 1 + xorshift64(rng) % FRAME_MAX;
			if (send_frame(c, buf, len))
				return -1;
			/* the echo carries the same offsets */
			c->rx = at;
			if (recv_frame(c, buf, &len))
				return -1;
			c->rx = c->tx;
			count_ops(2);
		}
		if (rma_round(c, loc, r))
			return -1;
		/* end of round: the server switches paths with us */
		if (send_frame(c, buf, 0) || recv_frame(c, buf, &len))
			return -1;
		if (len)
			return fail(c, "round end", -1);
	}
	c->mapped = r & 1 ? 0 : 1;
	if (send_frame(c, buf, BYE) || recv_frame(c, buf, &len))
		return -1;
	return len == BYE ? 0 : fail(c, "bye", -1);
}

struct client {
	pthread_t t;
	__u16 peer, port;
};

/* Connections to one peer, one after another, until the end. */
static void *client(void *arg)
{
	struct client *cl = arg;
	unsigned char *buf = malloc(FRAME_MAX), *loc = NULL;
	__u64 serial = 0, rng = 0x1234567ull + self * 977 + cl->peer;
	double down = 0;
	struct conn c;
	const char *what;

	if (!buf || posix_memalign((void **)&loc, page, 2 * DATA + 4096))
		die("malloc");
	while (!stop && now() < end_time) {
		memset(&c, 0, sizeof(c));
		c.id = (__u64)self << 48 | (__u64)cl->peer << 40 | serial++;
		c.epd = dial_retry(cl->peer, cl->port, 5, &what);
		if (c.epd == SCIF_OPEN_FAILED) {
			if (errno != ECONNREFUSED && errno != ENODEV &&
			    !documented(errno)) {
				fail(&c, what, errno);
				account(&c, "client");
				break;
			}
			pthread_mutex_lock(&lock);
			dial_errs++;
			pthread_mutex_unlock(&lock);
			if (!down)
				down = now();
			continue;
		}
		if (down) {
			pthread_mutex_lock(&lock);
			if (now() - down > recovery_max)
				recovery_max = now() - down;
			pthread_mutex_unlock(&lock);
			down = 0;
		}
		if (session(&c, buf, loc, &rng) && !down)
			down = now();
		account(&c, "client");
		scif_close(c.epd);
	}
	free(loc);
	free(buf);
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void summary(double secs, int stuck)
{
	static const struct { int err; const char *name; } errs[] = {
		{ ECONNRESET, "ECONNRESET" }, { ENODEV, "ENODEV" },
		{ ENOTCONN, "ENOTCONN" }, { EPIPE, "EPIPE" },
		{ ENOMEM, "ENOMEM" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ ENXIO, "ENXIO" },
	};
	unsigned int i;

	pthread_mutex_lock(&lock);
	printf("@@SOAK node=%u secs=%.0f bytes=%llu ops=%llu intact=%lu reset=%lu",
	       self, secs, bytes, ops, intact, resets);
	for (i = 0; i < ARRAY_SIZE(errs); i++)
		if (causes[errs[i].err])
			printf(" reset_%s=%lu", errs[i].name,
			       causes[errs[i].err]);
	if (causes[0])
		printf(" reset_SIGBUS=%lu", causes[0]);
	printf(" served=%lu dial_retries=%lu recovery_max_s=%.1f", served,
	       dial_errs, recovery_max);
	printf(" stuck=%d failures=%lu corrupt=%lu\n", stuck, failures,
	       corruptions);
	pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
	struct client cl[MAX_NODES];
	__u16 nodes[MAX_NODES];
	struct sigaction sa;
	int n, i, k = 0, stuck;
	double start = now(), drain;
	pthread_t acc;
	scif_epd_t l;
	__u16 port;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3) {
		fprintf(stderr, "usage: scif-soak PORT SECONDS|@EPOCH\n");
		return 2;
	}
	port = atoi(argv[1]);
	/* @EPOCH: until that wall-clock time (a restarted node's end) */
	if (argv[2][0] == '@')
		end_time = start + atol(argv[2] + 1) - time(NULL);
	else
		end_time = start + atoi(argv[2]);
	page = sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_bus;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	l = scif_open();
	if (l == SCIF_OPEN_FAILED || scif_bind(l, port) != port ||
	    scif_listen(l, 16) < 0)
		die("listen");
	n = scif_get_node_ids(nodes, MAX_NODES, &self);
	if (n < 1)
		die("scif_get_node_ids");
	if (pthread_create(&acc, NULL, acceptor, (void *)(long)l))
		die("pthread_create");
	for (i = 0; i < n && i < MAX_NODES; i++) {
		if (nodes[i] == self)
			continue;
		cl[k].peer = nodes[i];
		cl[k].port = port;
		if (pthread_create(&cl[k].t, NULL, client, &cl[k]))
			die("pthread_create");
		k++;
	}
	printf("%s: node %u, %d peers, port %u\n", PROG_NAME, self, k, port);
	for (i = 0; i < k; i++)
		pthread_join(cl[i].t, NULL);
	/* the peers' last connections to us end too, or are stuck */
	drain = now() + GRACE_S;
	while (active_servers && now() < drain)
		usleep(100000);
	stuck = active_servers;
	summary(now() - start, stuck);
	if (stuck) {
		/* exit without waiting for the stuck threads */
		fflush(stdout);
		_exit(1);
	}
	accept_done = 1;
	pthread_join(acc, NULL);
	scif_close(l);
	return failures || corruptions ? 1 : 0;
}
