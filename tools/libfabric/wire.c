// SPDX-License-Identifier: LGPL-2.1
/*
 * The receiving side of a connection: frames are taken from the stream as
 * far as it has bytes, without waiting. An eager payload goes straight
 * into the matching posted receive, or into a buffer of its own that is
 * matched when complete. A rendezvous header is served at once if a
 * receive matches, else when one is posted: the data is read from the
 * sender's window and FIN lets the sender close it.
 */
#include <stdlib.h>
#include <string.h>

#include "scif_fi.h"

void sfi_unexp_free(struct sfi_unexp *u)
{
	struct sfi_hdr fin;

	if (u->rvin) {
		/* staged: the chunks still to come are credited unread */
		sfi_rvin_drop(u);
		u->hdr.op = SFI_OP_EAGER;
	}
	/* a rendezvous nobody will take: release the sender */
	if (u->hdr.op == SFI_OP_RTS && u->conn && u->conn->state == SFI_OPEN) {
		memset(&fin, 0, sizeof(fin));
		fin.op = SFI_OP_FIN;
		fin.id = u->hdr.id;
		fin.status = -FI_ECANCELED;
		sfi_conn_frame(u->conn, &fin);
	}
	free(u->payload);
	free(u);
}

/* Copy @len bytes of rendezvous @h into @buf, then answer FIN. */
int sfi_rv_fetch(struct sfi_conn *c, const struct sfi_hdr *h, void *buf,
		 size_t len)
{
	struct sfi_hdr fin;
	int err = 0;

	if (c->state != SFI_OPEN)
		return -FI_ECONNRESET;
	/*
	 * USECACHE: an MPI program receives into the same buffers again and
	 * again; the kernel keeps them pinned between calls and drops a pin
	 * as soon as the mapping under it changes.
	 */
	if (len && scif_vreadfrom(c->epd, buf, len, (off_t)h->roff,
				  SCIF_RMA_SYNC | SCIF_RMA_USECACHE) < 0)
		err = -errno;
	memset(&fin, 0, sizeof(fin));
	fin.op = SFI_OP_FIN;
	fin.id = h->id;
	fin.status = err;
	if (sfi_conn_frame(c, &fin) && !err)
		err = -FI_ENOMEM;
	return err;
}

static void on_fin(struct sfi_conn *c, const struct sfi_hdr *h)
{
	struct sfi_list *pos, *tmp;

	sfi_list_each(pos, tmp, &c->rv_wait) {
		struct sfi_tx *tx = sfi_of(pos, struct sfi_tx, link);

		if (tx->staged || tx->hdr.id != h->id)
			continue;
		sfi_list_del(&tx->link);
		scif_unregister(c->epd, (off_t)tx->roff, tx->rv_span);
		/* a receiver that cancelled still took the message */
		sfi_tx_complete(c->ep, tx,
				h->status == -FI_ECANCELED ? 0 : h->status);
		return;
	}
}

static struct sfi_unexp *unexp_new(struct sfi_conn *c)
{
	struct sfi_unexp *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->hdr = c->rxh;
	u->src = c->peer;
	u->conn = c;
	return u;
}

static void unexp_queue(struct sfi_ep *ep, struct sfi_unexp *u)
{
	sfi_list_add_tail(&ep->unexp[!!(u->hdr.flags & SFI_HF_TAGGED)],
			  &u->link);
}

/* A whole frame's header arrived: 0 when the frame is done with. */
static int on_header(struct sfi_conn *c)
{
	struct sfi_hdr *h = &c->rxh;
	struct sfi_ep *ep = c->ep;
	struct sfi_rx *rx;
	struct sfi_unexp *u;
	size_t n;

	switch (h->op) {
	case SFI_OP_HELLO:
		if (!c->peer_known) {
			c->peer.node = (uint16_t)(h->tag >> 16);
			c->peer.port = (uint16_t)h->tag;
			c->peer_known = 1;
		}
		c->peer_ready = 1;
		return 0;
	case SFI_OP_FIN:
		on_fin(c, h);
		return 0;
	case SFI_OP_WDATA:
		sfi_cq_done(ep->rxcq, NULL, FI_REMOTE_WRITE | FI_RMA |
			    FI_REMOTE_CQ_DATA, 0, NULL, h->data, 0,
			    sfi_av_reverse(ep->av, &c->peer));
		return 0;
	case SFI_OP_CHUNK:
		sfi_rvin_chunk(c, h);
		return 0;
	case SFI_OP_CREDIT:
		sfi_stage_credit(c, h);
		return 0;
	case SFI_OP_RTS:
		if (h->flags & SFI_HF_STAGED) {
			/* no chunk would ever complete an empty one */
			if (!h->len) {
				sfi_conn_fail(c, EPROTO);
				return 0;
			}
			if (sfi_rvin_start(c, h))
				sfi_conn_fail(c, FI_ENOMEM);
			return 0;
		}
		rx = sfi_rx_match(ep, h, &c->peer);
		if (rx) {
			n = h->len < rx->len ? h->len : rx->len;
			sfi_rx_complete(ep, rx, h, &c->peer, n,
					sfi_rv_fetch(c, h, rx->buf, n));
			return 0;
		}
		u = unexp_new(c);
		if (!u) {
			sfi_conn_fail(c, FI_ENOMEM);
			return 0;
		}
		unexp_queue(ep, u);
		return 0;
	case SFI_OP_EAGER:
		c->rx_got = 0;
		rx = sfi_rx_match(ep, h, &c->peer);
		if (rx) {
			c->rx_req = rx;
			c->rx_dst = rx->buf;
			c->rx_want = h->len < rx->len ? h->len : rx->len;
			c->rx_skip = h->len - c->rx_want;
		} else {
			u = unexp_new(c);
			if (u)
				u->payload = malloc(h->len ? h->len : 1);
			if (!u || !u->payload) {
				free(u);
				sfi_conn_fail(c, FI_ENOMEM);
				return 0;
			}
			c->rx_unexp = u;
			c->rx_dst = u->payload;
			c->rx_want = h->len;
			c->rx_skip = 0;
		}
		return 1;
	default:
		sfi_conn_fail(c, EPROTO);
		return 0;
	}
}

/* An eager payload is all in. */
static void payload_done(struct sfi_conn *c)
{
	struct sfi_ep *ep = c->ep;
	struct sfi_unexp *u = c->rx_unexp;
	struct sfi_rx *rx;
	size_t n;

	if (c->rx_req) {
		rx = c->rx_req;
		c->rx_req = NULL;
		sfi_rx_complete(ep, rx, &c->rxh, &c->peer, c->rx_want, 0);
		return;
	}
	c->rx_unexp = NULL;
	/* a receive posted meanwhile comes before the unexpected queue */
	rx = sfi_rx_match(ep, &u->hdr, &u->src);
	if (!rx) {
		unexp_queue(ep, u);
		return;
	}
	n = u->hdr.len < rx->len ? u->hdr.len : rx->len;
	memcpy(rx->buf, u->payload, n);
	sfi_rx_complete(ep, rx, &u->hdr, &u->src, n, 0);
	sfi_unexp_free(u);
}

void sfi_conn_receive(struct sfi_conn *c)
{
	char sink[4096];
	size_t want;
	int n;

	while (c->state == SFI_OPEN) {
		if (c->rxh_got < sizeof(c->rxh)) {
			n = scif_recv(c->epd, (char *)&c->rxh + c->rxh_got,
				      (int)(sizeof(c->rxh) - c->rxh_got), 0);
			if (n < 0)
				sfi_conn_fail(c, errno);
			if (n <= 0)
				return;
			c->rxh_got += (size_t)n;
			if (c->rxh_got < sizeof(c->rxh))
				continue;
			if (!on_header(c)) {
				c->rxh_got = 0;
				continue;
			}
		}
		if (c->rx_got < c->rx_want) {
			want = c->rx_want - c->rx_got;
			n = scif_recv(c->epd, c->rx_dst + c->rx_got,
				      want > 1 << 30 ? 1 << 30 : (int)want, 0);
		} else if (c->rx_skip) {
			want = c->rx_skip < sizeof(sink) ? c->rx_skip :
				sizeof(sink);
			n = scif_recv(c->epd, sink, (int)want, 0);
			if (n > 0)
				c->rx_skip -= (size_t)n;
		} else {
			payload_done(c);
			c->rxh_got = 0;
			continue;
		}
		if (n < 0)
			sfi_conn_fail(c, errno);
		if (n <= 0)
			return;
		if (c->rx_got < c->rx_want)
			c->rx_got += (size_t)n;
	}
}
