// SPDX-License-Identifier: GPL-2.0
/*
 * scif-stream-map-mock: libscif's mapped stream (tools/lib/scif/stream_map.c)
 * against a stand-in for the driver, on the host, without /dev/scif.
 *
 * The program defines ioctl() itself, so the static libscif linked into it
 * calls this instead of the kernel. Two "endpoints" a and b are descriptors
 * of /dev/null; SCIF_STREAM_MAP hands out a memfd laid out as the driver
 * lays out the mapping, and SCIF_SEND, SCIF_RECV and SCIF_STREAM_WAKE move
 * bytes and wake sleepers through the same memory with the driver's
 * protocol. A sleeper that misses its wake-up waits for ever, so such a
 * wait times out and fails the test.
 *
 *   scif-stream-map-mock [off]
 *
 * "off" is the run under SCIF_STREAM_MAP=0 (the program runs itself so).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scif.h"

#define MB()	__atomic_thread_fence(__ATOMIC_SEQ_CST)

enum { EP_A, EP_B };

/* What SCIF_STREAM_MAP answers for an endpoint. */
enum { MAP_OK, MAP_ENOTCONN, MAP_ENOTTY };

struct shared {
	__u32 wake[2];	/* futex: bumped by the peer's WAKE */
	unsigned long n_map, n_send, n_recv, n_wake;
};

static struct shared *st;
static int ep_fd[2] = { -1, -1 };
static int ep_mode[2];
static long page;
static __u32 ring_size[2] = { 16384, 4096 };	/* a's and b's receive ring */
static int memfd = -1;
static unsigned char *kmem;	/* the "kernel's" view of the memfd */
static size_t kmem_len;
static int failures, tests;
static const char *prefix = "";	/* "# " in the child run */

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!cond)
		failures++;
	printf("%s%s %d - ", prefix, cond ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/*
 * memfd layout: sh_a, ctl_b, ring_b, sh_b, ctl_a, ring_a. a's read-write
 * part is [sh_a ctl_b ring_b], b's read-only part [ctl_b ring_b], and the
 * other way round.
 */
static __u64 off_sh(int e)
{
	return e == EP_A ? 0 : 2 * (__u64)page + ring_size[EP_B];
}

static __u64 off_ctl(int e)
{
	return e == EP_B ? (__u64)page : 3 * (__u64)page + ring_size[EP_B];
}

static __u64 off_ring(int e)
{
	return off_ctl(e) + page;
}

static struct scif_stream_shared *k_sh(int e)
{
	return (void *)(kmem + off_sh(e));
}

static struct scif_stream_ctl *k_ctl(int e)
{
	return (void *)(kmem + off_ctl(e));
}

static int ep_of(int fd)
{
	if (fd >= 0 && fd == ep_fd[EP_A])
		return EP_A;
	if (fd >= 0 && fd == ep_fd[EP_B])
		return EP_B;
	return -1;
}

static void fresh_memory(void)
{
	memset(kmem, 0, kmem_len);
}

static void wake_peer_of(int e)
{
	__atomic_fetch_add(&st->wake[!e], 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &st->wake[!e], FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void sleep_on(int e, __u32 seen_wake)
{
	struct timespec ts = { .tv_sec = 20 };

	if (syscall(SYS_futex, &st->wake[e], FUTEX_WAIT, seen_wake, &ts,
		    NULL, 0) < 0 && errno == ETIMEDOUT) {
		fprintf(stderr, "endpoint %c: lost wake-up\n", 'a' + e);
		abort();
	}
}

static int wake_due(__u32 ev, __u32 from, __u32 to)
{
	return (__u32)(to - ev - 1) < (__u32)(to - from);
}

static int k_send(int e, struct scifioctl_msg *m)
{
	struct scif_stream_shared *sh = k_sh(e);
	struct scif_stream_ctl *ours = k_ctl(e), *peer = k_ctl(!e);
	__u32 size = ring_size[!e], sent, c, room, n, off, first, w;
	const unsigned char *src = (void *)(uintptr_t)m->msg;
	unsigned char *ring = kmem + off_ring(!e);
	int done = 0;

	if (m->len < 0 || m->flags & ~SCIF_SEND_BLOCK)
		return -EINVAL;
	if (__atomic_load_n(&sh->down, __ATOMIC_RELAXED))
		return -ECONNRESET;
	if (!m->len)
		return 0;
	if (!src)
		return -EFAULT;
	while (done < m->len) {
		w = __atomic_load_n(&st->wake[e], __ATOMIC_SEQ_CST);
		sent = sh->sent;
		c = le32toh(__atomic_load_n(&ours->consumed, __ATOMIC_ACQUIRE));
		if (sent - c > size)
			return -ECONNRESET;
		room = size - (sent - c);
		n = room < (__u32)(m->len - done) ? room : (__u32)(m->len - done);
		if (n) {
			off = sent & (size - 1);
			first = n < size - off ? n : size - off;
			memcpy(ring + off, src + done, first);
			memcpy(ring, src + done + first, n - first);
			MB();
			__atomic_store_n(&peer->written, htole32(sent + n), __ATOMIC_RELAXED);
			sh->sent = sent + n;
			MB();
			if (wake_due(le32toh(ours->rx_event), sent, sent + n))
				wake_peer_of(e);
			done += n;
			continue;
		}
		if (!(m->flags & SCIF_SEND_BLOCK))
			break;
		/* Arm, look again, sleep. */
		__atomic_store_n(&peer->tx_event, htole32(c), __ATOMIC_RELAXED);
		MB();
		if (le32toh(__atomic_load_n(&ours->consumed, __ATOMIC_ACQUIRE)) != c)
			continue;
		if (__atomic_load_n(&sh->down, __ATOMIC_RELAXED))
			return done ? done : -ECONNRESET;
		sleep_on(e, w);
	}
	return done;
}

static int k_recv(int e, struct scifioctl_msg *m)
{
	struct scif_stream_shared *sh = k_sh(e);
	struct scif_stream_ctl *ours = k_ctl(e), *peer = k_ctl(!e);
	__u32 size = ring_size[e], r, wr, avail, n, off, first, w;
	unsigned char *dst = (void *)(uintptr_t)m->msg;
	const unsigned char *ring = kmem + off_ring(e);
	int done = 0;

	if (m->len < 0 || m->flags & ~SCIF_RECV_BLOCK)
		return -EINVAL;
	if (!m->len)
		return 0;
	if (!dst)
		return -EFAULT;
	while (done < m->len) {
		w = __atomic_load_n(&st->wake[e], __ATOMIC_SEQ_CST);
		r = sh->read;
		wr = le32toh(__atomic_load_n(&ours->written, __ATOMIC_ACQUIRE));
		avail = wr - r;
		if (avail > size)
			return -ECONNRESET;
		n = avail < (__u32)(m->len - done) ? avail : (__u32)(m->len - done);
		if (n) {
			off = r & (size - 1);
			first = n < size - off ? n : size - off;
			memcpy(dst + done, ring + off, first);
			memcpy(dst + done + first, ring, n - first);
			sh->read = r + n;
			__atomic_store_n(&peer->consumed, htole32(r + n), __ATOMIC_RELEASE);
			MB();
			if (wake_due(le32toh(ours->tx_event), r, r + n))
				wake_peer_of(e);
			done += n;
			continue;
		}
		if (__atomic_load_n(&sh->down, __ATOMIC_RELAXED))
			return done ? done : -ECONNRESET;
		if (!(m->flags & SCIF_RECV_BLOCK))
			break;
		__atomic_store_n(&peer->rx_event, htole32(wr), __ATOMIC_RELAXED);
		MB();
		if (le32toh(__atomic_load_n(&ours->written, __ATOMIC_ACQUIRE)) != wr)
			continue;
		sleep_on(e, w);
	}
	return done;
}

static int k_map(int e, struct scifioctl_stream_map *m)
{
	if (ep_mode[e] == MAP_ENOTCONN)
		return -ENOTCONN;
	if (ep_mode[e] == MAP_ENOTTY)
		return -ENOTTY;
	if (m->flags)
		return -EINVAL;
	m->fd = fcntl(memfd, F_DUPFD_CLOEXEC, 0);
	if (m->fd < 0)
		return -errno;
	m->rx_size = ring_size[e];
	m->tx_size = ring_size[!e];
	m->rw_offset = off_sh(e);
	m->rw_len = 2 * page + ring_size[!e];
	m->ro_offset = off_ctl(e);
	m->ro_len = page + ring_size[e];
	return 0;
}

/* The stand-in for the driver; other descriptors get the real ioctl. */
int ioctl(int fd, unsigned long req, ...)
{
	int e = ep_of(fd), ret;
	struct scifioctl_msg *m;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (e < 0)
		return syscall(SYS_ioctl, fd, req, arg);
	switch (req) {
	case SCIF_STREAM_MAP:
		__atomic_fetch_add(&st->n_map, 1, __ATOMIC_RELAXED);
		ret = k_map(e, arg);
		break;
	case SCIF_STREAM_WAKE:
		__atomic_fetch_add(&st->n_wake, 1, __ATOMIC_RELAXED);
		wake_peer_of(e);
		ret = 0;
		break;
	case SCIF_SEND:
	case SCIF_RECV:
		__atomic_fetch_add(req == SCIF_SEND ? &st->n_send : &st->n_recv,
				   1, __ATOMIC_RELAXED);
		m = arg;
		if (ep_mode[e] == MAP_ENOTCONN) {
			ret = -ENOTCONN;
			break;
		}
		ret = req == SCIF_SEND ? k_send(e, m) : k_recv(e, m);
		if (ret >= 0) {
			m->out_len = ret;
			ret = 0;
		}
		break;
	default:
		ret = -ENOTTY;
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

static unsigned long cnt(unsigned long *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

static unsigned char pattern(__u64 pos)
{
	return (unsigned char)((pos * 2654435761u) >> 13);
}

/* Opens a fresh pair of endpoints over zeroed memory. */
static void new_pair(int mode_a, int mode_b)
{
	if (ep_fd[EP_A] >= 0)
		scif_close(ep_fd[EP_A]);
	if (ep_fd[EP_B] >= 0)
		scif_close(ep_fd[EP_B]);
	fresh_memory();
	ep_mode[EP_A] = mode_a;
	ep_mode[EP_B] = mode_b;
	ep_fd[EP_A] = open("/dev/null", O_RDWR);
	ep_fd[EP_B] = open("/dev/null", O_RDWR);
	if (ep_fd[EP_A] < 0 || ep_fd[EP_B] < 0)
		die("open /dev/null");
}

static void test_off(void)
{
	char buf[64];
	int a, b;

	new_pair(MAP_OK, MAP_OK);
	a = ep_fd[EP_A];
	b = ep_fd[EP_B];
	ok(scif_send(a, "hello", 5, 0) == 5 && scif_recv(b, buf, 5, 0) == 5 &&
	   !memcmp(buf, "hello", 5), "SCIF_STREAM_MAP=0: bytes move");
	ok(cnt(&st->n_map) == 0 && cnt(&st->n_send) == 1 &&
	   cnt(&st->n_recv) == 1, "SCIF_STREAM_MAP=0: the ioctls only");
}

static void test_basic(void)
{
	unsigned long s0, r0, m0;
	char buf[64];
	int a, b, i, ret;

	new_pair(MAP_OK, MAP_OK);
	a = ep_fd[EP_A];
	b = ep_fd[EP_B];
	m0 = cnt(&st->n_map);
	s0 = cnt(&st->n_send);
	r0 = cnt(&st->n_recv);
	ok(scif_send(a, "hello", 5, 0) == 5, "send through the mapping");
	ok(scif_recv(b, buf, 64, 0) == 5 && !memcmp(buf, "hello", 5),
	   "recv through the mapping");
	ok(scif_recv(b, buf, 64, 0) == 0, "nothing queued: 0");
	ok(cnt(&st->n_map) == m0 + 2 && cnt(&st->n_send) == s0 &&
	   cnt(&st->n_recv) == r0, "one SCIF_STREAM_MAP per endpoint, no SCIF_SEND/RECV");

	/* The ioctls still report the errors. */
	errno = 0;
	ok(scif_send(a, buf, 0, 0) == 0, "len 0 gives 0");
	ok(scif_send(a, buf, -1, 0) == -1 && errno == EINVAL, "negative len: EINVAL");
	ok(scif_recv(b, buf, 4, 0x100) == -1 && errno == EINVAL, "bad flags: EINVAL");
	ok(scif_send(a, NULL, 4, SCIF_SEND_BLOCK) == -1 && errno == EFAULT,
	   "NULL buffer: EFAULT");
	ok(cnt(&st->n_send) == s0 + 3 && cnt(&st->n_recv) == r0 + 1,
	   "those went to the ioctls");

	/* Fill b's 4096-byte ring without blocking, then drain it. */
	ret = 0;
	for (i = 0; i < 100; i++) {
		if (scif_send(a, buf, 64, 0) != 64)
			break;
		ret += 64;
	}
	ok(ret == 4096 && scif_send(a, buf, 1, 0) == 0,
	   "a full ring takes no more (%d)", ret);
	ok(scif_recv(b, NULL, 10, 0) == -1 && errno == EFAULT,
	   "recv into NULL: EFAULT");
	for (i = 0; i < 64; i++)
		ret -= scif_recv(b, buf, 64, 0);
	ok(ret == 0 && cnt(&st->n_send) == s0 + 3,
	   "drained, without SCIF_SEND");
}

/* Random pieces, both directions, checked byte for byte across the wrap. */
static void test_wrap(void)
{
	static unsigned char out[5000], in[5000];
	__u64 spos[2] = { 0 }, rpos[2] = { 0 };
	int i, k, e, n, len, bad = 0;

	new_pair(MAP_OK, MAP_OK);
	srand(1);
	for (i = 0; i < 20000 && !bad; i++) {
		e = rand() & 1;
		len = 1 + rand() % 5000;
		for (k = 0; k < len; k++)
			out[k] = pattern(spos[e] + k);
		n = scif_send(ep_fd[e], out, len, 0);
		if (n < 0) {
			bad = 1;
			break;
		}
		spos[e] += n;
		len = 1 + rand() % 5000;
		n = scif_recv(ep_fd[!e], in, len, 0);
		if (n < 0) {
			bad = 1;
			break;
		}
		for (k = 0; k < n; k++)
			bad |= in[k] != pattern(rpos[e] + k);
		rpos[e] += n;
	}
	ok(!bad && spos[0] > 1000000 && spos[1] > 1000000,
	   "random non-blocking pieces arrive intact (%llu, %llu bytes)",
	   (unsigned long long)rpos[0], (unsigned long long)rpos[1]);
}

struct stream_arg {
	int fd;
	__u64 total;
	unsigned int seed;
	int bad;
};

static void *stream_sender(void *p)
{
	struct stream_arg *a = p;
	static unsigned char buf[70000];
	__u64 pos = 0;
	int len, n, k, flags;

	while (pos < a->total) {
		len = 1 + rand_r(&a->seed) % (int)sizeof(buf);
		if (pos + len > a->total)
			len = a->total - pos;
		for (k = 0; k < len; k++)
			buf[k] = pattern(pos + k);
		flags = rand_r(&a->seed) & 1 ? SCIF_SEND_BLOCK : 0;
		n = scif_send(a->fd, buf, len, flags);
		if (n < 0 || (flags && n != len)) {
			a->bad = 1;
			break;
		}
		pos += n;
	}
	return NULL;
}

static void *stream_receiver(void *p)
{
	struct stream_arg *a = p;
	static unsigned char buf[70000];
	__u64 pos = 0;
	int len, n, k, flags;

	while (pos < a->total) {
		len = 1 + rand_r(&a->seed) % (int)sizeof(buf);
		if (pos + len > a->total)
			len = a->total - pos;
		flags = rand_r(&a->seed) & 1 ? SCIF_RECV_BLOCK : 0;
		n = scif_recv(a->fd, buf, len, flags);
		if (n < 0 || (flags && n != len)) {
			a->bad = 1;
			break;
		}
		for (k = 0; k < n; k++)
			a->bad |= buf[k] != pattern(pos + k);
		if (a->bad)
			break;
		pos += n;
	}
	return NULL;
}

/* One sender and one receiver thread, blocking and not, with wake-ups. */
static void test_threads(void)
{
	struct stream_arg s = { .total = 200 << 20, .seed = 7 };
	struct stream_arg r = { .total = 200 << 20, .seed = 8 };
	unsigned long w0 = cnt(&st->n_wake);
	pthread_t ts, tr;

	new_pair(MAP_OK, MAP_OK);
	s.fd = ep_fd[EP_A];
	r.fd = ep_fd[EP_B];
	pthread_create(&ts, NULL, stream_sender, &s);
	pthread_create(&tr, NULL, stream_receiver, &r);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	ok(!s.bad && !r.bad, "200 MiB between two threads, intact");
	printf("# %lu wake-ups, %lu SCIF_SEND, %lu SCIF_RECV so far\n",
	       cnt(&st->n_wake) - w0, cnt(&st->n_send), cnt(&st->n_recv));
}

/* Records of several senders and receivers: whole, and in order per sender. */
#define RECS	100000
#define WORKERS	3

struct rec {
	__u32 who, seq, check, pad;
};

static void *rec_sender(void *p)
{
	struct rec r = { .who = (__u32)(uintptr_t)p };
	__u32 i;

	for (i = 0; i < RECS; i++) {
		r.seq = i;
		r.check = r.who * 7919 + i * 31;
		if (scif_send(ep_fd[EP_A], &r, sizeof(r), SCIF_SEND_BLOCK) !=
		    sizeof(r))
			return (void *)1;
	}
	return NULL;
}

static __u32 rec_next[WORKERS * 2];
static int rec_bad;

static void *rec_receiver(void *p)
{
	__u32 last[WORKERS * 2];
	struct rec r;
	long i, n = (long)(uintptr_t)p;

	memset(last, 0xff, sizeof(last));
	for (i = 0; i < n; i++) {
		if (scif_recv(ep_fd[EP_B], &r, sizeof(r), SCIF_RECV_BLOCK) !=
		    sizeof(r) || r.who >= WORKERS * 2 ||
		    r.check != r.who * 7919 + r.seq * 31 ||
		    (last[r.who] != 0xffffffffu && r.seq <= last[r.who])) {
			__atomic_store_n(&rec_bad, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		last[r.who] = r.seq;
		__atomic_fetch_add(&rec_next[r.who], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void run_rec_senders(int base, int *bad)
{
	pthread_t t[WORKERS];
	void *ret;
	int i;

	for (i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, rec_sender, (void *)(uintptr_t)(base + i));
	for (i = 0; i < WORKERS; i++) {
		pthread_join(t[i], &ret);
		*bad |= !!ret;
	}
}

/*
 * Senders in this process and in a child (the lock words work across
 * fork(), and the child uses the mapping it inherited), receivers here.
 */
static void test_records(void)
{
	unsigned long m0;
	pthread_t t[WORKERS];
	int i, bad = 0, status;
	pid_t pid;

	new_pair(MAP_OK, MAP_OK);
	/* Map both before the fork. */
	ok(scif_send(ep_fd[EP_A], "", 0, 0) == 0, "empty send");
	scif_recv(ep_fd[EP_B], NULL, 0, 0);
	{
		struct rec r = { .who = 0, .seq = 0, .check = 0 };

		/* A first record through each to map a and b. */
		scif_send(ep_fd[EP_A], &r, sizeof(r), SCIF_SEND_BLOCK);
		scif_recv(ep_fd[EP_B], &r, sizeof(r), SCIF_RECV_BLOCK);
	}
	m0 = cnt(&st->n_map);
	for (i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, rec_receiver,
			       (void *)(uintptr_t)(2 * RECS));
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		bad = 0;
		run_rec_senders(WORKERS, &bad);
		_exit(bad || cnt(&st->n_map) != m0);
	}
	run_rec_senders(0, &bad);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	for (i = 0; i < WORKERS * 2; i++)
		bad |= rec_next[i] != RECS;
	ok(!bad && !rec_bad && WIFEXITED(status) && !WEXITSTATUS(status),
	   "%d records from %d threads of two processes to %d threads, whole and in order",
	   2 * WORKERS * RECS, 2 * WORKERS, WORKERS);
	ok(cnt(&st->n_map) == m0, "the child used the inherited mapping");
}

static void test_down(void)
{
	char buf[16];
	int a, b;

	new_pair(MAP_OK, MAP_OK);
	a = ep_fd[EP_A];
	b = ep_fd[EP_B];
	ok(scif_send(a, "goodbye", 7, SCIF_SEND_BLOCK) == 7, "send before the close");
	/* The peer closes: the driver marks both sides down. */
	k_sh(EP_A)->down = 1;
	k_sh(EP_B)->down = 1;
	memset(buf, 0, sizeof(buf));
	ok(scif_recv(b, buf, 7, SCIF_RECV_BLOCK) == 7 && !memcmp(buf, "goodbye", 7),
	   "queued bytes arrive after down");
	errno = 0;
	ok(scif_recv(b, buf, 1, SCIF_RECV_BLOCK) == -1 && errno == ECONNRESET,
	   "then ECONNRESET (blocking)");
	ok(scif_recv(b, buf, 1, 0) == -1 && errno == ECONNRESET,
	   "then ECONNRESET (non-blocking)");
	ok(scif_send(a, buf, 1, 0) == -1 && errno == ECONNRESET,
	   "send after down: ECONNRESET");
}

static void test_bad_index(void)
{
	char buf[16];

	new_pair(MAP_OK, MAP_OK);
	ok(scif_send(ep_fd[EP_A], "x", 1, 0) == 1, "mapped");
	/* A peer that claims more than the ring holds. */
	k_ctl(EP_A)->consumed = htole32(12345678);
	errno = 0;
	ok(scif_send(ep_fd[EP_A], "x", 1, 0) == -1 && errno == ECONNRESET,
	   "nonsense credit goes to the driver");
	k_ctl(EP_B)->written = htole32(12345678);
	ok(scif_recv(ep_fd[EP_B], buf, 1, 0) == -1 && errno == ECONNRESET,
	   "nonsense write index goes to the driver");
}

static void test_fallbacks(void)
{
	unsigned long m0, s0;
	char buf[16];
	int i;

	/* An old driver: one attempt, then the ioctls. */
	new_pair(MAP_ENOTTY, MAP_ENOTTY);
	m0 = cnt(&st->n_map);
	s0 = cnt(&st->n_send);
	for (i = 0; i < 10; i++)
		scif_send(ep_fd[EP_A], "abc", 3, 0);
	ok(cnt(&st->n_map) == m0 + 1 && cnt(&st->n_send) == s0 + 10,
	   "ENOTTY: tried once, then SCIF_SEND");
	ok(scif_recv(ep_fd[EP_B], buf, 16, 0) == 16, "bytes arrive by ioctl");

	/* Not connected: tried again each time until it works. */
	new_pair(MAP_ENOTCONN, MAP_OK);
	m0 = cnt(&st->n_map);
	errno = 0;
	ok(scif_send(ep_fd[EP_A], "abc", 3, 0) == -1 && errno == ENOTCONN,
	   "ENOTCONN from the ioctl");
	scif_send(ep_fd[EP_A], "abc", 3, 0);
	ok(cnt(&st->n_map) == m0 + 2, "ENOTCONN: asked again");
	ep_mode[EP_A] = MAP_OK;
	s0 = cnt(&st->n_send);
	ok(scif_send(ep_fd[EP_A], "abc", 3, 0) == 3 &&
	   scif_send(ep_fd[EP_A], "abc", 3, 0) == 3 &&
	   cnt(&st->n_map) == m0 + 3 && cnt(&st->n_send) == s0,
	   "connected: mapped, then no more ioctls");

	/* scif_close() forgets; the number comes back as a new endpoint. */
	m0 = cnt(&st->n_map);
	scif_close(ep_fd[EP_A]);
	ep_fd[EP_A] = open("/dev/null", O_RDWR);
	ok(scif_send(ep_fd[EP_A], "abc", 3, 0) == 3 && cnt(&st->n_map) == m0 + 1,
	   "after scif_close the descriptor is mapped anew");
}

int main(int argc, char **argv)
{
	int status = -1;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		die("mmap");
	memfd = memfd_create("scif-stream", 0);
	kmem_len = 4 * page + ring_size[EP_A] + ring_size[EP_B];
	if (memfd < 0 || ftruncate(memfd, kmem_len))
		die("memfd");
	kmem = mmap(NULL, kmem_len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (kmem == MAP_FAILED)
		die("mmap memfd");

	if (argc > 1 && !strcmp(argv[1], "off")) {
		prefix = "# ";
		test_off();
		return failures ? 1 : 0;
	}
	test_basic();
	test_wrap();
	test_threads();
	test_records();
	test_down();
	test_bad_index();
	test_fallbacks();

	fflush(stdout);
	pid = fork();
	if (!pid) {
		setenv("SCIF_STREAM_MAP", "0", 1);
		execv("/proc/self/exe", (char *[]){ argv[0], "off", NULL });
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		die("fork");
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "the run with SCIF_STREAM_MAP=0");
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
