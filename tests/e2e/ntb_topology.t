#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The rig's topologies of 2-port NTB devices (scripts/rig/cluster
# --topology), here a star of 4 (ntb_topology_ring.t: a ring of 4): each
# guest has one NTB device per neighbour, and upstream ntb_tool checks on
# every guest that each link comes up, leads to the expected neighbour and
# carries a doorbell. It shares its boot with the other tests of a star of
# 4. SCIF_TOPOLOGIES="TOPOLOGY:N ..." boots those instead, one after the
# other (make check-fabric: a star and a chain of 8).
# needs: nodes=4 topology=star mem=256 smp=1
top=$(cd "$(dirname "$0")/../.." && pwd)
files=(--copy "$top/tests/e2e/guest/ntb_lib.sh"
	--copy "$top/tests/e2e/guest/ntb_topology.sh")
if [ -z "${SCIF_TOPOLOGIES:-}" ]; then
	exec "$top/scripts/rig/cluster" --needs "$0" --timeout 350 \
		--modules "ntb_ivshmem ntb_tool" "${files[@]}" \
		-- sh ./ntb_topology.sh star
fi
for t in $SCIF_TOPOLOGIES; do
	topo=${t%%:*}
	n=${t#*:}
	echo "== $topo of $n"
	"$top/scripts/rig/cluster" -n "$n" --topology "$topo" --mem 256 --smp 1 \
		--timeout $((150 + 50 * n)) --modules "ntb_ivshmem ntb_tool" \
		"${files[@]}" -- sh ./ntb_topology.sh "$topo" || exit 1
done
