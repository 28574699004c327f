// SPDX-License-Identifier: LGPL-2.1
/*
 * Address vectors: a growing table of SCIF addresses (struct scif_port_id,
 * node then port). For both FI_AV_TABLE and FI_AV_MAP the fi_addr_t of an
 * address is its index in the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scif_fi.h"

int sfi_av_get(struct sfi_av *av, fi_addr_t addr, struct scif_port_id *id)
{
	if (!av || addr >= av->count || !av->used[addr])
		return -FI_EINVAL;
	*id = av->addrs[addr];
	return 0;
}

fi_addr_t sfi_av_reverse(struct sfi_av *av, const struct scif_port_id *id)
{
	size_t i;

	if (!av)
		return FI_ADDR_NOTAVAIL;
	for (i = 0; i < av->count; i++)
		if (av->used[i] && sfi_same_port(&av->addrs[i], id))
			return i;
	return FI_ADDR_NOTAVAIL;
}

static int av_add(struct sfi_av *av, const struct scif_port_id *id,
		  fi_addr_t *out)
{
	if (av->count == av->cap) {
		size_t cap = av->cap ? av->cap * 2 : 64;
		struct scif_port_id *a = realloc(av->addrs, cap * sizeof(*a));
		unsigned char *u;

		if (!a)
			return -FI_ENOMEM;
		av->addrs = a;
		u = realloc(av->used, cap);
		if (!u)
			return -FI_ENOMEM;
		av->used = u;
		av->cap = cap;
	}
	av->addrs[av->count] = *id;
	av->used[av->count] = 1;
	*out = av->count++;
	return 0;
}

static int av_insert(struct fid_av *fav, const void *addr, size_t count,
		     fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct sfi_av *av = sfi_of(fav, struct sfi_av, av);
	const struct scif_port_id *ids = addr;
	fi_addr_t a;
	size_t i;
	int n = 0;

	(void)context;
	if (flags)
		return -FI_EINVAL;
	pthread_mutex_lock(&av->dom->lock);
	for (i = 0; i < count; i++) {
		if (av_add(av, &ids[i], &a))
			a = FI_ADDR_NOTAVAIL;
		else
			n++;
		if (fi_addr)
			fi_addr[i] = a;
	}
	pthread_mutex_unlock(&av->dom->lock);
	return n;
}

static int av_insertsvc(struct fid_av *fav, const char *node,
			const char *service, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	struct scif_port_id id;
	unsigned long n, p;
	char *end;

	if (!node || !service)
		return -FI_EINVAL;
	n = strtoul(node, &end, 0);
	if (*node == '\0' || *end != '\0' || n > 0xffff)
		return -FI_EINVAL;
	p = strtoul(service, &end, 0);
	if (*service == '\0' || *end != '\0' || p > 0xffff || !p)
		return -FI_EINVAL;
	id.node = (uint16_t)n;
	id.port = (uint16_t)p;
	return av_insert(fav, &id, 1, fi_addr, flags, context);
}

static int av_insertsym(struct fid_av *fav, const char *node, size_t nodecnt,
			const char *service, size_t svccnt, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	(void)fav;
	(void)node;
	(void)nodecnt;
	(void)service;
	(void)svccnt;
	(void)fi_addr;
	(void)flags;
	(void)context;
	return -FI_ENOSYS;
}

static int av_remove(struct fid_av *fav, fi_addr_t *fi_addr, size_t count,
		     uint64_t flags)
{
	struct sfi_av *av = sfi_of(fav, struct sfi_av, av);
	size_t i;
	int ret = 0;

	if (flags)
		return -FI_EINVAL;
	pthread_mutex_lock(&av->dom->lock);
	for (i = 0; i < count; i++) {
		if (fi_addr[i] < av->count && av->used[fi_addr[i]])
			av->used[fi_addr[i]] = 0;
		else
			ret = -FI_EINVAL;
	}
	pthread_mutex_unlock(&av->dom->lock);
	return ret;
}

static int av_lookup(struct fid_av *fav, fi_addr_t fi_addr, void *addr,
		     size_t *addrlen)
{
	struct sfi_av *av = sfi_of(fav, struct sfi_av, av);
	struct scif_port_id id;
	size_t len = *addrlen;
	int ret;

	pthread_mutex_lock(&av->dom->lock);
	ret = sfi_av_get(av, fi_addr, &id);
	pthread_mutex_unlock(&av->dom->lock);
	if (ret)
		return -FI_ENOENT;
	memcpy(addr, &id, len < sizeof(id) ? len : sizeof(id));
	*addrlen = sizeof(id);
	return len < sizeof(id) ? -FI_ETOOSMALL : 0;
}

static const char *av_straddr(struct fid_av *fav, const void *addr,
			      char *buf, size_t *len)
{
	const struct scif_port_id *id = addr;
	char s[32];
	int n;

	(void)fav;
	n = snprintf(s, sizeof(s), "scif://%u:%u", id->node, id->port);
	if (*len)
		snprintf(buf, *len, "%s", s);
	*len = (size_t)n + 1;
	return buf;
}

static int av_set(struct fid_av *fav, struct fi_av_set_attr *attr,
		  struct fid_av_set **av_set_fid, void *context)
{
	(void)fav;
	(void)attr;
	(void)av_set_fid;
	(void)context;
	return -FI_ENOSYS;
}

static struct fi_ops_av av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = av_insert,
	.insertsvc = av_insertsvc,
	.insertsym = av_insertsym,
	.remove = av_remove,
	.lookup = av_lookup,
	.straddr = av_straddr,
	.av_set = av_set,
};

static int av_close(struct fid *fid)
{
	struct sfi_av *av = sfi_of(fid, struct sfi_av, av.fid);

	if (av->refs)
		return -FI_EBUSY;
	pthread_mutex_lock(&av->dom->lock);
	av->dom->refs--;
	pthread_mutex_unlock(&av->dom->lock);
	free(av->addrs);
	free(av->used);
	free(av);
	return 0;
}

static struct fi_ops av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = av_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **avp, void *context)
{
	struct sfi_domain *dom = sfi_of(domain, struct sfi_domain, dom);
	struct sfi_av *av;

	if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP &&
	    attr->type != FI_AV_TABLE)
		return -FI_EINVAL;
	/* no asynchronous inserts, no sharing between processes */
	if (attr->flags & (FI_EVENT | FI_READ) || attr->name ||
	    attr->rx_ctx_bits)
		return -FI_ENOSYS;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->dom = dom;
	av->av.fid.fclass = FI_CLASS_AV;
	av->av.fid.context = context;
	av->av.fid.ops = &av_fi_ops;
	av->av.ops = &av_ops;
	pthread_mutex_lock(&dom->lock);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*avp = &av->av;
	return 0;
}
