// SPDX-License-Identifier: LGPL-2.1
/*
 * Event queues. Reliable datagram endpoints have no connection events and
 * the address vectors insert synchronously, so the provider itself never
 * posts an event; the queue carries what the application writes with
 * fi_eq_write(), which programs use to wake their own waiting threads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scif_fi.h"

struct sfi_eq_ev {
	struct sfi_list link;
	uint32_t event;
	size_t len;
	char data[];
};

struct sfi_eq {
	struct fid_eq eq;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct sfi_list evs;
};

static ssize_t eq_take(struct sfi_eq *q, uint32_t *event, void *buf,
		       size_t len, uint64_t flags)
{
	struct sfi_eq_ev *ev;
	ssize_t n;

	if (sfi_list_empty(&q->evs))
		return -FI_EAGAIN;
	ev = sfi_of(q->evs.next, struct sfi_eq_ev, link);
	if (len < ev->len)
		return -FI_ETOOSMALL;
	if (event)
		*event = ev->event;
	memcpy(buf, ev->data, ev->len);
	n = (ssize_t)ev->len;
	if (!(flags & FI_PEEK)) {
		sfi_list_del(&ev->link);
		free(ev);
	}
	return n;
}

static ssize_t eq_read(struct fid_eq *feq, uint32_t *event, void *buf,
		       size_t len, uint64_t flags)
{
	struct sfi_eq *q = sfi_of(feq, struct sfi_eq, eq);
	ssize_t n;

	pthread_mutex_lock(&q->lock);
	n = eq_take(q, event, buf, len, flags);
	pthread_mutex_unlock(&q->lock);
	return n;
}

static ssize_t eq_readerr(struct fid_eq *feq, struct fi_eq_err_entry *buf,
			  uint64_t flags)
{
	(void)feq;
	(void)buf;
	(void)flags;
	return -FI_EAGAIN;
}

static ssize_t eq_write(struct fid_eq *feq, uint32_t event, const void *buf,
			size_t len, uint64_t flags)
{
	struct sfi_eq *q = sfi_of(feq, struct sfi_eq, eq);
	struct sfi_eq_ev *ev;

	if (flags)
		return -FI_EINVAL;
	ev = malloc(sizeof(*ev) + len);
	if (!ev)
		return -FI_ENOMEM;
	ev->event = event;
	ev->len = len;
	memcpy(ev->data, buf, len);
	pthread_mutex_lock(&q->lock);
	sfi_list_add_tail(&q->evs, &ev->link);
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return (ssize_t)len;
}

static ssize_t eq_sread(struct fid_eq *feq, uint32_t *event, void *buf,
			size_t len, int timeout, uint64_t flags)
{
	struct sfi_eq *q = sfi_of(feq, struct sfi_eq, eq);
	struct timespec end;
	ssize_t n;

	clock_gettime(CLOCK_REALTIME, &end);
	if (timeout >= 0) {
		end.tv_sec += timeout / 1000;
		end.tv_nsec += (timeout % 1000) * 1000000L;
		if (end.tv_nsec >= 1000000000L) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&q->lock);
	while ((n = eq_take(q, event, buf, len, flags)) == -FI_EAGAIN) {
		int r = timeout < 0 ? pthread_cond_wait(&q->cond, &q->lock) :
			pthread_cond_timedwait(&q->cond, &q->lock, &end);

		if (r == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

static const char *eq_strerror(struct fid_eq *feq, int prov_errno,
			       const void *err_data, char *buf, size_t len)
{
	const char *s = fi_strerror(prov_errno);

	(void)feq;
	(void)err_data;
	if (buf && len) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	return s;
}

static struct fi_ops_eq eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = eq_read,
	.readerr = eq_readerr,
	.write = eq_write,
	.sread = eq_sread,
	.strerror = eq_strerror,
};

static int eq_close(struct fid *fid)
{
	struct sfi_eq *q = sfi_of(fid, struct sfi_eq, eq.fid);
	struct sfi_list *pos, *tmp;

	sfi_list_each(pos, tmp, &q->evs)
		free(sfi_of(pos, struct sfi_eq_ev, link));
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q);
	return 0;
}

static struct fi_ops eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = eq_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **eqp, void *context)
{
	struct sfi_eq *q;

	(void)fabric;
	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
		break;
	default:
		return -FI_ENOSYS;
	}
	if (attr->flags & FI_AFFINITY)
		return -FI_ENOSYS;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -FI_ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	sfi_list_init(&q->evs);
	q->eq.fid.fclass = FI_CLASS_EQ;
	q->eq.fid.context = context;
	q->eq.fid.ops = &eq_fi_ops;
	q->eq.ops = &eq_ops;
	*eqp = &q->eq;
	return 0;
}
