/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SCIF examples, written the way programs for Intel's
 * MPSS were: node 0 plays the host and listens, any other node plays a card
 * and connects to node 0. Only <scif.h> and the C library are used.
 */
#ifndef SCIF_EXAMPLE_H
#define SCIF_EXAMPLE_H

#include <scif.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every example uses its own port, above SCIF_PORT_RSVD, by default. */
#define EXAMPLE_PORT_BASE	(SCIF_PORT_RSVD + 900)

/* How long a card keeps trying while the host is still starting up. */
#define CONNECT_SECONDS		60

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(1);
}

static inline void fail(const char *what)
{
	fprintf(stderr, "%s\n", what);
	exit(1);
}

/*
 * Which part to play: "host" or "card" on the command line, else decided
 * by the local node id (node 0 is the host). Returns 1 for the host.
 */
static inline int is_host(int argc, char **argv)
{
	uint16_t nodes[32], self;

	if (argc > 1 && !strcmp(argv[1], "host"))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "card"))
		return 0;
	if (argc > 1)
		fail("usage: PROGRAM [host|card]");
	if (scif_get_nodeIDs(nodes, 32, &self) < 0)
		die("scif_get_nodeIDs");
	return self == 0;
}

/* The host: one endpoint listening on @port, and the first connection. */
static inline scif_epd_t host_accept(uint16_t port, portID_t *peer)
{
	scif_epd_t lep, epd;

	lep = scif_open();
	if (lep == SCIF_OPEN_FAILED)
		die("scif_open");
	if (scif_bind(lep, port) != port)
		die("scif_bind");
	if (scif_listen(lep, 1) < 0)
		die("scif_listen");
	if (scif_accept(lep, peer, &epd, SCIF_ACCEPT_SYNC) < 0)
		die("scif_accept");
	scif_close(lep);
	return epd;
}

/* A card: connect to @port of node 0, retrying while nobody listens yet. */
static inline scif_epd_t card_connect(uint16_t port)
{
	struct scif_portID host = { 0, 0 };
	time_t end = time(NULL) + CONNECT_SECONDS;
	scif_epd_t epd;

	host.port = port;
	for (;;) {
		epd = scif_open();
		if (epd == SCIF_OPEN_FAILED)
			die("scif_open");
		if (scif_connect(epd, &host) >= 0)
			return epd;
		if ((errno != ECONNREFUSED && errno != ENODEV) ||
		    time(NULL) > end)
			die("scif_connect");
		scif_close(epd);
		usleep(200 * 1000);
	}
}

/* Send or receive exactly @len bytes, or end the program. */
static inline void send_all(scif_epd_t epd, void *buf, int len)
{
	if (scif_send(epd, buf, len, SCIF_SEND_BLOCK) != len)
		die("scif_send");
}

static inline void recv_all(scif_epd_t epd, void *buf, int len)
{
	if (scif_recv(epd, buf, len, SCIF_RECV_BLOCK) != len)
		die("scif_recv");
}

/*
 * End a connection cleanly: each side says it is done with the connection
 * (its windows unregistered, its mappings gone) and waits for the other to
 * say the same before closing, so that neither sees the other's close as
 * ECONNRESET in the middle of its own clean-up.
 */
static inline void goodbye(scif_epd_t epd)
{
	char c = 0;

	send_all(epd, &c, 1);
	recv_all(epd, &c, 1);
	scif_close(epd);
}

/* Page-aligned memory for windows: @pages pages, zeroed. */
static inline void *alloc_pages(size_t pages)
{
	void *p;

	if (posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE),
			   pages * (size_t)sysconf(_SC_PAGESIZE)))
		fail("out of memory");
	memset(p, 0, pages * (size_t)sysconf(_SC_PAGESIZE));
	return p;
}

/* A recognisable byte pattern, and a check of memory against it. */
static inline void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + seed);
}

static inline int same(const unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(i * 7 + seed))
			return 0;
	return 1;
}

#endif /* SCIF_EXAMPLE_H */
