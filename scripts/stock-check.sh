#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The compile matrix and the stock-kernel boots of "make check".
#
# Usage: scripts/stock-check.sh OUTDIR SERIES...   (SERIES: 6.12, 6.1)
#
# For each of Debian's stock kernels: build the modules against its installed
# headers with W=1 (from a copy of the sources, so the test-kernel objects
# stay in place) and, if that is clean, boot the kernel in QEMU and run
# the selftests there.  Writes OUTDIR/host-compile.tap (one case per
# kernel) and OUTDIR/stock-dirs (the VM output directories to judge).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
mkdir -p "$out"
: > "$out/stock-dirs"
tap=$out/host-compile.tap
{
	echo "TAP version 13"
	echo "1..$#"
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
	rm -rf "$src"
	mkdir -p "$src" "$vmout"
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$top/kunit" "$src/"
	# The benchmark module (make bench; loaded at a tiny size by check).
	[ -d "$top/bench" ] && cp -r "$top/bench" "$src/"
	log=$(make -s -C "/usr/src/linux-headers-$ver" M="$src" W=1 modules 2>&1)
	rc=$?
	if [ $rc != 0 ] || echo "$log" | grep -q 'warning:'; then
		echo "not ok $n W=1 build against linux-headers-$ver" >> "$tap"
		echo "$log" | sed 's/^/# /' >> "$tap"
		continue
	fi
	echo "ok $n W=1 build against linux-headers-$ver" >> "$tap"
	# The benchmark module, for bench/kslot_bench.sh in the VM.
	[ -d "$src/bench" ] && make -s -C "/usr/src/linux-headers-$ver" \
		M="$src/bench" KBUILD_EXTRA_SYMBOLS="$src/Module.symvers" \
		modules >&2
	echo "stock-check.sh: booting Debian kernel $ver" >&2
	KSLOT_KO_DIR=$src "$top/scripts/vm.sh" stock "/boot/vmlinuz-$ver" "$vmout"
	echo "$vmout" >> "$out/stock-dirs"
done
exit 0
