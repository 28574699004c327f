// SPDX-License-Identifier: GPL-2.0
/*
 * scif-fuzz: the memory whose contents must never change. Each worker maps
 * canary buffers (registered read-only) and a read-only file, both filled
 * with a pattern drawn from the seed, and compares them now and then with
 * a private reference copy.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-run.h"

uint8_t fz_canary_byte(struct fz_proc *p, size_t i)
{
	return (uint8_t)(fz_mix(p->o->seed ^ ((uint64_t)p->idx << 40) ^
				(i / 8)) >> (8 * (i % 8)));
}

uint8_t fz_file_byte(struct fz_proc *p, size_t i)
{
	return (uint8_t)(fz_mix(~p->o->seed ^ ((uint64_t)p->idx << 40) ^
				(i / 8)) >> (8 * (i % 8)));
}

/* Compare @len bytes at @mem with @ref; report the first difference. */
static void check_range(struct fz_proc *p, const char *what, const char *mem,
			const char *ref, size_t len, bool restore)
{
	size_t i, bad = 0, first = 0;

	if (!memcmp(mem, ref, len))
		return;
	for (i = 0; i < len; i++) {
		if (mem[i] != ref[i] && !bad++)
			first = i;
	}
	fz_violation(p,
		     "%s changed: %zu bytes differ, first at +%#zx (page %zu) is %#x, expected %#x",
		     what, bad, first,
		     (size_t)(first / FZ_PAGE), (uint8_t)mem[first], (uint8_t)ref[first]);
	if (restore)
		memcpy((char *)mem, ref, len);
}

void fz_check_memory(struct fz_proc *p)
{
	char buf[FZ_FILE_PAGES * FZ_PAGE];
	ssize_t n;
	int fd;

	check_range(p, "read-only registered canary memory", p->canary,
		    p->canary_ref, FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE,
		    true);
	check_range(p, "read-only shared file mapping", p->file_shared,
		    p->file_ref, FZ_FILE_PAGES * FZ_PAGE, false);
	check_range(p, "read-only private file mapping", p->file_private,
		    p->file_ref, FZ_FILE_PAGES * FZ_PAGE, false);
	fd = open(p->file_name, O_RDONLY);
	if (fd < 0)
		return;
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n != (ssize_t)sizeof(buf))
		fz_violation(p, "read-only file %s now has %zd bytes",
			     p->file_name, n);
	else
		check_range(p, "read-only file (read back)", buf, p->file_ref,
			    sizeof(buf), false);
}

static char *map_anon(size_t len)
{
	char *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED) {
		perror("scif-fuzz: mmap");
		exit(1);
	}
	return a;
}

/* Memory and the read-only file, made before privileges are dropped. */
void fz_setup_memory(struct fz_proc *p)
{
	size_t flen = FZ_FILE_PAGES * FZ_PAGE, i;
	char *buf;
	int fd;

	p->scratch = map_anon(FZ_SCRATCH_PAGES * FZ_PAGE);
	p->canary = map_anon(FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE);
	p->canary_ref = map_anon(FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE);
	for (i = 0; i < FZ_CANARY_BUFS * FZ_CANARY_PAGES * FZ_PAGE; i++) {
		p->canary_ref[i] = (char)fz_canary_byte(p, i);
		p->canary[i] = p->canary_ref[i];
	}
	p->guard = map_anon(2 * FZ_PAGE);
	mprotect(p->guard + FZ_PAGE, FZ_PAGE, PROT_NONE);

	snprintf(p->file_name, sizeof(p->file_name), "scif-fuzz-ro.%d.%d",
		 (int)getppid(), p->idx);
	buf = map_anon(flen);
	for (i = 0; i < flen; i++)
		buf[i] = (char)fz_file_byte(p, i);
	unlink(p->file_name);
	fd = open(p->file_name, O_WRONLY | O_CREAT | O_EXCL, 0444);
	if (fd < 0 || write(fd, buf, flen) != (ssize_t)flen) {
		perror("scif-fuzz: read-only file");
		exit(1);
	}
	close(fd);
	p->file_ref = buf;
	p->file_fd = open(p->file_name, O_RDONLY);
	if (p->file_fd < 0) {
		perror("scif-fuzz: read-only file");
		exit(1);
	}
	p->file_shared = mmap(NULL, flen, PROT_READ, MAP_SHARED, p->file_fd, 0);
	p->file_private = mmap(NULL, flen, PROT_READ, MAP_PRIVATE,
			       p->file_fd, 0);
	if (p->file_shared == MAP_FAILED || p->file_private == MAP_FAILED) {
		perror("scif-fuzz: mmap of the read-only file");
		exit(1);
	}
}
