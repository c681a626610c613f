#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks' guard in "make check": load kslot_bench.ko once at a tiny
# size and run kslot_ioctl_bench briefly, so that neither can rot.  Each
# line they print is a TAP case here; the figures mean nothing at this size.
# The module's own plan line must match the cases it printed.
ko=/lib/kslot/kslot_bench.ko
echo "TAP version 13"
if [ ! -e "$ko" ]; then
	echo "1..0 # SKIP kslot_bench.ko is not in the image"
	exit 4
fi
out=/tmp/kslot_bench.out
if ! insmod "$ko" sizes=64 reps=1 min_ops=256 clear_entries=4096; then
	echo "not ok 1 insmod kslot_bench.ko"
	echo "1..1"
	exit 1
fi
dmesg | sed -n 's/^.*kslot_bench: //p' > $out
rmmod kslot_bench
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' $out | tail -n 1)
cases=$(grep -cE '^(ok|not ok) [0-9]+ ' $out)
if [ -x /bin/kslot_ioctl_bench ]; then
	/bin/kslot_ioctl_bench -n 64 -r 1 > $out.ioctl
	echo "# kslot_ioctl_bench exit $?" >> $out.ioctl
	cat $out.ioctl >> $out
fi
awk -v plan="$plan" -v cases="$cases" '
	/^ok [0-9]+ / { n++; $2 = n; print; next }
	/^not ok [0-9]+ / { n++; $3 = n; print; next }
	/^# / { print }
	END {
		n++
		if (plan != "" && plan == cases && cases > 0)
			print "ok " n " kslot_bench.ko printed its plan of " plan
		else
			print "not ok " n " kslot_bench.ko plan \"" plan "\", cases " cases
		print "1.." n
	}' $out
