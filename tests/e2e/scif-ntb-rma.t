#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RMA between two nodes over the emulated NTB, in both window modes (direct
# through the window, then staged by messages on translated 2 x 16 MiB
# windows): random readfrom/writeto/vreadfrom/vwriteto over spans of windows
# with every flag combination, checked against shadow copies on both nodes;
# fences and signals across the nodes; ENXIO/EACCES/ECONNRESET from a real
# peer; RLIMIT_MEMLOCK on both. Translated, mmap() of the peer's windows
# must fail with EOPNOTSUPP. swdma gives RMAs without SCIF_RMA_USECPU a DMA
# engine (when scif uses one). Then, in the same boot, the fault injection
# sweep (tests/user/failnth_test.c, Documentation/fuzzing.rst): every step
# of a session, connecting and accepting, to the peer and (direct mode
# only: loopback does not depend on the window mode) on loopback, run with
# its N-th allocation or user copy failing for every N it reaches.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/scif_ntb_rma.sh" <<'GUEST'
set -e
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	scif-rma-ntb-test server 4000
	if [ "$SCIF_MODE" = xlat ]; then
		scif-mmap-test unmappable-server 4100
	fi
else
	scif-rma-ntb-test client 0 4000 300
	if [ "$SCIF_MODE" = xlat ]; then
		scif-mmap-test unmappable-client 0 4100
	fi
fi
if [ "$SCIF_MODE" = xlat ]; then
	scif-failnth-test $((1 - SCIF_NODE_INDEX)) 4300 --no-loopback
else
	scif-failnth-test $((1 - SCIF_NODE_INDEX)) 4300
fi
# For the log: the swdma channels scif took for RMA (in_use 1).
for c in /sys/class/dma/*; do
	[ -r "$c/in_use" ] && echo "$(basename "$c") in_use $(cat "$c/in_use")"
done
true
GUEST
"$top/scripts/rig/cluster" --needs "$0" --timeout 700 \
	--modules "swdma scif" \
	--copy "$top/tests/e2e/guest/scif_modes.sh" \
	--copy "$tmp/scif_ntb_rma.sh" -- sh ./scif_modes.sh sh ./scif_ntb_rma.sh
