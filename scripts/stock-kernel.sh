#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make sure one of Debian's stock kernels (image, modules and headers) is
# there and print "VERSION ROOT": the kernel's version (its /lib/modules
# and /boot name) and the directory its packages are unpacked into.
#
# Usage: scripts/stock-kernel.sh [--arch ARCH] [--headers] SERIES
#   SERIES   6.12     the kernel of linux-image-6.12-FLAVOUR (6.12 LTS)
#            6.12-rt  the kernel of linux-image-6.12-rt-FLAVOUR (PREEMPT_RT)
#            6.1      the kernel of linux-image-FLAVOUR (bookworm's 6.1)
#   ARCH     Debian's architecture: amd64 (the default; FLAVOUR amd64),
#            arm64 (arm64) or armhf (armmp)
#   --headers  the headers only, no image
#
# No kernel is installed, the host's own architecture included: nothing
# is registered with dpkg, nothing lands in /boot or /lib/modules, and
# neither an initramfs nor DKMS's autoinstall runs (they were most of the
# cost of an apt-get install).  The packages are fetched and unpacked by
# scripts/debian-fetch.sh into
# ROOT=${XDG_CACHE_HOME:-~/.cache}/kslot/debian-ARCH-VERSION, which stands
# for / (ROOT/boot/vmlinuz-VERSION, ROOT/lib/modules/VERSION,
# ROOT/usr/src/linux-headers-VERSION, and ROOT/bin/busybox from
# busybox-static for the test VM).  The headers build out of tree from
# there (make -C ROOT/usr/src/linux-headers-VERSION; dkms build
# --kernelsourcedir) with Kbuild's host programs from the amd64
# linux-kbuild package, unpacked there too; a foreign architecture's
# headers are set up by Debian for cross builds (they name the cross
# compiler, e.g. aarch64-linux-gnu-gcc-12: scripts/cross-gcc.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 [--arch amd64|arm64|armhf] [--headers] 6.12|6.12-rt|6.1" >&2
	exit 2
}
arch=amd64 headers_only=
while [ $# -gt 1 ]; do
	case "$1" in
	--arch) [ $# -gt 2 ] || usage; arch=$2; shift 2 ;;
	--headers) headers_only=1; shift ;;
	*) usage ;;
	esac
done
[ $# = 1 ] || usage
case "$arch" in
amd64) flavour=amd64 ;;
arm64) flavour=arm64 ;;
armhf) flavour=armmp ;;
*) usage ;;
esac
host=$(dpkg --print-architecture)
case "$1" in
6.12) meta=linux-image-6.12-$flavour ;;
6.12-rt) meta=linux-image-6.12-rt-$flavour ;;
6.1) meta=linux-image-$flavour ;;
*) usage ;;
esac

cache=${XDG_CACHE_HOME:-$HOME/.cache}/kslot
# One kernel of an architecture at a time: make check's lanes may ask for
# the same kernel at once (the DKMS and install checks, the stock-kernel
# VMs, the fetch of the build phase).
lock=$cache/.lock-stock-kernel-$arch
mkdir -p "$cache"
exec 7>"$lock"
flock 7

# apt-cache ARGS with the lists of ARCH (scripts/debian-fetch.sh); what
# it says on a failure is passed on.
acache() {
	local out

	out=$("$top/scripts/debian-fetch.sh" "$arch" --apt apt-cache "$@" 2>&1) || {
		echo "stock-kernel.sh: apt-cache $* ($arch) failed:" >&2
		echo "$out" >&2
		return 1
	}
	echo "$out"
}
got=$(acache depends "$meta")
image=$(echo "$got" | sed -n 's/^  Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n1)
[ -n "$image" ] || { echo "stock-kernel.sh: cannot resolve $meta ($arch)" >&2; exit 1; }
ver=${image#linux-image-}

# The headers, the common headers and the host's linux-kbuild (Kbuild's
# host programs: fixdep, modpost, sign-file...), then the image (with its
# modules) and busybox-static.
root=$cache/debian-$arch-$ver
deps=$(acache depends "linux-headers-$ver")
common=$(echo "$deps" |
	sed -n 's/^  Depends: \(linux-headers-[^ :]*-common[^ :]*\).*$/\1/p' | head -n1)
kbuild=$(echo "$deps" |
	sed -n 's/^  Depends: \(linux-kbuild-[^ :]*\).*$/\1/p' | head -n1)
[ -n "$common" ] && [ -n "$kbuild" ] ||
	{ echo "stock-kernel.sh: cannot resolve linux-headers-$ver ($arch)" >&2; exit 1; }
if [ ! -f "$root/.kslot-headers" ]; then
	"$top/scripts/debian-fetch.sh" "$arch" "$root" "linux-headers-$ver" \
		"$common" "$kbuild:$host"
	# Debian's headers include the common part by its absolute path
	# under /usr/src: point it into ROOT.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root/usr/src/linux-headers-$ver/Makefile"
	touch "$root/.kslot-headers"
fi
[ -n "$headers_only" ] ||
	"$top/scripts/debian-fetch.sh" "$arch" "$root" "$image" busybox-static
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
pkgver=$(acache show "linux-headers-$ver" | sed -n 's/^Version: //p' | head -n1)
if [ "$1" = 6.12 ] && [ -n "$srcver" ] && [ "$srcver" != "$pkgver" ]; then
	echo "stock-kernel.sh: note: $arch $ver is $pkgver, linux-source-6.12 is $srcver" >&2
fi
echo "$ver $root"
