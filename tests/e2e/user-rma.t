#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest, on the loopback node: every errno of the RMA calls, random
# RMAs checked against shadow copies, fences, and RLIMIT_MEMLOCK (x86_64).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/cluster" -n 1 -- scif-rma-test 400
