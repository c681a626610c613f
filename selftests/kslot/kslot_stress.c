// SPDX-License-Identifier: GPL-2.0
/*
 * SMP stress of one /dev/kslot file from several threads.
 *
 * Writer threads share one map table and one dense table.  Each writer
 * owns its entries and keeps its own copy of their handles and records
 * (every record names its owner, its slot in the owner's list, a sequence
 * number and, once known, its own handle), so at any time it knows what
 * the tables must hold for it.  Meanwhile a walker iterates both tables
 * (no handle twice in a walk; every record under its own handle), and an
 * administrator creates, fills and destroys scratch tables and reads
 * stats and dumps, taking the file's lock for writing.  At the end the
 * tables must hold exactly the union of what the writers own: nothing
 * lost, nothing duplicated, no record reached through another handle.
 *
 * The run lasts STRESS_MS milliseconds (default 3000) of wall time; the
 * operation counts are printed as TAP comments.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libkslot.h"

#define NWRITERS	4
#define PER_WRITER	300
#define MAXE		(NWRITERS * PER_WRITER)

struct srec {
	uint32_t owner, k;
	uint64_t seq;
	uint64_t handle;	/* 0 until the owner knows it */
};

/* The whole program skips (KSFT_SKIP) when kslot_dev is not loaded. */
static void __attribute__((constructor)) kslot_require_device(void)
{
	if (access(KSLOT_DEVICE, F_OK)) {
		ksft_print_header();
		ksft_exit_skip("%s is absent\n", KSLOT_DEVICE);
	}
}

struct shared {
	int fd;
	uint32_t table[2];	/* map, dense */
	atomic_int stop;
	atomic_long ops, errors, walks, admin;
	char first_error[160];
	atomic_int have_error;
};

struct writer {
	struct shared *s;
	uint32_t id;
	uint64_t h[2][PER_WRITER];
	struct srec r[2][PER_WRITER];
	unsigned int seed;
	long ops;
};

static void fail(struct shared *s, const char *fmt, ...)
{
	va_list ap;
	int zero = 0;

	atomic_fetch_add(&s->errors, 1);
	if (!atomic_compare_exchange_strong(&s->have_error, &zero, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(s->first_error, sizeof(s->first_error), fmt, ap);
	va_end(ap);
}

static bool srec_eq(const struct srec *a, const struct srec *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void w_insert(struct writer *w, int tk, uint32_t k)
{
	struct shared *s = w->s;
	struct srec r = { w->id, k, w->r[tk][k].seq + 1, 0 };
	uint64_t h;
	int ret;

	ret = kslot_insert(s->fd, s->table[tk], &r, sizeof(r), &h);
	if (ret) {
		fail(s, "writer %u: insert: %d", w->id, ret);
		return;
	}
	/* Now the record can name its handle. */
	r.handle = h;
	ret = kslot_update(s->fd, s->table[tk], h, &r, sizeof(r));
	if (ret)
		fail(s, "writer %u: update of a new entry: %d", w->id, ret);
	w->h[tk][k] = h;
	w->r[tk][k] = r;
}

static void w_check(struct writer *w, int tk, uint32_t k)
{
	struct shared *s = w->s;
	struct srec out;
	int ret;

	ret = kslot_get(s->fd, s->table[tk], w->h[tk][k], &out, sizeof(out));
	if (ret)
		fail(s, "writer %u: get of an owned entry: %d", w->id, ret);
	else if (!srec_eq(&out, &w->r[tk][k]))
		fail(s, "writer %u: owned handle reached record of %u/%u seq %llu",
		     w->id, out.owner, out.k, (unsigned long long)out.seq);
}

static void w_update(struct writer *w, int tk, uint32_t k)
{
	struct shared *s = w->s;
	struct srec r = w->r[tk][k];
	int ret;

	r.seq++;
	ret = kslot_update(s->fd, s->table[tk], w->h[tk][k], &r, sizeof(r));
	if (ret)
		fail(s, "writer %u: update: %d", w->id, ret);
	else
		w->r[tk][k] = r;
}

static void w_erase(struct writer *w, int tk, uint32_t k)
{
	struct shared *s = w->s;
	uint64_t h = w->h[tk][k];
	struct srec out;
	int ret;

	ret = kslot_erase(s->fd, s->table[tk], h);
	if (ret)
		fail(s, "writer %u: erase: %d", w->id, ret);
	/* The stale handle never comes back. */
	ret = kslot_get(s->fd, s->table[tk], h, &out, sizeof(out));
	if (ret != -ENOENT)
		fail(s, "writer %u: stale handle: %d", w->id, ret);
	w->h[tk][k] = 0;
}

/* Insert and erase a few entries with one batch each. */
static void w_batch(struct writer *w, int tk, uint32_t k0)
{
	struct shared *s = w->s;
	struct srec r[8];
	uint64_t h[8];
	uint32_t n = 0, i, done;
	int ret;

	for (i = 0; i < 8 && k0 + i < PER_WRITER; i++) {
		if (w->h[tk][k0 + i])
			break;
		r[n] = (struct srec){ w->id, k0 + i,
				      w->r[tk][k0 + i].seq + 1, 0 };
		n++;
	}
	if (!n)
		return;
	ret = kslot_insert_batch(s->fd, s->table[tk], r, sizeof(r[0]), n, h,
				 &done);
	if (ret || done != n) {
		fail(s, "writer %u: batch insert: %d, done %u of %u", w->id,
		     ret, done, n);
		n = done;
	}
	for (i = 0; i < n; i++) {
		w->h[tk][k0 + i] = h[i];
		w->r[tk][k0 + i] = r[i];
	}
	if (n && rand_r(&w->seed) % 2) {
		ret = kslot_erase_batch(s->fd, s->table[tk], h, n, &done);
		if (ret || done != n)
			fail(s, "writer %u: batch erase: %d", w->id, ret);
		for (i = 0; i < done; i++)
			w->h[tk][k0 + i] = 0;
	} else {
		for (i = 0; i < n; i++) {
			w->r[tk][k0 + i].handle = h[i];
			if (kslot_update(s->fd, s->table[tk], h[i],
					 &w->r[tk][k0 + i], sizeof(r[0])))
				fail(s, "writer %u: update after batch",
				     w->id);
		}
	}
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	struct shared *s = w->s;

	while (!atomic_load(&s->stop)) {
		uint32_t r = rand_r(&w->seed);
		int tk = r & 1;
		uint32_t k = (r >> 1) % PER_WRITER;

		if (!w->h[tk][k]) {
			if ((r >> 20) % 16 == 0)
				w_batch(w, tk, k);
			else
				w_insert(w, tk, k);
		} else {
			switch ((r >> 20) % 6) {
			case 0:
			case 1:
				w_erase(w, tk, k);
				break;
			case 2:
				w_update(w, tk, k);
				break;
			default:
				w_check(w, tk, k);
				break;
			}
		}
		w->ops++;
	}
	atomic_fetch_add(&s->ops, w->ops);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One walk of a table; fills @seen (sorted) and returns the count. */
static int walk(struct shared *s, uint32_t t, uint32_t page, uint64_t *seen,
		struct srec *recs)
{
	uint64_t cursor = 0, hs[64];
	struct srec rs[64];
	int n = 0, i;

	while (cursor != KSLOT_CURSOR_END) {
		uint32_t count;
		int ret = kslot_iterate(s->fd, t, &cursor, hs, rs, sizeof(rs[0]),
					page, &count);

		if (ret) {
			fail(s, "walker: iterate: %d", ret);
			return -1;
		}
		for (i = 0; i < (int)count && n < MAXE + 64; i++, n++) {
			seen[n] = hs[i];
			if (recs)
				recs[n] = rs[i];
			/* A record names its handle once the owner knows it. */
			if (rs[i].handle && rs[i].handle != hs[i])
				fail(s, "walker: handle %#llx holds the record of %#llx",
				     (unsigned long long)hs[i],
				     (unsigned long long)rs[i].handle);
			if (rs[i].owner >= NWRITERS || rs[i].k >= PER_WRITER)
				fail(s, "walker: foreign record");
		}
	}
	return n;
}

static void *walker_fn(void *arg)
{
	static uint64_t seen[MAXE + 64];
	struct shared *s = arg;
	unsigned int seed = 5;
	long walks = 0;

	while (!atomic_load(&s->stop)) {
		int n = walk(s, s->table[walks & 1], 1 + rand_r(&seed) % 64,
			     seen, NULL), i;

		qsort(seen, n > 0 ? n : 0, sizeof(seen[0]), cmp_u64);
		for (i = 1; i < n; i++)
			if (seen[i] == seen[i - 1])
				fail(s, "walker: handle %#llx returned twice",
				     (unsigned long long)seen[i]);
		walks++;
	}
	atomic_fetch_add(&s->walks, walks);
	atomic_fetch_add(&s->ops, walks);
	return NULL;
}

/* Scratch tables: create, fill, dump, destroy (the file's write lock). */
static void *admin_fn(void *arg)
{
	struct shared *s = arg;
	uint64_t h[16], rec[16] = { 0 };
	struct kslot_stats st;
	long n = 0;

	while (!atomic_load(&s->stop)) {
		struct kslot_dump_slot slots[8];
		struct kslot_dump d = { 0 };
		uint32_t t, done;
		int ret;

		ret = kslot_create(s->fd, n & 1 ? KSLOT_KIND_DENSE :
				   KSLOT_KIND_MAP, 8, 64, &t);
		if (ret) {
			fail(s, "admin: create: %d", ret);
			break;
		}
		if (kslot_insert_batch(s->fd, t, rec, 8, 16, h, &done))
			fail(s, "admin: batch insert");
		if (kslot_stats(s->fd, 0, &st))
			fail(s, "admin: file stats");
		d.table_id = s->table[n & 1];
		d.max = 8;
		d.slots_ptr = (uintptr_t)slots;
		if (kslot_dump(s->fd, &d))
			fail(s, "admin: dump");
		if (kslot_destroy(s->fd, t))
			fail(s, "admin: destroy");
		n++;
	}
	atomic_fetch_add(&s->admin, n);
	atomic_fetch_add(&s->ops, n * 5);
	return NULL;
}

/* The tables hold exactly what the writers own. */
static void final_check(struct __test_metadata *_metadata, struct shared *s,
			struct writer *w)
{
	static uint64_t seen[MAXE + 64];
	static struct srec recs[MAXE + 64];
	static uint64_t owned[MAXE];
	int tk, n, i, j, m;

	for (tk = 0; tk < 2; tk++) {
		struct kslot_stats st;

		n = walk(s, s->table[tk], 64, seen, recs);
		m = 0;
		for (i = 0; i < NWRITERS; i++)
			for (j = 0; j < PER_WRITER; j++)
				if (w[i].h[tk][j])
					owned[m++] = w[i].h[tk][j];
		EXPECT_EQ(m, n);
		for (i = 0; i < n; i++) {
			const struct srec *r = &recs[i];

			if (r->owner >= NWRITERS || r->k >= PER_WRITER ||
			    w[r->owner].h[tk][r->k] != seen[i] ||
			    !srec_eq(r, &w[r->owner].r[tk][r->k]))
				fail(s, "final: entry %#llx is not what its owner stored",
				     (unsigned long long)seen[i]);
		}
		qsort(seen, n, sizeof(seen[0]), cmp_u64);
		qsort(owned, m, sizeof(owned[0]), cmp_u64);
		EXPECT_EQ(0, memcmp(seen, owned, sizeof(seen[0]) * m));
		ASSERT_EQ(0, kslot_stats(s->fd, s->table[tk], &st));
		EXPECT_EQ(m, st.entries);
	}
}

TEST(threads_one_file)
{
	static struct writer w[NWRITERS];
	static struct shared s;
	pthread_t th[NWRITERS + 2];
	const char *env = getenv("STRESS_MS");
	long ms = env ? atol(env) : 3000;
	struct timespec t0, t1;
	struct kslot_stats st;
	int i;

	s.fd = kslot_open();
	if (s.fd == -ENOENT)
		SKIP(return, "/dev/kslot is absent");
	ASSERT_LE(0, s.fd);
	ASSERT_EQ(0, kslot_create(s.fd, KSLOT_KIND_MAP, sizeof(struct srec),
				  MAXE, &s.table[0]));
	ASSERT_EQ(0, kslot_create(s.fd, KSLOT_KIND_DENSE, sizeof(struct srec),
				  MAXE, &s.table[1]));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < NWRITERS; i++) {
		w[i].s = &s;
		w[i].id = i;
		w[i].seed = 77 + i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, writer_fn, &w[i]));
	}
	ASSERT_EQ(0, pthread_create(&th[NWRITERS], NULL, walker_fn, &s));
	ASSERT_EQ(0, pthread_create(&th[NWRITERS + 1], NULL, admin_fn, &s));
	usleep(ms * 1000);
	atomic_store(&s.stop, 1);
	for (i = 0; i < NWRITERS + 2; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	final_check(_metadata, &s, w);
	ASSERT_EQ(0, kslot_stats(s.fd, 0, &st));
	ksft_print_msg("%ld ms, %d threads: %ld operations (%ld walks, %ld scratch tables),",
		       (long)((t1.tv_sec - t0.tv_sec) * 1000 +
			      (t1.tv_nsec - t0.tv_nsec) / 1000000),
		       NWRITERS + 2, atomic_load(&s.ops),
		       atomic_load(&s.walks), atomic_load(&s.admin));
	printf(" %llu entries at the end, %ld errors\n",
	       (unsigned long long)st.entries, atomic_load(&s.errors));
	fflush(stdout);
	if (atomic_load(&s.errors))
		TH_LOG("first error: %s", s.first_error);
	EXPECT_EQ(0, atomic_load(&s.errors));
	EXPECT_LT(0, atomic_load(&s.walks));
	EXPECT_LT(0, atomic_load(&s.admin));
	close(s.fd);
}

TEST_HARNESS_MAIN
