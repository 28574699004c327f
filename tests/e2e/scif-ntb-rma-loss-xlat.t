#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scif-ntb-rma-loss on translated windows (2 x 16 MiB per peer): node 0 is
# killed while node 1's staged RMAs are waiting for its answers; they end
# with ENODEV once the loss is seen, and nothing stays pinned.
# needs: own-boot (runs scif-ntb-rma-loss.t with SCIF_NTB_XLAT=16)
top=$(cd "$(dirname "$0")/../.." && pwd)
SCIF_NTB_XLAT=16 exec "$top/tests/e2e/scif-ntb-rma-loss.t"
