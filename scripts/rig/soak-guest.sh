#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One node of the soak (scripts/rig/soak; Documentation/security.rst):
#
#   sh ./soak-guest.sh END FAULT_PERIOD KILL_EVERY
#
# END is the wall-clock time (seconds since the epoch) at which the load
# stops on every node, a restarted one included; FAULT_PERIOD the seconds
# between two faults of this node's kind; KILL_EVERY how long after
# @@SCIF-READY the host kills node 3. The load is scif-soak on port
# 4300 against every other node. Faults by node index:
#   1  link flaps: scif_ntb unloaded and loaded again (odd flaps), or the
#      NTB driver under it (even flaps)
#   2  allocation failures: for 5 s, 2 % of the allocations made by scif
#      and scif_ntb fail (fault_inject.sh)
#   3  is killed and booted again by the host (the cluster's --kill-node
#      and --kill-every): it prints @@SCIF-READY once its load runs, and
#      after a reboot only when the next kill leaves 90 s of load after it
# Prints @@SOAK-MEM lines (MemAvailable and Slab before and after, in kB),
# one @@SOAK-FAULT line per fault, scif-soak's @@SOAK summary and, on the
# nodes other than 3, @@SOAK-REJOIN: how long they waited at the end for
# node 3 to be back.
end=$1
period=$2
kill_every=$3
. ./fault_inject.sh

mem() {
	printf '@@SOAK-MEM %s node=%s avail_kb=%s slab_kb=%s\n' "$1" \
		"$SCIF_NODE_INDEX" \
		"$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)" \
		"$(awk '/^Slab:/ { print $2 }' /proc/meminfo)"
}

# settle: drop what the page cache and the slabs can give back
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 2
}

# up N: wait until N nodes are up, for at most 120 s; prints how long it took
up() {
	t0=$(date +%s)
	scif-ntb-test nodes "$1" 120 >/dev/null || return 1
	echo $(($(date +%s) - t0))
}

# regs_slots: every slot of the emulated NTB's register region as this
# node reads it (incarnation, flags, heartbeat; ivshmem_regs.h)
regs_slots() {
	dev=/sys/bus/pci/devices/0000:00:$(printf %02x $((0x18 + SCIF_NODE_INDEX))).0
	bar=$(sed -n 3p "$dev/resource" | cut -d' ' -f1)
	echo "register region at $bar"
	s=0
	while [ "$s" -lt "$SCIF_NODES" ]; do
		a=$((bar + 4096 * (s + 1)))
		echo "slot $s: incarnation $(devmem $a 32) flags $(devmem $((a + 4)) 32) heartbeat $(devmem $((a + 8)) 32)"
		s=$((s + 1))
	done
}

# online: the ids of the nodes online here, each between blanks
online() {
	echo " $(scif-ntb-test nodes 1 0 | sed -n 's/.*nodes online: *//p') "
}

# sees NODE...: this node has every node named online (node ids are the
# guests' indexes here)
sees() {
	list=$(online)
	for id in "$@"; do
		case "$list" in *" $id "*) ;; *) return 1 ;; esac
	done
}

# sees_any NODE...: this node has at least one of the nodes named online
sees_any() {
	list=$(online)
	for id in "$@"; do
		case "$list" in *" $id "*) return 0 ;; esac
	done
	return 1
}

# steady: the ids of the nodes that are never killed (all but node 3)
steady() {
	id=0
	while [ "$id" -lt "$SCIF_NODES" ]; do
		[ "$id" = 3 ] || printf '%s ' "$id"
		id=$((id + 1))
	done
}

# flap K: take the link down and up again; back once this node sees every
# node that is never killed (node 3 may be down, or come back meanwhile,
# and its reboot may take longer than the flap has)
flap() {
	if [ $(($1 % 2)) = 1 ]; then m=scif_ntb; else m=ntb_ivshmem; fi
	t0=$(date +%s)
	rmmod scif_ntb || return 1
	[ "$m" = scif_ntb ] || rmmod ntb_ivshmem || return 1
	sleep 1
	[ "$m" = scif_ntb ] || modprobe ntb_ivshmem || return 1
	modprobe scif_ntb || return 1
	# shellcheck disable=SC2046 # the ids, one argument each
	until sees $(steady); do
		[ $(($(date +%s) - t0)) -lt 120 ] || return 1
		sleep 0.5
	done
	echo "@@SOAK-FAULT node=$SCIF_NODE_INDEX kind=flap-$m recovery_s=$(($(date +%s) - t0))"
}

alloc_fail() {
	fi_arm 2 scif scif_ntb >/dev/null || return 1
	sleep 5
	n=$(fi_disarm 2>/dev/null | awk '{ s += $(NF - 2) } END { print s + 0 }')
	echo "@@SOAK-FAULT node=$SCIF_NODE_INDEX kind=alloc-fail failed_allocs=$n"
}

# guest-init unloads scif (and ntb_ivshmem): scif_ntb goes first, whatever
# the way out
trap 'rmmod scif_ntb 2>/dev/null' EXIT
modprobe scif_ntb || exit 1
if ! up "$SCIF_NODES" >/dev/null; then
	echo "soak: the fabric did not come up"
	# what this node saw of its links, for the report
	scif-ntb-test nodes 1 0
	dmesg | grep -E 'scif|ntb' | tail -n 30
	regs_slots
	sleep 1
	regs_slots
	exit 1
fi
settle
mem before
left=$((end - $(date +%s)))
# a node booted late still runs 10 s (its peers serve it until it ends)
[ "$left" -gt 10 ] || end=$(($(date +%s) + 10))
scif-soak 4300 "@$end" &
load=$!
if [ "$SCIF_NODE_INDEX" = 3 ] &&
   { [ "${SCIF_RESTARTED:-0}" = 0 ] || [ "$left" -gt $((kill_every + 90)) ]; }; then
	echo "@@SCIF-READY"
fi
k=1
# no fault in the last 20 s: the last connections end undisturbed
while sleep "$period" && [ $(($(date +%s) + 20)) -lt "$end" ]; do
	case "$SCIF_NODE_INDEX" in
	1) flap "$k" || { echo "soak: flap $k failed"; kill -TERM "$load"; break; } ;;
	2) alloc_fail || { echo "soak: fault injection failed"; break; } ;;
	*) break ;;
	esac
	k=$((k + 1))
done
wait "$load"
rc=$?
# Node 3 comes back on every node before the others end, however long
# its reboot took on a loaded host: a node that returns is rediscovered
# everywhere. Its last boot's load runs 10 s; the others still serve it.
if [ "$SCIF_NODE_INDEX" != 3 ] && [ "$SCIF_NODES" -gt 3 ]; then
	t0=$(date +%s)
	until sees 3; do
		if [ $(($(date +%s) - t0)) -ge 240 ]; then
			echo "soak: node 3 did not come back here within 240 s"
			rc=1
			break
		fi
		sleep 1
	done
	echo "@@SOAK-REJOIN node=$SCIF_NODE_INDEX waited_s=$(($(date +%s) - t0))"
fi
# Node 3 stays until the others have seen it back and left: on a loaded
# host one of them may end its load well after node 3's last boot ended
# its own (seen: 50 s), and must still find node 3 online.
if [ "$SCIF_NODE_INDEX" = 3 ] && [ "$SCIF_NODES" -gt 3 ]; then
	t0=$(date +%s)
	# shellcheck disable=SC2046 # the ids, one argument each
	while sees_any $(steady); do
		[ $(($(date +%s) - t0)) -lt 300 ] || break
		sleep 1
	done
fi
# the others' last connections to this node end before it unloads
sleep 10
settle
mem after
exit "$rc"
