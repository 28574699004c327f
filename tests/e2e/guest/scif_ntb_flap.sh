#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Ten link flaps: node 1 unloads and reloads scif_ntb (odd rounds) or the
# NTB driver under it (even rounds). Each time node 1's list shrinks to
# itself and grows again, and a new connection to node 0 works.
set -e
scif-ntb-test nodes 2 60
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	scif-ntb-test serve 3000 10
	exit 0
fi
r=1
while [ "$r" -le 10 ]; do
	if [ $((r % 2)) = 1 ]; then m=scif_ntb; else m=ntb_ivshmem; fi
	rmmod "$m"
	scif-ntb-test nodes 1 10 >/dev/null
	# shellcheck disable=SC2086 # the mode's options, if any
	if [ "$m" = ntb_ivshmem ]; then modprobe "$m" $SCIF_NTB_OPTS; else modprobe "$m"; fi
	scif-ntb-test nodes 2 60 >/dev/null
	scif-ntb-test echo 0 3000 1 >/dev/null
	echo "flap $r ($m): node 0 gone and back"
	r=$((r + 1))
done
