#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A hostile SCIF peer on the emulated NTB (a short slice; the full run is
# tools/fuzz/run-peer-fuzz): the victim stays up, resets the link on
# impossible ring state, rate-limits its messages, leaks nothing, survives
# lies in the mapped streams the attacker opens with it (at least one), and
# then accepts a genuine link.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "swdma ntb_ivshmem scif scif_ntb" \
	--copy "$top/tests/e2e/guest/ntb_hostile.sh" -- sh ./ntb_hostile.sh 20000 1 1
