#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SCIF over the emulated NTB: ten link flaps in a row.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 2 --mem 256 --timeout 400 \
	--modules "ntb_ivshmem scif scif_ntb" \
	--copy "$top/tests/e2e/guest/scif_ntb_flap.sh" -- sh ./scif_ntb_flap.sh
