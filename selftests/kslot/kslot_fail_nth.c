// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection on every allocation and user copy of /dev/kslot.
 *
 * For each command, and each step of a representative sequence (create,
 * insert, batch insert, iterate, update, erase, destroy, export, import)
 * on both table kinds, the step runs with /proc/self/task/<tid>/fail-nth set to n, for
 * n = 1, 2, ... until it succeeds with no fault injected.  fail-nth
 * counts every fault point the system call passes: kslot's own
 * (kslot_should_fail_alloc()), the slab and page allocators (failslab and
 * fail_page_alloc, told not to spare sleeping allocations) and user copies
 * (fail_usercopy).  At each n:
 *
 *   - a failure must be -ENOMEM or, for a user copy, -EFAULT, and leave
 *     the file exactly as it was: entries, records, table and file
 *     counters, capacity (batches: exactly the entries reported done);
 *   - a success, with or without a fault injected (a fault that the
 *     kernel absorbed, such as kmemleak's metadata), must have done
 *     exactly what was asked.
 *
 * Each n starts from a fresh file built without faults, so the states
 * compared are always the same.  The totals are printed at the end as a
 * TAP comment; the kmemleak scan at the end of the run checks that no
 * error path leaked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kslot_sysfs.h"

#include "kselftest_harness.h"
#include "libkslot.h"

#define RS		16
#define MAXE		4096
#define MAXSNAP		1100
#define BATCH		8
#define SMALL		8	/* entries before most steps */
#define MAX_NTH		3000

struct rec {
	uint64_t a, b;
};

/* The whole program skips (KSFT_SKIP) when kslot_dev is not loaded. */
static void __attribute__((constructor)) kslot_require_device(void)
{
	if (access(KSLOT_DEVICE, F_OK)) {
		ksft_print_header();
		ksft_exit_skip("%s is absent\n", KSLOT_DEVICE);
	}
}

/* ---- fault configuration (whole program) ---- */

#define DBG	"/sys/kernel/debug/"

static const char *const knobs[][2] = {
	{ DBG "failslab/ignore-gfp-wait", "N" },
	{ DBG "fail_page_alloc/ignore-gfp-wait", "N" },
	{ DBG "failslab/verbose", "0" },
	{ DBG "fail_page_alloc/verbose", "0" },
	{ DBG "fail_usercopy/verbose", "0" },
	{ DBG "kslot/fail_alloc/verbose", "0" },
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

static char saved[NR_KNOBS][32];
static pid_t main_pid;

/* Totals over every test, shared with the forked test processes. */
struct totals {
	long points, enomem, efault, absorbed, steps;
};

static struct totals *totals;

static int read_knob(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int write_knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static void __attribute__((constructor)) faults_setup(void)
{
	unsigned int i;

	main_pid = getpid();
	if (access(KSLOT_DEVICE, F_OK))
		return;
	totals = mmap(NULL, sizeof(*totals), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (totals == MAP_FAILED)
		totals = NULL;
	for (i = 0; i < NR_KNOBS; i++)
		if (!read_knob(knobs[i][0], saved[i], sizeof(saved[i])))
			write_knob(knobs[i][0], knobs[i][1]);
}

static void __attribute__((destructor)) faults_restore(void)
{
	unsigned int i;

	if (getpid() != main_pid)
		return;
	for (i = 0; i < NR_KNOBS; i++)
		if (saved[i][0])
			write_knob(knobs[i][0], saved[i]);
	if (totals && totals->steps) {
		printf("# fail-nth: %ld fault points swept in %ld steps:",
		       totals->points, totals->steps);
		printf(" %ld -ENOMEM, %ld -EFAULT, %ld absorbed by the kernel\n",
		       totals->enomem, totals->efault, totals->absorbed);
	}
	fflush(stdout);
}

/* ---- fail-nth ---- */

static int nth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR);
}

static void nth_arm(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fd, buf, len, 0) != len)
		abort();
}

/*
 * Disarm; true if the fault was injected.  Reading the file is a user
 * copy too: if it fails, the fault was still pending and the read took it.
 */
static bool nth_disarm(int fd)
{
	char buf[16] = "";
	bool injected;

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		injected = false;
	else
		injected = atoi(buf) == 0;
	/* A pending fault may make this write fail: then it is spent. */
	if (pwrite(fd, "0", 1, 0) != 1 && pwrite(fd, "0", 1, 0) != 1)
		abort();
	return injected;
}

/* ---- the file under test and its snapshots ---- */

struct devstats {
	long files, tables, bytes;
};

struct snap {
	struct kslot_stats file, table;
	int table_ret;
	struct devstats dev;
	uint32_t n;
	struct {
		uint64_t h;
		struct rec r;
	} e[MAXSNAP];
};

enum step {
	S_CREATE, S_DESTROY, S_INSERT_FIRST, S_INSERT, S_INSERT_GROW,
	S_INSERT_BATCH, S_GET, S_GET_BATCH, S_UPDATE, S_ERASE,
	S_ERASE_BATCH, S_ITERATE, S_ITERATE_HANDLES, S_STATS, S_STATS_FILE,
	S_DUMP, S_OPEN, S_INFO, S_EXPORT, S_IMPORT, S_CREATE_FIRST,
};

static const char *const step_names[] = {
	[S_CREATE] = "create", [S_DESTROY] = "destroy",
	[S_INSERT_FIRST] = "insert into an empty table",
	[S_INSERT] = "insert", [S_INSERT_GROW] = "insert that grows the table",
	[S_INSERT_BATCH] = "batch insert across growth",
	[S_GET] = "get", [S_GET_BATCH] = "batch get", [S_UPDATE] = "update",
	[S_ERASE] = "erase", [S_ERASE_BATCH] = "batch erase",
	[S_ITERATE] = "iterate", [S_ITERATE_HANDLES] = "iterate handles",
	[S_STATS] = "table stats", [S_STATS_FILE] = "file stats",
	[S_DUMP] = "dump", [S_OPEN] = "open", [S_INFO] = "info",
	[S_EXPORT] = "export", [S_IMPORT] = "import",
	[S_CREATE_FIRST] = "create in an empty file",
};

struct ctx {
	int fd;
	uint32_t kind, t;
	uint64_t self;		/* bytes the file is charged for itself */
	uint64_t cost;		/* bytes charged per entry */
	uint32_t n;		/* entries stored by the setup */
	uint64_t h[MAXSNAP];
	struct rec r[MAXSNAP];
	/* The command of the step, built before the fault is armed. */
	unsigned long cmd;
	union {
		struct kslot_info info;
		struct kslot_create create;
		struct kslot_destroy destroy;
		struct kslot_entry entry;
		struct kslot_batch batch;
		struct kslot_iterate iterate;
		struct kslot_stats stats;
		struct kslot_dump dump;
		struct kslot_export export;
		struct kslot_import import;
	} arg;
	struct rec in[BATCH], out[MAXSNAP];
	uint64_t hin[BATCH], hout[MAXSNAP];
	struct kslot_dump_slot slots[16];
	uint32_t rev[16];
	int newfd;
	/* S_IMPORT: the image of the setup's table, and its stale handles. */
	uint8_t image[4096];
	uint64_t image_size;
	uint64_t stale[2];
};

static long devstat(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(DBG "kslot/dev-stats", "r");
	size_t n = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = atol(line + n + 1);
	fclose(f);
	return v;
}

static int cmp_entry(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Until nothing kslot freed waits for its grace period (debugfs), at most
 * 10 s (a loaded TCG guest's grace periods and work items can take
 * seconds): an erased map record is charged as pending, then its pool's
 * share settles back into the table's bytes.
 */
static void settle_freed(void)
{
	char buf[256], *p;
	int i;

	for (i = 0; i < 1000; i++) {
		if (read_file("/sys/kernel/debug/kslot/dev-stats", buf,
			      sizeof(buf)))
			return;
		p = strstr(buf, "pending: ");
		if (!p || atoll(p + 9) <= 0)
			return;
		usleep(10 * 1000);
	}
}

static void snap_take(struct __test_metadata *_metadata, struct ctx *c,
		      struct snap *s)
{
	uint64_t cursor = 0, bytes, measured;

	memset(s, 0, sizeof(*s));
	/* Compared at rest: what waits for a grace period has settled. */
	settle_freed();
	s->dev.files = devstat("files");
	s->dev.tables = devstat("tables");
	s->dev.bytes = devstat("bytes");
	ASSERT_EQ(0, kslot_stats(c->fd, 0, &s->file));
	s->table_ret = c->t ? kslot_stats(c->fd, c->t, &s->table) : -ENOENT;
	if (s->table_ret)
		return;
	/* At rest, a table is charged what it takes: no settle was missed. */
	if (!table_charge(c->t, &bytes, &measured))
		EXPECT_EQ(measured, bytes);
	while (cursor != KSLOT_CURSOR_END) {
		uint64_t hs[64];
		struct rec rs[64];
		uint32_t count, i;

		ASSERT_EQ(0, kslot_iterate(c->fd, c->t, &cursor, hs, rs, RS,
					   64, &count));
		for (i = 0; i < count; i++) {
			ASSERT_GT(MAXSNAP, s->n);
			s->e[s->n].h = hs[i];
			s->e[s->n].r = rs[i];
			s->n++;
		}
	}
	qsort(s->e, s->n, sizeof(s->e[0]), cmp_entry);
}

static bool stats_equal(const struct kslot_stats *a,
			const struct kslot_stats *b)
{
	return a->kind == b->kind && a->record_size == b->record_size &&
	       a->tables == b->tables && a->entries == b->entries &&
	       a->capacity == b->capacity && a->max_entries == b->max_entries &&
	       a->bytes == b->bytes && a->retired == b->retired &&
	       a->rejected == b->rejected;
}

/* Is every entry of @a in @b with the same record? */
static bool snap_subset(const struct snap *a, const struct snap *b)
{
	uint32_t i, j = 0;

	for (i = 0; i < a->n; i++) {
		while (j < b->n && b->e[j].h < a->e[i].h)
			j++;
		if (j == b->n || b->e[j].h != a->e[i].h ||
		    memcmp(&b->e[j].r, &a->e[i].r, RS))
			return false;
	}
	return true;
}

/* As stats_equal(), but @b's bytes may exceed @a's by @grown. */
static bool stats_equal_grown(const struct kslot_stats *a,
			      const struct kslot_stats *b, uint64_t grown)
{
	struct kslot_stats c = *b;

	c.bytes -= grown;
	return stats_equal(a, &c);
}

/*
 * Nothing changed, but for @grown more bytes of capacity, which an insert
 * keeps if it grew the packed array (dense) or the records' pool (map)
 * and then failed (it keeps its capacity charged, as an emptied table
 * does).
 */
static void expect_unchanged_grown(struct __test_metadata *_metadata,
				   const struct snap *pre,
				   const struct snap *post, uint64_t grown)
{
	EXPECT_TRUE(stats_equal_grown(&pre->file, &post->file, grown));
	EXPECT_EQ(pre->table_ret, post->table_ret);
	if (!pre->table_ret)
		EXPECT_TRUE(stats_equal_grown(&pre->table, &post->table,
					      grown));
	EXPECT_EQ(pre->dev.files, post->dev.files);
	EXPECT_EQ(pre->dev.tables, post->dev.tables);
	EXPECT_EQ(pre->dev.bytes + grown, post->dev.bytes);
	EXPECT_EQ(pre->n, post->n);
	EXPECT_TRUE(snap_subset(pre, post));
}

static void expect_unchanged(struct __test_metadata *_metadata,
			     const struct snap *pre, const struct snap *post)
{
	expect_unchanged_grown(_metadata, pre, post, 0);
}

/* Capacity a failed command of @step may keep: a dense insert's growth. */
static uint64_t kept_growth(const struct ctx *c, enum step st,
			    const struct snap *pre, const struct snap *post)
{
	bool insert = st == S_INSERT_FIRST || st == S_INSERT ||
		      st == S_INSERT_GROW || st == S_INSERT_BATCH;
	uint64_t grown;

	if (!insert || pre->table_ret ||
	    post->table.capacity != pre->table.capacity ||
	    post->table.bytes < pre->table.bytes)
		return 0;
	grown = post->table.bytes - pre->table.bytes -
		(post->table.entries - pre->table.entries) * c->cost;
	/*
	 * A dense table: one chunk of the packed array at most (four pages
	 * of values, its reverse map and their directories).  A map table:
	 * one slab of its records' pool (whole pages, 32 KiB at most) that
	 * the entries done opened.  More is a leak.
	 */
	if (c->kind == KSLOT_KIND_DENSE)
		return grown <= 2 * pre->table.bytes + 32768 ? grown : 0;
	return grown <= 32768 ? grown : 0;
}

static struct rec rec_of(uint32_t i, uint32_t salt)
{
	return (struct rec){ ((uint64_t)salt << 32) | i, ~(uint64_t)i };
}

/* Insert @count records (numbered from c->n) without faults. */
static void fill(struct __test_metadata *_metadata, struct ctx *c,
		 uint32_t count)
{
	uint32_t done, i;

	ASSERT_GE(MAXSNAP, c->n + count);
	for (i = 0; i < count; i++)
		c->r[c->n + i] = rec_of(c->n + i, 1);
	while (count) {
		uint32_t now = count > 1024 ? 1024 : count;

		ASSERT_EQ(0, kslot_insert_batch(c->fd, c->t, &c->r[c->n], RS,
						now, &c->h[c->n], &done));
		c->n += now;
		count -= now;
	}
}

static uint64_t table_stat(struct __test_metadata *_metadata, struct ctx *c,
			   int what)
{
	struct kslot_stats st;

	EXPECT_EQ(0, kslot_stats(c->fd, c->t, &st));
	return what == 0 ? st.entries : what == 1 ? st.capacity : st.bytes;
}

/* Build the state a step starts from, without faults. */
static void setup(struct __test_metadata *_metadata, struct ctx *c,
		  uint32_t kind, enum step step)
{
	uint32_t done;

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->newfd = -1;
	c->fd = kslot_open();
	ASSERT_LE(0, c->fd);
	/* A file is charged for itself from open, with no table. */
	c->self = table_stat(_metadata, c, 2);
	ASSERT_LT(0, c->self);
	if (step == S_OPEN || step == S_INFO || step == S_CREATE_FIRST)
		return;
	ASSERT_EQ(0, kslot_create(c->fd, kind, RS, MAXE, &c->t));
	switch (step) {
	case S_INSERT_FIRST:
		break;
	case S_INSERT_GROW:
	case S_INSERT_BATCH:
		/* Full to capacity (at least one map chunk of slots). */
		fill(_metadata, c, 256);
		fill(_metadata, c, table_stat(_metadata, c, 1) - c->n);
		ASSERT_EQ(c->n, table_stat(_metadata, c, 1));
		if (step == S_INSERT_BATCH) {
			/* Half the batch reuses slots, half needs growth. */
			c->n -= BATCH / 2;
			ASSERT_EQ(0, kslot_erase_batch(c->fd, c->t,
						       &c->h[c->n], BATCH / 2,
						       &done));
		}
		break;
	case S_IMPORT:
		/* Live entries and two stale handles, exported. */
		fill(_metadata, c, SMALL);
		c->n -= 2;
		c->stale[0] = c->h[c->n];
		c->stale[1] = c->h[c->n + 1];
		ASSERT_EQ(0, kslot_erase_batch(c->fd, c->t, c->stale, 2, &done));
		ASSERT_EQ(0, kslot_export_buf(c->fd, c->t, c->image,
					      sizeof(c->image),
					      &c->image_size));
		break;
	default:
		fill(_metadata, c, SMALL);
		break;
	}
	/*
	 * What one entry is charged: its record (a map's own allocation; 0
	 * for dense, whose records live in the arrays), not the capacity,
	 * which a table keeps.  Measured by erasing the last entry and
	 * inserting it again.
	 */
	if (c->n && step != S_IMPORT) {
		uint64_t full;

		/*
		 * One erase and insert first: the erase's settle frees any
		 * empty slab the records' pool kept from the fill, so what
		 * follows measures one entry alone.
		 */
		ASSERT_EQ(0, kslot_erase(c->fd, c->t, c->h[c->n - 1]));
		settle_freed();
		ASSERT_EQ(0, kslot_insert(c->fd, c->t, &c->r[c->n - 1], RS,
					  &c->h[c->n - 1]));
		settle_freed();
		full = table_stat(_metadata, c, 2);

		ASSERT_EQ(0, kslot_erase(c->fd, c->t, c->h[c->n - 1]));
		settle_freed();
		c->cost = full - table_stat(_metadata, c, 2);
		ASSERT_EQ(0, kslot_insert(c->fd, c->t, &c->r[c->n - 1], RS,
					  &c->h[c->n - 1]));
		settle_freed();
		ASSERT_EQ(full, table_stat(_metadata, c, 2));
	}
}

/* Build the command of a step. */
static void prepare(struct ctx *c, enum step step)
{
	uint32_t i;

	for (i = 0; i < BATCH; i++) {
		c->in[i] = rec_of(i, 2);
		c->hin[i] = c->n ? c->h[(i * 3) % c->n] : 0;
	}
	memset(&c->arg, 0, sizeof(c->arg));
	switch (step) {
	case S_OPEN:
		break;
	case S_INFO:
		c->cmd = KSLOT_IOC_INFO;
		c->arg.info.size = sizeof(c->arg.info);
		break;
	case S_CREATE:
	case S_CREATE_FIRST:
		c->cmd = KSLOT_IOC_CREATE;
		c->arg.create = (struct kslot_create){
			.size = sizeof(struct kslot_create), .kind = c->kind,
			.record_size = 32, .max_entries = 100 };
		break;
	case S_DESTROY:
		c->cmd = KSLOT_IOC_DESTROY;
		c->arg.destroy = (struct kslot_destroy){
			.size = sizeof(struct kslot_destroy), .table_id = c->t };
		break;
	case S_INSERT_FIRST:
	case S_INSERT:
	case S_INSERT_GROW:
	case S_GET:
	case S_UPDATE:
	case S_ERASE:
		c->cmd = step == S_GET ? KSLOT_IOC_GET :
			 step == S_UPDATE ? KSLOT_IOC_UPDATE :
			 step == S_ERASE ? KSLOT_IOC_ERASE : KSLOT_IOC_INSERT;
		c->arg.entry = (struct kslot_entry){
			.size = sizeof(struct kslot_entry), .table_id = c->t,
			.record_size = RS,
			.record_ptr = (uintptr_t)(step == S_GET ? c->out :
						  c->in) };
		if (step == S_GET || step == S_UPDATE || step == S_ERASE)
			c->arg.entry.handle = c->h[c->n / 2];
		if (step == S_ERASE) {
			c->arg.entry.record_size = 0;
			c->arg.entry.record_ptr = 0;
		}
		break;
	case S_INSERT_BATCH:
	case S_GET_BATCH:
	case S_ERASE_BATCH:
		c->cmd = step == S_INSERT_BATCH ? KSLOT_IOC_INSERT_BATCH :
			 step == S_GET_BATCH ? KSLOT_IOC_GET_BATCH :
			 KSLOT_IOC_ERASE_BATCH;
		c->arg.batch = (struct kslot_batch){
			.size = sizeof(struct kslot_batch), .table_id = c->t,
			.record_size = RS, .count = BATCH,
			.handles_ptr = (uintptr_t)(step == S_INSERT_BATCH ?
						   c->hout : c->hin),
			.records_ptr = (uintptr_t)(step == S_INSERT_BATCH ?
						   c->in : c->out) };
		if (step == S_ERASE_BATCH) {
			/* Distinct handles. */
			for (i = 0; i < BATCH; i++)
				c->hin[i] = c->h[i];
			c->arg.batch.record_size = 0;
			c->arg.batch.records_ptr = 0;
		}
		break;
	case S_ITERATE:
	case S_ITERATE_HANDLES:
		c->cmd = KSLOT_IOC_ITERATE;
		c->arg.iterate = (struct kslot_iterate){
			.size = sizeof(struct kslot_iterate), .table_id = c->t,
			.max = 64, .handles_ptr = (uintptr_t)c->hout };
		if (step == S_ITERATE) {
			c->arg.iterate.record_size = RS;
			c->arg.iterate.records_ptr = (uintptr_t)c->out;
		}
		break;
	case S_STATS:
	case S_STATS_FILE:
		c->cmd = KSLOT_IOC_STATS;
		c->arg.stats.size = sizeof(c->arg.stats);
		c->arg.stats.table_id = step == S_STATS ? c->t : 0;
		break;
	case S_EXPORT:
		c->cmd = KSLOT_IOC_EXPORT;
		c->arg.export = (struct kslot_export){
			.size = sizeof(struct kslot_export), .table_id = c->t,
			.image_ptr = (uintptr_t)c->image,
			.buf_size = sizeof(c->image) };
		break;
	case S_IMPORT:
		c->cmd = KSLOT_IOC_IMPORT;
		c->arg.import = (struct kslot_import){
			.size = sizeof(struct kslot_import),
			.image_ptr = (uintptr_t)c->image,
			.image_size = c->image_size };
		break;
	case S_DUMP:
		c->cmd = KSLOT_IOC_DUMP;
		c->arg.dump = (struct kslot_dump){
			.size = sizeof(struct kslot_dump), .table_id = c->t,
			.max = 16, .slots_ptr = (uintptr_t)c->slots,
			.reverse_ptr = (uintptr_t)c->rev,
			.user_handle = c->h[1] };
		break;
	}
}

/* The step itself: one system call, nothing else. */
static int act(struct ctx *c, enum step step)
{
	if (step == S_OPEN) {
		c->newfd = open(KSLOT_DEVICE, O_RDWR | O_CLOEXEC);
		return c->newfd < 0 ? -errno : 0;
	}
	return ioctl(c->fd, c->cmd, &c->arg) ? -errno : 0;
}

static bool rec_eq(const struct rec *a, const struct rec *b)
{
	return !memcmp(a, b, RS);
}

/* After a success: the step did exactly what it was asked. */
static void check_success(struct __test_metadata *_metadata, struct ctx *c,
			  enum step step, const struct snap *pre,
			  const struct snap *post)
{
	struct kslot_stats st;
	struct rec out;
	uint32_t i;

	switch (step) {
	case S_OPEN:
		EXPECT_EQ(pre->dev.files + 1, post->dev.files);
		break;
	case S_INFO:
		EXPECT_EQ(KSLOT_ABI_VERSION, c->arg.info.abi_version);
		break;
	case S_CREATE:
	case S_CREATE_FIRST:
		EXPECT_NE(0, c->arg.create.table_id);
		EXPECT_EQ(pre->file.tables + 1, post->file.tables);
		EXPECT_EQ(0, kslot_stats(c->fd, c->arg.create.table_id, &st));
		EXPECT_EQ(32, st.record_size);
		EXPECT_EQ(c->kind, st.kind);
		/* The first table brings the file's 4 KiB buffer. */
		if (step == S_CREATE_FIRST)
			EXPECT_EQ(c->self + st.bytes + 4096, post->file.bytes);
		break;
	case S_DESTROY:
		EXPECT_EQ(-ENOENT, post->table_ret);
		EXPECT_EQ(pre->file.tables - 1, post->file.tables);
		EXPECT_EQ(0, post->file.entries);
		EXPECT_EQ(c->self, post->file.bytes);
		break;
	case S_INSERT_FIRST:
	case S_INSERT:
	case S_INSERT_GROW:
		EXPECT_NE(0, c->arg.entry.handle);
		EXPECT_EQ(0, kslot_get(c->fd, c->t, c->arg.entry.handle, &out,
				       RS));
		EXPECT_TRUE(rec_eq(&c->in[0], &out));
		EXPECT_EQ(pre->n + 1, post->n);
		EXPECT_TRUE(snap_subset(pre, post));
		break;
	case S_INSERT_BATCH:
		EXPECT_EQ(BATCH, c->arg.batch.done);
		for (i = 0; i < BATCH; i++) {
			EXPECT_EQ(0, kslot_get(c->fd, c->t, c->hout[i], &out,
					       RS));
			EXPECT_TRUE(rec_eq(&c->in[i], &out));
		}
		EXPECT_EQ(pre->n + BATCH, post->n);
		EXPECT_TRUE(snap_subset(pre, post));
		break;
	case S_GET:
		EXPECT_TRUE(rec_eq(&c->r[c->n / 2], &c->out[0]));
		expect_unchanged(_metadata, pre, post);
		break;
	case S_GET_BATCH:
		EXPECT_EQ(BATCH, c->arg.batch.done);
		for (i = 0; i < BATCH; i++)
			EXPECT_TRUE(rec_eq(&c->r[(i * 3) % c->n], &c->out[i]));
		expect_unchanged(_metadata, pre, post);
		break;
	case S_UPDATE:
		EXPECT_EQ(0, kslot_get(c->fd, c->t, c->h[c->n / 2], &out, RS));
		EXPECT_TRUE(rec_eq(&c->in[0], &out));
		EXPECT_EQ(pre->n, post->n);
		break;
	case S_ERASE:
		EXPECT_EQ(-ENOENT, kslot_get(c->fd, c->t, c->h[c->n / 2], &out,
					     RS));
		EXPECT_EQ(pre->n - 1, post->n);
		break;
	case S_ERASE_BATCH:
		EXPECT_EQ(BATCH, c->arg.batch.done);
		for (i = 0; i < BATCH; i++)
			EXPECT_EQ(-ENOENT, kslot_get(c->fd, c->t, c->hin[i],
						     &out, RS));
		EXPECT_EQ(pre->n - BATCH, post->n);
		break;
	case S_ITERATE:
	case S_ITERATE_HANDLES:
		EXPECT_EQ(c->n, c->arg.iterate.count);
		EXPECT_EQ(KSLOT_CURSOR_END, c->arg.iterate.cursor);
		for (i = 0; i < c->n && i < 64; i++) {
			EXPECT_EQ(c->h[i], c->hout[i]);
			if (step == S_ITERATE)
				EXPECT_TRUE(rec_eq(&c->r[i], &c->out[i]));
		}
		expect_unchanged(_metadata, pre, post);
		break;
	case S_STATS:
	case S_STATS_FILE:
		EXPECT_EQ(c->n, c->arg.stats.entries);
		expect_unchanged(_metadata, pre, post);
		break;
	case S_EXPORT:
		EXPECT_EQ(sizeof(struct kslot_image) +
			  c->n * (sizeof(struct kslot_image_slot) + RS),
			  c->arg.export.image_size);
		EXPECT_EQ(KSLOT_IMAGE_MAGIC,
			  ((struct kslot_image *)c->image)->magic);
		EXPECT_EQ(c->n, ((struct kslot_image *)c->image)->live);
		expect_unchanged(_metadata, pre, post);
		break;
	case S_IMPORT:
		EXPECT_NE(0, c->arg.import.table_id);
		EXPECT_NE(c->t, c->arg.import.table_id);
		EXPECT_EQ(pre->file.tables + 1, post->file.tables);
		EXPECT_EQ(pre->file.entries + c->n, post->file.entries);
		for (i = 0; i < c->n; i++) {
			EXPECT_EQ(0, kslot_get(c->fd, c->arg.import.table_id,
					       c->h[i], &out, RS));
			EXPECT_TRUE(rec_eq(&c->r[i], &out));
		}
		for (i = 0; i < 2; i++)
			EXPECT_EQ(-ENOENT, kslot_get(c->fd,
						     c->arg.import.table_id,
						     c->stale[i], &out, RS));
		EXPECT_TRUE(stats_equal(&pre->table, &post->table));
		break;
	case S_DUMP:
		EXPECT_EQ(c->n, c->arg.dump.live);
		EXPECT_LT(0, c->arg.dump.count);
		EXPECT_EQ(1, c->arg.dump.decoded_index);
		expect_unchanged(_metadata, pre, post);
		break;
	}
}

/* After a failure: nothing changed (batches: exactly what is done). */
static void check_failure(struct __test_metadata *_metadata, struct ctx *c,
			  enum step step, const struct snap *pre,
			  const struct snap *post)
{
	uint32_t done, i;
	struct rec out;

	if (step == S_OPEN)
		EXPECT_EQ(-1, c->newfd);
	if (step != S_INSERT_BATCH && step != S_ERASE_BATCH) {
		expect_unchanged_grown(_metadata, pre, post,
				       kept_growth(c, step, pre, post));
		return;
	}
	done = c->arg.batch.done;
	EXPECT_GT(BATCH, done);
	if (step == S_INSERT_BATCH) {
		for (i = 0; i < done; i++) {
			EXPECT_EQ(0, kslot_get(c->fd, c->t, c->hout[i], &out,
					       RS));
			EXPECT_TRUE(rec_eq(&c->in[i], &out));
		}
		EXPECT_EQ(pre->n + done, post->n);
		EXPECT_EQ(pre->table.entries + done, post->table.entries);
		/* Done entries stay done, and so does a growth they made. */
		if (post->table.capacity == pre->table.capacity) {
			EXPECT_EQ(pre->table.bytes + done * c->cost +
				  kept_growth(c, step, pre, post),
				  post->table.bytes);
		} else {
			EXPECT_LT(pre->table.bytes + done * c->cost,
				  post->table.bytes);
		}
		EXPECT_TRUE(snap_subset(pre, post));
	} else {
		for (i = 0; i < BATCH; i++)
			EXPECT_EQ(i < done ? -ENOENT : 0,
				  kslot_get(c->fd, c->t, c->hin[i], &out, RS));
		EXPECT_EQ(pre->n - done, post->n);
		EXPECT_EQ(pre->table.bytes - done * c->cost, post->table.bytes);
		EXPECT_TRUE(snap_subset(post, pre));
	}
	EXPECT_EQ(pre->file.tables, post->file.tables);
}

static void teardown(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rec r = { 1, 2 }, out;
	uint32_t t;
	uint64_t h;

	if (c->newfd >= 0)
		close(c->newfd);
	/* The file still works after whatever happened. */
	ASSERT_EQ(0, kslot_create(c->fd, KSLOT_KIND_MAP, RS, 4, &t));
	ASSERT_EQ(0, kslot_insert(c->fd, t, &r, RS, &h));
	ASSERT_EQ(0, kslot_get(c->fd, t, h, &out, RS));
	EXPECT_TRUE(rec_eq(&r, &out));
	close(c->fd);
}

static void sweep(struct __test_metadata *_metadata, uint32_t kind,
		  enum step step)
{
	static struct ctx c;
	static struct snap pre, post;
	long points = 0, enomem = 0, efault = 0, absorbed = 0;
	unsigned int n;
	int nth;

	nth = nth_open();
	if (nth < 0)
		SKIP(return, "no fail-nth (CONFIG_FAULT_INJECTION is off)");
	if (access(DBG "failslab", F_OK))
		SKIP(return, "no failslab in debugfs");
	/* Fault in and pin this process's memory before any fault is armed. */
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE));
	for (n = 1; ; n++) {
		bool injected;
		int ret;

		ASSERT_GT(MAX_NTH, n);
		setup(_metadata, &c, kind, step);
		snap_take(_metadata, &c, &pre);
		prepare(&c, step);
		nth_arm(nth, n);
		ret = act(&c, step);
		injected = nth_disarm(nth);
		snap_take(_metadata, &c, &post);
		if (!injected) {
			ASSERT_EQ(0, ret);
			check_success(_metadata, &c, step, &pre, &post);
			teardown(_metadata, &c);
			break;
		}
		points++;
		if (!ret) {
			absorbed++;
			check_success(_metadata, &c, step, &pre, &post);
		} else {
			if (ret != -ENOMEM && ret != -EFAULT)
				TH_LOG("fault %u: unexpected errno %d", n, -ret);
			ASSERT_TRUE(ret == -ENOMEM || ret == -EFAULT);
			enomem += ret == -ENOMEM;
			efault += ret == -EFAULT;
			check_failure(_metadata, &c, step, &pre, &post);
		}
		teardown(_metadata, &c);
		if (_metadata->exit_code != KSFT_PASS) {
			TH_LOG("%s: state check failed at fault %u (ret %d)",
			       step_names[step], n, ret);
			break;
		}
	}
	close(nth);
	munlockall();
	ksft_print_msg("%s %s: %ld fault points (%ld -ENOMEM, %ld -EFAULT, %ld absorbed)\n",
		       kind == KSLOT_KIND_DENSE ? "dense" : "map",
		       step_names[step], points, enomem, efault, absorbed);
	fflush(stdout);
	if (totals) {
		__atomic_add_fetch(&totals->points, points, __ATOMIC_RELAXED);
		__atomic_add_fetch(&totals->enomem, enomem, __ATOMIC_RELAXED);
		__atomic_add_fetch(&totals->efault, efault, __ATOMIC_RELAXED);
		__atomic_add_fetch(&totals->absorbed, absorbed,
				   __ATOMIC_RELAXED);
		__atomic_add_fetch(&totals->steps, 1, __ATOMIC_RELAXED);
	}
	/* Every step must have reached at least one fault point. */
	EXPECT_LT(0, points);
}

FIXTURE(nth) {
	int unused;
};

FIXTURE_VARIANT(nth) {
	uint32_t kind;
};

FIXTURE_VARIANT_ADD(nth, map) {
	.kind = KSLOT_KIND_MAP,
};

FIXTURE_VARIANT_ADD(nth, dense) {
	.kind = KSLOT_KIND_DENSE,
};

FIXTURE_SETUP(nth)
{
	int fd = kslot_open();

	if (fd == -ENOENT)
		SKIP(return, "/dev/kslot is absent");
	ASSERT_LE(0, fd);
	close(fd);
}

FIXTURE_TEARDOWN(nth)
{
}

/* One test per step of the sequence, in order. */
TEST_F_TIMEOUT(nth, create, 300)
{
	sweep(_metadata, variant->kind, S_CREATE);
}

TEST_F_TIMEOUT(nth, create_first, 300)
{
	sweep(_metadata, variant->kind, S_CREATE_FIRST);
}

TEST_F_TIMEOUT(nth, insert_first, 300)
{
	sweep(_metadata, variant->kind, S_INSERT_FIRST);
}

TEST_F_TIMEOUT(nth, insert, 300)
{
	sweep(_metadata, variant->kind, S_INSERT);
}

TEST_F_TIMEOUT(nth, insert_grow, 300)
{
	sweep(_metadata, variant->kind, S_INSERT_GROW);
}

TEST_F_TIMEOUT(nth, insert_batch, 300)
{
	sweep(_metadata, variant->kind, S_INSERT_BATCH);
}

TEST_F_TIMEOUT(nth, get, 300)
{
	sweep(_metadata, variant->kind, S_GET);
}

TEST_F_TIMEOUT(nth, get_batch, 300)
{
	sweep(_metadata, variant->kind, S_GET_BATCH);
}

TEST_F_TIMEOUT(nth, iterate, 300)
{
	sweep(_metadata, variant->kind, S_ITERATE);
}

TEST_F_TIMEOUT(nth, iterate_handles, 300)
{
	sweep(_metadata, variant->kind, S_ITERATE_HANDLES);
}

TEST_F_TIMEOUT(nth, update, 300)
{
	sweep(_metadata, variant->kind, S_UPDATE);
}

TEST_F_TIMEOUT(nth, stats, 300)
{
	sweep(_metadata, variant->kind, S_STATS);
}

TEST_F_TIMEOUT(nth, stats_file, 300)
{
	sweep(_metadata, variant->kind, S_STATS_FILE);
}

TEST_F_TIMEOUT(nth, dump, 300)
{
	sweep(_metadata, variant->kind, S_DUMP);
}

TEST_F_TIMEOUT(nth, erase, 300)
{
	sweep(_metadata, variant->kind, S_ERASE);
}

TEST_F_TIMEOUT(nth, erase_batch, 300)
{
	sweep(_metadata, variant->kind, S_ERASE_BATCH);
}

TEST_F_TIMEOUT(nth, destroy, 300)
{
	sweep(_metadata, variant->kind, S_DESTROY);
}

TEST_F_TIMEOUT(nth, export, 300)
{
	sweep(_metadata, variant->kind, S_EXPORT);
}

TEST_F_TIMEOUT(nth, import, 300)
{
	struct kslot_info info;
	int fd = kslot_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kslot_info(fd, &info));
	close(fd);
	if (!(info.import_kinds & (1U << variant->kind)))
		SKIP(return, "IMPORT does not take this kind");
	sweep(_metadata, variant->kind, S_IMPORT);
}

/* Steps that do not depend on a table kind. */
FIXTURE(nth_dev) {
	int unused;
};

FIXTURE_SETUP(nth_dev)
{
	int fd = kslot_open();

	if (fd == -ENOENT)
		SKIP(return, "/dev/kslot is absent");
	ASSERT_LE(0, fd);
	close(fd);
}

FIXTURE_TEARDOWN(nth_dev)
{
}

TEST_F_TIMEOUT(nth_dev, open, 300)
{
	sweep(_metadata, KSLOT_KIND_MAP, S_OPEN);
}

TEST_F_TIMEOUT(nth_dev, info, 300)
{
	sweep(_metadata, KSLOT_KIND_MAP, S_INFO);
}

TEST_HARNESS_MAIN
