# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the scripts that run make with their own -j (kernel.sh,
# build-copy.sh, iommufd.sh, lint.sh, stock-check.sh): their makes are
# not jobs of a make above them (make check's parallel build), whose
# jobserver in MAKEFLAGS would make each one warn "-jN forced in
# submake", and most of them fail a build on any warning.  Drops only
# the jobserver: a caller's other flags stay (refuse32-check.sh passes
# -k through build-copy.sh).  rdma.sh hashes its own text into its
# results' key, so the Makefile clears MAKEFLAGS for it instead.
own_make_flags=
for own_make_flag in ${MAKEFLAGS:-}; do
	case "$own_make_flag" in
	-j* | --jobserver*) ;;
	*) own_make_flags="$own_make_flags $own_make_flag" ;;
	esac
done
export MAKEFLAGS="$own_make_flags"
unset MFLAGS own_make_flag own_make_flags
