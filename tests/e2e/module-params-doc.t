#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Documentation/module-parameters.rst lists every module parameter of the
# tree: for each module_param() / module_param_named() in drivers/, the
# module (from the Kbuild line that builds the source file) must have a
# section and the parameter a row (``name``) in it. Host only, no guest.
# needs: host (no guest)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/Documentation/module-parameters.rst
fail=0
n=0

# The module a source file belongs to: "obj-m += M.o" with "M-y := ... F.o"
# in the Kbuild of its directory, or "obj-m += F.o" itself.
module_of() {
	local dir=${1%/*} base=${1##*/} kb
	base=${base%.c}
	for kb in "$dir/Kbuild" "${dir%/*}/Kbuild"; do
		[ -f "$kb" ] || continue
		local rel=${1#"${kb%/Kbuild}"/}
		rel=${rel%.c}
		# composite objects: M-y lists rel.o (possibly over several lines)
		local m
		m=$(awk -v o="$rel.o" '
			/^[a-z0-9_]+-(y|objs)[ \t]*[:+]?=/ { cur = $1; sub(/-(y|objs)$/, "", cur) }
			/^[^ \t#]/ && !/-(y|objs)[ \t]*[:+]?=/ { cur = "" }
			cur != "" { for (i = 1; i <= NF; i++) if ($i == o) { print cur; exit } }
		' "$kb")
		if [ -n "$m" ]; then echo "$m"; return; fi
		if grep -Eq "^obj-m[ \t]*\+=[ \t]*$rel\.o" "$kb"; then echo "$base"; return; fi
	done
}

# The text of the section of module M: from its title to the next title.
section() {
	awk -v m="$1" '
		prev == m && /^=+$/ { on = 1; prev = $0; next }
		on && /^=+$/ { exit }
		on { print prevline }
		{ prevline = $0; prev = $0 }
	' "$doc"
}

while IFS=: read -r file _ text; do
	name=$(echo "$text" | sed -E 's/.*module_param(_named)?\(([a-z0-9_]+).*/\2/')
	mod=$(module_of "$top/$file")
	n=$((n + 1))
	if [ -z "$mod" ]; then
		echo "not ok - $file: no Kbuild line builds it"
		fail=1
	elif section "$mod" | grep -q "\`\`$name\`\`"; then
		echo "ok - $mod.$name"
	else
		echo "not ok - $mod.$name ($file) is not in Documentation/module-parameters.rst"
		fail=1
	fi
done < <(cd "$top" && grep -rnE '^[[:space:]]*module_param(_named)?\(' --include='*.c' drivers)
[ "$n" -gt 0 ] || { echo "not ok - no module_param found in drivers/"; exit 1; }
echo "$n parameters checked"
exit "$fail"
