#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest, on the loopback node: every errno of the RMA calls, random
# RMAs checked against shadow copies, fences, and RLIMIT_MEMLOCK (x86_64).
top=$(cd "$(dirname "$0")/../.." && pwd)
# swdma gives the RMAs without SCIF_RMA_USECPU a DMA engine; scif keeps the
# channels it took until unload, so one in use shows the DMA path ran.
exec "$top/scripts/rig/cluster" -n 1 --modules "swdma scif" -- sh -c 'scif-rma-test 400 &&
	for c in /sys/class/dma/*/in_use; do
		[ "$(cat "$c")" = 1 ] && exit 0
	done
	echo "no DMA channel in use: the DMA path was not taken"; exit 1'
