// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and user-copy failures in every SCIF call, by the fail-nth
 * fault injection of the debug kernel (Documentation/fuzzing.rst).
 *
 * A session is a fixed list of steps (open, bind, connect, send, register,
 * RMA, fence, mmap, close, ...). For each step in turn, and for N = 1, 2,
 * ..., a fresh session runs up to that step, which is then called with the
 * N-th allocation or user copy of the thread made to fail; the sweep of the
 * step ends at the first N that the call no longer reaches. Checked:
 *
 * - a call that met its fault returns what it returns without faults, or
 *   fails with ENOMEM or EFAULT, or with ECONNRESET when a message it had
 *   to send could not be sent, which resets the connection (the next send
 *   must then fail the same way); nothing else, and it never hangs,
 *   crashes or reports success over wrong data (what it moved is
 *   compared);
 * - every step before the faulty one behaves as without faults, so a fault
 *   in an earlier session left nothing behind that breaks a later one;
 * - the kernel's own checkers (KASAN, kmemleak, lockdep) stay quiet, which
 *   the rig checks.
 *
 * Both nodes run the same program, which needs the debug kernel's
 * /sys/kernel/debug/failslab (it skips without it):
 *
 *   scif-failnth-test PEER PORT [--no-loopback]
 *
 * Each node serves PORT (an echo with one registered window per
 * connection) from a thread. The lower node sweeps: the connecting side
 * against the peer's PORT and (unless --no-loopback) its own, then the
 * accepting side on PORT + 1, which the higher node dials meanwhile. The
 * two meet on PORT + 2 at the end. Prints TAP.
 */
#define PROG_NAME "scif-failnth-test"
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>

#include "scif_test.h"

#define WIN_PAGES	4
#define STREAM_LEN	16384
/* No SCIF call makes this many allocations: a sweep that gets here hangs. */
#define MAX_NTH		500
#define WIN_OFF		0x100000

static long page;
static size_t win_len;
static __u16 self_node, peer_node;
static int base_port;

/* /proc/thread-self/fail-nth of the thread that sweeps. */
static __thread int nth_fd = -1;

static const char * const fault_knobs[][2] = {
	{ "failslab/ignore-gfp-wait", "N" },
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/min-order", "0" },
	{ "fail_page_alloc/verbose", "0" },
	{ "fail_usercopy/verbose", "0" },
};

/*
 * Let fail-nth reach allocations that may sleep (by default both
 * allocators leave them alone) and keep the injections off the console.
 * Returns 0, or -1 when the kernel has no fault injection.
 */
static int fault_setup(void)
{
	char path[128];
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(fault_knobs); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s",
			 fault_knobs[i][0]);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return -1;
		if (write(fd, fault_knobs[i][1], strlen(fault_knobs[i][1])) < 0)
			bail("write %s", path);
		close(fd);
	}
	return 0;
}

static void nth_open(void)
{
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0)
		bail("open fail-nth");
}

/* Make the @n-th fault point the thread meets from now on fail. */
static void nth_arm(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	if (pwrite(nth_fd, b, len, 0) != len)
		bail("arm fail-nth");
}

/*
 * Disarm; returns 1 if the armed fault was injected. The counter reads 0
 * once it fired. A count of 1 left makes the read's own copy to user
 * space the N-th point (the read fails: not injected before it), and a
 * larger count reads as itself; the write of 0 that follows may meet a
 * count it did not use up and fail once, which disarms all the same.
 */
static int nth_disarm(void)
{
	int saved = errno, hit, i;
	char b[16] = "";
	ssize_t r;

	r = pread(nth_fd, b, sizeof(b) - 1, 0);
	hit = r > 0 && b[0] == '0';
	for (i = 0; i < 3 && pwrite(nth_fd, "0", 1, 0) != 1; i++)
		;
	if (i == 3)
		bail("disarm fail-nth");
	errno = saved;
	return hit;
}

/* ---- the server: an echo with one registered window per connection */

static void *serve_one(void *arg)
{
	scif_epd_t ep = (scif_epd_t)(intptr_t)arg;
	struct scif_pollepd p = { .epd = ep, .events = SCIF_POLLIN };
	char *win = NULL, *buf = malloc(STREAM_LEN);
	int n;

	if (posix_memalign((void **)&win, page, win_len) || !buf)
		goto out;
	memset(win, 0, win_len);
	if (scif_register(ep, win, win_len, 0, SCIF_PROT_READ | SCIF_PROT_WRITE,
			  SCIF_MAP_FIXED) != 0)
		goto out;
	if (scif_send(ep, "R", 1, SCIF_SEND_BLOCK) != 1)
		goto out;
	for (;;) {
		n = scif_recv(ep, buf, STREAM_LEN, 0);
		if (n < 0)
			break;
		if (n > 0) {
			if (scif_send(ep, buf, n, SCIF_SEND_BLOCK) != n)
				break;
			continue;
		}
		p.revents = 0;
		if (scif_poll(&p, 1, -1) < 0 ||
		    (!(p.revents & SCIF_POLLIN) &&
		     (p.revents & (SCIF_POLLHUP | SCIF_POLLERR | SCIF_POLLNVAL))))
			break;
	}
out:
	scif_close(ep);
	free(win);
	free(buf);
	return NULL;
}

static void *server(void *arg)
{
	scif_epd_t lep = (scif_epd_t)(intptr_t)arg, ep;
	struct scif_port_id peer;
	pthread_t t;

	for (;;) {
		if (scif_accept(lep, &peer, &ep, SCIF_ACCEPT_SYNC) < 0) {
			if (errno == EINTR || errno == ENOMEM)
				continue;
			bail("accept on the served port");
		}
		if (pthread_create(&t, NULL, serve_one, (void *)(intptr_t)ep))
			bail("pthread_create");
		pthread_detach(t);
	}
	return NULL;
}

/* ---- sessions and their steps */

struct sess {
	struct scif_port_id dst;
	scif_epd_t ep, lep;
	char *lbuf, *vbuf, *vbuf2, *sbuf, *rbuf;
	void *map;
	int mark;
	int accept_done;	/* last accepting session: send 'D' */
};

struct step {
	const char *name;
	int (*call)(struct sess *s);	/* 0, or -1 with errno */
	int (*check)(struct sess *s);	/* after success, unarmed; 0 if right */
};

static int st_open(struct sess *s)
{
	s->ep = scif_open();
	return s->ep < 0 ? -1 : 0;
}

static int st_bind(struct sess *s)
{
	return scif_bind(s->ep, 0) > 0 ? 0 : -1;
}

static int st_connect(struct sess *s)
{
	return scif_connect(s->ep, &s->dst) > 0 ? 0 : -1;
}

static int st_ready(struct sess *s)
{
	char c = 0;
	int r = scif_recv(s->ep, &c, 1, SCIF_RECV_BLOCK);

	if (r == 1 && c != 'R') {
		errno = EPROTO;
		return -1;
	}
	return r == 1 ? 0 : -1;
}

static int xfer(int r, int want)
{
	if (r >= 0 && r != want) {
		errno = EMSGSIZE;	/* a short count: reported as wrong */
		return -1;
	}
	return r < 0 ? -1 : 0;
}

static int st_send8(struct sess *s)
{
	return xfer(scif_send(s->ep, s->sbuf, 8, SCIF_SEND_BLOCK), 8);
}

static int st_recv8(struct sess *s)
{
	return xfer(scif_recv(s->ep, s->rbuf, 8, SCIF_RECV_BLOCK), 8);
}

static int ck_recv8(struct sess *s)
{
	return memcmp(s->sbuf, s->rbuf, 8);
}

static int st_send(struct sess *s)
{
	return xfer(scif_send(s->ep, s->sbuf, STREAM_LEN, SCIF_SEND_BLOCK),
		    STREAM_LEN);
}

static int st_recv(struct sess *s)
{
	return xfer(scif_recv(s->ep, s->rbuf, STREAM_LEN, SCIF_RECV_BLOCK),
		    STREAM_LEN);
}

static int ck_recv(struct sess *s)
{
	return memcmp(s->sbuf, s->rbuf, STREAM_LEN);
}

static int st_register(struct sess *s)
{
	off_t o = scif_register(s->ep, s->lbuf, win_len, WIN_OFF,
				SCIF_PROT_READ | SCIF_PROT_WRITE,
				SCIF_MAP_FIXED);

	if (o != SCIF_REGISTER_FAILED && o != WIN_OFF) {
		errno = EPROTO;
		return -1;
	}
	return o == WIN_OFF ? 0 : -1;
}

/*
 * The first half of our window to the peer's, by DMA (or what is there),
 * and back into our second half by CPU. Both wait for completion: the
 * readfrom must find what the writeto wrote.
 */
static int st_writeto(struct sess *s)
{
	return scif_writeto(s->ep, WIN_OFF, win_len / 2, 0, SCIF_RMA_SYNC);
}

static int st_readfrom(struct sess *s)
{
	return scif_readfrom(s->ep, WIN_OFF + win_len / 2, win_len / 2, 0,
			     SCIF_RMA_USECPU | SCIF_RMA_SYNC);
}

static int ck_readfrom(struct sess *s)
{
	return memcmp(s->lbuf, s->lbuf + win_len / 2, win_len / 2);
}

static int st_vwriteto(struct sess *s)
{
	return scif_vwriteto(s->ep, s->vbuf, win_len, 0, SCIF_RMA_SYNC);
}

/* Not synchronous: the fence below waits for it before its data is checked. */
static int st_vreadfrom(struct sess *s)
{
	memset(s->vbuf2, 0, win_len);
	return scif_vreadfrom(s->ep, s->vbuf2, win_len, 0, SCIF_RMA_USECACHE);
}

static int st_mark(struct sess *s)
{
	return scif_fence_mark(s->ep, SCIF_FENCE_INIT_SELF, &s->mark);
}

static int st_wait(struct sess *s)
{
	return scif_fence_wait(s->ep, s->mark);
}

static int ck_wait(struct sess *s)
{
	return memcmp(s->vbuf, s->vbuf2, win_len);
}

static int st_signal(struct sess *s)
{
	return scif_fence_signal(s->ep, WIN_OFF + win_len - 8, 0x5c1f,
				 win_len - 8, 0xf1c5,
				 SCIF_FENCE_INIT_SELF | SCIF_SIGNAL_LOCAL |
				 SCIF_SIGNAL_REMOTE);
}

static int ck_signal(struct sess *s)
{
	__u64 v;

	memcpy(&v, s->lbuf + win_len - 8, 8);
	return v != 0x5c1f;
}

static int st_mmap(struct sess *s)
{
	s->map = scif_mmap(NULL, page, SCIF_PROT_READ | SCIF_PROT_WRITE, 0,
			   s->ep, 0);
	if (s->map == SCIF_MMAP_FAILED) {
		s->map = NULL;
		return -1;
	}
	return 0;
}

/* Our vwriteto put vbuf at the start of the peer's window. */
static int ck_mmap(struct sess *s)
{
	return memcmp(s->map, s->vbuf, 64);
}

static int st_munmap(struct sess *s)
{
	if (!s->map)
		return 0;
	if (scif_munmap(s->map, page))
		return -1;
	s->map = NULL;
	return 0;
}

static int st_unregister(struct sess *s)
{
	return scif_unregister(s->ep, WIN_OFF, win_len);
}

static int st_poll(struct sess *s)
{
	struct scif_pollepd p = { .epd = s->ep,
				  .events = SCIF_POLLIN | SCIF_POLLOUT };

	return scif_poll(&p, 1, 0) < 0 ? -1 : 0;
}

static int st_close(struct sess *s)
{
	int r = scif_close(s->ep);

	s->ep = -1;	/* the descriptor is gone whatever close returned */
	return r;
}

static const struct step connect_steps[] = {
	{ "open", st_open, NULL },
	{ "bind", st_bind, NULL },
	{ "connect", st_connect, NULL },
	{ "recv 1 B", st_ready, NULL },
	{ "send 8 B", st_send8, NULL },
	{ "recv 8 B", st_recv8, ck_recv8 },
	{ "send 16 KiB", st_send, NULL },
	{ "recv 16 KiB", st_recv, ck_recv },
	{ "register", st_register, NULL },
	{ "writeto", st_writeto, NULL },
	{ "readfrom by CPU", st_readfrom, ck_readfrom },
	{ "vwriteto sync", st_vwriteto, NULL },
	{ "vreadfrom cached", st_vreadfrom, NULL },
	{ "fence_mark", st_mark, NULL },
	{ "fence_wait", st_wait, ck_wait },
	{ "fence_signal", st_signal, ck_signal },
	{ "mmap", st_mmap, ck_mmap },
	{ "munmap", st_munmap, NULL },
	{ "unregister", st_unregister, NULL },
	{ "poll", st_poll, NULL },
	{ "close", st_close, NULL },
};

static int st_lopen(struct sess *s)
{
	s->lep = scif_open();
	return s->lep < 0 ? -1 : 0;
}

static int st_lbind(struct sess *s)
{
	return scif_bind(s->lep, base_port + 1) == base_port + 1 ? 0 : -1;
}

static int st_listen(struct sess *s)
{
	return scif_listen(s->lep, 4);
}

static int st_accept(struct sess *s)
{
	struct scif_port_id peer;

	return scif_accept(s->lep, &peer, &s->ep, SCIF_ACCEPT_SYNC);
}

static int st_greet(struct sess *s)
{
	return xfer(scif_send(s->ep, s->accept_done ? "D" : "R", 1,
			      SCIF_SEND_BLOCK), 1);
}

static int st_lclose(struct sess *s)
{
	int r = scif_close(s->lep);

	s->lep = -1;
	return r;
}

static const struct step accept_steps[] = {
	{ "open", st_lopen, NULL },
	{ "bind", st_lbind, NULL },
	{ "listen", st_listen, NULL },
	{ "accept", st_accept, NULL },
	{ "send 1 B", st_greet, NULL },
	{ "close accepted", st_close, NULL },
	{ "close listener", st_lclose, NULL },
};

static void sess_init(struct sess *s, const struct sess *bufs)
{
	*s = *bufs;
	s->ep = -1;
	s->lep = -1;
	s->map = NULL;
}

static void sess_end(struct sess *s)
{
	if (s->map)
		scif_munmap(s->map, page);
	if (s->ep >= 0)
		scif_close(s->ep);
	if (s->lep >= 0)
		scif_close(s->lep);
	s->map = NULL;
	s->ep = -1;
	s->lep = -1;
}

static char *pattern(size_t len, unsigned int seed)
{
	char *p = NULL;
	size_t i;

	if (posix_memalign((void **)&p, page, len))
		bail("out of memory");
	for (i = 0; i < len; i++)
		p[i] = (char)(seed + i * 7);
	return p;
}

static pthread_mutex_t tap_lock = PTHREAD_MUTEX_INITIALIZER;

enum outcome {
	NOT_REACHED,	/* the call made fewer than N allocations and copies */
	ABSORBED,	/* it met the fault and did what it does without one */
	FAILED,		/* ENOMEM or EFAULT */
	RESET,		/* a message it had to send could not be: reset */
	WRONG,		/* anything else: the detail says what */
};

/*
 * One session of @steps: those before @k as without faults (their results
 * in @base), then step @k with its @n-th fault point failing.
 */
static enum outcome run_once(const struct step *steps, int k, int n,
			     const int *base, const struct sess *bufs,
			     char *detail, size_t dlen)
{
	enum outcome o = WRONG;
	int j, r, err, hit;
	struct sess s;

	sess_init(&s, bufs);
	for (j = 0; j < k; j++) {
		errno = 0;
		r = steps[j].call(&s);
		err = r ? errno : 0;
		if (err != base[j]) {
			snprintf(detail, dlen, "N=%d: earlier step %s gave %s",
				 n, steps[j].name, strerror(err));
			goto out;
		}
	}
	nth_arm(n);
	errno = 0;
	r = steps[k].call(&s);
	hit = nth_disarm();
	err = r ? errno : 0;
	if (!err && steps[k].check && steps[k].check(&s))
		err = EILSEQ;
	if (!hit) {
		if (err == base[k])
			o = NOT_REACHED;
		else
			snprintf(detail, dlen, "N=%d not reached, yet %s", n,
				 strerror(err));
	} else if (err == base[k]) {
		o = ABSORBED;
	} else if (err == ENOMEM || err == EFAULT) {
		o = FAILED;
	} else if (err == ECONNRESET && s.ep >= 0 &&
		   scif_send(s.ep, "x", 1, 0) < 0 && errno == ECONNRESET) {
		o = RESET;
	} else {
		snprintf(detail, dlen, "fault N=%d gave %s", n,
			 err ? strerror(err) : "success");
	}
out:
	sess_end(&s);
	return o;
}

/*
 * Sweep every step of @steps in sessions set up by @bufs: first one
 * session without faults, whose results every later one must match (each
 * 0, or for mmap of a peer that cannot be mapped EOPNOTSUPP), then the
 * faults, step by step. One TAP line per step.
 */
static void sweep(const char *what, const struct step *steps, int nsteps,
		  const struct sess *bufs)
{
	int base[32], count[WRONG + 1], k, n, r;
	enum outcome o = WRONG;
	char detail[160];
	struct sess s;

	if (nsteps > (int)ARRAY_SIZE(base))
		bail("too many steps");
	sess_init(&s, bufs);
	for (k = 0; k < nsteps; k++) {
		errno = 0;
		r = steps[k].call(&s);
		base[k] = r ? errno : 0;
		if (!r && steps[k].check && steps[k].check(&s))
			base[k] = EILSEQ;
	}
	sess_end(&s);

	for (k = 0; k < nsteps; k++) {
		memset(count, 0, sizeof(count));
		detail[0] = 0;
		if (base[k] && !(steps[k].call == st_mmap &&
				 base[k] == EOPNOTSUPP)) {
			snprintf(detail, sizeof(detail),
				 "without faults: %s", strerror(base[k]));
			o = WRONG;
		} else {
			for (n = 1; n <= MAX_NTH; n++) {
				o = run_once(steps, k, n, base, bufs, detail,
					     sizeof(detail));
				count[o]++;
				if (o == NOT_REACHED || o == WRONG)
					break;
			}
			if (n > MAX_NTH)
				snprintf(detail, sizeof(detail),
					 "still faulting at N=%d", MAX_NTH);
		}
		pthread_mutex_lock(&tap_lock);
		tap_ok(o == NOT_REACHED,
		       "%s: %s: %d faults: %d ENOMEM/EFAULT, %d reset, %d absorbed%s%s",
		       what, steps[k].name,
		       count[ABSORBED] + count[FAILED] + count[RESET],
		       count[FAILED], count[RESET], count[ABSORBED],
		       detail[0] ? "; " : "", detail);
		pthread_mutex_unlock(&tap_lock);
	}
}

/* ---- the accepting side: a sweep here, a dialer on the peer */

static void accept_sweep(void)
{
	struct sess bufs = { 0 }, s;
	int k, tries;

	sweep("accept", accept_steps, ARRAY_SIZE(accept_steps), &bufs);
	/* Release the peer's dialer. */
	for (tries = 0;; tries++) {
		sess_init(&s, &bufs);
		s.accept_done = 1;
		for (k = 0; k < (int)ARRAY_SIZE(accept_steps); k++)
			if (accept_steps[k].call(&s))
				break;
		if (k < (int)ARRAY_SIZE(accept_steps) && !(tries % 100))
			printf("# releasing the dialer: %s: %s\n",
			       accept_steps[k].name, strerror(errno));
		sess_end(&s);
		if (k == (int)ARRAY_SIZE(accept_steps))
			break;
		usleep(10000);
	}
	printf("# the peer's dialer is released\n");
}

/* Connect to the peer's accepting sweep until it says it is done. */
static void dialer(void)
{
	struct scif_port_id dst = { peer_node, base_port + 1 };
	scif_epd_t ep;
	char c;

	for (;;) {
		ep = scif_open();
		if (ep < 0)
			bail("open an endpoint to dial");
		c = 0;
		if (scif_connect(ep, &dst) < 0 ||
		    scif_recv(ep, &c, 1, SCIF_RECV_BLOCK) != 1)
			usleep(2000);
		scif_close(ep);
		if (c == 'D') {
			printf("# released by the peer\n");
			return;
		}
	}
}

/*
 * Return once the peer got here too. A connect returns only once the
 * peer accepted it, so the lower node accepts first and the higher one
 * connects first; each then does the other.
 */
static void meet_peer(scif_epd_t lep)
{
	struct scif_port_id dst = { peer_node, base_port + 2 }, from;
	scif_epd_t ep = -1, nep = -1;
	int i, accept_turn = self_node < peer_node ? 0 : 1;
	char c = 'X';

	for (i = 0; i < 2; i++) {
		if (i == accept_turn) {
			if (scif_accept(lep, &from, &nep, SCIF_ACCEPT_SYNC) < 0 ||
			    scif_recv(nep, &c, 1, SCIF_RECV_BLOCK) != 1)
				bail("meeting the peer");
			continue;
		}
		for (;;) {
			ep = scif_open();
			if (ep < 0)
				bail("open");
			if (scif_connect(ep, &dst) > 0 &&
			    scif_send(ep, &c, 1, SCIF_SEND_BLOCK) == 1)
				break;
			scif_close(ep);
			usleep(20000);
		}
	}
	scif_close(nep);
	scif_close(ep);
}

/* Return once the peer's server takes connections. */
static void wait_for_server(void)
{
	struct scif_port_id dst = { peer_node, base_port };
	scif_epd_t ep;
	int i;

	for (i = 0; i < 3000; i++) {
		ep = scif_open();
		if (ep < 0)
			bail("open");
		if (scif_connect(ep, &dst) > 0) {
			scif_close(ep);
			return;
		}
		scif_close(ep);
		usleep(20000);
	}
	bail("the peer's server never answered");
}

static scif_epd_t listen_on(int port)
{
	scif_epd_t ep = scif_open();

	if (ep < 0 || scif_bind(ep, port) != port || scif_listen(ep, 16))
		bail("listen on %d", port);
	return ep;
}

int main(int argc, char **argv)
{
	pthread_t srv;
	scif_epd_t slep, mlep;
	struct sess bufs = { 0 };
	__u16 nodes[16];
	int loopback = 1;

	if (argc == 4 && !strcmp(argv[3], "--no-loopback")) {
		loopback = 0;
	} else if (argc != 3) {
		fprintf(stderr, "usage: %s PEER PORT [--no-loopback]\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	peer_node = atoi(argv[1]);
	base_port = atoi(argv[2]);
	page = sysconf(_SC_PAGESIZE);
	win_len = WIN_PAGES * page;
	if (fault_setup()) {
		printf("1..0 # SKIP no fault injection in this kernel\n");
		return 0;
	}
	if (scif_get_node_ids(nodes, ARRAY_SIZE(nodes), &self_node) < 0)
		bail("scif_get_node_ids");

	bufs.lbuf = pattern(win_len, 1);
	bufs.vbuf = pattern(win_len, 2);
	bufs.vbuf2 = pattern(win_len, 3);
	bufs.sbuf = pattern(STREAM_LEN, 4);
	bufs.rbuf = pattern(STREAM_LEN, 5);

	slep = listen_on(base_port);
	mlep = listen_on(base_port + 2);
	if (pthread_create(&srv, NULL, server, (void *)(intptr_t)slep))
		bail("pthread_create");
	/* A hang is a failure; the rig's timeout would only say less. */
	alarm(900);
	nth_open();

	/*
	 * Only the lower node sweeps; the higher one serves and dials. A task
	 * waiting for the peer drains the link's ring for every endpoint of
	 * its node, so a sweeping thread on each node would also run the
	 * handlers of messages the other node's sweep is owed, and a fault
	 * met there would fail steps of that sweep that must not fail.
	 */
	if (self_node > peer_node) {
		dialer();
		meet_peer(mlep);
		return tap_done();
	}
	wait_for_server();
	bufs.dst = (struct scif_port_id){ peer_node, base_port };
	sweep("connect to the peer", connect_steps, ARRAY_SIZE(connect_steps),
	      &bufs);
	if (loopback) {
		bufs.dst = (struct scif_port_id){ self_node, base_port };
		sweep("loopback connect", connect_steps,
		      ARRAY_SIZE(connect_steps), &bufs);
	}
	accept_sweep();
	meet_peer(mlep);
	return tap_done();
}
