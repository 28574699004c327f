// SPDX-License-Identifier: LGPL-2.1
/*
 * Connections between endpoints, made on demand: the first transmit to a
 * peer connects without blocking, the progress engine accepts the peers'
 * connections. Both sides open their memory regions on a new connection,
 * then send HELLO (with their listening address, which the accepting side
 * needs to know who is talking); nothing else is sent before the peer's
 * HELLO arrived, so the peer's windows exist when an RMA starts.
 *
 * Each endpoint sends to a peer on one connection only, chosen once, so
 * what it sends to that peer arrives in order. It receives on all of them.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "scif_fi.h"

static struct sfi_conn *conn_new(struct sfi_ep *ep, scif_epd_t epd)
{
	struct sfi_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ep = ep;
	c->epd = epd;
	sfi_list_init(&c->txq);
	sfi_list_init(&c->rv_wait);
	sfi_list_init(&c->rv_in);
	sfi_list_add_tail(&ep->conns, &c->link);
	return c;
}

static int queue_hello(struct sfi_conn *c)
{
	struct sfi_tx *tx = calloc(1, sizeof(*tx));

	if (!tx)
		return -FI_ENOMEM;
	tx->kind = SFI_TX_FRAME;
	tx->hdr.op = SFI_OP_HELLO;
	tx->hdr.tag = (uint64_t)c->ep->addr.node << 16 | c->ep->addr.port;
	/* ahead of the transmits queued while connecting */
	sfi_list_add_head(&c->txq, &tx->link);
	return 0;
}

/* The connection is up: open the regions on it and greet the peer. */
static void conn_established(struct sfi_conn *c)
{
	int fd = scif_get_fd(c->epd), ret;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	c->state = SFI_OPEN;
	ret = sfi_mr_register_all(c->ep->dom, c);
	if (!ret)
		ret = queue_hello(c);
	if (ret)
		sfi_conn_fail(c, ret);
}

/* Fail everything waiting on @c and close it; the struct stays listed. */
void sfi_conn_fail(struct sfi_conn *c, int err)
{
	struct sfi_ep *ep = c->ep;
	struct sfi_list *pos, *tmp;

	if (c->state == SFI_DEAD)
		return;
	if (err > 0)
		err = -err;
	if (!err)
		err = -FI_EIO;
	c->state = SFI_DEAD;
	scif_close(c->epd);
	c->epd = -1;
	sfi_list_each(pos, tmp, &c->txq) {
		sfi_list_del(pos);
		sfi_tx_complete(ep, sfi_of(pos, struct sfi_tx, link), err);
	}
	sfi_list_each(pos, tmp, &c->rv_wait) {
		sfi_list_del(pos);
		sfi_tx_complete(ep, sfi_of(pos, struct sfi_tx, link), err);
	}
	sfi_rvin_fail(c, err);
	sfi_stage_free(c);
	if (c->rx_req)
		sfi_rx_complete(ep, c->rx_req, &c->rxh, &c->peer, 0, err);
	c->rx_req = NULL;
	if (c->rx_unexp)
		sfi_unexp_free(c->rx_unexp);
	c->rx_unexp = NULL;
}

/* Endpoint teardown: drop the connection without completing anything. */
void sfi_conn_close(struct sfi_conn *c)
{
	struct sfi_list *pos, *tmp;

	sfi_rvin_fail(c, 0);
	sfi_stage_free(c);
	if (c->state != SFI_DEAD)
		scif_close(c->epd);
	sfi_list_each(pos, tmp, &c->txq) {
		struct sfi_tx *tx = sfi_of(pos, struct sfi_tx, link);

		free(tx->bounce);
		free(tx);
	}
	sfi_list_each(pos, tmp, &c->rv_wait)
		free(sfi_of(pos, struct sfi_tx, link));
	free(c->rx_req);
	if (c->rx_unexp)
		sfi_unexp_free(c->rx_unexp);
	sfi_list_del(&c->link);
	free(c);
}

/* The connection that transmits to @addr go on, made if need be. */
struct sfi_conn *sfi_conn_to(struct sfi_ep *ep, fi_addr_t addr, int *err)
{
	struct sfi_list *pos, *tmp;
	struct scif_port_id id;
	struct sfi_conn *c, *known = NULL;
	scif_epd_t epd;
	int fd;

	if (sfi_av_get(ep->av, addr, &id)) {
		*err = -FI_EINVAL;
		return NULL;
	}
	sfi_list_each(pos, tmp, &ep->conns) {
		c = sfi_of(pos, struct sfi_conn, link);
		if (c->state == SFI_DEAD || !c->peer_known ||
		    !sfi_same_port(&c->peer, &id))
			continue;
		if (c->tx_chosen)
			return c;
		if (!known)
			known = c;
	}
	if (known) {
		/* the peer connected to us first: answer on its connection */
		known->tx_chosen = 1;
		return known;
	}
	epd = scif_open();
	if (epd == SCIF_OPEN_FAILED) {
		*err = -errno;
		return NULL;
	}
	fd = scif_get_fd(epd);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	c = conn_new(ep, epd);
	if (!c) {
		scif_close(epd);
		*err = -FI_ENOMEM;
		return NULL;
	}
	c->initiated = 1;
	c->peer = id;
	c->peer_known = 1;
	c->tx_chosen = 1;
	c->state = SFI_CONNECTING;
	if (scif_connect(epd, &id) >= 0)
		conn_established(c);
	else if (errno != EINPROGRESS)
		sfi_conn_fail(c, errno);
	return c;
}

void sfi_conn_accept_all(struct sfi_ep *ep)
{
	struct scif_port_id peer;
	struct sfi_conn *c;
	struct pollfd p = { scif_get_fd(ep->lep), POLLIN, 0 };
	scif_epd_t epd;

	/* scif_accept() opens a file before it asks: look first */
	if (poll(&p, 1, 0) <= 0)
		return;
	while (scif_accept(ep->lep, &peer, &epd, 0) == 0) {
		c = conn_new(ep, epd);
		if (!c) {
			scif_close(epd);
			continue;
		}
		/* peer holds the connecting port until HELLO names the listener */
		c->peer = peer;
		conn_established(c);
	}
}

static int send_some(struct sfi_conn *c, const void *p, size_t len)
{
	int n = scif_send(c->epd, (void *)p, len > 1 << 30 ? 1 << 30 : (int)len,
			  0);

	if (n < 0)
		sfi_conn_fail(c, errno);
	return n;
}

/* Open the window a rendezvous send is read from. */
static int rv_open(struct sfi_conn *c, struct sfi_tx *tx)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)tx->buf, pages = start & ~(pg - 1);
	size_t span = ((start + tx->hdr.len + pg - 1) & ~(pg - 1)) - pages;
	off_t off;

	if (c->rv_next + span > SFI_RV_SPACE_END)
		c->rv_next = 0;
	off = scif_register(c->epd, (void *)pages, span, (off_t)c->rv_next,
			    SCIF_PROT_READ, SCIF_MAP_FIXED);
	if (off == SCIF_REGISTER_FAILED && errno == EADDRINUSE)
		off = scif_register(c->epd, (void *)pages, span, 0,
				    SCIF_PROT_READ, 0);
	if (off == SCIF_REGISTER_FAILED)
		return -errno;
	c->rv_next = (uint64_t)off + span;
	tx->roff = (uint64_t)off;
	tx->rv_span = span;
	tx->hdr.roff = (uint64_t)off + (start - pages);
	tx->hdr.id = ++c->rv_id;
	return 0;
}

/* Push the queued transmits into the stream, as far as it takes them. */
static void tx_queue_run(struct sfi_conn *c)
{
	const size_t hl = sizeof(struct sfi_hdr);
	struct sfi_tx *tx;
	int n, err;

	while (c->state == SFI_OPEN && !sfi_list_empty(&c->txq)) {
		tx = sfi_of(c->txq.next, struct sfi_tx, link);
		if (tx->hdr.op != SFI_OP_HELLO && !c->peer_ready)
			return;
		if (tx->kind != SFI_TX_FRAME) {
			err = sfi_tx_rma_run(c, tx);
			if (!err && tx->hdr.flags & SFI_HF_DATA) {
				/* then tell the target, with the data */
				tx->kind = SFI_TX_FRAME;
				tx->hdr.op = SFI_OP_WDATA;
				tx->len = 0;
				continue;
			}
			sfi_list_del(&tx->link);
			sfi_tx_complete(c->ep, tx, err);
			continue;
		}
		if (!tx->started && tx->hdr.op == SFI_OP_RTS) {
			err = sfi_stage_begin(c, tx);
			if (err)
				err = rv_open(c, tx);
			if (err) {
				sfi_list_del(&tx->link);
				sfi_tx_complete(c->ep, tx, err);
				continue;
			}
		}
		tx->started = 1;
		while (tx->done < hl + tx->len) {
			if (tx->done < hl)
				n = send_some(c, (char *)&tx->hdr + tx->done,
					      hl - tx->done);
			else
				n = send_some(c, (const char *)tx->buf +
					      (tx->done - hl),
					      tx->len - (tx->done - hl));
			if (n <= 0)
				return;
			tx->done += (size_t)n;
		}
		sfi_list_del(&tx->link);
		if (tx->hdr.op == SFI_OP_RTS)
			sfi_list_add_tail(&c->rv_wait, &tx->link);
		else
			sfi_tx_complete(c->ep, tx, 0);
	}
}

/*
 * Send what is queued, then stage the next chunk of a large send and
 * send its announcement at once, one chunk at a time: the receiver starts
 * reading the first chunk while the next one is copied.
 */
void sfi_conn_flush(struct sfi_conn *c)
{
	do {
		tx_queue_run(c);
		if (c->state != SFI_OPEN || !sfi_list_empty(&c->txq))
			return;
	} while (sfi_stage_pump(c));
}

void sfi_conn_progress(struct sfi_conn *c)
{
	struct pollfd p;

	if (c->state == SFI_CONNECTING) {
		p.fd = scif_get_fd(c->epd);
		p.events = POLLOUT;
		p.revents = 0;
		if (poll(&p, 1, 0) <= 0)
			return;
		if (scif_connect(c->epd, &c->peer) >= 0 || errno == EISCONN)
			conn_established(c);
		else if (errno != EALREADY && errno != EINPROGRESS)
			sfi_conn_fail(c, errno);
		if (c->state != SFI_OPEN)
			return;
	}
	if (c->state != SFI_OPEN)
		return;
	sfi_conn_flush(c);
	sfi_conn_receive(c);
	sfi_conn_flush(c);
}

/* Queue an internal frame (FIN) carrying header @h. */
int sfi_conn_frame(struct sfi_conn *c, const struct sfi_hdr *h)
{
	struct sfi_tx *tx = calloc(1, sizeof(*tx));

	if (!tx)
		return -FI_ENOMEM;
	tx->kind = SFI_TX_FRAME;
	tx->hdr = *h;
	sfi_list_add_tail(&c->txq, &tx->link);
	return 0;
}
