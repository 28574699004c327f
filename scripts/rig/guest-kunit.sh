#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a guest: loads every KUnit suite module of the project, one at a
# time, or only the modules named as arguments (e.g. scif_mpss_kunit), and
# prints the suites' results as one KTAP document. A module that fails to
# load or registers no suite is reported and makes the exit non-zero.
d=/sys/kernel/debug/kunit
# A test may make one allocation of its own thread fail (current->fail_nth),
# sleeping ones included; nothing fails unless a test asks for it.
for f in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
	[ -d "$f" ] || continue
	echo N >"$f/ignore-gfp-wait"
	echo 0 >"$f/verbose"
done
body=/tmp/ktap.body
: >"$body"
n=0
rc=0
if [ $# -gt 0 ]; then
	mods="$*"
else
	mods=$(for ko in /lib/modules/"$(uname -r)"/extra/*_kunit.ko; do
		[ -e "$ko" ] && basename "$ko" .ko
	done)
fi
# uptime_ms: the guest's uptime in milliseconds
uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
for m in $mods; do
	t_mod=$(uptime_ms)
	before=" $(ls "$d" 2>/dev/null | tr '\n' ' ') "
	if ! modprobe "$m"; then
		echo "# kunit module $m failed to load" >&2
		rc=1
		continue
	fi
	found=0
	for s in $(ls "$d"); do
		case "$before" in *" $s "*) continue ;; esac
		found=1
		n=$((n + 1))
		sed '1,2d' "$d/$s/results" |
			sed "\$s/^\(ok\|not ok\) 1 /\1 $n /" >>"$body"
	done
	if [ "$found" = 0 ]; then
		echo "# kunit module $m registered no suite" >&2
		rc=1
	fi
	rmmod "$m" || rc=1
	# its time, for the slowest suites (KTAP diagnostic lines are ignored)
	echo "# $m: $(($(uptime_ms) - t_mod)) ms" >>"$body"
done
# The suites' simulated link (scif_kunit_sim.ko) came in as a dependency
# and holds scif: unload it too, so that scif unloads cleanly after us.
if grep -q '^scif_kunit_sim ' /proc/modules; then
	rmmod scif_kunit_sim || rc=1
fi
echo "KTAP version 1"
echo "1..$n"
cat "$body"
exit "$rc"
