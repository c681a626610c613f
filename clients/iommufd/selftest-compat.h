/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debian's linux-source-6.12 carries tools/testing/selftests/iommu from a
 * later stable release than its drivers/iommu/iommufd/: the selftests use
 * uAPI and mock-driver names this kernel does not have.  scripts/iommufd.sh
 * force-includes this header (-include) so the selftests compile as
 * shipped; nothing of the selftest sources is changed.  Every name is
 * given its upstream value, so what this kernel does not implement fails
 * (on the stock module and on the converted one alike) instead of being
 * hidden:
 *
 * - IOMMU_HW_INFO_TYPE_DEFAULT: upstream renamed IOMMU_HW_INFO_TYPE_NONE
 *   (0) to it; the same value, so every IOMMU_GET_HW_INFO call that asks
 *   for the default type works as before.
 * - IOMMU_HW_INFO_FLAG_INPUT_TYPE and struct iommu_hw_info.in_data_type:
 *   asking for a given data type is newer than this kernel, which rejects
 *   any flag and any nonzero __reserved byte with -EOPNOTSUPP.  The field
 *   is mapped onto __reserved[0] (the bytes where upstream put it), so the
 *   default type passes 0 there.  iommufd_ioas.get_hw_info (every variant)
 *   asks for IOMMU_HW_INFO_TYPE_SELFTEST and fails on this kernel.
 * - MOCK_FLAGS_DEVICE_PASID and MOCK_PASID_WIDTH: the mock device's PASID
 *   support is newer too; the mock driver rejects the unknown flag, so the
 *   fixture setup of the pasid_capable variants fails.
 */
#ifndef KSLOT_IOMMUFD_SELFTEST_COMPAT_H
#define KSLOT_IOMMUFD_SELFTEST_COMPAT_H

#include <linux/iommufd.h>

#define IOMMU_HW_INFO_TYPE_DEFAULT	IOMMU_HW_INFO_TYPE_NONE
#define IOMMU_HW_INFO_FLAG_INPUT_TYPE	0x1	/* 1 << 0 */
#define in_data_type			__reserved[0]
#define MOCK_FLAGS_DEVICE_PASID		0x4	/* 1 << 2 */
#define MOCK_PASID_WIDTH		20

#endif
