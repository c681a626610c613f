#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftest client must skip cleanly (KSFT_SKIP, exit 4, "1..0 # SKIP")
# where /dev/kslot is absent, as on this host.  Prints TAP.
#
# Usage: scripts/skip-check.sh (no arguments; after make selftests tools)
if [ $# != 0 ]; then
	echo "usage: $0 (no arguments)" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
echo "TAP version 13"
echo "1..8"
n=0
for t in kslot_test kslotctl_test.sh kslot_fail_nth kslot_fuzz kslot_stress \
	 kslot_limits kslot_memlimit kslot_lifecycle.sh; do
	n=$((n + 1))
	if [ -e /dev/kslot ]; then
		echo "ok $n $t skips without /dev/kslot # SKIP /dev/kslot exists here"
		continue
	fi
	out=$(PATH=$top/build/bin:$PATH "$top/build/selftests/$t" 2>&1)
	rc=$?
	if [ $rc = 4 ] && echo "$out" | grep -q '^1\.\.0 # SKIP'; then
		echo "ok $n $t skips without /dev/kslot"
	else
		echo "not ok $n $t skips without /dev/kslot (exit $rc)"
		echo "$out" | head -5 | sed 's/^/# /'
	fi
done
