#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB: mmap of the peer's windows both ways, and a
# node killed under a mapping (the survivor gets SIGBUS, never stale data).
# needs: nodes=2 mem=256 kill-node=1 after-ready=3
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "ntb_ivshmem scif scif_ntb" \
	--copy "$top/tests/e2e/guest/scif_ntb_mmap.sh" -- sh ./scif_ntb_mmap.sh
