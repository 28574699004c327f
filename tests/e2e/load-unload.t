#!/usr/bin/env bash
# scif.ko loads, registers /dev/scif and unloads cleanly 100 times; the
# guest's kmemleak scan at the end must find nothing.
# needs: nodes=1
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --modules "" \
	--copy "$top/tests/e2e/guest/load-unload.sh" -- sh ./load-unload.sh 100
