#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows inside each of the two guests.
set -e
i=$SCIF_NODE_INDEX
echo "kernel $(uname -r), modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
dmesg -s 1000000 | sed -n 's/^.*\(scif_ntb [^ ]*: \)/\1/p'
echo "waiting for the other node..."
scif-ntb-test nodes 2 60 >/dev/null
dmesg -s 1000000 | sed -n 's/^.*scif_ntb [^ ]*: \(SCIF node .* up .*\)/\1/p'
echo "scif-info on node $i:"
scif-info -n | sed 's/^/  /'
if [ "$i" = 0 ]; then
	scif-ntb-test serve 4000 2
else
	echo "ping-pong, 8-byte messages, node 1 <-> node 0:"
	scif-ntb-test ping 0 4000 8 2000 | sed 's/^/  /'
	echo "bulk transfer of 32 MiB, node 1 -> node 0, every byte checked:"
	scif-ntb-test stream 0 4000 32 | grep -v '^@@' | sed 's/^/  /'
fi
echo "node $i done; unloading the modules and powering off"
