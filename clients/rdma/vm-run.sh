# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The RDMA runs alone, without the rest of make check, in script mode:
# FILES is scripts/rdma.sh's OUT/vm with the packed userland
# (build/rdma/root) copied or hard-linked into FILES/root, as
# scripts/rdma-bench.sh stages it for the stock 6.12 kernel; on the debug
# kernel:
#
#   make rdma RDMA_DEBUG=1
#   cp -al build/rdma/debug/vm /tmp/f && cp -al build/rdma/root /tmp/f/root
#   make vm-run RDMA_DEBUG=1 SCRIPT=clients/rdma/vm-run.sh FILES=/tmp/f
#
# FILES/run-modules, FILES/suite and FILES/bench choose what runs (see
# run.sh).  Script mode sends the script's output to the results port
# already, so the sections run.sh writes there are judged by
# scripts/verdict.py as in check mode.
R=/dev/ttyS1
res() { echo "$*" > $R; }
RDMA_DIR=/files
. /files/run.sh
