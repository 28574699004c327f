#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF on a ring of 4 guests, node id = guest index: nodes 0 and 2 are two
# hops apart either way round and exchange checked streams; the transit
# node on node 0's route to node 2 unloads scif_ntb, the stream through it
# ends with ECONNRESET or ENODEV, the route moves the other way round and
# the streams run again; the node comes back and every node lists all 4
# (Documentation/scif-routing.rst).
# needs: nodes=4 topology=ring mem=256 smp=1
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 600 \
	--modules "scif" \
	--copy "$top/tests/e2e/guest/scif_route_ring.sh" \
	-- sh ./scif_route_ring.sh
