// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF pokes: 8-byte writes at an offset of our registered address space or
 * the peer's, into a window that allows writing; the writes of a fence
 * signal (scif_fence_signal.c). A link without RMA addressing has the
 * peer write into its own window (scif_staged_poke()).
 */
#include <linux/highmem.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
#include "scif_rma.h"

/*
 * Write @val at @off of a span's single window (the fence signal): 8 bytes,
 * within one page since @off is 4-byte aligned only if it does not cross.
 */
static int scif_poke_span(struct scif_endpt *ep, struct scif_span *sp,
			  u64 val, bool remote)
{
	struct scif_peer_mem pm = { .local = true };
	struct scif_cursor c;
	unsigned long idx;
	size_t room;
	u8 *p;
	int ret;

	scif_cursor_init(&c, sp);
	idx = scif_cursor_page(&c, &room);
	if (!remote) {
		p = kmap_local_page(sp->wins[0]->pp->pages[idx]);
		memcpy(p + PAGE_SIZE - room, &val, sizeof(val));
		kunmap_local(p);
		return 0;
	}
	ret = scif_peer_mem_lock(ep, &pm);
	if (ret == -EOPNOTSUPP)
		/* A link without RMA addressing: the owner writes. */
		return scif_staged_poke(ep, sp->start, val);
	if (ret)
		return ret;
	if (pm.local) {
		p = kmap_local_page(pfn_to_page(PHYS_PFN(sp->wins[0]->addrs[idx])));
		memcpy(p + PAGE_SIZE - room, &val, sizeof(val));
		kunmap_local(p);
	} else {
		memcpy(pm.base + sp->wins[0]->addrs[idx] + PAGE_SIZE - room,
		       &val, sizeof(val));
	}
	scif_peer_mem_unlock(ep);
	return 0;
}

/*
 * Take the window under the 8 bytes at @off for a poke. A poke writes, so
 * the window must allow writing whichever side it belongs to: a read-only
 * local window may be backed by pages its owner may only read (a file's
 * page cache), and those were pinned without write intent.
 */
static int scif_poke_find(struct scif_endpt *ep, u64 off, bool remote,
			  struct scif_span *sp)
{
	struct scif_rma_ep *rma = scif_ep_rma(ep);
	int ret;

	/* The 8 bytes must not straddle a page (so neither two windows). */
	if ((off & ~PAGE_MASK) > PAGE_SIZE - sizeof(u64))
		return -ENXIO;
	mutex_lock(&rma->lock);
	ret = scif_span_get(rma, remote, off,
			    sizeof(u64), SCIF_PROT_WRITE, sp);
	mutex_unlock(&rma->lock);
	return ret;
}

/**
 * scif_rma_poke_check() - would a poke at @off find a window now?
 * @ep: the endpoint
 * @off: the offset, in the peer's registered space if @remote, else ours
 * @remote: which space
 *
 * A fence signal checks its offsets when it is asked, even though it writes
 * only once the marked RMAs are done (and skips a window gone by then).
 *
 * Return: 0, -ENXIO, -EACCES.
 */
int scif_rma_poke_check(struct scif_endpt *ep, u64 off, bool remote)
{
	struct scif_span sp;
	int ret = scif_poke_find(ep, off, remote, &sp);

	if (!ret)
		scif_span_put(&sp);
	return ret;
}

static int scif_poke(struct scif_endpt *ep, u64 off, u64 val, bool remote)
{
	struct scif_span sp;
	int ret = scif_poke_find(ep, off, remote, &sp);

	if (ret)
		return ret;
	ret = scif_poke_span(ep, &sp, val, remote);
	scif_span_put(&sp);
	return ret;
}

/**
 * scif_rma_poke() - write 8 bytes into the peer's registered memory
 * @ep: the endpoint
 * @roff: offset in the peer's registered address space
 * @val: the value
 *
 * Return: 0, -ENXIO, -EACCES, -ENODEV, -ENOMEM.
 */
int scif_rma_poke(struct scif_endpt *ep, u64 roff, u64 val)
{
	return scif_poke(ep, roff, val, true);
}

/**
 * scif_rma_local_poke() - write 8 bytes into our registered memory
 * @ep: the endpoint
 * @loff: offset in our registered address space
 * @val: the value
 *
 * Return: 0, -ENXIO, -EACCES (a window without %SCIF_PROT_WRITE), -ENOMEM.
 */
int scif_rma_local_poke(struct scif_endpt *ep, u64 loff, u64 val)
{
	return scif_poke(ep, loff, val, false);
}
