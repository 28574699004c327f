#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: 64 MiB streamed through send/recv between two processes,
# checked byte for byte and by checksum. (1 GiB: scif-stream-test 1024,
# once the core moves more than ~2 MiB/s under TCG+KASAN.)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/cluster" -n 1 -- scif-stream-test 64
