#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make sure one of Debian's stock kernels (image and headers) is installed
# and print its version (the /lib/modules and /boot name).
#
# Usage: scripts/stock-kernel.sh 6.12|6.12-rt|6.1
#   6.12     the kernel of linux-image-6.12-amd64 (bookworm's 6.12 LTS)
#   6.12-rt  the kernel of linux-image-6.12-rt-amd64 (the same, PREEMPT_RT)
#   6.1      the kernel of linux-image-amd64 (bookworm's default, 6.1 LTS)
set -euo pipefail

case "${1:-}" in
6.12) meta=linux-image-6.12-amd64 ;;
6.12-rt) meta=linux-image-6.12-rt-amd64 ;;
6.1) meta=linux-image-amd64 ;;
*) echo "usage: $0 6.12|6.12-rt|6.1" >&2; exit 2 ;;
esac

image=$(apt-cache depends "$meta" 2>/dev/null |
	sed -n 's/^  Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n1)
[ -n "$image" ] || { echo "stock-kernel.sh: cannot resolve $meta" >&2; exit 1; }
ver=${image#linux-image-}
# One install at a time: make check's lanes may ask for a kernel at once
# (the DKMS and install checks, the stock-kernel VMs).
lock=${XDG_CACHE_HOME:-$HOME/.cache}/kslot/.lock-stock-kernel
mkdir -p "$(dirname "$lock")"
exec 7>"$lock"
flock 7
if [ ! -f "/boot/vmlinuz-$ver" ] || [ ! -f "/usr/src/linux-headers-$ver/Makefile" ]; then
	echo "stock-kernel.sh: installing linux-image-$ver and headers" >&2
	if [ "$(id -u)" != 0 ]; then
		echo "stock-kernel.sh: run as root" >&2
		exit 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "linux-image-$ver" \
		"linux-headers-$ver" >&2
fi
echo "$ver"
