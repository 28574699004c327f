#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A mesh of 3 guests of the emulated NTB, seen through upstream ntb_tool:
# ports, 2 peers each, link, scratchpads and doorbells between every pair.
# needs: nodes=3 mem=512 smp=1 ntb-winmem=64
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "ntb_ivshmem ntb_tool" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_mesh.sh" -- sh ./ntb_mesh.sh
