// SPDX-License-Identifier: GPL-2.0
/*
 * rma: remote memory access between registered windows. Both sides
 * register four pages and tell each other the offsets. The card reads the
 * host's window (scif_readfrom), writes two pages of its own window into
 * the host's (scif_writeto), writes a plain buffer into the host's last
 * page (scif_vwriteto) and reads it back (scif_vreadfrom). The host then
 * checks its memory: every copy ran without the host's CPU taking part.
 *
 *   rma [host|card]
 */
#include "example.h"

#define PORT	(EXAMPLE_PORT_BASE + 2)
#define PAGES	4
#define RW	(SCIF_PROT_READ | SCIF_PROT_WRITE)

enum { HOST_SEED = 11, CARD_SEED = 23, V_SEED = 37 };

int main(int argc, char **argv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = PAGES * pg;
	unsigned char *buf = alloc_pages(PAGES), *v = alloc_pages(1);
	int host = is_host(argc, argv);
	off_t mine, theirs;
	portID_t peer;
	scif_epd_t epd;
	char done;

	epd = host ? host_accept(PORT, &peer) : card_connect(PORT);
	fill(buf, len, host ? HOST_SEED : CARD_SEED);
	/* Offset 0: let the driver choose where the window goes. */
	mine = scif_register(epd, buf, len, 0, RW, 0);
	if (mine == SCIF_REGISTER_FAILED)
		die("scif_register");
	send_all(epd, &mine, sizeof(mine));
	recv_all(epd, &theirs, sizeof(theirs));

	if (!host) {
		/* The host's four pages into ours. */
		if (scif_readfrom(epd, mine, len, theirs, SCIF_RMA_SYNC) < 0)
			die("scif_readfrom");
		if (!same(buf, len, HOST_SEED))
			fail("card: scif_readfrom brought the wrong bytes");
		/* Our first two pages, refilled, over the host's. */
		fill(buf, 2 * pg, CARD_SEED);
		if (scif_writeto(epd, mine, 2 * pg, theirs, SCIF_RMA_SYNC) < 0)
			die("scif_writeto");
		/* An unregistered buffer into the host's last page... */
		fill(v, pg, V_SEED);
		if (scif_vwriteto(epd, v, pg, theirs + 3 * pg,
				  SCIF_RMA_SYNC | SCIF_RMA_USECPU) < 0)
			die("scif_vwriteto");
		/* ...and back again. */
		memset(v, 0, pg);
		if (scif_vreadfrom(epd, v, pg, theirs + 3 * pg, SCIF_RMA_SYNC) < 0)
			die("scif_vreadfrom");
		if (!same(v, pg, V_SEED))
			fail("card: scif_vreadfrom brought the wrong bytes");
		done = 1;
		send_all(epd, &done, 1);
		recv_all(epd, &done, 1);
	} else {
		recv_all(epd, &done, 1);
		if (!same(buf, 2 * pg, CARD_SEED))
			fail("host: pages 0-1 do not hold the card's writeto");
		if (!same(buf + 2 * pg, pg, (unsigned int)(HOST_SEED + 2 * pg * 7)))
			fail("host: page 2 changed although nobody wrote it");
		if (!same(buf + 3 * pg, pg, V_SEED))
			fail("host: page 3 does not hold the card's vwriteto");
		send_all(epd, &done, 1);
	}
	if (scif_unregister(epd, mine, len) < 0)
		die("scif_unregister");
	goodbye(epd);
	printf("%s: readfrom, writeto, vwriteto and vreadfrom checked\n",
	       host ? "host" : "card");
	return 0;
}
