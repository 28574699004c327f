#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The host wrote a register region with a wrong FIELD (SCIF_MESH_CORRUPT):
# ntb_ivshmem loads, refuses the port with exactly one "refusing:" line
# naming FIELD, registers no NTB device, and unloads and reloads cleanly.
. ./ntb_lib.sh
field=$1

check_refused() {
	local lines
	lines=$(dmesg | grep 'ntb_ivshmem.*refusing:')
	[ -n "$lines" ] || fail "no refusing: line ($1)"
	[ "$(echo "$lines" | wc -l)" = "$2" ] ||
		fail "expected $2 refusing: lines ($1), got: $lines"
	echo "$lines" | grep -q "$field" ||
		fail "refusing: line does not name the $field: $lines"
	ls -d /sys/kernel/debug/ntb_tool/* >/dev/null 2>&1 &&
		fail "ntb_tool bound to a refused port ($1)"
	[ -z "$(ls /sys/bus/ntb/devices 2>/dev/null)" ] ||
		fail "an NTB device exists: $(ls /sys/bus/ntb/devices)"
}

grep -q '^ntb_ivshmem ' /proc/modules || fail "ntb_ivshmem not loaded"
check_refused "first probe" 1
echo "node $SCIF_NODE_INDEX: $(dmesg | grep -o 'refusing:.*')"
rmmod ntb_ivshmem || fail "rmmod after a refused probe"
modprobe ntb_ivshmem || fail "modprobe again"
check_refused "second probe" 2
echo "node $SCIF_NODE_INDEX: refused ($field) PASS"
