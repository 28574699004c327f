// SPDX-License-Identifier: GPL-2.0
/*
 * Physical limits of an NTB between two nodes, measured through the NTB
 * API only (written for the emulated NTB, works on any 2-port NTB with a
 * flat window): doorbell round trip, 8-byte round trip by polling a word in
 * the peer's memory, memcpy bandwidth into the peer window against local
 * memcpy. Port 0 measures and prints the table; the other port answers.
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
MODULE_PARM_DESC(max_mb, "Largest memcpy size (MiB)");

#define NB_BUF_ORDER	10		/* peer buffer: 4 MiB contiguous */
#define NB_BUF_SIZE	(PAGE_SIZE << NB_BUF_ORDER)
#define NB_SPAD_READY	8		/* own spads published to the peer */
#define NB_SPAD_WORD	9		/* +1: high half */
#define NB_SPAD_BUF	11		/* +1: high half */
#define NB_SPAD_DONE	13
#define NB_READY	0x600dU
#define NB_DONE		0xd0d0U
#define NB_TIMEOUT	(60 * HZ)
#define NB_TRIES	3		/* bandwidth: best of this many */

/**
 * struct nb_ctx - one benchmark instance
 * @ntb:	the NTB device
 * @task:	the benchmark thread
 * @db_done:	completed by db_event on the measuring side
 * @measure:	this side measures (port 0) rather than answers
 * @word:	local page polled for the 8-byte round trip
 * @buf:	local 4 MiB contiguous buffer the peer copies into
 * @peer_word:	the peer's @word through the memory window
 * @peer_buf:	the peer's @buf through the memory window
 */
struct nb_ctx {
	struct ntb_dev *ntb;
	struct task_struct *task;
	struct completion db_done;
	bool measure;
	u64 *word;
	void *buf;
	u64 *peer_word;
	void *peer_buf;
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

/* Spin until *p == v; false on timeout. */
static bool nb_spin(u64 *p, u64 v, unsigned long timeout)
{
	unsigned long end = jiffies + timeout;
	unsigned int n = 0;

	while (READ_ONCE(*p) != v) {
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
			if (!nb_spin(&nb->word[1], i, 5 * HZ))
				break;
			ns[i - 1] = ktime_to_ns(ktime_sub(ktime_get(), t0));
		} else {
			if (!nb_spin(&nb->word[0], i,
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
 * MB/s of copying size bytes from src to dst, in pieces of at most wrap
 * bytes that all land at dst (so both destinations are equally hot).
 */
static u64 nb_copy_rate(void *dst, size_t wrap, const void *src, size_t size)
{
	/* read the clock (slow in a TCG guest) once per 64 KiB or more */
	unsigned int reps = max_t(size_t, 1, SZ_64K / size), r;
	u64 done = 0, ns;
	ktime_t t0 = ktime_get();

	do {
		for (r = 0; r < reps; r++) {
			size_t off = 0;

			while (off < size) {
				size_t n = min(size - off, wrap);

				memcpy(dst, src + off, n);
				off += n;
			}
		}
		done += (u64)size * reps;
		ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	} while (ns < 20 * NSEC_PER_MSEC || done < 4 * size);
	return div64_u64(done * 1000, ns);	/* bytes/ns * 1000 = MB/s */
}

static void nb_bandwidth(struct nb_ctx *nb)
{
	size_t max = (size_t)max_mb << 20, size;
	void *src, *dst;

	src = vmalloc(max);
	dst = vmalloc(NB_BUF_SIZE);
	if (!src || !dst) {
		pr_err("ntb_ivshmem_bench: no memory for %u MiB buffers\n",
		       max_mb);
		goto out;
	}
	memset(src, 0x5a, max);
	memset(dst, 0, NB_BUF_SIZE);
	pr_info("ntb_ivshmem_bench: %10s %12s %12s %7s\n",
		"bytes", "local MB/s", "window MB/s", "ratio");
	for (size = 64; size <= max; size *= 4) {
		u64 local = 0, peer = 0;
		int t;

		/* best of NB_TRIES, interleaved: other guests share the host */
		for (t = 0; t < NB_TRIES; t++) {
			local = max(local, nb_copy_rate(dst, NB_BUF_SIZE, src,
							size));
			peer = max(peer, nb_copy_rate(nb->peer_buf, NB_BUF_SIZE,
						      src, size));
		}

		pr_info("ntb_ivshmem_bench: %10zu %12llu %12llu %6llu%%\n",
			size, local, peer, div64_u64(peer * 100, max(local, 1ULL)));
		if (kthread_should_stop())
			break;
	}
out:
	vfree(src);
	vfree(dst);
}

static int nb_publish(struct nb_ctx *nb)
{
	phys_addr_t wp = virt_to_phys(nb->word), bp = virt_to_phys(nb->buf);
	phys_addr_t base, pw, pb;
	resource_size_t size;
	int ret;

	ntb_spad_write(nb->ntb, NB_SPAD_WORD, lower_32_bits(wp));
	ntb_spad_write(nb->ntb, NB_SPAD_WORD + 1, upper_32_bits(wp));
	ntb_spad_write(nb->ntb, NB_SPAD_BUF, lower_32_bits(bp));
	ntb_spad_write(nb->ntb, NB_SPAD_BUF + 1, upper_32_bits(bp));
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
	pb = ntb_peer_spad_read(nb->ntb, 0, NB_SPAD_BUF) |
	     (u64)ntb_peer_spad_read(nb->ntb, 0, NB_SPAD_BUF + 1) << 32;
	if (pw + PAGE_SIZE > size || pb + NB_BUF_SIZE > size)
		return -ERANGE;
	nb->peer_word = memremap(base + pw, PAGE_SIZE, MEMREMAP_WB);
	nb->peer_buf = memremap(base + pb, NB_BUF_SIZE, MEMREMAP_WB);
	if (!nb->peer_word || !nb->peer_buf)
		return -ENOMEM;
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
	nb->word = (u64 *)get_zeroed_page(GFP_KERNEL);
	nb->buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					   NB_BUF_ORDER);
	if (!nb->word || !nb->buf) {
		ret = -ENOMEM;
		goto err_free;
	}
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
	free_pages((unsigned long)nb->buf, NB_BUF_ORDER);
	free_page((unsigned long)nb->word);
	return ret;
}

static void nb_remove(struct ntb_client *client, struct ntb_dev *ntb)
{
	struct nb_ctx *nb = ntb->ctx;

	kthread_stop(nb->task);
	ntb_link_disable(ntb);
	ntb_clear_ctx(ntb);
	if (nb->peer_word)
		memunmap(nb->peer_word);
	if (nb->peer_buf)
		memunmap(nb->peer_buf);
	free_pages((unsigned long)nb->buf, NB_BUF_ORDER);
	free_page((unsigned long)nb->word);
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
