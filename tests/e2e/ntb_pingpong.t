#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Upstream ntb_pingpong between two guests of the emulated NTB.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 300 \
	--modules "ntb_ivshmem" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_pingpong.sh" -- sh ./ntb_pingpong.sh 10
