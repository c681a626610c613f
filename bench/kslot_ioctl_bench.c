// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_ioctl_bench: the /dev/kslot ioctl path from userspace, through
 * libkslot, one entry per ioctl against batches of 16 and 256.
 *
 *   kslot_ioctl_bench [-n ENTRIES] [-r REPS] [-s RECORD_SIZES]
 *
 * Fills a map table, then a dense one, with ENTRIES 8-byte records and
 * times lookups (GET) in a fixed random order; then cycles ENTRIES map
 * entries through insert+erase.  Then, for each further record size of
 * -s (a comma-separated list, default 64,256,1024; 8 is the headline
 * above and is skipped), the map GET rows again with records of that
 * size, as op get_rec<SIZE>, with ENTRIES entries up to 64 bytes and
 * ENTRIES * 64 / SIZE above (the same bytes of records, less time).
 * Prints lines in the format of kslot_bench.ko:
 *
 *   ok N ioctl_<op>_batch<B> size=.. kslot_ns=.. anchor=ioctl_<op>_single
 *	anchor_ns=..
 *
 * with ns per entry (<op> get for a map table, dense_get for a dense one,
 * get_rec<SIZE> for a map table of SIZE-byte records, insert_erase),
 * and a "# ... entries/s" comment per measurement.  Each repetition
 * times every variant once, one after the other, and each variant keeps
 * its best repetition, so a change of load on the host (the VM is TCG)
 * falls on all of them alike.
 *
 * The per-entry cost of a batch-256 GET is also set against a copy-only
 * batch (anchor=copy_only_batch256): one pread(2) from a memfd per 256
 * entries, of the bytes the batch moves across the user boundary (each
 * entry's 8-byte handle in and its record out), so the same syscalls and
 * user copies with no lookup.  The ratio is what the lookups add, not a
 * kernel memcpy() set against a whole ioctl's share.  Under TCG, with
 * 64K entries in random order, the lookups' share is mostly the
 * soft-MMU's refills (every lookup touches a random slot page and a
 * random record page), which a copy from one page never pays; under QEMU
 * -icount (guest time counts instructions) it is their instructions.
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
#define MAX_REC	4096

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
			 uint32_t n, uint32_t batch, uint64_t *recs,
			 uint32_t rec)
{
	uint64_t t = now_ns();
	uint32_t i, done;

	for (i = 0; i < n; i += batch) {
		uint32_t c = n - i < batch ? n - i : batch;
		int ret;

		if (batch == 1)
			ret = kslot_get(fd, table, handles[i], recs, rec);
		else
			ret = kslot_get_batch(fd, table, handles + i, c, recs,
					      rec, &done);
		if (ret)
			return UINT64_MAX;
	}
	return now_ns() - t;
}

/*
 * The copy-only batch: per 256 entries one pread(2) of their handles'
 * and records' bytes (@bytes each) from a memfd's page cache.  ns taken,
 * or UINT64_MAX.
 */
static uint64_t copy_pass(int mfd, uint32_t n, size_t bytes, void *buf)
{
	uint64_t t = now_ns();
	uint32_t i;

	for (i = 0; i < n; i += 256) {
		size_t len = (n - i < 256 ? n - i : 256) * bytes;

		if (pread(mfd, buf, len, 0) != (ssize_t)len)
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

/* Fill table @table with n records of @rec bytes; 0 or -1. */
static int fill(int fd, uint32_t table, uint64_t *handles, uint32_t n,
		const uint64_t *recs, uint32_t rec)
{
	uint32_t i, done;

	for (i = 0; i < n; i += 256) {
		uint32_t c = n - i < 256 ? n - i : 256;

		if (kslot_insert_batch(fd, table, recs, rec, c, handles + i,
				       &done))
			return -1;
	}
	return 0;
}

static const uint32_t batches[] = { 1, 16, 256 };
#define NB	3

/*
 * GETs of a table of @kind with n records of @rec bytes in the order of
 * @handles, and the copy-only batch, each repetition timing every batch
 * size once.
 */
static void get_rows(int fd, int mfd, uint32_t kind, uint32_t rec,
		     uint32_t n, uint32_t reps, uint64_t *handles,
		     uint64_t *recs, void *copybuf)
{
	uint64_t best[NB], best_copy = UINT64_MAX, seed = 20240607;
	uint32_t table, i, b, r;
	double ns[NB], copy;
	char op[32];

	if (kind == KSLOT_KIND_DENSE)
		snprintf(op, sizeof(op), "dense_get");
	else if (rec == REC)
		snprintf(op, sizeof(op), "get");
	else
		snprintf(op, sizeof(op), "get_rec%u", rec);
	if (kslot_create(fd, kind, rec, n, &table) ||
	    fill(fd, table, handles, n, recs, rec)) {
		printf("not ok %u ioctl %s setup\n", ++tests, op);
		return;
	}
	/* The same fixed random order for every kind and batch size. */
	for (i = n - 1; i > 0; i--) {
		uint32_t j;
		uint64_t t;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (seed >> 33) % (i + 1);
		t = handles[i];
		handles[i] = handles[j];
		handles[j] = t;
	}
	for (b = 0; b < NB; b++)
		best[b] = UINT64_MAX;
	for (r = 0; r < reps; r++) {
		uint64_t t;

		for (b = 0; b < NB; b++) {
			t = get_pass(fd, table, handles, n, batches[b], recs,
				     rec);
			if (t < best[b])
				best[b] = t;
		}
		t = mfd < 0 ? UINT64_MAX :
		    copy_pass(mfd, n, sizeof(uint64_t) + rec, copybuf);
		if (t < best_copy)
			best_copy = t;
	}
	kslot_destroy(fd, table);
	for (b = 0; b < NB; b++) {
		if (best[b] == UINT64_MAX) {
			printf("not ok %u ioctl %s batch %u\n", ++tests, op,
			       batches[b]);
			return;
		}
		ns[b] = (double)best[b] / n;
		report(op, batches[b], n, ns[b], ns[0]);
	}
	if (best_copy == UINT64_MAX) {
		printf("not ok %u ioctl %s vs copy\n", ++tests, op);
		return;
	}
	copy = (double)best_copy / n;
	printf("# ioctl %s batch 256 vs single: %.1fx entries/s\n", op,
	       ns[NB - 1] > 0 ? ns[0] / ns[NB - 1] : 0);
	printf("# ioctl %s batch 256 per entry vs a copy-only batch: %.2fx\n",
	       op, copy > 0 ? ns[NB - 1] / copy : 0);
	printf("ok %u ioctl_%s_batch256_copy size=%u kslot_ns=%.2f ", ++tests,
	       op, n, ns[NB - 1]);
	printf("anchor=copy_only_batch256 anchor_ns=%.2f\n", copy);
}

int main(int argc, char **argv)
{
	uint32_t n = 65536, reps = 3, b, r;
	uint64_t best[NB], *handles, *recs;
	const char *sizes = "64,256,1024";
	size_t copylen;
	void *copybuf;
	int fd, mfd, opt;
	char *end;

	while ((opt = getopt(argc, argv, "n:r:s:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			reps = strtoul(optarg, NULL, 0);
		else if (opt == 's')
			sizes = optarg;
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
	/* Room for the largest record size -s may ask for. */
	copylen = 256 * (sizeof(uint64_t) + MAX_REC);
	recs = calloc(256, MAX_REC);
	copybuf = calloc(1, copylen);
	if (!handles || !recs || !copybuf) {
		printf("not ok 1 ioctl setup\n");
		return 1;
	}
	mfd = memfd_create("kslot_ioctl_bench", 0);
	if (mfd >= 0 && pwrite(mfd, copybuf, copylen, 0) != (ssize_t)copylen) {
		close(mfd);
		mfd = -1;
	}
	get_rows(fd, mfd, KSLOT_KIND_MAP, REC, n, reps, handles, recs,
		 copybuf);
	get_rows(fd, mfd, KSLOT_KIND_DENSE, REC, n, reps, handles, recs,
		 copybuf);

	/* A table per pass cycles n entries through insert+erase. */
	for (b = 0; b < NB; b++)
		best[b] = UINT64_MAX;
	for (r = 0; r < reps; r++) {
		for (b = 0; b < NB; b++) {
			uint64_t t = UINT64_MAX;
			uint32_t t2;

			if (!kslot_create(fd, KSLOT_KIND_MAP, REC, n, &t2)) {
				t = cycle_pass(fd, t2, handles, n, batches[b],
					       recs);
				kslot_destroy(fd, t2);
			}
			if (t < best[b])
				best[b] = t;
		}
	}
	for (b = 0; b < NB; b++) {
		if (best[b] == UINT64_MAX || best[0] == UINT64_MAX) {
			printf("not ok %u ioctl insert_erase batch %u\n",
			       ++tests, batches[b]);
			continue;
		}
		report("insert_erase", batches[b], n, (double)best[b] / n,
		       (double)best[0] / n);
	}

	/* The map GET rows at the other record sizes. */
	while (*sizes) {
		unsigned long rec = strtoul(sizes, &end, 0);
		uint32_t rn = n;

		if (end == sizes || !rec || rec > MAX_REC) {
			printf("not ok %u ioctl record size %s\n", ++tests,
			       sizes);
			break;
		}
		sizes = *end == ',' ? end + 1 : end;
		if (rec == REC)
			continue;
		if (rec > 64)
			rn = (uint32_t)((uint64_t)n * 64 / rec);
		if (!rn)
			rn = 1;
		get_rows(fd, mfd, KSLOT_KIND_MAP, rec, rn, reps, handles, recs,
			 copybuf);
	}
	printf("1..%u\n", tests);
	kslot_close(fd);
	return 0;
}
