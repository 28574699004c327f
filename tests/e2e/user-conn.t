#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: 1,000 simultaneous loopback connections, each carrying its own
# data.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 -- scif-conn-test 1000
