#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two nodes over the emulated NTB: each maps the other's window, reads and
# writes are checked both ways; then node 1 is killed while node 0 has its
# window mapped, and node 0's accesses must get SIGBUS.
set -e
scif-ntb-test nodes 2 60
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	scif-mmap-test client 1 3100
	scif-mmap-test survivor 1 3101
else
	scif-mmap-test server 3100
	scif-mmap-test victim 3101
fi
