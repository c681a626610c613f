#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kslot refuses a 32-bit kernel, and says so: TAP for make check.
#
# Usage: scripts/refuse32-check.sh [WORKDIR]   (default build/refuse32)
#
#  1. Out of tree: kslot built against Debian's armhf 6.12 headers (a
#     32-bit kernel: scripts/stock-kernel.sh --arch armhf --headers, with
#     Debian's arm-linux-gnueabihf-gcc, scripts/cross-gcc.sh) with W=1 and
#     make -k, so that every object is tried, fails; each object stops at
#     kslot's '#error "kslot needs a 64-bit kernel (CONFIG_64BIT)"', and
#     the log has no other error and no warning.
#  2. In tree (scripts/intree.sh place, into a tree of symbolic links to
#     the extracted linux-source-6.12, so that tree is not touched):
#     "make ARCH=i386 olddefconfig" leaves no CONFIG_KSLOT line in .config
#     ("depends on 64BIT" hides the options), where "make ARCH=x86_64
#     olddefconfig" has "# CONFIG_KSLOT is not set" (the options are
#     there to be seen).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -le 1 ] || { echo "usage: $0 [WORKDIR]" >&2; exit 2; }
work=${1:-$top/build/refuse32}
rm -rf "$work"
mkdir -p "$work"
echo "TAP version 13"
echo "1..2"

want='error: #error "kslot needs a 64-bit kernel (CONFIG_64BIT)"'
desc="a build against Debian's armhf (32-bit) headers stops at kslot's #error alone"
if ! got=$("$top/scripts/stock-kernel.sh" --arch armhf --headers 6.12 2>"$work/fetch.log"); then
	echo "not ok 1 $desc # cannot fetch the headers"
	sed 's/^/# /' "$work/fetch.log"
else
	read -r ver root <<< "$got"
	MAKEFLAGS=-k "$top/scripts/cross-gcc.sh" armhf -- \
		"$top/scripts/build-copy.sh" "$root/usr/src/linux-headers-$ver" \
		"$work/src" > "$work/build.log" 2>&1
	rc=$?
	# The compiler's diagnostics ("FILE:LINE:COL: error: ..."), paths
	# from the copy's top.
	diag() {
		grep -E "^[^ ].*: ($1): " "$work/build.log" |
			sed "s|^$work/src/||" | sort | uniq -c
	}
	nwant=$(grep -cF "$want" "$work/build.log")
	errors=$(diag 'fatal error|error' | grep -vF "$want")
	warnings=$(diag warning)
	nwarn=$(grep -cE '^[^ ].*: warning: ' "$work/build.log")
	if [ "$rc" != 0 ] && [ "$nwant" -gt 0 ] && [ -z "$errors" ]; then
		echo "ok 1 $desc ($nwant objects, linux-headers-$ver; $nwarn warnings besides)"
	else
		echo "not ok 1 $desc (exit $rc, $nwant #error lines)"
		echo "${errors:-no other error}" | head -n 40 | sed 's/^/# /'
	fi
	# gcc goes on after #error: what else it says (warnings of code that
	# only a 32-bit compiler sees) is listed, not judged.
	[ -z "$warnings" ] || echo "$warnings" |
		sed 's/^ *\([0-9]*\) /# note: besides the #error (x\1): /'
fi

desc="in tree, make ARCH=i386 olddefconfig shows no CONFIG_KSLOT"
if ! ksrc=$("$top/scripts/kernel.sh" --source 2>"$work/source.log"); then
	echo "not ok 2 $desc # no kernel source"
	sed 's/^/# /' "$work/source.log"
	exit 0
fi
# A tree of symbolic links to the shared source, with real directories
# where intree.sh place writes (lib/, include/linux/, include/uapi/linux/)
# and real copies of the two files it appends to.
shadow() {
	mkdir -p "$2"
	for e in "$1"/* "$1"/.[!.]*; do
		[ -e "$e" ] && ln -s "$e" "$2/"
	done
}
tree=$work/linux
shadow "$ksrc" "$tree"
for d in lib include include/linux include/uapi include/uapi/linux; do
	rm "$tree/$d"
	shadow "$ksrc/$d" "$tree/$d"
done
for f in lib/Kconfig lib/Makefile; do
	rm "$tree/$f"
	cp "$ksrc/$f" "$tree/$f"
done
"$top/scripts/intree.sh" place "$tree"
# One output tree: Kconfig's programs are built once.
i386=$(make -s -C "$tree" O="$work/out" ARCH=i386 olddefconfig 2>&1 &&
	grep -c 'CONFIG_KSLOT' "$work/out/.config")
rm -f "$work/out/.config"
x86_64=$(make -s -C "$tree" O="$work/out" ARCH=x86_64 olddefconfig 2>&1 &&
	grep -x '# CONFIG_KSLOT is not set' "$work/out/.config")
if [ "$i386" = 0 ] && [ "$x86_64" = '# CONFIG_KSLOT is not set' ]; then
	echo "ok 2 $desc (x86_64: \"$x86_64\")"
else
	echo "not ok 2 $desc"
	printf 'i386: %s\nx86_64: %s\n' "$i386" "$x86_64" | sed 's/^/# /'
fi
rm -rf "$tree"
exit 0
