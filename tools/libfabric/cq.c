// SPDX-License-Identifier: LGPL-2.1
/*
 * Completion queues: a ring of finished operations that grows when full
 * (no completion is ever dropped) and a list of failed ones. Reading a CQ
 * first runs the domain's progress engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scif_fi.h"

static size_t entry_size(enum fi_cq_format fmt)
{
	switch (fmt) {
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	case FI_CQ_FORMAT_TAGGED:
		return sizeof(struct fi_cq_tagged_entry);
	default:
		return sizeof(struct fi_cq_entry);
	}
}

static int cq_grow(struct sfi_cq *cq)
{
	size_t cap = cq->cap * 2, i;
	struct sfi_cqe *r = malloc(cap * sizeof(*r));

	if (!r)
		return -1;
	for (i = 0; i < cq->count; i++)
		r[i] = cq->ring[(cq->head + i) % cq->cap];
	free(cq->ring);
	cq->ring = r;
	cq->cap = cap;
	cq->head = 0;
	return 0;
}

void sfi_cq_done(struct sfi_cq *cq, void *context, uint64_t flags,
		 size_t len, void *buf, uint64_t data, uint64_t tag,
		 fi_addr_t src)
{
	struct sfi_cqe *e;

	if (!cq)
		return;
	if (cq->count == cq->cap && cq_grow(cq)) {
		sfi_cq_fail(cq, context, flags, FI_ENOMEM, len, 0, data, tag);
		return;
	}
	e = &cq->ring[(cq->head + cq->count++) % cq->cap];
	e->e.op_context = context;
	e->e.flags = flags;
	e->e.len = len;
	e->e.buf = buf;
	e->e.data = data;
	e->e.tag = tag;
	e->src = src;
}

void sfi_cq_fail(struct sfi_cq *cq, void *context, uint64_t flags, int err,
		 size_t len, size_t olen, uint64_t data, uint64_t tag)
{
	struct sfi_cq_err *e;

	if (!cq)
		return;
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->e.op_context = context;
	e->e.flags = flags;
	e->e.len = len;
	e->e.olen = olen;
	e->e.data = data;
	e->e.tag = tag;
	e->e.err = err;
	e->e.prov_errno = err;
	sfi_list_add_tail(&cq->errs, &e->link);
}

static void copy_out(struct sfi_cq *cq, char *dst, const struct sfi_cqe *e)
{
	switch (cq->fmt) {
	case FI_CQ_FORMAT_TAGGED:
		memcpy(dst, &e->e, sizeof(struct fi_cq_tagged_entry));
		break;
	case FI_CQ_FORMAT_DATA:
		memcpy(dst, &e->e, sizeof(struct fi_cq_data_entry));
		break;
	case FI_CQ_FORMAT_MSG:
		memcpy(dst, &e->e, sizeof(struct fi_cq_msg_entry));
		break;
	default:
		memcpy(dst, &e->e, sizeof(struct fi_cq_entry));
		break;
	}
}

/* Called with the lock held. */
static ssize_t cq_take(struct sfi_cq *cq, void *buf, size_t count,
		       fi_addr_t *src)
{
	size_t n = 0, sz = entry_size(cq->fmt);

	if (!sfi_list_empty(&cq->errs))
		return -FI_EAVAIL;
	while (n < count && cq->count) {
		const struct sfi_cqe *e = &cq->ring[cq->head];

		copy_out(cq, (char *)buf + n * sz, e);
		if (src)
			src[n] = e->src;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
		n++;
	}
	return n ? (ssize_t)n : -FI_EAGAIN;
}

static ssize_t cq_readfrom(struct fid_cq *fcq, void *buf, size_t count,
			   fi_addr_t *src)
{
	struct sfi_cq *cq = sfi_of(fcq, struct sfi_cq, cq);
	ssize_t ret;

	pthread_mutex_lock(&cq->dom->lock);
	ret = cq_take(cq, buf, count, src);
	if (ret == -FI_EAGAIN) {
		sfi_domain_progress(cq->dom);
		ret = cq_take(cq, buf, count, src);
	}
	if (ret == -FI_EAGAIN && sfi_domain_idle(cq->dom))
		ret = cq_take(cq, buf, count, src);
	if (ret != -FI_EAGAIN)
		cq->dom->idle_since = 0;
	pthread_mutex_unlock(&cq->dom->lock);
	return ret;
}

static ssize_t cq_read(struct fid_cq *fcq, void *buf, size_t count)
{
	return cq_readfrom(fcq, buf, count, NULL);
}

static ssize_t cq_readerr(struct fid_cq *fcq, struct fi_cq_err_entry *buf,
			  uint64_t flags)
{
	struct sfi_cq *cq = sfi_of(fcq, struct sfi_cq, cq);
	struct sfi_cq_err *e;

	(void)flags;
	pthread_mutex_lock(&cq->dom->lock);
	if (sfi_list_empty(&cq->errs)) {
		pthread_mutex_unlock(&cq->dom->lock);
		return -FI_EAGAIN;
	}
	e = sfi_of(cq->errs.next, struct sfi_cq_err, link);
	sfi_list_del(&e->link);
	pthread_mutex_unlock(&cq->dom->lock);
	buf->op_context = e->e.op_context;
	buf->flags = e->e.flags;
	buf->len = e->e.len;
	buf->buf = e->e.buf;
	buf->data = e->e.data;
	buf->tag = e->e.tag;
	buf->olen = e->e.olen;
	buf->err = e->e.err;
	buf->prov_errno = e->e.prov_errno;
	buf->err_data_size = 0;
	free(e);
	return 1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static ssize_t cq_sreadfrom(struct fid_cq *fcq, void *buf, size_t count,
			    fi_addr_t *src, const void *cond, int timeout)
{
	struct sfi_cq *cq = sfi_of(fcq, struct sfi_cq, cq);
	long end = timeout < 0 ? -1 : now_ms() + timeout;
	ssize_t ret;

	(void)cond;
	pthread_mutex_lock(&cq->dom->lock);
	for (;;) {
		sfi_domain_progress(cq->dom);
		ret = cq_take(cq, buf, count, src);
		if (ret != -FI_EAGAIN)
			break;
		if (cq->signaled || (end >= 0 && now_ms() >= end))
			break;
		sfi_domain_wait(cq->dom, 10000);
	}
	cq->signaled = 0;
	pthread_mutex_unlock(&cq->dom->lock);
	return ret;
}

static ssize_t cq_sread(struct fid_cq *fcq, void *buf, size_t count,
			const void *cond, int timeout)
{
	return cq_sreadfrom(fcq, buf, count, NULL, cond, timeout);
}

/* A thread in sread() returns -FI_EAGAIN within its next 10 ms slice. */
static int cq_signal(struct fid_cq *fcq)
{
	struct sfi_cq *cq = sfi_of(fcq, struct sfi_cq, cq);

	pthread_mutex_lock(&cq->dom->lock);
	cq->signaled = 1;
	pthread_mutex_unlock(&cq->dom->lock);
	return 0;
}

static const char *cq_strerror(struct fid_cq *fcq, int prov_errno,
			       const void *err_data, char *buf, size_t len)
{
	const char *s = fi_strerror(prov_errno);

	(void)fcq;
	(void)err_data;
	if (buf && len) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	return s;
}

static struct fi_ops_cq cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = cq_read,
	.readfrom = cq_readfrom,
	.readerr = cq_readerr,
	.sread = cq_sread,
	.sreadfrom = cq_sreadfrom,
	.signal = cq_signal,
	.strerror = cq_strerror,
};

static int cq_close(struct fid *fid)
{
	struct sfi_cq *cq = sfi_of(fid, struct sfi_cq, cq.fid);
	struct sfi_list *pos, *tmp;

	if (cq->refs)
		return -FI_EBUSY;
	pthread_mutex_lock(&cq->dom->lock);
	cq->dom->refs--;
	pthread_mutex_unlock(&cq->dom->lock);
	sfi_list_each(pos, tmp, &cq->errs)
		free(sfi_of(pos, struct sfi_cq_err, link));
	free(cq->ring);
	free(cq);
	return 0;
}

static struct fi_ops cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cq_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cqp, void *context)
{
	struct sfi_domain *dom = sfi_of(domain, struct sfi_domain, dom);
	struct sfi_cq *cq;

	switch (attr->format) {
	case FI_CQ_FORMAT_UNSPEC:
	case FI_CQ_FORMAT_CONTEXT:
	case FI_CQ_FORMAT_MSG:
	case FI_CQ_FORMAT_DATA:
	case FI_CQ_FORMAT_TAGGED:
		break;
	default:
		return -FI_ENOSYS;
	}
	/* sread() polls the connections; no wait object is handed out */
	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
	case FI_WAIT_YIELD:
		break;
	default:
		return -FI_ENOSYS;
	}
	if (attr->flags & FI_AFFINITY)
		return -FI_ENOSYS;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->cap = attr->size ? attr->size : SFI_QUEUE_SIZE;
	cq->ring = calloc(cq->cap, sizeof(*cq->ring));
	if (!cq->ring) {
		free(cq);
		return -FI_ENOMEM;
	}
	cq->fmt = attr->format == FI_CQ_FORMAT_UNSPEC ?
		FI_CQ_FORMAT_CONTEXT : attr->format;
	attr->format = cq->fmt;
	sfi_list_init(&cq->errs);
	cq->dom = dom;
	cq->cq.fid.fclass = FI_CLASS_CQ;
	cq->cq.fid.context = context;
	cq->cq.fid.ops = &cq_fi_ops;
	cq->cq.ops = &cq_ops;
	pthread_mutex_lock(&dom->lock);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*cqp = &cq->cq;
	return 0;
}
