#!/usr/bin/env bash
# The rig must fail loudly: a failing command, a kernel panic, a WARN, a
# memory leak, a hung guest and truncated KTAP must each give a non-zero
# exit and a reason.
# needs: own-boot (boots the rig itself, expecting it to fail)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/rig/common.sh"
fail=0

expect_fail() {
	local what=$1 reason=$2
	shift 2
	local out
	out=$("$@" 2>&1)
	if [ $? = 0 ]; then
		echo "FAIL: $what: the run passed"
		fail=1
	elif ! grep -q -- "$reason" <<<"$out"; then
		echo "FAIL: $what: reason '$reason' not given"
		echo "$out" | tail -n 5
		fail=1
	else
		echo "ok: $what -> $(grep -m1 -- "$reason" <<<"$out")"
	fi
}

cl="$top/scripts/rig/cluster -n 1 --modules scif --smp 1 --mem 256"
expect_fail "command exits 3" "command exited 3" $cl -- sh -c 'exit 3'
expect_fail "kernel WARN" "kernel report" $cl -- sh -c 'modprobe lkdtm && echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT'
# a module that leaks on load: the scans after the command must find it
expect_fail "kmemleak leak" "unreferenced object" $cl -- sh -c 'modprobe scif_rig_leak'
expect_fail "kernel panic" "did not finish" $cl -- sh -c 'echo c > /proc/sysrq-trigger'
expect_fail "hung guest" "timeout" $cl --timeout 30 -- sleep 600
expect_fail "bad -n" "usage" "$top/scripts/rig/cluster" -n 9 -- true
expect_fail "unknown topology" "unknown topology" "$top/scripts/rig/cluster" -n 3 --topology cube -- true
expect_fail "ring of 2" "needs -n 3" "$top/scripts/rig/cluster" -n 2 --topology ring -- true
expect_fail "star with window memory" "mesh only" "$top/scripts/rig/cluster" -n 3 --topology star --ntb-winmem 32 -- true
expect_fail "missing --copy file" "no such file" $cl --copy /nonexistent -- true

# kunit.py must reject truncated KTAP.
ksrc=$(scif_ksrc)
tmp=$(mktemp)
printf 'KTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: x\n    1..3\n    ok 1 a\n' >"$tmp"
if python3 "$ksrc/tools/testing/kunit/kunit.py" parse "$tmp" >/dev/null 2>&1; then
	echo "FAIL: truncated KTAP parsed as a pass"
	fail=1
else
	echo "ok: truncated KTAP rejected"
fi
rm -f "$tmp"
exit $fail
