#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Translated memory windows of the emulated NTB, driven by upstream
# ntb_tool: bad window parameters are refused; each node opens its inbound
# window 1 onto a buffer of its own, the peer reaches exactly that buffer
# through its outbound window 1 (read and write), and window 0, never
# opened, cannot be mapped.
. ./ntb_lib.sh
me=$SCIF_NODE_INDEX
mws=1048576

modprobe ntb_ivshmem mw_size=12345 2>/dev/null &&
	fail "mw_size=12345 accepted"
dmesg | grep -q "refusing: mw_size=12345" || fail "no refusal line for mw_size"
modprobe ntb_ivshmem mw_size=$mws mw_count=2 || fail "modprobe ntb_ivshmem"
dmesg | grep -q "2 translated windows of 1024 KiB per peer" ||
	fail "no translated-mode probe line"
# The host announced window memory that this guest uses as RAM: refused
# with one warning, the windows have no home (ntb_tool gives them buffers).
if [ "$SCIF_WINMEM_RAM" = 1 ]; then
	[ "$(dmesg | grep -c 'is RAM of this guest')" = 1 ] ||
		fail "window memory in RAM: no single warning"
	echo "node $me: window memory in RAM refused"
fi
modprobe ntb_tool || fail "modprobe ntb_tool"
# ntb_tool (6.12) frees its debugfs tree before the files of open
# windows on unload (use after free): close the windows first.
cleanup() {
	[ -n "$p" ] && echo "0:0" >"$p/peer_mw_trans1" 2>/dev/null
	[ -n "$p" ] && echo 0 >"$p/mw_trans1" 2>/dev/null
	rmmod ntb_tool
	rmmod ntb_ivshmem
}
p=
trap cleanup EXIT

d=$(ls -d /sys/kernel/debug/ntb_tool/* 2>/dev/null | head -n 1)
[ -d "$d" ] || fail "no ntb_tool debugfs directory"
p=$d/peer0
for f in mw_trans0 mw_trans1 peer_mw_trans0 peer_mw_trans1; do
	[ -e "$p/$f" ] || fail "no $f: wrong window count"
done
[ -e "$p/mw_trans2" ] && fail "a third inbound window"

echo Y >"$d/link" || fail "link enable"
wait_for 20 file_is "$p/link" Y || fail "link did not come up"

# open inbound window 1 onto a fresh 1 MiB buffer and fill its start
echo $mws >"$p/mw_trans1" || fail "set translation of window 1"
printf 'owner-%d.' "$me" >"$p/mw1" || fail "write own buffer"
echo 1 >"$p/spad1" || fail "peer spad write"
wait_for 60 file_is "$d/spad1" 1 || fail "peer never opened its window"

# window 0 was never opened by the peer: no mapping
echo "0:$mws" >"$p/peer_mw_trans0" 2>/dev/null &&
	fail "mapped window 0 the peer never opened"
# larger than the peer's window: refused
echo "0:$((mws * 2))" >"$p/peer_mw_trans1" 2>/dev/null &&
	fail "mapped more than the peer opened"
echo "0:$mws" >"$p/peer_mw_trans1" || fail "map window 1"
cat "$p/peer_mw_trans1"
got=$(head -c 8 "$p/peer_mw1")
[ "$got" = "owner-$((1 - me))." ] ||
	fail "window 1 shows '$got', not the peer's buffer"
echo "node $me: peer buffer seen through window 1"
printf 'reply-%d.' "$me" >"$p/peer_mw1" || fail "write through window"
echo 2 >"$p/spad2"
wait_for 60 file_is "$d/spad2" 2 || fail "peer never wrote back"
got=$(head -c 8 "$p/mw1")
[ "$got" = "reply-$((1 - me))." ] ||
	fail "own buffer holds '$got', not the peer's reply"
echo "node $me: peer wrote our buffer through its window"
echo 3 >"$p/spad3"
wait_for 60 file_is "$d/spad3" 3 || fail "peer never finished"
echo "node $me: ntb_xlat PASS"
