// SPDX-License-Identifier: GPL-2.0
/*
 * poll: one host thread serving its endpoints with scif_poll(). The host
 * waits for the connection request on its listening endpoint (SCIF_POLLIN,
 * then a non-blocking scif_accept), sees that nothing is readable yet
 * (scif_poll times out), asks the card for data, waits for it with
 * SCIF_POLLIN, reads it without blocking, and finally sees SCIF_POLLHUP
 * when the card closes.
 *
 *   poll [host|card]
 */
#include "example.h"

#define PORT	(EXAMPLE_PORT_BASE + 5)

static const char msg[] = "data from the card";

static void run_host(void)
{
	struct scif_pollepd pe;
	scif_epd_t lep, epd;
	char buf[64] = "";
	portID_t peer;
	int n;

	lep = scif_open();
	if (lep == SCIF_OPEN_FAILED)
		die("scif_open");
	if (scif_bind(lep, PORT) < 0 || scif_listen(lep, 4) < 0)
		die("scif_bind/scif_listen");
	pe.epd = lep;
	pe.events = SCIF_POLLIN;
	n = scif_poll(&pe, 1, CONNECT_SECONDS * 1000);
	if (n < 0)
		die("scif_poll");
	if (n != 1 || !(pe.revents & SCIF_POLLIN))
		fail("host: no connection request within the time limit");
	/* Something is pending, so accepting without SCIF_ACCEPT_SYNC works. */
	if (scif_accept(lep, &peer, &epd, 0) < 0)
		die("scif_accept");
	scif_close(lep);

	/* The card sends only when asked: nothing to read for now. */
	pe.epd = epd;
	pe.events = SCIF_POLLIN | SCIF_POLLOUT;
	n = scif_poll(&pe, 1, 200);
	if (n != 1 || pe.revents != SCIF_POLLOUT)
		fail("host: a fresh connection should be writable, not readable");
	send_all(epd, buf, 1);

	pe.events = SCIF_POLLIN;
	n = scif_poll(&pe, 1, 30 * 1000);
	if (n != 1 || !(pe.revents & SCIF_POLLIN))
		fail("host: the card's data did not arrive");
	/* Readable: a receive without SCIF_RECV_BLOCK finds something. */
	n = scif_recv(epd, buf, sizeof(buf), 0);
	if (n <= 0)
		die("scif_recv");
	if (n < (int)sizeof(msg))
		recv_all(epd, buf + n, (int)sizeof(msg) - n);
	if (strcmp(buf, msg))
		fail("host: wrong data");
	send_all(epd, buf, 1);

	/* The card closes now; SCIF_POLLHUP needs no asking. */
	pe.events = 0;
	n = scif_poll(&pe, 1, 30 * 1000);
	if (n != 1 || !(pe.revents & SCIF_POLLHUP))
		fail("host: no SCIF_POLLHUP after the card closed");
	scif_close(epd);
}

static void run_card(void)
{
	scif_epd_t epd = card_connect(PORT);
	char c;

	recv_all(epd, &c, 1);
	usleep(300 * 1000);
	send_all(epd, (void *)msg, sizeof(msg));
	recv_all(epd, &c, 1);
	scif_close(epd);
}

int main(int argc, char **argv)
{
	int h = is_host(argc, argv);

	if (h)
		run_host();
	else
		run_card();
	printf("%s: scif_poll checked\n", h ? "host" : "card");
	return 0;
}
