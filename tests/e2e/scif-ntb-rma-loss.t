#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RMA over the emulated NTB when the peer dies: node 0 is killed while node
# 1 runs RMAs against it and waits on fences; every call of node 1 must fail
# with ECONNRESET or ENODEV within 10 s, nothing may hang, and its pages
# must be unpinned after close (VmPin 0). The rig scans kmemleak.
# needs: nodes=2 mem=256 kill-node=0 after-ready=3
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/scif_ntb_rma_loss.sh" <<'GUEST'
set -e
scif-ntb-test nodes 2 60
# Run translated (scif-ntb-rma-loss-xlat.t): the link must say so.
if [ "${SCIF_NTB_MW:-0}" != 0 ]; then
	dmesg | grep -q 'up through port.*translated' ||
		{ echo "FAIL: the link did not come up translated"; exit 1; }
	echo "node $SCIF_NODE_INDEX: translated mode"
fi
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	scif-rma-ntb-test loss-victim 4100
else
	scif-rma-ntb-test loss-client 0 4100 10
	scif-info -n
fi
GUEST
"$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "swdma ntb_ivshmem scif scif_ntb" \
	--copy "$tmp/scif_ntb_rma_loss.sh" -- sh ./scif_ntb_rma_loss.sh
