// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_objtable, handle-keyed objects.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kslot_objtable.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct tobj {
	u64 handle;
	u64 check;
	u32 value;
	u8 data[36];
};

static struct kslot_objtable *table_new(struct kunit *test, u32 max,
					unsigned int flags)
{
	struct kslot_objtable_config cfg = {
		.size = sizeof(struct tobj),
		.max_entries = max,
		.flags = flags,
	};
	struct kslot_objtable *t = kslot_objtable_create(&cfg);

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	return t;
}

static unsigned long table_in_use(struct kslot_objtable *t)
{
	struct kslot_objtable_stats st;

	kslot_objtable_stats(t, &st);
	return st.pool.in_use;
}

static void *lookup(struct kslot_objtable *t, u64 h)
{
	void *obj;

	rcu_read_lock();
	obj = __kslot_objtable_lookup(t, h);
	rcu_read_unlock();
	return obj;
}

static void kslot_objtable_test_create(struct kunit *test)
{
	struct kslot_objtable_config cfg = {
		.size = 16,
		.max_entries = 16,
	};
	struct kslot_objtable_stats st;
	struct kslot_objtable *t;

	cfg.size = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);
	cfg.size = SIZE_MAX;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);
	cfg.size = PAGE_SIZE << KSLOT_POOL_MAX_ORDER;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);
	cfg.size = 16;
	cfg.max_entries = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);
	cfg.max_entries = KSLOT_MAX_ENTRIES + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);
	cfg.max_entries = 16;
	cfg.flags = BIT(7);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);
	cfg.flags = KSLOT_OBJTABLE_LOCK_BH | KSLOT_OBJTABLE_LOCK_IRQ;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);
	cfg.flags = 0;
	cfg.align = 24;
	KUNIT_EXPECT_EQ(test, PTR_ERR(kslot_objtable_create(&cfg)), -EINVAL);

	cfg.align = 64;
	cfg.name = "kunit-objtable";
	cfg.flags = KSLOT_OBJTABLE_LOCK_IRQ | KSLOT_OBJTABLE_ACCOUNT;
	t = kslot_objtable_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 0);
	kslot_objtable_stats(t, &st);
	KUNIT_EXPECT_EQ(test, st.map.max_entries, 16);
	KUNIT_EXPECT_EQ(test, st.pool.objects, 0);
	kslot_objtable_destroy(t);
	kslot_objtable_destroy(NULL);
}

static void kslot_objtable_test_lifecycle(struct kunit *test)
{
	struct kslot_objtable *t = table_new(test, 64, 0);
	struct tobj *o;
	u64 h = 0;

	o = kslot_objtable_alloc(t, &h, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	KUNIT_EXPECT_NE(test, h, 0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_gen(&t->map, h), 1);
	KUNIT_EXPECT_NULL(test, memchr_inv(o, 0, sizeof(*o)));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)o, sizeof(u64)));
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, h), o);
	KUNIT_EXPECT_EQ(test, kslot_objtable_handle(t, o), h);
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 1);
	KUNIT_EXPECT_EQ(test, table_in_use(t), 1);

	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h), 0);
	KUNIT_EXPECT_NULL(test, lookup(t, h));
	KUNIT_EXPECT_NULL(test, kslot_objtable_get(t, h));
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, KSLOT_HANDLE_NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 0);
	/* Back in the pool only after a grace period. */
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, table_in_use(t), 0);
	kslot_objtable_destroy(t);
}

/* Seed 002: a slot map is a pool plus generations. */
static void kslot_objtable_test_stale_reuse(struct kunit *test)
{
	struct kslot_objtable *t = table_new(test, 8, 0);
	struct tobj *a, *b;
	u64 ha, hb;

	/* One CPU, so the pool hands the freed memory out again. */
	migrate_disable();
	a = kslot_objtable_alloc(t, &ha, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	a->value = 1;
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, ha), 0);
	rcu_barrier();
	b = kslot_objtable_alloc(t, &hb, GFP_KERNEL);
	migrate_enable();
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	/* Same slot, same memory, newer generation. */
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&t->map, hb),
			kslot_map_handle_index(&t->map, ha));
	KUNIT_EXPECT_EQ(test, kslot_map_handle_gen(&t->map, hb),
			kslot_map_handle_gen(&t->map, ha) + 2);
	KUNIT_EXPECT_PTR_EQ(test, b, a);
	KUNIT_EXPECT_EQ(test, b->value, 0);
	/* The stale handle reaches nothing, and cannot free the new object. */
	KUNIT_EXPECT_NULL(test, lookup(t, ha));
	KUNIT_EXPECT_NULL(test, kslot_objtable_get(t, ha));
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, ha), -ENOENT);
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, hb), b);
	KUNIT_EXPECT_EQ(test, kslot_objtable_handle(t, b), hb);
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 1);
	kslot_objtable_destroy(t);
}

static void kslot_objtable_test_get_put(struct kunit *test)
{
	struct kslot_objtable *t = table_new(test, 8, 0);
	struct tobj *o, *g1, *g2;
	u64 h;

	o = kslot_objtable_alloc(t, &h, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	g1 = kslot_objtable_get(t, h);
	g2 = kslot_objtable_get(t, h);
	KUNIT_EXPECT_PTR_EQ(test, g1, o);
	KUNIT_EXPECT_PTR_EQ(test, g2, o);
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h), 0);
	KUNIT_EXPECT_NULL(test, lookup(t, h));
	KUNIT_EXPECT_NULL(test, kslot_objtable_get(t, h));
	/* References keep the object past the handle and grace periods. */
	o->value = 42;
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, table_in_use(t), 1);
	kslot_objtable_put(t, g1);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, table_in_use(t), 1);
	KUNIT_EXPECT_EQ(test, o->value, 42);
	kslot_objtable_put(t, g2);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, table_in_use(t), 0);
	kslot_objtable_destroy(t);
}

static void kslot_objtable_test_placeholder(struct kunit *test)
{
	struct kslot_objtable *t = table_new(test, 8, 0);
	struct tobj *o, *o2;
	u64 h, h2;

	o = kslot_objtable_alloc_placeholder(t, &h, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	KUNIT_EXPECT_NULL(test, lookup(t, h));
	KUNIT_EXPECT_NULL(test, kslot_objtable_get(t, h));
	KUNIT_EXPECT_EQ(test, kslot_objtable_handle(t, o), h);
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 1);
	o->handle = h;
	o->value = 5;
	KUNIT_EXPECT_EQ(test, kslot_objtable_publish(t, o), 0);
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, h), o);
	KUNIT_EXPECT_EQ(test, kslot_objtable_publish(t, o), 0);
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, h), o);
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h), 0);
	/* Too late to publish an object whose handle is gone. */
	KUNIT_EXPECT_EQ(test, kslot_objtable_publish(t, o), -ENOENT);
	rcu_read_unlock();
	KUNIT_EXPECT_NULL(test, lookup(t, h));
	/* A placeholder can be abandoned. */
	o2 = kslot_objtable_alloc_placeholder(t, &h2, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o2));
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h2), 0);
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 0);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, table_in_use(t), 0);
	kslot_objtable_destroy(t);
}

#define TOBJ_CTOR	0xabcd1234

static void tobj_ctor(void *p)
{
	struct tobj *o = p;

	memset(o, 0x5c, sizeof(*o));
	o->value = TOBJ_CTOR;
}

static void kslot_objtable_test_ctor(struct kunit *test)
{
	struct kslot_objtable_config cfg = {
		.size = sizeof(struct tobj),
		.ctor = tobj_ctor,
		.max_entries = 8,
	};
	struct kslot_objtable *t = kslot_objtable_create(&cfg);
	struct tobj *o;
	u64 h;

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	o = kslot_objtable_alloc(t, &h, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	/* Constructed, not zeroed; the trailer did not touch it. */
	KUNIT_EXPECT_EQ(test, o->value, TOBJ_CTOR);
	KUNIT_EXPECT_NULL(test, memchr_inv(o->data, 0x5c, sizeof(o->data)));
	KUNIT_EXPECT_EQ(test, kslot_objtable_handle(t, o), h);
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, h), o);
	kslot_objtable_destroy(t);
}

static void kslot_objtable_test_enospc(struct kunit *test)
{
	struct kslot_objtable *t = table_new(test, 4, 0);
	struct tobj *o;
	u64 h[4], h5;
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_FALSE(test,
				   IS_ERR(kslot_objtable_alloc(t, &h[i],
							       GFP_KERNEL)));
	h5 = 0;
	o = kslot_objtable_alloc(t, &h5, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(o), -ENOSPC);
	KUNIT_EXPECT_EQ(test, h5, 0);
	/* The object taken for it went straight back to the pool. */
	KUNIT_EXPECT_EQ(test, table_in_use(t), 4);
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 4);
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h[2]), 0);
	o = kslot_objtable_alloc(t, &h5, GFP_KERNEL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(o));
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&t->map, h5),
			kslot_map_handle_index(&t->map, h[2]));
	kslot_objtable_destroy(t);
}

static void kslot_objtable_test_forged(struct kunit *test)
{
	struct kslot_objtable *t = table_new(test, 8, 0);
	struct kslot_objtable *u = table_new(test, 8, 0);
	struct tobj *o, *p;
	u64 h, hu;

	u->map.slots.tag = t->map.slots.tag ^ 1;
	o = kslot_objtable_alloc(t, &h, GFP_KERNEL);
	p = kslot_objtable_alloc(u, &hu, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&t->map, h),
			kslot_map_handle_index(&u->map, hu));
	KUNIT_EXPECT_NULL(test, lookup(t, hu));
	KUNIT_EXPECT_NULL(test, lookup(u, h));
	KUNIT_EXPECT_NULL(test, kslot_objtable_get(t, hu));
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, hu), -ENOENT);
	KUNIT_EXPECT_NULL(test,
			  lookup(t, h + kslot_test_gens(&t->map.slots, 2)));
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, h), o);
	KUNIT_EXPECT_PTR_EQ(test, lookup(u, hu), p);
	kslot_objtable_destroy(t);
	kslot_objtable_destroy(u);
}

/* Destroy frees live handles; a reference still held is reported. */
static void kslot_objtable_test_destroy(struct kunit *test)
{
	struct kslot_objtable *t = table_new(test, 8, KSLOT_OBJTABLE_NOWARN);
	struct kslot_pool *pool = t->pool;
	struct tobj *o, *g;
	u64 h;
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_FALSE(test,
				   IS_ERR(kslot_objtable_alloc(t, &h,
							       GFP_KERNEL)));
	o = kslot_objtable_alloc_placeholder(t, &h, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	g = kslot_objtable_get(t, h);
	KUNIT_EXPECT_NULL(test, g);
	KUNIT_ASSERT_EQ(test, kslot_objtable_publish(t, o), 0);
	g = kslot_objtable_get(t, h);
	KUNIT_EXPECT_PTR_EQ(test, g, o);
	g->value = 9;
	kslot_objtable_destroy(t);
	/* The referenced object was not freed under its holder. */
	KUNIT_EXPECT_EQ(test, g->value, 9);
	KUNIT_EXPECT_EQ(test, kslot_pool_test_reap(pool), 1);
}

/*
 * What the release callback saw: its calls, the objects and their value,
 * and calls it should never get: while the case's reader (which began
 * after the last put) was inside rcu_read_lock(), or from a task inside
 * a read-side section of its own.
 */
#define REL_MAX	8

static struct {
	atomic_t calls;
	atomic_t during_reader;
	atomic_t in_rcu;
	bool reader;
	void *obj[REL_MAX];
	u32 value[REL_MAX];
} rel;

static void rel_reset(void)
{
	memset(&rel, 0, sizeof(rel));
}

static void tobj_release(void *p)
{
	struct tobj *o = p;
	int n = atomic_inc_return(&rel.calls) - 1;

	if (READ_ONCE(rel.reader))
		atomic_inc(&rel.during_reader);
	/*
	 * A task's own read-side section (PREEMPT_RCU counts it per task);
	 * not the one PREEMPT_RT's bottom-half-off callbacks run in.
	 */
	if (in_task() && !in_softirq() && IS_ENABLED(CONFIG_PREEMPT_RCU) &&
	    rcu_preempt_depth())
		atomic_inc(&rel.in_rcu);
	if (n < REL_MAX) {
		rel.obj[n] = p;
		rel.value[n] = o->value;
	}
}

static struct kslot_objtable *rel_table_new(struct kunit *test, u32 max)
{
	struct kslot_objtable_config cfg = {
		.size = sizeof(struct tobj),
		.release = tobj_release,
		.max_entries = max,
	};
	struct kslot_objtable *t = kslot_objtable_create(&cfg);

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	rel_reset();
	return t;
}

/* Enter and leave a reader that began after every put so far. */
static void rel_reader_begin(void)
	__acquires(RCU)
{
	rcu_read_lock();
	WRITE_ONCE(rel.reader, true);
}

static void rel_reader_end(void)
	__releases(RCU)
{
	WRITE_ONCE(rel.reader, false);
	rcu_read_unlock();
}

/*
 * Release runs once per object, a grace period after its last reference
 * (the handle's or a get's), outside any read-side section, and sees the
 * object as its last holder left it.
 */
static void kslot_objtable_test_release(struct kunit *test)
{
	struct kslot_objtable *t = rel_table_new(test, 8);
	struct tobj *o, *g;
	u64 h;

	o = kslot_objtable_alloc(t, &h, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	o->value = 7;
	/* The handle's reference is the last: freed inside a reader. */
	rel_reader_begin();
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.calls), 0);
	rel_reader_end();
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.calls), 1);
	KUNIT_EXPECT_PTR_EQ(test, rel.obj[0], o);
	KUNIT_EXPECT_EQ(test, rel.value[0], 7);
	KUNIT_EXPECT_EQ(test, table_in_use(t), 0);

	/* A get's reference outlives the handle: release waits for it. */
	o = kslot_objtable_alloc(t, &h, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	g = kslot_objtable_get(t, h);
	KUNIT_ASSERT_PTR_EQ(test, g, o);
	KUNIT_EXPECT_EQ(test, kslot_objtable_free(t, h), 0);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.calls), 1);
	KUNIT_EXPECT_EQ(test, table_in_use(t), 1);
	g->value = 8;
	rel_reader_begin();
	kslot_objtable_put(t, g);
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.calls), 1);
	rel_reader_end();
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.calls), 2);
	KUNIT_EXPECT_PTR_EQ(test, rel.obj[1], o);
	KUNIT_EXPECT_EQ(test, rel.value[1], 8);
	KUNIT_EXPECT_EQ(test, table_in_use(t), 0);

	/* Once each: nothing more comes. */
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.calls), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.during_reader), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.in_rcu), 0);
	kslot_objtable_destroy(t);
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.calls), 2);
}

/* Destroy releases every object it frees, placeholders too, once each. */
static void kslot_objtable_test_release_destroy(struct kunit *test)
{
	struct kslot_objtable *t = rel_table_new(test, 8);
	struct tobj *o[4];
	u64 h[4];
	int i, j, seen;

	for (i = 0; i < 4; i++) {
		o[i] = i < 3 ? kslot_objtable_alloc(t, &h[i], GFP_KERNEL) :
			       kslot_objtable_alloc_placeholder(t, &h[i],
								GFP_KERNEL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(o[i]));
		o[i]->value = 100 + i;
	}
	kslot_objtable_destroy(t);
	KUNIT_ASSERT_EQ(test, atomic_read(&rel.calls), 4);
	for (i = 0; i < 4; i++) {
		for (seen = 0, j = 0; j < 4; j++)
			if (rel.obj[j] == o[i]) {
				seen++;
				KUNIT_EXPECT_EQ(test, rel.value[j], 100 + i);
			}
		KUNIT_EXPECT_EQ(test, seen, 1);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&rel.in_rcu), 0);
}

/*
 * Randomised operations against a plain array model.  Marked slow: every
 * free costs a call_rcu(), which the debug kernel makes expensive.  Debug
 * mode is covered by the concurrency test and the kslot_pool suite.
 */
struct ot_entry {
	u64 handle;
	struct tobj *obj;
};

static void kslot_objtable_test_random(struct kunit *test)
{
	const u32 max = 3000, ops = 100000, nstale = 512;
	struct kslot_objtable_stats st;
	struct kslot_objtable *t;
	u32 nlive = 0, i, stale_n = 0;
	struct ot_entry *live;
	struct rnd_state rnd;
	u64 *stale;

	live = kunit_kcalloc(test, max, sizeof(*live), GFP_KERNEL);
	stale = kunit_kcalloc(test, nstale, sizeof(*stale), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, live);
	KUNIT_ASSERT_NOT_NULL(test, stale);
	t = table_new(test, max, 0);
	prandom_seed_state(&rnd, 0x6f626a74ULL);

	for (i = 0; i < ops; i++) {
		u32 op = prandom_u32_state(&rnd) % 100;
		struct tobj *o;
		u32 k;
		u64 h;

		if (op < 40) {
			bool placeholder = op < 10;

			o = placeholder ?
			    kslot_objtable_alloc_placeholder(t, &h,
							     GFP_KERNEL) :
			    kslot_objtable_alloc(t, &h, GFP_KERNEL);
			if (nlive == max) {
				KUNIT_ASSERT_EQ(test, PTR_ERR(o), -ENOSPC);
				continue;
			}
			KUNIT_ASSERT_FALSE(test, IS_ERR(o));
			KUNIT_ASSERT_EQ(test, o->handle, 0);
			KUNIT_ASSERT_EQ(test, kslot_objtable_handle(t, o), h);
			o->handle = h;
			o->check = ~h;
			if (placeholder)
				KUNIT_ASSERT_EQ(test,
						kslot_objtable_publish(t, o), 0);
			live[nlive].handle = h;
			live[nlive++].obj = o;
		} else if (op < 75 && nlive) {
			k = prandom_u32_state(&rnd) % nlive;
			KUNIT_ASSERT_EQ(test,
					kslot_objtable_free(t, live[k].handle),
					0);
			stale[stale_n++ % nstale] = live[k].handle;
			live[k] = live[--nlive];
		} else if (op < 88 && nlive) {
			k = prandom_u32_state(&rnd) % nlive;
			rcu_read_lock();
			o = __kslot_objtable_lookup(t, live[k].handle);
			KUNIT_ASSERT_PTR_EQ(test, o, live[k].obj);
			KUNIT_ASSERT_EQ(test, o->handle, live[k].handle);
			KUNIT_ASSERT_EQ(test, o->check, ~live[k].handle);
			rcu_read_unlock();
		} else if (op < 94 && nlive) {
			k = prandom_u32_state(&rnd) % nlive;
			o = kslot_objtable_get(t, live[k].handle);
			KUNIT_ASSERT_PTR_EQ(test, o, live[k].obj);
			kslot_objtable_put(t, o);
		} else if (stale_n) {
			h = stale[prandom_u32_state(&rnd) % min(stale_n,
								 nstale)];
			KUNIT_ASSERT_NULL(test, lookup(t, h));
			KUNIT_ASSERT_NULL(test, kslot_objtable_get(t, h));
			KUNIT_ASSERT_EQ(test, kslot_objtable_free(t, h),
					-ENOENT);
		}
		KUNIT_ASSERT_EQ(test, kslot_objtable_count(t), nlive);
	}
	for (i = 0; i < nlive; i++)
		KUNIT_EXPECT_PTR_EQ(test, lookup(t, live[i].handle),
				    live[i].obj);
	rcu_barrier();
	kslot_objtable_stats(t, &st);
	KUNIT_EXPECT_EQ(test, st.pool.in_use, nlive);
	KUNIT_EXPECT_EQ(test, st.map.count, nlive);
	KUNIT_EXPECT_EQ(test, st.pool.double_frees + st.pool.bad_frees +
			      st.pool.poison_errors, 0);
	kslot_objtable_destroy(t);
}

/*
 * Allocation failure: every allocation kslot_objtable_create() and
 * kslot_objtable_alloc() make is failed in turn; each must give -ENOMEM
 * and leave the table as it was.
 */
static void kslot_objtable_test_fault(struct kunit *test)
{
	struct kslot_objtable_config cfg = {
		.size = sizeof(struct tobj),
		.max_entries = 1024,
	};
	struct kslot_objtable *t;
	struct tobj *first, *o;
	u32 n, faults = 0;
	bool injected;
	u64 hfirst, h;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	/* The table, then the pool's four allocations (shrinker included). */
	for (n = 1;; n++) {
		t = kslot_test_with_fail_nth(n, &injected,
					     kslot_objtable_create(&cfg));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, PTR_ERR(t), -ENOMEM);
		faults++;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, faults, 5);

	kslot_objtable_destroy(t);

	/*
	 * First alloc: a pool slab, the map's first chunk and its
	 * directory.  A fresh
	 * table each time, so an earlier step's success does not hide a
	 * later step.
	 */
	faults = 0;
	for (n = 1;; n++) {
		t = kslot_objtable_create(&cfg);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		first = kslot_test_with_fail_nth(n, &injected,
						 kslot_objtable_alloc(t, &hfirst,
								      GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_EXPECT_EQ(test, PTR_ERR(first), -ENOMEM);
		KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 0);
		KUNIT_EXPECT_EQ(test, table_in_use(t), 0);
		kslot_objtable_destroy(t);
		faults++;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(first));
	KUNIT_EXPECT_EQ(test, faults, 3);
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, hfirst), first);
	/* The next one finds room in both: no allocation at all. */
	o = kslot_test_with_fail_nth(1, &injected,
				     kslot_objtable_alloc(t, &h, GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_FALSE(test, IS_ERR(o));
	KUNIT_EXPECT_EQ(test, kslot_objtable_count(t), 2);
	KUNIT_EXPECT_PTR_EQ(test, lookup(t, hfirst), first);
	kslot_objtable_destroy(t);
}

/*
 * Concurrency: readers on both CPUs look up and get recently issued
 * handles while a writer frees and allocates.  Objects hold their own
 * handle, written before publication; the pool runs in debug mode, so an
 * object recycled or freed under a reader would show another handle or
 * poison.
 */
#define OT_RING	256

struct ot_conc {
	struct kslot_objtable *t;
	u64 ring[OT_RING];
	atomic_t stop;
	atomic_long_t lookups, hits, gets, wrong, writes;
};

static bool ot_conc_ok(struct ot_conc *ctx, struct tobj *o, u64 h)
{
	return READ_ONCE(o->handle) == h && READ_ONCE(o->check) == ~h &&
	       kslot_objtable_handle(ctx->t, o) == h;
}

static int ot_conc_reader(void *arg)
{
	struct ot_conc *ctx = arg;
	struct rnd_state rnd;
	u32 i = 0;

	prandom_seed_state(&rnd, 99 + raw_smp_processor_id());
	while (!atomic_read(&ctx->stop)) {
		u64 h = READ_ONCE(ctx->ring[prandom_u32_state(&rnd) %
					    OT_RING]);
		struct tobj *o;

		if (prandom_u32_state(&rnd) & 1) {
			rcu_read_lock();
			o = __kslot_objtable_lookup(ctx->t, h);
			if (o) {
				atomic_long_inc(&ctx->hits);
				if (!ot_conc_ok(ctx, o, h))
					atomic_long_inc(&ctx->wrong);
			}
			rcu_read_unlock();
		} else {
			o = kslot_objtable_get(ctx->t, h);
			if (o) {
				atomic_long_inc(&ctx->gets);
				/* Hold it across the writer's free. */
				if (++i % 16 == 0)
					cond_resched();
				if (!ot_conc_ok(ctx, o, h))
					atomic_long_inc(&ctx->wrong);
				kslot_objtable_put(ctx->t, o);
			}
		}
		atomic_long_inc(&ctx->lookups);
		if (++i % 64 == 0)
			cond_resched();
	}
	return 0;
}

static int ot_conc_writer(void *arg)
{
	struct ot_conc *ctx = arg;
	struct rnd_state rnd;
	u32 i = 0;

	prandom_seed_state(&rnd, 7);
	while (!atomic_read(&ctx->stop)) {
		u32 k = prandom_u32_state(&rnd) % OT_RING;
		struct tobj *o;
		u64 h;

		if (ctx->ring[k])
			kslot_objtable_free(ctx->t, ctx->ring[k]);
		o = kslot_objtable_alloc_placeholder(ctx->t, &h, GFP_KERNEL);
		if (IS_ERR(o)) {
			WRITE_ONCE(ctx->ring[k], 0);
			continue;
		}
		o->handle = h;
		o->check = ~h;
		kslot_objtable_publish(ctx->t, o);
		/* Readers also try the stale handle until this store. */
		WRITE_ONCE(ctx->ring[k], h);
		atomic_long_inc(&ctx->writes);
		if (++i % 64 == 0)
			cond_resched();
	}
	return 0;
}

static void kslot_objtable_test_concurrency(struct kunit *test)
{
	struct kslot_objtable_stats st;
	struct ot_conc *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->t = table_new(test, 1024, KSLOT_OBJTABLE_DEBUG);
	kslot_test_run_threads(test, ot_conc_writer, ot_conc_reader, 2, ctx,
			       &ctx->stop, 2000);
	kunit_info(test, "%ld writes, %ld lookups, %ld hits, %ld gets, %ld wrong\n",
		   atomic_long_read(&ctx->writes),
		   atomic_long_read(&ctx->lookups),
		   atomic_long_read(&ctx->hits),
		   atomic_long_read(&ctx->gets),
		   atomic_long_read(&ctx->wrong));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->writes), 100);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->hits), 100);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->gets), 100);
	rcu_barrier();
	kslot_objtable_stats(ctx->t, &st);
	KUNIT_EXPECT_EQ(test, st.pool.in_use, kslot_objtable_count(ctx->t));
	KUNIT_EXPECT_EQ(test, st.pool.double_frees + st.pool.bad_frees +
			      st.pool.poison_errors, 0);
	kslot_objtable_destroy(ctx->t);
}

static struct kunit_case kslot_objtable_test_cases[] = {
	KUNIT_CASE(kslot_objtable_test_create),
	KUNIT_CASE(kslot_objtable_test_lifecycle),
	KUNIT_CASE(kslot_objtable_test_stale_reuse),
	KUNIT_CASE(kslot_objtable_test_get_put),
	KUNIT_CASE(kslot_objtable_test_placeholder),
	KUNIT_CASE(kslot_objtable_test_ctor),
	KUNIT_CASE(kslot_objtable_test_enospc),
	KUNIT_CASE(kslot_objtable_test_forged),
	KUNIT_CASE(kslot_objtable_test_destroy),
	KUNIT_CASE(kslot_objtable_test_release),
	KUNIT_CASE(kslot_objtable_test_release_destroy),
	KUNIT_CASE_SLOW(kslot_objtable_test_random),
	KUNIT_CASE(kslot_objtable_test_fault),
	KUNIT_CASE_SLOW(kslot_objtable_test_concurrency),
	{}
};

/*
 * The cases count the pool's allocations and rely on its reuse order: run
 * them on the pool's own slabs, also on a kernel whose pools default to
 * the sanitizer pass-through (the kslot_stress suite covers that one).
 */
static int kslot_objtable_test_init(struct kunit *test)
{
	test->priv = (void *)(unsigned long)kslot_pool_test_passthrough_all(false);
	return 0;
}

static void kslot_objtable_test_exit(struct kunit *test)
{
	kslot_pool_test_passthrough_all((unsigned long)test->priv);
}

static struct kunit_suite kslot_objtable_test_suite = {
	.name = "kslot_objtable",
	.init = kslot_objtable_test_init,
	.exit = kslot_objtable_test_exit,
	.test_cases = kslot_objtable_test_cases,
};

kunit_test_suite(kslot_objtable_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_objtable");
MODULE_LICENSE("GPL");
