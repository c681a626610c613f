#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of kslotctl: exit codes, script sessions, --json, dump and stats.
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

if [ ! -e /dev/kslot ]; then
	echo "1..0 # SKIP /dev/kslot is absent"
	exit 4
fi
echo "TAP version 13"
echo "1..12"

kslotctl --help > /dev/null
ok $? "--help exits 0"

kslotctl frobnicate > /dev/null 2>&1
[ $? = 2 ]; ok $? "an unknown command is a usage error (2)"

printf 'create t map 8 4\nexpect EINVAL get t 0\nget t 0x1234\n' |
	kslotctl - > /tmp/out 2>&1
[ $? = 1 ] && grep -q ENOENT /tmp/out; ok $? "an errno failure exits 1 and names the errno"

printf 'create t map 8 4\nexpect ENOENT get t 0x1234\n' | kslotctl - > /dev/null
ok $? "expect passes on the expected errno"

printf 'create t map 8 4\ninsert t x as x\nexpect ENOENT get t x\n' |
	kslotctl - > /dev/null 2>&1
[ $? = 1 ]; ok $? "expect fails when the command succeeds"

out=$(printf 'create t map 8 4\ninsert t hi as h\nget t h\n' | kslotctl --json -)
echo "$out" | grep -q '^{"command":"get","table":"t","handle":"0x[0-9a-f]*","value":"hi"}$'
ok $? "--json get prints one JSON object"

kslotctl --json info | grep -q '"abi_version":2'
ok $? "--json info"

out=$(printf 'create u map 8 100\ninsert u a as a\nerase u a\ninsert u b as b\ndump u a\n' | kslotctl - 2>&1)
echo "$out" | grep -q "STALE, the slot is at generation 3"
ok $? "dump explains a stale handle"

printf 'create t map 8 4\nbatch-insert t 5 x\n' | kslotctl - > /tmp/out 2>&1
[ $? = 1 ] && grep -q "inserted 4 of 5" /tmp/out && grep -q ENOSPC /tmp/out
ok $? "a batch beyond max_entries reports partial progress and ENOSPC"

# Checkpoint and restore through a file, across two processes: the live
# handle works in the imported table, the stale one stays stale.
out=$(printf 'create t map 16 100\ninsert t live as a\ninsert t gone as b\nerase t b\nexport t /tmp/kslot.img\n' |
	kslotctl - 2>&1)
a=$(echo "$out" | sed -n 's/^insert t handle \(0x[0-9a-f]*\) value "live"$/\1/p')
b=$(echo "$out" | sed -n 's/^insert t handle \(0x[0-9a-f]*\) value "gone"$/\1/p')
echo "$out" | grep -q "^export t: .* 1 live$" && [ -n "$a" ] && [ -n "$b" ]
ok $? "export writes a table to a file"
out=$(printf 'import u /tmp/kslot.img\nget u %s\nexpect ENOENT get u %s\ninsert u new\n' "$a" "$b" |
	kslotctl - 2>&1)
[ $? = 0 ] && echo "$out" | grep -q "^get    u handle $a value \"live\"$"
ok $? "import in another process: old handles work, stale ones stay stale"
rm -f /tmp/kslot.img

# A session open in the background shows up in the global listing.  The
# session stays open until the listing has been read (no timing: on a
# loaded machine the session may take seconds to start).
rm -f /tmp/bg.done
(printf 'create bg map 16 10\ninsert bg one\n'
 while [ ! -e /tmp/bg.done ]; do sleep 0.1; done) | kslotctl - > /dev/null &
found=1
for _ in $(seq 1200); do
	kslotctl stats | grep -q "kind=map record_size=16 entries=1" &&
		{ found=0; break; }
	sleep 0.1
done
ok $found "stats lists every table of every open file"
touch /tmp/bg.done
wait

exit $fail
