// SPDX-License-Identifier: GPL-2.0
/*
 * mmap: the card maps the host's registered window into its own address
 * space (scif_mmap) and works on it with plain loads and stores: it checks
 * what the host put in page 0 and writes page 1, which the host then finds
 * in its own memory. The host unregisters its window while the card
 * still has it mapped: the window stays until the card unmaps it.
 *
 *   mmap [host|card]
 */
#include "example.h"

#define PORT	(EXAMPLE_PORT_BASE + 3)
#define PAGES	2

enum { HOST_SEED = 5, CARD_SEED = 99 };

int main(int argc, char **argv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = PAGES * pg;
	int host = is_host(argc, argv);
	unsigned char *buf, *map;
	portID_t peer;
	scif_epd_t epd;
	off_t off;
	char done;

	epd = host ? host_accept(PORT, &peer) : card_connect(PORT);
	if (host) {
		buf = alloc_pages(PAGES);
		fill(buf, pg, HOST_SEED);
		off = scif_register(epd, buf, len, 0,
				    SCIF_PROT_READ | SCIF_PROT_WRITE, 0);
		if (off == SCIF_REGISTER_FAILED)
			die("scif_register");
		send_all(epd, &off, sizeof(off));
		recv_all(epd, &done, 1);
		if (!same(buf + pg, pg, CARD_SEED))
			fail("host: page 1 does not hold the card's stores");
		if (scif_unregister(epd, off, len) < 0)
			die("scif_unregister");
	} else {
		recv_all(epd, &off, sizeof(off));
		map = (unsigned char *)scif_mmap(NULL, len,
						 SCIF_PROT_READ | SCIF_PROT_WRITE,
						 0, epd, off);
		if (map == SCIF_MMAP_FAILED)
			die("scif_mmap");
		if (!same(map, pg, HOST_SEED))
			fail("card: the mapping does not show the host's page 0");
		fill(map + pg, pg, CARD_SEED);
		done = 1;
		send_all(epd, &done, 1);
		if (scif_munmap(map, len) < 0)
			die("scif_munmap");
	}
	goodbye(epd);
	printf("%s: the peer's window mapped, read and written\n",
	       host ? "host" : "card");
	return 0;
}
