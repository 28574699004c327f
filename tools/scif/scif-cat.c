// SPDX-License-Identifier: GPL-2.0
/*
 * scif-cat: netcat for SCIF.
 *
 *   scif-cat -l PORT        accept one connection on PORT of this node
 *   scif-cat NODE PORT      connect to PORT on NODE
 *
 * Either way, standard input is sent over the connection and what arrives
 * is written to standard output. The connecting side closes the connection
 * when its input ends; the listening side keeps printing until the peer
 * closes (SCIF has no half-close).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scif.h"

static void print_usage(void)
{
	fprintf(stderr, "usage: scif-cat -l PORT | scif-cat NODE PORT\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "scif-cat: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int parse_port(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*end || v < 0 || v > 65535)
		print_usage();
	return (int)v;
}

static int write_all(int fd, const char *buf, ssize_t len)
{
	ssize_t w;

	while (len > 0) {
		w = write(fd, buf, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		len -= w;
	}
	return 0;
}

/* Shuttle data until the peer goes away, or (if @close_on_eof) stdin ends. */
static int pump(scif_epd_t epd, int close_on_eof)
{
	struct pollfd p[2];
	char buf[65536];
	int n, in_open = 1;

	p[0].fd = scif_get_fd(epd);
	p[1].fd = STDIN_FILENO;
	for (;;) {
		p[0].events = POLLIN;
		p[1].events = in_open ? POLLIN : 0;
		if (poll(p, in_open ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = scif_recv(epd, buf, sizeof(buf), 0);
			if (n < 0) {
				if (errno == ECONNRESET)
					return 0;
				die("scif_recv");
			}
			if (n > 0 && write_all(STDOUT_FILENO, buf, n))
				die("write");
			if (n == 0 && (p[0].revents & POLLHUP))
				return 0;
		}
		if (in_open && (p[1].revents & (POLLIN | POLLHUP))) {
			ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));

			if (r < 0 && errno != EINTR)
				die("read");
			if (r == 0) {
				if (close_on_eof)
					return 0;
				in_open = 0;
			}
			if (r > 0 && scif_send(epd, buf, (int)r, SCIF_SEND_BLOCK) != r) {
				if (errno == ECONNRESET)
					return 0;
				die("scif_send");
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct scif_port_id peer;
	scif_epd_t epd, conn;
	int ret;

	if (argc != 3)
		print_usage();
	epd = scif_open();
	if (epd == SCIF_OPEN_FAILED)
		die("scif_open");
	if (!strcmp(argv[1], "-l")) {
		if (scif_bind(epd, (uint16_t)parse_port(argv[2])) < 0)
			die("scif_bind");
		if (scif_listen(epd, 1) < 0)
			die("scif_listen");
		if (scif_accept(epd, &peer, &conn, SCIF_ACCEPT_SYNC) < 0)
			die("scif_accept");
		scif_close(epd);
		fprintf(stderr, "scif-cat: connection from %u:%u\n",
			peer.node, peer.port);
		ret = pump(conn, 0);
		scif_close(conn);
		return ret;
	}
	peer.node = (uint16_t)parse_port(argv[1]);
	peer.port = (uint16_t)parse_port(argv[2]);
	if (scif_connect(epd, &peer) < 0)
		die("scif_connect");
	ret = pump(epd, 1);
	scif_close(epd);
	return ret;
}
