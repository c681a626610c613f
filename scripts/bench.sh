#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: kslot against XArray, IDR, kmem_cache and objpool.
#
# Usage: scripts/bench.sh OUTDIR
#
#  1. builds kslot.ko and kslot_bench.ko against Debian's stock 6.12
#     headers (from a copy of the sources), boots that kernel's image in
#     the QEMU VM, loads kslot_bench.ko at every size and runs
#     kslot_ioctl_bench in the guest;
#  2. builds the native benchmark (bench/native) against the kernel tree
#     of scripts/kernel.sh, runs it, and counts lookup instructions with
#     valgrind --tool=callgrind;
#  3. bench/report.py prints the table and the goals, and writes
#     OUTDIR/results.json and OUTDIR/results.png.
#
# Environment: KSLOT_BENCH_SIZES (default 1024,65536,1048576),
# KSLOT_BENCH_REPS (default 5), KSLOT_BENCH_NATIVE_REPS (default 5),
# KSLOT_BENCH_ONLY (kslot_bench.ko groups, e.g. "pool,smp"; default all).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
sizes=${KSLOT_BENCH_SIZES:-1024,65536,1048576}
reps=${KSLOT_BENCH_REPS:-5}
nreps=${KSLOT_BENCH_NATIVE_REPS:-5}
mkdir -p "$out"
rm -f "$out"/kernel.tap "$out"/native.tap "$out"/callgrind.*

ver=$("$top/scripts/stock-kernel.sh" 6.12)
ksrc=$(readlink -f "$("$top/scripts/kernel.sh")/source")

echo "bench.sh: building kslot_bench.ko against linux-headers-$ver" >&2
src=$out/kmod
rm -rf "$src" "$out/files"
mkdir -p "$src" "$out/files"
cp -r "$top/Kbuild" "$top/module" "$top/include" "$top/kunit" "$top/bench" \
	"$src/"
make -s -C "/usr/src/linux-headers-$ver" M="$src" W=1 modules >&2
make -s -C "/usr/src/linux-headers-$ver" M="$src/bench" \
	KBUILD_EXTRA_SYMBOLS="$src/Module.symvers" W=1 modules >&2
cp "$src/bench/kslot_bench.ko" "$out/files/"
only=${KSLOT_BENCH_ONLY:-}
ioctl="kslot_ioctl_bench -n 65536 -r $reps"
# A subset of the in-kernel groups (kslot_bench.ko only=) skips the ioctl
# benchmark.
[ -n "$only" ] && ioctl=
cat > "$out/guest.sh" <<GUEST
insmod /files/kslot_bench.ko sizes=$sizes reps=$reps only=$only
dmesg | sed -n 's/^.*kslot_bench: //p'
rmmod kslot_bench
$ioctl
GUEST

echo "bench.sh: booting Debian kernel $ver (this takes minutes under TCG)" >&2
KSLOT_KO_DIR=$src KSLOT_VM_TIMEOUT=${KSLOT_VM_TIMEOUT:-3000} \
	"$top/scripts/vm.sh" script "/boot/vmlinuz-$ver" "$out/vm" \
	"$out/guest.sh" "$out/files"
sed -n '/^@@script/,/^@@exit/p' "$out/vm/results.log" | tr -d '\r' |
	grep -v '^@@' > "$out/kernel.tap" || true
if grep -qE 'BUG:|WARNING:|Oops|Call Trace:' "$out/vm/console.log"; then
	echo "bench.sh: kernel splat during the benchmark, see $out/vm/console.log" >&2
	exit 1
fi

echo "bench.sh: native build against $ksrc" >&2
make -s -C "$top/bench/native" KSRC="$ksrc" O="$out/native" >&2
# Kernel memory is mapped with huge pages (the direct map for slabs,
# huge vmap for kvmalloc()): give both native sides transparent huge
# pages through glibc's malloc alike.
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
	"$out/native/kslot_native_bench" -r "$nreps" ${sizes//,/ } \
	> "$out/native.tap"
echo "bench.sh: callgrind instruction counts (1M random lookups, pool operations)" >&2
valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" \
	"$out/native/kslot_native_bench" --count 1048576 \
	> /dev/null 2> "$out/callgrind.log"
callgrind_annotate --inclusive=yes "$out/callgrind.out" \
	> "$out/callgrind.txt"

python3 "$top/bench/report.py" "$out"
