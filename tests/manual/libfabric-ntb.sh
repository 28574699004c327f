#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run by hand (bash tests/manual/libfabric-ntb.sh), not by make check:
# libfabric's "scif" provider (tools/libfabric, Documentation/libfabric.rst)
# between two guests over the emulated NTB, direct mode. On a host loaded
# far beyond its CPUs the emulated NTB link can go down and up again under
# the guests (dmesg: "SCIF node 0 (port 0) down"); the connection then
# fails with ENODEV, or, when only a receive was pending, fi_pingpong waits
# until its timeout: a lost peer is not retried. tests/e2e/libfabric.t runs
# the same programs on one guest's loopback node. What this checks:
#   - the provider exports fi_prov_ini() and nothing else;
#   - in each guest (Debian's libfabric, fi_info and fi_pingpong unpacked
#     next to this host's C library, the provider in libfabric's provider
#     directory) fi_info -p scif describes an FI_EP_RDM endpoint, and
#     fi-scif-test (tests/user/fabric_test.c) passes on the node's own
#     loopback: tag matching, unexpected messages, FI_PEEK/FI_CLAIM,
#     truncation, cancel, RMA, remote CQ data, counters;
#   - fi_pingpong -e rdm -c -S all (0 bytes to 6 MiB, checked data, both
#     the eager and the rendezvous path) passes as messages and as tagged
#     messages, every size on both sides.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass() { echo "ok - $*"; }
flunk() { echo "not ok - $*"; fail=1; }

if ! make -s -C "$top/tools/libfabric" guest-tar >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log"
	echo "FAIL: cannot build the provider (scripts/rig/install-deps installs libfabric-dev and libfabric-bin)"
	exit 1
fi
syms=$(nm -D --defined-only "$top/build/tools/libfabric/libscif-fi.so" | awk '{ print $3 }' | xargs)
if [ "$syms" = fi_prov_ini ]; then
	pass "libscif-fi.so exports fi_prov_ini only"
else
	flunk "libscif-fi.so exports: $syms"
fi

"$top/scripts/rig/cluster" -n 2 --net --mem 512 --timeout 1000 \
	--modules "ntb_ivshmem scif scif_ntb" \
	--copy "$top/build/guest-fabric.tar" \
	--copy "$top/tests/e2e/guest/libfabric.sh" \
	-- sh ./libfabric.sh | tee "$tmp/out"
if [ "${PIPESTATUS[0]}" = 0 ]; then
	pass "both guests ran fi_info and fi_pingpong over scif"
else
	flunk "the guest run failed"
fi
tr -d '\r' <"$tmp/out" >"$tmp/out.txt"
for i in 0 1; do
	if grep -q "^\[$i\]     type: FI_EP_RDM" "$tmp/out.txt" &&
	   grep -q "^\[$i\] provider: scif" "$tmp/out.txt"; then
		pass "guest $i: fi_info -p scif lists an FI_EP_RDM endpoint"
	else
		flunk "guest $i: fi_info -p scif did not list the provider"
	fi
	if grep -Eq "^\[$i\] [0-9]+ checks, 0 failed" "$tmp/out.txt" &&
	   ! grep -q "^\[$i\] not ok" "$tmp/out.txt"; then
		pass "guest $i: fi-scif-test passed"
	else
		flunk "guest $i: fi-scif-test failed"
	fi
	# one result line per size and mode: 0, 1, 2, 3, 4, 6 ... 4m, 6m
	n=$(grep -Ec "^\[$i\] [0-9.]+[km]? +3 +=3 " "$tmp/out.txt")
	if [ "$n" = 92 ] && [ "$(grep -Ec "^\[$i\] 1m +3 +=3 " "$tmp/out.txt")" = 2 ]; then
		pass "guest $i: fi_pingpong completed all 46 sizes in both modes"
	else
		flunk "guest $i: $n fi_pingpong result lines, not 92"
	fi
done
[ "$fail" = 0 ]
