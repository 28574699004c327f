/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the userspace SCIF test and benchmark programs,
 * whether they print TAP (those include scif_test.h, which includes this)
 * or not. Nothing here keeps state, so a program may use any subset.
 *
 * The helpers below leave reporting a failure to their caller, except
 * die() and dial_or_die(): those exist only in a program that defines
 * PROG_NAME, the prefix of their messages, before including this header.
 */
#ifndef SCIF_UTIL_H
#define SCIF_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "scif.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * SCIF_SEND or SCIF_RECV (@req) as the raw request: the driver's own
 * handling of @buf, which libscif's mapped stream otherwise bypasses by
 * copying itself (an unreadable buffer then faults in the process).
 * Returns what scif_send() and scif_recv() return.
 */
static inline int raw_msg(scif_epd_t e, unsigned long req, void *buf,
			  int len, int flags)
{
	struct scifioctl_msg m;

	memset(&m, 0, sizeof(m));
	m.msg = (uintptr_t)buf;
	m.len = len;
	m.flags = flags;
	return ioctl(e, req, &m) < 0 ? -1 : m.out_len;
}

/* Seconds on the monotonic clock. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Timed streams per benchmark row; the row shows the fastest, as the rig's
 * limits it is compared with (ntb_ivshmem_bench) are the best of three.
 */
#define STREAM_TRIES	3

/*
 * Bytes of a benchmark stream of @size-byte sends. With @secs 0: the short
 * first run (2048 sends below 4 KiB, 256 from there on). Otherwise @secs
 * is what that first run took, and the result about 1 / STREAM_TRIES of a
 * second's worth at its rate: a whole number of sends, from the first
 * run's length up to 1 GiB.
 */
static inline __u64 stream_length(int size, double secs)
{
	__u64 first = (__u64)size * (size < 4096 ? 2048 : 256);
	double per_try;

	if (!(secs > 0))
		return first;
	per_try = first / secs / STREAM_TRIES;
	if (per_try > (double)(1ULL << 30))
		per_try = (double)(1ULL << 30);
	if (per_try < first)
		return first;
	return (__u64)per_try / size * size;
}

/* One step of the xorshift64 generator; *@s must not be 0. */
static inline __u64 xorshift64(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A random RMA length from rand(): a quarter of the time at most 64 bytes,
 * a quarter at most one page of @page bytes, otherwise at most @max bytes.
 */
static inline size_t random_len(long page, size_t max)
{
	switch (rand() % 4) {
	case 0:
		return 1 + rand() % 64;
	case 1:
		return 1 + rand() % page;
	default:
		return 1 + (size_t)rand() % max;
	}
}

/* VmPin of this process in kB, from /proc/self/status; -1 if unknown. */
static inline long vm_pin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Call @get every 10 ms, for up to 5 s, until it returns @want (pages are
 * often unpinned a little after the call that releases them). Returns the
 * last value read.
 */
static inline long settles(long (*get)(void), long want)
{
	long v = get();
	int i;

	for (i = 0; i < 500 && v != want; i++) {
		usleep(10000);
		v = get();
	}
	return v;
}

/* Wait up to 5 s for VmPin to reach @kb. */
static inline long vm_pin_settles(long kb)
{
	return settles(vm_pin_kb, kb);
}

/*
 * Connect a new endpoint to @node:@port. As long as the peer is not
 * listening yet (ECONNREFUSED) or its node is not up yet (ENODEV), try
 * again every 200 ms until @seconds have passed. Returns the endpoint, or
 * SCIF_OPEN_FAILED with errno set and *@what naming the call that failed.
 */
static inline scif_epd_t dial_retry(__u16 node, __u16 port, int seconds,
				    const char **what)
{
	struct scif_port_id dst = { .node = node, .port = port };
	double end = now() + seconds;
	scif_epd_t epd;

	for (;;) {
		epd = scif_open();
		if (epd == SCIF_OPEN_FAILED) {
			*what = "scif_open";
			return SCIF_OPEN_FAILED;
		}
		if (scif_connect(epd, &dst) >= 0)
			return epd;
		if ((errno != ECONNREFUSED && errno != ENODEV) || now() > end) {
			int err = errno;

			scif_close(epd);
			errno = err;
			*what = "scif_connect";
			return SCIF_OPEN_FAILED;
		}
		scif_close(epd);
		usleep(200000);
	}
}

#ifdef PROG_NAME
/* Report the failed call @what with errno on stderr and exit 1. */
static inline void die(const char *what)
{
	fprintf(stderr, PROG_NAME ": %s: %s\n", what, strerror(errno));
	exit(1);
}

/* dial_retry(), exiting through die() when it fails. */
static inline scif_epd_t dial_or_die(__u16 node, __u16 port, int seconds)
{
	const char *what;
	scif_epd_t epd = dial_retry(node, port, seconds, &what);

	if (epd == SCIF_OPEN_FAILED)
		die(what);
	return epd;
}
#endif

/* One of ntb_ivshmem's module parameters, in ms; -1 if it cannot be read. */
static inline long ntb_ivshmem_param_ms(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ntb_ivshmem/parameters/%s",
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * A bound in seconds on how long the loss of a node may take to notice.
 * "S" is S seconds as given; "+S" is the emulated NTB's own delay, its
 * hb_timeout_ms plus one hb_period_ms as the loaded module has them, plus
 * S seconds. Returns -1 for "+S" when the parameters cannot be read.
 */
static inline double loss_bound_s(const char *arg)
{
	long timeout, period;

	if (arg[0] != '+')
		return atof(arg);
	timeout = ntb_ivshmem_param_ms("hb_timeout_ms");
	period = ntb_ivshmem_param_ms("hb_period_ms");
	if (timeout < 0 || period < 0)
		return -1;
	return (timeout + period) / 1000.0 + atof(arg + 1);
}

#endif /* SCIF_UTIL_H */
