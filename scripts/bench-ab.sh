#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One interleaved run of the native benchmark of two builds (A: an older
# commit's bench/native build, B: this tree's), so that both see the same
# machine load: every size runs A then B in the first round and B then A
# in the second, and each row keeps the best of its rounds (the worst-case
# rows, grow_stall and lock holds, keep every round: see ab-report).
#
# Usage: scripts/bench-ab.sh A_BENCH B_BENCH OUTDIR
#   A_BENCH, B_BENCH  kslot_native_bench binaries (make -C bench/native
#                     O=... of each tree)
# Environment: KSLOT_AB_SIZES (full rows, default 1024,65536,1048576),
# KSLOT_AB_BIG (lookup-against-floor and grow_stall rows only, default
# 16777216), KSLOT_AB_REPS (default 2), KSLOT_AB_ROUNDS (default 2),
# KSLOT_AB_FIRST (the first round's number, default 1: an odd round runs A
# first), KSLOT_AB_STALL (0: no --stall run at the big sizes),
# KSLOT_AB_ARGS (a mode for the full rows' runs, e.g. --hive for the
# hive's rows alone; then no big-size runs).
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 A_BENCH B_BENCH OUTDIR" >&2; exit 2; }
a=$1 b=$2 out=$3
sizes=${KSLOT_AB_SIZES:-1024,65536,1048576}
big=${KSLOT_AB_BIG:-16777216}
reps=${KSLOT_AB_REPS:-2}
rounds=${KSLOT_AB_ROUNDS:-2}
first=${KSLOT_AB_FIRST:-1}
stall=${KSLOT_AB_STALL:-1}
args=${KSLOT_AB_ARGS:-}
[ -z "$args" ] || big=
mkdir -p "$out"
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1

run() {	# side round name args...
	local side=$1 round=$2 name=$3 bin
	shift 3
	bin=$a
	[ "$side" = B ] && bin=$b
	echo "$(date +%T) $side round $round: $name" >&2
	"$bin" "$@" > "$out/$side-$round-$name.tap" ||
		echo "$(date +%T) $side round $round: $name failed" >&2
}

for round in $(seq "$first" $((first + rounds - 1))); do
	order="A B"
	[ $((round % 2)) = 0 ] && order="B A"
	for n in ${sizes//,/ }; do
		for side in $order; do
			# shellcheck disable=SC2086 # $args is zero or more flags
			run "$side" "$round" "$n" -r "$reps" $args "$n"
		done
	done
	for n in ${big//,/ }; do
		for side in $order; do
			run "$side" "$round" "twolevel-$n" -r "$reps" --twolevel "$n"
		done
		[ "$stall" = 0 ] && continue
		for side in $order; do
			run "$side" "$round" "stall-$n" --stall "$n"
		done
	done
done
echo "$(date +%T) done" >&2
