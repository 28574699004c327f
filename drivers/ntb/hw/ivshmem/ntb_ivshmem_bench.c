// SPDX-License-Identifier: GPL-2.0
/*
 * Physical limits of an NTB between two nodes, measured through the NTB
 * API only (written for the emulated NTB, works on any 2-port NTB with a
 * flat window): doorbell round trip, 8-byte round trip by polling a word in
 * the peer's memory, a stream through a ring in the peer's memory that the
 * peer copies out as it fills, and memcpy bandwidth into the peer window
 * against local memcpy. Port 0 measures and prints the table; the other
 * port answers.
 *
 * Each copy of N bytes writes N distinct bytes of its destination (up to
 * max_mb), so that a large copy pays for a cold destination as an RMA of
 * the same size does. The peer's destination is max_mb of its memory in
 * 4 MiB chunks, whose addresses it lists in its word page.
 * Results go to the kernel log, prefixed "ntb_ivshmem_bench:".
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/ntb.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

static unsigned int iters = 1000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "Round trips per latency test");

static unsigned int max_mb = 64;
module_param(max_mb, uint, 0444);
MODULE_PARM_DESC(max_mb, "Largest memcpy size (MiB); each side holds that much for the peer");

#define NB_BUF_ORDER	10		/* one chunk: 4 MiB contiguous */
#define NB_BUF_SIZE	(PAGE_SIZE << NB_BUF_ORDER)
/* The chunk list in the word page: its length, then one address each. */
#define NB_DIR		64
#define NB_MAX_CHUNKS	(PAGE_SIZE / sizeof(u64) - NB_DIR - 1)
#define NB_SPAD_READY	8		/* own spads published to the peer */
#define NB_SPAD_WORD	9		/* +1: high half */
#define NB_SPAD_DONE	13
#define NB_READY	0x600dU
#define NB_DONE		0xd0d0U
#define NB_TIMEOUT	(60 * HZ)
#define NB_TRIES	3		/* bandwidth: best of this many */
/*
 * The stream: NB_PIECE at a time through an NB_RING ring at the start of
 * the peer's first chunk (the sizes of a SCIF stream of 64 KiB sends into
 * the default endpoint ring). Word page indices: the producer stores its
 * write count in the consumer's NB_W_WRITTEN, the consumer its read count
 * in the producer's NB_W_CONSUMED; NB_W_STOP ends the stream.
 */
#define NB_PIECE	SZ_64K
#define NB_RING		SZ_256K
#define NB_W_WRITTEN	2
#define NB_W_CONSUMED	3
#define NB_W_STOP	4
#define NB_STREAM_NS	(300 * NSEC_PER_MSEC)	/* one try */

/**
 * struct nb_ctx - one benchmark instance
 * @ntb:	the NTB device
 * @task:	the benchmark thread
 * @db_done:	completed by db_event on the measuring side
 * @measure:	this side measures (port 0) rather than answers
 * @word:	local page polled for the 8-byte round trip (words 0 and 1);
 *		word NB_DIR holds @nr_bufs, the words after it the physical
 *		address of each of @bufs
 * @nr_bufs:	chunks in @bufs and @peer_bufs: max_mb in 4 MiB, rounded up
 * @bufs:	local 4 MiB contiguous chunks the peer copies into (and, on
 *		the measuring side, the destination of the local memcpy)
 * @peer_word:	the peer's @word through the memory window
 * @peer_bufs:	the peer's @bufs through the memory window
 */
struct nb_ctx {
	struct ntb_dev *ntb;
	struct task_struct *task;
	struct completion db_done;
	bool measure;
	u64 *word;
	unsigned int nr_bufs;
	void **bufs;
	u64 *peer_word;
	void **peer_bufs;
};

static void nb_db_event(void *data, int vec)
{
	struct nb_ctx *nb = data;
	u64 db = ntb_db_read(nb->ntb);

	ntb_db_clear(nb->ntb, db);
	if (nb->measure)
		complete(&nb->db_done);
	else if (db & BIT_ULL(ntb_port_number(nb->ntb)))
		ntb_peer_db_set(nb->ntb, BIT_ULL(ntb_peer_port_number(nb->ntb, 0)));
}

static const struct ntb_ctx_ops nb_ops = {
	.db_event = nb_db_event,
};

static int nb_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void nb_report(const char *what, u64 *ns, unsigned int n)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += ns[i];
	sort(ns, n, sizeof(*ns), nb_cmp, NULL);
	pr_info("ntb_ivshmem_bench: %-30s min %7llu  median %7llu  mean %7llu  max %7llu ns (%u round trips)\n",
		what, ns[0], ns[n / 2], div_u64(sum, n), ns[n - 1], n);
}

static int nb_wait_spad(struct nb_ctx *nb, int sidx, u32 val)
{
	unsigned long end = jiffies + NB_TIMEOUT;

	while (ntb_peer_spad_read(nb->ntb, 0, sidx) != val) {
		if (kthread_should_stop() || time_after(jiffies, end))
			return -ETIMEDOUT;
		msleep(20);
	}
	return 0;
}

static void nb_doorbell_rtt(struct nb_ctx *nb, u64 *ns)
{
	u64 out = BIT_ULL(ntb_peer_port_number(nb->ntb, 0));
	unsigned int i;
	ktime_t t0;

	for (i = 0; i < iters; i++) {
		reinit_completion(&nb->db_done);
		t0 = ktime_get();
		ntb_peer_db_set(nb->ntb, out);
		if (!wait_for_completion_timeout(&nb->db_done, HZ)) {
			pr_err("ntb_ivshmem_bench: doorbell %u lost\n", i);
			return;
		}
		ns[i] = ktime_to_ns(ktime_sub(ktime_get(), t0));
	}
	nb_report("doorbell round trip", ns, iters);
}

/*
 * Wait until the counter at @p reaches @v, or (@stop not NULL) until the
 * peer set @stop[NB_W_STOP]; false after @timeout jiffies of neither.
 */
static bool nb_spin(u64 *p, u64 v, u64 *stop, unsigned long timeout)
{
	unsigned long end = jiffies + timeout;
	unsigned int n = 0;

	while ((s64)(READ_ONCE(*p) - v) < 0 &&
	       !(stop && READ_ONCE(stop[NB_W_STOP]))) {
		cpu_relax();
		if (++n % 4096 == 0) {
			if (time_after(jiffies, end))
				return false;
			cond_resched();
		}
	}
	return true;
}

static void nb_word_rtt(struct nb_ctx *nb, u64 *ns)
{
	unsigned int i;
	ktime_t t0;

	for (i = 1; i <= iters; i++) {
		if (nb->measure) {
			t0 = ktime_get();
			WRITE_ONCE(nb->peer_word[0], i);
			if (!nb_spin(&nb->word[1], i, NULL, 5 * HZ))
				break;
			ns[i - 1] = ktime_to_ns(ktime_sub(ktime_get(), t0));
		} else {
			if (!nb_spin(&nb->word[0], i, NULL,
				     i == 1 ? NB_TIMEOUT : 5 * HZ))
				break;
			WRITE_ONCE(nb->peer_word[1], i);
		}
	}
	if (nb->measure && i > iters)
		nb_report("8-byte polled-word round trip", ns, iters);
	else if (i <= iters)
		pr_err("ntb_ivshmem_bench: polled word %u lost\n", i);
}

/*
 * One try of the stream on the producing side: MB/s of the pieces it
 * copied into the peer's ring in NB_STREAM_NS, each once the consumer had
 * read far enough to free its room. *@written carries the write count
 * from try to try. 0 if the consumer stopped reading.
 */
static u64 nb_stream_try(struct nb_ctx *nb, const void *src, u64 *written)
{
	u8 *ring = nb->peer_bufs[0];
	u64 start = *written, ns;
	ktime_t t0 = ktime_get();
	unsigned int i;

	do {
		/* read the clock (slow in a TCG guest) once per 16 pieces */
		for (i = 0; i < 16; i++) {
			if (!nb_spin(&nb->word[NB_W_CONSUMED],
				     *written + NB_PIECE - NB_RING, NULL, 5 * HZ))
				return 0;
			memcpy(ring + (*written & (NB_RING - 1)), src, NB_PIECE);
			wmb();	/* the bytes before the index that covers them */
			*written += NB_PIECE;
			WRITE_ONCE(nb->peer_word[NB_W_WRITTEN], *written);
		}
		ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	} while (ns < NB_STREAM_NS);
	return div64_u64((*written - start) * 1000, ns);
}

/*
 * The stream through the peer's ring, the best of NB_TRIES tries. The
 * consumer is the peer's nb_stream_consume(); the last try of the
 * producer tells it to stop.
 */
static void nb_stream(struct nb_ctx *nb)
{
	u64 written = 0, best = 0, rate;
	void *src;
	int t;

	src = kmalloc(NB_PIECE, GFP_KERNEL);
	if (!src)
		goto stop;
	memset(src, 0x5a, NB_PIECE);
	for (t = 0; t < NB_TRIES; t++) {
		rate = nb_stream_try(nb, src, &written);
		if (!rate) {
			pr_err("ntb_ivshmem_bench: stream lost\n");
			break;
		}
		best = max(best, rate);
	}
	kfree(src);
	if (best)
		pr_info("ntb_ivshmem_bench: window stream of %u KiB pieces through a %u KiB ring, the peer copying out: %llu MB/s\n",
			NB_PIECE / SZ_1K, NB_RING / SZ_1K, best);
stop:
	WRITE_ONCE(nb->peer_word[NB_W_STOP], 1);
}

/*
 * The consuming side of the stream: copy each piece out of our ring (the
 * start of our first chunk) into a buffer of our own as soon as the
 * producer's index covers it, and publish how far we read, until told to
 * stop.
 */
static void nb_stream_consume(struct nb_ctx *nb)
{
	u8 *ring = nb->bufs[0];
	u64 read = 0, written;
	void *dst;

	dst = kmalloc(NB_PIECE, GFP_KERNEL);
	if (!dst)
		return;
	for (;;) {
		if (!nb_spin(&nb->word[NB_W_WRITTEN], read + 1, nb->word,
			     NB_TIMEOUT)) {
			pr_err("ntb_ivshmem_bench: stream lost\n");
			break;
		}
		written = READ_ONCE(nb->word[NB_W_WRITTEN]);
		if (written == read)
			break;	/* stopped */
		smp_rmb();	/* the index before the bytes it covers */
		memcpy(dst, ring + (read & (NB_RING - 1)), NB_PIECE);
		read += NB_PIECE;
		WRITE_ONCE(nb->peer_word[NB_W_CONSUMED], read);
	}
	kfree(dst);
}

/*
 * MB/s of copying size bytes from src to the 4 MiB chunks dst[] in turn,
 * one piece of at most a chunk each: size distinct bytes of destination up
 * to nr chunks' worth, then the first chunk again.
 */
static u64 nb_copy_rate(void **dst, unsigned int nr, const void *src,
			size_t size)
{
	/* read the clock (slow in a TCG guest) once per 64 KiB or more */
	unsigned int reps = max_t(size_t, 1, SZ_64K / size), r;
	u64 done = 0, ns;
	ktime_t t0 = ktime_get();

	do {
		for (r = 0; r < reps; r++) {
			size_t off = 0, n;

			for (off = 0; off < size; off += n) {
				n = min_t(size_t, size - off, NB_BUF_SIZE);
				memcpy(dst[off / NB_BUF_SIZE % nr], src + off, n);
			}
		}
		done += (u64)size * reps;
		ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	} while (ns < 20 * NSEC_PER_MSEC || done < 4 * size);
	return div64_u64(done * 1000, ns);	/* bytes/ns * 1000 = MB/s */
}

static void nb_bandwidth(struct nb_ctx *nb)
{
	size_t max = (size_t)nb->nr_bufs * NB_BUF_SIZE, size;
	void *src;

	src = vmalloc(max);
	if (!src)
		return;
	memset(src, 0x5a, max);
	pr_info("ntb_ivshmem_bench: %10s %12s %12s %7s\n",
		"bytes", "local MB/s", "window MB/s", "ratio");
	for (size = 64; size <= (size_t)max_mb << 20; size *= 4) {
		u64 local = 0, peer = 0;
		int t;

		/* best of NB_TRIES, interleaved: other guests share the host */
		for (t = 0; t < NB_TRIES; t++) {
			/* our own chunks, as the peer's: the same shape */
			local = max(local, nb_copy_rate(nb->bufs, nb->nr_bufs,
							src, size));
			peer = max(peer, nb_copy_rate(nb->peer_bufs,
						      nb->nr_bufs, src, size));
		}

		pr_info("ntb_ivshmem_bench: %10zu %12llu %12llu %6llu%%\n",
			size, local, peer, div64_u64(peer * 100, max(local, 1ULL)));
		if (kthread_should_stop())
			break;
	}
	vfree(src);
}

static int nb_publish(struct nb_ctx *nb)
{
	phys_addr_t wp = virt_to_phys(nb->word), base, pw, pb;
	resource_size_t size;
	unsigned int i;
	int ret;

	ntb_spad_write(nb->ntb, NB_SPAD_WORD, lower_32_bits(wp));
	ntb_spad_write(nb->ntb, NB_SPAD_WORD + 1, upper_32_bits(wp));
	ntb_spad_write(nb->ntb, NB_SPAD_DONE, 0);
	ntb_spad_write(nb->ntb, NB_SPAD_READY, NB_READY);
	ret = nb_wait_spad(nb, NB_SPAD_READY, NB_READY);
	if (ret)
		return ret;

	ret = ntb_peer_mw_get_addr(nb->ntb, 0, &base, &size);
	if (ret)
		return ret;
	pw = ntb_peer_spad_read(nb->ntb, 0, NB_SPAD_WORD) |
	     (u64)ntb_peer_spad_read(nb->ntb, 0, NB_SPAD_WORD + 1) << 32;
	if (pw + PAGE_SIZE > size)
		return -ERANGE;
	nb->peer_word = memremap(base + pw, PAGE_SIZE, MEMREMAP_WB);
	if (!nb->peer_word)
		return -ENOMEM;
	/* both sides were loaded with the same max_mb */
	if (READ_ONCE(nb->peer_word[NB_DIR]) != nb->nr_bufs)
		return -EINVAL;
	for (i = 0; i < nb->nr_bufs; i++) {
		pb = READ_ONCE(nb->peer_word[NB_DIR + 1 + i]);
		if (pb + NB_BUF_SIZE > size || pb + NB_BUF_SIZE < pb)
			return -ERANGE;
		nb->peer_bufs[i] = memremap(base + pb, NB_BUF_SIZE,
					    MEMREMAP_WB);
		if (!nb->peer_bufs[i])
			return -ENOMEM;
	}
	return 0;
}

static int nb_thread(void *data)
{
	struct nb_ctx *nb = data;
	unsigned long end = jiffies + NB_TIMEOUT;
	u64 *ns;
	int ret;

	ns = kvcalloc(iters, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		goto idle;
	while (!(ntb_link_is_up(nb->ntb, NULL, NULL) & BIT_ULL(0))) {
		if (kthread_should_stop() || time_after(jiffies, end))
			goto idle;
		msleep(20);
	}
	ret = nb_publish(nb);
	if (ret) {
		pr_err("ntb_ivshmem_bench: setup failed: %d\n", ret);
		goto idle;
	}
	if (nb->measure) {
		/* let the peer finish its own setup (it answers in db_event) */
		msleep(200);
		nb_doorbell_rtt(nb, ns);
	}
	nb_word_rtt(nb, ns);
	if (nb->measure)
		nb_stream(nb);
	else
		nb_stream_consume(nb);
	if (nb->measure) {
		nb_bandwidth(nb);
		ntb_spad_write(nb->ntb, NB_SPAD_DONE, NB_DONE);
	} else {
		nb_wait_spad(nb, NB_SPAD_DONE, NB_DONE);
	}
	pr_info("ntb_ivshmem_bench: done\n");
idle:
	kvfree(ns);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/* Undo nb_alloc_bufs() and the peer's chunk mappings. */
static void nb_free_bufs(struct nb_ctx *nb)
{
	unsigned int i;

	for (i = 0; i < nb->nr_bufs; i++) {
		if (nb->peer_bufs && nb->peer_bufs[i])
			memunmap(nb->peer_bufs[i]);
		if (nb->bufs && nb->bufs[i])
			free_pages((unsigned long)nb->bufs[i], NB_BUF_ORDER);
	}
	kfree(nb->peer_bufs);
	kfree(nb->bufs);
	if (nb->peer_word)
		memunmap(nb->peer_word);
	free_page((unsigned long)nb->word);
}

/* The word page and max_mb in 4 MiB chunks, listed in the word page. */
static int nb_alloc_bufs(struct nb_ctx *nb)
{
	unsigned int i;

	nb->nr_bufs = clamp_t(unsigned int, DIV_ROUND_UP(max_mb, 4), 1,
			      NB_MAX_CHUNKS);
	nb->word = (u64 *)get_zeroed_page(GFP_KERNEL);
	nb->bufs = kcalloc(nb->nr_bufs, sizeof(*nb->bufs), GFP_KERNEL);
	nb->peer_bufs = kcalloc(nb->nr_bufs, sizeof(*nb->peer_bufs),
				GFP_KERNEL);
	if (!nb->word || !nb->bufs || !nb->peer_bufs)
		return -ENOMEM;
	nb->word[NB_DIR] = nb->nr_bufs;
	for (i = 0; i < nb->nr_bufs; i++) {
		nb->bufs[i] = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
						       NB_BUF_ORDER);
		if (!nb->bufs[i])
			return -ENOMEM;
		nb->word[NB_DIR + 1 + i] = virt_to_phys(nb->bufs[i]);
	}
	return 0;
}

static int nb_probe(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct nb_ctx *nb;
	int ret;

	if (ntb_peer_port_count(ntb) != 1) {
		dev_err(&ntb->dev, "ntb_ivshmem_bench needs exactly one peer\n");
		return -EINVAL;
	}
	nb = devm_kzalloc(&ntb->dev, sizeof(*nb), GFP_KERNEL);
	if (!nb)
		return -ENOMEM;
	nb->ntb = ntb;
	nb->measure = ntb_port_number(ntb) == 0;
	init_completion(&nb->db_done);
	ret = nb_alloc_bufs(nb);
	if (ret)
		goto err_free;
	ret = ntb_set_ctx(ntb, nb, &nb_ops);
	if (ret)
		goto err_free;
	ntb_db_clear_mask(ntb, ntb_db_valid_mask(ntb));
	ntb_link_enable(ntb, NTB_SPEED_AUTO, NTB_WIDTH_AUTO);
	nb->task = kthread_run(nb_thread, nb, "ntb_bench");
	if (IS_ERR(nb->task)) {
		ret = PTR_ERR(nb->task);
		goto err_ctx;
	}
	return 0;

err_ctx:
	ntb_link_disable(ntb);
	ntb_clear_ctx(ntb);
err_free:
	nb_free_bufs(nb);
	return ret;
}

static void nb_remove(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct nb_ctx *nb = ntb->ctx;

	kthread_stop(nb->task);
	ntb_link_disable(ntb);
	ntb_clear_ctx(ntb);
	nb_free_bufs(nb);
}

static struct ntb_client nb_client = {
	.ops = {
		.probe = nb_probe,
		.remove = nb_remove,
	},
};
module_ntb_client(nb_client);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Round trip and bandwidth limits of a 2-port NTB");
