# SPDX-License-Identifier: GPL-2.0
# Helpers for the emulated-NTB guest tests. Sourced, not run.

fail() {
	echo "FAIL: node $SCIF_NODE_INDEX: $*"
	exit 1
}

# wait_for SECONDS CMD...: retry CMD every 0.1 s until it succeeds.
wait_for() {
	local limit=$(($1 * 10)) n=0
	shift
	until "$@"; do
		n=$((n + 1))
		[ "$n" -ge "$limit" ] && return 1
		sleep 0.1
	done
}

# file_is FILE VALUE: FILE's first line is VALUE (numbers compared as such).
file_is() {
	local v
	v=$(head -n 1 "$1" 2>/dev/null) || return 1
	[ "$v" = "$2" ] && return 0
	case "$v$2" in *[!0-9xa-fA-F]*) return 1 ;; esac
	[ $(($v)) -eq $(($2)) ] 2>/dev/null
}

# bits_set FILE MASK: every bit of MASK is set in the number in FILE.
bits_set() {
	local v
	v=$(head -n 1 "$1" 2>/dev/null) || return 1
	[ $(($v & $2)) -eq $(($2)) ]
}
