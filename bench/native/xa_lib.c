// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel tree's lib/xarray.c, built as tools/testing/shared's
 * xarray-shared.c builds it but without XA_DEBUG, so that the anchor runs
 * the production code paths.  XARRAY_C is the file's path in the tree.
 */
#include "shared.h"

#include XARRAY_C
