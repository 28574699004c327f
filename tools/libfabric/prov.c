// SPDX-License-Identifier: LGPL-2.1
/*
 * The provider's entry point, loaded by libfabric from libscif-fi.so, and
 * its fabric object.
 */
#include <stdlib.h>
#include <string.h>

#include "scif_fi.h"

size_t sfi_eager_max = SFI_EAGER_DEFAULT;
long sfi_idle_wait_us;

/* All state hangs off the objects the application closes: nothing global. */
static void sfi_cleanup(void)
{
}

struct fi_provider sfi_prov = {
	.name = SFI_NAME,
	.version = SFI_PROV_VERSION,
	.fi_version = SFI_API_VERSION,
	.getinfo = sfi_getinfo,
	.fabric = sfi_fabric_open,
	.cleanup = sfi_cleanup,
};

static int fabric_close(struct fid *fid)
{
	struct sfi_fabric *f = sfi_of(fid, struct sfi_fabric, fab.fid);

	if (f->refs)
		return -FI_EBUSY;
	free(f);
	return 0;
}

int sfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid;
	(void)bfid;
	(void)flags;
	return -FI_ENOSYS;
}

int sfi_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid;
	(void)command;
	(void)arg;
	return -FI_ENOSYS;
}

int sfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context)
{
	(void)fid;
	(void)name;
	(void)flags;
	(void)ops;
	(void)context;
	return -FI_ENOSYS;
}

static struct fi_ops fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fabric_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int no_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
			 struct fid_pep **pep, void *context)
{
	(void)fabric;
	(void)info;
	(void)pep;
	(void)context;
	return -FI_ENOSYS;
}

static int no_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
			struct fid_wait **waitset)
{
	(void)fabric;
	(void)attr;
	(void)waitset;
	return -FI_ENOSYS;
}

static int no_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	(void)fabric;
	(void)fids;
	(void)count;
	return -FI_ENOSYS;
}

static int domain2(struct fid_fabric *fabric, struct fi_info *info,
		   struct fid_domain **dom, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EINVAL;
	return sfi_domain_open(fabric, info, dom, context);
}

static struct fi_ops_fabric fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = sfi_domain_open,
	.passive_ep = no_passive_ep,
	.eq_open = sfi_eq_open,
	.wait_open = no_wait_open,
	.trywait = no_trywait,
	.domain2 = domain2,
};

int sfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		    void *context)
{
	struct sfi_fabric *f;

	if (attr->name && strcmp(attr->name, SFI_FABRIC_NAME))
		return -FI_EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -FI_ENOMEM;
	f->fab.fid.fclass = FI_CLASS_FABRIC;
	f->fab.fid.context = context;
	f->fab.fid.ops = &fabric_fi_ops;
	f->fab.ops = &fabric_ops;
	*fabric = &f->fab;
	return 0;
}

FI_EXT_INI
{
	size_t eager, staging, slot;
	int idle;

	fi_param_define(&sfi_prov, "eager_size", FI_PARAM_SIZE_T,
			"Largest message sent inline through the connection's byte stream; larger ones are copied by RMA (default: %d)",
			SFI_EAGER_DEFAULT);
	if (fi_param_get_size_t(&sfi_prov, "eager_size", &eager) == 0)
		sfi_eager_max = eager;
	fi_param_define(&sfi_prov, "idle_wait_us", FI_PARAM_INT,
			"Once fi_cq_read has found nothing for this many microseconds in a row, each further empty read sleeps in poll() up to this long, until a SCIF descriptor is ready; for hosts with more busy processes or virtual CPUs than CPUs (default 0: never sleep)");
	if (fi_param_get_int(&sfi_prov, "idle_wait_us", &idle) == 0 &&
	    idle > 0)
		sfi_idle_wait_us = idle;
	fi_param_define(&sfi_prov, "rv_staging", FI_PARAM_SIZE_T,
			"Bytes of the staging window each connection registers once, on its first message above the eager size, and copies such messages through chunk by chunk; 0: register every such message's own buffer instead (default: %lu)",
			SFI_RV_STAGING_DEFAULT);
	if (fi_param_get_size_t(&sfi_prov, "rv_staging", &staging) == 0)
		sfi_rv_staging = staging;
	fi_param_define(&sfi_prov, "rv_slot", FI_PARAM_SIZE_T,
			"Bytes of one chunk of the staging window (default: %lu)",
			SFI_RV_SLOT_DEFAULT);
	if (fi_param_get_size_t(&sfi_prov, "rv_slot", &slot) == 0 && slot)
		sfi_rv_slot = slot;
	return &sfi_prov;
}
