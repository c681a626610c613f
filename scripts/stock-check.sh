#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The compile matrix and the stock-kernel boots of "make check".
#
# Usage: scripts/stock-check.sh OUTDIR SERIES...   (SERIES: 6.12, 6.12-rt, 6.1)
#
# For each of Debian's stock kernels: build the modules against its
# installed headers with W=1 (scripts/build-copy.sh) and, if that is clean,
# boot the kernel in QEMU and run the selftests there.  On 6.12, the
# RDMA client too (scripts/rdma.sh against its headers; clients/rdma/run.sh
# in the VM): rdma-core's whole suite on the stock ib_uverbs and on
# ib_uverbs_kslot, the stock module's results cached as the debug
# kernel's are (RDMA_STOCK=1 runs it again).  Writes
# OUTDIR/host-compile.tap (one case per
# kernel, and one for the RDMA client's build) and OUTDIR/stock-dirs (the
# VM output directories to judge).
# Each VM's progress lines are labelled with its kernel's version.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 OUTDIR SERIES...   (SERIES: 6.12, 6.12-rt, 6.1)" >&2
	exit 2
}
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
: > "$out/stock-dirs"
tap=$out/host-compile.tap
plan=$#
for s in "$@"; do [ "$s" = 6.12 ] && plan=$((plan + 1)); done
{
	echo "TAP version 13"
	echo "1..$plan"
} > "$tap"
n=0
for series in "$@"; do
	n=$((n + 1))
	if ! ver=$("$top/scripts/stock-kernel.sh" "$series"); then
		echo "not ok $n W=1 build against Debian $series headers # cannot install" >> "$tap"
		continue
	fi
	src=$top/build/stock-$ver
	vmout=$top/build/vm-stock-$ver
	mkdir -p "$vmout"
	if ! log=$("$top/scripts/build-copy.sh" "/usr/src/linux-headers-$ver" "$src" 2>&1); then
		echo "not ok $n W=1 build against linux-headers-$ver" >> "$tap"
		echo "$log" | sed 's/^/# /' >> "$tap"
		continue
	fi
	echo "ok $n W=1 build against linux-headers-$ver" >> "$tap"
	rdma=
	if [ "$series" = 6.12 ]; then
		n=$((n + 1))
		rout=$top/build/rdma/stock-$ver
		if log=$("$top/scripts/rdma.sh" "/usr/src/linux-headers-$ver" \
			"$src" "$rout" 2>&1); then
			echo "ok $n RDMA client (ib_uverbs_kslot.ko) against linux-headers-$ver" >> "$tap"
			rdma=$rout/vm
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
		"$top/scripts/vm.sh" stock "/boot/vmlinuz-$ver" "$vmout"
	echo "$vmout" >> "$out/stock-dirs"
done
exit 0
