#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two guests joined by the emulated NTB (and by virtio-net for
# fi_pingpong's control connection): libfabric with the scif provider.
# Each node first runs fi-scif-test (tests/user/fabric_test.c) on its own
# loopback. Then node 0 serves, node 1 connects; fi_pingpong runs every
# size it knows (0 bytes to 6 MiB, through both the eager and the
# rendezvous path) with data checking, as untagged messages and then as
# tagged ones.
set -e
i=$SCIF_NODE_INDEX
# what the kernel said about a program that died of a signal
trap 'rc=$?; [ "$rc" = 0 ] || { dmesg | grep -E "segfault|trap|fi_|scif" | tail -n 20;
	cat /sys/kernel/debug/scif/endpoints; }' EXIT
tar -xf guest-fabric.tar -C /
export FI_PROVIDER=scif
scif-ntb-test nodes 2 60
echo "---- fi_info -p scif"
fi_info -p scif
echo "---- fi-scif-test"
fi-scif-test
for mode in msg tagged; do
	echo "---- fi_pingpong -m $mode"
	if [ "$i" = 0 ]; then
		timeout 600 fi_pingpong -p scif -e rdm -m "$mode" -c -S all -I 3
	else
		# the server may not listen yet: retry only a refused connection
		n=0
		while :; do
			rc=0
			out=$(timeout 600 fi_pingpong -p scif -e rdm -m "$mode" \
				-c -S all -I 3 10.0.0.1 2>&1) || rc=$?
			echo "$out" | grep -q 'failed to connect' || {
				echo "$out"
				[ "$rc" = 0 ] && break
				echo "fi_pingpong exited $rc"
				exit 1
			}
			n=$((n + 1))
			[ "$n" -lt 300 ] || { echo "$out"; exit 1; }
			sleep 1
		done
	fi
done
echo "node $i: fi_pingpong over scif passed, msg and tagged"
