#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The compile matrix and the stock-kernel boots of "make check".
#
# Usage: scripts/stock-check.sh [--arch ARCH] [--lane LANE] OUTDIR SERIES...
#   ARCH    amd64 (the default) or arm64
#   LANE    share SERIES with the other invocations on OUTDIR that name a
#           lane (make check's two lanes: "debug" and "host"): each takes
#           the next kernel no other has claimed yet
#   SERIES  6.12, 6.12-rt, 6.1
#
# For each of Debian's stock kernels of ARCH (scripts/stock-kernel.sh
# unpacks it into the cache): build the modules against its headers with
# W=1 (scripts/build-copy.sh; any warning fails; Debian's arm64 headers
# name the cross compiler themselves) and, if that is clean, boot the
# kernel in QEMU and run the selftests there (scripts/vm.sh stock, with
# the busybox of that architecture's busybox-static and, for arm64, the
# programs of build/arm64/).  On amd64's 6.12, the RDMA client too
# (scripts/rdma.sh against its headers; clients/rdma/run.sh in the VM):
# rdma-core's whole suite on the stock ib_uverbs and on
# ib_uverbs_kslot, the stock module's results cached (or recorded:
# scripts/stock-results.sh) as the debug kernel's are (RDMA_STOCK=1
# runs it again).
#
# Each kernel's results go to OUTDIR/stock-ARCH.d/SERIES/ (its TAP lines,
# its VM's output directory, the lane that ran it and its wall time); the
# directory is the kernel's claim.  The last invocation to finish writes
# OUTDIR/host-compile.tap (one case per kernel, and one for the RDMA
# client's build) and OUTDIR/stock-dirs (the VM output directories to
# judge), from every kernel done; for arm64, OUTDIR/host-compile-arm64.tap
# and OUTDIR/stock-dirs-arm64, so that both architectures can run at once
# (a kernel not done yet counts as a failure until the merge that comes
# after it).
# Each VM's progress lines are labelled with its kernel's version.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Its makes run with their own -j (scripts/own-make.sh).
# shellcheck source=scripts/own-make.sh
. "$top/scripts/own-make.sh"
usage() {
	echo "usage: $0 [--arch amd64|arm64] [--lane LANE] OUTDIR SERIES...   (SERIES: 6.12, 6.12-rt, 6.1)" >&2
	exit 2
}
arch=amd64 lane=
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || usage; arch=$2; shift 2 ;;
	--lane) [ $# -ge 2 ] || usage; lane=$2; shift 2 ;;
	*) break ;;
	esac
done
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
host=$(dpkg --print-architecture)
mkdir -p "$out"
claims=$out/stock-$arch.d
# Alone, every kernel is this invocation's.
[ -n "$lane" ] || rm -rf "$claims"
mkdir -p "$claims"

# One kernel: its TAP lines (unnumbered) to $res/tap.
one() {
	local series=$1 res=$2
	local got ver root src vmout log rout rmods rdma
	local -a cross

	# "VERSION ROOT": the kernel unpacked into ROOT.
	if ! got=$("$top/scripts/stock-kernel.sh" --arch "$arch" "$series"); then
		echo "not ok W=1 build against Debian $arch $series headers # cannot fetch" >> "$res/tap"
		return
	fi
	read -r ver root <<< "$got"
	src=$top/build/stock-$ver
	vmout=$top/build/vm-stock-$ver
	mkdir -p "$vmout"
	# The cross compiler the foreign headers name (scripts/cross-gcc.sh).
	cross=()
	[ "$arch" = "$host" ] || cross=("$top/scripts/cross-gcc.sh" "$arch" --)
	if ! log=$("${cross[@]}" "$top/scripts/build-copy.sh" \
			"$root/usr/src/linux-headers-$ver" "$src" 2>&1); then
		echo "not ok W=1 build against linux-headers-$ver" >> "$res/tap"
		echo "$log" | sed 's/^/# /' >> "$res/tap"
		return
	fi
	echo "ok W=1 build against linux-headers-$ver" >> "$res/tap"
	rdma='' rmods=''
	if [ "$arch" = amd64 ] && [ "$series" = 6.12 ]; then
		rout=$top/build/rdma/stock-$ver
		if log=$("$top/scripts/rdma.sh" "$root/usr/src/linux-headers-$ver" \
			"$src" "$rout" 2>&1); then
			echo "ok RDMA client (ib_uverbs_kslot.ko) against linux-headers-$ver" >> "$res/tap"
			rdma=$rout/vm
			"$top/scripts/stock-results.sh" seed rdma \
				"$(cat "$rout/stock-cache")"
			rmods="stock kslot"
			[ -f "$(cat "$rout/stock-cache")/results.log" ] &&
				[ -z "${RDMA_STOCK:-}" ] && rmods=kslot
		else
			echo "not ok RDMA client (ib_uverbs_kslot.ko) against linux-headers-$ver" >> "$res/tap"
			echo "$log" | sed 's/^/# /' >> "$res/tap"
		fi
	fi
	echo "stock-check.sh: booting Debian kernel $ver" >&2
	KSLOT_VM_LABEL=$ver KSLOT_KO_DIR=$src KSLOT_RDMA_DIR=$rdma \
		KSLOT_RDMA_MODULES=$rmods KSLOT_BUSYBOX=$root/bin/busybox \
		"$top/scripts/vm.sh" --arch "$arch" stock "$root/boot/vmlinuz-$ver" "$vmout"
	echo "$vmout" > "$res/dir"
}

for series in "$@"; do
	res=$claims/$series
	mkdir "$res" 2>/dev/null || continue
	echo "${lane:-alone}" > "$res/lane"
	s=$(date +%s)
	one "$series" "$res"
	echo $(($(date +%s) - s)) > "$res/time"
done

# Every kernel done so far, in the order asked for, numbered; under a lock,
# so that the last invocation to get here sees every other one's results.
exec 8> "$claims/.lock"
flock 8
tap=$out/host-compile$suffix.tap
dirs=$out/stock-dirs$suffix
lines=$(for series in "$@"; do
	if [ -f "$claims/$series/time" ]; then
		cat "$claims/$series/tap"
	else
		# Still running in the other lane (whose merge comes last and
		# replaces this), or a lane that died.
		echo "not ok W=1 build against Debian $arch $series # not finished"
	fi
done)
{
	echo "TAP version 13"
	echo "1..$(echo "$lines" | grep -c '^\(not \)\?ok ')"
	[ -z "$lines" ] ||
		echo "$lines" | awk '/^(not )?ok / { n++; sub(/ok /, "ok " n " ") } { print }'
} > "$tap.tmp"
mv "$tap.tmp" "$tap"
for series in "$@"; do
	[ -f "$claims/$series/time" ] && cat "$claims/$series/dir" 2>/dev/null
done > "$dirs"
exit 0
