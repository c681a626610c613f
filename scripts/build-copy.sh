#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build kslot against a kernel other than the test kernel, from a copy of
# the sources, so the test-kernel objects in the tree stay in place.
#
# Usage: scripts/build-copy.sh KDIR DEST
#
# Copies the module sources (and bench/, without any build products) to
# DEST and builds them against the kernel tree KDIR with W=1.  Any
# warning is a failure: the build log goes to stderr and the exit status
# is 1.  The benchmark module is then built against DEST's
# Module.symvers.  Used by scripts/stock-check.sh (Debian's stock
# kernels) and by "make check" (the PREEMPT_RT debug kernel).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Its makes run with their own -j (scripts/own-make.sh).
# shellcheck source=scripts/own-make.sh
. "$top/scripts/own-make.sh"
if [ $# != 2 ] || [ ! -d "$1" ]; then
	echo "usage: $0 KDIR DEST   (KDIR: a kernel build tree)" >&2
	exit 2
fi
kdir=$1 dest=$2
rm -rf "$dest"
mkdir -p "$dest"
cp -r "$top/Kbuild" "$top/module" "$top/include" "$top/kunit" "$dest/"
[ -d "$top/bench" ] && cp -r "$top/bench" "$dest/"
# Sources only: the tree's own objects are another kernel's, and may be
# half written by a build running beside this one (make check).
find "$dest" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o \
	-name '*.mod.c' -o -name '.*.cmd' -o -name '*.symvers' -o \
	-name 'modules.order' \) -delete
log=$(make -s -j"$(nproc)" -C "$kdir" M="$dest" W=1 modules 2>&1)
rc=$?
if [ $rc != 0 ] || echo "$log" | grep -q 'warning:'; then
	echo "$log" >&2
	exit 1
fi
if [ -d "$dest/bench" ]; then
	make -s -j"$(nproc)" -C "$kdir" M="$dest/bench" \
		KBUILD_EXTRA_SYMBOLS="$dest/Module.symvers" modules >&2 || exit 1
fi
exit 0
