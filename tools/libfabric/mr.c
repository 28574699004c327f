// SPDX-License-Identifier: LGPL-2.1
/*
 * Memory regions. SCIF windows belong to one connection, while a libfabric
 * key must work from any peer: a region open for remote access is given
 * one offset in the domain's MR space and registered at that offset
 * (SCIF_MAP_FIXED) on every connection of the domain, present and future.
 * The key is that offset, adjusted so that the peer adds its RMA address
 * to it: the offset into the region, or with FI_MR_VIRT_ADDR the virtual
 * address.
 */
#include <stdlib.h>
#include <unistd.h>

#include "scif_fi.h"

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static int mr_register_on(struct sfi_mr *mr, struct sfi_conn *conn)
{
	off_t off;

	off = scif_register(conn->epd, mr->pages, mr->span, (off_t)mr->off,
			    mr->prot, SCIF_MAP_FIXED);
	return off == SCIF_REGISTER_FAILED ? -errno : 0;
}

/* Open every remote-access region on @conn, newly connected. */
int sfi_mr_register_all(struct sfi_domain *dom, struct sfi_conn *conn)
{
	struct sfi_list *pos, *tmp;
	int ret;

	sfi_list_each(pos, tmp, &dom->mrs) {
		struct sfi_mr *mr = sfi_of(pos, struct sfi_mr, link);

		if (!mr->span)
			continue;
		ret = mr_register_on(mr, conn);
		if (ret)
			return ret;
	}
	return 0;
}

/* Open (@reg) or close @mr's window on every connection of the domain. */
static int each_conn(struct sfi_domain *dom, struct sfi_mr *mr, int reg)
{
	struct sfi_list *epos, *etmp, *cpos, *ctmp;
	int ret;

	sfi_list_each(epos, etmp, &dom->eps) {
		struct sfi_ep *ep = sfi_of(epos, struct sfi_ep, link);

		sfi_list_each(cpos, ctmp, &ep->conns) {
			struct sfi_conn *c = sfi_of(cpos, struct sfi_conn, link);

			if (c->state != SFI_OPEN)
				continue;
			if (!reg) {
				scif_unregister(c->epd, (off_t)mr->off, mr->span);
				continue;
			}
			ret = mr_register_on(mr, c);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int mr_close(struct fid *fid)
{
	struct sfi_mr *mr = sfi_of(fid, struct sfi_mr, mr.fid);
	struct sfi_domain *dom = mr->dom;

	pthread_mutex_lock(&dom->lock);
	if (mr->span)
		each_conn(dom, mr, 0);
	sfi_list_del(&mr->link);
	pthread_mutex_unlock(&dom->lock);
	free(mr);
	return 0;
}

static struct fi_ops mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mr_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int mr_reg(struct fid *fid, const void *buf, size_t len,
		  uint64_t access, uint64_t offset, uint64_t requested_key,
		  uint64_t flags, struct fid_mr **mrp, void *context)
{
	struct sfi_domain *dom = sfi_of(fid, struct sfi_domain, dom.fid);
	uintptr_t start = (uintptr_t)buf, pg = page_size();
	struct sfi_mr *mr;
	int ret = 0;

	(void)requested_key;
	if (flags || offset)
		return -FI_EINVAL;
	if (fid->fclass != FI_CLASS_DOMAIN)
		return -FI_EINVAL;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	mr->dom = dom;
	mr->mr.fid.fclass = FI_CLASS_MR;
	mr->mr.fid.context = context;
	mr->mr.fid.ops = &mr_fi_ops;
	mr->mr.mem_desc = mr;
	if (access & FI_REMOTE_READ)
		mr->prot |= SCIF_PROT_READ;
	if (access & FI_REMOTE_WRITE)
		mr->prot |= SCIF_PROT_WRITE;

	pthread_mutex_lock(&dom->lock);
	if (mr->prot && len) {
		mr->pages = (void *)(start & ~(pg - 1));
		mr->span = ((start + len + pg - 1) & ~(pg - 1)) -
			   (uintptr_t)mr->pages;
		mr->off = dom->mr_next;
		/* a free page between regions keeps them from merging */
		dom->mr_next += mr->span + pg;
		ret = each_conn(dom, mr, 1);
		if (ret) {
			each_conn(dom, mr, 0);
			pthread_mutex_unlock(&dom->lock);
			free(mr);
			return ret == -ENOMEM ? -FI_ENOMEM : -FI_EIO;
		}
		if (dom->mr_virt)
			mr->mr.key = mr->off - (uintptr_t)mr->pages;
		else
			mr->mr.key = mr->off + (start - (uintptr_t)mr->pages);
	}
	sfi_list_add_tail(&dom->mrs, &mr->link);
	pthread_mutex_unlock(&dom->lock);
	*mrp = &mr->mr;
	return 0;
}

static int mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		   uint64_t access, uint64_t offset, uint64_t requested_key,
		   uint64_t flags, struct fid_mr **mr, void *context)
{
	if (count != 1)
		return -FI_EINVAL;
	return mr_reg(fid, iov->iov_base, iov->iov_len, access, offset,
		      requested_key, flags, mr, context);
}

static int mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
		      uint64_t flags, struct fid_mr **mr)
{
	if (attr->iov_count != 1 || attr->iface != FI_HMEM_SYSTEM)
		return -FI_EINVAL;
	return mr_reg(fid, attr->mr_iov->iov_base, attr->mr_iov->iov_len,
		      attr->access, attr->offset, attr->requested_key, flags,
		      mr, attr->context);
}

struct fi_ops_mr sfi_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = mr_reg,
	.regv = mr_regv,
	.regattr = mr_regattr,
};
