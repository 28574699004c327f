// SPDX-License-Identifier: GPL-2.0
/*
 * scif-stream-test [MiB] [chunk]: stream MiB mebibytes (default 1024) from a
 * child process to its parent over one loopback connection, in chunks of
 * chunk bytes (default 65536) with blocking send and receive. The data is a
 * seeded pseudo-random sequence: the receiver checks every byte and both
 * sides compare a 64-bit checksum at the end.
 */
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scif_test.h"

static void fill(__u64 *buf, size_t words, __u64 *state)
{
	size_t i;

	for (i = 0; i < words; i++)
		buf[i] = xorshift64(state);
}

static __u64 mix(__u64 sum, const __u64 *buf, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		sum = (sum ^ buf[i]) * 0x100000001b3ull;
	return sum;
}

static int sender(scif_epd_t e, __u64 total, int chunk)
{
	__u64 *buf = malloc(chunk), state = 0x5c1f5c1f, sum = 0, done;

	for (done = 0; done < total; done += chunk) {
		fill(buf, chunk / 8, &state);
		sum = mix(sum, buf, chunk / 8);
		if (scif_send(e, buf, chunk, SCIF_SEND_BLOCK) != chunk) {
			printf("# sending side: send failed at %llu: %s\n",
			       (unsigned long long)done, strerror(errno));
			return 1;
		}
	}
	if (scif_send(e, &sum, sizeof(sum), SCIF_SEND_BLOCK) != sizeof(sum))
		return 1;
	/* Wait for the receiver's verdict before closing. */
	if (scif_recv(e, &sum, sizeof(sum), SCIF_RECV_BLOCK) != sizeof(sum))
		return 1;
	scif_close(e);
	return 0;
}

int main(int argc, char **argv)
{
	__u64 mib = argc > 1 ? strtoull(argv[1], NULL, 0) : 1024;
	int chunk = argc > 2 ? atoi(argv[2]) : 65536;
	__u64 total = mib << 20, state = 0x5c1f5c1f, sum = 0, theirs = 0;
	__u64 *buf, *want, done, bad = 0;
	scif_epd_t a, b;
	double t0, t;
	int status;
	pid_t pid;

	if (chunk < 8 || chunk % 8 || total % chunk)
		bail("chunk must be a multiple of 8 dividing the total");
	make_pair(&a, &b);
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (pid == 0) {
		scif_close(b);
		_exit(sender(a, total, chunk));
	}
	scif_close(a);

	buf = malloc(chunk);
	want = malloc(chunk);
	t0 = now();
	for (done = 0; done < total; done += chunk) {
		if (scif_recv(b, buf, chunk, SCIF_RECV_BLOCK) != chunk) {
			printf("# receive failed at %llu: %s\n",
			       (unsigned long long)done, strerror(errno));
			break;
		}
		fill(want, chunk / 8, &state);
		if (memcmp(buf, want, chunk))
			bad++;
		sum = mix(sum, buf, chunk / 8);
	}
	t = now() - t0;
	tap_ok(done == total, "received %llu of %llu bytes",
	       (unsigned long long)done, (unsigned long long)total);
	tap_ok(!bad, "every chunk holds the expected bytes (%llu bad)",
	       (unsigned long long)bad);
	EXPECT_EQ(scif_recv(b, &theirs, sizeof(theirs), SCIF_RECV_BLOCK),
		  sizeof(theirs));
	tap_ok(theirs == sum, "checksums agree (%016llx)",
	       (unsigned long long)sum);
	scif_send(b, &sum, sizeof(sum), SCIF_SEND_BLOCK);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the sender finished cleanly (status %#x)", status);
	printf("# %llu MiB in %.2f s: %.1f MiB/s (chunk %d)\n",
	       (unsigned long long)mib, t, mib / t, chunk);
	scif_close(b);
	free(buf);
	free(want);
	return tap_done();
}
