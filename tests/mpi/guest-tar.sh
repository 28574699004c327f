#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-tar.sh OUT.tar PROGRAM...
# Debian's Open MPI as a root tree for the busybox test guests, which have
# no C library: mpirun and orted (real files at /usr/bin), Open MPI's and
# PMIx's library directories with all their components, help files and
# configuration, the PROGRAMs in /usr/bin, and every shared library any of
# these loads (as ldd on this host resolves them, the dynamic loader
# included), archived into OUT.tar. Paths are this host's, so Open MPI
# finds its components where it was built to look.
set -eu
out=$1
shift
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
ompi=/usr/lib/$arch/openmpi
pmix=/usr/lib/$arch/pmix2
for d in "$ompi" "$pmix" /usr/share/openmpi /etc/openmpi; do
	[ -d "$d" ] || {
		echo "guest-tar.sh: $d missing (scripts/rig/install-deps installs openmpi-bin)" >&2
		exit 1
	}
done
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/usr/lib/$arch" "$root/usr/share" "$root/etc"
cp -L "$(command -v orterun)" "$root/usr/bin/mpirun"
cp -L "$(command -v orted)" "$root/usr/bin/orted"
for p in "$@"; do
	cp "$p" "$root/usr/bin/"
done
cp -a "$ompi" "$pmix" "$root/usr/lib/$arch/"
# what only building against them needs: headers, static libraries
rm -rf "$root$ompi/include" "$root$ompi/lib/pkgconfig" "$root$pmix/include"
find "$root" \( -name '*.a' -o -name '*.la' \) -delete
cp -a /usr/share/openmpi "$root/usr/share/"
[ ! -d /usr/share/pmix ] || cp -a /usr/share/pmix "$root/usr/share/"
cp -aL /etc/openmpi "$root/etc/"
# every library the ELF files of the tree load
find "$root" -type f | while read -r f; do
	if head -c 4 "$f" | grep -q 'ELF'; then
		echo "$f"
	fi
done >"$root/.elf"
for lib in $(xargs ldd <"$root/.elf" 2>/dev/null |
	     awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		  $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
	[ -e "$root$lib" ] && continue
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
rm -f "$root/.elf"
tar -C "$root" -cf "$out" .
