#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the kslot test VM (busybox).  The kernel log goes to ttyS0
# (console.log on the host); results go to ttyS1 (results.log) between
# "@@" markers that scripts/verdict.py reads.  (On arm64: ttyAMA0 and
# hvc0.)
# Usage: boot it as /init (scripts/vm.sh does); it takes no arguments of
# its own and ignores the words the kernel passes on from its command line.
if [ "$$" != 1 ]; then
	echo "usage: the kslot test VM's /init, as PID 1 (scripts/vm.sh)" >&2
	exit 2
fi
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
mkdir -p /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
# The random pool ready before anything runs: its readiness flips a
# static key, kernel text patched through int3 breakpoints, which under
# TCG, with another vCPU running the patched code, once killed a stock
# 6.12-rt boot mid-test (Oops: int3 in get_random_u32).  A read of
# /dev/random waits for it (the kernel's jitter entropy: seconds).
head -c 1 /dev/random > /dev/null

# The results port: the second serial port (x86), or the one named on the
# command line (kslot_results=hvc0, a virtio console, on arm64's virt
# machine, which has one serial port).
mode=check
R=/dev/ttyS1
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	kslot_mode=*) mode=${arg#kslot_mode=} ;;
	kslot_results=*) R=/dev/${arg#kslot_results=} ;;
	esac
done
stty -F $R raw -echo 2>/dev/null
res() { echo "$*" > $R; }

# Expected injected failures must not print stack traces.
for d in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
	[ -d $d ] && echo 0 > $d/verbose
done

finish() {
	res "@@done"
	sync
	reboot -f
}

kmemleak_scan() {
	[ -e /sys/kernel/debug/kmemleak ] || return 0
	# Objects younger than a few seconds are never reported: scan twice.
	echo scan > /sys/kernel/debug/kmemleak
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	res "@@kmemleak"
	cat /sys/kernel/debug/kmemleak > $R
	# Also on the console, where the splat scan sees it.
	cat /sys/kernel/debug/kmemleak
	res "@@end"
}

# The library first; /dev/kslot (kslot_dev.ko, which depends on it) where
# the device is needed: after the KUnit suites in check mode, at once in
# the others.  Unloaded in the reverse order.
if ! insmod /lib/kslot/kslot.ko; then
	res "@@fatal insmod kslot.ko failed"
	finish
fi
load_dev() {
	insmod /lib/kslot/kslot_dev.ko || res "@@fatal insmod kslot_dev.ko failed"
}
unload() {
	rmmod kslot_dev || res "@@fatal rmmod kslot_dev failed"
	rmmod kslot || res "@@fatal rmmod kslot failed"
}

case "$mode" in
check | stock)
	# Every VM has two vCPUs (scripts/vm.sh): the concurrency tests skip
	# with one, so one is a failure of the VM.
	ncpus=$(grep -c '^processor' /proc/cpuinfo)
	[ "$ncpus" = 2 ] || res "@@fatal $ncpus CPUs online, not 2"
	# kslot_pool_test goes last: its final case provokes a KASAN report,
	# and a KASAN report turns lock debugging off for the rest of the boot.
	last=/lib/kslot/tests/kslot_pool_test.ko
	for ko in /lib/kslot/tests/*.ko; do
		[ -e "$ko" ] && [ "$ko" != "$last" ] || continue
		insmod "$ko" || res "@@fatal insmod $ko failed"
	done
	for d in /sys/kernel/debug/kunit/*/; do
		[ -e "$d/results" ] || continue
		res "@@kunit $(basename $d)"
		cat "$d/results" > $R
		res "@@end"
	done
	for ko in /lib/kslot/tests/*.ko; do
		[ -e "$ko" ] && [ "$ko" != "$last" ] && rmmod "$(basename $ko .ko)"
	done
	# The driver examples (docs/example/): loaded and unloaded, with
	# their own lines from the kernel log.  The worked example's init
	# churns for a few seconds and fails on any wrong lookup; its exit
	# tears everything down.
	for ko in /lib/kslot/examples/*.ko; do
		[ -e "$ko" ] || continue
		name=$(basename "$ko" .ko)
		res "@@example $name"
		insmod "$ko" > $R 2>&1
		res "insmod $?"
		rmmod "$name" > $R 2>&1
		res "rmmod $?"
		dmesg | sed -n "s/^\(\[[^]]*\] *\)\{0,1\}\($name: .*\)/\2/p" > $R
		res "@@end"
	done
	load_dev
	for t in /selftests/*; do
		[ -x "$t" ] || continue
		res "@@tap $(basename $t)"
		(cd /selftests && "$t") > $R 2>&1
		res "@@exit $(basename $t) $?"
	done
	# iommufd, stock then converted (clients/iommufd/run.sh), while
	# lock debugging is still on.
	[ -e /lib/kslot/iommufd/run.sh ] && . /lib/kslot/iommufd/run.sh
	# RDMA verbs, stock ib_uverbs then converted (clients/rdma/run.sh).
	[ -e /lib/kslot/rdma/run.sh ] && . /lib/kslot/rdma/run.sh
	if [ -e "$last" ]; then
		insmod "$last" || res "@@fatal insmod $last failed"
		d=/sys/kernel/debug/kunit/kslot_pool
		if [ -e "$d/results" ]; then
			res "@@kunit kslot_pool"
			cat "$d/results" > $R
			res "@@end"
		fi
		rmmod kslot_pool_test
	fi
	unload
	kmemleak_scan
	;;
run)
	load_dev
	if [ -x /demo/run.sh ]; then
		res "@@demo"
		/demo/run.sh > $R 2>&1
		res "@@exit demo $?"
	fi
	unload
	;;
script)
	load_dev
	res "@@script"
	(cd /files && sh /files/.kslot-script) > $R 2>&1
	res "@@exit script $?"
	;;
esac
finish
