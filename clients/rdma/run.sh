# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# RDMA verbs in a VM, sourced by scripts/init.sh (its res() and $R): the
# kernel's own ib_uverbs.ko (the baseline), then ib_uverbs_kslot.ko (the
# kslot conversion), each beside the kernel's ib_core, rdma_rxe and
# rdma_ucm, with an rxe device on a dummy netdev: our stale-handle test
# and rdma-core's suite (run_tests.py), in a chroot into the packed
# userland (scripts/rdma.sh).  Each run is a section "@@rdma MODULE
# PROGRAM" .. "@@end" that scripts/verdict.py compares;
# "@@rdma-time MODULE SECONDS" is how long a module took.
#
# RDMA_DIR (default /lib/kslot/rdma) is where the files are.  Files there
# that change what runs: "run-modules" (default "stock kslot"; make check
# writes "kslot" when the stock module's results are cached), "suite"
# (arguments to run_tests.py after --dev rxe0 -v, e.g. a list of test
# modules for a subset; default all), "churn" (the stale-handle test's
# rounds of churn; default its own, 20,000), "bench" (run rdma_bench with these
# arguments instead of the tests, a section "@@rdma MODULE bench").
rdma_dir=${RDMA_DIR:-/lib/kslot/rdma}
rdma_root=$rdma_dir/root
rdma_modules="stock kslot"
[ -f $rdma_dir/run-modules ] && rdma_modules=$(cat $rdma_dir/run-modules)
rdma_suite=
[ -e $rdma_dir/suite ] && rdma_suite=$(cat $rdma_dir/suite)
rdma_churn=
[ -e $rdma_dir/churn ] && rdma_churn=$(cat $rdma_dir/churn)

rdma_chroot() {
	chroot $rdma_root /bin/env -i PATH=/usr/bin:/bin HOME=/tmp "$@"
}

rdma_setup() {
	for m in $(cat $rdma_dir/modules/order); do
		case $m in
		ib_uverbs | rdma_rxe | rdma_ucm) continue ;;
		esac
		insmod $rdma_dir/modules/$m.ko ||
			res "@@fatal insmod $m.ko failed"
	done
	# insmod dummy creates dummy0; rxe binds to it and answers its own
	# address inside the kernel (documentation range, nothing leaves).
	ip link set dummy0 up
	ip addr add 192.0.2.1/24 dev dummy0
	cp $rdma_dir/rdma_* $rdma_root/usr/bin/ 2>/dev/null
	mount -t proc proc $rdma_root/proc
	mount -t sysfs sysfs $rdma_root/sys
	mount -t devtmpfs devtmpfs $rdma_root/dev
	mount -t tmpfs tmpfs $rdma_root/tmp
	mkdir -p $rdma_root/dev/shm
	mount -t tmpfs tmpfs $rdma_root/dev/shm
}

rdma_teardown() {
	umount $rdma_root/dev/shm $rdma_root/tmp $rdma_root/dev \
		$rdma_root/sys $rdma_root/proc
}

rdma_setup
for m in $rdma_modules; do
	ko=$rdma_dir/modules/ib_uverbs.ko name=ib_uverbs
	[ $m = kslot ] && ko=$rdma_dir/ib_uverbs_kslot.ko name=ib_uverbs_kslot
	t0=$(date +%s)
	# The console between the markers is this module's (verdict.py).
	echo "kslot-rdma: begin $m" > /dev/kmsg
	if ! insmod $ko; then
		echo "kslot-rdma: end $m" > /dev/kmsg
		res "@@fatal insmod $ko failed"
		continue
	fi
	insmod $rdma_dir/modules/rdma_rxe.ko || res "@@fatal insmod rdma_rxe.ko failed"
	insmod $rdma_dir/modules/rdma_ucm.ko || res "@@fatal insmod rdma_ucm.ko failed"
	if ! rdma_chroot rdma link add rxe0 type rxe netdev dummy0; then
		res "@@fatal rdma link add rxe0 failed"
	elif [ -e $rdma_dir/bench ]; then
		res "@@rdma $m bench"
		# shellcheck disable=SC2046 # the file holds the arguments
		rdma_chroot /usr/bin/rdma_bench $(cat $rdma_dir/bench) > $R 2>&1
		res "@@end"
	else
		res "@@rdma $m rdma_stale"
		rdma_chroot /usr/bin/rdma_stale $m rxe0 $rdma_churn > $R 2>&1
		res "@@end"
		res "@@rdma $m suite"
		# shellcheck disable=SC2086 # the file holds the arguments
		rdma_chroot /usr/bin/python3 /tests/run_tests.py --dev rxe0 -v \
			$rdma_suite > $R 2>&1
		res "@@end"
	fi
	rdma_chroot rdma link delete rxe0
	rmmod rdma_ucm rdma_rxe $name || res "@@fatal rmmod $name failed"
	echo "kslot-rdma: end $m" > /dev/kmsg
	res "@@rdma-time $m $(($(date +%s) - t0))"
done
rdma_teardown
