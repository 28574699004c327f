# SPDX-License-Identifier: GPL-2.0
# Topologies of 2-port NTB devices (scripts/rig/cluster --topology).
# Sourced by scripts/rig/cluster after ntb-mesh.sh; do not run it.
#
# "mesh" is ntb-mesh.sh's single multi-port device per guest. The other
# topologies join guests by links, each its own 2-port emulated NTB, as
# hosts joined by one NTB adapter per neighbour are:
#   star   guest 0 is the hub, linked to every other guest
#   chain  guest i linked to guest i + 1
#   ring   the chain, and the last guest linked to guest 0 (N >= 3)
#
# Link K between guests A < B has its own register region
# $RUNDIR/link-K/ntb-regs, written for 2 nodes. Each side sees the link on
# a PCI bridge of its own (bus 0 slot 0x08 + the link's place among the
# guest's links), and behind it the ntb-mesh.sh layout of a 2-node mesh:
# the register region at slot 0x18 + its side (A is side 0, B side 1) and
# the other side's RAM at slot 0x10 + the other side. The driver finds the
# devices of one NTB on one bus, so every bridge is one NTB device.

NTB_TOPO_BRIDGE_SLOT=8

# topo_check TOPOLOGY N: fail with a message unless the topology takes N
# guests.
topo_check() {
	case "$1" in
	mesh) ;;
	star | chain)
		[ "$2" -ge 2 ] || { echo "topology $1 needs -n 2 or more" >&2; return 1; } ;;
	ring)
		[ "$2" -ge 3 ] || { echo "topology ring needs -n 3 or more" >&2; return 1; } ;;
	*)
		echo "unknown topology '$1' (mesh, star, chain or ring)" >&2
		return 1 ;;
	esac
}

# topo_links TOPOLOGY N: the links, one "A B" line each (A < B), in order.
topo_links() {
	local topo=$1 n=$2 i

	case "$topo" in
	star)
		for ((i = 1; i < n; i++)); do echo "0 $i"; done ;;
	chain | ring)
		for ((i = 0; i + 1 < n; i++)); do echo "$i $((i + 1))"; done
		[ "$topo" = ring ] && echo "0 $((n - 1))" ;;
	esac
	return 0
}

# topo_prepare RUNDIR TOPOLOGY N MEM_MB: a register region per link (after
# mesh_prepare, which made the RAM files and checked MEM_MB).
topo_prepare() {
	local rundir=$1 topo=$2 n=$3 mem=$4 k=0 a b

	while read -r a b; do
		mkdir -p "$rundir/link-$k" || return 1
		mesh_write_regs "$rundir/link-$k/ntb-regs" 2 "$mem" 0 || return 1
		k=$((k + 1))
	done < <(topo_links "$topo" "$n")
}

# topo_qemu_args RUNDIR TOPOLOGY N I MEM_MB: extra QEMU arguments for guest
# I, one per line: a bridge per link of I, and the link's two devices.
topo_qemu_args() {
	local rundir=$1 topo=$2 n=$3 i=$4 mem=$5 k=0 local_k=0 a b side peer br

	while read -r a b; do
		if [ "$a" = "$i" ]; then
			side=0 peer=$b
		elif [ "$b" = "$i" ]; then
			side=1 peer=$a
		else
			k=$((k + 1))
			continue
		fi
		br=ntbbr$local_k
		printf -- '-device\npci-bridge,id=%s,chassis_nr=%d,addr=%#x\n' \
			"$br" $((local_k + 1)) $((NTB_TOPO_BRIDGE_SLOT + local_k))
		printf -- '-object\nmemory-backend-file,id=ntbregs%d,mem-path=%s,share=on,size=%d\n' \
			"$k" "$rundir/link-$k/ntb-regs" "$NTB_MESH_REGS_SIZE"
		printf -- '-device\nivshmem-plain,memdev=ntbregs%d,bus=%s,addr=%#x\n' \
			"$k" "$br" $((0x18 + side))
		printf -- '-object\nmemory-backend-file,id=ntbpeer%d,mem-path=%s,share=on,size=%dM\n' \
			"$peer" "$rundir/ram-$peer" "$mem"
		printf -- '-device\nivshmem-plain,memdev=ntbpeer%d,bus=%s,addr=%#x\n' \
			"$peer" "$br" $((0x10 + 1 - side))
		k=$((k + 1))
		local_k=$((local_k + 1))
	done < <(topo_links "$topo" "$n")
}
