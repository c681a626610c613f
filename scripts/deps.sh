#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages kslot's build and tests need, skipping apt
# entirely when all of them are present.  Needs root to install.  (The
# cross compilers of the arm64 lane are not installed: gcc-multilib
# conflicts with them; scripts/cross-gcc.sh unpacks them into the cache.)
#
# Usage: scripts/deps.sh [bench|kernel]
#   bench   also the packages only make bench needs (Rust's slotmap crate
#           and the toolchain that builds it offline)
#   kernel  only what scripts/kernel.sh needs to build a kernel (the
#           Makefile installs them first, and builds the kernels while
#           the rest installs).  The tools Kconfig probes for that the
#           kernels' configuration can use are here (pahole: dwarves), so
#           that it does not change with what installs beside the build.
#           gcc-multilib too: it needs gcc's exact version, and would
#           upgrade the compiler under a running build.
set -euo pipefail

kernel_pkgs=(
	bc bison cpio flex gcc make libc6-dev libelf-dev libssl-dev kmod
	python3 xz-utils gzip dwarves gcc-multilib
	linux-source-6.12
)

pkgs=(
	"${kernel_pkgs[@]}"
	qemu-system-x86
	busybox-static
	qemu-system-arm
	sparse coccinelle ocaml-nox
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
kernel) pkgs=("${kernel_pkgs[@]}") ;;
*) echo "usage: $0 [bench|kernel]" >&2; exit 2 ;;
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
