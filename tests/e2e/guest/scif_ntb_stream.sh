#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two guests: each streams a checked 256 MiB sequence to the other at the
# same time (full duplex through the emulated NTB), then sends from a
# buffer that runs into an unreadable page.
set -e
i=$SCIF_NODE_INDEX
# Translated mode (scif_modes.sh) streams a quarter as much.
mib=256
[ "${SCIF_MODE:-}" = xlat ] && mib=64
scif-ntb-test nodes 2 60
scif-ntb-test serve 3100 1 &
server=$!
trap 'kill $server 2>/dev/null || true; [ -n "$ok" ] ||
	{ dmesg -s 1000000 | grep -E "scif|ntb" | tail -25;
	  cat /sys/kernel/debug/scif/nodes; } || true' EXIT
scif-ntb-test stream $(( 1 - i )) 3100 "$mib"
wait "$server"
# A send whose buffer runs into an unreadable page returns, short.
scif-ntb-test serve 3101 1 &
server=$!
scif-ntb-test fault $(( 1 - i )) 3101
wait "$server"
ok=1
echo "node $i: $mib MiB each way checked"
