// SPDX-License-Identifier: GPL-2.0
/*
 * Measurement, not a test: what SCIF_FENCE_INIT_PEER marks that are never
 * waited for cost the rest of the process. On the loopback node, one pair
 * of endpoints takes marks in steps; after each step the program times an
 * 8-byte send/recv round trip on a second, unrelated pair and prints the
 * kernel's slab usage. Marks refused (the endpoint's cap) are counted.
 *
 * Built by make -C tools as a guest program (copied into every test guest):
 *
 *   scripts/rig/cluster -n 1 -- scif-fence-marks-bench
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "scif_test.h"

#define ROUND_TRIPS	500

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The slab caches with the most objects in use. */
static void show_slabs(void)
{
	char line[256], name[64];
	long active;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &active) == 2 &&
		    active > 20000)
			printf("slab %-24s %ld objects\n", name, active);
	fclose(f);
}

/* Mean of ROUND_TRIPS 8-byte round trips from @c to @d and back, in us. */
static double round_trip(scif_epd_t c, scif_epd_t d)
{
	unsigned long long v = 0;
	double t0 = now_us();
	int i;

	for (i = 0; i < ROUND_TRIPS; i++) {
		if (scif_send(c, &v, 8, SCIF_SEND_BLOCK) != 8 ||
		    scif_recv(d, &v, 8, SCIF_RECV_BLOCK) != 8 ||
		    scif_send(d, &v, 8, SCIF_SEND_BLOCK) != 8 ||
		    scif_recv(c, &v, 8, SCIF_RECV_BLOCK) != 8)
			bail("round trip");
		v++;
	}
	return (now_us() - t0) / ROUND_TRIPS;
}

int main(void)
{
	static const int steps[] = { 0, 1000, 4000, 8000, 16000, 24000 };
	scif_epd_t a, b, c, d;
	long slab0;
	int taken = 0, refused = 0, err = 0;
	unsigned int i;

	make_pair(&a, &b);
	make_pair(&c, &d);
	round_trip(c, d);
	slab0 = slab_kb();
	printf("%8s %8s %10s %12s %14s %14s\n", "marks", "refused",
	       "mark us", "slab kB", "round trip us", "after 3 s");
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		double t0 = now_us(), per;
		int n = 0, mark;

		while (taken + refused < steps[i]) {
			if (scif_fence_mark(a, SCIF_FENCE_INIT_PEER, &mark) < 0) {
				refused++;
				err = errno;
			} else {
				taken++;
			}
			n++;
		}
		per = n ? (now_us() - t0) / n : 0;
		/* Let the answers to the marks arrive before timing. */
		usleep(200000);
		printf("%8d %8d %10.1f %+12ld %14.1f", taken, refused, per,
		       slab_kb() - slab0, round_trip(c, d));
		/* Anything still catching up has had time to. */
		sleep(3);
		printf(" %14.1f\n", round_trip(c, d));
		fflush(stdout);
	}
	if (refused)
		printf("marks refused with: %s\n", strerror(err));
	show_slabs();
	scif_close(a);
	scif_close(b);
	printf("marking pair closed: round trip %.1f us\n", round_trip(c, d));
	scif_close(c);
	scif_close(d);
	return 0;
}
