#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scif_ntb refuses bad module parameters (ring sizes, node id) with one line
# and binds nothing; with the defaults the two nodes then meet.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "ntb_ivshmem" \
	--copy "$top/tests/e2e/guest/scif_ntb_params.sh" -- sh ./scif_ntb_params.sh
