// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit peer fuzzer: node 1 of a simulated pair turns hostile and feeds
 * node 0 random messages and mutations of valid ones, below the SCIF core,
 * while node 0 holds live state towards it (a listener, connected
 * endpoints with stream data in flight both ways, registered windows on
 * both sides, a fence mark, pages of a peer window held by get_pages).
 *
 * Every message must be either accepted or counted as dropped, node 0 must
 * keep working (each round ends with a fresh connect, and the run with a
 * fresh connect, stream and RMA), and every endpoint and window of node 0
 * must be freed when its owner closes it. The generator is seeded by
 * peer_fuzz_seed; peer_fuzz_msgs sets how many messages are injected (small
 * for make check, 10^6 for tools/fuzz/run-peer-fuzz). KUnit stops a test
 * case after 300 s, so a long run is cut into slices of peer_fuzz_slice
 * messages, one parameter of the case each, on fresh nodes and with a
 * generator seeded from the seed and the slice number.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/scif.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>
#include <linux/io.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_endpt_api.h"
#include "scif_kunit_util.h"
#include "scif_kunit_sim.h"
#include "rma/scif_rma.h"
#include "rma/scif_rma_types.h"
#include "core/scif_wire.h"

static unsigned int peer_fuzz_msgs = 20000;
module_param(peer_fuzz_msgs, uint, 0444);
MODULE_PARM_DESC(peer_fuzz_msgs, "hostile messages injected by the fuzz case");

static unsigned int peer_fuzz_slice = 50000;
module_param(peer_fuzz_slice, uint, 0444);
MODULE_PARM_DESC(peer_fuzz_slice, "messages per test case run (each must end within KUnit's 300 s)");

static unsigned int peer_fuzz_seed = 1;
module_param(peer_fuzz_seed, uint, 0444);
MODULE_PARM_DESC(peer_fuzz_seed, "seed of the peer fuzzer's generator");

/* Largest data of one message on the pair: big enough for any REG_PAGES. */
#define PF_CHUNK	1024
/* Connected pairs per round. */
#define PF_CONNS	4
/* Pages of each registered window. */
#define PF_WIN_PAGES	2
/* Messages per round, between two rebuilds of the live state. */
#define PF_ROUND	1024
/* Messages injected between two waits for the link to drain. */
#define PF_BURST	32
/* Messages remembered for replays. */
#define PF_HIST		16
#define PF_MAX_MSG	(SCIF_WIRE_MSG_SIZE + PF_CHUNK)
/* Window ids and endpoint ids collected from the live state. */
#define PF_MAX_IDS	32

#define RW	(SCIF_PROT_READ | SCIF_PROT_WRITE)
/* Most slices of one run; a longer run gets longer slices. */
#define PF_MAX_SLICES	1000

/**
 * struct pf_conn - one connection between the victim and the attacker
 * @a: the victim's endpoint (node 0)
 * @b: the attacker's endpoint (node 1)
 * @abuf: memory of the window registered on @a
 * @bbuf: memory of the window registered on @b
 */
struct pf_conn {
	scif_epd_t a;
	scif_epd_t b;
	void *abuf;
	void *bbuf;
};

/**
 * struct pf_msg - one message as injected
 * @len: bytes at @buf
 * @buf: header and data
 */
struct pf_msg {
	size_t len;
	u8 buf[PF_MAX_MSG];
};

/**
 * struct pf_ctx - the fuzzer's state
 * @n: node 0 (the victim, n.a) and node 1 (n.b); n.c and n.s stay unused
 * @rnd: the generator
 * @conn: the connections of this round
 * @la: a listener on the victim
 * @lport: its port
 * @range: pages of a window of @conn[1].b, held on the victim
 * @mark: a fence mark taken on @conn[0].a
 * @eps: endpoint ids of both nodes, for foreign and stale ids
 * @neps: entries at @eps
 * @wids: window ids known on the victim (its own and the peer's)
 * @nwids: entries at @wids
 * @pages: physical addresses of real pages, for REG_PAGES
 * @page: the page behind @pages
 * @hist: the last messages injected, for replays
 * @nhist: messages ever put in @hist
 * @held: a message kept back, to be injected after the next one
 * @have_held: @held is valid
 * @cur: the message being built
 * @sent: messages injected so far
 * @rounds: rounds completed
 * @round_sent: messages injected since the link was last joined
 * @resets: victim endpoints found reset at the end of a round
 * @slow_closes: victim endpoints whose close took more than 5 s
 */
struct pf_ctx {
	struct scif_kt_nodes n;
	struct rnd_state rnd;
	struct pf_conn conn[PF_CONNS];
	scif_epd_t la;
	u16 lport;
	struct scif_range *range;
	int mark;
	u64 eps[PF_MAX_IDS];
	int neps;
	u32 wids[PF_MAX_IDS];
	int nwids;
	u64 pages[4];
	struct page *page;
	struct pf_msg hist[PF_HIST];
	unsigned int nhist;
	struct pf_msg held;
	bool have_held;
	struct pf_msg cur;
	u64 sent;
	unsigned int rounds;
	u64 round_sent;
	unsigned int resets;
	unsigned int slow_closes;
};

static u32 pf_rand(struct pf_ctx *ctx, u32 n)
{
	return n ? prandom_u32_state(&ctx->rnd) % n : 0;
}

static u64 pf_rand64(struct pf_ctx *ctx)
{
	return (u64)prandom_u32_state(&ctx->rnd) << 32 |
	       prandom_u32_state(&ctx->rnd);
}

/* A value a field of @bits bits likes to be wrong with. */
static u64 pf_boundary(struct pf_ctx *ctx, unsigned int bits)
{
	u64 max = bits == 64 ? U64_MAX : (1ULL << bits) - 1;

	switch (pf_rand(ctx, 8)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return max;
	case 3:
		return max - 1;
	case 4:
		return 1ULL << (bits - 1);
	case 5:
		return (1ULL << (bits - 1)) - 1;
	case 6:
		return pf_rand64(ctx) & max;
	}
	return (u64)pf_rand(ctx, 64) << pf_rand(ctx, bits > 16 ? 16 : 4);
}

static void pf_add_ep(struct pf_ctx *ctx, scif_epd_t ep)
{
	if (ep && ctx->neps < PF_MAX_IDS)
		ctx->eps[ctx->neps++] = ep->id;
}

/* Collect the window ids @ep knows, its own and its peer's. */
static void pf_add_wins(struct pf_ctx *ctx, scif_epd_t ep)
{
	struct scif_rma_ep *rma = ep ? ep->rma : NULL;
	struct scif_window *win;
	unsigned long idx;

	if (!rma)
		return;
	mutex_lock(&rma->lock);
	xa_for_each(&rma->wins, idx, win)
		if (ctx->nwids < PF_MAX_IDS)
			ctx->wids[ctx->nwids++] = idx;
	xa_for_each(&rma->rwins, idx, win)
		if (ctx->nwids < PF_MAX_IDS)
			ctx->wids[ctx->nwids++] = idx;
	mutex_unlock(&rma->lock);
}

/* Wait (at most 10 s) until node 0 holds @want endpoints. */
static int pf_wait_eps(struct pf_ctx *ctx, struct scif_instance *si, int want)
{
	int i, n = scif_kt_nr_eps(si);

	for (i = 0; i < 500 && n != want; i++) {
		scif_sim_settle(ctx->n.pair);
		msleep(20);
		n = scif_kt_nr_eps(si);
	}
	return n;
}

/* Build this round's live state between the victim and the attacker. */
static void pf_round_up(struct kunit *test, struct pf_ctx *ctx)
{
	static const char junk[512] = "hostile peer, genuine data";
	struct pf_conn *c;
	off_t off;
	int i, port;

	ctx->neps = 0;
	ctx->nwids = 0;
	ctx->la = scif_instance_open(ctx->n.a);
	KUNIT_ASSERT_NOT_NULL(test, ctx->la);
	port = scif_bind(ctx->la, 0);
	KUNIT_ASSERT_GT(test, port, 0);
	ctx->lport = port;
	KUNIT_ASSERT_EQ(test, scif_listen(ctx->la, 4), 0);
	pf_add_ep(ctx, ctx->la);
	for (i = 0; i < PF_CONNS; i++) {
		c = &ctx->conn[i];
		/* A failed connect here means the victim no longer works. */
		scif_kt_pair(test, ctx->n.b, ctx->n.a, 0, &c->b, &c->a);
		pf_add_ep(ctx, c->a);
		pf_add_ep(ctx, c->b);
		/* Stream data in flight both ways, never read. */
		KUNIT_EXPECT_GT(test, scif_send(c->b, (void *)junk,
						100 + 50 * i, 0), 0);
		KUNIT_EXPECT_GT(test, scif_send(c->a, (void *)junk, 80 + i, 0),
				0);
		off = scif_kt_reg(c->a, c->abuf, PF_WIN_PAGES, 0, RW, 0);
		KUNIT_EXPECT_GE(test, off, 0);
		off = scif_kt_reg(c->b, c->bbuf, PF_WIN_PAGES,
				  PF_WIN_PAGES * PAGE_SIZE * (i + 1), RW,
				  SCIF_MAP_FIXED);
		KUNIT_EXPECT_GE(test, off, 0);
	}
	scif_sim_settle(ctx->n.pair);
	/* Pages of the peer's window held by the victim, as mmap would. */
	ctx->range = NULL;
	if (scif_get_pages(ctx->conn[1].a, 2 * PF_WIN_PAGES * PAGE_SIZE,
			   PAGE_SIZE, &ctx->range))
		ctx->range = NULL;
	ctx->mark = -1;
	if (scif_fence_mark(ctx->conn[0].a, SCIF_FENCE_INIT_SELF, &ctx->mark))
		ctx->mark = -1;
	for (i = 0; i < PF_CONNS; i++) {
		pf_add_wins(ctx, ctx->conn[i].a);
		pf_add_wins(ctx, ctx->conn[i].b);
	}
}

static s64 pf_accounted(struct pf_ctx *ctx)
{
	struct scif_node_stats st;

	scif_node_stats(ctx->n.a, 1, &st);
	return atomic64_read(&st.rx_msgs) + atomic64_read(&st.rx_drops);
}

static s64 pf_genuine(struct pf_ctx *ctx)
{
	struct scif_node_stats st;

	scif_node_stats(ctx->n.b, 0, &st);
	return atomic64_read(&st.tx_msgs);
}

/*
 * End a round: close the victim's endpoints while the link is up, then cut
 * the link (the attacker's endpoints may believe in connections the victim
 * reset on forged input; they would wait for answers that never come), and
 * join the nodes again. Every endpoint of both nodes must go away.
 */
static void pf_round_down(struct kunit *test, struct pf_ctx *ctx)
{
	unsigned long t;
	u16 nodes[2] = {};
	struct pf_conn *c;
	int i, ret;

	scif_sim_settle(ctx->n.pair);
	/* Every message either accepted or counted as dropped. */
	KUNIT_EXPECT_EQ(test, pf_accounted(ctx),
			ctx->round_sent + pf_genuine(ctx));
	/* The victim still sees the attacker (and itself): it stayed up. */
	KUNIT_EXPECT_EQ(test, scif_instance_node_ids(ctx->n.a, nodes, 2, NULL),
			2);
	KUNIT_EXPECT_EQ(test, nodes[1], 1);
	if (ctx->range) {
		/* Released either way; a reset connection says so. */
		ret = scif_put_pages(ctx->range);
		KUNIT_EXPECT_TRUE(test, !ret || ret == -ENOTCONN);
	}
	ctx->range = NULL;
	for (i = 0; i < PF_CONNS; i++) {
		c = &ctx->conn[i];
		if (READ_ONCE(c->a->state) != SCIF_EP_CONNECTED)
			ctx->resets++;
		t = jiffies;
		scif_close(c->a);
		if (time_after(jiffies, t + 5 * HZ))
			ctx->slow_closes++;
		c->a = NULL;
	}
	scif_close(ctx->la);
	ctx->la = NULL;
	KUNIT_EXPECT_EQ(test, pf_wait_eps(ctx, ctx->n.a, 0), 0);
	scif_sim_pair_destroy(ctx->n.pair);
	ctx->n.pair = NULL;
	for (i = 0; i < PF_CONNS; i++) {
		scif_close(ctx->conn[i].b);
		ctx->conn[i].b = NULL;
	}
	/* Nothing left behind on either node: endpoints, hence windows. */
	KUNIT_EXPECT_EQ(test, scif_kt_nr_eps(ctx->n.a), 0);
	KUNIT_EXPECT_EQ(test, scif_kt_nr_eps(ctx->n.b), 0);
	ctx->n.pair = scif_sim_pair_create(ctx->n.a, ctx->n.b, PF_CHUNK);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->n.pair));
	ctx->round_sent = 0;
}

/* A valid-looking message of @type from a random connection. */
static void pf_template(struct pf_ctx *ctx, u8 type)
{
	static const u32 rings[] = { SCIF_WIRE_RING_MIN, SCIF_RX_RING_SIZE,
				     SCIF_WIRE_RING_MAX, 0, 12345,
				     SCIF_WIRE_RING_MAX * 2 };
	struct pf_conn *c = &ctx->conn[pf_rand(ctx, PF_CONNS)];
	struct scif_wire_msg *m = (void *)ctx->cur.buf;
	u8 *data = ctx->cur.buf + sizeof(*m);
	struct scif_wire_reg reg;
	u32 wid = ctx->nwids ? ctx->wids[pf_rand(ctx, ctx->nwids)] : 0;
	size_t len = 0;
	u32 arg = 0, seq = 0;
	int i;

	scif_msg_init(m, type, c->b->id, c->a->id, c->b->port, c->a->port, 0);
	switch (type) {
	case SCIF_MSG_CONNREQ:
		m->src_ep = cpu_to_le64(pf_rand(ctx, 2) ? c->b->id :
					pf_rand64(ctx));
		m->dst_ep = 0;
		m->dst_port = cpu_to_le16(ctx->lport);
		arg = rings[pf_rand(ctx, ARRAY_SIZE(rings))];
		seq = pf_rand(ctx, 3);	/* connect numbers, old and new */
		break;
	case SCIF_MSG_ACCEPT:
		arg = rings[pf_rand(ctx, ARRAY_SIZE(rings))];
		seq = pf_rand(ctx, 3);
		break;
	case SCIF_MSG_REJECT:
		arg = ECONNREFUSED;
		seq = pf_rand(ctx, 3);
		break;
	case SCIF_MSG_DATA:
		len = 1 + pf_rand(ctx, PF_CHUNK);
		for (i = 0; i < len; i++)
			data[i] = i;
		switch (pf_rand(ctx, 4)) {
		case 0:
			seq = READ_ONCE(c->a->rx_seq);
			break;
		case 1:
			seq = READ_ONCE(c->a->rx_seq) + pf_rand(ctx, 64) - 32;
			break;
		case 2:
			seq = READ_ONCE(c->a->rx_read) + SCIF_RX_RING_SIZE -
			      pf_rand(ctx, 2 * PF_CHUNK);
			break;
		default:
			seq = pf_boundary(ctx, 32);
		}
		break;
	case SCIF_MSG_CREDIT:
		switch (pf_rand(ctx, 3)) {
		case 0:
			arg = READ_ONCE(c->a->tx_seq);
			break;
		case 1:
			arg = READ_ONCE(c->a->tx_seq) + 1 + pf_rand(ctx, 4096);
			break;
		default:
			arg = pf_boundary(ctx, 32);
		}
		break;
	case SCIF_MSG_REG_OPEN:
		arg = pf_rand(ctx, 2) ? wid : pf_rand(ctx, 64);
		reg.offset = cpu_to_le64(pf_rand(ctx, 2) ?
					 (u64)pf_rand(ctx, 64) << PAGE_SHIFT :
					 pf_boundary(ctx, 64));
		reg.nr_pages = cpu_to_le64(pf_rand(ctx, 2) ?
					   1 + pf_rand(ctx, 4) :
					   pf_boundary(ctx, 64));
		reg.prot = cpu_to_le32(pf_rand(ctx, 2) ? 1 + pf_rand(ctx, 3) :
				       pf_boundary(ctx, 32));
		reg.rsvd = pf_rand(ctx, 8) ? 0 : cpu_to_le32(pf_rand(ctx, 9));
		memcpy(data, &reg, sizeof(reg));
		len = sizeof(reg);
		break;
	case SCIF_MSG_REG_PAGES:
		arg = pf_rand(ctx, 2) ? wid : pf_rand(ctx, 64);
		seq = pf_rand(ctx, 2) ? 0 : pf_rand(ctx, 8);
		len = 8 * (1 + pf_rand(ctx, 4));
		for (i = 0; i < len / 8; i++) {
			u64 a = pf_rand(ctx, 4) ?
				ctx->pages[pf_rand(ctx, ARRAY_SIZE(ctx->pages))] :
				pf_boundary(ctx, 64);

			put_unaligned_le64(a, data + 8 * i);
		}
		break;
	case SCIF_MSG_REG_ACK:
		arg = wid;
		seq = pf_rand(ctx, 2) ? 0 : pf_boundary(ctx, 32);
		break;
	case SCIF_MSG_UNREG:
	case SCIF_MSG_UNREG_ACK:
	case SCIF_MSG_UNREG_SEEN:
		arg = pf_rand(ctx, 4) ? wid : pf_boundary(ctx, 32);
		break;
	case SCIF_MSG_RMA_CLOSE:
	case SCIF_MSG_RMA_CLOSE_ACK:
		arg = pf_rand(ctx, 4) ? 0 : pf_boundary(ctx, 32);
		break;
	case SCIF_MSG_FENCE_REQ:
	case SCIF_MSG_FENCE_DONE:
		arg = pf_rand(ctx, 2) ? pf_rand(ctx, 8) : pf_boundary(ctx, 32);
		break;
	}
	m->arg = cpu_to_le32(arg);
	m->seq = cpu_to_le32(seq);
	m->len = cpu_to_le16(len);
	ctx->cur.len = sizeof(*m) + len;
}

/* Set one header field to a boundary value. */
static void pf_mutate_field(struct pf_ctx *ctx, struct scif_wire_msg *m)
{
	switch (pf_rand(ctx, 10)) {
	case 0:
		m->version = pf_boundary(ctx, 8);
		break;
	case 1:
		m->type = pf_boundary(ctx, 8);
		break;
	case 2:
		m->len = cpu_to_le16(pf_boundary(ctx, 16));
		break;
	case 3:
		m->seq = cpu_to_le32(pf_boundary(ctx, 32));
		break;
	case 4:
		m->src_ep = cpu_to_le64(pf_boundary(ctx, 64));
		break;
	case 5:
		m->dst_ep = cpu_to_le64(pf_boundary(ctx, 64));
		break;
	case 6:
		m->src_port = cpu_to_le16(pf_boundary(ctx, 16));
		break;
	case 7:
		m->dst_port = cpu_to_le16(pf_boundary(ctx, 16));
		break;
	case 8:
		m->arg = cpu_to_le32(pf_boundary(ctx, 32));
		break;
	default:
		m->rsvd[pf_rand(ctx, sizeof(m->rsvd))] = 1 + pf_rand(ctx, 255);
	}
}

/* Name an endpoint that is not the one the connection uses. */
static void pf_mutate_ids(struct pf_ctx *ctx, struct scif_wire_msg *m)
{
	u64 other = ctx->neps ? ctx->eps[pf_rand(ctx, ctx->neps)] : 0;

	switch (pf_rand(ctx, 5)) {
	case 0:
		m->dst_ep = cpu_to_le64(other);
		break;
	case 1:
		m->src_ep = cpu_to_le64(other);
		break;
	case 2:
		/* Same slot, another generation: a stale endpoint. */
		m->dst_ep = cpu_to_le64(le64_to_cpu(m->dst_ep) ^
					(1ULL << (32 + pf_rand(ctx, 32))));
		break;
	case 3:
		swap(m->src_ep, m->dst_ep);
		swap(m->src_port, m->dst_port);
		break;
	default:
		m->dst_ep = cpu_to_le64(le64_to_cpu(m->dst_ep) + 1);
	}
}

/* Build the next message in ctx->cur: a template, mutated or not. */
static void pf_generate(struct pf_ctx *ctx)
{
	struct scif_wire_msg *m = (void *)ctx->cur.buf;
	unsigned int i, n, r = pf_rand(ctx, 100);

	if (r < 4) {
		/* Raw garbage, sometimes with a plausible first byte. */
		ctx->cur.len = pf_rand(ctx, 2 * SCIF_WIRE_MSG_SIZE);
		for (i = 0; i < ctx->cur.len; i++)
			ctx->cur.buf[i] = pf_rand(ctx, 256);
		if (ctx->cur.len && pf_rand(ctx, 2))
			ctx->cur.buf[0] = SCIF_WIRE_VERSION;
		return;
	}
	pf_template(ctx, pf_rand(ctx, SCIF_MSG_NR + 1));
	if (r < 30)
		return;			/* valid-looking, unmutated */
	if (r < 50) {
		pf_mutate_field(ctx, m);
	} else if (r < 65) {
		pf_mutate_ids(ctx, m);
	} else if (r < 75) {
		/* Bit flips anywhere in the header or data. */
		n = 1 + pf_rand(ctx, 3);
		for (i = 0; i < n; i++)
			ctx->cur.buf[pf_rand(ctx, ctx->cur.len)] ^=
				1 << pf_rand(ctx, 8);
	} else if (r < 82) {
		/* Length against data: the header lies about the size. */
		if (pf_rand(ctx, 2))
			m->len = cpu_to_le16(le16_to_cpu(m->len) +
					     pf_rand(ctx, 16) - 8);
		else
			ctx->cur.len = min_t(size_t, PF_MAX_MSG,
					     ctx->cur.len + pf_rand(ctx, 16)) -
				       pf_rand(ctx, 8);
	} else if (r < 90) {
		/* The right message for another state: another type. */
		m->type = 1 + pf_rand(ctx, SCIF_MSG_NR - 1);
	} else {
		/* Two mutations at once. */
		pf_mutate_field(ctx, m);
		pf_mutate_ids(ctx, m);
	}
}

static void pf_inject(struct kunit *test, struct pf_ctx *ctx,
		      const struct pf_msg *msg)
{
	KUNIT_ASSERT_EQ(test, scif_sim_inject(ctx->n.pair, ctx->n.a, msg->buf,
					      msg->len), 0);
	ctx->sent++;
	ctx->round_sent++;
}

/* One message: new, replayed or reordered. */
static void pf_step(struct kunit *test, struct pf_ctx *ctx)
{
	unsigned int r = pf_rand(ctx, 100);

	if (r < 5 && ctx->nhist) {
		/* Replay one of the last messages. */
		r = pf_rand(ctx, min_t(unsigned int, ctx->nhist, PF_HIST));
		pf_inject(test, ctx, &ctx->hist[r]);
		return;
	}
	pf_generate(ctx);
	ctx->hist[ctx->nhist++ % PF_HIST] = ctx->cur;
	if (r < 10 && !ctx->have_held) {
		/* Hold this one back: it goes after the next. */
		ctx->held = ctx->cur;
		ctx->have_held = true;
		return;
	}
	pf_inject(test, ctx, &ctx->cur);
	if (ctx->have_held) {
		pf_inject(test, ctx, &ctx->held);
		ctx->have_held = false;
	}
}

static int pf_init(struct kunit *test)
{
	struct pf_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	prandom_seed_state(&ctx->rnd, peer_fuzz_seed);
	for (i = 0; i < PF_CONNS; i++) {
		ctx->conn[i].abuf = vzalloc(PF_WIN_PAGES * PAGE_SIZE);
		ctx->conn[i].bbuf = vzalloc(PF_WIN_PAGES * PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, ctx->conn[i].abuf);
		KUNIT_ASSERT_NOT_NULL(test, ctx->conn[i].bbuf);
	}
	ctx->page = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	KUNIT_ASSERT_NOT_NULL(test, ctx->page);
	for (i = 0; i < ARRAY_SIZE(ctx->pages); i++)
		ctx->pages[i] = page_to_phys(ctx->page + i);
	scif_kt_nodes_up(test, &ctx->n, "kunit_pfa", "kunit_pfb", PF_CHUNK);
	return 0;
}

static void pf_exit(struct kunit *test)
{
	struct pf_ctx *ctx = test->priv;
	int i;

	if (ctx->range)
		scif_put_pages(ctx->range);
	/* Endpoints still open are closed with the instances. */
	scif_kt_nodes_down(&ctx->n);
	/* Only now may the windows' memory go. */
	for (i = 0; i < PF_CONNS; i++) {
		vfree(ctx->conn[i].abuf);
		vfree(ctx->conn[i].bbuf);
	}
	if (ctx->page)
		__free_pages(ctx->page, 2);
}

/* A fresh connection carries a stream both ways and RMA in both senses. */
static void pf_expect_working(struct kunit *test, struct pf_ctx *ctx)
{
	scif_epd_t a, b;
	u8 *abuf, *bbuf, in[64];
	struct scif_kt_xfer x;
	off_t aoff, boff;
	int i;

	abuf = vzalloc(2 * PAGE_SIZE);
	bbuf = vzalloc(2 * PAGE_SIZE);
	if (!abuf || !bbuf)
		goto out;
	scif_kt_pair(test, ctx->n.b, ctx->n.a, 0, &b, &a);
	for (i = 0; i < sizeof(in); i++)
		abuf[i] = i ^ 0x5a;
	x.epd = a;
	x.buf = abuf;
	x.len = sizeof(in);
	scif_kt_stream(test, &x, b, in, 10000);
	x.epd = b;
	scif_kt_stream(test, &x, a, in, 10000);
	aoff = scif_kt_reg(a, abuf, 2, 0, RW, 0);
	boff = scif_kt_reg(b, bbuf, 2, 0, RW, 0);
	KUNIT_EXPECT_GE(test, aoff, 0);
	KUNIT_EXPECT_GE(test, boff, 0);
	if (aoff >= 0 && boff >= 0) {
		memset(abuf, 0xa5, 2 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, scif_writeto(a, aoff, 2 * PAGE_SIZE,
						   boff, SCIF_RMA_SYNC), 0);
		KUNIT_EXPECT_NULL(test, memchr_inv(bbuf, 0xa5, 2 * PAGE_SIZE));
		memset(bbuf, 0x3c, PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, scif_readfrom(a, aoff, PAGE_SIZE, boff,
						    SCIF_RMA_SYNC), 0);
		KUNIT_EXPECT_NULL(test, memchr_inv(abuf, 0x3c, PAGE_SIZE));
	}
	scif_close(a);
	scif_close(b);
	KUNIT_EXPECT_EQ(test, pf_wait_eps(ctx, ctx->n.a, 0), 0);
out:
	vfree(abuf);
	vfree(bbuf);
}

/* Messages per slice: peer_fuzz_slice, more if that needs too many. */
static u64 pf_slice_size(void)
{
	return max3(peer_fuzz_slice, 1U,
		    DIV_ROUND_UP(peer_fuzz_msgs, PF_MAX_SLICES));
}

static unsigned int pf_slices(void)
{
	return max_t(u64, 1, DIV_ROUND_UP((u64)peer_fuzz_msgs,
					  pf_slice_size()));
}

static void peer_fuzz(struct kunit *test)
{
	const unsigned int *slice = test->param_value;
	struct pf_ctx *ctx = test->priv;
	u64 i, first, want;

	first = *slice * pf_slice_size();
	want = min_t(u64, pf_slice_size(), peer_fuzz_msgs - first);
	/* Each slice on its own stream of choices, repeatable alone. */
	prandom_seed_state(&ctx->rnd, peer_fuzz_seed + *slice * 0x9e3779b9ULL);
	while (ctx->sent < want) {
		pf_round_up(test, ctx);
		for (i = 0; i < PF_ROUND && ctx->sent < want; i++) {
			pf_step(test, ctx);
			if (i % PF_BURST == PF_BURST - 1)
				scif_sim_settle(ctx->n.pair);
		}
		if (ctx->have_held) {
			pf_inject(test, ctx, &ctx->held);
			ctx->have_held = false;
		}
		pf_round_down(test, ctx);
		ctx->rounds++;
		if (ctx->rounds % 200 == 0)
			kunit_info(test, "%llu messages, %u rounds\n",
				   ctx->sent, ctx->rounds);
	}
	pf_expect_working(test, ctx);
	kunit_info(test, "seed %u slice %u: %llu hostile messages in %u rounds, %u of %u connections reset, %u slow closes\n",
		   peer_fuzz_seed, *slice, ctx->sent, ctx->rounds, ctx->resets,
		   ctx->rounds * PF_CONNS, ctx->slow_closes);
}

/* Slice numbers, for the parameters of the fuzz case to point at. */
static unsigned int pf_slice_ids[PF_MAX_SLICES];

static const void *pf_gen_slices(const void *prev, char *desc)
{
	const unsigned int *p = prev;
	unsigned int i = p ? *p + 1 : 0;

	if (i >= pf_slices())
		return NULL;
	pf_slice_ids[i] = i;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "slice %u of %u", i + 1,
		 pf_slices());
	return &pf_slice_ids[i];
}

static struct kunit_case peer_fuzz_cases[] = {
	KUNIT_CASE_PARAM_ATTR(peer_fuzz, pf_gen_slices,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite peer_fuzz_suite = {
	.name = "scif_peer_fuzz",
	.init = pf_init,
	.exit = pf_exit,
	.test_cases = peer_fuzz_cases,
};

kunit_test_suite(peer_fuzz_suite);

MODULE_DESCRIPTION("KUnit peer fuzzer of the SCIF core");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
