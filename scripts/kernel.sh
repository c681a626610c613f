#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the kslot test kernel from Debian's linux-source-6.12.
#
# Usage: scripts/kernel.sh [FRAGMENT...]
#        scripts/kernel.sh --source
#
# FRAGMENT defaults to configs/kslot-test.config then
# configs/kslot-rdma.config (the debug kernel of make check; "make
# RDMA_DEBUG=0" names the first alone).  Several fragments are
# applied in order, a later line overriding an earlier one for the same
# option (configs/kslot-rt.config is the test fragment's delta for the
# PREEMPT_RT kernel).
#
# Prints the kernel build directory (an O= tree holding arch/x86/boot/bzImage
# and everything needed for "make -C <dir> M=...") on its last line.
# The tree is cached under ${XDG_CACHE_HOME:-$HOME/.cache}/kslot/, keyed on a
# hash of the config fragment, the linux-source version and KERNEL_RECIPE
# below (bump it when the way the kernel is built changes), so it is rebuilt
# only when one of them changes.  Concurrent callers wait on a lock.
#
# --source extracts the source tree only (no kernel is built) and prints
# its directory: what the selftests need (the kernel's lib.mk and
# kselftest_harness.h), for any architecture.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Its makes run with their own -j (scripts/own-make.sh).
# shellcheck source=scripts/own-make.sh
. "$top/scripts/own-make.sh"
source_only=
if [ "${1:-}" = --source ]; then
	[ $# = 1 ] || { echo "usage: $0 --source" >&2; exit 2; }
	source_only=1
	shift
fi
[ $# -gt 0 ] ||
	set -- "$top/configs/kslot-test.config" "$top/configs/kslot-rdma.config"
frags=()
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "usage: $0 [FRAGMENT...]   (config fragments, default configs/kslot-test.config configs/kslot-rdma.config)" >&2
		exit 2
	fi
	frags+=("$(realpath "$f")")
done
last=${frags[${#frags[@]}-1]}
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || { echo "kernel.sh: linux-source-6.12 is not installed" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kslot
KERNEL_RECIPE=1
key=$( { echo "$srcver $KERNEL_RECIPE"; cat "${frags[@]}"; } | sha256sum | cut -c1-16)
src=$cache/src-$srcver
out=$cache/kernel-$(basename "$last" .config)-$key

mkdir -p "$cache"
# One lock for the shared source tree, one per kernel: building one kernel
# does not hold up users of another that is already built.
exec 8>"$cache/.lock-src"
flock 8
if [ ! -f "$src/.kslot-extracted" ]; then
	echo "kernel.sh: extracting $tarball" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.kslot-extracted"
	mv "$src.tmp" "$src"
fi
flock -u 8
if [ -n "$source_only" ]; then
	echo "$src"
	exit 0
fi
exec 9>"$out.lock"
flock 9

if [ -f "$out/.kslot-built" ]; then
	echo "kernel.sh: cached kernel $out" >&2
	echo "$out"
	exit 0
fi

echo "kernel.sh: building kernel into $out (a few minutes)" >&2
rm -rf "$out"
mkdir -p "$out"
# The fragments in order, each option once with its last value.
frag=$out/kslot-fragment.config
cat "${frags[@]}" | awk '
	/^CONFIG_[A-Za-z0-9_]*=/ { sym = substr($0, 1, index($0, "=") - 1)
		if (!(sym in val)) order[n++] = sym
		val[sym] = $0; next }
	END { for (i = 0; i < n; i++) print val[order[i]] }' > "$frag"
make -s -C "$src" O="$out" ARCH=x86_64 KCONFIG_ALLCONFIG="$frag" allnoconfig >&2

# Every option the fragments ask for must have survived Kconfig; "=n" holds
# when the option is unset or absent (its menu is off).
bad=0
while IFS= read -r line; do
	sym=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$sym=" "$out/.config" || continue
	else
		grep -qx "$sym=$val" "$out/.config" && continue
	fi
	echo "kernel.sh: $line did not survive Kconfig" >&2
	bad=1
done < "$frag"
[ "$bad" = 0 ] || exit 1

make -s -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" bzImage modules_prepare >&2
# modules_prepare does not produce Module.symvers; a full modules pass does.
make -s -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" modules >&2
touch "$out/.kslot-built"
echo "$out"
