#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a guest booted by `cluster --suite --modules ""`: several
# end-to-end tests one after another in the same boot (see
# scripts/checks/e2e-suite, which prepares DIR, and Documentation/test-rig.rst).
#
# sh ./guest-suite.sh DIR: DIR/list names the tests in order, one
# directory DIR/NAME each, holding the test's copied files, its command
# (.scif-cmd), its modules (.scif-modules, comma separated) and its time
# limit in seconds (.scif-timeout). For each test, every guest:
#   - waits for the others (a barrier through the host, ttyS2),
#   - empties the kernel log buffer (tests read dmesg), then marks the
#     start on the console (kernel log) and on its output,
#   - loads the test's modules, runs its command in its directory under
#     its time limit, unloads the modules in reverse (as /init does for a
#     boot of its own; a failure is a kernel-log @@SCIF-FAIL line),
#   - puts the guest back as the boot left it: kills the test's leftover
#     processes, unloads any module it left loaded, restores the console
#     log level and the fault injection settings, empties /tmp,
#   - marks the end with the command's status and the seconds it all
#     took, and waits for the others again.
# kmemleak scans only after the last test (a scan costs a 512 MiB guest
# about 5 s): each suspect is printed on the console under the test during
# which it was allocated, by its allocation's jiffies against those
# recorded at each test's start (the console's @@SCIF-LEAKS section, read by
# scripts/checks/e2e-suite).
# A guest it cannot put back (a module that will not unload) stops there:
# the tests not started are left to the host, which runs them in boots of
# their own. Exits 0 unless the suite stopped early.
dir=$(cd "$1" && pwd) || exit 1
con=/dev/ttyS0
leak=/sys/kernel/debug/kmemleak
state=/suite-state
mkdir -p "$state"

cat /proc/sys/kernel/printk >"$state/printk"
# (busybox grep -v -f with no pattern at all selects nothing: one that
# no module name matches)
{ echo "-"; cut -d' ' -f1 /proc/modules; } >"$state/modules"
: >"$state/fault"
for a in /sys/kernel/debug/failslab/* /sys/kernel/debug/fail_page_alloc/*; do
	[ -f "$a" ] && [ -r "$a" ] && [ -w "$a" ] || continue
	v=$(cat "$a" 2>/dev/null) || continue
	echo "$a $v" >>"$state/fault"
done

# What the boot itself allocated and lost is not a test's: kmemleak is
# told to report only what it has not reported yet, and the first test
# answers for what is left (it would have, booted on its own).
[ -w "$leak" ] && echo clear >"$leak"
: >"$state/starts"

# uptime_s: seconds since boot, to the hundredth; span A B: B - A
uptime_s() {
	cut -d' ' -f1 /proc/uptime
}
span() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'
}

# jiffies: the kernel's tick count now (what kmemleak stamps an object with)
jiffies() {
	sed -n 's/^jiffies: //p' /proc/timer_list | head -n 1
}

# leak_report: scan (scif-leak-scan waits until the youngest objects can
# be reported) and print every suspect under the test it was allocated in: an
# "@@SCIF-LEAKS-OF NAME" line before each, the whole between @@SCIF-LEAKS
# and @@SCIF-LEAKS-END. An object older than every test start goes to the
# first test.
leak_report() {
	[ -w "$leak" ] || return 0
	scif-leak-scan
	{
		echo "@@SCIF-LEAKS"
		awk '
		function flush(i, t) {
			if (blk == "")
				return
			t = name[0]
			for (i = 0; i < n; i++)
				if (from[i] <= j)
					t = name[i]
			print "@@SCIF-LEAKS-OF " t
			print blk
			blk = ""
			j = 0
		}
		NR == FNR { name[n] = $1; from[n++] = $2 + 0; next }
		/^unreferenced object/ { flush(); blk = $0; next }
		blk != "" {
			blk = blk "\n" $0
			if (match($0, /jiffies [0-9]+/))
				j = substr($0, RSTART + 8, RLENGTH - 8) + 0
		}
		END { flush() }' "$state/starts" "$leak"
		echo "@@SCIF-LEAKS-END"
	} >"$con"
	# /init need not wait and scan again
	: >/.scif-leak-scanned
}

# the processes that were there before any test (/init's among them):
# not the tests' to leave behind, so never killed by suite_reset
pids_before=$(cd /proc && echo [0-9]*)
nsync=0
if [ "$SCIF_NODES" -gt 1 ]; then
	exec 3</dev/ttyS2 || exit 1
	stty -F /dev/ttyS2 raw -echo || exit 1
fi
# suite_sync: return once every guest got here (the host answers on
# ttyS2 with the number of the barrier once all of them printed it).
suite_sync() {
	[ "$SCIF_NODES" -gt 1 ] || return 0
	nsync=$((nsync + 1))
	echo "@@SCIF-SYNC $nsync"
	while read -r got <&3; do
		[ "$got" = stop ] && break
		[ "$got" -ge "$nsync" ] 2>/dev/null && return 0
	done
	# another guest stopped (or the port closed)
	echo "@@SCIF-SUITE-STOPPED at barrier $nsync"
	leak_report
	exit 1
}

mark() { echo "$*" >/dev/kmsg; }

# new_modules: the modules loaded now that were not at the start
new_modules() {
	cut -d' ' -f1 /proc/modules | grep -vxF -f "$state/modules"
}

# suite_reset: kill what the test left running, unload what it left loaded,
# restore what it changed. Fails if a module stays loaded.
suite_reset() {
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		case " 1 $$ $PPID $pids_before " in *" $pid "*) continue ;; esac
		# Kernel threads (and zombies) have no command line. (A file of
		# /proc has size 0 to stat: "test -s" is false for every one.)
		c=
		read -r c <"$p/cmdline" 2>/dev/null
		[ -n "$c" ] && kill -9 "$pid" 2>/dev/null
	done
	for pass in 1 2 3 4 5 6; do
		extra=$(new_modules)
		[ -n "$extra" ] || break
		for m in $extra; do
			rmmod "$m" 2>/dev/null
		done
	done
	while read -r a v; do
		echo "$v" >"$a" 2>/dev/null
	done <"$state/fault"
	cat "$state/printk" >/proc/sys/kernel/printk
	rm -rf /tmp/* /tmp/.[!.]* 2>/dev/null
	extra=$(new_modules)
	[ -z "$extra" ] || { echo "modules left loaded: $extra"; return 1; }
}

while read -r name; do
	[ -n "$name" ] || continue
	t=$dir/$name
	suite_sync
	start=$(date +%s)
	# a fresh kernel log for the test, as after a boot (the console keeps
	# everything)
	dmesg -c >/dev/null
	mark "@@SCIF-TEST-BEGIN $name"
	echo "@@SCIF-TEST-BEGIN $name"
	echo "$name $(jiffies)" >>"$state/starts"
	t_load=$(uptime_s)
	loaded=""
	rc=0
	for m in $(tr , ' ' <"$t/.scif-modules"); do
		if ! modprobe "$m" >"$con" 2>&1; then
			echo "@@SCIF-FAIL modprobe $m" >"$con"
			rc=1
			break
		fi
		loaded="$m $loaded"
	done
	t_cmd=$(uptime_s)
	if [ "$rc" = 0 ]; then
		(cd "$t" && exec timeout -s KILL "$(cat "$t/.scif-timeout")" sh ./.scif-cmd) \
			</dev/null 2>&1
		rc=$?
	fi
	t_unload=$(uptime_s)
	for m in $loaded; do
		rmmod "$m" >"$con" 2>&1 || echo "@@SCIF-FAIL rmmod $m" >"$con"
	done
	t_reset=$(uptime_s)
	suite_reset
	clean=$?
	t_end=$(uptime_s)
	# where the test's time went, for make check's budget
	echo "suite: $name: modules loaded in $(span "$t_load" "$t_cmd") s," \
		"command $(span "$t_cmd" "$t_unload") s," \
		"unloaded in $(span "$t_unload" "$t_reset") s," \
		"guest put back in $(span "$t_reset" "$t_end") s"
	echo "@@SCIF-TEST-END $name $rc $(($(date +%s) - start))"
	mark "@@SCIF-TEST-END $name"
	if [ "$clean" != 0 ]; then
		echo "@@SCIF-SUITE-STOPPED after $name"
		leak_report
		exit 1
	fi
	suite_sync
done <"$dir/list"
leak_report
exit 0
