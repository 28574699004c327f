// SPDX-License-Identifier: LGPL-2.1
/*
 * Counters of completed and failed operations. Reading one runs the
 * domain's progress engine, as a CQ read does.
 */
#include <stdlib.h>
#include <time.h>

#include "scif_fi.h"

void sfi_cntr_bump(struct sfi_cntr *cntr, int failed)
{
	if (!cntr)
		return;
	if (failed)
		cntr->err++;
	else
		cntr->val++;
}

static uint64_t cntr_read(struct fid_cntr *fc)
{
	struct sfi_cntr *c = sfi_of(fc, struct sfi_cntr, cntr);
	uint64_t v;

	pthread_mutex_lock(&c->dom->lock);
	sfi_domain_progress(c->dom);
	v = c->val;
	pthread_mutex_unlock(&c->dom->lock);
	return v;
}

static uint64_t cntr_readerr(struct fid_cntr *fc)
{
	struct sfi_cntr *c = sfi_of(fc, struct sfi_cntr, cntr);
	uint64_t v;

	pthread_mutex_lock(&c->dom->lock);
	sfi_domain_progress(c->dom);
	v = c->err;
	pthread_mutex_unlock(&c->dom->lock);
	return v;
}

static int cntr_change(struct fid_cntr *fc, uint64_t value, int err, int add)
{
	struct sfi_cntr *c = sfi_of(fc, struct sfi_cntr, cntr);
	uint64_t *p = err ? &c->err : &c->val;

	pthread_mutex_lock(&c->dom->lock);
	*p = add ? *p + value : value;
	pthread_mutex_unlock(&c->dom->lock);
	return 0;
}

static int cntr_add(struct fid_cntr *fc, uint64_t value)
{
	return cntr_change(fc, value, 0, 1);
}

static int cntr_set(struct fid_cntr *fc, uint64_t value)
{
	return cntr_change(fc, value, 0, 0);
}

static int cntr_adderr(struct fid_cntr *fc, uint64_t value)
{
	return cntr_change(fc, value, 1, 1);
}

static int cntr_seterr(struct fid_cntr *fc, uint64_t value)
{
	return cntr_change(fc, value, 1, 0);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int cntr_wait(struct fid_cntr *fc, uint64_t threshold, int timeout)
{
	struct sfi_cntr *c = sfi_of(fc, struct sfi_cntr, cntr);
	long end = timeout < 0 ? -1 : now_ms() + timeout;
	uint64_t err0;
	int ret;

	pthread_mutex_lock(&c->dom->lock);
	err0 = c->err;
	for (;;) {
		sfi_domain_progress(c->dom);
		if (c->val >= threshold) {
			ret = 0;
			break;
		}
		if (c->err != err0) {
			ret = -FI_EAVAIL;
			break;
		}
		if (end >= 0 && now_ms() >= end) {
			ret = -FI_ETIMEDOUT;
			break;
		}
		sfi_domain_wait(c->dom, 10000);
	}
	pthread_mutex_unlock(&c->dom->lock);
	return ret;
}

static struct fi_ops_cntr cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = cntr_read,
	.readerr = cntr_readerr,
	.add = cntr_add,
	.set = cntr_set,
	.wait = cntr_wait,
	.adderr = cntr_adderr,
	.seterr = cntr_seterr,
};

static int cntr_close(struct fid *fid)
{
	struct sfi_cntr *c = sfi_of(fid, struct sfi_cntr, cntr.fid);

	if (c->refs)
		return -FI_EBUSY;
	pthread_mutex_lock(&c->dom->lock);
	c->dom->refs--;
	pthread_mutex_unlock(&c->dom->lock);
	free(c);
	return 0;
}

static struct fi_ops cntr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cntr_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntrp, void *context)
{
	struct sfi_domain *dom = sfi_of(domain, struct sfi_domain, dom);
	struct sfi_cntr *c;

	if (attr) {
		if (attr->events != FI_CNTR_EVENTS_COMP || attr->flags)
			return -FI_ENOSYS;
		if (attr->wait_obj != FI_WAIT_NONE &&
		    attr->wait_obj != FI_WAIT_UNSPEC &&
		    attr->wait_obj != FI_WAIT_YIELD)
			return -FI_ENOSYS;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	c->dom = dom;
	c->cntr.fid.fclass = FI_CLASS_CNTR;
	c->cntr.fid.context = context;
	c->cntr.fid.ops = &cntr_fi_ops;
	c->cntr.ops = &cntr_ops;
	pthread_mutex_lock(&dom->lock);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*cntrp = &c->cntr;
	return 0;
}
