#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-tar.sh OUT.tar PROVIDER.so PROVDIR PROGRAM...
# A root tree for the busybox test guests, which have no C library: the
# provider in libfabric's provider directory PROVDIR, the PROGRAMs, and
# every shared library they and the provider load (as ldd on this host
# resolves them, the dynamic loader included), archived into OUT.tar.
set -eu
out=$1
prov=$2
provdir=$3
shift 3
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root$provdir" "$root/usr/bin"
cp "$prov" "$root$provdir/"
for p in "$@"; do
	cp "$p" "$root/usr/bin/"
done
for lib in $(ldd "$prov" "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
				     $1 ~ /^\// && $1 !~ /:$/ { print $1 }' |
	     sort -u); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
tar -C "$root" -cf "$out" .
