// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_pool, the slab-style object pool.
 *
 * Tests that check per-CPU cache counters run with migration disabled, so
 * every operation uses the same CPU's cache.  Tests that provoke misuse
 * use KSLOT_POOL_NOWARN pools: the pool reports on one error line and
 * counts, and the test checks the counters.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kfence.h>
#include <linux/kslot_pool.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static struct kslot_pool *pool_new(struct kunit *test, size_t size,
				   unsigned long max, unsigned int flags)
{
	struct kslot_pool_config cfg = {
		.name = NULL,
		.size = size,
		.max_objects = max,
		.flags = flags,
	};
	struct kslot_pool *pool = kslot_pool_create(&cfg);

	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	return pool;
}

static void ctor_nop(void *obj)
{
}

static void pool_stats(struct kslot_pool *pool, struct kslot_pool_stats *st)
{
	kslot_pool_stats(pool, st);
}

static unsigned long pool_in_use(struct kslot_pool *pool)
{
	struct kslot_pool_stats st;

	kslot_pool_stats(pool, &st);
	return st.in_use;
}

static void kslot_pool_test_create(struct kunit *test)
{
	struct kslot_pool_config cfg = { .size = 64 };
	struct kslot_pool_stats st;
	struct kslot_pool *pool;

	cfg.size = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.size = (PAGE_SIZE << KSLOT_POOL_MAX_ORDER) + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	/* Fits the size limit, but not next to the slab header. */
	cfg.size = PAGE_SIZE << KSLOT_POOL_MAX_ORDER;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.size = SIZE_MAX;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.size = 64;
	cfg.align = 24;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.align = 2 * KSLOT_POOL_MAX_ALIGN;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.align = 0;
	cfg.cache_size = KSLOT_POOL_MAX_CACHE + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.cache_size = 0;
	cfg.flags = BIT(7);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.flags = KSLOT_POOL_TASK | KSLOT_POOL_BH;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.flags = 0;
	cfg.max_objects = 4;
	cfg.min_nr = 5;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&cfg)), -EINVAL);
	cfg.max_objects = 0;
	cfg.min_nr = 0;

	cfg.flags = KSLOT_POOL_ACCOUNT;
	cfg.name = "kunit-create";
	pool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	KUNIT_EXPECT_EQ(test, kslot_pool_size(pool), 64);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.slab_bytes, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, st.objs_per_slab, 63);
	KUNIT_EXPECT_EQ(test, st.slabs, 0);
	KUNIT_EXPECT_EQ(test, st.objects, 0);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	kslot_pool_destroy(pool);
	kslot_pool_destroy(NULL);
}

/* The slab order and object stride chosen from the config. */
static void kslot_pool_test_layout(struct kunit *test)
{
	static const struct {
		size_t size, align;
		unsigned long max;
		unsigned int flags;
		bool ctor;
		unsigned int stride, slab_bytes, per_slab;
	} cases[] = {
		/* The free pointer overlays a free object. */
		{ 64, 0, 0, 0, false, 64, PAGE_SIZE, 63 },
		{ 1, 0, 0, 0, false, 8, PAGE_SIZE, 505 },
		{ 24, 64, 0, 0, false, 64, PAGE_SIZE, 63 },
		/* A constructor or debug mode moves it (and the state) out. */
		{ 64, 0, 0, 0, true, 72, PAGE_SIZE, 56 },
		{ 64, 0, 0, KSLOT_POOL_DEBUG, false, 80, PAGE_SIZE, 50 },
		/* Four per page is too few: two pages hold eight. */
		{ 1000, 0, 0, 0, false, 1000, 2 * PAGE_SIZE, 8 },
		/* ... unless the pool never holds more than two. */
		{ 1000, 0, 2, 0, false, 1000, PAGE_SIZE, 4 },
		/* One object ever: no bigger slab to cut waste. */
		{ 5000, 0, 1, 0, false, 5000, 2 * PAGE_SIZE, 1 },
		/* Never eight per slab: the largest slab. */
		{ 5000, 0, 0, 0, false, 5000, 8 * PAGE_SIZE, 6 },
		{ 100, PAGE_SIZE, 0, 0, false, PAGE_SIZE, 8 * PAGE_SIZE, 7 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kslot_pool_config cfg = {
			.size = cases[i].size,
			.align = cases[i].align,
			.max_objects = cases[i].max,
			.flags = cases[i].flags,
		};
		struct kslot_pool_stats st;
		struct kslot_pool *pool;

		if (cases[i].ctor)
			cfg.ctor = ctor_nop;
		pool = kslot_pool_create(&cfg);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
		pool_stats(pool, &st);
		KUNIT_EXPECT_EQ_MSG(test, kslot_pool_test_stride(pool),
				    cases[i].stride, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.slab_bytes, cases[i].slab_bytes,
				    "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.objs_per_slab, cases[i].per_slab,
				    "case %u", i);
		kslot_pool_destroy(pool);
	}
}

static void kslot_pool_test_alloc_free(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 0, 0);
	struct kslot_pool_stats st;
	void *a, *b;

	a = kslot_pool_alloc(pool, GFP_KERNEL);
	b = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)a, sizeof(void *)));
	/* Every byte of both objects is the caller's. */
	memset(a, 0xa5, 64);
	memset(b, 0x5a, 64);
	KUNIT_EXPECT_NULL(test, memchr_inv(a, 0xa5, 64));
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.in_use, 2);
	KUNIT_EXPECT_EQ(test, st.slabs, 1);
	KUNIT_EXPECT_EQ(test, st.objects, 63);
	KUNIT_EXPECT_EQ(test, st.free, 61);
	kslot_pool_free(pool, a);
	kslot_pool_free(pool, b);
	kslot_pool_free(pool, NULL);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	KUNIT_EXPECT_EQ(test, st.free, 63);
	kslot_pool_destroy(pool);
}

/* Hits, misses, refill and flush batches of one CPU's cache. */
static void kslot_pool_test_cpu_cache(struct kunit *test)
{
	struct kslot_pool_config cfg = { .size = 64, .cache_size = 4 };
	struct kslot_pool_stats st;
	struct kslot_pool *pool;
	void *objs[5];
	int i;

	pool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	migrate_disable();
	/* Miss (refill 2), hit, miss, hit, miss: one left cached. */
	for (i = 0; i < 5; i++)
		objs[i] = kslot_pool_alloc(pool, GFP_KERNEL);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.alloc_misses, 3);
	KUNIT_EXPECT_EQ(test, st.alloc_hits, 2);
	KUNIT_EXPECT_EQ(test, st.cached, 1);
	KUNIT_EXPECT_EQ(test, st.in_use, 5);
	/* Three hits fill the cache; the fourth flushes 2; one more hit. */
	for (i = 0; i < 5; i++)
		kslot_pool_free(pool, objs[i]);
	pool_stats(pool, &st);
	migrate_enable();
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_NOT_NULL(test, objs[i]);
	KUNIT_EXPECT_EQ(test, st.free_hits, 4);
	KUNIT_EXPECT_EQ(test, st.free_misses, 1);
	KUNIT_EXPECT_EQ(test, st.cached, 4);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	KUNIT_EXPECT_EQ(test, st.empty_slabs, 0);
	/* Shrink drains the cache, then the slab is wholly free. */
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 1);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.cached, 0);
	KUNIT_EXPECT_EQ(test, st.slabs, 0);
	KUNIT_EXPECT_EQ(test, st.objects, 0);
	kslot_pool_destroy(pool);
}

static void kslot_pool_test_zero(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 100, 0, 0);
	void *a;

	a = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	memset(a, 0xff, 100);
	kslot_pool_free(pool, a);
	a = kslot_pool_alloc(pool, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_NULL(test, memchr_inv(a, 0, 100));
	kslot_pool_free(pool, a);
	kslot_pool_destroy(pool);
}

struct ctor_obj {
	u32 magic;
	u32 value;
	u64 data;
};

#define CTOR_MAGIC	0xc0ffee11

static atomic_t ctor_calls;

static void ctor_count(void *p)
{
	struct ctor_obj *o = p;

	o->magic = CTOR_MAGIC;
	o->value = 0;
	o->data = 0;
	atomic_inc(&ctor_calls);
}

static void kslot_pool_test_ctor(struct kunit *test)
{
	struct kslot_pool_config cfg = {
		.size = sizeof(struct ctor_obj),
		.ctor = ctor_count,
	};
	struct kslot_pool_stats st;
	struct ctor_obj **objs, *o;
	struct kslot_pool *pool;
	unsigned int i, n;

	atomic_set(&ctor_calls, 0);
	pool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	/*
	 * One CPU throughout: objects in another CPU's cache would make the
	 * allocations below carve a second slab (seen on a preemptible
	 * kernel when the test migrated).
	 */
	migrate_disable();
	o = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	pool_stats(pool, &st);
	n = st.objs_per_slab;
	KUNIT_EXPECT_EQ(test, n, 168);
	/* One call per object, when the slab was carved. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctor_calls), n);
	KUNIT_EXPECT_EQ(test, o->magic, CTOR_MAGIC);
	o->data = 42;
	kslot_pool_free(pool, o);

	objs = kunit_kcalloc(test, n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	/* The free pointer never overwrote constructed state. */
	for (i = 0; i < n; i++) {
		objs[i] = kslot_pool_alloc(pool, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		KUNIT_EXPECT_EQ(test, objs[i]->magic, CTOR_MAGIC);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&ctor_calls), n);
	kslot_pool_free_bulk(pool, n, (void **)objs);
	/* __GFP_ZERO zeroes even constructed objects. */
	o = kslot_pool_alloc(pool, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_EXPECT_EQ(test, o->magic, 0);
	o->magic = CTOR_MAGIC;
	kslot_pool_free(pool, o);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctor_calls), n);
	migrate_enable();
	kslot_pool_destroy(pool);
}

/*
 * init_on_alloc (Debian's kernels boot with it on): every object is
 * handed out zeroed, as kmalloc()'s are, whether fresh from a slab (whose
 * carving wrote the free list through its objects) or used before, one
 * at a time or in bulk; a constructed object stays constructed.  The RT
 * VM boots with init_on_alloc=1; elsewhere the case skips.
 */
static void kslot_pool_test_init_on_alloc(struct kunit *test)
{
	struct kslot_pool_config cfg = {
		.size = sizeof(struct ctor_obj),
		.ctor = ctor_count,
		.flags = KSLOT_POOL_SLABS,
	};
	struct kslot_pool *pool;
	struct ctor_obj *o;
	void *objs[4], *a;
	int i;

	if (!want_init_on_alloc(GFP_KERNEL))
		kunit_skip(test, "needs init_on_alloc=1");
	/* The pool's own slabs, even where pools pass through to kmalloc(). */
	pool = pool_new(test, 64, 0, KSLOT_POOL_SLABS);
	/* One CPU: the object freed is the one allocated next. */
	migrate_disable();
	a = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_NULL(test, memchr_inv(a, 0, 64));
	memset(a, 0xa5, 64);
	kslot_pool_free(pool, a);
	KUNIT_EXPECT_PTR_EQ(test, kslot_pool_alloc(pool, GFP_KERNEL), a);
	KUNIT_EXPECT_NULL(test, memchr_inv(a, 0, 64));
	memset(a, 0xa5, 64);
	kslot_pool_free(pool, a);
	KUNIT_ASSERT_EQ(test, kslot_pool_alloc_bulk(pool, GFP_KERNEL,
						    ARRAY_SIZE(objs), objs), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		KUNIT_EXPECT_NULL(test, memchr_inv(objs[i], 0, 64));
	kslot_pool_free_bulk(pool, ARRAY_SIZE(objs), objs);
	migrate_enable();
	kslot_pool_destroy(pool);

	pool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	o = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_EXPECT_EQ(test, o->magic, CTOR_MAGIC);
	kslot_pool_free(pool, o);
	kslot_pool_destroy(pool);
}

struct remote_free {
	struct kslot_pool *pool;
	void *obj;
};

static long remote_free_fn(void *arg)
{
	struct remote_free *rf = arg;

	kslot_pool_free(rf->pool, rf->obj);
	return 0;
}

static void kslot_pool_test_max_objects(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 10, 0);
	struct kslot_pool_stats st;
	struct remote_free rf;
	unsigned int this, other;
	void *objs[10], *o;
	int i;

	for (i = 0; i < 10; i++) {
		objs[i] = kslot_pool_alloc(pool, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	KUNIT_EXPECT_NULL(test, kslot_pool_alloc(pool, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, kslot_pool_alloc(pool, GFP_ATOMIC));
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.objects, 10);
	KUNIT_EXPECT_EQ(test, st.in_use, 10);
	KUNIT_EXPECT_EQ(test, st.slabs, 1);

	/* A free object parked in another CPU's cache. */
	migrate_disable();
	this = raw_smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, this);
	if (other < nr_cpu_ids) {
		rf.pool = pool;
		rf.obj = objs[9];
		KUNIT_EXPECT_EQ(test, work_on_cpu(other, remote_free_fn, &rf),
				0);
		pool_stats(pool, &st);
		KUNIT_EXPECT_EQ(test, st.cached, 1);
		/* Atomic allocations cannot drain other CPUs... */
		KUNIT_EXPECT_NULL(test, kslot_pool_alloc(pool, GFP_ATOMIC));
		/* ... sleeping ones do. */
		o = kslot_pool_alloc(pool, GFP_KERNEL);
		KUNIT_EXPECT_PTR_EQ(test, o, objs[9]);
		objs[9] = o;
	}
	migrate_enable();
	kslot_pool_free(pool, objs[0]);
	o = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, o, objs[0]);
	for (i = 0; i < 10; i++)
		kslot_pool_free(pool, objs[i]);
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 0);
	kslot_pool_destroy(pool);
}

static void kslot_pool_test_shrink(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 0, 0);
	const unsigned int n = 200;
	struct kslot_pool_stats st;
	void **objs;
	unsigned int i;

	objs = kunit_kcalloc(test, n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 0);
	for (i = 0; i < n; i++) {
		objs[i] = kslot_pool_alloc(pool, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	pool_stats(pool, &st);
	/* 200 objects need 4 slabs of 63, whatever CPU they came from. */
	KUNIT_EXPECT_EQ(test, st.slabs, 4);
	KUNIT_EXPECT_EQ(test, st.objects, 4 * 63);
	/* Nothing to return while every slab has objects out. */
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 0);
	/* Keep one object: its slab stays. */
	for (i = 1; i < n; i++)
		kslot_pool_free(pool, objs[i]);
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 3);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.slabs, 1);
	KUNIT_EXPECT_EQ(test, st.objects, 63);
	KUNIT_EXPECT_EQ(test, st.in_use, 1);
	KUNIT_EXPECT_EQ(test, st.cached, 0);
	kslot_pool_free(pool, objs[0]);
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 1);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.slabs, 0);
	KUNIT_EXPECT_EQ(test, st.objects, 0);
	KUNIT_EXPECT_EQ(test, st.free, 0);
	/* The pool grows again after a shrink. */
	objs[0] = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, objs[0]);
	kslot_pool_free(pool, objs[0]);
	kslot_pool_destroy(pool);
}

static bool all_distinct(void **objs, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (objs[i] == objs[j])
				return false;
	return true;
}

static void kslot_pool_test_bulk(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 100, 0);
	void **objs, *keep;
	unsigned int i;

	objs = kunit_kcalloc(test, 110, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_EXPECT_EQ(test, kslot_pool_alloc_bulk(pool, GFP_KERNEL, 60,
						    objs), 0);
	for (i = 0; i < 60; i++)
		KUNIT_EXPECT_NOT_NULL(test, objs[i]);
	KUNIT_EXPECT_TRUE(test, all_distinct(objs, 60));
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 60);
	/* All or nothing: 50 more would pass max_objects. */
	KUNIT_EXPECT_EQ(test, kslot_pool_alloc_bulk(pool, GFP_KERNEL, 50,
						    objs + 60), -ENOMEM);
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 60);
	kslot_pool_free_bulk(pool, 60, objs);
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 0);
	KUNIT_EXPECT_EQ(test, kslot_pool_alloc_bulk(pool, GFP_KERNEL, 100,
						    objs), 0);
	KUNIT_EXPECT_TRUE(test, all_distinct(objs, 100));
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 100);
	/* NULL entries are skipped. */
	keep = objs[7];
	objs[7] = NULL;
	kslot_pool_free_bulk(pool, 100, objs);
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 1);
	kslot_pool_free(pool, keep);
	KUNIT_EXPECT_EQ(test, kslot_pool_alloc_bulk(pool, GFP_KERNEL, 0, objs),
			0);
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 0);
	kslot_pool_destroy(pool);
}

/* Destroy with objects out: reported, their slab is never freed. */
static void kslot_pool_test_destroy_in_use(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 0, KSLOT_POOL_NOWARN);
	void *a, *b, *c;

	a = kslot_pool_alloc(pool, GFP_KERNEL);
	b = kslot_pool_alloc(pool, GFP_KERNEL);
	c = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, c);
	memset(a, 0x11, 64);
	kslot_pool_free(pool, b);
	kslot_pool_destroy(pool);
	/* The leaked object is still the caller's memory. */
	KUNIT_EXPECT_NULL(test, memchr_inv(a, 0x11, 64));
	KUNIT_EXPECT_EQ(test, kslot_pool_test_reap(pool), 2);
}

#define DBG_FLAGS	(KSLOT_POOL_DEBUG | KSLOT_POOL_NOWARN)

static void kslot_pool_test_double_free(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 16, DBG_FLAGS);
	struct kslot_pool_stats st;
	unsigned int i, seen = 0;
	void *objs[16], *a;

	a = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	kslot_pool_free(pool, a);
	/* Refused and counted; the object is in a CPU cache only once. */
	kslot_pool_free(pool, a);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.double_frees, 1);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	KUNIT_EXPECT_EQ(test, st.objects, 16);
	for (i = 0; i < 16; i++) {
		objs[i] = kslot_pool_alloc(pool, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		seen += objs[i] == a;
	}
	KUNIT_EXPECT_NULL(test, kslot_pool_alloc(pool, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, seen, 1);
	KUNIT_EXPECT_TRUE(test, all_distinct(objs, 16));

	/* A double free of an object back on its slab's free list. */
	for (i = 1; i < 16; i++)
		kslot_pool_free(pool, objs[i]);
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 0);
	kslot_pool_free(pool, objs[5]);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.double_frees, 2);
	KUNIT_EXPECT_EQ(test, st.in_use, 1);
	KUNIT_EXPECT_EQ(test, st.poison_errors, 0);
	KUNIT_EXPECT_EQ(test, st.bad_frees, 0);
	kslot_pool_free(pool, objs[0]);
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 1);
	/* Its slab is gone: now a foreign pointer, and never touched. */
	kslot_pool_free(pool, objs[0]);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.double_frees, 2);
	KUNIT_EXPECT_EQ(test, st.bad_frees, 1);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	KUNIT_EXPECT_EQ(test, st.objects, 0);
	kslot_pool_destroy(pool);
}

static void kslot_pool_test_foreign(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 3, DBG_FLAGS);
	struct kslot_pool *other = pool_new(test, 64, 0, DBG_FLAGS);
	unsigned int stride = kslot_pool_test_stride(pool);
	struct kslot_pool_stats st;
	unsigned long base;
	void *a, *o;
	int local = 7;
	u8 *buf;

	a = kslot_pool_alloc(pool, GFP_KERNEL);
	o = kslot_pool_alloc(other, GFP_KERNEL);
	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* kmalloc memory, an interior pointer, another pool's object. */
	kslot_pool_free(pool, buf);
	kslot_pool_free(pool, a + 8);
	kslot_pool_free(pool, o);
	/* A slot of the slab that max_objects left uncarved. */
	base = (unsigned long)a & ~(PAGE_SIZE - 1);
	kslot_pool_free(pool, (void *)base + 3 * stride);
	/* The stack. */
	kslot_pool_free(pool, &local);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.bad_frees, 5);
	KUNIT_EXPECT_EQ(test, st.double_frees, 0);
	KUNIT_EXPECT_EQ(test, st.in_use, 1);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0, 64));
	KUNIT_EXPECT_EQ(test, local, 7);
	pool_stats(other, &st);
	KUNIT_EXPECT_EQ(test, st.in_use, 1);
	KUNIT_EXPECT_EQ(test, st.bad_frees, 0);
	kslot_pool_free(pool, a);
	kslot_pool_free(other, o);
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 0);
	KUNIT_EXPECT_EQ(test, pool_in_use(other), 0);
	kslot_pool_destroy(pool);
	kslot_pool_destroy(other);
}

static void kslot_pool_test_poison(struct kunit *test)
{
	struct kslot_pool *pool = pool_new(test, 64, 0, DBG_FLAGS);
	struct kslot_pool_config cfg = {
		.size = sizeof(struct ctor_obj),
		.ctor = ctor_count,
		.flags = DBG_FLAGS,
	};
	struct kslot_pool_stats st;
	struct kslot_pool *cpool;
	u8 *a, *b;

	migrate_disable();
	a = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	kslot_pool_free(pool, a);
	/* Freed objects are poisoned... */
	KUNIT_EXPECT_NULL(test, memchr_inv(a, POISON_FREE, 64));
	/* ... and a write after free is found at the next allocation. */
	a[5] = 0;
	b = kslot_pool_alloc(pool, GFP_KERNEL);
	migrate_enable();
	KUNIT_EXPECT_PTR_EQ(test, b, a);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.poison_errors, 1);
	kslot_pool_free(pool, b);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.poison_errors, 1);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);

	/* A write past the end of a live object reaches its state word. */
	a = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	memset(a + 64, 0, 16);
	/* The free is refused, the object stays allocated. */
	kslot_pool_free(pool, a);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.poison_errors, 2);
	KUNIT_EXPECT_EQ(test, st.in_use, 1);
	KUNIT_EXPECT_EQ(test, st.double_frees, 0);
	kslot_pool_destroy(pool);
	KUNIT_EXPECT_EQ(test, kslot_pool_test_reap(pool), 1);

	/* With a constructor, debug mode tracks state but does not poison. */
	cpool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cpool));
	a = kslot_pool_alloc(cpool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	kslot_pool_free(cpool, a);
	KUNIT_EXPECT_EQ(test, ((struct ctor_obj *)a)->magic, CTOR_MAGIC);
	kslot_pool_free(cpool, a);
	pool_stats(cpool, &st);
	KUNIT_EXPECT_EQ(test, st.double_frees, 1);
	KUNIT_EXPECT_EQ(test, st.poison_errors, 0);
	kslot_pool_destroy(cpool);
}

/* The kslot.pool_debug module parameter turns debug mode on for new pools. */
static void kslot_pool_test_debug_param(struct kunit *test)
{
	struct kslot_pool_config cfg = {
		.size = 64,
		.flags = KSLOT_POOL_NOWARN,
	};
	struct kslot_pool_stats st;
	struct kslot_pool *pool;
	bool old;
	void *a;

	old = kslot_pool_test_debug_all(true);
	pool = kslot_pool_create(&cfg);
	kslot_pool_test_debug_all(old);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	/* The debug layout: free pointer and state word after the object. */
	KUNIT_EXPECT_EQ(test, kslot_pool_test_stride(pool), 80);
	a = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	kslot_pool_free(pool, a);
	kslot_pool_free(pool, a);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.double_frees, 1);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	kslot_pool_destroy(pool);
}

/* Randomised operations against a model: the objects each test holds. */
struct pool_param {
	const char *name;
	unsigned int flags;
	bool passthrough;
};

static const struct pool_param pool_params[] = {
	{ "plain", 0 },
	{ "debug", KSLOT_POOL_DEBUG },
	{ "task", KSLOT_POOL_TASK },
	{ "bh", KSLOT_POOL_BH },
	{ "passthrough", 0, true },
};

static void pool_param_desc(const struct pool_param *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pool_mode, pool_params, pool_param_desc);

struct rnd_obj {
	void *link;		/* where a free object keeps its free pointer */
	u32 idx;
	u32 magic;
	u64 stamp;
	u8 tail[16];
};

#define RND_MAGIC	0x6b736c74
#define RND_BULK	16

struct rnd_model {
	struct rnd_obj **held;
	u32 nheld;
	u64 stamp;
};

static bool rnd_is_held(struct rnd_model *m, struct rnd_obj *o)
{
	return o->magic == RND_MAGIC && o->idx < m->nheld && m->held[o->idx] == o;
}

static void rnd_hold(struct rnd_model *m, struct rnd_obj *o)
{
	o->idx = m->nheld;
	o->magic = RND_MAGIC;
	o->stamp = ++m->stamp;
	m->held[m->nheld++] = o;
}

/* Drop model entry @k (swapping the last one in) and return its object. */
static struct rnd_obj *rnd_drop(struct rnd_model *m, u32 k)
{
	struct rnd_obj *o = m->held[k];

	m->held[k] = m->held[--m->nheld];
	m->held[k]->idx = k;
	o->magic = 0;
	return o;
}

static void kslot_pool_test_random(struct kunit *test)
{
	const struct pool_param *param = test->param_value;
	const u32 max = 2000;
	/* kmalloc() under KASAN and kmemleak is slow: fewer operations. */
	const u32 ops = param->passthrough ? 5000 : 100000;
	struct rnd_obj *tmp[RND_BULK];
	struct kslot_pool_config cfg = {
		.size = sizeof(struct rnd_obj),
		.max_objects = max,
		.flags = param->flags,
	};
	struct kslot_pool_stats st;
	struct kslot_pool *pool;
	struct rnd_model m = {};
	struct rnd_state rnd;
	u32 i, j, n, k;

	m.held = kunit_kcalloc(test, max, sizeof(*m.held), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.held);
	kslot_pool_test_passthrough_all(param->passthrough);
	pool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	prandom_seed_state(&rnd, 0x706f6f6cULL);

	for (i = 0; i < ops; i++) {
		u32 op = prandom_u32_state(&rnd) % 100;
		struct rnd_obj *o;

		if (op < 40) {
			bool zero = prandom_u32_state(&rnd) & 1;

			o = kslot_pool_alloc(pool, zero ? GFP_KERNEL | __GFP_ZERO :
							 GFP_KERNEL);
			if (m.nheld == max) {
				KUNIT_ASSERT_NULL(test, o);
				continue;
			}
			KUNIT_ASSERT_NOT_NULL(test, o);
			KUNIT_ASSERT_TRUE(test, IS_ALIGNED((unsigned long)o,
							   sizeof(void *)));
			KUNIT_ASSERT_FALSE(test, rnd_is_held(&m, o));
			if (zero)
				KUNIT_ASSERT_NULL(test, memchr_inv(o, 0,
								   sizeof(*o)));
			rnd_hold(&m, o);
		} else if (op < 80 && m.nheld) {
			k = prandom_u32_state(&rnd) % m.nheld;
			KUNIT_ASSERT_EQ(test, m.held[k]->idx, k);
			KUNIT_ASSERT_EQ(test, m.held[k]->magic, RND_MAGIC);
			kslot_pool_free(pool, rnd_drop(&m, k));
		} else if (op < 88) {
			n = 1 + prandom_u32_state(&rnd) % RND_BULK;
			if (m.nheld + n > max) {
				KUNIT_ASSERT_EQ(test,
						kslot_pool_alloc_bulk(pool,
								      GFP_KERNEL,
								      n,
								      (void **)tmp),
						-ENOMEM);
				continue;
			}
			KUNIT_ASSERT_EQ(test,
					kslot_pool_alloc_bulk(pool, GFP_KERNEL,
							      n, (void **)tmp),
					0);
			for (j = 0; j < n; j++) {
				KUNIT_ASSERT_FALSE(test, rnd_is_held(&m, tmp[j]));
				rnd_hold(&m, tmp[j]);
			}
		} else if (op < 96 && m.nheld) {
			n = min(1 + prandom_u32_state(&rnd) % RND_BULK,
				m.nheld);
			for (j = 0; j < n; j++)
				tmp[j] = rnd_drop(&m, prandom_u32_state(&rnd) %
						      m.nheld);
			kslot_pool_free_bulk(pool, n, (void **)tmp);
		} else if (op == 96 && prandom_u32_state(&rnd) % 4 == 0) {
			kslot_pool_shrink(pool);
		} else {
			pool_stats(pool, &st);
			KUNIT_ASSERT_EQ(test, st.in_use, m.nheld);
			KUNIT_ASSERT_LE(test, st.objects, max);
		}
	}
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.in_use, m.nheld);
	KUNIT_EXPECT_EQ(test, st.double_frees + st.bad_frees +
			      st.poison_errors, 0);
	for (i = 0; i < m.nheld; i++) {
		KUNIT_EXPECT_EQ(test, m.held[i]->idx, i);
		kslot_pool_free(pool, m.held[i]);
	}
	kslot_pool_shrink(pool);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	KUNIT_EXPECT_EQ(test, st.slabs, 0);
	kslot_pool_destroy(pool);
}

/*
 * Allocation failure: every allocation a call makes is failed in turn;
 * each must return -ENOMEM (or NULL) and leave the pool as it was.
 */
static void kslot_pool_test_fault(struct kunit *test)
{
	struct kslot_pool_config cfg = { .size = 64 };
	struct kslot_pool_stats st;
	struct kslot_pool *pool;
	u32 n, faults = 0;
	void **objs, *o, *p;
	bool injected;
	int ret;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	objs = kunit_kcalloc(test, 100, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	/*
	 * Create: the pool, the per-CPU caches, the per-CPU drain work and
	 * the shrinker.
	 */
	for (n = 1;; n++) {
		pool = kslot_test_with_fail_nth(n, &injected,
						kslot_pool_create(&cfg));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, PTR_ERR(pool), -ENOMEM);
		faults++;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	KUNIT_EXPECT_EQ(test, faults, 4);

	/* The first allocation grows the pool by a slab. */
	faults = 0;
	for (n = 1;; n++) {
		o = kslot_test_with_fail_nth(n, &injected,
					     kslot_pool_alloc(pool, GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_NULL(test, o);
		pool_stats(pool, &st);
		KUNIT_ASSERT_EQ(test, st.slabs, 0);
		KUNIT_ASSERT_EQ(test, st.objects, 0);
		KUNIT_ASSERT_EQ(test, st.in_use, 0);
		faults++;
	}
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_EXPECT_EQ(test, faults, 1);
	/* Allocations the slabs can serve allocate nothing. */
	p = kslot_test_with_fail_nth(1, &injected,
				     kslot_pool_alloc(pool, GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_ASSERT_NOT_NULL(test, p);

	/*
	 * A bulk allocation needing a second slab fails as a whole.  The
	 * first slab's free objects go back to it first: the task may have
	 * moved to another CPU since o and p, away from the cache holding
	 * them.
	 */
	KUNIT_EXPECT_EQ(test, kslot_pool_shrink(pool), 0);
	faults = 0;
	migrate_disable();
	for (n = 1;; n++) {
		ret = kslot_test_with_fail_nth(n, &injected,
					       kslot_pool_alloc_bulk(pool,
								     GFP_KERNEL,
								     100, objs));
		if (!injected)
			break;
		pool_stats(pool, &st);
		if (ret != -ENOMEM || st.in_use != 2 || st.slabs > 2)
			break;
		faults++;
	}
	migrate_enable();
	/*
	 * A failed bulk gives back every object it took (in_use stays 2);
	 * the slab it grew before a later allocation failed may stay, empty.
	 */
	if (injected) {
		KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
		KUNIT_ASSERT_EQ(test, st.in_use, 2);
		KUNIT_ASSERT_LE(test, st.slabs, 2);
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* One fault at least: growing the slab (the task's others may count). */
	KUNIT_EXPECT_GE(test, faults, 1);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.slabs, 2);
	KUNIT_EXPECT_EQ(test, st.in_use, 102);
	kslot_pool_free_bulk(pool, 100, objs);
	kslot_pool_free(pool, o);
	kslot_pool_free(pool, p);
	KUNIT_EXPECT_EQ(test, pool_in_use(pool), 0);
	kslot_pool_destroy(pool);
}

/*
 * Concurrency: a kthread on each CPU allocates, frees, and hands objects
 * to the other CPU to free, while the test thread shrinks the pool.  An
 * object handed out twice at once is caught by its owner word (set with
 * cmpxchg from 0 on allocation, cleared before free) or, in debug mode,
 * by the pool's state word.
 */
struct conc_obj {
	atomic_long_t owner;
	u64 pad[5];
};

#define CONC_HOLD	64
#define CONC_XCHG	32

struct pool_conc {
	struct kslot_pool *pool;
	void *xchg[CONC_XCHG];
	bool check_owner;
	gfp_t gfp;
	atomic_t stop;
	atomic_long_t allocs, remote, dups, fails;
};

struct pool_conc_thread {
	struct pool_conc *ctx;
	long id;
};

static void conc_ctor(void *p)
{
	atomic_long_set(&((struct conc_obj *)p)->owner, 0);
}

static void conc_release(struct pool_conc *ctx, struct conc_obj *o)
{
	if (ctx->check_owner)
		atomic_long_set(&o->owner, 0);
	kslot_pool_free(ctx->pool, o);
}

static int pool_conc_fn(void *arg)
{
	struct pool_conc_thread *th = arg;
	struct pool_conc *ctx = th->ctx;
	struct conc_obj *held[CONC_HOLD], *o;
	u32 nheld = 0, i = 0, k, slot;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, 1234 + th->id);
	while (!atomic_read(&ctx->stop)) {
		u32 r = prandom_u32_state(&rnd) % 100;

		if (r < 45 && nheld < CONC_HOLD) {
			o = kslot_pool_alloc(ctx->pool, ctx->gfp);
			if (!o) {
				atomic_long_inc(&ctx->fails);
				continue;
			}
			if (ctx->check_owner &&
			    atomic_long_cmpxchg(&o->owner, 0, th->id) != 0)
				atomic_long_inc(&ctx->dups);
			held[nheld++] = o;
			atomic_long_inc(&ctx->allocs);
		} else if (r < 85 && nheld) {
			k = prandom_u32_state(&rnd) % nheld;
			o = held[k];
			held[k] = held[--nheld];
			conc_release(ctx, o);
		} else if (r < 93 && nheld) {
			/* Hand an object to whichever CPU picks it up. */
			k = prandom_u32_state(&rnd) % nheld;
			slot = prandom_u32_state(&rnd) % CONC_XCHG;
			o = xchg(&ctx->xchg[slot], held[k]);
			held[k] = held[--nheld];
			if (o) {
				conc_release(ctx, o);
				atomic_long_inc(&ctx->remote);
			}
		} else {
			slot = prandom_u32_state(&rnd) % CONC_XCHG;
			o = xchg(&ctx->xchg[slot], NULL);
			if (o) {
				conc_release(ctx, o);
				atomic_long_inc(&ctx->remote);
			}
		}
		if (++i % 256 == 0)
			cond_resched();
	}
	while (nheld)
		conc_release(ctx, held[--nheld]);
	return 0;
}

static const struct pool_param conc_params[] = {
	{ "ctor", 0 },
	{ "debug", KSLOT_POOL_DEBUG },
	{ "task", KSLOT_POOL_TASK },
	{ "passthrough", 0, true },
};

KUNIT_ARRAY_PARAM(conc_mode, conc_params, pool_param_desc);

static void kslot_pool_test_concurrency(struct kunit *test)
{
	const struct pool_param *param = test->param_value;
	struct pool_conc_thread th[2];
	struct kslot_pool_config cfg = {
		.size = sizeof(struct conc_obj),
		.flags = param->flags,
	};
	struct kslot_pool_stats st;
	struct task_struct *t[2];
	struct pool_conc *ctx;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->check_owner = !(param->flags & KSLOT_POOL_DEBUG);
	if (ctx->check_owner) {
		cfg.ctor = conc_ctor;
		ctx->gfp = GFP_KERNEL;
	} else {
		/* Debug mode poisons the owner word: start from zero. */
		ctx->gfp = GFP_KERNEL | __GFP_ZERO;
	}
	kslot_pool_test_passthrough_all(param->passthrough);
	ctx->pool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->pool));
	for (i = 0; i < 2; i++) {
		th[i].ctx = ctx;
		th[i].id = i + 1;
		t[i] = kthread_create(pool_conc_fn, &th[i], "kslot_pool/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		kthread_bind(t[i], i % num_online_cpus());
		get_task_struct(t[i]);
		wake_up_process(t[i]);
	}
	/*
	 * A second at least, up to 30 s until the counts asserted below are
	 * reached (a loaded TCG guest may give the threads little time).
	 */
	for (i = 0; i < 10 || (i < 300 &&
			       (atomic_long_read(&ctx->allocs) <= 1000 ||
				atomic_long_read(&ctx->remote) <= 10)); i++) {
		msleep(100);
		kslot_pool_shrink(ctx->pool);
	}
	atomic_set(&ctx->stop, 1);
	for (i = 0; i < 2; i++) {
		kthread_stop(t[i]);
		put_task_struct(t[i]);
	}
	for (i = 0; i < CONC_XCHG; i++)
		if (ctx->xchg[i])
			conc_release(ctx, ctx->xchg[i]);
	pool_stats(ctx->pool, &st);
	kunit_info(test, "%ld allocs, %ld remote frees, %llu cache hits, %llu misses\n",
		   atomic_long_read(&ctx->allocs),
		   atomic_long_read(&ctx->remote),
		   st.alloc_hits + st.free_hits,
		   st.alloc_misses + st.free_misses);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->dups), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->fails), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->allocs), 1000);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->remote), 10);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	KUNIT_EXPECT_EQ(test, st.double_frees + st.bad_frees +
			      st.poison_errors, 0);
	kslot_pool_shrink(ctx->pool);
	pool_stats(ctx->pool, &st);
	KUNIT_EXPECT_EQ(test, st.slabs, 0);
	kslot_pool_destroy(ctx->pool);
}

/*
 * The context flags: a task-only pool and a softirq-safe pool take the
 * inline fast path like a default one, and hit the same per-CPU cache.
 */
static void kslot_pool_test_context(struct kunit *test)
{
	static const unsigned int modes[] = { 0, KSLOT_POOL_TASK,
					      KSLOT_POOL_BH };
	struct kslot_pool_stats st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		struct kslot_pool *pool = pool_new(test, 64, 0, modes[i]);
		void *a, *b;

		migrate_disable();
		a = kslot_pool_alloc(pool, GFP_KERNEL);
		kslot_pool_free(pool, a);
		b = kslot_pool_alloc(pool, GFP_KERNEL);
		if (modes[i] & KSLOT_POOL_BH) {
			/* As a softirq handler would. */
			local_bh_disable();
			kslot_pool_free(pool, b);
			b = kslot_pool_alloc(pool, GFP_ATOMIC);
			local_bh_enable();
		}
		kslot_pool_free(pool, b);
		pool_stats(pool, &st);
		migrate_enable();
		KUNIT_EXPECT_PTR_EQ_MSG(test, a, b, "mode %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.alloc_misses, 1, "mode %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.alloc_hits,
				    modes[i] & KSLOT_POOL_BH ? 2 : 1,
				    "mode %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.free_hits,
				    modes[i] & KSLOT_POOL_BH ? 3 : 2,
				    "mode %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.in_use, 0, "mode %u", i);
		kslot_pool_destroy(pool);
	}
}

/*
 * The shrinker, driven through its own callbacks as reclaim calls them:
 * it counts the objects of wholly free slabs and of this CPU's cache, and
 * a scan flushes the cache and frees those slabs.
 */
static void kslot_pool_test_shrinker_case(struct kunit *test)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	struct kslot_pool *pool = pool_new(test, 64, 0, 0);
	const unsigned int n = 4 * 63;
	struct kslot_pool_stats st;
	unsigned long count, freed;
	struct shrinker *s;
	void **objs;
	unsigned int i;

	KUNIT_ASSERT_FALSE(test, kslot_pool_test_passthrough(pool));
	s = kslot_pool_test_shrinker(pool);
	KUNIT_ASSERT_NOT_NULL(test, s);
	objs = kunit_kcalloc(test, n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	/* Nothing to give back yet. */
	KUNIT_EXPECT_EQ(test, s->count_objects(s, &sc), SHRINK_EMPTY);

	migrate_disable();
	for (i = 0; i < n; i++) {
		objs[i] = kslot_pool_alloc(pool, GFP_KERNEL);
		if (!objs[i])
			break;
	}
	for (i = 0; i < n && objs[i]; i++)
		kslot_pool_free(pool, objs[i]);
	pool_stats(pool, &st);
	count = s->count_objects(s, &sc);
	/* A scan of one object flushes the cache and frees one slab. */
	sc.nr_to_scan = 1;
	freed = s->scan_objects(s, &sc);
	migrate_enable();
	KUNIT_ASSERT_EQ(test, i, n);
	KUNIT_EXPECT_EQ(test, st.slabs, 4);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	/* Every object is in the slabs or in this CPU's cache. */
	KUNIT_EXPECT_EQ(test, count, st.empty_slabs * 63 + st.cached);
	KUNIT_EXPECT_EQ(test, freed, 63);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.slabs, 3);
	KUNIT_EXPECT_EQ(test, st.cached, 0);

	/* Everything free now: a large scan returns the rest. */
	sc.nr_to_scan = 1024;
	KUNIT_EXPECT_EQ(test, s->scan_objects(s, &sc), 3 * 63);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.slabs, 0);
	KUNIT_EXPECT_EQ(test, st.objects, 0);
	KUNIT_EXPECT_EQ(test, s->count_objects(s, &sc), SHRINK_EMPTY);
	/* The pool still works after giving everything back. */
	objs[0] = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, objs[0]);
	kslot_pool_free(pool, objs[0]);
	kslot_pool_destroy(pool);
}

/*
 * KSLOT_POOL_NOSHRINKER: no shrinker, and kslot_pool_trim() alone gives
 * the empty slabs back.  kslot_pool_create_bytes() is what the new pool
 * takes, for each flag that changes its caches, and 0 where
 * kslot_pool_create() refuses the shape.
 */
static void kslot_pool_test_noshrinker(struct kunit *test)
{
	static const unsigned int flags[] = {
		0, KSLOT_POOL_DEBUG, KSLOT_POOL_SLABS | KSLOT_POOL_NOSHRINKER,
		KSLOT_POOL_TASK | KSLOT_POOL_SLABS | KSLOT_POOL_NOSHRINKER,
	};
	struct kslot_pool_config bad = { .size = 64, .align = 3 };
	struct kslot_pool_stats st;
	struct kslot_pool *pool;
	unsigned int i;
	void *obj;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		struct kslot_pool_config cfg = {
			.size = 72, .cache_size = i, .flags = flags[i],
		};
		size_t bytes = kslot_pool_create_bytes(&cfg);

		pool = kslot_pool_create(&cfg);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
		KUNIT_EXPECT_NE(test, bytes, 0);
		KUNIT_EXPECT_EQ_MSG(test, kslot_pool_bytes(pool), bytes,
				    "flags %#x", flags[i]);
		if (!kslot_pool_test_passthrough(pool))
			KUNIT_EXPECT_EQ(test,
					!kslot_pool_test_shrinker(pool),
					!!(flags[i] & KSLOT_POOL_NOSHRINKER));
		migrate_disable();
		obj = kslot_pool_alloc(pool, GFP_KERNEL);
		kslot_pool_free(pool, obj);
		/* The one object goes back: its slab too. */
		kslot_pool_trim(pool);
		migrate_enable();
		KUNIT_EXPECT_NOT_NULL(test, obj);
		pool_stats(pool, &st);
		if (!kslot_pool_test_passthrough(pool))
			KUNIT_EXPECT_EQ(test, st.slabs, 0);
		KUNIT_EXPECT_EQ(test, st.in_use, 0);
		kslot_pool_destroy(pool);
	}
	KUNIT_EXPECT_EQ(test, kslot_pool_create_bytes(&bad), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&bad)), -EINVAL);
	bad.align = 0;
	bad.cache_size = KSLOT_POOL_MAX_CACHE + 1;
	KUNIT_EXPECT_EQ(test, kslot_pool_create_bytes(&bad), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_pool_create(&bad)), -EINVAL);
}

/* Both paths of the parameterised cases: own slabs, pass-through. */
static const struct pool_param path_params[] = {
	{ "slab", 0 },
	{ "passthrough", 0, true },
};

KUNIT_ARRAY_PARAM(pool_path, path_params, pool_param_desc);

#ifdef CONFIG_FAULT_INJECTION
/*
 * Allocate with the @nth fault point of this task failing (fail-nth, as
 * /proc/self/task/<tid>/fail-nth arms it): kslot's own allocation point
 * comes first, then failslab in kmalloc() or the page allocator.
 * *@injected tells whether the failure was reached.
 */
static void *reserve_alloc_failing(struct kslot_pool *pool, unsigned int nth,
				   bool *injected)
{
	void *obj;

	current->fail_nth = nth;
	obj = kslot_pool_alloc(pool, GFP_ATOMIC);
	*injected = !current->fail_nth;
	current->fail_nth = 0;
	return obj;
}
#endif

/*
 * The reserve: allocations the allocator refuses are served from it, and
 * frees refill it before anything else.
 */
static void kslot_pool_test_min_reserve(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	const struct pool_param *param = test->param_value;
	struct kslot_pool_config cfg = { .size = 64, .min_nr = 3 };
	struct kslot_pool_stats st;
	struct kslot_pool *pool;
	void *objs[64], *o;
	unsigned int nth, i, n = 0;
	bool injected;

	kslot_pool_test_passthrough_all(param->passthrough);
	pool = kslot_pool_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	KUNIT_ASSERT_EQ(test, kslot_pool_test_passthrough(pool),
			param->passthrough);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.reserved, 3);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	/*
	 * Pass-through: the 2nd fault point is kmalloc()'s failslab.  Own
	 * slabs: use up the free objects first; the next allocation needs a
	 * slab, whose kslot fault point is the 1st.
	 */
	nth = param->passthrough ? 2 : 1;
	if (!param->passthrough) {
		/* Every free object back on the slab, then all on this CPU. */
		kslot_pool_shrink(pool);
		pool_stats(pool, &st);
		migrate_disable();
		while (n < st.free)
			objs[n++] = kslot_pool_alloc(pool, GFP_KERNEL);
	}
	for (i = 0; i < 3; i++) {
		o = reserve_alloc_failing(pool, nth, &injected);
		KUNIT_EXPECT_TRUE(test, injected);
		KUNIT_EXPECT_NOT_NULL(test, o);
		if (o)
			objs[n++] = o;
	}
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.reserved, 0);
	KUNIT_EXPECT_EQ(test, st.in_use, n);
	/* The reserve is empty: a refused allocation fails. */
	o = reserve_alloc_failing(pool, nth, &injected);
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_NULL(test, o);
	/* Frees refill the reserve first, then the pool. */
	kslot_pool_free(pool, objs[--n]);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.reserved, 1);
	kslot_pool_free_bulk(pool, n, objs);
	if (!param->passthrough)
		migrate_enable();
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.reserved, 3);
	KUNIT_EXPECT_EQ(test, st.in_use, 0);
	/* A full reserve leaves allocations alone. */
	o = kslot_pool_alloc(pool, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, o);
	pool_stats(pool, &st);
	KUNIT_EXPECT_EQ(test, st.reserved, 3);
	kslot_pool_free(pool, o);
	kslot_pool_destroy(pool);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

/*
 * KASAN sees a pool object used after its free, and read out of bounds:
 * the pass-through gives every object its own kmalloc() object.  KASAN
 * fails whatever test the reporting task runs (current->kunit_test), so
 * the accesses run with a probe test installed there instead, and this
 * test checks the probe failed.  The console markers tell scripts/
 * verdict.py that the report between them is expected.  This case runs
 * last: a KASAN report turns lock debugging off for the rest of the boot.
 *
 * KASAN does not watch KFENCE's objects: every CONFIG_KFENCE_SAMPLE_INTERVAL
 * ms, one slab allocation gets a KFENCE page instead, whose use after free
 * KFENCE reports its own way and whose out-of-bounds reads within the page
 * nobody sees.  The accesses go to objects KFENCE did not sample.
 */
#define KASAN_TEST_TRIES	4

/*
 * An object of pass-through @pool, skipping KFENCE's: those go to
 * @sampled (@nr_sampled of them, KASAN_TEST_TRIES at most in all).
 */
static char *pool_alloc_kasan(struct kslot_pool *pool, void **sampled,
			      unsigned int *nr_sampled)
{
	char *p;

	for (;;) {
		p = kslot_pool_alloc(pool, GFP_KERNEL);
		if (!p || !is_kfence_address(p) ||
		    *nr_sampled == KASAN_TEST_TRIES)
			return p;
		sampled[(*nr_sampled)++] = p;
	}
}

/* The end of kslot_pool_test_kasan_uaf(): free what it holds. */
static void kasan_uaf_end(struct kslot_pool *pool, void *q, void **sampled,
			  unsigned int nr_sampled)
{
	kslot_pool_free(pool, q);
	while (nr_sampled)
		kslot_pool_free(pool, sampled[--nr_sampled]);
	kslot_pool_destroy(pool);
}

static bool kasan_reported(struct kunit *test, struct kunit *probe,
			   const char *addr)
{
	probe->status = KUNIT_SUCCESS;
	current->kunit_test = probe;
	(void)READ_ONCE(*addr);
	current->kunit_test = test;
	return probe->status == KUNIT_FAILURE;
}

static void kslot_pool_test_kasan_uaf(struct kunit *test)
{
	void *sampled[KASAN_TEST_TRIES];
	unsigned int nr_sampled = 0;
	struct kunit *probe;
	struct kslot_pool *pool;
	bool uaf, oob;
	char *p, *q;

	if (!IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "needs CONFIG_KASAN");
	probe = kunit_kzalloc(test, sizeof(*probe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, probe);
	kslot_pool_test_passthrough_all(true);
	pool = pool_new(test, 100, 0, 0);
	KUNIT_ASSERT_TRUE(test, kslot_pool_test_passthrough(pool));
	p = pool_alloc_kasan(pool, sampled, &nr_sampled);
	KUNIT_ASSERT_NOT_NULL(test, p);
	q = pool_alloc_kasan(pool, sampled, &nr_sampled);
	KUNIT_ASSERT_NOT_NULL(test, q);
	if (is_kfence_address(p) || is_kfence_address(q)) {
		/* KFENCE took every try (it samples one per interval). */
		kslot_pool_free(pool, p);
		kasan_uaf_end(pool, q, sampled, nr_sampled);
		kunit_skip(test, "KFENCE sampled %d allocations in a row",
			   KASAN_TEST_TRIES);
	}
	kslot_pool_free(pool, p);
	OPTIMIZER_HIDE_VAR(p);
	OPTIMIZER_HIDE_VAR(q);

	pr_info("kslot: expected KASAN report begin (use after free)\n");
	uaf = kasan_reported(test, probe, p + 10);
	pr_info("kslot: expected KASAN report end\n");
	pr_info("kslot: expected KASAN report begin (out of bounds)\n");
	oob = kasan_reported(test, probe, q + 100);
	pr_info("kslot: expected KASAN report end\n");
	KUNIT_EXPECT_TRUE_MSG(test, uaf, "KASAN did not see the use after free");
	KUNIT_EXPECT_TRUE_MSG(test, oob, "KASAN did not see the out-of-bounds read");
	/* In bounds, live: no report. */
	KUNIT_EXPECT_FALSE(test, kasan_reported(test, probe, q + 99));
	kasan_uaf_end(pool, q, sampled, nr_sampled);
}

struct pool_softirq_free {
	struct timer_list timer;
	struct kslot_pool *pool;
	void *obj;
	bool in_softirq;
	struct completion done;
};

static void pool_softirq_free_fn(struct timer_list *t)
{
	struct pool_softirq_free *f = from_timer(f, t, timer);

	f->in_softirq = in_serving_softirq();
	kslot_pool_free(f->pool, f->obj);
	complete(&f->done);
}

/*
 * A task-only pool freed into from a softirq (a timer here, an RCU
 * callback in a driver) is reported and counted on lockdep kernels; a
 * softirq-safe pool is not.  Pass-throughs, so that the misuse never
 * reaches the per-CPU cache, nor its lockdep class.
 */
static void kslot_pool_test_task_context(struct kunit *test)
{
	static const unsigned int modes[] = { KSLOT_POOL_TASK, KSLOT_POOL_BH };
	struct pool_softirq_free f;
	struct kslot_pool_stats st;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "the context check needs CONFIG_PROVE_LOCKING");
	kslot_pool_test_passthrough_all(true);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		f.pool = pool_new(test, 64, 0, modes[i] | KSLOT_POOL_NOWARN);
		f.obj = kslot_pool_alloc(f.pool, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f.obj);
		f.in_softirq = false;
		init_completion(&f.done);
		timer_setup_on_stack(&f.timer, pool_softirq_free_fn, 0);
		mod_timer(&f.timer, jiffies + 1);
		wait_for_completion(&f.done);
		del_timer_sync(&f.timer);
		destroy_timer_on_stack(&f.timer);
		pool_stats(f.pool, &st);
		KUNIT_EXPECT_TRUE_MSG(test, f.in_softirq, "mode %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.context_errors,
				    modes[i] & KSLOT_POOL_TASK ? 1 : 0,
				    "mode %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.in_use, 0, "mode %u", i);
		kslot_pool_destroy(f.pool);
	}
}

/* Every case runs on the pool's own slabs unless it asks otherwise. */
static int kslot_pool_test_init(struct kunit *test)
{
	test->priv = (void *)(unsigned long)kslot_pool_test_passthrough_all(false);
	return 0;
}

static void kslot_pool_test_exit(struct kunit *test)
{
	kslot_pool_test_passthrough_all((unsigned long)test->priv);
}

static struct kunit_case kslot_pool_test_cases[] = {
	KUNIT_CASE(kslot_pool_test_create),
	KUNIT_CASE(kslot_pool_test_layout),
	KUNIT_CASE(kslot_pool_test_alloc_free),
	KUNIT_CASE(kslot_pool_test_cpu_cache),
	KUNIT_CASE(kslot_pool_test_zero),
	KUNIT_CASE(kslot_pool_test_init_on_alloc),
	KUNIT_CASE(kslot_pool_test_ctor),
	KUNIT_CASE(kslot_pool_test_max_objects),
	KUNIT_CASE(kslot_pool_test_shrink),
	KUNIT_CASE(kslot_pool_test_bulk),
	KUNIT_CASE(kslot_pool_test_destroy_in_use),
	KUNIT_CASE(kslot_pool_test_double_free),
	KUNIT_CASE(kslot_pool_test_foreign),
	KUNIT_CASE(kslot_pool_test_poison),
	KUNIT_CASE(kslot_pool_test_debug_param),
	KUNIT_CASE_PARAM(kslot_pool_test_random, pool_mode_gen_params),
	KUNIT_CASE(kslot_pool_test_fault),
	KUNIT_CASE_PARAM_ATTR(kslot_pool_test_concurrency, conc_mode_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(kslot_pool_test_context),
	KUNIT_CASE(kslot_pool_test_task_context),
	{ .run_case = kslot_pool_test_shrinker_case, .name = "shrinker" },
	{ .run_case = kslot_pool_test_noshrinker, .name = "noshrinker" },
	{ .run_case = kslot_pool_test_min_reserve, .name = "min_reserve",
	  .generate_params = pool_path_gen_params },
	/* Last: see kslot_pool_test_kasan_uaf(). */
	{ .run_case = kslot_pool_test_kasan_uaf,
	  .name = "kasan_sees_use_after_free" },
	{}
};

static struct kunit_suite kslot_pool_test_suite = {
	.name = "kslot_pool",
	.init = kslot_pool_test_init,
	.exit = kslot_pool_test_exit,
	.test_cases = kslot_pool_test_cases,
};

kunit_test_suite(kslot_pool_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_pool");
MODULE_LICENSE("GPL");
