#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest, SCIF's loopback node: libfabric with the scif provider.
# fi_info -p scif, fi-scif-test (tests/user/fabric_test.c), then a
# fi_pingpong server and client on this node (control connection over
# 127.0.0.1) through every size it knows (0 bytes to 6 MiB, eager and
# rendezvous) with data checking, as messages and as tagged messages.
# Each step's output is kept and checked here; exits non-zero if any
# check fails.
# the provider's tree in the root while the test runs
. ./root_tree.sh
mkdir fabric-root && tar -xf guest-fabric.tar -C fabric-root &&
	root_tree_add fabric-root || exit 1
trap root_tree_remove EXIT
export FI_PROVIDER=scif
fail=0
pass() { echo "ok - $*"; }
flunk() { echo "not ok - $*"; fail=1; }

echo "---- fi_info -p scif"
fi_info -p scif >info.out 2>&1
rc=$?
cat info.out
if [ "$rc" = 0 ] && grep -q "^    type: FI_EP_RDM" info.out &&
   grep -q "^provider: scif" info.out; then
	pass "fi_info -p scif lists an FI_EP_RDM endpoint"
else
	flunk "fi_info -p scif did not list the provider (exit $rc)"
fi

: >fabric.out
for staging in default 0; do
	if [ "$staging" = 0 ]; then
		echo "---- fi-scif-test, FI_SCIF_RV_STAGING=0 (a registration per message)"
		FI_SCIF_RV_STAGING=0 fi-scif-test >one.out 2>&1
	else
		echo "---- fi-scif-test"
		fi-scif-test >one.out 2>&1
	fi
	rc=$?
	cat one.out
	cat one.out >>fabric.out
	[ "$rc" = 0 ] || flunk "fi-scif-test (staging $staging) exited $rc"
done
if [ "$(grep -Ec "^[0-9]+ checks, 0 failed" fabric.out)" = 2 ] &&
   ! grep -q "^not ok" fabric.out; then
	pass "fi-scif-test passed, with and without FI_SCIF_RV_STAGING"
else
	flunk "fi-scif-test failed"
fi

: >pingpong.out
for mode in msg tagged; do
	echo "---- fi_pingpong -m $mode"
	timeout 900 fi_pingpong -p scif -e rdm -m "$mode" -c -S all -I 3 \
		>server.out 2>&1 &
	srv=$!
	n=0
	while :; do
		rc=0
		out=$(timeout 900 fi_pingpong -p scif -e rdm -m "$mode" -c \
			-S all -I 3 127.0.0.1 2>&1) || rc=$?
		# the server may not listen yet: retry only a refused connection
		echo "$out" | grep -q 'failed to connect' || break
		n=$((n + 1))
		[ "$n" -lt 120 ] || break
		sleep 1
	done
	echo "$out" | tee -a pingpong.out
	srv_rc=0
	wait "$srv" || srv_rc=$?
	sed 's/^/server: /' server.out | tee -a pingpong.out
	if [ "$rc" != 0 ] || [ "$srv_rc" != 0 ]; then
		flunk "fi_pingpong -m $mode: client exited $rc, server $srv_rc"
	fi
done
# one result line per size, mode and side: 0, 1, 2, 3, 4, 6 ... 4m, 6m
n=$(grep -Ec "^(server: )?[0-9.]+[km]? +3 +=3 " pingpong.out)
if [ "$n" = 184 ] && [ "$(grep -Ec "^(server: )?1m +3 +=3 " pingpong.out)" = 4 ]; then
	pass "fi_pingpong completed all 46 sizes in both modes, client and server"
else
	flunk "$n fi_pingpong result lines, not 184"
fi
exit $fail
