// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF_STREAM_MAP and SCIF_STREAM_WAKE on the loopback node, through the
 * raw requests (libscif's own use of them is covered by every other test):
 * the errors of the request (no descriptor left, a stream by messages)
 * and of mmap(), bytes copied by the process
 * and by the kernel on one stream in turn, poll seeing the process's
 * positions, a process that lies about its positions (the connection is
 * reset, nothing else happens), and writes after the peer closed (they
 * land in a sink, the process lives). Prints TAP.
 */
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/ioctl.h>

#include "scif_test.h"

/* One endpoint's mapped stream. */
struct smap {
	struct scifioctl_stream_map m;
	struct scif_stream_shared *sh;
	struct scif_stream_ctl *peer;	/* the peer's block: we write it */
	unsigned char *tx;		/* the peer's ring */
	const struct scif_stream_ctl *own;
	const unsigned char *rx;
};

static long page;

static void smap_open(scif_epd_t e, struct smap *s)
{
	unsigned char *rw, *ro;

	memset(s, 0, sizeof(*s));
	if (ioctl(e, SCIF_STREAM_MAP, &s->m) < 0)
		bail("SCIF_STREAM_MAP: %s", strerror(errno));
	rw = mmap(NULL, s->m.rw_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		  s->m.fd, s->m.rw_offset);
	ro = mmap(NULL, s->m.ro_len, PROT_READ, MAP_SHARED, s->m.fd,
		  s->m.ro_offset);
	if (rw == MAP_FAILED || ro == MAP_FAILED)
		bail("mmap of the stream: %s", strerror(errno));
	close(s->m.fd);
	s->sh = (void *)rw;
	s->peer = (void *)(rw + page);
	s->tx = rw + 2 * page;
	s->own = (const void *)ro;
	s->rx = ro + page;
}

static void smap_close(struct smap *s)
{
	munmap(s->sh, s->m.rw_len);
	munmap((void *)s->own, s->m.ro_len);
}

/* Copy @len bytes into the peer's ring as libscif does; no room check. */
static void smap_send(scif_epd_t e, struct smap *s, const void *buf,
		      __u32 len)
{
	__u32 sent = s->sh->sent, off = sent & (s->m.tx_size - 1);
	__u32 first = len < s->m.tx_size - off ? len : s->m.tx_size - off;
	__u32 ev;

	memcpy(s->tx + off, buf, first);
	memcpy(s->tx, (const char *)buf + first, len - first);
	s->sh->sent = sent + len;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s->peer->written = htole32(sent + len);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ev = le32toh(s->own->rx_event);
	if ((__u32)(sent + len - ev - 1) < len)
		ioctl(e, SCIF_STREAM_WAKE);
}

/* Take what is queued, up to @len bytes, as libscif does. */
static __u32 smap_recv(struct smap *s, void *buf, __u32 len)
{
	__u32 read = s->sh->read, off = read & (s->m.rx_size - 1);
	__u32 avail = le32toh(__atomic_load_n(&s->own->written,
						 __ATOMIC_ACQUIRE)) - read;
	__u32 n = avail < len ? avail : len;
	__u32 first = n < s->m.rx_size - off ? n : s->m.rx_size - off;

	memcpy(buf, s->rx + off, first);
	memcpy((char *)buf + first, s->rx, n - first);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s->sh->read = read + n;
	s->peer->consumed = htole32(read + n);
	return n;
}

static void test_errors(scif_epd_t l, __u16 port)
{
	struct scifioctl_stream_map m = { 0 };
	scif_epd_t e = scif_open(), a, b;
	void *p;

	EXPECT_ERR(ioctl(e, SCIF_STREAM_MAP, &m), ENOTCONN);
	EXPECT_ERR(ioctl(e, SCIF_STREAM_WAKE), ENOTCONN);
	scif_close(e);
	make_pair_on(l, port, &a, &b);
	m.flags = 1;
	EXPECT_ERR(ioctl(a, SCIF_STREAM_MAP, &m), EINVAL);
	EXPECT_ERR(ioctl(a, SCIF_STREAM_MAP, NULL), EFAULT);
	m.flags = 0;
	EXPECT_EQ(ioctl(a, SCIF_STREAM_MAP, &m), 0);
	tap_ok(m.rx_size >= 4096 && !(m.rx_size & (m.rx_size - 1)) &&
	       m.tx_size >= 4096 && !(m.tx_size & (m.tx_size - 1)),
	       "ring sizes %u and %u are powers of 2", m.rx_size, m.tx_size);
	tap_ok(m.rw_len == 2 * (__u64)page + m.tx_size &&
	       m.ro_len == (__u64)page + m.rx_size,
	       "parts of %llu and %llu bytes", (unsigned long long)m.rw_len,
	       (unsigned long long)m.ro_len);
	p = mmap(NULL, m.ro_len, PROT_READ | PROT_WRITE, MAP_SHARED, m.fd,
		 m.ro_offset);
	tap_ok(p == MAP_FAILED && errno == EACCES,
	       "the read-only part cannot be mapped for writing");
	p = mmap(NULL, m.ro_len, PROT_READ, MAP_SHARED, m.fd, m.ro_offset);
	tap_ok(p != MAP_FAILED, "the read-only part maps for reading");
	EXPECT_ERR(mprotect(p, m.ro_len, PROT_READ | PROT_WRITE), EACCES);
	munmap(p, m.ro_len);
	p = mmap(NULL, m.rw_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, m.fd,
		 m.rw_offset);
	tap_ok(p == MAP_FAILED && errno == EINVAL, "MAP_PRIVATE is refused");
	p = mmap(NULL, m.rw_len - page, PROT_READ, MAP_SHARED, m.fd,
		 m.rw_offset);
	tap_ok(p == MAP_FAILED && errno == EINVAL, "a piece of a part is refused");
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, m.fd, m.ro_offset + page);
	tap_ok(p == MAP_FAILED && errno == EINVAL, "another offset is refused");
	p = mmap(NULL, m.rw_len, PROT_READ | PROT_EXEC, MAP_SHARED, m.fd,
		 m.rw_offset);
	tap_ok(p == MAP_FAILED && errno == EACCES, "PROT_EXEC is refused");
	close(m.fd);
	scif_close(a);
	scif_close(b);
}

/* Writes @val into the module parameter stream_shm; 0 or -1. */
static int set_stream_shm(const char *val)
{
	int fd = open("/sys/module/scif/parameters/stream_shm", O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/* No descriptor left, or a stream by messages: the request says so. */
static void test_refused(scif_epd_t l, __u16 port)
{
	struct scifioctl_stream_map m = { 0 };
	struct rlimit old, low;
	scif_epd_t a, b;
	int lowest;
	char c;

	make_pair_on(l, port, &a, &b);
	lowest = dup(0);
	if (lowest < 0 || getrlimit(RLIMIT_NOFILE, &old))
		bail("dup or getrlimit");
	close(lowest);
	low = old;
	low.rlim_cur = lowest;
	if (setrlimit(RLIMIT_NOFILE, &low))
		bail("setrlimit");
	EXPECT_ERR(ioctl(a, SCIF_STREAM_MAP, &m), EMFILE);
	if (setrlimit(RLIMIT_NOFILE, &old))
		bail("setrlimit");
	scif_close(a);
	scif_close(b);

	if (set_stream_shm("N"))
		bail("stream_shm: %s", strerror(errno));
	make_pair_on(l, port, &a, &b);
	set_stream_shm("Y");
	EXPECT_ERR(ioctl(a, SCIF_STREAM_MAP, &m), EOPNOTSUPP);
	EXPECT_ERR(ioctl(a, SCIF_STREAM_WAKE), EOPNOTSUPP);
	EXPECT_EQ(raw_msg(a, SCIF_SEND, "m", 1, SCIF_SEND_BLOCK), 1);
	EXPECT_EQ(raw_msg(b, SCIF_RECV, &c, 1, SCIF_RECV_BLOCK), 1);
	scif_close(a);
	scif_close(b);
}

/* The process and the kernel take turns on one stream, both ways. */
static void test_mixed(scif_epd_t l, __u16 port)
{
	char buf[64] = { 0 };
	struct pollfd pfd;
	scif_epd_t a, b;
	struct smap s;
	int i;

	make_pair_on(l, port, &a, &b);
	smap_open(a, &s);
	smap_send(a, &s, "hello", 5);
	EXPECT_EQ(raw_msg(b, SCIF_RECV, buf, 5, SCIF_RECV_BLOCK), 5);
	tap_ok(!memcmp(buf, "hello", 5), "mapped bytes arrive");
	EXPECT_EQ(raw_msg(a, SCIF_SEND, "world", 5, SCIF_SEND_BLOCK), 5);
	tap_ok(s.sh->sent == 10, "the kernel stored its write position (%u)",
	       s.sh->sent);
	EXPECT_EQ(raw_msg(b, SCIF_RECV, buf, 5, SCIF_RECV_BLOCK), 5);
	tap_ok(!memcmp(buf, "world", 5), "the kernel's bytes follow them");

	EXPECT_EQ(raw_msg(b, SCIF_SEND, "ping", 4, SCIF_SEND_BLOCK), 4);
	pfd = (struct pollfd){ .fd = a, .events = POLLIN };
	EXPECT_EQ(poll(&pfd, 1, 5000), 1);
	for (i = 0; i < 500 && le32toh(s.own->written) - s.sh->read < 4; i++)
		usleep(10000);
	EXPECT_EQ(smap_recv(&s, buf, sizeof(buf)), 4);
	tap_ok(!memcmp(buf, "ping", 4), "bytes read through the mapping");
	pfd.revents = 0;
	EXPECT_EQ(poll(&pfd, 1, 0), 0);
	EXPECT_EQ(raw_msg(b, SCIF_SEND, "pong", 4, SCIF_SEND_BLOCK), 4);
	EXPECT_EQ(raw_msg(a, SCIF_RECV, buf, 4, SCIF_RECV_BLOCK), 4);
	tap_ok(!memcmp(buf, "pong", 4) && s.sh->read == 8,
	       "the kernel reads on from the mapped position (%u)", s.sh->read);
	smap_close(&s);
	scif_close(a);
	scif_close(b);
}

/* A position that cannot be right resets the connection, nothing more. */
static void test_lie(scif_epd_t l, __u16 port)
{
	scif_epd_t a, b;
	struct smap s;
	char c = 0;

	make_pair_on(l, port, &a, &b);
	smap_open(a, &s);
	s.sh->sent += 3 * s.m.tx_size;
	EXPECT_ERR(raw_msg(a, SCIF_SEND, &c, 1, SCIF_SEND_BLOCK), ECONNRESET);
	EXPECT_ERR_SOON(raw_msg(b, SCIF_RECV, &c, 1, 0), ECONNRESET);
	tap_ok(s.sh->down == 1, "the mapping is marked down");
	smap_close(&s);
	scif_close(a);
	scif_close(b);

	make_pair_on(l, port, &a, &b);
	smap_open(b, &s);
	s.sh->read -= 1;
	EXPECT_ERR(raw_msg(b, SCIF_RECV, &c, 1, 0), ECONNRESET);
	smap_close(&s);
	scif_close(a);
	scif_close(b);
}

/* After the peer closed, writes land in the sink and the process lives. */
static void test_sink(scif_epd_t l, __u16 port)
{
	char buf[8192];
	scif_epd_t a, b;
	struct smap s;
	int i;

	make_pair_on(l, port, &a, &b);
	smap_open(a, &s);
	smap_send(a, &s, "x", 1);
	scif_close(b);
	for (i = 0; i < 500 && !s.sh->down; i++)
		usleep(10000);
	tap_ok(s.sh->down == 1, "the peer's close marks the mapping down");
	memset(buf, 0x5a, sizeof(buf));
	memcpy(s.tx, buf, sizeof(buf) < s.m.tx_size ? sizeof(buf) :
	       s.m.tx_size);
	s.peer->written = htole32(12345);
	tap_ok(1, "writes after the peer closed did not kill the process");
	EXPECT_ERR(raw_msg(a, SCIF_SEND, buf, 1, 0), ECONNRESET);
	EXPECT_ERR(ioctl(a, SCIF_STREAM_WAKE), ECONNRESET);
	smap_close(&s);
	scif_close(a);
}

int main(void)
{
	scif_epd_t l;
	__u16 port;

	page = sysconf(_SC_PAGESIZE);
	l = make_listener(16, &port);
	test_errors(l, port);
	test_refused(l, port);
	test_mixed(l, port);
	test_lie(l, port);
	test_sink(l, port);
	scif_close(l);
	return tap_done();
}
