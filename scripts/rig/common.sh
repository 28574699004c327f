# SPDX-License-Identifier: GPL-2.0
# Shared settings for the project's scripts. Source it; do not run it.
#
# SCIF_CACHE  where the kernel source, the kernel build and guest images live
#             (outside the work tree so a fresh clone reuses a warm cache).

SCIF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SCIF_CACHE=${SCIF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scif-ntb}
SCIF_KSRC_TAR=/usr/src/linux-source-6.12.tar.xz
SCIF_FRAGMENT=$SCIF_TOP/scripts/rig/kernel.config
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

scif_kernel_key() {
	{
		scif_source_version
		echo recipe-1
		cat "$SCIF_FRAGMENT"
	} | sha256sum | cut -c1-12
}

scif_ksrc() { echo "$SCIF_CACHE/src-$(scif_source_version)/linux-source-6.12"; }
scif_kobj() { echo "$SCIF_CACHE/kernel-$(scif_kernel_key)"; }
