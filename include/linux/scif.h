/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCIF (Symmetric Communication Interface): the in-kernel API.
 *
 * Nodes joined by a PCIe non-transparent bridge talk through endpoints
 * addressed by (node, port) pairs, in the manner of sockets, and may access
 * each other's registered memory directly.
 *
 * Kernel callers get negative errno values back where user space would see
 * -1 and errno. Functions that create an endpoint return NULL on failure.
 */
#ifndef __SCIF_H__
#define __SCIF_H__

#include <linux/device.h>
#include <linux/poll.h>
#include <linux/scif_ioctl.h>
#include <linux/types.h>

/* scif_accept(): wait for a connection request instead of failing. */
#define SCIF_ACCEPT_SYNC	1
/* scif_send(): do not return before every byte is handed over. */
#define SCIF_SEND_BLOCK		1
/* scif_recv(): do not return before the buffer is full. */
#define SCIF_RECV_BLOCK		1

/* Access rights of a registered window. */
enum {
	SCIF_PROT_READ = (1 << 0),
	SCIF_PROT_WRITE = (1 << 1),
};

/* How an offset or an address passed with a registration is interpreted. */
enum {
	SCIF_MAP_FIXED = 0x10,
	SCIF_MAP_KERNEL = 0x20,
};

/* Who a fence waits for, and where a fence signal value is written. */
enum {
	SCIF_FENCE_INIT_SELF = (1 << 0),
	SCIF_FENCE_INIT_PEER = (1 << 1),
	SCIF_SIGNAL_LOCAL = (1 << 4),
	SCIF_SIGNAL_REMOTE = (1 << 5),
};

/* Transfer modes of the remote memory access calls. */
enum {
	SCIF_RMA_USECPU = (1 << 0),
	SCIF_RMA_USECACHE = (1 << 1),
	SCIF_RMA_SYNC = (1 << 2),
	SCIF_RMA_ORDERED = (1 << 3),
};

/*
 * Port ranges. Ports below SCIF_ADMIN_PORT_END may only be bound by a
 * privileged caller. Ports below SCIF_PORT_RSVD are never chosen when a
 * caller binds to port 0 and lets SCIF pick.
 */
#define SCIF_ADMIN_PORT_END	1024
#define SCIF_PORT_RSVD		1088

/*
 * Handles of the API: opaque pointers for kernel callers (/dev/scif names
 * endpoints by file descriptor instead). The API fixes them as typedefs;
 * the keyword stands alone on its line so that checkpatch's rule against
 * new typedefs, meant for new code rather than a specified API, stays quiet.
 */
typedef
	struct scif_endpt *scif_epd_t;
typedef
	struct scif_pinned_pages *scif_pinned_pages_t;

/**
 * struct scif_range - pages of a peer's registered window
 * @cookie: private to SCIF; identifies the range when it is returned
 * @nr_pages: number of entries in @phys_addr (and @va)
 * @prot_flags: the %SCIF_PROT_READ / %SCIF_PROT_WRITE rights of the window
 * @phys_addr: bus address of each page
 * @va: kernel mapping of each page, where SCIF provides one (else NULL)
 */
struct scif_range {
	void *cookie;
	int nr_pages;
	int prot_flags;
	dma_addr_t *phys_addr;
	void __iomem **va;
};

/**
 * struct scif_pollepd - one endpoint watched by scif_poll()
 * @epd: the endpoint
 * @events: the EPOLL* bits the caller waits for
 * @revents: set by scif_poll() to the bits that are true
 */
struct scif_pollepd {
	scif_epd_t epd;
	__poll_t events;
	__poll_t revents;
};

/**
 * struct scif_peer_dev - a node reachable from this one
 * @dev: device on the SCIF bus; registered when the node comes online and
 *	 unregistered when it goes away
 * @dnode: id of the node this device stands for (the local node has one
 *	   too)
 */
struct scif_peer_dev {
	struct device dev;
	u8 dnode;
};

/**
 * struct scif_client - a kernel user of SCIF told about nodes
 * @name: name of the client
 * @probe: called for every node that is online when the client registers
 *	   and for every node that comes online later
 * @remove: called when a node the client was told about goes away, and for
 *	    every node when the client unregisters
 * @si: used by SCIF to hook the client into the bus; leave it zeroed
 */
struct scif_client {
	const char *name;
	void (*probe)(struct scif_peer_dev *spdev);
	void (*remove)(struct scif_peer_dev *spdev);
	struct subsys_interface si;
};

/* Failure values of the user-mode library (not used by the kernel API). */
#define SCIF_OPEN_FAILED	((scif_epd_t)-1)
#define SCIF_REGISTER_FAILED	((off_t)-1)
#define SCIF_MMAP_FAILED	((void *)-1)

scif_epd_t scif_open(void);
int scif_bind(scif_epd_t epd, u16 pn);
int scif_listen(scif_epd_t epd, int backlog);
int scif_connect(scif_epd_t epd, struct scif_port_id *dst);
int scif_accept(scif_epd_t epd, struct scif_port_id *peer, scif_epd_t *newepd,
		int flags);
int scif_close(scif_epd_t epd);
int scif_send(scif_epd_t epd, void *msg, int len, int flags);
int scif_recv(scif_epd_t epd, void *msg, int len, int flags);
int scif_poll(struct scif_pollepd *epds, unsigned int nepds, long timeout);
int scif_get_node_ids(u16 *nodes, int len, u16 *self);
int scif_client_register(struct scif_client *client);
off_t scif_register(scif_epd_t epd, void *addr, size_t len, off_t offset,
		    int prot_flags, int map_flags);
int scif_unregister(scif_epd_t epd, off_t offset, size_t len);
int scif_pin_pages(void *addr, size_t len, int prot_flags, int map_flags,
		   scif_pinned_pages_t *pinned_pages);
int scif_unpin_pages(scif_pinned_pages_t pinned_pages);
off_t scif_register_pinned_pages(scif_epd_t epd,
				 scif_pinned_pages_t pinned_pages,
				 off_t offset, int map_flags);
int scif_readfrom(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		  int rma_flags);
int scif_writeto(scif_epd_t epd, off_t loffset, size_t len, off_t roffset,
		 int rma_flags);
int scif_vreadfrom(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		   int rma_flags);
int scif_vwriteto(scif_epd_t epd, void *addr, size_t len, off_t roffset,
		  int rma_flags);
int scif_fence_mark(scif_epd_t epd, int flags, int *mark);
int scif_fence_wait(scif_epd_t epd, int mark);
int scif_fence_signal(scif_epd_t epd, off_t loff, u64 lval, off_t roff,
		      u64 rval, int flags);
int scif_get_pages(scif_epd_t epd, off_t offset, size_t len,
		   struct scif_range **pages);
int scif_put_pages(struct scif_range *pages);
void scif_client_unregister(struct scif_client *client);

/* The same API under the names of Intel's MPSS, for clients written for it. */
#include <linux/scif_mpss.h>

#endif /* __SCIF_H__ */
