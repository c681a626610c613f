#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint every kslot source file with the kernel tree's own tools:
# checkpatch --strict, kernel-doc -Wall, and sparse (make C=2).
#
# Usage: scripts/lint.sh KDIR   (a kernel build tree with a "source" link)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1
ksrc=$(readlink -f "$kdir/source" 2>/dev/null || echo "$kdir")
cd "$top"
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]')
fail=0

echo "lint: checkpatch --strict"
for f in $files; do
	# Userspace code (selftests, tools) rightly uses <stdint.h> types.
	ignore=
	case "$f" in
	selftests/* | userspace-tools/*) ignore="--ignore PREFER_KERNEL_TYPES" ;;
	esac
	out=$("$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet \
		$ignore -f "$f" 2>&1)
	if [ -n "$out" ]; then
		echo "$out"
		fail=1
	fi
done

echo "lint: kernel-doc -Wall"
for f in $files; do
	out=$("$ksrc/scripts/kernel-doc" -none -Wall "$f" 2>&1)
	if [ -n "$out" ]; then
		echo "$out"
		fail=1
	fi
done

echo "lint: sparse"
if command -v sparse >/dev/null; then
	out=$(make -s -C "$kdir" M="$top" C=2 W=1 modules 2>&1 |
		grep -E 'warning|error' || true)
	if [ -n "$out" ]; then
		echo "$out"
		fail=1
	fi
else
	echo "lint: sparse is not installed" >&2
	fail=1
fi

[ $fail = 0 ] && echo "lint: clean"
exit $fail
