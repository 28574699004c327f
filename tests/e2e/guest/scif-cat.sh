#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# scif-info and scif-cat on the loopback node.
set -e
scif-info
self=$(scif-info -n | sed -n 's/^self: //p')
[ -n "$self" ] || { echo "FAIL: scif-info printed no node id"; exit 1; }
dd if=/dev/urandom of=/tmp/in bs=1024 count=3000 2>/dev/null
scif-cat -l 4000 >/tmp/out </dev/null &
pid=$!
# Wait for the listener.
i=0
until scif-cat "$self" 4000 </tmp/in; do
	i=$((i + 1))
	[ "$i" -lt 50 ] || { echo "FAIL: cannot connect to the listener"; exit 1; }
	sleep 0.1
done
wait "$pid"
cmp /tmp/in /tmp/out || { echo "FAIL: data changed in transit"; exit 1; }
echo "scif-cat carried $(wc -c </tmp/out) bytes unchanged"

# scif-info --json, printed between markers for the host to parse, while a
# listener holds port 4001 so that the endpoint and port tables have a row.
scif-cat -l 4001 </dev/null >/dev/null &
lpid=$!
i=0
until grep -q '^4001 ' /sys/kernel/debug/scif/ports; do
	i=$((i + 1))
	[ "$i" -lt 50 ] || { echo "FAIL: the listener on port 4001 did not appear"; exit 1; }
	sleep 0.1
done
echo "---- scif-info --json"
scif-info --json
echo "---- end"
scif-info
kill "$lpid"
wait "$lpid" 2>/dev/null || true
