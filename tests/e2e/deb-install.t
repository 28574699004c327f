#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages of `make deb`:
#   - they build (again only when a file of the tree is newer than them),
#   - each holds what it should (dpkg-deb -c, -I, -e),
#   - installed in a guest, they work: the guests are busybox and an
#     initramfs, without dpkg or a C library, so the contents of libscif0
#     and scif-tools are extracted (dpkg-deb -x) into the guest's root next
#     to this host's dynamic loader and libc; there scif-info (linked
#     against the packaged libscif.so.0) and the pingpong example (built
#     here against libscif-dev's header and pkg-config file) run on the
#     test kernel.
# One guest, one boot: well under two minutes on an idle machine.
# needs: own-boot (builds and unpacks packages on the host around its boot)
set -uo pipefail
# One brace group: bash reads all of it before running any, so editing this
# file during a run cannot change that run.
{
top=$(cd "$(dirname "$0")/../.." && pwd)
debs=$top/build/deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass() { echo "ok - $*"; }
flunk() { echo "not ok - $*"; fail=1; }

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
deb() { echo "$debs/${1}_${version}_${2:-$arch}.deb"; }

# ---- build, when missing or out of date
stale=0
for p in scif-ntb-dkms:all libscif0 libscif-dev scif-tools; do
	[ -f "$(deb "${p%%:*}" "$(echo "$p" | sed -n 's/.*://p')")" ] || stale=1
done
if [ "$stale" = 0 ]; then
	ref=$(deb scif-tools)
	while IFS= read -r -d '' f; do
		if [ "$top/$f" -nt "$ref" ]; then
			stale=1
			break
		fi
	done < <(cd "$top" && git ls-files -z -co --exclude-standard 2>/dev/null)
fi
if [ "$stale" = 1 ]; then
	if "$top/packaging/build-deb" "$debs" >"$tmp/build.out" 2>&1; then
		pass "dpkg-buildpackage -us -uc -b builds the packages"
	else
		cat "$tmp/build.out"
		echo "not ok - dpkg-buildpackage -us -uc -b builds the packages"
		exit 1
	fi
else
	pass "the packages in build/deb are up to date"
fi

# ---- contents
list() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|'; }
# expect DEB WHAT PATH...: every PATH is in DEB
expect() {
	local d=$1 what=$2 p missing=()
	shift 2
	list "$d" >"$tmp/list"
	for p in "$@"; do
		grep -qxF "$p" "$tmp/list" || missing+=("$p")
	done
	if [ ${#missing[@]} = 0 ]; then
		pass "$(basename "$d") has $what ($# files)"
	else
		flunk "$(basename "$d") lacks ${missing[*]}"
	fi
}
field() { dpkg-deb -f "$1" "$2"; }

d=$(deb scif-ntb-dkms all)
src=/usr/src/scif-ntb-$version
mapfile -t ksrc < <(cd "$top" && git ls-files -co --exclude-standard -- Kbuild dkms.conf drivers include tests/kunit)
expect "$d" "the module sources and dkms.conf in $src" "${ksrc[@]/#/$src/}"
if list "$d" | grep -E '\.(o|ko|cmd)$|\.mod(\.c)?$'; then flunk "$(basename "$d") ships build products"; fi
expect "$d" "scif(4) and the modprobe.d/modules-load.d examples" \
	/usr/share/man/man4/scif.4.gz \
	/usr/share/doc/scif-ntb-dkms/examples/scif-modprobe.conf \
	/usr/share/doc/scif-ntb-dkms/examples/scif-modules-load.conf
dpkg-deb --fsys-tarfile "$d" | tar -xOf - ".$src/dkms.conf" >"$tmp/dkms.conf"
if grep -qx "PACKAGE_VERSION=\"$version\"" "$tmp/dkms.conf" &&
   grep -qx 'PACKAGE_NAME="scif-ntb"' "$tmp/dkms.conf" &&
   grep -qx 'AUTOINSTALL="yes"' "$tmp/dkms.conf"; then
	pass "dkms.conf: scif-ntb $version, AUTOINSTALL (rebuilt on kernel upgrades)"
else
	flunk "dkms.conf does not name scif-ntb $version with AUTOINSTALL"
fi
dpkg-deb -e "$d" "$tmp/dkms-ctrl"
if field "$d" Depends | grep -q '\bdkms\b' &&
   grep -qx "DKMS_NAME=scif-ntb" "$tmp/dkms-ctrl/postinst" &&
   grep -qx "DKMS_VERSION=$version" "$tmp/dkms-ctrl/postinst" &&
   grep -q '/usr/lib/dkms/common.postinst' "$tmp/dkms-ctrl/postinst" &&
   grep -q 'dkms remove -m $DKMS_NAME' "$tmp/dkms-ctrl/prerm"; then
	pass "scif-ntb-dkms depends on dkms and adds/removes the module in postinst/prerm"
else
	flunk "scif-ntb-dkms: dkms dependency or maintainer scripts missing"
fi

d=$(deb libscif0)
expect "$d" "the shared library" "/usr/lib/$ma/libscif.so.0" "/usr/lib/$ma/libscif.so.0.1.0"
if list "$d" | grep -Eq '^/usr/(include|bin)|libscif\.(a|so)$'; then flunk "libscif0 holds development files"; fi

d=$(deb libscif-dev)
mapfile -t man3 < <(cd "$top/Documentation/man/man3" && ls | sed "s|^|/usr/share/man/man3/|; s|\$|.gz|")
expect "$d" "scif.h, libscif.so and .a, scif.pc, the section 3 pages" \
	/usr/include/scif.h "/usr/lib/$ma/libscif.so" "/usr/lib/$ma/libscif.a" \
	"/usr/lib/$ma/pkgconfig/scif.pc" "${man3[@]}"
if field "$d" Depends | grep -qF "libscif0 (= $version)"; then
	pass "libscif-dev depends on libscif0 (= $version)"
else
	flunk "libscif-dev: Depends is '$(field "$d" Depends)'"
fi

d=$(deb scif-tools)
expect "$d" "the tools, their section 1 pages, the udev rule" \
	/usr/bin/scif-info /usr/bin/scif-cat /usr/bin/scif-bench \
	/usr/share/man/man1/scif-info.1.gz /usr/share/man/man1/scif-cat.1.gz \
	/usr/share/man/man1/scif-bench.1.gz /lib/udev/rules.d/60-scif.rules
if dpkg-deb --fsys-tarfile "$d" | tar -xOf - ./lib/udev/rules.d/60-scif.rules |
   grep -q '^KERNEL=="scif".*MODE="0666"'; then
	pass "the udev rule gives /dev/scif mode 0666"
else
	flunk "the udev rule does not set /dev/scif to 0666"
fi
if field "$d" Depends | grep -q 'libscif0'; then
	pass "scif-tools depends on libscif0 ($(field "$d" Depends))"
else
	flunk "scif-tools does not depend on libscif0"
fi

# ---- install: the runtime packages into a guest root, -dev for building
for p in libscif0 scif-tools; do
	dpkg-deb -x "$(deb $p)" "$tmp/root"
done
cp -a "$tmp/root" "$tmp/dev"
dpkg-deb -x "$(deb libscif-dev)" "$tmp/dev"
for b in scif-info scif-cat scif-bench; do
	if objdump -p "$tmp/root/usr/bin/$b" | grep -Eq 'R(UN)?PATH'; then
		flunk "$b carries a run path"
	fi
done
if make -s -C "$top/tools/examples" STAGE="$tmp/dev" PREFIX=/usr libdir="/usr/lib/$ma" \
	OUT="$tmp/ex" "$tmp/ex/host/pingpong" >"$tmp/ex.log" 2>&1 &&
   objdump -p "$tmp/ex/host/pingpong" | grep -q 'NEEDED.*libscif\.so\.0'; then
	pass "pingpong builds against libscif-dev (pkg-config scif) and links libscif.so.0"
else
	cat "$tmp/ex.log"
	flunk "pingpong does not build against libscif-dev"
fi
[ "$fail" = 0 ] || exit 1

# The C library the guest lacks: this host's, which the packages were built
# against (libscif itself must come from the package, never from here).
for lib in $(ldd "$tmp/root/usr/bin/scif-info" "$tmp/ex/host/pingpong" 2>/dev/null |
	     awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' |
	     grep -v libscif | sort -u); do
	mkdir -p "$tmp/root$(dirname "$lib")"
	cp -L "$lib" "$tmp/root$lib"
done
rm -rf "$tmp/root/usr/share"
tar -C "$tmp/root" -cf "$tmp/deb-root.tar" .
cp "$tmp/ex/host/pingpong" "$tmp/pingpong"
cat >"$tmp/deb-install.sh" <<'GUEST'
set -e
tar -xf deb-root.tar -C /
echo "---- ld.so --list /usr/bin/scif-info"
/lib64/ld-linux-x86-64.so.2 --list /usr/bin/scif-info
echo "---- scif-info"
scif-info
echo "---- scif-info --json"
scif-info --json
echo "---- end"
./pingpong host &
pid=$!
./pingpong card
wait "$pid"
GUEST
"$top/scripts/rig/cluster" -n 1 --mem 512 --timeout 300 --modules scif \
	--copy "$tmp/deb-root.tar" --copy "$tmp/pingpong" --copy "$tmp/deb-install.sh" \
	-- sh ./deb-install.sh | tee "$tmp/out"
if [ "${PIPESTATUS[0]}" = 0 ]; then
	pass "the guest ran scif-info and pingpong from the packages"
else
	flunk "the guest run failed"
fi
tr -d '\r' <"$tmp/out" >"$tmp/out.txt"
if grep -Eq "libscif\.so\.0 => /usr/lib/$ma/libscif\.so\.0 " "$tmp/out.txt"; then
	pass "scif-info in the guest uses the packaged /usr/lib/$ma/libscif.so.0"
else
	flunk "scif-info in the guest does not resolve libscif.so.0 to the packaged file"
fi
if sed -n '/^---- scif-info --json$/,/^---- end$/p' "$tmp/out.txt" | sed '1d;$d' |
   python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["self"] in d["nodes_online"]'; then
	pass "the packaged scif-info --json parses"
else
	flunk "the packaged scif-info --json does not parse"
fi
if grep -q '^host: 1000 round trips' "$tmp/out.txt" && grep -q '^card: 1000 round trips' "$tmp/out.txt"; then
	pass "pingpong (host and card on one node) completed 1000 round trips"
else
	flunk "pingpong did not complete"
fi
exit "$fail"
}
