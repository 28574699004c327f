#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unloading ntb_ivshmem while upstream ntb_tool is bound to its port, with
# the link up and doorbells unmasked: node 1 removes the driver, which
# unbinds ntb_tool first; node 0 sees the link go down. Node 1 loads the
# driver again, ntb_tool binds again and the link comes back.
. ./ntb_lib.sh
me=$SCIF_NODE_INDEX

tool_dir() { ls -d /sys/kernel/debug/ntb_tool/* 2>/dev/null | head -n 1; }
tool_bound() { [ -n "$(tool_dir)" ]; }
d=$(tool_dir)
[ -d "$d" ] || fail "no ntb_tool debugfs directory"

echo Y >"$d/link" || fail "link enable"
echo "c 0xffffffffffffffff" >"$d/db_mask" || fail "db unmask"
wait_for 60 file_is "$d/peer0/link" Y || fail "link did not come up"
echo "node $me: link up"

if [ "$me" = 1 ]; then
	# a doorbell in flight towards node 0, then the driver goes away
	echo "s 0x100" >"$d/peer_db" || fail "peer_db set"
	wait_for 30 file_is "$d/spad5" 0x1 || fail "node 0 is not watching"
	rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem with ntb_tool bound"
	[ -z "$(tool_dir)" ] || fail "ntb_tool still bound after rmmod"
	grep -q '^ntb_tool ' /proc/modules || fail "ntb_tool went away"
	echo "node $me: ntb_ivshmem removed under ntb_tool"
	modprobe ntb_ivshmem || fail "modprobe ntb_ivshmem again"
	wait_for 30 tool_bound || fail "ntb_tool did not bind again"
	d=$(tool_dir)
	# node 0 says, in its own scratchpad, that it saw the link go down
	wait_for 30 file_is "$d/peer0/spad8" 0xd0 || fail "node 0 saw no link down"
	echo Y >"$d/link" || fail "link enable"
	wait_for 60 file_is "$d/peer0/link" Y || fail "link did not come back"
	echo 0xbac >"$d/peer0/spad7"
	wait_for 60 file_is "$d/spad7" 0xac || fail "node 0 did not answer"
	echo "node $me: ntb_unload PASS"
	exit 0
fi

# node 0
wait_for 30 bits_set "$d/db" 0x100 || fail "doorbell from node 1 not seen"
echo 0x1 >"$d/peer0/spad5" || fail "peer spad write"
wait_for 30 file_is "$d/peer0/link" N || fail "link stayed up after rmmod"
echo "node $me: link down after node 1's rmmod"
echo 0xd0 >"$d/spad8" || fail "spad write"
wait_for 60 file_is "$d/peer0/link" Y || fail "link did not come back"
wait_for 60 file_is "$d/spad7" 0xbac || fail "no word from node 1"
echo 0xac >"$d/peer0/spad7"
echo "node $me: ntb_unload PASS"
