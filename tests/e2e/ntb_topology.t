#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The rig's topologies of 2-port NTB devices (scripts/rig/cluster
# --topology): a star of 4, then a ring of 3 (which holds a chain of 3),
# each guest with one NTB device per neighbour; upstream ntb_tool checks on
# every guest that each link comes up, leads to the expected neighbour and
# carries a doorbell. SCIF_TOPOLOGIES="TOPOLOGY:N ..." runs others instead
# (make check-fabric: a star and a chain of 8).
# needs: own-boot (boots a star, then a ring)
top=$(cd "$(dirname "$0")/../.." && pwd)
for t in ${SCIF_TOPOLOGIES:-star:4 ring:3}; do
	topo=${t%%:*}
	n=${t#*:}
	echo "== $topo of $n"
	"$top/scripts/rig/cluster" -n "$n" --topology "$topo" --mem 256 --smp 1 \
		--timeout $((150 + 50 * n)) --modules "ntb_ivshmem ntb_tool" \
		--copy "$top/tests/e2e/guest/ntb_lib.sh" \
		--copy "$top/tests/e2e/guest/ntb_topology.sh" \
		-- sh ./ntb_topology.sh "$topo" || exit 1
done
