#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input: a register region with the wrong magic, then the wrong version.
# The driver refuses the port with one clear kernel line and no crash.
# needs: own-boot (boots twice, with a corrupted NTB header)
top=$(cd "$(dirname "$0")/../.." && pwd)
for field in magic version; do
	echo "== register region with a wrong $field"
	SCIF_MESH_CORRUPT=$field "$top/scripts/rig/cluster" -n 1 --mem 256 \
		--smp 1 --timeout 300 --modules "ntb_ivshmem ntb_tool" \
		--copy "$top/tests/e2e/guest/ntb_lib.sh" \
		--copy "$top/tests/e2e/guest/ntb_refused.sh" \
		-- sh ./ntb_refused.sh "$field" || exit 1
done
