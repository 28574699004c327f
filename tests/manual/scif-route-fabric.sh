#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run by make check-fabric (not make check, for its length): SCIF routing
# on larger fabrics of 2-port NTBs, by default a chain of 8 (the two ends,
# 7 hops apart) and a star of 8 (two leaves, through the hub). In each,
# two nodes exchange checked streams and RMA, one of them then echoes
# every other node, and every node lists all of them
# (tests/e2e/guest/scif_route_ends.sh).
# SCIF_FABRICS="TOPOLOGY:N:A:B ..." runs others instead.
top=$(cd "$(dirname "$0")/../.." && pwd)
for f in ${SCIF_FABRICS:-chain:8:0:7 star:8:1:7}; do
	IFS=: read -r topo n a b <<<"$f"
	echo "== SCIF across a $topo of $n, node $a to node $b"
	"$top/scripts/rig/cluster" -n "$n" --topology "$topo" --mem 256 \
		--smp 1 --timeout $((300 + 90 * n)) --modules "scif" \
		--copy "$top/tests/e2e/guest/scif_route_ends.sh" \
		-- sh ./scif_route_ends.sh "$n" "$a" "$b" || exit 1
done
