#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Debian's Open MPI (cm PML, ofi MTL, libfabric's scif provider) across
# 4 guests of the emulated NTB, one rank per guest, launched without ssh
# (rig-rsh over the rig's virtual LAN): the point-to-point and collective
# parts of tests/mpi/'s test program and a short ping-pong (ranks 0 and 1)
# in one job, data checked by every rank.
# tests/e2e/guest/mpi.sh runs them; tests/e2e/mpi2.t on 2 guests.
# needs: nodes=4 mem=512 smp=1 net
top=$(cd "$(dirname "$0")/../.." && pwd)
# both guest trees unpacked here, so that the guest links their files
# into its root instead of unpacking 30 MB on a busy vCPU
root=$top/build/guest-mpi-root
make -s -C "$top/tools/libfabric" guest-tar >/dev/null &&
	make -s -C "$top/tests/mpi" guest-tar >/dev/null &&
	rm -rf "$root" && mkdir -p "$root" &&
	tar -xf "$top/build/guest-fabric.tar" -C "$root" &&
	tar -xf "$top/build/guest-mpi.tar" -C "$root" ||
	{ echo "FAIL: cannot build the guest trees (scripts/rig/install-deps)"; exit 1; }
exec "$top/scripts/rig/cluster" --needs "$0" --timeout 420 \
	--modules "ntb_ivshmem scif scif_ntb" \
	--copy "$root" \
	--copy "$top/tests/e2e/guest/root_tree.sh" \
	--copy "$top/tests/e2e/guest/mpi.sh" -- sh ./mpi.sh
