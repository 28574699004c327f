#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every hardware profile of the emulated NTB in turn, on two guests: what
# the NTB API reports (read through upstream ntb_tool), then SCIF over it
# (scif_ntb, its handshake in scratchpads or, for idt, in message
# registers): the link comes up with the profile's port numbers, a checked
# stream each way, and a short run of RMA (staged: every profile has
# translated windows).
. ./ntb_lib.sh
me=$SCIF_NODE_INDEX
other=$((1 - me))
d=""

# expect PROFILE: set what that profile must report on this node.
# Values: Documentation/ntb-emulation.rst, "Hardware profiles". Node 0 is
# the lower node of a 2-port pair: its side reports port 0 (B2B upstream,
# primary), except where the driver leaves numbering to the NTB core with
# a topology it has no port for (switchtec, epf: 0 on both sides).
expect() {
	port=$me peer=$other msgs=0 mws=2 size_align=0x1 hs=scratchpads
	case "$1" in
	default) spads=64 db=0xffffffffffffffff mws=1 ;;
	intel) spads=16 db=0x7fffffff align=0x1000000 size_max=0x1000000 ;;
	amd) spads=8 db=0x7fff align=0x1000 size_max=0x1000000 ;;
	switchtec) spads=128 db=0xfffffff align=0x1000 size_align=0x1000
		size_max=0x200000 port=0 peer=0 ;;
	idt) spads=0 msgs=4 db=0xffffffff align=0x4 size_max=0x1000000
		port=$((me * 2)) peer=$((other * 2)) hs="message registers" ;;
	epf) spads=128 db=0x7 align=0x1000 size_max=0x100000 port=0 peer=0 ;;
	*) fail "unknown profile $1" ;;
	esac
}

count() {
	# shellcheck disable=SC2012 # debugfs names are plain
	ls -d "$@" 2>/dev/null | wc -l
}

# mw_field FILE NAME: the number after NAME in one of ntb_tool's mw_trans
# tables ("NAME <spaces><tab>0x...").
mw_field() {
	awk -F "$(printf '\t')" -v k="$2" '{ sub(/ +$/, "", $1) } $1 == k { print $2; exit }' "$1"
}

# check_window PROFILE FILE: one inbound window's alignment and size.
check_window() {
	local f v

	for f in "Alignment:$align" "Size Alignment:$size_align" \
		"Size Max:$size_max"; do
		v=$(mw_field "$2" "${f%%:*}")
		case "$v" in
		0x[0-9a-fA-F]*) ;;
		*) cat "$2"; fail "$1: ${f%%:*} of $2 unreadable: '$v'" ;;
		esac
		[ $((v)) -eq $((${f#*:})) ] ||
			fail "$1: ${f%%:*} of $2 is $v, want ${f#*:}"
	done
}

# check_api PROFILE: ntb_tool sees exactly the expected resources.
check_api() {
	local t w

	modprobe ntb_tool || fail "$1: ntb_tool"
	d=$(ls -d /sys/kernel/debug/ntb_tool/* 2>/dev/null | head -n 1)
	[ -d "$d" ] || fail "$1: no ntb_tool debugfs directory"
	file_is "$d/port" "$port" || fail "$1: port $(cat "$d/port"), want $port"
	file_is "$d/peer0/port" "$peer" ||
		fail "$1: peer port $(cat "$d/peer0/port"), want $peer"
	[ "$(count "$d"/peer[0-9]*)" = 1 ] || fail "$1: not exactly one peer"
	file_is "$d/db_valid_mask" "$db" ||
		fail "$1: doorbells $(cat "$d/db_valid_mask"), want $db"
	t=$(count "$d"/spad[0-9]*)
	[ "$t" = "$spads" ] || fail "$1: $t scratchpads, want $spads"
	t=$(count "$d"/msg[0-9]*)
	[ "$t" = "$msgs" ] || fail "$1: $t message registers, want $msgs"
	t=$(count "$d"/peer0/mw_trans[0-9]*)
	[ "$t" = "$mws" ] || fail "$1: $t windows, want $mws"
	# doorbell 0 ends the check (below): unmasked before the link is up
	echo "c 0x1" >"$d/db_mask" || fail "$1: unmask doorbell 0"
	# the NTB API answers ntb_mw_get_align() only with the link up
	echo Y >"$d/link" || fail "$1: link enable"
	wait_for 20 file_is "$d/peer0/link" Y || fail "$1: link did not come up"
	if [ "$1" != default ]; then
		w=0
		while [ "$w" -lt "$mws" ]; do
			cat "$d/peer0/mw_trans$w" >/tmp/mw_trans ||
				fail "$1: read mw_trans$w"
			check_window "$1" /tmp/mw_trans
			w=$((w + 1))
		done
	fi
	# Unloading ntb_tool takes the link down, and the peer reads its
	# windows only while the link is up: ring doorbell 0 of the peer once
	# done here, and unload only once the peer rang ours (every profile
	# has doorbell 0; the bit stays set until cleared, rung early or late).
	echo "s 0x1" >"$d/peer_db" || fail "$1: ring the peer's doorbell"
	wait_for 30 bits_set "$d/db" 0x1 ||
		fail "$1: the peer never rang (db $(cat "$d/db"))"
	echo "c 0x1" >"$d/db" || fail "$1: clear doorbell 0"
	rmmod ntb_tool || fail "$1: rmmod ntb_tool"
	echo "node $me: $1: port $port, peer $peer, $spads scratchpads, $msgs message registers, doorbells $db, $mws windows"
}

# barrier PORT: both nodes got here.
barrier() {
	if [ "$me" = 0 ]; then
		scif-ntb-test serve "$1" 1 >/dev/null &&
			scif-ntb-test echo 1 $(($1 + 1)) 1 >/dev/null
	else
		scif-ntb-test echo 0 "$1" 1 >/dev/null &&
			scif-ntb-test serve $(($1 + 1)) 1 >/dev/null
	fi
}

# scif_smoke PROFILE BASEPORT: SCIF links, streams and does RMA.
scif_smoke() {
	local server

	# node ids 0 and 1 whatever the ports (idt: 0 and 2; switchtec, epf:
	# 0 on both sides)
	modprobe scif_ntb node_id="$me" || fail "$1: modprobe scif_ntb"
	scif-ntb-test nodes 2 60 >/dev/null || {
		dmesg | grep -E "scif|ntb" | tail -20
		fail "$1: SCIF link did not come up"
	}
	dmesg | grep -q "SCIF node $other up through port $peer (" ||
		fail "$1: no link up through port $peer"
	dmesg | grep -q "SCIF node $me on port $port: .*, handshake in $hs\$" ||
		fail "$1: no handshake in $hs"
	scif-ntb-test serve "$2" 1 >/dev/null &
	server=$!
	scif-ntb-test stream "$other" "$2" 4 >/dev/null || {
		kill "$server" 2>/dev/null
		fail "$1: stream to node $other"
	}
	wait "$server" || fail "$1: stream from node $other"
	if [ "$me" = 0 ]; then
		scif-rma-ntb-test server $(($2 + 10)) >/dev/null ||
			fail "$1: RMA server"
	else
		scif-rma-ntb-test client 0 $(($2 + 10)) 10 >/dev/null ||
			fail "$1: RMA client"
	fi
	barrier $(($2 + 20)) || fail "$1: barrier"
	echo "node $me: $1: SCIF stream and RMA ok ($(($(uptime_s) - t0)) s)"
}

# uptime_s: whole seconds since boot
uptime_s() {
	cut -d. -f1 /proc/uptime
}

modprobe scif || fail "modprobe scif"
start=$(uptime_s)
base=5000
failed=""
# Each profile in a subshell, so that one that fails does not hide what the
# others do (both nodes fail the same step, so they stay in step).
for prof in default intel amd switchtec idt epf; do
	rmmod scif_ntb 2>/dev/null
	rmmod ntb_tool 2>/dev/null
	rmmod ntb_ivshmem 2>/dev/null
	dmesg -c >/dev/null
	t0=$(uptime_s)
	if ! (
		expect "$prof"
		modprobe ntb_ivshmem profile="$prof" || fail "$prof: modprobe"
		check_api "$prof"
		scif_smoke "$prof" "$base"
	); then
		dmesg | grep -E "ntb|scif" | tail -n 15
		failed="$failed $prof"
	fi
	base=$((base + 100))
done
rmmod scif_ntb 2>/dev/null
rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem"
[ -z "$failed" ] || fail "profiles that failed:$failed"
echo "node $me: ntb_profiles PASS ($(($(uptime_s) - start)) s)"
