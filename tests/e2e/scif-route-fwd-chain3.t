#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF between the two ends of a chain of 3 guests (each link its own
# 2-port NTB, node id = guest index), which share no NTB: node 1 forwards
# (Documentation/scif-routing.rst). Every node lists all 3 nodes; nodes 0
# and 2 connect to each other both ways (echo and a checked stream each
# way), run random RMAs across the hop (staged by messages) checked
# against shadow copies, fences and signals, and see mmap() of the other
# end's window fail with EOPNOTSUPP. Node 1 must drop nothing it forwards.
# needs: nodes=3 topology=chain mem=256 smp=1
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 600 \
	--modules "scif" \
	--copy "$top/tests/e2e/guest/scif_route_fwd.sh" \
	-- sh ./scif_route_fwd.sh
