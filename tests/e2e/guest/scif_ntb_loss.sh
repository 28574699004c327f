#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node 1 streams to node 0 and is killed mid-stream: node 0's receive and
# send fail with ENODEV/ECONNRESET within the emulated NTB's heartbeat
# timeout and period (ntb_ivshmem's hb_timeout_ms, hb_period_ms) plus 1.5 s
# of the last data, nothing hangs; when node 1 is back, new connections to
# it work.
set -e
scif-ntb-test nodes 2 60
# Run translated (cluster --ntb-xlat): the link must say so.
if [ "${SCIF_NTB_MW:-0}" != 0 ]; then
	dmesg | grep -q 'up through port.*translated' ||
		{ echo "FAIL: the link did not come up translated"; exit 1; }
	echo "node $SCIF_NODE_INDEX: translated mode"
fi
if [ "$SCIF_NODE_INDEX" = 0 ]; then
	scif-ntb-test expect-loss 3000 +1.5
	scif-info -n
	scif-ntb-test nodes 2 120
	scif-ntb-test echo 1 3001 4
elif [ "$SCIF_RESTARTED" = 1 ]; then
	scif-ntb-test serve 3001 4
else
	scif-ntb-test stream 0 3000 100000
fi
