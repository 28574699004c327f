#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side, no guest: include/uapi/linux/scif_ioctl.h must describe the same
# binary interface as the distribution's /usr/include/linux/scif_ioctl.h
# (every struct size, member offset, member size and signedness, and every
# request number), both for x86_64 and for i386 (-m32).
# needs: host (no guest)
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -f /usr/include/linux/scif_ioctl.h ] || {
	echo "FAIL: /usr/include/linux/scif_ioctl.h missing (linux-libc-dev)"
	exit 1
}
exec make -s -C "$top/tools" -B check-abi
