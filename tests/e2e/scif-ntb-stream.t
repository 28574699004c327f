#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB, 2 nodes: a checked 256 MiB stream in each
# direction at once.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 2 --mem 256 --timeout 900 \
	--modules "ntb_ivshmem scif scif_ntb" \
	--copy "$top/tests/e2e/guest/scif_ntb_stream.sh" -- sh ./scif_ntb_stream.sh
