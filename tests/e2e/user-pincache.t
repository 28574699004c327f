#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest, on the loopback node: SCIF_RMA_USECACHE reuses pinned pages,
# sees new pages after MADV_DONTNEED, munmap+mmap, fork and mprotect, evicts
# least recently used entries, unpins at close, and respects RLIMIT_MEMLOCK.
# swdma is loaded so that the cached pages also go through the DMA path.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 --modules "swdma scif" -- scif-pincache-test
