#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kslot in the kernel tree: lib/kslot/ with a Kconfig, a Makefile and a
# .kunitconfig, the API headers in include/linux/, the ABI header in
# include/uapi/linux/.  The .c and .h files are the out-of-tree ones,
# unchanged.
#
# Usage:
#   scripts/intree.sh place TREE   place kslot into the kernel tree TREE
#   scripts/intree.sh kunit [DIR]  extract linux-source-6.12 into DIR
#                                  (default build/intree, kept for the next
#                                  run), place kslot and run
#                                  kunit.py run --arch=x86_64
#                                  --kunitconfig=lib/kslot there
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

place() {
	local tree=$1 dst=$1/lib/kslot

	[ -f "$tree/lib/Kconfig" ] && [ -f "$tree/lib/Makefile" ] ||
		{ echo "intree.sh: $tree is not a kernel tree" >&2; exit 1; }
	rm -rf "$dst"
	mkdir -p "$dst"
	cp -r "$top/module" "$top/kunit" "$dst/"
	cp "$top/Kbuild" "$dst/kslot.kbuild"
	cp "$top/intree/Kconfig" "$top/intree/Makefile" \
		"$top/intree/.kunitconfig" "$dst/"
	cp "$top"/include/linux/kslot_*.h "$tree/include/linux/"
	cp "$top/include/uapi/linux/kslot.h" "$tree/include/uapi/linux/"
	grep -qx 'source "lib/kslot/Kconfig"' "$tree/lib/Kconfig" ||
		printf '\nsource "lib/kslot/Kconfig"\n' >> "$tree/lib/Kconfig"
	grep -qx 'obj-$(CONFIG_KSLOT) += kslot/' "$tree/lib/Makefile" ||
		printf '\nobj-$(CONFIG_KSLOT) += kslot/\n' >> "$tree/lib/Makefile"
}

extract() {
	local dir=$1 tarball

	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
	[ -n "$tarball" ] ||
		{ echo "intree.sh: linux-source-6.12 is not installed" >&2; exit 1; }
	if [ ! -f "$dir/linux/.kslot-extracted" ]; then
		echo "intree.sh: extracting $tarball into $dir/linux" >&2
		rm -rf "$dir/linux" "$dir/linux.tmp"
		mkdir -p "$dir/linux.tmp"
		tar -xf "$tarball" -C "$dir/linux.tmp" --strip-components=1
		touch "$dir/linux.tmp/.kslot-extracted"
		mv "$dir/linux.tmp" "$dir/linux"
	fi
}

case "${1:-}" in
place)
	[ $# = 2 ] || { echo "usage: $0 place TREE" >&2; exit 2; }
	place "$2"
	;;
kunit)
	dir=${2:-$top/build/intree}
	extract "$dir"
	place "$dir/linux"
	cd "$dir/linux"
	exec ./tools/testing/kunit/kunit.py run --arch=x86_64 \
		--kunitconfig=lib/kslot
	;;
*)
	echo "usage: $0 place TREE | kunit [DIR]" >&2
	exit 2
	;;
esac
