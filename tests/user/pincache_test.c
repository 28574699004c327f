// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF_RMA_USECACHE on the loopback node: one process holds both ends of a
 * connection; endpoint b registers a window over @rbuf, endpoint a moves
 * data between its own buffers and that window with scif_vreadfrom() and
 * scif_vwriteto(). VmPin in /proc/self/status shows what stays pinned.
 *
 * Usage: scif-pincache-test
 *
 * - repeated v* calls with the flag reuse the pinned pages (VmPin stays at
 *   one cached copy), also for a part of a cached range; without the flag
 *   nothing stays pinned; the protection is part of the key;
 * - invalidation: after MADV_DONTNEED, after munmap and a new mapping at
 *   the same address, after fork() and a write of the parent, and after
 *   mprotect(), a cached call sees the current pages;
 * - stress: two threads make cached calls while the buffer's pages are
 *   dropped, write-protected and forked under them (KASAN/lockdep watch);
 * - LRU eviction with the pincache_entries module parameter;
 * - scif_close() unpins everything;
 * - RLIMIT_MEMLOCK as an unprivileged user: the cache gives way (evicts)
 *   rather than make a call fail, a call beyond the limit fails with
 *   ENOMEM, and uncached calls of the endpoint are not starved either.
 */
#include <errno.h>
#include <fcntl.h>
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
#define CACHE		(SCIF_RMA_USECACHE | SCIF_RMA_SYNC)
#define RPAGES		16
#define PARAM		"/sys/module/scif/parameters/pincache_entries"

static long page;

static char *map_pages(size_t n)
{
	return map_anon(n * page, PROT_READ | PROT_WRITE);
}

/* Pinned pages of this process, from VmPin in /proc/self/status. */
static long pinned(void)
{
	long kb = vm_pin_kb();

	return kb < 0 ? -1 : kb * 1024 / page;
}

/* Wait up to 5 s for @want pinned pages (retired entries go later). */
static long pinned_settles(long want)
{
	return settles(pinned, want);
}

static void fill(char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(seed * 131 + i * 7 + (i >> 12));
}

/* A connected pair; b registers @rbuf (RPAGES pages) at offset 0. */
static void setup(scif_epd_t *a, scif_epd_t *b, char *rbuf)
{
	make_pair(a, b);
	if (scif_register(*b, rbuf, RPAGES * page, 0, RW, SCIF_MAP_FIXED))
		bail("scif_register");
}

static void test_reuse(scif_epd_t a, char *rbuf, char *v, char *w,
		       long base)
{
	size_t len = 8 * page;
	int i, bad = 0;

	fill(rbuf, len, 1);
	EXPECT_EQ(scif_vreadfrom(a, v, len, 0, CACHE), 0);
	tap_ok(!memcmp(v, rbuf, len), "reuse: first cached vreadfrom data");
	EXPECT_EQ(pinned_settles(base + 8), base + 8);
	for (i = 0; i < 20; i++) {
		fill(rbuf, len, 100 + i);
		if (scif_vreadfrom(a, v + 100, len - 300, 100, CACHE) ||
		    memcmp(v + 100, rbuf + 100, len - 300))
			bad++;
		fill(v, len, 200 + i);
		if (scif_vwriteto(a, v + page, 3 * page + 5, page, CACHE) ||
		    memcmp(v + page, rbuf + page, 3 * page + 5))
			bad++;
	}
	tap_ok(!bad, "reuse: 40 cached calls over parts of the range (%d bad)",
	       bad);
	EXPECT_EQ(pinned(), base + 8);

	/* Without the flag nothing stays pinned. */
	fill(rbuf, 4 * page, 3);
	EXPECT_EQ(scif_vreadfrom(a, w, 4 * page, 0, SCIF_RMA_SYNC), 0);
	tap_ok(!memcmp(w, rbuf, 4 * page), "reuse: uncached call data");
	EXPECT_EQ(pinned_settles(base + 8), base + 8);

	/* A read-only pin does not serve a call that writes the buffer. */
	fill(w, 4 * page, 4);
	EXPECT_EQ(scif_vwriteto(a, w, 4 * page, 0, CACHE), 0);
	tap_ok(!memcmp(w, rbuf, 4 * page), "prot: cached vwriteto data");
	EXPECT_EQ(pinned_settles(base + 12), base + 12);
	EXPECT_EQ(scif_vwriteto(a, w, 4 * page, 0, CACHE), 0);
	EXPECT_EQ(pinned(), base + 12);
	fill(rbuf, 4 * page, 5);
	EXPECT_EQ(scif_vreadfrom(a, w, 4 * page, 0, CACHE), 0);
	tap_ok(!memcmp(w, rbuf, 4 * page), "prot: cached vreadfrom data");
	EXPECT_EQ(pinned_settles(base + 16), base + 16);
	/* ... but a read-write one serves a read. */
	EXPECT_EQ(scif_vwriteto(a, w, 2 * page, 0, CACHE), 0);
	EXPECT_EQ(pinned(), base + 16);
}

static void test_invalidate(scif_epd_t a, char *rbuf, char *v)
{
	size_t len = 8 * page;
	char *nv;
	pid_t pid;
	int st;

	/* MADV_DONTNEED: the cached pages are no longer v's. */
	fill(rbuf, len, 10);
	EXPECT_EQ(scif_vreadfrom(a, v, len, 0, CACHE), 0);
	tap_ok(!memcmp(v, rbuf, len), "dontneed: data before");
	if (madvise(v, len, MADV_DONTNEED))
		bail("madvise");
	tap_ok(v[0] == 0 && v[len - 1] == 0, "dontneed: pages dropped");
	fill(rbuf, len, 11);
	EXPECT_EQ(scif_vreadfrom(a, v, len, 0, CACHE), 0);
	tap_ok(!memcmp(v, rbuf, len),
	       "dontneed: cached vreadfrom lands in the new pages");

	/* munmap and a new mapping at the same address. */
	fill(v, len, 12);
	EXPECT_EQ(scif_vwriteto(a, v, len, 0, CACHE), 0);
	tap_ok(!memcmp(v, rbuf, len), "remap: data before");
	if (munmap(v, len))
		bail("munmap");
	nv = mmap(v, len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (nv != v)
		bail("mmap MAP_FIXED");
	fill(v, len, 13);
	EXPECT_EQ(scif_vwriteto(a, v, len, 0, CACHE), 0);
	tap_ok(!memcmp(v, rbuf, len),
	       "remap: cached vwriteto sends the new contents");

	/* fork: the parent writes its buffer afterwards. */
	fill(v, len, 14);
	EXPECT_EQ(scif_vwriteto(a, v, len, 0, CACHE), 0);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		memset(v, 0x5a, len);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	fill(v, len, 15);
	EXPECT_EQ(scif_vwriteto(a, v, len, 0, CACHE), 0);
	tap_ok(!memcmp(v, rbuf, len),
	       "fork: cached vwriteto sends the parent's new contents");
	fill(rbuf, len, 16);
	EXPECT_EQ(scif_vreadfrom(a, v, len, 0, CACHE), 0);
	tap_ok(!memcmp(v, rbuf, len), "fork: cached vreadfrom data");

	/* mprotect: a read-only buffer is not written through the cache. */
	if (mprotect(v, len, PROT_READ))
		bail("mprotect");
	EXPECT_ERR(scif_vreadfrom(a, v, len, 0, CACHE), EFAULT);
	EXPECT_EQ(scif_vwriteto(a, v, len, 0, CACHE), 0);
	if (mprotect(v, len, PROT_READ | PROT_WRITE))
		bail("mprotect");
}

static int write_param(const char *val)
{
	int fd = open(PARAM, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* Entries ea (1 page), eb (2), ec (4) in a cache of two entries. */
static void lru_child(void)
{
	char *rbuf = map_pages(RPAGES), *buf = map_pages(7);
	char *ea = buf, *eb = buf + page, *ec = buf + 3 * page;
	scif_epd_t a, b;
	long base;
	int mark;

	setup(&a, &b, rbuf);
	base = pinned();
	EXPECT_EQ(base, RPAGES);
	EXPECT_EQ(scif_vwriteto(a, ea, page, 0, CACHE), 0);
	EXPECT_EQ(scif_vwriteto(a, eb, 2 * page, 0, CACHE), 0);
	EXPECT_EQ(pinned_settles(base + 3), base + 3);
	EXPECT_EQ(scif_vwriteto(a, ea, page, 0, CACHE), 0);
	EXPECT_EQ(pinned(), base + 3);
	/* ec evicts eb, the least recently used. */
	EXPECT_EQ(scif_vwriteto(a, ec, 4 * page, 0, CACHE), 0);
	EXPECT_EQ(pinned_settles(base + 5), base + 5);
	EXPECT_EQ(scif_vwriteto(a, ea, page, 0, CACHE), 0);
	EXPECT_EQ(pinned(), base + 5);
	/* eb evicts ec; asynchronous (DMA) this time, so fence first. */
	fill(rbuf, 2 * page, 20);
	EXPECT_EQ(scif_vreadfrom(a, eb, 2 * page, 0, SCIF_RMA_USECACHE), 0);
	EXPECT_EQ(scif_fence_mark(a, SCIF_FENCE_INIT_SELF, &mark), 0);
	EXPECT_EQ(scif_fence_wait(a, mark), 0);
	tap_ok(!memcmp(eb, rbuf, 2 * page), "lru: data");
	EXPECT_EQ(pinned_settles(base + 3), base + 3);
	scif_close(a);
	EXPECT_EQ(pinned_settles(base), base);
	scif_close(b);
	EXPECT_EQ(pinned_settles(0), 0);
}

/*
 * RLIMIT_MEMLOCK of 14 pages: a window of 4 pages leaves room for two
 * cached entries of 4 pages.
 */
static void memlock_child(void)
{
	size_t len = 4 * page;
	char *rbuf, *x1, *x2, *x3, *big;
	scif_epd_t a, b;

	rbuf = map_pages(4);
	x1 = map_pages(4);
	x2 = map_pages(4);
	x3 = map_pages(4);
	big = map_pages(11);
	make_pair(&a, &b);
	if (scif_register(b, rbuf, len, 0, RW, SCIF_MAP_FIXED))
		bail("scif_register");
	EXPECT_EQ(pinned(), 4);
	fill(x1, len, 30);
	EXPECT_EQ(scif_vwriteto(a, x1, len, 0, CACHE), 0);
	tap_ok(!memcmp(x1, rbuf, len), "memlock: first entry data");
	EXPECT_EQ(pinned_settles(8), 8);
	fill(rbuf, len, 31);
	EXPECT_EQ(scif_vreadfrom(a, x2, len, 0, CACHE), 0);
	tap_ok(!memcmp(x2, rbuf, len), "memlock: second entry data");
	EXPECT_EQ(pinned_settles(12), 12);
	/* At the limit: a third entry evicts the oldest rather than fail. */
	fill(rbuf, len, 32);
	EXPECT_EQ(scif_vreadfrom(a, x3, len, 0, CACHE), 0);
	tap_ok(!memcmp(x3, rbuf, len), "memlock: third entry data");
	EXPECT_EQ(pinned_settles(12), 12);
	/* An uncached call is not starved by the cache either. */
	fill(x1, len, 33);
	EXPECT_EQ(scif_vwriteto(a, x1, len, 0, SCIF_RMA_SYNC), 0);
	tap_ok(!memcmp(x1, rbuf, len), "memlock: uncached call data");
	EXPECT_EQ(pinned_settles(8), 8);
	/* Beyond the limit on its own: ENOMEM, and the cache gave up all. */
	EXPECT_ERR(scif_vwriteto(a, big, 11 * page, 0, CACHE), ENOMEM);
	EXPECT_EQ(pinned_settles(4), 4);
	EXPECT_EQ(scif_vwriteto(a, x1, len, 0, CACHE), 0);
	EXPECT_EQ(pinned_settles(8), 8);
	scif_close(a);
	EXPECT_EQ(pinned_settles(4), 4);
	scif_close(b);
	EXPECT_EQ(pinned_settles(0), 0);
}

/* What as_user() runs in the child, and its RLIMIT_MEMLOCK in pages. */
struct user_run {
	void (*fn)(void);
	long limit;
};

static void user_child(void *arg)
{
	const struct user_run *u = arg;
	struct rlimit rl = { u->limit * page, u->limit * page };

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		bail("setrlimit");
	if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
		bail("setuid");
	u->fn();
}

/*
 * Run @fn in a child as an unprivileged user (pins are charged to VmPin
 * only without CAP_IPC_LOCK) with RLIMIT_MEMLOCK at @limit pages; its TAP
 * results count as ours.
 */
static void as_user(void (*fn)(void), long limit, const char *name)
{
	struct user_run u = { fn, limit };

	tap_child(name, user_child, &u);
}

/**
 * struct stress - cached calls of two threads while the buffer changes
 * @a: the endpoint
 * @buf: the buffer, SPAGES pages
 * @stop: set by the main thread when time is up
 * @calls: calls made by the thread
 * @bad: calls that failed with anything but EFAULT
 * @seed: the thread's random state
 */
struct stress {
	scif_epd_t a;
	char *buf;
	int stop;
	long calls;
	long bad;
	unsigned int seed;
};

#define SPAGES		16
#define STRESS_SECS	3

static void *stress_thread(void *arg)
{
	struct stress *st = arg;
	size_t off, len;
	int r;

	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		off = rand_r(&st->seed) % (SPAGES * page);
		len = 1 + rand_r(&st->seed) % (SPAGES * page - off);
		if (len > (size_t)(RPAGES * page))
			len = RPAGES * page;
		if (rand_r(&st->seed) & 1)
			r = scif_vreadfrom(st->a, st->buf + off, len, 0, CACHE);
		else
			r = scif_vwriteto(st->a, st->buf + off, len, 0, CACHE);
		st->calls++;
		if (r && errno != EFAULT)
			st->bad++;
	}
	return NULL;
}

/*
 * Two threads make cached calls over random parts of a buffer while this
 * one drops its pages, write-protects it and forks, for a few seconds.
 * Nothing may fail but with EFAULT (while read-only), and afterwards a
 * cached call must see the current pages.
 */
static void test_stress(scif_epd_t a, char *rbuf)
{
	long before = pinned();
	char *buf = map_pages(SPAGES);
	struct stress st[2];
	pthread_t t[2];
	time_t end = time(NULL) + STRESS_SECS;
	unsigned int seed = 1;
	long events = 0;
	size_t off;
	pid_t pid;
	int i, w;

	for (i = 0; i < 2; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].a = a;
		st[i].buf = buf;
		st[i].seed = 77 + i;
		if (pthread_create(&t[i], NULL, stress_thread, &st[i]))
			bail("pthread_create");
	}
	while (time(NULL) < end) {
		off = (rand_r(&seed) % SPAGES) * page;
		switch (rand_r(&seed) % 8) {
		case 0:
			fflush(stdout);
			pid = fork();
			if (!pid)
				_exit(0);
			if (pid > 0)
				waitpid(pid, &w, 0);
			break;
		case 1:
			mprotect(buf, SPAGES * page, PROT_READ);
			usleep(1000);
			mprotect(buf, SPAGES * page, PROT_READ | PROT_WRITE);
			break;
		default:
			madvise(buf + off, page, MADV_DONTNEED);
			break;
		}
		events++;
		usleep(2000);
	}
	for (i = 0; i < 2; i++) {
		__atomic_store_n(&st[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(t[i], NULL);
	}
	tap_ok(st[0].calls > 0 && st[1].calls > 0,
	       "stress: %ld and %ld calls against %ld changes", st[0].calls,
	       st[1].calls, events);
	tap_ok(!st[0].bad && !st[1].bad, "stress: no call failed (%ld, %ld)",
	       st[0].bad, st[1].bad);
	if (madvise(buf, SPAGES * page, MADV_DONTNEED))
		bail("madvise");
	fill(rbuf, RPAGES * page, 40);
	EXPECT_EQ(scif_vreadfrom(a, buf, SPAGES * page, 0, CACHE), 0);
	tap_ok(!memcmp(buf, rbuf, SPAGES * page),
	       "stress: a cached call sees the current pages");
	/* Unmapping the buffer unpins whatever the cache held of it. */
	munmap(buf, SPAGES * page);
	for (i = 0; i < 500 && pinned() > before; i++)
		usleep(10000);
	tap_ok(pinned() <= before, "stress: unpinned after munmap (%ld, was %ld)",
	       pinned(), before);
}

static void main_child(void)
{
	char *rbuf, *v, *w;
	scif_epd_t a, b;
	long base;

	rbuf = map_pages(RPAGES);
	v = map_pages(8);
	w = map_pages(4);
	setup(&a, &b, rbuf);
	base = pinned();
	tap_ok(base == RPAGES, "the window is pinned (%ld pages)", base);
	test_reuse(a, rbuf, v, w, base);
	test_invalidate(a, rbuf, v);
	test_stress(a, rbuf);
	scif_close(a);
	EXPECT_EQ(pinned_settles(base), base);
	scif_close(b);
	EXPECT_EQ(pinned_settles(0), 0);
}

int main(void)
{
	char old[32] = "";
	int fd;

	page = sysconf(_SC_PAGESIZE);
	if (pinned() < 0) {
		printf("Bail out! no VmPin in /proc/self/status\n");
		return 2;
	}
	as_user(main_child, 1024, "cache");
	fd = open(PARAM, O_RDONLY);
	if (fd >= 0 && read(fd, old, sizeof(old) - 1) > 0 &&
	    !write_param("2")) {
		as_user(lru_child, 1024, "lru");
		tap_ok(!write_param(old), "lru: %s restored", PARAM);
	} else {
		printf("# lru: cannot set %s, skipped\n", PARAM);
	}
	if (fd >= 0)
		close(fd);
	as_user(memlock_child, 14, "memlock");
	return tap_done();
}
