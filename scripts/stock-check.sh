#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The compile matrix and the stock-kernel boots of "make check".
#
# Usage: scripts/stock-check.sh [--arch ARCH] OUTDIR SERIES...
#   ARCH    amd64 (the default) or arm64
#   SERIES  6.12, 6.12-rt, 6.1
#
# For each of Debian's stock kernels of ARCH (scripts/stock-kernel.sh:
# installed for amd64, fetched into the cache for arm64): build the
# modules against its headers with W=1 (scripts/build-copy.sh; any
# warning fails; Debian's arm64 headers name the cross compiler
# themselves) and, if that is clean, boot the kernel in QEMU and run the
# selftests there (scripts/vm.sh stock; for arm64 the arm64 busybox of
# busybox-static and the programs of build/arm64/).  On amd64's 6.12,
# the RDMA client too (scripts/rdma.sh against its headers;
# clients/rdma/run.sh in the VM): rdma-core's whole suite on the stock
# ib_uverbs and on ib_uverbs_kslot, the stock module's results cached
# (or recorded: scripts/stock-results.sh) as the debug kernel's are
# (RDMA_STOCK=1 runs it again).  Writes
# OUTDIR/host-compile.tap (one case per kernel, and one for the RDMA
# client's build) and OUTDIR/stock-dirs
# (the VM output directories to judge); for arm64,
# OUTDIR/host-compile-arm64.tap and OUTDIR/stock-dirs-arm64, so that
# both architectures can run at once.  Each VM's progress lines are
# labelled with its kernel's version.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Its makes run with their own -j (scripts/own-make.sh).
# shellcheck source=scripts/own-make.sh
. "$top/scripts/own-make.sh"
usage() {
	echo "usage: $0 [--arch amd64|arm64] OUTDIR SERIES...   (SERIES: 6.12, 6.12-rt, 6.1)" >&2
	exit 2
}
arch=amd64
if [ "${1:-}" = --arch ]; then
	[ $# -ge 2 ] || usage
	arch=$2
	shift 2
fi
case "$arch" in
amd64) suffix= ;;
arm64) suffix=-$arch ;;
*) usage ;;
esac
[ $# -ge 2 ] || usage
for s in "${@:2}"; do
	case "$s" in
	6.12 | 6.12-rt | 6.1) ;;
	*) usage ;;
	esac
done
out=$1
shift
mkdir -p "$out"
dirs=$out/stock-dirs$suffix
: > "$dirs"
tap=$out/host-compile$suffix.tap
plan=$#
for s in "$@"; do
	[ "$arch" = amd64 ] && [ "$s" = 6.12 ] && plan=$((plan + 1))
done
{
	echo "TAP version 13"
	echo "1..$plan"
} > "$tap"
n=0
for series in "$@"; do
	n=$((n + 1))
	# "VERSION", or "VERSION ROOT" for a kernel unpacked into ROOT.
	if ! got=$("$top/scripts/stock-kernel.sh" --arch "$arch" "$series"); then
		echo "not ok $n W=1 build against Debian $arch $series headers # cannot install" >> "$tap"
		continue
	fi
	read -r ver root <<< "$got"
	src=$top/build/stock-$ver
	vmout=$top/build/vm-stock-$ver
	mkdir -p "$vmout"
	# The cross compiler the foreign headers name (scripts/cross-gcc.sh).
	cross=()
	[ -z "$root" ] || cross=("$top/scripts/cross-gcc.sh" "$arch" --)
	if ! log=$("${cross[@]}" "$top/scripts/build-copy.sh" \
			"$root/usr/src/linux-headers-$ver" "$src" 2>&1); then
		echo "not ok $n W=1 build against linux-headers-$ver" >> "$tap"
		echo "$log" | sed 's/^/# /' >> "$tap"
		continue
	fi
	echo "ok $n W=1 build against linux-headers-$ver" >> "$tap"
	rdma=
	if [ "$arch" = amd64 ] && [ "$series" = 6.12 ]; then
		n=$((n + 1))
		rout=$top/build/rdma/stock-$ver
		if log=$("$top/scripts/rdma.sh" "/usr/src/linux-headers-$ver" \
			"$src" "$rout" 2>&1); then
			echo "ok $n RDMA client (ib_uverbs_kslot.ko) against linux-headers-$ver" >> "$tap"
			rdma=$rout/vm
			"$top/scripts/stock-results.sh" seed rdma \
				"$(cat "$rout/stock-cache")"
			rmods="stock kslot"
			[ -f "$(cat "$rout/stock-cache")/results.log" ] &&
				[ -z "${RDMA_STOCK:-}" ] && rmods=kslot
		else
			echo "not ok $n RDMA client (ib_uverbs_kslot.ko) against linux-headers-$ver" >> "$tap"
			echo "$log" | sed 's/^/# /' >> "$tap"
		fi
	fi
	echo "stock-check.sh: booting Debian kernel $ver" >&2
	KSLOT_VM_LABEL=$ver KSLOT_KO_DIR=$src KSLOT_RDMA_DIR=$rdma \
		KSLOT_RDMA_MODULES=${rmods:-} \
		KSLOT_BUSYBOX=${root:+$root/bin/busybox} \
		"$top/scripts/vm.sh" --arch "$arch" stock "$root/boot/vmlinuz-$ver" "$vmout"
	echo "$vmout" >> "$dirs"
done
exit 0
