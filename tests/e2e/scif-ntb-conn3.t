#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB, 3 nodes, in both window modes (direct, then
# translated with 2 x 16 MiB windows per peer): every node connects to
# every other, echoes, and streams to its neighbour (scif_ntb_conn.sh).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 3 --mem 256 --smp 1 --timeout 600 \
	--ntb-winmem 64 --modules "scif" \
	--copy "$top/tests/e2e/guest/scif_modes.sh" \
	--copy "$top/tests/e2e/guest/scif_ntb_conn.sh" \
	-- sh ./scif_modes.sh sh ./scif_ntb_conn.sh
