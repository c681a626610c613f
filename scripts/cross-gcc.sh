#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command with Debian's cross compilers for the given architectures
# in PATH (aarch64-linux-gnu-gcc, -gcc-12, -ld...).
#
# Usage: scripts/cross-gcc.sh ARCH... -- COMMAND [ARG...]
#   arm64  aarch64-linux-gnu-gcc: the arm64 kernel's modules and the
#          static arm64 programs of the arm64 test VM
#   armhf  arm-linux-gnueabihf-gcc: the 32-bit (compat) programs of the
#          arm64 test VM, and a build against Debian's armhf headers
#
# Debian's gcc-multilib (the i386 builds need it) conflicts with every
# gcc-12-TRIPLET cross compiler package, so the compiler is not installed:
# Debian's packages of the toolchain (gcc, cpp, binutils, libgcc and the
# C library for the target) are fetched and unpacked together into
# ${XDG_CACHE_HOME:-~/.cache}/kslot/cross-ARCH-VERSION (VERSION: the gcc
# package's), by scripts/debian-fetch.sh.  GCC finds its parts relative to
# its own program, so the tree works where it is; binutils' shared
# libraries are found through LD_LIBRARY_PATH, and the C library's linker
# scripts are pointed into the tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 arm64|armhf... -- COMMAND [ARG...]" >&2
	exit 2
}
host=$(dpkg --print-architecture)
bins='' libs=''
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case "$1" in
	arm64) triplet=aarch64-linux-gnu ;;
	armhf) triplet=arm-linux-gnueabihf ;;
	*) usage ;;
	esac
	arch=$1
	shift
	gcc=gcc-12-$triplet
	ver=$("$top/scripts/debian-fetch.sh" "$arch" --apt apt-cache show \
		"$gcc:$host" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
	[ -n "$ver" ] || { echo "cross-gcc.sh: cannot resolve $gcc" >&2; exit 1; }
	root=${XDG_CACHE_HOME:-$HOME/.cache}/kslot/cross-$arch-$ver
	# The programs are the host's; the target's libraries are "all"
	# packages.
	"$top/scripts/debian-fetch.sh" "$arch" "$root" \
		"$gcc:$host" "cpp-12-$triplet:$host" "gcc-$triplet:$host" \
		"cpp-$triplet:$host" "binutils-$triplet:$host" \
		"libgcc-12-dev-$arch-cross:all" "libc6-dev-$arch-cross:all" \
		"libc6-$arch-cross:all" "libgcc-s1-$arch-cross:all" \
		"linux-libc-dev-$arch-cross:all"
	# The C library's linker scripts (libc.so) name its files by
	# absolute path: point them into the tree (once; idempotent).
	for f in "$root/usr/$triplet/lib/"*.so; do
		grep -qs '^GROUP' "$f" &&
			sed -i "s| /usr/$triplet/| $root/usr/$triplet/|g" "$f"
	done
	bins=$root/usr/bin${bins:+:$bins}
	libs=$root/usr/lib/$(gcc -print-multiarch)${libs:+:$libs}
done
if [ $# -lt 2 ] || [ -z "$bins" ]; then
	usage
fi
shift
PATH=$bins:$PATH LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	exec "$@"
