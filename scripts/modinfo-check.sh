#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modinfo on the built modules: a description, the package version, the
# GPL, the dependencies and namespace imports, and exactly the parameters
# declared in the module's own sources, each with a description (so the
# /dev/kslot limits are kslot_dev's and the library has none of them).
# The version must agree with dkms.conf and userspace-tools/Makefile.
#
# Usage: scripts/modinfo-check.sh DIR
#   (DIR holds kslot.ko, kslot_dev.ko and kslot_demo.ko)
# Prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# != 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 DIR   (DIR holds kslot.ko, kslot_dev.ko, kslot_demo.ko)" >&2
	exit 2
fi
dir=$1
want=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
tools=$(sed -n 's/^VERSION := \(.*\)$/\1/p' "$top/userspace-tools/Makefile")
mods=(kslot kslot_dev kslot_demo)
# What each module depends on and which namespaces it imports: only
# kslot_dev may use the library's KSLOT_DEV and KSLOT_INTERNAL exports.
declare -A depends=([kslot]="" [kslot_dev]=kslot [kslot_demo]=kslot)
declare -A imports=([kslot]="" [kslot_dev]="KSLOT_DEV KSLOT_INTERNAL" [kslot_demo]="")
checks=(description version license depends params)
n=0

echo "TAP version 13"
echo "1..$((${#mods[@]} * ${#checks[@]} + 1))"

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
	# kslot.ko's objects, as Kbuild lists them.
	kslot) srcs=$(sed -n '/^kslot-y :=/,/^$/s/.*\(module\/[a-z_]*\)\.o.*/\1.c/p' \
			 "$top/Kbuild" | sed "s|^|$top/|") ;;
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
		for t in "${checks[@]}"; do
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
	dep=$(modinfo -F depends "$ko")
	ns=$(modinfo -F import_ns "$ko" | sort | xargs)
	ok "$([ "$dep" = "${depends[$m]}" ] && [ "$ns" = "${imports[$m]}" ]; echo $?)" \
		"$m: depends \"$dep\", imports \"$ns\"" \
		"want depends \"${depends[$m]}\", imports \"${imports[$m]}\""
	bad=
	types=$(modinfo -F parmtype "$ko" | cut -d: -f1 | sort -u)
	for p in $types; do
		d=$(modinfo -F parm "$ko" | sed -n "s/^$p:\(.*\)/\1/p")
		[ -n "$d" ] || bad="$bad $p(no description)"
	done
	declared=$(declared_params "$m")
	for p in $declared; do
		grep -qx "$p" <<< "$types" || bad="$bad $p(not in modinfo)"
	done
	for p in $types; do
		grep -qx "$p" <<< "$declared" || bad="$bad $p(not declared by $m)"
	done
	ok "$([ -z "$bad" ]; echo $?)" \
		"$m: exactly its own parameters ($(echo $types)), each with a description" "$bad"
done
