# SPDX-License-Identifier: GPL-2.0
# What cluster an end-to-end test needs, from the "# needs:" lines of its
# file. Source it; do not run it. See Documentation/test-rig.rst.
#
# Words (any number of "# needs:" lines, words separated by blanks):
#   nodes=N topology=T mem=MB smp=N ntb-winmem=MB ntb-xlat=MB
#   ntb-winmem-as-ram net
#   kill-node=I after=S after-ready=S restart-after=S kill-every=S
#                 the cluster options of the same names (nodes is -n)
#   own-boot      the test boots its guests itself (or runs commands on
#                 the host around its boot): it never shares a boot
#   host          the test needs no guest at all
# Tests with the same words, none of them own-boot, host or a kill
# option, may run one after another in one boot (scripts/checks/e2e-suite).

# scif_needs FILE: the test's words, sorted, on one line ("" if none).
scif_needs() {
	sed -n 's/^# needs://p' "$1" | sed 's/([^)]*)//g' | tr ' \t' '\n\n' | sed '/^$/d' | sort | xargs
}

# scif_needs_args WORD...: the cluster options the words stand for, one
# per line. Fails (with a message) on a word it does not know.
scif_needs_args() {
	local w key val

	for w in "$@"; do
		key=${w%%=*}
		val=${w#*=}
		case "$w" in
		nodes=*) printf '%s\n' -n "$val" ;;
		topology=* | mem=* | smp=* | ntb-winmem=* | ntb-xlat=* | kill-node=* | after=* | \
		after-ready=* | restart-after=* | kill-every=*)
			printf '%s\n' "--$key" "$val" ;;
		ntb-winmem-as-ram | net) printf '%s\n' "--$w" ;;
		own-boot | host) ;;
		*)
			echo "needs: unknown word '$w'" >&2
			return 1 ;;
		esac
	done
}

# scif_needs_shareable WORD...: true if a test with these words may share
# a boot with others that have the same words.
scif_needs_shareable() {
	local w nodes=0

	for w in "$@"; do
		case "$w" in
		own-boot | host | kill-node=* | after=* | after-ready=* | restart-after=* | \
		kill-every=*)
			return 1 ;;
		nodes=*) nodes=1 ;;
		esac
	done
	[ "$nodes" = 1 ]
}
