#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's Open MPI across all guests of the emulated NTB (tests/e2e/mpi2.t
# and mpi4.t, Documentation/libfabric.rst): the cm PML over the ofi MTL,
# restricted to libfabric's scif provider, one rank per guest. Node 0 runs mpirun; every
# node runs rig-rshd, through which mpirun (plm_rsh_agent=rig-rsh) starts
# orted on the others over the rig's virtual LAN (eth0, 10.0.0.0/24),
# which also carries Open MPI's out-of-band channel. MPI data goes over
# SCIF only. The other nodes wait until node 0 tells them it is done.
set -e
i=$SCIF_NODE_INDEX
n=$SCIF_NODES
t_start=$(date +%s)
echo "node $i: booted in $(cut -d. -f1 /proc/uptime) s"
# the trees of the provider and of Open MPI, hard-linked into the root
# and taken out again at the end, as is the /dev/shm this mounts
. ./root_tree.sh
trap 'umount /dev/shm 2>/dev/null; root_tree_remove' EXIT
root_tree_add guest-mpi-root
echo "node $i: trees linked in $(($(date +%s) - t_start)) s"
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
export FI_PROVIDER=scif
# Four busy-polling ranks on TCG guests would take the host's few CPUs
# from each other: let an idle rank sleep on its SCIF descriptors.
export FI_SCIF_IDLE_WAIT_US=1000
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HOME=/tmp
rig-rshd &
scif-ntb-test nodes "$n" 60
echo "node $i: all SCIF nodes online after $(($(date +%s) - t_start)) s"
if [ "$i" != 0 ]; then
	t=0
	while [ ! -e /tmp/mpi-done ]; do
		t=$((t + 1))
		[ "$t" -lt 600 ] || { echo "node $i: node 0 never finished"; exit 1; }
		sleep 1
	done
	exit "$(cat /tmp/mpi-done)"
fi

: >hosts
for j in $(seq 1 "$n"); do
	echo "10.0.0.$j slots=1" >>hosts
done
# every rig-rshd answers before mpirun needs them
for j in $(seq 2 "$n"); do
	t=0
	until [ "$(rig-rsh "10.0.0.$j" echo up 2>/dev/null)" = up ]; do
		t=$((t + 1))
		[ "$t" -lt 60 ] || { echo "node $j: no rig-rshd"; exit 1; }
		sleep 1
	done
done

echo "setup (trees, SCIF nodes, rig-rshd) took $(($(date +%s) - t_start)) s"
rc=0
echo "---- mpirun -np $n mpi-check"
t0=$(date +%s)
timeout 240 mpirun -np "$n" --hostfile hosts --map-by node \
	--mca plm_rsh_agent rig-rsh --mca plm_rsh_no_tree_spawn 1 \
	--mca oob_tcp_if_include 10.0.0.0/24 \
	--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include scif \
	--mca btl self --mca osc pt2pt -x FI_PROVIDER -x FI_SCIF_IDLE_WAIT_US \
	mpi-check >mpi-check.out 2>&1 || { echo "mpirun exited $?"; rc=1; }
cat mpi-check.out
echo "mpirun took $(($(date +%s) - t0)) s"
# rank 0's summaries of every rank's checks, one per part
for part in p2p coll pingpong; do
	grep -Eq "^$part: [1-9][0-9]* checks, 0 failed" mpi-check.out ||
		{ echo "$part: no passing summary"; rc=1; }
done
for j in $(seq 2 "$n"); do
	rig-rsh "10.0.0.$j" "echo $rc >/tmp/mpi-done" || true
done
exit "$rc"
