#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The "make run" demo, run inside the VM with kslot.ko and kslot_dev.ko
# loaded.  Usage: demo.sh (no arguments)
if [ $# != 0 ]; then
	echo "usage: $0 (no arguments; make run runs it in the VM)" >&2
	exit 2
fi
echo "kslot.ko (the library) and kslot_dev.ko (the device) are loaded;" \
	"/dev/kslot is $(ls -l /dev/kslot | cut -c1-10)"
echo
echo "#### From userspace: kslotctl on /dev/kslot"
kslotctl run /demo/demo.kslot || exit 1
echo
echo "#### From a driver: the kslot_map kernel API (kslot_demo.ko, library only)"
insmod /lib/kslot/kslot_demo.ko || exit 1
dmesg | sed -n '/kslot demo: a generational/,/kslot demo: done/p' |
	sed 's/^\[[^]]*\] //'
rmmod kslot_demo
