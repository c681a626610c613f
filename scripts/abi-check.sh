#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that every /dev/kslot argument struct has the same layout for
# 32-bit (i386) and 64-bit (x86_64) userspace and no implicit holes, with
# pahole on a file that instantiates each struct.  Prints TAP.
#
# Usage: scripts/abi-check.sh [OUTDIR]   (default build/abi)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
case "$#:${1:-}" in
0:* | 1:[!-]*) ;;
*) echo "usage: $0 [OUTDIR]" >&2; exit 2 ;;
esac
out=${1:-$top/build/abi}
mkdir -p "$out"
structs=$(sed -n 's/^struct \(kslot_[a-z_]*\) {$/\1/p' \
	"$top/include/uapi/linux/kslot.h")

{
	echo '#include <linux/kslot.h>'
	for s in $structs; do
		echo "struct $s abi_$s;"
	done
} > "$out/abi.c"

n=0
fail=0
echo "TAP version 13"
echo "1..$(( $(echo $structs | wc -w) * 2 ))"
for bits in 32 64; do
	if ! gcc -m$bits -g -c -I"$top/include/uapi" "$out/abi.c" \
		-o "$out/abi$bits.o" 2> "$out/cc$bits.log"; then
		sed 's/^/# /' "$out/cc$bits.log"
		echo "Bail out! cannot compile with -m$bits"
		exit 1
	fi
	pahole "$out/abi$bits.o" > "$out/pahole$bits.txt"
done
for s in $structs; do
	l32=$(pahole -C "$s" "$out/abi32.o" | grep -v '^\s*/\* \(size\|cachelines\|last cacheline\)')
	l64=$(pahole -C "$s" "$out/abi64.o" | grep -v '^\s*/\* \(size\|cachelines\|last cacheline\)')
	n=$((n + 1))
	if [ "$l32" = "$l64" ]; then
		echo "ok $n $s has the same layout on i386 and x86_64"
	else
		echo "not ok $n $s differs between i386 and x86_64"
		diff <(echo "$l32") <(echo "$l64") | sed 's/^/# /'
		fail=1
	fi
	n=$((n + 1))
	if pahole -C "$s" "$out/abi32.o" "$out/abi64.o" | grep -q 'XXX\|hole\|padding:'; then
		echo "not ok $n $s has a hole or padding"
		pahole -C "$s" "$out/abi64.o" | sed 's/^/# /'
		fail=1
	else
		echo "ok $n $s has no holes or padding"
	fi
done
exit $fail
