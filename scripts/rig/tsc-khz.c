// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print the host's time stamp counter rate in kHz.
 *
 * A TCG guest reads the host's counter when it executes RDTSC, so the
 * guest's TSC runs at this rate. scripts/rig/cluster hands the figure to
 * the guest kernel (tsc_early_khz=): a guest booted without ACPI has no
 * HPET or PM timer to calibrate against, and a PIT calibration on a busy
 * host fails often enough to leave the guest on the jiffies clocksource.
 *
 * The counter is sampled between two reads of CLOCK_MONOTONIC_RAW at the
 * start and the end of about 100 ms; of several tries, the sample with the
 * tightest bracket is kept at each end, so that a preemption between two
 * reads does not skew the figure. Prints nothing and exits 1 when the two
 * clocks disagree with themselves (no usable counter).
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

struct sample {
	unsigned long long tsc;
	long long ns;	/* midpoint of the bracket */
	long long width;	/* bracket width in ns */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct sample take(void)
{
	struct sample best = { .width = LLONG_MAX };
	int i;

	for (i = 0; i < 16; i++) {
		long long a = now_ns();
		unsigned long long t = __rdtsc();
		long long b = now_ns();

		if (b - a < best.width) {
			best.tsc = t;
			best.ns = a + (b - a) / 2;
			best.width = b - a;
		}
	}
	return best;
}

int main(void)
{
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
	struct sample s0, s1;
	long long ns;

	s0 = take();
	nanosleep(&pause, NULL);
	s1 = take();
	ns = s1.ns - s0.ns;
	if (ns <= 0 || s1.tsc <= s0.tsc)
		return 1;
	printf("%llu\n",
	       (s1.tsc - s0.tsc) * 1000000ULL / (unsigned long long)ns);
	return 0;
}
