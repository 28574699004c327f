# SPDX-License-Identifier: GPL-2.0
# Shared settings for the project's scripts. Source it; do not run it.
#
# SCIF_CACHE  where the kernel source, the kernel build and guest images live
#             (outside the work tree so a fresh clone reuses a warm cache).
# SCIF_KERNEL which test kernel: "debug" (default; KASAN, UBSAN, lockdep,
#             kmemleak) or "speed" (the same fragment with the debug options
#             switched off by kernel-speed.config, for benchmarks).

SCIF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SCIF_CACHE=${SCIF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scif-ntb}
SCIF_KSRC_TAR=/usr/src/linux-source-6.12.tar.xz
SCIF_FRAGMENT=$SCIF_TOP/scripts/rig/kernel.config
SCIF_SPEED_FRAGMENT=$SCIF_TOP/scripts/rig/kernel-speed.config
SCIF_KERNEL=${SCIF_KERNEL:-debug}
SCIF_BUILD=$SCIF_TOP/build

die() {
	echo "error: $*" >&2
	exit 1
}

# Version of the Debian kernel source package, part of the cache key.
scif_source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		echo unknown
}

# The debug key must stay what it always was (a changed key rebuilds the
# kernel for everyone): the speed kernel only appends to the hashed input.
scif_kernel_key() {
	{
		scif_source_version
		echo recipe-1
		cat "$SCIF_FRAGMENT"
		if [ "$SCIF_KERNEL" = speed ]; then
			echo speed-1
			cat "$SCIF_SPEED_FRAGMENT"
		fi
	} | sha256sum | cut -c1-12
}

scif_check_kernel_name() {
	case "$SCIF_KERNEL" in
	debug|speed) ;;
	*) die "SCIF_KERNEL must be debug or speed, not '$SCIF_KERNEL'" ;;
	esac
}

# The fragments merged for the selected kernel, in order (later ones win).
scif_fragments() {
	echo "$SCIF_FRAGMENT"
	[ "$SCIF_KERNEL" != speed ] || echo "$SCIF_SPEED_FRAGMENT"
}

scif_ksrc() { echo "$SCIF_CACHE/src-$(scif_source_version)/linux-source-6.12"; }
# Debug builds are kernel-KEY (as before); speed builds use another prefix so
# that older scripts, which prune and seed from kernel-*, never touch them.
scif_kobj() {
	if [ "$SCIF_KERNEL" = speed ]; then
		echo "$SCIF_CACHE/speed-kernel-$(scif_kernel_key)"
	else
		echo "$SCIF_CACHE/kernel-$(scif_kernel_key)"
	fi
}
