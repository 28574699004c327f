#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guests' part of make bench's routed step (scripts/bench/bench): a
# chain of 4 guests, 0 - 1 - 2 - 3, each link its own 2-port NTB. Node 0
# measures, in every pair of measurements, the same benchmarks against its
# neighbour (node 1, direct), across one hop (node 2) and across two
# (node 3), so that each routed figure has its direct reference taken
# seconds apart:
#   @@RT0, @@RT1, @@RT2     scif-ntb-test bench (round trips, streams)
#   @@RTRMA0, @@RTRMA1      scif-rma-bench bandwidth table (direct RMA to
#                           node 1; staged RMA, through node 1, to node 2)
# A node leaves only when node 0 releases it (port 5100), the farthest
# first, so that no transit node goes while node 0 still needs it.
# Usage: bench-routed-guest.sh PAIRS
set -u
pairs=$1
i=$SCIF_NODE_INDEX
tag() { t=$1; shift; "$@" >/tmp/out 2>&1; rc=$?; sed "s/^/$t /" /tmp/out; return $rc; }

modprobe ntb_ivshmem && modprobe scif && modprobe scif_ntb node_id="$i" ||
	exit 1
scif-ntb-test nodes 4 120 >/dev/null || { echo "FAIL: 4 nodes"; exit 1; }
# 12 connections per scif-ntb-test bench; one scif-rma-bench per pair
if [ "$i" != 0 ]; then
	scif-ntb-test serve 5000 $((12 * pairs)) >/dev/null &
	srv=$!
	r=0
	while [ "$i" -le 2 ] && [ $r -lt "$pairs" ]; do
		r=$((r + 1))
		scif-rma-bench server $((4200 + r)) >/dev/null || exit 1
	done
	wait $srv || exit 1
	scif-ntb-test serve 5100 1 >/dev/null || exit 1
	rmmod scif_ntb ntb_ivshmem || exit 1
	exit 0
fi
echo "@@RTROUTES $(awk 'NR > 2 { printf "%s:%s/%s ", $1, $2, $3 }' \
	/sys/kernel/debug/scif/routes)"
r=0
while [ $r -lt "$pairs" ]; do
	r=$((r + 1))
	echo "@@ROUND $r"
	tag @@RT0 scif-ntb-test bench 1 5000 || exit 1
	tag @@RT1 scif-ntb-test bench 2 5000 || exit 1
	tag @@RT2 scif-ntb-test bench 3 5000 || exit 1
	tag @@RTRMA0 scif-rma-bench client 1 $((4200 + r)) 1 10 b || exit 1
	tag @@RTRMA1 scif-rma-bench client 2 $((4200 + r)) 1 10 b || exit 1
done
for n in 3 2 1; do
	scif-ntb-test echo $n 5100 1 >/dev/null || exit 1
done
rmmod scif_ntb ntb_ivshmem || exit 1
