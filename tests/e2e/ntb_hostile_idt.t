#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The hostile SCIF peer on the idt profile of the emulated NTB, where the
# handshake travels in message registers (no scratchpads): a short attack
# with message junk, then a genuine link (tests/e2e/ntb_hostile.t is the
# same on scratchpads).
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "swdma scif" \
	--copy "$top/tests/e2e/guest/ntb_hostile.sh" -- sh ./ntb_hostile.sh 5000 1 0 idt
