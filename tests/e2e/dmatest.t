#!/usr/bin/env bash
# upstream dmatest over every channel of swdma.ko (the software dmaengine
# provider), then swdma's parameter bounds and a reload with 32 channels.
# needs: nodes=1
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" --needs "$0" --modules "swdma dmatest" --timeout 420 \
	--copy "$top/tests/e2e/guest/dmatest.sh" -- sh ./dmatest.sh 1000 2
