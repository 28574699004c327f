// SPDX-License-Identifier: LGPL-2.1
/*
 * Messages and tagged messages: posting sends (queued on the peer's
 * connection, eager or rendezvous by size) and receives (matched against
 * the unexpected queue first, else queued), and the tagged receive's
 * FI_PEEK, FI_CLAIM and FI_DISCARD.
 */
#include <stdlib.h>
#include <string.h>

#include "scif_fi.h"

static struct sfi_ep *ep_of(struct fid_ep *fep)
{
	return sfi_of(fep, struct sfi_ep, ep);
}

/* Queue a send; @inject: no completion at all (fi_inject). */
static ssize_t post_send(struct sfi_ep *ep, const void *buf, size_t len,
			 fi_addr_t dest, uint64_t tag, uint64_t data,
			 void *context, uint64_t flags, int tagged, int inject)
{
	struct sfi_conn *c;
	struct sfi_tx *tx;
	int err = 0;

	if (flags & FI_MULTICAST)
		return -FI_EBADFLAGS;
	if (len > SFI_MAX_MSG)
		return -FI_EMSGSIZE;
	if ((inject || flags & FI_INJECT) && len > SFI_INJECT_SIZE)
		return -FI_EMSGSIZE;
	tx = calloc(1, sizeof(*tx));
	if (!tx)
		return -FI_ENOMEM;
	tx->kind = SFI_TX_FRAME;
	tx->hdr.len = len;
	tx->hdr.tag = tag;
	tx->hdr.data = data;
	if (tagged)
		tx->hdr.flags |= SFI_HF_TAGGED;
	if (flags & FI_REMOTE_CQ_DATA)
		tx->hdr.flags |= SFI_HF_DATA;
	tx->buf = buf;
	if (inject || flags & FI_INJECT) {
		tx->bounce = malloc(len ? len : 1);
		if (!tx->bounce) {
			free(tx);
			return -FI_ENOMEM;
		}
		memcpy(tx->bounce, buf, len);
		tx->buf = tx->bounce;
	}
	if (len <= sfi_eager_max || tx->bounce) {
		tx->hdr.op = SFI_OP_EAGER;
		tx->len = len;
	} else {
		tx->hdr.op = SFI_OP_RTS;
	}
	tx->context = context;
	tx->flags = FI_SEND | (tagged ? FI_TAGGED : FI_MSG);
	tx->report = !inject && (!ep->tx_selective || flags & FI_COMPLETION);

	pthread_mutex_lock(&ep->dom->lock);
	ep->dom->idle_since = 0;
	c = sfi_conn_to(ep, dest, &err);
	if (!c) {
		pthread_mutex_unlock(&ep->dom->lock);
		free(tx->bounce);
		free(tx);
		return err;
	}
	if (c->state == SFI_DEAD) {
		sfi_tx_complete(ep, tx, -FI_ECONNREFUSED);
	} else {
		sfi_list_add_tail(&c->txq, &tx->link);
		sfi_conn_progress(c);
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return 0;
}

/* Receive @rx takes unexpected message @u, removed from its queue. */
void sfi_rx_post_found(struct sfi_ep *ep, struct sfi_rx *rx,
		       struct sfi_unexp *u)
{
	size_t n = u->hdr.len < rx->len ? u->hdr.len : rx->len;
	int err = 0;

	if (u->rvin) {
		sfi_rvin_take(ep, rx, u);
		return;
	}
	if (u->hdr.op == SFI_OP_RTS) {
		err = sfi_rv_fetch(u->conn, &u->hdr, rx->buf, n);
		u->hdr.op = SFI_OP_EAGER;	/* FIN went with the fetch */
	} else {
		memcpy(rx->buf, u->payload, n);
	}
	sfi_rx_complete(ep, rx, &u->hdr, &u->src, n, err);
	sfi_unexp_free(u);
}

/* FI_PEEK, with FI_CLAIM or FI_DISCARD: look without receiving. */
static void peek(struct sfi_ep *ep, struct sfi_rx *rx, uint64_t flags)
{
	struct sfi_unexp *u;
	uint64_t cflags;

	u = sfi_unexp_match(ep, rx, 1, !!(flags & (FI_CLAIM | FI_DISCARD)));
	if (!u) {
		sfi_cq_fail(ep->rxcq, rx->context, rx->flags, FI_ENOMSG, 0, 0,
			    0, rx->tag);
		free(rx);
		return;
	}
	cflags = rx->flags | (u->hdr.flags & SFI_HF_DATA ?
			      FI_REMOTE_CQ_DATA : 0);
	sfi_cq_done(ep->rxcq, rx->context, cflags, u->hdr.len, NULL,
		    u->hdr.data, u->hdr.tag, sfi_av_reverse(ep->av, &u->src));
	if (flags & FI_DISCARD)
		sfi_unexp_free(u);
	else if (flags & FI_CLAIM)
		((struct fi_context *)rx->context)->internal[0] = u;
	free(rx);
}

static ssize_t post_recv(struct sfi_ep *ep, void *buf, size_t len,
			 fi_addr_t src, uint64_t tag, uint64_t ignore,
			 void *context, uint64_t flags, int tagged)
{
	struct sfi_unexp *u;
	struct sfi_rx *rx;

	if (!tagged && flags & (FI_PEEK | FI_CLAIM | FI_DISCARD))
		return -FI_EBADFLAGS;
	if ((flags & (FI_CLAIM | FI_DISCARD)) && !context)
		return -FI_EINVAL;
	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return -FI_ENOMEM;
	rx->buf = buf;
	rx->len = len;
	rx->tag = tag;
	rx->ignore = ignore;
	rx->context = context;
	rx->flags = FI_RECV | (tagged ? FI_TAGGED : FI_MSG);
	rx->report = !ep->rx_selective || flags & FI_COMPLETION;

	pthread_mutex_lock(&ep->dom->lock);
	ep->dom->idle_since = 0;
	rx->any_src = src == FI_ADDR_UNSPEC || !(ep->caps & FI_DIRECTED_RECV);
	if (!rx->any_src && sfi_av_get(ep->av, src, &rx->src)) {
		pthread_mutex_unlock(&ep->dom->lock);
		free(rx);
		return -FI_EINVAL;
	}
	sfi_ep_progress(ep);
	if (flags & FI_PEEK) {
		rx->report = 1;
		peek(ep, rx, flags);
	} else if (flags & FI_CLAIM) {
		u = ((struct fi_context *)context)->internal[0];
		if (flags & FI_DISCARD) {
			sfi_cq_done(ep->rxcq, context, rx->flags, 0, NULL, 0,
				    u->hdr.tag, FI_ADDR_NOTAVAIL);
			sfi_unexp_free(u);
			free(rx);
		} else {
			sfi_rx_post_found(ep, rx, u);
		}
	} else {
		u = sfi_unexp_match(ep, rx, tagged, 1);
		if (u)
			sfi_rx_post_found(ep, rx, u);
		else
			sfi_list_add_tail(&ep->posted[tagged], &rx->link);
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return 0;
}

/* ---- FI_MSG */
static ssize_t m_recv(struct fid_ep *e, void *buf, size_t len, void *desc,
		      fi_addr_t src, void *context)
{
	(void)desc;
	return post_recv(ep_of(e), buf, len, src, 0, 0, context,
			 ep_of(e)->rx_flags, 0);
}

static ssize_t m_recvv(struct fid_ep *e, const struct iovec *iov, void **desc,
		       size_t count, fi_addr_t src, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return m_recv(e, count ? iov->iov_base : NULL, count ? iov->iov_len : 0,
		      desc, src, context);
}

static ssize_t m_recvmsg(struct fid_ep *e, const struct fi_msg *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return post_recv(ep_of(e), msg->iov_count ? msg->msg_iov->iov_base : NULL,
			 msg->iov_count ? msg->msg_iov->iov_len : 0, msg->addr,
			 0, 0, msg->context, flags, 0);
}

static ssize_t m_send(struct fid_ep *e, const void *buf, size_t len,
		      void *desc, fi_addr_t dest, void *context)
{
	(void)desc;
	return post_send(ep_of(e), buf, len, dest, 0, 0, context,
			 ep_of(e)->tx_flags, 0, 0);
}

static ssize_t m_sendv(struct fid_ep *e, const struct iovec *iov, void **desc,
		       size_t count, fi_addr_t dest, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return m_send(e, count ? iov->iov_base : NULL, count ? iov->iov_len : 0,
		      desc, dest, context);
}

static ssize_t m_sendmsg(struct fid_ep *e, const struct fi_msg *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return post_send(ep_of(e), msg->iov_count ? msg->msg_iov->iov_base : NULL,
			 msg->iov_count ? msg->msg_iov->iov_len : 0, msg->addr,
			 0, msg->data, msg->context, flags, 0, 0);
}

static ssize_t m_inject(struct fid_ep *e, const void *buf, size_t len,
			fi_addr_t dest)
{
	return post_send(ep_of(e), buf, len, dest, 0, 0, NULL, 0, 0, 1);
}

static ssize_t m_senddata(struct fid_ep *e, const void *buf, size_t len,
			  void *desc, uint64_t data, fi_addr_t dest,
			  void *context)
{
	(void)desc;
	return post_send(ep_of(e), buf, len, dest, 0, data, context,
			 ep_of(e)->tx_flags | FI_REMOTE_CQ_DATA, 0, 0);
}

static ssize_t m_injectdata(struct fid_ep *e, const void *buf, size_t len,
			    uint64_t data, fi_addr_t dest)
{
	return post_send(ep_of(e), buf, len, dest, 0, data, NULL,
			 FI_REMOTE_CQ_DATA, 0, 1);
}

struct fi_ops_msg sfi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = m_recv,
	.recvv = m_recvv,
	.recvmsg = m_recvmsg,
	.send = m_send,
	.sendv = m_sendv,
	.sendmsg = m_sendmsg,
	.inject = m_inject,
	.senddata = m_senddata,
	.injectdata = m_injectdata,
};

/* ---- FI_TAGGED */
static ssize_t t_recv(struct fid_ep *e, void *buf, size_t len, void *desc,
		      fi_addr_t src, uint64_t tag, uint64_t ignore,
		      void *context)
{
	(void)desc;
	return post_recv(ep_of(e), buf, len, src, tag, ignore, context,
			 ep_of(e)->rx_flags, 1);
}

static ssize_t t_recvv(struct fid_ep *e, const struct iovec *iov, void **desc,
		       size_t count, fi_addr_t src, uint64_t tag,
		       uint64_t ignore, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return t_recv(e, count ? iov->iov_base : NULL, count ? iov->iov_len : 0,
		      desc, src, tag, ignore, context);
}

static ssize_t t_recvmsg(struct fid_ep *e, const struct fi_msg_tagged *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return post_recv(ep_of(e), msg->iov_count ? msg->msg_iov->iov_base : NULL,
			 msg->iov_count ? msg->msg_iov->iov_len : 0, msg->addr,
			 msg->tag, msg->ignore, msg->context, flags, 1);
}

static ssize_t t_send(struct fid_ep *e, const void *buf, size_t len,
		      void *desc, fi_addr_t dest, uint64_t tag, void *context)
{
	(void)desc;
	return post_send(ep_of(e), buf, len, dest, tag, 0, context,
			 ep_of(e)->tx_flags, 1, 0);
}

static ssize_t t_sendv(struct fid_ep *e, const struct iovec *iov, void **desc,
		       size_t count, fi_addr_t dest, uint64_t tag,
		       void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return t_send(e, count ? iov->iov_base : NULL, count ? iov->iov_len : 0,
		      desc, dest, tag, context);
}

static ssize_t t_sendmsg(struct fid_ep *e, const struct fi_msg_tagged *msg,
			 uint64_t flags)
{
	if (msg->iov_count > 1)
		return -FI_EINVAL;
	return post_send(ep_of(e), msg->iov_count ? msg->msg_iov->iov_base : NULL,
			 msg->iov_count ? msg->msg_iov->iov_len : 0, msg->addr,
			 msg->tag, msg->data, msg->context, flags, 1, 0);
}

static ssize_t t_inject(struct fid_ep *e, const void *buf, size_t len,
			fi_addr_t dest, uint64_t tag)
{
	return post_send(ep_of(e), buf, len, dest, tag, 0, NULL, 0, 1, 1);
}

static ssize_t t_senddata(struct fid_ep *e, const void *buf, size_t len,
			  void *desc, uint64_t data, fi_addr_t dest,
			  uint64_t tag, void *context)
{
	(void)desc;
	return post_send(ep_of(e), buf, len, dest, tag, data, context,
			 ep_of(e)->tx_flags | FI_REMOTE_CQ_DATA, 1, 0);
}

static ssize_t t_injectdata(struct fid_ep *e, const void *buf, size_t len,
			    uint64_t data, fi_addr_t dest, uint64_t tag)
{
	return post_send(ep_of(e), buf, len, dest, tag, data, NULL,
			 FI_REMOTE_CQ_DATA, 1, 1);
}

struct fi_ops_tagged sfi_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = t_recv,
	.recvv = t_recvv,
	.recvmsg = t_recvmsg,
	.send = t_send,
	.sendv = t_sendv,
	.sendmsg = t_sendmsg,
	.inject = t_inject,
	.senddata = t_senddata,
	.injectdata = t_injectdata,
};
