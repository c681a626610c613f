# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The iommufd runs alone, without the rest of make check:
#
#   make iommufd
#   make vm-run SCRIPT=clients/iommufd/vm-run.sh FILES=build/iommufd/vm
#
# Script mode sends the script's output to the results port already, so
# the sections run.sh writes there are judged by scripts/verdict.py as in
# check mode (the summary line included).
R=/dev/ttyS1
res() { echo "$*" > $R; }
IOMMUFD_DIR=/files
. /files/run.sh
