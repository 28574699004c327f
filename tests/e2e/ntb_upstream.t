#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Upstream ntb_transport/ntb_netdev and ntb_perf, which map their peer's
# windows once at probe, on translated 16 MiB windows whose homes are in
# 32 MiB of window memory (cluster --ntb-winmem). The guest script loads
# the modules itself, with the parameters.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 600 \
	--modules "" --copy "$top/tests/e2e/guest/ntb_lib.sh" \
	--copy "$top/tests/e2e/guest/ntb_upstream.sh" -- sh ./ntb_upstream.sh
