#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run upstream dmatest over every swdma channel and check its summaries.
# usage: dmatest.sh [ITERATIONS [THREADS_PER_CHAN]]
#
# Phase 1: all channels of swdma (default channels=4), THREADS threads per
# channel, ITERATIONS memcpy tests per thread with data verification.
# Phase 2: swdma's parameter bounds, then a reload with 32 channels and a
# short run on each. Exits non-zero on any failure or missing summary.
iterations=${1:-2000}
threads=${2:-2}
p=/sys/module/dmatest/parameters

fail() {
	echo "FAIL: $*"
	exit 1
}

# Names of swdma's channels (dmaNchanM), one per line.
swdma_channels() {
	for c in /sys/class/dma/*; do
		[ -e "$c" ] || continue
		case "$(readlink -f "$c")" in
		*/platform/swdma/*) basename "$c" ;;
		esac
	done
}

# run_dmatest ITERATIONS THREADS: run one dmatest round on all swdma
# channels and check one clean summary per thread.
run_dmatest() {
	its=$1
	thr=$2
	chans=$(swdma_channels)
	[ -n "$chans" ] || fail "swdma registered no channels"
	dmesg -c >/dev/null
	echo "$its" >"$p/iterations" || fail "set iterations"
	echo "$thr" >"$p/threads_per_chan" || fail "set threads_per_chan"
	echo swdma >"$p/device" || fail "set device"
	echo 0 >"$p/max_channels" || fail "set max_channels"
	# An empty channel name adds every channel that matches the device.
	echo "" >"$p/channel" || fail "set channel"
	echo 1 >"$p/run" || fail "start dmatest"
	cat "$p/wait" >/dev/null
	log=$(dmesg)
	bad=$(echo "$log" | grep 'dmatest: .*result #')
	[ -z "$bad" ] || { echo "$bad" | head -n 20; fail "dmatest reported errors"; }
	n=0
	for c in $chans; do
		good=$(echo "$log" | grep -c "dmatest: $c-copy[0-9]*: summary $its tests, 0 failures .*(0)\$")
		if [ "$good" != "$thr" ]; then
			echo "$log" | grep "dmatest: $c-" | head -n 10
			fail "$c: $good of $thr threads finished $its tests cleanly"
		fi
		n=$((n + 1))
	done
	echo "dmatest: $n channels x $thr threads x $its iterations passed"
}

[ -d /sys/module/swdma ] || modprobe swdma || fail "modprobe swdma"
[ -d "$p" ] || modprobe dmatest || fail "modprobe dmatest"

run_dmatest "$iterations" "$threads"

# Releasing dmatest's channels must let swdma unload; bad parameters must
# be refused; the upper bound must work.
rmmod dmatest || fail "rmmod dmatest"
rmmod swdma || fail "rmmod swdma"
modprobe swdma channels=0 2>/dev/null && fail "channels=0 accepted"
modprobe swdma channels=33 2>/dev/null && fail "channels=33 accepted"
modprobe swdma max_xfer=100 2>/dev/null && fail "max_xfer=100 accepted"
modprobe swdma channels=32 || fail "modprobe swdma channels=32"
modprobe dmatest || fail "modprobe dmatest"
[ "$(swdma_channels | wc -l)" = 32 ] || fail "channels=32 did not give 32 channels"
run_dmatest 50 1
echo "PASS"
