/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The "scif" libfabric provider: reliable datagram endpoints (FI_EP_RDM)
 * with messages, tagged messages and RMA over SCIF connections.
 * Documentation/libfabric.rst describes the design; in short:
 *
 * - an endpoint listens on a SCIF port; its address is that node:port;
 * - the first transfer to a peer connects to it (without blocking), later
 *   ones reuse the connection; connections are accepted by the progress
 *   engine, which runs inside the provider's calls (FI_PROGRESS_MANUAL);
 * - messages up to the eager limit are framed into the connection's byte
 *   stream; larger ones send only a header, the receiver copies the data
 *   out of a window the sender opened (scif_vreadfrom) and answers FIN;
 * - every memory region open for remote access is registered on every
 *   connection of its domain at the same offset, so its key is that
 *   offset and an RMA to it is one scif_vwriteto/vreadfrom.
 *
 * One lock per domain covers everything below it.
 */
#ifndef SCIF_FI_H
#define SCIF_FI_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_prov.h>

#include "scif.h"

#define SFI_NAME		"scif"
#define SFI_FABRIC_NAME		"scif"
#define SFI_DOMAIN_NAME		"scif0"
#define SFI_PROV_VERSION	FI_VERSION(1, 0)
#define SFI_API_VERSION		FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)

/* Limits offered in fi_getinfo(). */
#define SFI_MAX_MSG		(1024UL * 1024 * 1024)
#define SFI_INJECT_SIZE		256
#define SFI_EAGER_DEFAULT	(64 * 1024)
#define SFI_QUEUE_SIZE		1024
#define SFI_CQ_DATA_SIZE	8

/* Memory region keys are offsets from here in every connection's space. */
#define SFI_MR_SPACE_BASE	(1024ULL * 1024 * 1024 * 1024)	/* 1 TiB */
/* Rendezvous windows are placed below it, per connection. */
#define SFI_RV_SPACE_END	SFI_MR_SPACE_BASE

extern struct fi_provider sfi_prov;
extern size_t sfi_eager_max;
extern long sfi_idle_wait_us;
extern size_t sfi_rv_staging;
extern size_t sfi_rv_slot;

/* 2 MiB: four 512 KiB slots (Documentation/libfabric.rst); 0 turns it off */
#define SFI_RV_STAGING_DEFAULT	(2UL * 1024 * 1024)
#define SFI_RV_SLOT_DEFAULT	(512UL * 1024)

/* ---- a doubly linked list of our own */
struct sfi_list {
	struct sfi_list *prev, *next;
};

static inline void sfi_list_init(struct sfi_list *h)
{
	h->prev = h;
	h->next = h;
}

static inline int sfi_list_empty(const struct sfi_list *h)
{
	return h->next == h;
}

static inline void sfi_list_add_tail(struct sfi_list *h, struct sfi_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void sfi_list_add_head(struct sfi_list *h, struct sfi_list *n)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void sfi_list_del(struct sfi_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	sfi_list_init(n);
}

#define sfi_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#define sfi_list_each(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

/* ---- wire format: every frame starts with this header */
enum sfi_op {
	SFI_OP_HELLO = 1,	/* tag: sender's listening node << 16 | port */
	SFI_OP_EAGER,		/* len bytes of payload follow */
	SFI_OP_RTS,		/* len bytes wait in the sender's window at roff */
	SFI_OP_FIN,		/* the receiver is done with rendezvous id */
	SFI_OP_WDATA,		/* remote CQ data of an RMA write just done */
	/* staged rendezvous id: len bytes of the message at offset data */
	SFI_OP_CHUNK,		/* wait at roff */
	/* the chunk of id at roff (len bytes) was read */
	SFI_OP_CREDIT,		/* status: 0 or a negative errno */
};

#define SFI_HF_TAGGED	0x1
#define SFI_HF_DATA	0x2
#define SFI_HF_STAGED	0x4	/* RTS: the data follows in CHUNK frames */

struct sfi_hdr {
	uint16_t op;
	uint16_t flags;
	int32_t status;		/* FIN: 0 or a negative errno */
	uint64_t len;
	uint64_t tag;
	uint64_t data;
	uint64_t roff;
	uint64_t id;
};

/* ---- objects */
struct sfi_fabric {
	struct fid_fabric fab;
	int refs;
};

struct sfi_domain {
	struct fid_domain dom;
	struct sfi_fabric *fab;
	pthread_mutex_t lock;
	struct sfi_list eps;
	struct sfi_list mrs;
	uint64_t mr_next;	/* next free offset of the MR space */
	int mr_virt;		/* FI_MR_VIRT_ADDR: RMA addresses are virtual */
	int refs;
	/*
	 * When CQ reads began to find nothing in a row (monotonic clock, in
	 * microseconds), 0 while they find completions or the application
	 * posts work: see sfi_domain_idle(). Under lock, like all above.
	 */
	long idle_since;
};

struct sfi_mr {
	struct fid_mr mr;
	struct sfi_domain *dom;
	struct sfi_list link;
	void *pages;		/* page-aligned start of the region */
	size_t span;		/* page-aligned length, 0 when not remote */
	uint64_t off;		/* offset of the window on every connection */
	int prot;		/* SCIF_PROT_* of the windows */
};

struct sfi_av {
	struct fid_av av;
	struct sfi_domain *dom;
	struct scif_port_id *addrs;
	unsigned char *used;
	size_t count, cap;
	int refs;
};

struct sfi_cqe {
	struct fi_cq_tagged_entry e;
	fi_addr_t src;
};

struct sfi_cq_err {
	struct sfi_list link;
	struct fi_cq_err_entry e;
};

struct sfi_cq {
	struct fid_cq cq;
	struct sfi_domain *dom;
	enum fi_cq_format fmt;
	struct sfi_cqe *ring;
	size_t cap, head, count;
	struct sfi_list errs;
	int refs;
	int signaled;		/* fi_cq_signal(): wake sread */
};

struct sfi_cntr {
	struct fid_cntr cntr;
	struct sfi_domain *dom;
	uint64_t val, err;
	int refs;
};

/* A posted receive. */
struct sfi_rx {
	struct sfi_list link;
	void *buf;
	size_t len;
	uint64_t tag, ignore;
	int any_src;
	struct scif_port_id src;
	void *context;
	uint64_t flags;		/* completion flags: FI_RECV | FI_MSG/FI_TAGGED */
	int report;		/* write a CQ entry on success */
};

/* A message that arrived before its receive was posted. */
struct sfi_unexp {
	struct sfi_list link;
	struct sfi_hdr hdr;
	struct scif_port_id src;
	struct sfi_conn *conn;	/* RTS: where the data waits */
	char *payload;		/* EAGER: hdr.len bytes */
	struct sfi_rvin *rvin;	/* staged RTS whose chunks still arrive */
};

/*
 * A staged rendezvous being received (rv_in.c): its chunks go into the
 * matched receive's buffer, or while nobody took the message into the
 * unexpected entry's payload, so that the sender's slots never wait for
 * the application to post a receive.
 */
struct sfi_rvin {
	struct sfi_list link;		/* in the connection's rv_in */
	struct sfi_hdr hdr;		/* the RTS */
	struct sfi_rx *rx;		/* the receive, once matched */
	struct sfi_unexp *u;		/* the unexpected entry, until then */
	size_t keep;			/* bytes the receive takes */
	size_t got;			/* bytes of chunks seen, in order */
	int err;
};

/*
 * The sender's staging window of a connection (rv_stage.c): one
 * registration, cut into slots; a large send is copied through it chunk
 * by chunk while the receiver reads the chunks already announced.
 */
struct sfi_stage {
	char *mem;			/* page-aligned, size bytes */
	size_t size, slot;
	unsigned int nslots, nfree;
	uint64_t woff;			/* offset of the window */
	unsigned char *busy;		/* per slot: announced, not credited */
};

enum sfi_tx_kind { SFI_TX_FRAME, SFI_TX_READ, SFI_TX_WRITE };

/* One queued transmit: a frame into the stream, or an RMA. */
struct sfi_tx {
	struct sfi_list link;
	enum sfi_tx_kind kind;
	struct sfi_hdr hdr;
	const void *buf;	/* payload of EAGER, local side of an RMA */
	size_t len;
	size_t done;		/* bytes of header and payload sent */
	char *bounce;		/* owned copy of an injected buffer */
	void *context;
	uint64_t flags;		/* completion flags; 0: internal frame */
	int report;		/* write a CQ entry on success */
	uint64_t roff;		/* RMA: offset on the peer's side */
	size_t rv_span;		/* RTS: the window opened for the data */
	int started;
	int staged;		/* RTS through the staging window */
	size_t st_sent;		/* staged: bytes copied into slots */
	size_t st_acked;	/* staged: bytes the receiver credited */
	int st_err;		/* staged: first error a credit reported */
};

enum sfi_conn_state { SFI_CONNECTING, SFI_OPEN, SFI_DEAD };

struct sfi_conn {
	struct sfi_list link;
	struct sfi_ep *ep;
	scif_epd_t epd;
	enum sfi_conn_state state;
	int initiated;
	int peer_known;		/* peer holds the listening address */
	int peer_ready;		/* the peer's HELLO arrived */
	int tx_chosen;		/* the one we send to this peer on */
	struct scif_port_id peer;
	struct sfi_list txq;
	struct sfi_list rv_wait;	/* RTS sent, FIN awaited */
	uint64_t rv_next, rv_id;
	struct sfi_stage *stage;	/* NULL until the first staged send */
	struct sfi_list rv_in;		/* struct sfi_rvin being received */
	/* the frame being received */
	struct sfi_hdr rxh;
	size_t rxh_got;
	char *rx_dst;
	size_t rx_want, rx_got, rx_skip;
	struct sfi_rx *rx_req;
	struct sfi_unexp *rx_unexp;
};

struct sfi_ep {
	struct fid_ep ep;
	struct sfi_domain *dom;
	struct sfi_list link;
	struct sfi_av *av;
	struct sfi_cq *txcq, *rxcq;
	int tx_selective, rx_selective;
	struct sfi_cntr *send_cntr, *recv_cntr, *read_cntr, *write_cntr;
	uint64_t caps, tx_flags, rx_flags;
	scif_epd_t lep;
	struct scif_port_id addr;
	int enabled;
	unsigned int accept_skip;	/* progress calls until a look (ep.c) */
	struct sfi_list conns;
	struct sfi_list posted[2];	/* [0] untagged, [1] tagged */
	struct sfi_list unexp[2];
};

/* prov.c, info.c */
int sfi_getinfo(uint32_t version, const char *node, const char *service,
		uint64_t flags, const struct fi_info *hints,
		struct fi_info **info);
/*
 * The answer of every object to the generic calls it does not implement
 * (bind, control, ops_open of struct fi_ops): -FI_ENOSYS. In prov.c.
 */
int sfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int sfi_no_control(struct fid *fid, int command, void *arg);
int sfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context);
int sfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		    void *context);
int sfi_local_node(uint16_t *node);

/* domain.c, mr.c */
int sfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **dom, void *context);
void sfi_domain_progress(struct sfi_domain *dom);
void sfi_domain_wait(struct sfi_domain *dom, long us);
int sfi_domain_idle(struct sfi_domain *dom);
extern struct fi_ops_mr sfi_mr_ops;
int sfi_mr_register_all(struct sfi_domain *dom, struct sfi_conn *conn);

/* av.c, cq.c, cntr.c, eq.c */
int sfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av, void *context);
int sfi_av_get(struct sfi_av *av, fi_addr_t addr, struct scif_port_id *id);
fi_addr_t sfi_av_reverse(struct sfi_av *av, const struct scif_port_id *id);
int sfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cq, void *context);
void sfi_cq_done(struct sfi_cq *cq, void *context, uint64_t flags,
		 size_t len, void *buf, uint64_t data, uint64_t tag,
		 fi_addr_t src);
void sfi_cq_fail(struct sfi_cq *cq, void *context, uint64_t flags, int err,
		 size_t len, size_t olen, uint64_t data, uint64_t tag);
int sfi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr, void *context);
void sfi_cntr_bump(struct sfi_cntr *cntr, int failed);
int sfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **eq, void *context);

/* ep.c */
int sfi_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep, void *context);
void sfi_ep_progress(struct sfi_ep *ep);
void sfi_tx_complete(struct sfi_ep *ep, struct sfi_tx *tx, int err);
struct sfi_rx *sfi_rx_match(struct sfi_ep *ep, const struct sfi_hdr *h,
			    const struct scif_port_id *src);
struct sfi_unexp *sfi_unexp_match(struct sfi_ep *ep, const struct sfi_rx *rx,
				  int tagged, int take);
void sfi_rx_complete(struct sfi_ep *ep, struct sfi_rx *rx,
		     const struct sfi_hdr *h, const struct scif_port_id *src,
		     size_t copied, int err);

/* conn.c */
struct sfi_conn *sfi_conn_to(struct sfi_ep *ep, fi_addr_t addr, int *err);
void sfi_conn_accept_all(struct sfi_ep *ep);
void sfi_conn_progress(struct sfi_conn *conn);
void sfi_conn_close(struct sfi_conn *conn);
void sfi_conn_fail(struct sfi_conn *conn, int err);
void sfi_conn_flush(struct sfi_conn *conn);
int sfi_conn_frame(struct sfi_conn *conn, const struct sfi_hdr *h);

/* wire.c: the receive side of a connection's stream */
void sfi_conn_receive(struct sfi_conn *conn);
int sfi_rv_fetch(struct sfi_conn *conn, const struct sfi_hdr *h, void *buf,
		 size_t len);

/* rv_stage.c: the sending side of the staged rendezvous */
int sfi_stage_begin(struct sfi_conn *conn, struct sfi_tx *tx);
int sfi_stage_pump(struct sfi_conn *conn);
void sfi_stage_credit(struct sfi_conn *conn, const struct sfi_hdr *h);
void sfi_stage_free(struct sfi_conn *conn);

/* rv_in.c: the receiving side of the staged rendezvous */
int sfi_rvin_start(struct sfi_conn *conn, const struct sfi_hdr *h);
void sfi_rvin_chunk(struct sfi_conn *conn, const struct sfi_hdr *h);
void sfi_rvin_take(struct sfi_ep *ep, struct sfi_rx *rx,
		   struct sfi_unexp *u);
void sfi_rvin_drop(struct sfi_unexp *u);
void sfi_rvin_fail(struct sfi_conn *conn, int err);

/* msg.c, rma.c */
extern struct fi_ops_msg sfi_msg_ops;
extern struct fi_ops_tagged sfi_tagged_ops;
extern struct fi_ops_rma sfi_rma_ops;
void sfi_rx_post_found(struct sfi_ep *ep, struct sfi_rx *rx,
		       struct sfi_unexp *u);
void sfi_unexp_free(struct sfi_unexp *u);
int sfi_tx_rma_run(struct sfi_conn *conn, struct sfi_tx *tx);

static inline int sfi_same_port(const struct scif_port_id *a,
				const struct scif_port_id *b)
{
	return a->node == b->node && a->port == b->port;
}

#endif /* SCIF_FI_H */
