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
# tests/manual/libfabric-ntb.sh. The host checks the provider's exports
# before the boot; the guest checks its own output
# (tests/e2e/guest/libfabric_loop.sh), so that the test shares its boot.
# needs: nodes=1
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
[ "$fail" = 0 ] || exit 1
rm -rf "$tmp"

exec "$top/scripts/rig/cluster" --needs "$0" --timeout 1000 --modules scif \
	--copy "$top/build/guest-fabric.tar" \
	--copy "$top/tests/e2e/guest/root_tree.sh" \
	--copy "$top/tests/e2e/guest/libfabric_loop.sh" \
	-- sh ./libfabric_loop.sh
