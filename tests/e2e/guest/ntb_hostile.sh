#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A hostile peer on the emulated NTB: node 1 replaces scif_ntb by
# scif_ntb_hostile, which writes MSGS random and mutated messages, broken
# framing, scratchpad junk, doorbell storms and link flaps at node 0 (the
# victim, running swdma ntb_ivshmem scif scif_ntb). Then node 1 loads
# scif_ntb again and a genuine connection to node 0 must work. The rig
# fails the run on any kernel report (KASAN, lockdep, WARN, kmemleak...).
# Usage: ntb_hostile.sh MSGS SEED [LIES [PROFILE]]; LIES=1 also has the
# attacker lie in the memory of the mapped streams the victim offers
# (stream_lies=1). With PROFILE, the script loads ntb_ivshmem
# profile=PROFILE and scif_ntb itself (the cluster loads swdma and scif):
# idt has the handshake in message registers.
set -e
msgs=${1:-20000}
seed=${2:-1}
lies=${3:-0}
profile=${4:-}
if [ -n "$profile" ]; then
	modprobe ntb_ivshmem profile="$profile"
	# node ids 0 and 1 whatever the profile's port numbers
	modprobe scif_ntb node_id="$SCIF_NODE_INDEX"
fi
# What the script loaded, it unloads (the rig unloads its own list).
unload_profile() {
	[ -z "$profile" ] || { rmmod scif_ntb && rmmod ntb_ivshmem; }
}
# Link transitions and node up/down are info lines: keep them on the
# console, which the rig saves, to tell a stuck link from a stuck victim.
echo 7 >/proc/sys/kernel/printk
# The genuine connection's port. The attacker aims its connection requests
# at its target port 3001 and flips single bits of its messages: a port
# one bit away (3000 was) gets a forged connection accepted, the victim's
# server fails on it and the victim leaves early (seen after 62,000 and
# 89,000 messages of seed 1). 3100 is many bits away from 3001.
genuine=3100
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	l0=$(dmesg | wc -l)
	# Live state for the attacker to aim at: a listener on port 3001.
	scif-ntb-test serve 3001 0 >/dev/null 2>&1 &
	bg=$!
	# The genuine connection, once the attack is over.
	scif-ntb-test serve $genuine 1
	kill "$bg" 2>/dev/null || true
	l1=$(dmesg | wc -l)
	resets=$(dmesg | grep -c 'resetting the link' || true)
	echo "victim: up; $resets link resets reported; $((l1 - l0)) kernel log lines for $msgs hostile messages"
	# Rate-limited: far fewer lines than messages.
	[ $((l1 - l0)) -lt $((msgs / 4 + 200)) ] ||
		{ echo "victim: kernel log not rate-limited"; exit 1; }
	unload_profile
	exit 0
fi
scif-ntb-test nodes 2 120 >/dev/null
rmmod scif_ntb
modprobe scif_ntb_hostile msgs="$msgs" seed="$seed" stream_lies="$lies"
dmesg | grep -q 'hostile SCIF peer on port' ||
	{ echo "hostile: the module did not probe"; exit 1; }
t=0
until dmesg | grep -q 'scif_ntb_hostile: done:'; do
	sleep 1
	t=$((t + 1))
	[ "$t" -lt 5400 ] || { echo "hostile: no end after $t s"; exit 1; }
done
line=$(dmesg | grep 'scif_ntb_hostile: done:' | sed 's/^\[[^]]*\] //')
echo "$line"
# A handshake that failed ends the attack early: that is a failure, but
# the genuine link is still tried, to tell a stuck victim from the rest.
sent=$(echo "$line" | sed -n 's/.*done: \([0-9]*\) messages.*/\1/p')
short=0
if [ "$sent" != "$msgs" ]; then
	echo "hostile: only $sent of $msgs messages"
	dmesg | grep 'scif_ntb_hostile: the victim' || true
	short=1
fi
echo "hostile: attack took about $t s"
# Asked to lie in mapped streams over a direct link: it must have. (A
# translated link maps no stream memory: there are none to lie in.)
lied=$(echo "$line" | sed -n 's/.* \([0-9]*\) stream lies.*/\1/p')
if [ "$lies" = 1 ] && [ "${SCIF_NTB_MW:-0}" = 0 ] && [ "${lied:-0}" = 0 ]; then
	echo "hostile: no mapped stream was opened to lie in"
	short=1
fi
rmmod scif_ntb_hostile
if [ -n "$profile" ]; then
	modprobe scif_ntb node_id="$SCIF_NODE_INDEX"
else
	modprobe scif_ntb
fi
scif-ntb-test nodes 2 120
scif-ntb-test echo 0 $genuine 1
echo "hostile: genuine link to the victim works"
unload_profile
exit $short
