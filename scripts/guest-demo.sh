#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows inside the guest.
echo "kernel: $(uname -r)"
echo "loaded modules:"
grep -E '^(scif|ntb|swdma)' /proc/modules | sed 's/^/  /'
echo "the SCIF character device:"
ls -l /dev/scif | sed 's/^/  /'
echo "misc minor: $(cat /sys/class/misc/scif/dev)"
if command -v scif-info >/dev/null; then
	echo "scif-info:"
	scif-info | sed 's/^/  /'
fi
if command -v scif-cat >/dev/null; then
	echo "a message sent to this node over SCIF loopback:"
	scif-cat -l 2000 >/tmp/got &
	sleep 1
	echo "hello over SCIF" | scif-cat 0 2000
	wait
	sed 's/^/  received: /' /tmp/got
fi
