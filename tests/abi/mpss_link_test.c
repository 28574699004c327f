// SPDX-License-Identifier: GPL-2.0
/*
 * A program as if built against Intel's MPSS libscif.so.0: tools/Makefile
 * (check-abi) links it against a stand-in library with Intel's soname and
 * version node, then runs it against the project's libscif with
 * LD_BIND_NOW=1, so that every symbol it names must be found with version
 * SCIF_0.0 before main() runs.
 *
 * It names every function of scif.h (tests/abi/check-lib-versions checks
 * that none is missing), then makes one real call and checks with dladdr()
 * that it reached the library in @argv[1], not the stand-in.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scif.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef void (*any_fn)(void);

/* Visible outside this file, so that no reference is optimised away. */
const any_fn mpss_symbols[] = {
	(any_fn)scif_open, (any_fn)scif_close, (any_fn)scif_bind,
	(any_fn)scif_listen, (any_fn)scif_connect, (any_fn)scif_accept,
	(any_fn)scif_send, (any_fn)scif_recv, (any_fn)scif_poll,
	(any_fn)scif_get_node_ids, (any_fn)scif_get_nodeIDs,
	(any_fn)scif_get_fd, (any_fn)scif_register, (any_fn)scif_unregister,
	(any_fn)scif_readfrom, (any_fn)scif_writeto, (any_fn)scif_vreadfrom,
	(any_fn)scif_vwriteto, (any_fn)scif_fence_mark, (any_fn)scif_fence_wait,
	(any_fn)scif_fence_signal, (any_fn)scif_mmap, (any_fn)scif_munmap,
};

int main(int argc, char **argv)
{
	char want[PATH_MAX], got[PATH_MAX];
	scif_epd_t epd;
	Dl_info info;

	if (argc != 2 || !realpath(argv[1], want)) {
		fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
		return 2;
	}
	if (!dladdr((void *)mpss_symbols[0], &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, got)) {
		fprintf(stderr, "not ok: scif_open is in no library\n");
		return 1;
	}
	if (strcmp(got, want)) {
		fprintf(stderr, "not ok: scif_open from %s, not %s\n", got, want);
		return 1;
	}
	/*
	 * The stand-in would trap here; the real library opens /dev/scif, or
	 * fails with errno set where the host has no SCIF driver.
	 */
	errno = 0;
	epd = scif_open();
	if (epd == SCIF_OPEN_FAILED && !errno) {
		fprintf(stderr, "not ok: scif_open failed without errno\n");
		return 1;
	}
	if (epd != SCIF_OPEN_FAILED)
		scif_close(epd);
	printf("ok - %zu symbols resolved in %s\n", ARRAY_SIZE(mpss_symbols),
	       got);
	return 0;
}
