#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The MPSS-style programs of tools/examples/, built against the staged
# installation of libscif (make -C tools examples), on two nodes joined by
# the emulated NTB: node 0 plays the host, node 1 the card. Each example
# checks its own results and exits non-zero on any mismatch; both nodes run
# them in the same order, each under a time limit so that one failing side
# cannot leave the other waiting. They run in both window modes of the NTB
# (tests/e2e/guest/scif_modes.sh); translated, the mmap example is left out
# (remote windows cannot be mapped there).
# The examples are built on the host before the guests' part is run (or
# collected, for a shared boot).
# needs: nodes=2 mem=512 ntb-winmem=32 net
top=$(cd "$(dirname "$0")/../.." && pwd)
examples="pingpong rma mmap fence poll nbconnect"

if ! make -s -C "$top/tools" examples >/dev/null; then
	echo "not ok - the examples build against the installed libscif"
	exit 1
fi
copies=()
for ex in $examples; do
	copies+=(--copy "$top/build/examples/guest/$ex")
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/examples.sh" <<GUEST
fail=0
for ex in $examples; do
	[ "\$SCIF_MODE" = xlat ] && [ "\$ex" = mmap ] && continue
	if timeout 120 ./\$ex; then
		echo "ok - \$ex"
	else
		echo "not ok - \$ex"
		fail=1
	fi
done
exit \$fail
GUEST
"$top/scripts/rig/cluster" --needs "$0" --timeout 900 \
	--modules "swdma scif" "${copies[@]}" \
	--copy "$top/tests/e2e/guest/scif_modes.sh" \
	--copy "$tmp/examples.sh" -- sh ./scif_modes.sh sh ./examples.sh
