#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: scif_poll, poll, select and epoll over 64 connected pairs.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 -- scif-poll-test 64
