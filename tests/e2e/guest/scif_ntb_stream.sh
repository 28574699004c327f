#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two guests: each streams a checked 256 MiB sequence to the other at the
# same time (full duplex through the emulated NTB).
set -e
i=$SCIF_NODE_INDEX
scif-ntb-test nodes 2 60
scif-ntb-test serve 3100 1 &
server=$!
trap 'kill $server 2>/dev/null || true; [ -n "$ok" ] ||
	{ dmesg -s 1000000 | grep -E "scif|ntb" | tail -25;
	  cat /sys/kernel/debug/scif/nodes; } || true' EXIT
scif-ntb-test stream $(( 1 - i )) 3100 256
wait "$server"
ok=1
echo "node $i: 256 MiB each way checked"
