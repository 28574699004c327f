// SPDX-License-Identifier: LGPL-2.1
/*
 * The receiving side of the staged rendezvous (the sending side is in
 * rv_stage.c). A staged RTS carries the message's matching fields only;
 * its data follows in CHUNK frames, in message order, each naming a slot
 * of the sender's staging window. Every chunk is read at once and
 * answered with CREDIT, whatever became of the message:
 *
 * - matched to a receive: read into the receive's buffer, up to its
 *   length (the rest of a truncated message is credited unread);
 * - not matched yet: read into a buffer of the unexpected entry, as an
 *   eager message would be, so a message nobody asks for yet cannot hold
 *   the sender's slots and starve the messages behind it; the receive
 *   that takes it copies what arrived and lets the rest come straight in;
 * - discarded or cancelled: credited unread, with -FI_ECANCELED.
 */
#include <stdlib.h>
#include <string.h>

#include "scif_fi.h"

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* A staged RTS arrived: match it or keep it as unexpected. */
int sfi_rvin_start(struct sfi_conn *c, const struct sfi_hdr *h)
{
	struct sfi_ep *ep = c->ep;
	struct sfi_rvin *r = calloc(1, sizeof(*r));
	struct sfi_unexp *u;

	if (!r)
		return -FI_ENOMEM;
	r->hdr = *h;
	r->rx = sfi_rx_match(ep, h, &c->peer);
	if (r->rx) {
		r->keep = min_size(h->len, r->rx->len);
	} else {
		u = calloc(1, sizeof(*u));
		if (u)
			u->payload = malloc(h->len);
		if (!u || !u->payload) {
			free(u);
			free(r);
			return -FI_ENOMEM;
		}
		u->hdr = *h;
		u->src = c->peer;
		u->conn = c;
		u->rvin = r;
		r->u = u;
		r->keep = h->len;
		sfi_list_add_tail(&ep->unexp[!!(h->flags & SFI_HF_TAGGED)],
				  &u->link);
	}
	sfi_list_add_tail(&c->rv_in, &r->link);
	return 0;
}

/* Every chunk of @r is in. */
static void rvin_done(struct sfi_conn *c, struct sfi_rvin *r)
{
	struct sfi_unexp *u = r->u;

	sfi_list_del(&r->link);
	if (r->rx) {
		sfi_rx_complete(c->ep, r->rx, &r->hdr, &c->peer, r->keep,
				r->err);
	} else if (u) {
		/* from now on an ordinary unexpected message */
		u->rvin = NULL;
		u->hdr.op = SFI_OP_EAGER;
		if (r->err) {
			sfi_list_del(&u->link);
			sfi_unexp_free(u);
		}
	}
	free(r);
}

void sfi_rvin_chunk(struct sfi_conn *c, const struct sfi_hdr *h)
{
	struct sfi_list *pos, *tmp;
	struct sfi_rvin *r = NULL;
	struct sfi_hdr cr;
	char *dst = NULL;
	size_t cap = 0, n;
	int err = 0, flags = SCIF_RMA_SYNC;

	sfi_list_each(pos, tmp, &c->rv_in) {
		r = sfi_of(pos, struct sfi_rvin, link);
		if (r->hdr.id == h->id)
			break;
		r = NULL;
	}
	if (!r || h->data != r->got || h->len > r->hdr.len - r->got) {
		sfi_conn_fail(c, EPROTO);
		return;
	}
	if (r->rx) {
		dst = r->rx->buf;
		cap = r->keep;
		/* receive buffers come back: keep them pinned (see wire.c) */
		flags |= SCIF_RMA_USECACHE;
	} else if (r->u) {
		dst = r->u->payload;
		cap = r->hdr.len;
	}
	if (dst && h->data < cap) {
		n = min_size(h->len, cap - h->data);
		if (scif_vreadfrom(c->epd, dst + h->data, n, (off_t)h->roff,
				   flags) < 0)
			err = -errno;
	}
	if (err && !r->err)
		r->err = err;
	memset(&cr, 0, sizeof(cr));
	cr.op = SFI_OP_CREDIT;
	cr.id = h->id;
	cr.roff = h->roff;
	cr.len = h->len;
	cr.status = err ? err : (dst ? 0 : -FI_ECANCELED);
	if (sfi_conn_frame(c, &cr)) {
		sfi_conn_fail(c, FI_ENOMEM);
		return;
	}
	r->got += h->len;
	if (r->got == r->hdr.len)
		rvin_done(c, r);
	/* the sender may refill the slot while the next chunk is read */
	sfi_conn_flush(c);
}

/* Receive @rx takes @u, a staged message still arriving. */
void sfi_rvin_take(struct sfi_ep *ep, struct sfi_rx *rx, struct sfi_unexp *u)
{
	struct sfi_rvin *r = u->rvin;

	(void)ep;
	r->keep = min_size(r->hdr.len, rx->len);
	memcpy(rx->buf, u->payload, min_size(r->got, r->keep));
	r->rx = rx;
	r->u = NULL;
	free(u->payload);
	free(u);
}

/* Nobody will take @u: its remaining chunks are credited unread. */
void sfi_rvin_drop(struct sfi_unexp *u)
{
	u->rvin->u = NULL;
	u->rvin = NULL;
}

/*
 * The connection failed (@err) or closes (0): fail the receives still
 * waiting for chunks (or free them silently).
 */
void sfi_rvin_fail(struct sfi_conn *c, int err)
{
	struct sfi_list *pos, *tmp;

	sfi_list_each(pos, tmp, &c->rv_in) {
		struct sfi_rvin *r = sfi_of(pos, struct sfi_rvin, link);

		sfi_list_del(&r->link);
		if (r->rx && err)
			sfi_rx_complete(c->ep, r->rx, &r->hdr, &c->peer, 0,
					err);
		else
			free(r->rx);
		if (r->u) {
			/*
			 * Stays queued as a rendezvous on a dead connection:
			 * the receive that takes it fails with FI_ECONNRESET.
			 */
			r->u->rvin = NULL;
			r->u->hdr.flags &= (uint16_t)~SFI_HF_STAGED;
		}
		free(r);
	}
}
