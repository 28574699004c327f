#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node 1 is killed mid-run (scripts/rig/cluster --kill-node 1 --after-ready) and
# booted again. Node 0 must see the link go down within ntb_ivshmem's
# hb_timeout_ms and hb_period_ms (read from the module) plus 1 s of node
# 1's last sign of life, and up again once node 1 is back.
. ./ntb_lib.sh
me=$SCIF_NODE_INDEX
d=$(ls -d /sys/kernel/debug/ntb_tool/* 2>/dev/null | head -n 1)
[ -d "$d" ] || fail "no ntb_tool debugfs directory"

# uptime in milliseconds (guest clock)
now_ms() {
	local up rest
	read -r up rest </proc/uptime
	echo $((${up%.*} * 1000 + (1${up#*.} - 100) * 10))
}

echo Y >"$d/link" || fail "link enable"
wait_for 60 file_is "$d/peer0/link" Y || fail "link did not come up"
echo "node $me: link up (restarted=${SCIF_RESTARTED:-0})"

if [ "$me" = 1 ]; then
	if [ "${SCIF_RESTARTED:-0}" = 1 ]; then
		echo 0xbac >"$d/peer0/spad7"
		wait_for 60 file_is "$d/spad7" 0xac || fail "node 0 did not answer"
		echo "node $me: back in the cluster"
		exit 0
	fi
	# node 0 watches: only then may the host kill us
	wait_for 60 file_is "$d/spad5" 0x1 || fail "node 0 is not watching"
	echo "@@SCIF-READY"
	# sign of life every 20 ms until killed
	n=1
	while :; do
		echo "$n" >"$d/peer0/spad6"
		n=$((n + 1))
		usleep 20000
	done
fi

# node 0: watch node 1's signs of life until its link goes down; no fork
# in the loop, so that one pass takes a few milliseconds of guest time
last=""
seen=$(now_ms)
start=$seen
echo 0x1 >"$d/peer0/spad5" || fail "peer spad write"
while :; do
	read -r v <"$d/spad6"
	read -r up rest </proc/uptime
	t=$((${up%.*} * 1000 + (1${up#*.} - 100) * 10))
	if [ "$v" != "$last" ]; then
		last=$v
		seen=$t
	fi
	read -r l <"$d/peer0/link"
	[ "$l" = N ] && break
	[ $((t - start)) -gt 120000 ] && fail "node 1 was never seen going down"
	usleep 20000
done
gap=$((t - seen))
p=/sys/module/ntb_ivshmem/parameters
read -r hb_timeout <$p/hb_timeout_ms || fail "no hb_timeout_ms"
read -r hb_period <$p/hb_period_ms || fail "no hb_period_ms"
limit=$((hb_timeout + hb_period + 1000))
echo "node $me: link down ${gap} ms after node 1's last sign of life (sign $last)"
[ $(($last)) -gt 0 ] 2>/dev/null || fail "node 1 never gave a sign of life"
[ "$gap" -le "$limit" ] || fail "link down took ${gap} ms (> $limit ms)"

t=$(now_ms)
wait_for 150 file_is "$d/peer0/link" Y || fail "restarted node 1 did not link up"
echo "node $me: link up again after $(($(now_ms) - t)) ms"
wait_for 60 file_is "$d/spad7" 0xbac || fail "no word from restarted node 1"
echo 0xac >"$d/peer0/spad7"
echo "node $me: ntb_peer_death PASS"
