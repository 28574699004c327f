#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A short seeded slice of scif-fuzz (Documentation/fuzzing.rst) on two nodes
# joined by the emulated NTB: loopback and cross-node endpoints, windows,
# RMAs, fences, mmaps, forks and signals, half of the workers unprivileged.
# Then, in the same boot, a second slice while 5% of the allocations made
# for the SCIF modules fail on both nodes, in any task (fault_inject.sh):
# the system calls, the receive work running the peer's messages, the RMA
# workers. Once the faults stop, the nodes must still see each other and
# carry a checked stream each way. Fails on a violated invariant (scif-fuzz
# exits 1), a hang (its watchdog, then the rig's timeout), no fault
# injected, a failed stream or any kernel report (the rig; kmemleak's
# included). The full runs are `make fuzz`.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/fuzz_slice.sh" <<'GUEST'
set -e
scif-fuzz --seed 13 --calls 4000 --procs 2 --threads 3 --light 3 --peer auto \
	--user 65534 --timeout 150 -v
. ./fault_inject.sh
fi_arm 5 scif scif_ntb
rc=0
scif-fuzz --seed 14 --calls 3000 --procs 2 --threads 2 --light 2 --peer auto \
	--user 65534 --timeout 200 --port-base 6000 --no-barrier -v || rc=$?
fi_disarm
[ "$rc" = 0 ] || { echo "scif-fuzz under allocation failures: exit $rc"; exit 1; }
fi_recovered 3300
GUEST
"$top/scripts/rig/cluster" --needs "$0" --timeout 600 \
	--modules "swdma ntb_ivshmem scif scif_ntb" \
	--copy "$top/tests/e2e/guest/fault_inject.sh" \
	--copy "$tmp/fuzz_slice.sh" -- sh ./fuzz_slice.sh
