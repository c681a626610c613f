#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian packages of any architecture and unpack them into a
# directory, without installing them: no multiarch, nothing registered
# with dpkg, the host's own apt state untouched.
#
# Usage: scripts/debian-fetch.sh ARCH ROOT PACKAGE...
#        scripts/debian-fetch.sh ARCH --apt apt-cache|apt-get ARGS...
#   ARCH     Debian's architecture whose packages are meant (arm64,
#            armhf...); a PACKAGE:ARCH2 names another one (e.g.
#            linux-kbuild-...:amd64, a host program)
#   ROOT     where the packages are unpacked (dpkg-deb -x), ROOT standing
#            for /; done once: ROOT/.kslot-fetched-HASH marks that list
#            of packages as unpacked, whole
#   --apt    run apt-cache or apt-get with ARCH's lists (to resolve names)
#
# apt uses the system's sources; for the host's architecture, the
# system's lists too (apt-get update's), and for another one (or when
# the system has no lists) lists of ARCH and of the host's architecture
# kept in ${XDG_CACHE_HOME:-~/.cache}/kslot/apt-ARCH/ (fetched when
# missing or a day old; the old ones are used when they cannot be
# refreshed).  Used by scripts/stock-kernel.sh
# (Debian's kernels, the host's architecture's too) and
# scripts/cross-gcc.sh (the cross compilers).
set -euo pipefail

usage() {
	echo "usage: $0 ARCH ROOT PACKAGE... | ARCH --apt apt-cache|apt-get ARGS..." >&2
	exit 2
}
[ $# -ge 3 ] || usage
arch=$1
host=$(dpkg --print-architecture)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kslot
aptdir=$cache/apt-$arch
opts=(-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
	-o "Dir::Cache=$aptdir/cache" -o "APT::Sandbox::User=root")
# The host's architecture uses the system's lists, which the installed
# packages (linux-source-6.12, the headers' twin) came from: the same
# versions (make check's deps-kernel refreshes them when it installs).
# Another architecture, or a system whose lists were removed, has lists
# of its own.
own=
if [ "$arch" != "$host" ]; then
	own=1
	opts+=(-o "APT::Architectures::=$host")
elif ! compgen -G "/var/lib/apt/lists/*_Packages" > /dev/null; then
	own=1
fi
[ -z "$own" ] || opts+=(-o "Dir::State::Lists=$aptdir/lists")
mkdir -p "$aptdir/cache/archives/partial"
[ -z "$own" ] || mkdir -p "$aptdir/lists/partial"
# One fetch at a time (make check's lanes may fetch at once).
exec 6>"$cache/.lock-debian-fetch"
flock 6
if [ -n "$own" ] &&
	[ -z "$(find "$aptdir/lists" -maxdepth 1 -name kslot.stamp -mtime -1)" ]; then
	echo "debian-fetch.sh: fetching Debian's package lists for $arch" >&2
	# Error-Mode=any: a list that cannot be fetched fails the update
	# (by default apt only warns, and the stamp would cover empty lists).
	if apt-get -q -o APT::Update::Error-Mode=any "${opts[@]}" update >&2; then
		touch "$aptdir/lists/kslot.stamp"
	elif [ -f "$aptdir/lists/kslot.stamp" ]; then
		# Offline, or the mirror is down: yesterday's lists still
		# name what is unpacked already.
		echo "debian-fetch.sh: warning: cannot refresh the $arch lists; using the old ones" >&2
	else
		exit 1
	fi
fi

if [ "$2" = --apt ]; then
	case "$3" in
	apt-cache | apt-get) ;;
	*) usage ;;
	esac
	tool=$3
	shift 3
	exec "$tool" "${opts[@]}" "$@"
fi

root=$2
shift 2
stamp=$root/.kslot-fetched-$(echo "$*" | sha256sum | cut -c1-16)
[ -f "$stamp" ] && exit 0
echo "debian-fetch.sh: fetching $* ($arch) into $root" >&2
debs=$root.debs
rm -rf "$debs"
mkdir -p "$debs" "$root"
(cd "$debs" && apt-get -q "${opts[@]}" download "$@" >&2)
for deb in "$debs"/*.deb; do
	dpkg-deb -x "$deb" "$root"
done
rm -rf "$debs"
touch "$stamp"
