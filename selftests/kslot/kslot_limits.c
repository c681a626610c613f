// SPDX-License-Identifier: GPL-2.0
/*
 * Limits of /dev/kslot: a file at its per-file limits (entries per table,
 * tables, bytes) gets the errno the ABI documents and keeps everything it
 * stored; a memory cgroup with a low memory.max makes inserts fail with
 * -ENOMEM, without the OOM killer touching anything in the cgroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libkslot.h"
#include "kslot_sysfs.h"

#define RS	24

struct rec {
	uint64_t a, b, c;
};

/* The whole program skips (KSFT_SKIP) when kslot_dev is not loaded. */
static void __attribute__((constructor)) kslot_require_device(void)
{
	if (access(KSLOT_DEVICE, F_OK)) {
		ksft_print_header();
		ksft_exit_skip("%s is absent\n", KSLOT_DEVICE);
	}
}

static struct rec rec_of(uint32_t i)
{
	return (struct rec){ i, ~(uint64_t)i, (uint64_t)i * 0x9e3779b97f4a7c15ULL };
}

#define PARAM(name)	"/sys/module/kslot_dev/parameters/" name

/* All @n entries hold their records. */
static void expect_intact(struct __test_metadata *_metadata, int fd,
			  uint32_t t, const uint64_t *h, uint32_t n,
			  uint32_t base)
{
	struct kslot_stats st;
	struct rec out;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct rec want = rec_of(base + i);

		ASSERT_EQ(0, kslot_get(fd, t, h[i], &out, RS));
		EXPECT_EQ(0, memcmp(&want, &out, RS));
	}
	ASSERT_EQ(0, kslot_stats(fd, t, &st));
	EXPECT_EQ(n, st.entries);
}

FIXTURE(limits) {
	int fd;
	struct kslot_info info;
	char max_bytes[32];
};

FIXTURE_VARIANT(limits) {
	uint32_t kind;
};

FIXTURE_VARIANT_ADD(limits, map) {
	.kind = KSLOT_KIND_MAP,
};

FIXTURE_VARIANT_ADD(limits, dense) {
	.kind = KSLOT_KIND_DENSE,
};

FIXTURE_SETUP(limits)
{
	self->fd = kslot_open();
	if (self->fd == -ENOENT)
		SKIP(return, "/dev/kslot is absent");
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, kslot_info(self->fd, &self->info));
	if (read_file(PARAM("max_bytes"), self->max_bytes,
		      sizeof(self->max_bytes)))
		self->max_bytes[0] = 0;
}

FIXTURE_TEARDOWN(limits)
{
	if (self->max_bytes[0])
		write_file(PARAM("max_bytes"), self->max_bytes);
	if (self->fd >= 0)
		close(self->fd);
}

/* A full table: -ENOSPC, for single inserts and mid-batch. */
TEST_F(limits, entries)
{
	struct rec r[20];
	uint64_t h[20];
	uint32_t t, done, i;

	ASSERT_EQ(0, kslot_create(self->fd, variant->kind, RS, 16, &t));
	for (i = 0; i < 20; i++)
		r[i] = rec_of(i);
	EXPECT_EQ(-ENOSPC, kslot_insert_batch(self->fd, t, r, RS, 20, h,
					      &done));
	ASSERT_EQ(16, done);
	EXPECT_EQ(-ENOSPC, kslot_insert(self->fd, t, &r[16], RS, &h[16]));
	EXPECT_EQ(-ENOSPC, kslot_insert_batch(self->fd, t, &r[16], RS, 1,
					      &h[16], &done));
	EXPECT_EQ(0, done);
	expect_intact(_metadata, self->fd, t, h, 16, 0);
	/* One slot freed: one insert fits, the next does not. */
	ASSERT_EQ(0, kslot_erase(self->fd, t, h[15]));
	ASSERT_EQ(0, kslot_insert(self->fd, t, &r[15], RS, &h[15]));
	EXPECT_EQ(-ENOSPC, kslot_insert(self->fd, t, &r[16], RS, &h[16]));
	expect_intact(_metadata, self->fd, t, h, 16, 0);
}

/* A file with max_tables tables: -ENOSPC, the tables keep their entries. */
TEST_F(limits, tables)
{
	uint32_t max = self->info.max_tables, i, t;
	uint32_t *ids = calloc(max, sizeof(*ids));
	uint64_t *hs = calloc(max, sizeof(*hs));
	struct kslot_stats st;

	ASSERT_NE(NULL, ids);
	ASSERT_NE(NULL, hs);
	for (i = 0; i < max; i++) {
		struct rec r = rec_of(i);

		ASSERT_EQ(0, kslot_create(self->fd, variant->kind, RS, 4,
					  &ids[i]));
		ASSERT_EQ(0, kslot_insert(self->fd, ids[i], &r, RS, &hs[i]));
	}
	EXPECT_EQ(-ENOSPC, kslot_create(self->fd, variant->kind, RS, 4, &t));
	EXPECT_EQ(-ENOSPC, kslot_create(self->fd, KSLOT_KIND_MAP, 1, 1, &t));
	for (i = 0; i < max; i++)
		expect_intact(_metadata, self->fd, ids[i], &hs[i], 1, i);
	ASSERT_EQ(0, kslot_stats(self->fd, 0, &st));
	EXPECT_EQ(max, st.tables);
	EXPECT_EQ(max, st.entries);
	/* One destroyed: one create fits, the next does not. */
	ASSERT_EQ(0, kslot_destroy(self->fd, ids[0]));
	ASSERT_EQ(0, kslot_create(self->fd, variant->kind, RS, 4, &ids[0]));
	EXPECT_EQ(-ENOSPC, kslot_create(self->fd, variant->kind, RS, 4, &t));
	for (i = 1; i < max; i++)
		expect_intact(_metadata, self->fd, ids[i], &hs[i], 1, i);
	free(ids);
	free(hs);
}

/* A file at max_bytes: -EDQUOT for inserts and creates; nothing lost. */
TEST_F(limits, bytes)
{
	static struct rec r[1024];
	static uint64_t h[1024];
	struct kslot_stats st;
	uint64_t limit;
	uint32_t t, t2, done, i;
	char val[32];
	int ret;

	if (!self->max_bytes[0])
		SKIP(return, "no max_bytes parameter");
	for (i = 0; i < 1024; i++)
		r[i] = rec_of(i);
	ASSERT_EQ(0, kslot_create(self->fd, variant->kind, RS, 4096, &t));
	ASSERT_EQ(0, kslot_stats(self->fd, 0, &st));
	/* Room for the first growths of either kind, then records. */
	limit = st.bytes + 32768;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)limit);
	if (write_file(PARAM("max_bytes"), val))
		SKIP(return, "cannot set max_bytes (not root?)");
	ret = kslot_insert_batch(self->fd, t, r, RS, 1024, h, &done);
	EXPECT_EQ(-EDQUOT, ret);
	ASSERT_LT(0, done);
	ASSERT_GT(1024, done);
	ASSERT_EQ(0, kslot_stats(self->fd, 0, &st));
	/*
	 * Full: the next entry would not fit (with its share of a growth,
	 * which is charged before the table grows).
	 */
	EXPECT_GE(limit, st.bytes);
	EXPECT_EQ(-EDQUOT, kslot_insert(self->fd, t, &r[done], RS, &h[done]));
	expect_intact(_metadata, self->fd, t, h, done, 0);
	/* A table costs bytes too. */
	while (!(ret = kslot_create(self->fd, variant->kind, RS, 4, &t2)))
		;
	EXPECT_EQ(-EDQUOT, ret);
	/* Erasing frees the bytes of one entry, exactly enough for one. */
	ASSERT_EQ(0, kslot_erase(self->fd, t, h[done - 1]));
	ASSERT_EQ(0, kslot_insert(self->fd, t, &r[done - 1], RS,
				  &h[done - 1]));
	EXPECT_EQ(-EDQUOT, kslot_insert(self->fd, t, &r[done], RS, &h[done]));
	expect_intact(_metadata, self->fd, t, h, done, 0);
	/* A larger limit lets inserts go on. */
	write_file(PARAM("max_bytes"), self->max_bytes);
	EXPECT_EQ(0, kslot_insert(self->fd, t, &r[done], RS, &h[done]));
	expect_intact(_metadata, self->fd, t, h, done + 1, 0);
}

/* Out-of-range arguments at the limits: -EINVAL, nothing created. */
TEST_F(limits, arguments)
{
	struct kslot_stats st;
	uint64_t h = 0;
	struct rec r = rec_of(1);
	uint32_t t, done;

	EXPECT_EQ(-EINVAL, kslot_create(self->fd, variant->kind,
					self->info.max_record_size + 1, 4, &t));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, variant->kind, RS,
					self->info.max_entries + 1, &t));
	ASSERT_EQ(0, kslot_create(self->fd, variant->kind,
				  self->info.max_record_size, 1, &t));
	EXPECT_EQ(-EINVAL, kslot_get_batch(self->fd, t, &h,
					   self->info.max_batch + 1, &r,
					   self->info.max_record_size, &done));
	ASSERT_EQ(0, kslot_stats(self->fd, 0, &st));
	EXPECT_EQ(1, st.tables);
	EXPECT_EQ(0, st.entries);
}

/*
 * max_record_size raised to its top: INFO gives the largest record size
 * every kind takes (a map record's pool holds a little under 32 KiB on
 * 4 KiB pages, in debug mode too), a table of it is made, one byte more
 * is refused.  Before the clamp, INFO said 65536 and a map table of it
 * failed -EINVAL.
 */
#define POOL_DEBUG	"/sys/module/kslot/parameters/pool_debug"

TEST_F(limits, record_cap)
{
	struct kslot_info info = { 0 };
	char old[32], dbg[32];
	uint32_t t;

	if (read_file(PARAM("max_record_size"), old, sizeof(old)))
		SKIP(return, "no max_record_size parameter");
	EXPECT_EQ(0, write_file(PARAM("max_record_size"), "65536"));
	/* Every check an EXPECT: the parameter is set back below. */
	EXPECT_EQ(0, kslot_info(self->fd, &info));
	ksft_print_msg("record_cap: max_record_size %u\n",
		       info.max_record_size);
	EXPECT_GE(65536, info.max_record_size);
	EXPECT_LT(16384, info.max_record_size);
	EXPECT_EQ(0, kslot_create(self->fd, variant->kind,
				  info.max_record_size, 1, &t));
	EXPECT_EQ(-EINVAL, kslot_create(self->fd, variant->kind,
					info.max_record_size + 1, 1, &t));
	/* The map records' pool in debug mode takes the largest too. */
	if (!read_file(POOL_DEBUG, dbg, sizeof(dbg)) &&
	    !write_file(POOL_DEBUG, "1")) {
		EXPECT_EQ(0, kslot_create(self->fd, variant->kind,
					  info.max_record_size, 1, &t));
		write_file(POOL_DEBUG, dbg);
	}
	write_file(PARAM("max_record_size"), old);
}

/* ---- memory cgroup ---- */

#define CG	"/sys/fs/cgroup"
#define CGDIR	CG "/kslot-limits"
#define CG_MAX	"8M"
#define NREC	100000
#define BIGRS	4096
#define DUMP_MAX	1024	/* INFO's max_batch */

struct cg_result {
	int stage;		/* how far the inserter got */
	int insert_ret;		/* the error that stopped the inserts */
	uint32_t inserted;
	uint32_t bad_records;
	uint64_t entries;
	int dump_ret;		/* a DUMP's buffer, in the full cgroup */
	int reinsert_ret;	/* after erasing half */
};

static long cg_event(const char *key)
{
	char buf[512], *line, *save;
	size_t n = strlen(key);

	if (read_file(CGDIR "/memory.events", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, n) && line[n] == ' ')
			return atol(line + n + 1);
	return -1;
}

static int cg_join(void)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(CGDIR "/cgroup.procs", pid);
}

/* Unrelated work in the cgroup: touches its memory, then waits. */
static void bystander(int ready)
{
	size_t size = 2 << 20;
	char *mem = malloc(size);

	if (cg_join() || !mem)
		_exit(1);
	memset(mem, 1, size);
	if (write(ready, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void inserter(uint32_t kind, struct cg_result *res)
{
	static uint64_t h[NREC];
	static uint8_t rec[BIGRS], out[BIGRS];
	static struct kslot_dump_slot slots[DUMP_MAX];
	struct kslot_dump d = { 0 };
	struct kslot_stats st;
	uint32_t t, i, n;
	int fd, ret = 0;
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	/* Nothing of this process may need a new page once in the cgroup. */
	memset(h, 0, sizeof(h));
	memset(rec, 0, sizeof(rec));
	memset(out, 0, sizeof(out));
	memset(slots, 0, sizeof(slots));
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		_exit(1);
	res->stage = 1;
	if (cg_join())
		_exit(2);
	res->stage = 2;
	fd = kslot_open();
	if (fd < 0)
		_exit(3);
	if (kslot_create(fd, kind, BIGRS, NREC, &t))
		_exit(4);
	res->stage = 3;
	for (n = 0; n < NREC; n++) {
		memcpy(rec, &n, sizeof(n));
		ret = kslot_insert(fd, t, rec, BIGRS, &h[n]);
		if (ret)
			break;
	}
	res->insert_ret = ret;
	res->inserted = n;
	res->stage = 4;
	/* Everything stored is intact. */
	for (i = 0; i < n; i++) {
		if (kslot_get(fd, t, h[i], out, BIGRS) ||
		    memcmp(out, &i, sizeof(i)))
			res->bad_records++;
	}
	if (!kslot_stats(fd, t, &st))
		res->entries = st.entries;
	/*
	 * A buffer that cannot come from the file's spare (tens of KiB,
	 * zeroed), in the full cgroup: a clean -ENOMEM, or room reclaimed;
	 * never the OOM killer.
	 */
	d.table_id = t;
	d.max = DUMP_MAX;
	d.slots_ptr = (uintptr_t)slots;
	res->dump_ret = kslot_dump(fd, &d);
	res->stage = 5;
	/* Freeing half makes room again (after an RCU grace period). */
	for (i = 0; i < n / 2; i++)
		kslot_erase(fd, t, h[i]);
	for (i = 0; i < 150; i++) {
		ret = kslot_insert(fd, t, rec, BIGRS, &h[0]);
		if (ret != -ENOMEM)
			break;
		nanosleep(&pause, NULL);
	}
	res->reinsert_ret = ret;
	res->stage = 6;
	close(fd);
	_exit(0);
}

static void memcg_run(struct __test_metadata *_metadata, uint32_t kind)
{
	struct cg_result *res;
	char buf[256];
	int ready[2], status;
	pid_t by, ins;
	long oom, oom_kill, max;

	if (geteuid())
		SKIP(return, "not root");
	if (read_file(CG "/cgroup.controllers", buf, sizeof(buf)) ||
	    !strstr(buf, "memory"))
		SKIP(return, "no cgroup2 memory controller at " CG);
	if (write_file(CG "/cgroup.subtree_control", "+memory"))
		SKIP(return, "cannot enable the memory controller");
	rmdir(CGDIR);
	ASSERT_EQ(0, mkdir(CGDIR, 0755));
	ASSERT_EQ(0, write_file(CGDIR "/memory.max", CG_MAX));
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	memset(res, 0, sizeof(*res));

	ASSERT_EQ(0, pipe(ready));
	by = fork();
	ASSERT_LE(0, by);
	if (!by)
		bystander(ready[1]);
	ASSERT_EQ(1, read(ready[0], buf, 1));
	ins = fork();
	ASSERT_LE(0, ins);
	if (!ins)
		inserter(kind, res);
	ASSERT_EQ(ins, waitpid(ins, &status, 0));

	oom = cg_event("oom");
	oom_kill = cg_event("oom_kill");
	max = cg_event("max");
	ksft_print_msg("%s table under memory.max=%s: %u records of %u bytes, then %d; DUMP %d;",
		       kslot_kind_name(kind), CG_MAX, res->inserted, BIGRS,
		       res->insert_ret, res->dump_ret);
	printf(" max events %ld, oom %ld, oom_kill %ld\n", max, oom, oom_kill);
	fflush(stdout);
	/* The inserter was not killed and saw a clean -ENOMEM. */
	EXPECT_TRUE(WIFEXITED(status));
	if (WIFSIGNALED(status))
		TH_LOG("the inserter died of signal %d at stage %d",
		       WTERMSIG(status), res->stage);
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT_EQ(6, res->stage);
	EXPECT_EQ(-ENOMEM, res->insert_ret);
	EXPECT_LT(0, res->inserted);
	EXPECT_GT(NREC, res->inserted);
	EXPECT_EQ(0, res->bad_records);
	EXPECT_EQ(res->inserted, res->entries);
	if (res->dump_ret != -ENOMEM)
		EXPECT_EQ(0, res->dump_ret);
	EXPECT_EQ(0, res->reinsert_ret);
	/* The unrelated process is alive; the OOM killer never ran. */
	EXPECT_EQ(0, waitpid(by, &status, WNOHANG));
	EXPECT_EQ(0, oom);
	EXPECT_EQ(0, oom_kill);
	EXPECT_LT(0, max);

	kill(by, SIGKILL);
	waitpid(by, &status, 0);
	close(ready[0]);
	close(ready[1]);
	munmap(res, sizeof(*res));
	/* The last charges go with the file's RCU frees. */
	for (int i = 0; i < 50 && rmdir(CGDIR); i++)
		usleep(100 * 1000);
}

TEST_F_TIMEOUT(limits, memcg, 120)
{
	memcg_run(_metadata, variant->kind);
}

TEST_HARNESS_MAIN
