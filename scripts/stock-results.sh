#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stock modules' recorded results (clients/CLIENT/stock-results/).
#
# Usage: scripts/stock-results.sh seed CLIENT CACHEDIR
#        scripts/stock-results.sh record
#
# make check runs each converted client's tests twice, on the kernel's
# own (stock) module and on the kslot one, and holds the kslot module to
# every test the stock module passes.  The stock module's results do not
# depend on kslot: they are kept under a key of everything they do
# depend on (the kernel's build, the stock module, the programs run on
# it and the client's run.sh; scripts/iommufd.sh and scripts/rdma.sh
# step 5), in the cache directory CACHEDIR, ~/.cache/kslot/KEY, where
# scripts/verdict.py stores them after a clean run.
#
# The kernel's modules and those programs build reproducibly (the same
# bytes on every machine with the same Debian packages), so the key is
# the same on a fresh machine.  A result recorded in the tree under its
# key spares a fresh machine the stock runs (about 8 minutes of a VM):
#
# seed    if CACHEDIR holds no results and clients/CLIENT/stock-results/
#         holds them under CACHEDIR's name, copy them there (the
#         verdict's note then says where they came from).  IOMMUFD_STOCK=1
#         and RDMA_STOCK=1 still run the stock module, and the fresh
#         results replace the seeded ones in the cache.
# record  copy the results of the keys the last build used (build/*/
#         stock-cache and build/rdma/*/stock-cache) from the cache into
#         clients/CLIENT/stock-results/, dropping the recorded keys no
#         build uses any more; commit them with the change that moved
#         the key.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 seed CLIENT CACHEDIR | $0 record" >&2
	exit 2
}

seed() {
	local client=$1 cache=$2
	local rec
	rec=$top/clients/$client/stock-results/$(basename "$cache")
	[ -f "$cache/results.log" ] && return 0
	[ -f "$rec/results.log" ] || return 0
	mkdir -p "$cache"
	# results.log is what says the results are there: written last.
	[ -f "$rec/splats" ] && cp "$rec/splats" "$cache/"
	echo "$(cat "$rec/recorded"), seeded from clients/$client/stock-results" \
		> "$cache/recorded"
	cp "$rec/results.log" "$cache/results.log.tmp"
	mv "$cache/results.log.tmp" "$cache/results.log"
}

record() {
	local f cache client dir n=0
	declare -A keep=()
	for f in "$top"/build/iommufd/stock-cache "$top"/build/rdma/*/stock-cache; do
		[ -f "$f" ] || continue
		cache=$(cat "$f")
		case "$(basename "$cache")" in
		iommufd-stock-*) client=iommufd ;;
		rdma-stock-*) client=rdma ;;
		*) continue ;;
		esac
		if [ ! -f "$cache/results.log" ]; then
			echo "stock-results.sh: no results in $cache (run make check first)" >&2
			exit 1
		fi
		dir=$top/clients/$client/stock-results/$(basename "$cache")
		keep[$dir]=1
		rm -rf "$dir"
		mkdir -p "$dir"
		cp "$cache/results.log" "$dir/"
		[ -f "$cache/splats" ] && cp "$cache/splats" "$dir/"
		# The run it came from, without a seed's suffix.
		sed 's/, seeded from .*//' "$cache/recorded" > "$dir/recorded"
		# What the stock module did not pass is not held against the
		# kslot one: say how much, for the committer to read.
		echo "stock-results.sh: recorded $(basename "$cache"):" \
			"$(grep -cE '^(not ok|FAIL|ERROR)|\.\.\. (FAIL|ERROR)' \
				"$dir/results.log") results that are not a pass"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { echo "stock-results.sh: nothing built yet" >&2; exit 1; }
	for dir in "$top"/clients/*/stock-results/*/; do
		dir=${dir%/}
		if [ ! -d "$dir" ] || [ -n "${keep[$dir]:-}" ]; then
			continue
		fi
		rm -rf "$dir"
		echo "stock-results.sh: dropped $(basename "$dir") (no build uses it)"
	done
}

case "${1:-}" in
seed) [ $# = 3 ] || usage; seed "$2" "$3" ;;
record) [ $# = 1 ] || usage; record ;;
*) usage ;;
esac
