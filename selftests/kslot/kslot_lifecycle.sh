#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the life cycle of the two kslot modules, in the test VM
# (kslot.ko, the library, and kslot_dev.ko, /dev/kslot, in /lib/kslot/,
# both loaded by init): rmmod kslot_dev is refused while /dev/kslot is
# open, and rmmod kslot while kslot_dev is loaded; the library alone
# creates no device, and kslot_dev does not load without it; load/unload
# cycles of both with files, tables and entries in between leave nothing
# behind (the kmemleak scan at the end of the run checks); both modules
# are loaded again at the end.
KO=${KSLOT_KO:-/lib/kslot/kslot.ko}
KO_DEV=${KSLOT_DEV_KO:-/lib/kslot/kslot_dev.ko}
CYCLES=${KSLOT_CYCLES:-20}
DBG=/sys/kernel/debug/kslot
STATS=$DBG/dev-stats
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=1
	fi
}

if [ ! -e /dev/kslot ] || [ ! -f "$KO" ] || [ ! -f "$KO_DEV" ] ||
   [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root, kslot and kslot_dev loaded, $KO and $KO_DEV"
	exit 4
fi
echo "TAP version 13"
echo "1..14"

loaded() { [ -d /sys/module/kslot ]; }
dev_loaded() { [ -d /sys/module/kslot_dev ]; }
refcnt() { cat "/sys/module/$1/refcnt" 2> /dev/null; }

# Nothing of any file is left: 0 files, 0 tables, 0 bytes, 0 pending.
all_freed() {
	[ -r $STATS ] || return 0
	# Freed memory stays charged as pending until its grace period
	# has passed and it is really freed: polled every 0.1 s, 30 s at most.
	for _ in $(seq 300); do
		[ "$(tr -d ' \n' < $STATS)" = \
			"files:0tables:0bytes:0pending:0" ] && return 0
		sleep 0.1
	done
	return 1
}

# The library alone: loaded, no device and no device files in debugfs.
library_only() {
	loaded && ! dev_loaded && [ ! -e /dev/kslot ] && [ ! -e $STATS ] &&
		[ ! -e $DBG/dev-tables ]
}

session='create a map 16 100
create b dense 8 50
batch-insert a 20 x
batch-insert b 10 y
insert a z as h
erase a h
destroy a'

# 1. kslot_dev uses kslot (scripts/modinfo-check.sh checks "depends").
[ -e /sys/module/kslot/holders/kslot_dev ] && [ "$(refcnt kslot)" -ge 1 ]
ok $? "kslot_dev holds kslot (refcnt $(refcnt kslot))"

# 2. An open file holds kslot_dev.
exec 3<> /dev/kslot
rmmod kslot_dev 2> /dev/null
rc=$?
refs=$(refcnt kslot_dev)
[ $rc != 0 ] && dev_loaded && [ "${refs:-0}" -ge 1 ]
ok $? "rmmod kslot_dev is refused while /dev/kslot is open (refcnt ${refs:-?})"
exec 3>&-

# 3. So does a file with tables and entries, in another process.
# The session stays open until rmmod has been tried, and rmmod is tried
# only once its tables are there (no timing: a loaded machine is slow;
# polled every 0.1 s, for 120 s at most).
rm -f /tmp/lc.done
(printf 'create t map 16 100\nbatch-insert t 50 x\ncreate u dense 16 100\nbatch-insert u 50 y\n'
 while [ ! -e /tmp/lc.done ]; do sleep 0.1; done) | kslotctl - > /dev/null &
for _ in $(seq 1200); do
	grep -q 'tables: *2' $STATS && break
	sleep 0.1
done
rmmod kslot_dev 2> /dev/null
rc=$?
[ $rc != 0 ] && dev_loaded && [ -e /dev/kslot ]
ok $? "rmmod kslot_dev is refused while another process holds tables"
touch /tmp/lc.done
wait
all_freed
ok $? "closing the last file frees every table and entry"

# 4. The library cannot go while the device module uses it, with or
# without a file open.
rmmod kslot 2> /dev/null
rc=$?
[ $rc != 0 ] && loaded && dev_loaded && [ -e /dev/kslot ]
ok $? "rmmod kslot is refused while kslot_dev is loaded"

# 5. Unload the device: the library stays, unused.
rmmod kslot_dev && library_only && [ "$(refcnt kslot)" = 0 ]
ok $? "rmmod kslot_dev: /dev/kslot and its debugfs files are gone, kslot stays"

# 6. The library alone, freshly loaded, creates no device.
rmmod kslot && ! loaded && insmod "$KO" && library_only
ok $? "loading kslot alone creates no /dev/kslot"

# 7. kslot_dev needs the library.
rmmod kslot
insmod "$KO_DEV" 2> /dev/null
rc=$?
[ $rc != 0 ] && ! dev_loaded && [ ! -e /dev/kslot ]
ok $? "kslot_dev does not load without kslot"

# 8. Load/unload cycles of both modules with an open and close in
# between; every fifth with tables and entries, and unloads of both
# refused while the file is open.  Every cycle checks that the library
# alone has no device.  A leak or a reference left by one cycle shows
# at the next (the module will not unload) or at the kmemleak scan, so
# 20 cycles prove what more would; KSLOT_CYCLES=n runs more.
bad=0
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if ! insmod "$KO"; then
		bad=$((bad + 1))
		break
	fi
	library_only || bad=$((bad + 1))
	if ! insmod "$KO_DEV"; then
		bad=$((bad + 1))
		rmmod kslot
		break
	fi
	if [ $((i % 5)) = 1 ]; then
		# A session with two tables (one destroyed, one left to
		# close), then an open file held across failed unloads.
		printf '%s\n' "$session" | kslotctl - > /dev/null ||
			bad=$((bad + 1))
		all_freed || bad=$((bad + 1))
		exec 3<> /dev/kslot
		rmmod kslot_dev 2> /dev/null && bad=$((bad + 1))
		rmmod kslot 2> /dev/null && bad=$((bad + 1))
	else
		exec 3<> /dev/kslot
	fi
	exec 3>&-
	rmmod kslot_dev || { bad=$((bad + 1)); break; }
	rmmod kslot || { bad=$((bad + 1)); break; }
done
[ $bad = 0 ] && [ $i = "$CYCLES" ] && ! loaded && ! dev_loaded
ok $? "$i load/unload cycles of kslot and kslot_dev with files, tables and entries ($bad failures)"

# 9. Cycles of the device module alone over one loaded library.
bad=0
i=0
insmod "$KO" || bad=$((bad + 1))
while [ $bad = 0 ] && [ $i -lt $((CYCLES / 4)) ]; do
	i=$((i + 1))
	insmod "$KO_DEV" || { bad=$((bad + 1)); break; }
	printf '%s\n' "$session" | kslotctl - > /dev/null || bad=$((bad + 1))
	rmmod kslot_dev || { bad=$((bad + 1)); break; }
	library_only || bad=$((bad + 1))
done
[ $bad = 0 ] && [ $i = $((CYCLES / 4)) ] && [ "$(refcnt kslot)" = 0 ]
ok $? "$i load/unload cycles of kslot_dev over one kslot ($bad failures)"

# 10. Loaded again for whatever runs next.
loaded || insmod "$KO"
insmod "$KO_DEV" && loaded && dev_loaded && [ -e /dev/kslot ]
ok $? "both modules load again"
printf '%s\n' "$session" | kslotctl - > /dev/null
ok $? "a session works on the reloaded modules"
all_freed
ok $? "and leaves nothing behind"
[ -e /sys/module/kslot/holders/kslot_dev ]
ok $? "kslot_dev holds kslot again"

exit $fail
