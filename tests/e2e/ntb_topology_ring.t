#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ntb_topology.t's checks on a ring of 4 2-port NTB devices (each guest
# has two, one to each neighbour, and the ring closes from guest 3 back to
# guest 0), in the boot it shares with the other tests of a ring of 4.
# needs: nodes=4 topology=ring mem=256 smp=1
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 350 \
	--modules "ntb_ivshmem ntb_tool" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_topology.sh" \
	-- sh ./ntb_topology.sh ring
