#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unloading the emulated NTB driver while upstream ntb_tool is bound is
# safe; the peer sees the link go down and come back after a reload.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 300 \
	--modules "ntb_ivshmem ntb_tool" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_unload.sh" -- sh ./ntb_unload.sh
