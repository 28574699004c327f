#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB, 3 nodes, in both window modes (direct, then
# translated with 2 x 16 MiB windows per peer): every node connects to
# every other, echoes, and streams to its neighbour (scif_ntb_conn.sh).
# Node 0 holds 100 connections at once, each with a 256 KiB receive ring:
# with 256 MiB less the 64 MiB of window memory, the debug kernel left it
# about 1 MiB free and the OOM killer ended the server (CI at 0065690),
# hence 512 MiB (the rig takes powers of two).
# needs: nodes=3 mem=512 smp=1 ntb-winmem=64
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 600 \
	--modules "scif" \
	--copy "$top/tests/e2e/guest/scif_modes.sh" \
	--copy "$top/tests/e2e/guest/scif_ntb_conn.sh" \
	-- sh ./scif_modes.sh sh ./scif_ntb_conn.sh
