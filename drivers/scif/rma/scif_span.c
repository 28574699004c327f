// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF RMA spans: a byte range of a registered address space resolved to
 * the windows that hold it, and the cursors and walks that step through
 * two spans side by side: by pieces within one page on both sides (the DMA
 * path, the fence signal's write) or by runs physically contiguous on both
 * sides (the CPU copy).
 */
#include <kunit/visibility.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "../core/scif_core.h"
#include "scif_dma.h"
#include "scif_rma.h"

void scif_span_put(struct scif_span *sp)
{
	unsigned int i;

	for (i = 0; i < sp->nr; i++)
		scif_win_put(sp->wins[i]);
	if (sp->wins != sp->few)
		kvfree(sp->wins);
	sp->wins = NULL;
	sp->nr = 0;
}
EXPORT_SYMBOL_IF_KUNIT(scif_span_put);

static bool scif_win_usable(struct scif_window *win, bool served)
{
	if (win->remote)
		return win->nr_recv == win->nr_pages;
	if (served)
		return (win->state == SCIF_WIN_ACTIVE ||
			win->state == SCIF_WIN_UNREGISTERING) && !win->reg_err;
	return win->state == SCIF_WIN_ACTIVE;
}

static int __scif_span_get(struct scif_rma_ep *rma, bool remote, u64 first,
			   u64 len, int prot, bool served,
			   struct scif_span *sp)
{
	struct maple_tree *mt = remote ? &rma->remote : &rma->local;
	u64 last = first + len - 1, pos;
	struct scif_window *win;
	unsigned int n = 0;
	int ret;

	lockdep_assert_held(&rma->lock);

	sp->start = first;
	sp->nr = 0;
	sp->wins = NULL;
	for (pos = first; pos <= last; pos = scif_win_end(win)) {
		win = scif_wtree_find(mt, pos);
		if (!win || !scif_win_usable(win, served))
			return -ENXIO;
		ret = scif_win_access(win, prot);
		if (ret)
			return ret;
		n++;
		if (scif_win_end(win) - 1 >= last)
			break;
	}
	sp->wins = n <= ARRAY_SIZE(sp->few) ? sp->few :
		   kvmalloc_array(n, sizeof(*sp->wins), GFP_KERNEL);
	if (!sp->wins)
		return -ENOMEM;
	for (pos = first; sp->nr < n; pos = scif_win_end(win)) {
		win = scif_wtree_find(mt, pos);
		scif_win_get(win);
		sp->wins[sp->nr++] = win;
	}
	return 0;
}

/*
 * Resolve [@first, @first + @len) of the peer's (@remote) or our windows
 * of @rma to windows allowing @prot.
 * Called with rma->lock held. -ENXIO for a hole, a window not (or no
 * longer) usable, or an offset past the space; -EACCES for a window that
 * forbids the access.
 */
int scif_span_get(struct scif_rma_ep *rma, bool remote, u64 first, u64 len,
		  int prot, struct scif_span *sp)
{
	return __scif_span_get(rma, remote, first, len, prot, false, sp);
}
EXPORT_SYMBOL_IF_KUNIT(scif_span_get);

/**
 * scif_span_get_served() - resolve a range of our windows for the peer
 * @rma: our RMA state; @rma->lock is held
 * @first: first byte of the range
 * @len: its length, at least 1, not wrapping
 * @prot: the access the peer asks for
 * @sp: filled in, with a reference on every window
 *
 * As scif_span_get() on our windows, for a staged RMA the peer asks us to
 * carry out: the peer may go on using a window we unregistered until it
 * answered with UNREG_ACK, so an UNREGISTERING window (one the peer did
 * accept) is served as an ACTIVE one, as the direct path lets the peer
 * write it.
 *
 * Return: 0, -ENXIO, -EACCES or -ENOMEM, as scif_span_get().
 */
int scif_span_get_served(struct scif_rma_ep *rma, u64 first, u64 len,
			 int prot, struct scif_span *sp)
{
	return __scif_span_get(rma, false, first, len, prot, true, sp);
}

/*
 * Pin @len bytes of memory at @addr for a v* call, as a one-window span.
 * User memory goes through the endpoint's pinned-page cache: with
 * SCIF_RMA_USECACHE in @flags it may come from (and stay in) the cache, and
 * the window may start before @addr.
 */
int scif_span_vaddr(struct scif_endpt *ep, unsigned long addr,
		    u64 len, int prot, int flags, struct scif_span *sp)
{
	unsigned long base = addr & PAGE_MASK;
	u64 size = PAGE_ALIGN(addr + len) - base;
	struct scif_pinned_pages *pp;
	struct scif_window *win;
	int map = 0, ret;

	if (addr + len < addr)
		return -EINVAL;
	if (!current->mm || addr >= TASK_SIZE)
		map = SCIF_MAP_KERNEL;
	if (!map)
		ret = scif_pincache_get(scif_ep_rma(ep), base, size, prot,
					flags & SCIF_RMA_USECACHE, &pp, &base);
	else
		ret = scif_pp_create((void *)base, size, prot, map, &pp);
	if (ret)
		return ret;
	win = scif_win_alloc(pp->nr_pages, false);
	if (!win) {
		scif_pp_put(pp);
		return -ENOMEM;
	}
	win->pp = pp;
	win->prot = prot;
	sp->wins = sp->few;
	sp->wins[0] = win;
	sp->nr = 1;
	sp->start = addr - base;
	return 0;
}

void scif_cursor_init(struct scif_cursor *c, struct scif_span *sp)
{
	c->sp = sp;
	c->i = 0;
	c->pos = sp->start;
}

/* Page index in the current window, and bytes left in that page. */
unsigned long scif_cursor_page(struct scif_cursor *c, size_t *room)
{
	struct scif_window *win = c->sp->wins[c->i];
	u64 rel = c->pos - win->offset;

	*room = PAGE_SIZE - (rel & ~PAGE_MASK);
	return rel >> PAGE_SHIFT;
}

void scif_cursor_advance(struct scif_cursor *c, size_t n)
{
	c->pos += n;
	if (c->pos >= scif_win_end(c->sp->wins[c->i]) && c->i + 1 < c->sp->nr)
		c->i++;
}

/**
 * scif_cursor_seek() - move a cursor to a byte of its span
 * @c: the cursor, initialised on its span
 * @off: the byte, counted from the span's start; within the span
 */
void scif_cursor_seek(struct scif_cursor *c, u64 off)
{
	c->pos = c->sp->start + off;
	c->i = 0;
	while (c->pos >= scif_win_end(c->sp->wins[c->i]) &&
	       c->i + 1 < c->sp->nr)
		c->i++;
}

void scif_walk_init(struct scif_walk *w, struct scif_span *lsp,
		    struct scif_span *rsp, u64 from, u64 n)
{
	scif_cursor_init(&w->lc, lsp);
	scif_cursor_init(&w->rc, rsp);
	scif_cursor_seek(&w->lc, from);
	scif_cursor_seek(&w->rc, from);
	w->left = n;
}
EXPORT_SYMBOL_IF_KUNIT(scif_walk_init);

/**
 * struct scif_walk_pos - where a walk stands
 * @lw: our current window
 * @rw: the peer's current window
 * @li: page index in @lw
 * @ri: page index in @rw
 * @lroom: bytes left in that page of ours
 * @rroom: bytes left in that page of the peer's
 */
struct scif_walk_pos {
	struct scif_window *lw, *rw;
	unsigned long li, ri;
	size_t lroom, rroom;
};

/* Fill @p from the walk's cursors; false when the walk is done. */
static bool scif_walk_pos(struct scif_walk *w, struct scif_walk_pos *p)
{
	if (!w->left)
		return false;
	p->lw = w->lc.sp->wins[w->lc.i];
	p->rw = w->rc.sp->wins[w->rc.i];
	p->li = scif_cursor_page(&w->lc, &p->lroom);
	p->ri = scif_cursor_page(&w->rc, &p->rroom);
	return true;
}

/* Move both cursors @n bytes on, within their current windows. */
static void scif_walk_advance(struct scif_walk *w, u64 n)
{
	scif_cursor_advance(&w->lc, n);
	scif_cursor_advance(&w->rc, n);
	w->left -= n;
}

/*
 * The next piece: our page @lpg at @loff, the peer's page at address
 * @raddr at @roff, @n bytes. False when done.
 */
bool scif_walk_next(struct scif_walk *w, struct page **lpg,
		    size_t *loff, u64 *raddr, size_t *roff, size_t *n)
{
	struct scif_walk_pos p;

	if (!scif_walk_pos(w, &p))
		return false;
	*n = min3((u64)p.lroom, (u64)p.rroom, w->left);
	*lpg = p.lw->pp->pages[p.li];
	*loff = PAGE_SIZE - p.lroom;
	*raddr = p.rw->addrs[p.ri];
	*roff = PAGE_SIZE - p.rroom;
	scif_walk_advance(w, *n);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(scif_walk_next);

/**
 * scif_walk_next_run() - the next run of a walk contiguous on both sides
 * @w: the walk
 * @run: filled in: our physical address, the peer's address, the length
 *
 * As scif_walk_next(), but the piece goes on over the following pages of
 * both current windows for as long as both sides stay physically
 * contiguous, looking at each page once and at nothing else: a copy of
 * many pages then spends its time in memcpy(), not in the walk. A run
 * ends at the end of a window on either side.
 *
 * Return: false when the walk is done.
 */
bool scif_walk_next_run(struct scif_walk *w, struct scif_dma_run *run)
{
	struct scif_walk_pos p;
	u64 n = 0, step;

	if (!scif_walk_pos(w, &p))
		return false;
	run->lphys = page_to_phys(p.lw->pp->pages[p.li]) + PAGE_SIZE - p.lroom;
	run->raddr = p.rw->addrs[p.ri] + PAGE_SIZE - p.rroom;
	for (;;) {
		step = min3((u64)p.lroom, (u64)p.rroom, w->left - n);
		n += step;
		p.lroom -= step;
		p.rroom -= step;
		if (n == w->left)
			break;
		if (!p.lroom) {
			if (p.li + 1 >= p.lw->nr_pages ||
			    page_to_phys(p.lw->pp->pages[p.li + 1]) !=
			    run->lphys + n)
				break;
			p.li++;
			p.lroom = PAGE_SIZE;
		}
		if (!p.rroom) {
			if (p.ri + 1 >= p.rw->nr_pages ||
			    p.rw->addrs[p.ri + 1] != run->raddr + n)
				break;
			p.ri++;
			p.rroom = PAGE_SIZE;
		}
	}
	run->len = n;
	scif_walk_advance(w, n);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(scif_walk_next_run);
