// SPDX-License-Identifier: GPL-2.0
/*
 * nbconnect: connecting without blocking. The card sets O_NONBLOCK on the
 * endpoint's file descriptor (scif_get_fd + fcntl), so scif_connect()
 * returns at once with EINPROGRESS; poll() on the descriptor reports
 * POLLOUT when the attempt is over, and a second scif_connect() says how
 * it went. It does this twice: to a port nobody listens on (refused) and
 * to the host (accepted).
 *
 *   nbconnect [host|card]
 */
#include "example.h"

#include <fcntl.h>

#define PORT	(EXAMPLE_PORT_BASE + 6)
/* Nobody listens here. */
#define DEAD_PORT	(EXAMPLE_PORT_BASE + 7)

/*
 * One non-blocking connection attempt to @port of node 0. Returns what the
 * second scif_connect() returned, with errno set when that is -1.
 */
static int try_connect(scif_epd_t epd, uint16_t port)
{
	struct scif_portID host = { 0, 0 };
	struct pollfd pfd;
	int fd = scif_get_fd(epd), flags, ret, err;

	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		die("fcntl");
	host.port = port;
	ret = scif_connect(epd, &host);
	if (ret < 0) {
		if (errno != EINPROGRESS)
			die("scif_connect");
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, 30 * 1000) != 1)
			fail("card: the connection attempt did not finish in 30 s");
		ret = scif_connect(epd, &host);
	}
	/* Back to blocking mode for the SCIF_SEND_BLOCK/RECV_BLOCK calls. */
	err = errno;
	if (fcntl(fd, F_SETFL, flags) < 0)
		die("fcntl");
	errno = err;
	return ret;
}

int main(int argc, char **argv)
{
	int h = is_host(argc, argv), i;
	portID_t peer;
	scif_epd_t epd;
	char c = 0;

	if (h) {
		epd = host_accept(PORT, &peer);
		recv_all(epd, &c, 1);
		send_all(epd, &c, 1);
		scif_close(epd);
		printf("host: a non-blocking connection accepted\n");
		return 0;
	}

	epd = scif_open();
	if (epd == SCIF_OPEN_FAILED)
		die("scif_open");
	if (try_connect(epd, DEAD_PORT) != -1 || errno != ECONNREFUSED)
		fail("card: a connection to a dead port was not refused");
	scif_close(epd);

	/* The host may still be starting: retry while refused. */
	for (i = 0;; i++) {
		epd = scif_open();
		if (epd == SCIF_OPEN_FAILED)
			die("scif_open");
		if (try_connect(epd, PORT) >= 0)
			break;
		if (errno != ECONNREFUSED || i == CONNECT_SECONDS * 5)
			die("scif_connect (second call)");
		scif_close(epd);
		usleep(200 * 1000);
	}
	send_all(epd, &c, 1);
	recv_all(epd, &c, 1);
	scif_close(epd);
	printf("card: refused and accepted non-blocking connections\n");
	return 0;
}
