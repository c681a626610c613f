// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged user can pin through /dev/kslot.  The patterns that
 * used to pin ten times the limits (fill a table until -EDQUOT, erase it,
 * go on to the next table; many files) run as uid 65534 in a memory cgroup
 * of their own.  The memory really pinned (the fall of MemAvailable, the
 * rise of the cgroup's memory.current) must stay within 1.25x
 * max_user_bytes plus a fixed slack, and come back once the files are
 * closed.  Then the limits' bypass attempts with their exact errnos, a
 * command stuck on a user page (userfaultfd, where the kernel has it) that
 * must not leave the file's other users in an unkillable sleep, and what
 * threads stuck so with the buffers of their commands, and open files,
 * are charged and pin.
 *
 * On a debug kernel (KASAN, kmemleak) every slab object carries metadata
 * that no allocator user can see or charge: it is read from
 * /sys/kernel/slab and allowed for per record, with the KASAN shadow of
 * vmalloc memory.  The ratios are printed raw and without it.  There the
 * bounds are asserted on memory.current; MemAvailable also counts the
 * debug kernel's own bookkeeping, and is only reported.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/membarrier.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libkslot.h"
#include "kslot_sysfs.h"

#define PARAM(name)	"/sys/module/kslot_dev/parameters/" name
#define CG		"/sys/fs/cgroup"
#define CGDIR		CG "/kslot_memlimit"
#define NOBODY		65534
#define MEMINFO		"/proc/meminfo"

#define MiB		(1024ULL * 1024)
#define FILE_LIMIT	(8 * MiB)
#define USER_LIMIT	(16 * MiB)
/* Page tables, the test's own pages, per-CPU caches, measuring noise. */
#define SLACK		(2LL * 1024 * 1024)
#define SPARE		4096	/* a file's spare, charged with its first table */
#define BATCH		256U
#define MAX_HANDLES	262144U

/* The whole program skips (KSFT_SKIP) when kslot_dev is not loaded. */
static void __attribute__((constructor)) kslot_require_device(void)
{
	if (access(KSLOT_DEVICE, F_OK)) {
		ksft_print_header();
		ksft_exit_skip("%s is absent\n", KSLOT_DEVICE);
	}
}

static long long read_num(const char *path)
{
	char buf[64];

	return read_file(path, buf, sizeof(buf)) ? -1 : atoll(buf);
}

static int write_num(const char *path, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	return write_file(path, buf);
}

/* A /proc/meminfo field, in bytes. */
static long long meminfo(const char *field)
{
	char line[256];
	long long kb = -1;
	size_t len = strlen(field);
	FILE *f = fopen(MEMINFO, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			kb = atoll(line + len + 1);
	fclose(f);
	return kb * 1024;
}

/*
 * Shrink every slab cache, which also empties the KASAN quarantine.  A
 * cache without a slab (total_objects 0) holds nothing to shrink, not
 * even an object in the quarantine: skipped, as a shrink costs a flush on
 * every CPU and, under KASAN, a scan of the quarantine.
 */
static void shrink_slabs(void)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	d = opendir("/sys/kernel/slab");
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/total_objects",
			 de->d_name);
		if (!read_num(path))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 de->d_name);
		write_file(path, "1");
	}
	closedir(d);
}

/*
 * A grace period: MEMBARRIER_CMD_GLOBAL is synchronize_rcu() on a kernel
 * with more than one CPU.  Where it is refused (nohz_full), 100 ms.
 */
static void grace_period(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(100 * 1000);
}

/*
 * Let freed memory really go: RCU callbacks (kfree_rcu() of records and
 * replaced slot tables) run, then every slab cache is shrunk, once, which
 * also empties the KASAN quarantine of what they freed.
 */
static void quiesce(void)
{
	long long last = -1, now;
	struct timespec t0, t;
	int stable = 0;

	/* Once: drop_caches stops naming itself in the kernel log. */
	write_file("/proc/sys/vm/drop_caches", "4");
	/*
	 * kvfree_rcu() batches its frees for up to 5 s (KFREE_DRAIN_JIFFIES)
	 * before it frees them, and the counts hold still meanwhile.  Its
	 * shrinker, which drop_caches runs, sends the batches on at once;
	 * they are freed a grace period later.  Rounds of both, until the
	 * memory counts hold still over three of them (30 s at most).
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		write_file("/proc/sys/vm/drop_caches", "2");
		grace_period();
		usleep(50 * 1000);
		now = read_num(CGDIR "/memory.current");
		if (now < 0)
			now = -meminfo("MemAvailable");
		stable = last >= 0 && llabs(now - last) < 64 * 1024 ?
			 stable + 1 : 0;
		last = now;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (stable < 3 && t.tv_sec - t0.tv_sec < 30);
	shrink_slabs();
	grace_period();
	usleep(50 * 1000);
}

static long long slab_attr(const char *cache, const char *attr)
{
	char path[512];

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, attr);
	return read_num(path);
}

/* The kmalloc cache (memcg-accounted) of an object of @size bytes. */
static void kmalloc_cache(size_t size, char *name, size_t len)
{
	static const unsigned int sizes[] = { 8, 16, 32, 64, 96, 128, 192, 256,
					      512, 1024, 2048, 4096, 8192 };
	unsigned int i, s = 8192;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (size <= sizes[i]) {
			s = sizes[i];
			break;
		}
	}
	if (s >= 1024)
		snprintf(name, len, "kmalloc-cg-%uk", s / 1024);
	else
		snprintf(name, len, "kmalloc-cg-%u", s);
}

/* What a map record of @rs bytes takes: its slab object. */
static size_t rec_alloc(size_t rs)
{
	char cache[64];

	kmalloc_cache(16 + rs, cache, sizeof(cache));
	return slab_attr(cache, "object_size");
}

/*
 * Debug metadata per record, which the kernel allocates beside the object
 * and no caller can charge: the slab's per-object overhead (KASAN
 * redzones and tracks) and a kmemleak object.  @memcg: only what the
 * memory cgroup sees (kmemleak's own objects are not accounted).
 */
static long long debug_per_record(size_t rec_alloc, int memcg)
{
	char cache[64];
	long long slab, obj, leak;

	kmalloc_cache(rec_alloc, cache, sizeof(cache));
	slab = slab_attr(cache, "slab_size");
	obj = slab_attr(cache, "object_size");
	if (slab < 0 || obj < 0)
		return 0;
	leak = memcg ? 0 : slab_attr("kmemleak_object", "slab_size");
	return slab - obj + (leak > 0 ? leak : 0);
}

/* A debug kernel: kmalloc objects carry metadata (KASAN). */
static int debug_kernel(void)
{
	return slab_attr("kmalloc-cg-64", "slab_size") >
	       slab_attr("kmalloc-cg-64", "object_size");
}

/*
 * A kernel that keeps bookkeeping of its own outside any memory cgroup
 * (kmemleak's objects, debug objects, lockdep; a KCSAN kernel has them
 * without KASAN's metadata): what the whole machine holds moves by MiB
 * with it, so only a memory cgroup's count is asserted there.
 */
static int debug_bookkeeping(void)
{
	return debug_kernel() || !access("/proc/lockdep", F_OK) ||
	       !access("/sys/kernel/debug/kmemleak", F_OK);
}

/* ---- the unprivileged worker ---- */

struct result;

struct pattern {
	const char *name;
	uint32_t kind;
	uint32_t record_size;
	uint32_t files;
	uint32_t tables;	/* per file */
	int many;		/* many files, each many small tables */
	uint64_t file_limit;	/* max_bytes and max_user_bytes, if not */
	uint64_t user_limit;	/* FILE_LIMIT and USER_LIMIT */
	/*
	 * An attack of the peak test: its own run instead, its set-up (as
	 * root, before the baseline) and what ends it before its files are
	 * closed (0, or the worker exits with 4).
	 */
	void (*attack)(const struct pattern *p, struct result *r);
	int (*prepare)(const struct pattern *p);
	int (*release)(const struct pattern *p);
	int odd;		/* record sizes vary by file */
	uint32_t image_kind;	/* IMPORT attacks: the image's */
	uint32_t max_entries;	/* the huge-page attacks' tables */
	int held;		/* the held attacks: enum held_kind */
	uint32_t count;		/* a held attack's control: what it mirrors */
};

struct result {
	int err;		/* an unexpected errno, or 0 */
	int line;
	uint64_t charged;	/* sum of the files' STATS bytes */
	uint64_t max_file;	/* the largest file's */
	uint64_t map_records;	/* live records of map tables */
	uint64_t table_alloc;	/* an empty table's charge: its struct */
	uint64_t first_bytes;	/* a many-pattern table's with one record */
	uint32_t edquot;	/* commands that failed with -EDQUOT */
	uint32_t tables;
	uint32_t files;
	uint64_t inserted;
};

static uint64_t handles[MAX_HANDLES];
static uint8_t *recbuf;
static int fds[512];

static void wfail(struct result *r, int err, int line)
{
	r->err = err;
	r->line = line;
}

#define WFAIL(r, e)	wfail(r, e, __LINE__)

/* Insert into @t until the first error; returns it, *n the entries. */
static int fill(int fd, uint32_t t, uint32_t rs, uint32_t *n)
{
	uint32_t done;
	int ret;

	*n = 0;
	do {
		done = 0;
		ret = kslot_insert_batch(fd, t, recbuf, rs, BATCH,
					 &handles[*n], &done);
		*n += done;
	} while (!ret && *n + BATCH <= MAX_HANDLES);
	return ret;
}

static int erase_all(int fd, uint32_t t, uint32_t n)
{
	uint32_t i, done, now;
	int ret;

	for (i = 0; i < n; i += now) {
		now = n - i > 1024 ? 1024 : n - i;
		ret = kslot_erase_batch(fd, t, &handles[i], now, &done);
		if (ret)
			return ret;
	}
	return 0;
}

/* Record sizes that leave odd remainders in slabs and packed arrays. */
static const uint32_t odd_sizes[] = { 4083, 1000, 2049, 33 };

static void run_pattern(const struct pattern *p, struct result *r)
{
	struct kslot_stats st;
	uint32_t f, i, t, n, rs, kind;
	int ret;

	for (f = 0; f < p->files; f++) {
		/* Odd sizes: dense and map files in turn. */
		rs = p->odd ? odd_sizes[f % ARRAY_SIZE(odd_sizes)] :
			      p->record_size;
		kind = !p->odd ? p->kind : f & 1 ? KSLOT_KIND_MAP :
						    KSLOT_KIND_DENSE;
		fds[f] = kslot_open();
		/* The file itself is charged: no room left for it. */
		if (fds[f] == -EDQUOT) {
			r->edquot++;
			break;
		}
		if (fds[f] < 0) {
			WFAIL(r, fds[f]);
			return;
		}
		r->files++;
		for (i = 0; i < p->tables; i++) {
			ret = kslot_create(fds[f], kind, rs,
					   p->many ? 16 :
					   kind == KSLOT_KIND_MAP ? 1U << 20 :
					   1U << 16, &t);
			if (ret == -EDQUOT) {
				r->edquot++;
				break;
			}
			if (ret) {
				WFAIL(r, ret);
				return;
			}
			r->tables++;
			if (!r->table_alloc &&
			    !kslot_stats(fds[f], t, &st))
				r->table_alloc = st.bytes;
			if (p->many) {
				/* One record: the table's first growth. */
				ret = kslot_insert(fds[f], t, recbuf,
						   rs, &handles[0]);
				n = !ret;
				if (n && !r->first_bytes &&
				    !kslot_stats(fds[f], t, &st))
					r->first_bytes = st.bytes;
			} else {
				ret = fill(fds[f], t, rs, &n);
			}
			r->inserted += n;
			if (ret == -EDQUOT)
				r->edquot++;
			else if (ret && !p->many)
				WFAIL(r, ret);
			if (ret && ret != -EDQUOT)
				return;
			/* Erase it all and go on, but for the last table. */
			if (!p->many && i + 1 < p->tables) {
				ret = erase_all(fds[f], t, n);
				if (ret) {
					WFAIL(r, ret);
					return;
				}
			}
		}
		ret = kslot_stats(fds[f], 0, &st);
		if (ret) {
			WFAIL(r, ret);
			return;
		}
		r->charged += st.bytes;
		if (st.bytes > r->max_file)
			r->max_file = st.bytes;
		if (kind == KSLOT_KIND_MAP)
			r->map_records += st.entries;
	}
}

struct worker {
	pid_t pid;
	int to_child, from_child;
};

static void wsend(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(3);
}

static void wrecv(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(3);
}

/*
 * Fork the worker: it joins @cgroup (if set) and prepares @p as root,
 * becomes uid and gid 65534, says it is ready and waits; "go" runs @p and
 * sends the result; then "close" releases what @p holds and closes its
 * files, and "exit" ends it.
 */
static int start_worker(struct worker *w, const struct pattern *p,
			const char *cgroup)
{
	int down[2], up[2];

	if (pipe(down) || pipe(up))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (!w->pid) {
		struct result r = { 0 };
		uint32_t f;
		int rel;

		close(down[1]);
		close(up[0]);
		if (cgroup) {
			char pid[16];

			snprintf(pid, sizeof(pid), "%d", getpid());
			if (write_file(cgroup, pid))
				_exit(2);
		}
		if (p->prepare && p->prepare(p))
			_exit(2);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		/* Its own memory, touched before the baseline. */
		recbuf = malloc((size_t)BATCH * 4096);
		if (!recbuf)
			_exit(2);
		memset(recbuf, 0x5a, (size_t)BATCH * 4096);
		memset(handles, 0, sizeof(handles));
		wsend(up[1], 'r');
		wrecv(down[0]);
		if (p->attack)
			p->attack(p, &r);
		else
			run_pattern(p, &r);
		if (write(up[1], &r, sizeof(r)) != sizeof(r))
			_exit(3);
		wrecv(down[0]);
		rel = p->release ? p->release(p) : 0;
		for (f = 0; f < r.files; f++)
			close(fds[f]);
		wsend(up[1], 'c');
		wrecv(down[0]);
		_exit(rel ? 4 : 0);
	}
	close(down[0]);
	close(up[1]);
	w->to_child = down[1];
	w->from_child = up[0];
	return 0;
}

static int stop_worker(struct worker *w)
{
	int status;

	close(w->to_child);
	close(w->from_child);
	if (waitpid(w->pid, &status, 0) != w->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Limits for the test, saved and restored; a cgroup for the worker. */
struct setup {
	long long max_bytes, max_user_bytes, max_record_size;
	int cgroup;
};

static void limits_set(struct __test_metadata *_metadata, struct setup *s)
{
	char buf[256];

	if (getuid())
		SKIP(return, "needs root (to set the limits and become 65534)");
	s->max_bytes = read_num(PARAM("max_bytes"));
	s->max_user_bytes = read_num(PARAM("max_user_bytes"));
	s->max_record_size = read_num(PARAM("max_record_size"));
	ASSERT_LT(0, s->max_bytes);
	ASSERT_LT(0, s->max_user_bytes);
	ASSERT_EQ(0, write_num(PARAM("max_bytes"), FILE_LIMIT));
	ASSERT_EQ(0, write_num(PARAM("max_user_bytes"), USER_LIMIT));
	/* A memory cgroup for the worker, where the kernel has one. */
	s->cgroup = 0;
	if (!read_file(CG "/cgroup.controllers", buf, sizeof(buf)) &&
	    strstr(buf, "memory") &&
	    !write_file(CG "/cgroup.subtree_control", "+memory") &&
	    (!mkdir(CGDIR, 0755) || errno == EEXIST))
		s->cgroup = 1;
}

static void limits_restore(struct setup *s)
{
	if (s->max_bytes > 0)
		write_num(PARAM("max_bytes"), s->max_bytes);
	if (s->max_user_bytes > 0)
		write_num(PARAM("max_user_bytes"), s->max_user_bytes);
	if (s->max_record_size > 0)
		write_num(PARAM("max_record_size"), s->max_record_size);
	if (s->cgroup)
		rmdir(CGDIR);
}

FIXTURE(mem) {
	struct setup s;
};

FIXTURE_SETUP(mem)
{
	limits_set(_metadata, &self->s);
}

FIXTURE_TEARDOWN(mem)
{
	limits_restore(&self->s);
}

FIXTURE(nobody) {
	struct setup s;
};

FIXTURE_SETUP(nobody)
{
	limits_set(_metadata, &self->s);
}

FIXTURE_TEARDOWN(nobody)
{
	if (setresuid(0, 0, 0) || setresgid(0, 0, 0))
		return;
	limits_restore(&self->s);
}

FIXTURE_VARIANT(mem) {
	struct pattern p;
};

/* The patterns, at an 8 MiB file and a 16 MiB user limit. */
FIXTURE_VARIANT_ADD(mem, dense_4083) {
	.p = { "dense 4083 B, fill/erase/next", KSLOT_KIND_DENSE, 4083, 3, 3 },
};

/* Small limits: a 64-byte record costs a kmalloc under TCG and KASAN. */
FIXTURE_VARIANT_ADD(mem, map_64) {
	.p = { "map 64 B, fill/erase/next", KSLOT_KIND_MAP, 64, 3, 3, 0,
	       1 * MiB, 2 * MiB },
};

FIXTURE_VARIANT_ADD(mem, map_4096) {
	.p = { "map 4096 B, fill/erase/next", KSLOT_KIND_MAP, 4096, 3, 3 },
};

FIXTURE_VARIANT_ADD(mem, many_files) {
	/* 8 MiB: the limit within the 200 files on every kernel. */
	.p = { "many files x 64 tables", KSLOT_KIND_MAP, 64, 200, 64, 1,
	       0, 8 * MiB },
};

/* Minutes under TCG and KASAN: the patterns insert about a million records. */
TEST_F_TIMEOUT(mem, pinned, 1200)
{
	const struct pattern *p = &variant->p;
	uint64_t user_limit = p->user_limit ? p->user_limit : USER_LIMIT;
	uint64_t file_limit = p->file_limit ? p->file_limit : FILE_LIMIT;
	long long avail0, avail1, avail2, cur0 = 0, cur1 = 0, cur2 = 0;
	long long vm0, vm1, pinned, pinned_cg, allow = 0, allow_cg = 0, limit;
	struct rlimit nofile = { 1024, 1024 };
	struct result r;
	struct worker w = { 0 };
	int debug = debug_kernel();

	ASSERT_EQ(0, write_num(PARAM("max_bytes"), file_limit));
	ASSERT_EQ(0, write_num(PARAM("max_user_bytes"), user_limit));

	/* The many-files pattern needs its 200 descriptors. */
	setrlimit(RLIMIT_NOFILE, &nofile);
	quiesce();
	ASSERT_EQ(0, start_worker(&w, p,
				  self->s.cgroup ? CGDIR "/cgroup.procs" : NULL));
	wrecv(w.from_child);
	quiesce();
	avail0 = meminfo("MemAvailable");
	vm0 = meminfo("VmallocUsed");
	if (self->s.cgroup)
		cur0 = read_num(CGDIR "/memory.current");

	wsend(w.to_child, 'g');
	ASSERT_EQ(sizeof(r), read(w.from_child, &r, sizeof(r)));
	quiesce();
	avail1 = meminfo("MemAvailable");
	vm1 = meminfo("VmallocUsed");
	if (self->s.cgroup)
		cur1 = read_num(CGDIR "/memory.current");

	wsend(w.to_child, 'c');
	wrecv(w.from_child);
	quiesce();
	avail2 = meminfo("MemAvailable");
	if (self->s.cgroup)
		cur2 = read_num(CGDIR "/memory.current");
	wsend(w.to_child, 'x');
	ASSERT_EQ(0, stop_worker(&w));

	EXPECT_EQ(0, r.err) {
		TH_LOG("worker: errno %d at line %d", r.err, r.line);
	}
	/* The limits hold by the kernel's own count, and were reached. */
	EXPECT_GE(user_limit, r.charged);
	EXPECT_GE(file_limit, r.max_file);
	EXPECT_LT(user_limit / 2, r.charged);
	EXPECT_LT(0, r.edquot);

	if (debug) {
		size_t rec = 16 + p->record_size;

		allow = r.map_records * debug_per_record(rec, 0);
		allow_cg = r.map_records * debug_per_record(rec, 1);
		/* The same for each table's struct and, many, its slots. */
		allow += r.tables * debug_per_record(r.table_alloc, 0);
		allow_cg += r.tables * debug_per_record(r.table_alloc, 1);
		if (p->many) {
			size_t slots = r.first_bytes - r.table_alloc -
				       rec_alloc(p->record_size);

			allow += r.tables * debug_per_record(slots, 0);
			allow_cg += r.tables * debug_per_record(slots, 1);
		}
		/* KASAN's shadow of vmalloc memory: an eighth. */
		if (vm1 > vm0)
			allow += (vm1 - vm0) / 8;
	}
	pinned = avail0 - avail1;
	pinned_cg = cur1 - cur0;
	ksft_print_msg("%s: %u files, %u tables, %llu inserted, %u -EDQUOT\n",
		       p->name, r.files, r.tables,
		       (unsigned long long)r.inserted, r.edquot);
	ksft_print_msg("%s: charged %llu of %llu\n", p->name,
		       (unsigned long long)r.charged,
		       (unsigned long long)user_limit);
	/* Ratios to the user limit, raw and without the debug metadata. */
	ksft_print_msg("%s: MemAvailable -%lld: %.2fx, %.2fx without %lld\n",
		       p->name, pinned, (double)pinned / user_limit,
		       (double)(pinned - allow) / user_limit, allow);
	ksft_print_msg("%s: MemAvailable %+lld after close\n", p->name,
		       avail2 - avail0);
	if (self->s.cgroup)
		ksft_print_msg("%s: memory.current +%lld: %.2fx, %.2fx w/o %lld; %+lld closed\n",
			       p->name, pinned_cg,
			       (double)pinned_cg / user_limit,
			       (double)(pinned_cg - allow_cg) / user_limit,
			       allow_cg, cur2 - cur0);
	/* Signed: memory may come back beyond the baseline. */
	limit = (long long)user_limit * 5 / 4 + SLACK;
	/*
	 * Where the worker runs in a memory cgroup of its own, its count,
	 * which holds what the kernel charges for the device's objects, is
	 * asserted; MemAvailable is only reported.  It moves with the whole
	 * machine's activity (page cache, other tasks, and on a debug kernel
	 * its own bookkeeping outside any cgroup: KASAN's stack depot, debug
	 * objects, kmemleak), by several MiB between two samples.
	 */
	if (!self->s.cgroup) {
		EXPECT_GE(limit, pinned - allow);
		/* Everything comes back. */
		EXPECT_GE(SLACK, avail0 - avail2);
	}
	if (self->s.cgroup) {
		EXPECT_GE(limit, pinned_cg - allow_cg);
		EXPECT_GE(SLACK, cur2 - cur0);
	}
}

/* ---- the limits' bypass attempts, as uid 65534 ---- */

/*
 * Real and effective ids 65534 (no capability in effect), saved id 0, so
 * that the teardown can become root again and restore the limits.
 */
static void become_nobody(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(NOBODY, NOBODY, 0));
	ASSERT_EQ(0, setresuid(NOBODY, NOBODY, 0));
}

static uint64_t file_bytes(struct __test_metadata *_metadata, int fd)
{
	struct kslot_stats st;

	EXPECT_EQ(0, kslot_stats(fd, 0, &st));
	return st.bytes;
}

static uint64_t table_stat(struct __test_metadata *_metadata, int fd,
			   uint32_t t, uint64_t *entries)
{
	struct kslot_stats st;

	EXPECT_EQ(0, kslot_stats(fd, t, &st));
	if (entries)
		*entries = st.entries;
	return st.bytes;
}

/*
 * INFO reports both limits; the exemption is the opener's, at open: a
 * file opened by root stays exempt in the hands of 65534, and one opened
 * by 65534 is limited.
 */
TEST_F_TIMEOUT(nobody, info, 600)
{
	struct kslot_info info;
	int root_fd = kslot_open(), fd;

	ASSERT_LE(0, root_fd);
	ASSERT_EQ(0, kslot_info(root_fd, &info));
	EXPECT_EQ(FILE_LIMIT, info.max_bytes);
	EXPECT_EQ(~0ULL, info.max_user_bytes);
	become_nobody(_metadata);
	fd = kslot_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kslot_info(fd, &info));
	EXPECT_EQ(FILE_LIMIT, info.max_bytes);
	EXPECT_EQ(USER_LIMIT, info.max_user_bytes);
	ASSERT_EQ(0, kslot_info(root_fd, &info));
	EXPECT_EQ(~0ULL, info.max_user_bytes);
	close(fd);
	close(root_fd);
}

/*
 * 4096-byte records are charged as the slabs of their table's record pool,
 * whole (32 KiB, seven records; on a kernel whose pools pass every object
 * to kmalloc(), KASAN's, a record's kmalloc-8k object): the charge grows
 * by a slab exactly when a record needs a new one, and not otherwise.  A
 * record erased from a slab of its own gives the slab back.
 */
#define HUGE_RECORDS	16U

TEST_F_TIMEOUT(nobody, huge_records, 600)
{
	uint64_t before, after, entries, prev, now, slab = 0, d;
	uint32_t t, n, i, grew = 0, per;
	uint64_t h;
	int fd, ret;

	recbuf = calloc(BATCH, 4096);
	ASSERT_NE(NULL, recbuf);
	become_nobody(_metadata);
	fd = kslot_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kslot_create(fd, KSLOT_KIND_MAP, 4096, 1U << 20, &t));
	ASSERT_EQ(0, kslot_insert(fd, t, recbuf, 4096, &h));
	prev = table_stat(_metadata, fd, t, NULL);
	for (i = 1; i < HUGE_RECORDS; i++) {
		ASSERT_EQ(0, kslot_insert(fd, t, recbuf, 4096, &h));
		now = table_stat(_metadata, fd, t, NULL);
		d = now - prev;
		if (d) {
			if (!slab)
				slab = d;
			EXPECT_EQ(slab, d);
			grew++;
		}
		prev = now;
	}
	ASSERT_LE(8192, slab);
	/* Records per slab (a slab ends with a small header). */
	per = (slab - 64) / (16 + 4096);
	ASSERT_LE(1, per);
	EXPECT_EQ((HUGE_RECORDS + per - 1) / per - 1, grew);
	/* The next record that needs a slab of its own, erased. */
	before = table_stat(_metadata, fd, t, NULL);
	for (i = HUGE_RECORDS; i % per; i++)
		ASSERT_EQ(0, kslot_insert(fd, t, recbuf, 4096, &h));
	EXPECT_EQ(before, table_stat(_metadata, fd, t, NULL));
	ASSERT_EQ(0, kslot_insert(fd, t, recbuf, 4096, &h));
	after = table_stat(_metadata, fd, t, NULL);
	EXPECT_EQ(before + slab, after);
	ASSERT_EQ(0, kslot_erase(fd, t, h));
	/* Charged as pending until its grace period; then the slab goes. */
	for (i = 0; i < 100 && table_stat(_metadata, fd, t, NULL) != before;
	     i++) {
		grace_period();
		usleep(10 * 1000);
	}
	EXPECT_EQ(before, table_stat(_metadata, fd, t, NULL));
	/* At the file limit: -EDQUOT, and the failed insert changed nothing. */
	ret = fill(fd, t, 4096, &n);
	EXPECT_EQ(-EDQUOT, ret);
	before = table_stat(_metadata, fd, t, &entries);
	EXPECT_GE(FILE_LIMIT, file_bytes(_metadata, fd));
	EXPECT_LT(FILE_LIMIT - slab - 16384, file_bytes(_metadata, fd));
	EXPECT_EQ(-EDQUOT, kslot_insert(fd, t, recbuf, 4096, &h));
	EXPECT_EQ(before, table_stat(_metadata, fd, t, &after));
	EXPECT_EQ(entries, after);
	close(fd);
}

/*
 * Fill a table to the file limit, erase it all, fill another table of the
 * same file: the capacity the first keeps stays charged, so the second
 * gets only the rest.  Other files get the rest of the user's limit, not
 * a limit of their own.  DESTROY gives it all back.
 */
TEST_F_TIMEOUT(nobody, refill_elsewhere, 600)
{
	uint64_t a_bytes, b_bytes, c_bytes, kept, t2_bytes, own;
	uint32_t t1, t2, t3, t4, t5, n1, n2, n;
	int a, b, c, d;

	recbuf = calloc(BATCH, 4096);
	ASSERT_NE(NULL, recbuf);
	become_nobody(_metadata);
	a = kslot_open();
	b = kslot_open();
	c = kslot_open();
	d = kslot_open();
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	ASSERT_LE(0, d);
	/* A file is charged for itself from open. */
	own = file_bytes(_metadata, a);
	EXPECT_LT(0, own);
	ASSERT_EQ(0, kslot_create(a, KSLOT_KIND_DENSE, 4083, 1U << 16, &t1));
	EXPECT_EQ(-EDQUOT, fill(a, t1, 4083, &n1));
	ASSERT_EQ(0, erase_all(a, t1, n1));
	kept = table_stat(_metadata, a, t1, NULL);
	/* The emptied table keeps its arrays charged: at least n1 records. */
	EXPECT_LT((uint64_t)n1 * 4083, kept);
	ASSERT_EQ(0, kslot_create(a, KSLOT_KIND_DENSE, 4083, 1U << 16, &t2));
	EXPECT_EQ(-EDQUOT, fill(a, t2, 4083, &n2));
	EXPECT_GT(n1, n2);
	a_bytes = file_bytes(_metadata, a);
	EXPECT_GE(FILE_LIMIT, a_bytes);
	/* File b to its own limit, file c to the user's. */
	ASSERT_EQ(0, kslot_create(b, KSLOT_KIND_MAP, 4096, 1U << 20, &t3));
	EXPECT_EQ(-EDQUOT, fill(b, t3, 4096, &n));
	b_bytes = file_bytes(_metadata, b);
	EXPECT_GE(FILE_LIMIT, b_bytes);
	ASSERT_EQ(0, kslot_create(c, KSLOT_KIND_MAP, 4096, 1U << 20, &t4));
	EXPECT_EQ(-EDQUOT, fill(c, t4, 4096, &n));
	c_bytes = file_bytes(_metadata, c);
	EXPECT_GE(USER_LIMIT, a_bytes + b_bytes + c_bytes);
	/* c stopped short of its own limit: the user's stopped it. */
	EXPECT_GT(FILE_LIMIT / 2, c_bytes);
	EXPECT_LT(USER_LIMIT - 128 * 1024, a_bytes + b_bytes + c_bytes);
	/* A fourth file cannot store the record c could not. */
	EXPECT_EQ(-EDQUOT, kslot_create(d, KSLOT_KIND_MAP, 4096, 8, &t5) ? :
		  kslot_insert(d, t5, recbuf, 4096, handles));
	/* DESTROY gives a table's charge back, to the file and the user. */
	t2_bytes = table_stat(_metadata, a, t2, NULL);
	ASSERT_EQ(0, kslot_destroy(a, t2));
	EXPECT_EQ(a_bytes - t2_bytes, file_bytes(_metadata, a));
	ASSERT_EQ(0, kslot_destroy(a, t1));
	EXPECT_EQ(own, file_bytes(_metadata, a));
	EXPECT_EQ(0, kslot_insert(c, t4, recbuf, 4096, handles));
	close(a);
	close(b);
	close(c);
	close(d);
}

/*
 * A subordinate uid spends its namespace owner's budget: a child of
 * 65534 unshares its user namespace, root in the parent maps uid 0 in it
 * to kuid 100000 (as newuidmap does with an /etc/subuid range), and the
 * child, now kuid 100000, cannot store what 65534 has no room for.
 * Called as 65534 (saved uid 0) with 65534's budget used up.
 */
static void subuid_spends_owners(struct __test_metadata *_metadata)
{
	int ready[2], mapped[2], status, ok;
	char path[64], ch;
	uint32_t t;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(mapped));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd, ret;

		if (unshare(CLONE_NEWUSER))
			_exit(2);
		if (write(ready[1], "r", 1) != 1 ||
		    read(mapped[0], &ch, 1) != 1 || ch != 'm')
			_exit(2);
		if (setresuid(0, 0, 0))
			_exit(4);
		fd = kslot_open();
		ret = fd < 0 ? fd : kslot_create(fd, KSLOT_KIND_MAP, 4096, 8,
						 &t);
		if (!ret)
			ret = kslot_insert(fd, t, recbuf, 4096, handles);
		ksft_print_msg("subuid: uid %d in the namespace: %d\n",
			       getuid(), ret);
		_exit(ret == -EDQUOT ? 0 : 1);
	}
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	/* Root in the parent namespace, for the map only. */
	ASSERT_EQ(0, setresuid(-1, 0, -1));
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	ok = !write_file(path, "0 100000 1");
	ASSERT_EQ(0, setresuid(-1, NOBODY, -1));
	ASSERT_EQ(1, write(mapped[1], ok ? "m" : "n", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(ready[0]);
	close(ready[1]);
	close(mapped[0]);
	close(mapped[1]);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		SKIP(return, "no user namespace, or no uid map, here");
	/* 0: -EDQUOT as kuid 100000; 1: it got a budget of its own. */
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A new user namespace gives no new budget: a child of uid 65534 that
 * unshares its user namespace (and is root in it) still counts as 65534,
 * so it cannot open a file, or the file it opens cannot store, what the
 * parent's files left no room for.
 */
TEST_F_TIMEOUT(nobody, user_namespace, 600)
{
	uint32_t t1, t2, t3, t4, n;
	int a, b, c, status;
	pid_t pid;

	recbuf = calloc(BATCH, 4096);
	ASSERT_NE(NULL, recbuf);
	become_nobody(_metadata);
	a = kslot_open();
	b = kslot_open();
	c = kslot_open();
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	/* Two files to their limit: the user's is reached. */
	ASSERT_EQ(0, kslot_create(a, KSLOT_KIND_MAP, 4096, 1U << 20, &t1));
	EXPECT_EQ(-EDQUOT, fill(a, t1, 4096, &n));
	ASSERT_EQ(0, kslot_create(b, KSLOT_KIND_MAP, 4096, 1U << 20, &t2));
	EXPECT_EQ(-EDQUOT, fill(b, t2, 4096, &n));
	EXPECT_LT(USER_LIMIT - 128 * 1024,
		  file_bytes(_metadata, a) + file_bytes(_metadata, b));
	/* The crumbs: small records until less than a 4096-byte one fits. */
	ASSERT_EQ(0, kslot_create(c, KSLOT_KIND_MAP, 64, 1U << 20, &t3));
	EXPECT_EQ(-EDQUOT, fill(c, t3, 64, &n));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd, ret;

		if (unshare(CLONE_NEWUSER))
			_exit(2);
		/* The open itself is charged: it may be what fails. */
		fd = kslot_open();
		ret = fd < 0 ? fd : kslot_create(fd, KSLOT_KIND_MAP, 4096, 8,
						 &t4);
		if (!ret)
			ret = kslot_insert(fd, t4, recbuf, 4096, handles);
		_exit(ret == -EDQUOT ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		SKIP(return, "no unprivileged user namespaces here");
	/* 0: -EDQUOT in the new namespace; 1: it got a budget of its own. */
	EXPECT_EQ(0, WEXITSTATUS(status));
	subuid_spends_owners(_metadata);
	close(a);
	close(b);
	close(c);
}

/* ---- a command stuck on a user page ---- */

/* The image of a dense table whose live slots start high. */
#define HIGH_RS		4096U
#define HIGH_MAX	32768U
#define HIGH_FIRST	16384U
#define HIGH_LIVE	256U

/*
 * An image of a @kind table of @max slots: @live records of @rs bytes in
 * slots @first on, then, with @free_last, slot @max - 1 free at
 * generation 2 (a table of @max slots, and nothing in it).
 */
static void *make_image(uint32_t kind, uint32_t rs, uint32_t max,
			uint32_t first, uint32_t live, int free_last,
			size_t *size)
{
	struct kslot_image hdr = {
		.magic = KSLOT_IMAGE_MAGIC, .version = KSLOT_IMAGE_VERSION,
		.kind = kind, .record_size = rs, .max_entries = max,
		.nr_slots = live + !!free_last, .live = live,
		/* A key that mixes (see the uapi header). */
		.seal = { 0x9e3779b97f4a7c15ULL, 0xff51afd7ed558ccdULL,
			  0xc4ceb9fe1a85ec53ULL },
	};
	struct kslot_image_slot is = { .gen = 2, .state = KSLOT_SLOT_FREE };
	uint8_t *img, *p;
	uint32_t i;

	*size = sizeof(hdr) + hdr.nr_slots * sizeof(is) + (size_t)live * rs;
	img = calloc(1, *size);
	if (!img)
		return NULL;
	memcpy(img, &hdr, sizeof(hdr));
	p = img + sizeof(hdr);
	for (i = 0; i < live; i++) {
		struct kslot_image_slot ls = {
			.index = first + i, .gen = 1,
			.state = KSLOT_SLOT_LIVE,
		};

		memcpy(p, &ls, sizeof(ls));
		p += sizeof(ls);
		memset(p, i, rs);
		p += rs;
	}
	if (free_last) {
		is.index = max - 1;
		memcpy(p, &is, sizeof(is));
	}
	return img;
}

static void *high_image(size_t *size)
{
	return make_image(KSLOT_KIND_DENSE, HIGH_RS, HIGH_MAX, HIGH_FIRST,
			  HIGH_LIVE, 0, size);
}

/* The file holds no table and is charged @self, for itself alone. */
static void expect_empty(struct __test_metadata *_metadata, int fd,
			 uint64_t self)
{
	struct kslot_stats st;

	ASSERT_EQ(0, kslot_stats(fd, 0, &st));
	EXPECT_EQ(0, st.tables);
	EXPECT_EQ(0, st.entries);
	EXPECT_EQ(self, st.bytes);
}

struct importer {
	pthread_barrier_t *go;
	const void *img;
	size_t size;
	int fd;
	uint32_t t;
	int ret;
};

static void *import_thread(void *arg)
{
	struct importer *im = arg;

	pthread_barrier_wait(im->go);
	im->ret = kslot_import(im->fd, im->img, im->size, &im->t);
	return NULL;
}

/*
 * IMPORT charges what it allocates before it allocates it, the packed
 * array of a dense table included, as an insert does.  A dense image of
 * 4096-byte records in slots 16384 .. 16639 of 32768: with max_bytes one
 * byte below what it takes, -EDQUOT and nothing changed.  Two files of
 * one user importing it at once under a user limit of 1.5 times that
 * cannot both succeed, and never hold more than the limit.
 */
TEST_F_TIMEOUT(nobody, import_charged_first, 600)
{
	pthread_barrier_t go;
	struct importer im[2];
	struct kslot_stats st;
	uint64_t need, user_limit, sum = 0, own;
	size_t size;
	uint32_t t;
	void *img;
	int fd, i, ok = 0;

	img = high_image(&size);
	ASSERT_NE(NULL, img);
	/* What it takes, imported with room to spare. */
	fd = kslot_open();
	ASSERT_LE(0, fd);
	own = file_bytes(_metadata, fd);
	ASSERT_EQ(0, kslot_import(fd, img, size, &t));
	ASSERT_EQ(0, kslot_stats(fd, t, &st));
	EXPECT_EQ(HIGH_LIVE, st.entries);
	/* Grown a chunk of 256 slots at a time, to the last slot. */
	EXPECT_EQ(HIGH_FIRST + HIGH_LIVE, st.capacity);
	/* The file's bytes: its own, the table's, its first table's spare. */
	need = own + st.bytes + SPARE;
	EXPECT_EQ(need, file_bytes(_metadata, fd));
	/* More than the slots and the table: the packed array is charged. */
	EXPECT_LT((uint64_t)HIGH_LIVE * HIGH_RS, need);
	ASSERT_EQ(0, kslot_destroy(fd, t));
	expect_empty(_metadata, fd, own);
	/* One byte short of it: -EDQUOT, and the file as it was. */
	ASSERT_EQ(0, write_num(PARAM("max_bytes"), need - 1));
	EXPECT_EQ(-EDQUOT, kslot_import(fd, img, size, &t));
	expect_empty(_metadata, fd, own);
	ASSERT_EQ(0, write_num(PARAM("max_bytes"), FILE_LIMIT));
	close(fd);

	/* Two files of 65534 at once, under room for one and a half. */
	user_limit = need + need / 2;
	ASSERT_EQ(0, write_num(PARAM("max_user_bytes"), user_limit));
	become_nobody(_metadata);
	ASSERT_EQ(0, pthread_barrier_init(&go, NULL, 2));
	for (i = 0; i < 2; i++) {
		im[i] = (struct importer){ .go = &go, .img = img,
					   .size = size };
		im[i].fd = kslot_open();
		ASSERT_LE(0, im[i].fd);
	}
	{
		pthread_t th[2];

		for (i = 0; i < 2; i++)
			ASSERT_EQ(0, pthread_create(&th[i], NULL,
						    import_thread, &im[i]));
		for (i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
	}
	for (i = 0; i < 2; i++) {
		uint64_t bytes = file_bytes(_metadata, im[i].fd);

		if (!im[i].ret) {
			ok++;
			EXPECT_EQ(need, bytes);
		} else {
			EXPECT_EQ(-EDQUOT, im[i].ret);
			expect_empty(_metadata, im[i].fd, own);
		}
		sum += bytes;
	}
	EXPECT_GE(1, ok);
	EXPECT_GE(user_limit, sum);
	/* In turn: the first fits, the second does not and changes nothing. */
	for (i = 0; i < 2; i++)
		if (!im[i].ret)
			ASSERT_EQ(0, kslot_destroy(im[i].fd, im[i].t));
	ASSERT_EQ(0, kslot_import(im[0].fd, img, size, &t));
	EXPECT_EQ(need, file_bytes(_metadata, im[0].fd));
	EXPECT_EQ(-EDQUOT, kslot_import(im[1].fd, img, size, &t));
	expect_empty(_metadata, im[1].fd, own);
	for (i = 0; i < 2; i++)
		close(im[i].fd);
	pthread_barrier_destroy(&go);
	free(img);
}

/* ---- the peak, sampled while each attack runs ---- */

/*
 * Small limits, so that each attack is short: the peak test runs them
 * all, one after the other, each in a worker of its own (uid 65534, in
 * the memory cgroup where there is one), sampling memory.current and
 * MemAvailable every millisecond or so while it runs.
 */
#define PEAK_LIMIT	(4 * MiB)
#define PEAK_MS		600	/* the loops of the churn attacks */
#define PEAK_THREADS	16
#define DEV_STATS	"/sys/kernel/debug/kslot/dev-stats"

static void *peak_img;
static size_t peak_img_size;

/*
 * The IMPORT attacks' image, made before the baseline: records in slots
 * 8192 on of a 16384-slot table (256 KiB of slots): map, 192 of 4096
 * bytes (each an 8 KiB object); dense, 256 of 4000 (a packed array just
 * under 1 MiB).  Or (many) an empty map table of 65534 slots, just under
 * 1 MiB of slot array, from a 96-byte image: one free slot at its end.
 */
static int peak_prepare_import(const struct pattern *p)
{
	if (p->many)
		peak_img = make_image(KSLOT_KIND_MAP, 64, 65534, 0, 0, 1,
				      &peak_img_size);
	else if (p->kind == KSLOT_KIND_MAP)
		peak_img = make_image(p->kind, 4096, 16384, 8192, 192, 0,
				      &peak_img_size);
	else
		peak_img = make_image(p->kind, 4000, 16384, 8192, 256, 0,
				      &peak_img_size);
	return !peak_img;
}

struct peak_thread {
	const struct pattern *p;
	int fd;
	uint32_t edquot;
	uint64_t done;
	int err, line;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void pt_fail(struct peak_thread *pt, int err, int line)
{
	pt->err = err;
	pt->line = line;
}

#define PT_FAIL(pt, e)	pt_fail(pt, e, __LINE__)

/*
 * IMPORT, then DESTROY what it made: p->tables times, or (0) for
 * PEAK_MS.  -EDQUOT is expected (the others' tables, or memory waiting
 * for its grace period, take the room); nothing else.
 */
static void *peak_import_loop(void *arg)
{
	struct peak_thread *pt = arg;
	long long end = now_ms() + PEAK_MS;
	uint32_t i, t;
	int ret;

	for (i = 0; pt->p->tables ? i < pt->p->tables : now_ms() < end;
	     i++) {
		ret = kslot_import(pt->fd, peak_img, peak_img_size, &t);
		if (ret == -EDQUOT) {
			pt->edquot++;
			continue;
		}
		if (ret) {
			PT_FAIL(pt, ret);
			break;
		}
		pt->done++;
		ret = kslot_destroy(pt->fd, t);
		if (ret) {
			PT_FAIL(pt, ret);
			break;
		}
	}
	return NULL;
}

/* INSERT a batch of 64 records of 4096 bytes, ERASE them, for PEAK_MS. */
static void *peak_churn_loop(void *arg)
{
	struct peak_thread *pt = arg;
	long long end = now_ms() + PEAK_MS;
	uint64_t h[64];
	uint32_t t, n, done;
	int ret;

	ret = kslot_create(pt->fd, KSLOT_KIND_MAP, 4096, 1U << 16, &t);
	if (ret) {
		PT_FAIL(pt, ret);
		return NULL;
	}
	while (now_ms() < end) {
		n = 0;
		ret = kslot_insert_batch(pt->fd, t, recbuf, 4096, 64, h, &n);
		if (ret == -EDQUOT)
			pt->edquot++;
		else if (ret)
			PT_FAIL(pt, ret);
		pt->done += n;
		if (n && kslot_erase_batch(pt->fd, t, h, n, &done))
			PT_FAIL(pt, -EIO);
		if (pt->err)
			break;
	}
	return NULL;
}

/* p->files threads (0: one per CPU), a file each, running @fn. */
static void peak_threads(const struct pattern *p, struct result *r,
			 void *(*fn)(void *))
{
	struct peak_thread pt[PEAK_THREADS] = { 0 };
	pthread_t th[PEAK_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t i, n = p->files ? p->files : cpus > 0 ? cpus : 1;

	if (n > PEAK_THREADS)
		n = PEAK_THREADS;
	for (i = 0; i < n; i++) {
		pt[i].p = p;
		fds[i] = kslot_open();
		pt[i].fd = fds[i];
		if (pt[i].fd < 0) {
			WFAIL(r, pt[i].fd);
			return;
		}
		r->files++;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, &pt[i])) {
			WFAIL(r, -EAGAIN);
			n = i;
		}
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		r->edquot += pt[i].edquot;
		r->inserted += pt[i].done;
		if (pt[i].err && !r->err)
			wfail(r, pt[i].err, pt[i].line);
	}
}

static void peak_import(const struct pattern *p, struct result *r)
{
	peak_threads(p, r, peak_import_loop);
}

static void peak_churn(const struct pattern *p, struct result *r)
{
	peak_threads(p, r, peak_churn_loop);
}

/*
 * Slab fragmentation across size classes: a map table per record size,
 * each size a kmalloc size class of its own (the record and its 16-byte
 * header), filled until -EDQUOT, then erased but for one record in each
 * run of a slab's worth of objects (objs_per_slab of that kmalloc-cg
 * cache, in allocation order): if the records were slab objects charged
 * one by one, every slab page would stay with one object charged, and
 * the next size class would fill the budget again.
 */
static const uint32_t frag_sizes[] = { 4080, 2032, 1008, 496, 240, 176,
				       112, 80, 48, 16 };

/*
 * Objects per slab of the kmalloc cache of each frag_sizes[] record, read
 * by root before the worker starts (the slab attributes are root's).
 */
static uint32_t frag_every[ARRAY_SIZE(frag_sizes)];

static void frag_read_every(void)
{
	char cache[64];
	long long n;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(frag_sizes); i++) {
		kmalloc_cache(16 + frag_sizes[i], cache, sizeof(cache));
		n = slab_attr(cache, "objs_per_slab");
		frag_every[i] = n > 1 ? n : 2;
	}
}

static void peak_frag(const struct pattern *p, struct result *r)
{
	uint32_t i, j, t, n, k, every, done;
	int fd, ret;

	fd = kslot_open();
	fds[0] = fd;
	if (fd < 0) {
		WFAIL(r, fd);
		return;
	}
	r->files = 1;
	for (i = 0; i < ARRAY_SIZE(frag_sizes); i++) {
		ret = kslot_create(fd, KSLOT_KIND_MAP, frag_sizes[i], 1U << 20,
				   &t);
		if (ret == -EDQUOT) {
			r->edquot++;
			continue;
		}
		if (ret) {
			WFAIL(r, ret);
			return;
		}
		r->tables++;
		ret = fill(fd, t, frag_sizes[i], &n);
		r->inserted += n;
		if (ret == -EDQUOT) {
			r->edquot++;
		} else if (ret) {
			WFAIL(r, ret);
			return;
		}
		/* Keep handles[0], handles[every], ...: erase the rest. */
		every = frag_every[i];
		for (j = 0, k = 0; j < n; j++)
			if (j % every)
				handles[k++] = handles[j];
		for (j = 0; j < k; j += done) {
			done = 0;
			ret = kslot_erase_batch(fd, t, &handles[j],
						k - j > 1024 ? 1024 : k - j,
						&done);
			if (ret) {
				WFAIL(r, ret);
				return;
			}
		}
	}
}

/*
 * Dense tables whose packed array ends just above a huge page boundary:
 * 4088-byte records, max_entries 512 (an array of 2 MiB + 24 bytes) or
 * 1024 (4 MiB + 24 bytes), filled one after the other, each kept.
 */
static void peak_huge(const struct pattern *p, struct result *r)
{
	uint32_t i, t, n;
	int fd, ret;

	fd = kslot_open();
	fds[0] = fd;
	if (fd < 0) {
		WFAIL(r, fd);
		return;
	}
	r->files = 1;
	for (i = 0; i < p->tables; i++) {
		ret = kslot_create(fd, KSLOT_KIND_DENSE, p->record_size,
				   p->max_entries, &t);
		if (ret == -EDQUOT) {
			r->edquot++;
			break;
		}
		if (ret) {
			WFAIL(r, ret);
			return;
		}
		r->tables++;
		ret = fill(fd, t, p->record_size, &n);
		r->inserted += n;
		if (ret == -EDQUOT) {
			r->edquot++;
			break;
		}
		/* Full: -ENOSPC at max_entries. */
		if (ret != -ENOSPC) {
			WFAIL(r, ret);
			return;
		}
	}
}

static const struct pattern peak_patterns[] = {
	{ "slab fragmentation, 10 size classes", KSLOT_KIND_MAP, 0, 1,
	  ARRAY_SIZE(frag_sizes), .user_limit = 8 * MiB,
	  .attack = peak_frag },
	{ "dense 4088 B x 512 (2 MiB + 24)", KSLOT_KIND_DENSE, 4088, 1, 64,
	  .user_limit = 32 * MiB, .max_entries = 512, .attack = peak_huge },
	{ "dense 4088 B x 1024 (4 MiB + 24)", KSLOT_KIND_DENSE, 4088, 1, 64,
	  .user_limit = 32 * MiB, .max_entries = 1024, .attack = peak_huge },
	/* Map 4096 B is mem.pinned's, and the churn's below. */
	{ "dense 4083 B, fill/erase/next", KSLOT_KIND_DENSE, 4083, 1, 2 },
	{ "odd sizes, 4 files, fill/erase/next", 0, 0, 4, 2, .odd = 1 },
	{ "dense IMPORT, 1 file", KSLOT_KIND_DENSE, 4000, 1, 2,
	  .attack = peak_import, .prepare = peak_prepare_import },
	{ "dense IMPORT, 4 files", KSLOT_KIND_DENSE, 4000, 4, 1,
	  .attack = peak_import, .prepare = peak_prepare_import },
	{ "map IMPORT, 1 file", KSLOT_KIND_MAP, 4096, 1, 2,
	  .attack = peak_import, .prepare = peak_prepare_import },
	{ "map IMPORT, 4 files", KSLOT_KIND_MAP, 4096, 4, 1,
	  .attack = peak_import, .prepare = peak_prepare_import },
	{ "IMPORT+DESTROY, every CPU", KSLOT_KIND_MAP, 64, 0, 0, 1,
	  .attack = peak_import, .prepare = peak_prepare_import },
	{ "insert/erase churn, every CPU", KSLOT_KIND_MAP, 4096, 0, 0,
	  .attack = peak_churn },
};

/* Bytes kslot has freed but waiting for a grace period (debugfs), or -1. */
static long long dev_pending(void)
{
	char buf[256], *p;

	if (read_file(DEV_STATS, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "pending: ");
	return p ? atoll(p + 9) : -1;
}

/*
 * Until kslot frees nothing more and the memory counts hold still for
 * two samples 50 ms apart: at most 1 s.
 */
static void peak_settle(int cgroup)
{
	long long last = -1, now;
	int i, stable = 0;

	for (i = 0; i < 20 && stable < 2; i++) {
		usleep(50 * 1000);
		now = cgroup ? read_num(CGDIR "/memory.current") :
			       -meminfo("MemAvailable");
		stable = dev_pending() <= 0 && last >= 0 &&
			 llabs(now - last) < 64 * 1024 ? stable + 1 : 0;
		last = now;
	}
}

/* The limit of a peak pattern: its own, or PEAK_LIMIT. */
static uint64_t peak_limit(const struct pattern *p)
{
	return p->user_limit ? p->user_limit : PEAK_LIMIT;
}

/*
 * The /proc/meminfo fields the peak test samples, in bytes, and the free
 * pages held in the per-CPU lists (/proc/zoneinfo's pagesets), which the
 * free count, and so MemAvailable, leaves out: a burst of frees (a packed
 * array's pages) parks them there, free, for a while.  The lists move in
 * batches between the two files' reads (megabytes at a time on arm64
 * under emulation), so they are read before and after /proc/meminfo:
 * @pcp_lo and @pcp_hi are the smaller and the larger count.
 */
struct mem_sample {
	long long avail, slab, sunreclaim, vmalloc, pcp_lo, pcp_hi;
};

static long long pcp_bytes(void)
{
	char line[256], *p;
	long long n = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (!strncmp(p, "count:", 6))
			n += atoll(p + 6);
	}
	fclose(f);
	return n * sysconf(_SC_PAGESIZE);
}

static void mem_sample(struct mem_sample *m)
{
	static const char *const names[] = { "MemAvailable", "Slab",
					     "SUnreclaim", "VmallocUsed" };
	long long *v[] = { &m->avail, &m->slab, &m->sunreclaim, &m->vmalloc };
	long long after;
	char line[256];
	size_t i, len;
	FILE *f = fopen(MEMINFO, "r");

	for (i = 0; i < ARRAY_SIZE(v); i++)
		*v[i] = -1;
	m->pcp_lo = pcp_bytes();
	m->pcp_hi = m->pcp_lo;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < ARRAY_SIZE(names); i++) {
			len = strlen(names[i]);
			if (!strncmp(line, names[i], len) && line[len] == ':')
				*v[i] = atoll(line + len + 1) * 1024;
		}
	}
	fclose(f);
	after = pcp_bytes();
	if (after < m->pcp_lo)
		m->pcp_lo = after;
	else
		m->pcp_hi = after;
}

static void peak_max(long long *peak, long long v)
{
	if (v > *peak)
		*peak = v;
}

/*
 * The KASAN and kmemleak metadata of the objects in the memcg-accounted
 * kmalloc caches, as the memory cgroup sees it (each object is charged
 * at its slab_size): what a debug kernel adds to what the kernel's own
 * callers can charge.  0 where the objects carry none.
 */
static long long kmalloc_cg_meta(void)
{
	long long n, slab, obj, sum = 0;
	struct dirent *de;
	DIR *d;

	d = opendir("/sys/kernel/slab");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "kmalloc-cg-", 11))
			continue;
		n = slab_attr(de->d_name, "objects");
		slab = slab_attr(de->d_name, "slab_size");
		obj = slab_attr(de->d_name, "object_size");
		if (n > 0 && slab > obj && obj > 0)
			sum += n * (slab - obj);
	}
	closedir(d);
	return sum;
}

/* What one run of a peak attack held at most, and its result. */
struct peak {
	struct result r;
	long long held;		/* what run_peak() asserts: used or kern */
	long long used;		/* MemAvailable's fall, less per-CPU pages */
	long long kern;		/* SUnreclaim + VmallocUsed's rise */
	long long cg;		/* memory.current's rise */
	long long meta_cg;	/* debug: kmalloc_cg_meta()'s rise, at the end */
};

/*
 * Run attack @p in a worker of uid 65534 (in the memory cgroup where
 * there is one) and sample, every millisecond or so while it runs, the
 * fall of MemAvailable and the rise of Slab, SUnreclaim and VmallocUsed
 * (/proc/meminfo), and of the cgroup's memory.current, into @pk.  What
 * the kernel really holds is measured, not only what the cgroup sees:
 * the larger of MemAvailable's fall (less the rise of the free pages in
 * the per-CPU lists) and SUnreclaim + VmallocUsed's rise (memory.current
 * does not see slab pages that hold one charged object, nor the rounding
 * of a huge vmalloc mapping charged as its size).
 */
static void peak_measure(struct __test_metadata *_metadata, int cgroup,
			 const struct pattern *p, struct peak *pk)
{
	uint64_t plimit = peak_limit(p);
	long long cur0 = 0, cur, peak_cg = 0, peak_avail = 0, peak_slab = 0;
	long long peak_unrecl = 0, peak_vm = 0, peak_kern = 0, allow = 0;
	long long peak_used = 0, meta0 = 0;
	struct mem_sample m0, m;
	struct worker w = { 0 };
	struct pollfd pfd;
	struct result *r = &pk->r;
	long samples = 0;
	int debug = debug_kernel();
	long long t0;

	memset(pk, 0, sizeof(*pk));
	ASSERT_EQ(0, write_num(PARAM("max_bytes"), plimit));
	ASSERT_EQ(0, write_num(PARAM("max_user_bytes"), plimit));
	if (p->attack == peak_frag)
		frag_read_every();
	ASSERT_EQ(0, start_worker(&w, p, cgroup ? CGDIR "/cgroup.procs" :
						  NULL));
	wrecv(w.from_child);
	/* The held attacks' debug metadata: none left in the quarantine. */
	if (debug && p->held)
		shrink_slabs();
	peak_settle(cgroup);
	if (debug)
		meta0 = kmalloc_cg_meta();
	mem_sample(&m0);
	if (cgroup)
		cur0 = read_num(CGDIR "/memory.current");
	t0 = now_ms();
	wsend(w.to_child, 'g');
	pfd = (struct pollfd){ .fd = w.from_child, .events = POLLIN };
	do {
		if (cgroup) {
			cur = read_num(CGDIR "/memory.current");
			peak_max(&peak_cg, cur - cur0);
		}
		mem_sample(&m);
		peak_max(&peak_avail, m0.avail - m.avail);
		/* What the lists may have taken: the most they can have. */
		peak_max(&peak_used, m0.avail - m.avail -
			 (m.pcp_hi - m0.pcp_lo));
		peak_max(&peak_slab, m.slab - m0.slab);
		peak_max(&peak_unrecl, m.sunreclaim - m0.sunreclaim);
		peak_max(&peak_vm, m.vmalloc - m0.vmalloc);
		peak_max(&peak_kern, m.sunreclaim - m0.sunreclaim +
			 m.vmalloc - m0.vmalloc);
		samples++;
	} while (poll(&pfd, 1, 1) == 0);
	t0 = now_ms() - t0;
	ASSERT_EQ(sizeof(*r), read(w.from_child, r, sizeof(*r)));
	/* A held attack still holds it all: its objects' metadata. */
	if (debug)
		pk->meta_cg = kmalloc_cg_meta() - meta0;
	if (pk->meta_cg < 0)
		pk->meta_cg = 0;
	wsend(w.to_child, 'c');
	wrecv(w.from_child);
	wsend(w.to_child, 'x');
	ASSERT_EQ(0, stop_worker(&w));
	free(peak_img);
	peak_img = NULL;

	EXPECT_EQ(0, r->err) {
		TH_LOG("%s: worker: errno %d at line %d", p->name, r->err,
		       r->line);
	}
	/*
	 * Map records live in their table's pool slabs, which carry no
	 * per-object debug metadata; KASAN shadows vmalloc memory, an
	 * eighth of it.
	 */
	if (debug)
		allow = peak_vm / 8;
	ksft_print_msg("%s: %u files, %u tables, %llu done, %u -EDQUOT\n",
		       p->name, r->files, r->tables,
		       (unsigned long long)r->inserted, r->edquot);
	ksft_print_msg("%s: %ld samples in %lld ms, limit %llu\n",
		       p->name, samples, t0, (unsigned long long)plimit);
	ksft_print_msg("%s: peak MemAvailable -%lld: %.2fx\n", p->name,
		       peak_avail, (double)peak_avail / plimit);
	ksft_print_msg("%s: less per-CPU free pages -%lld: %.2fx, %.2fx w/o %lld\n",
		       p->name, peak_used, (double)peak_used / plimit,
		       (double)(peak_used - allow) / plimit, allow);
	ksft_print_msg("%s: peak Slab +%lld, SUnreclaim +%lld, VmallocUsed +%lld\n",
		       p->name, peak_slab, peak_unrecl, peak_vm);
	ksft_print_msg("%s: peak SUnreclaim+VmallocUsed +%lld: %.2fx\n",
		       p->name, peak_kern, (double)peak_kern / plimit);
	if (cgroup)
		ksft_print_msg("%s: peak memory.current +%lld: %.2fx, %.2fx without %lld\n",
			       p->name, peak_cg, (double)peak_cg / plimit,
			       (double)(peak_cg - pk->meta_cg) / plimit,
			       pk->meta_cg);
	pk->used = peak_used;
	pk->kern = peak_kern;
	pk->held = peak_used > peak_kern ? peak_used : peak_kern;
	pk->cg = peak_cg;
}

/*
 * Run attack @p (peak_measure()) and assert what the kernel held, and
 * memory.current, each within 1.25 times the limit plus the slack.  On a
 * debug kernel (KASAN, or kmemleak and lockdep as on the KCSAN kernel:
 * see debug_bookkeeping()) the former is only reported, memory.current
 * asserted: MemAvailable moves with its own bookkeeping outside any
 * cgroup (on the KCSAN kernel, once 8 MiB over a 4 MiB limit while
 * memory.current stayed at 1.00x, and 0.95x in three runs after), and
 * Slab holds the objects KASAN's quarantine keeps after they are freed
 * (each bounce buffer of a dense insert, say: tens of MiB in one attack).
 */
static void run_peak(struct __test_metadata *_metadata, int cgroup,
		     const struct pattern *p)
{
	long long limit = peak_limit(p) * 5 / 4 + SLACK;
	struct peak pk;

	peak_measure(_metadata, cgroup, p, &pk);
	if (!debug_bookkeeping()) {
		EXPECT_GE(limit, pk.held) {
			TH_LOG("%s: the kernel held %lld, over %lld", p->name,
			       pk.held, limit);
		}
	}
	if (cgroup) {
		EXPECT_GE(limit, pk.cg) {
			TH_LOG("%s: peak memory.current over the limit",
			       p->name);
		}
	}
}

/*
 * The peak memory each attack pins, sampled while it runs, is at most
 * 1.25 times max_user_bytes plus a fixed slack: memory waiting for an RCU
 * grace period counts, as it is charged until it is freed.
 */
TEST_F_TIMEOUT(nobody, peak, 1200)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(peak_patterns); i++)
		run_peak(_metadata, self->s.cgroup, &peak_patterns[i]);
}

/*
 * A private anonymous page whose first touch waits on a userfaultfd
 * (*@uffd) until uffd_release().  NULL with *@uffd < 0 if the kernel has
 * no userfaultfd (the caller skips), NULL with *@uffd >= 0 if setting it
 * up failed otherwise (the caller fails).
 */
static void *uffd_page(int *uffd, long page)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	void *p;

	/* Non-blocking: poll() answers EPOLLERR on a blocking userfaultfd. */
	*uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (*uffd < 0 || ioctl(*uffd, UFFDIO_API, &api))
		return NULL;
	p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	reg.range.start = (unsigned long)p;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(*uffd, UFFDIO_REGISTER, &reg)) {
		munmap(p, page);
		return NULL;
	}
	return p;
}

/*
 * Wait (up to 10 s: a test has 30) until a task faults on uffd_page()'s
 * page: from then on it sleeps in that fault, inside whatever call
 * touched the page, until uffd_release().  Return: 0 once the fault is
 * reported, else -1.
 */
static int uffd_wait_fault(int uffd)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;
	int i;

	/* A fault can be woken before it is read: poll again (EAGAIN). */
	for (i = 0; i < 100; i++) {
		if (poll(&pfd, 1, 100) < 0 || (pfd.revents & ~POLLIN))
			return -1;
		if (!(pfd.revents & POLLIN))
			continue;
		if (read(uffd, &msg, sizeof(msg)) == sizeof(msg))
			return msg.event == UFFD_EVENT_PAGEFAULT ? 0 : -1;
		if (errno != EAGAIN)
			return -1;
	}
	return -1;
}

/* Let whatever waits on uffd_page() @p go on: it maps the zero page. */
static int uffd_release(int uffd, void *p, long page)
{
	struct uffdio_zeropage zp = { 0 };

	zp.range.start = (unsigned long)p;
	zp.range.len = page;
	return ioctl(uffd, UFFDIO_ZEROPAGE, &zp);
}

struct stuck {
	int fd;
	uint32_t t;
	void *page;
	int ret;
};

static void *stuck_insert(void *arg)
{
	struct stuck *s = arg;
	uint64_t h;

	s->ret = kslot_insert(s->fd, s->t, s->page, 64, &h);
	return NULL;
}

/* The state letter of a task in /proc/PID/stat. */
static char task_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)))
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/* Is task @pid in the ioctl() system call (/proc/PID/syscall)? */
static bool task_in_ioctl(pid_t pid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	return !read_file(path, buf, sizeof(buf)) &&
	       strtol(buf, NULL, 10) == __NR_ioctl;
}

/*
 * Wait (up to 10 s) until task @pid sleeps in an ioctl() in state @want (D
 * for a killable wait: an uninterruptible one that fatal signals end; S
 * for a userfaultfd fault), or is gone.  Return: the state last seen.
 */
static char task_wait_ioctl_sleep(pid_t pid, char want)
{
	char st = '?';
	int i;

	for (i = 0; i < 1000; i++) {
		st = task_state(pid);
		if ((st == want && task_in_ioctl(pid)) || st == 'Z' || st == '?')
			break;
		usleep(10 * 1000);
	}
	return st;
}

/*
 * A thread's INSERT waits on a userfaultfd page, holding the file for
 * reading; another process of the file waits to CREATE (for writing).  A
 * fatal signal must end that wait at once.
 */
TEST(killable_wait)
{
	struct stuck s = { 0 };
	pthread_t thread;
	int uffd, status, i;
	pid_t pid;
	long page = sysconf(_SC_PAGESIZE);

	s.page = uffd_page(&uffd, page);
	if (!s.page && uffd < 0)
		SKIP(return, "no userfaultfd (%s)", strerror(errno));
	ASSERT_NE(NULL, s.page);
	s.fd = kslot_open();
	ASSERT_LE(0, s.fd);
	ASSERT_EQ(0, kslot_create(s.fd, KSLOT_KIND_MAP, 64, 16, &s.t));
	ASSERT_EQ(0, pthread_create(&thread, NULL, stuck_insert, &s));
	/* The insert holds the file from here on. */
	ASSERT_EQ(0, uffd_wait_fault(uffd));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint32_t t;

		_exit(kslot_create(s.fd, KSLOT_KIND_MAP, 64, 16, &t) ? 1 : 0);
	}
	ksft_print_msg("creator waits in state %c\n", task_wait_ioctl_sleep(pid, 'D'));
	/* Waiting for the file: not done, and not finished by itself. */
	EXPECT_EQ(0, waitpid(pid, &status, WNOHANG));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	for (i = 0; i < 50 && !waitpid(pid, &status, WNOHANG); i++)
		usleep(100 * 1000);
	EXPECT_GT(50, i);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	/* Let the stuck insert go: it completes. */
	ASSERT_EQ(0, uffd_release(uffd, s.page, page));
	pthread_join(thread, NULL);
	EXPECT_EQ(0, s.ret);
	close(s.fd);
	close(uffd);
}

struct stuck_get {
	int fd;
	uint32_t t;
	uint64_t h;
	unsigned char *page;
	int ret;
};

static void *stuck_get(void *arg)
{
	struct stuck_get *s = arg;

	s->ret = kslot_get(s->fd, s->t, s->h, s->page, 256);
	return NULL;
}

/*
 * The file's spare buffer has one owner at a time.  A GET of record X
 * takes the spare and waits in its copy out to a userfaultfd page; a GET
 * of record Y meanwhile must get a buffer of its own.  Were the spare
 * handed out twice, Y's bytes would land in the buffer X's copy resumes
 * from.  X must arrive whole, Y too, and close must find every buffer
 * given back (kslot_fops_release() WARNs otherwise).
 */
TEST(spare_one_owner)
{
	unsigned char x[256], y[256], out[256];
	struct stuck_get s = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	pthread_t thread;
	uint64_t hy;
	int uffd, i, bad;

	s.page = uffd_page(&uffd, page);
	if (!s.page && uffd < 0)
		SKIP(return, "no userfaultfd (%s)", strerror(errno));
	ASSERT_NE(NULL, s.page);
	s.fd = kslot_open();
	ASSERT_LE(0, s.fd);
	ASSERT_EQ(0, kslot_create(s.fd, KSLOT_KIND_MAP, 256, 16, &s.t));
	memset(x, 0xaa, sizeof(x));
	memset(y, 0xbb, sizeof(y));
	ASSERT_EQ(0, kslot_insert(s.fd, s.t, x, 256, &s.h));
	ASSERT_EQ(0, kslot_insert(s.fd, s.t, y, 256, &hy));
	/* A GET takes the spare (the first table's) and gives it back. */
	ASSERT_EQ(0, kslot_get(s.fd, s.t, hy, out, 256));
	ASSERT_EQ(0, memcmp(out, y, 256));

	ASSERT_EQ(0, pthread_create(&thread, NULL, stuck_get, &s));
	/* X's GET holds the spare from here on, in its copy out. */
	ASSERT_EQ(0, uffd_wait_fault(uffd));
	memset(out, 0, sizeof(out));
	EXPECT_EQ(0, kslot_get(s.fd, s.t, hy, out, 256));
	EXPECT_EQ(0, memcmp(out, y, 256));

	ASSERT_EQ(0, uffd_release(uffd, s.page, page));
	pthread_join(thread, NULL);
	EXPECT_EQ(0, s.ret);
	for (i = 0, bad = 0; i < 256; i++)
		bad += s.page[i] != 0xaa;
	ksft_print_msg("spare: %d of X's 256 bytes not X's after the wait\n",
		       bad);
	EXPECT_EQ(0, bad);
	close(s.fd);
	close(uffd);
	munmap(s.page, page);
}

#define FC_RS	1024

/* Insert record @i into @t; the table's bytes and capacity after it. */
static uint64_t fc_insert(struct __test_metadata *_metadata, int fd,
			  uint32_t t, uint32_t i, uint64_t *capacity)
{
	uint8_t rec[FC_RS] = { 0 };
	struct kslot_stats st;
	uint64_t h;

	memcpy(rec, &i, sizeof(i));
	EXPECT_EQ(0, kslot_insert(fd, t, rec, FC_RS, &h));
	EXPECT_EQ(0, kslot_stats(fd, t, &st));
	if (capacity)
		*capacity = st.capacity;
	return st.bytes;
}

/*
 * An insert that grew the records' pool, then failed its copy (a fatal
 * signal while the record's page waits on userfaultfd), settles the
 * table.  The inserts that meanwhile took the rest of its new slab grew
 * nothing, and settle nothing: without that settle the slab would stay
 * uncharged (the debugfs listing's bytes below measured, by the slab).
 */
TEST(charge_after_failed_copy)
{
	uint64_t before, after, cap0, cap, per = 0, jump = 0, bytes, measured;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t t, i, first = 0, n = 0;
	uint64_t entries;
	int fd, uffd, status;
	pid_t pid;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		SKIP(return, "no userfaultfd (%s)", strerror(errno));
	close(uffd);
	if (access(DEV_TABLES, R_OK))
		SKIP(return, "no %s", DEV_TABLES);
	fd = kslot_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kslot_create(fd, KSLOT_KIND_MAP, FC_RS, 4096, &t));
	/*
	 * Fill until the pool has grown twice, the slots not: the inserts
	 * between are a slab's records, and the pool is full once the
	 * second slab's are in.
	 */
	before = fc_insert(_metadata, fd, t, n++, &cap0);
	while (!per) {
		ASSERT_GT(1024, n);
		after = fc_insert(_metadata, fd, t, n++, &cap);
		if (after > before && cap == cap0) {
			if (jump)
				per = n - first;
			jump = after - before;
			first = n;
		}
		before = after;
		cap0 = cap;
	}
	for (i = 1; i < per; i++)
		fc_insert(_metadata, fd, t, n++, &cap);
	table_stat(_metadata, fd, t, &entries);
	/* Room in the slots for the race: no growth of theirs settles. */
	ASSERT_LT(entries + per, cap);
	ASSERT_EQ(0, table_charge(t, &bytes, &measured));
	EXPECT_EQ(measured, bytes);
	ksft_print_msg("a slab: %llu records, %llu bytes; %u inserted\n",
		       (unsigned long long)per, (unsigned long long)jump, n);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t h;
		void *rec;

		rec = uffd_page(&uffd, page);
		if (!rec)
			_exit(2);
		/* Grows the pool, then waits in its copy until killed. */
		kslot_insert(fd, t, rec, FC_RS, &h);
		_exit(1);
	}
	/* Until the insert waits on its page. */
	task_wait_ioctl_sleep(pid, 'S');
	usleep(300 * 1000);
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
	ASSERT_EQ('S', task_state(pid));
	/* The rest of the new slab, while the first of its records waits. */
	for (i = 1; i < per; i++)
		fc_insert(_metadata, fd, t, n++, NULL);
	/* The waiting insert grew the pool: a slab not settled yet. */
	ASSERT_EQ(0, table_charge(t, &bytes, &measured));
	EXPECT_EQ(jump, measured - bytes);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	table_stat(_metadata, fd, t, &after);
	EXPECT_EQ(entries + per - 1, after);
	ASSERT_EQ(0, table_charge(t, &bytes, &measured));
	ksft_print_msg("charged %llu, takes %llu\n", (unsigned long long)bytes,
		       (unsigned long long)measured);
	EXPECT_EQ(measured, bytes);
	close(fd);
}

/*
 * A destroyed table is charged as pending until a grace period has
 * passed, a dense table as a map table: xa_erase() hands the nodes of its
 * id in the file's index to call_rcu(), and a loop of CREATE and DESTROY
 * would otherwise pin them uncharged.  The grace period may end before
 * the debugfs read right after DESTROY: seen in at least one of 20
 * tries.  Without the deferral, a dense table's DESTROY left nothing
 * pending, ever.
 */
TEST(destroy_pending)
{
	int fd, i, j, seen = 0;
	uint32_t t;

	if (dev_pending() < 0)
		SKIP(return, "no %s", DEV_STATS);
	fd = kslot_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 20 && !seen; i++) {
		for (j = 0; j < 100 && dev_pending(); j++) {
			grace_period();
			usleep(10 * 1000);
		}
		ASSERT_EQ(0, dev_pending());
		ASSERT_EQ(0, kslot_create(fd, KSLOT_KIND_DENSE, 8, 16, &t));
		ASSERT_EQ(0, kslot_destroy(fd, t));
		seen = dev_pending() > 0;
	}
	ksft_print_msg("destroy_pending: pending seen after %d DESTROY\n",
		       i);
	EXPECT_TRUE(seen);
	close(fd);
}

/* ---- what a user pins with buffers held in user copies, and files ---- */

/*
 * Commands copy records and slots through kernel buffers, which they hold
 * while the user copy waits on a page, as long as the user likes (a
 * userfaultfd, a page of a FUSE file).  The threads here wait so, each on
 * a page of its own (HELD_STRIDE apart) of one userfaultfd region, until
 * it is released.  A userfaultfd that holds the kernel's own copies needs
 * CAP_SYS_PTRACE where vm.unprivileged_userfaultfd is 0: root makes the
 * region, and the file descriptor keeps what it was made with after the
 * process becomes 65534, who opens the files and holds the buffers.
 */
enum held_kind {
	HELD_INSERT = 1,	/* a dense INSERT's bounce buffer */
	HELD_DUMP,		/* a DUMP's slots, a file each */
	HELD_READ,		/* the control: a read() of /dev/zero */
	HELD_OPEN,		/* open files of /dev/kslot, no table */
	HELD_NULL,		/* the control: open files of /dev/null */
};

#define HELD_MAX	512U	/* threads of an attack, at most */
#define HELD_STRIDE	(64 * 1024)
#define HELD_RS		32000U	/* its bounce buffer: 32 KiB */
#define HELD_BOUNCE	32768ULL
#define HELD_SLOTS	315U	/* 315 slots of 52 bytes: 16380 */
#define HELD_DUMP_BYTES	16384ULL
#define HELD_FILES	32768U	/* files of an open attack, at most */
/* How far a command's buffers may take a user past its limit. */
#define TMP_SLACK	16384ULL

struct held {
	int kind;
	int fd;
	uint32_t t;
	char *page;
	int ret;
	int done;
};

static struct held held[HELD_MAX];
static pthread_t held_th[HELD_MAX];
static uint32_t held_n;
static int held_uffd = -1;
static char *held_pages;
static int held_fds[HELD_FILES];
static uint32_t held_nfds;

static void *held_thread(void *arg)
{
	struct held *h = arg;
	struct kslot_dump d = { .table_id = h->t, .max = HELD_SLOTS,
				.slots_ptr = (uintptr_t)h->page };
	uint64_t hd;

	switch (h->kind) {
	case HELD_INSERT:
		h->ret = kslot_insert(h->fd, h->t, h->page, HELD_RS, &hd);
		break;
	case HELD_DUMP:
		h->ret = kslot_dump(h->fd, &d);
		break;
	default:
		h->ret = read(h->fd, h->page, HELD_RS) == HELD_RS ? 0 : -errno;
		break;
	}
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The userfaultfd region of the held threads, made by root. */
static int held_region(void)
{
	held_pages = uffd_page(&held_uffd, (long)HELD_MAX * HELD_STRIDE);
	return held_pages ? 0 : -1;
}

/*
 * Start held thread @i (its kind, file and table set): wait until it
 * waits on its page (0) or its command has returned (1: then joined);
 * -1 if neither within 10 s.
 */
static int held_start(uint32_t i)
{
	struct pollfd pfd = { .fd = held_uffd, .events = POLLIN };
	struct held *h = &held[i];
	struct uffd_msg msg;
	pthread_attr_t attr;
	int k, ret;

	h->page = held_pages + (size_t)i * HELD_STRIDE;
	h->done = 0;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	ret = pthread_create(&held_th[i], &attr, held_thread, h);
	pthread_attr_destroy(&attr);
	if (ret)
		return -1;
	held_n = i + 1;
	for (k = 0; k < 1000; k++) {
		if (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE)) {
			pthread_join(held_th[i], NULL);
			held_n = i;
			return 1;
		}
		if (poll(&pfd, 1, 10) < 0 || (pfd.revents & ~POLLIN))
			return -1;
		if ((pfd.revents & POLLIN) &&
		    read(held_uffd, &msg, sizeof(msg)) == sizeof(msg))
			return msg.event == UFFD_EVENT_PAGEFAULT ? 0 : -1;
	}
	return -1;
}

/*
 * Let every held thread go on, and join them: their commands complete
 * (an INSERT stores its record, or finds the table full: -ENOSPC, or its
 * user at the limit: -EDQUOT).  The number of the others that failed.
 */
static int held_release(void)
{
	int bad = 0;
	uint32_t i;

	if (held_n && uffd_release(held_uffd, held_pages,
				   (long)HELD_MAX * HELD_STRIDE))
		bad++;
	for (i = 0; i < held_n; i++) {
		pthread_join(held_th[i], NULL);
		if (held[i].ret && !(held[i].kind == HELD_INSERT &&
				     (held[i].ret == -ENOSPC ||
				      held[i].ret == -EDQUOT)))
			bad++;
	}
	held_n = 0;
	return bad;
}

static int held_close(void)
{
	uint32_t i;

	for (i = 0; i < held_nfds; i++)
		close(held_fds[i]);
	held_nfds = 0;
	return 0;
}

/* ---- the exact charges ---- */

/*
 * What the device charges over every user (debugfs: the files, their
 * tables and buffers, and the users' own structs), read with root's
 * effective uid, the caller's saved one; -1 if absent.
 */
static long long dev_bytes(void)
{
	uid_t e = geteuid();
	long long v = -1;
	char buf[256], *p;

	if (setresuid(-1, 0, -1))
		return -1;
	if (!read_file(DEV_STATS, buf, sizeof(buf))) {
		p = strstr(buf, "\nbytes: ");
		if (p)
			v = atoll(p + 8);
	}
	if (setresuid(-1, e, -1))
		return -1;
	return v;
}

/* The bytes of @n files of /dev/kslot, summed: their user's charge. */
static uint64_t files_bytes(struct __test_metadata *_metadata, const int *fd,
			    int n)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += file_bytes(_metadata, fd[i]);
	return sum;
}

#define HB_FILES	8
#define HB_LIMIT	(512 * 1024ULL)

/*
 * Every buffer a command holds while its user copy waits is charged to
 * the file and its user, whole, until it is freed: a DUMP's slots (315
 * of them: 16380 bytes, a 16 KiB allocation) in each of 8 files, then
 * the bounce buffers of dense INSERTs of 32000-byte records (32 KiB each)
 * in one of them, until the user's charge would pass max_user_bytes by
 * more than the 16 KiB a command's buffers may: that INSERT fails at
 * once, -EDQUOT, and so does a DUMP in another file.  Once the copies go
 * on, every buffer's charge is given back.  (A file's first 16 KiB of
 * buffers used to be free: each DUMP here was, and a dense INSERT's
 * bounce buffer was charged nowhere.)
 */
TEST_F_TIMEOUT(nobody, held_buffers, 600)
{
	uint64_t base, want, h0 = 0;
	uint32_t tt[HB_FILES], ti, i, k, kmax;
	long long users;
	struct kslot_dump d = { 0 };
	struct kslot_dump_slot *out;
	int fd[HB_FILES], ret, f;

	if (held_region() && held_uffd < 0)
		SKIP(return, "no userfaultfd (%s)", strerror(errno));
	ASSERT_NE(NULL, held_pages);
	ASSERT_EQ(0, write_num(PARAM("max_record_size"), HELD_RS));
	ASSERT_EQ(0, write_num(PARAM("max_user_bytes"), HB_LIMIT));
	out = calloc(HELD_SLOTS, sizeof(*out));
	ASSERT_NE(NULL, out);
	become_nobody(_metadata);
	for (f = 0; f < HB_FILES; f++) {
		fd[f] = kslot_open();
		ASSERT_LE(0, fd[f]);
		ASSERT_EQ(0, kslot_create(fd[f], KSLOT_KIND_DENSE, 8, 16,
					  &tt[f]));
		/* A slot for a DUMP to copy out. */
		ASSERT_EQ(0, kslot_insert(fd[f], tt[f], &h0, 8, &h0));
	}
	ASSERT_EQ(0, kslot_create(fd[0], KSLOT_KIND_DENSE, HELD_RS, 64, &ti));
	h0 = table_stat(_metadata, fd[0], ti, NULL);
	base = files_bytes(_metadata, fd, HB_FILES);
	/* The user's own struct, charged to it (no other file is open). */
	users = dev_bytes() - base;
	ASSERT_LE(0, users);
	ksft_print_msg("held: %d files with their tables: %llu bytes, the user %lld\n",
		       HB_FILES, (unsigned long long)base, users);

	/* A DUMP's buffer held in each file. */
	for (f = 0; f < HB_FILES; f++) {
		held[f] = (struct held){ .kind = HELD_DUMP, .fd = fd[f],
					 .t = tt[f] };
		ASSERT_EQ(0, held_start(f));
		EXPECT_EQ(base + (f + 1) * HELD_DUMP_BYTES,
			  files_bytes(_metadata, fd, HB_FILES));
	}
	/* Bounce buffers, up to the limit and its slack. */
	want = base + HB_FILES * HELD_DUMP_BYTES;
	kmax = (HB_LIMIT + TMP_SLACK - users - want) / HELD_BOUNCE;
	for (k = 0; k <= kmax; k++) {
		i = HB_FILES + k;
		held[i] = (struct held){ .kind = HELD_INSERT, .fd = fd[0],
					 .t = ti };
		ret = held_start(i);
		if (ret)
			break;
		EXPECT_EQ(want + (k + 1) * HELD_BOUNCE,
			  files_bytes(_metadata, fd, HB_FILES));
	}
	ksft_print_msg("held: %u bounce buffers held, %u expected, then %d\n",
		       k, kmax, ret == 1 ? held[HB_FILES + k].ret : 0);
	EXPECT_EQ(kmax, k);
	EXPECT_EQ(1, ret);
	if (ret == 1)
		EXPECT_EQ(-EDQUOT, held[HB_FILES + k].ret);
	/*
	 * The limit is the user's: DUMPs of the other files take what is
	 * left of it (one or none), and the next fails at once.
	 */
	want += kmax * HELD_BOUNCE;
	for (f = 1; f < HB_FILES && users + want + HELD_DUMP_BYTES <=
				     HB_LIMIT + TMP_SLACK; f++) {
		i = held_n;
		held[i] = (struct held){ .kind = HELD_DUMP, .fd = fd[f],
					 .t = tt[f] };
		EXPECT_EQ(0, held_start(i));
		want += HELD_DUMP_BYTES;
	}
	EXPECT_EQ(want, files_bytes(_metadata, fd, HB_FILES));
	d.table_id = tt[1];
	d.max = HELD_SLOTS;
	d.slots_ptr = (uintptr_t)out;
	EXPECT_EQ(-EDQUOT, kslot_dump(fd[1], &d));
	EXPECT_EQ(want, files_bytes(_metadata, fd, HB_FILES));

	/* The copies go on: every buffer's charge comes back. */
	EXPECT_EQ(0, held_release());
	EXPECT_EQ(0, kslot_destroy(fd[0], ti));
	EXPECT_EQ(base - h0, files_bytes(_metadata, fd, HB_FILES));
	for (f = 0; f < HB_FILES; f++)
		close(fd[f]);
	free(out);
}

#define OPEN_LIMIT	(256 * 1024ULL)
#define OPEN_MAX	8192U

/*
 * An open file is charged for itself from open (its struct kslot_file
 * and struct kslot_acct, at their slab sizes), to its user too, as is
 * the user's own struct: as 65534 at a 256 KiB user limit, files with no
 * table open until the next would pass it, which fails with -EDQUOT; a
 * close gives its charge back, and closing them all gives everything
 * back.
 */
TEST_F_TIMEOUT(nobody, open_files, 600)
{
	struct rlimit nofile = { OPEN_MAX + 64, OPEN_MAX + 64 };
	static int fd[OPEN_MAX];
	long long users;
	uint64_t own;
	uint32_t n, i;
	uint32_t t;
	int ret = 0;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &nofile));
	ASSERT_EQ(0, write_num(PARAM("max_user_bytes"), OPEN_LIMIT));
	become_nobody(_metadata);
	fd[0] = kslot_open();
	ASSERT_LE(0, fd[0]);
	own = file_bytes(_metadata, fd[0]);
	/* The user's own struct, charged to it (no other file is open). */
	users = dev_bytes() - own;
	ASSERT_LE(0, users);
	for (n = 1; n < OPEN_MAX; n++) {
		fd[n] = kslot_open();
		if (fd[n] < 0) {
			ret = fd[n];
			break;
		}
	}
	ksft_print_msg("open: %u files of %llu bytes, the user %lld, then %d\n",
		       n, (unsigned long long)own, users, ret);
	EXPECT_EQ(-EDQUOT, ret);
	ASSERT_LT(0, own);
	EXPECT_LT(0, users);
	EXPECT_EQ((OPEN_LIMIT - users) / own, n);
	EXPECT_EQ(own, file_bytes(_metadata, fd[n - 1]));
	/* Nor has the user room for a table. */
	EXPECT_EQ(-EDQUOT, kslot_create(fd[0], KSLOT_KIND_MAP, 8, 16, &t));
	/* A close gives its file's charge back: one more, and no more. */
	close(fd[n - 1]);
	fd[n - 1] = kslot_open();
	EXPECT_LE(0, fd[n - 1]);
	EXPECT_EQ(-EDQUOT, kslot_open());
	/* All of them closed, all of them open again. */
	for (i = 0; i < n; i++)
		close(fd[i]);
	for (i = 0; i < n; i++) {
		fd[i] = kslot_open();
		ASSERT_LE(0, fd[i]);
	}
	EXPECT_EQ(-EDQUOT, kslot_open());
	for (i = 0; i < n; i++)
		close(fd[i]);
}

/* ---- the peak of held buffers and open files ---- */

static int held_prepare(const struct pattern *p)
{
	struct rlimit nofile = { HELD_FILES + 64, HELD_FILES + 64 };

	if (setrlimit(RLIMIT_NOFILE, &nofile))
		return -1;
	if (p->held == HELD_OPEN || p->held == HELD_NULL)
		return 0;
	return held_region();
}

static int held_end(const struct pattern *p)
{
	int bad = held_release();

	held_close();
	return bad;
}

/* A file of /dev/kslot, or (@control) of a control: its fd, or -errno. */
static int held_open(const char *control)
{
	int fd = control ? open(control, O_RDONLY | O_CLOEXEC) : kslot_open();

	if (fd < 0)
		return control ? -errno : fd;
	held_fds[held_nfds++] = fd;
	return fd;
}

/*
 * The file of held thread @i: a file of /dev/kslot with a table (the one
 * of all HELD_INSERTs, each HELD_DUMP's), or the control's /dev/zero to
 * read (opened first), and, where it mirrors files (@p->files), a file of
 * /dev/null each.  Its fd, or -errno.
 */
static int held_file(const struct pattern *p, uint32_t i, uint32_t *t)
{
	uint64_t h = 0;
	int fd, ret;

	if (p->held == HELD_READ) {
		if (!i && held_open("/dev/zero") < 0)
			return -errno;
		if (p->files && held_open("/dev/null") < 0)
			return -errno;
		return held_fds[0];
	}
	fd = held_open(NULL);
	if (fd < 0)
		return fd;
	ret = kslot_create(fd, KSLOT_KIND_DENSE,
			   p->held == HELD_INSERT ? HELD_RS : 8, 16, t);
	/* A slot for a DUMP to copy out. */
	if (!ret && p->held == HELD_DUMP)
		ret = kslot_insert(fd, *t, &h, 8, &h);
	return ret ?: fd;
}

/*
 * Threads held in user copies, each holding a buffer: HELD_INSERT, dense
 * INSERTs of one file; HELD_DUMP, a DUMP of a file (and its table) each;
 * until -EDQUOT or HELD_MAX.  The control, HELD_READ, holds as many
 * threads in a read() of /dev/zero (with as many files of /dev/null if
 * it mirrors DUMPs).  All stay held until the worker is told to close.
 */
static void peak_held(const struct pattern *p, struct result *r)
{
	uint32_t i, t = 0, n = p->count ? p->count : HELD_MAX;
	int fd = -1, ret;

	for (i = 0; i < n; i++) {
		if (!i || p->files) {
			fd = held_file(p, i, &t);
			if (fd == -EDQUOT) {
				r->edquot++;
				break;
			}
			if (fd < 0) {
				WFAIL(r, fd);
				break;
			}
			r->tables += p->held != HELD_READ;
		}
		held[i] = (struct held){ .kind = p->held, .fd = fd, .t = t };
		ret = held_start(i);
		if (ret == 1 && held[i].ret == -EDQUOT) {
			r->edquot++;
			break;
		}
		if (ret) {
			WFAIL(r, ret < 0 ? -ETIMEDOUT : held[i].ret);
			break;
		}
		r->inserted++;
	}
	/* Held long enough to be sampled; held_end() lets them go. */
	usleep(300 * 1000);
}

/* Files of /dev/kslot with no table, until -EDQUOT; or of /dev/null. */
static void peak_open(const struct pattern *p, struct result *r)
{
	uint32_t i, n = p->count ? p->count : HELD_FILES;
	int fd;

	struct kslot_stats st;

	for (i = 0; i < n; i++) {
		fd = held_open(p->held == HELD_NULL ? "/dev/null" : NULL);
		if (fd == -EDQUOT) {
			r->edquot++;
			break;
		}
		if (fd < 0) {
			WFAIL(r, fd);
			break;
		}
		/* What a file is charged for itself. */
		if (!i && p->held == HELD_OPEN && !kslot_stats(fd, 0, &st))
			r->table_alloc = st.bytes;
		r->inserted++;
	}
	usleep(300 * 1000);
}

/*
 * Each attack, then its control: as many threads held in read()s of
 * /dev/zero, or files of /dev/null, which pin what any thread or open
 * file does (kernel stacks, struct file) and nothing of kslot's.
 */
static const struct pattern held_patterns[][2] = {
	{ { "dense INSERTs held in user copies", .held = HELD_INSERT,
	    .attack = peak_held, .prepare = held_prepare,
	    .release = held_end },
	  { "control: read()s of /dev/zero held", .held = HELD_READ,
	    .attack = peak_held, .prepare = held_prepare,
	    .release = held_end } },
	{ { "DUMPs held in user copies, a file each", .held = HELD_DUMP,
	    .files = 1, .attack = peak_held, .prepare = held_prepare,
	    .release = held_end },
	  { "control: read()s held, a /dev/null file each",
	    .held = HELD_READ, .files = 1, .attack = peak_held,
	    .prepare = held_prepare, .release = held_end } },
	{ { "open files, no table", .held = HELD_OPEN, .attack = peak_open,
	    .prepare = held_prepare, .release = held_end },
	  { "control: open files of /dev/null", .held = HELD_NULL,
	    .attack = peak_open, .prepare = held_prepare,
	    .release = held_end } },
};

/*
 * The peak of each held attack, net of its control (the same number of
 * threads held, or files open), is at most 1.25 times max_user_bytes plus
 * the slack: buffers held in user copies, and open files, are charged
 * whatever their number.  What the kernel held is the larger of the two
 * measures peak_measure() takes, each net of the control's.  On a debug
 * kernel, memory.current is asserted without the debug metadata of the
 * kmalloc objects the attack made (kmalloc_cg_meta()).
 */
TEST_F_TIMEOUT(nobody, peak_held, 1200)
{
	long long limit = PEAK_LIMIT * 5 / 4 + SLACK, net, net_cg;
	struct peak a, c;
	struct pattern ctl;
	size_t i;

	ASSERT_EQ(0, write_num(PARAM("max_record_size"), HELD_RS));
	for (i = 0; i < ARRAY_SIZE(held_patterns); i++) {
		const struct pattern *p = &held_patterns[i][0];

		peak_measure(_metadata, self->s.cgroup, p, &a);
		ctl = held_patterns[i][1];
		ctl.count = a.r.inserted;
		if (!ctl.count)
			continue;
		peak_measure(_metadata, self->s.cgroup, &ctl, &c);
		EXPECT_EQ(ctl.count, c.r.inserted);
		/* Each measure net of the same measure of the control. */
		net = a.used - c.used > a.kern - c.kern ? a.used - c.used :
							  a.kern - c.kern;
		net_cg = a.cg - c.cg - (a.meta_cg - c.meta_cg);
		ksft_print_msg("%s: %llu held, %u -EDQUOT; net of the control:\n",
			       p->name, (unsigned long long)a.r.inserted,
			       a.r.edquot);
		ksft_print_msg("%s: kernel %lld, %.2fx; memory.current %lld, %.2fx\n",
			       p->name, net, (double)net / PEAK_LIMIT, net_cg,
			       (double)net_cg / PEAK_LIMIT);
		if (!debug_bookkeeping()) {
			EXPECT_GE(limit, net) {
				TH_LOG("%s: the kernel held %lld net, over %lld",
				       p->name, net, limit);
			}
		}
		if (self->s.cgroup) {
			EXPECT_GE(limit, net_cg) {
				TH_LOG("%s: memory.current %lld net, over %lld",
				       p->name, net_cg, limit);
			}
		}
	}
}

TEST_HARNESS_MAIN
