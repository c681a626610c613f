// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_ioctl_bench: the /dev/kslot ioctl path from userspace, through
 * libkslot, one entry per ioctl against batches of 16 and 256.
 *
 *   kslot_ioctl_bench [-n ENTRIES] [-r REPS]
 *
 * Fills a map table with ENTRIES 8-byte records, then times lookups
 * (GET), and insert+erase cycles, in a fixed random order.  Prints lines
 * in the format of kslot_bench.ko:
 *
 *   ok N ioctl_<op>_batch<B> size=.. kslot_ns=.. anchor=ioctl_<op>_single
 *	anchor_ns=..
 *
 * with ns per entry, and a "# ... ops/s" comment per measurement.  The
 * batch-256 GET is also set against the cost of copying its records out
 * of the kernel alone: a pread(2) of 256 records' bytes from a memfd, per
 * record (anchor=read_copy_batch256).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libkslot.h"

#define REC	8

static unsigned int tests;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Lookups of handles[0..n-1], @batch per ioctl.  Returns the ns taken
 * (0 is possible with a coarse clock), UINT64_MAX on error.
 */
static uint64_t get_pass(int fd, uint32_t table, const uint64_t *handles,
			 uint32_t n, uint32_t batch, uint64_t *recs)
{
	uint64_t t = now_ns();
	uint32_t i, done;

	for (i = 0; i < n; i += batch) {
		uint32_t c = n - i < batch ? n - i : batch;
		int ret;

		if (batch == 1)
			ret = kslot_get(fd, table, handles[i], recs, REC);
		else
			ret = kslot_get_batch(fd, table, handles + i, c, recs,
					      REC, &done);
		if (ret)
			return UINT64_MAX;
	}
	return now_ns() - t;
}

/*
 * The copy a batch-256 GET cannot avoid: n records copied to userspace,
 * 256 per pread(2) from a memfd's page cache.  ns taken, or UINT64_MAX.
 */
static uint64_t copy_pass(int mfd, uint32_t n, uint64_t *recs)
{
	uint64_t t = now_ns();
	uint32_t i;

	for (i = 0; i < n; i += 256) {
		size_t len = (n - i < 256 ? n - i : 256) * REC;

		if (pread(mfd, recs, len, 0) != (ssize_t)len)
			return UINT64_MAX;
	}
	return now_ns() - t;
}

/* Insert n records and erase them again, @batch per ioctl. */
static uint64_t cycle_pass(int fd, uint32_t table, uint64_t *handles,
			   uint32_t n, uint32_t batch, const uint64_t *recs)
{
	uint64_t t = now_ns();
	uint32_t i, c, done;

	for (i = 0; i < n; i += batch) {
		c = n - i < batch ? n - i : batch;
		if (batch == 1 ?
		    kslot_insert(fd, table, recs, REC, handles + i) :
		    kslot_insert_batch(fd, table, recs, REC, c, handles + i,
				       &done))
			return UINT64_MAX;
	}
	for (i = 0; i < n; i += batch) {
		c = n - i < batch ? n - i : batch;
		if (batch == 1 ? kslot_erase(fd, table, handles[i]) :
		    kslot_erase_batch(fd, table, handles + i, c, &done))
			return UINT64_MAX;
	}
	return now_ns() - t;
}

static void report(const char *op, uint32_t batch, uint32_t n, double ns,
		   double single)
{
	printf("# ioctl %s batch %u: %.0f entries/s\n", op, batch,
	       ns > 0 ? 1e9 / ns : 0);
	if (batch == 1)
		return;
	printf("ok %u ioctl_%s_batch%u size=%u kslot_ns=%.2f ", ++tests, op,
	       batch, n, ns);
	printf("anchor=ioctl_%s_single anchor_ns=%.2f\n", op, single);
}

int main(int argc, char **argv)
{
	static const uint32_t batches[] = { 1, 16, 256 };
	uint32_t n = 65536, reps = 3, table, i, b, done;
	uint64_t *handles, *shuffled, *recs, seed = 20240607;
	double single_get = 0, single_cycle = 0, get256 = 0;
	uint64_t best_copy = UINT64_MAX;
	int fd, mfd, opt;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			reps = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (!n || !reps)
		return 2;
	/* Each line as it comes, should the guest be stopped midway. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	fd = kslot_open();
	if (fd < 0) {
		printf("1..0 # SKIP /dev/kslot: %s\n", strerror(-fd));
		return 4;
	}
	handles = calloc(n, sizeof(*handles));
	shuffled = calloc(n, sizeof(*shuffled));
	recs = calloc(256, REC);
	if (!handles || !shuffled || !recs ||
	    kslot_create(fd, KSLOT_KIND_MAP, REC, n, &table)) {
		printf("not ok 1 ioctl setup\n");
		return 1;
	}
	for (i = 0; i < n; i += 256) {
		uint32_t c = n - i < 256 ? n - i : 256;

		if (kslot_insert_batch(fd, table, recs, REC, c, handles + i,
				       &done)) {
			printf("not ok 1 ioctl fill\n");
			return 1;
		}
	}
	/* The same fixed random order for every batch size. */
	memcpy(shuffled, handles, n * sizeof(*handles));
	for (i = n - 1; i > 0; i--) {
		uint32_t j;
		uint64_t t;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (seed >> 33) % (i + 1);
		t = shuffled[i];
		shuffled[i] = shuffled[j];
		shuffled[j] = t;
	}

	for (b = 0; b < 3; b++) {
		uint64_t best_get = UINT64_MAX, best_cycle = UINT64_MAX;
		double get, cycle;
		uint32_t r;

		for (r = 0; r < reps; r++) {
			uint64_t t = get_pass(fd, table, shuffled, n,
					      batches[b], recs);

			if (t < best_get)
				best_get = t;
		}
		/* A second table cycles n entries through insert+erase. */
		for (r = 0; r < reps; r++) {
			uint64_t t = UINT64_MAX;
			uint32_t t2;

			if (!kslot_create(fd, KSLOT_KIND_MAP, REC, n, &t2)) {
				t = cycle_pass(fd, t2, handles, n, batches[b],
					       recs);
				kslot_destroy(fd, t2);
			}
			if (t < best_cycle)
				best_cycle = t;
		}
		if (best_get == UINT64_MAX || best_cycle == UINT64_MAX) {
			printf("not ok %u ioctl batch %u\n", ++tests,
			       batches[b]);
			continue;
		}
		get = (double)best_get / n;
		cycle = (double)best_cycle / n;
		if (b == 0) {
			single_get = get;
			single_cycle = cycle;
		}
		if (batches[b] == 256)
			get256 = get;
		report("get", batches[b], n, get, single_get);
		report("insert_erase", batches[b], n, cycle, single_cycle);
	}
	mfd = memfd_create("kslot_ioctl_bench", 0);
	if (mfd >= 0 && pwrite(mfd, recs, 256 * REC, 0) == 256 * REC) {
		for (i = 0; i < reps; i++) {
			uint64_t t = copy_pass(mfd, n, recs);

			if (t < best_copy)
				best_copy = t;
		}
	}
	if (best_copy == UINT64_MAX || !get256) {
		printf("not ok %u ioctl get vs copy\n", ++tests);
	} else {
		double copy = (double)best_copy / n;

		printf("# ioctl get batch 256 vs single: %.1fx entries/s\n",
		       single_get / get256);
		printf("# ioctl get batch 256 per entry vs copying a record: %.2fx\n",
		       copy > 0 ? get256 / copy : 0);
		printf("ok %u ioctl_get_batch256_copy size=%u kslot_ns=%.2f ",
		       ++tests, n, get256);
		printf("anchor=read_copy_batch256 anchor_ns=%.2f\n", copy);
	}
	printf("1..%u\n", tests);
	kslot_close(fd);
	return 0;
}
