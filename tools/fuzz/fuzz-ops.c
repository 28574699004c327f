// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: the choice of operation. The ops[] table names every operation
 * and its weights for a full thread, a light thread and a forked child;
 * fz_op() draws one by weight and runs it (and times it with -v). The two
 * operations that are not one request of the driver are here as well:
 * op_raw() (read() and write() on the device, unknown and malformed
 * ioctls) and op_fork() (the child runs fz_child_ops() and exits).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz-ops.h"

/*
 * Every request of the driver by number, 1 to SCIF_IOCTL_NR_MAX, and
 * whether op_raw() may issue it in its real form with random bytes for its
 * argument: not those that can wait for a peer or a mark (connect, accept,
 * send, recv, the copies, fence wait) nor SCIF_REG, which pins and takes
 * the address space's lock for writing (the other ops draw those).
 */
static const struct {
	unsigned long cmd;
	bool real;
} raw_requests[SCIF_IOCTL_NR_MAX + 1] = {
	[_IOC_NR(SCIF_BIND)] = { SCIF_BIND, true },
	[_IOC_NR(SCIF_LISTEN)] = { SCIF_LISTEN, true },
	[_IOC_NR(SCIF_CONNECT)] = { SCIF_CONNECT, false },
	[_IOC_NR(SCIF_ACCEPTREQ)] = { SCIF_ACCEPTREQ, false },
	[_IOC_NR(SCIF_ACCEPTREG)] = { SCIF_ACCEPTREG, true },
	[_IOC_NR(SCIF_SEND)] = { SCIF_SEND, false },
	[_IOC_NR(SCIF_RECV)] = { SCIF_RECV, false },
	[_IOC_NR(SCIF_REG)] = { SCIF_REG, false },
	[_IOC_NR(SCIF_UNREG)] = { SCIF_UNREG, true },
	[_IOC_NR(SCIF_READFROM)] = { SCIF_READFROM, false },
	[_IOC_NR(SCIF_WRITETO)] = { SCIF_WRITETO, false },
	[_IOC_NR(SCIF_VREADFROM)] = { SCIF_VREADFROM, false },
	[_IOC_NR(SCIF_VWRITETO)] = { SCIF_VWRITETO, false },
	[_IOC_NR(SCIF_GET_NODEIDS)] = { SCIF_GET_NODEIDS, true },
	[_IOC_NR(SCIF_FENCE_MARK)] = { SCIF_FENCE_MARK, true },
	[_IOC_NR(SCIF_FENCE_WAIT)] = { SCIF_FENCE_WAIT, false },
	[_IOC_NR(SCIF_FENCE_SIGNAL)] = { SCIF_FENCE_SIGNAL, true },
	[_IOC_NR(SCIF_STREAM_MAP)] = { SCIF_STREAM_MAP, true },
	[_IOC_NR(SCIF_STREAM_WAKE)] = { SCIF_STREAM_WAKE, true },
};

/* False when a request is missing from raw_requests[]. */
bool fz_raw_requests_complete(void)
{
	unsigned int nr;

	for (nr = 1; nr <= SCIF_IOCTL_NR_MAX; nr++)
		if (_IOC_NR(raw_requests[nr].cmd) != nr)
			return false;
	return true;
}

/* Something that is not one of the requests, or not in its proper form. */
static void op_raw(struct fz_thread *t)
{
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE,
	};
	char buf[128];
	int fd = fz_pick_fd(t, fz_chance(t, 1, 2));
	unsigned long cmd;
	unsigned int nr;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)fz_rand(t);
	switch (fz_below(t, 6)) {
	case 0: /* read() and write() on the device */
		fz_record_ret(t, (fz_chance(t, 1, 2) ?
				  read(fd, buf, sizeof(buf)) :
				  write(fd, buf, sizeof(buf))) < 0 ? -1 : 0);
		return;
	case 1: /* any number up to well past the last request */
		cmd = _IOC(dirs[fz_below(t, 4)], 's',
			   fz_below(t, 2 * SCIF_IOCTL_NR_MAX + 2),
			   fz_below(t, 80));
		break;
	case 2: /* a real request number with a wrong direction and size */
		cmd = _IOC(_IOC_READ | _IOC_WRITE, 's',
			   1 + fz_below(t, SCIF_IOCTL_NR_MAX), 0);
		cmd |= (unsigned long)(fz_below(t, 2) ? 8 : 40) << _IOC_SIZESHIFT;
		break;
	case 3: /* a real request, in its form, with random bytes */
		nr = 1 + fz_below(t, SCIF_IOCTL_NR_MAX);
		cmd = raw_requests[nr].real ? raw_requests[nr].cmd :
			(unsigned long)fz_rand(t) & 0xffffffff;
		break;
	default:
		cmd = (unsigned long)fz_rand(t) & 0xffffffff;
		break;
	}
	if (_IOC_NR(cmd) == _IOC_NR(SCIF_FENCE_WAIT) ||
	    _IOC_NR(cmd) == _IOC_NR(SCIF_LISTEN))
		if (fz_chance(t, 1, 8))
			cmd = (unsigned long)fz_rand(t) & 0xffffffff; /* no waits */
	fz_record_ret(t, fz_sys_ioctl(t, fd, cmd,
				      (unsigned long)fz_arg_ptr(t, buf, 64)));
}

static void op_fork(struct fz_thread *t)
{
	pid_t pid;
	int st;

	fz_add(&fz_stats->forks, 1);
	pid = fork();
	if (pid < 0) {
		fz_record_ret(t, -1);
		return;
	}
	if (pid == 0) {
		t->child = true;
		fz_child_ops(t);
		_exit(0);
	}
	fz_record_ret(t, 0);
	fz_call_begin(t, FZ_SLOW_PATIENCE_MS);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	fz_call_end(t);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fz_violation(t->p, "forked child %d ended with status %#x",
			     pid, st);
}

/*
 * @weight: how often a full thread picks it; @light: how often a light
 * thread does. Light threads leave out what blocks for long or takes the
 * address space's lock for writing (fork, mmap, munmap, mprotect, the
 * pinning of SCIF_REG), what makes connections (connect; open and close,
 * which churn the pool) and so on: the full threads keep all of it.
 */
struct fz_op_entry {
	const char *name;
	void (*fn)(struct fz_thread *t);
	unsigned int weight;
	unsigned int light;
	bool in_child;
};

static const struct fz_op_entry ops[] = {
	{ "open", fz_op_open,		8, 0, true },
	{ "close", fz_op_close,		2, 0, true },
	{ "dup", fz_op_dup,		1, 0, true },
	{ "nonblock", fz_op_nonblock,	1, 2, true },
	{ "bind", fz_op_bind,		5, 3, true },
	{ "listen", fz_op_listen,	3, 2, true },
	{ "connect", fz_op_connect,	5, 0, true },
	{ "accept", fz_op_accept,	5, 1, false },
	{ "acceptreg", fz_op_acceptreg,	1, 1, true },
	{ "send", fz_op_send,		6, 4, true },
	{ "recv", fz_op_recv,		6, 4, true },
	{ "reg", fz_op_reg,		12, 0, true },
	{ "unreg", fz_op_unreg,		6, 3, true },
	{ "rma", fz_op_rma,		14, 3, true },
	{ "node_ids", fz_op_node_ids,	1, 3, true },
	{ "fence", fz_op_fence,		6, 3, true },
	{ "mmap", fz_op_mmap,		6, 0, true },
	{ "munmap", fz_op_munmap,	3, 0, true },
	{ "mprotect", fz_op_mprotect,	2, 0, true },
	{ "touch", fz_op_touch,		5, 4, true },
	{ "poll", fz_op_poll,		3, 2, true },
	{ "stream_map", fz_op_stream_map, 3, 0, true },
	{ "raw", op_raw,		3, 5, true },
	{ "fork", op_fork,		1, 0, false },
};

static unsigned int op_weight(const struct fz_thread *t, unsigned int i,
			      bool child)
{
	if (child)
		return ops[i].in_child ? ops[i].weight : 0;
	return t->light ? ops[i].light : ops[i].weight;
}

static long cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

static void run_one(struct fz_thread *t, bool child)
{
	unsigned int total = 0, r, i, w;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += op_weight(t, i, child);
	r = (unsigned int)fz_below(t, total);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		w = op_weight(t, i, child);
		if (r < w && !t->p->o->verbose) {
			fz_cur_op = (int)i;
			ops[i].fn(t);
			return;
		}
		if (r < w) {
			/* -v: where the time goes (four more clock reads) */
			long start = fz_now_us(), cpu = cpu_us();
			unsigned long took;

			fz_cur_op = (int)i;
			ops[i].fn(t);
			took = (unsigned long)(fz_now_us() - start);
			fz_add(&fz_stats->op_runs[i], 1);
			fz_add(&fz_stats->op_us[i], took);
			fz_add(&fz_stats->op_cpu_us[i],
			       (unsigned long)(cpu_us() - cpu));
			fz_max(&fz_stats->op_max_us[i], took);
			return;
		}
		r -= w;
	}
}

const char *fz_op_name(int op)
{
	return op < (int)ARRAY_SIZE(ops) ? ops[op].name : NULL;
}

void fz_op(struct fz_thread *t)
{
	run_one(t, false);
}

static void child_alarm(int sig)
{
	(void)sig;
}

/*
 * In a forked child: a handful of operations on the inherited endpoints,
 * with a repeating timer so that no blocking request lasts.
 */
void fz_child_ops(struct fz_thread *t)
{
	struct sigaction sa;
	struct itimerval it = {
		.it_interval = { 0, 10000 },
		.it_value = { 0, 10000 },
	};
	int n = 1 + (int)fz_below(t, 8);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = child_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	/* Not the parent's next choices: a different stream, same seed. */
	t->rng = fz_mix(t->rng ^ 0x6368696c64ULL);
	/*
	 * Mappings of /dev/scif are not inherited (VM_DONTCOPY): their
	 * addresses are free here, and whatever the child maps there is not
	 * one of them.
	 */
	memset(t->p->maps, 0, sizeof(t->p->maps));
	while (n--)
		run_one(t, true);
}
