#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the RDMA verbs client (clients/rdma/) for one kernel.
#
# Usage: scripts/rdma.sh KDIR KSLOT OUT
#
#   KDIR   the kernel's build tree: the test kernel's (scripts/kernel.sh,
#          built with configs/kslot-rdma.config) or a stock kernel's
#          headers (ROOT/usr/src/linux-headers-VERSION, its modules in
#          ROOT/lib/modules/VERSION: scripts/stock-kernel.sh)
#   KSLOT  the directory kslot.ko was built in against KDIR (its
#          Module.symvers)
#   OUT    build directory; OUT/vm is what the VM gets in /lib/kslot/rdma
#
# 1. copies drivers/infiniband/core/ (only that directory) of the installed
#    linux-source-6.12, applies clients/rdma/patches/ and builds
#    ib_uverbs_kslot.ko out of tree with W=1 against kslot's
#    Module.symvers (any warning fails), then checks that every symbol it
#    exports has the CRC the kernel's own ib_uverbs has (Module.symvers of
#    KDIR), or the stock rdma_rxe and rdma_ucm would not load beside it;
# 2. stages the kernel's own modules the guest loads (ib_core, ib_uverbs,
#    rdma_rxe, the RDMA CM, dummy and what they need; a stock kernel's
#    .ko.xz decompressed, as busybox's insmod wants);
# 3. packs the guest's userland into OUT/root (once, shared by every
#    kernel: build/rdma/root): python3 with its standard library, pyverbs,
#    libibverbs with the rxe provider, iproute2's ip and rdma, every
#    library they link, and rdma-core's suite from python3-pyverbs
#    (/usr/share/doc/rdma-core/tests, gunzipped, with
#    clients/rdma/tests-rxe-netdev.patch); the guest chroots into it;
# 4. builds the stale-handle test and the benchmark into it;
# 5. writes OUT/stock-cache: the directory under ~/.cache/kslot where the
#    stock module's results are kept (scripts/verdict.py stores them
#    there after a clean run).  Its name is a key of the kernel, the
#    stock ib_uverbs.ko, the userland (package versions), the programs and
#    clients/rdma/run.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# != 3 ] || [ ! -d "$1" ] || [ ! -f "$2/Module.symvers" ]; then
	echo "usage: $0 KDIR KSLOT OUT   (KSLOT: kslot.ko built against KDIR)" >&2
	exit 2
fi
kdir=$(cd "$1" && pwd)
kslot=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
client=$top/clients/rdma
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kslot
krel=$(cat "$kdir/include/config/kernel.release")

# The kernel's source: the test kernel's tree links it; for a stock
# kernel's headers, the installed linux-source (scripts/kernel.sh extracts
# it; the same 6.12 release as Debian's stock 6.12 kernel).
if [ -e "$kdir/source" ]; then
	ksrc=$(readlink -f "$kdir/source")
else
	ksrc=$cache/src-$(dpkg-query -W -f='${Version}' linux-source-6.12)
	[ -f "$ksrc/.kslot-extracted" ] || "$top/scripts/kernel.sh" > /dev/null
fi

# 1. The converted module.
rm -rf "$out/src" "$out/vm"
mkdir -p "$out/src" "$out/vm/modules"
cp -r "$ksrc/drivers/infiniband/core/." "$out/src/"
for p in "$client"/patches/*.patch; do
	patch -s -p4 -d "$out/src" < "$p"
done
cp "$client/Kbuild.rdma" "$out/src/Kbuild"
log=$(make -s -j"$(nproc)" -C "$kdir" M="$out/src" W=1 KSLOT_TOP="$top" \
	KBUILD_EXTRA_SYMBOLS="$kslot/Module.symvers" modules 2>&1) || {
	echo "$log" >&2
	exit 1
}
if echo "$log" | grep -q 'warning:'; then
	echo "$log" >&2
	exit 1
fi
crcs() { awk -F'\t' -v m="$2" '$3 ~ m { print $2, $1 }' "$1" | sort; }
if ! diff <(crcs "$kdir/Module.symvers" '/ib_uverbs$') \
	<(crcs "$out/src/Module.symvers" '/ib_uverbs_kslot$') >&2; then
	echo "rdma.sh: ib_uverbs_kslot.ko exports other CRCs than $krel's ib_uverbs" >&2
	exit 1
fi

# 2. The kernel's modules, in load order (scripts/init.sh insmods them).
mods="udp_tunnel ip6_udp_tunnel configfs crc32_generic dummy dimlib ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_rxe rdma_ucm"
for m in $mods; do
	# The first match (-quit: no pipe that pipefail could fail on).
	f=$(find "$kdir" "${kdir%/usr/src/*}/lib/modules/$krel/kernel" \( -name "$m.ko" -o \
		-name "$m.ko.xz" \) -print -quit 2>/dev/null || true)
	case "$f" in
	'') continue ;; # built in, or not needed by this kernel
	*.xz) xz -dc "$f" > "$out/vm/modules/$m.ko" ;;
	*) cp "$f" "$out/vm/modules/$m.ko" ;;
	esac
	echo "$m" >> "$out/vm/modules/order"
done
for m in ib_core ib_uverbs rdma_rxe rdma_ucm dummy; do
	[ -f "$out/vm/modules/$m.ko" ] || {
		echo "rdma.sh: $krel has no $m module" >&2
		exit 1
	}
done
cp "$out/src/ib_uverbs_kslot.ko" "$client/run.sh" "$out/vm/"

# 3. The userland, packed once for every kernel.
root=$top/build/rdma/root
pkgs="python3.11-minimal libpython3.11-stdlib python3-pyverbs ibverbs-providers libibverbs1 librdmacm1 iproute2"
stamp=$(dpkg-query -W -f='${Package} ${Version}\n' $pkgs | sha256sum | cut -c1-16)
stamp=$stamp-$(cat "$client/tests-rxe-netdev.patch" "$0" | sha256sum | cut -c1-16)
if [ "$(cat "$root/.kslot-stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$root"
	mkdir -p "$root"/{bin,usr/bin,usr/lib,etc/libibverbs.d,proc,sys,dev,tmp}
	libdir=/usr/lib/x86_64-linux-gnu
	cp -L /usr/bin/python3.11 "$root/usr/bin/python3"
	cp -L /bin/ip /usr/bin/rdma "$root/usr/bin/"
	# busybox for the sh, ls and the like the suite may run.
	cp /bin/busybox "$root/bin/"
	for a in sh ls cat env; do ln -s busybox "$root/bin/$a"; done
	tar -C /usr/lib --exclude=test --exclude=idlelib --exclude=tkinter \
		--exclude=ensurepip --exclude=lib2to3 --exclude=pydoc_data \
		--exclude=turtledemo --exclude='config-3.11-*' \
		-cf - python3.11 | tar -C "$root/usr/lib" -xf -
	mkdir -p "$root/usr/lib/python3/dist-packages" "$root$libdir/libibverbs"
	cp -r /usr/lib/python3/dist-packages/pyverbs \
		"$root/usr/lib/python3/dist-packages/"
	cp -L "$libdir/libibverbs/librxe-rdmav34.so" "$root$libdir/libibverbs/"
	cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
	# Every library ldd names, and the loader, dereferenced.
	{ find "$root" -type f \( -name '*.so*' -o -path '*/bin/*' \) |
		xargs ldd 2>/dev/null || true; } |
		awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
		sort -u | while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	# rdma-core's suite, gunzipped, with the netdev fix for rxe.
	cp -r /usr/share/doc/rdma-core/tests "$root/tests"
	gunzip "$root"/tests/*.gz
	patch -s -p1 -d "$root/tests" < "$client/tests-rxe-netdev.patch"
	echo "$stamp" > "$root/.kslot-stamp"
fi

# 4. Ours, against libibverbs, run in the chroot.
mkdir -p "$out/bin"
for prog in rdma_stale rdma_bench; do
	[ -f "$client/$prog.c" ] || continue
	gcc -O2 -Wall -Wextra -Werror -o "$out/bin/$prog" "$client/$prog.c" \
		-libverbs
done
cp "$out/bin/"* "$out/vm/"

# 5. The key of the stock module's results.
key=$( { echo "$krel"; basename "$kdir"; cat "$root/.kslot-stamp"
	cd "$out/vm" && sha256sum modules/*.ko rdma_stale run.sh; } |
	sha256sum | cut -c1-16)
echo "$cache/rdma-stock-$krel-$key" > "$out/stock-cache"
