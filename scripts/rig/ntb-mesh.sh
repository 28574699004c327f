# SPDX-License-Identifier: GPL-2.0
# Wiring of the emulated NTB (drivers/ntb/hw/ivshmem) into a QEMU cluster.
# Sourced by scripts/rig/cluster; do not run it.
#
# Every guest I of an N-guest cluster gets, on PCI bus 0:
#   slot 0x18+I  ivshmem-plain over $RUNDIR/ntb-regs (register region,
#                shared by all guests; header written here, slots by guests)
#   slot 0x10+J  ivshmem-plain over $RUNDIR/ram-J for every peer J != I
#                (peer J's whole RAM: the memory window towards J)
# MEM_MB must be a power of two (it becomes a PCI BAR) and at most 2048
# (guest physical address == RAM file offset only below the PCI hole).
#
# Bad-input tests: SCIF_MESH_CORRUPT=magic or =version writes a header with
# a wrong magic (0xdeadbeef) or version (99); NTB_MESH_MAGIC /
# NTB_MESH_VERSION set either field to any value.

NTB_MESH_REGS_SIZE=65536
NTB_MESH_SLOT_SIZE=4096

# mesh_write_regs PATH N MEM_MB WINMEM_MB: a register region for N nodes
# whose RAM is MEM_MB, with WINMEM_MB of window memory.
mesh_write_regs() {
	local path=$1 n=$2 mem=$3 winmem=$4
	local magic=${NTB_MESH_MAGIC:-0x4e54564e} version=${NTB_MESH_VERSION:-1}

	case "${SCIF_MESH_CORRUPT:-}" in
	"") ;;
	magic) magic=0xdeadbeef ;;
	version) version=99 ;;
	*)
		echo "ntb-mesh: SCIF_MESH_CORRUPT must be magic or version (got $SCIF_MESH_CORRUPT)" >&2
		return 1 ;;
	esac
	python3 - "$path" "$n" "$mem" "$NTB_MESH_REGS_SIZE" \
		"$NTB_MESH_SLOT_SIZE" "$magic" "$version" "$winmem" <<'PY'
import struct, sys
path, n, mem, size, slot, magic, ver, winmem = sys.argv[1:]
n, mem, size, slot = int(n), int(mem), int(size), int(slot)
ram = mem << 20
hdr = struct.pack('<IIIIIIII', int(magic, 0), int(ver, 0), n, slot, slot,
                  int(winmem) << 20, ram & 0xffffffff, ram >> 32)
with open(path, 'wb') as f:
    f.write(hdr + bytes(size - len(hdr)))
PY
}

# mesh_prepare RUNDIR N MEM_MB [WINMEM_MB]: create the register region and
# RAM files. WINMEM_MB (default 0) is window memory: the top of every
# guest's RAM, which the guest must boot with reserved (mesh_cmdline), where
# translated windows have their homes (Documentation/ntb-emulation.rst).
mesh_prepare() {
	local rundir=$1 n=$2 mem=$3 winmem=${4:-0} j

	if [ "$mem" -gt 2048 ] || [ $((mem & (mem - 1))) -ne 0 ]; then
		echo "ntb-mesh: guest memory must be a power of two <= 2048 MiB (got $mem)" >&2
		return 1
	fi
	if ! [[ "$winmem" =~ ^[0-9]+$ ]] || [ "$winmem" -gt $((mem / 2)) ]; then
		echo "ntb-mesh: window memory must be 0..$((mem / 2)) MiB (got $winmem)" >&2
		return 1
	fi
	mesh_write_regs "$rundir/ntb-regs" "$n" "$mem" "$winmem" || return 1
	# peers map each other's RAM files, possibly before their owner starts
	for ((j = 0; j < n; j++)); do
		[ -e "$rundir/ram-$j" ] || truncate -s "${mem}M" "$rundir/ram-$j" ||
			return 1
	done
}

# mesh_cmdline MEM_MB WINMEM_MB: kernel arguments that keep the guest off
# its window memory (none without window memory).
mesh_cmdline() {
	local mem=$1 winmem=${2:-0}

	[ "$winmem" -gt 0 ] || return 0
	printf 'memmap=%dM$%dM\n' "$winmem" $((mem - winmem))
}

# mesh_qemu_args RUNDIR N I MEM_MB: extra QEMU arguments for guest I.
mesh_qemu_args() {
	local rundir=$1 n=$2 i=$3 mem=$4 j

	printf -- '-object\nmemory-backend-file,id=ntbregs,mem-path=%s,share=on,size=%d\n' \
		"$rundir/ntb-regs" "$NTB_MESH_REGS_SIZE"
	printf -- '-device\nivshmem-plain,memdev=ntbregs,addr=%#x\n' $((0x18 + i))
	for ((j = 0; j < n; j++)); do
		[ "$j" = "$i" ] && continue
		printf -- '-object\nmemory-backend-file,id=ntbpeer%d,mem-path=%s,share=on,size=%dM\n' \
			"$j" "$rundir/ram-$j" "$mem"
		printf -- '-device\nivshmem-plain,memdev=ntbpeer%d,addr=%#x\n' \
			"$j" $((0x10 + j))
	done
}
