#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the kslot test VM.
#
# Usage: scripts/vm.sh [--arch ARCH] MODE KERNEL OUTDIR [SCRIPT [FILES]]
#   ARCH    amd64 (the default: qemu-system-x86_64) or arm64
#           (qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
#   MODE    check (KUnit + selftests + kmemleak), stock (the same on a
#           kernel without KUnit), run (the demo) or script (run SCRIPT
#           with FILES in /files)
#   KERNEL  a kernel build tree (its arch/x86/boot/bzImage or
#           arch/arm64/boot/Image) or an image
#   OUTDIR  where the initramfs, console.log and results.log go
#
# The initramfs holds busybox ($KSLOT_BUSYBOX, default /bin/busybox; an
# arm64 one for arm64), kslot.ko and kslot_dev.ko (from
# $KSLOT_KO_DIR, default the source tree), the KUnit modules (check mode:
# the *_test.ko of $KSLOT_TESTS_DIR, default build/tests), the
# selftests (build/selftests/*), the tools (build/bin/*; for arm64,
# build/arm64/selftests and build/arm64/bin: "make selftests tools
# ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" builds them), the demo
# (scripts/demo.sh), in check mode the driver examples
# ($KSLOT_KO_DIR/docs/example/*.ko, which "make examples" builds; those
# whose vermagic is kslot.ko's) and, in check mode with
# $KSLOT_IOMMUFD_DIR set, the
# iommufd client (scripts/iommufd.sh) in /lib/kslot/iommufd, with
# $KSLOT_IOMMUFD_MODULES (default "stock kslot") the iommufd modules it
# runs the selftests on; and, in check and stock modes with
# $KSLOT_RDMA_DIR set, the RDMA client (scripts/rdma.sh's OUT/vm, with the
# packed userland build/rdma/root) in /lib/kslot/rdma, with
# $KSLOT_RDMA_MODULES (default "stock kslot") the uverbs modules it runs
# on, $KSLOT_RDMA_SUITE the arguments that pick a subset of rdma-core's
# suite (default all), $KSLOT_RDMA_CHURN the stale-handle test's rounds
# of churn (default 20,000) and $KSLOT_RDMA_BENCH, when set, the benchmark's
# arguments (the benchmark then runs instead of the tests).  OUTDIR/
# rdma-cache then names where the stock module's results are cached
# (scripts/verdict.py).
#
# While QEMU runs, scripts/vm-progress.py prints a line per suite or
# program the guest reports, a kernel panic/Oops/BUG/WARNING line as it
# reaches the console, and a warning when the guest has written nothing
# for $KSLOT_VM_SILENCE seconds (default 300; the VM is not stopped for
# that: $KSLOT_VM_TIMEOUT, default 2700, does).  OUTDIR/vm-time gets the
# VM's wall time in seconds, for scripts/verdict.py's summary.
#
# $KSLOT_VM_APPEND is added to the kernel command line (a developer's
# knob: kunit.filter_glob=... to run some KUnit cases of a suite).
#
# For VMs that run at once (make check): $KSLOT_VM_LABEL names this one in
# every line printed, and the file $KSLOT_VM_STAGED is created once the
# initramfs is written (nothing of the tree is read after that).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 [--arch amd64|arm64] check|stock|run|script KERNEL OUTDIR [SCRIPT [FILES]]" >&2
	exit 2
}
arch=amd64
if [ "${1:-}" = --arch ]; then
	[ $# -ge 2 ] || usage
	arch=$2
	shift 2
fi
case "$arch" in
amd64 | arm64) ;;
*) usage ;;
esac
if [ $# -lt 3 ] || [ $# -gt 5 ]; then
	usage
fi
case "$1" in
check | stock | run) [ $# = 3 ] || usage ;;
script) [ $# -ge 4 ] || usage ;;
*) usage ;;
esac
mode=$1 kernel=$2 out=$3
script=${4:-} files=${5:-}
timeout=${KSLOT_VM_TIMEOUT:-2700}
root=$out/initramfs

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,lib/kslot/tests,selftests,demo,files,etc}
# The user-space programs of ARCH (build/ for the host's, build/ARCH/).
ubuild=$top/build
[ "$arch" = amd64 ] || ubuild=$top/build/$arch
cp "${KSLOT_BUSYBOX:-/bin/busybox}" "$root/bin/busybox"
cp "$top/scripts/init.sh" "$root/init"
chmod +x "$root/init"
kodir=${KSLOT_KO_DIR:-$top}
cp "$kodir/kslot.ko" "$kodir/kslot_dev.ko" "$root/lib/kslot/"
# The benchmark module, for bench/kslot_bench.sh (check, stock modes).
[ -e "$kodir/bench/kslot_bench.ko" ] &&
	cp "$kodir/bench/kslot_bench.ko" "$root/lib/kslot/"
# The driver examples (check mode): those built for this kernel, against
# kslot's headers as they are (a developer's loop may rebuild kslot.ko
# alone; make examples rebuilds them).
mkdir -p "$root/lib/kslot/examples"
for ko in "$kodir"/docs/example/*.ko; do
	if [ "$mode" != check ] || [ ! -e "$ko" ]; then
		continue
	fi
	# kslot's headers it was built with (kbuild's record of them).
	newer=$({ grep -o '[^ ]*/include/linux/kslot_[a-z0-9_]*\.h' \
		"${ko%/*}/.$(basename "$ko" .ko).o.cmd" 2>/dev/null || true; } |
		while read -r h; do
			if [ "$h" -nt "$ko" ]; then echo "$h"; fi
		done)
	magic=$(modinfo -F vermagic "$kodir/kslot.ko")
	if [ "$(modinfo -F vermagic "$ko")" != "$magic" ] || [ -n "$newer" ]; then
		echo "vm.sh: ${ko#"$kodir"/} is not built for this kernel" \
			"and these headers: not staged (make examples)" >&2
		continue
	fi
	cp "$ko" "$root/lib/kslot/examples/"
done
testsdir=${KSLOT_TESTS_DIR:-$top/build/tests}
[ "$mode" = check ] &&
	{ cp "$testsdir"/*_test.ko "$root/lib/kslot/tests/" 2>/dev/null || true; }
# iommufd, stock and converted (check mode; scripts/iommufd.sh builds it
# for the test kernel only).
if [ "$mode" = check ] && [ -n "${KSLOT_IOMMUFD_DIR:-}" ]; then
	cp -r "$KSLOT_IOMMUFD_DIR" "$root/lib/kslot/iommufd"
	echo "${KSLOT_IOMMUFD_MODULES:-stock kslot}" > "$root/lib/kslot/iommufd/modules"
fi
rm -f "$out/rdma-cache"
if { [ "$mode" = check ] || [ "$mode" = stock ]; } && [ -n "${KSLOT_RDMA_DIR:-}" ]; then
	cp -r "$KSLOT_RDMA_DIR" "$root/lib/kslot/rdma"
	cp -r "$top/build/rdma/root" "$root/lib/kslot/rdma/root"
	echo "${KSLOT_RDMA_MODULES:-stock kslot}" > "$root/lib/kslot/rdma/run-modules"
	[ -n "${KSLOT_RDMA_SUITE:-}" ] &&
		echo "$KSLOT_RDMA_SUITE" > "$root/lib/kslot/rdma/suite"
	[ -n "${KSLOT_RDMA_CHURN:-}" ] &&
		echo "$KSLOT_RDMA_CHURN" > "$root/lib/kslot/rdma/churn"
	[ -n "${KSLOT_RDMA_BENCH:-}" ] &&
		echo "$KSLOT_RDMA_BENCH" > "$root/lib/kslot/rdma/bench"
	cp "$KSLOT_RDMA_DIR/../stock-cache" "$out/rdma-cache"
fi
if [ "$mode" = check ] || [ "$mode" = stock ]; then
	[ -d "$ubuild/selftests" ] && cp -r "$ubuild/selftests/." "$root/selftests/"
fi
[ -d "$ubuild/bin" ] && cp -r "$ubuild/bin/." "$root/bin/"
if [ "$mode" = run ]; then
	cp "$kodir/kslot_demo.ko" "$root/lib/kslot/"
	cp "$top/scripts/demo.sh" "$root/demo/run.sh"
	cp "$top/scripts/demo.kslot" "$root/demo/demo.kslot"
	chmod +x "$root/demo/run.sh"
fi
if [ "$mode" = script ]; then
	[ -n "$files" ] && cp -r "$files/." "$root/files/"
	cp "$script" "$root/files/.kslot-script"
fi
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.cpio.gz"
[ -n "${KSLOT_VM_STAGED:-}" ] && touch "$KSLOT_VM_STAGED"
label=${KSLOT_VM_LABEL:+$KSLOT_VM_LABEL }

image=$kernel
# The machine of ARCH: the kernel console on its first serial port, the
# results on a second one (x86) or on a virtio console (arm64's virt
# machine has one serial port; init.sh reads kslot_results=).
case "$arch" in
amd64)
	[ -d "$kernel" ] && image=$kernel/arch/x86/boot/bzImage
	qemu=(qemu-system-x86_64 -accel tcg)
	smp=2
	console=ttyS0
	results=(-serial "file:$out/results.log")
	;;
arm64)
	[ -d "$kernel" ] && image=$kernel/arch/arm64/boot/Image
	# Full pointer-authentication emulation (QARMA) is slow under TCG;
	# the implementation-defined algorithm is what CI systems use.
	# shellcheck disable=SC2054 # QEMU's commas, in one word
	qemu=(qemu-system-aarch64 -accel tcg -M virt -cpu max,pauth-impdef=on)
	smp=2
	console="ttyAMA0 kslot_results=hvc0"
	# shellcheck disable=SC2054 # QEMU's commas, in one word
	results=(-device virtio-serial-pci
		-chardev "file,id=results,path=$out/results.log"
		-device virtconsole,chardev=results)
	;;
esac
# A KUnit case provokes a KASAN report on purpose (kslot_pool's
# kasan_sees_use_after_free): report every bug, not only the first.  A
# kernel without KASAN passes the word on to init, which ignores it.
extra=" kasan_multi_shot${KSLOT_VM_APPEND:+ $KSLOT_VM_APPEND}"
# KSLOT_VM_ICOUNT=1: guest time counts instructions (1 ns each), so a
# benchmark's figures are instruction counts, free of the host's load and
# of the soft-MMU's refills.
icount=
[ "${KSLOT_VM_ICOUNT:-}" = 1 ] && icount="-icount shift=0,sleep=off"
# The test kernels (configs/kslot-test.config) have no ACPI:
# - they find the CPUs in the firmware's MP table, which lists one CPU
#   per package, so each vCPU is a package of its own;
# - they have no HPET or PM timer to calibrate the TSC and the local APIC
#   timer against, and the PIT alone fails on a busy host (the kernel
#   then falls back to a jiffies clock and a broadcast tick).  Under TCG
#   the guest's TSC is the host's (a 1 GHz count of guest time with
#   -icount), and QEMU's APIC timer counts at 1 GHz: both are given.
if [ "$arch" = amd64 ] && [ -f "$kernel/.config" ] &&
   ! grep -q '^CONFIG_ACPI=y' "$kernel/.config"; then
	smp=2,sockets=2
	khz=1000000
	if [ -z "$icount" ]; then
		khz=$(cc -O2 -o "$out/tsc-khz" "$top/scripts/tsc-khz.c" &&
			"$out/tsc-khz") ||
			{ echo "vm.sh: cannot measure the host's TSC" >&2; exit 1; }
	fi
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$kernel/.config")
	extra+=" tsc_early_khz=$khz tsc=reliable lapic_timer_period=$((1000000000 / hz))"
fi
silence=${KSLOT_VM_SILENCE:-300}
rm -f "$out/console.log" "$out/results.log" "$out/vm-time"
echo "vm.sh: ${label}booting $mode VM ($arch, TCG, 2 vCPUs); console in $out/console.log" >&2
set +e
# The progress reader of the running boot: stopped (it prints what is
# left, then exits) and waited for when QEMU exits, and on any exit of
# this script; it also exits by itself if this script is gone.
progress=
stop_progress() {
	[ -n "$progress" ] || return 0
	kill -TERM "$progress" 2>/dev/null
	wait "$progress" 2>/dev/null
	progress=
	return 0
}
trap stop_progress EXIT
boot() {
	python3 "$top/scripts/vm-progress.py" "$out" "$silence" >&2 </dev/null &
	progress=$!
	# shellcheck disable=SC2086 # $icount is two words or none
	timeout --foreground -k 10 "$timeout" \
		"${qemu[@]}" $icount -smp "$smp" -m 2G -no-reboot \
		-kernel "$image" \
		-initrd "$out/initramfs.cpio.gz" \
		-append "console=$console loglevel=7 oops=panic panic=-1 kslot_mode=$mode$extra" \
		-display none -monitor none -nodefaults \
		-serial "file:$out/console.log" "${results[@]}" \
		</dev/null
	local qrc=$?
	stop_progress
	return $qrc
}
started=$SECONDS
boot
rc=$?
# A kernel that panics before it runs init (nothing of kslot is loaded
# yet) is a boot flake of the emulator (seen with the stock kernels: an
# int3 of text patching in early boot under TCG).  Boot once more, keeping
# the first console; a panic once init has started is never retried.
if grep -q "Kernel panic" "$out/console.log" &&
   ! grep -q "Run /init as init process" "$out/console.log"; then
	mv "$out/console.log" "$out/console-boot1.log"
	echo "vm.sh: ${label}the kernel panicked before init (console-boot1.log); booting again" >&2
	boot
	rc=$?
fi
echo $((SECONDS - started)) > "$out/vm-time"
set -e
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "vm.sh: ${label}VM timed out after ${timeout}s" >&2
	echo "@@timeout" >> "$out/results.log"
fi
exit 0
