# SPDX-License-Identifier: GPL-2.0
# Run one SCIF-over-NTB guest test in both window modes of the emulated
# NTB, in one boot: direct (one flat window over the peer's RAM), then
# translated (2 windows of 16 MiB per peer, SCIF's rings through window 0,
# RMA staged by messages). The cluster must reserve window memory for the
# translated windows' homes (--ntb-winmem, 32 MiB per peer) and load at
# most scif.
#
# sh ./scif_modes.sh CMD...: for each mode, load ntb_ivshmem and scif_ntb
# in it, wait for every node, check the mode the links came up in, run CMD
# (with SCIF_MODE set to direct or xlat, and SCIF_NTB_OPTS to the options
# a reload of ntb_ivshmem must give), then meet the other nodes before
# the modules are unloaded.

SCIF_XLAT_MW=16777216

# scif_barrier PORT: return once every node got here. Node 0 collects one
# connection from each other node on PORT, then releases each on PORT + 1.
scif_barrier() {
	local n=$SCIF_NODES j=1

	if [ "$SCIF_NODE_INDEX" = 0 ]; then
		scif-ntb-test serve "$1" $((n - 1)) >/dev/null || return 1
		while [ "$j" -lt "$n" ]; do
			scif-ntb-test echo "$j" $(($1 + 1)) 1 >/dev/null ||
				return 1
			j=$((j + 1))
		done
	else
		scif-ntb-test echo 0 "$1" 1 >/dev/null &&
			scif-ntb-test serve $(($1 + 1)) 1 >/dev/null
	fi
}

# scif_mode_load direct|xlat: (re)load the NTB and SCIF's transport in it.
scif_mode_load() {
	local opts="mw_size=0" want="direct" got

	if [ "$1" = xlat ]; then
		opts="mw_size=$SCIF_XLAT_MW mw_count=2"
		want="translated"
	fi
	export SCIF_NTB_OPTS="$opts"
	rmmod scif_ntb 2>/dev/null
	rmmod ntb_ivshmem 2>/dev/null
	dmesg -c >/dev/null
	# shellcheck disable=SC2086 # two options
	modprobe ntb_ivshmem $opts || return 1
	modprobe scif_ntb || return 1
	scif-ntb-test nodes "$SCIF_NODES" 120 >/dev/null || return 1
	got=$(dmesg | grep -c "SCIF node .* up through port .*, $want" || true)
	if [ "$got" != $((SCIF_NODES - 1)) ]; then
		echo "FAIL: node $SCIF_NODE_INDEX: $got links up in $want mode, want $((SCIF_NODES - 1))"
		dmesg | grep -E "scif|ntb" | tail -20
		return 1
	fi
	echo "node $SCIF_NODE_INDEX: $want mode"
}

modprobe scif || exit 1
for mode in direct xlat; do
	scif_mode_load "$mode" || exit 1
	SCIF_MODE=$mode "$@" || exit 1
	scif_barrier 3900 || exit 1
done
# guest-init unloads only what it loaded (scif): the rest goes here.
rmmod scif_ntb && rmmod ntb_ivshmem
