// SPDX-License-Identifier: LGPL-2.1
/*
 * RMA: fi_read and fi_write as scif_vreadfrom and scif_vwriteto on the
 * connection to the target, at the target's offset key + addr (see mr.c).
 * They run in the connection's transmit queue, in order with the sends,
 * once the target's HELLO said its windows are open. A write with remote
 * CQ data is followed by a WDATA frame that the target reports.
 */
#include <stdlib.h>
#include <string.h>

#include "scif_fi.h"

static struct sfi_ep *ep_of(struct fid_ep *fep)
{
	return sfi_of(fep, struct sfi_ep, ep);
}

int sfi_tx_rma_run(struct sfi_conn *c, struct sfi_tx *tx)
{
	int r;

	if (!tx->len)
		return 0;
	/* Local buffers stay pinned between calls (see sfi_rv_fetch()). */
	if (tx->kind == SFI_TX_READ)
		r = scif_vreadfrom(c->epd, (void *)tx->buf, tx->len,
				   (off_t)tx->roff,
				   SCIF_RMA_SYNC | SCIF_RMA_USECACHE);
	else
		r = scif_vwriteto(c->epd, (void *)tx->buf, tx->len,
				  (off_t)tx->roff,
				  SCIF_RMA_SYNC | SCIF_RMA_USECACHE);
	return r < 0 ? -errno : 0;
}

static ssize_t post_rma(struct sfi_ep *ep, enum sfi_tx_kind kind, void *buf,
			size_t len, fi_addr_t dest, uint64_t addr,
			uint64_t key, uint64_t data, void *context,
			uint64_t flags, int inject)
{
	struct sfi_conn *c;
	struct sfi_tx *tx;
	int err = 0;

	if (!(ep->caps & FI_RMA))
		return -FI_EOPNOTSUPP;
	if (len > SFI_MAX_MSG)
		return -FI_EMSGSIZE;
	if ((inject || flags & FI_INJECT) &&
	    (len > SFI_INJECT_SIZE || kind == SFI_TX_READ))
		return -FI_EINVAL;
	tx = calloc(1, sizeof(*tx));
	if (!tx)
		return -FI_ENOMEM;
	tx->kind = kind;
	tx->buf = buf;
	tx->len = len;
	tx->roff = key + addr;
	tx->hdr.data = data;
	if (flags & FI_REMOTE_CQ_DATA && kind == SFI_TX_WRITE)
		tx->hdr.flags |= SFI_HF_DATA;
	if (inject || flags & FI_INJECT) {
		tx->bounce = malloc(len ? len : 1);
		if (!tx->bounce) {
			free(tx);
			return -FI_ENOMEM;
		}
		memcpy(tx->bounce, buf, len);
		tx->buf = tx->bounce;
	}
	tx->context = context;
	tx->flags = FI_RMA | (kind == SFI_TX_READ ? FI_READ : FI_WRITE);
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

static ssize_t r_read(struct fid_ep *e, void *buf, size_t len, void *desc,
		      fi_addr_t src, uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return post_rma(ep_of(e), SFI_TX_READ, buf, len, src, addr, key, 0,
			context, ep_of(e)->tx_flags, 0);
}

static ssize_t r_readv(struct fid_ep *e, const struct iovec *iov, void **desc,
		       size_t count, fi_addr_t src, uint64_t addr,
		       uint64_t key, void *context)
{
	if (count != 1)
		return -FI_EINVAL;
	return r_read(e, iov->iov_base, iov->iov_len, desc, src, addr, key,
		      context);
}

static ssize_t r_readmsg(struct fid_ep *e, const struct fi_msg_rma *msg,
			 uint64_t flags)
{
	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    msg->rma_iov->len < msg->msg_iov->iov_len)
		return -FI_EINVAL;
	return post_rma(ep_of(e), SFI_TX_READ, msg->msg_iov->iov_base,
			msg->msg_iov->iov_len, msg->addr, msg->rma_iov->addr,
			msg->rma_iov->key, 0, msg->context, flags, 0);
}

static ssize_t r_write(struct fid_ep *e, const void *buf, size_t len,
		       void *desc, fi_addr_t dest, uint64_t addr,
		       uint64_t key, void *context)
{
	(void)desc;
	return post_rma(ep_of(e), SFI_TX_WRITE, (void *)buf, len, dest, addr,
			key, 0, context, ep_of(e)->tx_flags, 0);
}

static ssize_t r_writev(struct fid_ep *e, const struct iovec *iov,
			void **desc, size_t count, fi_addr_t dest,
			uint64_t addr, uint64_t key, void *context)
{
	if (count != 1)
		return -FI_EINVAL;
	return r_write(e, iov->iov_base, iov->iov_len, desc, dest, addr, key,
		       context);
}

static ssize_t r_writemsg(struct fid_ep *e, const struct fi_msg_rma *msg,
			  uint64_t flags)
{
	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    msg->rma_iov->len < msg->msg_iov->iov_len)
		return -FI_EINVAL;
	return post_rma(ep_of(e), SFI_TX_WRITE, msg->msg_iov->iov_base,
			msg->msg_iov->iov_len, msg->addr, msg->rma_iov->addr,
			msg->rma_iov->key, msg->data, msg->context, flags, 0);
}

static ssize_t r_inject(struct fid_ep *e, const void *buf, size_t len,
			fi_addr_t dest, uint64_t addr, uint64_t key)
{
	return post_rma(ep_of(e), SFI_TX_WRITE, (void *)buf, len, dest, addr,
			key, 0, NULL, 0, 1);
}

static ssize_t r_writedata(struct fid_ep *e, const void *buf, size_t len,
			   void *desc, uint64_t data, fi_addr_t dest,
			   uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return post_rma(ep_of(e), SFI_TX_WRITE, (void *)buf, len, dest, addr,
			key, data, context,
			ep_of(e)->tx_flags | FI_REMOTE_CQ_DATA, 0);
}

static ssize_t r_injectdata(struct fid_ep *e, const void *buf, size_t len,
			    uint64_t data, fi_addr_t dest, uint64_t addr,
			    uint64_t key)
{
	return post_rma(ep_of(e), SFI_TX_WRITE, (void *)buf, len, dest, addr,
			key, data, NULL, FI_REMOTE_CQ_DATA, 1);
}

struct fi_ops_rma sfi_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = r_read,
	.readv = r_readv,
	.readmsg = r_readmsg,
	.write = r_write,
	.writev = r_writev,
	.writemsg = r_writemsg,
	.inject = r_inject,
	.writedata = r_writedata,
	.injectdata = r_injectdata,
};
