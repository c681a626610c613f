#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint every kslot source file with the kernel tree's own tools:
# checkpatch --strict, kernel-doc -Wall, sparse (make C=2) and the
# kernel's semantic patches (make coccicheck MODE=report) on the kernel
# code: module/, kunit/ and bench/ (sparse: docs/example/'s drivers too).
#
# Usage: scripts/lint.sh KDIR [--tap]
#   KDIR   a kernel build tree with a "source" link
#   --tap  print one TAP case per tool (for make check), findings as
#          comments
#
# A clean result is cached under ${XDG_CACHE_HOME:-~/.cache}/kslot/lint/,
# keyed on everything it depends on: the content of every file git
# tracks (this script included), the kernel tree (its cache directory
# names its config and source) and the versions of sparse and
# coccinelle.  The same tree lints the same, so a run on an identical
# tree prints the cached result and says so; any change lints it all.
# LINT_CACHE=0 always lints, as does a tree outside git.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Its makes run with their own -j (scripts/own-make.sh).
# shellcheck source=scripts/own-make.sh
. "$top/scripts/own-make.sh"
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ] ||
	{ [ $# = 2 ] && [ "$2" != --tap ]; }; then
	echo "usage: $0 KDIR [--tap]   (KDIR: a kernel build tree)" >&2
	exit 2
fi
kdir=$1
tap=${2:-}
ksrc=$(readlink -f "$kdir/source" 2>/dev/null || echo "$kdir")
cd "$top"
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]')

checkpatch_one() {
	local ignore=
	# Userspace code (selftests, tools) rightly uses <stdint.h> types.
	case "$1" in
	selftests/* | userspace-tools/* | bench/native/* | bench/kslot_ioctl_bench.c | \
	docs/example/stale.c | \
	clients/iommufd/iommufd_*.c | clients/rdma/rdma_*.c)
		ignore="--ignore PREFER_KERNEL_TYPES" ;;
	esac
	# The native shim defines the kernel's own macros for userspace.
	case "$1" in
	bench/native/kslot_shim.h)
		ignore="$ignore --ignore MACRO_ARG_REUSE,MACRO_ARG_UNUSED"
		ignore="$ignore,MACRO_ARG_PRECEDENCE,COMPLEX_MACRO"
		ignore="$ignore,NEW_TYPEDEFS,PREFER_DEFINED_ATTRIBUTE_MACRO"
		ignore="$ignore,SINGLE_STATEMENT_DO_WHILE_MACRO,VOLATILE"
		ignore="$ignore,MEMORY_BARRIER,IS_ENABLED_CONFIG"
		ignore="$ignore,EXPORT_SYMBOL,SIZEOF_ADDRESS,BIT_MACRO" ;;
	esac
	"$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet $ignore \
		-f "$1" 2>&1
}

run_checkpatch() {
	export -f checkpatch_one
	export ksrc
	printf '%s\n' $files | xargs -P "$(nproc)" -I{} bash -c 'checkpatch_one "$1"' _ {}
}

run_kerneldoc() {
	# shellcheck disable=SC2086 # one word per file
	"$ksrc/scripts/kernel-doc" -none -Wall $files 2>&1
}

run_sparse() {
	if ! command -v sparse >/dev/null; then
		echo "sparse is not installed"
		return
	fi
	make -s -j"$(nproc)" -C "$kdir" M="$top" C=2 W=1 modules 2>&1 |
		grep -E 'warning|error'
	# The benchmark module and the driver examples build on their own
	# (bench/Kbuild, docs/example/Kbuild).
	for m in bench docs/example; do
		make -s -j"$(nproc)" -C "$kdir" M="$top/$m" C=2 W=1 \
			KBUILD_EXTRA_SYMBOLS="$top/Module.symvers" modules 2>&1 |
			grep -E 'warning|error'
	done
}

# Every semantic patch of scripts/coccinelle in report mode; a finding is a
# "file:line:col: ..." line about one of our kernel files.  bench/ also
# holds userspace programs (bench/native/, the ioctl benchmark), where the
# kernel's own helpers (min(), swap(), ...) do not exist: the semantic
# patches are the kernel's rules, so those are left out.  The kernel
# files (git's, as the other tools lint) are copied into one directory,
# laid out as here, for one pass of the semantic patches: each spatch run
# costs about a second of start-up whatever it reads, so a pass per
# directory took three times as long.
run_coccicheck() {
	local stage
	if ! command -v spatch >/dev/null; then
		echo "coccinelle (spatch) is not installed"
		return
	fi
	stage=$(mktemp -d) || { echo "coccicheck: mktemp failed"; return; }
	{ git ls-files module kunit bench 2>/dev/null ||
		find module kunit bench -name '*.[ch]'; } |
		grep -E '\.[ch]$' |
		grep -vE '^bench/(native/|kslot_ioctl_bench\.c)' |
		cpio -pdm --quiet "$stage/kslot"
	make -s -C "$ksrc" coccicheck MODE=report M="$stage/kslot" 2>&1 |
		grep -E "^$stage/kslot/[^:]+:[0-9]+:" |
		sed "s|^$stage/kslot/|$top/|"
	rm -rf "$stage"
}

cache=${XDG_CACHE_HOME:-$HOME/.cache}/kslot/lint
# Outside a git work tree nothing names the files: no cache.
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || LINT_CACHE=0
key=$( {
	readlink -f "$kdir"
	command -v sparse >/dev/null && sparse --version
	command -v spatch >/dev/null && spatch --version | head -1
	git ls-files -z | xargs -0 sha256sum
} 2>&1 | sha256sum | cut -c1-16)
if [ "${LINT_CACHE:-1}" != 0 ] && [ -f "$cache/$key" ]; then
	if [ "$tap" = --tap ]; then
		cat "$cache/$key"
		echo "# note: an identical tree's clean result, cached (key $key)"
	else
		echo "lint: clean (an identical tree's result, cached: key $key)"
	fi
	exit 0
fi

fail=0
n=0
result=
[ "$tap" = --tap ] && printf 'TAP version 13\n1..4\n'
for tool in checkpatch kerneldoc sparse coccicheck; do
	out=$(run_$tool)
	n=$((n + 1))
	if [ "$tap" = --tap ]; then
		if [ -n "$out" ]; then
			echo "not ok $n $tool"
			echo "$out" | sed 's/^/# /'
		else
			echo "ok $n $tool"
		fi
	else
		echo "lint: $tool"
		[ -n "$out" ] && echo "$out"
	fi
	[ -n "$out" ] && fail=1
	result="${result}ok $n $tool"$'\n'
done
[ "$tap" != --tap ] && [ $fail = 0 ] && echo "lint: clean"
if [ $fail = 0 ] && [ "${LINT_CACHE:-1}" != 0 ] && mkdir -p "$cache"; then
	printf 'TAP version 13\n1..4\n%s' "$result" > "$cache/$key.tmp" &&
		mv "$cache/$key.tmp" "$cache/$key"
fi
exit $fail
