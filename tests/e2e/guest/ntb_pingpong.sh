#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream ntb_pingpong over the emulated NTB: the counter of every guest
# must advance (doorbells, scratchpads and link events all work).
. ./ntb_lib.sh
want=${1:-10}
me=$SCIF_NODE_INDEX

modprobe ntb_pingpong delay_ms=50 || fail "modprobe ntb_pingpong"
c=$(ls /sys/kernel/debug/ntb_pingpong/*/count 2>/dev/null | head -n 1)
[ -f "$c" ] || fail "no ntb_pingpong count file"

count_ge() { [ "$(cat "$c")" -ge "$1" ]; }
wait_for 60 count_ge "$want" || fail "count stuck at $(cat "$c") (< $want)"
echo "node $me: pingpong count reached $(cat "$c")"
# keep answering so that the peers reach their target too
wait_for 10 count_ge $((want * 2)) || true
rmmod ntb_pingpong || fail "rmmod ntb_pingpong"
echo "node $me: ntb_pingpong PASS"
