// SPDX-License-Identifier: LGPL-2.1
/*
 * The domain: the lock every object below it shares, the list of its
 * endpoints and memory regions, and the progress engine that the blocking
 * and polling calls (CQ, counter reads) drive.
 */
#define _GNU_SOURCE		/* ppoll() */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scif_fi.h"

void sfi_domain_progress(struct sfi_domain *dom)
{
	struct sfi_list *pos, *tmp;

	sfi_list_each(pos, tmp, &dom->eps) {
		struct sfi_ep *ep = sfi_of(pos, struct sfi_ep, link);

		if (ep->enabled)
			sfi_ep_progress(ep);
	}
}

/*
 * Sleep up to @us microseconds until some endpoint of @dom has something
 * to do. Called and returns with the lock held; drops it while asleep.
 */
void sfi_domain_wait(struct sfi_domain *dom, long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	struct pollfd stack[64], *fds = stack;
	struct sfi_list *pos, *tmp, *cpos, *ctmp;
	size_t n = 0, cap = 64;

	sfi_list_each(pos, tmp, &dom->eps) {
		struct sfi_ep *ep = sfi_of(pos, struct sfi_ep, link);

		if (!ep->enabled)
			continue;
		if (n < cap)
			fds[n++] = (struct pollfd){ scif_get_fd(ep->lep), POLLIN, 0 };
		sfi_list_each(cpos, ctmp, &ep->conns) {
			struct sfi_conn *c = sfi_of(cpos, struct sfi_conn, link);
			short ev = POLLIN;

			if (c->state == SFI_DEAD || n >= cap)
				continue;
			if (c->state == SFI_CONNECTING || !sfi_list_empty(&c->txq))
				ev |= POLLOUT;
			fds[n++] = (struct pollfd){ scif_get_fd(c->epd), ev, 0 };
		}
	}
	pthread_mutex_unlock(&dom->lock);
	if (n)
		ppoll(fds, n, &ts, NULL);
	pthread_mutex_lock(&dom->lock);
	/* the next progress call looks for connection requests (ep.c) */
	sfi_list_each(pos, tmp, &dom->eps)
		sfi_of(pos, struct sfi_ep, link)->accept_skip = 0;
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

/*
 * A CQ read of @dom ran the progress engine and found no completion.
 * Polling callers such as MPI libraries repeat that read in a tight
 * loop; where processes or virtual CPUs outnumber the CPUs, the loop
 * takes the CPU from the peers it waits for. With idle_wait_us set, once
 * reads have found nothing for that long, sleep up to that long until
 * a SCIF descriptor of the domain is ready (which ends the sleep at
 * once), then run the progress engine again. Returns 1 if it slept, 0 if
 * the caller should go on polling. Called with the lock held.
 */
int sfi_domain_idle(struct sfi_domain *dom)
{
	long now;

	if (!sfi_idle_wait_us)
		return 0;
	now = now_us();
	if (!dom->idle_since) {
		dom->idle_since = now;
		return 0;
	}
	if (now - dom->idle_since < sfi_idle_wait_us)
		return 0;
	sfi_domain_wait(dom, sfi_idle_wait_us);
	sfi_domain_progress(dom);
	return 1;
}

static int domain_close(struct fid *fid)
{
	struct sfi_domain *d = sfi_of(fid, struct sfi_domain, dom.fid);

	if (d->refs || !sfi_list_empty(&d->eps) || !sfi_list_empty(&d->mrs))
		return -FI_EBUSY;
	d->fab->refs--;
	pthread_mutex_destroy(&d->lock);
	free(d);
	return 0;
}

static struct fi_ops domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = domain_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int no_scalable_ep(struct fid_domain *domain, struct fi_info *info,
			  struct fid_ep **sep, void *context)
{
	(void)domain;
	(void)info;
	(void)sep;
	(void)context;
	return -FI_ENOSYS;
}

static int no_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
			struct fid_poll **pollset)
{
	(void)domain;
	(void)attr;
	(void)pollset;
	return -FI_ENOSYS;
}

static int no_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
		      struct fid_stx **stx, void *context)
{
	(void)domain;
	(void)attr;
	(void)stx;
	(void)context;
	return -FI_ENOSYS;
}

static int no_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
		      struct fid_ep **rx_ep, void *context)
{
	(void)domain;
	(void)attr;
	(void)rx_ep;
	(void)context;
	return -FI_ENOSYS;
}

static int no_query_atomic(struct fid_domain *domain, enum fi_datatype dt,
			   enum fi_op op, struct fi_atomic_attr *attr,
			   uint64_t flags)
{
	(void)domain;
	(void)dt;
	(void)op;
	(void)attr;
	(void)flags;
	return -FI_EOPNOTSUPP;
}

static int no_query_collective(struct fid_domain *domain,
			       enum fi_collective_op coll,
			       struct fi_collective_attr *attr, uint64_t flags)
{
	(void)domain;
	(void)coll;
	(void)attr;
	(void)flags;
	return -FI_EOPNOTSUPP;
}

static int endpoint2(struct fid_domain *domain, struct fi_info *info,
		     struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EINVAL;
	return sfi_ep_open(domain, info, ep, context);
}

static struct fi_ops_domain domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = sfi_av_open,
	.cq_open = sfi_cq_open,
	.endpoint = sfi_ep_open,
	.scalable_ep = no_scalable_ep,
	.cntr_open = sfi_cntr_open,
	.poll_open = no_poll_open,
	.stx_ctx = no_stx_ctx,
	.srx_ctx = no_srx_ctx,
	.query_atomic = no_query_atomic,
	.query_collective = no_query_collective,
	.endpoint2 = endpoint2,
};

int sfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **dom, void *context)
{
	struct sfi_fabric *f = sfi_of(fabric, struct sfi_fabric, fab);
	struct sfi_domain *d;
	int mode;

	if (!info || !info->domain_attr)
		return -FI_EINVAL;
	if (info->domain_attr->name &&
	    strcmp(info->domain_attr->name, SFI_DOMAIN_NAME))
		return -FI_EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FI_ENOMEM;
	pthread_mutex_init(&d->lock, NULL);
	sfi_list_init(&d->eps);
	sfi_list_init(&d->mrs);
	d->mr_next = SFI_MR_SPACE_BASE;
	mode = info->domain_attr->mr_mode;
	d->mr_virt = mode == FI_MR_BASIC || (mode & FI_MR_VIRT_ADDR);
	d->fab = f;
	d->dom.fid.fclass = FI_CLASS_DOMAIN;
	d->dom.fid.context = context;
	d->dom.fid.ops = &domain_fi_ops;
	d->dom.ops = &domain_ops;
	d->dom.mr = &sfi_mr_ops;
	f->refs++;
	*dom = &d->dom;
	return 0;
}
