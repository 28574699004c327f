// SPDX-License-Identifier: LGPL-2.1
/*
 * Endpoints: the listening SCIF endpoint that gives one its address, the
 * bindings to AV, CQs and counters, the receive queues with their matching
 * rules, and the completion of transmits and receives.
 */
#include <stdlib.h>
#include <string.h>

#include "scif_fi.h"

#define SFI_BACKLOG	64
/*
 * Looking for connection requests costs a poll() system call, and a
 * polling caller (an MPI library) runs the progress engine in a tight
 * loop. Once an endpoint has a connection, only every SFI_ACCEPT_EVERY-th
 * progress call looks, so that the loop stays in user space; one that
 * slept in sfi_domain_wait() looks at once.
 */
#define SFI_ACCEPT_EVERY	64

void sfi_ep_progress(struct sfi_ep *ep)
{
	struct sfi_list *pos, *tmp;

	if (!ep->accept_skip || sfi_list_empty(&ep->conns)) {
		ep->accept_skip = SFI_ACCEPT_EVERY;
		sfi_conn_accept_all(ep);
	}
	ep->accept_skip--;
	sfi_list_each(pos, tmp, &ep->conns)
		sfi_conn_progress(sfi_of(pos, struct sfi_conn, link));
}

void sfi_tx_complete(struct sfi_ep *ep, struct sfi_tx *tx, int err)
{
	struct sfi_cntr *cntr = ep->send_cntr;

	if (tx->flags) {
		if (tx->flags & FI_READ)
			cntr = ep->read_cntr;
		else if (tx->flags & FI_WRITE)
			cntr = ep->write_cntr;
		if (err)
			sfi_cq_fail(ep->txcq, tx->context, tx->flags, -err,
				    0, 0, 0, 0);
		else if (tx->report)
			sfi_cq_done(ep->txcq, tx->context, tx->flags, 0, NULL,
				    0, 0, FI_ADDR_NOTAVAIL);
		sfi_cntr_bump(cntr, err != 0);
	}
	free(tx->bounce);
	free(tx);
}

static int rx_matches(const struct sfi_rx *rx, const struct sfi_hdr *h,
		      const struct scif_port_id *src)
{
	if (!rx->any_src && !sfi_same_port(&rx->src, src))
		return 0;
	if (h->flags & SFI_HF_TAGGED)
		return ((rx->tag ^ h->tag) & ~rx->ignore) == 0;
	return 1;
}

struct sfi_rx *sfi_rx_match(struct sfi_ep *ep, const struct sfi_hdr *h,
			    const struct scif_port_id *src)
{
	struct sfi_list *q = &ep->posted[!!(h->flags & SFI_HF_TAGGED)];
	struct sfi_list *pos, *tmp;

	sfi_list_each(pos, tmp, q) {
		struct sfi_rx *rx = sfi_of(pos, struct sfi_rx, link);

		if (rx_matches(rx, h, src)) {
			sfi_list_del(&rx->link);
			return rx;
		}
	}
	return NULL;
}

/* The first unexpected message @rx takes, removed from its queue. */
struct sfi_unexp *sfi_unexp_match(struct sfi_ep *ep, const struct sfi_rx *rx,
				  int tagged, int take)
{
	struct sfi_list *pos, *tmp;

	sfi_list_each(pos, tmp, &ep->unexp[tagged]) {
		struct sfi_unexp *u = sfi_of(pos, struct sfi_unexp, link);

		if (rx_matches(rx, &u->hdr, &u->src)) {
			if (take)
				sfi_list_del(&u->link);
			return u;
		}
	}
	return NULL;
}

/*
 * Finish receive @rx of message @h from @src: @copied bytes were placed,
 * or the receive failed with -@err. A message longer than the buffer
 * completes as truncated.
 */
void sfi_rx_complete(struct sfi_ep *ep, struct sfi_rx *rx,
		     const struct sfi_hdr *h, const struct scif_port_id *src,
		     size_t copied, int err)
{
	uint64_t flags = rx->flags;

	if (h->flags & SFI_HF_DATA)
		flags |= FI_REMOTE_CQ_DATA;
	if (!err && copied < h->len)
		err = -FI_ETRUNC;
	if (err)
		sfi_cq_fail(ep->rxcq, rx->context, flags, -err, copied,
			    h->len - copied, h->data, h->tag);
	else if (rx->report)
		sfi_cq_done(ep->rxcq, rx->context, flags, copied, rx->buf,
			    h->data, h->tag, sfi_av_reverse(ep->av, src));
	sfi_cntr_bump(ep->recv_cntr, err != 0);
	free(rx);
}

/* ---- fid operations */
static int ep_close(struct fid *fid)
{
	struct sfi_ep *ep = sfi_of(fid, struct sfi_ep, ep.fid);
	struct sfi_domain *dom = ep->dom;
	struct sfi_list *pos, *tmp;
	int i;

	pthread_mutex_lock(&dom->lock);
	sfi_list_del(&ep->link);
	for (i = 0; i < 2; i++) {
		sfi_list_each(pos, tmp, &ep->posted[i]) {
			sfi_list_del(pos);
			free(sfi_of(pos, struct sfi_rx, link));
		}
		sfi_list_each(pos, tmp, &ep->unexp[i]) {
			sfi_list_del(pos);
			sfi_unexp_free(sfi_of(pos, struct sfi_unexp, link));
		}
	}
	/* after the unexpected queues, which point into the connections */
	sfi_list_each(pos, tmp, &ep->conns)
		sfi_conn_close(sfi_of(pos, struct sfi_conn, link));
	scif_close(ep->lep);
	if (ep->av)
		ep->av->refs--;
	if (ep->txcq)
		ep->txcq->refs--;
	if (ep->rxcq)
		ep->rxcq->refs--;
	if (ep->send_cntr)
		ep->send_cntr->refs--;
	if (ep->recv_cntr)
		ep->recv_cntr->refs--;
	if (ep->read_cntr)
		ep->read_cntr->refs--;
	if (ep->write_cntr)
		ep->write_cntr->refs--;
	pthread_mutex_unlock(&dom->lock);
	free(ep);
	return 0;
}

static int bind_cq(struct sfi_ep *ep, struct sfi_cq *cq, uint64_t flags)
{
	if (flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION))
		return -FI_EBADFLAGS;
	if (flags & FI_TRANSMIT) {
		if (ep->txcq)
			return -FI_EINVAL;
		ep->txcq = cq;
		cq->refs++;
		ep->tx_selective = !!(flags & FI_SELECTIVE_COMPLETION);
	}
	if (flags & FI_RECV) {
		if (ep->rxcq)
			return -FI_EINVAL;
		ep->rxcq = cq;
		cq->refs++;
		ep->rx_selective = !!(flags & FI_SELECTIVE_COMPLETION);
	}
	return 0;
}

static int bind_cntr(struct sfi_ep *ep, struct sfi_cntr *c, uint64_t flags)
{
	struct sfi_cntr **slot[4] = { &ep->send_cntr, &ep->recv_cntr,
				      &ep->read_cntr, &ep->write_cntr };
	uint64_t bits[4] = { FI_SEND, FI_RECV, FI_READ, FI_WRITE };
	int i;

	/* no FI_RMA_EVENT: the target of an RMA does not count it */
	if (flags & ~(uint64_t)(FI_SEND | FI_RECV | FI_READ | FI_WRITE))
		return -FI_EBADFLAGS;
	for (i = 0; i < 4; i++) {
		if (!(flags & bits[i]))
			continue;
		if (*slot[i])
			return -FI_EINVAL;
		*slot[i] = c;
		c->refs++;
	}
	return 0;
}

static int ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct sfi_ep *ep = sfi_of(fid, struct sfi_ep, ep.fid);
	int ret = 0;

	pthread_mutex_lock(&ep->dom->lock);
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		if (ep->av) {
			ret = -FI_EINVAL;
			break;
		}
		ep->av = sfi_of(bfid, struct sfi_av, av.fid);
		ep->av->refs++;
		break;
	case FI_CLASS_CQ:
		ret = bind_cq(ep, sfi_of(bfid, struct sfi_cq, cq.fid), flags);
		break;
	case FI_CLASS_CNTR:
		ret = bind_cntr(ep, sfi_of(bfid, struct sfi_cntr, cntr.fid),
				flags);
		break;
	case FI_CLASS_EQ:
		/* nothing to report on it: no connection management */
		break;
	default:
		ret = -FI_EINVAL;
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

static int ep_control(struct fid *fid, int command, void *arg)
{
	struct sfi_ep *ep = sfi_of(fid, struct sfi_ep, ep.fid);

	(void)arg;
	if (command != FI_ENABLE)
		return -FI_ENOSYS;
	pthread_mutex_lock(&ep->dom->lock);
	ep->enabled = 1;
	pthread_mutex_unlock(&ep->dom->lock);
	return 0;
}

static struct fi_ops ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = ep_close,
	.bind = ep_bind,
	.control = ep_control,
	.ops_open = sfi_no_ops_open,
};

/* ---- endpoint operations */
static ssize_t ep_cancel(fid_t fid, void *context)
{
	struct sfi_ep *ep = sfi_of(fid, struct sfi_ep, ep.fid);
	struct sfi_list *pos, *tmp;
	ssize_t ret = -FI_ENOENT;
	int i;

	pthread_mutex_lock(&ep->dom->lock);
	for (i = 0; i < 2 && ret; i++) {
		sfi_list_each(pos, tmp, &ep->posted[i]) {
			struct sfi_rx *rx = sfi_of(pos, struct sfi_rx, link);

			if (rx->context != context)
				continue;
			sfi_list_del(&rx->link);
			sfi_cq_fail(ep->rxcq, rx->context, rx->flags,
				    FI_ECANCELED, 0, 0, 0, rx->tag);
			free(rx);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

static int ep_getopt(fid_t fid, int level, int optname, void *optval,
		     size_t *optlen)
{
	(void)fid;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -FI_ENOPROTOOPT;
}

static int ep_setopt(fid_t fid, int level, int optname, const void *optval,
		     size_t optlen)
{
	(void)fid;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -FI_ENOPROTOOPT;
}

static int ep_no_ctx(struct fid_ep *sep, int index, void *attr,
		     struct fid_ep **ep, void *context)
{
	(void)sep;
	(void)index;
	(void)attr;
	(void)ep;
	(void)context;
	return -FI_ENOSYS;
}

static int ep_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		     struct fid_ep **ep, void *context)
{
	return ep_no_ctx(sep, index, attr, ep, context);
}

static int ep_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		     struct fid_ep **ep, void *context)
{
	return ep_no_ctx(sep, index, attr, ep, context);
}

/* The queues grow as needed: there is always room for one more. */
static ssize_t ep_size_left(struct fid_ep *ep)
{
	(void)ep;
	return SFI_QUEUE_SIZE;
}

static struct fi_ops_ep ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = ep_cancel,
	.getopt = ep_getopt,
	.setopt = ep_setopt,
	.tx_ctx = ep_tx_ctx,
	.rx_ctx = ep_rx_ctx,
	.rx_size_left = ep_size_left,
	.tx_size_left = ep_size_left,
};

/* ---- addressing: only the endpoint's own name; no connection calls */
static int cm_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct sfi_ep *ep = sfi_of(fid, struct sfi_ep, ep.fid);
	size_t len = *addrlen;

	memcpy(addr, &ep->addr, len < sizeof(ep->addr) ? len : sizeof(ep->addr));
	*addrlen = sizeof(ep->addr);
	return len < sizeof(ep->addr) ? -FI_ETOOSMALL : 0;
}

static int cm_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid;
	(void)addr;
	(void)addrlen;
	return -FI_ENOSYS;
}

static int cm_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	(void)ep;
	(void)addr;
	(void)addrlen;
	return -FI_ENOSYS;
}

static struct fi_ops_cm ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = cm_setname,
	.getname = cm_getname,
	.getpeer = cm_getpeer,
};

int sfi_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **epp, void *context)
{
	struct sfi_domain *dom = sfi_of(domain, struct sfi_domain, dom);
	struct sfi_ep *ep;
	uint16_t port = 0;
	int i, ret;

	if (!info || (info->ep_attr && info->ep_attr->type != FI_EP_RDM))
		return -FI_EINVAL;
	if (info->src_addr) {
		if (info->src_addrlen != sizeof(struct scif_port_id))
			return -FI_EINVAL;
		port = ((struct scif_port_id *)info->src_addr)->port;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->lep = scif_open();
	if (ep->lep == SCIF_OPEN_FAILED) {
		ret = -errno;
		free(ep);
		return ret;
	}
	ret = scif_bind(ep->lep, port);
	if (ret < 0 || scif_listen(ep->lep, SFI_BACKLOG) < 0 ||
	    sfi_local_node(&ep->addr.node)) {
		ret = -errno;
		scif_close(ep->lep);
		free(ep);
		return ret;
	}
	ep->addr.port = (uint16_t)ret;
	ep->dom = dom;
	ep->caps = info->caps;
	ep->tx_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	sfi_list_init(&ep->conns);
	for (i = 0; i < 2; i++) {
		sfi_list_init(&ep->posted[i]);
		sfi_list_init(&ep->unexp[i]);
	}
	ep->ep.fid.fclass = FI_CLASS_EP;
	ep->ep.fid.context = context;
	ep->ep.fid.ops = &ep_fi_ops;
	ep->ep.ops = &ep_ops;
	ep->ep.cm = &ep_cm_ops;
	ep->ep.msg = &sfi_msg_ops;
	ep->ep.tagged = &sfi_tagged_ops;
	ep->ep.rma = &sfi_rma_ops;
	pthread_mutex_lock(&dom->lock);
	sfi_list_add_tail(&dom->eps, &ep->link);
	pthread_mutex_unlock(&dom->lock);
	*epp = &ep->ep;
	return 0;
}
