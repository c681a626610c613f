# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The RDMA runs alone, without the rest of make check (scripts/rdma.sh
# builds OUT, make rdma does it for the test kernel):
#
#   make rdma
#   make vm-run SCRIPT=clients/rdma/vm-run.sh FILES=build/rdma/debug/vm
#
# The packed userland (build/rdma/root) must be in FILES/root: make rdma
# links it there.  Script mode sends the script's output to the results
# port already, so the sections run.sh writes there are judged by
# scripts/verdict.py as in check mode.
R=/dev/ttyS1
res() { echo "$*" > $R; }
RDMA_DIR=/files
. /files/run.sh
