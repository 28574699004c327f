#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# libfabric's "scif" provider (tools/libfabric, Documentation/libfabric.rst)
# in one guest, through SCIF's loopback node:
#   - the provider exports fi_prov_ini() and nothing else;
#   - in the guest (Debian's libfabric, fi_info and fi_pingpong unpacked
#     next to this host's C library, the provider in libfabric's provider
#     directory) fi_info -p scif describes an FI_EP_RDM endpoint;
#   - fi-scif-test (tests/user/fabric_test.c) passes: tag matching,
#     unexpected messages, FI_PEEK/FI_CLAIM, truncation, cancel, RMA,
#     remote CQ data, counters, the staged rendezvous; once as it comes
#     and once with FI_SCIF_RV_STAGING=0 (a registration per message);
#   - fi_pingpong -e rdm -c -S all (0 bytes to 6 MiB, checked data, both
#     the eager and the rendezvous path) passes as messages and as tagged
#     messages, every size on both sides.
# The same between two guests over the emulated NTB is
# tests/manual/libfabric-ntb.sh.
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

"$top/scripts/rig/cluster" -n 1 --mem 512 --timeout 1000 --modules scif \
	--copy "$top/build/guest-fabric.tar" \
	--copy "$top/tests/e2e/guest/libfabric_loop.sh" \
	-- sh ./libfabric_loop.sh | tee "$tmp/out"
if [ "${PIPESTATUS[0]}" = 0 ]; then
	pass "the guest ran fi_info, fi-scif-test and fi_pingpong over scif"
else
	flunk "the guest run failed"
fi
tr -d '\r' <"$tmp/out" >"$tmp/out.txt"
if grep -q "^    type: FI_EP_RDM" "$tmp/out.txt" &&
   grep -q "^provider: scif" "$tmp/out.txt"; then
	pass "fi_info -p scif lists an FI_EP_RDM endpoint"
else
	flunk "fi_info -p scif did not list the provider"
fi
if [ "$(grep -Ec "^[0-9]+ checks, 0 failed" "$tmp/out.txt")" = 2 ] &&
   ! grep -q "^not ok" "$tmp/out.txt"; then
	pass "fi-scif-test passed, with and without FI_SCIF_RV_STAGING"
else
	flunk "fi-scif-test failed"
fi
# one result line per size, mode and side: 0, 1, 2, 3, 4, 6 ... 4m, 6m
n=$(grep -Ec "^(server: )?[0-9.]+[km]? +3 +=3 " "$tmp/out.txt")
if [ "$n" = 184 ] && [ "$(grep -Ec "^(server: )?1m +3 +=3 " "$tmp/out.txt")" = 4 ]; then
	pass "fi_pingpong completed all 46 sizes in both modes, client and server"
else
	flunk "$n fi_pingpong result lines, not 184"
fi
[ "$fail" = 0 ]
