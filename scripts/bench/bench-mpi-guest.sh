#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The MPI step of make bench, run inside both guests (scripts/bench/bench
# copies it in with the trees of tests/e2e/mpi2.t: Open MPI, the scif
# provider, mpi-check, rig-rsh; Documentation/benchmarks.rst).
#
#   sh bench-mpi-guest.sh setup     once: link the trees into the root,
#                                   start rig-rshd
#   sh bench-mpi-guest.sh run R     round R: on node 0, "mpi-check
#                                   pingpong" between the two guests
#                                   three ways, one rank per guest, each
#                                   row tagged; node 1 waits until node 0
#                                   says it is done, with node 0's status
#
# The three ways (mpirun launches through rig-rsh on the virtual LAN,
# 10.0.0.0/24, which also carries Open MPI's out-of-band channel):
#   @@MPISCIF   pml cm, mtl ofi, libfabric's provider scif (the NTB);
#               scif and scif_ntb must be loaded and the nodes online
#   @@MPITCP    pml ob1, btl self,tcp over virtio-net
#   @@MPIOFITCP pml cm, mtl ofi, libfabric's tcp provider (with its
#               ofi_rxm layer) over virtio-net
# Every rank polls for completions (FI_SCIF_IDLE_WAIT_US unset: 0).
# MPI_PP_SECONDS (default 0.3) and MPI_PP_ITERS (2000) are passed to
# mpi-check pingpong: seconds per size, at most that many iterations.
i=$SCIF_NODE_INDEX
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HOME=/tmp

case "$1" in
setup)
	for d in guest-mpi-root/*; do
		cp -alf "$d" / || exit 1
	done
	mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm || exit 1
	rig-rshd </dev/null >/dev/null 2>&1 &
	exit 0
	;;
run)
	r=$2
	;;
*)
	echo "usage: bench-mpi-guest.sh setup | run ROUND" >&2
	exit 2
	;;
esac

if [ "$i" != 0 ]; then
	t=0
	while [ ! -e "/tmp/mpi-done.$r" ]; do
		t=$((t + 1))
		[ "$t" -lt 900 ] || { echo "FAIL: node 0 never finished the MPI step"; exit 1; }
		sleep 1
	done
	exit "$(cat "/tmp/mpi-done.$r")"
fi

echo "10.0.0.1 slots=1" >/tmp/mpi-hosts
echo "10.0.0.2 slots=1" >>/tmp/mpi-hosts
t=0
until [ "$(rig-rsh 10.0.0.2 echo up 2>/dev/null)" = up ]; do
	t=$((t + 1))
	[ "$t" -lt 60 ] || { echo "FAIL: no rig-rshd on node 1"; exit 1; }
	sleep 1
done

# pp TAG MPIRUN-ARGS...: one mpirun of the ping-pong, its rows tagged
pp() {
	tag=$1
	shift
	timeout 600 mpirun -np 2 --hostfile /tmp/mpi-hosts --map-by node \
		--mca plm_rsh_agent rig-rsh --mca plm_rsh_no_tree_spawn 1 \
		--mca oob_tcp_if_include 10.0.0.0/24 "$@" \
		mpi-check pingpong "${MPI_PP_SECONDS:-0.3}" "${MPI_PP_ITERS:-2000}" \
		>/tmp/mpi.out 2>&1
	rc=$?
	sed "s/^/$tag /" /tmp/mpi.out
	[ "$rc" = 0 ] || echo "FAIL: $tag: mpirun exited $rc"
	return "$rc"
}

rc=0
echo "@@STEP MPISCIF"
pp @@MPISCIF --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include scif \
	--mca btl self --mca osc pt2pt -x FI_PROVIDER=scif || rc=1
echo "@@STEP MPITCP"
pp @@MPITCP --mca pml ob1 --mca btl self,tcp \
	--mca btl_tcp_if_include 10.0.0.0/24 || rc=1
echo "@@STEP MPIOFITCP"
pp @@MPIOFITCP --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include tcp \
	--mca btl self --mca osc pt2pt -x FI_PROVIDER=tcp -x FI_TCP_IFACE=eth0 || rc=1
rig-rsh 10.0.0.2 "echo $rc >/tmp/mpi-done.$r" || rc=1
exit "$rc"
