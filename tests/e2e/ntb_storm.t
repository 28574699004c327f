#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Both nodes flood each other at once with fence requests that the peer
# answers from its receive path, while streams fill the rings both ways
# (small 64 KiB rings). Every mark must be answered, and neither node may
# declare the other lost: a receive path that waited for room in the peer's
# full ring used to stall both until the send timeout reset the link.
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/ntb_storm.sh" <<'GUEST'
set -e
modprobe scif_ntb ring_kb=64
scif-ntb-test nodes 2 60
scif-ntb-storm $((1 - SCIF_NODE_INDEX)) 4100 4 ${STORM_SECS:-20}
if dmesg | grep -E 'scif_ntb.*(resetting the link|down)'; then
	echo "not ok - the link was reset during the storm"
	exit 1
fi
echo "ok - the link stayed up"
# Neither node unloads before both have looked: the other's unload takes
# the link down, and that must not be read as a reset during the storm.
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	scif-ntb-test serve 4200 1
else
	scif-ntb-test echo 0 4200 1
fi
rmmod scif_ntb
GUEST
"$top/scripts/rig/cluster" --needs "$0" --timeout 420 \
	--modules "ntb_ivshmem scif" \
	--copy "$tmp/ntb_storm.sh" -- sh ./ntb_storm.sh
