#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The single-node userspace tests (tests/user/), one after the other in one
# boot of one guest with swdma and scif (a boot costs more than most of
# them), each on the loopback node:
#   api, api32  every libscif call and user-mode error code, raw ioctls with
#               bad arguments; the same built -m32, through compat_ioctl
#   conn        1,000 simultaneous connections, each carrying its own data
#   map-scan    as uid 65534 after freeing 64 MiB of marker bytes: every
#               mapping of 24 connections (both parts of each end's
#               SCIF_STREAM_MAP, a peer's window through scif_mmap())
#               holds only zeros or bytes somebody wrote, before and after
#               a send and after the peer closed
#   mmap        scif_mmap() of the peer's windows both ways against
#               readfrom/writeto, its errnos, the peer's unregister deferred
#               while mapped, SIGBUS after the peer closes
#   pincache    SCIF_RMA_USECACHE reuses pins, sees new pages after
#               MADV_DONTNEED, munmap+mmap, fork and mprotect, evicts the
#               least recently used, unpins at close, RLIMIT_MEMLOCK
#   poll        scif_poll, poll, select and epoll over 64 connected pairs
#   rma, rma32  every errno of the RMA calls, random RMAs against shadow
#               copies, fences, RLIMIT_MEMLOCK; the same built -m32. swdma
#               gives RMAs without SCIF_RMA_USECPU a DMA engine, and scif
#               keeps the channels it took until unload: one must be in use
#   stream      1 GiB through send/recv between two processes, checked byte
#               for byte and by checksum
#   stream-map  SCIF_STREAM_MAP through the raw requests: its errnos and
#               mmap()'s, the process and the kernel taking turns on one
#               stream, poll, lying positions, writes after the peer closed
#   stream-map-mock, stream-map-mock32
#               libscif's mapped stream against a stand-in driver
#               (tests/user/stream_map_mock.c), x86_64 and i386: make -C
#               tools runs them too, but only where the host can execute
#               i386 programs
# Every test runs even after one failed; the run fails if any did.
# needs: nodes=1
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/user.sh" <<'GUEST'
failed=
run() {
	name=$1
	shift
	echo "== $name: $*"
	if "$@"; then
		echo "== $name: ok"
	else
		echo "== $name: FAILED"
		failed="$failed $name"
	fi
}
dma_in_use() {
	for c in /sys/class/dma/*/in_use; do
		[ "$(cat "$c")" = 1 ] && return 0
	done
	echo "no DMA channel in use: the DMA path was not taken"
	return 1
}
run api scif-user-api-test
run api32 scif-user-api-test32
run conn scif-conn-test 1000
run map-scan scif-map-scan-test
run mmap scif-mmap-test
run pincache scif-pincache-test
run poll scif-poll-test 64
run rma scif-rma-test 400
run rma32 scif-rma-test32 200
run rma-dma dma_in_use
run stream scif-stream-test 1024
run stream-map scif-stream-map-test
run stream-map-mock scif-stream-map-mock
run stream-map-mock32 scif-stream-map-mock32
if [ -n "$failed" ]; then
	echo "FAIL:$failed"
	exit 1
fi
GUEST
"$top/scripts/rig/cluster" --needs "$0" --modules "swdma scif" --timeout 900 \
	--copy "$tmp/user.sh" -- sh ./user.sh
