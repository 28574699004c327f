#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest, SCIF's loopback node: libfabric with the scif provider.
# fi_info -p scif, fi-scif-test (tests/user/fabric_test.c), then a
# fi_pingpong server and client on this node (control connection over
# 127.0.0.1) through every size it knows (0 bytes to 6 MiB, eager and
# rendezvous) with data checking, as messages and as tagged messages.
set -e
tar -xf guest-fabric.tar -C /
export FI_PROVIDER=scif
echo "---- fi_info -p scif"
fi_info -p scif
echo "---- fi-scif-test"
fi-scif-test
echo "---- fi-scif-test, FI_SCIF_RV_STAGING=0 (a registration per message)"
FI_SCIF_RV_STAGING=0 fi-scif-test
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
	echo "$out"
	srv_rc=0
	wait "$srv" || srv_rc=$?
	sed 's/^/server: /' server.out
	if [ "$rc" != 0 ] || [ "$srv_rc" != 0 ]; then
		echo "fi_pingpong -m $mode: client exited $rc, server $srv_rc"
		exit 1
	fi
done
echo "fi_pingpong over scif passed, msg and tagged"
