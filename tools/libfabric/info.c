// SPDX-License-Identifier: LGPL-2.1
/*
 * fi_getinfo() of the scif provider: one description, FI_EP_RDM, narrowed
 * to the hints. Anything asked for that the provider does not do makes it
 * answer FI_ENODATA rather than a description it would not honour.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scif_fi.h"

#define SFI_TX_CAPS	(FI_MSG | FI_TAGGED | FI_RMA | FI_SEND | FI_READ | \
			 FI_WRITE)
#define SFI_RX_CAPS	(FI_MSG | FI_TAGGED | FI_RECV | FI_REMOTE_READ | \
			 FI_REMOTE_WRITE | FI_SOURCE | FI_DIRECTED_RECV | \
			 FI_RMA)
#define SFI_CAPS	(SFI_TX_CAPS | SFI_RX_CAPS | FI_LOCAL_COMM | \
			 FI_REMOTE_COMM)
/*
 * The transmits of an endpoint to one peer run one after the other on one
 * connection, an RMA finishing before the next begins. A write after a send
 * may land before the receiver took the send in (no WAS, RAS).
 */
#define SFI_ORDER	(FI_ORDER_SAS | FI_ORDER_RAR | FI_ORDER_RAW | \
			 FI_ORDER_WAR | FI_ORDER_WAW | FI_ORDER_SAR | \
			 FI_ORDER_SAW)

int sfi_local_node(uint16_t *node)
{
	uint16_t nodes[1];

	return scif_get_node_ids(nodes, 1, node) < 0 ? -1 : 0;
}

static int addr_ok(uint32_t format, const void *addr, size_t len)
{
	if (!addr)
		return 1;
	return format == FI_FORMAT_UNSPEC && len == sizeof(struct scif_port_id);
}

static int copy_addr(void **dst, size_t *dlen, const void *src, size_t len)
{
	if (!src)
		return 0;
	*dst = malloc(len);
	if (!*dst)
		return -FI_ENOMEM;
	memcpy(*dst, src, len);
	*dlen = len;
	return 0;
}

/* "node" is a SCIF node number, "service" a port number. */
static int parse_addr(const char *node, const char *service,
		      struct scif_port_id *id)
{
	char *end;
	unsigned long v;

	if (node) {
		v = strtoul(node, &end, 0);
		if (*node == '\0' || *end != '\0' || v > 0xffff)
			return -FI_ENODATA;
		id->node = (uint16_t)v;
	}
	if (service) {
		v = strtoul(service, &end, 0);
		if (*service == '\0' || *end != '\0' || v > 0xffff)
			return -FI_ENODATA;
		id->port = (uint16_t)v;
	}
	return 0;
}

/* The memory-registration mode, or -1 when the application's is unusable. */
static int choose_mr_mode(uint32_t version, const struct fi_info *hints,
			  uint64_t *caps)
{
	int m = hints && hints->domain_attr ? hints->domain_attr->mr_mode : 0;
	int need_rma = hints && hints->caps & FI_RMA;

	if (FI_VERSION_LT(version, FI_VERSION(1, 5))) {
		if (m == FI_MR_UNSPEC || m == FI_MR_BASIC)
			return FI_MR_BASIC;
		if (need_rma)
			return -1;
		*caps &= ~(uint64_t)(FI_RMA | FI_READ | FI_WRITE |
				     FI_REMOTE_READ | FI_REMOTE_WRITE);
		return m;
	}
	if (!hints || !hints->domain_attr)
		return FI_MR_PROV_KEY;
	if (m == FI_MR_BASIC)
		m = FI_MR_PROV_KEY | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED;
	if (m == FI_MR_SCALABLE)
		m = 0;
	if (!(m & FI_MR_PROV_KEY)) {
		if (need_rma)
			return -1;
		/* keys are only for RMA: without it no mode is needed */
		*caps &= ~(uint64_t)(FI_RMA | FI_READ | FI_WRITE |
				     FI_REMOTE_READ | FI_REMOTE_WRITE);
		return 0;
	}
	return m & (FI_MR_PROV_KEY | FI_MR_VIRT_ADDR);
}

static int progress_ok(enum fi_progress p)
{
	return p == FI_PROGRESS_UNSPEC || p == FI_PROGRESS_MANUAL;
}

static int hints_ok(const struct fi_info *h)
{
	const struct fi_domain_attr *d = h->domain_attr;
	const struct fi_ep_attr *e = h->ep_attr;

	if (h->caps & ~(uint64_t)SFI_CAPS)
		return 0;
	if (h->addr_format != FI_FORMAT_UNSPEC)
		return 0;
	if (!addr_ok(h->addr_format, h->src_addr, h->src_addrlen) ||
	    !addr_ok(h->addr_format, h->dest_addr, h->dest_addrlen))
		return 0;
	if (h->fabric_attr && h->fabric_attr->name &&
	    strcmp(h->fabric_attr->name, SFI_FABRIC_NAME))
		return 0;
	if (e && ((e->type != FI_EP_UNSPEC && e->type != FI_EP_RDM) ||
		  e->max_msg_size > SFI_MAX_MSG || e->tx_ctx_cnt > 1 ||
		  e->rx_ctx_cnt > 1 ||
		  e->protocol != FI_PROTO_UNSPEC))
		return 0;
	if (d && ((d->name && strcmp(d->name, SFI_DOMAIN_NAME)) ||
		  !progress_ok(d->control_progress) ||
		  !progress_ok(d->data_progress) ||
		  d->cq_data_size > SFI_CQ_DATA_SIZE ||
		  d->mr_key_size > sizeof(uint64_t) ||
		  (d->av_type != FI_AV_UNSPEC && d->av_type != FI_AV_MAP &&
		   d->av_type != FI_AV_TABLE)))
		return 0;
	if (h->tx_attr && ((h->tx_attr->caps & ~(uint64_t)SFI_CAPS) ||
			   (h->tx_attr->msg_order & ~(uint64_t)SFI_ORDER) ||
			   h->tx_attr->comp_order != FI_ORDER_NONE ||
			   h->tx_attr->inject_size > SFI_INJECT_SIZE ||
			   h->tx_attr->iov_limit > 1 ||
			   h->tx_attr->rma_iov_limit > 1))
		return 0;
	if (h->rx_attr && ((h->rx_attr->caps & ~(uint64_t)SFI_CAPS) ||
			   (h->rx_attr->msg_order & ~(uint64_t)SFI_ORDER) ||
			   h->rx_attr->comp_order != FI_ORDER_NONE ||
			   h->rx_attr->iov_limit > 1))
		return 0;
	return 1;
}

static void fill(struct fi_info *fi, uint64_t caps, int mr_mode,
		 const struct fi_info *h)
{
	const struct fi_domain_attr *hd = h ? h->domain_attr : NULL;

	fi->caps = caps;
	fi->mode = 0;
	fi->addr_format = FI_FORMAT_UNSPEC;

	fi->tx_attr->caps = caps & SFI_TX_CAPS;
	fi->tx_attr->msg_order = SFI_ORDER;
	fi->tx_attr->comp_order = FI_ORDER_NONE;
	fi->tx_attr->inject_size = SFI_INJECT_SIZE;
	fi->tx_attr->size = SFI_QUEUE_SIZE;
	fi->tx_attr->iov_limit = 1;
	fi->tx_attr->rma_iov_limit = 1;
	fi->tx_attr->op_flags = h && h->tx_attr ? h->tx_attr->op_flags : 0;

	fi->rx_attr->caps = caps & SFI_RX_CAPS;
	fi->rx_attr->msg_order = SFI_ORDER;
	fi->rx_attr->comp_order = FI_ORDER_NONE;
	fi->rx_attr->size = SFI_QUEUE_SIZE;
	fi->rx_attr->iov_limit = 1;
	fi->rx_attr->op_flags = h && h->rx_attr ? h->rx_attr->op_flags : 0;

	fi->ep_attr->type = FI_EP_RDM;
	fi->ep_attr->protocol = FI_PROTO_UNSPEC;
	fi->ep_attr->protocol_version = 1;
	fi->ep_attr->max_msg_size = SFI_MAX_MSG;
	fi->ep_attr->max_order_raw_size = SFI_MAX_MSG;
	fi->ep_attr->max_order_war_size = SFI_MAX_MSG;
	fi->ep_attr->max_order_waw_size = SFI_MAX_MSG;
	/*
	 * Tags are matched on all 64 bits: without a format of the
	 * application's own, say so (Open MPI's ofi MTL sizes its
	 * communicator ID field from the top bit set here).
	 */
	fi->ep_attr->mem_tag_format = h && h->ep_attr &&
		h->ep_attr->mem_tag_format ? h->ep_attr->mem_tag_format :
		~0ULL;
	fi->ep_attr->tx_ctx_cnt = 1;
	fi->ep_attr->rx_ctx_cnt = 1;

	fi->domain_attr->threading = hd && hd->threading != FI_THREAD_UNSPEC ?
		hd->threading : FI_THREAD_SAFE;
	fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	/*
	 * Nothing can be overrun: the queues and the unexpected-message
	 * store grow, and the SCIF streams are flow-controlled.
	 */
	fi->domain_attr->resource_mgmt = hd && hd->resource_mgmt ?
		hd->resource_mgmt : FI_RM_ENABLED;
	fi->domain_attr->av_type = hd && hd->av_type == FI_AV_TABLE ?
		FI_AV_TABLE : FI_AV_MAP;
	fi->domain_attr->mr_mode = mr_mode;
	fi->domain_attr->mr_key_size = sizeof(uint64_t);
	fi->domain_attr->cq_data_size = SFI_CQ_DATA_SIZE;
	fi->domain_attr->cq_cnt = 256;
	fi->domain_attr->ep_cnt = 256;
	fi->domain_attr->tx_ctx_cnt = 256;
	fi->domain_attr->rx_ctx_cnt = 256;
	fi->domain_attr->max_ep_tx_ctx = 1;
	fi->domain_attr->max_ep_rx_ctx = 1;
	fi->domain_attr->mr_iov_limit = 1;
	fi->domain_attr->mr_cnt = 65536;
	fi->domain_attr->caps = caps & (FI_LOCAL_COMM | FI_REMOTE_COMM);
}

int sfi_getinfo(uint32_t version, const char *node, const char *service,
		uint64_t flags, const struct fi_info *hints,
		struct fi_info **info)
{
	struct scif_port_id id = { 0, 0 };
	struct fi_info *fi;
	uint64_t caps;
	uint16_t self;
	int mr_mode, ret;

	*info = NULL;
	if (sfi_local_node(&self))
		return -FI_ENODATA;
	if (hints && !hints_ok(hints))
		return -FI_ENODATA;
	caps = hints && hints->caps ? hints->caps : SFI_CAPS;
	if (caps & FI_MSG || caps & FI_TAGGED || caps & FI_RMA) {
		if (!(caps & (FI_SEND | FI_RECV | FI_READ | FI_WRITE |
			      FI_REMOTE_READ | FI_REMOTE_WRITE)))
			caps |= (FI_SEND | FI_RECV) |
				(caps & FI_RMA ? FI_READ | FI_WRITE |
				 FI_REMOTE_READ | FI_REMOTE_WRITE : 0);
	}
	caps |= FI_LOCAL_COMM | FI_REMOTE_COMM;
	mr_mode = choose_mr_mode(version, hints, &caps);
	if (mr_mode < 0)
		return -FI_ENODATA;
	if ((node || service) && parse_addr(node, service, &id))
		return -FI_ENODATA;

	fi = fi_allocinfo();
	if (!fi)
		return -FI_ENOMEM;
	fill(fi, caps, mr_mode, hints);
	fi->fabric_attr->name = strdup(SFI_FABRIC_NAME);
	fi->fabric_attr->prov_version = SFI_PROV_VERSION;
	fi->fabric_attr->api_version = SFI_API_VERSION;
	fi->domain_attr->name = strdup(SFI_DOMAIN_NAME);
	if (!fi->fabric_attr->name || !fi->domain_attr->name) {
		ret = -FI_ENOMEM;
		goto fail;
	}
	ret = 0;
	if (hints)
		ret = copy_addr(&fi->src_addr, &fi->src_addrlen,
				hints->src_addr, hints->src_addrlen) ?:
		      copy_addr(&fi->dest_addr, &fi->dest_addrlen,
				hints->dest_addr, hints->dest_addrlen);
	if (!ret && (node || service)) {
		if (flags & FI_SOURCE) {
			if (!node)
				id.node = self;
			free(fi->src_addr);
			fi->src_addr = NULL;
			ret = copy_addr(&fi->src_addr, &fi->src_addrlen,
					&id, sizeof(id));
		} else {
			free(fi->dest_addr);
			fi->dest_addr = NULL;
			ret = copy_addr(&fi->dest_addr, &fi->dest_addrlen,
					&id, sizeof(id));
		}
	}
	if (ret)
		goto fail;
	*info = fi;
	return 0;
fail:
	fi_freeinfo(fi);
	return ret;
}
