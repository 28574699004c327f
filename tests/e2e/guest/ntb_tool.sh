#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream ntb_tool across two guests of the emulated NTB: ports, link up,
# scratchpads written by one side and read by the other, doorbells rung on
# one side and seen on the other, link down when one side disables it.
. ./ntb_lib.sh
me=$SCIF_NODE_INDEX
other=$((1 - me))

d=$(ls -d /sys/kernel/debug/ntb_tool/* 2>/dev/null | head -n 1)
[ -d "$d" ] || fail "no ntb_tool debugfs directory"
echo "node $me: ntb_tool on $(basename "$d")"

file_is "$d/port" "$me" || fail "port is $(cat "$d/port"), expected $me"
file_is "$d/peer0/port" "$other" || fail "peer0/port is $(cat "$d/peer0/port")"
[ -e "$d/peer1" ] && fail "more than one peer in a 2-node cluster"

# link
echo Y >"$d/link" || fail "link enable"
wait_for 20 file_is "$d/peer0/link" Y || fail "link did not come up"
echo "node $me: link up"

# scratchpads: write ours into the peer, read the peer's in ours
mine=$((0x5ca0000 + me))
theirs=$((0x5ca0000 + other))
echo "$mine" >"$d/peer0/spad3" || fail "peer spad write"
file_is "$d/peer0/spad3" "$mine" || fail "peer spad read back"
wait_for 20 file_is "$d/spad3" "$theirs" ||
	fail "spad3 is $(cat "$d/spad3"), expected $theirs from the peer"
echo "node $me: scratchpad from peer ok ($(cat "$d/spad3"))"

# doorbells: unmask, ring the peer's bit, wait for ours
echo "c 0xffffffffffffffff" >"$d/db_mask" || fail "db unmask"
bit_in=$((1 << (8 + me)))
bit_out=$((1 << (8 + other)))
echo "s $bit_out" >"$d/peer_db" || fail "peer_db set"
wait_for 20 bits_set "$d/db" "$bit_in" ||
	fail "doorbell $bit_in not seen (db $(cat "$d/db"))"
echo "c $bit_in" >"$d/db" || fail "db clear"
echo "node $me: doorbell from peer ok"

# barrier: tell the peer we are done, wait for its word
echo 0xd0 >"$d/peer0/spad4" || fail "peer spad write"
wait_for 20 file_is "$d/spad4" 0xd0 || fail "peer never finished"

# link down: node 1 disables its link, node 0 must see it go down
if [ "$me" = 1 ]; then
	echo N >"$d/link" || fail "link disable"
	wait_for 20 file_is "$d/spad5" 0xd1 || fail "peer did not see link down"
else
	wait_for 5 file_is "$d/peer0/link" N || fail "link stayed up"
	echo "node $me: link down seen"
	echo 0xd1 >"$d/peer0/spad5"
fi
echo "node $me: ntb_tool PASS"
