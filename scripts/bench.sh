#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: kslot against XArray, IDR, kmem_cache, objpool and Rust's
# slotmap.
#
# Usage: scripts/bench.sh [--native] OUTDIR
#
#  1. builds kslot.ko and kslot_bench.ko against Debian's stock 6.12
#     headers (from a copy of the sources), boots that kernel's image in
#     the QEMU VM, loads kslot_bench.ko at every size and runs
#     kslot_ioctl_bench (8-byte records, then map GETs at 64, 256 and
#     1024 bytes) in the guest (skipped with --native, which is
#     "make bench-native"), then boots it again with QEMU -icount for
#     kslot_ioctl_bench alone (rows ioctl_icount_*: guest time counts
#     instructions);
#  2. builds the native benchmark (bench/native, with the slotmap crate
#     from Debian's librust-slotmap-dev) against the kernel tree of
#     scripts/kernel.sh, runs it, counts lookup instructions and the
#     instructions of an alloc+remove pair with valgrind
#     --tool=callgrind, and the atomic read-modify-writes per pair and
#     per lookup with the counting build (kslot_native_bench_count, into
#     atomics.tap);
#  3. boots the test kernel with the iommufd client (make iommufd,
#     clients/iommufd/) and times IOMMU_IOAS_IOVA_RANGES, an ioctl that
#     resolves an object id, on the stock iommufd.ko and on the kslot
#     conversion in turn, in one boot (skipped with --native);
#  4. bench/report.py prints the table and the goals, and writes
#     OUTDIR/results.json, OUTDIR/results.png and OUTDIR/summary.png.
#
# Environment: KSLOT_BENCH_SIZES (in-kernel sizes, default
# 1024,65536,1048576), KSLOT_BENCH_NATIVE_SIZES (default
# 1024,65536,1048576,16777216), KSLOT_BENCH_REPS (default 5),
# KSLOT_BENCH_NATIVE_REPS (default 5; at most 3 from 4M entries on),
# KSLOT_BENCH_ONLY (groups of kslot_bench.ko rows, e.g. "hive"; when set,
# the ioctl bench is skipped, and for "hive" the native bench runs only the
# hive rows).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
native_only=
if [ "${1:-}" = --native ]; then
	native_only=1
	shift
fi
case "$#:${1:-}" in
1:[!-]*) ;;
*) echo "usage: $0 [--native] OUTDIR" >&2; exit 2 ;;
esac
mkdir -p "$1"
out=$(cd "$1" && pwd)
sizes=${KSLOT_BENCH_SIZES:-1024,65536,1048576}
nsizes=${KSLOT_BENCH_NATIVE_SIZES:-1024,65536,1048576,16777216}
reps=${KSLOT_BENCH_REPS:-5}
nreps=${KSLOT_BENCH_NATIVE_REPS:-5}
only=${KSLOT_BENCH_ONLY:-}
rm -f "$out"/kernel.tap "$out"/native.tap "$out"/iommufd.tap "$out"/callgrind.* \
	"$out"/callgrind-churn*.out "$out"/atomics.tap
ksrc=$(readlink -f "$("$top/scripts/kernel.sh")/source")

# The in-kernel half, in the VM.
kernel_half() {
	local ver root src

	local got
	got=$("$top/scripts/stock-kernel.sh" 6.12)
	read -r ver root <<< "$got"
	echo "bench.sh: building kslot_bench.ko against linux-headers-$ver" >&2
	src=$out/kmod
	rm -rf "$out/files"
	mkdir -p "$out/files"
	"$top/scripts/build-copy.sh" "$root/usr/src/linux-headers-$ver" "$src"
	cp "$src/bench/kslot_bench.ko" "$out/files/"
	cat > "$out/guest.sh" <<-GUEST
	insmod /files/kslot_bench.ko sizes=$sizes reps=$reps ${only:+only=$only}
	dmesg | sed -n 's/^.*kslot_bench: //p'
	rmmod kslot_bench
	${only:+: }kslot_ioctl_bench -n 65536 -r $reps
	GUEST

	echo "bench.sh: booting Debian kernel $ver (this takes minutes under TCG)" >&2
	KSLOT_KO_DIR=$src KSLOT_VM_TIMEOUT=${KSLOT_VM_TIMEOUT:-3000} \
		"$top/scripts/vm.sh" script "$root/boot/vmlinuz-$ver" "$out/vm" \
		"$out/guest.sh" "$out/files"
	sed -n '/^@@script/,/^@@exit/p' "$out/vm/results.log" | tr -d '\r' |
		grep -v '^@@' > "$out/kernel.tap" || true
	if grep -qE 'BUG:|WARNING:|Oops|Call Trace:' "$out/vm/console.log"; then
		echo "bench.sh: kernel splat during the benchmark, see $out/vm/console.log" >&2
		exit 1
	fi
	[ -n "$only" ] && return
	# The ioctl rows again with guest time counting instructions
	# (QEMU -icount), as rows ioctl_icount_*.
	echo "kslot_ioctl_bench -n 65536 -r 1" > "$out/guest-icount.sh"
	echo "bench.sh: booting $ver again with -icount for the ioctl rows" >&2
	KSLOT_KO_DIR=$src KSLOT_VM_ICOUNT=1 \
		KSLOT_VM_TIMEOUT=${KSLOT_VM_TIMEOUT:-3000} \
		"$top/scripts/vm.sh" script "$root/boot/vmlinuz-$ver" \
		"$out/vm-icount" "$out/guest-icount.sh" "$out/files"
	sed -n '/^@@script/,/^@@exit/p' "$out/vm-icount/results.log" |
		tr -d '\r' | grep -v '^@@' |
		sed -n -e '/^ok /{s/ ioctl_/ ioctl_icount_/;s/=ioctl_/=ioctl_icount_/;p}' \
			-e '/^not ok /p' -e 's/^# ioctl /# ioctl icount /p' \
		>> "$out/kernel.tap" || true
	if grep -qE 'BUG:|WARNING:|Oops|Call Trace:' "$out/vm-icount/console.log"; then
		echo "bench.sh: kernel splat during the benchmark, see $out/vm-icount/console.log" >&2
		exit 1
	fi
}

# iommufd, stock against converted, on the test kernel (the only one with
# CONFIG_IOMMUFD_TEST and the modules built for it): a debug kernel, so
# both sides pay for KASAN and lockdep alike; the ratio is what counts.
# Three alternations of the two modules, the best run of each.
iommufd_half() {
	local kdir=$1 d=$top/build/iommufd/vm
	[ -x "$d/iommufd_bench" ] || {
		echo "bench.sh: $d not built (make iommufd)" >&2
		return 1
	}
	cat > "$out/iommufd-guest.sh" <<-'GUEST'
	for rep in 1 2 3; do
		for m in stock kslot; do
			name=iommufd
			[ $m = kslot ] && name=iommufd_kslot
			insmod /files/$name.ko || exit 1
			echo "$m $(/files/iommufd_bench 3)"
			rmmod $name
		done
	done
	GUEST
	echo "bench.sh: booting the test kernel for the iommufd rows" >&2
	KSLOT_VM_TIMEOUT=${KSLOT_VM_TIMEOUT:-900} \
		"$top/scripts/vm.sh" script "$kdir" "$out/vm-iommufd" \
		"$out/iommufd-guest.sh" "$d"
	if grep -qE 'BUG:|WARNING:|Oops|Call Trace:' "$out/vm-iommufd/console.log"; then
		echo "bench.sh: kernel splat during the iommufd benchmark, see $out/vm-iommufd/console.log" >&2
		exit 1
	fi
	tr -d '\r' < "$out/vm-iommufd/results.log" | awk '
		$1 ~ /^(stock|kslot)$/ && $2 ~ /^ops=/ {
			split($3, a, "="); ns = a[2] + 0
			if (!($1 in best) || ns < best[$1]) best[$1] = ns
		}
		END {
			if (!("stock" in best) || !("kslot" in best)) {
				print "not ok 1 iommufd_ioas_iova_ranges"; exit
			}
			printf "# iommufd: IOMMU_IOAS_IOVA_RANGES on the debug test kernel, best of 3: stock %.0f ops/s, kslot %.0f ops/s\n",
				1e9 / best["stock"], 1e9 / best["kslot"]
			printf "ok 1 iommufd_ioas_iova_ranges size=1 kslot_ns=%.1f anchor=iommufd_stock_xarray anchor_ns=%.1f kslot_ops_s=%.0f stock_ops_s=%.0f\n",
				best["kslot"], best["stock"], 1e9 / best["kslot"], 1e9 / best["stock"]
		}' > "$out/iommufd.tap"
}

[ -n "$native_only" ] || kernel_half
[ -n "$native_only" ] || iommufd_half "$("$top/scripts/kernel.sh")"

echo "bench.sh: native build against $ksrc" >&2
make -s -C "$top/bench/native" KSRC="$ksrc" O="$out/native" >&2
# Kernel memory is mapped with huge pages (the direct map for slabs,
# huge vmap for kvmalloc()): kslot's side gets them from the shim's
# arena, and the anchors that are userspace code get transparent huge
# pages through glibc's malloc alike (Rust's global allocator is malloc).
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
	"$out/native/kslot_native_bench" -r "$nreps" \
	${only:+$([ "$only" = hive ] && echo --hive)} ${nsizes//,/ } \
	> "$out/native.tap"
echo "bench.sh: callgrind instruction counts (1M random lookups, pool operations)" >&2
valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" \
	"$out/native/kslot_native_bench" --count 1048576 \
	> /dev/null 2> "$out/callgrind.log"
callgrind_annotate --inclusive=yes "$out/callgrind.out" \
	> "$out/callgrind.txt"
# Instructions per alloc+remove pair (report.py divides by the 65536
# pairs), and atomics per pair and per lookup.
valgrind --tool=callgrind --toggle-collect=kn_count_churn \
	--callgrind-out-file="$out/callgrind-churn.out" \
	"$out/native/kslot_native_bench" --count-churn 65536 \
	> /dev/null 2>> "$out/callgrind.log"
"$out/native/kslot_native_bench_count" --count-atomics 65536 \
	> "$out/atomics.tap"
# The pair's floor: the core's fast paths inlined into the same loop.
valgrind --tool=callgrind --toggle-collect=kn_count_churn_floor \
	--callgrind-out-file="$out/callgrind-churnfloor.out" \
	"$out/native/kslot_native_bench" --count-churn-floor 65536 \
	> /dev/null 2>> "$out/callgrind.log"
# The same pairs through kslot_map_remove_bulk() and kslot_map_alloc_bulk().
valgrind --tool=callgrind --toggle-collect=kn_count_bulk_churn \
	--callgrind-out-file="$out/callgrind-churnbulk.out" \
	"$out/native/kslot_native_bench" --count-bulk-churn 65536 \
	> /dev/null 2>> "$out/callgrind.log"

python3 "$top/bench/report.py" ${native_only:+--native} "$out"
