// SPDX-License-Identifier: GPL-2.0
/*
 * ops/s of an iommufd ioctl that resolves an object id: IOMMU_IOAS_IOVA_RANGES
 * on one IOAS (iommufd_get_object(), the table lookup under its lock with
 * the type check and the users reference, then the put).
 *
 *   iommufd_bench SECONDS
 *
 * Prints "ops=N ns_per_op=X" for the best of three runs of SECONDS/3 each;
 * scripts/bench.sh runs it on the stock and on the converted module in one
 * boot and turns the two into a result row.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/iommufd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct iommu_ioas_alloc alloc = { .size = sizeof(alloc) };
	struct iommu_iova_range buf[4];
	struct iommu_ioas_iova_ranges cmd = { .size = sizeof(cmd) };
	double secs = argc > 1 ? atof(argv[1]) : 3, best = 0;
	int fd, rep;

	fd = open("/dev/iommu", O_RDWR);
	if (fd < 0 || ioctl(fd, IOMMU_IOAS_ALLOC, &alloc)) {
		fprintf(stderr, "iommufd_bench: %s\n", strerror(errno));
		return 1;
	}
	cmd.ioas_id = alloc.out_ioas_id;
	cmd.allowed_iovas = (uintptr_t)buf;
	for (rep = 0; rep < 3; rep++) {
		double t0 = now(), t;
		unsigned long n = 0;

		do {
			for (int i = 0; i < 256; i++) {
				cmd.num_iovas = 4;
				if (ioctl(fd, IOMMU_IOAS_IOVA_RANGES, &cmd)) {
					fprintf(stderr, "iommufd_bench: %s\n",
						strerror(errno));
					return 1;
				}
			}
			n += 256;
			t = now() - t0;
		} while (t < secs / 3);
		if (n / t > best)
			best = n / t;
	}
	printf("ops=%.0f ns_per_op=%.1f\n", best, 1e9 / best);
	close(fd);
	return 0;
}
