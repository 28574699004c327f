#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RMA between two nodes over the emulated NTB: random readfrom/writeto/
# vreadfrom/vwriteto over spans of windows with every flag combination,
# checked against shadow copies on both nodes; fences and signals across the
# nodes; ENXIO/EACCES/ECONNRESET from a real peer; RLIMIT_MEMLOCK on both.
# swdma gives RMAs without SCIF_RMA_USECPU a DMA engine (when scif uses one).
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/scif_ntb_rma.sh" <<'GUEST'
set -e
scif-ntb-test nodes 2 60
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	scif-rma-ntb-test server 4000
else
	scif-rma-ntb-test client 0 4000 300
fi
# For the log: the swdma channels scif took for RMA (in_use 1).
for c in /sys/class/dma/*; do
	[ -r "$c/in_use" ] && echo "$(basename "$c") in_use $(cat "$c/in_use")"
done
true
GUEST
"$top/scripts/rig/cluster" -n 2 --mem 256 --timeout 420 \
	--modules "swdma ntb_ivshmem scif scif_ntb" \
	--copy "$tmp/scif_ntb_rma.sh" -- sh ./scif_ntb_rma.sh
