#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every hardware profile of the emulated NTB (ntb_ivshmem profile=) in one
# boot of two guests: the resources the NTB API reports (ntb_tool), then
# SCIF over it, idt's handshake in message registers included: link up,
# a checked stream each way, a short RMA run.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 \
	--modules "scif" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_profiles.sh" -- sh ./ntb_profiles.sh
