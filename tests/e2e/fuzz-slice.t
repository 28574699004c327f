#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A short seeded slice of scif-fuzz (Documentation/fuzzing.rst) on two nodes
# joined by the emulated NTB: loopback and cross-node endpoints, windows,
# RMAs, fences, mmaps, forks and signals, half of the workers unprivileged.
# Fails on a violated invariant (scif-fuzz exits 1), a hang (its watchdog,
# then the rig's timeout) or any kernel report (the rig). The full run is
# `make fuzz`.
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/fuzz_slice.sh" <<'GUEST'
scif-fuzz --seed 13 --calls 4000 --procs 2 --threads 3 --light 3 --peer auto \
	--user 65534 --timeout 150 -v
GUEST
"$top/scripts/rig/cluster" -n 2 --mem 512 --timeout 300 \
	--modules "swdma ntb_ivshmem scif scif_ntb" \
	--copy "$tmp/fuzz_slice.sh" -- sh ./fuzz_slice.sh
