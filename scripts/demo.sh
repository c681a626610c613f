#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The "make run" demo, run inside the VM with kslot.ko loaded.
echo "kslot is loaded:"
grep '^kslot ' /proc/modules
echo
insmod /lib/kslot/kslot_demo.ko || exit 1
dmesg | sed -n '/kslot demo: a generational/,/kslot demo: done/p' |
	sed 's/^\[[^]]*\] //'
rmmod kslot_demo
