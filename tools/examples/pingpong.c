// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: the card sends a counter, the host answers with the counter
 * plus one, a thousand times, over one connection (scif_send/scif_recv).
 *
 *   pingpong [host|card]      (node 0 is the host unless told otherwise)
 */
#include "example.h"

#define PORT	(EXAMPLE_PORT_BASE + 1)
#define ROUNDS	1000

int main(int argc, char **argv)
{
	portID_t peer;
	scif_epd_t epd;
	uint32_t n, i;
	int host = is_host(argc, argv);

	if (host) {
		epd = host_accept(PORT, &peer);
		printf("host: connection from node %u port %u\n", peer.node,
		       peer.port);
		for (i = 0; i < ROUNDS; i++) {
			recv_all(epd, &n, sizeof(n));
			if (n != 2 * i)
				fail("host: the card's counter is out of step");
			n++;
			send_all(epd, &n, sizeof(n));
		}
	} else {
		epd = card_connect(PORT);
		for (i = 0; i < ROUNDS; i++) {
			n = 2 * i;
			send_all(epd, &n, sizeof(n));
			recv_all(epd, &n, sizeof(n));
			if (n != 2 * i + 1)
				fail("card: the host's answer is wrong");
		}
	}
	/* The last word is ours: wait for the peer before closing. */
	n = 0;
	send_all(epd, &n, sizeof(n));
	recv_all(epd, &n, sizeof(n));
	scif_close(epd);
	printf("%s: %d round trips\n", host ? "host" : "card", ROUNDS);
	return 0;
}
