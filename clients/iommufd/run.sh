# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# iommufd in the check VM, sourced by scripts/init.sh (its res() and $R):
# the kernel's own iommufd.ko (the baseline), then iommufd_kslot.ko (the
# kslot conversion), each with iommufd's selftests (iommufd,
# iommufd_fail_nth) and our stale-id test.  Each run is a section
# "@@iommufd MODULE PROGRAM" .. "@@end" of TAP that scripts/verdict.py
# compares; "@@iommufd-time MODULE SECONDS" is how long a module took.
# IOMMUFD_DIR (default /lib/kslot/iommufd) is where the files are; for
# make vm-run, clients/iommufd/vm-run.sh sources this from /files.
# IOMMUFD_DIR/modules, when present, names the modules to run: make check
# writes "kslot" there when the stock module's results are cached
# (scripts/iommufd.sh); by default both run.
iommufd_dir=${IOMMUFD_DIR:-/lib/kslot/iommufd}
modules="stock kslot"
[ -e $iommufd_dir/modules ] && modules=$(cat $iommufd_dir/modules)
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
# The hugepage variants map up to 128 MiB of 2 MiB pages (dirty128M_huge).
[ -e $hp ] && echo 80 > $hp
for m in $modules; do
	ko=$iommufd_dir/iommufd.ko name=iommufd
	[ $m = kslot ] && ko=$iommufd_dir/iommufd_kslot.ko name=iommufd_kslot
	t0=$(date +%s)
	if ! insmod $ko; then
		res "@@fatal insmod $ko failed"
		continue
	fi
	for prog in iommufd iommufd_fail_nth; do
		res "@@iommufd $m $prog"
		(cd /tmp && $iommufd_dir/$prog) > $R 2>&1
		res "@@end"
	done
	res "@@iommufd $m iommufd_stale_id"
	$iommufd_dir/iommufd_stale_id $m > $R 2>&1
	res "@@end"
	rmmod $name || res "@@fatal rmmod $name failed"
	res "@@iommufd-time $m $(($(date +%s) - t0))"
done
[ -e $hp ] && echo 0 > $hp
