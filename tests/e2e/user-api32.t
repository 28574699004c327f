#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: the same API test built -m32, through compat_ioctl.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 -- scif-user-api-test32
