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

# What fails a guest's run when its console shows it: kernel reports
# (BUG, WARN, Oops, KASAN, UBSAN, lockdep, hung tasks, RCU stalls, panics,
# kmemleak) and the rig's own @@SCIF-FAIL lines.
SCIF_REPORT_PATTERN='BUG:|WARNING:|Oops|KASAN|UBSAN|kmemleak: .*new suspected|unreferenced object|INFO: possible|INFO: task .* blocked|circular locking|inconsistent lock|lock held when returning|Kernel panic|general protection|stack-protector|rcu: INFO|detected stall|@@SCIF-FAIL'

# scif_first_report: read a console on stdin, print its first kernel
# report on one line (nothing if none). A kmemleak report also names the
# task and the innermost frames of the allocation that leaked, below the
# allocator's own, so that a one-line summary says where to look.
scif_first_report() {
	tr -d '\r' | awk -v pat="$SCIF_REPORT_PATTERN" '
		!found && $0 ~ pat {
			found = 1; line = $0
			leak = ($0 ~ /unreferenced object/)
			if (!leak) exit
			next
		}
		found && leak && /comm "/ { sub(/^ */, ""); comm = $0; next }
		found && leak && /backtrace/ { bt = 1; next }
		found && leak && bt {
			if ($0 !~ /^ +[^ ]/ || n >= 5) exit
			f = $1
			if (f ~ /^(kmemleak_|__kmalloc|kmalloc|kmem_cache_|__kmem_cache|slab_|__alloc|alloc_pages|kvmalloc|__kvmalloc|kzalloc)/)
				next
			frames = frames (n++ ? " < " : "") f
		}
		END {
			if (!found) exit
			if (frames != "") line = line " " comm " at " frames
			print line
		}'
}

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

# Where the modules for the selected kernel are built: the work tree for the
# debug kernel; for the speed kernel a copy of it (the out-of-tree build
# writes .ko files beside the sources, and they must not replace the debug
# ones).
scif_modtree() {
	if [ "$SCIF_KERNEL" = speed ]; then
		echo "$SCIF_BUILD/speed-tree"
	else
		echo "$SCIF_TOP"
	fi
}

# Build the project's modules for the selected kernel: the debug kernel's in
# the work tree (what `make` does), the speed kernel's in $(scif_modtree), a
# copy of the sources kept between runs so that kbuild recompiles only what
# changed. Prints the kernel build directory.
scif_build_modules() {
	local kdir tree

	scif_check_kernel_name
	kdir=$("$SCIF_TOP/scripts/rig/build-kernel") || return 1
	tree=$(scif_modtree)
	if [ "$tree" != "$SCIF_TOP" ]; then
		mkdir -p "$tree"
		rsync -a --delete --exclude /build --exclude /.git \
			--include '*/' --include '*.c' --include '*.h' \
			--include Kbuild --include Makefile --exclude '*' \
			"$SCIF_TOP/" "$tree/" || return 1
	fi
	make -s -C "$kdir" M="$tree" modules >&2 || return 1
	echo "$kdir"
}

# One line naming the kernel a run uses, for benchmark and demo headers.
scif_kernel_banner() {
	local kdir=$1
	echo "$SCIF_KERNEL kernel $(cat "$kdir/include/config/kernel.release")" \
		"($(basename "$kdir"))"
}
