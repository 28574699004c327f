#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two minutes of the soak (scripts/rig/soak, make soak): 4 nodes run the
# mixed load of scif-soak on every pair while node 1 flaps its link, node
# 2 fails allocations and node 3 is killed and booted again; every byte
# checked, no failure, no corruption, no kernel report.
# needs: own-boot (4 nodes, a kill and restart, through scripts/rig/soak)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/soak" --minutes "${SOAK_MINUTES:-2}"
