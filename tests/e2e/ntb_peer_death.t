#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A guest of the emulated NTB is killed and restarted: the survivor sees the
# link go down within ntb_ivshmem's heartbeat timeout and period plus 1 s
# (tests/e2e/guest/ntb_peer_death.sh reads them from the module) and come
# back up. The kill is timed from node 1 reporting @@SCIF-READY (linked,
# node 0 watching), not from its boot.
# needs: nodes=2 mem=256 kill-node=1 after-ready=2 restart-after=2
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "ntb_ivshmem ntb_tool" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_peer_death.sh" -- sh ./ntb_peer_death.sh
