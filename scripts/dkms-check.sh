#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS in make check: "make dkms-src" into a scratch DESTDIR, then
# "dkms add" and "dkms build -k VERSION" for each of Debian's stock kernels
# with a private DKMS tree and signing key, so nothing outside build/ is
# touched.  Each build must yield both modules (kslot, the library, and
# kslot_dev, /dev/kslot) for that kernel, signed with the scratch key.
# The kernels' headers are not installed: scripts/stock-kernel.sh unpacks
# them into the cache, and dkms is pointed there (--kernelsourcedir, and
# the sign-file of the linux-kbuild package unpacked beside them).
#
# Usage: scripts/dkms-check.sh SERIES...   (SERIES: 6.12, 6.12-rt, 6.1)
# Prints TAP.
set -uo pipefail
# shellcheck disable=SC2012

top=$(cd "$(dirname "$0")/.." && pwd)
for s in "$@"; do
	case "$s" in
	6.12 | 6.12-rt | 6.1) ;;
	*) echo "usage: $0 SERIES...   (SERIES: 6.12, 6.12-rt, 6.1)" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 SERIES...   (SERIES: 6.12, 6.12-rt, 6.1)" >&2; exit 2; }
pkgver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
n=0

echo "TAP version 13"
echo "1..$(($# + 1))"

if ! command -v dkms > /dev/null; then
	echo "not ok 1 dkms add # dkms is not installed"
	for s in "$@"; do
		n=$((n + 1))
		echo "not ok $((n + 1)) dkms build for Debian $s # dkms is not installed"
	done
	exit 0
fi

mkdir -p "$top/build"
tmp=$(mktemp -d "$top/build/dkms-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/root/usr/src
tree=$tmp/dkms
opts=(-m kslot -v "$pkgver" --sourcetree "$src" --dkmstree "$tree")
# dkms reads its signing key paths from the environment when the
# framework configuration does not set them.
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub

mkdir -p "$tree"
make -s -C "$top" dkms-src DESTDIR="$tmp/root" > "$tmp/log" 2>&1 &&
	dkms add "${opts[@]}" >> "$tmp/log" 2>&1
rc=$?
n=1
if [ $rc = 0 ] && [ -f "$src/kslot-$pkgver/dkms.conf" ]; then
	echo "ok 1 dkms add kslot/$pkgver"
else
	echo "not ok 1 dkms add kslot/$pkgver"
	sed 's/^/# /' "$tmp/log"
	exit 0
fi

for series in "$@"; do
	n=$((n + 1))
	what="dkms build -k"
	if ! got=$("$top/scripts/stock-kernel.sh" --headers "$series" 2> /dev/null); then
		echo "not ok $n $what (Debian $series) # cannot fetch the headers"
		continue
	fi
	read -r ver root <<< "$got"
	what="dkms build -k $ver"
	sign=$(ls "$root"/usr/lib/linux-kbuild-*/scripts/sign-file 2> /dev/null)
	if ! sign_file=$sign dkms build "${opts[@]}" -k "$ver" \
		--kernelsourcedir "$root/usr/src/linux-headers-$ver" > "$tmp/log" 2>&1; then
		echo "not ok $n $what"
		sed 's/^/# /' "$tmp/log"
		tail -20 "$tree/kslot/$pkgver/build/make.log" 2> /dev/null |
			sed 's/^/# /'
		continue
	fi
	bad= built= signer=
	for m in kslot kslot_dev; do
		ko=$(ls "$tree/kslot/$pkgver/$ver"/*/module/"$m".ko* \
			2> /dev/null | head -n1)
		magic=$(modinfo -F vermagic "$ko" 2> /dev/null | cut -d' ' -f1)
		signer=$(modinfo -F signer "$ko" 2> /dev/null)
		if [ -z "$ko" ] || [ "$magic" != "$ver" ]; then
			bad="$bad module $m: ${ko:-missing}, vermagic $magic;"
		elif [ -n "$sign" ] && [ -z "$signer" ]; then
			bad="$bad $(basename "$ko") is not signed;"
		fi
		built="$built $(basename "$ko")"
	done
	if [ -n "$bad" ]; then
		echo "not ok $n $what #$bad"
	else
		echo "ok $n $what:$built, vermagic $ver${signer:+, signed by \"$signer\"}"
	fi
done
exit 0
