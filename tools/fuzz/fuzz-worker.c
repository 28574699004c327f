// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: one worker process. Its signal handlers, its fuzzing threads
 * (full and light), the acceptors that serve its well-known port, the
 * thread that interrupts blocked calls, and fz_worker(), which sets all of
 * them up, waits for the budget to run out and checks the memory at the
 * end. Also what the parent prints about a worker that got stuck.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "fuzz-run.h"

static __thread struct fz_thread *cur;

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

void fz_install_handlers(void)
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

void fz_worker(const struct fz_opts *o, int idx, uint16_t self, int peer)
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
	fz_setup_memory(&p);
	if (o->user >= 0 && (idx & 1)) {
		if (setgid(o->user) || setuid(o->user)) {
			perror("scif-fuzz: setuid");
			exit(1);
		}
	}
	fz_install_handlers();

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

/* What a stuck worker's threads are doing, for the report. */
void fz_dump_tasks(pid_t pid)
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
