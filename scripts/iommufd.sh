#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the iommufd client (clients/iommufd/) against the test kernel.
#
# Usage: scripts/iommufd.sh KDIR OUT
#
#   KDIR  the test kernel's build tree (scripts/kernel.sh), built with
#         CONFIG_IOMMUFD=m and CONFIG_IOMMUFD_TEST=y; kslot.ko must have
#         been built in the kslot tree (its Module.symvers)
#   OUT   build directory; OUT/vm is what the VM gets in /lib/kslot/iommufd
#
# 1. copies drivers/iommu/iommufd/ (only that directory) of the kernel's
#    source to OUT/src, applies clients/iommufd/patches/ and builds
#    iommufd_kslot.ko out of tree with W=1 against kslot's Module.symvers
#    (any warning fails);
# 2. builds tools/testing/selftests/iommu (iommufd, iommufd_fail_nth) with
#    the kernel's own lib.mk, statically, against the kernel source's
#    exported uAPI headers, with clients/iommufd/selftest-compat.h;
# 3. builds the stale-id test and the benchmark;
# 4. stages them with the kernel's own iommufd.ko (the baseline) and
#    clients/iommufd/run.sh in OUT/vm;
# 5. writes OUT/stock-cache: the directory under ~/.cache/kslot where the
#    stock module's results are kept (scripts/verdict.py stores them
#    there after a clean run, and make check then runs only the kslot
#    module).  The stock module's results do not depend on kslot: the
#    directory's name is a key of the test kernel (its cache directory),
#    the stock iommufd.ko, the three programs run on it and run.sh, so
#    any change to one of them runs the stock module again.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Its makes run with their own -j (scripts/own-make.sh).
# shellcheck source=scripts/own-make.sh
. "$top/scripts/own-make.sh"
if [ $# != 2 ] || [ ! -d "$1" ]; then
	echo "usage: $0 KDIR OUT   (KDIR: the test kernel's build tree)" >&2
	exit 2
fi
kdir=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
ksrc=$(readlink -f "$kdir/source")
client=$top/clients/iommufd

[ -f "$kdir/drivers/iommu/iommufd/iommufd.ko" ] || {
	echo "iommufd.sh: $kdir has no iommufd.ko (CONFIG_IOMMUFD=m)" >&2
	exit 1
}
[ -f "$top/Module.symvers" ] || {
	echo "iommufd.sh: build kslot.ko first (make test-modules)" >&2
	exit 1
}

# 1. The converted module.
rm -rf "$out/src" "$out/vm"
mkdir -p "$out/src" "$out/vm"
cp -r "$ksrc/drivers/iommu/iommufd/." "$out/src/"
for p in "$client"/patches/*.patch; do
	patch -s -p4 -d "$out/src" < "$p"
done
cp "$client/Kbuild.iommufd" "$out/src/Kbuild"
log=$(make -s -j"$(nproc)" -C "$kdir" M="$out/src" W=1 KSLOT_TOP="$top" \
	KBUILD_EXTRA_SYMBOLS="$top/Module.symvers" modules 2>&1) || {
	echo "$log" >&2
	exit 1
}
if echo "$log" | grep -q 'warning:'; then
	echo "$log" >&2
	exit 1
fi

# 2. iommufd's selftests, from the kernel's source with its lib.mk.  The
# uAPI headers are "make headers" of that source (they do not depend on
# the configuration), exported once into OUT/headers so the cached kernel
# tree is not written to.
hdr=$out/headers/usr/include
if [ ! -f "$out/headers/.kslot-headers" ]; then
	rm -rf "$out/headers"
	make -s -j"$(nproc)" -C "$ksrc" O="$out/headers" ARCH=x86_64 headers >&2
	touch "$out/headers/.kslot-headers"
fi
mkdir -p "$out/selftests"
# Harness timeouts ten times as long under TCG (selftest-timeout.c).
gcc -O2 -Wall -Werror -c -o "$out/selftest-timeout.o" \
	"$client/selftest-timeout.c"
CFLAGS="-include $client/selftest-compat.h" \
	LDFLAGS="-static -Wl,--wrap=alarm $out/selftest-timeout.o" \
	make -s -C "$ksrc/tools/testing/selftests/iommu" \
	OUTPUT="$out/selftests" KHDR_INCLUDES="-isystem $hdr" >&2

# 3. Ours: the stale-id test and the benchmark, on the same headers.
for prog in iommufd_stale_id iommufd_bench; do
	gcc -O2 -Wall -Werror -static -isystem "$hdr" -o "$out/vm/$prog" \
		"$client/$prog.c"
done

# 4. Stage.
cp "$kdir/drivers/iommu/iommufd/iommufd.ko" "$out/src/iommufd_kslot.ko" \
	"$out/selftests/iommufd" "$out/selftests/iommufd_fail_nth" \
	"$client/run.sh" "$out/vm/"

# 5. The key of the stock module's results.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kslot
key=$( { basename "$kdir"
	cd "$out/vm" && sha256sum iommufd.ko iommufd iommufd_fail_nth \
		iommufd_stale_id run.sh; } | sha256sum | cut -c1-16)
echo "$cache/iommufd-stock-$(basename "$kdir" | sed 's/^kernel-//')-$key" \
	> "$out/stock-cache"
