#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages kslot's build and tests need, skipping apt
# entirely when all of them are present.  Needs root to install.  (The
# cross compilers of the arm64 lane are not installed: gcc-multilib
# conflicts with them; scripts/cross-gcc.sh unpacks them into the cache.)
#
# Usage: scripts/deps.sh [bench]
#   bench  also the packages only make bench needs (Rust's slotmap crate
#          and the toolchain that builds it offline)
set -euo pipefail

pkgs=(
	bc bison cpio flex gcc make libc6-dev libelf-dev libssl-dev kmod
	python3 xz-utils gzip
	linux-source-6.12
	qemu-system-x86
	busybox-static
	qemu-system-arm
	sparse coccinelle ocaml-nox
	dwarves gcc-multilib
	liburcu-dev valgrind gnuplot-nox
	dkms openssl pkgconf groff-base
	patch
	python3-pyverbs ibverbs-providers libibverbs-dev iproute2
)
bench_pkgs=(
	cargo rustc librust-slotmap-dev
)
case "${1:-}" in
'') ;;
bench) pkgs+=("${bench_pkgs[@]}") ;;
*) echo "usage: $0 [bench]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

echo "deps.sh: installing ${missing[*]}" >&2
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: run as root, or install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q -o DPkg::Lock::Timeout=600 >&2
apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" >&2
