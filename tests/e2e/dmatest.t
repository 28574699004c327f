#!/usr/bin/env bash
# upstream dmatest over every channel of swdma.ko (the software dmaengine
# provider), then swdma's parameter bounds and a reload with 32 channels.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/scripts/rig/cluster" -n 1 --modules "swdma dmatest" --timeout 420 \
	--copy "$top/tests/e2e/guest/dmatest.sh" -- sh ./dmatest.sh 1000 2
