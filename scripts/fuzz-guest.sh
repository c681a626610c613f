# SPDX-License-Identifier: GPL-2.0
#
# The long fuzz run, in the test VM (make fuzz).  Sourced after
# FUZZ_SEED, FUZZ_CALLS, FUZZ_TIME and FUZZ_JOBS are set.  Runs FUZZ_JOBS
# fuzzers at once (seeds FUZZ_SEED, FUZZ_SEED + 1, ...) that share the
# calls, then unloads kslot_dev and kslot and prints a kmemleak scan on the console,
# where the verdict looks for splats and leaks.
if [ $# != 0 ] || [ -z "${FUZZ_CALLS:-}" ]; then
	echo "usage: FUZZ_SEED=s FUZZ_CALLS=n FUZZ_TIME=t FUZZ_JOBS=j, then source" \
		"fuzz-guest.sh in the VM (make fuzz does)" >&2
	exit 2
fi
per=$(( (FUZZ_CALLS + FUZZ_JOBS - 1) / FUZZ_JOBS ))
echo "fuzz: $FUZZ_JOBS jobs x $per calls, seeds from $FUZZ_SEED, at most ${FUZZ_TIME}s"
j=0
while [ $j -lt "$FUZZ_JOBS" ]; do
	/files/kslot_fuzz -s $((FUZZ_SEED + j)) -n "$per" -t "$FUZZ_TIME" \
		> /tmp/fuzz-$j.tap 2>&1 &
	j=$((j + 1))
done
wait
rc=0
total=0
j=0
while [ $j -lt "$FUZZ_JOBS" ]; do
	echo "== job $j (seed $((FUZZ_SEED + j)))"
	cat /tmp/fuzz-$j.tap
	grep -q '^not ok' /tmp/fuzz-$j.tap && rc=1
	grep -q '^ok 2 ' /tmp/fuzz-$j.tap || rc=1
	c=$(sed -n 's/^ok 1 fuzz: \([0-9]*\) calls$/\1/p' /tmp/fuzz-$j.tap)
	total=$((total + ${c:-0}))
	j=$((j + 1))
done
echo "fuzz: $total calls in total"
[ "$total" -ge "$FUZZ_CALLS" ] || { echo "fuzz: fewer calls than asked"; rc=1; }
rmmod kslot_dev || rc=1
rmmod kslot || rc=1
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	leaks=$(grep -c 'unreferenced object' /sys/kernel/debug/kmemleak)
	cat /sys/kernel/debug/kmemleak > /dev/console
	echo "fuzz: kmemleak: $leaks suspected leaks"
	[ "$leaks" = 0 ] || rc=1
fi
exit $rc
