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
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz-run.h"

/* ---- the parent ---- */

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

	if (!fz_raw_requests_complete()) {
		fprintf(stderr, "scif-fuzz: raw_requests[] lacks a request up to %d\n",
			SCIF_IOCTL_NR_MAX);
		return 2;
	}
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
	fz_install_handlers();

	/* Our own node id; with --peer, wait up to a minute for the peer. */
	for (i = 0; i < 600; i++) {
		n = fz_node_ids(nodes, 16, &self);
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
	if (peer >= 0 && !o.no_barrier && fz_barrier(self, peer, 120))
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
			fz_worker(&o, i, self, peer);
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
				fz_dump_tasks(pids[i]);
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
	if (peer >= 0 && !o.no_barrier && fz_barrier(self, peer, 300))
		fprintf(stderr, "scif-fuzz: no end barrier with node %d\n",
			peer);
	if (o.verbose)
		print_ops();
	print_summary(&o, peer);
	if (fz_stats->violations)
		return 1;
	return slow ? 3 : 0;
}
