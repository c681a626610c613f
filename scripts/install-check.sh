#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make install" into a scratch DESTDIR with PREFIX=/usr, against the
# headers of one of Debian's stock kernels, from a copy of the sources (so
# the objects of the test-kernel build stay in place); then check the tree
# file by file and use what was installed: both modules are for that
# kernel and depmod resolves kslot_dev.ko to kslot.ko, kslotctl runs, a program builds
# against libkslot through kslot.pc (shared and static), the man page
# renders without warnings and documents every command.
#
# Usage: scripts/install-check.sh SERIES   (6.12 or 6.1)
# Prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
series=${1:-6.12}
case "$#:$series" in
[01]:6.12 | [01]:6.1) ;;
*) echo "usage: $0 [SERIES]   (6.12, the default, or 6.1)" >&2; exit 2 ;;
esac
n=0
total=11

echo "TAP version 13"
echo "1..$total"

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'
	fi
}

bail() {
	while [ $n -lt $total ]; do
		ok 1 "$1"
	done
	exit 0
}

if ! got=$("$top/scripts/stock-kernel.sh" --headers "$series" 2> /dev/null); then
	bail "make install # Debian $series kernel headers missing"
fi
read -r ver root <<< "$got"
mkdir -p "$top/build"
tmp=$(mktemp -d "$top/build/install-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
d=$tmp/destdir
mkdir -p "$src"
tar -C "$top" --exclude=./build --exclude=./.git --exclude='*.o' \
	--exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers \
	-cf - . | tar -C "$src" -xf -

log=$(make -C "$src" install DESTDIR="$d" PREFIX=/usr \
	KDIR="$root/usr/src/linux-headers-$ver" 2>&1)
rc=$?
ok $rc "make install DESTDIR=... PREFIX=/usr (linux-headers-$ver)" \
	"$(echo "$log" | tail -20)"
[ $rc = 0 ] || bail "make install failed"

# 2. The tree holds exactly the expected files.
expect="lib/modules/$ver/updates/kslot.ko
lib/modules/$ver/updates/kslot_demo.ko
lib/modules/$ver/updates/kslot_dev.ko
usr/bin/kslotctl
usr/include/libkslot.h
usr/include/linux/kslot.h
usr/lib/libkslot.a
usr/lib/libkslot.so
usr/lib/libkslot.so.0
usr/lib/pkgconfig/kslot.pc
usr/lib/udev/rules.d/60-kslot.rules
usr/share/man/man8/kslotctl.8"
have=$(cd "$d" && find . ! -type d | sed 's|^\./||; s/\.ko\.[gx]z$/.ko/; s/\.ko\.zst$/.ko/' | sort)
diffs=$(diff <(echo "$expect") <(echo "$have"))
ok "$([ -z "$diffs" ]; echo $?)" "installed tree: exactly the 12 expected files" "$diffs"

# 3. The modules are for that kernel.
bad=
for m in kslot kslot_dev; do
	ko=$(ls "$d/lib/modules/$ver/updates/$m".ko* 2> /dev/null | head -n1)
	magic=$(modinfo -F vermagic "$ko" 2> /dev/null | cut -d' ' -f1)
	[ "$magic" = "$ver" ] || bad="$bad $m:${magic:-missing}"
done
ok "$([ -z "$bad" ]; echo $?)" "kslot.ko and kslot_dev.ko have vermagic $ver" "$bad"

# 4. depmod over the installed tree: "modprobe kslot_dev" loads kslot.
# (depmod warns that the kernel's own modules.order and modules.builtin
# are not in the scratch tree.)
dep=$(depmod -b "$d" "$ver" 2> /dev/null &&
	sed -n 's|^updates/kslot_dev\.ko[.a-z]*: ||p' "$d/lib/modules/$ver/modules.dep")
rm -f "$d/lib/modules/$ver"/modules.*
ok "$([ "$(echo "$dep" | sed 's/\.ko\.[a-z]*$/.ko/')" = updates/kslot.ko ]; echo $?)" \
	"depmod: kslot_dev.ko depends on updates/kslot.ko" "$dep"

# 5. Modes, the shared library's soname and symlink, the uapi header.
bad=
[ -x "$d/usr/bin/kslotctl" ] || bad="$bad kslotctl-not-executable"
[ "$(readlink "$d/usr/lib/libkslot.so")" = libkslot.so.0 ] || bad="$bad libkslot.so-link"
readelf -d "$d/usr/lib/libkslot.so.0" | grep -q 'SONAME.*\[libkslot.so.0\]' ||
	bad="$bad soname"
cmp -s "$d/usr/include/linux/kslot.h" "$top/include/uapi/linux/kslot.h" ||
	bad="$bad uapi-header"
for f in usr/include/libkslot.h usr/lib/pkgconfig/kslot.pc \
	 usr/share/man/man8/kslotctl.8 usr/lib/udev/rules.d/60-kslot.rules; do
	[ "$(stat -c %a "$d/$f")" = 644 ] || bad="$bad mode-of-$f"
done
ok "$([ -z "$bad" ]; echo $?)" "modes, soname libkslot.so.0, uapi header" "$bad"

# 6. kslotctl runs.
out=$("$d/usr/bin/kslotctl" --help 2>&1)
ok "$(echo "$out" | grep -q '^usage: kslotctl'; echo $?)" "installed kslotctl --help"

# 7. kslot.pc is relocatable with a sysroot and names the prefix, not DESTDIR.
flags=$(PKG_CONFIG_LIBDIR="$d/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d" \
	pkg-config --cflags --libs kslot 2>&1 | sed 's/ *$//')
grep -q "$d" "$d/usr/lib/pkgconfig/kslot.pc"
leak=$?
ok "$([ $leak != 0 ] && [ "$flags" = "-I$d/usr/include -L$d/usr/lib -lkslot" ]; echo $?)" \
	"pkg-config kslot: $flags" "leaked DESTDIR: $([ $leak = 0 ] && echo yes || echo no)"

# 8, 9. A program builds against the installed library, shared and static.
cat > "$tmp/prog.c" << 'PROG'
#include <stdio.h>
#include <libkslot.h>

int main(void)
{
	int fd = kslot_open();

	printf("abi %d open %s\n", KSLOT_ABI_VERSION, fd >= 0 ? "ok" : "failed");
	if (fd >= 0)
		kslot_close(fd);
	return 0;
}
PROG
# shellcheck disable=SC2086
out=$(gcc -Wall -Werror -o "$tmp/prog" "$tmp/prog.c" $flags 2>&1 &&
	LD_LIBRARY_PATH=$d/usr/lib "$tmp/prog" 2>&1)
rc=$?
ldd_out=$(LD_LIBRARY_PATH=$d/usr/lib ldd "$tmp/prog" 2> /dev/null)
echo "$ldd_out" | grep -q "libkslot.so.0 => $d/usr/lib/libkslot.so.0" || rc=1
ok $rc "a program links the installed libkslot.so via kslot.pc" "$out"
# shellcheck disable=SC2046,SC2086
out=$(gcc -Wall -Werror -static -o "$tmp/prog-static" "$tmp/prog.c" \
	$(PKG_CONFIG_LIBDIR="$d/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d" \
	  pkg-config --cflags --libs --static kslot) 2>&1 &&
	"$tmp/prog-static" 2>&1)
ok $? "a program links the installed libkslot.a statically" "$out"

# 10. The man page renders without warnings and covers every command.
man=$d/usr/share/man/man8/kslotctl.8
warn=$(groff -man -ww -z "$man" 2>&1)
text=$(groff -man -Tascii -P-cbou "$man" 2> /dev/null)
cmds=$("$d/usr/bin/kslotctl" --help | sed -n 's/^  \([a-z-]\{1,\}\) .*/\1/p')
miss=
for c in $cmds --json --help; do
	grep -q -- "$c" <<< "$text" || miss="$miss $c"
done
ok "$([ -z "$warn$miss" ] && [ -n "$text" ]; echo $?)" \
	"kslotctl.8 renders cleanly and documents: $(echo $cmds)" "$warn$miss"

# 11. The udev rule states the device mode docs/dev.rst justifies.
rule=$(grep -v '^#' "$d/usr/lib/udev/rules.d/60-kslot.rules" | grep .)
ok "$([ "$rule" = 'KERNEL=="kslot", SUBSYSTEM=="misc", MODE="0666"' ]; echo $?)" \
	"udev rule: /dev/kslot mode 0666" "$rule"
