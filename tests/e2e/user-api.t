#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: every libscif call and user-mode error code, raw ioctls with
# bad arguments (x86_64).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 -- scif-user-api-test
