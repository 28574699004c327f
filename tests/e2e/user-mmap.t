#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest, on the loopback node: scif_mmap() of the peer's windows in
# both directions checked against scif_readfrom/scif_writeto, its errnos,
# the peer's unregister deferred while mapped, SIGBUS after the peer closes.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 --timeout 300 -- scif-mmap-test
