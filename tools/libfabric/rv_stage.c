// SPDX-License-Identifier: LGPL-2.1
/*
 * The sending side of the staged rendezvous. Registering the user's
 * buffer for every large message costs more than moving its data, and a
 * cache of such windows would read stale pages once the application frees
 * and maps the buffer again. So each connection registers one staging
 * window, on its first large send, and keeps it until it closes. A large
 * send is copied into the window's free slots chunk by chunk; each CHUNK
 * frame tells the receiver where a chunk waits, the receiver reads it
 * straight into its buffer and answers CREDIT, which frees the slot for
 * the next chunk. Copying one chunk overlaps the peer's read of the one
 * before. The send completes when every chunk was credited.
 *
 * The CHUNK frames are small and queued behind whatever the stream
 * carries; a send that waits for slots stays in the connection's rv_wait
 * list, so FIN and CREDIT frames never wait behind it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scif_fi.h"

size_t sfi_rv_staging = SFI_RV_STAGING_DEFAULT;
size_t sfi_rv_slot = SFI_RV_SLOT_DEFAULT;

/* Register the connection's staging window. */
static int stage_open(struct sfi_conn *c)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t slot = (sfi_rv_slot + pg - 1) & ~(pg - 1);
	size_t size = (sfi_rv_staging + pg - 1) & ~(pg - 1);
	struct sfi_stage *st;
	off_t off;

	if (slot > size)
		slot = size;
	size -= size % slot;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -FI_ENOMEM;
	st->nslots = (unsigned int)(size / slot);
	st->busy = calloc(st->nslots, 1);
	st->mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!st->busy || st->mem == MAP_FAILED) {
		if (st->mem != MAP_FAILED)
			munmap(st->mem, size);
		free(st->busy);
		free(st);
		return -FI_ENOMEM;
	}
	if (c->rv_next + size > SFI_RV_SPACE_END)
		c->rv_next = 0;
	off = scif_register(c->epd, st->mem, size, (off_t)c->rv_next,
			    SCIF_PROT_READ, SCIF_MAP_FIXED);
	if (off == SCIF_REGISTER_FAILED && errno == EADDRINUSE)
		off = scif_register(c->epd, st->mem, size, 0, SCIF_PROT_READ,
				    0);
	if (off == SCIF_REGISTER_FAILED) {
		int err = -errno;

		munmap(st->mem, size);
		free(st->busy);
		free(st);
		return err;
	}
	c->rv_next = (uint64_t)off + size;
	st->woff = (uint64_t)off;
	st->size = size;
	st->slot = slot;
	st->nfree = st->nslots;
	c->stage = st;
	return 0;
}

/*
 * Make @tx a staged send: 0, or -FI_EAGAIN when staging is off or its
 * window cannot be had (the caller then registers the buffer itself).
 */
int sfi_stage_begin(struct sfi_conn *c, struct sfi_tx *tx)
{
	if (!sfi_rv_staging)
		return -FI_EAGAIN;
	if (!c->stage && stage_open(c))
		return -FI_EAGAIN;
	tx->staged = 1;
	tx->hdr.flags |= SFI_HF_STAGED;
	tx->hdr.roff = 0;
	tx->hdr.id = ++c->rv_id;
	return 0;
}

/*
 * Copy the next chunk of the oldest staged send that has one into a free
 * slot and queue its CHUNK frame: 1 if it did.
 */
int sfi_stage_pump(struct sfi_conn *c)
{
	struct sfi_stage *st = c->stage;
	struct sfi_list *pos, *tmp;
	struct sfi_tx *tx = NULL;
	struct sfi_hdr ch;
	unsigned int i = 0;
	size_t n;

	if (!st || !st->nfree || c->state != SFI_OPEN)
		return 0;
	sfi_list_each(pos, tmp, &c->rv_wait) {
		tx = sfi_of(pos, struct sfi_tx, link);
		if (tx->staged && tx->st_sent < tx->hdr.len)
			break;
		tx = NULL;
	}
	if (!tx)
		return 0;
	while (st->busy[i])
		i++;
	n = tx->hdr.len - tx->st_sent;
	if (n > st->slot)
		n = st->slot;
	memcpy(st->mem + (size_t)i * st->slot,
	       (const char *)tx->buf + tx->st_sent, n);
	memset(&ch, 0, sizeof(ch));
	ch.op = SFI_OP_CHUNK;
	ch.id = tx->hdr.id;
	ch.roff = st->woff + (uint64_t)i * st->slot;
	ch.len = n;
	ch.data = tx->st_sent;
	if (sfi_conn_frame(c, &ch)) {
		sfi_conn_fail(c, FI_ENOMEM);
		return 0;
	}
	st->busy[i] = 1;
	st->nfree--;
	tx->st_sent += n;
	return 1;
}

/* The receiver is done with one chunk: free its slot, maybe the send. */
void sfi_stage_credit(struct sfi_conn *c, const struct sfi_hdr *h)
{
	struct sfi_stage *st = c->stage;
	struct sfi_list *pos, *tmp;
	uint64_t i;

	if (!st || h->roff < st->woff || h->roff >= st->woff + st->size) {
		sfi_conn_fail(c, EPROTO);
		return;
	}
	i = (h->roff - st->woff) / st->slot;
	if (st->busy[i]) {
		st->busy[i] = 0;
		st->nfree++;
	}
	sfi_list_each(pos, tmp, &c->rv_wait) {
		struct sfi_tx *tx = sfi_of(pos, struct sfi_tx, link);

		if (!tx->staged || tx->hdr.id != h->id)
			continue;
		tx->st_acked += h->len;
		if (h->status && !tx->st_err)
			tx->st_err = h->status;
		if (tx->st_acked < tx->hdr.len)
			break;
		sfi_list_del(&tx->link);
		/* a receiver that cancelled still took the message */
		sfi_tx_complete(c->ep, tx, tx->st_err == -FI_ECANCELED ?
				0 : tx->st_err);
		break;
	}
	/* refill the slot while the peer reads the others */
	sfi_conn_flush(c);
}

/* Release the staging window; the connection's descriptor may be gone. */
void sfi_stage_free(struct sfi_conn *c)
{
	struct sfi_stage *st = c->stage;

	if (!st)
		return;
	if (c->epd >= 0 && c->state != SFI_DEAD)
		scif_unregister(c->epd, (off_t)st->woff, st->size);
	munmap(st->mem, st->size);
	free(st->busy);
	free(st);
	c->stage = NULL;
}
