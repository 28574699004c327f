#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scif-ntb-loss in translated mode (2 x 16 MiB windows per peer): node 1
# dies mid-stream, node 0 sees the loss, node 1 comes back and serves.
top=$(cd "$(dirname "$0")/../.." && pwd)
SCIF_NTB_XLAT=16 exec "$top/tests/e2e/scif-ntb-loss.t"
