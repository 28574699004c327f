#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: scif-info lists the local node, and scif-cat carries a file
# from a connecting process to a listening one unchanged.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 --copy "$top/tests/e2e/guest/scif-cat.sh" -- sh ./scif-cat.sh
