#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF on a chain of 3 guests, each link its own 2-port NTB, node id =
# guest index: every node's route table comes to hold both others, the far
# end at 2 hops through node 1 (Documentation/scif-routing.rst).
# Forwarding between the ends is scif-route-fwd-chain3.t.
# needs: nodes=3 topology=chain mem=256 smp=1
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 300 \
	--modules "scif" \
	--copy "$top/tests/e2e/guest/scif_route_chain.sh" \
	-- sh ./scif_route_chain.sh
