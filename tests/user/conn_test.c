// SPDX-License-Identifier: GPL-2.0
/*
 * scif-conn-test [N]: N (default 1000) simultaneous connections on the
 * loopback node. A child process opens and connects N endpoints while the
 * parent accepts them; all stay open at once, each carries its own index
 * both ways, and then all are closed.
 */
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scif_test.h"

static void raise_nofile(int n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		bail("getrlimit");
	if (rl.rlim_cur >= (rlim_t)n)
		return;
	rl.rlim_cur = n;
	if (rl.rlim_max < (rlim_t)n)
		rl.rlim_max = n;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		bail("setrlimit(RLIMIT_NOFILE, %d)", n);
}

/* The connecting side; returns the exit status. */
static int child(int n, __u16 node, __u16 port)
{
	struct scif_port_id dst = { .node = node, .port = port };
	scif_epd_t *e = calloc(n, sizeof(*e));
	int i, v;

	for (i = 0; i < n; i++) {
		e[i] = scif_open();
		if (e[i] < 0 || scif_connect(e[i], &dst) < 0) {
			printf("# connector: connection %d: %s\n", i, strerror(errno));
			return 1;
		}
		if (scif_send(e[i], &i, sizeof(i), SCIF_SEND_BLOCK) != sizeof(i))
			return 2;
	}
	/* Every connection answers with its index plus n. */
	for (i = 0; i < n; i++) {
		if (scif_recv(e[i], &v, sizeof(v), SCIF_RECV_BLOCK) != sizeof(v) ||
		    v != i + n) {
			printf("# connector: bad answer on %d\n", i);
			return 3;
		}
	}
	for (i = 0; i < n; i++)
		scif_close(e[i]);
	free(e);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	scif_epd_t l, *e;
	struct scif_port_id peer;
	struct scif_pollepd *p;
	__u16 port;
	int i, v, ok_data = 1, status, ready;
	pid_t pid;

	raise_nofile(2 * n + 64);
	l = make_listener(n, &port);
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (pid == 0)
		_exit(child(n, local_node(), port));

	e = calloc(n, sizeof(*e));
	p = calloc(n, sizeof(*p));
	for (i = 0; i < n; i++) {
		if (scif_accept(l, &peer, &e[i], SCIF_ACCEPT_SYNC) < 0)
			break;
	}
	tap_ok(i == n, "accepted %d of %d connections", i, n);
	if (i != n) {
		kill(pid, SIGKILL);
		return tap_done();
	}

	/* All are open at once; wait until every one has its index queued. */
	for (i = 0; i < n; i++) {
		p[i].epd = e[i];
		p[i].events = POLLIN;
	}
	do {
		ready = scif_poll(p, n, 10000);
	} while (ready > 0 && ready < n);
	tap_ok(ready == n, "scif_poll sees all %d endpoints readable (%d)", n,
	       ready);

	for (i = 0; i < n; i++) {
		if (scif_recv(e[i], &v, sizeof(v), SCIF_RECV_BLOCK) != sizeof(v))
			ok_data = 0;
		/* Connections are accepted in the order they were made. */
		if (v != i)
			ok_data = 0;
		v = i + n;
		if (scif_send(e[i], &v, sizeof(v), SCIF_SEND_BLOCK) != sizeof(v))
			ok_data = 0;
	}
	tap_ok(ok_data, "each of %d connections carries its own data", n);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the connecting process saw every answer (status %#x)", status);
	for (i = 0; i < n; i++)
		scif_close(e[i]);
	scif_close(l);
	free(e);
	free(p);
	return tap_done();
}
