# SPDX-License-Identifier: GPL-2.0
# Source it: put a tree of files into the guest's root for one test, and
# take out again what it added, so that the test can share its boot
# (Documentation/test-rig.rst, "Adding a test"). Files already in the
# root are replaced but never removed (busybox's links among them).

# root_tree_add DIR: hard-link DIR's files into /, noting the new ones
root_tree_add() {
	root_tree_list=${root_tree_list:-$PWD/.root-tree-added}
	(cd "$1" && find . ! -type d) | while read -r f; do
		f=/${f#./}
		[ -e "$f" ] || [ -L "$f" ] || echo "$f"
	done >>"$root_tree_list"
	for d in "$1"/*; do
		cp -alf "$d" / || return 1
	done
}

# root_tree_remove: remove every file root_tree_add added
root_tree_remove() {
	[ -n "${root_tree_list:-}" ] && [ -f "$root_tree_list" ] || return 0
	# one rm for all: a process per file took half a minute of a TCG
	# guest for Open MPI's tree (the paths of Debian's trees have no
	# blanks)
	xargs rm -f <"$root_tree_list"
	rm -f "$root_tree_list"
}
