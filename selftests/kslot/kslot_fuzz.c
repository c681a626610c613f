// SPDX-License-Identifier: GPL-2.0
/*
 * A deterministic fuzzer of the /dev/kslot ioctls.
 *
 *   kslot_fuzz [-s SEED] [-n CALLS] [-t SECONDS] [-v]
 *
 * Without options (as "make check" runs it): seed 1, 30000 calls, 20 s.
 *
 * The same seed gives the same sequence of calls.  Valid calls are checked
 * against a shadow model of every file, table and entry; adversarial calls
 * (random, stale, cross-table and cross-file handles, unknown table ids,
 * huge and zero counts and sizes, NULL, unmapped, guard-page, read-only and
 * half-mapped pointers, random flags, reserved fields, struct sizes and
 * commands, files closed and reopened mid-sequence, also while another
 * thread is inserting into them) must fail with the
 * errno the ABI documents and change nothing but what it says.  The whole
 * model is compared with the kernel's view regularly and at the end.
 *
 * Output is TAP: the calls made, a histogram of the results by errno, and
 * the model mismatches, which must be 0.  Runs stop after CALLS ioctls or
 * SECONDS, whichever comes first.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libkslot.h"

#define NFILES		3
#define NTABLES		6
#define MAX_BATCH_USED	32
#define MAX_RS		4096
#define PAGE		4096UL
#define STALE		64
#define MAX_ERRNO	256
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- deterministic random numbers ---- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)
{
	return n ? rnd64() % n : 0;
}

static bool chance(uint32_t one_in)
{
	return rnd(one_in) == 0;
}

/* ---- counters ---- */

static uint64_t calls, max_calls = 30000, mismatches, verifies;
static uint64_t by_errno[MAX_ERRNO + 1];
static uint64_t valid_calls, adversarial_calls, reopens;
static double deadline;
static bool verbose;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void disagree(const char *fmt, ...)
{
	va_list ap;

	mismatches++;
	if (mismatches > 20 && !verbose)
		return;
	printf("# model mismatch at call %llu: ", (unsigned long long)calls);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Every ioctl goes through here: counted, result recorded. */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg) ? -errno : 0;

	calls++;
	by_errno[-ret < MAX_ERRNO ? -ret : MAX_ERRNO]++;
	return ret;
}

#define EXPECT_RET(got, want, what)					\
	do {								\
		int __g = (got), __w = (want);				\
		if (__g != __w)						\
			disagree("%s: returned %d, expected %d", what,	\
				 __g, __w);				\
	} while (0)

/* ---- records: the bytes of a record are a function of a value ---- */

static void rec_fill(uint8_t *buf, uint32_t rs, uint64_t v)
{
	uint32_t i;

	for (i = 0; i < rs; i++)
		buf[i] = (uint8_t)((v >> (8 * (i % 8))) + i * 131);
}

static bool rec_check(const uint8_t *buf, uint32_t rs, uint64_t v)
{
	uint32_t i;

	for (i = 0; i < rs; i++)
		if (buf[i] != (uint8_t)((v >> (8 * (i % 8))) + i * 131))
			return false;
	return true;
}

/* ---- the shadow model ---- */

struct mentry {
	uint64_t h, v;
};

struct mtable {
	bool used;
	uint32_t id, kind, rs, maxe, n;
	struct mentry *e;
};

struct mfile {
	int fd;
	struct mtable t[NTABLES];
	uint64_t stale[STALE];
	uint32_t nstale;
};

static struct mfile files[NFILES];

/* Scratch memory and pointers of every kind. */
static uint8_t *recbuf;		/* MAX_BATCH_USED * MAX_RS bytes */
static uint8_t *outbuf;
static uint64_t *hbuf, *hout;
static uint8_t *ro_page;	/* PROT_READ */
static uint8_t *edge;		/* end of a page; the next is inaccessible */
static uint8_t *ro_edge;	/* end of a writable page; the next is read-only */

static struct mtable *pick_table(struct mfile *f)
{
	uint32_t start = rnd(NTABLES), i;

	for (i = 0; i < NTABLES; i++) {
		struct mtable *t = &f->t[(start + i) % NTABLES];

		if (t->used)
			return t;
	}
	return NULL;
}

static struct mfile *pick_file(void)
{
	return &files[rnd(NFILES)];
}

static void model_add(struct mtable *t, uint64_t h, uint64_t v)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].h == h)
			disagree("table %u: handle %#llx issued twice", t->id,
				 (unsigned long long)h);
	if (t->n == t->maxe) {
		disagree("table %u: more entries than max_entries", t->id);
		return;
	}
	t->e[t->n].h = h;
	t->e[t->n].v = v;
	t->n++;
}

static void model_stale(struct mfile *f, uint64_t h)
{
	f->stale[f->nstale++ % STALE] = h;
}

static void model_del(struct mfile *f, struct mtable *t, uint32_t i)
{
	model_stale(f, t->e[i].h);
	t->e[i] = t->e[--t->n];
}

static int model_find(struct mtable *t, uint64_t h)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].h == h)
			return i;
	return -1;
}

static void model_drop_table(struct mfile *f, struct mtable *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		model_stale(f, t->e[i].h);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* ---- verification of the model against the kernel ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_mentry(const void *a, const void *b)
{
	return cmp_u64(&((const struct mentry *)a)->h,
		       &((const struct mentry *)b)->h);
}

static void verify_table(struct mfile *f, struct mtable *t)
{
	static uint64_t seen[1024];
	struct kslot_stats st = { .size = sizeof(st), .table_id = t->id };
	uint64_t cursor = 0;
	uint32_t n = 0, i, page = 1 + rnd(128);
	int ret;

	ret = xioctl(f->fd, KSLOT_IOC_STATS, &st);
	EXPECT_RET(ret, 0, "verify: table stats");
	if (!ret && st.entries != t->n)
		disagree("table %u: %llu entries, model %u", t->id,
			 (unsigned long long)st.entries, t->n);
	while (cursor != KSLOT_CURSOR_END) {
		struct kslot_iterate it = {
			.size = sizeof(it), .table_id = t->id,
			.record_size = t->rs, .cursor = cursor, .max = page,
			.handles_ptr = (uintptr_t)hout,
			.records_ptr = (uintptr_t)outbuf,
		};

		if (page * t->rs > MAX_BATCH_USED * MAX_RS)
			page = MAX_BATCH_USED * MAX_RS / t->rs;
		it.max = page;
		ret = xioctl(f->fd, KSLOT_IOC_ITERATE, &it);
		if (ret) {
			disagree("verify: iterate table %u: %d", t->id, ret);
			return;
		}
		for (i = 0; i < it.count; i++) {
			int k = model_find(t, hout[i]);

			if (k < 0)
				disagree("table %u: unknown entry %#llx", t->id,
					 (unsigned long long)hout[i]);
			else if (!rec_check(outbuf + (size_t)i * t->rs, t->rs,
					    t->e[k].v))
				disagree("table %u: entry %#llx holds the wrong record",
					 t->id, (unsigned long long)hout[i]);
			if (n < 1024)
				seen[n] = hout[i];
			n++;
		}
		cursor = it.cursor;
	}
	if (n != t->n) {
		disagree("table %u: iterate saw %u entries, model %u", t->id,
			 n, t->n);
		return;
	}
	qsort(seen, n, sizeof(seen[0]), cmp_u64);
	for (i = 1; i < n; i++)
		if (seen[i] == seen[i - 1])
			disagree("table %u: iterate returned %#llx twice",
				 t->id, (unsigned long long)seen[i]);
	qsort(t->e, t->n, sizeof(t->e[0]), cmp_mentry);
}

static void verify_file(struct mfile *f)
{
	struct kslot_stats st = { .size = sizeof(st) };
	uint32_t i, tables = 0;
	uint64_t entries = 0;

	for (i = 0; i < NTABLES; i++) {
		if (!f->t[i].used)
			continue;
		tables++;
		entries += f->t[i].n;
		verify_table(f, &f->t[i]);
	}
	EXPECT_RET(xioctl(f->fd, KSLOT_IOC_STATS, &st), 0, "verify: file stats");
	if (st.tables != tables || st.entries != entries)
		disagree("file: %u tables %llu entries, model %u and %llu",
			 st.tables, (unsigned long long)st.entries, tables,
			 (unsigned long long)entries);
	verifies++;
}

static void verify_all(void)
{
	uint32_t i;

	for (i = 0; i < NFILES; i++)
		verify_file(&files[i]);
}

/* ---- valid calls ---- */

static const uint32_t sizes[] = { 1, 2, 7, 8, 16, 24, 64, 200, 1000, 4096 };

static void op_create(struct mfile *f)
{
	struct kslot_create c = { .size = sizeof(c) };
	struct mtable *t = NULL;
	uint32_t i;
	int ret;

	for (i = 0; i < NTABLES; i++)
		if (!f->t[i].used) {
			t = &f->t[i];
			break;
		}
	if (!t)
		return;
	c.kind = chance(2) ? KSLOT_KIND_MAP : KSLOT_KIND_DENSE;
	c.record_size = sizes[rnd(ARRAY_SIZE(sizes))];
	if (c.record_size >= 1000)
		c.max_entries = 1U << rnd(7);		/* 1 .. 64 */
	else
		c.max_entries = chance(4) ? 1 + rnd(8) : 1 + rnd(1000);
	ret = xioctl(f->fd, KSLOT_IOC_CREATE, &c);
	EXPECT_RET(ret, 0, "create");
	if (ret)
		return;
	for (i = 0; i < NTABLES; i++)
		if (f->t[i].used && f->t[i].id == c.table_id)
			disagree("create: table id %u reused while live",
				 c.table_id);
	if (!c.table_id)
		disagree("create: table id 0");
	t->e = calloc(c.max_entries, sizeof(*t->e));
	if (!t->e)
		abort();
	t->used = true;
	t->id = c.table_id;
	t->kind = c.kind;
	t->rs = c.record_size;
	t->maxe = c.max_entries;
	t->n = 0;
}

static void op_destroy(struct mfile *f, struct mtable *t)
{
	struct kslot_destroy d = { .size = sizeof(d), .table_id = t->id };

	EXPECT_RET(xioctl(f->fd, KSLOT_IOC_DESTROY, &d), 0, "destroy");
	model_drop_table(f, t);
}

static void op_insert(struct mfile *f, struct mtable *t)
{
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = t->id, .record_size = t->rs,
		.record_ptr = (uintptr_t)recbuf,
	};
	uint64_t v = rnd64();
	int ret;

	rec_fill(recbuf, t->rs, v);
	ret = xioctl(f->fd, KSLOT_IOC_INSERT, &e);
	EXPECT_RET(ret, t->n == t->maxe ? -ENOSPC : 0, "insert");
	if (!ret)
		model_add(t, e.handle, v);
}

static void op_get(struct mfile *f, struct mtable *t)
{
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = t->id, .record_size = t->rs,
		.record_ptr = (uintptr_t)outbuf,
	};
	uint32_t k;
	int ret;

	if (!t->n)
		return;
	k = rnd(t->n);
	e.handle = t->e[k].h;
	ret = xioctl(f->fd, KSLOT_IOC_GET, &e);
	EXPECT_RET(ret, 0, "get");
	if (!ret && !rec_check(outbuf, t->rs, t->e[k].v))
		disagree("get: wrong record for %#llx",
			 (unsigned long long)e.handle);
}

static void op_update(struct mfile *f, struct mtable *t)
{
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = t->id, .record_size = t->rs,
		.record_ptr = (uintptr_t)recbuf,
	};
	uint64_t v = rnd64();
	uint32_t k;
	int ret;

	if (!t->n)
		return;
	k = rnd(t->n);
	e.handle = t->e[k].h;
	rec_fill(recbuf, t->rs, v);
	ret = xioctl(f->fd, KSLOT_IOC_UPDATE, &e);
	EXPECT_RET(ret, 0, "update");
	if (!ret)
		t->e[k].v = v;
}

static void op_erase(struct mfile *f, struct mtable *t)
{
	struct kslot_entry e = { .size = sizeof(e), .table_id = t->id };
	uint32_t k;
	int ret;

	if (!t->n)
		return;
	k = rnd(t->n);
	e.handle = t->e[k].h;
	ret = xioctl(f->fd, KSLOT_IOC_ERASE, &e);
	EXPECT_RET(ret, 0, "erase");
	if (!ret)
		model_del(f, t, k);
}

static uint32_t batch_count(struct mtable *t)
{
	uint32_t max = MAX_BATCH_USED;

	if (max * t->rs > MAX_BATCH_USED * MAX_RS / 4)
		max = MAX_BATCH_USED * MAX_RS / 4 / t->rs;
	return 1 + rnd(max);
}

static void op_insert_batch(struct mfile *f, struct mtable *t)
{
	uint32_t count = batch_count(t), room = t->maxe - t->n, i, want;
	uint64_t v0 = rnd64();
	struct kslot_batch b = {
		.size = sizeof(b), .table_id = t->id, .record_size = t->rs,
		.count = count, .handles_ptr = (uintptr_t)hout,
		.records_ptr = (uintptr_t)recbuf,
	};
	int ret;

	for (i = 0; i < count; i++)
		rec_fill(recbuf + (size_t)i * t->rs, t->rs, v0 + i);
	ret = xioctl(f->fd, KSLOT_IOC_INSERT_BATCH, &b);
	want = count <= room ? count : room;
	EXPECT_RET(ret, count <= room ? 0 : -ENOSPC, "insert batch");
	if (b.done != want)
		disagree("insert batch: done %u, expected %u", b.done, want);
	for (i = 0; i < b.done && i < count; i++)
		model_add(t, hout[i], v0 + i);
}

static void op_get_batch(struct mfile *f, struct mtable *t)
{
	uint32_t count, i, k[MAX_BATCH_USED];
	struct kslot_batch b = {
		.size = sizeof(b), .table_id = t->id, .record_size = t->rs,
		.handles_ptr = (uintptr_t)hbuf,
		.records_ptr = (uintptr_t)outbuf,
	};
	int ret;

	if (!t->n)
		return;
	count = batch_count(t);
	for (i = 0; i < count; i++) {
		k[i] = rnd(t->n);
		hbuf[i] = t->e[k[i]].h;
	}
	b.count = count;
	ret = xioctl(f->fd, KSLOT_IOC_GET_BATCH, &b);
	EXPECT_RET(ret, 0, "get batch");
	if (!ret && b.done != count)
		disagree("get batch: done %u of %u", b.done, count);
	for (i = 0; i < b.done && i < count; i++)
		if (!rec_check(outbuf + (size_t)i * t->rs, t->rs, t->e[k[i]].v))
			disagree("get batch: wrong record %u", i);
}

/*
 * Erase distinct entries; sometimes entry @bad is a stale or foreign
 * handle, which stops the batch there with -ENOENT.
 */
static void op_erase_batch(struct mfile *f, struct mtable *t, bool poison)
{
	uint32_t count, i, bad = ~0U;
	struct kslot_batch b = {
		.size = sizeof(b), .table_id = t->id,
		.handles_ptr = (uintptr_t)hbuf,
	};
	int ret;

	if (!t->n)
		return;
	count = 1 + rnd(t->n < MAX_BATCH_USED ? t->n : MAX_BATCH_USED);
	/* The last count model entries, in a random order. */
	for (i = 0; i < count; i++)
		hbuf[i] = t->e[t->n - 1 - i].h;
	for (i = count - 1; i > 0; i--) {
		uint32_t j = rnd(i + 1);
		uint64_t x = hbuf[i];

		hbuf[i] = hbuf[j];
		hbuf[j] = x;
	}
	if (poison && f->nstale) {
		bad = rnd(count);
		hbuf[bad] = f->stale[rnd(f->nstale < STALE ? f->nstale : STALE)];
		adversarial_calls++;
	}
	b.count = count;
	ret = xioctl(f->fd, KSLOT_IOC_ERASE_BATCH, &b);
	EXPECT_RET(ret, bad == ~0U ? 0 : -ENOENT, "erase batch");
	if (b.done != (bad == ~0U ? count : bad))
		disagree("erase batch: done %u, expected %u", b.done,
			 bad == ~0U ? count : bad);
	for (i = 0; i < b.done && i < count; i++) {
		int k = model_find(t, hbuf[i]);

		if (k >= 0)
			model_del(f, t, k);
	}
}

static void op_stats(struct mfile *f, struct mtable *t)
{
	struct kslot_stats st = { .size = sizeof(st), .table_id = t->id };
	int ret = xioctl(f->fd, KSLOT_IOC_STATS, &st);

	EXPECT_RET(ret, 0, "stats");
	if (!ret && (st.entries != t->n || st.kind != t->kind ||
		     st.record_size != t->rs || st.max_entries != t->maxe ||
		     st.tables != 1))
		disagree("stats of table %u differ from the model", t->id);
}

static void op_dump(struct mfile *f, struct mtable *t)
{
	static struct kslot_dump_slot slots[64];
	static uint32_t rev[64];
	struct kslot_dump d = {
		.size = sizeof(d), .table_id = t->id, .start = rnd(64),
		.max = 1 + rnd(64), .slots_ptr = (uintptr_t)slots,
		.reverse_ptr = (uintptr_t)rev,
		.user_handle = t->n ? t->e[rnd(t->n)].h : 0,
	};
	int ret = xioctl(f->fd, KSLOT_IOC_DUMP, &d);

	EXPECT_RET(ret, 0, "dump");
	if (!ret && d.live != t->n)
		disagree("dump of table %u: %u live, model %u", t->id, d.live,
			 t->n);
}

static void op_info(struct mfile *f)
{
	struct kslot_info info = { .size = sizeof(info) };
	int ret = xioctl(f->fd, KSLOT_IOC_INFO, &info);

	EXPECT_RET(ret, 0, "info");
	if (!ret && (info.abi_version != KSLOT_ABI_VERSION ||
		     info.max_batch < MAX_BATCH_USED))
		disagree("info: unexpected values");
}

/* ---- adversarial calls ---- */

/* A handle that names nothing in @t: random, stale, or foreign. */
static uint64_t bad_handle(struct mfile *f, struct mtable *t, const char **why)
{
	struct mfile *g = pick_file();
	struct mtable *u;

	switch (rnd(5)) {
	case 0:
		*why = "random handle";
		return rnd64() | 1;
	case 1:
		if (f->nstale) {
			*why = "stale handle";
			return f->stale[rnd(f->nstale < STALE ? f->nstale :
							       STALE)];
		}
		break;
	case 2:
		/* Another table of the same file. */
		u = pick_table(f);
		if (u && u != t && u->n) {
			*why = "handle of another table";
			return u->e[rnd(u->n)].h;
		}
		break;
	case 3:
		/* Another file: table ids repeat across files. */
		u = g != f ? pick_table(g) : NULL;
		if (u && u->n) {
			*why = "handle of another file";
			return u->e[rnd(u->n)].h;
		}
		break;
	default:
		if (t->n) {
			*why = "live handle off by one";
			return t->e[rnd(t->n)].h ^ (1ULL << rnd(64));
		}
		break;
	}
	*why = "random handle";
	return rnd64() | 1;
}

static void adv_handle(struct mfile *f, struct mtable *t)
{
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = t->id, .record_size = t->rs,
		.record_ptr = (uintptr_t)recbuf,
	};
	static const unsigned long cmds[] = {
		KSLOT_IOC_GET, KSLOT_IOC_UPDATE, KSLOT_IOC_ERASE,
	};
	unsigned long cmd = cmds[rnd(3)];
	const char *why;
	char what[64];
	int k;

	e.handle = bad_handle(f, t, &why);
	k = model_find(t, e.handle);
	if (cmd == KSLOT_IOC_ERASE) {
		e.record_size = 0;
		e.record_ptr = 0;
	}
	snprintf(what, sizeof(what), "%s (cmd %#lx)", why, cmd);
	if (k >= 0) {
		/* A collision with a live handle: astronomically rare. */
		disagree("%s names a live entry", what);
		return;
	}
	rec_fill(recbuf, t->rs, 0);
	EXPECT_RET(xioctl(f->fd, cmd, &e), -ENOENT, what);
	if (chance(2)) {
		/* The null handle is never valid. */
		e.handle = 0;
		EXPECT_RET(xioctl(f->fd, cmd, &e), -EINVAL, "null handle");
	}
}

static void adv_batch_handles(struct mfile *f, struct mtable *t)
{
	uint32_t count, i, bad;
	struct kslot_batch b = {
		.size = sizeof(b), .table_id = t->id, .record_size = t->rs,
		.handles_ptr = (uintptr_t)hbuf,
		.records_ptr = (uintptr_t)outbuf,
	};
	const char *why;
	int ret;

	if (!t->n)
		return;
	count = 1 + rnd(t->n < 16 ? t->n : 16);
	for (i = 0; i < count; i++)
		hbuf[i] = t->e[rnd(t->n)].h;
	bad = rnd(count);
	hbuf[bad] = bad_handle(f, t, &why);
	if (model_find(t, hbuf[bad]) >= 0)
		return;
	b.count = count;
	ret = xioctl(f->fd, KSLOT_IOC_GET_BATCH, &b);
	EXPECT_RET(ret, -ENOENT, why);
	if (b.done != bad)
		disagree("get batch with a %s at %u: done %u", why, bad, b.done);
}

static void adv_table_id(struct mfile *f)
{
	struct kslot_entry e = {
		.size = sizeof(e), .record_size = 8,
		.record_ptr = (uintptr_t)recbuf, .handle = rnd64() | 1,
	};
	struct kslot_destroy d = { .size = sizeof(d) };
	uint32_t id, i;

	do {
		id = chance(2) ? rnd(64) : (uint32_t)rnd64();
		for (i = 0; i < NTABLES; i++)
			if (f->t[i].used && f->t[i].id == id)
				break;
	} while (i < NTABLES);
	e.table_id = id;
	d.table_id = id;
	switch (rnd(3)) {
	case 0:
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_GET, &e), -ENOENT,
			   "get on an unknown table");
		break;
	case 1:
		e.handle = 0;
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_INSERT, &e), -ENOENT,
			   "insert into an unknown table");
		break;
	default:
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_DESTROY, &d), -ENOENT,
			   "destroy of an unknown table");
		break;
	}
}

/* Nonzero flags, reserved fields, wrong record sizes. */
static void adv_fields(struct mfile *f, struct mtable *t)
{
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = t->id, .record_size = t->rs,
		.record_ptr = (uintptr_t)recbuf,
	};
	struct kslot_create c = {
		.size = sizeof(c), .kind = KSLOT_KIND_MAP, .record_size = 8,
		.max_entries = 8,
	};
	struct kslot_destroy d = { .size = sizeof(d), .table_id = t->id };
	struct kslot_iterate it = {
		.size = sizeof(it), .table_id = t->id, .max = 4,
		.handles_ptr = (uintptr_t)hout,
	};
	struct kslot_info info = { .size = sizeof(info) };

	switch (rnd(9)) {
	case 0:
		e.flags = 1U << rnd(32);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_INSERT, &e), -EINVAL,
			   "insert with flags");
		break;
	case 1:
		do {
			e.record_size = chance(2) ? rnd(2 * t->rs + 2) :
						    (uint32_t)rnd64();
		} while (e.record_size == t->rs);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_INSERT, &e), -EINVAL,
			   "insert with a wrong record size");
		break;
	case 2:
		c.flags = 1U << rnd(32);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_CREATE, &c), -EINVAL,
			   "create with flags");
		break;
	case 3:
		switch (rnd(5)) {
		case 0:
			c.kind = chance(2) ? 0 : 3 + rnd(1000);
			break;
		case 1:
			c.record_size = 0;
			break;
		case 2:
			c.record_size = 65537 + rnd(1U << 30);
			break;
		case 3:
			c.max_entries = 0;
			break;
		default:
			c.max_entries = (1U << 24) + 1 + rnd(1U << 30);
			break;
		}
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_CREATE, &c), -EINVAL,
			   "create with a bad kind, size or capacity");
		break;
	case 4:
		c.table_id = 1 + rnd(100);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_CREATE, &c), -EINVAL,
			   "create with table_id set");
		break;
	case 5:
		d.__reserved = 1 + rnd(1000);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_DESTROY, &d), -EINVAL,
			   "destroy with reserved set");
		break;
	case 6:
		info.__reserved = 1;
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_INFO, &info), -EINVAL,
			   "info with reserved set");
		break;
	case 7:
		/* Bad iterate arguments. */
		switch (rnd(3)) {
		case 0:
			it.max = chance(2) ? 0 : 1025 + rnd(1U << 30);
			break;
		case 1:
			it.count = 1 + rnd(100);
			break;
		default:
			it.cursor = (1ULL << 24) + 1 + rnd(1U << 30);
			break;
		}
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_ITERATE, &it), -EINVAL,
			   "iterate with bad arguments");
		break;
	default:
		/* ERASE carries no record. */
		e.handle = t->n ? t->e[rnd(t->n)].h : 1;
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_ERASE, &e), -EINVAL,
			   "erase with a record");
		break;
	}
}

/* The size field: too small, too big with a nonzero tail, or zero tail. */
static void adv_size(struct mfile *f, struct mtable *t)
{
	static uint8_t big[PAGE];
	struct kslot_stats *st = (struct kslot_stats *)big;
	uint32_t ksize = sizeof(*st);
	int ret;

	memset(big, 0, sizeof(big));
	st->table_id = t->id;
	switch (rnd(5)) {
	case 4:
		/* As openat2(): no struct is larger than a page. */
		st->size = PAGE + 1 + rnd(1U << 20);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_STATS, st), -E2BIG,
			   "struct larger than a page");
		break;
	case 0:
		st->size = rnd(ksize);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_STATS, st), -EINVAL,
			   "struct size too small");
		break;
	case 1:
		st->size = ksize + 1 + rnd(sizeof(big) - ksize);
		big[ksize + rnd(st->size - ksize)] = 1 + rnd(255);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_STATS, st), -E2BIG,
			   "struct size too big, nonzero tail");
		break;
	case 2:
		st->size = ksize + 1 + rnd(sizeof(big) - ksize);
		ret = xioctl(f->fd, KSLOT_IOC_STATS, st);
		EXPECT_RET(ret, 0, "struct size too big, zero tail");
		if (!ret && st->entries != t->n)
			disagree("stats through a bigger struct: %llu entries, model %u",
				 (unsigned long long)st->entries, t->n);
		break;
	default:
		/* A struct that claims to run into a guard page. */
		st = (struct kslot_stats *)(edge - ksize);
		memset(st, 0, ksize);
		st->size = ksize + 8 + rnd(PAGE - ksize - 8);
		st->table_id = t->id;
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_STATS, st), -EFAULT,
			   "struct size running into a guard page");
		break;
	}
}

static void *bad_pointer(const char **why)
{
	switch (rnd(4)) {
	case 0:
		*why = "a NULL";
		return NULL;
	case 1:
		*why = "an inaccessible";
		return edge;
	case 2:
		*why = "a kernel-address";
		return (void *)(uintptr_t)0xffff888000000000ULL;
	default:
		*why = "a low-address";
		return (void *)(uintptr_t)(8 + rnd(4000));
	}
}

static void adv_pointer(struct mfile *f, struct mtable *t)
{
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = t->id, .record_size = t->rs,
	};
	char what[96];
	const char *why;
	void *p = bad_pointer(&why);
	uint32_t k = t->n ? rnd(t->n) : 0;

	switch (rnd(6)) {
	case 0:
		/* The argument struct itself. */
		snprintf(what, sizeof(what), "stats with %s argument", why);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_STATS, p), -EFAULT, what);
		break;
	case 1:
		e.record_ptr = (uintptr_t)p;
		snprintf(what, sizeof(what), "insert from %s record", why);
		/* The record is read before a slot is taken. */
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_INSERT, &e), -EFAULT, what);
		break;
	case 2:
		if (!t->n)
			break;
		e.handle = t->e[k].h;
		e.record_ptr = (uintptr_t)(chance(2) ? p : ro_page);
		snprintf(what, sizeof(what), "get into %s record",
			 e.record_ptr == (uintptr_t)ro_page ? "a read-only" :
							       why);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_GET, &e), -EFAULT, what);
		break;
	case 3:
		if (!t->n)
			break;
		e.handle = t->e[k].h;
		e.record_ptr = (uintptr_t)p;
		snprintf(what, sizeof(what), "update from %s record", why);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_UPDATE, &e), -EFAULT, what);
		break;
	case 4: {
		struct kslot_iterate it = {
			.size = sizeof(it), .table_id = t->id,
			.max = 1 + rnd(64),
			.handles_ptr = (uintptr_t)(chance(2) ? p : ro_page),
		};

		snprintf(what, sizeof(what), "iterate into %s handle array",
			 it.handles_ptr == (uintptr_t)ro_page ? "a read-only" :
								 why);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_ITERATE, &it),
			   t->n ? -EFAULT : 0, what);
		break;
	}
	default: {
		/* A read-only argument: commands with outputs fail. */
		struct kslot_entry *ro = (struct kslot_entry *)ro_page;
		int ret;

		/* The read-only page holds zeros: size 0 is too small. */
		ret = xioctl(f->fd, KSLOT_IOC_INSERT, ro);
		EXPECT_RET(ret, -EINVAL, "insert with a zeroed argument");
		break;
	}
	}
}

/* An argument that is readable but not writable. */
static void adv_readonly_arg(struct mfile *f, struct mtable *t)
{
	static uint8_t *ro_arg;
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = t->id, .record_size = t->rs,
		.record_ptr = (uintptr_t)recbuf,
	};
	struct kslot_create c = {
		.size = sizeof(c), .kind = KSLOT_KIND_DENSE, .record_size = 8,
		.max_entries = 8,
	};
	uint64_t v = rnd64();
	uint32_t k;
	int ret;

	if (!ro_arg) {
		ro_arg = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ro_arg == MAP_FAILED)
			abort();
	}
	mprotect(ro_arg, PAGE, PROT_READ | PROT_WRITE);
	switch (rnd(5)) {
	case 4:
		/* ERASE has no output either. */
		if (!t->n)
			break;
		k = rnd(t->n);
		e.handle = t->e[k].h;
		e.record_size = 0;
		e.record_ptr = 0;
		memcpy(ro_arg, &e, sizeof(e));
		mprotect(ro_arg, PAGE, PROT_READ);
		ret = xioctl(f->fd, KSLOT_IOC_ERASE, ro_arg);
		EXPECT_RET(ret, 0, "erase with a read-only argument");
		if (!ret)
			model_del(f, t, k);
		break;
	case 0:
		/*
		 * INSERT cannot report the handle: nothing is inserted (the
		 * handle's address is checked before anything else).
		 */
		rec_fill(recbuf, t->rs, v);
		memcpy(ro_arg, &e, sizeof(e));
		mprotect(ro_arg, PAGE, PROT_READ);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_INSERT, ro_arg), -EFAULT,
			   "insert with a read-only argument");
		break;
	case 1:
		/* CREATE cannot report the id: nothing is created. */
		memcpy(ro_arg, &c, sizeof(c));
		mprotect(ro_arg, PAGE, PROT_READ);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_CREATE, ro_arg), -EFAULT,
			   "create with a read-only argument");
		break;
	case 2:
		/* UPDATE has no output: it works. */
		if (!t->n)
			break;
		k = rnd(t->n);
		e.handle = t->e[k].h;
		rec_fill(recbuf, t->rs, v);
		memcpy(ro_arg, &e, sizeof(e));
		mprotect(ro_arg, PAGE, PROT_READ);
		ret = xioctl(f->fd, KSLOT_IOC_UPDATE, ro_arg);
		EXPECT_RET(ret, 0, "update with a read-only argument");
		if (!ret)
			t->e[k].v = v;
		break;
	default: {
		/* A batch cannot report done: nothing is done. */
		struct kslot_batch b = {
			.size = sizeof(b), .table_id = t->id,
			.record_size = t->rs, .count = 1,
			.handles_ptr = (uintptr_t)hout,
			.records_ptr = (uintptr_t)recbuf,
		};

		rec_fill(recbuf, t->rs, v);
		memcpy(ro_arg, &b, sizeof(b));
		mprotect(ro_arg, PAGE, PROT_READ);
		EXPECT_RET(xioctl(f->fd, KSLOT_IOC_INSERT_BATCH, ro_arg),
			   -EFAULT, "batch with a read-only argument");
		break;
	}
	}
}

/* Batches whose arrays run into a guard page or read-only memory at entry j. */
static void adv_batch_edge(struct mfile *f, struct mtable *t)
{
	uint32_t count = 2 + rnd(15), j = rnd(count), i, room;
	struct kslot_batch b = {
		.size = sizeof(b), .table_id = t->id, .record_size = t->rs,
		.count = count,
	};
	uint64_t v0 = rnd64();
	uint8_t *recs;
	uint64_t *hs;
	bool full;
	int ret;

	if ((size_t)j * t->rs > PAGE || j * 8 > PAGE)
		return;
	switch (rnd(3)) {
	case 0:
		/* Records readable up to entry j. */
		recs = edge - (size_t)j * t->rs;
		for (i = 0; i < j; i++)
			rec_fill(recs + (size_t)i * t->rs, t->rs, v0 + i);
		b.records_ptr = (uintptr_t)recs;
		b.handles_ptr = (uintptr_t)hout;
		room = t->maxe - t->n;
		/* Entry j's record is read before a slot is taken. */
		ret = xioctl(f->fd, KSLOT_IOC_INSERT_BATCH, &b);
		EXPECT_RET(ret, j <= room ? -EFAULT : -ENOSPC,
			   "insert batch from records running into a guard page");
		if (b.done != (j <= room ? j : room))
			disagree("insert batch from records running out at %u: done %u",
				 j, b.done);
		for (i = 0; i < b.done && i < j; i++)
			model_add(t, hout[i], v0 + i);
		break;
	case 1:
		/* Handles writable up to entry j. */
		hs = (uint64_t *)(ro_edge - (size_t)j * 8);
		for (i = 0; i < count; i++)
			rec_fill(recbuf + (size_t)i * t->rs, t->rs, v0 + i);
		b.records_ptr = (uintptr_t)recbuf;
		b.handles_ptr = (uintptr_t)hs;
		room = t->maxe - t->n;
		/* Entry j's handle address is checked before anything else. */
		full = room < j;
		ret = xioctl(f->fd, KSLOT_IOC_INSERT_BATCH, &b);
		EXPECT_RET(ret, full ? -ENOSPC : -EFAULT,
			   "insert batch into handles running out");
		if (b.done != (full ? room : j))
			disagree("insert batch into handles running out at %u: done %u",
				 j, b.done);
		for (i = 0; i < b.done && i < j; i++)
			model_add(t, hs[i], v0 + i);
		break;
	default:
		/* Erase with handles readable up to entry j. */
		if (t->n < j)
			return;
		hs = (uint64_t *)(edge - (size_t)j * 8);
		for (i = 0; i < j; i++)
			hs[i] = t->e[t->n - 1 - i].h;
		b.record_size = 0;
		b.handles_ptr = (uintptr_t)hs;
		ret = xioctl(f->fd, KSLOT_IOC_ERASE_BATCH, &b);
		EXPECT_RET(ret, -EFAULT, "erase batch from handles running into a guard page");
		if (b.done != j)
			disagree("erase batch from handles running out at %u: done %u",
				 j, b.done);
		for (i = 0; i < b.done && i < j; i++) {
			int k = model_find(t, hs[i]);

			if (k >= 0)
				model_del(f, t, k);
		}
		break;
	}
}

static void adv_counts(struct mfile *f, struct mtable *t)
{
	struct kslot_batch b = {
		.size = sizeof(b), .table_id = t->id, .record_size = t->rs,
	};
	static const unsigned long cmds[] = {
		KSLOT_IOC_INSERT_BATCH, KSLOT_IOC_GET_BATCH,
		KSLOT_IOC_ERASE_BATCH,
	};
	unsigned long cmd = cmds[rnd(3)];
	int ret;

	if (cmd == KSLOT_IOC_ERASE_BATCH)
		b.record_size = 0;
	if (chance(2)) {
		/* Zero: nothing is read, not even NULL arrays. */
		ret = xioctl(f->fd, cmd, &b);
		EXPECT_RET(ret, 0, "batch of 0");
		if (b.done)
			disagree("batch of 0: done %u", b.done);
	} else {
		b.count = 1025 + rnd(~0U - 1025);
		b.handles_ptr = (uintptr_t)hbuf;
		b.records_ptr = cmd == KSLOT_IOC_ERASE_BATCH ? 0 :
			(uintptr_t)recbuf;
		EXPECT_RET(xioctl(f->fd, cmd, &b), -EINVAL, "huge batch");
	}
	if (chance(4)) {
		/* done must be 0 on input. */
		b.count = 1;
		b.done = 1 + rnd(100);
		EXPECT_RET(xioctl(f->fd, cmd, &b), -EINVAL, "batch with done set");
	}
}

static void adv_command(struct mfile *f)
{
	struct kslot_info info = { .size = sizeof(info) };
	unsigned long cmd;

	switch (rnd(3)) {
	case 0:
		/* Past the last command, KSLOT_IOC_IMPORT. */
		cmd = _IO(KSLOT_IOCTL_TYPE, _IOC_NR(KSLOT_IOC_IMPORT) + 1 +
			  rnd(0xff - _IOC_NR(KSLOT_IOC_IMPORT)));
		break;
	case 1:
		/* Not the VFS's own commands (types 0 and 'T'). */
		cmd = _IO(rnd(256), rnd(256));
		if (_IOC_TYPE(cmd) == KSLOT_IOCTL_TYPE || _IOC_TYPE(cmd) == 0 ||
		    _IOC_TYPE(cmd) == 'T')
			return;
		break;
	default:
		/* Right number, wrong direction or size bits. */
		cmd = _IOWR(KSLOT_IOCTL_TYPE,
			    rnd(_IOC_NR(KSLOT_IOC_IMPORT) + 1),
			    struct kslot_info);
		break;
	}
	EXPECT_RET(xioctl(f->fd, cmd, &info), -ENOTTY, "unknown command");
}

/* Close a file mid-sequence: through a dup, or for good and reopen. */
static void op_reopen(struct mfile *f)
{
	struct kslot_info info = { .size = sizeof(info) };
	uint32_t i;
	int dup_fd, old = f->fd;

	if (chance(2)) {
		/* The file lives on through the duplicate. */
		dup_fd = dup(f->fd);
		if (dup_fd < 0)
			abort();
		close(f->fd);
		f->fd = dup_fd;
		verify_file(f);
		return;
	}
	close(f->fd);
	EXPECT_RET(xioctl(old, KSLOT_IOC_INFO, &info), -EBADF,
		   "ioctl on a closed file");
	for (i = 0; i < NTABLES; i++)
		if (f->t[i].used)
			model_drop_table(f, &f->t[i]);
	f->fd = kslot_open();
	if (f->fd < 0) {
		printf("Bail out! cannot reopen /dev/kslot: %d\n", f->fd);
		exit(1);
	}
	reopens++;
	/* Handles of the closed file name nothing in the new one. */
	verify_file(f);
}

/* A thread inserting into a file while the main thread closes it. */
struct racer {
	int fd;
	uint32_t table, rs;
	uint64_t calls, bad;
	uint8_t rec[MAX_RS];
};

static void *racer_fn(void *arg)
{
	struct racer *r = arg;
	struct kslot_entry e = {
		.size = sizeof(e), .table_id = r->table, .record_size = r->rs,
		.record_ptr = (uintptr_t)r->rec,
	};
	bool closed = false;
	int i, ret;

	for (i = 0; i < 200; i++) {
		e.handle = 0;
		ret = ioctl(r->fd, KSLOT_IOC_INSERT, &e) ? -errno : 0;
		r->calls++;
		/* Once the descriptor is gone it stays gone. */
		if (ret == -EBADF)
			closed = true;
		else if (closed || (ret && ret != -ENOSPC))
			r->bad++;
	}
	return NULL;
}

static void op_close_race(struct mfile *f, struct mtable *t)
{
	static struct racer r;
	struct kslot_info info = { .size = sizeof(info) };
	pthread_t th;
	uint32_t i, n = rnd(50);

	r = (struct racer){ .fd = f->fd, .table = t->id, .rs = t->rs };
	if (pthread_create(&th, NULL, racer_fn, &r))
		abort();
	for (i = 0; i < n; i++) {
		/* Output fields must be zero on input. */
		info = (struct kslot_info){ .size = sizeof(info) };
		xioctl(f->fd, KSLOT_IOC_INFO, &info);
	}
	close(f->fd);
	pthread_join(th, NULL);
	calls += r.calls;
	if (r.bad)
		disagree("%llu unexpected results racing with close",
			 (unsigned long long)r.bad);
	for (i = 0; i < NTABLES; i++)
		if (f->t[i].used)
			model_drop_table(f, &f->t[i]);
	f->fd = kslot_open();
	if (f->fd < 0) {
		printf("Bail out! cannot reopen /dev/kslot: %d\n", f->fd);
		exit(1);
	}
	reopens++;
	verify_file(f);
}

static void step(void)
{
	struct mfile *f = pick_file();
	struct mtable *t = pick_table(f);
	uint32_t r = rnd(1000);

	if (!t || (r < 20 && chance(2))) {
		op_create(f);
		valid_calls++;
		return;
	}
	if (r < 600) {
		valid_calls++;
		if (r < 25)
			op_destroy(f, t);
		else if (r < 200)
			op_insert(f, t);
		else if (r < 330)
			op_get(f, t);
		else if (r < 400)
			op_update(f, t);
		else if (r < 480)
			op_erase(f, t);
		else if (r < 520)
			op_insert_batch(f, t);
		else if (r < 550)
			op_get_batch(f, t);
		else if (r < 570)
			op_erase_batch(f, t, false);
		else if (r < 585)
			op_stats(f, t);
		else if (r < 590)
			op_info(f);
		else if (r < 595)
			op_dump(f, t);
		else
			verify_table(f, t);
		return;
	}
	adversarial_calls++;
	if (r < 680)
		adv_handle(f, t);
	else if (r < 710)
		adv_batch_handles(f, t);
	else if (r < 730)
		op_erase_batch(f, t, true);
	else if (r < 760)
		adv_table_id(f);
	else if (r < 810)
		adv_fields(f, t);
	else if (r < 840)
		adv_size(f, t);
	else if (r < 890)
		adv_pointer(f, t);
	else if (r < 920)
		adv_readonly_arg(f, t);
	else if (r < 950)
		adv_batch_edge(f, t);
	else if (r < 980)
		adv_counts(f, t);
	else if (r < 999)
		adv_command(f);
	else if (chance(8))
		op_close_race(f, t);
	else if (chance(4))
		op_reopen(f);
}

static void *map_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	if (p == MAP_FAILED) {
		printf("Bail out! mmap failed\n");
		exit(1);
	}
	return p;
}

static void setup_memory(void)
{
	uint8_t *p;

	recbuf = map_pages(MAX_BATCH_USED * MAX_RS / PAGE, PROT_READ | PROT_WRITE);
	outbuf = map_pages(MAX_BATCH_USED * MAX_RS / PAGE + 1,
			   PROT_READ | PROT_WRITE);
	hbuf = map_pages(1, PROT_READ | PROT_WRITE);
	hout = map_pages(2, PROT_READ | PROT_WRITE);
	ro_page = map_pages(1, PROT_READ);
	/*
	 * PROT_NONE rather than unmapped: a hole could be filled by any
	 * later mapping, a guard page stays.
	 */
	p = map_pages(2, PROT_READ | PROT_WRITE);
	mprotect(p + PAGE, PAGE, PROT_NONE);
	edge = p + PAGE;
	p = map_pages(2, PROT_READ | PROT_WRITE);
	mprotect(p + PAGE, PAGE, PROT_READ);
	ro_edge = p + PAGE;
}

static void usage_exit(void)
{
	fputs("usage: kslot_fuzz [-s SEED] [-n CALLS] [-t SECONDS] [-v]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	double secs = 20, start;
	uint32_t i;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:t:v")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			max_calls = strtoull(optarg, NULL, 0);
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage_exit();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = seed;
	if (access(KSLOT_DEVICE, F_OK)) {
		printf("1..0 # SKIP %s is absent\n", KSLOT_DEVICE);
		return 4;
	}
	printf("TAP version 13\n1..3\n");
	printf("# seed %llu, at most %llu calls or %.0f s\n",
	       (unsigned long long)seed, (unsigned long long)max_calls, secs);
	setup_memory();
	for (i = 0; i < NFILES; i++) {
		files[i].fd = kslot_open();
		if (files[i].fd < 0) {
			printf("Bail out! cannot open %s: %d\n", KSLOT_DEVICE,
			       files[i].fd);
			return 1;
		}
	}
	start = now();
	deadline = start + secs;
	while (calls < max_calls) {
		step();
		if ((calls & 1023) == 0) {
			if (now() > deadline)
				break;
		}
		if (chance(2000))
			verify_all();
	}
	verify_all();
	printf("# %llu calls in %.1f s:", (unsigned long long)calls,
	       now() - start);
	printf(" %llu valid steps, %llu adversarial, %llu full checks, %llu files reopened\n",
	       (unsigned long long)valid_calls,
	       (unsigned long long)adversarial_calls,
	       (unsigned long long)verifies, (unsigned long long)reopens);
	printf("# results by errno:");
	for (i = 0; i <= MAX_ERRNO; i++)
		if (by_errno[i])
			printf(" %s=%llu", i ? strerrorname_np(i) ?: "?" : "0",
			       (unsigned long long)by_errno[i]);
	printf("\n");
	printf("%s 1 fuzz: %llu calls\n", calls ? "ok" : "not ok",
	       (unsigned long long)calls);
	printf("%s 2 fuzz: %llu model mismatches\n", mismatches ? "not ok" : "ok",
	       (unsigned long long)mismatches);
	/* Everything still works: close every file, open and use a new one. */
	for (i = 0; i < NFILES; i++)
		close(files[i].fd);
	files[0].fd = kslot_open();
	memset(files[0].t, 0, sizeof(files[0].t));
	op_create(&files[0]);
	verify_file(&files[0]);
	printf("%s 3 fuzz: the device works after the run\n",
	       files[0].fd >= 0 && !mismatches ? "ok" : "not ok");
	close(files[0].fd);
	return mismatches ? 1 : 0;
}
