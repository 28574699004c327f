#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF on a star of 4 guests (hub node 0), node id = guest index: leaves 1
# and 3 share no NTB and talk through the hub, a checked stream each way
# and RMA with data checked; node 1 then echoes every other node, every
# node lists all 4 nodes, and the hub drops nothing it forwards
# (tests/e2e/guest/scif_route_ends.sh, Documentation/scif-routing.rst).
# needs: nodes=4 topology=star mem=256 smp=1
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 300 \
	--modules "scif" \
	--copy "$top/tests/e2e/guest/scif_route_ends.sh" \
	-- sh ./scif_route_ends.sh 4 1 3
