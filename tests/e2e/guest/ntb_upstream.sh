#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream NTB clients that map their peer's windows once, at probe, on
# translated windows (2 x 16 MiB) with window memory reserved by the rig:
#  1. ntb_transport + ntb_netdev: ping and a TCP stream whose bytes are
#     checked, through the NTB;
#  2. ntb_perf: each node's inbound buffer must sit in window memory
#     (the top 32 MiB of RAM); node 0 measures towards node 1.
. ./ntb_lib.sh
me=$SCIF_NODE_INDEX
peer=$((1 - me))
ip_me=10.9.0.$((me + 1))
ip_peer=10.9.0.$((peer + 1))
# where the rig reserved the window memory ("memmap=32M$<base>M"), and
# the two 16 MiB homes in it, as the driver prints them (hex, no 0x)
wm_base=$(sed -n 's/.*memmap=32M\$\([0-9]*\)M.*/\1/p' /proc/cmdline)
[ -n "$wm_base" ] || fail "no 32 MiB of window memory on the command line"
home0=$(printf '%x' $((wm_base << 20)))
home1=$(printf '%x' $(((wm_base + 16) << 20)))

# 64 MiB windows do not fit 32 MiB of window memory: no homes, one warning
modprobe ntb_ivshmem mw_size=67108864 || fail "modprobe ntb_ivshmem (64 MiB)"
dmesg | grep -q "window memory of 32768 KiB is not whole 65536 KiB windows" ||
	fail "no warning for windows larger than the window memory"
dmesg | grep -q "window memory: " && fail "homes for windows that do not fit"
rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem"

modprobe ntb_ivshmem mw_size=16777216 mw_count=2 || fail "modprobe ntb_ivshmem"
dmesg | grep -q "window memory: 32 MiB at 0x$home0, homes for 2 windows" ||
	fail "no window memory line"

# 1. ntb_transport + ntb_netdev
modprobe ntb_transport || fail "modprobe ntb_transport"
modprobe ntb_netdev || fail "modprobe ntb_netdev"
# the interface whose parent is the NTB device (not lo, sit0, ...)
dev=
for n in /sys/class/net/*; do
	[ -e "$n/device/ntb_qp0" ] || readlink "$n/device" | grep -q ntb ||
		continue
	dev=${n##*/}
done
[ -n "$dev" ] || fail "ntb_netdev made no interface"
ip addr add "$ip_me/24" dev "$dev" && ip link set "$dev" up ||
	fail "cannot configure $dev"
wait_for 60 file_is "/sys/class/net/$dev/carrier" 1 ||
	{ dmesg | grep -i ntb | tail -n 20; fail "ntb_transport link did not come up"; }
ping -c 3 -W 10 "$ip_peer" >/tmp/ping.log 2>&1 ||
	{ cat /tmp/ping.log; fail "no ping reply over ntb_netdev"; }
want=$(seq 1 200000 | md5sum | cut -d' ' -f1)
if [ "$me" = 0 ]; then
	(sleep 300 | nc -l -p 7000 | md5sum >/tmp/rx.md5) &
	wait_for 120 test -s /tmp/rx.md5 || fail "no TCP stream arrived"
	got=$(cut -d' ' -f1 /tmp/rx.md5)
	[ "$got" = "$want" ] || fail "TCP stream over ntb_netdev corrupted"
	echo "TCP stream of $(seq 1 200000 | wc -c) bytes intact"
	rmmod ntb_netdev ntb_transport || fail "rmmod ntb_transport"
else
	wait_for 60 sh -c "seq 1 200000 | nc $ip_peer 7000" ||
		fail "cannot stream to node 0"
	# node 0 leaves once it has checked the stream
	wait_for 120 file_is "/sys/class/net/$dev/carrier" 0 ||
		fail "ntb_transport link never went down"
	rmmod ntb_netdev ntb_transport || fail "rmmod ntb_transport"
fi
# node 1 unloads ntb_transport as soon as it sees node 0's go: do not
# talk ntb_perf to its ntb_transport
[ "$me" = 0 ] && sleep 3

# 2. ntb_perf, 16 MiB per run, 4 MiB of each window (it kmallocs a
# source buffer of the window size, which must be a page-allocator block)
modprobe ntb_perf total_order=24 max_mw_size=4194304 ||
	fail "modprobe ntb_perf"
d=$(ls -d /sys/kernel/debug/ntb_perf/* 2>/dev/null | head -n 1)
[ -d "$d" ] || fail "no ntb_perf debugfs directory"
# ntb_perf asks ntb_mw_get_align() about window <own index> but opens
# window <peer index>: its buffer is in one of the two homes, not always
# in the home of the window it opens (Documentation/ntb-emulation.rst)
wait_for 60 sh -c "grep -Eqi 'In buffer xlat 0x0*($home0|$home1)' $d/info" ||
	{ cat "$d/info"; fail "inbound buffer not in window memory"; }
if [ "$me" = 0 ]; then
	wait_for 60 timeout 120 sh -c "echo 0 >$d/run 2>/dev/null" ||
		{ cat "$d/info"; fail "ntb_perf run failed"; }
	cat "$d/run" >/tmp/perf.log
	grep -q "MBytes/s" /tmp/perf.log || { cat /tmp/perf.log; fail "no ntb_perf result"; }
	grep -E "copied|Total" /tmp/perf.log
	rmmod ntb_perf || fail "rmmod ntb_perf"
else
	# node 0 leaves once it has measured
	wait_for 180 sh -c "grep -q 'Link status: down' $d/info" ||
		fail "ntb_perf link never went down"
	rmmod ntb_perf || fail "rmmod ntb_perf"
fi
rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem"
echo "ntb_upstream: ok"
