#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Upstream ntb_tool drives the emulated NTB between two guests.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 300 \
	--modules "ntb_ivshmem ntb_tool" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_tool.sh" -- sh ./ntb_tool.sh
