#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modinfo on the built modules: a description, the package version, the
# GPL, and every parameter with a description.  The version must agree
# with dkms.conf and userspace-tools/Makefile.
#
# Usage: scripts/modinfo-check.sh DIR   (DIR holds kslot.ko, kslot_demo.ko)
# Prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
want=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
tools=$(sed -n 's/^VERSION := \(.*\)$/\1/p' "$top/userspace-tools/Makefile")
mods=(kslot kslot_demo)
n=0

echo "TAP version 13"
echo "1..$((${#mods[@]} * 4 + 1))"

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		[ -n "${3:-}" ] && echo "$3" | sed 's/^/# /'
	fi
}

# Parameter names declared in the sources of module $1.
declared_params() {
	local srcs

	case "$1" in
	kslot) srcs=$(find "$top/module" -name '*.c' ! -name kslot_demo.c) ;;
	*) srcs=$top/module/$1.c ;;
	esac
	# shellcheck disable=SC2086
	sed -n 's/^module_param\(_named\)\{0,1\}(\([a-z0-9_]*\),.*/\2/p' $srcs |
		sort -u
}

n=$((n + 1))
if [ -n "$want" ] && [ "$want" = "$tools" ]; then
	echo "ok $n dkms.conf and userspace-tools agree on version $want"
else
	echo "not ok $n dkms.conf ($want) and userspace-tools ($tools) versions differ"
fi

for m in "${mods[@]}"; do
	ko=$dir/$m.ko
	if [ ! -f "$ko" ]; then
		for t in description version license params; do
			ok 1 "$m: $t # $ko is missing"
		done
		continue
	fi
	desc=$(modinfo -F description "$ko")
	ok "$([ -n "$desc" ]; echo $?)" "$m: description \"$desc\""
	ver=$(modinfo -F version "$ko")
	ok "$([ "$ver" = "$want" ]; echo $?)" "$m: version $ver (want $want)"
	lic=$(modinfo -F license "$ko")
	ok "$([ "$lic" = GPL ]; echo $?)" "$m: license $lic"
	bad=
	types=$(modinfo -F parmtype "$ko" | cut -d: -f1 | sort -u)
	for p in $types; do
		d=$(modinfo -F parm "$ko" | sed -n "s/^$p:\(.*\)/\1/p")
		[ -n "$d" ] || bad="$bad $p(no description)"
	done
	for p in $(declared_params "$m"); do
		grep -qx "$p" <<< "$types" || bad="$bad $p(not in modinfo)"
	done
	ok "$([ -z "$bad" ]; echo $?)" \
		"$m: every parameter ($(echo $types)) has a description" "$bad"
done
