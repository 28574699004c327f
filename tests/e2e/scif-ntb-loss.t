#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB: a node killed mid-stream and restarted, with
# translated windows (2 x 16 MiB per peer). Node loss in direct mode is
# covered by scif-ntb-rma-loss and scif-ntb-mmap, which kill a node too.
# needs: nodes=2 mem=256 ntb-xlat=16 kill-node=1 after-ready=3 restart-after=3
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "ntb_ivshmem scif scif_ntb" \
	--copy "$top/tests/e2e/guest/scif_ntb_loss.sh" -- sh ./scif_ntb_loss.sh
