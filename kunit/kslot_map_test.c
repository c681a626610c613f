// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_map, the generational handle table.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kslot_map.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kslot_dev_lib.h"
#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define COOKIE(i)	((void *)(unsigned long)(((i) + 1) * 16))

/* Rejections the map counted, from its stats. */
static u64 map_rejected(struct kslot_map *map)
{
	struct kslot_slots_stats st;

	kslot_map_stats(map, &st);
	return st.rejected;
}

static int map_init(struct kunit *test, struct kslot_map *map, u32 max)
{
	int ret = kslot_map_init(map, NULL, max, 0);

	KUNIT_ASSERT_EQ(test, ret, 0);
	return ret;
}

static void kslot_map_test_init(struct kunit *test)
{
	struct kslot_map map;

	KUNIT_EXPECT_EQ(test, kslot_map_init(&map, NULL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_map_init(&map, NULL, KSLOT_MAX_ENTRIES + 1,
					     0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_map_init(&map, NULL, 16, BIT(7)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_map_init(&map, NULL, 16,
					     KSLOT_MAP_LOCK_BH |
					     KSLOT_MAP_LOCK_IRQ), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_map_init(&map, "kunit", KSLOT_MAX_ENTRIES,
					     KSLOT_MAP_LOCK_IRQ |
					     KSLOT_MAP_ACCOUNT), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	KUNIT_EXPECT_EQ(test, map.slots.capacity, 0);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_alloc(struct kunit *test)
{
	struct kslot_map map;
	u64 h1 = 0, h2 = 0;

	map_init(test, &map, 64);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h1, COOKIE(1),
					      GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h2, COOKIE(2),
					      GFP_KERNEL), 0);
	KUNIT_EXPECT_NE(test, h1, 0);
	KUNIT_EXPECT_NE(test, h1, h2);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, h1), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, h2), 1);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_gen(&map, h1), 1);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_handle_tag(&map.slots, h1), map.slots.tag);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 2);
	KUNIT_EXPECT_EQ(test, map.slots.capacity, 64);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_lookup(struct kunit *test)
{
	struct kslot_map map;
	u64 h = 0;

	map_init(test, &map, 64);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(7), GFP_KERNEL),
			0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(7));
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, __kslot_map_lookup(&map, h), COOKIE(7));
	rcu_read_unlock();
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h + 1));
	KUNIT_EXPECT_EQ(test, map_rejected(&map), 1);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_remove(struct kunit *test)
{
	struct kslot_map map;
	u64 h = 0;

	map_init(test, &map, 64);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(3), GFP_KERNEL),
			0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, h), COOKIE(3));
	KUNIT_EXPECT_NULL(test, kslot_map_remove(&map, h));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	KUNIT_EXPECT_EQ(test, map.slots.free_head, 0);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_replace(struct kunit *test)
{
	struct kslot_map map;
	u64 h = 0;
	void *old;

	map_init(test, &map, 64);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(1), GFP_KERNEL),
			0);
	KUNIT_EXPECT_EQ(test, kslot_map_replace(&map, h, COOKIE(2), &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(2));
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, h), COOKIE(2));
	KUNIT_EXPECT_EQ(test, kslot_map_replace(&map, h, COOKIE(3), NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	kslot_map_destroy(&map, NULL, NULL);
}

/* Placeholder then publish, as iommufd does with XA_ZERO_ENTRY. */
static void kslot_map_test_placeholder(struct kunit *test)
{
	struct kslot_map map;
	u32 index = 0;
	u64 h = 0, it;
	void *obj;
	int seen = 0;
	void *old;

	map_init(test, &map, 64);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, NULL, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 1);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	kslot_map_for_each(&map, index, it, obj)
		seen++;
	KUNIT_EXPECT_EQ(test, seen, 0);
	KUNIT_EXPECT_EQ(test, kslot_map_replace(&map, h, COOKIE(9), &old), 0);
	KUNIT_EXPECT_NULL(test, old);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(9));
	/* A placeholder can also be abandoned. */
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, NULL, GFP_KERNEL), 0);
	KUNIT_EXPECT_NULL(test, kslot_map_remove(&map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 1);
	/* Remove gives NULL for both; remove_if tells them apart. */
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, NULL, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_remove_if(&map, h, NULL), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_remove_if(&map, h, NULL), -ENOENT);
	KUNIT_EXPECT_NULL(test, kslot_map_remove(&map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 1);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_count(struct kunit *test)
{
	struct kslot_map map;
	u64 h[10];
	int i;

	map_init(test, &map, 64);
	for (i = 0; i < 10; i++) {
		KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h[i], COOKIE(i),
						      GFP_KERNEL), 0);
		KUNIT_EXPECT_EQ(test, kslot_map_count(&map), i + 1);
	}
	for (i = 0; i < 10; i += 2)
		kslot_map_remove(&map, h[i]);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 5);
	kslot_map_destroy(&map, NULL, NULL);
}

static void count_destroyed(void *obj, u64 handle, void *data)
{
	unsigned long *sum = data;

	*sum += (unsigned long)obj;
}

static void kslot_map_test_destroy(struct kunit *test)
{
	unsigned long sum = 0;
	struct kslot_map map;
	u64 h;

	map_init(test, &map, 64);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(0), GFP_KERNEL),
			0);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(1), GFP_KERNEL),
			0);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(2), GFP_KERNEL),
			0);
	kslot_map_remove(&map, h);
	kslot_map_destroy(&map, count_destroyed, &sum);
	KUNIT_EXPECT_EQ(test, sum, (unsigned long)COOKIE(0) +
				   (unsigned long)COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
}

static void kslot_map_test_stats(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_map map;
	u64 h;

	map_init(test, &map, 300);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(0), GFP_KERNEL),
			0);
	kslot_map_remove(&map, h);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, KSLOT_HANDLE_NULL));
	kslot_map_stats(&map, &st);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	KUNIT_EXPECT_EQ(test, st.capacity, KSLOT_SLOTS_MIN);
	KUNIT_EXPECT_EQ(test, st.max_entries, 300);
	KUNIT_EXPECT_EQ(test, st.retired, 0);
	/* The null handle is not counted as a rejection. */
	KUNIT_EXPECT_EQ(test, st.rejected, 1);
	kslot_map_destroy(&map, NULL, NULL);
}

struct ref_obj {
	struct kref ref;
	struct rcu_head rcu;
	int released;
};

static void ref_obj_release(struct kref *ref)
{
	container_of(ref, struct ref_obj, ref)->released++;
}

static void kslot_map_test_get(struct kunit *test)
{
	struct ref_obj *obj, *got;
	struct kslot_map map;
	u64 h;

	obj = kunit_kzalloc(test, sizeof(*obj), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	kref_init(&obj->ref);
	map_init(test, &map, 8);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, obj, GFP_KERNEL), 0);
	got = kslot_map_get(&map, h, struct ref_obj, ref, ref_obj_release);
	KUNIT_EXPECT_PTR_EQ(test, got, obj);
	KUNIT_EXPECT_EQ(test, kref_read(&obj->ref), 2);
	kref_put(&obj->ref, ref_obj_release);
	/* An object whose last reference is gone is not resurrected. */
	kref_put(&obj->ref, ref_obj_release);
	KUNIT_EXPECT_EQ(test, obj->released, 1);
	KUNIT_EXPECT_NULL(test, kslot_map_get(&map, h, struct ref_obj, ref,
					      ref_obj_release));
	KUNIT_EXPECT_EQ(test, kref_read(&obj->ref), 0);
	/* A stale handle takes no reference. */
	kref_init(&obj->ref);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, h), obj);
	KUNIT_EXPECT_NULL(test, kslot_map_get(&map, h, struct ref_obj, ref,
					      ref_obj_release));
	KUNIT_EXPECT_EQ(test, kref_read(&obj->ref), 1);
	kslot_map_destroy(&map, NULL, NULL);
}

/* Writers on a KSLOT_MAP_LOCK_IRQ map work with interrupts disabled. */
static void kslot_map_test_irq_context(struct kunit *test)
{
	const u32 n = KSLOT_SLOTS_MIN + 44;
	struct kslot_map map;
	unsigned long flags;
	int ret = 0;
	u32 i;
	u64 *h;

	h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_EQ(test, kslot_map_init(&map, NULL, 1024,
					     KSLOT_MAP_LOCK_IRQ), 0);
	flags = kslot_test_irq_enter();
	for (i = 0; i < n && !ret; i++)
		ret = kslot_map_alloc(&map, &h[i], COOKIE(i), GFP_ATOMIC);
	for (i = 0; i < n && !ret; i++)
		if (kslot_map_remove(&map, h[i]) != COOKIE(i))
			ret = -EINVAL;
	kslot_test_irq_exit(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	KUNIT_EXPECT_EQ(test, map.slots.capacity, 2 * KSLOT_SLOTS_MIN);
	kslot_map_destroy(&map, NULL, NULL);
}

/* Seed 000's timeline: a stale key is refused after its slot is reused. */
static void kslot_map_test_seed_timeline(struct kunit *test)
{
	struct kslot_map map;
	u64 a, b;

	map_init(test, &map, 8);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &a, COOKIE('A'),
					      GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, a), 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, a), COOKIE('A'));
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &b, COOKIE('B'),
					      GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, b), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_gen(&map, a), 1);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_gen(&map, b), 3);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, a));
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, b), COOKIE('B'));
	KUNIT_EXPECT_NULL(test, kslot_map_remove(&map, a));
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, b), COOKIE('B'));
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_null_handle(struct kunit *test)
{
	struct kslot_map map;
	u64 h;

	map_init(test, &map, 8);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(0), GFP_KERNEL),
			0);
	/* Make the null handle's tag match so only the generation refuses it. */
	map.slots.tag = 0;
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, KSLOT_HANDLE_NULL));
	KUNIT_EXPECT_NULL(test, kslot_map_remove(&map, KSLOT_HANDLE_NULL));
	KUNIT_EXPECT_EQ(test, kslot_map_replace(&map, KSLOT_HANDLE_NULL,
						COOKIE(1), NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 1);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_forged(struct kunit *test)
{
	struct kslot_map map, other;
	u64 h, oh, h2;

	map_init(test, &map, 1000);
	map_init(test, &other, 1000);
	other.slots.tag = map.slots.tag ^ 1;
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(0), GFP_KERNEL),
			0);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&other, &oh, COOKIE(1),
					      GFP_KERNEL), 0);
	/* Same index and generation, other map. */
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, h),
			kslot_map_handle_index(&other, oh));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, oh));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&other, h));
	KUNIT_EXPECT_NULL(test, kslot_map_remove(&map, oh));
	/* Index beyond the allocated slots, and beyond max_entries. */
	h2 = kslot_slots_handle_make(&map.slots, KSLOT_SLOTS_MIN, 1);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h2));
	h2 = kslot_slots_handle_make(&map.slots, map.slots.index_mask, 1);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h2));
	/* Wrong generation: older, newer, even. */
	h2 = h + kslot_test_gens(&map.slots, 2);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h2));
	h2 = h + kslot_test_gens(&map.slots, 1);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h2));
	/* A free slot in range. */
	h2 = kslot_slots_handle_make(&map.slots, 1, 1);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h2));
	/* Six lookups and the remove. */
	KUNIT_EXPECT_EQ(test, map_rejected(&map), 7);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(0));
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 1);
	kslot_map_destroy(&map, NULL, NULL);
	kslot_map_destroy(&other, NULL, NULL);
}

static void kslot_map_test_retire(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_map map;
	u64 h, h2, gmax;

	map_init(test, &map, 8);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(0), GFP_KERNEL),
			0);
	kslot_map_remove(&map, h);
	/* The hook refuses live slots and odd generations. */
	gmax = BIT_ULL(kslot_slots_gen_bits(&map.slots)) - 1;
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&map.slots, 0, gmax),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&map.slots, 0, gmax - 1),
			0);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(1), GFP_KERNEL),
			0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, h), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_gen(&map, h), gmax);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, map.slots.free_head, 1);
	kslot_map_stats(&map, &st);
	KUNIT_EXPECT_EQ(test, st.retired, 1);
	/* Slot 0 is never handed out again. */
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h2, COOKIE(2), GFP_KERNEL),
			0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, h2), 1);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	/* Every handle that ever named slot 0 stays dead. */
	h2 = kslot_slots_handle_make(&map.slots, 0, 1);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h2));
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&map.slots, 0, 2), -EINVAL);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_growth(struct kunit *test)
{
	const u32 n = 5 * KSLOT_SLOTS_MIN + 3;
	struct kslot_map map;
	u64 *h;
	u32 i;

	h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	map_init(test, &map, KSLOT_MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h[i], COOKIE(i),
						      GFP_KERNEL), 0);
		KUNIT_ASSERT_EQ(test, kslot_map_handle_index(&map, h[i]), i);
	}
	/* A chunk at a time: six chunks for five and a bit. */
	KUNIT_EXPECT_EQ(test, map.slots.capacity, 6 * KSLOT_SLOTS_CHUNK);
	/* Objects never move: every handle still reaches its own. */
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h[i]),
				    COOKIE(i));
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_enospc(struct kunit *test)
{
	const u32 max = KSLOT_SLOTS_MIN + 10;
	struct kslot_map map;
	u64 h, first = 0;
	u32 i;

	map_init(test, &map, max);
	for (i = 0; i < max; i++) {
		KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(i),
						      GFP_KERNEL), 0);
		if (!i)
			first = h;
	}
	KUNIT_EXPECT_EQ(test, map.slots.capacity, max);
	KUNIT_EXPECT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(0), GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), max);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, first), COOKIE(0));
	KUNIT_EXPECT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(1), GFP_KERNEL),
			0);
	KUNIT_EXPECT_EQ(test, kslot_map_handle_index(&map, h), 0);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_iterate_remove(struct kunit *test)
{
	const u32 n = 600;
	struct kslot_map map;
	unsigned long *seen;
	u32 index, i, visits = 0;
	u64 handle;
	void *obj;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	map_init(test, &map, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &handle, COOKIE(i),
						      GFP_KERNEL), 0);
	kslot_map_for_each(&map, index, handle, obj) {
		i = (unsigned long)obj / 16 - 1;
		KUNIT_EXPECT_FALSE(test, __test_and_set_bit(i, seen));
		KUNIT_EXPECT_EQ(test, index, i);
		KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, handle), obj);
		visits++;
		/* Remove the current entry, and every third the one after. */
		KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, handle), obj);
		if (i % 3 == 0 && i + 1 < n)
			kslot_map_remove(&map,
					 kslot_slots_handle_make(&map.slots,
								 i + 1, 1));
	}
	KUNIT_EXPECT_EQ(test, visits, n - n / 3);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	kslot_map_destroy(&map, NULL, NULL);
}

/* kslot_map_find() as xa_find(): the first live object in *index .. max. */
static void kslot_map_test_find(struct kunit *test)
{
	struct kslot_map map;
	u32 index, i, seen = 0;
	u64 h[5], it = 0;
	void *obj;

	map_init(test, &map, 64);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h[i],
						      i == 2 ? NULL : COOKIE(i),
						      GFP_KERNEL), 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(&map, h[1]), COOKIE(1));
	index = 0;
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_find(&map, &index, 0, &it),
			    COOKIE(0));
	KUNIT_EXPECT_EQ(test, index, 0);
	KUNIT_EXPECT_EQ(test, it, h[0]);
	/* Slot 1 is free, slot 2 a placeholder: nothing up to max 2. */
	index = 1;
	KUNIT_EXPECT_NULL(test, kslot_map_find(&map, &index, 2, &it));
	KUNIT_EXPECT_EQ(test, index, 1);
	KUNIT_EXPECT_EQ(test, it, h[0]);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_find(&map, &index, 3, &it),
			    COOKIE(3));
	KUNIT_EXPECT_EQ(test, index, 3);
	KUNIT_EXPECT_EQ(test, it, h[3]);
	index = U32_MAX;
	KUNIT_EXPECT_NULL(test, kslot_map_find(&map, &index, U32_MAX, &it));
	KUNIT_EXPECT_EQ(test, index, U32_MAX);
	/* The walk's index is the find's cursor: 0, 3, 4. */
	kslot_map_for_each(&map, index, it, obj) {
		KUNIT_EXPECT_EQ(test, it, h[index]);
		KUNIT_EXPECT_PTR_EQ(test, obj, COOKIE(index));
		seen |= BIT(index);
	}
	KUNIT_EXPECT_EQ(test, seen, BIT(0) | BIT(3) | BIT(4));
	/* Its last find started after slot 4 and found nothing. */
	KUNIT_EXPECT_EQ(test, index, 5);
	kslot_map_destroy(&map, NULL, NULL);
}

/* Randomised operations against a plain array model. */
struct model_entry {
	u64 handle;
	void *obj;
};

static void kslot_map_test_random(struct kunit *test)
{
	const u32 max = 3000, ops = 100000, nstale = 512;
	struct model_entry *live;
	struct rnd_state rnd;
	struct kslot_map map;
	u32 nlive = 0, i, stale_n = 0;
	u64 *stale;

	live = kunit_kcalloc(test, max, sizeof(*live), GFP_KERNEL);
	stale = kunit_kcalloc(test, nstale, sizeof(*stale), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, live);
	KUNIT_ASSERT_NOT_NULL(test, stale);
	prandom_seed_state(&rnd, 0x6b736c6f74ULL);
	map_init(test, &map, max);

	for (i = 0; i < ops; i++) {
		u32 op = prandom_u32_state(&rnd) % 100;
		u32 k;

		if (op < 45) {
			u64 h;
			int ret = kslot_map_alloc(&map, &h, COOKIE(i),
						  GFP_KERNEL);

			if (nlive == max) {
				KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
				continue;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			live[nlive].handle = h;
			live[nlive++].obj = COOKIE(i);
		} else if (op < 80 && nlive) {
			k = prandom_u32_state(&rnd) % nlive;
			KUNIT_ASSERT_PTR_EQ(test,
					    kslot_map_remove(&map,
							     live[k].handle),
					    live[k].obj);
			stale[stale_n++ % nstale] = live[k].handle;
			live[k] = live[--nlive];
		} else if (op < 95 && nlive) {
			k = prandom_u32_state(&rnd) % nlive;
			KUNIT_ASSERT_PTR_EQ(test,
					    kslot_map_lookup(&map,
							     live[k].handle),
					    live[k].obj);
		} else if (stale_n) {
			k = prandom_u32_state(&rnd) % min(stale_n, nstale);
			KUNIT_ASSERT_NULL(test,
					  kslot_map_lookup(&map, stale[k]));
		}
		KUNIT_ASSERT_EQ(test, kslot_map_count(&map), nlive);
	}
	for (i = 0; i < nlive; i++)
		KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map,
							   live[i].handle),
				    live[i].obj);
	kslot_map_destroy(&map, NULL, NULL);
}

/*
 * Concurrency: readers look up recently issued handles while a writer
 * allocates and removes.  Objects carry their own handle, published with
 * placeholder-then-replace, so a reader can tell if a handle ever reached an
 * object inserted under another handle.  Freed objects go through
 * kfree_rcu(), so KASAN catches a reader touching freed memory.
 */
struct conc_obj {
	u64 handle;
	struct rcu_head rcu;
};

#define CONC_RING	256

struct conc_ctx {
	struct kslot_map map;
	u64 ring[CONC_RING];
	atomic_t stop;
	atomic_long_t lookups, hits, wrong;
	atomic_long_t writes;
	struct completion done[3];
};

static int conc_reader(void *arg)
{
	struct conc_ctx *ctx = arg;
	struct rnd_state rnd;
	int id = smp_processor_id();

	prandom_seed_state(&rnd, 42 + id);
	while (!atomic_read(&ctx->stop)) {
		u64 h = READ_ONCE(ctx->ring[prandom_u32_state(&rnd) %
					    CONC_RING]);
		struct conc_obj *obj;

		rcu_read_lock();
		obj = __kslot_map_lookup(&ctx->map, h);
		if (obj) {
			atomic_long_inc(&ctx->hits);
			if (READ_ONCE(obj->handle) != h)
				atomic_long_inc(&ctx->wrong);
		}
		rcu_read_unlock();
		atomic_long_inc(&ctx->lookups);
		cond_resched();
	}
	return 0;
}

static int conc_writer(void *arg)
{
	struct conc_ctx *ctx = arg;
	struct rnd_state rnd;
	u32 i = 0;

	prandom_seed_state(&rnd, 7);
	while (!atomic_read(&ctx->stop)) {
		u32 k = prandom_u32_state(&rnd) % CONC_RING;
		u64 old = ctx->ring[k], h;
		struct conc_obj *obj;

		if (old) {
			obj = kslot_map_remove(&ctx->map, old);
			if (obj)
				kfree_rcu(obj, rcu);
			WRITE_ONCE(ctx->ring[k], 0);
		}
		obj = kzalloc(sizeof(*obj), GFP_KERNEL);
		if (!obj)
			continue;
		if (kslot_map_alloc(&ctx->map, &h, NULL, GFP_KERNEL)) {
			kfree(obj);
			continue;
		}
		obj->handle = h;
		kslot_map_replace(&ctx->map, h, obj, NULL);
		/* Readers also try stale handles of this ring slot. */
		WRITE_ONCE(ctx->ring[k], h);
		atomic_long_inc(&ctx->writes);
		if (++i % 64 == 0)
			cond_resched();
	}
	return 0;
}

static void conc_free(void *obj, u64 handle, void *data)
{
	kfree(obj);
}

static void kslot_map_test_concurrency(struct kunit *test)
{
	struct conc_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, kslot_map_init(&ctx->map, NULL, 1024, 0), 0);
	kslot_test_run_threads(test, conc_writer, conc_reader, 2, ctx,
			       &ctx->stop, 2000);
	kunit_info(test, "%ld writes, %ld lookups, %ld hits, %ld wrong\n",
		   atomic_long_read(&ctx->writes),
		   atomic_long_read(&ctx->lookups),
		   atomic_long_read(&ctx->hits),
		   atomic_long_read(&ctx->wrong));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->writes), 100);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->hits), 100);
	kslot_map_destroy(&ctx->map, conc_free, NULL);
	rcu_barrier();
}

/*
 * Allocation failure: every allocation a growth step makes is failed in
 * turn, and each failure must give -ENOMEM and leave the map as it was.
 */
static void kslot_map_test_fault(struct kunit *test)
{
	const u32 prefill = KSLOT_SLOTS_MIN;
	struct kslot_slots_stats before, after;
	struct kslot_map map;
	u32 n, faults = 0;
	bool injected;
	u64 first, h;
	int ret;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	map_init(test, &map, KSLOT_MAX_ENTRIES);
	/* First alloc: the first table. */
	for (n = 1;; n++) {
		ret = kslot_test_with_fail_nth(n, &injected,
					       kslot_map_alloc(&map, &first,
							       COOKIE(0),
							       GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
		KUNIT_ASSERT_EQ(test, kslot_map_count(&map), 0);
		KUNIT_ASSERT_EQ(test, map.slots.capacity, 0);
		faults++;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* The chunk, the directory (with its counter). */
	KUNIT_EXPECT_EQ(test, faults, 2);
	for (n = 1; n < prefill; n++)
		KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(n),
						      GFP_KERNEL), 0);
	/* Next alloc: the second chunk (the directory has room for it). */
	kslot_map_stats(&map, &before);
	for (n = 1;; n++) {
		ret = kslot_test_with_fail_nth(n, &injected,
					       kslot_map_alloc(&map, &h, COOKIE(1),
							       GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
		kslot_map_stats(&map, &after);
		KUNIT_ASSERT_EQ(test, after.count, before.count);
		KUNIT_ASSERT_EQ(test, after.capacity, before.capacity);
		KUNIT_ASSERT_PTR_EQ(test, kslot_map_lookup(&map, first),
				    COOKIE(0));
		faults++;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, faults, 3);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), prefill + 1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(1));
	/* A slot from the free list needs no allocation at all. */
	kslot_map_remove(&map, h);
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_map_alloc(&map, &h, COOKIE(2),
						       GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, injected);
	kslot_map_destroy(&map, NULL, NULL);
}

/* The xa_lock() pattern: lookups and writers under the map's own lock. */
static void kslot_map_test_lock(struct kunit *test)
{
	static const unsigned int modes[] = {
		0, KSLOT_MAP_LOCK_BH, KSLOT_MAP_LOCK_IRQ,
	};
	struct kslot_map map;
	unsigned long flags;
	u32 i;
	u64 h;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		KUNIT_ASSERT_EQ(test, kslot_map_init(&map, NULL, 16, modes[i]),
				0);
		KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(i),
						      GFP_KERNEL), 0);
		flags = kslot_map_lock(&map);
		if (IS_ENABLED(CONFIG_LOCKDEP))
			KUNIT_EXPECT_TRUE(test,
					  lockdep_is_held(&map.slots.lock));
		if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
			KUNIT_EXPECT_EQ(test, irqs_disabled(),
					modes[i] == KSLOT_MAP_LOCK_IRQ);
			KUNIT_EXPECT_EQ(test, !!softirq_count(),
					modes[i] == KSLOT_MAP_LOCK_BH);
		}
		KUNIT_EXPECT_PTR_EQ(test, __kslot_map_lookup(&map, h),
				    COOKIE(i));
		kslot_map_unlock(&map, flags);
		if (IS_ENABLED(CONFIG_LOCKDEP))
			KUNIT_EXPECT_FALSE(test,
					   lockdep_is_held(&map.slots.lock));
		KUNIT_EXPECT_FALSE(test, irqs_disabled());
		kslot_map_destroy(&map, NULL, NULL);
	}
}

/* The idr_preload() pattern: reserve, then allocate under a spinlock. */
static void kslot_map_test_reserve_preload(struct kunit *test)
{
	static DEFINE_SPINLOCK(drv_lock);
	struct kslot_map map;
	bool injected;
	u64 h = 0;
	int ret;

	map_init(test, &map, 64);
	KUNIT_EXPECT_EQ(test, kslot_map_reserve(&map, 65, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, map.slots.capacity, 0);
	KUNIT_ASSERT_EQ(test, kslot_map_reserve(&map, 1, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, map.slots.capacity, 64);
	spin_lock(&drv_lock);
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_map_alloc(&map, &h, COOKIE(1),
						       GFP_ATOMIC));
	spin_unlock(&drv_lock);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_EQ(test, h, kslot_slots_handle_make(&map.slots, 0, 1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(1));
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_locked_alloc(struct kunit *test)
{
	struct kslot_map map;
	unsigned long flags;
	u64 h0 = 0, h1 = 0;

	map_init(test, &map, 1);
	flags = kslot_map_lock(&map);
	KUNIT_EXPECT_EQ(test, __kslot_map_alloc(&map, &h0, COOKIE(0)),
			-ENOMEM);
	kslot_map_unlock(&map, flags);
	KUNIT_EXPECT_EQ(test, h0, 0);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	KUNIT_ASSERT_EQ(test, kslot_map_reserve(&map, 1, GFP_KERNEL), 0);
	flags = kslot_map_lock(&map);
	KUNIT_EXPECT_EQ(test, __kslot_map_alloc(&map, &h0, COOKIE(0)), 0);
	KUNIT_EXPECT_PTR_EQ(test, __kslot_map_lookup(&map, h0), COOKIE(0));
	KUNIT_EXPECT_EQ(test, __kslot_map_alloc(&map, &h1, COOKIE(1)),
			-ENOSPC);
	kslot_map_unlock(&map, flags);
	KUNIT_EXPECT_EQ(test, h0, kslot_slots_handle_make(&map.slots, 0, 1));
	KUNIT_EXPECT_EQ(test, h1, 0);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 1);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_locked_replace(struct kunit *test)
{
	struct kslot_map map;
	unsigned long flags;
	u64 h = 0;
	void *old;

	map_init(test, &map, 16);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, NULL, GFP_KERNEL), 0);
	flags = kslot_map_lock(&map);
	KUNIT_EXPECT_EQ(test, __kslot_map_replace(&map, h, COOKIE(1), &old), 0);
	KUNIT_EXPECT_NULL(test, old);
	KUNIT_EXPECT_EQ(test, __kslot_map_replace(&map, h, COOKIE(2), &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(1));
	KUNIT_EXPECT_EQ(test, __kslot_map_replace(&map, h ^ 1, COOKIE(3), NULL),
			-ENOENT);
	kslot_map_unlock(&map, flags);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(2));
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_locked_remove(struct kunit *test)
{
	struct kslot_map map;
	unsigned long flags;
	u64 h = 0, h2 = 0;

	map_init(test, &map, 16);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(1), GFP_KERNEL),
			0);
	flags = kslot_map_lock(&map);
	KUNIT_EXPECT_PTR_EQ(test, __kslot_map_remove(&map, h), COOKIE(1));
	KUNIT_EXPECT_NULL(test, __kslot_map_remove(&map, h));
	/* The freed slot is taken again under the same lock hold. */
	KUNIT_EXPECT_EQ(test, __kslot_map_alloc(&map, &h2, COOKIE(2)), 0);
	kslot_map_unlock(&map, flags);
	KUNIT_EXPECT_EQ(test, h2, kslot_slots_handle_make(&map.slots, 0, 3));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h2), COOKIE(2));
	kslot_map_destroy(&map, NULL, NULL);
}

/* iommufd's placeholder-then-publish: alloc NULL, publish with replace_if. */
static void kslot_map_test_replace_if(struct kunit *test)
{
	struct kslot_map map;
	u64 h = 0;

	map_init(test, &map, 16);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, NULL, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_replace_if(&map, h, COOKIE(5),
						   COOKIE(1)), -EBUSY);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_replace_if(&map, h, NULL, COOKIE(1)),
			0);
	KUNIT_EXPECT_EQ(test, kslot_map_replace_if(&map, h, NULL, COOKIE(2)),
			-EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_map_replace_if(&map, h ^ 1, COOKIE(1),
						   COOKIE(2)), -ENOENT);
	kslot_map_remove(&map, h);
	KUNIT_EXPECT_EQ(test, kslot_map_replace_if(&map, h, COOKIE(1),
						   COOKIE(2)), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_locked_replace_if(struct kunit *test)
{
	struct kslot_map map;
	unsigned long flags;
	u64 h = 0, h2;

	map_init(test, &map, 16);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(1),
					      GFP_KERNEL), 0);
	flags = kslot_map_lock(&map);
	KUNIT_EXPECT_EQ(test, __kslot_map_replace_if(&map, h, NULL, COOKIE(2)),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, __kslot_map_replace_if(&map, h, COOKIE(1),
						     COOKIE(2)), 0);
	KUNIT_EXPECT_PTR_EQ(test, __kslot_map_lookup(&map, h), COOKIE(2));
	h2 = h + kslot_test_gens(&map.slots, 2);
	KUNIT_EXPECT_EQ(test, __kslot_map_replace_if(&map, h2, COOKIE(2), NULL),
			-ENOENT);
	kslot_map_unlock(&map, flags);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), COOKIE(2));
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_map_test_remove_if(struct kunit *test)
{
	struct kslot_map map;
	u64 h = 0;

	map_init(test, &map, 16);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, COOKIE(1),
					      GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_remove_if(&map, h, COOKIE(2)), -EBUSY);
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 1);
	KUNIT_EXPECT_EQ(test, kslot_map_remove_if(&map, h ^ 1, COOKIE(1)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_map_remove_if(&map, h, COOKIE(1)), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_remove_if(&map, h, COOKIE(1)), -ENOENT);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	kslot_map_destroy(&map, NULL, NULL);
}

struct users_obj {
	refcount_t users;
};

/*
 * iommufd's get and remove-if-last-user under the lock: a get takes a
 * user reference under the lock; the remove happens only when the map
 * holds the last one.
 */
static void kslot_map_test_locked_remove_if(struct kunit *test)
{
	struct users_obj obj = { .users = REFCOUNT_INIT(1) };
	struct kslot_map map;
	unsigned long flags;
	struct users_obj *p;
	u64 h = 0;
	int ret = -EINVAL;

	map_init(test, &map, 16);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, &obj, GFP_KERNEL), 0);
	flags = kslot_map_lock(&map);
	p = __kslot_map_lookup(&map, h);
	if (p && !refcount_inc_not_zero(&p->users))
		p = NULL;
	kslot_map_unlock(&map, flags);
	KUNIT_ASSERT_PTR_EQ(test, p, &obj);
	/* A user is out: not the last reference, nothing removed. */
	flags = kslot_map_lock(&map);
	if (refcount_dec_if_one(&obj.users))
		ret = __kslot_map_remove_if(&map, h, &obj);
	kslot_map_unlock(&map, flags);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h), &obj);
	refcount_dec(&obj.users);
	flags = kslot_map_lock(&map);
	KUNIT_EXPECT_EQ(test, __kslot_map_remove_if(&map, h, NULL), -EBUSY);
	if (refcount_dec_if_one(&obj.users))
		ret = __kslot_map_remove_if(&map, h, &obj);
	KUNIT_EXPECT_EQ(test, __kslot_map_remove_if(&map, h, &obj), -ENOENT);
	kslot_map_unlock(&map, flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&obj.users), 0);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_count(&map), 0);
	kslot_map_destroy(&map, NULL, NULL);
}

/* 32-bit ids: nonzero, below 2^31, and a stale id is refused. */
static void kslot_map_test_handle32(struct kunit *test)
{
	struct kslot_map map;
	u64 h = 0, h2 = 0;
	u32 id;

	KUNIT_ASSERT_EQ(test, kslot_map_init(&map, NULL, BIT(20),
					     KSLOT_MAP_HANDLE32 |
					     KSLOT_MAP_LOCK_IRQ), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_tag(&map), 0);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h, NULL, GFP_KERNEL), 0);
	/* 20 index bits: generation 1 at bit 20. */
	KUNIT_EXPECT_EQ(test, h, BIT(20));
	id = h;
	KUNIT_EXPECT_EQ(test, kslot_map_replace_if(&map, id, NULL, COOKIE(1)),
			0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, id), COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_map_remove_if(&map, id, COOKIE(1)), 0);
	/* The slot is reused at once; the old id does not reach it. */
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&map, &h2, COOKIE(2),
					      GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, h2, 3 * BIT(20));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&map, id));
	KUNIT_EXPECT_EQ(test, kslot_map_replace_if(&map, id, COOKIE(2), NULL),
			-ENOENT);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(&map, h2), COOKIE(2));
	kslot_map_destroy(&map, NULL, NULL);
}

KSLOT_DEFINE_HANDLE(test_ctx_handle);
KSLOT_DEFINE_HANDLE32(test_buf_id);

/*
 * A driver's typed wrappers: only a struct test_ctx_handle reaches the
 * context map, only a struct test_buf_id the buffer map.  Passing one
 * for the other does not compile:
 *
 *	test_buf_lookup(&bufs, ctx);
 *	error: incompatible type for argument 2 of 'test_buf_lookup'
 */
static void *test_ctx_lookup(struct kslot_map *ctxs, struct test_ctx_handle h)
{
	return kslot_map_lookup(ctxs, test_ctx_handle_raw(h));
}

static void *test_buf_lookup(struct kslot_map *bufs, struct test_buf_id id)
{
	return kslot_map_lookup(bufs, test_buf_id_raw(id));
}

static void kslot_map_test_typed_handles(struct kunit *test)
{
	struct kslot_map ctxs, bufs;
	struct test_ctx_handle ctx, none = {};
	struct test_buf_id buf;
	u64 h = 0;

	map_init(test, &ctxs, 16);
	KUNIT_ASSERT_EQ(test, kslot_map_init(&bufs, NULL, 16,
					     KSLOT_MAP_HANDLE32), 0);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&ctxs, &h, COOKIE(1),
					      GFP_KERNEL), 0);
	ctx = test_ctx_handle_from_raw(h);
	KUNIT_EXPECT_EQ(test, test_ctx_handle_raw(ctx), h);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(&bufs, &h, COOKIE(2),
					      GFP_KERNEL), 0);
	buf = test_buf_id_from_raw(h);
	/* 16 entries: 4 index bits, generation 1 at bit 4. */
	KUNIT_EXPECT_EQ(test, buf.raw, 0x10);
	KUNIT_EXPECT_EQ(test, sizeof(ctx), sizeof(u64));
	KUNIT_EXPECT_EQ(test, sizeof(buf), sizeof(u32));
	KUNIT_EXPECT_FALSE(test, __same_type(ctx, buf));
	KUNIT_EXPECT_PTR_EQ(test, test_ctx_lookup(&ctxs, ctx), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, test_buf_lookup(&bufs, buf), COOKIE(2));
	KUNIT_EXPECT_TRUE(test, test_ctx_handle_is_null(none));
	KUNIT_EXPECT_FALSE(test, test_ctx_handle_is_null(ctx));
	KUNIT_EXPECT_FALSE(test, test_buf_id_is_null(buf));
	KUNIT_EXPECT_NULL(test, test_ctx_lookup(&ctxs, none));
	/* Forced through raw values, the two formats still never match. */
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&bufs,
						 test_ctx_handle_raw(ctx)));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(&ctxs, test_buf_id_raw(buf)));
	kslot_map_destroy(&ctxs, NULL, NULL);
	kslot_map_destroy(&bufs, NULL, NULL);
}

/* A map defined statically, as DEFINE_XARRAY() defines an array. */
static DEFINE_KSLOT_MAP(kslot_map_test_static, 64, KSLOT_MAP_LOCK_BH);

static void kslot_map_test_define(struct kunit *test)
{
	struct kslot_map *map = &kslot_map_test_static;
	struct kslot_slots_stats st;
	unsigned long flags;
	struct kslot_map rt;
	u64 h, h2;

	KUNIT_EXPECT_EQ(test, kslot_map_count(map), 0);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(map,
						 kslot_test_handle(&map->slots,
								   0, 0, 1)));
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(map, &h, COOKIE(1), GFP_KERNEL), 0);
	/* Its tag is drawn at the first growth. */
	KUNIT_EXPECT_LE(test, kslot_slots_tag(&map->slots), KSLOT_TAG_MASK);
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_tag(&map->slots, h),
			kslot_map_tag(map));
	/* The format of 64 entries, set statically: 6 index bits. */
	KUNIT_EXPECT_EQ(test, h, kslot_slots_handle_make(&map->slots, 0, 1));
	KUNIT_EXPECT_EQ(test, kslot_slots_gen_bits(&map->slots), 49);
	/* As kslot_map_init() sets it. */
	map_init(test, &rt, 64);
	KUNIT_EXPECT_EQ(test, map->slots.index_mask, 63);
	KUNIT_EXPECT_EQ(test, map->slots.index_mask, rt.slots.index_mask);
	KUNIT_EXPECT_EQ(test, map->slots.tag_shift, rt.slots.tag_shift);
	KUNIT_EXPECT_EQ(test, map->slots.gen_shift, rt.slots.gen_shift);
	KUNIT_EXPECT_EQ(test, map->slots.gen_low, rt.slots.gen_low);
	KUNIT_EXPECT_EQ(test, map->slots.gen_bits, rt.slots.gen_bits);
	kslot_map_destroy(&rt, NULL, NULL);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_lookup(map, h), COOKIE(1));
	flags = kslot_map_lock(map);
	KUNIT_EXPECT_EQ(test, __kslot_map_alloc(map, &h2, COOKIE(2)), 0);
	kslot_map_unlock(map, flags);
	KUNIT_EXPECT_PTR_EQ(test, kslot_map_remove(map, h), COOKIE(1));
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(map, h));
	kslot_map_stats(map, &st);
	KUNIT_EXPECT_EQ(test, st.count, 1);
	KUNIT_EXPECT_EQ(test, st.max_entries, 64);
	kslot_map_destroy(map, NULL, NULL);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(map, h2));
}

/*
 * A static map's tag read before its first allocation is the tag its
 * handles carry: the read draws it.
 */
static DEFINE_KSLOT_MAP(kslot_map_test_static_tag, 64, 0);

static void kslot_map_test_define_tag(struct kunit *test)
{
	struct kslot_map *map = &kslot_map_test_static_tag;
	u32 tag = kslot_map_tag(map);
	u64 h;

	KUNIT_EXPECT_LE(test, tag, KSLOT_TAG_MASK);
	KUNIT_EXPECT_EQ(test, kslot_map_tag(map), tag);
	KUNIT_ASSERT_EQ(test, kslot_map_alloc(map, &h, COOKIE(1), GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_tag(&map->slots, h), tag);
	KUNIT_EXPECT_EQ(test, kslot_map_tag(map), tag);
	kslot_map_destroy(map, NULL, NULL);
}

/* A zeroed map is an empty one: it holds nothing and takes nothing. */
static void kslot_map_test_zeroed(struct kunit *test)
{
	struct kslot_map *map = kunit_kzalloc(test, sizeof(*map), GFP_KERNEL);
	/* Any nonzero value: a zeroed map has no format. */
	u64 h = BIT_ULL(32);
	struct kslot_slots_stats st;

	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_EXPECT_NULL(test, kslot_map_lookup(map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_count(map), 0);
	KUNIT_EXPECT_EQ(test, kslot_map_alloc(map, &h, COOKIE(1), GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_NULL(test, kslot_map_remove(map, h));
	KUNIT_EXPECT_EQ(test, kslot_map_replace(map, h, COOKIE(1), NULL),
			-ENOENT);
	kslot_map_stats(map, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, 0);
	KUNIT_EXPECT_EQ(test, st.rejected, 0);
	kslot_map_destroy(map, NULL, NULL);
}

static struct kunit_case kslot_map_test_cases[] = {
	KUNIT_CASE(kslot_map_test_init),
	KUNIT_CASE(kslot_map_test_define),
	KUNIT_CASE(kslot_map_test_define_tag),
	KUNIT_CASE(kslot_map_test_zeroed),
	KUNIT_CASE(kslot_map_test_alloc),
	KUNIT_CASE(kslot_map_test_lookup),
	KUNIT_CASE(kslot_map_test_remove),
	KUNIT_CASE(kslot_map_test_replace),
	KUNIT_CASE(kslot_map_test_placeholder),
	KUNIT_CASE(kslot_map_test_count),
	KUNIT_CASE(kslot_map_test_destroy),
	KUNIT_CASE(kslot_map_test_stats),
	KUNIT_CASE(kslot_map_test_get),
	KUNIT_CASE(kslot_map_test_irq_context),
	KUNIT_CASE(kslot_map_test_seed_timeline),
	KUNIT_CASE(kslot_map_test_null_handle),
	KUNIT_CASE(kslot_map_test_forged),
	KUNIT_CASE(kslot_map_test_retire),
	KUNIT_CASE(kslot_map_test_growth),
	KUNIT_CASE(kslot_map_test_enospc),
	KUNIT_CASE(kslot_map_test_iterate_remove),
	KUNIT_CASE(kslot_map_test_find),
	KUNIT_CASE(kslot_map_test_random),
	KUNIT_CASE_SLOW(kslot_map_test_concurrency),
	KUNIT_CASE(kslot_map_test_fault),
	KUNIT_CASE(kslot_map_test_lock),
	KUNIT_CASE(kslot_map_test_reserve_preload),
	KUNIT_CASE(kslot_map_test_locked_alloc),
	KUNIT_CASE(kslot_map_test_locked_replace),
	KUNIT_CASE(kslot_map_test_locked_remove),
	KUNIT_CASE(kslot_map_test_replace_if),
	KUNIT_CASE(kslot_map_test_locked_replace_if),
	KUNIT_CASE(kslot_map_test_remove_if),
	KUNIT_CASE(kslot_map_test_locked_remove_if),
	KUNIT_CASE(kslot_map_test_handle32),
	KUNIT_CASE(kslot_map_test_typed_handles),
	{}
};

static struct kunit_suite kslot_map_test_suite = {
	.name = "kslot_map",
	.test_cases = kslot_map_test_cases,
};

kunit_test_suite(kslot_map_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_map");
MODULE_LICENSE("GPL");
