// SPDX-License-Identifier: GPL-2.0
/*
 * The scif libfabric provider's semantics, in one process on one node:
 * two domains (as two processes would have), one RDM endpoint each, A
 * sending to and RMA-ing into B through SCIF's loopback. What fi_pingpong
 * does not cover: tag matching with ignore masks, any-source and directed
 * receives, the unexpected queue (eager and rendezvous), FI_PEEK and
 * FI_CLAIM, truncation, cancel, fi_cq_readfrom's source, RMA read/write
 * to regions registered before and after the connection existed, remote
 * CQ data, a bad key, counters; and the staged rendezvous (messages of
 * several staging windows, unexpected, truncated, discarded, and a
 * message that must not wait for an unexpected one before it). Prints
 * "ok N - ..." per check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

struct side {
	struct fid_domain *dom;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_cntr *cntr;
	struct fid_ep *ep;
	char name[64];
	size_t namelen;
	fi_addr_t peer;		/* the other side in this side's AV */
};

static struct fid_fabric *fab;
static struct side a, b;
static struct fi_cq_err_entry last_err;
static int checks, failures;

static void check(int ok, const char *what)
{
	checks++;
	if (!ok)
		failures++;
	printf("%sok %d - %s\n", ok ? "" : "not ", checks, what);
	fflush(stdout);
}

#define TRY(call)							\
	do {								\
		int r_ = (int)(call);					\
									\
		if (r_) {						\
			fprintf(stderr, "%s: %s\n", #call,		\
				fi_strerror(-r_));			\
			exit(1);					\
		}							\
	} while (0)

/* One completion of @cq, progressing both domains; -err on a failed one. */
static int wait_comp(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		     fi_addr_t *src)
{
	time_t end = time(NULL) + 60;
	ssize_t r;

	while (time(NULL) < end) {
		fi_cntr_read(a.cntr);
		fi_cntr_read(b.cntr);
		r = fi_cq_readfrom(cq, e, 1, src);
		if (r == 1)
			return 0;
		if (r == -FI_EAVAIL) {
			memset(&last_err, 0, sizeof(last_err));
			fi_cq_readerr(cq, &last_err, 0);
			return -last_err.err;
		}
		if (r != -FI_EAGAIN)
			return (int)r;
	}
	fprintf(stderr, "no completion within 60 s\n");
	exit(1);
}

/* Peek at b's receive queue with @flags until a message is there. */
static int peek_wait(struct fi_msg_tagged *m, uint64_t flags,
		     struct fi_cq_tagged_entry *e)
{
	int r;

	do {
		TRY(fi_trecvmsg(b.ep, m, FI_PEEK | flags));
		r = wait_comp(b.cq, e, NULL);
	} while (r == -FI_ENOMSG);
	return r;
}

/* Let B's progress take in whatever A sent, for 200 ms. */
static void settle(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		fi_cntr_read(a.cntr);
		fi_cntr_read(b.cntr);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < 200);
}

static void open_side(struct fi_info *info, struct side *s)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP };

	TRY(fi_domain(fab, info, &s->dom, NULL));
	TRY(fi_cq_open(s->dom, &cq_attr, &s->cq, NULL));
	TRY(fi_av_open(s->dom, &av_attr, &s->av, NULL));
	TRY(fi_cntr_open(s->dom, &cntr_attr, &s->cntr, NULL));
	TRY(fi_endpoint(s->dom, info, &s->ep, NULL));
	TRY(fi_ep_bind(s->ep, &s->av->fid, 0));
	TRY(fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV));
	TRY(fi_ep_bind(s->ep, &s->cntr->fid, FI_READ | FI_WRITE));
	TRY(fi_enable(s->ep));
	s->namelen = sizeof(s->name);
	TRY(fi_getname(&s->ep->fid, s->name, &s->namelen));
}

static void fill(char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(seed * 31 + i * 7 + (i >> 8));
}

static void test_tags(void)
{
	static char big[200000], bigin[200000];
	struct fi_cq_tagged_entry e;
	char out[128], in[128], in2[128];
	fi_addr_t src = 0;
	int r;

	fill(out, 100, 1);
	TRY(fi_trecv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, 0x100, 0xff,
		     in));
	TRY(fi_tsend(a.ep, out, 100, NULL, a.peer, 0x1ab, out));
	r = wait_comp(a.cq, &e, NULL);
	check(!r && e.op_context == out && e.flags & FI_TAGGED &&
	      e.flags & FI_SEND, "tagged send completes");
	r = wait_comp(b.cq, &e, &src);
	check(!r && e.tag == 0x1ab && e.len == 100 && !memcmp(in, out, 100) &&
	      e.flags & FI_RECV, "ignore mask 0xff: tag 0x1ab matches 0x100");
	check(src == b.peer, "fi_cq_readfrom gives the sender's fi_addr");

	/* unexpected: two eager with one tag, one rendezvous with another */
	fill(big, sizeof(big), 2);
	TRY(fi_tsend(a.ep, "first", 6, NULL, a.peer, 1, NULL));
	TRY(fi_tsend(a.ep, "second", 7, NULL, a.peer, 1, NULL));
	TRY(fi_tsend(a.ep, big, sizeof(big), NULL, a.peer, 2, NULL));
	wait_comp(a.cq, &e, NULL);
	wait_comp(a.cq, &e, NULL);
	settle();
	/* the rendezvous completes on A once B took it: post B's receives */
	TRY(fi_trecv(b.ep, bigin, sizeof(bigin), NULL, FI_ADDR_UNSPEC, 2, 0,
		     bigin));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && e.op_context == bigin && e.len == sizeof(big) &&
	      !memcmp(big, bigin, sizeof(big)),
	      "200 kB rendezvous taken from the unexpected queue, data intact");
	r = wait_comp(a.cq, &e, NULL);
	check(!r, "the rendezvous send completes after the receiver's FIN");
	TRY(fi_trecv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, 1, 0, in));
	TRY(fi_trecv(b.ep, in2, sizeof(in2), NULL, FI_ADDR_UNSPEC, 1, 0, in2));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && e.op_context == in && !strcmp(in, "first"),
	      "unexpected messages of one tag are received in order (1)");
	r = wait_comp(b.cq, &e, NULL);
	check(!r && e.op_context == in2 && !strcmp(in2, "second"),
	      "unexpected messages of one tag are received in order (2)");
}

static void test_directed(fi_addr_t stranger)
{
	struct fi_cq_tagged_entry e;
	char in[16], in2[16], ctx;
	int r;

	TRY(fi_trecv(b.ep, in, sizeof(in), NULL, stranger, 5, 0, &ctx));
	TRY(fi_trecv(b.ep, in2, sizeof(in2), NULL, b.peer, 5, 0, in2));
	TRY(fi_tsend(a.ep, "dir", 4, NULL, a.peer, 5, NULL));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && e.op_context == in2 && !strcmp(in2, "dir"),
	      "a receive directed at another address does not match");
	wait_comp(a.cq, &e, NULL);
	check(fi_cancel(&b.ep->fid, &ctx) == 0, "fi_cancel finds the receive");
	r = wait_comp(b.cq, &e, NULL);
	check(r == -FI_ECANCELED && last_err.op_context == &ctx,
	      "the cancelled receive completes with FI_ECANCELED");
}

static void test_peek_trunc(void)
{
	struct fi_context claim_ctx;
	struct fi_cq_tagged_entry e;
	struct fi_msg_tagged m;
	struct iovec iov;
	char in[64], out[300];
	int r;

	TRY(fi_tsend(a.ep, "peeked", 7, NULL, a.peer, 7, NULL));
	wait_comp(a.cq, &e, NULL);
	memset(&m, 0, sizeof(m));
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 7;
	m.context = &claim_ctx;
	r = peek_wait(&m, FI_CLAIM, &e);
	check(!r && e.len == 7 && e.tag == 7,
	      "FI_PEEK|FI_CLAIM reports the length and tag");
	iov.iov_base = in;
	iov.iov_len = sizeof(in);
	m.msg_iov = &iov;
	m.iov_count = 1;
	TRY(fi_trecvmsg(b.ep, &m, FI_CLAIM));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && !strcmp(in, "peeked"), "FI_CLAIM receives the claimed message");
	TRY(fi_trecvmsg(b.ep, &m, FI_PEEK));
	r = wait_comp(b.cq, &e, NULL);
	check(r == -FI_ENOMSG, "FI_PEEK without a message: FI_ENOMSG");

	fill(out, sizeof(out), 3);
	TRY(fi_recv(b.ep, in, 100, NULL, FI_ADDR_UNSPEC, in));
	TRY(fi_send(a.ep, out, sizeof(out), NULL, a.peer, NULL));
	r = wait_comp(b.cq, &e, NULL);
	check(r == -FI_ETRUNC && last_err.olen == 200 && !memcmp(in, out, 64),
	      "a 300-byte message into 100 bytes: FI_ETRUNC, olen 200");
	wait_comp(a.cq, &e, NULL);
}

/*
 * Messages above the staging window take several turns of it (by
 * default; run with FI_SCIF_RV_STAGING=0 the same messages go by the
 * per-message rendezvous).
 */
#define STAGED_BIG	(5 * 1024 * 1024 + 12345)
#define STAGED_MID	(1024 * 1024 + 777)

static void test_staged(void)
{
	char *big = malloc(STAGED_BIG), *in = malloc(STAGED_BIG);
	char *mid = malloc(STAGED_MID), *in2 = malloc(STAGED_MID);
	struct fi_context peek_ctx;
	struct fi_cq_tagged_entry e;
	struct fi_msg_tagged m;
	int r;

	if (!big || !in || !mid || !in2)
		exit(1);
	fill(big, STAGED_BIG, 5);
	fill(mid, STAGED_MID, 6);

	memset(in, 0, STAGED_BIG);
	TRY(fi_trecv(b.ep, in, STAGED_BIG, NULL, FI_ADDR_UNSPEC, 20, 0, in));
	TRY(fi_tsend(a.ep, big, STAGED_BIG, NULL, a.peer, 20, big));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && e.len == STAGED_BIG && !memcmp(in, big, STAGED_BIG),
	      "5 MiB through the staging window, posted receive, data intact");
	r = wait_comp(a.cq, &e, NULL);
	check(!r && e.op_context == big, "the 5 MiB send completes");

	/* an unexpected big message must not hold up the one after it */
	memset(in, 0, STAGED_BIG);
	memset(in2, 0, STAGED_MID);
	TRY(fi_tsend(a.ep, big, STAGED_BIG, NULL, a.peer, 21, big));
	TRY(fi_tsend(a.ep, mid, STAGED_MID, NULL, a.peer, 22, mid));
	TRY(fi_trecv(b.ep, in2, STAGED_MID, NULL, FI_ADDR_UNSPEC, 22, 0, in2));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && e.op_context == in2 && !memcmp(in2, mid, STAGED_MID),
	      "a staged message behind an unexpected one arrives first");
	TRY(fi_trecv(b.ep, in, STAGED_BIG, NULL, FI_ADDR_UNSPEC, 21, 0, in));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && e.op_context == in && !memcmp(in, big, STAGED_BIG),
	      "the unexpected 5 MiB message, received late, data intact");
	r = wait_comp(a.cq, &e, NULL);
	r = r ?: wait_comp(a.cq, &e, NULL);
	check(!r, "both staged sends complete");

	/* truncated: the receiver reads its part, the rest is let go */
	memset(in2, 0, STAGED_MID);
	TRY(fi_trecv(b.ep, in2, 300000, NULL, FI_ADDR_UNSPEC, 23, 0, in2));
	TRY(fi_tsend(a.ep, big, STAGED_BIG, NULL, a.peer, 23, big));
	r = wait_comp(b.cq, &e, NULL);
	check(r == -FI_ETRUNC && last_err.olen == STAGED_BIG - 300000 &&
	      !memcmp(in2, big, 300000) && !in2[300000],
	      "5 MiB into 300000 bytes: FI_ETRUNC, the first 300000 intact");
	r = wait_comp(a.cq, &e, NULL);
	check(!r, "the truncated staged send completes");

	/* discarded while unexpected: the sender's slots come back */
	TRY(fi_tsend(a.ep, big, STAGED_BIG, NULL, a.peer, 24, big));
	memset(&m, 0, sizeof(m));
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 24;
	m.context = &peek_ctx;
	r = peek_wait(&m, FI_DISCARD, &e);
	check(!r && e.len == STAGED_BIG, "FI_PEEK|FI_DISCARD of a staged message");
	r = wait_comp(a.cq, &e, NULL);
	check(!r, "the discarded staged send completes");
	memset(in2, 0, STAGED_MID);
	TRY(fi_trecv(b.ep, in2, STAGED_MID, NULL, FI_ADDR_UNSPEC, 25, 0, in2));
	TRY(fi_tsend(a.ep, mid, STAGED_MID, NULL, a.peer, 25, mid));
	r = wait_comp(b.cq, &e, NULL);
	check(!r && !memcmp(in2, mid, STAGED_MID),
	      "a staged message after the discarded one, data intact");
	wait_comp(a.cq, &e, NULL);
	free(big);
	free(in);
	free(mid);
	free(in2);
}

static void test_rma(struct fid_mr *mr, char *target, const char *when)
{
	static char out[5000], back[5000];
	struct fi_cq_tagged_entry e;
	uint64_t key = fi_mr_key(mr);
	char what[160];
	int r;

	fill(out, sizeof(out), 4);
	TRY(fi_write(a.ep, out, sizeof(out), NULL, a.peer, 100, key, out));
	r = wait_comp(a.cq, &e, NULL);
	snprintf(what, sizeof(what), "fi_write into a region registered %s", when);
	check(!r && e.flags & FI_WRITE && !memcmp(target + 100, out, sizeof(out)),
	      what);
	TRY(fi_read(a.ep, back, sizeof(back), NULL, a.peer, 100, key, back));
	r = wait_comp(a.cq, &e, NULL);
	snprintf(what, sizeof(what), "fi_read back from the region registered %s",
		 when);
	check(!r && e.flags & FI_READ && !memcmp(back, out, sizeof(out)), what);
}

int main(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_info *hints, *info, *none = NULL;
	struct fid_mr *mr1, *mr2;
	struct { uint16_t node, port; } bogus;
	fi_addr_t stranger;
	char *t1, *t2;
	int r;

	hints = fi_allocinfo();
	hints->caps = FI_MSG | FI_TAGGED | FI_RMA | FI_DIRECTED_RECV | FI_SOURCE;
	hints->ep_attr->type = FI_EP_RDM;
	hints->domain_attr->mr_mode = FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup("scif");
	TRY(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
	check(info->domain_attr->mr_mode == FI_MR_PROV_KEY &&
	      info->ep_attr->type == FI_EP_RDM, "fi_getinfo: RDM, FI_MR_PROV_KEY");
	hints->domain_attr->data_progress = FI_PROGRESS_AUTO;
	check(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &none) ==
	      -FI_ENODATA && !none, "fi_getinfo refuses FI_PROGRESS_AUTO");
	TRY(fi_fabric(info->fabric_attr, &fab, NULL));
	open_side(info, &a);
	open_side(info, &b);

	/* B's first region exists before any connection */
	t1 = aligned_alloc(4096, 3 * 4096);
	t2 = aligned_alloc(4096, 2 * 4096);
	memset(t1, 0, 3 * 4096);
	memset(t2, 0, 2 * 4096);
	TRY(fi_mr_reg(b.dom, t1 + 300, 2 * 4096, FI_REMOTE_READ | FI_REMOTE_WRITE,
		      0, 0, 0, &mr1, NULL));

	TRY(fi_av_insert(a.av, b.name, 1, &a.peer, 0, NULL) != 1);
	TRY(fi_av_insert(b.av, a.name, 1, &b.peer, 0, NULL) != 1);
	memcpy(&bogus, a.name, sizeof(bogus));
	bogus.port = 1;
	TRY(fi_av_insert(b.av, &bogus, 1, &stranger, 0, NULL) != 1);

	test_tags();
	test_directed(stranger);
	test_peek_trunc();
	test_staged();
	test_rma(mr1, t1 + 300, "before the connection");
	TRY(fi_mr_reg(b.dom, t2, 2 * 4096, FI_REMOTE_READ | FI_REMOTE_WRITE,
		      0, 0, 0, &mr2, NULL));
	test_rma(mr2, t2, "after the connection");
	check(fi_cntr_read(a.cntr) == 4, "A's counter: 2 writes and 2 reads");

	TRY(fi_writedata(a.ep, "wd", 2, NULL, 0xabcdef, a.peer, 0,
			 fi_mr_key(mr2), NULL));
	r = wait_comp(a.cq, &e, NULL);
	r = r ?: wait_comp(b.cq, &e, NULL);
	check(!r && e.data == 0xabcdef && e.flags & FI_REMOTE_WRITE &&
	      e.flags & FI_REMOTE_CQ_DATA && !memcmp(t2, "wd", 2),
	      "fi_writedata: the target's CQ gets the data");
	TRY(fi_write(a.ep, "x", 1, NULL, a.peer, 0, fi_mr_key(mr2) + 65536,
		     NULL));
	r = wait_comp(a.cq, &e, NULL);
	check(r < 0 && fi_cntr_readerr(a.cntr) == 1,
	      "a write outside every region fails, counted as an error");

	TRY(fi_close(&mr1->fid));
	TRY(fi_close(&mr2->fid));
	TRY(fi_close(&a.ep->fid));
	TRY(fi_close(&b.ep->fid));
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
