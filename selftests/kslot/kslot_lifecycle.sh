#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the kslot module's life cycle, in the test VM (kslot.ko at
# /lib/kslot/kslot.ko, loaded by init): rmmod is refused while /dev/kslot
# is open; load/unload cycles with files, tables and entries in between
# leave nothing behind (the kmemleak scan at the end of the run checks);
# the module is loaded again at the end.
KO=${KSLOT_KO:-/lib/kslot/kslot.ko}
CYCLES=${KSLOT_CYCLES:-100}
STATS=/sys/kernel/debug/kslot/dev-stats
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

if [ ! -e /dev/kslot ] || [ ! -f "$KO" ] || [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root, kslot loaded and $KO"
	exit 4
fi
echo "TAP version 13"
echo "1..8"

loaded() { [ -d /sys/module/kslot ]; }

# Nothing of any file is left: 0 files, 0 tables, 0 bytes.
all_freed() {
	[ -r $STATS ] || return 0
	[ "$(tr -d ' \n' < $STATS)" = "files:0tables:0bytes:0" ]
}

session='create a map 16 100
create b dense 8 50
batch-insert a 20 x
batch-insert b 10 y
insert a z as h
erase a h
destroy a'

# 1. An open file holds the module.
exec 3<> /dev/kslot
rmmod kslot 2> /dev/null
rc=$?
refs=$(cat /sys/module/kslot/refcnt 2> /dev/null)
[ $rc != 0 ] && loaded && [ "${refs:-1}" -ge 1 ]
ok $? "rmmod is refused while /dev/kslot is open (refcnt ${refs:-?})"
exec 3>&-

# 2. So does a file with tables and entries, in another process.
(printf 'create t map 16 100\nbatch-insert t 50 x\ncreate u dense 16 100\nbatch-insert u 50 y\n'
 sleep 2) | kslotctl - > /dev/null &
sleep 1
rmmod kslot 2> /dev/null
rc=$?
[ $rc != 0 ] && loaded && [ -e /dev/kslot ]
ok $? "rmmod is refused while another process holds tables"
wait
all_freed
ok $? "closing the last file frees every table and entry"

# 3. Unload, with every table destroyed.
rmmod kslot && ! loaded && [ ! -e /dev/kslot ]
ok $? "rmmod succeeds once every file is closed; /dev/kslot is gone"

# 4. Load/unload cycles with an open and close in between; every tenth
# with tables and entries, and an unload refused while the file is open.
bad=0
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if ! insmod "$KO"; then
		bad=$((bad + 1))
		break
	fi
	if [ $((i % 10)) = 1 ]; then
		# A session with two tables (one destroyed, one left to
		# close), then an open file held across a failed unload.
		printf '%s\n' "$session" | kslotctl - > /dev/null ||
			bad=$((bad + 1))
		all_freed || bad=$((bad + 1))
		exec 3<> /dev/kslot
		rmmod kslot 2> /dev/null && bad=$((bad + 1))
	else
		exec 3<> /dev/kslot
	fi
	exec 3>&-
	rmmod kslot || { bad=$((bad + 1)); break; }
done
[ $bad = 0 ] && [ $i = "$CYCLES" ] && ! loaded
ok $? "$i load/unload cycles with files, tables and entries ($bad failures)"

# 5. Loaded again for whatever runs next.
insmod "$KO" && loaded && [ -e /dev/kslot ]
ok $? "the module loads again"
printf '%s\n' "$session" | kslotctl - > /dev/null
ok $? "a session works on the reloaded module"
all_freed
ok $? "and leaves nothing behind"

exit $fail
