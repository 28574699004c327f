#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A mesh of 4 guests of the emulated NTB, seen through upstream ntb_tool:
# ports, 3 peers each, link, scratchpads and doorbells between every pair.
# needs: nodes=4 mem=512 smp=1 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "ntb_ivshmem ntb_tool" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_mesh.sh" -- sh ./ntb_mesh.sh
