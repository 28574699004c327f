#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: the RMA test built -m32, through compat_ioctl.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/cluster" -n 1 -- scif-rma-test32 200
