// SPDX-License-Identifier: GPL-2.0
/*
 * fence: waiting for asynchronous RMAs. The card starts copies into the
 * host's window without SCIF_RMA_SYNC, so they may still be running when
 * the calls return, and uses the two ways of learning when they are done:
 *
 *  1. scif_fence_mark() + scif_fence_wait() on its own side, then a
 *     message telling the host the data is there;
 *  2. scif_fence_signal(): once the copies are done, the driver itself
 *     writes a value into a word of the host's window, which the host
 *     watches in its own memory, with no message at all.
 *
 *   fence [host|card]
 */
#include "example.h"

#define PORT	(EXAMPLE_PORT_BASE + 4)
#define PAGES	8
#define RW	(SCIF_PROT_READ | SCIF_PROT_WRITE)
#define FLAG	0x5ca1ab1eULL

enum { SEED1 = 3, SEED2 = 77 };

int main(int argc, char **argv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = PAGES * pg;
	/* The data goes to pages 0..6 of the host; page 7 holds the flag. */
	size_t data = len - pg;
	unsigned char *buf = alloc_pages(PAGES);
	int host = is_host(argc, argv), mark, i;
	uint64_t *flag;
	off_t mine, theirs;
	portID_t peer;
	scif_epd_t epd;
	char done;

	epd = host ? host_accept(PORT, &peer) : card_connect(PORT);
	mine = scif_register(epd, buf, len, 0, RW, 0);
	if (mine == SCIF_REGISTER_FAILED)
		die("scif_register");
	send_all(epd, &mine, sizeof(mine));
	recv_all(epd, &theirs, sizeof(theirs));
	flag = (uint64_t *)(buf + data);

	if (!host) {
		/* 1: asynchronous copies, one page each, then mark and wait. */
		fill(buf, data, SEED1);
		for (i = 0; i < PAGES - 1; i++)
			if (scif_writeto(epd, mine + i * pg, pg,
					 theirs + i * pg, 0) < 0)
				die("scif_writeto");
		if (scif_fence_mark(epd, SCIF_FENCE_INIT_SELF, &mark) < 0)
			die("scif_fence_mark");
		if (scif_fence_wait(epd, mark) < 0)
			die("scif_fence_wait");
		done = 1;
		send_all(epd, &done, 1);
		recv_all(epd, &done, 1);

		/* 2: new data, then a signal into the host's flag word. */
		fill(buf, data, SEED2);
		if (scif_writeto(epd, mine, data, theirs, 0) < 0)
			die("scif_writeto");
		if (scif_fence_signal(epd, 0, 0, theirs + (off_t)data, FLAG,
				      SCIF_FENCE_INIT_SELF |
				      SCIF_SIGNAL_REMOTE) < 0)
			die("scif_fence_signal");
		recv_all(epd, &done, 1);
	} else {
		recv_all(epd, &done, 1);
		if (!same(buf, data, SEED1))
			fail("host: the data is not there after the fence");
		send_all(epd, &done, 1);
		/* No message this time: the flag says when the data is in. */
		for (i = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) != FLAG; i++) {
			if (i == 30 * 1000)
				fail("host: no signal within 30 s");
			usleep(1000);
		}
		if (!same(buf, data, SEED2))
			fail("host: the signal came before the data");
		send_all(epd, &done, 1);
	}
	if (scif_unregister(epd, mine, len) < 0)
		die("scif_unregister");
	goodbye(epd);
	printf("%s: fence mark/wait and fence signal checked\n",
	       host ? "host" : "card");
	return 0;
}
