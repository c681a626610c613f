// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest client of /dev/kslot: every command's success path, each
 * validation failure on its own with otherwise valid input, isolation
 * between files and across fork, lifetime, limits and concurrency.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libkslot.h"

#define RS	16		/* record size of the fixture's tables */
#define MAXE	4096

struct rec {
	uint64_t a, b;
};

/* The whole client skips (KSFT_SKIP) when kslot_dev is not loaded. */
static void __attribute__((constructor)) kslot_require_device(void)
{
	if (access(KSLOT_DEVICE, F_OK)) {
		ksft_print_header();
		ksft_exit_skip("%s is absent\n", KSLOT_DEVICE);
	}
}

static int kslot_open_or_skip(struct __test_metadata *_metadata)
{
	int fd = kslot_open();

	if (fd == -ENOENT)
		SKIP(return -1, "/dev/kslot is absent");
	ASSERT_LE(0, fd);
	return fd;
}

static uint64_t entries_of(int fd, uint32_t table)
{
	struct kslot_stats st;

	if (kslot_stats(fd, table, &st))
		return ~0ULL;
	return st.entries;
}

static long debugfs_value(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/sys/kernel/debug/kslot/dev-stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(key);

		if (!strncmp(line, key, n) && line[n] == ':')
			v = atol(line + n + 1);
	}
	fclose(f);
	return v;
}

/* Every TEST_F runs once per table kind. */
FIXTURE(kdev) {
	int fd;
	uint32_t t;
};

FIXTURE_VARIANT(kdev) {
	uint32_t kind;
};

FIXTURE_VARIANT_ADD(kdev, map) {
	.kind = KSLOT_KIND_MAP,
};

FIXTURE_VARIANT_ADD(kdev, dense) {
	.kind = KSLOT_KIND_DENSE,
};

FIXTURE_SETUP(kdev)
{
	struct kslot_info info;

	self->fd = kslot_open_or_skip(_metadata);
	ASSERT_EQ(0, kslot_info(self->fd, &info));
	if (!(info.kinds & (1U << variant->kind)))
		SKIP(return, "table kind %u not supported", variant->kind);
	ASSERT_EQ(0, kslot_create(self->fd, variant->kind, RS, MAXE,
				  &self->t));
}

FIXTURE_TEARDOWN(kdev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* ---- success paths ---- */

TEST_F(kdev, info)
{
	struct kslot_info info;

	ASSERT_EQ(0, kslot_info(self->fd, &info));
	EXPECT_EQ(KSLOT_ABI_VERSION, info.abi_version);
	EXPECT_TRUE(info.kinds & (1U << KSLOT_KIND_MAP));
	EXPECT_EQ(0, info.create_flags);
	EXPECT_LT(0, info.max_tables);
	EXPECT_LT(0, info.max_record_size);
	EXPECT_LT(0, info.max_entries);
	EXPECT_LT(0, info.max_batch);
	EXPECT_LT(0, info.max_bytes);
	EXPECT_LT(0, info.dense_max_bytes);
}

TEST_F(kdev, create_destroy)
{
	uint32_t id, id2;

	ASSERT_EQ(0, kslot_create(self->fd, KSLOT_KIND_MAP, 8, 10, &id));
	EXPECT_NE(0, id);
	EXPECT_NE(self->t, id);
	ASSERT_EQ(0, kslot_destroy(self->fd, id));
	EXPECT_EQ(-ENOENT, kslot_destroy(self->fd, id));
	/* Ids are not reused right away. */
	ASSERT_EQ(0, kslot_create(self->fd, KSLOT_KIND_MAP, 8, 10, &id2));
	EXPECT_NE(id, id2);
}

TEST_F(kdev, insert_get_update_erase)
{
	struct rec r = { 1, 2 }, out = {};
	uint64_t h;
	uint32_t t = self->t;

	ASSERT_EQ(0, kslot_insert(self->fd, t, &r, RS, &h));
	EXPECT_NE(0, h);
	ASSERT_EQ(0, kslot_get(self->fd, t, h, &out, RS));
	EXPECT_EQ(1, out.a);
	EXPECT_EQ(2, out.b);
	r.a = 3;
	ASSERT_EQ(0, kslot_update(self->fd, t, h, &r, RS));
	ASSERT_EQ(0, kslot_get(self->fd, t, h, &out, RS));
	EXPECT_EQ(3, out.a);
	EXPECT_EQ(1, entries_of(self->fd, t));
	ASSERT_EQ(0, kslot_erase(self->fd, t, h));
	EXPECT_EQ(-ENOENT, kslot_get(self->fd, t, h, &out, RS));
	EXPECT_EQ(0, entries_of(self->fd, t));
}

TEST_F(kdev, stale_handle_after_reuse)
{
	struct rec a = { 'A' }, b = { 'B' }, out;
	uint64_t ha, hb;
	uint32_t t = self->t;

	ASSERT_EQ(0, kslot_insert(self->fd, t, &a, RS, &ha));
	ASSERT_EQ(0, kslot_erase(self->fd, t, ha));
	ASSERT_EQ(0, kslot_insert(self->fd, t, &b, RS, &hb));
	EXPECT_NE(ha, hb);
	EXPECT_EQ(-ENOENT, kslot_get(self->fd, t, ha, &out, RS));
	EXPECT_EQ(-ENOENT, kslot_update(self->fd, t, ha, &a, RS));
	EXPECT_EQ(-ENOENT, kslot_erase(self->fd, t, ha));
	ASSERT_EQ(0, kslot_get(self->fd, t, hb, &out, RS));
	EXPECT_EQ('B', out.a);
}

TEST_F(kdev, batch)
{
	struct rec in[100], out[100];
	uint64_t h[100];
	uint32_t done = 99, i;
	uint32_t t = self->t;

	for (i = 0; i < 100; i++)
		in[i] = (struct rec){ i, ~(uint64_t)i };
	ASSERT_EQ(0, kslot_insert_batch(self->fd, t, in, RS, 100, h,
					&done));
	EXPECT_EQ(100, done);
	EXPECT_EQ(100, entries_of(self->fd, t));
	memset(out, 0, sizeof(out));
	ASSERT_EQ(0, kslot_get_batch(self->fd, t, h, 100, out, RS,
				     &done));
	EXPECT_EQ(100, done);
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	/* A batch of 1 and a batch of 0 (pointers not read). */
	ASSERT_EQ(0, kslot_get_batch(self->fd, t, h + 5, 1, out, RS,
				     &done));
	EXPECT_EQ(1, done);
	EXPECT_EQ(5, out[0].a);
	ASSERT_EQ(0, kslot_get_batch(self->fd, t, NULL, 0, NULL, RS,
				     &done));
	EXPECT_EQ(0, done);
	ASSERT_EQ(0, kslot_erase_batch(self->fd, t, h, 50, &done));
	EXPECT_EQ(50, done);
	/* Partial progress: stops at the first stale handle. */
	h[60] = h[0];
	EXPECT_EQ(-ENOENT, kslot_erase_batch(self->fd, t, h + 50, 50,
					     &done));
	EXPECT_EQ(10, done);
	EXPECT_EQ(40, entries_of(self->fd, t));
	EXPECT_EQ(-ENOENT, kslot_get_batch(self->fd, t, h + 50, 20,
					   out, RS, &done));
	EXPECT_EQ(0, done);
}

/*
 * Over a table of 4096 slots or more the kernel prefetches each slot of a
 * GET_BATCH 8 handles ahead into a ring and reads it where the prefetch
 * found it: handles in scrambled order all come back, batches of 1 to 17
 * (the ring's edges) too, and a stale handle or the null handle stops the
 * batch at its own entry, as in a small table.
 */
TEST_F(kdev, batch_prefetch)
{
	static const uint32_t at[] = { 0, 7, 8 };
	const uint32_t fill = 4096, n = 1024;
	uint64_t *h, tmp, stale, saved;
	struct rec *in, *out, r;
	struct kslot_stats st;
	uint32_t t, done, i, j;

	in = calloc(fill + n, sizeof(*in));
	out = calloc(n, sizeof(*out));
	h = calloc(fill + n, sizeof(*h));
	ASSERT_TRUE(in && out && h);
	for (i = 0; i < fill + n; i++)
		in[i] = (struct rec){ i + 1, ~(uint64_t)i };
	ASSERT_EQ(0, kslot_create(self->fd, variant->kind, RS, fill + n + 1,
				  &t));
	for (i = 0; i < fill + n; i += done)
		ASSERT_EQ(0, kslot_insert_batch(self->fd, t, in + i, RS,
						fill + n - i < n ?
						fill + n - i : n, h + i, &done));
	/* Swaps that scramble the first n handles (and their records). */
	for (i = 0; i < n; i++) {
		j = (i * 7 + 3) % (fill + n);
		tmp = h[i];
		h[i] = h[j];
		h[j] = tmp;
		r = in[i];
		in[i] = in[j];
		in[j] = r;
	}
	ASSERT_EQ(0, kslot_get_batch(self->fd, t, h, n, out, RS, &done));
	EXPECT_EQ(n, done);
	EXPECT_EQ(0, memcmp(in, out, n * sizeof(*in)));
	for (i = 1; i <= 17; i++) {
		memset(out, 0, n * sizeof(*out));
		ASSERT_EQ(0, kslot_get_batch(self->fd, t, h + 100, i, out, RS,
					     &done));
		EXPECT_EQ(i, done);
		EXPECT_EQ(0, memcmp(in + 100, out, i * sizeof(*in)));
	}

	ASSERT_EQ(0, kslot_insert(self->fd, t, &in[0], RS, &stale));
	ASSERT_EQ(0, kslot_erase(self->fd, t, stale));
	/* A stale handle at entry 0, 7 or 8 of batches of 9 and 17. */
	for (i = 0; i < 6; i++) {
		j = at[i % 3];
		saved = h[200 + j];
		h[200 + j] = stale;
		EXPECT_EQ(-ENOENT, kslot_get_batch(self->fd, t, h + 200,
						   i < 3 ? 9 : 17, out, RS,
						   &done));
		EXPECT_EQ(j, done);
		EXPECT_EQ(0, memcmp(in + 200, out, j * sizeof(*in)));
		h[200 + j] = saved;
	}
	saved = h[700];
	h[700] = stale;
	memset(out, 0, n * sizeof(*out));
	EXPECT_EQ(-ENOENT, kslot_get_batch(self->fd, t, h, n, out, RS,
					   &done));
	EXPECT_EQ(700, done);
	EXPECT_EQ(0, memcmp(in, out, 700 * sizeof(*in)));
	EXPECT_EQ(0, out[700].a);
	h[700] = saved;
	saved = h[1000];
	h[1000] = 0;
	EXPECT_EQ(-EINVAL, kslot_get_batch(self->fd, t, h, n, out, RS,
					   &done));
	EXPECT_EQ(1000, done);
	h[1000] = saved;
	ASSERT_EQ(0, kslot_stats(self->fd, t, &st));
	EXPECT_EQ(7, st.rejected);
	EXPECT_EQ(fill + n, entries_of(self->fd, t));
	free(in);
	free(out);
	free(h);
}

/*
 * A GET_BATCH of max_batch entries spans several of the kernel's chunks:
 * every record comes back, and a stale, null, unreadable or unwritable
 * entry deep in the batch stops it right there, with the exact done and
 * errno, nothing written for it or later, and only a stale handle counted
 * as rejected.
 */
TEST_F(kdev, batch_chunks)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t *h, *edge, saved, stale;
	struct kslot_info info;
	struct kslot_stats st;
	struct rec *in, *out;
	uint32_t t, done, n, i;
	char *map;

	ASSERT_EQ(0, kslot_info(self->fd, &info));
	n = info.max_batch;
	ASSERT_LE(600, n);
	in = calloc(n, sizeof(*in));
	out = calloc(n, sizeof(*out));
	h = calloc(n, sizeof(*h));
	ASSERT_TRUE(in && out && h);
	for (i = 0; i < n; i++)
		in[i] = (struct rec){ i + 1, ~(uint64_t)i };
	ASSERT_EQ(0, kslot_create(self->fd, variant->kind, RS, n + 1, &t));
	ASSERT_EQ(0, kslot_insert_batch(self->fd, t, in, RS, n, h, &done));
	ASSERT_EQ(n, done);
	ASSERT_EQ(0, kslot_get_batch(self->fd, t, h, n, out, RS, &done));
	EXPECT_EQ(n, done);
	EXPECT_EQ(0, memcmp(in, out, n * sizeof(*in)));

	/* A stale handle at entry 500. */
	ASSERT_EQ(0, kslot_insert(self->fd, t, &in[0], RS, &stale));
	ASSERT_EQ(0, kslot_erase(self->fd, t, stale));
	saved = h[500];
	h[500] = stale;
	memset(out, 0, n * sizeof(*out));
	EXPECT_EQ(-ENOENT, kslot_get_batch(self->fd, t, h, n, out, RS,
					   &done));
	EXPECT_EQ(500, done);
	EXPECT_EQ(0, memcmp(in, out, 500 * sizeof(*in)));
	EXPECT_EQ(0, out[500].a);
	EXPECT_EQ(0, out[n - 1].a);
	ASSERT_EQ(0, kslot_stats(self->fd, t, &st));
	EXPECT_EQ(1, st.rejected);
	h[500] = saved;

	/* The null handle at entry 400: -EINVAL, not counted. */
	saved = h[400];
	h[400] = 0;
	memset(out, 0, n * sizeof(*out));
	EXPECT_EQ(-EINVAL, kslot_get_batch(self->fd, t, h, n, out, RS,
					   &done));
	EXPECT_EQ(400, done);
	EXPECT_EQ(0, memcmp(in, out, 400 * sizeof(*in)));
	EXPECT_EQ(0, out[400].a);
	h[400] = saved;

	/* Handles running into an unmapped page at entry 300. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, munmap(map + page, page));
	edge = (uint64_t *)(map + page) - 300;
	memcpy(edge, h, 300 * sizeof(*h));
	EXPECT_EQ(-EFAULT, kslot_get_batch(self->fd, t, edge, n, out, RS,
					   &done));
	EXPECT_EQ(300, done);
	ASSERT_EQ(0, munmap(map, page));

	/* Records running into a read-only page halfway through entry 200. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_READ));
	EXPECT_EQ(-EFAULT, kslot_get_batch(self->fd, t, h, n,
					   map + page - 200 * RS - RS / 2, RS,
					   &done));
	EXPECT_EQ(200, done);
	EXPECT_EQ(0, memcmp(in, map + page - 200 * RS - RS / 2,
			    200 * sizeof(*in)));
	ASSERT_EQ(0, munmap(map, 2 * page));

	ASSERT_EQ(0, kslot_stats(self->fd, t, &st));
	EXPECT_EQ(1, st.rejected);

	/*
	 * ERASE_BATCH across the kernel's bulk chunks stops where erasing
	 * one by one would: the null handle at entry 350 of this batch.
	 */
	saved = h[450];
	h[450] = 0;
	EXPECT_EQ(-EINVAL, kslot_erase_batch(self->fd, t, h + 100, n - 100,
					     &done));
	EXPECT_EQ(350, done);
	h[450] = saved;
	/* Erased already: -ENOENT at once, nothing erased, one rejection. */
	EXPECT_EQ(-ENOENT, kslot_erase_batch(self->fd, t, h + 100, 10, &done));
	EXPECT_EQ(0, done);
	/* Handles running into an unmapped page at entry 40. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, munmap(map + page, page));
	edge = (uint64_t *)(map + page) - 40;
	memcpy(edge, h, 40 * sizeof(*h));
	EXPECT_EQ(-EFAULT, kslot_erase_batch(self->fd, t, edge, 100, &done));
	EXPECT_EQ(40, done);
	ASSERT_EQ(0, munmap(map, page));
	EXPECT_EQ(0, kslot_erase_batch(self->fd, t, h + 40, 60, &done));
	EXPECT_EQ(60, done);
	EXPECT_EQ(0, kslot_erase_batch(self->fd, t, h + 450, n - 450, &done));
	EXPECT_EQ(n - 450, done);
	ASSERT_EQ(0, kslot_stats(self->fd, t, &st));
	EXPECT_EQ(0, st.entries);
	EXPECT_EQ(2, st.rejected);

	/*
	 * INSERT_BATCH across the kernel's bulk chunks stops where
	 * inserting one by one would, the entries before stored: handles
	 * running into an unmapped page at entry 45 ...
	 */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, munmap(map + page, page));
	edge = (uint64_t *)(map + page) - 45;
	EXPECT_EQ(-EFAULT, kslot_insert_batch(self->fd, t, in, RS, 100, edge,
					      &done));
	EXPECT_EQ(45, done);
	ASSERT_EQ(0, kslot_stats(self->fd, t, &st));
	EXPECT_EQ(45, st.entries);
	memset(out, 0, n * sizeof(*out));
	EXPECT_EQ(0, kslot_get_batch(self->fd, t, edge, 45, out, RS, &done));
	EXPECT_EQ(0, memcmp(in, out, 45 * sizeof(*in)));
	EXPECT_EQ(0, kslot_erase_batch(self->fd, t, edge, 45, &done));
	EXPECT_EQ(45, done);
	ASSERT_EQ(0, munmap(map, page));
	/*
	 * ... and records running into one halfway through entry 70: its
	 * handle slot is zeroed, as inserting one by one zeroes it first,
	 * and the later ones are not written.
	 */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, munmap(map + page, page));
	memcpy(map + page - 70 * RS - RS / 2, in, 70 * RS + RS / 2);
	for (i = 0; i < 100; i++)
		h[i] = ~(uint64_t)i;
	EXPECT_EQ(-EFAULT, kslot_insert_batch(self->fd, t,
					      map + page - 70 * RS - RS / 2,
					      RS, 100, h, &done));
	EXPECT_EQ(70, done);
	EXPECT_EQ(0, h[70]);
	for (i = 71; i < 100; i++)
		EXPECT_EQ(~(uint64_t)i, h[i]);
	ASSERT_EQ(0, kslot_stats(self->fd, t, &st));
	EXPECT_EQ(70, st.entries);
	memset(out, 0, n * sizeof(*out));
	EXPECT_EQ(0, kslot_get_batch(self->fd, t, h, 70, out, RS, &done));
	EXPECT_EQ(0, memcmp(in, out, 70 * sizeof(*in)));
	EXPECT_EQ(0, kslot_erase_batch(self->fd, t, h, 70, &done));
	ASSERT_EQ(0, munmap(map, page));
	free(in);
	free(out);
	free(h);
}

/* Walk a table a page at a time; return entries seen, fail on a repeat. */
static int walk(int fd, uint32_t t, uint32_t page, uint64_t *seen, int cap,
		void (*between)(int fd, uint32_t t, void *ctx), void *ctx)
{
	uint64_t cursor = 0, handles[64];
	struct rec recs[64];
	int n = 0;

	while (cursor != KSLOT_CURSOR_END) {
		uint32_t count, i;
		int j;

		if (kslot_iterate(fd, t, &cursor, handles, recs, RS, page,
				  &count))
			return -1;
		for (i = 0; i < count; i++) {
			for (j = 0; j < n; j++)
				if (seen[j] == handles[i])
					return -2;
			if (n == cap || recs[i].b != handles[i])
				return -3;
			seen[n++] = handles[i];
		}
		if (between)
			between(fd, t, ctx);
	}
	return n;
}

/* Records hold their own handle in .b, written by an update. */
static void fill(struct __test_metadata *_metadata, int fd, uint32_t t,
		 uint64_t *h, int n)
{
	for (int i = 0; i < n; i++) {
		struct rec r = { i, 0 };

		ASSERT_EQ(0, kslot_insert(fd, t, &r, RS, &h[i]));
		r.b = h[i];
		ASSERT_EQ(0, kslot_update(fd, t, h[i], &r, RS));
	}
}

struct erase_ctx {
	uint64_t *h;
	int n, next;
};

/* Between pages: erase four entries from the back and insert two. */
static void erase_some(int fd, uint32_t t, void *arg)
{
	struct erase_ctx *c = arg;
	struct rec r = { 0, 0 };
	uint64_t h;

	for (int k = 0; k < 4 && c->next > c->n / 2; k++)
		kslot_erase(fd, t, c->h[--c->next]);
	for (int k = 0; k < 2; k++)
		if (!kslot_insert(fd, t, &r, RS, &h)) {
			r.b = h;
			kslot_update(fd, t, h, &r, RS);
		}
}

TEST_F(kdev, iterate)
{
	uint64_t h[200], seen[400];
	struct erase_ctx ctx = { h, 200, 200 };
	int n, i, j;
	uint32_t t = self->t;

	fill(_metadata, self->fd, t, h, 200);
	n = walk(self->fd, t, 64, seen, 400, NULL, NULL);
	EXPECT_EQ(200, n);
	/* Erase and insert between pages. */
	n = walk(self->fd, t, 16, seen, 400, erase_some, &ctx);
	ASSERT_LT(0, n);
	/* Every survivor (the first half) was seen exactly once. */
	for (i = 0; i < 100; i++) {
		for (j = 0; j < n; j++)
			if (seen[j] == h[i])
				break;
		EXPECT_LT(j, n);
	}
}

TEST_F(kdev, iterate_handles_only)
{
	uint64_t h[3], out[8], cursor = 0;
	uint32_t count;

	fill(_metadata, self->fd, self->t, h, 3);
	ASSERT_EQ(0, kslot_iterate(self->fd, self->t, &cursor, out, NULL, 0,
				   8, &count));
	EXPECT_EQ(3, count);
	EXPECT_EQ(KSLOT_CURSOR_END, cursor);
	EXPECT_EQ(h[0], out[0]);
	/* A finished cursor returns nothing. */
	ASSERT_EQ(0, kslot_iterate(self->fd, self->t, &cursor, out, NULL, 0,
				   8, &count));
	EXPECT_EQ(0, count);
}

TEST_F(kdev, stats)
{
	struct kslot_stats st;
	uint64_t h[5];

	fill(_metadata, self->fd, self->t, h, 5);
	ASSERT_EQ(0, kslot_erase(self->fd, self->t, h[0]));
	EXPECT_EQ(-ENOENT, kslot_get(self->fd, self->t, h[0], &st, RS));
	ASSERT_EQ(0, kslot_stats(self->fd, self->t, &st));
	EXPECT_EQ(variant->kind, st.kind);
	EXPECT_EQ(RS, st.record_size);
	EXPECT_EQ(1, st.tables);
	EXPECT_EQ(4, st.entries);
	EXPECT_EQ(MAXE, st.max_entries);
	EXPECT_EQ(1, st.rejected);
	EXPECT_LT(4 * RS, st.bytes);
	ASSERT_EQ(0, kslot_stats(self->fd, 0, &st));
	EXPECT_EQ(1, st.tables);
	EXPECT_EQ(4, st.entries);
	EXPECT_LT(4 * RS, st.bytes);
}

TEST_F(kdev, dump)
{
	struct kslot_dump_slot slots[8];
	struct kslot_dump d = {};
	uint32_t rev[8];
	uint64_t h[3];

	fill(_metadata, self->fd, self->t, h, 3);
	ASSERT_EQ(0, kslot_erase(self->fd, self->t, h[1]));
	d.table_id = self->t;
	d.max = 8;
	d.slots_ptr = (uintptr_t)slots;
	d.reverse_ptr = (uintptr_t)rev;
	d.user_handle = h[1];
	ASSERT_EQ(0, kslot_dump(self->fd, &d));
	EXPECT_EQ(8, d.count);
	EXPECT_EQ(2, d.live);
	EXPECT_EQ(1, d.free_head);
	EXPECT_EQ(1, d.decoded_index);
	EXPECT_EQ(1, d.decoded_gen);
	EXPECT_EQ(KSLOT_SLOT_LIVE, slots[0].state);
	EXPECT_EQ(KSLOT_SLOT_FREE, slots[1].state);
	EXPECT_EQ(2, slots[1].gen);
	EXPECT_EQ(3, slots[1].link);
	if (variant->kind == KSLOT_KIND_DENSE) {
		/* Swap-and-pop moved slot 2's record into position 1. */
		EXPECT_EQ(1, slots[2].link);
		EXPECT_EQ(2, d.reverse_count);
		EXPECT_EQ(0, rev[0]);
		EXPECT_EQ(2, rev[1]);
	} else {
		EXPECT_EQ(0, d.reverse_count);
	}
}

/* ---- rejections, each with otherwise valid input ---- */

TEST_F(kdev, unknown_command)
{
	struct kslot_info info = { .size = sizeof(info) };

	EXPECT_EQ(-ENOTTY, kslot_ioctl(self->fd, _IO(KSLOT_IOCTL_TYPE, 0x7f),
				       &info));
	EXPECT_EQ(-ENOTTY, kslot_ioctl(self->fd, _IO('x', 0x00), &info));
	EXPECT_EQ(-ENOTTY, kslot_ioctl(self->fd,
				       _IOR(KSLOT_IOCTL_TYPE, 0x00, int),
				       &info));
}

/* A struct followed by 8 tail bytes, for the size tests. */
struct sized {
	union {
		struct kslot_info info;
		struct kslot_stats stats;
		struct kslot_create create;
		struct kslot_entry entry;
		uint8_t raw[256];
	};
};

static void size_cases(struct __test_metadata *_metadata, int fd,
		       unsigned long cmd, struct sized *s, uint32_t ksize,
		       uint32_t min_size, int ok)
{
	struct sized save = *s;

	*(uint32_t *)s->raw = min_size - 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(fd, cmd, s));
	*s = save;
	*(uint32_t *)s->raw = ksize + 8;
	s->raw[ksize + 3] = 1;
	EXPECT_EQ(-E2BIG, kslot_ioctl(fd, cmd, s));
	*s = save;
	*(uint32_t *)s->raw = ksize + 8;
	EXPECT_EQ(ok, kslot_ioctl(fd, cmd, s));
	*s = save;
	*(uint32_t *)s->raw = 0;
	EXPECT_EQ(-EINVAL, kslot_ioctl(fd, cmd, s));
}

TEST_F(kdev, struct_sizes)
{
	struct rec r = { 1, 2 };
	struct sized s;
	uint64_t h;

	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));

	memset(&s, 0, sizeof(s));
	size_cases(_metadata, self->fd, KSLOT_IOC_INFO, &s,
		   sizeof(struct kslot_info), KSLOT_INFO_SIZE_VER0, 0);
	/* A first-version INFO gets its own fields and nothing beyond. */
	memset(&s, 0xa5, sizeof(s));
	memset(&s, 0, KSLOT_INFO_SIZE_VER0);
	s.info.size = KSLOT_INFO_SIZE_VER0;
	EXPECT_EQ(0, kslot_ioctl(self->fd, KSLOT_IOC_INFO, &s));
	EXPECT_EQ(KSLOT_ABI_VERSION, s.info.abi_version);
	EXPECT_LT(0, s.info.max_bytes);
	EXPECT_EQ(0xa5, s.raw[KSLOT_INFO_SIZE_VER0]);

	memset(&s, 0, sizeof(s));
	s.stats.table_id = self->t;
	size_cases(_metadata, self->fd, KSLOT_IOC_STATS, &s,
		   sizeof(struct kslot_stats), sizeof(struct kslot_stats), 0);

	memset(&s, 0, sizeof(s));
	s.create.kind = KSLOT_KIND_MAP;
	s.create.record_size = 4;
	s.create.max_entries = 4;
	size_cases(_metadata, self->fd, KSLOT_IOC_CREATE, &s,
		   sizeof(struct kslot_create), sizeof(struct kslot_create), 0);

	memset(&s, 0, sizeof(s));
	s.entry.table_id = self->t;
	s.entry.record_size = RS;
	s.entry.handle = h;
	s.entry.record_ptr = (uintptr_t)&r;
	size_cases(_metadata, self->fd, KSLOT_IOC_GET, &s,
		   sizeof(struct kslot_entry), sizeof(struct kslot_entry), 0);
	/* A failed command left the entry alone. */
	EXPECT_EQ(1, entries_of(self->fd, self->t));
}

/* A command whose struct cannot be written back fails and changes nothing. */
TEST_F(kdev, readonly_struct)
{
	struct kslot_create *c;
	struct kslot_batch *b;
	struct kslot_stats st;
	struct rec r = { 1 };
	uint64_t h;
	void *ro;

	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(ro != MAP_FAILED);
	c = ro;
	b = (void *)((char *)ro + 512);
	*c = (struct kslot_create){ .size = sizeof(*c),
				    .kind = KSLOT_KIND_MAP,
				    .record_size = 8, .max_entries = 8 };
	*b = (struct kslot_batch){ .size = sizeof(*b), .table_id = self->t,
				   .record_size = RS, .count = 1,
				   .handles_ptr = (uintptr_t)&h,
				   .records_ptr = (uintptr_t)&r };
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, kslot_ioctl(self->fd, KSLOT_IOC_CREATE, c));
	EXPECT_EQ(-EFAULT, kslot_ioctl(self->fd, KSLOT_IOC_INSERT_BATCH, b));
	ASSERT_EQ(0, kslot_stats(self->fd, 0, &st));
	EXPECT_EQ(1, st.tables);
	EXPECT_EQ(0, st.entries);
	munmap(ro, 4096);
}

/* A struct larger than a page is refused, as openat2() does. */
TEST_F(kdev, struct_beyond_page)
{
	uint8_t *big = calloc(1, 8192);
	struct kslot_info *info = (void *)big;

	ASSERT_TRUE(big != 0);
	info->size = 4096 + 8;
	EXPECT_EQ(-E2BIG, kslot_ioctl(self->fd, KSLOT_IOC_INFO, info));
	info->size = 4096;
	EXPECT_EQ(0, kslot_ioctl(self->fd, KSLOT_IOC_INFO, info));
	EXPECT_EQ(KSLOT_ABI_VERSION, info->abi_version);
	free(big);
}

/*
 * Output-only fields must be zero on input: each u32 of [from, to) of
 * struct @s set on its own is -EINVAL; all zero succeeds.
 */
static void out_fields_cases(struct __test_metadata *_metadata, int fd,
			     unsigned long cmd, void *s, size_t len,
			     size_t from, size_t to)
{
	uint8_t saved[512];
	size_t off;

	memcpy(saved, s, len);
	for (off = from; off < to; off += 4) {
		memcpy(s, saved, len);
		*(uint32_t *)((uint8_t *)s + off) = 0x80000001;
		EXPECT_EQ(-EINVAL, kslot_ioctl(fd, cmd, s)) {
			TH_LOG("cmd %#lx, output field at offset %zu", cmd, off);
		}
	}
	memcpy(s, saved, len);
	EXPECT_EQ(0, kslot_ioctl(fd, cmd, s));
}

TEST_F(kdev, output_fields_must_be_zero)
{
	struct kslot_dump_slot slots[4];
	struct kslot_info info = { .size = sizeof(info) };
	struct kslot_stats st = { .size = sizeof(st) };
	struct kslot_dump d = { .size = sizeof(d), .table_id = self->t,
				.max = 4, .slots_ptr = (uintptr_t)slots };
	struct rec r = { 1, 2 };
	uint64_t h;

	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));
	out_fields_cases(_metadata, self->fd, KSLOT_IOC_INFO, &info,
			 sizeof(info), offsetof(struct kslot_info, abi_version),
			 sizeof(info));
	out_fields_cases(_metadata, self->fd, KSLOT_IOC_STATS, &st, sizeof(st),
			 offsetof(struct kslot_stats, kind), sizeof(st));
	st = (struct kslot_stats){ .size = sizeof(st), .table_id = self->t };
	out_fields_cases(_metadata, self->fd, KSLOT_IOC_STATS, &st, sizeof(st),
			 offsetof(struct kslot_stats, kind), sizeof(st));
	d.user_handle = h;
	out_fields_cases(_metadata, self->fd, KSLOT_IOC_DUMP, &d, sizeof(d),
			 offsetof(struct kslot_dump, count),
			 offsetof(struct kslot_dump, slots_ptr));
	/* The last case succeeded: its outputs are set again. */
	d = (struct kslot_dump){ .size = sizeof(d), .table_id = self->t,
				 .max = 4, .slots_ptr = (uintptr_t)slots,
				 .user_handle = h };
	out_fields_cases(_metadata, self->fd, KSLOT_IOC_DUMP, &d, sizeof(d),
			 offsetof(struct kslot_dump, decoded_index), sizeof(d));
	/* Nothing was changed by the refused commands. */
	EXPECT_EQ(1, entries_of(self->fd, self->t));
}

/* ITERATE validates its arguments even for a finished cursor. */
TEST_F(kdev, iterate_end_cursor_validated)
{
	uint64_t handles[4], cursor = KSLOT_CURSOR_END;
	uint32_t count;

	EXPECT_EQ(-ENOENT, kslot_iterate(self->fd, 999, &cursor, handles, NULL,
					 0, 4, &count));
	EXPECT_EQ(0, kslot_iterate(self->fd, self->t, &cursor, handles, NULL,
				   0, 4, &count));
	EXPECT_EQ(0, count);
}

TEST_F(kdev, nonzero_flags_and_reserved)
{
	struct kslot_info info = { .size = sizeof(info), .flags = 1 };
	struct kslot_destroy d = { .size = sizeof(d), .table_id = self->t };
	struct kslot_create c = { .size = sizeof(c), .kind = KSLOT_KIND_MAP,
				  .record_size = 4, .max_entries = 4 };
	struct kslot_entry e = { .size = sizeof(e), .table_id = self->t,
				 .record_size = RS };
	struct kslot_stats st = { .size = sizeof(st), .flags = 1 };
	struct rec r = {};
	uint64_t h;

	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_INFO, &info));
	info.flags = 0;
	info.__reserved = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_INFO, &info));

	c.flags = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_CREATE, &c));
	c.flags = 0;
	c.table_id = 5;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_CREATE, &c));

	d.flags = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_DESTROY, &d));
	d.flags = 0;
	d.__reserved = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_DESTROY, &d));

	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_STATS, &st));

	e.flags = 1;
	e.record_ptr = (uintptr_t)&r;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_INSERT, &e));
	e.flags = 0;
	e.handle = 1;	/* INSERT takes no handle in. */
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_INSERT, &e));

	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));
	/* ERASE moves no record. */
	e.handle = h;
	e.record_ptr = (uintptr_t)&r;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_ERASE, &e));
	e.record_ptr = 0;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_ERASE, &e));
	e.record_size = 0;
	ASSERT_EQ(0, kslot_ioctl(self->fd, KSLOT_IOC_ERASE, &e));
	/* Nothing else was created or stored. */
	EXPECT_EQ(0, entries_of(self->fd, 0));
}

TEST_F(kdev, bad_create)
{
	struct kslot_info info;
	uint32_t id;

	ASSERT_EQ(0, kslot_info(self->fd, &info));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, 0, 8, 8, &id));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, 99, 8, 8, &id));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, KSLOT_KIND_MAP, 0, 8, &id));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, KSLOT_KIND_MAP,
					info.max_record_size + 1, 8, &id));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, KSLOT_KIND_MAP, 8, 0, &id));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, KSLOT_KIND_MAP, 8,
					info.max_entries + 1, &id));
	EXPECT_EQ(0, kslot_create(self->fd, KSLOT_KIND_MAP,
				  info.max_record_size, 8, &id));
}

/* INFO reports the bound CREATE puts on a dense table's records. */
TEST(dense_max_bytes)
{
	struct kslot_info info;
	uint32_t me, rs, id;
	int fd = kslot_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kslot_info(fd, &info));
	me = info.max_entries;
	rs = info.dense_max_bytes / me + 1;
	if (rs > info.max_record_size)
		SKIP(goto out, "max_record_size too small to reach the bound");
	EXPECT_EQ(-EINVAL, kslot_create(fd, KSLOT_KIND_DENSE, rs, me, &id));
	EXPECT_EQ(0, entries_of(fd, 0));
	/* The same sizes for a map table, and one byte less, are valid. */
	EXPECT_EQ(0, kslot_create(fd, KSLOT_KIND_MAP, rs, me, &id));
	EXPECT_EQ(0, kslot_create(fd, KSLOT_KIND_DENSE, rs - 1, me, &id));
out:
	close(fd);
}

TEST_F(kdev, bad_table_id)
{
	struct rec r = {};
	struct kslot_stats st;
	uint64_t h;

	EXPECT_EQ(-ENOENT, kslot_insert(self->fd, 0, &r, RS, &h));
	EXPECT_EQ(-ENOENT, kslot_insert(self->fd, 12345, &r, RS, &h));
	EXPECT_EQ(-ENOENT, kslot_destroy(self->fd, 0));
	EXPECT_EQ(-ENOENT, kslot_stats(self->fd, 12345, &st));
	EXPECT_EQ(0, entries_of(self->fd, 0));
}

TEST_F(kdev, record_size_mismatch)
{
	struct rec r[2] = {};
	uint64_t h;

	EXPECT_EQ(-EINVAL, kslot_insert(self->fd, self->t, r, RS - 1, &h));
	EXPECT_EQ(-EINVAL, kslot_insert(self->fd, self->t, r, RS + 1, &h));
	EXPECT_EQ(-EINVAL, kslot_insert_batch(self->fd, self->t, r, RS * 2,
					      1, &h, NULL));
	ASSERT_EQ(0, kslot_insert(self->fd, self->t, r, RS, &h));
	EXPECT_EQ(-EINVAL, kslot_get(self->fd, self->t, h, r, RS * 2));
	EXPECT_EQ(-EINVAL, kslot_update(self->fd, self->t, h, r, 1));
	EXPECT_EQ(1, entries_of(self->fd, self->t));
}

TEST_F(kdev, forged_handles)
{
	struct rec r = { 7 }, out;
	uint64_t h, bit;
	uint32_t other;
	uint32_t t = self->t;

	ASSERT_EQ(0, kslot_insert(self->fd, t, &r, RS, &h));
	EXPECT_EQ(-EINVAL, kslot_get(self->fd, t, 0, &out, RS));
	EXPECT_EQ(-ENOENT, kslot_get(self->fd, t, h + 1, &out, RS));
	EXPECT_EQ(-ENOENT, kslot_get(self->fd, t, h - 1, &out, RS));
	for (bit = 1; bit; bit <<= 1)
		EXPECT_EQ(-ENOENT, kslot_get(self->fd, t, h ^ bit, &out,
					     RS));
	EXPECT_EQ(-ENOENT, kslot_erase(self->fd, t, h ^ 1));
	/* The same handle on another table of the same file. */
	ASSERT_EQ(0, kslot_create(self->fd, KSLOT_KIND_MAP, RS, 8,
				  &other));
	ASSERT_EQ(0, kslot_insert(self->fd, other, &r, RS, &h));
	EXPECT_EQ(-ENOENT, kslot_get(self->fd, t, h, &out, RS));
	EXPECT_EQ(1, entries_of(self->fd, t));
}

TEST_F(kdev, bad_pointers)
{
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	struct rec r = { 1 }, out;
	uint64_t h, hs[2];
	uint32_t done;

	ASSERT_TRUE(ro != MAP_FAILED);
	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));
	EXPECT_EQ(-EFAULT, kslot_insert(self->fd, self->t, NULL, RS, &hs[0]));
	EXPECT_EQ(-EFAULT, kslot_insert(self->fd, self->t, (void *)8, RS,
					&hs[0]));
	EXPECT_EQ(-EFAULT, kslot_get(self->fd, self->t, h, NULL, RS));
	EXPECT_EQ(-EFAULT, kslot_get(self->fd, self->t, h, ro, RS));
	EXPECT_EQ(-EFAULT, kslot_update(self->fd, self->t, h, NULL, RS));
	EXPECT_EQ(-EFAULT, kslot_ioctl(self->fd, KSLOT_IOC_INFO, NULL));
	EXPECT_EQ(-EFAULT, kslot_ioctl(self->fd, KSLOT_IOC_INFO, (void *)8));
	/* INSERT cannot write the handle back: nothing is inserted. */
	EXPECT_EQ(-EFAULT, kslot_insert_batch(self->fd, self->t, &r, RS, 1,
					      ro, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-EFAULT, kslot_get_batch(self->fd, self->t, NULL, 1, &out,
					   RS, &done));
	EXPECT_EQ(0, done);
	/* The record is intact and nothing else was stored. */
	ASSERT_EQ(0, kslot_get(self->fd, self->t, h, &out, RS));
	EXPECT_EQ(1, out.a);
	EXPECT_EQ(1, entries_of(self->fd, self->t));
	munmap(ro, 4096);
}

TEST_F(kdev, bad_batch)
{
	struct kslot_info info;
	struct rec r = {};
	uint64_t h;
	uint32_t done;

	ASSERT_EQ(0, kslot_info(self->fd, &info));
	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));
	EXPECT_EQ(-EINVAL, kslot_get_batch(self->fd, self->t, &h,
					   info.max_batch + 1, &r, RS, &done));
	EXPECT_EQ(-EINVAL, kslot_erase_batch(self->fd, self->t, &h,
					     0xffffffff, &done));
	EXPECT_EQ(1, entries_of(self->fd, self->t));
}

/* ---- limits ---- */

TEST_F(kdev, limit_entries)
{
	struct rec r[9] = {};
	uint64_t h[9];
	uint32_t t, done;

	ASSERT_EQ(0, kslot_create(self->fd, KSLOT_KIND_MAP, RS, 8, &t));
	EXPECT_EQ(-ENOSPC, kslot_insert_batch(self->fd, t, r, RS, 9, h,
					      &done));
	EXPECT_EQ(8, done);
	EXPECT_EQ(-ENOSPC, kslot_insert(self->fd, t, r, RS, &h[8]));
	EXPECT_EQ(8, entries_of(self->fd, t));
	ASSERT_EQ(0, kslot_get(self->fd, t, h[7], r, RS));
}

TEST_F(kdev, limit_tables)
{
	struct kslot_info info;
	uint32_t id, n = 0;
	int ret;

	ASSERT_EQ(0, kslot_info(self->fd, &info));
	while (!(ret = kslot_create(self->fd, KSLOT_KIND_MAP, 8, 8, &id)))
		n++;
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(info.max_tables, n + 1);
	/* The fixture's table still works. */
	EXPECT_EQ(0, entries_of(self->fd, self->t));
}

static int write_param(const char *name, const char *val)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/sys/module/kslot_dev/parameters/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

TEST_F(kdev, limit_bytes)
{
	static struct rec r[2048];
	struct kslot_stats st;
	static uint64_t h[2048];
	uint32_t done;
	int ret;

	/*
	 * Room for the table, its first slot chunks and, for a map table,
	 * its record pool, or, for a dense table, its first packed chunks
	 * (four pages of values, the reverse map beside), but not for all
	 * 2048 entries.
	 */
	if (write_param("max_bytes", "65536"))
		SKIP(return, "cannot set max_bytes (not root?)");
	/* Two batches of the most a batch may have. */
	ret = kslot_insert_batch(self->fd, self->t, r, RS, 1024, h, &done);
	if (!ret) {
		uint32_t more = 0;

		ret = kslot_insert_batch(self->fd, self->t, r + 1024, RS,
					 1024, h + 1024, &more);
		done += more;
	}
	write_param("max_bytes", "67108864");
	EXPECT_EQ(-EDQUOT, ret);
	ASSERT_LT(0, done);
	EXPECT_GT(2048, done);
	ASSERT_EQ(0, kslot_stats(self->fd, 0, &st));
	EXPECT_GE(65536, st.bytes);
	EXPECT_EQ(done, entries_of(self->fd, self->t));
	EXPECT_EQ(0, kslot_get(self->fd, self->t, h[done - 1], r, RS));
}

/* ---- isolation and lifetime ---- */

TEST_F(kdev, isolation_between_files)
{
	struct rec r = { 9 }, out;
	struct kslot_stats st;
	uint32_t t2;
	uint64_t h;
	int fd2 = kslot_open();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));
	/* fd2 has no tables: the id means nothing there. */
	EXPECT_EQ(-ENOENT, kslot_get(fd2, self->t, h, &out, RS));
	EXPECT_EQ(-ENOENT, kslot_destroy(fd2, self->t));
	/* fd2's first table has the same id as fd1's: fd1's handle fails. */
	ASSERT_EQ(0, kslot_create(fd2, KSLOT_KIND_MAP, RS, 8, &t2));
	ASSERT_EQ(self->t, t2);
	ASSERT_EQ(0, kslot_insert(fd2, t2, &r, RS, &out.a));
	EXPECT_EQ(-ENOENT, kslot_get(fd2, t2, h, &out, RS));
	ASSERT_EQ(0, kslot_stats(fd2, 0, &st));
	EXPECT_EQ(1, st.entries);
	close(fd2);
	ASSERT_EQ(0, kslot_get(self->fd, self->t, h, &out, RS));
	EXPECT_EQ(9, out.a);
}

TEST_F(kdev, isolation_after_fork)
{
	struct rec r = { 5 };
	uint64_t h;
	pid_t pid;
	int status;

	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rec out;
		int fd = kslot_open(), bad = 0;

		/* A new file of the child sees nothing of the parent's. */
		bad |= kslot_get(fd, self->t, h, &out, RS) != -ENOENT;
		/* The inherited descriptor is the same open file. */
		bad |= kslot_get(self->fd, self->t, h, &out, RS) != 0;
		bad |= out.a != 5;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Close gives back everything: the tables at once, and the charge of the
 * file itself and of its user (charged from open) once what the file
 * freed has waited for its grace period (10 s at most: a loaded guest's
 * grace periods can take seconds).
 */
TEST(close_frees_everything)
{
	long files, tables, bytes;
	struct rec r[64] = {};
	uint64_t h[64];
	uint32_t t;
	int fd, i;

	fd = kslot_open_or_skip(_metadata);
	close(fd);
	files = debugfs_value("files");
	if (files < 0)
		SKIP(return, "no debugfs");
	tables = debugfs_value("tables");
	bytes = debugfs_value("bytes");
	fd = kslot_open();
	ASSERT_LE(0, fd);
	EXPECT_LT(bytes, debugfs_value("bytes"));
	ASSERT_EQ(0, kslot_create(fd, KSLOT_KIND_MAP, RS, 100, &t));
	ASSERT_EQ(0, kslot_insert_batch(fd, t, r, RS, 64, h, NULL));
	EXPECT_EQ(tables + 1, debugfs_value("tables"));
	EXPECT_LT(bytes, debugfs_value("bytes"));
	close(fd);
	EXPECT_EQ(files, debugfs_value("files"));
	EXPECT_EQ(tables, debugfs_value("tables"));
	for (i = 0; i < 1000 && debugfs_value("bytes") != bytes; i++)
		usleep(10 * 1000);
	EXPECT_EQ(bytes, debugfs_value("bytes"));
}

/* ---- concurrency ---- */

#define NTHREADS	4
#define PER_THREAD	2000

struct worker {
	int fd;
	uint32_t t;
	int id;
	int errors;
	uint64_t kept[PER_THREAD];
	int nkept;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned int seed = w->id;

	for (int i = 0; i < PER_THREAD; i++) {
		struct rec r = { w->id, i }, out;
		uint64_t h;

		if (kslot_insert(w->fd, w->t, &r, RS, &h)) {
			w->errors++;
			continue;
		}
		if (kslot_get(w->fd, w->t, h, &out, RS) ||
		    out.a != (uint64_t)w->id || out.b != (uint64_t)i)
			w->errors++;
		if (rand_r(&seed) % 2) {
			if (kslot_erase(w->fd, w->t, h))
				w->errors++;
			if (kslot_get(w->fd, w->t, h, &out, RS) != -ENOENT)
				w->errors++;
		} else {
			w->kept[w->nkept++] = h;
		}
	}
	return NULL;
}

/*
 * 2 vCPUs under TCG on a shared host: a preempted vCPU holding a lock
 * stalls the others, so this can take far longer than its few seconds.
 */
TEST_F_TIMEOUT(kdev, threads, 180)
{
	static struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	uint64_t total = 0;
	int i, k;
	uint32_t t = self->t;

	for (i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .fd = self->fd, .t = t,
					.id = i + 1 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_fn,
					    &w[i]));
	}
	for (i = 0; i < NTHREADS; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	for (i = 0; i < NTHREADS; i++) {
		EXPECT_EQ(0, w[i].errors);
		total += w[i].nkept;
		/* Every kept entry holds exactly what was stored. */
		for (k = 0; k < w[i].nkept; k++) {
			struct rec out;

			ASSERT_EQ(0, kslot_get(self->fd, t,
					       w[i].kept[k], &out,
					       RS));
			EXPECT_EQ(i + 1, out.a);
		}
	}
	EXPECT_EQ(total, entries_of(self->fd, t));
}

/* ---- checkpoint and restore (EXPORT, IMPORT) ---- */

/* Offset of slot @k of an image (records of live slots in between). */
static size_t image_slot_off(const uint8_t *img, uint32_t k)
{
	const struct kslot_image *h = (const void *)img;
	size_t off = sizeof(*h);
	struct kslot_image_slot is;
	uint32_t i;

	for (i = 0; i < k; i++) {
		memcpy(&is, img + off, sizeof(is));
		off += sizeof(is);
		if (is.state == KSLOT_SLOT_LIVE)
			off += h->record_size;
	}
	return off;
}

static struct kslot_image_slot image_slot(const uint8_t *img, uint32_t k)
{
	struct kslot_image_slot is;

	memcpy(&is, img + image_slot_off(img, k), sizeof(is));
	return is;
}

static void set_image_slot(uint8_t *img, uint32_t k,
			   const struct kslot_image_slot *is)
{
	memcpy(img + image_slot_off(img, k), is, sizeof(*is));
}

/* Round trip through a file: the image as read back. */
static void *through_file(struct __test_metadata *_metadata, const void *img,
			  size_t size)
{
	FILE *f = tmpfile();
	void *back = malloc(size + 1);

	ASSERT_TRUE(f && back);
	ASSERT_EQ(size, fwrite(img, 1, size, f));
	rewind(f);
	ASSERT_EQ(size, fread(back, 1, size + 1, f));
	fclose(f);
	return back;
}

TEST_F(kdev, export_import_round_trip)
{
	uint64_t h[40], other, other4, cursor = 0, ha[64], hb[64];
	struct kslot_stats st, st2, st4;
	struct rec r, out;
	void *img, *img2, *back;
	size_t size, size2;
	uint32_t t2, t3, t4, i, na, nb;
	int fd2;

	for (i = 0; i < 40; i++) {
		r = (struct rec){ i, ~(uint64_t)i };
		ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h[i]));
	}
	/* Every third entry erased (stale), and one slot reused. */
	for (i = 0; i < 40; i += 3)
		ASSERT_EQ(0, kslot_erase(self->fd, self->t, h[i]));
	r = (struct rec){ 100, 100 };
	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h[0]));
	ASSERT_EQ(0, kslot_export(self->fd, self->t, &img, &size));
	back = through_file(_metadata, img, size);

	fd2 = kslot_open();
	ASSERT_LE(0, fd2);
	/* A table first, so the imported one gets another id. */
	ASSERT_EQ(0, kslot_create(fd2, KSLOT_KIND_MAP, RS, 8, &t3));
	ASSERT_EQ(0, kslot_insert(fd2, t3, &r, RS, &other));
	ASSERT_EQ(0, kslot_import(fd2, back, size, &t2));
	EXPECT_NE(t3, t2);
	for (i = 0; i < 40; i++) {
		int ret = kslot_get(fd2, t2, h[i], &out, RS);

		if (i % 3 && i) {
			EXPECT_EQ(0, ret);
			EXPECT_EQ(i, out.a);
			EXPECT_EQ(~(uint64_t)i, out.b);
		} else if (i) {
			EXPECT_EQ(-ENOENT, ret);	/* stale stays stale */
		} else {
			EXPECT_EQ(0, ret);
			EXPECT_EQ(100, out.a);
		}
	}
	/* The other table's handle is refused, and the imported ones there. */
	EXPECT_EQ(-ENOENT, kslot_get(fd2, t2, other, &out, RS));
	EXPECT_EQ(-ENOENT, kslot_get(fd2, t3, h[1], &out, RS));
	/* The same counters, the same slot order. */
	ASSERT_EQ(0, kslot_stats(self->fd, self->t, &st));
	ASSERT_EQ(0, kslot_stats(fd2, t2, &st2));
	EXPECT_EQ(st.entries, st2.entries);
	EXPECT_EQ(st.capacity, st2.capacity);
	EXPECT_EQ(st.retired, st2.retired);
	if (variant->kind == KSLOT_KIND_DENSE) {
		/*
		 * The packed array's room is not part of an image: it is
		 * sized for the entries restored, as in a table those
		 * entries were inserted into (here both tables fit the
		 * first chunk, 27 and 40 entries of 1024, so no more).
		 */
		ASSERT_EQ(0, kslot_create(fd2, KSLOT_KIND_DENSE, RS, MAXE,
					  &t4));
		for (i = 0; i < st.entries; i++)
			ASSERT_EQ(0, kslot_insert(fd2, t4, &r, RS, &other4));
		ASSERT_EQ(0, kslot_stats(fd2, t4, &st4));
		EXPECT_EQ(st4.capacity, st2.capacity);
		EXPECT_EQ(st4.bytes, st2.bytes);
		EXPECT_LE(st2.bytes, st.bytes);
		ASSERT_EQ(0, kslot_destroy(fd2, t4));
	} else {
		/*
		 * The same records, in as many pages of a record pool.  The
		 * exported table's erased records are charged as pending
		 * until their grace period, and to the table again once they
		 * are back in its pool: compared once they are (at most
		 * 10 s: a loaded guest's grace periods can take seconds).
		 */
		for (i = 0; i < 1000 && st.bytes != st2.bytes; i++) {
			usleep(10 * 1000);
			ASSERT_EQ(0, kslot_stats(self->fd, self->t, &st));
		}
		EXPECT_EQ(st.bytes, st2.bytes);
	}
	ASSERT_EQ(0, kslot_iterate(self->fd, self->t, &cursor, ha, NULL, 0,
				   64, &na));
	cursor = 0;
	ASSERT_EQ(0, kslot_iterate(fd2, t2, &cursor, hb, NULL, 0, 64, &nb));
	ASSERT_EQ(na, nb);
	EXPECT_EQ(0, memcmp(ha, hb, na * sizeof(ha[0])));
	/* Exported again, the image is the same, byte for byte. */
	ASSERT_EQ(0, kslot_export(fd2, t2, &img2, &size2));
	ASSERT_EQ(size, size2);
	EXPECT_EQ(0, memcmp(img, img2, size));
	free(img2);
	/* The free list was rebuilt: new entries go into the free slots. */
	for (i = 0; i < 20; i++) {
		uint64_t nh;

		ASSERT_EQ(0, kslot_insert(fd2, t2, &r, RS, &nh));
		EXPECT_EQ(0, kslot_get(fd2, t2, nh, &out, RS));
	}
	EXPECT_EQ(st.entries + 20, entries_of(fd2, t2));
	for (i = 1; i < 40; i++)
		if (i % 3)
			EXPECT_EQ(0, kslot_get(fd2, t2, h[i], &out, RS));
	close(fd2);
	free(back);
	free(img);
}

TEST_F(kdev, export_errors)
{
	struct kslot_export x = { .size = sizeof(x), .table_id = self->t };
	uint8_t small[64];
	struct rec r = { 1, 2 };
	uint64_t h, need = 0;

	ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h));
	/* A size query succeeds, a short buffer is -ERANGE with the size. */
	ASSERT_EQ(0, kslot_export_buf(self->fd, self->t, NULL, 0, &need));
	EXPECT_EQ(sizeof(struct kslot_image) +
		  sizeof(struct kslot_image_slot) + RS, need);
	memset(small, 0x5a, sizeof(small));
	EXPECT_EQ(-ERANGE, kslot_export_buf(self->fd, self->t, small,
					    need - 1, &h));
	EXPECT_EQ(need, h);
	EXPECT_EQ(0x5a, small[0]);
	EXPECT_EQ(-ENOENT, kslot_export_buf(self->fd, 999, NULL, 0, &h));
	x.flags = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_EXPORT, &x));
	x.flags = 0;
	x.__reserved = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_EXPORT, &x));
	x.__reserved = 0;
	x.image_size = 1;	/* output only */
	EXPECT_EQ(-EINVAL, kslot_ioctl(self->fd, KSLOT_IOC_EXPORT, &x));
	x.image_size = 0;
	x.image_ptr = 8;
	x.buf_size = need;
	EXPECT_EQ(-EFAULT, kslot_ioctl(self->fd, KSLOT_IOC_EXPORT, &x));
	/* The size was written back even so; it is output only. */
	EXPECT_EQ(need, x.image_size);
	x.image_size = 0;
	x.image_ptr = 0;
	x.buf_size = 0;
	EXPECT_EQ(0, kslot_ioctl(self->fd, KSLOT_IOC_EXPORT, &x));
	EXPECT_EQ(need, x.image_size);
}

/*
 * A map table with live, free (at a nonzero generation) and never-used
 * slots, exported: slot 0 live, 1 free, 2 live.
 */
static void *sample_image(struct __test_metadata *_metadata, int fd,
			  size_t *size)
{
	struct rec r = { 7, 8 };
	uint64_t h[3];
	uint32_t t, i;
	void *img;

	ASSERT_EQ(0, kslot_create(fd, KSLOT_KIND_MAP, RS, 64, &t));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, kslot_insert(fd, t, &r, RS, &h[i]));
	ASSERT_EQ(0, kslot_erase(fd, t, h[1]));
	ASSERT_EQ(0, kslot_export(fd, t, &img, size));
	ASSERT_EQ(0, kslot_destroy(fd, t));
	return img;
}

/* IMPORT of @img (size @size) fails with @err and creates nothing. */
/*
 * The id of a table made (and destroyed again) in @fd now, or 0 if the
 * file has max_tables tables.
 */
static uint32_t probe_table_id(struct __test_metadata *_metadata, int fd)
{
	uint32_t t = 0;
	int ret = kslot_create(fd, KSLOT_KIND_MAP, 8, 1, &t);

	if (ret == -ENOSPC)
		return 0;
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, kslot_destroy(fd, t));
	return t;
}

static void import_fails(struct __test_metadata *_metadata, int fd,
			 const void *img, size_t size, int err,
			 const char *what)
{
	struct kslot_stats before, after;
	uint32_t t = 0, id;

	id = probe_table_id(_metadata, fd);
	ASSERT_EQ(0, kslot_stats(fd, 0, &before));
	EXPECT_EQ(err, kslot_import(fd, img, size, &t)) {
		TH_LOG("%s", what);
	}
	ASSERT_EQ(0, kslot_stats(fd, 0, &after));
	EXPECT_EQ(before.tables, after.tables);
	EXPECT_EQ(before.entries, after.entries);
	EXPECT_EQ(before.bytes, after.bytes);
	/* Nor does it use up a table id: the next one is the probe's next. */
	if (id)
		EXPECT_EQ(id + 1, probe_table_id(_metadata, fd)) {
			TH_LOG("%s: a table id used up", what);
		}
}

TEST(import_rejects_bad_images)
{
	struct kslot_import im = { .size = sizeof(im) };
	struct kslot_image_slot is;
	struct kslot_image *h;
	struct kslot_info info;
	uint8_t *img, *bad;
	size_t size;
	uint32_t t;
	int fd;

	fd = kslot_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kslot_info(fd, &info));
	img = sample_image(_metadata, fd, &size);
	ASSERT_EQ(3, ((struct kslot_image *)img)->nr_slots);
	ASSERT_EQ(2, ((struct kslot_image *)img)->live);
	bad = malloc(size + 16);
	ASSERT_TRUE(bad != 0);
	h = (struct kslot_image *)bad;
#define RESET()	memcpy(bad, img, size)

	RESET();
	import_fails(_metadata, fd, bad, size - 1, -EBADMSG, "truncated");
	import_fails(_metadata, fd, bad, sizeof(*h) - 1, -EBADMSG,
		     "shorter than the header");
	import_fails(_metadata, fd, bad, 0, -EBADMSG, "empty");
	bad[size] = 0;
	import_fails(_metadata, fd, bad, size + 1, -EBADMSG, "trailing byte");
	h->magic ^= 1;
	import_fails(_metadata, fd, bad, size, -EBADMSG, "bad magic");
	RESET();
	h->version = KSLOT_IMAGE_VERSION + 1;
	import_fails(_metadata, fd, bad, size, -EPROTONOSUPPORT, "version");
	RESET();
	h->kind = 99;
	import_fails(_metadata, fd, bad, size, -EINVAL, "unknown kind");
	h->kind = 0;
	import_fails(_metadata, fd, bad, size, -EINVAL, "kind 0");
	if ((info.kinds & (1U << KSLOT_KIND_DENSE)) &&
	    !(info.import_kinds & (1U << KSLOT_KIND_DENSE))) {
		h->kind = KSLOT_KIND_DENSE;
		import_fails(_metadata, fd, bad, size, -EOPNOTSUPP,
			     "a kind IMPORT cannot restore");
	}
	RESET();
	h->record_size = RS + 1;
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "record size not the records'");
	h->record_size = 0;
	import_fails(_metadata, fd, bad, size, -EINVAL, "record size 0");
	h->record_size = info.max_record_size + 1;
	import_fails(_metadata, fd, bad, size, -EINVAL, "record size too big");
	RESET();
	h->max_entries = 0;
	import_fails(_metadata, fd, bad, size, -EINVAL, "max_entries 0");
	h->max_entries = info.max_entries + 1;
	import_fails(_metadata, fd, bad, size, -EINVAL, "max_entries too big");
	h->max_entries = 2;
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "more slots than max_entries");
	RESET();
	h->max_entries = 3;
	h->live = 4;
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "live count over max_entries");
	RESET();
	h->live = 1;
	import_fails(_metadata, fd, bad, size - RS, -EBADMSG,
		     "more live slots than the header says");
	RESET();
	h->tag = 256;
	import_fails(_metadata, fd, bad, size, -EBADMSG, "tag above 255");
	RESET();
	h->seal[1] &= ~1ULL;
	import_fails(_metadata, fd, bad, size, -EBADMSG, "even seal key");
	RESET();
	h->__reserved = 1;
	import_fails(_metadata, fd, bad, size, -EBADMSG, "header reserved");

	/* Slots. */
	RESET();
	is = image_slot(bad, 1);
	is.index = image_slot(bad, 0).index;
	set_image_slot(bad, 1, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG, "duplicate index");
	RESET();
	is = image_slot(bad, 2);
	is.index = 1;
	set_image_slot(bad, 2, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "index below the previous one");
	RESET();
	h->max_entries = 3;
	is = image_slot(bad, 2);
	is.index = 3;
	set_image_slot(bad, 2, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "index at max_entries");
	RESET();
	is = image_slot(bad, 0);
	is.gen++;
	set_image_slot(bad, 0, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "live slot at an even generation");
	RESET();
	is = image_slot(bad, 1);
	ASSERT_EQ(KSLOT_SLOT_FREE, is.state);
	is.gen++;
	set_image_slot(bad, 1, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "free slot at an odd generation");
	RESET();
	is = image_slot(bad, 1);
	is.state = KSLOT_SLOT_RETIRED;
	set_image_slot(bad, 1, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "retired slot with a generation");
	RESET();
	is = image_slot(bad, 1);
	is.state = 7;
	set_image_slot(bad, 1, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG, "unknown state");
	RESET();
	/* 64 entries: 6 index bits leave 49 generation bits. */
	is = image_slot(bad, 0);
	is.gen = (1ULL << 49) + 1;
	set_image_slot(bad, 0, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "a generation the table's handles cannot carry");
	RESET();
	is = image_slot(bad, 1);
	is.gen = 1ULL << 49;
	set_image_slot(bad, 1, &is);
	import_fails(_metadata, fd, bad, size, -EBADMSG,
		     "a free generation the table's handles cannot carry");

	/* The command's own fields. */
	RESET();
	im.image_ptr = (uintptr_t)bad;
	im.image_size = size;
	im.flags = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(fd, KSLOT_IOC_IMPORT, &im));
	im.flags = 0;
	im.__reserved = 1;
	EXPECT_EQ(-EINVAL, kslot_ioctl(fd, KSLOT_IOC_IMPORT, &im));
	im.__reserved = 0;
	im.table_id = 1;	/* output only */
	EXPECT_EQ(-EINVAL, kslot_ioctl(fd, KSLOT_IOC_IMPORT, &im));
	im.table_id = 0;
	im.image_ptr = 8;
	EXPECT_EQ(-EFAULT, kslot_ioctl(fd, KSLOT_IOC_IMPORT, &im));
	EXPECT_EQ(0, entries_of(fd, 0));
	/* The valid image, for contrast; then the file's table limit. */
	im.image_ptr = (uintptr_t)bad;
	EXPECT_EQ(0, kslot_ioctl(fd, KSLOT_IOC_IMPORT, &im));
	EXPECT_EQ(2, entries_of(fd, im.table_id));
	while (!kslot_create(fd, KSLOT_KIND_MAP, 8, 8, &t))
		;
	import_fails(_metadata, fd, bad, size, -ENOSPC, "max_tables");
#undef RESET
	free(bad);
	free(img);
	close(fd);
}

/*
 * GET of the handles next to live handle @h (+1, -1, bit 0 flipped) in
 * table @t finds nothing: -ENOENT, unless one of them is @live's other
 * handle, which none may be.
 */
static void expect_neighbours_stale(struct __test_metadata *_metadata,
				    int fd, uint32_t t, uint64_t h)
{
	uint64_t near[] = { h ^ 1, h - 1, h + 1 };
	struct rec got;
	int i;

	for (i = 0; i < 3; i++) {
		if (!near[i])
			continue;
		EXPECT_EQ(-ENOENT, kslot_get(fd, t, near[i], &got, RS)) {
			TH_LOG("handle %#llx, neighbour %#llx",
			       (unsigned long long)h,
			       (unsigned long long)near[i]);
		}
	}
}

/*
 * The seal of an imported table holds: IMPORT refuses keys that do not
 * mix (-EINVAL, the image otherwise valid, nothing created), and in a
 * table it accepts, the handles next to a live one (h ^ 1, h - 1,
 * h + 1) get -ENOENT, for the key EXPORT wrote and for a key written by
 * hand.
 */
TEST_F(kdev, import_seal_keys)
{
	static const uint64_t weak[][3] = {
		{ 1, 1, 1 },			/* the identity */
		{ 3, 5, 7 },			/* below 2^32 */
		{ ~0ULL, ~0ULL, ~0ULL },	/* -1 */
		{ 0x9e3779b97f4a7c15ULL, 1, 0xc4ceb9fe1a85ec53ULL },
		{ 0x9e3779b97f4a7c15ULL, 0xff51afd7ed558ccdULL,
		  (1ULL << 63) | 1 },		/* bits 1..62 zero */
		{ (1ULL << 32) | 1, 0xff51afd7ed558ccdULL,
		  0xc4ceb9fe1a85ec53ULL },	/* its inverse: 1 - 2^32 */
	};
	static const uint64_t sparse[3] = {
		0x0000030000010001ULL, 0x0000400800200001ULL,
		0x0010000400800001ULL,
	};
	struct rec r = { 1, 2 }, got;
	struct kslot_image *hdr;
	uint64_t h[3], ih[8], cursor = 0;
	uint32_t t2, n, i, k;
	size_t size;
	void *img;

	for (i = 0; i < 3; i++) {
		r.a = i;
		ASSERT_EQ(0, kslot_insert(self->fd, self->t, &r, RS, &h[i]));
	}
	ASSERT_EQ(0, kslot_export(self->fd, self->t, &img, &size));
	hdr = img;
	for (i = 0; i < ARRAY_SIZE(weak); i++) {
		struct kslot_image *bad = malloc(size);

		ASSERT_TRUE(bad != 0);
		memcpy(bad, img, size);
		memcpy(bad->seal, weak[i], sizeof(bad->seal));
		import_fails(_metadata, self->fd, bad, size, -EINVAL,
			     "a seal key that does not mix");
		free(bad);
	}
	/* The key EXPORT wrote: the same handles, none of their neighbours. */
	ASSERT_EQ(0, kslot_import(self->fd, img, size, &t2));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, kslot_get(self->fd, t2, h[i], &got, RS));
		EXPECT_EQ(i, got.a);
		expect_neighbours_stale(_metadata, self->fd, t2, h[i]);
	}
	/* A sparse key written by hand: other handles, found by ITERATE. */
	memcpy(hdr->seal, sparse, sizeof(hdr->seal));
	ASSERT_EQ(0, kslot_import(self->fd, img, size, &t2));
	for (k = 0; cursor != KSLOT_CURSOR_END; k += n) {
		ASSERT_GE(3, k);
		ASSERT_EQ(0, kslot_iterate(self->fd, t2, &cursor, ih + k, NULL,
					   0, 8 - k, &n));
	}
	ASSERT_EQ(3, k);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, kslot_get(self->fd, t2, ih[i], &got, RS));
		EXPECT_EQ(i, got.a);
		EXPECT_NE(h[i], ih[i]);
		expect_neighbours_stale(_metadata, self->fd, t2, ih[i]);
	}
	free(img);
}

/*
 * An image whose slots lie far apart grows the table to its last one;
 * IMPORT rebuilds the free list over the whole capacity, a chunk of slots
 * at a time: every free slot is handed out once, lowest first, and the
 * live and retired slots never.
 */
TEST_F(kdev, import_relink_spread)
{
	const uint32_t spots[] = { 5, 2000, 3000, MAXE - 1 };
	size_t size = sizeof(struct kslot_image) +
		      4 * sizeof(struct kslot_image_slot) + 2 * RS;
	struct kslot_image_slot *is;
	struct kslot_image *hdr;
	struct kslot_dump d;
	struct kslot_dump_slot ds;
	struct kslot_stats st;
	struct rec r = { 9, 9 };
	uint8_t *img, *p;
	uint64_t h;
	uint32_t t2, i, n = 0;
	void *exp;
	size_t esize;

	/* The fixture's table's key, from its image. */
	ASSERT_EQ(0, kslot_export(self->fd, self->t, &exp, &esize));
	img = calloc(1, size);
	ASSERT_TRUE(img != 0);
	hdr = (struct kslot_image *)img;
	memcpy(hdr, exp, sizeof(*hdr));
	free(exp);
	hdr->nr_slots = 4;
	hdr->live = 2;
	p = img + sizeof(*hdr);
	for (i = 0; i < 4; i++) {
		is = (struct kslot_image_slot *)p;
		is->index = spots[i];
		/* Free at gen 2, retired, live at gen 5, live at gen 1. */
		is->state = i == 0 ? KSLOT_SLOT_FREE :
			    i == 1 ? KSLOT_SLOT_RETIRED : KSLOT_SLOT_LIVE;
		is->gen = i == 0 ? 2 : i == 1 ? 0 : i == 2 ? 5 : 1;
		p += sizeof(*is);
		if (is->state == KSLOT_SLOT_LIVE) {
			memcpy(p, &r, RS);
			p += RS;
		}
	}
	ASSERT_EQ(size, (size_t)(p - img));
	ASSERT_EQ(0, kslot_import(self->fd, img, size, &t2));
	ASSERT_EQ(0, kslot_stats(self->fd, t2, &st));
	EXPECT_EQ(MAXE, st.capacity);
	EXPECT_EQ(2, st.entries);
	EXPECT_EQ(1, st.retired);
	d = (struct kslot_dump){ .size = sizeof(d), .table_id = t2, .max = 1,
				 .slots_ptr = (uintptr_t)&ds };
	ASSERT_EQ(0, kslot_dump(self->fd, &d));
	EXPECT_EQ(0, d.free_head);
	/* Every free slot once, lowest first; then the table is full. */
	for (i = 0; i < MAXE; i++) {
		if (i == 2000 || i == 3000 || i == MAXE - 1)
			continue;
		ASSERT_EQ(0, kslot_insert(self->fd, t2, &r, RS, &h));
		d = (struct kslot_dump){ .size = sizeof(d), .table_id = t2,
					 .max = 1, .slots_ptr = (uintptr_t)&ds,
					 .user_handle = h };
		ASSERT_EQ(0, kslot_dump(self->fd, &d));
		ASSERT_EQ(i, d.decoded_index);
		EXPECT_EQ(i == 5 ? 3 : 1, d.decoded_gen);
		n++;
	}
	EXPECT_EQ(MAXE - 3, n);
	EXPECT_EQ(-ENOSPC, kslot_insert(self->fd, t2, &r, RS, &h));
	free(img);
}

/* A retired slot comes back retired: never reissued, counted. */
TEST(import_retired_slot)
{
	struct kslot_image_slot is;
	struct kslot_stats st;
	struct rec r = { 1, 1 };
	uint8_t *img;
	size_t size;
	uint64_t h;
	uint32_t t, i;
	int fd;

	fd = kslot_open();
	ASSERT_LE(0, fd);
	img = sample_image(_metadata, fd, &size);
	is = image_slot(img, 1);
	is.state = KSLOT_SLOT_RETIRED;
	is.gen = 0;
	set_image_slot(img, 1, &is);
	ASSERT_EQ(0, kslot_import(fd, img, size, &t));
	ASSERT_EQ(0, kslot_stats(fd, t, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(2, st.entries);
	/* Fill the table: slot 1 is never handed out. */
	for (i = 2; i < st.max_entries - 1; i++)
		ASSERT_EQ(0, kslot_insert(fd, t, &r, RS, &h));
	EXPECT_EQ(-ENOSPC, kslot_insert(fd, t, &r, RS, &h));
	free(img);
	close(fd);
}

/*
 * A generation wider than 32 bits travels through an image and DUMP, and
 * the slot retires at the last generation of the table's handles.
 */
TEST(import_last_generation)
{
	const uint64_t last = (1ULL << 49) - 1;	/* 64 entries: 49 bits */
	struct kslot_image_slot is;
	struct kslot_dump_slot ds;
	struct kslot_dump d;
	struct kslot_stats st;
	struct rec r = { 1, 1 };
	uint64_t cursor = 0, h[2];
	uint32_t t, n = 0;
	uint8_t *img;
	size_t size;
	int fd;

	fd = kslot_open();
	ASSERT_LE(0, fd);
	img = sample_image(_metadata, fd, &size);
	is = image_slot(img, 0);
	ASSERT_EQ(KSLOT_SLOT_LIVE, is.state);
	is.gen = last;
	set_image_slot(img, 0, &is);
	ASSERT_EQ(0, kslot_import(fd, img, size, &t));
	d = (struct kslot_dump){ .size = sizeof(d), .table_id = t, .max = 1,
				 .slots_ptr = (uintptr_t)&ds };
	ASSERT_EQ(0, kslot_dump(fd, &d));
	EXPECT_EQ(KSLOT_SLOT_LIVE, ds.state);
	EXPECT_EQ(last, ds.gen);
	/* Slot 0's handle, the first the walk gives: it decodes to last. */
	ASSERT_EQ(0, kslot_iterate(fd, t, &cursor, h, NULL, 0, 2, &n));
	ASSERT_EQ(2, n);
	d = (struct kslot_dump){ .size = sizeof(d), .table_id = t, .max = 1,
				 .slots_ptr = (uintptr_t)&ds,
				 .user_handle = h[0] };
	ASSERT_EQ(0, kslot_dump(fd, &d));
	EXPECT_EQ(0, d.decoded_index);
	EXPECT_EQ(last, d.decoded_gen);
	/* Its erase ends the slot's last generation: retired for good. */
	ASSERT_EQ(0, kslot_erase(fd, t, h[0]));
	ASSERT_EQ(0, kslot_stats(fd, t, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(1, st.entries);
	EXPECT_EQ(-ENOENT, kslot_get(fd, t, h[0], &r, RS));
	d = (struct kslot_dump){ .size = sizeof(d), .table_id = t, .max = 1,
				 .slots_ptr = (uintptr_t)&ds };
	ASSERT_EQ(0, kslot_dump(fd, &d));
	EXPECT_EQ(KSLOT_SLOT_RETIRED, ds.state);
	EXPECT_EQ(0, ds.gen);
	free(img);
	close(fd);
}

TEST_HARNESS_MAIN
