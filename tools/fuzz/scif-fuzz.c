// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: a structured fuzzer of /dev/scif.
 *
 *   scif-fuzz [--seed N] [--calls N] [--threads N] [--light N] [--procs N]
 *             [--peer NODE|auto] [--user UID] [--timeout SEC]
 *             [--port-base PORT] [--no-barrier] [-v]
 *
 * Forks --procs worker processes, each of --threads full fuzzing threads
 * and --light ones that make cheap requests only (the full threads keep the
 * expensive ones and their blocking waits), and spends --calls operations
 * (over all of them, taken from one shared count) on random, mostly
 * well-formed use of every request of <linux/scif_ioctl.h>, mmap, munmap,
 * mprotect, poll, dup, close and fork, on loopback connections and, with
 * --peer, on connections to the listeners of the same program on that node.
 * With a peer, the two runs meet before the first call and after the last
 * (through SCIF), unless --no-barrier leaves that to the caller: a run
 * whose allocations are made to fail cannot count on meeting.
 * Blocking calls are interrupted by signals. Each thread's choices are a
 * function of the seed, the node id and its place; the interleaving of
 * threads is not.
 *
 * Invariants checked: memory registered only with SCIF_PROT_READ (the
 * "canaries") and a read-only file never change; no write into the
 * read-only grid of the registered address space (see fuzz.h) is reported
 * as done; a writable registration over a read-only file mapping fails;
 * no worker dies or hangs. The last line of output is the summary:
 *
 *   scif-fuzz: calls=N ok=N EINVAL=N ... violations=N
 *
 * Exit status: 0; 1 when an invariant was violated (a worker stuck with no
 * call completing for 10 s after --timeout counts); 2 on a usage error; 3
 * when --timeout expired while calls still completed (too slow: the budget
 * does not fit the timeout).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "fuzz.h"

struct fz_stats *fz_stats;
static __thread struct fz_thread *cur;

uint64_t fz_mix(uint64_t x)
{
	/* splitmix64 */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t fz_rand(struct fz_thread *t)
{
	uint64_t x = t->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint64_t fz_below(struct fz_thread *t, uint64_t n)
{
	return n ? fz_rand(t) % n : 0;
}

bool fz_chance(struct fz_thread *t, unsigned int num, unsigned int den)
{
	return fz_below(t, den) < num;
}

long fz_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L + 1;
}

long fz_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

/* Raise *@ctr to @v if it is lower, atomically. */
void fz_max(unsigned long *ctr, unsigned long v)
{
	unsigned long old = __atomic_load_n(ctr, __ATOMIC_RELAXED);

	while (v > old &&
	       !__atomic_compare_exchange_n(ctr, &old, v, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

__thread int fz_cur_op;

void fz_record(struct fz_thread *t, long ret, int err)
{
	int e = ret < 0 ? (err > 0 && err < FZ_NERR ? err : 0) : 0;

	(void)t;
	fz_add(&fz_stats->calls, 1);
	fz_add(&fz_stats->op_err[fz_cur_op][e], 1);
	if (ret < 0)
		fz_add(&fz_stats->err[err > 0 && err < FZ_NERR ? err : 0], 1);
	else if (ret > 0)
		fz_add(&fz_stats->positive, 1);
	else
		fz_add(&fz_stats->ok, 1);
}

void fz_violation(struct fz_proc *p, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "scif-fuzz VIOLATION (worker %d): ",
		     p ? p->idx : -1);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	/* write(2): also safe in a forked child of a threaded process */
	if (write(2, buf, strlen(buf)) < 0)
		return;
	fz_add(&fz_stats->violations, 1);
}

void fz_lock(struct fz_thread *t)
{
	if (!t->child)
		pthread_mutex_lock(&t->p->lock);
}

void fz_unlock(struct fz_thread *t)
{
	if (!t->child)
		pthread_mutex_unlock(&t->p->lock);
}

bool fz_in_ro_grid(fz_off off, uint64_t len)
{
	uint64_t end;

	if (off < 0 || !len)
		return false;
	if (__builtin_add_overflow((uint64_t)off, len, &end))
		end = ~0ULL;
	return (uint64_t)off < (uint64_t)FZ_RO_END && end > (uint64_t)FZ_RO_BASE;
}

uint8_t fz_canary_byte(struct fz_proc *p, size_t i)
{
	return (uint8_t)(fz_mix(p->o->seed ^ ((uint64_t)p->idx << 40) ^
				(i / 8)) >> (8 * (i % 8)));
}

uint8_t fz_file_byte(struct fz_proc *p, size_t i)
{
	return (uint8_t)(fz_mix(~p->o->seed ^ ((uint64_t)p->idx << 40) ^
				(i / 8)) >> (8 * (i % 8)));
}

/* Compare @len bytes at @mem with @ref; report the first difference. */
static void check_range(struct fz_proc *p, const char *what, const char *mem,
			const char *ref, size_t len, bool restore)
{
	size_t i, bad = 0, first = 0;

	if (!memcmp(mem, ref, len))
		return;
	for (i = 0; i < len; i++) {
		if (mem[i] != ref[i] && !bad++)
			first = i;
	}
	fz_violation(p,
		     "%s changed: %zu bytes differ, first at +%#zx (page %zu) is %#x, expected %#x",
		     what, bad, first,
		     (size_t)(first / FZ_PAGE), (uint8_t)mem[first], (uint8_t)ref[first]);
	if (restore)
		memcpy((char *)mem, ref, len);
}

void fz_check_memory(struct fz_proc *p)
{
	char buf[FZ_FILE_PAGES * FZ_PAGE];
	ssize_t n;
	int fd;

	check_range(p, "read-only registered canary memory", p->canary,
		    p->canary_ref, FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE,
		    true);
	check_range(p, "read-only shared file mapping", p->file_shared,
		    p->file_ref, FZ_FILE_PAGES * FZ_PAGE, false);
	check_range(p, "read-only private file mapping", p->file_private,
		    p->file_ref, FZ_FILE_PAGES * FZ_PAGE, false);
	fd = open(p->file_name, O_RDONLY);
	if (fd < 0)
		return;
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n != (ssize_t)sizeof(buf))
		fz_violation(p, "read-only file %s now has %zd bytes",
			     p->file_name, n);
	else
		check_range(p, "read-only file (read back)", buf, p->file_ref,
			    sizeof(buf), false);
}

/* ---- signals ---- */

static void on_usr1(int sig)
{
	(void)sig;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	const char *op = fz_op_name(fz_cur_op);
	unsigned long ip = 0;
	char buf[256];
	int n;

	if (cur && __atomic_load_n(&cur->in_touch, __ATOMIC_SEQ_CST))
		siglongjmp(cur->touch_jb, 1);
	/*
	 * Not ours to catch: say where (the binary is static, so addr2line
	 * on it finds the instruction), then die of it, so that the parent
	 * reports it.
	 */
#if defined(__x86_64__)
	ip = (unsigned long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	ip = (unsigned long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_EIP];
#endif
	n = snprintf(buf, sizeof(buf),
		     "scif-fuzz: pid %d thread %d%s: signal %d code %d at %p, ip %#lx, last op %s\n",
		     (int)getpid(), cur ? cur->idx : -1000,
		     cur && cur->light ? " (light)" : "", sig, si->si_code,
		     si->si_addr, ip, op ? op : "?");
	if (n > 0 && write(2, buf, (size_t)n) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	/* No SA_RESTART: blocking requests must see the interruption. */
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_NODEFER | SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- worker threads ---- */

static void *fuzz_thread(void *arg)
{
	struct fz_thread *t = arg;
	unsigned long i;

	cur = t;
	for (i = 1; __atomic_sub_fetch(&fz_stats->ops_left, 1,
				       __ATOMIC_RELAXED) >= 0; i++) {
		fz_op(t);
		if (t->idx == 0 && i % 128 == 0)
			fz_check_memory(t->p);
	}
	pthread_mutex_lock(&t->p->kill_lock);
	t->done = true;
	pthread_mutex_unlock(&t->p->kill_lock);
	return NULL;
}

/*
 * Accepts on the process's well-known port and feeds the pool. Each new
 * connection costs its acceptor two registrations, so FZ_ACCEPTORS of them
 * share the listener: a connect then rarely waits for one to be free.
 */
static void *acceptor_thread(void *arg)
{
	struct fz_thread *t = arg;
	struct fz_proc *p = t->p;
	struct scifioctl_accept req;
	struct pollfd pfd;
	int lfd = p->lfd, nfd, s, old;

	cur = t;
	while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		pfd.fd = lfd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		memset(&req, 0, sizeof(req));
		if (ioctl(lfd, SCIF_ACCEPTREQ, &req))
			continue;
		nfd = open("/dev/scif", O_RDWR);
		if (nfd < 0)
			continue;
		if (ioctl(nfd, SCIF_ACCEPTREG, &req.endpt)) {
			close(nfd);
			continue;
		}
		fz_add(&fz_stats->accepted, 1);
		/* a connector that gave up (signal) leaves a dead endpoint */
		if (fz_seed_windows(t, nfd) == -ECONNRESET) {
			close(nfd);
			continue;
		}
		/* into a free slot, or in place of a random endpoint */
		pthread_mutex_lock(&p->lock);
		for (s = 0; s < FZ_SLOTS; s++)
			if (p->slots[s].kind == FZ_FREE)
				break;
		if (s == FZ_SLOTS)
			s = (int)fz_below(t, FZ_SLOTS);
		old = p->slots[s].kind == FZ_FREE ? -1 : p->slots[s].fd;
		p->slots[s].fd = nfd;
		p->slots[s].kind = FZ_ACCEPTED;
		pthread_mutex_unlock(&p->lock);
		if (old >= 0)
			close(old);
	}
	return NULL;
}

/*
 * Interrupts the fuzzing threads: any thread blocked in a call for longer
 * than that call's patience (the operations choose it per call), and now and
 * then one at random. It looks every 10 ms: each wakeup costs the guest
 * CPU time that the fuzzing threads need.
 */
static void *signal_thread(void *arg)
{
	struct fz_thread *t = arg;
	struct fz_proc *p = t->p;
	struct timespec ts = { 0, 10000000 };
	long start, now;
	bool stuck;
	int i, ret;

	while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		nanosleep(&ts, NULL);
		now = fz_now_ms();
		for (i = 0; i < p->o->threads + p->o->light; i++) {
			struct fz_thread *w = &p->threads[i];

			start = __atomic_load_n(&w->call_start,
						__ATOMIC_RELAXED);
			stuck = start && now - start >
				__atomic_load_n(&w->call_patience,
						__ATOMIC_RELAXED);
			if (!stuck && !fz_chance(t, 3, 1000))
				continue;
			pthread_mutex_lock(&p->kill_lock);
			ret = w->done ? ESRCH : pthread_kill(w->tid, SIGUSR1);
			pthread_mutex_unlock(&p->kill_lock);
			if (ret)
				continue;
			fz_add(&fz_stats->signals, 1);
			if (stuck)
				fz_add(&fz_stats->signals_stuck, 1);
		}
	}
	return NULL;
}

static char *map_anon(size_t len)
{
	char *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED) {
		perror("scif-fuzz: mmap");
		exit(1);
	}
	return a;
}

/* Memory and the read-only file, made before privileges are dropped. */
static void setup_memory(struct fz_proc *p)
{
	size_t flen = FZ_FILE_PAGES * FZ_PAGE, i;
	char *buf;
	int fd;

	p->scratch = map_anon(FZ_SCRATCH_PAGES * FZ_PAGE);
	p->canary = map_anon(FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE);
	p->canary_ref = map_anon(FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE);
	for (i = 0; i < FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE; i++) {
		p->canary_ref[i] = (char)fz_canary_byte(p, i);
		p->canary[i] = p->canary_ref[i];
	}
	p->guard = map_anon(2 * FZ_PAGE);
	mprotect(p->guard + FZ_PAGE, FZ_PAGE, PROT_NONE);

	snprintf(p->file_name, sizeof(p->file_name), "scif-fuzz-ro.%d.%d",
		 (int)getppid(), p->idx);
	buf = map_anon(flen);
	for (i = 0; i < flen; i++)
		buf[i] = (char)fz_file_byte(p, i);
	unlink(p->file_name);
	fd = open(p->file_name, O_WRONLY | O_CREAT | O_EXCL, 0444);
	if (fd < 0 || write(fd, buf, flen) != (ssize_t)flen) {
		perror("scif-fuzz: read-only file");
		exit(1);
	}
	close(fd);
	p->file_ref = buf;
	p->file_fd = open(p->file_name, O_RDONLY);
	if (p->file_fd < 0) {
		perror("scif-fuzz: read-only file");
		exit(1);
	}
	p->file_shared = mmap(NULL, flen, PROT_READ, MAP_SHARED, p->file_fd, 0);
	p->file_private = mmap(NULL, flen, PROT_READ, MAP_PRIVATE,
			       p->file_fd, 0);
	if (p->file_shared == MAP_FAILED || p->file_private == MAP_FAILED) {
		perror("scif-fuzz: mmap of the read-only file");
		exit(1);
	}
}

static int node_ids(uint16_t *nodes, int len, uint16_t *self)
{
	struct scifioctl_node_ids req;
	int fd = open("/dev/scif", O_RDWR), ret;

	if (fd < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.nodes = (uint64_t)(uintptr_t)nodes;
	req.self = (uint64_t)(uintptr_t)self;
	req.len = len;
	ret = ioctl(fd, SCIF_GET_NODEIDS, &req);
	close(fd);
	return ret ? -1 : req.len;
}

static void worker(const struct fz_opts *o, int idx, uint16_t self, int peer)
{
	struct fz_thread *ts, aux_a[FZ_ACCEPTORS], aux_s;
	__u64 port = (__u64)o->port_base + idx * FZ_PORT_STRIDE;
	struct fz_proc p;
	pthread_t at[FZ_ACCEPTORS], st;
	int i, s, nt = o->threads + o->light;

	memset(&p, 0, sizeof(p));
	p.idx = idx;
	p.o = o;
	p.self = self;
	p.peer = peer;
	pthread_mutex_init(&p.lock, NULL);
	pthread_mutex_init(&p.kill_lock, NULL);
	for (s = 0; s < FZ_SLOTS; s++)
		p.slots[s].fd = -1;
	for (i = 0; i < FZ_KNOWN; i++)
		p.known[i] = FZ_RW_BASE;
	setup_memory(&p);
	if (o->user >= 0 && (idx & 1)) {
		if (setgid(o->user) || setuid(o->user)) {
			perror("scif-fuzz: setuid");
			exit(1);
		}
	}
	install_handlers();

	ts = calloc(nt, sizeof(*ts));
	if (!ts)
		exit(1);
	p.threads = ts;
	for (i = 0; i < nt; i++) {
		unsigned long place = (unsigned long)idx * nt + i;

		ts[i].p = &p;
		ts[i].idx = i;
		ts[i].light = i >= o->threads;
		ts[i].rng = fz_mix(o->seed ^ fz_mix(((uint64_t)self << 32) |
						    place)) | 1;
	}
	aux_s = (struct fz_thread){ .p = &p, .idx = -100,
				    .rng = fz_mix(o->seed + 101 + idx) | 1 };
	/*
	 * The listener is the worker's own set-up, not a call under test: when
	 * the kernel's allocations are made to fail (fault_inject.sh), ENOMEM
	 * here is expected, and the worker tries again.
	 */
	for (i = 0;; i++) {
		p.lfd = open("/dev/scif", O_RDWR);
		if (p.lfd >= 0 && !ioctl(p.lfd, SCIF_BIND, &port) &&
		    !ioctl(p.lfd, SCIF_LISTEN, 16))
			break;
		if (errno != ENOMEM || i == 100) {
			fprintf(stderr,
				"scif-fuzz: no listener on port %llu (process %d): %s\n",
				(unsigned long long)port, idx, strerror(errno));
			exit(1);
		}
		if (p.lfd >= 0)
			close(p.lfd);
		usleep(10000);
	}
	for (i = 0; i < FZ_ACCEPTORS; i++) {
		aux_a[i] = (struct fz_thread){
			.p = &p, .idx = -1 - i,
			.rng = fz_mix(o->seed + 1 + idx + 1000 * i) | 1 };
		pthread_create(&at[i], NULL, acceptor_thread, &aux_a[i]);
	}
	/* Let every worker's listener come up before connects start. */
	usleep(200000);
	for (i = 0; i < nt; i++)
		if (pthread_create(&ts[i].tid, NULL, fuzz_thread, &ts[i])) {
			perror("scif-fuzz: pthread_create");
			exit(1);
		}
	pthread_create(&st, NULL, signal_thread, &aux_s);
	for (i = 0; i < nt; i++)
		pthread_join(ts[i].tid, NULL);
	__atomic_store_n(&p.stop, 1, __ATOMIC_RELAXED);
	pthread_join(st, NULL);
	for (i = 0; i < FZ_ACCEPTORS; i++)
		pthread_join(at[i], NULL);
	close(p.lfd);

	fz_check_memory(&p);
	for (s = 0; s < FZ_SLOTS; s++)
		if (p.slots[s].kind != FZ_FREE)
			close(p.slots[s].fd);
	for (i = 0; i < FZ_MAPS; i++)
		if (p.maps[i].used)
			munmap(p.maps[i].addr, p.maps[i].len);
	/* Once the windows are gone: the memory must still be as written. */
	fz_check_memory(&p);
	unlink(p.file_name);
	exit(0);
}

/* ---- the parent ---- */

/* What a stuck worker's threads are doing, for the report. */
static void dump_tasks(pid_t pid)
{
	char path[320], buf[2048];
	struct dirent *d;
	DIR *dir;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		static const char *const files[] = { "wchan", "syscall", "stack" };
		size_t k;

		if (d->d_name[0] == '.')
			continue;
		for (k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", pid,
				 d->d_name, files[k]);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0)
				continue;
			buf[n] = 0;
			fprintf(stderr, "scif-fuzz: stuck task %d/%s %s: %s%s",
				pid, d->d_name, files[k], buf,
				buf[n - 1] == '\n' ? "" : "\n");
		}
	}
	closedir(dir);
}

/* Meet the peer node once: the lower id listens, the higher connects. */
static int barrier(uint16_t self, int peer, int secs)
{
	struct scifioctl_connect c;
	struct scifioctl_accept a;
	struct scifioctl_msg m;
	__u64 port = FZ_BARRIER_PORT;
	long deadline = fz_now_ms() + secs * 1000L;
	char byte = 'b';
	int fd, lfd = -1, nfd;

	if (self < peer) {
		lfd = open("/dev/scif", O_RDWR);
		if (lfd < 0 || ioctl(lfd, SCIF_BIND, &port) ||
		    ioctl(lfd, SCIF_LISTEN, 1))
			return -1;
		memset(&a, 0, sizeof(a));
		a.flags = SCIF_ACCEPT_SYNC;
		alarm(secs);
		fd = ioctl(lfd, SCIF_ACCEPTREQ, &a);
		alarm(0);
		if (fd)
			goto fail;
		fd = open("/dev/scif", O_RDWR);
		if (fd < 0 || ioctl(fd, SCIF_ACCEPTREG, &a.endpt))
			goto fail;
	} else {
		for (;;) {
			fd = open("/dev/scif", O_RDWR);
			if (fd < 0)
				return -1;
			memset(&c, 0, sizeof(c));
			c.peer.node = (uint16_t)peer;
			c.peer.port = FZ_BARRIER_PORT;
			alarm(10);
			nfd = ioctl(fd, SCIF_CONNECT, &c);
			alarm(0);
			if (!nfd)
				break;
			close(fd);
			if (fz_now_ms() > deadline)
				return -1;
			usleep(200000);
		}
	}
	memset(&m, 0, sizeof(m));
	m.msg = (uint64_t)(uintptr_t)&byte;
	m.len = 1;
	m.flags = SCIF_SEND_BLOCK;
	alarm(secs);
	nfd = ioctl(fd, SCIF_SEND, &m);
	if (!nfd)
		nfd = ioctl(fd, SCIF_RECV, &m);
	alarm(0);
	close(fd);
	if (lfd >= 0)
		close(lfd);
	return nfd;
fail:
	close(lfd);
	return -1;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: scif-fuzz [--seed N] [--calls N] [--threads N] [--light N] [--procs N]\n"
		"                 [--peer NODE|auto] [--user UID] [--timeout SEC] [--port-base PORT]\n"
		"                 [--no-barrier] [-v]\n");
	exit(2);
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end)
		print_usage();
	return v;
}

static long t_start;

static void print_summary(const struct fz_opts *o, int peer)
{
	char line[4096];
	size_t n;
	int e;

	n = (size_t)snprintf(line, sizeof(line),
		"scif-fuzz: abi=%d seed=%llu calls=%lu procs=%d threads=%d light=%d peer=%d ok=%lu positive=%lu",
		(int)sizeof(void *) * 8,
		(unsigned long long)o->seed, fz_stats->calls, o->procs,
		o->threads, o->light, peer, fz_stats->ok, fz_stats->positive);
	for (e = 0; e < FZ_NERR && n < sizeof(line) - 64; e++) {
		const char *name;

		if (!fz_stats->err[e])
			continue;
		name = e ? strerrorname_np(e) : NULL;
		if (name)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " %s=%lu", name,
					      fz_stats->err[e]);
		else
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " E%d=%lu", e, fz_stats->err[e]);
	}
	snprintf(line + n, sizeof(line) - n,
		 " | connected=%lu accepted=%lu registered=%lu mapped=%lu rma_ok=%lu forks=%lu signals=%lu(stuck %lu) faults=%lu slowest=%lums(nr %lu) over5s=%lu secs=%ld violations=%lu",
		 fz_stats->connected, fz_stats->accepted, fz_stats->registered,
		 fz_stats->mapped, fz_stats->rma_ok, fz_stats->forks,
		 fz_stats->signals, fz_stats->signals_stuck, fz_stats->faults,
		 fz_stats->slowest_ms,
		 fz_stats->slowest_op, fz_stats->slow_calls,
		 (fz_now_ms() - t_start) / 1000, fz_stats->violations);
	printf("%s\n", line);
	fflush(stdout);
}

/* With -v: what each operation got, before the summary line. */
static void print_ops(void)
{
	const char *name;
	int op, e;

	for (op = 0; op < FZ_NOPS && fz_op_name(op); op++) {
		unsigned long runs = fz_stats->op_runs[op];

		printf("scif-fuzz op %-10s n=%lu ms=%lu cpu_ms=%lu avg_us=%lu max_ms=%lu ok=%lu",
		       fz_op_name(op), runs, fz_stats->op_us[op] / 1000,
		       fz_stats->op_cpu_us[op] / 1000,
		       runs ? fz_stats->op_us[op] / runs : 0,
		       fz_stats->op_max_us[op] / 1000,
		       fz_stats->op_err[op][0]);
		for (e = 1; e < FZ_NERR; e++) {
			if (!fz_stats->op_err[op][e])
				continue;
			name = strerrorname_np(e);
			printf(" %s=%lu", name ? name : "?",
			       fz_stats->op_err[op][e]);
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct fz_opts o = {
		.seed = 1, .calls = 100000, .threads = 4, .procs = 2,
		.peer = -1, .user = -1, .timeout = 0,
		.port_base = FZ_PORT_BASE,
	};
	uint16_t nodes[16], self = 0;
	pid_t *pids;
	long deadline, next_report;
	int i, n, st, left, peer = -1, slow = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-v")) {
			o.verbose = 1;
			continue;
		}
		if (!strcmp(a, "--no-barrier")) {
			o.no_barrier = 1;
			continue;
		}
		if (!v)
			print_usage();
		i++;
		if (!strcmp(a, "--seed"))
			o.seed = num(v);
		else if (!strcmp(a, "--calls"))
			o.calls = num(v);
		else if (!strcmp(a, "--threads"))
			o.threads = (int)num(v);
		else if (!strcmp(a, "--light"))
			o.light = (int)num(v);
		else if (!strcmp(a, "--procs"))
			o.procs = (int)num(v);
		else if (!strcmp(a, "--peer"))
			o.peer = strcmp(v, "auto") ? (int)num(v) : -2;
		else if (!strcmp(a, "--user"))
			o.user = (int)num(v);
		else if (!strcmp(a, "--timeout"))
			o.timeout = (int)num(v);
		else if (!strcmp(a, "--port-base"))
			o.port_base = (int)num(v);
		else
			print_usage();
	}
	if (o.threads < 1 || o.threads > 64 || o.light < 0 || o.light > 64 ||
	    o.procs < 1 || o.procs > 64 ||
	    o.port_base < 1024 || o.port_base + o.procs * FZ_PORT_STRIDE > 65535)
		print_usage();

	fz_stats = mmap(NULL, sizeof(*fz_stats), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_stats == MAP_FAILED) {
		perror("scif-fuzz: mmap");
		return 1;
	}
	fz_stats->ops_left = (long)o.calls;
	install_handlers();

	/* Our own node id; with --peer, wait up to a minute for the peer. */
	for (i = 0; i < 600; i++) {
		n = node_ids(nodes, 16, &self);
		if (n < 0 && errno == ENOMEM) {
			/* Allocations made to fail: try again. */
			usleep(100000);
			continue;
		}
		if (n < 0) {
			perror("scif-fuzz: SCIF_GET_NODEIDS");
			return 1;
		}
		if (o.peer == -1)
			break;
		for (int k = 0; k < n && k < 16; k++) {
			if (nodes[k] != self &&
			    (o.peer == -2 || nodes[k] == o.peer))
				peer = nodes[k];
		}
		if (peer >= 0)
			break;
		usleep(100000);
	}
	if (o.peer != -1 && peer < 0) {
		fprintf(stderr, "scif-fuzz: peer node %d never came up\n",
			o.peer);
		return 1;
	}
	if (peer >= 0 && !o.no_barrier && barrier(self, peer, 120))
		fprintf(stderr, "scif-fuzz: no start barrier with node %d\n",
			peer);
	fprintf(stdout,
		"scif-fuzz starting: node %u peer %d seed %llu calls %lu procs %d threads %d light %d\n",
		self, peer,
		(unsigned long long)o.seed, o.calls, o.procs, o.threads,
		o.light);
	fflush(stdout);

	t_start = fz_now_ms();
	pids = calloc(o.procs, sizeof(*pids));
	if (!pids)
		return 1;
	for (i = 0; i < o.procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("scif-fuzz: fork");
			return 1;
		}
		if (!pids[i])
			worker(&o, i, self, peer);
	}

	deadline = o.timeout ? fz_now_ms() + o.timeout * 1000L : 0;
	next_report = fz_now_ms() + 60000;
	left = o.procs;
	while (left) {
		pid_t pid = waitpid(-1, &st, deadline ? WNOHANG : 0);

		if (pid > 0) {
			left--;
			for (i = 0; i < o.procs; i++)
				if (pids[i] == pid)
					pids[i] = 0;
			if (!(slow && WIFSIGNALED(st) &&
			      WTERMSIG(st) == SIGKILL) &&
			    (!WIFEXITED(st) || WEXITSTATUS(st)))
				fz_violation(NULL, "worker pid %d ended with status %#x%s", pid, st,
					     WIFSIGNALED(st) ?
					     " (killed by a signal)" : "");
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (deadline && fz_now_ms() > deadline) {
			/*
			 * Slow (TCG, a loaded host) or stuck? Stuck only if
			 * no call at all completes in ten seconds.
			 */
			unsigned long before = __atomic_load_n(&fz_stats->calls,
							       __ATOMIC_RELAXED);

			sleep(10);
			before = __atomic_load_n(&fz_stats->calls,
						 __ATOMIC_RELAXED) - before;
			for (i = 0; i < o.procs; i++) {
				if (!pids[i])
					continue;
				if (before)
					fprintf(stderr,
						"scif-fuzz: worker pid %d still running after %d s, but %lu calls completed in the last 10 s: too slow, not stuck\n",
						pids[i], o.timeout, before);
				else
					fz_violation(NULL,
						     "worker pid %d stuck: no call completed in 10 s after %d s",
						     pids[i], o.timeout);
				dump_tasks(pids[i]);
				kill(pids[i], SIGKILL);
			}
			if (before)
				slow = 1;
			deadline = 0;
		}
		if (deadline)
			usleep(100000);
		if (deadline && fz_now_ms() >= next_report) {
			/* a long run says how far it got, once a minute */
			printf("scif-fuzz progress: calls=%lu secs=%ld\n",
			       __atomic_load_n(&fz_stats->calls,
					       __ATOMIC_RELAXED),
			       (fz_now_ms() - t_start) / 1000);
			fflush(stdout);
			next_report += 60000;
		}
	}
	if (peer >= 0 && !o.no_barrier && barrier(self, peer, 300))
		fprintf(stderr, "scif-fuzz: no end barrier with node %d\n",
			peer);
	if (o.verbose)
		print_ops();
	print_summary(&o, peer);
	if (fz_stats->violations)
		return 1;
	return slow ? 3 : 0;
}
