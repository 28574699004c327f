#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node 0: scif_ntb with each bad parameter refuses the device with one
# "refusing:" line naming the parameter, binds nothing and unloads; then,
# with the defaults, both nodes see each other.
set -e
fail() { echo "FAIL: $*"; exit 1; }
modprobe scif
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	for p in ring_kb=100 ring_kb=8192 ep_ring_kb=3 ep_ring_kb=2048 \
		 node_id=300; do
		dmesg -c >/dev/null
		modprobe scif_ntb "$p" || fail "modprobe scif_ntb $p"
		name=${p%%=*}
		lines=$(dmesg | grep 'scif_ntb.*refusing:' || true)
		[ "$(echo "$lines" | grep -c refusing:)" = 1 ] ||
			fail "$p: expected one refusing: line, got: $lines"
		case "$name" in
		node_id) echo "$lines" | grep -q 'node id 300' ;;
		*) echo "$lines" | grep -q "$p" ;;
		esac || fail "$p: the line does not name it: $lines"
		scif-ntb-test nodes 1 5 >/dev/null ||
			fail "$p: a node came up anyway"
		rmmod scif_ntb || fail "rmmod scif_ntb after $p"
		echo "$p refused"
	done
fi
modprobe scif_ntb
scif-ntb-test nodes 2 120
