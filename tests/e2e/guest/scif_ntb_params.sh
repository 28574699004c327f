#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node 0: scif_ntb with each bad parameter refuses the device with one
# "refusing:" line naming the parameter, binds nothing and unloads; with
# allow_flat=0 it refuses the IOMMU-less direct window; then, with the
# defaults, both nodes see each other and node 0 warned once that the peer
# reaches all of its memory.
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
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	# No IOMMU in the guests: a direct window exposes all memory. With
	# allow_flat=N the link is refused with one line, and nothing comes up.
	dmesg -c >/dev/null
	modprobe scif_ntb allow_flat=0 || fail "modprobe scif_ntb allow_flat=0"
	# The refusal comes with the link, after the load: up to 60 s.
	i=0
	until dmesg | grep -q 'refusing port.*allow_flat=N' || [ "$i" -ge 600 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	lines=$(dmesg | grep 'refusing port.*allow_flat=N' || true)
	[ -n "$lines" ] || fail "allow_flat=0: no refusing line"
	scif-ntb-test nodes 1 5 >/dev/null ||
		fail "allow_flat=0: a node came up anyway"
	rmmod scif_ntb || fail "rmmod scif_ntb after allow_flat=0"
	echo "allow_flat=0 refused"
	dmesg -c >/dev/null
fi
modprobe scif_ntb
scif-ntb-test nodes 2 120
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	# The default accepts the link and says once what it exposes.
	n=$(dmesg | grep -c 'peer can read and write all of this host' || true)
	[ "$n" = 1 ] || fail "expected one exposure warning, got $n"
	echo "exposure stated once"
fi
