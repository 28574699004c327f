#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB, 2 nodes: a checked stream in each direction
# at once, in both window modes (256 MiB direct, then 64 MiB translated
# with 2 x 16 MiB windows per peer).
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 900 \
	--modules "scif" \
	--copy "$top/tests/e2e/guest/scif_modes.sh" \
	--copy "$top/tests/e2e/guest/scif_ntb_stream.sh" \
	-- sh ./scif_modes.sh sh ./scif_ntb_stream.sh
