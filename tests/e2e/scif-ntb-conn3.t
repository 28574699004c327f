#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB, 3 nodes: exact node lists, connect/accept/
# send/recv in every direction, 100 simultaneous connections, a checked
# 16 MiB stream from each node to the next.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 3 --mem 256 --smp 1 --timeout 400 \
	--modules "ntb_ivshmem scif scif_ntb" \
	--copy "$top/tests/e2e/guest/scif_ntb_conn.sh" -- sh ./scif_ntb_conn.sh
