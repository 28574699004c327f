#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Translated memory windows (ntb_ivshmem mw_size=1M mw_count=2) under
# upstream ntb_tool: the peer reaches exactly the buffer a window was
# translated onto, unopened windows cannot be mapped. The guest script
# loads the modules itself, with the parameters.
# needs: nodes=2 mem=256 ntb-winmem=32 ntb-winmem-as-ram
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 400 --modules "" \
	--copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_xlat.sh" -- sh ./ntb_xlat.sh
