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
# apt uses the system's sources, and lists of ARCH and of the host's
# architecture kept in ${XDG_CACHE_HOME:-~/.cache}/kslot/apt-ARCH/
# (fetched when missing or a day old).  Used by scripts/stock-kernel.sh
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
	-o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
	-o "APT::Sandbox::User=root")
[ "$arch" = "$host" ] || opts+=(-o "APT::Architectures::=$host")
mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
# One fetch at a time (make check's lanes may fetch at once).
exec 6>"$cache/.lock-debian-fetch"
flock 6
if [ -z "$(find "$aptdir/lists" -maxdepth 1 -name kslot.stamp -mtime -1)" ]; then
	echo "debian-fetch.sh: fetching Debian's package lists for $arch" >&2
	apt-get -q "${opts[@]}" update >&2
	touch "$aptdir/lists/kslot.stamp"
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
